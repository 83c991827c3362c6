"""Five functions of known complexity, the bundled example for `perfguard run`.

Each function is a benchmark factory: perfguard calls it with the size ``n`` (setup,
not timed) and times the zero-argument callable it returns.
"""

from __future__ import annotations

import bisect
import functools
import random


def lookup(n: int):
    """O(1): one dict lookup in a dict of n keys."""
    table = {k: k for k in range(n)}
    # The stored key object itself: a fresh int of equal value above 256 would add an
    # equality test to every lookup and show up as a step in the curve.
    key = list(table)[n // 2]
    return lambda: table[key]


def search(n: int):
    """O(log n): binary search (bisect) for 16 keys in a sorted list of n items."""
    items = list(range(0, 2 * n, 2))
    keys = [items[(i * n) // 16] + 1 for i in range(16)]

    def run() -> None:
        for key in keys:
            bisect.bisect_left(items, key)

    return run


def total(n: int):
    """O(n): sum of a list of n floats."""
    values = [float(i) for i in range(n)]
    return lambda: sum(values)


def _compare(a: float, b: float) -> int:
    return (a > b) - (a < b)


_BY_COMPARE = functools.cmp_to_key(_compare)


def sort(n: int):
    """O(n log n): sorted() of n random floats with a Python comparison function."""
    # The comparisons (about n log2 n of them) then dominate the time. With the built-in
    # float comparison, memory traffic does, and it bends the n log n curve upwards by
    # up to 2x wherever the list outgrows a cache level.
    rng = random.Random(n)
    values = [rng.random() for _ in range(n)]
    return lambda: sorted(values, key=_BY_COMPARE)


def pairs(n: int):
    """O(n^2): count the ordered pairs with a naive double loop."""
    values = list(range(n))

    def run() -> int:
        count = 0
        for a in values:
            for b in values:
                if a < b:
                    count += 1
        return count

    return run
