"""The pytest plugin (``@pytest.mark.scaling``), run on generated test files with pytester.

Behaviour tests use ``metric="custom"`` callables that return an operation count, so
verdicts are exact and independent of machine speed; two tests time real code with a
contrast far beyond any noise.
"""

from __future__ import annotations

import shlex

import pytest
from support import perfguard

import guard.checking.check  # noqa: F401  (loaded once here: pytester unloads modules a run imports)
import guard.pytest_plugin as plugin
from guard.collection.caches import cache_sizes
from guard.errors import UsageError
from guard.formats import load
from guard.measurements import Kernel, Point

pytest_plugins = ["pytester"]

HEADER = """
import itertools
import math

import pytest

SIZES = [2**k for k in range(8, 15)]
"""
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def run(pytester: pytest.Pytester, body: str, *args: str) -> pytest.RunResult:
    """Run one generated test module with warnings as errors (as this project does)."""
    pytester.makepyfile(test_scaled=HEADER + body)
    # hypothesis's plugin would import hypothesis afresh in every in-process run (1 s).
    return pytester.runpytest(*QUIET, "-W", "error", *args)


def custom(expression: str, expect: str, sizes: str = "SIZES") -> str:
    """A test whose callable returns ``expression`` (an operation count in n) as the metric."""
    return f"""
@pytest.mark.scaling(n={sizes}, expect={expect!r}, metric="custom")
def test_kernel(n):
    return lambda: {expression}
"""


# ---------------------------------------------------------------------- verdicts


@pytest.mark.parametrize(
    ("expression", "expect"),
    [
        ("3 * n + 100", "<= n"),
        ("n * math.log2(n)", "<= n log n"),
        ("7", "<= 1"),
        ("n * n", "<= n^2"),
    ],
    ids=["linear", "n-log-n", "constant", "quadratic-allowed"],
)
def test_kernel_within_its_expectation_passes(pytester, expression, expect):
    result = run(pytester, custom(expression, expect))
    result.assert_outcomes(passed=1)


def test_quadratic_kernel_against_linear_expectation_fails(pytester):
    result = run(pytester, custom("n * n", "<= n"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "test_kernel[[]scaling[]] scales worse than expected <= n (metric custom, 7 points*",
            "*n^2 measured, <= n expected; >99.9% confident*",
        ]
    )
    assert "Traceback" not in result.stdout.str()


def test_an_exponential_count_fails_and_shows_no_formula(pytester):
    # the least bad class fit of 2^n means nothing: the failure reads as the tables do
    result = run(pytester, custom("2 ** n", "<= n^3", "[4, 8, 12, 16, 20, 24, 28]"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*grows faster than any class at its top sizes*exponential-like*above <= n^3",
            "*model: none (×16.0 a step)  [[]exponential-like[]]",
        ]
    )


def test_n_log_n_against_linear_expectation_fails(pytester):
    result = run(pytester, custom("n * math.log2(n)", "<= n"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*n log n measured, <= n expected*"])


def test_grid_of_two_parameters(pytester):
    body = """
@pytest.mark.scaling(n=[16, 32, 64, 128, 256], p=[2, 4, 8, 16, 32], expect="<= n p",
                     metric="custom")
def test_within(n, p):
    return lambda: n * p

@pytest.mark.scaling(n=[16, 32, 64, 128, 256], p=[2, 4, 8, 16, 32], expect="<= n p",
                     metric="custom")
def test_beyond(n, p):
    return lambda: n * n * p
"""
    result = run(pytester, body)
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["test_beyond[[]scaling[]] scales worse*", "*n^2 measured*"])


def test_inconclusive_passes_and_says_what_would_decide(pytester):
    # 15% deterministic jitter over a narrow range: suggestive, not confident.
    body = """
@pytest.mark.scaling(n=[100, 120, 140, 160, 180], expect="<= n", metric="custom",
                     repetitions=5)
def test_noisy(n):
    rep = itertools.count()
    return lambda: n**1.2 * (1 + 0.1 * ((next(rep) * 7 + n) % 5 - 2))
"""
    result = run(pytester, body, "-rP")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*Captured perfguard call*",
            "inconclusive: expected <= n*",
            "*- perfguard -*",
            "*test_noisy[[]scaling[]]: inconclusive:*to decide:*",
        ]
    )


def test_unmodellable_values_error_with_advice(pytester):
    result = run(pytester, custom("-1", "<= n"))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        ["*cannot judge the scaling of test_kernel*negative value -1*must return non-negative*"]
    )


def test_a_count_of_zero_is_data(pytester):
    """An operation count that is 0 at every size is the constant 0: within <= n."""
    result = run(pytester, custom("0", "<= n"))
    result.assert_outcomes(passed=1)


def test_memory_metric_records_peak_bytes(pytester):
    # tracemalloc's peak is exact: n^2 bytes against a linear expectation fails for sure.
    body = """
@pytest.mark.scaling(n=[16, 32, 64, 128, 256, 512], expect="<= n", metric="memory")
def test_table(n):
    return lambda: bytearray(n * n)
"""
    result = run(pytester, body)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*metric memory*", "*n^2 measured, <= n expected*"])


# ---------------------------------------------------------------------- real timing


def test_timed_pair_loop_violates_linear_expectation(pytester):
    body = """
@pytest.mark.scaling(n=[16, 32, 64, 128, 256, 512, 1024], expect="<= n")
def test_pairs(n):
    items = list(range(n))
    return lambda: sum(1 for a in items for b in items if a < b)
"""
    result = run(pytester, body)
    result.assert_outcomes(failed=1)
    # Real timings put the fitted class anywhere from n^1.5 log^2 n to n^(7/3): only the
    # verdict is asserted.
    result.stdout.fnmatch_lines(
        ["*scales worse than expected <= n*", "* measured, <= n expected; *"]
    )


def test_timed_linear_sum_within_generous_bound(pytester):
    body = """
@pytest.mark.scaling(n=[2**k for k in range(10, 17)], expect="<= n^2")
def test_sum(n):
    return lambda: sum(range(n))
"""
    run(pytester, body).assert_outcomes(passed=1)


# ---------------------------------------------------------------------- misuse


def test_malformed_expectation_errors_with_the_column(pytester):
    result = run(pytester, custom("n", "<= n^"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*invalid expectation '<= n^'*at column 6*"])


def test_too_few_sizes_errors_before_measuring(pytester):
    result = run(pytester, custom("n", "<= n", sizes="[1, 2, 3, 4]"))
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*only 4 distinct points, at least 5 are needed*sizes of n*"])


def test_non_callable_return_fails(pytester):
    body = """
@pytest.mark.scaling(n=SIZES, expect="<= n")
def test_forgot_return(n):
    sorted(range(n))
"""
    result = run(pytester, body)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*must return the zero-argument callable*returned NoneType*"])


@pytest.mark.parametrize(
    ("marker", "message"),
    [
        ("n=SIZES, expect='<= n', repetiton=3", "*unknown keyword 'repetiton'*"),
        ("expect='<= n'", "*no sizes*"),
        ("n=[0, 1, 2, 3, 4], expect='<= n'", "*n sizes must be positive numbers, got 0*"),
        ("n=SIZES", "*expect= is required*"),
        ("n=SIZES, expect='<= n', metric='wall'", "*metric must be one of*'wall'*"),
        ("n=SIZES, expect='<= n', repetitions=0", "*repetitions must be*got 0*"),
        ("n=SIZES + [256], expect='<= n'", "*n repeats the size 256*"),
    ],
    ids=["unknown", "no-sizes", "non-positive", "no-expect", "metric", "repetitions", "repeat"],
)
def test_marker_misuse_names_the_keyword(pytester, marker, message):
    body = f"""
@pytest.mark.scaling({marker})
def test_misused(n):
    return lambda: n
"""
    result = run(pytester, body)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines([message])


def test_fixtures_work_alongside_sizes(pytester):
    body = """
@pytest.fixture
def factor():
    return 3

@pytest.mark.scaling(n=SIZES, expect="<= n", metric="custom")
def test_with_fixtures(n, factor, tmp_path):
    assert tmp_path.is_dir()
    return lambda: factor * n
"""
    run(pytester, body).assert_outcomes(passed=1)


def test_size_requested_through_a_fixture_is_refused(pytester):
    body = """
@pytest.fixture
def data(n):
    return list(range(n))

@pytest.mark.scaling(n=SIZES, expect="<= n", metric="custom")
def test_via_fixture(data):
    return lambda: len(data)
"""
    result = run(pytester, body)
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*size 'n' is requested by a fixture*"])


def test_strict_markers_and_unmarked_tests(pytester):
    body = custom("n", "<= n") + "\n\ndef test_plain():\n    assert True\n"
    run(pytester, body, "--strict-markers").assert_outcomes(passed=2)
    markers = pytester.runpytest(*QUIET, "--markers")
    markers.stdout.fnmatch_lines(["@pytest.mark.scaling(*): *"])


def test_plugin_is_loaded_once_through_its_entry_point(request):
    manager = request.config.pluginmanager
    assert manager.get_plugin("perfguard") is plugin
    assert [p for p in manager.get_plugins() if p is plugin] == [plugin]


# sorted() of shuffled ints, timed by this plugin on a machine with 48 KiB of L1d and 1 MiB
# of L2: the time per n log n climbs x3.2 from 2^8 to 2^16 as the list leaves L1d and L2.
SORTED_TIMES = {
    256: (4.467e-06, 4.497e-06, 4.493e-06),
    512: (1.022e-05, 1.069e-05, 1.043e-05),
    1024: (2.665e-05, 2.63e-05, 2.622e-05),
    2048: (7.283e-05, 7.203e-05, 7.141e-05),
    4096: (0.0002541, 0.0002505, 0.0002591),
    8192: (0.0006224, 0.0006307, 0.0006293),
    16384: (0.001437, 0.001456, 0.001416),
    32768: (0.003314, 0.003311, 0.003266),
    65536: (0.007684, 0.007354, 0.007372),
}


def _sorted_like() -> Kernel:
    points = tuple(Point((float(n),), v) for n, v in SORTED_TIMES.items())
    return Kernel("test_sort[scaling]", "time", points)


def test_a_timed_test_is_judged_with_this_machines_cache_sizes(monkeypatch):
    # The plugin judged without the machine's caches, so check's memory rule never applied
    # and sorted() failed `<= n log n` (n^1.25 log n, >99.9%; of 2^8..2^14 one run in three).
    spec = plugin.parse_scaling([], {"n": list(SORTED_TIMES), "expect": "<= n log n"}, ["n"])
    monkeypatch.setattr(plugin, "_machine", lambda: {"caches": {"L1d": 48 << 10, "L2": 1 << 20}})
    verdict, code = plugin._judge(_sorted_like(), spec)
    assert verdict.verdict == "inconclusive" and code == 0
    assert "cache level" in " ".join(r.message for r in verdict.reasons)
    monkeypatch.setattr(plugin, "_machine", lambda: {})  # a machine that reports no caches
    verdict, code = plugin._judge(_sorted_like(), spec)
    assert verdict.verdict == "fail" and code == 1


# ---------------------------------------------------------------------- --perfguard-json


def test_perfguard_json_writes_a_loadable_measurement_file(pytester):
    body = custom("n * n", "<= n^2") + custom("n", "<= n").replace("test_kernel", "test_linear")
    path = pytester.path / "scaling.json"
    result = run(pytester, body, f"--perfguard-json={path.name}")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines([f"wrote 2 scaling measurements to {path}"])
    mset = load(path)
    assert mset.parameters == ("n",)
    quadratic = mset.kernel("test_kernel[scaling]", "custom")
    assert [(p.at[0], p.values[0]) for p in quadratic.points][:2] == [(256, 65536), (512, 262144)]
    assert {k.name for k in mset.kernels} == {"test_kernel[scaling]", "test_linear[scaling]"}
    assert all(len(p.values) == 3 for p in quadratic.points)  # min_repetitions, no noise
    assert mset.run.machine["cores"] and mset.run.machine.get("caches") == (cache_sizes() or None)


def test_perfguard_json_says_how_to_check_it_with_the_markers_bounds(pytester):
    # `perfguard check out.json` passed a test the plugin failed: the bounds live in the
    # markers, not the file; the summary gives the command that judges it with their bounds
    body = custom("n * n", "<= n") + custom("n", "<= n").replace("test_kernel", "test_linear")
    result = run(pytester, body, "--perfguard-json=out.json")
    result.assert_outcomes(passed=1, failed=1)
    (line,) = [x for x in result.stdout.lines if "check it with them: perfguard check" in x]
    command = line.split("check it with them: perfguard ", 1)[1]
    done = perfguard(*shlex.split(command), cwd=pytester.path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "fail test_kernel[scaling]" in done.stdout and "matches no kernel" not in done.stdout
    # it judges the kernels together, each test was judged alone: said, not promised equal
    result.stdout.fnmatch_lines(["*reads the run's drift off all 2 kernels*judged alone*"])


def test_perfguard_json_names_clashing_tests_by_node_id(pytester):
    pytester.makepyfile(
        test_one=HEADER + custom("n", "<= n"), test_two=HEADER + custom("n", "<= n")
    )
    result = pytester.runpytest(*QUIET, "-W", "error", "--perfguard-json=out.json")
    result.assert_outcomes(passed=2)
    names = {k.name for k in load(pytester.path / "out.json").kernels}
    assert names == {"test_one.py::test_kernel[scaling]", "test_two.py::test_kernel[scaling]"}


def test_perfguard_json_into_a_missing_directory_is_a_usage_error(pytester):
    result = run(pytester, custom("n", "<= n"), "--perfguard-json=missing/out.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--perfguard-json: directory*missing does not exist*"])


# ---------------------------------------------------------------------- units


def test_parse_scaling_builds_the_grid_in_marker_order():
    spec = plugin.parse_scaling(
        (), {"p": [1, 2, 3, 4, 5], "n": [10, 20], "expect": "<= n p"}, ("n", "p")
    )
    assert spec.parameters == ("p", "n")
    assert spec.points()[:3] == [(1, 10), (1, 20), (2, 10)]
    assert spec.repetitions is None and spec.metric == "time"


def test_parse_scaling_rejects_positional_arguments():
    with pytest.raises(UsageError, match="keywords only"):
        plugin.parse_scaling(([1, 2],), {"expect": "<= n"}, ("n",))


def test_measure_interleaves_points_in_a_seeded_order():
    def orders(seed: int) -> tuple[list[int], list[tuple[float, ...]]]:
        calls: list[int] = []

        def point(i: int):
            return lambda: calls.append(i) or i + 1

        spec = plugin.ScalingSpec((("n", (1, 2, 3, 4)),), "<= n", "custom", 3, seed=seed)
        values = plugin.measure([point(i) for i in range(4)], spec)
        return calls, values

    calls, values = orders(0)
    assert values == [(1.0,) * 3, (2.0,) * 3, (3.0,) * 3, (4.0,) * 3]
    rounds = [calls[i : i + 4] for i in range(0, 12, 4)]
    assert all(sorted(r) == [0, 1, 2, 3] for r in rounds)  # every point once per round
    assert orders(0)[0] == calls
    assert any(orders(seed)[0] != calls for seed in range(1, 5))
