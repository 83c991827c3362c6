"""Correct declarations of real Python code, timed by the pytest plugin: how often they fail.

    .venv/bin/python benchmarks/plugin_false_alarms.py [--runs 10] [--python .venv/bin/python]

Seven ``@pytest.mark.scaling`` tests whose declared bound is the code's true class -- a dict
lookup and a set membership ``<= 1``, ``bisect`` ``<= log n``, ``sum`` and a list copy
``<= n``, ``sorted()`` of ints and of floats ``<= n log n`` -- over 2^8..2^16 (2^8..2^14 for
the ints, as the plugin's docstring measures), each run in a fresh pytest process. Every
failure is a false alarm: the time per unit of the bound climbs as the working set leaves
the caches, which a class cannot tell from growth on ``time``. Three more are declared below
their class (``x in list`` ``<= 1``, a quadratic ``<= n``, ``sorted()`` ``<= n``: a log
factor) and should fail. Prints each test's failures over the runs.
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

TESTS = """
import bisect
import random

import pytest

SIZES = [2**k for k in range(8, 17)]


@pytest.mark.scaling(n=SIZES, expect="<= 1")
def test_dict_lookup(n):
    d = {i: i for i in range(n)}
    keys = random.Random(0).sample(range(n), 256)
    return lambda: [d[k] for k in keys]


@pytest.mark.scaling(n=SIZES, expect="<= 1")
def test_set_membership(n):
    s = set(range(n))
    probes = random.Random(1).sample(range(2 * n), 256)
    return lambda: sum(p in s for p in probes)


@pytest.mark.scaling(n=SIZES, expect="<= log n")
def test_bisect(n):
    a = list(range(n))
    probes = random.Random(2).sample(range(n), 256)
    return lambda: [bisect.bisect_left(a, p) for p in probes]


@pytest.mark.scaling(n=SIZES, expect="<= n")
def test_sum(n):
    a = [random.random() for _ in range(n)]
    return lambda: sum(a)


@pytest.mark.scaling(n=SIZES, expect="<= n")
def test_list_copy(n):
    a = list(range(n))
    return lambda: a[:]


@pytest.mark.scaling(n=[2**k for k in range(8, 15)], expect="<= n log n")
def test_sorted_ints(n):
    data = list(range(n))
    random.Random(1).shuffle(data)
    return lambda: sorted(data)


@pytest.mark.scaling(n=SIZES, expect="<= n log n")
def test_sorted_floats(n):
    a = [random.Random(3).random() for _ in range(n)]
    return lambda: sorted(a)


# Declared below the true class: these should fail.


@pytest.mark.scaling(n=SIZES, expect="<= 1")
def test_too_tight_list_membership(n):
    a = list(range(n))
    return lambda: (n - 1) in a


@pytest.mark.scaling(n=[2**k for k in range(4, 12)], expect="<= n")
def test_too_tight_pairs(n):
    a = list(range(n))
    return lambda: [x for x in a if x in a]


@pytest.mark.scaling(n=SIZES, expect="<= n")
def test_too_tight_sorted_by_a_log_factor(n):
    a = [random.Random(4).random() for _ in range(n)]
    return lambda: sorted(a)
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    ap.add_argument("--python", default=sys.executable, help="the Python perfguard is in")
    ap.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. -p no:perfguard)")
    args = ap.parse_args(argv)
    failed: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "test_real_code.py").write_text(TESTS, encoding="utf-8")
        for _ in range(args.runs):
            done = subprocess.run(
                [args.python, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:xdist",
                 "-p", "no:cacheprovider", "-o", "addopts=", *args.pytest_args,
                 "test_real_code.py"],
                cwd=work, capture_output=True, text=True, check=False,
            )  # fmt: skip
            failed.update(re.findall(r"^FAILED test_real_code.py::(\w+)", done.stdout, re.M))
    names = re.findall(r"^def (test_\w+)", TESTS, re.M)
    print(f"| test | failed runs of {args.runs} |\n|---|---:|")
    for name in names:
        print(f"| {name} | {failed[name]} |")
    right = [n for n in names if not n.startswith("test_too_tight")]
    wrong = sum(failed[n] for n in right)
    print(f"| declared right, all | {wrong} of {args.runs * len(right)} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
