"""The sampling plan, driven by a fake executor on a fake clock (no real time passes)."""

from __future__ import annotations

import math
import random
from dataclasses import replace
from pathlib import Path

import pytest

from guard.collection.executors import ExecutionError
from guard.collection.runner import MIN_POINTS, run_benchmarks
from guard.collection.spec import BenchmarkSpec
from guard.config import RunConfig
from guard.measurements import MeasurementSet

SIZES = tuple((float(2**k),) for k in range(4, 14))  # 16 .. 8192, ten points


def spec(name: str, repetitions: int | str = 3, points=SIZES, warmup: int = 0) -> BenchmarkSpec:
    return BenchmarkSpec(
        name=name,
        kind="callable",
        target=f"fake:{name}",
        shell=False,
        metric="time",
        unit="s",
        repetitions=repetitions,  # type: ignore[arg-type]
        timeout=10.0,
        warmup=warmup,
        parameters=("n",),
        points=points,
        folder=Path("."),
    )


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class FakeExecutor:
    """Value = cost = the benchmark's cost function; optional noise, failures, interrupts."""

    def __init__(self, clock: FakeClock, costs, noise=None, fail=None, interrupt_after=None):
        self.clock = clock
        self.costs = costs
        self.noise = noise or {}
        self.fail = fail or {}
        self.interrupt_after = interrupt_after
        self.calls: list[tuple[str, float, int]] = []
        self.closed = False

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float:
        if self.interrupt_after is not None and len(self.calls) >= self.interrupt_after:
            raise KeyboardInterrupt
        self.calls.append((spec.name, point[0], warmup))
        n = point[0]
        if spec.name in self.fail and n >= self.fail[spec.name][0]:
            raise ExecutionError(self.fail[spec.name][1], f"{spec.name} broke at {n:g}")
        cost = self.costs[spec.name](n)
        self.clock.now += cost * (1 + warmup)
        wobble = self.noise.get(spec.name, 0.0)
        return cost * (1 + wobble * random.Random(len(self.calls)).uniform(-1, 1))

    def close(self) -> None:
        self.closed = True


def linear(n: float) -> float:
    return 1e-5 * n


def run(specs, executor, clock, **options) -> MeasurementSet:
    return run_benchmarks(specs, executor, RunConfig(**options), clock=clock)


def sizes(mset: MeasurementSet, name: str) -> list[float]:
    return [p.at[0] for p in mset.kernel(name, "time").points]


def test_fixed_repetitions_measure_every_point_that_many_times() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear, "b": linear})
    mset = run([spec("a", 4), spec("b", 2)], executor, clock, budget=1000)
    assert [len(p.values) for p in mset.kernel("a", "time").points] == [4] * len(SIZES)
    assert [len(p.values) for p in mset.kernel("b", "time").points] == [2] * len(SIZES)
    assert sizes(mset, "a") == [s[0] for s in SIZES]
    assert executor.closed
    assert not mset.run.interrupted and mset.run.errors == ()
    assert set(mset.run.round_speed) == {1.0} and len(mset.run.round_speed) == 4  # pilot + 3


def test_round_speeds_are_divided_out_of_timings() -> None:
    clock = FakeClock()

    class PhasedExecutor(FakeExecutor):
        # every third round runs on a machine 1.6x slower
        def measure(self, spec, point, warmup):
            value = super().measure(spec, point, warmup)
            return value * (1.6 if (len(self.calls) - 1) // 20 % 3 == 2 else 1.0)

    executor = PhasedExecutor(clock, {"a": linear, "b": linear})
    mset = run([spec("a", 6), spec("b", 6)], executor, clock, budget=1000)
    assert max(mset.run.round_speed) == pytest.approx(1.6)
    for kernel in mset.kernels:
        for p in kernel.points:
            assert p.values == pytest.approx([linear(p.at[0])] * 6)
    raw = run(
        [spec("a", 6), spec("b", 6)],
        PhasedExecutor(FakeClock(), {"a": linear, "b": linear}),
        FakeClock(),
        budget=1000,
        round_correction=False,
    )
    assert raw.run.round_speed == ()
    assert any(max(p.values) > 1.5 * min(p.values) for k in raw.kernels for p in k.points)


def test_the_order_is_seeded_and_interleaves_benchmarks_and_sizes() -> None:
    def calls(seed: int) -> list[tuple[str, float, int]]:
        clock = FakeClock()
        executor = FakeExecutor(clock, {"a": linear, "b": linear})
        run([spec("a", 3), spec("b", 3)], executor, clock, budget=1000, seed=seed)
        return executor.calls

    first, again, other = calls(1), calls(1), calls(2)
    assert first == again
    assert first != other
    rounds = first[2 * len(SIZES) :]  # after each benchmark's pilot, smallest first
    assert [c[1] for c in first[: len(SIZES)]] == [s[0] for s in SIZES]
    names = [c[0] for c in rounds]
    switches = sum(a != b for a, b in zip(names, names[1:]))
    assert switches > len(rounds) // 4  # benchmarks alternate, not one block after another
    ns = [c[1] for c in rounds[: 2 * len(SIZES)]]
    assert ns != sorted(ns) and ns != sorted(ns, reverse=True)


def test_warmup_is_paid_once_per_point_in_the_pilot() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear})
    run([spec("a", 3, warmup=2)], executor, clock, budget=1000)
    warm = [(n, w) for _, n, w in executor.calls if w]
    assert warm == [(s[0], 2) for s in SIZES]


def test_sizes_stop_growing_before_one_execution_exceeds_the_size_limit() -> None:
    clock = FakeClock()

    def quadratic(n: float) -> float:
        return 1e-7 * n * n  # 0.1 s at n=1024, 0.42 s at 2048, 1.7 s at 4096

    executor = FakeExecutor(clock, {"q": quadratic})
    mset = run([spec("q")], executor, clock, budget=1000, size_limit=0.5)
    # 2048 (0.42 s) fits; 4096 is predicted at 4x that and never runs.
    assert max(sizes(mset, "q")) == 2048
    assert max(n for _, n, _ in executor.calls) == 2048


def test_several_parameters_grow_by_the_last_cost_alone() -> None:
    # In product order (n, block) a cheap point is followed by a 60x dearer one; that
    # jump is not a growth rate, so the grid keeps going while one execution fits.
    clock = FakeClock()
    grid = tuple(
        sorted(
            ((n, b) for n in (16.0, 32.0, 1024.0) for b in (1.0, 2.0)),
            key=lambda p: (p[0] * p[1], p),
        )
    )
    two = replace(spec("g", points=grid), parameters=("n", "block"))
    executor = FakeExecutor(clock, {"g": lambda n: 1e-4 * n})  # 0.1 s at n=1024
    mset = run([two], executor, clock, budget=1000, size_limit=0.5)
    assert len(mset.kernel("g", "time").points) == len(grid)
    # One parameter: the jump from 32 to 1024 predicts 16x more for 2048, over the limit.
    clock = FakeClock()
    sizes_only = ((16.0,), (32.0,), (1024.0,), (2048.0,))
    executor = FakeExecutor(clock, {"g": lambda n: 1e-4 * n})
    single = run([spec("g", points=sizes_only)], executor, clock, budget=1000, size_limit=0.5)
    assert sizes(single, "g") == [16, 32, 1024]


def test_the_budget_bounds_the_run_and_trimming_keeps_five_points() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear, "b": linear})
    budget = 0.6  # the pilot alone costs 2 * 0.164 s
    mset = run([spec("a", 5), spec("b", 5)], executor, clock, budget=budget, size_limit=10)
    largest = max(linear(s[0]) for s in SIZES)
    assert clock.now <= budget + largest
    for name in ("a", "b"):
        assert len(mset.kernel(name, "time").points) >= MIN_POINTS


def test_benchmark_budget_caps_each_benchmark() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear, "b": linear})
    run([spec("a", 15), spec("b", 15)], executor, clock, budget=1000, benchmark_budget=0.5)
    spent: dict[str, float] = {}
    for name, n, warmup in executor.calls:
        spent[name] = spent.get(name, 0.0) + linear(n) * (1 + warmup)
    assert all(total <= 0.5 + linear(8192) for total in spent.values())


def test_auto_stops_early_on_quiet_points_and_at_the_cap_on_noisy_ones() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"quiet": linear, "noisy": linear}, noise={"noisy": 0.4})
    mset = run(
        [spec("quiet", "auto"), spec("noisy", "auto")],
        executor,
        clock,
        budget=1000,
        min_repetitions=3,
        max_repetitions=9,
        noise_target=0.02,
    )
    assert {len(p.values) for p in mset.kernel("quiet", "time").points} == {3}
    assert {len(p.values) for p in mset.kernel("noisy", "time").points} == {9}


def test_a_failing_benchmark_is_recorded_and_the_others_go_on() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"ok": linear, "bad": linear}, fail={"bad": (256.0, "crash")})
    mset = run([spec("ok"), spec("bad")], executor, clock, budget=1000)
    assert len(mset.kernel("ok", "time").points) == len(SIZES)
    assert sizes(mset, "bad") == [16, 32, 64, 128]  # measured before it broke, kept
    (error,) = mset.run.errors
    assert (error.benchmark, error.kind, dict(error.at or {})) == ("bad", "crash", {"n": 256.0})
    assert "broke at 256" in error.message
    assert all(n <= 256 or name != "bad" for name, n, _ in executor.calls)


def test_interrupt_keeps_what_was_measured_and_marks_the_run() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear, "b": linear}, interrupt_after=25)
    saved: list[MeasurementSet] = []
    mset = run_benchmarks(
        [spec("a"), spec("b")],
        executor,
        RunConfig(budget=1000),
        clock=clock,
        checkpoint=saved.append,
    )
    assert mset.run.interrupted
    assert sum(len(p.values) for k in mset.kernels for p in k.points) == 25
    assert executor.closed
    assert saved and saved[0].run.interrupted  # checkpoints are marked incomplete
    # a check of the file must not pass what the run did not reach: each unfinished
    # benchmark is an error of kind "interrupted" (check: its kernels' verdicts, exit 3)
    cut = {e.benchmark: e for e in mset.run.errors}
    assert set(cut) == {"a", "b"} and {e.kind for e in cut.values()} == {"interrupted"}
    assert cut["a"].message.startswith("the run was interrupted with ")


def test_an_interrupt_cuts_short_only_the_benchmarks_it_stopped() -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear, "b": linear}, interrupt_after=40)
    mset = run_benchmarks(
        [spec("a", 2), spec("b", 12)], executor, RunConfig(budget=1000), clock=clock
    )
    assert mset.run.interrupted
    assert [len(p.values) for p in mset.kernel("a", "time").points] == [2] * len(SIZES)
    assert [e.benchmark for e in mset.run.errors] == ["b"]
    # every size has values, but not the repetitions asked for: "10 of 10 sizes" alone
    # read as if nothing was missing
    reps = [len(p.values) for p in mset.kernel("b", "time").points]
    short = sum(r < 12 for r in reps)
    assert short and mset.run.errors[0].message == (
        f"the run was interrupted with {len(reps)} of {len(SIZES)} sizes measured "
        f"({short} with fewer than 12 repetitions)"
    )


def test_an_interrupt_in_the_pilot_names_the_benchmarks_it_never_reached() -> None:
    """They had no sizes yet, so every one of them read as complete: a check of the file
    could not tell they were never measured."""
    clock = FakeClock()
    costs = {name: linear for name in "abcd"}
    executor = FakeExecutor(clock, costs, interrupt_after=3)
    mset = run_benchmarks(
        [spec(name) for name in "abcd"], executor, RunConfig(budget=1000), clock=clock
    )
    measured = {k.name for k in mset.kernels}
    cut = {e.benchmark: e.message for e in mset.run.errors}
    assert set(cut) | measured == set("abcd") and len(cut) >= 3
    never = [name for name in "abcd" if name not in measured]
    assert never and all(
        cut[name] == f"the run was interrupted with 0 of {len(SIZES)} sizes measured"
        for name in never
    )


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_points_keep_growing_size_order_in_the_result(seed: int) -> None:
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": linear})
    mset = run([spec("a", 3)], executor, clock, budget=1000, seed=seed)
    assert sizes(mset, "a") == sorted(sizes(mset, "a"))
    assert all(math.isclose(v, linear(p.at[0])) for p in mset.kernels[0].points for v in p.values)


def test_one_slow_first_execution_does_not_stop_the_pilot() -> None:
    """A machine hiccup on the first execution at n=64 is timed again, not taken as the kernel."""
    clock = FakeClock()

    class Hiccup(FakeExecutor):
        def measure(self, spec, point, warmup):
            value = super().measure(spec, point, warmup)
            first_at_64 = point[0] == 64.0 and sum(c[1] == 64.0 for c in self.calls) == 1
            if first_at_64:
                self.clock.now += 5.0  # the machine stalled for five seconds
            return value

    executor = Hiccup(clock, {"a": linear})
    mset = run([spec("a")], executor, clock, budget=1000, size_limit=1.0)
    assert sizes(mset, "a") == [s[0] for s in SIZES]
    assert mset.run.errors == ()


def test_a_benchmark_cut_short_below_five_sizes_is_an_error() -> None:
    clock = FakeClock()

    def steep(n: float) -> float:
        return 1e-3 * (n / 16) ** 3  # 1 ms at n=16, 0.5 s at 128, 4 s at 256

    executor = FakeExecutor(clock, {"steep": steep, "a": linear})
    mset = run([spec("steep"), spec("a")], executor, clock, budget=1000, size_limit=1.0)
    (error,) = mset.run.errors
    assert (error.benchmark, error.kind) == ("steep", "too-few-sizes")
    assert "measured 4 of 10 sizes (up to n=128)" in error.message
    # the limit it stopped at, with the time it predicted (0.5 s x8 per doubling)
    assert "the next size would take about 4.1 s, over run.size_limit (1 s)" in error.message
    assert "share of the budget" not in error.message
    assert len(sizes(mset, "steep")) == 4  # what was measured is kept
    assert sizes(mset, "a") == [s[0] for s in SIZES]


def test_a_run_whose_budget_ran_out_says_so_for_the_benchmarks_it_cut() -> None:
    """The budget ending the pilot read as a stale 'over this benchmark's share' (0.65 s
    over 1 s) or 'would exceed run.size_limit (100 s)'."""
    clock = FakeClock()
    executor = FakeExecutor(clock, {"a": lambda n: 0.4, "b": lambda n: 0.4})
    mset = run(
        [spec("a"), spec("b")], executor, clock, budget=2, benchmark_budget=100, size_limit=100.0
    )
    cut = [e for e in mset.run.errors if e.kind == "too-few-sizes"]
    assert cut and all("the run's budget (2 s) ran out" in e.message for e in cut), cut
    assert not any("share of the budget" in e.message for e in cut)


def test_too_few_sizes_of_counted_instructions_names_valgrinds_cost() -> None:
    clock = FakeClock()
    counted = replace(spec("counted"), metric="instructions", unit="instructions")
    executor = FakeExecutor(clock, {"counted": lambda n: 2.5})  # a start-up under valgrind
    mset = run([counted], executor, clock, budget=1000, size_limit=1.0)
    (error,) = mset.run.errors
    assert error.kind == "too-few-sizes" and "measured 1 of 10 sizes" in error.message
    assert "valgrind counts instructions 20-100x slower" in error.message
    assert (
        "valgrind"
        not in run(
            [spec("a")],
            FakeExecutor(clock, {"a": lambda n: 2.5}),
            clock,
            budget=1000,
            size_limit=1.0,
        )
        .run.errors[0]
        .message
    )


class LoopingExecutor(FakeExecutor):
    """A short call is repeated up to min_time: the wall cost of a point is at least that,
    and the value returned is one call's time."""

    def measure(self, spec: BenchmarkSpec, point: tuple[float, ...], warmup: int) -> float:
        self.calls.append((spec.name, point[0], warmup))
        call = self.costs[spec.name](point[0])
        self.clock.now += max(0.01, call) * (1 + warmup)
        return call


def test_an_exponential_whose_calls_hide_under_min_time_stops_before_the_blow_up() -> None:
    # a regex backtracking 2^n: its calls took 26 us, then 2.7 ms a doubling later, while
    # each point cost min_time; the pilot read no growth, started the next size and spent
    # the whole budget on it (the 60 s timeout), starving the other benchmarks
    clock = FakeClock()

    def exponential(n: float) -> float:
        return 1e-7 * 2.0**n  # 6.6 ms at n=16, 430 s at n=32

    executor = LoopingExecutor(clock, {"e": exponential, "l": linear})
    points = tuple((float(2**k),) for k in range(1, 7))  # 2 .. 64
    mset = run([spec("e", points=points), spec("l")], executor, clock, budget=60, size_limit=0.5)
    assert max(n for name, n, _ in executor.calls if name == "e") == 16
    assert clock.now < 10
    assert len(sizes(mset, "l")) == len(SIZES)  # the other benchmark was not starved
    (error,) = mset.run.errors
    assert "the next size would take about" in error.message and "run.size_limit" in error.message


def test_the_next_call_is_predicted_from_the_calls_growth_sped_up_where_it_accelerates() -> None:
    from guard.collection.runner import _Bench, _next_call, _Point

    def bench(calls: list[float], metric: str = "time") -> _Bench:
        b = _Bench(replace(spec("b"), metric=metric))
        b.points = [_Point((float(2**i),), [c]) for i, c in enumerate(calls)]
        return b

    # a quadratic: x4 a doubling, read as x4
    assert _next_call(bench([1e-4, 4e-4, 1.6e-3])) == pytest.approx(6.4e-3)
    # naive Fibonacci: x7.4, then x48 -- an exponential's log ratio doubles with the size
    fib = _next_call(bench([3.5e-5, 2.6e-4, 1.25e-2]))
    assert 1.25e-2 * 48**1.9 < fib < 1.25e-2 * 48**2.01
    # a 2^n regex: x290 a doubling is no polynomial, whatever came before (the call below
    # the timer's reach): x290 squared, not x290 (0.65 s predicted, 229 s taken)
    assert _next_call(bench([7.7e-7, 1.2e-5, 3.5e-3])) == pytest.approx(
        3.5e-3 * (3.5e-3 / 1.2e-5) ** 2
    )
    assert _next_call(bench([1e-7, 2e-7])) == 0.0  # calls below the timer's reach: not read
    assert _next_call(bench([1e-3, 8e-3], metric="instructions")) == 0.0
