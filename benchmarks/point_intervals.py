"""How often the stated interval of a several-parameter prediction holds the truth.

`perfguard model --predict p=512,n=9000` on a model of several parameters states the
model's value there and an interval at ``--level`` (guard/modeling/point_prediction.py).
Two checks of its coverage:

* seed 004's two-parameter functions (protocol004.py: each parameter's class from the
  set E, additive or multiplicative, coefficients U[0.001, 1000], each value times
  1 + U[-n/200, n/200]) on two designs -- the full 5 x 5 grid and the nine-point cross
  through its first corner -- with 1, 2 or 5 repetitions, predicted at P+1 and P+4 and scored
  against the noise-free function;
* Extra-P's RELeARN measurements (``text/mpa/relearn_data.txt``, seed 004's case): each
  kernel fitted on the nine points of the cross through (32, 5000) and predicted at
  P+ = (512, 9000), scored against the mean measured there.

    python benchmarks/point_intervals.py [--seed 1] [--count 60] [--data EXTRAP_TESTS_DATA]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from protocol004 import COMBOS, design_set, multi_parameter_functions, plus_points  # noqa: E402

from guard.modeling import model_measurements  # noqa: E402

LEVELS = (2, 5, 10, 20, 50)
PARAMS = ("x1", "x2")


def synthetic(seed: int, count: int, design: str, reps: int, level: int) -> tuple[int, int, float]:
    """(inside, scored, median width high/low) over the first two series combinations."""
    inside = scored = 0
    widths: list[float] = []
    for combo, kinds in enumerate(COMBOS[2][:2]):
        fns = multi_parameter_functions(2, count, np.random.default_rng([seed, 4, 2, combo]))
        rng = np.random.default_rng([seed, 4, 2, combo, level, reps])
        mset = design_set(fns, kinds, design, level, reps, rng, PARAMS)
        plus = plus_points(kinds)
        for k in (0, 3):  # P+1, the nearest, and P+4, the farthest
            point = {p: float(plus[k, j]) for j, p in enumerate(PARAMS)}
            result = model_measurements(mset, predict_at=point)
            for m in result.models:
                detail = m.extra("prediction")
                if detail is None:
                    continue
                p = detail.prediction
                truth = float(fns[int(m.kernel[1:])](plus[k : k + 1])[0])
                inside += p.low <= truth <= p.high
                scored += 1
                widths.append(p.high / p.low)
    return inside, scored, float(np.median(widths)) if widths else float("nan")


def relearn(data: Path) -> tuple[int, int, list[str]]:
    from extrapolation_real import cross_file

    path, truth = cross_file(data, Path("/tmp"))
    from guard.formats import load

    mset = load(path)
    result = model_measurements(mset, predict_at={"p": 512.0, "n": 9000.0})
    inside = scored = 0
    rows = []
    for m in result.models:
        detail = m.extra("prediction")
        if detail is None or m.kernel not in truth or truth[m.kernel] <= 0:
            continue
        p, t = detail.prediction, truth[m.kernel]
        hit = p.low <= t <= p.high
        inside += hit
        scored += 1
        rows.append(
            f"| {m.kernel} | {t:.4g} | {p.value:.4g} | {p.low:.4g}..{p.high:.4g} | "
            f"{'yes' if hit else 'no'} |"
        )
    return inside, scored, rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=40, help="functions per series combination")
    ap.add_argument("--data", type=Path, help="Extra-P's tests/data (for the RELeARN check)")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    print(f"seed {args.seed}, {args.count} functions x 2 combinations, P+1 and P+4, 90% stated")
    print("| design | repetitions | " + " | ".join(f"{n}% noise" for n in LEVELS) + " |")
    print("|---|---:|" + "---:|" * len(LEVELS))
    for design in ("grid", "cross"):
        for reps in (1, 2, 5):
            cells = []
            for level in LEVELS:
                inside, scored, width = synthetic(args.seed, args.count, design, reps, level)
                cells.append(f"{100 * inside / max(scored, 1):.1f} (x{width:.2f})")
            print(f"| {design} | {reps} | " + " | ".join(cells) + " |", flush=True)
    if args.data is not None:
        inside, scored, rows = relearn(args.data)
        print(f"\nRELeARN cross -> P+: {inside} of {scored} measured values inside")
        print("| kernel | measured | predicted | 90% interval | inside |\n|---|---:|---:|---|---|")
        print("\n".join(rows))
    print(f"\n{time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
