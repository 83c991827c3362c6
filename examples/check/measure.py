"""Measure the bundled check example: two versions of a de-duplication routine.

    python examples/check/measure.py   # rewrites base.json and cand.json beside this file

The baseline keeps order with a set (O(n)); the candidate "simplifies" it to a list
membership test (O(n^2)) -- the kind of change every unit test passes.  ``sort`` and
``lookup`` are unchanged between the two, so they must pass.
"""

from __future__ import annotations

import bisect
import json
import random
import time
from pathlib import Path

SIZES = [256, 512, 1024, 2048, 4096, 8192]
REPETITIONS = 5


def dedupe_set(items):
    seen, out = set(), []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def dedupe_list(items):
    out = []
    for x in items:
        if x not in out:
            out.append(x)
    return out


def lookup(items):
    keys = sorted(items)
    for _ in range(200):
        bisect.bisect_left(keys, 12345)


def timed(fn, n: int, rng: random.Random) -> float:
    data = [rng.randrange(10 * n) for _ in range(n)]
    start = time.perf_counter()
    fn(data)
    return time.perf_counter() - start


def measure(dedupe, commit: str) -> dict:
    rng = random.Random(0)
    kernels = {"dedupe": dedupe, "sort": sorted, "lookup": lookup}
    out = []
    for name, fn in kernels.items():
        points = []
        for n in SIZES:
            values = [timed(fn, n, rng) for _ in range(REPETITIONS)]
            points.append({"at": {"n": n}, "values": values})
        out.append({"name": name, "metric": "time", "unit": "s", "points": points})
    return {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "run": {"commit": commit, "machine": {}},
        "kernels": out,
    }


def main() -> None:
    here = Path(__file__).parent
    (here / "base.json").write_text(json.dumps(measure(dedupe_set, "base"), indent=1))
    (here / "cand.json").write_text(json.dumps(measure(dedupe_list, "cand"), indent=1))


if __name__ == "__main__":
    main()
