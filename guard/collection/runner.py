"""The sampling plan: which (benchmark, point) to run next, until the data can decide.

1. **Pilot**: each benchmark, in a seeded random order, runs its points smallest first,
   one warmed-up repetition each, and stops growing at the first size whose single
   execution takes longer than ``size_limit`` or once its repetitions would not fit its
   share of the budget (R's atime grows data sizes the same way).
2. **Trim**: if the minimum repetitions of all points cannot fit in what is left of the
   budget, the most expensive points go first, keeping five points a benchmark.
3. **Rounds**: every round runs each unfinished point once, all benchmarks interleaved
   in a fresh seeded random order, so slow drift of the machine is spread over all
   sizes instead of looking like growth. A point is finished after its fixed count of
   repetitions, or for ``auto`` once the median's relative uncertainty is below
   ``noise_target`` (Catwalk's statistical quality control), or at the cap.

A crash or timeout ends that benchmark (recorded in ``run.errors``) and the others go
on; Ctrl-C ends the run and keeps everything measured so far. The clock and executor
are injected, so tests drive the whole plan without real time.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace

from ..config import RunConfig
from ..measurements import Kernel, MeasurementSet, Point, RunError, RunInfo
from .blocking import rescale, round_speeds
from .executors import ExecutionError, Executor
from .spec import BenchmarkSpec, format_at
from .timing import enough_repetitions

__all__ = ["RunEvent", "run_benchmarks", "MIN_POINTS"]

MIN_POINTS = 5  # what the modelers need for one parameter
_TIMED = ("time", "cpu")  # metrics the machine's speed moves
_SLOW_COUNTER_HINT = {
    "instructions": " (where perf cannot count, valgrind counts instructions 20-100x slower "
    "than native: size run.size_limit and run.budget for that)"
}


@dataclass(frozen=True)
class RunEvent:
    """Progress of the run: ``kind`` is start, measured, error, round or done."""

    kind: str
    benchmark: str = ""
    point: str = ""
    value: float | None = None
    message: str = ""
    finished: int = 0
    active: int = 0


@dataclass
class _Point:
    at: tuple[float, ...]
    values: list[float] = field(default_factory=list)
    rounds: list[int] = field(default_factory=list)
    cost: float = 0.0
    done: bool = False


_TIMED = ("time", "cpu")  # metrics whose values are seconds a call
_CALL_FLOOR = 1e-5  # a call this long is timed well enough for its growth to be read
_EXPONENTIAL = 32.0  # a call's time growing more than this a doubling: no polynomial


def _next_call(bench: _Bench) -> float:
    """The next size's predicted time of one call, from how the calls' times grew (0: not
    read).  A point's cost is the wall time of its measurement, which repeats a short call
    up to ``min_time``: an exponential blow-up whose calls went from 26 us to 2.7 ms in one
    doubling cost about the same there, the next size was started and ran into the 60 s
    timeout, the whole budget.  The calls' own growth, sped up where it accelerates (an
    exponential's ratio squares as the size doubles), says what the next call will take."""
    if bench.spec.metric not in _TIMED or len(bench.points) < 2:
        return 0.0
    calls = [min(p.values) for p in bench.points[-3:] if p.values]
    if len(calls) < 2 or calls[-2] < _CALL_FLOOR:
        return 0.0
    ratio = calls[-1] / calls[-2]
    if ratio <= 1.0:
        return calls[-1]
    # beyond a cube a doubling, a ratio still rising is no polynomial's noise: its log grows
    # as it did (an exponential's doubles as the size doubles: fib's x7.4, x48, then x2,200);
    # beyond n^5 (x32 a doubling) it is taken for an exponential whatever came before (a
    # 2^n regex: x290 from 8 to 16, then x65,536)
    before = calls[-2] / calls[-3] if len(calls) == 3 and calls[-3] >= _CALL_FLOOR else ratio
    speeding = ratio > 8 and 1.0 < before < ratio
    power = min(2.0, math.log(ratio) / math.log(before)) if speeding else 1.0
    return calls[-1] * ratio ** (2.0 if ratio > _EXPONENTIAL else power)


@dataclass
class _Bench:
    spec: BenchmarkSpec
    points: list[_Point] = field(default_factory=list)
    spent: float = 0.0
    error: RunError | None = None
    sized: bool = False  # the pilot is through its sizes (an interrupt can come first)
    stopped_by: str = ""  # the limit its growth stopped at, for the too-few-sizes error

    def target_repetitions(self, options: RunConfig) -> tuple[int, int]:
        reps = self.spec.repetitions
        if reps == "auto":
            return options.min_repetitions, options.max_repetitions
        return reps, reps


class _Run:
    def __init__(
        self,
        specs: Sequence[BenchmarkSpec],
        executor: Executor,
        options: RunConfig,
        clock: Callable[[], float],
        on_event: Callable[[RunEvent], None],
    ):
        self.benches = [_Bench(spec) for spec in specs]
        self.executor = executor
        self.options = options
        self.clock = clock
        self.emit = on_event
        self.rng = random.Random(options.seed)
        self.start = clock()
        self.round = 0  # the pilot is round 0
        self.deadline = self.start + options.budget
        share = options.benchmark_budget or options.budget / max(1, len(specs))
        self.share = share

    # -------------------------------------------------------------- phases

    def pilot(self) -> None:
        order = list(self.benches)
        self.rng.shuffle(order)
        for bench in order:
            self.emit(RunEvent("start", bench.spec.name, active=len(bench.spec.points)))
            for at in bench.spec.points:
                if self.clock() >= self.deadline:
                    for left in self.benches:  # the budget, not an interrupt, cut these
                        left.sized = True
                        left.stopped_by = (
                            f"the run's budget ({self.options.budget:g} s) ran out before "
                            "its next size"
                        )
                    return
                point = _Point(at)
                bench.points.append(point)
                if not self.measure(bench, point, bench.spec.warmup) or self.should_stop(bench):
                    break
            bench.sized = True

    def should_stop(self, bench: _Bench) -> bool:
        """Stop growing, but not on one slow execution: the size is timed again first."""
        if not self.stop_growing(bench):
            return False
        point = bench.points[-1]
        first = point.cost
        if not self.measure(bench, point, 0):
            return True
        point.cost = min(first, point.cost)  # a hiccup of the machine is not the kernel
        return self.stop_growing(bench)

    def too_few_sizes(self) -> None:
        """A benchmark left with fewer than MIN_POINTS sizes (of more) is an error, not data."""
        for bench in self.live():
            wanted = min(MIN_POINTS, len(bench.spec.points))
            got = len(bench.points)
            if got >= wanted:
                continue
            measured = (
                f"measured {got} of {len(bench.spec.points)} sizes (up to "
                f"{format_at(bench.spec.parameters, bench.points[-1].at)})"
                if got
                else f"measured none of its {len(bench.spec.points)} sizes"
            )
            why = bench.stopped_by or (
                f"the next size would exceed run.size_limit ({self.options.size_limit:g} s) "
                "or this benchmark's share of the budget"
            )
            message = (
                f"{measured}, {wanted} are needed to tell classes apart: {why}; raise the "
                "limit or start from smaller sizes" + _SLOW_COUNTER_HINT.get(bench.spec.metric, "")
            )
            # no progress line: the run's summary names it once, as too-few-sizes
            bench.error = RunError(bench.spec.name, "too-few-sizes", message, None)

    def stop_growing(self, bench: _Bench) -> bool:
        # The next size is predicted from the growth between the last two, so one
        # execution of a quadratic kernel cannot blow the budget by itself. Over several
        # parameters (sizes and tuning knobs such as block sizes) neighbours in the
        # product order say nothing about each other: only the last cost counts.
        bench.stopped_by = ""  # a size timed again may grow on after all
        last = bench.points[-1]
        growth = 1.0
        several = len(bench.spec.parameters) > 1
        if not several and len(bench.points) > 1 and bench.points[-2].cost > 0:
            growth = min(16.0, max(1.0, last.cost / bench.points[-2].cost))
        following = max(last.cost * growth, 0.0 if several else _next_call(bench))
        if following > self.options.size_limit:
            bench.stopped_by = (
                f"the next size would take about {following:.2g} s, over run.size_limit "
                f"({self.options.size_limit:g} s); re-run if the machine was busy (the "
                "last size was timed twice)"
            )
            return True
        lowest = bench.target_repetitions(self.options)[0]
        total = (sum(p.cost for p in bench.points) + following) * lowest
        if total <= self.share:
            return False
        times = f"{lowest} repetitions" if lowest != 1 else "one repetition"
        bench.stopped_by = (
            f"{times} of its sizes and the next would take about {total:.2g} s, over this "
            f"benchmark's share of the budget ({self.share:.2g} s); re-run if the machine "
            "was busy (the last size was timed twice)"
        )
        return True

    def trim(self) -> None:
        def needed() -> float:
            return sum(
                p.cost * max(0, b.target_repetitions(self.options)[0] - len(p.values))
                for b in self.live()
                for p in b.points
            )

        while needed() > self.deadline - self.clock():
            candidates = [b for b in self.live() if len(b.points) > MIN_POINTS]
            if not candidates:
                return
            bench = max(candidates, key=lambda b: sum(p.cost for p in b.points))
            bench.points.pop()

    def rounds(self, checkpoint: Callable[[], None]) -> None:
        while True:
            tasks = [(b, p) for b in self.live() for p in b.points if not self.finished(b, p)]
            if not tasks:
                return
            self.rng.shuffle(tasks)
            self.round += 1
            for bench, point in tasks:
                if bench.error is not None:
                    continue
                if not self.affordable(bench, point):
                    point.done = True
                    continue
                self.measure(bench, point, 0)
            checkpoint()
            done = sum(self.finished(b, p) for b in self.live() for p in b.points)
            total = sum(len(b.points) for b in self.live())
            self.emit(RunEvent("round", finished=done, active=total))

    # -------------------------------------------------------------- steps

    def measure(self, bench: _Bench, point: _Point, warmup: int) -> bool:
        began = self.clock()
        try:
            value = self.executor.measure(bench.spec, point.at, warmup)
        except ExecutionError as exc:
            where = bench.spec.at(point.at)
            bench.error = RunError(bench.spec.name, exc.kind, str(exc), where)
            label = format_at(bench.spec.parameters, point.at)
            self.emit(RunEvent("error", bench.spec.name, label, message=str(exc)))
            return False
        finally:
            elapsed = self.clock() - began
            point.cost = elapsed
            bench.spent += elapsed
        point.values.append(value)
        point.rounds.append(self.round)
        label = format_at(bench.spec.parameters, point.at)
        self.emit(RunEvent("measured", bench.spec.name, label, value))
        return True

    def finished(self, bench: _Bench, point: _Point) -> bool:
        if point.done:
            return True
        lowest, highest = bench.target_repetitions(self.options)
        point.done = enough_repetitions(point.values, lowest, highest, self.options.noise_target)
        return point.done

    def affordable(self, bench: _Bench, point: _Point) -> bool:
        if self.clock() + point.cost > self.deadline:
            return False
        cap = self.options.benchmark_budget
        return cap is None or bench.spent + point.cost <= cap

    def live(self) -> list[_Bench]:
        return [b for b in self.benches if b.error is None]

    def complete(self, bench: _Bench) -> bool:
        return bench.sized and all(p.done or self.finished(bench, p) for p in bench.points)

    def cut_short(self, bench: _Bench) -> RunError:
        measured = sum(bool(p.values) for p in bench.points)
        sizes = len(bench.points) if bench.sized else len(bench.spec.points)
        lowest = bench.target_repetitions(self.options)[0]
        short = sum(0 < len(p.values) < lowest for p in bench.points)
        fewer = f" ({short} with fewer than {lowest} repetitions)" if short else ""
        if not short and measured == sizes:
            fewer = " (before their repetitions were done)"
        return RunError(
            bench.spec.name,
            "interrupted",
            f"the run was interrupted with {measured} of {sizes} sizes measured" + fewer,
        )

    # -------------------------------------------------------------- result

    def result(self, run: RunInfo, interrupted: bool) -> MeasurementSet:
        timed = [p for b in self.benches if b.spec.metric in _TIMED for p in b.points]
        speeds: dict[int, float] = {}
        if self.options.round_correction:
            speeds = round_speeds([(p.values, p.rounds) for p in timed])
        kernels = []
        for bench in self.benches:
            scale = speeds if bench.spec.metric in _TIMED else {}
            points = tuple(
                Point(p.at, tuple(rescale(p.values, p.rounds, scale)))
                for p in bench.points
                if p.values
            )
            if points:
                spec = bench.spec
                kernels.append(Kernel(spec.name, spec.metric, points, spec.unit))
        errors = tuple(b.error for b in self.benches if b.error is not None)
        if interrupted:  # what the run did not reach is missing, not passed
            errors += tuple(self.cut_short(b) for b in self.live() if not self.complete(b))
        parameters = self.benches[0].spec.parameters if self.benches else ("n",)
        info = replace(
            run,
            errors=run.errors + errors,
            interrupted=interrupted,
            round_speed=tuple(round(speeds[r], 4) for r in sorted(speeds)),
        )
        return MeasurementSet(parameters, tuple(kernels), info)


def run_benchmarks(
    specs: Sequence[BenchmarkSpec],
    executor: Executor,
    options: RunConfig | None = None,
    run: RunInfo | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_event: Callable[[RunEvent], None] = lambda event: None,
    checkpoint: Callable[[MeasurementSet], None] = lambda mset: None,
) -> MeasurementSet:
    """Measure every benchmark within the budget; Ctrl-C returns what was measured."""
    options = options or RunConfig()
    run = run or RunInfo()
    state = _Run(specs, executor, options, clock, on_event)
    interrupted = False
    try:
        state.pilot()
        state.too_few_sizes()
        state.trim()
        checkpoint(state.result(run, True))
        state.rounds(lambda: checkpoint(state.result(run, True)))
    except KeyboardInterrupt:
        interrupted = True
    finally:
        executor.close()
    final = state.result(run, interrupted)
    on_event(RunEvent("done", message="interrupted" if interrupted else ""))
    return final
