"""The example's five kernels, counted instead of timed: the same values on every machine.

Each factory is called with the size ``n`` and returns a callable that does the kernel's
work and returns how many basic steps it took (``metric: custom``): dict probes, binary
search halvings, additions, merge-sort moves, pair comparisons.  Counts do not
depend on the runner, so tests (tests/test_matrix.py) can compare a sharded run with an
unsharded one value for value.
"""

from __future__ import annotations

import random


def lookup(n: int):
    """O(1): one dict lookup, one probe whatever n is."""
    table = {k: k for k in range(n)}
    key = list(table)[n // 2]

    def run() -> int:
        table[key]
        return 1

    return run


def search(n: int):
    """O(log n): the halvings of a binary search for 16 keys in a sorted list of n items."""
    items = list(range(0, 2 * n, 2))
    keys = [items[(i * n) // 16] + 1 for i in range(16)]

    def run() -> int:
        steps = 0
        for key in keys:
            lo, hi = 0, len(items)
            while lo < hi:
                mid = (lo + hi) // 2
                if items[mid] < key:
                    lo = mid + 1
                else:
                    hi = mid
                steps += 1
        return steps

    return run


def total(n: int):
    """O(n): the additions of a sum of n floats."""
    values = [float(i) for i in range(n)]

    def run() -> int:
        steps, acc = 0, 0.0
        for v in values:
            acc += v
            steps += 1
        return steps

    return run


def sort(n: int):
    """O(n log n): the items a top-down merge sort of n seeded random floats moves.

    Moves, not comparisons: every level of the recursion moves all n items, so n log2 n
    exactly at powers of two, where comparisons (about n log2 n - 1.25 n) bend towards
    n^1.25 over small sizes.
    """
    rng = random.Random(n)
    values = [rng.random() for _ in range(n)]

    def merge_sort(items: list[float]) -> tuple[list[float], int]:
        if len(items) <= 1:
            return items, 0
        half = len(items) // 2
        (left, a), (right, b) = merge_sort(items[:half]), merge_sort(items[half:])
        merged: list[float] = []
        i = j = 0
        while i < len(left) and j < len(right):
            if left[i] <= right[j]:
                merged.append(left[i])
                i += 1
            else:
                merged.append(right[j])
                j += 1
        merged += left[i:] + right[j:]
        return merged, a + b + len(merged)

    return lambda: merge_sort(values)[1]


def pairs(n: int):
    """O(n^2): the comparisons of a naive double loop over n items."""
    values = list(range(n))

    def run() -> int:
        compared = 0
        for a in values:
            for b in values:
                compared += 1
                if a < b:
                    pass
        return compared

    return run
