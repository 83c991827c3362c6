"""Sparse and diagonal two-parameter designs on seed 004's function family (issue 18).

    .venv/bin/python benchmarks/sparse_designs.py [--functions 300] [--noise 2,10] [--seed 1]

Each function is one term per parameter from seed 004's exponent set E (43 classes),
coefficients U[0.001, 1000], the two terms multiplied or added (half each), plus a
constant U[0.001, 1000]; five repetitions per point, each times 1 + U[-n/2, n/2]. x runs
4..64 and y 10..160, both doubling (y = 2.5 x on the diagonal). Designs:

* ``grid``: the full 5 x 5 grid (the reference);
* ``cross+1``: Extra-P's minimum, a line per parameter through (4, 10) and the far corner;
* ``x-line+diagonal``: the x-line at y = 10 and four diagonal points (no line of y);
* ``diagonal``: the five diagonal points only.

Predicted with perfguard's default modeler at (128, 320), on the diagonal beyond the
measured range, and at (128, 10) and (4, 320), off it (a diagonal cannot know those: its
rows show what the stated prior gives there). Prints the median relative error and the
share of functions within 10%; with ``--intervals``, the share of true values inside the
stated 90% interval of ``--predict`` at each target (point_prediction.py) and its median
width (high / low).
"""

from __future__ import annotations

import argparse
import itertools
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import model_measurements  # noqa: E402
from guard.modeling.synthetic import CLASSES  # noqa: E402

XS = [4.0, 8, 16, 32, 64]
YS = [10.0, 20, 40, 80, 160]
DESIGNS = {
    "grid": list(itertools.product(XS, YS)),
    "cross+1": sorted({(x, 10.0) for x in XS} | {(4.0, y) for y in YS} | {(64.0, 160.0)}),
    "x-line+diagonal": [(x, 10.0) for x in XS] + list(zip(XS, YS))[1:],
    "diagonal": list(zip(XS, YS)),
}
TARGETS = [(128.0, 320.0), (128.0, 10.0), (4.0, 320.0)]


def functions(rng: np.random.Generator, count: int) -> np.ndarray:
    """(count, 6): class of x, class of y, c0, cx, cy, product?"""
    return np.column_stack(
        [
            rng.integers(0, len(CLASSES), (count, 2)),
            rng.uniform(0.001, 1000, (count, 3)),
            rng.integers(0, 2, count),
        ]
    )


def value(f: np.ndarray, x: float, y: float) -> float:
    (ax, bx), (ay, by) = CLASSES[int(f[0])], CLASSES[int(f[1])]
    tx = f[3] * x ** float(ax) * np.log2(x) ** float(bx)
    ty = f[4] * y ** float(ay) * np.log2(y) ** float(by)
    return float(f[2] + (tx * ty / f[4] if f[5] else tx + ty))


def measured(
    fs: np.ndarray, design: list[tuple[float, float]], noise: float, seed: int
) -> MeasurementSet:
    """Each function measured at the design's points, five repetitions each, seeded."""
    rng = np.random.default_rng(seed)
    kernels = []
    for i, f in enumerate(fs):
        points = []
        for at in design:
            reps = value(f, *at) * (1 + rng.uniform(-noise / 2, noise / 2, 5))
            points.append(Point(at, tuple(float(v) for v in reps)))
        kernels.append(Kernel(f"f{i}", "time", tuple(points)))
    return MeasurementSet(("x", "y"), tuple(kernels))


def run(fs: np.ndarray, design: list[tuple[float, float]], noise: float, seed: int) -> np.ndarray:
    """Relative errors (F, targets) of the default modeler's models."""
    result = model_measurements(measured(fs, design, noise, seed))
    models = {m.kernel: m for m in result.models}
    out = np.full((len(fs), len(TARGETS)), np.inf)
    for i, f in enumerate(fs):
        m = models.get(f"f{i}")
        if m is not None:
            for j, (x, y) in enumerate(TARGETS):
                truth = value(f, x, y)
                out[i, j] = abs(float(m.evaluate({"x": x, "y": y})) - truth) / truth
    return out


def coverage(
    fs: np.ndarray, design: list[tuple[float, float]], noise: float, seed: int
) -> list[str]:
    """Per target: % of true values inside the stated 90% interval, and the median width."""
    mset = measured(fs, design, noise, seed)
    cells = []
    for x, y in TARGETS:
        result = model_measurements(mset, predict_at={"x": x, "y": y})
        inside, widths = [], []
        for m in result.models:
            detail = m.extra("prediction")
            if detail is None:
                continue
            p = detail.prediction
            inside.append(p.low <= value(fs[int(m.kernel[1:])], x, y) <= p.high)
            widths.append(p.high / p.low)
        cells.append(f"{100 * np.mean(inside):.0f}% (x{np.median(widths):.2f})")
    return cells


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--functions", type=int, default=300)
    ap.add_argument("--noise", default="2,10", help="percent, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--intervals", action="store_true", help="the stated intervals' coverage")
    args = ap.parse_args(argv)
    fs = functions(np.random.default_rng(args.seed), args.functions)
    if args.intervals:
        head = " | ".join(f"({x:g}, {y:g}) inside / width" for x, y in TARGETS)
        print(f"| noise | design | {head} |\n|---|---|" + "---:|" * len(TARGETS))
        for noise in (float(n) / 100 for n in args.noise.split(",")):
            for name, design in DESIGNS.items():
                cells = " | ".join(coverage(fs, design, noise, args.seed))
                print(f"| {noise:.0%} | {name} | {cells} |", flush=True)
        return 0
    head = " | ".join(f"({x:g}, {y:g}) median / ≤10%" for x, y in TARGETS)
    print(f"| noise | design | modelled | {head} |")
    print("|---|---|---:|" + "---:|" * len(TARGETS))
    for noise in (float(n) / 100 for n in args.noise.split(",")):
        for name, design in DESIGNS.items():
            e = run(fs, design, noise, args.seed)
            cells = " | ".join(
                f"{100 * np.median(e[:, j]):.1f}% / {100 * np.mean(e[:, j] <= 0.1):.0f}%"
                for j in range(len(TARGETS))
            )
            modelled = int(np.isfinite(e[:, 0]).sum())
            print(f"| {noise:.0%} | {name} | {modelled} | {cells} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
