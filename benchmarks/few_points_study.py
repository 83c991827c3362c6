"""Three or four single values a line: which class to show, and how honest the intervals are.

    .venv/bin/python benchmarks/few_points_study.py EXTRAP_TESTS_DATA [--functions 600] \
        [--noise 2,5,10] [--seed 1]

Issue 18's first-3 line: Extra-P's MPI collectives (``mpi_data.csv``, 14 series) fitted on
32, 64, 128 ranks and predicted at 256 and 512 (and on 32..256, predicted at 512), beside
seed 004's function family fitted on the same sizes (``extrapolation_real.py --synthetic``:
one value a point, scored against the noise-free function).  Every row is one rule for
choosing the hypothesis of each kernel from the same evidence (``class_evidence`` of the
point values, no repetitions: what ``analyze`` computes for these lines), so the rows differ
only in that choice:

* ``evidence (shown class)``: today's model, the likeliest class (simpler on a tie);
* ``posterior class quantile q``: classes in growth order, the first whose cumulative
  probability reaches q (0.5: the posterior median class);
* ``predictive median at 4x``: the hypothesis whose value at four times the largest size is
  the posterior-weighted median of all hypotheses' values there; ``relative-loss optimum``
  weights each by 1 / value, the point estimate that minimises the expected relative error;
* ``least growing within s``: of the hypotheses whose relative RSS is within P s^2 of the
  best fit's, the slowest-growing class (s: a per-point noise floor for unrepeated values);
* ``least growing within T``: of the classes within T of the likeliest in log weight, the
  slowest-growing;
* ``coarse classes``: only 1, log, log^2, sqrt, n, n log n, n^1.5, n^2, n^2 log n, n^2.5, n^3;
* ``posterior mean of the values`` (arithmetic, geometric): no hypothesis at all, the
  hypotheses' values at each left-out size averaged by their weights -- not a PMNF model a
  person could read, so only a bound on what averaging over classes could give.

Then the coverage of the 90% prediction intervals ``perfguard model --predict`` states
(``analyze(..., predict_at=...)``) on the same lines: the share of left-out values inside
(measured MPI values; the synthetic functions' true values), and on the same functions
measured with five repetitions a point.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Callable
from fractions import Fraction as F
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from extrapolation_real import errors, series, synthetic_series  # noqa: E402

from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import analyze  # noqa: E402
from guard.modeling.analysis import fits_of  # noqa: E402
from guard.modeling.evidence import CLASSES, SPACE, Evidence, class_evidence  # noqa: E402
from guard.modeling.fitting import power_log_basis  # noqa: E402
from guard.modeling.result import evaluate_fits  # noqa: E402

X = np.array([32.0, 64.0, 128.0, 256.0, 512.0])
LEAD = SPACE.lead  # (H,) class index of every hypothesis; CLASSES ascend in growth
Rule = Callable[[Evidence], np.ndarray]
COARSE = {(F(a), F(b)) for a, b in [(0, 0), (0, 1), (0, 2), ("1/2", 0), (1, 0), (1, 1)]}
COARSE |= {(F(a), F(b)) for a, b in [("3/2", 0), (2, 0), (2, 1), ("5/2", 0), (3, 0)]}


def best_of_classes(ev: Evidence, classes: np.ndarray) -> np.ndarray:
    """The likeliest hypothesis of one class per kernel; the shown one where it has none."""
    h = ev.best_in_class[np.arange(ev.kernels), classes]
    return np.where(h >= 0, h, ev.best)


def class_quantile(q: float) -> Rule:
    def rule(ev: Evidence) -> np.ndarray:
        cumulative = np.cumsum(ev.class_probabilities, axis=1)
        return best_of_classes(ev, np.argmax(cumulative >= q, axis=1))

    return rule


def hypothesis_values(ev: Evidence, at: float) -> np.ndarray:
    """Every hypothesis's value at ``at`` (K, H)."""
    out = ev.coef[:, :, 0].copy()
    for h in range(1, SPACE.size):
        for i, (a, b) in enumerate(SPACE.terms(h)):
            t = power_log_basis(np.array([at]), np.array([float(a)]), np.array([float(b)]))
            out[:, h] += ev.coef[:, h, 1 + i] * t[0, 0]
    return out


def predictive_median(relative: bool) -> Rule:
    def rule(ev: Evidence) -> np.ndarray:
        y = hypothesis_values(ev, 4 * float(ev.x.max()))
        w = np.exp(ev.log_weight - ev.log_weight.max(axis=1, keepdims=True))
        w = np.where(np.isfinite(w) & (y > 0), w, 0.0)
        if relative:
            w = w / np.where(y > 0, y, 1.0)
        order = np.argsort(y, axis=1)
        cumulative = np.cumsum(np.take_along_axis(w, order, axis=1), axis=1)
        at = np.argmax(cumulative >= 0.5 * cumulative[:, -1:], axis=1)
        return order[np.arange(ev.kernels), at]

    return rule


def least_within_floor(s: float) -> Rule:
    def rule(ev: Evidence) -> np.ndarray:
        rss = np.where(np.isfinite(ev.log_weight) & np.isfinite(ev.rss), ev.rss, np.inf)
        within = rss <= rss.min(axis=1, keepdims=True) + len(ev.x) * s**2
        lead = np.broadcast_to(LEAD, rss.shape)
        slowest = np.where(within, lead, len(CLASSES)).min(axis=1)
        inside = within & (lead == slowest[:, None])
        return np.argmax(np.where(inside, ev.log_weight, -np.inf), axis=1)

    return rule


def least_within_weight(t: float) -> Rule:
    def rule(ev: Evidence) -> np.ndarray:
        lw = ev.class_log_weight
        return best_of_classes(ev, np.argmax(lw >= lw.max(axis=1, keepdims=True) - t, axis=1))

    return rule


def coarse(ev: Evidence) -> np.ndarray:
    allowed = np.array([CLASSES[c] in COARSE for c in LEAD])
    return np.argmax(np.where(allowed[None, :], ev.log_weight, -np.inf), axis=1)


RULES: dict[str, Rule] = {
    "evidence (shown class)": lambda ev: ev.best,
    "posterior class quantile 0.5": class_quantile(0.5),
    "posterior class quantile 0.3": class_quantile(0.3),
    "posterior class quantile 0.2": class_quantile(0.2),
    "posterior class quantile 0.1": class_quantile(0.1),
    "predictive median at 4x": predictive_median(relative=False),
    "relative-loss optimum at 4x": predictive_median(relative=True),
    **{f"least growing within s = {s:g}%": least_within_floor(s / 100) for s in (0.3, 1, 2, 5)},
    **{f"least growing within T = {t:g}": least_within_weight(t) for t in (0.5, 1, 2, 3)},
    "coarse classes": coarse,
}


def rule_errors(rule: Rule, data: dict, fit: int, truth: dict | None) -> np.ndarray:
    """Relative error (%) of the rule's models at the left-out sizes (S, 5 - fit)."""
    y = np.array([ys[:fit] for _, ys in data.values()])
    ev = class_evidence(X[:fit], y, np.full(len(y), np.nan), np.ones(len(y)))
    predicted = evaluate_fits(fits_of(ev, rule(ev)), X[fit:])
    return errors(data, fit, dict(zip(data, predicted)), truth)


def averaged_errors(geometric: bool, data: dict, fit: int, truth: dict | None) -> np.ndarray:
    """Relative error (%) of the weight-averaged hypotheses' values (S, 5 - fit)."""
    y = np.array([ys[:fit] for _, ys in data.values()])
    ev = class_evidence(X[:fit], y, np.full(len(y), np.nan), np.ones(len(y)))
    weight = np.exp(ev.log_weight - ev.log_weight.max(axis=1, keepdims=True))
    columns = []
    for at in X[fit:]:
        values = hypothesis_values(ev, float(at))
        w = np.where(np.isfinite(weight) & (values > 0), weight, 0.0)
        w /= w.sum(axis=1, keepdims=True)
        positive = np.where(values > 0, values, 1.0)
        mean = np.exp((w * np.log(positive)).sum(1)) if geometric else (w * positive).sum(1)
        columns.append(mean)
    return errors(data, fit, dict(zip(data, np.array(columns).T)), truth)


def coverage(data: dict, fit: int, truth: dict | None, level: float = 0.9) -> float:
    """Share of left-out values inside the stated ``level`` prediction intervals."""
    kernels = tuple(
        Kernel(name, "time", tuple(Point((float(x),), (float(v),)) for x, v in zip(X, ys[:fit])))
        for name, (_, ys) in data.items()
    )
    expected = truth or {name: ys for name, (_, ys) in data.items()}
    return interval_coverage(kernels, fit, expected, level)


def repeated(functions: int, level: float, seed: int) -> tuple[tuple[Kernel, ...], dict]:
    """The synthetic functions of ``synthetic_series`` with five repetitions a point."""
    from protocol004 import multi_parameter_functions, noisy_values

    fns = multi_parameter_functions(1, functions, np.random.default_rng([seed, 18, 3]))
    rng = np.random.default_rng([seed, 18, 5, int(level * 10)])
    kernels, truth = [], {}
    for i, fn in enumerate(fns):
        values = noisy_values(fn, X[:, None], level, rng)
        points = tuple(Point((float(x),), tuple(map(float, v))) for x, v in zip(X, values))
        kernels.append(Kernel(f"f{i:04d}", "time", points))
        truth[f"f{i:04d}"] = fn(X[:, None])
    return tuple(kernels), truth


def interval_coverage(
    kernels: tuple[Kernel, ...], fit: int, expected: dict, level: float = 0.9
) -> float:
    """Share of the ``expected`` values (at X) inside the intervals stated at the sizes left
    out when each kernel keeps its first ``fit`` sizes."""
    kernels = tuple(Kernel(k.name, k.metric, k.points[:fit]) for k in kernels)
    inside = []
    for j, at in enumerate(X[fit:]):
        for a in analyze(MeasurementSet(("p",), kernels), predict_at=float(at), level=level):
            assert a.model is not None
            p = a.model.extra("prediction").prediction
            inside.append(p.low <= expected[a.kernel.name][fit + j] <= p.high)
    return float(np.mean(inside))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="Extra-P's tests/data folder")
    ap.add_argument("--functions", type=int, default=600)
    ap.add_argument("--noise", default="2,5,10", help="percent, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    levels = [float(n) for n in args.noise.split(",")]
    sets: list[tuple[str, dict, dict | None]] = [("MPI", series(args.data), None)]
    sets += [(f"{n:g}%", *synthetic_series(args.functions, n, args.seed)) for n in levels]
    head = " | ".join(f"{name} {fit}" for fit in (3, 4) for name, _, _ in sets)
    print("mean relative error % (share within 10%), fitted on the first 3 / first 4 sizes\n")
    print(f"| rule | {head} |\n|---|" + "---:|" * (2 * len(sets)))
    scores: dict[str, Callable[[dict, int, dict | None], np.ndarray]] = {
        label: functools.partial(rule_errors, rule) for label, rule in RULES.items()
    }
    for label, geometric in (("arithmetic", False), ("geometric", True)):
        scores[f"posterior mean of the values, {label}"] = functools.partial(
            averaged_errors, geometric
        )
    for label, score in scores.items():
        cells = []
        for fit in (3, 4):
            for _, data, truth in sets:
                e = score(data, fit, truth)
                cells.append(f"{np.nanmean(e):.1f} ({100 * np.mean(e <= 10):.0f}%)")
        print(f"| {label} | {' | '.join(cells)} |", flush=True)
    print("\ncoverage of the stated 90% prediction intervals at the left-out sizes\n")
    print(f"| fitted on | {' | '.join(name for name, _, _ in sets)} |")
    print("|---|" + "---:|" * len(sets))
    for fit in (3, 4):
        cells = [f"{100 * coverage(data, fit, truth):.1f}%" for _, data, truth in sets]
        print(f"| first {fit} | {' | '.join(cells)} |", flush=True)
    print("\n... with five repetitions a point (the same functions; no MPI repetitions)\n")
    print(f"| fitted on | {' | '.join(f'{n:g}%' for n in levels)} |")
    print("|---|" + "---:|" * len(levels))
    for fit in (3, 4):
        cells = []
        for n in levels:
            kernels, truth = repeated(args.functions, n, args.seed)
            cells.append(f"{100 * interval_coverage(kernels, fit, truth):.1f}%")
        print(f"| first {fit} | {' | '.join(cells)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
