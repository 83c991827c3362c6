"""A baseline and a candidate measured over different sizes: what the gate makes of it.

    .venv/bin/python benchmarks/range_mismatch.py [--pairs 40] [--seed 0]

A pull request that changes a benchmark's sizes, or a baseline run that stopped at a smaller
size (a slower runner reaching ``size_limit`` first), gives two runs over different ranges.
Classes fitted over different ranges differ by themselves (an overhead bends the small
sizes), so a gate that compares them as they are calls an unchanged kernel a regression.

Each pair: a kernel ``c0 + c1 t(n)`` (t one of n, n log n, n^1.5, the overhead c0 equal to
the kernel's cost at n = 4096-16384), nine doubling sizes 256..65536, five repetitions of 3%
normal noise, seeded.  The candidate is the same kernel (``same``) or its class raised
(n -> n^2, n log n -> n^2, n^1.5 -> n^2: ``grown``).  Ranges: both 256..65536; the candidate
from 256 and the baseline from 1024 (``cand wider below``); the baseline stopped at 16384
(``cand wider above``); the candidate stopped at 16384 (``cand cut short``).  Printed:
regression-mode fail / inconclusive / pass %, per kind and range.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.checking.check import check  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402

SIZES = 256.0 * 2.0 ** np.arange(9)
SHAPES = {
    "n": lambda n: n,
    "n log n": lambda n: n * np.log2(n),
    "n^1.5": lambda n: n**1.5,
    "n^2": lambda n: n**2,
}
RANGES = {
    "same": (slice(0, 9), slice(0, 9)),
    "cand wider below": (slice(0, 9), slice(2, 9)),
    "cand wider above": (slice(0, 9), slice(0, 7)),
    "cand cut short": (slice(0, 7), slice(0, 9)),
}


def curve(shape: str, knee: float) -> np.ndarray:
    t = SHAPES[shape](SIZES)
    return 1e-4 * (1 + t / SHAPES[shape](knee))


def measured(values: np.ndarray, sizes: np.ndarray, rng: np.random.Generator) -> MeasurementSet:
    points = tuple(
        Point((float(x),), tuple(v * (1 + 0.03 * rng.standard_normal(5))))
        for x, v in zip(sizes, values)
    )
    return MeasurementSet(("n",), (Kernel("k", "time", points),))


def outcome(cand: MeasurementSet, base: MeasurementSet) -> str:
    v = check(cand, base).verdicts[0]
    if v.verdict == "fail" and v.regression:
        return "fail"
    return "inconclusive" if v.verdict == "inconclusive" else "pass"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pairs", type=int, default=40, help="pairs per kind, shape and range")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    print("| kind | ranges | fail % | inconclusive % | pass % | pairs |")
    print("|---|---|---:|---:|---:|---:|")
    for kind in ("same", "grown"):
        for label, (cs, bs) in RANGES.items():
            counts = {"fail": 0, "inconclusive": 0, "pass": 0}
            for shape in ("n", "n log n", "n^1.5"):
                for _ in range(args.pairs):
                    knee = float(rng.choice([4096.0, 8192.0, 16384.0]))
                    base = curve(shape, knee)
                    cand = base if kind == "same" else curve("n^2", knee)
                    counts[
                        outcome(
                            measured(cand[cs], SIZES[cs], rng), measured(base[bs], SIZES[bs], rng)
                        )
                    ] += 1
            total = sum(counts.values())
            cells = " | ".join(f"{100 * counts[k] / total:.1f}" for k in counts)
            print(f"| {kind} | {label} | {cells} | {total} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
