"""Two runs of a kernel compared by the same statistic at each size.

A point's value is its repetitions' clipped mean (modeling/evidence.py); a tool that saves
only its statistics (pytest-benchmark's autosave without ``--benchmark-save-data``) gives
one value a size, its median.  Set side by side, the mean and the median differ by the
timings' skew, which changes with the size, and reads as growth.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence

import numpy as np

from .. import numbers
from ..measurements import MeasurementSet

__all__ = ["same_statistic"]


def same_statistic(
    current: MeasurementSet, baseline: MeasurementSet
) -> tuple[MeasurementSet, MeasurementSet, tuple[str, ...]]:
    """Both runs of a kernel read by the same statistic a size: where one holds a single
    value at every size (a tool's saved median) and the other repetitions, the other's are
    centred on their medians (``_centred_on_medians``), and a note says so.

    A point's value is its repetitions' clipped mean; set beside another run's medians,
    the two differ by the timings' skew, which changes with the size: pytest-benchmark
    3.4.1's saved medians of an unchanged test against 5.3.1's rounds read n^1.5 against
    n^1.4, "99.5% confident that its class grows faster", exit 1."""
    now, before = _single_keys(current), _single_keys(baseline)
    theirs = {k.key for k in baseline.kernels}
    mixed = [
        k.key for k in current.kernels if k.key in theirs and (k.key in now) != (k.key in before)
    ]
    if not mixed:
        return current, baseline, ()
    runs = tuple(_centred_on_medians(m, set(mixed)) for m in (current, baseline))
    names = ", ".join(name for name, _ in mixed[:5]) + (", ..." if len(mixed) > 5 else "")
    note = (
        f"{numbers.counted(len(mixed), 'kernel')} ({names}) "
        f"{'holds' if len(mixed) == 1 else 'hold'} one value a size in one run "
        "and repetitions in the other: the repetitions were centred on their medians, so both "
        "runs are compared by the same statistic"
    )
    return runs[0], runs[1], (note,)


def _single_keys(mset: MeasurementSet) -> set[tuple[str, str]]:
    """The kernels holding one value at every size."""
    return {k.key for k in mset.kernels if k.points and all(len(p.values) == 1 for p in k.points)}


def _centred_on_medians(mset: MeasurementSet, keys: set[tuple[str, str]]) -> MeasurementSet:
    """The set with these kernels' repetitions centred on their median at each point: each
    scaled by median / mean, so the point reads as its median and its spread -- what the
    run knows of its noise -- stays (collapsed to the median alone, two runs of single
    values read a growth of x157 against x124 as a regression ">99.9%" sure)."""
    kernels = tuple(
        dataclasses.replace(
            k, points=tuple(dataclasses.replace(p, values=_centred(p.values)) for p in k.points)
        )
        if k.key in keys
        else k
        for k in mset.kernels
    )
    return dataclasses.replace(mset, kernels=kernels)


def _centred(values: Sequence[float]) -> tuple[float, ...]:
    """The repetitions scaled so that their mean is their median (NaN: a failed one)."""
    ran = [v for v in values if not math.isnan(v)]
    mean = float(np.mean(ran)) if ran else math.nan
    if not ran or not mean > 0:
        return tuple(values)
    scale = float(np.median(ran)) / mean
    return tuple(v * scale for v in values)
