"""A prototype, not the gate: a parametric-bootstrap test of a bound, beside the gate and the limit.

    .venv/bin/python benchmarks/bound_bootstrap.py crossover 0.1 [--count 1000] [--draws 400]
        [--dof 4] [--seed 0]

Expectation mode of the gate benchmark (``regression_gate.py``), bound = the baseline's true
class.  For each candidate, from perfguard's own analysis of the run (point values,
per-point errors, every hypothesis's relative RSS): the statistic is the best in-bound
hypothesis's RSS minus the best above-bound one's, over the per-point error squared; its
null distribution is drawn by refitting the in-bound fit times (1 + error * eps) at each
size ``--draws`` times (eps normal, or Student-t with ``--dof`` degrees of freedom scaled to
unit sd) through the same ``class_evidence``.  A case fails at level alpha when its p-value
is below alpha; "or" also fails what the gate fails.  The regression generator mixes size
sets, and one ``class_evidence`` needs one: only the cases of its commonest set are used.
docs/benchmarks.md has the results and why this form is not in the gate.  The gate's bound
test (``guard/checking/bound_test.py``) grew out of it: its statistic is read off plain
least-squares fits instead of the evidence's visibility-pinned ones (which made the
prototype reject ``<= log n`` kernels far too often), and it must hold with any one size
left out.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import crossover_cases  # noqa: E402
import regression_gate  # noqa: E402
from limit_reference import reference_fails  # noqa: E402

from guard.modeling.analysis import kernel_lines, line_evidence  # noqa: E402
from guard.modeling.evidence import CLASSES, SPACE, class_evidence  # noqa: E402

LEAD = SPACE.lead  # (H,) class index of every hypothesis; CLASSES ascend in growth


def misfit(rss: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """Best in-bound RSS minus best above-bound RSS (K,), for bound class indices (K,)."""
    inside = LEAD[None, :] <= bound[:, None]
    return np.where(inside, rss, np.inf).min(1) - np.where(~inside, rss, np.inf).min(1)


def _tile(a: np.ndarray, times: int) -> np.ndarray:
    """``times`` copies of a (K,) or (K, P) array stacked along the first axis."""
    return np.tile(a, times) if a.ndim == 1 else np.tile(a, (times, 1))


def p_values(cases: list, draws: int, dof: float, seed: int) -> tuple[list, np.ndarray]:
    """The cases used and each one's bootstrap p-value."""
    ms = regression_gate.measurement_set(cases, "candidate")
    lines = line_evidence([ln for k in ms.kernels for ln in kernel_lines(k, ms.parameters)])
    common = Counter(id(le.group) for le in lines).most_common(1)[0][0]
    keep = [i for i, le in enumerate(lines) if id(le.group) == common]
    cases = [cases[i] for i in keep]
    ev = lines[keep[0]].group.rows([lines[i].row for i in keep])
    bound = np.array(
        [
            CLASSES.index(tuple(Fraction(v) for v in crossover_cases.CLASSES[c.base_class]))
            for c in cases
        ]
    )
    error2 = ev.sigma**2
    observed = misfit(ev.rss, bound) / error2
    inside = LEAD[None, :] <= bound[:, None]
    null = np.argmin(np.where(inside & np.isfinite(ev.log_weight), ev.rss, np.inf), axis=1)
    fitted = np.array([ev.fitted(k, null[k]) for k in range(len(cases))])
    rng = np.random.default_rng(seed)
    shape = (draws, len(cases), len(ev.x))
    eps = (
        rng.standard_t(dof, shape) * np.sqrt((dof - 2) / dof) if dof else rng.standard_normal(shape)
    )
    y = (fitted[None] * (1 + ev.sigma[None, :, None] * np.sqrt(ev.variance)[None] * eps)).reshape(
        draws * len(cases), -1
    )
    drawn = class_evidence(
        ev.x,
        y,
        _tile(ev.noise, draws),
        _tile(ev.repetitions, draws),
        ev.settings,
        _tile(ev.variance, draws),
        _tile(ev.drift, draws),
    )
    null_stat = (misfit(drawn.rss, _tile(bound, draws)) / _tile(error2, draws)).reshape(draws, -1)
    return cases, (1 + (null_stat >= observed[None]).sum(0)) / (1 + draws)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("generator", choices=("regression", "crossover"))
    ap.add_argument("level", type=float)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--dof", type=float, default=0.0, help="Student-t errors; 0: normal")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    cases = regression_gate.generate(args.generator, args.level, args.count, args.seed)
    cases, p = p_values(cases, args.draws, args.dof, args.seed)
    regression = np.array([c.regression for c in cases])
    gate = regression_gate.perfguard_verdicts(cases)["expectation"]
    limit = reference_fails(cases)

    def rate(fails: np.ndarray) -> str:
        return f"{fails[regression].mean() * 100:.1f} / {fails[~regression].mean() * 100:.2f}"

    print(f"{args.generator} {args.level:.0%}, {len(cases)} cases (detection / false alarms %)")
    for alpha in (0.01, 0.005):
        either = rate((p < alpha) | gate)
        print(f"  bootstrap alpha {alpha}: {rate(p < alpha)}; gate or bootstrap: {either}")
    print(f"  gate today: {rate(gate)}; limit: {rate(limit)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
