"""How well perfguard states its own uncertainty: class confidence, intervals, noise, drift.

    .venv/bin/python benchmarks/noise_handling.py --seed 1 [--per-class 10]

Three seeded experiments on seed 004's function family (one term from the 43-class set
E, c0 and c1 ~ U[0.001, 1000], multiplicative uniform noise of +-n/2 %, five
repetitions, four kinds of x series):

1. calibration of the stated class probability (reliability table; exact class match),
   and coverage of the 90% prediction interval at the fourth point beyond the data;
2. accuracy of the noise estimates (seed 004's rrd vs perfguard's robust estimate) on
   clean repetitions and with one outlier repetition (x2) per kernel;
3. per-size drift: one point's repetitions all shifted, detection rate and false flags.

The temperature of the confidence was chosen on seed 0; report seed 1.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction as F
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from guard.modeling.analysis import fits_of  # noqa: E402
from guard.modeling.confidence import confidences, lead_of, predictions  # noqa: E402
from guard.modeling.drift import find_drift  # noqa: E402
from guard.modeling.evidence import evidence_from_values  # noqa: E402
from guard.modeling.noise import median_error, range_of_relative_deviation, robust_noise  # noqa: E402
from guard.modeling.penalized import PenalizedModeler  # noqa: E402
from guard.modeling.synthetic import CLASSES  # noqa: E402

E = list(CLASSES)  # seed 004's set E, 43 classes
SERIES = {  # five measured values, then P+1..P+4
    "doubling": [4, 8, 16, 32, 64, 128, 256, 512, 1024],
    "linear": [10, 20, 30, 40, 50, 60, 70, 80, 90],
    "cubic": [8, 64, 512, 4096, 32768, 8**6, 8**7, 8**8, 8**9],
    "small-linear": [2, 4, 6, 8, 10, 12, 14, 16, 18],
}
LEVELS = [2, 5, 10, 20, 50, 75, 100]


def functions(series: str, level: float, per_class: int, rng: np.random.Generator):
    """Values (K, 5, 5), x (5,), class index (K,), truth at P+1..P+4 (K, 4)."""
    xs = np.array(SERIES[series], dtype=float)
    cls = np.repeat(np.arange(len(E)), per_class)
    c0 = rng.uniform(0.001, 1000, len(cls))
    c1 = rng.uniform(0.001, 1000, len(cls))
    a = np.array([float(E[c][0]) for c in cls])[:, None]
    b = np.array([float(E[c][1]) for c in cls])[:, None]
    true = c0[:, None] + c1[:, None] * xs**a * np.log2(xs) ** b
    noise = 1 + rng.uniform(-level / 200, level / 200, (len(cls), 5, 5))
    return true[:, :5, None] * noise, xs[:5], cls, true[:, 5:]


def calibration(seed: int, per_class: int) -> str:
    rng = np.random.default_rng([seed, 1])
    stated, right, covered = [], [], []
    rows = []
    for level in LEVELS:
        lvl_cover = []
        for series in SERIES:
            values, x, cls, ahead = functions(series, level, per_class, rng)
            ev = evidence_from_values(np.asarray(x, dtype=float), values)
            fits = fits_of(ev, ev.best)
            at = float(SERIES[series][-1])
            value = np.array(
                [
                    float(f.constant + sum(c * at**a * np.log2(at) ** b for c, a, b in f.terms))
                    for f in fits
                ]
            )
            assessed = zip(
                confidences(ev, [lead_of(f) for f in fits]), predictions(ev, value, at, 0.9)
            )
            for k, (conf, pred) in enumerate(assessed):
                stated.append(conf.probability)
                right.append(lead_of(fits[k]) == E[cls[k]])
                lvl_cover.append(pred.low <= ahead[k, 3] <= pred.high)
        covered += lvl_cover
        rows.append(f"| {level}% | {100 * np.mean(lvl_cover):.1f}% |")
    p, ok = np.array(stated), np.array(right)
    out = ["| stated probability | models | mean stated | observed exact-class share |"]
    out.append("|---|---|---|---|")
    for lo, hi in [
        (0, 0.2),
        (0.2, 0.4),
        (0.4, 0.6),
        (0.6, 0.8),
        (0.8, 0.9),
        (0.9, 0.95),
        (0.95, 1.01),
    ]:
        m = (p >= lo) & (p < hi)
        if m.any():
            bucket = f"[{lo:.2f}, {min(hi, 1):.2f})"
            out.append(f"| {bucket} | {m.sum()} | {p[m].mean():.3f} | {ok[m].mean():.3f} |")
    out.append(f"\nBrier score {np.mean((p - ok) ** 2):.4f}.\n")
    out.append("| noise | 90% interval at P+4 covers the truth |")
    out.append("|---|---|")
    out += rows
    out.append(f"| all | {100 * np.mean(covered):.1f}% |")
    return "\n".join(out)


def noise_estimates(seed: int) -> str:
    rng = np.random.default_rng([seed, 2])
    out = [
        "| band | outlier rep | rrd mean abs. error | robust mean abs. error |",
        "|---|---|---|---|",
    ]
    for outlier in (False, True):
        for band in (0.02, 0.1, 0.2, 0.5, 1.0):
            err_rrd, err_rob = [], []
            for _ in range(2000):
                v = 1 + rng.uniform(-band / 2, band / 2, (5, 5))
                if outlier:
                    v[rng.integers(5), rng.integers(5)] *= 2.0
                err_rrd.append(abs(range_of_relative_deviation(v) - band) / band)
                err_rob.append(abs(robust_noise(v) - band) / band)
            out.append(
                f"| {band:.0%} | {'yes' if outlier else 'no'} | {100 * np.mean(err_rrd):.1f}% "
                f"| {100 * np.mean(err_rob):.1f}% |"
            )
    return "\n".join(out)


def drift(seed: int) -> str:
    rng = np.random.default_rng([seed, 3])
    x = np.array([16, 32, 64, 128, 256, 512, 1024, 2048.0])
    classes = [(F(0), F(1)), (F(1, 2), F(0)), (F(1), F(0)), (F(1), F(1)), (F(2), F(0))]
    out = [
        "| shift of one size | noise | flagged | flagged at the shifted size |",
        "|---|---|---|---|",
    ]
    for shift in (0.0, 0.15, 0.3, 0.6):
        for noise in (0.02, 0.1):
            flagged = at_right = total = 0
            for a, b in classes:
                k = 200
                c0, c1 = rng.uniform(0.001, 1000, k), rng.uniform(0.001, 1000, k)
                true = c0[:, None] + c1[:, None] * x ** float(a) * np.log2(x) ** float(b)
                v = true[..., None] * (1 + rng.uniform(-noise / 2, noise / 2, (k, len(x), 5)))
                j = rng.integers(1, len(x) - 1, k)
                v[np.arange(k), j, :] *= 1 + shift
                y = np.median(v, axis=-1)
                sigma = np.array([median_error(r) for r in v])
                found = find_drift(x, y, PenalizedModeler().fit(x, y), sigma)
                for i, d in enumerate(found):
                    total += 1
                    flagged += d is not None
                    at_right += d is not None and d.index == j[i]
            out.append(
                f"| +{shift:.0%} | {noise:.0%} | {100 * flagged / total:.1f}% "
                f"| {100 * at_right / total:.1f}% |"
            )
    return "\n".join(out)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-class", type=int, default=10)
    args = ap.parse_args()
    print(f"## Class confidence and intervals (seed {args.seed})\n")
    print(calibration(args.seed, args.per_class))
    print("\n## Noise estimates\n")
    print(noise_estimates(args.seed))
    print("\n## Per-size drift\n")
    print(drift(args.seed))


if __name__ == "__main__":
    main()
