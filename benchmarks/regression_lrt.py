"""A prototype, not the gate: regression mode's "the class grew" as a likelihood-ratio test.

    .venv/bin/python benchmarks/regression_lrt.py crossover 0.1 [--count 1000] [--seed 0]
        [--draws 400] [--min-score 0.8] [--kept-share-cost 13.8] [--window 1]

Regression mode of the gate benchmark (``regression_gate.py``), all cases as one run.  The
expectation mode's bound test (``guard/checking/bound_test.py``) needs a bound; here the
baseline's measurements stand in for it.  From perfguard's own analysis of both runs (point
values, per-point weights and errors), for each pair of lines, in units of each line's
per-point error squared:

* H0, the class did not grow -- the least misfit of: both lines one shape ``1 + q t(n) /
  t(n_min)`` of the same single term ``t`` (each with its own scale, the candidate's share
  ``q`` within ``--window`` grid steps of the baseline's, a step being 0.29 in log); both
  constant; the same class with free shares plus ``--kept-share-cost`` (2 ln 1000, the
  posterior's ``kept_share`` tail); or the candidate at any class below a baseline class
  whose term grows visibly (by ``visible`` point errors) over the range;
* H1, it grew -- the candidate's best plain fit at a class above the baseline's best plain
  fit;
* T = H0 - H1; its null is drawn from H0's shared-shape fit times (1 + error x eps) at each
  size, for both lines, ``--draws`` times (common seeded normal draws).

A pair the gate does not fail, whose regression posterior is at least ``--min-score`` and
whose shown classes grew, fails at level alpha when its p-value is below alpha.  Printed:
the gate, the gate or the test at alpha 1% and 0.5%, and the limit, as detection / false
alarms %.  docs/benchmarks.md has the results and why it is not in the gate.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import regression_gate  # noqa: E402
from limit_reference import reference_fails  # noqa: E402

from guard.modeling.analysis import LineEvidence, kernel_lines, line_evidence  # noqa: E402
from guard.modeling.evidence import SPACE, EvidenceSettings, plain_fits, single_basis  # noqa: E402

SHARES = np.logspace(-3, 3, 49)  # q: the term's share of the constant at the smallest size
_ORDER = np.argsort([sorted(SPACE.singles).index(s) for s in SPACE.singles])  # ascending class
_SEED = 20261126


def _scaled_rss(y: np.ndarray, v: np.ndarray, h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Relative RSS (N, S, Q) of y (N, P) against the best positive multiple of each shape
    h (S, Q, P), and that multiple."""
    w = 1.0 / v
    u = h[None] / y[:, None, None, :]
    swu = (w[:, None, None, :] * u).sum(-1)
    swuu = (w[:, None, None, :] * u * u).sum(-1)
    return np.maximum(w.sum(-1)[:, None, None] - swu**2 / swuu, 0.0), swu / swuu


def _window_min(r: np.ndarray, steps: int) -> np.ndarray:
    out = r.copy()
    for d in range(1, steps + 1):
        out[..., d:] = np.minimum(out[..., d:], r[..., :-d])
        out[..., :-d] = np.minimum(out[..., :-d], r[..., d:])
    return out


def statistic(x, base, cand, args, null=False):
    """T (N,) of baseline and candidate rows, each (y (N, P), v (N, P), sigma (N,)); with
    ``null`` also H0's shared-shape fitted values of both (N, P) each."""
    (yb, vb, sb), (yc, vc, sc) = base, cand
    t = single_basis(x)
    lo, hi = int(np.argmin(x)), int(np.argmax(x))
    h = 1 + SHARES[None, :, None] * (t / t[:, lo : lo + 1])[:, None, :]  # (S, Q, P)
    rb, ab = _scaled_rss(yb, vb, h)
    rc, ac = _scaled_rss(yc, vc, h)
    shape_b, shape_c = rb / sb[:, None, None] ** 2, rc / sc[:, None, None] ** 2
    kb, kb_rss, fb = plain_fits(x, yb, vb)
    kc, kc_rss, fc = plain_fits(x, yc, vc)
    free_b = np.column_stack([kb_rss, fb.rss[:, _ORDER]]) / sb[:, None] ** 2  # classes ascending
    free_c = np.column_stack([kc_rss, fc.rss[:, _ORDER]]) / sc[:, None] ** 2
    shared = shape_b + _window_min(shape_c, args.window)
    n = len(yb)
    both_constant = free_b[:, 0] + free_c[:, 0]
    h0 = np.minimum(shared.reshape(n, -1).min(1), both_constant)
    h0 = np.minimum(h0, (free_b[:, 1:] + free_c[:, 1:]).min(1) + args.kept_share_cost)
    rise = (h[:, :, hi] - h[:, :, lo]) / h[:, :, hi]
    visible = rise[None] >= EvidenceSettings().visible * sb[:, None, None]
    base_visible = np.where(visible, shape_b, np.inf).min(2)[:, _ORDER]
    below = np.minimum.accumulate(free_c, 1)[:, :-1]  # candidate below each baseline class
    h0 = np.minimum(h0, (base_visible + below).min(1))
    h1 = (free_c[:, 1:] + np.minimum.accumulate(free_b, 1)[:, :-1]).min(1)
    if not null:
        return h0 - h1
    rows = np.arange(n)
    s_i, q_i = np.unravel_index(shared.reshape(n, -1).argmin(1), shared.shape[1:])
    q_c, best = q_i.copy(), shape_c[rows, s_i, q_i]
    for d in range(-args.window, args.window + 1):
        q = np.clip(q_i + d, 0, len(SHARES) - 1)
        better = shape_c[rows, s_i, q] < best
        best, q_c = np.where(better, shape_c[rows, s_i, q], best), np.where(better, q, q_c)
    fit_b = ab[rows, s_i, q_i][:, None] * h[s_i, q_i]
    fit_c = ac[rows, s_i, q_c][:, None] * h[s_i, q_c]
    constant = (both_constant <= shared.reshape(n, -1).min(1))[:, None]
    fit_b, fit_c = np.where(constant, kb[:, None], fit_b), np.where(constant, kc[:, None], fit_c)
    return h0 - h1, fit_b, fit_c


def _rows(lines: list[LineEvidence], members: list[int]):
    y = np.array([lines[i].group.y[lines[i].row] for i in members])
    v = np.array([lines[i].group.variance[lines[i].row] for i in members])
    return y, v, np.array([lines[i].group.sigma[lines[i].row] for i in members])


def p_values(x, base, cand, args, draws=None):
    """Each pair's p-value under H0's shared-shape fit, from ``draws`` redraws."""
    draws = draws or args.draws
    observed, fit_b, fit_c = statistic(x, base, cand, args, null=True)
    eps = np.random.default_rng(_SEED).standard_normal((args.draws, 2, len(x)))[:draws]
    exceed = np.zeros(len(observed))
    for block in np.array_split(eps, 8):
        drawn = []
        for fit, (_, v, s), e in ((fit_b, base, block[:, 0]), (fit_c, cand, block[:, 1])):
            y = fit[:, None, :] * (1 + s[:, None, None] * np.sqrt(v)[:, None, :] * e[None])
            rep = len(block)
            drawn.append((y.reshape(-1, len(x)), np.repeat(v, rep, 0), np.repeat(s, rep)))
        null = np.concatenate(
            [
                statistic(x, tuple(a[p] for a in drawn[0]), tuple(a[p] for a in drawn[1]), args)
                for p in np.array_split(
                    np.arange(len(drawn[0][0])), max(1, len(drawn[0][0]) // 512)
                )
            ]
        )
        exceed += (null.reshape(len(observed), len(block)) >= observed[:, None]).sum(1)
    return (1 + exceed) / (1 + draws)


def held_out_p_values(x, base, cand, args):
    """Each pair's largest p-value (100 redraws) with one size left out of both lines."""
    worst = np.zeros(len(base[0]))
    for j in range(len(x)):
        keep = np.arange(len(x)) != j
        b = (base[0][:, keep], base[1][:, keep], base[2])
        c = (cand[0][:, keep], cand[1][:, keep], cand[2])
        worst = np.maximum(worst, p_values(x[keep], b, c, args, draws=100))
    return worst


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("generator", choices=("regression", "crossover"))
    ap.add_argument("level", type=float)
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--draws", type=int, default=400)
    ap.add_argument("--min-score", type=float, default=0.8)
    ap.add_argument("--kept-share-cost", type=float, default=13.8)
    ap.add_argument("--window", type=int, default=1)
    ap.add_argument(
        "--held-out", type=float, default=0.0, help="fail only if p < this with any size left out"
    )
    args = ap.parse_args(argv)
    started = time.perf_counter()
    cases = regression_gate.generate(args.generator, args.level, args.count, args.seed)

    def lines(which: str) -> list[LineEvidence]:
        ms = regression_gate.measurement_set(cases, which)
        return line_evidence([ln for k in ms.kernels for ln in kernel_lines(k, ms.parameters)])

    cand, base = lines("candidate"), lines("baseline")
    regression = np.array([c.regression for c in cases])
    verdicts = regression_gate.perfguard_verdicts(cases)
    gate = verdicts["regression"]

    def rate(fails: np.ndarray) -> str:
        return f"{fails[regression].mean() * 100:.1f} / {fails[~regression].mean() * 100:.2f}"

    grew = np.array(
        [c.group.shown_class[c.row] > b.group.shown_class[b.row] for c, b in zip(cand, base)]
    )
    tested = ~gate & (verdicts["regression_score"] >= args.min_score) & grew
    groups: dict[tuple[float, ...], list[int]] = {}
    for i in np.flatnonzero(tested):
        x = base[i].group.x
        if (
            len(x) >= 6
            and np.array_equal(x, cand[i].group.x)
            and np.isfinite(base[i].group.noise[base[i].row])
        ):
            groups.setdefault(tuple(x), []).append(int(i))
    p = np.full(len(cases), np.nan)
    for x, members in groups.items():
        b, c = _rows(base, members), _rows(cand, members)
        found = p_values(np.array(x), b, c, args)
        sure = found < 0.01
        if args.held_out and sure.any():
            b = tuple(a[sure] for a in b)
            c = tuple(a[sure] for a in c)
            held = held_out_p_values(np.array(x), b, c, args)
            found[np.flatnonzero(sure)[held >= args.held_out]] = 1.0
        p[members] = found
    print(f"{args.generator} {args.level:.0%}, seed {args.seed}, {len(cases)} cases")
    print(f"  gate: {rate(gate)}; limit: {rate(reference_fails(cases))}")
    print(f"  tested: {sum(map(len, groups.values()))} pairs")
    for alpha in (0.01, 0.005):
        print(f"  gate or the test at {alpha:g}: {rate(gate | (p < alpha))}")
    print(f"  {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
