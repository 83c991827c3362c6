"""Google Benchmark's own ``Complexity()`` results: the ``_BigO`` and ``_RMS`` rows.

``BENCHMARK(BM_Sort)->Range(...)->Complexity()`` makes Google Benchmark fit
``time ~ coefficient * f(N)`` over the family's sizes and write two aggregate rows:

* ``BM_Sort_BigO``: ``big_o`` (``"(1)"``, ``"lgN"``, ``"N"``, ``"NlgN"``, ``"N^2"``,
  ``"N^3"``, ``"f(N)"`` for a user lambda), ``real_coefficient``, ``cpu_coefficient`` and
  ``time_unit``;
* ``BM_Sort_RMS``: ``rms``, the relative RMS error of the fit of the CPU time (the JSON
  reporter writes the CPU one only; the console shows both).

Rows written before run types existed (no ``run_name``, no ``aggregate_name``) are
recognised by ``big_o`` / ``rms``. A field of an unexpected type is left out rather than
refused: the result is an annotation beside perfguard's own model, not a measurement.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ..measurements import ReportedComplexity

__all__ = ["ComplexityRows", "complexity_kind"]

TOOL = "google-benchmark"
_CLASSES = {
    "(1)": "O(1)",
    "lgN": "O(log N)",
    "N": "O(N)",
    "NlgN": "O(N log N)",
    "N^2": "O(N^2)",
    "N^3": "O(N^3)",
}
_SUFFIXES = {"BigO": "_BigO", "RMS": "_RMS"}


def complexity_kind(row: dict[str, Any]) -> str | None:
    """``"BigO"`` or ``"RMS"`` for a row of Complexity()'s results, else None."""
    name = row.get("aggregate_name")
    if name in _SUFFIXES:
        return str(name)
    if "big_o" in row:
        return "BigO"
    if "rms" in row:
        return "RMS"
    return None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


class ComplexityRows:
    """Collects the BigO and RMS rows of each family, keyed by kernel name."""

    def __init__(self, seconds: dict[str, float]):
        self.seconds = seconds  # time unit -> its count per second
        self.fits: dict[str, dict[str, Any]] = {}

    def add(self, row: dict[str, Any], kind: str, kernel_of: Callable[[str], str]) -> None:
        """Keep the fields of one row; ``kernel_of`` maps a run name to a kernel name."""
        name = row.get("run_name")
        if not isinstance(name, str):
            name = row.get("name")
            if not isinstance(name, str):
                return
            name = name.removesuffix(_SUFFIXES[kind])
        fit = self.fits.setdefault(kernel_of(name), {})
        if kind == "RMS":
            fit["rms"] = _number(row.get("rms"))
            return
        fit["big_o"] = row.get("big_o")
        fit["unit"] = self.seconds.get(row.get("time_unit", "ns"))
        fit["time"] = _number(row.get("real_coefficient"))
        fit["cpu"] = _number(row.get("cpu_coefficient"))

    def reported(self, kernel: str, metric: str) -> ReportedComplexity | None:
        """Google Benchmark's fit of a kernel's metric (``time`` or ``cpu``), if it has one."""
        fit = self.fits.get(kernel, {})
        big_o = fit.get("big_o")
        if not isinstance(big_o, str) or not big_o:
            return None
        coefficient, per_second = fit.get(metric), fit.get("unit")
        if coefficient is not None and per_second is not None:
            coefficient /= per_second
        else:
            coefficient = None
        return ReportedComplexity(
            tool=TOOL,
            big_o=big_o,
            complexity=_CLASSES.get(big_o, f"O({big_o})"),
            coefficient=coefficient,
            unit=None if coefficient is None else "s",
            rms=fit.get("rms") if metric == "cpu" else None,
        )
