"""Is the limit fair to a test at a stated level?  Its statistic, thresholded at the boundary.

    .venv/bin/python benchmarks/limit_boundary.py crossover 0.2 [--count 4000] [--seed 0] [--gate]

The limit (``limit_reference.py``) takes the 99th percentile of its statistic over all of a
level's non-regressions, many of which (improvements, same or faster) are far from its
null.  A test at level 1% must hold 1% where the null is hardest: the same-class cases.
Printed, detection / false alarms % (and on the same-class cases alone): the limit; its
statistic thresholded at the same-class cases' 99th percentile, one threshold and one per
bound class; with ``--gate`` perfguard in both modes.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import regression_gate  # noqa: E402
from limit_reference import reference_fails, statistic  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("generator", choices=("regression", "crossover"))
    ap.add_argument("level", type=float)
    ap.add_argument("--count", type=int, default=4000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--gate", action="store_true", help="perfguard's check beside it")
    args = ap.parse_args(argv)
    cases = regression_gate.generate(args.generator, args.level, args.count, args.seed)
    stat = np.array([statistic(c.sizes, c.candidate, c.base_class) for c in cases])
    regression = np.array([c.regression for c in cases])
    same = np.array([c.base_class == c.cand_class for c in cases])
    bound = np.array([c.base_class for c in cases])

    def rate(fails: np.ndarray) -> str:
        return (
            f"{fails[regression].mean() * 100:.1f} / {fails[~regression].mean() * 100:.2f} "
            f"(same class {fails[same].mean() * 100:.2f})"
        )

    print(f"{args.generator} {args.level:.0%}, seed {args.seed}: {len(cases)} cases, ", end="")
    print(f"{same.sum()} of the same class")
    print(f"  limit, 1% of all non-regressions:          {rate(reference_fails(cases))}")
    print(
        f"  1% of the same-class cases, one threshold: {rate(stat > np.quantile(stat[same], 0.99))}"
    )
    per_class = np.zeros(len(cases), dtype=bool)
    for name in np.unique(bound):
        at = same & (bound == name)
        if at.sum() >= 50:  # a 99th percentile of fewer says little
            per_class |= (bound == name) & (stat > np.quantile(stat[at], 0.99))
    print(f"  1% of each bound class's same-class cases: {rate(per_class)}")
    if args.gate:
        verdicts = regression_gate.perfguard_verdicts(cases)
        print(f"  perfguard, expectation mode:               {rate(verdicts['expectation'])}")
        print(f"  perfguard, regression mode:                {rate(verdicts['regression'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
