"""Measure five Python functions of known complexity and write measurements@1 JSON.

    python examples/measure_python_kernels.py examples/python-kernels.json

The bundled examples/python-kernels.json was produced by this script; rerun it to
see perfguard model your own machine's timings.
"""

from __future__ import annotations

import bisect
import json
import platform
import random
import sys
import time
from datetime import datetime, timezone

SIZES = [2**k for k in range(6, 12)]  # 64 .. 2048: inside L1, one behaviour per kernel
REPETITIONS = 5


def dict_lookup(data: dict[int, int], n: int) -> int:
    return data[n // 2]


def bisect_search(data: list[int], n: int) -> int:
    return bisect.bisect_left(data, n // 3)


def total(data: list[int], n: int) -> int:
    return sum(data)


def sort_copy(data: list[int], n: int) -> list[int]:
    return sorted(data)


def pair_loop(data: list[int], n: int) -> int:
    count = 0
    for a in data[: n // 8]:
        for b in data[: n // 8]:
            count += a < b
    return count


KERNELS = {
    "dict_lookup": dict_lookup,
    "bisect": bisect_search,
    "sum": total,
    "sorted": sort_copy,
    "pair_loop": pair_loop,
}


def seconds(fn, data, n: int) -> float:
    """Best-of-batches time per call: loop enough calls to last about 5 ms."""
    calls = 1
    while True:
        start = time.perf_counter()
        for _ in range(calls):
            fn(data, n)
        elapsed = time.perf_counter() - start
        if elapsed > 5e-3:
            return elapsed / calls
        calls *= 4


def main(out: str) -> None:
    rng = random.Random(42)
    kernels = []
    for name, fn in KERNELS.items():
        points = []
        for n in SIZES:
            values = [rng.random() for _ in range(n)]
            data = (
                {i: i for i in range(n)}
                if name == "dict_lookup"
                else (sorted(range(n)) if name == "bisect" else [int(v * 256) for v in values])
            )
            # Values below 256 are CPython's cached ints: sorting them measures the
            # algorithm, not cache misses from chasing heap objects in random order.
            reps = [seconds(fn, data, n) for _ in range(REPETITIONS)]
            points.append({"at": {"n": n}, "values": reps})
        kernels.append({"name": name, "metric": "time", "unit": "s", "points": points})
    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "run": {
            "started": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "machine": {"python": platform.python_version(), "machine": platform.machine()},
        },
        "kernels": kernels,
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "python-kernels.json")
