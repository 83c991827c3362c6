"""pytest-benchmark tests that recorded the pytest-benchmark fixtures here (see README.md).

Collected only when named on the command line: the file name does not match test_*.py.
"""

from collections import deque

import pytest

SIZES = [2**k for k in range(8, 14)]


@pytest.mark.parametrize("n", SIZES)
def test_sum(benchmark, n):
    data = list(range(n))
    benchmark(sum, data)


@pytest.mark.parametrize("n", SIZES)
def test_drain(benchmark, n):
    def drain():
        items = list(range(n))
        while items:
            items.pop(0)  # O(n) each: the drain is O(n^2)

    benchmark(drain)


@pytest.mark.parametrize("kind", ["list", "deque"])
@pytest.mark.parametrize("n", SIZES)
def test_pop_front(benchmark, n, kind):
    def drain():
        items = list(range(n)) if kind == "list" else deque(range(n))
        pop = items.pop if kind == "list" else items.popleft
        while items:
            pop(0) if kind == "list" else pop()

    benchmark(drain)


@pytest.mark.parametrize("k", [1, 2, 4, 8, 16], ids=lambda k: f"k={k}")
@pytest.mark.parametrize("n", [64, 128, 256, 512, 1024], ids=lambda n: f"n={n}")
def test_grid(benchmark, n, k):
    rows = [list(range(n, 0, -1)) for _ in range(k)]
    benchmark(lambda: [sorted(row) for row in rows])
