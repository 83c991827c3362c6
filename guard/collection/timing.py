"""Timing one in-process callable: loop calibration and one repetition per metric.

Used by the callable worker (``perfguard run``) and by the pytest plugin. A callable
that takes less than a clock tick is looped (as timeit and pyperf do): the loop count
is fixed once per point, so every repetition at that point measures the same work,
and the value reported is per call.
"""

from __future__ import annotations

import gc
import math
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence

__all__ = [
    "TIMED_METRICS",
    "UNITS",
    "MAX_LOOPS",
    "calibrate_loops",
    "measure_once",
    "relative_uncertainty",
    "enough_repetitions",
]

# Metrics measured in the worker's own process; "instructions" are counted by valgrind
# around the worker (marker.py), never in-process.
TIMED_METRICS = ("time", "cpu", "memory", "custom")
UNITS = {"time": "s", "cpu": "s", "memory": "B", "instructions": "instructions", "custom": None}
MAX_LOOPS = 1 << 24

# Expected range of k normal values in standard deviations (d2 of control charts), k = 1..5.
_RANGE_TO_SD = (math.inf, 1.128, 1.693, 2.059, 2.326)

_CLOCKS: dict[str, Callable[[], float]] = {"time": time.perf_counter, "cpu": time.process_time}


def calibrate_loops(fn: Callable[[], object], metric: str, min_time: float) -> int:
    """How many calls make one repetition last at least ``min_time`` seconds (1 if not timed)."""
    if metric not in _CLOCKS:
        return 1
    loops = 1
    while loops < MAX_LOOPS:
        elapsed = _run(fn, loops, time.perf_counter)
        if elapsed >= min_time:
            break
        # Aim a little past the target so the next try usually ends the search.
        grow = 2 if elapsed <= 0 else min(10.0, max(2.0, 1.2 * min_time / elapsed))
        loops = min(MAX_LOOPS, math.ceil(loops * grow))
    return loops


def measure_once(fn: Callable[[], object], metric: str, loops: int = 1) -> float:
    """One repetition: seconds per call (time, cpu), peak bytes (memory) or fn's value (custom)."""
    if metric in _CLOCKS:
        return _run(fn, loops, _CLOCKS[metric]) / loops
    if metric == "memory":
        return float(_peak_bytes(fn))
    if metric == "custom":
        return _custom_value(fn())
    raise ValueError(f"metric {metric!r} cannot be measured in-process; use {TIMED_METRICS}")


def relative_uncertainty(values: Sequence[float]) -> float:
    """Relative standard error of the median of repetitions."""
    # The median's standard error is about 1.2533 * sd / sqrt(k) for roughly normal values.
    return 1.2533 * relative_spread(values) / math.sqrt(max(len(values), 1))


def relative_spread(values: Sequence[float]) -> float:
    """One repetition's relative standard deviation, estimated robustly (inf: unknown)."""
    if len(values) < 2:
        return math.inf
    median = statistics.median(values)
    if median == 0:
        return 0.0 if all(v == 0 for v in values) else math.inf
    # With few values the MAD can be near zero by luck (two of three agree), so up to five
    # the range estimates sd; past that the MAD, robust to outliers.
    k = len(values)
    if k <= len(_RANGE_TO_SD):
        sd = (max(values) - min(values)) / _RANGE_TO_SD[k - 1]
    else:
        sd = 1.4826 * statistics.median(abs(v - median) for v in values)
    return sd / abs(median)


def enough_repetitions(
    values: Sequence[float], minimum: int, maximum: int, noise_target: float
) -> bool:
    """Whether a point can stop: the cap is reached, or ``minimum`` reached and noise is low."""
    if len(values) >= maximum:
        return True
    return len(values) >= minimum and relative_uncertainty(values) <= noise_target


def _run(fn: Callable[[], object], loops: int, clock: Callable[[], float]) -> float:
    # The collector would charge its pauses to whichever repetition it lands in.
    enabled = gc.isenabled()
    gc.disable()
    try:
        start = clock()
        for _ in range(loops):
            fn()
        return clock() - start
    finally:
        if enabled:
            gc.enable()


def _peak_bytes(fn: Callable[[], object]) -> int:
    started = tracemalloc.is_tracing()
    if not started:
        tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        fn()
        return max(0, tracemalloc.get_traced_memory()[1] - base)
    finally:
        if not started:
            tracemalloc.stop()


def _custom_value(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(
            f"a custom metric needs the timed callable to return a number, got {value!r}"
        )
    return float(value)
