"""False-alarm and detection rates of segment detection (guard/modeling/segments.py).

    .venv/bin/python benchmarks/segment_rates.py --seed 1 [--quick]

Seeded simulations of ``detect_segments`` with its default settings; every kernel gets
multiplicative uniform noise, each repetition ``y * (1 + U(-e, e))``:

1. false alarms on smooth data, where one model is right and any reported break is
   wrong.  Three kinds of function: one term ``c1 * x^a * log2(x)^b``; ``c0`` plus such
   a term; the sum of two such terms.  ``a`` from {0, 1/4, 1/3, 1/2, 2/3, 3/4, 1, 4/3,
   3/2, 5/3, 2, 5/2, 3}, ``b`` from {0, 1, 2}, not both 0; coefficients 10^U(-2, 3).
   5 repetitions, ``e`` ~ U(2%, 30%) per kernel, 5 to 12 points, half of the kernels on
   doubling x (``2^k * 2^i``, k in 1..7), half on linear x (``s * i``, s in {2, 4, 8,
   16, 64, 100, 1000}, or ``2, 3, 4, ...``).  One more row: the three kinds with one
   value per point (no repetitions).
2. detection of a change inside the range, 5 repetitions, ``e`` = 2, 5, 10%, doubling x
   (``2^k * 2^i``, k in 2..7) with 6, 8, 10, 12 points, the break after point j with at
   least three points on each side (j uniform):
   a. a level step: a ``c0 + term`` function (as above) multiplied by 1.3, 1.5 or 2
      from point j on;
   b. a growth switch: ``n`` up to a size b, ``n^2 / b`` beyond it (continuous at b),
      b ~ U(x[j-1], 2 x[j-1]), i.e. inside the gap between x[j-1] and x[j].
   A detection counts whether or not it is placed at the true gap; the share placed
   there is reported below each table.

Each table cell draws from its own random stream (derived from ``--seed`` and the
cell), so cells do not depend on each other or on the order they are run in.
``--quick`` runs a tenth of the kernels (about 20 s) to check the script; the full run
(7000 smooth kernels, 4800 with a change) takes about 3.5 minutes on one core.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guard.modeling.segments import detect_segments  # noqa: E402

POWERS = [F(0), F(1, 4), F(1, 3), F(1, 2), F(2, 3), F(3, 4), F(1)]
POWERS += [F(4, 3), F(3, 2), F(5, 3), F(2), F(5, 2), F(3)]
LOG_POWERS = [0, 1, 2]
KINDS = {"single": "one term", "c0+term": "c0 + one term", "pair": "two terms"}
STEPS = [1.3, 1.5, 2.0]
DETECT_NOISE = [0.02, 0.05, 0.10]
DETECT_POINTS = [6, 8, 10, 12]
REPETITIONS = 5

# Kernels per cell: (false alarms with repetitions per kind, without, detection).
FULL = (2000, 1000, 100)
QUICK = (200, 100, 10)


def stream(seed: int, *cell: int) -> np.random.Generator:
    """An independent random stream for one table cell."""
    return np.random.default_rng([seed, *cell])


def doubling_x(rng: np.random.Generator, points: int, first: range) -> np.ndarray:
    return 2.0 ** int(rng.integers(first.start, first.stop)) * 2.0 ** np.arange(points)


def linear_x(rng: np.random.Generator, points: int) -> np.ndarray:
    spacing = int(rng.choice([1, 2, 4, 8, 16, 64, 100, 1000]))
    if spacing == 1:  # start at 2: log2(1) = 0 would zero a pure log term
        return np.arange(2, points + 2, dtype=float)
    return spacing * np.arange(1, points + 1, dtype=float)


def term(rng: np.random.Generator, x: np.ndarray) -> np.ndarray:
    """``x^a * log2(x)^b`` with (a, b) drawn from the sets above, not both zero."""
    while True:
        a = float(POWERS[int(rng.integers(len(POWERS)))])
        b = LOG_POWERS[int(rng.integers(len(LOG_POWERS)))]
        if a or b:
            return x**a * np.log2(x) ** b


def coefficient(rng: np.random.Generator) -> float:
    return float(10 ** rng.uniform(-2, 3))


def smooth(rng: np.random.Generator, x: np.ndarray, kind: str) -> np.ndarray:
    y = coefficient(rng) * term(rng, x)
    if kind == "c0+term":
        y = y + coefficient(rng)
    elif kind == "pair":
        y = y + coefficient(rng) * term(rng, x)
    return y


def noisy(rng: np.random.Generator, y: np.ndarray, noise: float, reps: int) -> np.ndarray:
    """(P, reps) repetitions of ``y`` with multiplicative uniform noise of +-noise."""
    return y[:, None] * (1 + rng.uniform(-noise, noise, size=(len(y), reps)))


def upper_bound(hits: int, n: int, level: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper confidence bound of a binomial rate."""
    if hits >= n:
        return 1.0

    def cdf(p: float) -> float:  # P(X <= hits) for X ~ Binomial(n, p)
        if p <= 0:
            return 1.0
        logs = [
            math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + k * math.log(p) + (n - k) * math.log1p(-p)
            for k in range(hits + 1)
        ]  # fmt: skip
        top = max(logs)
        return math.exp(top) * sum(math.exp(v - top) for v in logs)

    low, high = hits / n, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) > 1 - level else (low, mid)
    return high


def percent(hits: int, n: int) -> str:
    return f"{100 * hits / n:.2f}% ({hits}/{n})"


def false_alarm_row(seed: int, row: int, kinds: list[str], reps: int, per_series: int):
    """False alarms (doubling, linear) over ``per_series`` kernels each, kinds cycled."""
    hits = []
    for column, series in enumerate(["doubling", "linear"]):
        rng = stream(seed, 1, row, column)
        found = 0
        for i in range(per_series):
            points = int(rng.integers(5, 13))
            if series == "doubling":
                x = doubling_x(rng, points, range(1, 8))
            else:
                x = linear_x(rng, points)
            y = smooth(rng, x, kinds[i % len(kinds)])
            values = noisy(rng, y, float(rng.uniform(0.02, 0.30)), reps)
            (segmentation,) = detect_segments(x, [values])
            found += segmentation is not None
        hits.append(found)
    return hits


def false_alarm_table(seed: int, per_kind: int, per_kind_single: int) -> str:
    lines = [
        "| function | repetitions | doubling x | linear x | all | 95% upper bound |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    rows = [([kind], REPETITIONS, per_kind) for kind in KINDS]
    rows.append((list(KINDS), 1, per_kind_single))
    for row, (kinds, reps, n) in enumerate(rows):
        half = n // 2
        doubling, linear = false_alarm_row(seed, row, kinds, reps, half)
        total = doubling + linear
        name = KINDS[kinds[0]] if len(kinds) == 1 else "all three, cycled"
        lines.append(
            f"| {name} | {reps} | {percent(doubling, half)} | {percent(linear, half)} "
            f"| {percent(total, 2 * half)} | {100 * upper_bound(total, 2 * half):.2f}% |"
        )
    return "\n".join(lines)


def detection_cell(seed: int, table: int, points: int, factor: float, noise: float, n: int):
    """(detections, of them at the true gap) over ``n`` kernels."""
    rng = stream(seed, 2, table, points, round(10 * factor), round(100 * noise))
    found = placed = 0
    for _ in range(n):
        x = doubling_x(rng, points, range(2, 8))
        j = int(rng.integers(3, points - 3 + 1))  # points below the break
        if table == 0:
            y = smooth(rng, x, "c0+term") * np.where(np.arange(points) >= j, factor, 1.0)
        else:
            b = x[j - 1] * rng.uniform(1.0, 2.0)
            y = np.where(x <= b, x, x * x / b) * 10 ** rng.uniform(-3, 3)
        (segmentation,) = detect_segments(x, [noisy(rng, y, noise, REPETITIONS)])
        if segmentation is not None:
            found += 1
            placed += segmentation.below == x[j - 1] and segmentation.above == x[j]
    return found, placed


def detection_table(seed: int, table: int, n: int) -> str:
    factors = STEPS if table == 0 else [0.0]
    cells = [(f, e) for f in factors for e in DETECT_NOISE]
    if table == 0:
        head = [f"×{f:g}, {100 * e:g}%" for f, e in cells]
    else:
        head = [f"noise {100 * e:g}%" for _, e in cells]
    lines = [
        "| points | " + " | ".join(head) + " |",
        "|---:|" + "---:|" * len(cells),
    ]
    found_all = placed_all = 0
    for points in DETECT_POINTS:
        rates = []
        for factor, noise in cells:
            found, placed = detection_cell(seed, table, points, factor, noise, n)
            found_all += found
            placed_all += placed
            rates.append(f"{found / n:.2f}")
        lines.append(f"| {points} | " + " | ".join(rates) + " |")
    share = placed_all / found_all if found_all else float("nan")
    lines.append(
        f"\n{n} kernels per cell; {placed_all} of {found_all} detections "
        f"({100 * share:.1f}%) at the true gap."
    )
    return "\n".join(lines)


def through_model_table(seed: int, per_cell: int) -> str:
    """Segment notes on smooth kernels through ``model_measurements`` (misfit filter on)."""
    from guard.measurements import Kernel, MeasurementSet, Point
    from guard.modeling import model_measurements

    out = ["| function | doubling x | linear x |", "|---|---:|---:|"]
    for row, kind in enumerate(KINDS):
        cells = []
        for col in range(2):
            rng = stream(seed, 3, row, col)
            hits = 0
            for _ in range(per_cell):
                points = int(rng.integers(5, 13))
                x = doubling_x(rng, points, range(1, 8)) if col == 0 else linear_x(rng, points)
                values = noisy(rng, smooth(rng, x, kind), float(rng.uniform(0.01, 0.15)), 5)
                pts = tuple(Point((float(a),), tuple(map(float, v))) for a, v in zip(x, values))
                mset = MeasurementSet(("n",), (Kernel("k", "time", pts),))
                hits += bool(model_measurements(mset).models[0].extra("segments"))
            cells.append(percent(hits, per_cell))
        out.append(f"| {KINDS[kind]} | {' | '.join(cells)} |")
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="a tenth of the kernels")
    args = ap.parse_args()
    per_kind, per_kind_single, per_cell = QUICK if args.quick else FULL
    start = time.perf_counter()
    print(f"## False alarms on smooth data (seed {args.seed})\n")
    print(
        "Noise U(2%, 30%) per kernel, 5 to 12 points; kernels per cell in parentheses; "
        "the last row cycles the three kinds.\n"
    )
    print(false_alarm_table(args.seed, per_kind, per_kind_single))
    print(f"\n## Detection of a level step (seed {args.seed})\n")
    print("Columns: step factor, noise. Doubling x, 5 repetitions.\n")
    print(detection_table(args.seed, 0, per_cell))
    print(f"\n## Detection of a growth switch n -> n^2 (seed {args.seed})\n")
    print("Doubling x, 5 repetitions.\n")
    print(detection_table(args.seed, 1, per_cell))
    print(f"\n## Segment notes on smooth kernels through perfguard model (seed {args.seed})\n")
    print("Noise U(1%, 15%), 5 to 12 points, 5 repetitions.\n")
    print(through_model_table(args.seed, per_cell * 5))
    print(f"\n({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
