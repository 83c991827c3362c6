"""The limit of the gate benchmark: a test that is told the baseline's true class.

For each case: fit the candidate's per-size medians with the baseline's true class and with
every class above it (``c0 + c1 * n^a * log2(n)^b``, c0, c1 >= 0, least squares on relative
residuals -- the first-order form of least squares in log space -- scored as the sum of
squared log residuals); the statistic is how much better the best class above fits.  The
threshold is the 99th percentile of the statistic over the non-regressions of the same
noise level and generator, so the reference has 1% false alarms by construction: it knows
the noise level and the baseline's class, which the gate does not.  It is an upper bound,
not a fair peer.  In expectation mode the bound is the baseline's class, so the reference
is the same test.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import nnls

from guard.modeling.evidence import CLASSES as ORDERS

__all__ = ["reference_fails", "statistic"]

NAMED = {
    "1": (0.0, 0.0),
    "log n": (0.0, 1.0),
    "sqrt n": (0.5, 0.0),
    "n": (1.0, 0.0),
    "n log n": (1.0, 1.0),
    "n^1.5": (1.5, 0.0),
    "n^2": (2.0, 0.0),
    "n^2 log n": (2.0, 1.0),
    "n^3": (3.0, 0.0),
}
_ALL = [(float(a), float(b)) for a, b in ORDERS]


def _log_rss(n: np.ndarray, y: np.ndarray, order: tuple[float, float]) -> float:
    a, b = order
    f = n**a * np.log2(n) ** b
    design = np.column_stack([np.ones_like(n), f]) / y[:, None]
    coef, _ = nnls(design, np.ones_like(n))
    pred = np.maximum(coef[0] + coef[1] * f, 1e-300)
    return float(((np.log(y) - np.log(pred)) ** 2).sum())


def statistic(sizes: np.ndarray, candidate: np.ndarray, told: str) -> float:
    """RSS of the told class minus the best RSS of a class above it (log space)."""
    n = np.asarray(sizes, dtype=float)
    y = np.median(candidate, axis=1)
    base = NAMED[told]
    higher = [o for o in _ALL if o > base]
    return _log_rss(n, y, base) - min(_log_rss(n, y, o) for o in higher)


def reference_fails(cases: list, quantile: float = 0.99) -> np.ndarray:
    """Which cases the told-class test fails at 1% false alarms on the non-regressions."""
    stat = np.array([statistic(c.sizes, c.candidate, c.base_class) for c in cases])
    regression = np.array([c.regression for c in cases])
    threshold = np.quantile(stat[~regression], quantile)
    return stat > threshold
