"""Bounds judged across a bend: synthetic sorted()-like kernels whose time per element steps up.

    .venv/bin/python benchmarks/cache_bends.py [--seeds 20]

n log n kernels whose time per element rises by a factor around some size (a logistic step
in log2 n, as where the working set leaves a cache level), 11 doubling sizes 2^10..2^20,
five repetitions with 2% jitter, declared ``<= n log n``; plus a plain n log n and a real
n^1.25. Each row counts fail / inconclusive / pass over the seeds, with the gate's bend
rule (``check._bends``) switched off ("before") and on ("now").
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
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402

SIZES = 2.0 ** np.arange(10, 21)
LOG = np.log2(SIZES)
CASES = [
    (0.8, 13, 0.3),
    (0.8, 15, 0.3),
    (0.8, 17, 0.3),
    (1.0, 16, 1.0),
    (0.0, None, None),
    ("n^1.25", None, None),
]


def curve(rise, centre, width) -> np.ndarray:
    if rise == "n^1.25":
        return 1e-9 * SIZES**1.25
    if not rise:
        return 1e-8 * SIZES * LOG
    return 1e-8 * SIZES * LOG * (1 + rise / (1 + np.exp(-(LOG - centre) / width)))


def measured(values: np.ndarray, seed: int) -> MeasurementSet:
    rng = np.random.default_rng(seed)
    points = tuple(
        Point((float(x),), tuple(v * (1 + 0.02 * rng.standard_normal(5))))
        for x, v in zip(SIZES, values)
    )
    return MeasurementSet(("n",), (Kernel("k", "time", points),))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=20)
    args = ap.parse_args(argv)
    rule = gate._bends
    opts = CheckOptions(rules=(ExpectationRule("*", "<= n log n"),))
    print("| time per element steps up | around n = | width (doublings) | before | now |")
    print("|---|---|---|---|---|")
    for rise, centre, width in CASES:
        cells = []
        for on in (False, True):
            gate._bends = rule if on else (lambda *a: {})
            seen = collections.Counter(
                check(measured(curve(rise, centre, width), s), None, opts).verdicts[0].verdict
                for s in range(args.seeds)
            )
            cells.append(f"{seen['fail']} / {seen['inconclusive']} / {seen['pass']}")
        gate._bends = rule
        label = {0.0: "none (n log n)", "n^1.25": "n^1.25 (a real class)"}.get(rise)
        label = label or f"x{1 + rise:.1f}"
        where = "-" if centre is None else f"2^{centre}"
        print(f"| {label} | {where} | {width or '-'} | {cells[0]} | {cells[1]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
