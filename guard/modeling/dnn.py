"""Seed 004's DNN exponent classifier: preprocessing and pure-numpy float64 inference.

Preprocessing (seed 004, Sec. IV-C): every value is divided by its point (v / x), the
points are normalised to (0, 1] by the largest, and the values are placed on 11 input
neurons at the positions ``BUCKETS`` by nearest-neighbour matching in which each
measurement fills at most one input; unused inputs are 0.  perfguard's matching is the
order-preserving one of least total distance, so the smallest point always lands left of
the next (the paper's greedy matching may swap points that crowd near 0).  Each sample is
then divided by its largest input, so inputs lie in [0, 1] whatever the coefficients --
the tanh layers saturate on raw values spanning twenty decades.  (Measured in a short
pilot, 1.5 M samples: top-1 20 % with this scaling, 11-13 % with log-scaled inputs,
16-19 % with y / max(y) instead of v / x.)

The network is dense and feed-forward: tanh hidden layers, softmax over the 43 classes of
``synthetic.CLASSES``.  Weights ship in ``weights/classifier.npz`` (written by
``training/train_dnn.py``) and are loaded once, on first use.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace
from importlib import resources

import numpy as np

from .synthetic import CLASSES

__all__ = [
    "BUCKETS",
    "WEIGHTS_FILE",
    "WEIGHTS_VERSION",
    "Classifier",
    "bucket_indices",
    "features",
    "load_classifier",
]

BUCKETS = np.array([1 / 64, 1 / 32, 1 / 16, 1 / 8, 2 / 8, 3 / 8, 4 / 8, 5 / 8, 6 / 8, 7 / 8, 1.0])
WEIGHTS_FILE = "classifier.npz"
WEIGHTS_VERSION = 1


def bucket_indices(x: np.ndarray) -> np.ndarray:
    """For sorted positive series x (N, P), the input each point fills (N, P), in order.

    The order-preserving assignment of the points x / max(x) to distinct ``BUCKETS``
    with the least total absolute distance (ties go to the left bucket); P <= 11.
    """
    x = np.atleast_2d(np.asarray(x, dtype=float))
    n, p = x.shape
    if not 1 <= p <= len(BUCKETS):
        raise ValueError(f"{p} points; the classifier takes 1 to {len(BUCKETS)}")
    pos = x / x[:, -1:]
    cost = np.abs(pos[:, :, None] - BUCKETS[None, None, :])  # (N, P, B)
    nb = len(BUCKETS)
    total = np.empty((n, p, nb))
    total[:, 0] = cost[:, 0]
    for i in range(1, p):
        # best placement of points < i with point i-1 strictly left of bucket j
        left = np.minimum.accumulate(total[:, i - 1], axis=1)
        shifted = np.concatenate([np.full((n, 1), np.inf), left[:, :-1]], axis=1)
        total[:, i] = cost[:, i] + shifted
    out = np.empty((n, p), dtype=int)
    limit = np.full(n, nb)
    for i in range(p - 1, -1, -1):
        masked = np.where(np.arange(nb)[None, :] < limit[:, None], total[:, i], np.inf)
        out[:, i] = np.argmin(masked, axis=1)
        limit = out[:, i]
    return out


def features(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Network inputs (N, 11) for values y (N, P) at x (P,) shared or (N, P) per sample.

    Per-sample x may be NaN-padded after each sample's points (as ``synthetic`` makes).
    """
    y = np.atleast_2d(np.asarray(y, dtype=float))
    x = np.asarray(x, dtype=float)
    if x.ndim == 1:
        idx = np.broadcast_to(bucket_indices(x[None, :]), y.shape)
        return _place(np.broadcast_to(x, y.shape), y, idx)
    out = np.zeros((len(y), len(BUCKETS)))
    counts = np.isfinite(x).sum(-1)
    for p in np.unique(counts):
        rows = np.flatnonzero(counts == p)
        xs, ys = x[rows, :p], y[rows, :p]
        out[rows] = _place(xs, ys, bucket_indices(xs))
    return out


def _place(x: np.ndarray, y: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """v / x scaled to a largest input of 1, placed at the matched buckets."""
    with np.errstate(invalid="ignore", divide="ignore"):
        v = y / x
        v = v / np.max(np.abs(v), axis=1, keepdims=True)
    v = np.where(np.isfinite(v), v, 0.0)
    out = np.zeros((len(y), len(BUCKETS)))
    np.put_along_axis(out, idx, v, axis=1)
    return out


@dataclass(frozen=True)
class Classifier:
    """Dense tanh network; ``weights[i]`` (in, out) and ``biases[i]`` (out,), float64."""

    weights: tuple[np.ndarray, ...]
    biases: tuple[np.ndarray, ...]

    def hidden(self, inputs: np.ndarray) -> np.ndarray:
        """Activations of the last hidden layer (N, H)."""
        h = np.asarray(inputs, dtype=np.float64)
        for w, b in zip(self.weights[:-1], self.biases[:-1]):
            h = np.tanh(h @ w + b)
        return h

    def logits(self, inputs: np.ndarray) -> np.ndarray:
        """Unnormalised class scores (N, 43)."""
        return self.hidden(inputs) @ self.weights[-1] + self.biases[-1]

    def probabilities(self, inputs: np.ndarray) -> np.ndarray:
        """Softmax class probabilities (N, 43); rows sum to 1."""
        return softmax(self.logits(inputs))

    def predict(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        """Class probabilities (K, 43) for values y (K, P) at x (P,)."""
        return self.probabilities(features(x, y))

    def with_output_layer(self, weight: np.ndarray, bias: np.ndarray) -> Classifier:
        """A copy whose output layer is replaced (domain adaptation)."""
        return replace(
            self, weights=self.weights[:-1] + (weight,), biases=self.biases[:-1] + (bias,)
        )

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The arrays of the weights file (float32 to keep the package small)."""
        arrays: dict[str, np.ndarray] = {"version": np.array(WEIGHTS_VERSION)}
        for i, (w, b) in enumerate(zip(self.weights, self.biases)):
            arrays[f"w{i}"] = np.asarray(w, dtype=np.float32)
            arrays[f"b{i}"] = np.asarray(b, dtype=np.float32)
        return arrays

    @classmethod
    def from_arrays(cls, arrays: dict[str, np.ndarray]) -> Classifier:
        """Inverse of :meth:`to_arrays`; checks the version and the shapes."""
        version = int(arrays["version"])
        if version != WEIGHTS_VERSION:
            raise ValueError(f"classifier weights version {version}, expected {WEIGHTS_VERSION}")
        layers = sum(1 for k in arrays if k.startswith("w"))
        weights = tuple(np.asarray(arrays[f"w{i}"], dtype=np.float64) for i in range(layers))
        biases = tuple(np.asarray(arrays[f"b{i}"], dtype=np.float64) for i in range(layers))
        if weights[0].shape[0] != len(BUCKETS) or weights[-1].shape[1] != len(CLASSES):
            raise ValueError("classifier weights do not map 11 inputs to 43 classes")
        return cls(weights, biases)


def softmax(logits: np.ndarray) -> np.ndarray:
    """Row-wise softmax, shifted by the row maximum for stability."""
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


@functools.cache
def load_classifier() -> Classifier:
    """The shipped classifier, read from the package once and cached."""
    ref = resources.files("guard.modeling") / "weights" / WEIGHTS_FILE
    with resources.as_file(ref) as path, np.load(path) as data:
        return Classifier.from_arrays(dict(data))
