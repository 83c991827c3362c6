"""pytest plugin: check a test's asymptotic scaling before it merges.

Loaded automatically once perfguard is installed (entry point ``pytest11: perfguard``;
turn it off with ``-p no:perfguard``, and do not also pass ``-p guard.pytest_plugin``,
which would register it twice); inert for unmarked tests.
Mark a test with the sizes to measure and the growth it must not exceed, and return the
callable to time; the body before ``return`` is setup and is not timed::

    import pytest

    @pytest.mark.scaling(n=[2**k for k in range(8, 15)], expect="<= n log n")
    def test_sort_scales(n):
        data = list(range(n, 0, -1))
        return lambda: sorted(data)

Marker keywords:

* one keyword per size argument of the test (a list of positive numbers; several
  keywords measure their grid), at least 5 distinct points;
* ``expect`` (required): the expectation, e.g. ``"<= n log n"``, ``"O(n^2)"``;
* ``metric``: ``"time"`` (default), ``"cpu"``, ``"memory"`` (peak bytes) or ``"custom"``
  (the returned callable returns the number to record, e.g. an operation count);
* ``repetitions`` (an int, or ``"auto"``: repeat each size until the median is known to
  ``noise_target``, between ``min_repetitions`` and ``max_repetitions``), ``min_time``
  (seconds a repetition of a fast callable is looped to), ``confidence``, ``seed``.

The test function is called once per size to get its callable (fixtures work as usual),
then repetitions are measured in rounds over the sizes in a seeded random order, so a
drifting machine does not look like growth. The test fails only when perfguard is
``confidence`` sure the expectation is violated; an inconclusive check passes and says
what would decide it (in the ``perfguard`` report section and the terminal summary).

``--perfguard-json=PATH`` writes the session's measurements as a
``perfguard/measurements@1`` file for ``perfguard check`` (in-process runs only: with
pytest-xdist each worker keeps its own measurements and nothing is written).
"""

from __future__ import annotations

import functools
import glob
import itertools
import math
import numbers
import random
import shlex
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from . import numbers as _numbers
from .collection.timing import (
    TIMED_METRICS,
    UNITS,
    calibrate_loops,
    enough_repetitions,
    measure_once,
)
from .defaults import CONFIDENCE, SCALING_MIN_TIME
from .errors import PerfguardError, UsageError
from .formats.native import dumps
from .measurements import Kernel, MeasurementSet, Point, RunInfo, kernel_problems

if TYPE_CHECKING:
    from .checking.verdicts import Verdict

# Every pytest run where perfguard is installed loads this plugin: guard.checking (numpy,
# the modelers) is imported inside the functions that judge, when a scaling test runs.

__all__ = ["MARKER", "ScalingSpec", "parse_scaling", "measure"]

MARKER = "scaling"
_WHERE = f"@pytest.mark.{MARKER}"
_SECTION = "perfguard"
_EXAMPLE = "n=[2**k for k in range(8, 15)]"


@dataclass(frozen=True)
class ScalingSpec:
    """A validated ``scaling`` marker: the sizes per parameter and how to measure them."""

    sizes: tuple[tuple[str, tuple[Any, ...]], ...]
    expect: str
    metric: str = "time"
    repetitions: int | None = None  # None: "auto"
    min_repetitions: int = 3
    max_repetitions: int = 15
    noise_target: float = 0.03
    min_time: float = SCALING_MIN_TIME
    confidence: float = CONFIDENCE
    seed: int = 0

    @property
    def parameters(self) -> tuple[str, ...]:
        """Size parameter names, in the marker's order."""
        return tuple(name for name, _ in self.sizes)

    def points(self) -> list[tuple[Any, ...]]:
        """Every point of the grid of sizes, values as given (ints stay ints)."""
        return list(itertools.product(*(values for _, values in self.sizes)))

    def done(self, values: Sequence[float]) -> bool:
        """Whether a point has enough repetitions."""
        if self.repetitions is not None:
            return len(values) >= self.repetitions
        return enough_repetitions(
            values, self.min_repetitions, self.max_repetitions, self.noise_target
        )


_OPTIONS = tuple(f.name for f in fields(ScalingSpec) if f.name != "sizes")


# ---------------------------------------------------------------------- the marker


def parse_scaling(
    args: Sequence[Any], kwargs: Mapping[str, Any], argnames: Sequence[str]
) -> ScalingSpec:
    """Validate a ``scaling`` marker of a test taking ``argnames``; UsageError names the keyword."""
    if args:
        raise UsageError(f"{_WHERE} takes keywords only, e.g. {_EXAMPLE}, expect='<= n'")
    unknown = [k for k in kwargs if k not in _OPTIONS and k not in argnames]
    if unknown:
        raise UsageError(
            f"{_WHERE}: unknown keyword {unknown[0]!r}: neither an option "
            f"({', '.join(_OPTIONS)}) nor an argument of the test ({', '.join(argnames) or 'none'})"
        )
    sizes = tuple((k, _sizes(k, v)) for k, v in kwargs.items() if k not in _OPTIONS)
    if not sizes:
        raise UsageError(
            f"{_WHERE}: no sizes; give one keyword per size argument of the test, e.g. {_EXAMPLE}"
        )
    if "expect" not in kwargs:
        raise UsageError(f"{_WHERE}: expect= is required, e.g. expect='<= n log n'")
    options = {k: v for k, v in kwargs.items() if k in _OPTIONS}
    spec = ScalingSpec(sizes=sizes, **_checked_options(options))
    _check_expectation(spec)
    _check_enough_points(spec)
    return spec


def _sizes(name: str, value: Any) -> tuple[Any, ...]:
    if isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        raise UsageError(f"{_WHERE}: {name} must be a list of sizes, got {value!r}")
    sizes = tuple(value)
    if not sizes:
        raise UsageError(f"{_WHERE}: {name} has no sizes, e.g. {_EXAMPLE}")
    for size in sizes:
        if not _is_real(size) or not (math.isfinite(size) and size > 0):
            raise UsageError(f"{_WHERE}: {name} sizes must be positive numbers, got {size!r}")
    repeated = sorted({s for s in sizes if sizes.count(s) > 1})
    if repeated:
        raise UsageError(f"{_WHERE}: {name} repeats the size {repeated[0]!r}")
    return sizes


def _checked_options(options: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(options)
    if not isinstance(out["expect"], str):
        raise UsageError(f"{_WHERE}: expect must be a string like '<= n log n'")
    if out.get("metric", "time") not in TIMED_METRICS:
        raise UsageError(
            f"{_WHERE}: metric must be one of {', '.join(TIMED_METRICS)}, got {out['metric']!r}"
        )
    if out.get("repetitions", "auto") == "auto":
        out["repetitions"] = None
    else:
        ok = _is_int(out["repetitions"]) and out["repetitions"] >= 1
        _require(out, "repetitions", ok, "a positive int or 'auto'")
    for name in ("min_repetitions", "max_repetitions"):
        if name in out:
            _require(out, name, _is_int(out[name]) and out[name] >= 1, "a positive int")
    low = out.get("min_repetitions", ScalingSpec.min_repetitions)
    if out.get("max_repetitions", ScalingSpec.max_repetitions) < low:
        raise UsageError(f"{_WHERE}: max_repetitions must be at least min_repetitions ({low})")
    for name in ("noise_target", "min_time"):
        if name in out:
            _require(out, name, _is_real(out[name]) and out[name] > 0, "a positive number")
    if "confidence" in out:
        ok = _is_real(out["confidence"]) and 0 < out["confidence"] < 1
        _require(out, "confidence", ok, "a probability between 0 and 1, e.g. 0.99")
    if "seed" in out:
        _require(out, "seed", _is_int(out["seed"]), "an int")
    return out


def _require(options: Mapping[str, Any], name: str, ok: bool, what: str) -> None:
    if not ok:
        raise UsageError(f"{_WHERE}: {name} must be {what}, got {options[name]!r}")


def _is_int(value: Any) -> bool:
    return isinstance(value, numbers.Integral) and not isinstance(value, bool)


def _is_real(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def _check_expectation(spec: ScalingSpec) -> None:
    from .checking.expectation import parse_expectation

    try:
        parse_expectation(spec.expect, spec.parameters)
    except UsageError as e:
        raise UsageError(f"{_WHERE}(expect=...): {e}") from None


def _check_enough_points(spec: ScalingSpec) -> None:
    """Refuse too few sizes before anything is measured (the modeler's own rule)."""
    placeholder = tuple(Point(at, (1.0,)) for at in spec.points())
    # a gate measures what it can decide on: five sizes, as perfguard run asks
    problems = kernel_problems(Kernel("sizes", spec.metric, placeholder), min_points=5)
    if problems:
        names = ", ".join(spec.parameters)
        raise UsageError(
            f"{_WHERE}: too few sizes ({'; '.join(problems)}): give more sizes of {names}, "
            f"e.g. {_EXAMPLE}"
        )


# ---------------------------------------------------------------------- measuring


def measure(
    callables: Sequence[Callable[[], object]], spec: ScalingSpec
) -> list[tuple[float, ...]]:
    """Each point's repetitions, measured in rounds over the points in a seeded random order."""
    loops = [calibrate_loops(fn, spec.metric, spec.min_time) for fn in callables]
    values: list[list[float]] = [[] for _ in callables]
    rng = random.Random(spec.seed)
    while pending := [i for i, v in enumerate(values) if not spec.done(v)]:
        rng.shuffle(pending)  # drift over the run must not line up with size
        for i in pending:
            values[i].append(measure_once(callables[i], spec.metric, loops[i]))
    return [tuple(v) for v in values]


def _timed_callables(item: pytest.Function, spec: ScalingSpec) -> list[Callable[[], object]]:
    """Call the test once per point to get the callable it wants timed there."""
    # The same argument list pytest's own pytest_pyfunc_call passes.
    argnames = item._fixtureinfo.argnames
    fixtures = {name: item.funcargs[name] for name in argnames}
    out = []
    for at in spec.points():
        fn = item.obj(**{**fixtures, **dict(zip(spec.parameters, at))})
        if not callable(fn):
            raise UsageError(
                f"{item.name} must return the zero-argument callable to time "
                f"(e.g. `return lambda: work(data)`), but returned {type(fn).__name__}"
            )
        out.append(fn)
    return out


def _kernel(item: pytest.Function, spec: ScalingSpec) -> Kernel:
    values = measure(_timed_callables(item, spec), spec)
    points = tuple(Point(at, v) for at, v in zip(spec.points(), values))
    return Kernel(item.name, spec.metric, points, unit=UNITS.get(spec.metric))


# ---------------------------------------------------------------------- judging


def _judge(kernel: Kernel, spec: ScalingSpec) -> tuple[Verdict, int]:
    """The verdict and the exit code perfguard check would give (1 fail, 2 error, 0 pass)."""
    from .checking.check import CheckOptions, ExpectationRule, check
    from .checking.verdicts import exit_code

    rule = ExpectationRule("*", spec.expect, source=f"{_WHERE}(expect=...)")
    options = CheckOptions(rules=(rule,), confidence=spec.confidence)
    run = RunInfo(machine=_machine())  # its cache sizes: check's memory rule reads them
    report = check(MeasurementSet(spec.parameters, (kernel,), run), options=options)
    return report.verdicts[0], exit_code(report)


@functools.cache
def _machine() -> dict[str, Any]:
    """This machine as ``perfguard run`` records it (read once a session)."""
    from .collection.environment import machine_info

    return machine_info()


def _extent(spec: ScalingSpec) -> str:
    ranges = [f"{_numbers.at(name, min(v))}..{_numbers.size(max(v))}" for name, v in spec.sizes]
    return f"metric {spec.metric}, {len(spec.points())} points, {', '.join(ranges)}"


def _details(verdict: Verdict) -> str:
    """The model and the reasons, one per line."""
    from .reporting.summary import class_text, formula_text, shown_reasons

    lines = [f"  {reason}" for reason in shown_reasons(verdict)]
    if verdict.model is not None:  # as the tables write them (an exponential-like one: none)
        lines.append(f"  model: {formula_text(verdict.model)}  [{class_text(verdict.model)}]")
    return "\n".join(lines)


def _error_hint(kernel: Kernel) -> str:
    values = [v for p in kernel.points for v in p.values]
    if all(math.isfinite(v) and v >= 0 for v in values):
        return ""
    if kernel.metric == "custom":
        return "; with metric='custom' the timed callable must return non-negative numbers"
    if kernel.metric == "memory":
        return "; the callable allocated nothing at some size: use larger sizes or metric='time'"
    return ""


# ---------------------------------------------------------------------- hooks


@dataclass
class _State:
    """What the session keeps for the summary and --perfguard-json."""

    json_path: Path | None
    started: str
    kernels: list[tuple[str, tuple[str, ...], Kernel]] = field(default_factory=list)
    bounds: dict[str, str] = field(default_factory=dict)  # node id -> the marker's expect=
    inconclusive: list[tuple[str, str]] = field(default_factory=list)


_STATE = pytest.StashKey[_State]()
_SPEC = pytest.StashKey[ScalingSpec]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("perfguard", "perfguard scaling checks")
    group.addoption(
        "--perfguard-json",
        metavar="PATH",
        default=None,
        help="write the measurements of @pytest.mark.scaling tests to PATH (measurements@1)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{MARKER}(n=[sizes...], expect='<= n log n', metric='time'): time the callable the "
        "test returns at each size and fail on a confident violation of the expected growth",
    )
    config.stash[_STATE] = _State(
        json_path=_json_path(config),
        started=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


def _json_path(config: pytest.Config) -> Path | None:
    """The --perfguard-json path, checked before anything runs."""
    option = config.getoption("perfguard_json")
    if option is None:
        return None
    path = config.invocation_params.dir / option
    if not path.parent.is_dir():
        raise pytest.UsageError(f"--perfguard-json: directory {path.parent} does not exist")
    if path.is_dir():
        raise pytest.UsageError(f"--perfguard-json: {path} is a directory")
    return path


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Keep size arguments from being looked up as fixtures: one placeholder value each."""
    marker = metafunc.definition.get_closest_marker(MARKER)
    if marker is None:
        return
    names = [k for k in marker.kwargs if k not in _OPTIONS and k in metafunc.fixturenames]
    if names:
        metafunc.parametrize(names, [(None,) * len(names)], ids=[MARKER])


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Validate the marker before fixtures are set up; misuse is a setup error."""
    marker = item.get_closest_marker(MARKER)
    if marker is None or not isinstance(item, pytest.Function):
        return
    argnames = item._fixtureinfo.argnames
    sizes = [k for k in marker.kwargs if k not in _OPTIONS and k not in argnames]
    via_fixture = [k for k in sizes if k in item.fixturenames]
    if via_fixture:
        pytest.fail(
            f"{_WHERE}: size {via_fixture[0]!r} is requested by a fixture, not by "
            f"{item.name} itself; fixtures are set up once, so build size-dependent data "
            "in the test function",
            pytrace=False,
        )
    try:
        spec = parse_scaling(marker.args, marker.kwargs, argnames)
    except UsageError as e:
        raise pytest.fail.Exception(str(e), pytrace=False) from None
    item.stash[_SPEC] = spec


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Measure and check a marked test instead of calling it once."""
    spec = pyfuncitem.stash.get(_SPEC, None)
    if spec is None:
        return None
    try:
        _run(pyfuncitem, spec)
    except PerfguardError as e:
        raise pytest.fail.Exception(str(e), pytrace=False) from None
    return True


def _run(item: pytest.Function, spec: ScalingSpec) -> None:
    state = item.config.stash[_STATE]
    kernel = _kernel(item, spec)
    state.kernels.append((item.nodeid, spec.parameters, kernel))
    state.bounds[item.nodeid] = spec.expect
    verdict, code = _judge(kernel, spec)
    expected = f"expected {verdict.expectation} ({_extent(spec)})"
    details = _details(verdict)
    if code == 1:
        pytest.fail(f"{item.name} scales worse than {expected}:\n{details}", pytrace=False)
    if code == 2:
        pytest.fail(
            f"perfguard cannot judge the scaling of {item.name}: "
            f"{'; '.join(r.message for r in verdict.reasons)}{_error_hint(kernel)}",
            pytrace=False,
        )
    item.add_report_section("call", _SECTION, f"{verdict.verdict}: {expected}\n{details}\n")
    if verdict.verdict == "inconclusive":
        reasons = (r.message for r in verdict.reasons)
        state.inconclusive.append((item.nodeid, "; ".join(reasons)))


def pytest_sessionfinish(session: pytest.Session) -> None:
    state = session.config.stash.get(_STATE, None)
    if state is None or state.json_path is None or not state.kernels:
        return
    mset = _session_measurements(state)
    state.json_path.write_text(dumps(mset), encoding="utf-8")


def _session_measurements(state: _State) -> MeasurementSet:
    """The kernels measured over the first test's parameters (a file has one parameter list)."""
    kernels = tuple(k for _, k in _session_kernels(state))
    machine = _machine()
    return MeasurementSet(
        state.kernels[0][1], kernels, RunInfo(started=state.started, machine=machine)
    )


def _session_kernels(state: _State) -> list[tuple[str, Kernel]]:
    """(node id, kernel as the file names it) over the first test's parameters."""
    parameters = state.kernels[0][1]
    chosen = [(nodeid, k) for nodeid, p, k in state.kernels if p == parameters]
    keys = [k.key for _, k in chosen]
    # Same-named tests in different modules or classes would clash: those get their node ids.
    return [(n, replace(k, name=n) if keys.count(k.key) > 1 else k) for n, k in chosen]


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, config: pytest.Config
) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or not (state.inconclusive or state.json_path):
        return
    lines = [f"{nodeid}: inconclusive: {why}" for nodeid, why in state.inconclusive]
    if state.json_path is not None:
        lines += _json_lines(state)
    terminalreporter.write_sep("-", "perfguard")
    for line in lines:
        terminalreporter.write_line(line)


def _json_lines(state: _State) -> list[str]:
    if not state.kernels:
        return [f"no scaling tests ran in this process; {state.json_path} not written"]
    parameters = state.kernels[0][1]
    written = sum(1 for _, p, _ in state.kernels if p == parameters)
    lines = [f"wrote {written} scaling measurements to {state.json_path}"]
    # the file holds measurements, not the markers' bounds: the check that judges it as
    # these tests did
    bounds = [
        f"--expect {shlex.quote(f'{glob.escape(k.name)}={state.bounds[nodeid]}')}"
        for nodeid, k in _session_kernels(state)
        if nodeid in state.bounds
    ]
    if bounds:
        lines.append(
            f"  the markers' bounds are not in the file; check it with them: perfguard check "
            f"{shlex.quote(str(state.json_path))} {' '.join(bounds)}"
        )
        if len(bounds) > 1:  # each test was judged alone; the check reads the run's drift
            lines.append(
                f"  (that check reads the run's drift off all {len(bounds)} kernels, where "
                "each test was judged alone: a borderline verdict can differ)"
            )
    lines += [
        f"  left out {nodeid}: its sizes ({', '.join(p)}) differ from ({', '.join(parameters)})"
        for nodeid, p, _ in state.kernels
        if p != parameters
    ]
    return lines
