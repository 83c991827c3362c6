"""Library kernels with documented classes: the standard library, numpy and sortedcontainers.

Each function is a perfguard benchmark factory: called with the size ``n`` (setup, not
timed), it returns the zero-argument callable perfguard times. The class each one is
declared with in ``perfguard.yml`` is the one its documentation (or the algorithm it
names) gives; nothing here was tuned to make a fit come out right. Inputs are seeded.

``sortedcontainers`` is not a perfguard dependency: ``rounds.py setup`` installs a pinned
copy under ``work/site/corpus`` and puts it on ``PYTHONPATH``.
"""

from __future__ import annotations

import bisect
import collections
import hashlib
import heapq
import itertools
import json
import random
import re
import sqlite3

import numpy as np


def _floats(n: int) -> list[float]:
    rng = random.Random(n)
    return [rng.random() for _ in range(n)]


def _words(n: int) -> list[str]:
    rng = random.Random(n)
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choices(letters, k=12)) for _ in range(n)]


# ---------------------------------------------------------------- O(1)


def dict_lookup(n: int):
    """dict: average O(1) lookup (the stored key object, so no int equality test)."""
    table = {k: k for k in range(n)}
    key = list(table)[n // 2]
    return lambda: table[key]


def set_contains(n: int):
    """set: average O(1) membership of 16 present strings."""
    words = _words(n)
    members = set(words)
    probes = [words[(i * n) // 16] for i in range(16)]
    return lambda: [w in members for w in probes]


def deque_ends(n: int):
    """collections.deque: O(1) append and popleft at the ends of a deque of n items."""
    queue = collections.deque(range(n))

    def run() -> None:
        for _ in range(16):
            queue.append(queue.popleft())

    return run


# ---------------------------------------------------------------- O(log n)


def bisect_search(n: int):
    """bisect: O(log n) binary search of 16 probes in a sorted list of n random floats."""
    items = sorted(_floats(n))
    probes = _floats(16)
    return lambda: [bisect.bisect_right(items, p) for p in probes]


def heap_push_pop(n: int):
    """heapq.heappushpop: O(log n) on a heap of n floats (each push is above the minimum,
    so every call sifts the new item down to a leaf and back up)."""
    heap = _floats(n)
    heapq.heapify(heap)

    def run() -> None:
        for _ in range(16):
            heapq.heappushpop(heap, heap[0] + 1.0)

    return run


def sqlite_index_lookup(n: int):
    """sqlite3: a primary-key lookup in a B-tree of n rows, O(log n), 16 per call."""
    db = sqlite3.connect(":memory:")
    db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v REAL)")
    db.executemany("INSERT INTO t VALUES (?, ?)", ((i, i * 0.5) for i in range(n)))
    keys = [((i * n) // 16,) for i in range(16)]
    query = "SELECT v FROM t WHERE id = ?"

    def run() -> None:
        for key in keys:
            db.execute(query, key).fetchone()

    return run


def sortedlist_add(n: int):
    """sortedcontainers.SortedList: add and remove, documented approximately O(log n)."""
    from sortedcontainers import SortedList

    values = _floats(n)
    keys = values[: min(n, 16)]
    sl = SortedList(values)

    def run() -> None:
        for key in keys:
            sl.add(key)
            sl.remove(key)

    return run


# ---------------------------------------------------------------- O(n)


def sum_floats(n: int):
    """sum(): O(n), one pass over a list of n floats."""
    values = _floats(n)
    return lambda: sum(values)


def str_join(n: int):
    """str.join: O(total length), n words of 12 letters."""
    words = _words(n)
    return lambda: " ".join(words)


def json_dumps(n: int):
    """json.dumps: O(n) for a list of n small dicts."""
    rows = [{"id": i, "name": w, "score": f} for i, (w, f) in enumerate(zip(_words(n), _floats(n)))]
    return lambda: json.dumps(rows)


def json_loads(n: int):
    """json.loads: O(n) for the text of a list of n small dicts."""
    rows = [{"id": i, "name": w, "score": f} for i, (w, f) in enumerate(zip(_words(n), _floats(n)))]
    text = json.dumps(rows)
    return lambda: json.loads(text)


def re_search(n: int):
    """re.search of a literal-led pattern that is absent: one linear scan of n characters."""
    text = "".join(random.Random(n).choices("abcdefgh", k=n))
    pattern = re.compile(r"xyz\d+")
    return lambda: pattern.search(text)


def list_insert_front(n: int):
    """list.insert(0, x) then pop(0): O(n) each (every item moves one slot)."""
    items = list(range(n))

    def run() -> None:
        items.insert(0, -1)
        items.pop(0)

    return run


def counter_build(n: int):
    """collections.Counter over n words from a vocabulary of 1000: O(n)."""
    rng = random.Random(n)
    vocabulary = _words(1000)
    words = [vocabulary[rng.randrange(1000)] for _ in range(n)]
    return lambda: collections.Counter(words)


def sha256_bytes(n: int):
    """hashlib.sha256 of n bytes: O(n)."""
    data = random.Random(n).randbytes(n)
    return lambda: hashlib.sha256(data).digest()


def accumulate_list(n: int):
    """itertools.accumulate: running sums of n floats, O(n)."""
    values = _floats(n)
    return lambda: list(itertools.accumulate(values))


def yaml_safe_load(n: int):
    """PyYAML safe_load (pure-Python loader) of a mapping of n entries: O(n)."""
    import yaml

    text = "".join(f"key{i}: {w}\n" for i, w in enumerate(_words(n)))
    return lambda: yaml.load(text, Loader=yaml.SafeLoader)


def np_cumsum(n: int):
    """numpy.cumsum of n float64: O(n)."""
    values = np.random.default_rng(n).random(n)
    return lambda: np.cumsum(values)


def np_dot(n: int):
    """numpy.dot of two vectors of n float64: O(n)."""
    rng = np.random.default_rng(n)
    a, b = rng.random(n), rng.random(n)
    return lambda: np.dot(a, b)


# ---------------------------------------------------------------- O(n log n)


def sorted_floats(n: int):
    """sorted() of n random floats: O(n log n) comparisons (Timsort / Powersort)."""
    values = _floats(n)
    return lambda: sorted(values)


def sorted_strings(n: int):
    """sorted() of n random 12-letter strings: O(n log n) comparisons."""
    words = _words(n)
    return lambda: sorted(words)


def list_sort_ints(n: int):
    """list.sort of a fresh copy of n random ints: O(n log n) (the copy is O(n))."""
    rng = random.Random(n)
    values = [rng.randrange(1 << 30) for _ in range(n)]

    def run() -> None:
        copy = values[:]
        copy.sort()

    return run


def np_sort(n: int):
    """numpy.sort (introsort / radix-free quicksort) of n random float64: O(n log n)."""
    values = np.random.default_rng(n).random(n)
    return lambda: np.sort(values, kind="quicksort")


# ---------------------------------------------------------------- O(n^2)


def pairs_combinations(n: int):
    """itertools.combinations(range(n), 2), consumed: n(n-1)/2 pairs, O(n^2)."""
    return lambda: collections.deque(itertools.combinations(range(n), 2), maxlen=0)
