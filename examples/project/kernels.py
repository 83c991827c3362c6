"""Five functions of known complexity, the bundled example for `perfguard run`.

Each function is a benchmark factory: perfguard calls it with the size ``n`` (setup,
not timed) and times the zero-argument callable it returns.
"""

from __future__ import annotations

import bisect
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


def sort(n: int):
    """O(n log n): a bottom-up merge sort of n random floats, in pure Python."""
    # log2(n) passes, each moving all n items in interpreted code, so the n log n work
    # dominates at every size. sorted() does not make a clean example: with the built-in
    # comparison memory traffic dominates and bends the curve upwards wherever the list
    # outgrows a cache level, and with a Python comparison (cmp_to_key) the fit still
    # wavered between n log n and n^1.2 over 2^4..2^13 in two runs out of five.
    rng = random.Random(n)
    values = [rng.random() for _ in range(n)]

    def run() -> list[float]:
        src, dst = values[:], [0.0] * n
        width = 1
        while width < n:
            for lo in range(0, n, 2 * width):
                mid, hi = min(lo + width, n), min(lo + 2 * width, n)
                i, j = lo, mid
                for k in range(lo, hi):
                    if j >= hi or (i < mid and src[i] <= src[j]):
                        dst[k] = src[i]
                        i += 1
                    else:
                        dst[k] = src[j]
                        j += 1
            src, dst = dst, src
            width *= 2
        return src

    return run


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
