"""Whether the memory hierarchy can explain a timed kernel's excess over its declared bound.

Where a kernel's working set leaves a cache level, the time per element steps up -- in
one doubling or spread over several (a sort's scattered objects leave L1, the TLB's
reach, L2 and L3 one after the other) -- while the algorithm stays what it is.  Over a
range that spans such transitions, `time` reads a class above the algorithm's:
``sorted()`` of 2^8..2^20 floats grows as n^(4/3) on a machine with 1 MiB of L2.

The rule, for a bound exceeded on a ``time``/``cpu`` kernel measured on a machine whose
cache sizes were recorded (``run.machine.caches``):

* the **rise** is how much the time per unit of the bound's own class (per n log n for
  ``<= n log n``) grows from the smaller to the larger sizes: the largest ratio of the
  lowest per-unit cost at or above a size to the lowest below it, after a running median
  of three sizes, so a single slow or fast point does not count, and a rise must hold up
  to the top size as both a cache transition and a class gap do; read also with the
  model's constant taken off (a command's start-up falls per unit and hides the climb),
  the smaller reading counting;
* the **levels** the range can span: the working set is taken to grow in proportion to n
  (its size per element is unknown), so sizes ``n0..n1`` can span the recorded cache
  sizes that fit in one window of ratio ``n1/n0``.  The rule needs all of them (here
  n1/n0 >= 1024, L1d to L3), or two levels over a range of more than six doublings
  (``CLIMB_RANGE``, x64: ``sorted()`` of 2^8..2^14 climbs gradually through L1d and L2,
  which are x21-43 apart on current x86 cores): the climb it excuses is the working set
  moving through the hierarchy; six doublings or fewer (the gate's CI-sized ranges) are
  judged by the segment detector alone (``check._bends``), so a class gap over them stays
  decidable;
* each level can explain a rise of ``MEMORY_STEP`` (×2.5 against a bound: sustained
  bandwidth roughly halves from L1 to L2 to L3 to memory, and an algorithm's random
  accesses lose more -- a dict built and probed rises ×4-4.8 per n over 2^8..2^20 on a
  machine whose range there holds two of its levels, numpy's gather of random indexes
  ×11-16 over three; ×2 for a candidate against its baseline, ``RELATIVE_STEP``, whose
  ratio the caches mostly cancel in), so a rise up to ``MEMORY_STEP ** levels`` is what the
  memory hierarchy can explain, and the bound is not judged on ``time``: inconclusive.
* the same capacity bounds the bend rule (``check._excused``): a bend inside the range is
  excused "as where the working set leaves a cache level" only if the rise is within
  what the levels the range can span can explain -- an n^2 declared ``<= n`` over
  64..8192 rises ×25 per n, which no two levels explain -- or where BEND_UPPER_SIZES
  sizes or more lie beyond the bend and stay within the bound by themselves: a step
  then, not a class (``std::sort`` of one input repeated steps ×9 per element where the
  branch predictor stops holding it, n log n on both sides).

The same capacity judges a **class change against a baseline** (``relative_excess``):
two runs of the same memory-bound kernel can read different classes when their bends
fall at other sizes (``heap_push_pop``: n^(1/3) in one run, n^(2/3) in the next, while
the second grew *less* over the range).  Where the shared range holds every recorded
level, a regression whose candidate/baseline ratio rises no more than the levels can
explain is inconclusive on ``time``; n -> n^2 over ×1024 rises ×1024 and still fails.

A gap of n^1 or more over a range of ratio r rises about ×r, and every level needs a
range of at least the ratio between two cache sizes (×32 here), so such a gap outgrows the
×2-a-level allowance beyond a few doublings; a log factor or n^0.25 does not, and on
``time`` across cache levels cannot be told from the hierarchy -- the ``instructions``
metric can.  Without recorded cache sizes (older files, other tools' formats) the rule
does not apply.  Measured on this project's corpus (docs/benchmarks.md): memory-bound
kernels rise ×2.2-6.1 over ranges of 2^12-2^16; too-tight bounds (a gap of n^1 or more)
rise ×200 and more.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from .. import numbers
from .classes import Order

__all__ = [
    "MEMORY_STEP",
    "RELATIVE_STEP",
    "TIMED_METRICS",
    "MemoryExcess",
    "beyond_allowance",
    "memory_excess",
    "relative_excess",
]

MEMORY_STEP = 2.5  # the rise one cache level can explain in a timed kernel against a bound
RELATIVE_STEP = 2.0  # ... in a candidate's time relative to its baseline's
CLIMB_RANGE = 64.0  # a climb over two levels (not the whole hierarchy) needs this range
TIMED_METRICS = ("time", "cpu")


@dataclass(frozen=True)
class MemoryExcess:
    """A timed kernel's per-unit rise over a bound, the cache levels its range can span,
    and where the rise was steepest."""

    parameter: str
    subject: str  # what rises: "the time per n log n"
    low: float  # the range's smallest and largest size
    high: float
    rise: float
    levels: tuple[tuple[str, int], ...]  # (name, bytes) of the levels the range can span
    steep_below: float  # the consecutive sizes with the steepest per-unit step
    steep_above: float
    steep: float
    whole: bool  # the range can hold every recorded level
    climb: bool = False  # ... or two levels, over at least CLIMB_RANGE
    step: float = MEMORY_STEP  # the rise one level can explain

    @property
    def explainable(self) -> float:
        return self.step ** len(self.levels)

    @property
    def explained(self) -> bool:
        """The rise is within what the levels the range can span can explain."""
        return self.rise <= self.explainable

    @property
    def excuses(self) -> bool:
        """The memory rule makes the bound inconclusive: explained over the whole hierarchy,
        or over a climb across two levels or more (``sorted()`` of 2^8..2^14 on a machine
        with 48 KiB of L1d and 1-2 MiB of L2 rises ×1.8-2.9 per n log n)."""
        return self.explained and (self.whole or self.climb)

    def describe(self) -> str:
        """Why the bound is not decided on this metric, and what would decide it."""
        p = self.parameter
        levels = ", ".join(f"{name} {_bytes(size)}" for name, size in self.levels)
        span = f"{numbers.at(p, self.low)}..{numbers.size(self.high)}"
        count = f"{len(self.levels)} cache level{'s' if len(self.levels) > 1 else ''}"
        last = self.levels[-1][0]
        if numbers.factor(self.rise) != numbers.factor(1.0):  # no "rises only ×1.00"
            rises = (
                f"rises only {numbers.factor(self.rise)} over {span}, steepest "
                f"{numbers.factor(self.steep)} between {numbers.at(p, self.steep_below)} and "
                f"{numbers.at(p, self.steep_above)}"
            )
        else:
            rises = f"does not rise over {span}"
        return (
            f"but {self.subject} {rises}: "
            f"these sizes can span {count} of the measuring machine ({levels}), which can "
            f"explain up to ×{self.explainable:.3g} (×{self.step:g} a level) without a change "
            "of class; measure "
            f"sizes whose working set is well past {last}, or use metric: instructions, "
            "to decide"
        )


def beyond_allowance(excess: MemoryExcess) -> str:
    """What a failing timed kernel's sentence adds where the rise is more than the levels
    explain: the allowance is for streaming access, and random access beyond the caches can
    rise more (a set's or numpy gather's time per n x11-16 over 2^8..2^23), so the metric
    that leaves the memory hierarchy out is named."""
    p = excess.parameter
    span = f"{numbers.at(p, excess.low)}..{numbers.size(excess.high)}"
    count = f"{len(excess.levels)} cache level{'s' if len(excess.levels) > 1 else ''}"
    return (
        f"{excess.subject} rises {numbers.factor(excess.rise)} over {span}, more than the "
        f"×{excess.explainable:.3g} its {count} allow (×{excess.step:g} a level); an algorithm "
        "within the bound whose accesses miss the caches all the more can rise further, and "
        "so can a class above it: metric: instructions tells the two apart"
    )


def memory_excess(
    parameter: str,
    x: Sequence[float] | np.ndarray,
    medians: Sequence[float] | np.ndarray,
    bound: Order,
    unit: str,
    caches: Mapping[str, int],
    fixed: float = 0.0,
) -> MemoryExcess | None:
    """The excess over ``bound`` (x^alpha log2(x)^beta) measured against the levels the
    range can span (``explained``, ``whole``), or None: no cache sizes recorded, or the
    time per unit does not rise at all.

    ``fixed`` is the kernel's fixed cost (its model's constant).  Where it is large (a
    command's process start-up) the time per unit falls with it and hides the growing
    part's climb, so the rise is also read with it taken off, and the smaller of the two
    readings counts; a kernel's own constant that merely absorbs curvature leaves the
    plain reading the smaller.
    """
    xs, ys = _sorted_positive(x, medians)
    if not caches or len(xs) < 2:
        return None
    alpha, beta = (float(v) for v in bound)
    units = xs**alpha * np.log2(np.maximum(xs, 2.0)) ** beta
    readings = [(xs, ys / units)]
    if any(bound) and fixed > 0:  # a size at or below the fixed cost has no growing part
        readings.append(_sorted_positive(xs, (ys - fixed) / units))
    excesses = [
        _excess(parameter, f"the time per {unit}", x_, per_unit, caches)
        for x_, per_unit in readings
        if len(x_) >= 2
    ]
    rising = [e for e in excesses if e.rise > 1.0]
    return min(rising, key=lambda e: e.rise) if rising else None


def relative_excess(
    parameter: str,
    x: Sequence[float] | np.ndarray,
    now: Sequence[float] | np.ndarray,
    before: Sequence[float] | np.ndarray,
    caches: Mapping[str, int],
) -> MemoryExcess | None:
    """How much the candidate's time relative to the baseline's (``now / before`` at the
    sizes both measured) rises over the range, against the levels the range can span, or
    None: no cache sizes recorded, fewer than two shared sizes.  A rise of 1 or less (the
    candidate grew no faster) is returned too: the memory hierarchy explains that."""
    ratio = np.asarray(now, dtype=float) / np.asarray(before, dtype=float)
    xs, ys = _sorted_positive(x, ratio)
    if not caches or len(xs) < 2:
        return None
    subject = "the candidate's time relative to the baseline's"
    return _excess(parameter, subject, xs, ys, caches, RELATIVE_STEP)


def _sorted_positive(
    x: Sequence[float] | np.ndarray, y: Sequence[float] | np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    xs = np.asarray(x, dtype=float)
    ys = np.asarray(y, dtype=float)
    keep = np.isfinite(ys) & (ys > 0) & (xs > 0)
    order = np.argsort(xs[keep])
    return xs[keep][order], ys[keep][order]


def _excess(
    parameter: str,
    subject: str,
    xs: np.ndarray,
    per_unit: np.ndarray,
    caches: Mapping[str, int],
    step: float = MEMORY_STEP,
) -> MemoryExcess:
    """The rise of ``per_unit`` over sorted sizes ``xs`` (at least two) and the levels."""
    per_unit = _median_of_three(per_unit)
    below = np.minimum.accumulate(per_unit)[:-1]  # lowest at or below each size
    above = np.minimum.accumulate(per_unit[::-1])[::-1][1:]  # lowest at or above the next
    rise = float(np.max(above / below))
    steps = per_unit[1:] / per_unit[:-1]
    i = int(np.argmax(steps))
    ratio = float(xs[-1] / xs[0])
    levels = _spanned(caches, ratio)
    return MemoryExcess(
        parameter,
        subject,
        float(xs[0]),
        float(xs[-1]),
        rise,
        levels,
        float(xs[i]),
        float(xs[i + 1]),
        float(steps[i]),
        whole=len(levels) == len(caches),
        climb=len(levels) >= 2 and ratio >= CLIMB_RANGE * (1 - 1e-9),
        step=step,
    )


def _median_of_three(values: np.ndarray) -> np.ndarray:
    """Running median of three in log space, Tukey's rule at the ends: one size that ran
    unusually fast or slow (a shared machine's moment) moves no rise; a step stays where
    it is.  The rise reads the lowest cost on each side, so a single fast small size would
    otherwise count in full (``sorted()`` of floats, a round at load 4: ×0.49 at n=512
    between ×1.00 and ×0.92 read as a rise of ×8.2 instead of ×4.4)."""
    if len(values) < 3:
        return values
    z = np.log(values)
    mid = np.median(np.stack([z[:-2], z[1:-1], z[2:]]), axis=0)
    first = np.median([z[0], mid[0], 3 * mid[0] - 2 * mid[1]]) if len(mid) > 1 else mid[0]
    last = np.median([z[-1], mid[-1], 3 * mid[-1] - 2 * mid[-2]]) if len(mid) > 1 else mid[-1]
    return np.exp(np.concatenate([[first], mid, [last]]))


def _spanned(caches: Mapping[str, int], ratio: float) -> tuple[tuple[str, int], ...]:
    """The most cache levels one window of sizes ``ratio`` wide can hold (the smallest
    levels first among equally many)."""
    levels = sorted(caches.items(), key=lambda item: item[1])
    best: tuple[tuple[str, int], ...] = ()
    for i, (_, size) in enumerate(levels):
        window = tuple(lv for lv in levels[i:] if lv[1] <= size * ratio * (1 + 1e-9))
        if len(window) > len(best):
            best = window
    return best


def _bytes(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift and size % (1 << shift) == 0:
            return f"{size >> shift} {unit}"
    return f"{size:,} B" if size < 1024 else f"{size / 1024:.0f} KiB"
