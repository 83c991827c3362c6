"""Issue 7: hybrid analytical + extra-trees prediction on the measured stencil dataset.

For each training fraction (5%, 10%, 20% of the configurations, drawn uniformly at
random per seed) the three models are trained on the same configurations and scored
by their mean absolute percentage error on all held-out configurations:

* analytical: the memory-traffic model of examples/stencil/perfguard.yml, calibrated
  by one factor on the training set;
* extra trees: scikit-learn's extremely randomized trees on the standardized
  parameters (log target), the pure machine-learning model;
* hybrid: perfguard's model (guard/modeling/hybrid.py): stacking + bagging with a
  cross-validated weight. Two ablations: the stacked model alone, and the stacked and
  analytical predictions always averaged 50/50 (geometric mean).

    .venv/bin/python benchmarks/hybrid_stencil.py [--data benchmarks/data/stencil7.json]
        [--seeds 10] [--json RESULT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from guard.config import load_config  # noqa: E402
from guard.formats import load  # noqa: E402
from guard.modeling.analytical import calibrate, parse_analytical  # noqa: E402
from guard.modeling.hybrid import HybridModel, mape  # noqa: E402

CONFIG = ROOT / "examples" / "stencil" / "perfguard.yml"
FRACTIONS = (0.05, 0.10, 0.20)
MODELS = ("analytical", "extra trees", "hybrid")


def dataset(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray, tuple[str, ...]]:
    mset = load(path)
    kernel = mset.kernels[0]
    x = np.array([p.at for p in kernel.points])
    y = np.array([statistics.median(p.values) for p in kernel.points])
    bench = load_config(CONFIG).benchmarks[0]
    model = parse_analytical(bench.analytical or "", mset.parameters, CONFIG.parent)
    a = model.evaluate({p: x[:, i] for i, p in enumerate(mset.parameters)})
    return x, y, a, mset.parameters


def one_split(x, y, a, fraction: float, seed: int) -> dict[str, float]:
    m = len(y)
    order = np.random.default_rng(1000 + seed).permutation(m)
    count = max(2, round(fraction * m))
    train, test = np.sort(order[:count]), np.sort(order[count:])
    scale = calibrate(a[train], y[train])
    pure = HybridModel.fit(x[train], y[train], seed=seed)
    hybrid = HybridModel.fit(x[train], y[train], a[train], seed=seed)
    hp = hybrid.predict(x[test], a[test])
    return {
        "analytical": mape(scale * a[test], y[test]),
        "extra trees": mape(pure.predict(x[test]).value, y[test]),
        "hybrid": mape(hp.value, y[test]),
        "stacked only": mape(hp.stacked, y[test]),
        "50/50 bag": mape(np.sqrt(hp.stacked * hp.analytical), y[test]),
        "weight": hybrid.weight,
        "train": count,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=ROOT / "benchmarks" / "data" / "stencil7.json")
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    x, y, a, params = dataset(args.data)
    print(
        f"{len(y)} configurations of ({', '.join(params)}); "
        f"times {y.min() * 1e3:.3g}..{y.max() * 1e3:.3g} ms"
    )
    t0 = time.perf_counter()
    results = {f: [one_split(x, y, a, f, s) for s in range(args.seeds)] for f in FRACTIONS}
    print(f"{args.seeds} seeds x {len(FRACTIONS)} sizes in {time.perf_counter() - t0:.0f} s\n")
    header = ("training set", *MODELS, "stacked only", "50/50 bag", "hybrid best in", "weight")
    print("| " + " | ".join(header) + " |")
    print("|---" * len(header) + "|")
    for f, runs in results.items():
        cells = []
        for name in (*MODELS, "stacked only", "50/50 bag"):
            vals = [r[name] for r in runs]
            cells.append(f"{statistics.mean(vals):.1f} ± {statistics.stdev(vals):.1f}")
        wins = sum(r["hybrid"] < min(r["analytical"], r["extra trees"]) for r in runs)
        weights = statistics.mean(r["weight"] for r in runs)
        print(
            f"| {f:.0%} ({runs[0]['train']}) | {' | '.join(cells)} | {wins}/{len(runs)} | "
            f"{weights:.2f} |"
        )
    if args.json:
        args.json.write_text(json.dumps({str(f): r for f, r in results.items()}, indent=1))


if __name__ == "__main__":
    main()
