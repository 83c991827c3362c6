"""big_O timing the example project's functions itself; run with the big_O venv's python.

    /work/bigo-venv/bin/python benchmarks/bigo_example.py examples/project [--seed S]

Each function of kernels.py is a factory ``f(n) -> callable``; big_O wants
``func(data)`` and ``data_generator(n)``, so the generator builds the callable and the
timed function calls it. Sizes span the same ranges perfguard's example config uses;
``n_repeats`` is raised from big_O's default 1 so that nanosecond calls are timeable.
Prints ``{name: class}`` as JSON.
"""

from __future__ import annotations

import argparse
import json
import random
import sys

RANGES = {
    "lookup": (16, 65536),
    "search": (16, 1 << 20),
    "total": (16, 65536),
    "sort": (16, 32768),
    "pairs": (16, 1024),
}
NAMES = {
    "Constant": "O(1)",
    "Logarithmic": "O(log n)",
    "Linear": "O(n)",
    "Linearithmic": "O(n log n)",
    "Quadratic": "O(n^2)",
    "Cubic": "O(n^3)",
}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("project")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    import big_o  # only in big_O's venv; example_project.py imports NAMES from here

    sys.path.insert(0, args.project)
    import kernels

    random.seed(args.seed)
    out = {}
    for name, (low, high) in RANGES.items():
        factory = getattr(kernels, name)
        try:
            best, _ = big_o.big_o(
                lambda run: run(),
                lambda n, factory=factory: factory(int(n)),
                min_n=low,
                max_n=high,
                n_measures=12,
                n_repeats=20 if name == "pairs" else 200,
            )
        except (IndexError, ValueError, FloatingPointError) as exc:  # big_O's own failures
            out[name] = f"error ({type(exc).__name__})"
            continue
        cls = type(best).__name__
        out[name] = NAMES.get(cls, cls)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
