"""A 3-D 7-point Jacobi stencil in numpy with spatial loop blocking (issue 7's dataset).

``stencil7(n, bx, by, bz)`` is a benchmark factory like the ones in
``examples/project``: perfguard calls it with the grid edge ``n`` and the block sizes
(setup, not timed) and times the zero-argument callable it returns, which performs
one sweep over an ``n``\u00b3 grid (plus one ghost layer on every side) block by block.
A block edge at or above ``n`` means "not blocked" along that axis.

Small blocks pay numpy's per-call overhead once per block and read a halo around each
block; large blocks stream whole planes through the cache. A memory-traffic model
sees the halo but not the per-call overhead, which is what the hybrid model learns.
"""

from __future__ import annotations

import functools

import numpy as np

ALPHA = 0.4
BETA = 0.1


@functools.cache
def _grid(n: int) -> np.ndarray:
    # One read-only grid per size, shared by every blocking of that size.
    rng = np.random.default_rng(n)
    return rng.random((n + 2, n + 2, n + 2))


def _blocks(n: int, b: int) -> list[tuple[int, int]]:
    b = max(1, min(int(b), n))
    return [(lo, min(lo + b, n + 1)) for lo in range(1, n + 1, b)]


def stencil7(n: float, bx: float, by: float, bz: float):
    """One blocked sweep ``out = ALPHA*u + BETA*(sum of the six neighbours)``."""
    n = int(n)
    u = _grid(n)
    out = np.zeros_like(u)
    tiles = [
        (k, j, i)
        for k in _blocks(n, int(bz))
        for j in _blocks(n, int(by))
        for i in _blocks(n, int(bx))
    ]

    def sweep() -> None:
        for (k0, k1), (j0, j1), (i0, i1) in tiles:
            acc = u[k0 - 1 : k1 - 1, j0:j1, i0:i1] + u[k0 + 1 : k1 + 1, j0:j1, i0:i1]
            acc += u[k0:k1, j0 - 1 : j1 - 1, i0:i1]
            acc += u[k0:k1, j0 + 1 : j1 + 1, i0:i1]
            acc += u[k0:k1, j0:j1, i0 - 1 : i1 - 1]
            acc += u[k0:k1, j0:j1, i0 + 1 : i1 + 1]
            acc *= BETA
            acc += ALPHA * u[k0:k1, j0:j1, i0:i1]
            out[k0:k1, j0:j1, i0:i1] = acc

    return sweep
