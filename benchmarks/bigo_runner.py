"""Infer big_O complexity classes for timing series and dump them as JSON.

This script is run with the *big_O* virtualenv's interpreter (PyPI package ``big_O``, import
name ``big_o``); it imports only the standard library, NumPy and ``big_o`` -- never ``guard``::

    /work/bigo-venv/bin/python benchmarks/bigo_runner.py SERIES.json --out RESULT.json \
        [--simplicity-bias B]

``SERIES.json`` is ``{"series": [{"key": str, "ns": [...], "times": [...]}, ...]}``.  Every
series goes through ``big_o.infer_big_o_class(ns, times)`` with the library's defaults (all of
``big_o.complexities.ALL_CLASSES``: Constant, Linear, Quadratic, Cubic, Polynomial,
Logarithmic, Linearithmic, Exponential; ``simplicity_bias=1e-6``), exactly as a user would call
it.  ``--simplicity-bias`` overrides the bias; note that big_O compares *absolute* sums of
squared residuals in seconds^2, so with the default bias a series whose residuals are all far
below 1e-6 s^2 (sub-millisecond timings) is classed Constant, whatever its shape.
``RESULT.json`` is::

    {"big_o_version": ..., "classes": [...], "simplicity_bias": ..., "seconds": ...,
     "n_errors": ...,
     "results": [{"key": ..., "class": "Linear", "exponent": null,
                  "coefficients": [...], "warnings": [...]}, ...]}

``class`` is the name of the winning ``ComplexityClass`` subclass.  ``exponent`` is set for
``Polynomial`` only: big_O fits ``log t = a + b log n`` and ``Polynomial.coefficients()``
returns ``(exp(a), b)``, so the exponent is ``b`` (``coeff[1]``).  NumPy warnings raised while
fitting (the Exponential class overflows ``exp(b * n)`` for large ``n``, which makes its
residuals infinite so it simply loses) are recorded per series, not printed.  A series whose
fit raises gets an ``"error"`` entry instead of a class.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from importlib import metadata

import big_o
import numpy as np
from big_o.complexities import ALL_CLASSES


def _num(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def infer(ns, times, simplicity_bias: float | None = None) -> dict:
    """The class big_O infers for one series, with its fitted coefficients and any warnings."""
    options = {} if simplicity_bias is None else {"simplicity_bias": simplicity_bias}
    ns = np.asarray(ns, dtype=float)
    times = np.asarray(times, dtype=float)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        best, _fitted = big_o.infer_big_o_class(ns, times, **options)
    if best is None:  # every class had non-finite residuals
        raise ValueError("no complexity class could be fitted")
    name = type(best).__name__
    coefficients = [_num(c) for c in best.coefficients()]
    return {
        "class": name,
        "exponent": coefficients[1] if name == "Polynomial" else None,
        "coefficients": coefficients,
        "warnings": sorted({f"{w.category.__name__}: {w.message}" for w in caught}),
    }


def run(series: list[dict], simplicity_bias: float | None = None) -> dict:
    results = []
    t0 = time.perf_counter()
    for item in series:
        entry: dict = {"key": item["key"]}
        try:
            entry.update(infer(item["ns"], item["times"], simplicity_bias))
        except Exception as exc:  # noqa: BLE001 - one bad series must not kill the run
            entry["error"] = f"{type(exc).__name__}: {exc}"
        results.append(entry)
    return {
        "big_o_version": metadata.version("big_O"),
        "classes": [c.__name__ for c in ALL_CLASSES],
        "simplicity_bias": simplicity_bias,  # None: the library default
        "seconds": time.perf_counter() - t0,
        "n_errors": sum("error" in r for r in results),
        "results": results,
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="JSON with {'series': [{'key', 'ns', 'times'}, ...]}")
    parser.add_argument("--out", required=True, help="result JSON path")
    parser.add_argument(
        "--simplicity-bias",
        type=float,
        default=None,
        help="infer_big_o_class's simplicity_bias (default: the library's own, 1e-6)",
    )
    args = parser.parse_args(argv)
    with open(args.input) as fh:
        series = json.load(fh)["series"]
    result = run(series, args.simplicity_bias)
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1, allow_nan=False)
    print(
        f"{len(series)} series ({result['n_errors']} errors) with big_O "
        f"{result['big_o_version']} in {result['seconds']:.3f}s -> {args.out}",
        file=sys.stderr,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
