"""Bounds judged across a bend: synthetic sorted()-like kernels whose time per element steps up.

    .venv/bin/python benchmarks/cache_bends.py [--seeds 20] [--sizes 10..20]

n log n kernels whose time per element rises by a factor around some size (a logistic step
in log2 n, as where the working set leaves a cache level), 11 doubling sizes 2^10..2^20,
five repetitions with 2% jitter, declared ``<= n log n``; plus a plain n log n and a real
n^1.25; a gradual climb (x1.8 at 2^13, then x1.16 a doubling up to 2^20: sorted()'s shape on
this machine), an n log^2 n (a log factor) and an n^2 (a gap of n/log n); a x9 step in one
doubling with n log n on both sides (std::sort of one input repeated in Google Benchmark on
this machine: 4.4 -> 43 ns per element from 4096 to 8192, where the branch predictor stops
holding the input), low in the range and near its top. ``--sizes A..B``
measures 2^A..2^B instead (the steps stay where they are). Each row counts fail /
inconclusive / pass over the seeds, with the gate's bend rule (``check._bends``) switched
off ("before") and on ("bend rule"), and with the bend rule and this machine's cache sizes
recorded in the sets ("+ caches": the memory-hierarchy rule of ``guard/checking/memory.py``).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import guard.checking.check as gate  # noqa: E402
from guard.checking.check import CheckOptions, ExpectationRule, check  # noqa: E402
from guard.collection.caches import cache_sizes  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo  # noqa: E402

CASES = [
    (0.8, 13, 0.3),
    (0.8, 15, 0.3),
    (0.8, 17, 0.3),
    (1.0, 16, 1.0),
    (0.0, None, None),
    ("n^1.25", None, None),
    ("n log^2 n", None, None),
    ("climb", 12.5, 0.3),
    ("n^2", None, None),
    (8.0, 12.5, 0.3),
    (8.0, 17.5, 0.3),
]


def curve(sizes: np.ndarray, rise, centre, width) -> np.ndarray:
    log = np.log2(sizes)
    if rise == "n^1.25":
        return 1e-9 * sizes**1.25
    if rise == "n log^2 n":
        return 1e-9 * sizes * log**2
    if rise == "n^2":
        return 1e-12 * sizes**2
    if rise == "climb":
        step = 1 + 0.8 / (1 + np.exp(-(log - centre) / width))
        return 1e-8 * sizes * log * step * 2.0 ** (np.clip(log - 13, 0, 7) * 0.15)
    if not rise:
        return 1e-8 * sizes * log
    return 1e-8 * sizes * log * (1 + rise / (1 + np.exp(-(log - centre) / width)))


def measured(sizes: np.ndarray, values: np.ndarray, seed: int, run: RunInfo) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((float(x),), tuple(v * (1 + 0.02 * rng.standard_normal(5))))
        for x, v in zip(sizes, values)
    )
    return MeasurementSet(("n",), (Kernel("k", "time", points),), run)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    ap.add_argument("--sizes", default="10..20", help="A..B: doubling sizes 2^A..2^B")
    args = ap.parse_args(argv)
    low, _, high = args.sizes.partition("..")
    sizes = 2.0 ** np.arange(int(low), int(high) + 1)
    rule = gate._bends
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n log n"),))
    caches = RunInfo(machine={"caches": cache_sizes()})
    print(f"caches: {dict(caches.machine['caches'])}; sizes 2^{low}..2^{high}")
    print("| time per element | around n = | width (doublings) | before | bend rule | + caches |")
    print("|---|---|---|---|---|---|")
    for rise, centre, width in CASES:
        cells = []
        for on, run in ((False, RunInfo()), (True, RunInfo()), (True, caches)):
            gate._bends = rule if on else (lambda *a: {})
            seen = collections.Counter(
                check(measured(sizes, curve(sizes, rise, centre, width), s, run), None, opts)
                .verdicts[0]
                .verdict
                for s in range(args.seeds)
            )
            cells.append(f"{seen['fail']} / {seen['inconclusive']} / {seen['pass']}")
        gate._bends = rule
        label = {
            0.0: "none (n log n)",
            "n^1.25": "n^1.25 (a real class)",
            "n log^2 n": "n log^2 n (a log factor)",
            "climb": "x1.8, then x1.16 a doubling to 2^20",
            "n^2": "n^2 (a real class)",
        }.get(rise)
        label = label or f"steps up x{1 + rise:.1f}"
        where = "-" if centre is None else f"2^{centre}"
        print(f"| {label} | {where} | {width or '-'} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
