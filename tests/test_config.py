"""perfguard.yml loading: round trips, every error naming file:line:key, and range syntax."""

from __future__ import annotations

import dataclasses
import sys
import textwrap
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.config import (
    DEFAULT_CONFIDENCE,
    MAX_RANGE_VALUES,
    BenchmarkConfig,
    CheckConfig,
    Config,
    ExpectRule,
    RunConfig,
    analytical_models,
    expectation_rules,
    load_config,
    parse_range,
)
from guard.errors import ConfigError

DATA = Path(__file__).parent / "data" / "config"


def write(tmp_path: Path, text: str, name: str = "perfguard.yml") -> Path:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def load_error(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


# ---------------------------------------------------------------- valid configs


def test_full_config_round_trips_into_objects() -> None:
    path = DATA / "full.yml"
    config = load_config(path)
    assert config.path == path
    assert config.version == 1
    assert dict(config.parameters) == {
        "n": (1024.0, 2048.0, 4096.0),
        "p": (1024.0, 2048.0, 4096.0),
        "m": (1000.0, 2000.0, 4000.0, 8000.0),
        "k": (10.0, 20.0, 30.0),
    }
    assert config.benchmarks == (
        BenchmarkConfig(
            name="sort",
            expect="<= n log n",
            metric="cpu",
            command="python bench.py --n {n}",
            callable=None,
            repetitions=5,
            timeout=60.0,
            warmup=1,
            shell=True,
            line=9,
            expect_line=10,
        ),
        BenchmarkConfig(
            name="search",
            expect=None,
            metric="time",
            command=None,
            callable="benches.search:run",
            repetitions="auto",
            timeout=2.5,
            warmup=None,
            shell=False,
            line=17,
        ),
        BenchmarkConfig(
            name="argv",
            expect=None,
            metric="instructions",
            command=("python", "bench.py", "{n}"),
            callable=None,
            repetitions=None,
            timeout=None,
            warmup=None,
            shell=False,
            line=21,
        ),
    )
    assert config.expect == (
        ExpectRule("sort*", "<= n log n", 25, f"{path}:25"),
        ExpectRule("*", "<= n^2", 26, f"{path}:26"),
    )
    assert config.check == CheckConfig(
        baseline=DATA / "base.json",
        target={"n": 1e6, "p": 1e6},
        max_class="n^2",
        max_class_line=30,
        max_slowdown=1.5,
        confidence=0.95,
        strict=True,
    )


def test_minimal_config_gets_defaults(tmp_path: Path) -> None:
    path = write(tmp_path, "version: 1\n")
    config = load_config(path)
    assert config == Config(path=path, version=1)
    assert dict(config.parameters) == {}
    assert config.benchmarks == () and config.expect == ()
    assert config.check.baseline is None
    assert dict(config.check.target) == {}
    assert config.check.max_class is None and config.check.max_class_line is None
    assert config.check.max_slowdown is None
    assert config.check.confidence == DEFAULT_CONFIDENCE == 0.99
    assert config.check.strict is False


def test_empty_sections_and_benchmark_mean_defaults(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
        benchmarks:
          bare:
        expect: {}
        check:
        """,
    )
    config = load_config(path)
    assert config.benchmarks == (
        BenchmarkConfig("bare", None, "time", None, None, None, None, None, False, 4),
    )
    assert config.check == CheckConfig()


def test_run_section_and_benchmark_parameters(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
          n: "2^4..2^16"
        run:
          budget: 45
          benchmark_budget: 10
          size_limit: 0.25
          repetitions: 5
          min_repetitions: 2
          max_repetitions: 9
          noise_target: 0.02
          min_time: 0.005
          timeout: 30
          warmup: 0
          seed: 7
        benchmarks:
          pairs:
            callable: "kernels:pairs"
            parameters: {n: "2^4..2^10"}
        """,
    )
    config = load_config(path)
    assert config.run == RunConfig(
        budget=45.0,
        benchmark_budget=10.0,
        size_limit=0.25,
        repetitions=5,
        min_repetitions=2,
        max_repetitions=9,
        noise_target=0.02,
        min_time=0.005,
        timeout=30.0,
        warmup=0,
        seed=7,
    )
    assert dict(config.benchmarks[0].parameters) == {"n": tuple(2.0**k for k in range(4, 11))}
    assert load_config(write(tmp_path, "version: 1\n", "b.yml")).run == RunConfig()


def test_config_objects_are_immutable(tmp_path: Path) -> None:
    config = load_config(DATA / "full.yml")
    with pytest.raises(dataclasses.FrozenInstanceError):
        config.version = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        config.parameters["n"] = (1.0,)  # type: ignore[index]
    with pytest.raises(TypeError):
        config.check.target["n"] = 1.0  # type: ignore[index]


def test_numbers_written_as_strings_are_accepted(tmp_path: Path) -> None:
    # YAML 1.1 reads 1e6 (no dot) as a string; users should not have to care.
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
          n: [1e3, "2e3", 4000]
        benchmarks:
          b: {timeout: 1e2}
        check:
          target: {n: 1e6}
          max_slowdown: "1.25"
        """,
    )
    config = load_config(path)
    assert config.parameters["n"] == (1000.0, 2000.0, 4000.0)
    assert config.benchmarks[0].timeout == 100.0
    assert dict(config.check.target) == {"n": 1e6}
    assert config.check.max_slowdown == 1.25


def test_merge_keys_share_benchmark_settings(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        benchmarks:
          first: &common
            metric: cpu
            repetitions: 7
          second:
            <<: *common
            repetitions: 3
        """,
    )
    first, second = load_config(path).benchmarks
    assert (first.metric, first.repetitions) == ("cpu", 7)
    assert (second.metric, second.repetitions) == ("cpu", 3)


def test_relative_baseline_is_resolved_against_the_config_folder(tmp_path: Path) -> None:
    path = write(tmp_path, "version: 1\ncheck: {baseline: ../perf/base.json}\n", "ci/perfguard.yml")
    assert load_config(path).check.baseline == tmp_path / "ci" / ".." / "perf" / "base.json"


def test_relative_baseline_with_a_relative_config_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write(tmp_path, "version: 1\ncheck: {baseline: base.json}\n", "ci/perfguard.yml")
    monkeypatch.chdir(tmp_path)
    baseline = load_config(Path("ci/perfguard.yml")).check.baseline
    assert baseline is not None and baseline.is_absolute()
    assert baseline == tmp_path / "ci" / "base.json"


def test_absolute_baseline_is_kept(tmp_path: Path) -> None:
    target = tmp_path / "elsewhere" / "base.json"
    path = write(tmp_path, f"version: 1\ncheck: {{baseline: '{target}'}}\n", "ci/perfguard.yml")
    assert load_config(path).check.baseline == target


def test_expectation_rules_put_benchmark_expects_first(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        expect:
          "sort*": "<= n log n"
          "*": "<= n^2"
        benchmarks:
          sort_big:
            expect: "<= n"
          plain: {}
          search:
            metric: cpu
            expect: "<= log n"
        """,
    )
    rules = expectation_rules(load_config(path))
    assert rules == (
        ExpectRule("sort_big", "<= n", 7, f"{path}:7", literal=True),
        ExpectRule("search", "<= log n", 11, f"{path}:11", literal=True),
        ExpectRule("sort*", "<= n log n", 3, f"{path}:3"),
        ExpectRule("*", "<= n^2", 4, f"{path}:4"),
    )


# ---------------------------------------------------------------- errors at a line and key

ERRORS = [
    pytest.param(
        """
        version: 1
        benchmark:
          sort: {}
        """,
        2,
        'benchmark: unknown key (did you mean "benchmarks"?); allowed at the top level: '
        "version, parameters, run, benchmarks, expect, check",
        id="unknown-top-level-key",
    ),
    pytest.param(
        """
        version: 1
        benchmarks:
          sort:
            metric: time
            repetiton: 3
        """,
        5,
        'benchmarks.sort.repetiton: unknown key (did you mean "repetitions"?); allowed under '
        "benchmarks.sort: expect, metric, command, callable, repetitions, timeout, warmup, shell",
        id="unknown-benchmark-key",
    ),
    pytest.param(
        """
        version: 1
        check:
          fail_on: inconclusive
        """,
        3,
        "check.fail_on: unknown key; allowed under check: baseline, target, max_class, "
        "max_slowdown, confidence, strict",
        id="unknown-check-key",
    ),
    pytest.param(
        """
        version: 1
        parameters:
          n: [1, 2]
        benchmarks:
          sort:
            command: python sort.py
            repetitions: -3
        """,
        7,
        'benchmarks.sort.repetitions: expected a positive integer or "auto", got -3',
        id="wrong-type-repetitions",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort: {repetitions: 2.5}\n",
        3,
        'benchmarks.sort.repetitions: expected a positive integer or "auto", got 2.5',
        id="wrong-type-repetitions-float",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    timeout: soon\n",
        4,
        'benchmarks.sort.timeout: expected a positive number, got "soon"',
        id="wrong-type-timeout",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    warmup: -1\n",
        4,
        "benchmarks.sort.warmup: expected a non-negative integer, got -1",
        id="negative-warmup",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    shell: 'yes'\n",
        4,
        'benchmarks.sort.shell: expected true or false, got "yes"',
        id="wrong-type-shell",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    metric: wall\n",
        4,
        "benchmarks.sort.metric: expected one of time, cpu, memory, instructions, custom, "
        'got "wall"',
        id="unknown-metric",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    command: [python, {n}]\n",
        4,
        "benchmarks.sort.command[1]: expected a non-empty string, got a mapping "
        '(quote placeholders: "{n}")',
        id="unquoted-placeholder-in-command",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    command: []\n",
        4,
        "benchmarks.sort.command: expected at least one string, got an empty list",
        id="empty-command-list",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    callable: mod.func\n",
        4,
        'benchmarks.sort.callable: expected "module:function", got "mod.func"',
        id="bad-callable",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort:\n    expect: ''\n",
        4,
        'benchmarks.sort.expect: expected a non-empty string, got ""',
        id="empty-benchmark-expect",
    ),
    pytest.param(
        "version: 1\nbenchmarks: [sort, search]\n",
        2,
        "benchmarks: expected a mapping, got a list",
        id="benchmarks-not-a-mapping",
    ),
    pytest.param(
        "version: 1\nbenchmarks:\n  sort: fast\n",
        3,
        'benchmarks.sort: expected a mapping, got "fast"',
        id="benchmark-not-a-mapping",
    ),
    pytest.param(
        """
        version: 1
        benchmarks:
          sort:
            command: python sort.py
            callable: sorting:run
        """,
        5,
        'benchmarks.sort.callable: cannot be combined with "command" (line 4): '
        "command and callable are mutually exclusive; keep one",
        id="command-and-callable",
    ),
    pytest.param(
        "# settings\nversion: 2\n",
        2,
        "version: unsupported version 2; supported versions: 1",
        id="bad-version",
    ),
    pytest.param(
        "version: '1'\n",
        1,
        'version: expected an integer, got "1"; supported versions: 1',
        id="version-as-string",
    ),
    pytest.param(
        "version: true\n",
        1,
        "version: expected an integer, got true; supported versions: 1",
        id="version-as-bool",
    ),
    pytest.param(
        "# no version here\n\nbenchmarks:\n  sort: {}\n",
        3,
        'version: missing required key; add "version: 1" (supported: 1)',
        id="missing-version",
    ),
    pytest.param(
        "version: 1\nbenchmarks: {}\nversion: 1\n",
        3,
        "version: duplicate key (first on line 1)",
        id="duplicate-top-level-key",
    ),
    pytest.param(
        """
        version: 1
        benchmarks:
          sort:
            metric: cpu
          search: {}
          sort:
            metric: time
        """,
        6,
        "benchmarks.sort: duplicate key (first on line 3)",
        id="duplicate-benchmark",
    ),
    pytest.param(
        """
        version: 1
        expect:
          "*": "<= n"
          "*": "<= n^2"
        """,
        4,
        'expect."*": duplicate key (first on line 3)',
        id="duplicate-expect-pattern",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: '10..50'\n",
        3,
        'parameters.n: bad range "10..50": without a step both ends must be powers of two',
        id="bad-range-no-step",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: '2^10 to 2^16'\n",
        3,
        'parameters.n: bad range "2^10 to 2^16": expected "2^i..2^j" (doubling)',
        id="bad-range-syntax",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n:\n    - 1024\n    - -2048\n",
        5,
        "parameters.n[1]: expected a positive number, got -2048",
        id="negative-parameter-value",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: [0, 1]\n",
        3,
        "parameters.n[0]: expected a positive number, got 0",
        id="zero-parameter-value",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: [1, 2, 1]\n",
        3,
        "parameters.n[2]: duplicate value 1",
        id="duplicate-parameter-value",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: []\n",
        3,
        "parameters.n: expected at least one value, got an empty list",
        id="empty-parameter-list",
    ),
    pytest.param(
        "version: 1\nparameters:\n  n: 1024\n",
        3,
        'parameters.n: expected a list of positive numbers or a range like "2^10..2^16", got 1024',
        id="parameter-scalar",
    ),
    pytest.param(
        "version: 1\nparameters:\n  2n: [1, 2]\n",
        3,
        "parameters.2n: a parameter name must be letters, digits and _",
        id="bad-parameter-name",
    ),
    pytest.param(
        "version: 1\ncheck:\n  confidence: 1\n",
        3,
        "check.confidence: expected a number between 0.5 and 1 (both excluded), got 1",
        id="confidence-one",
    ),
    pytest.param(
        "version: 1\ncheck:\n  confidence: 0.5\n",
        3,
        "check.confidence: expected a number between 0.5 and 1 (both excluded), got 0.5",
        id="confidence-half",
    ),
    pytest.param(
        "version: 1\ncheck:\n  confidence: high\n",
        3,
        'check.confidence: expected a number between 0.5 and 1 (both excluded), got "high"',
        id="confidence-not-a-number",
    ),
    pytest.param(
        "version: 1\ncheck:\n  max_slowdown: 1\n",
        3,
        "check.max_slowdown: expected a number greater than 1, got 1",
        id="max-slowdown-one",
    ),
    pytest.param(
        "version: 1\ncheck:\n  max_slowdown: 0.8\n",
        3,
        "check.max_slowdown: expected a number greater than 1, got 0.8",
        id="max-slowdown-below-one",
    ),
    pytest.param(
        "version: 1\ncheck:\n  target:\n    n: -5\n",
        4,
        "check.target.n: expected a positive number, got -5",
        id="negative-target",
    ),
    pytest.param(
        "version: 1\ncheck:\n  target: {n: .inf}\n",
        3,
        "check.target.n: expected a positive number, got .inf",
        id="infinite-target",
    ),
    pytest.param(
        "version: 1\ncheck:\n  strict: 1\n",
        3,
        "check.strict: expected true or false, got 1",
        id="strict-not-bool",
    ),
    pytest.param(
        "version: 1\ncheck:\n  baseline: 42\n",
        3,
        "check.baseline: expected a non-empty string, got 42",
        id="baseline-not-a-string",
    ),
    pytest.param(
        "version: 1\ncheck:\n  max_class: ''\n",
        3,
        'check.max_class: expected a non-empty string, got ""',
        id="empty-max-class",
    ),
    pytest.param(
        "version: 1\nexpect:\n  '*': [n]\n",
        3,
        'expect."*": expected a non-empty string, got a list',
        id="expect-rule-not-a-string",
    ),
    pytest.param(
        "version: 1\ncheck:\n  baseline: !custom base.json\n",
        3,
        "check.baseline: unsupported YAML tag !custom",
        id="unknown-tag",
    ),
    pytest.param(
        "- version: 1\n",
        1,
        "expected a mapping at the top level, got a list",
        id="top-level-list",
    ),
    pytest.param(
        "version: 1\nrun:\n  budget: -5\n",
        3,
        "run.budget: expected a positive number, got -5",
        id="run-negative-budget",
    ),
    pytest.param(
        "version: 1\nrun:\n  noise_target: 5%\n",
        3,
        'run.noise_target: expected a number between 0 and 1 (both excluded), got "5%"',
        id="run-noise-target-percent",
    ),
    pytest.param(
        "version: 1\nrun:\n  budgte: 60\n",
        3,
        'run.budgte: unknown key (did you mean "budget"?)',
        id="run-unknown-key",
    ),
    pytest.param(
        "version: 1\nrun:\n  max_repetitions: 2\n  min_repetitions: 4\n",
        4,
        "run.min_repetitions: 4 exceeds run.max_repetitions (2)",
        id="run-min-above-max",
    ),
    pytest.param(
        "version: 1\nparameters: {n: [1, 2]}\nbenchmarks:\n  a:\n    parameters: {m: [1]}\n",
        5,
        "benchmarks.a.parameters.m: not a parameter of the top-level parameters: section "
        "(declared: n)",
        id="benchmark-unknown-parameter",
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), ERRORS)
def test_errors_name_file_line_and_key(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = write(tmp_path, text)
    error = load_error(path)
    assert (error.path, error.line) == (str(path), line)
    assert str(error).startswith(f"{path}:{line}: {message}")
    assert error.exit_code == 2


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        pytest.param(
            "version: 1\ncheck: [a\n",
            3,
            "invalid YAML: while parsing a flow sequence, expected ',' or ']'",
            id="flow",
        ),
        pytest.param(
            "version: 1\nbenchmarks:\n  sort:\n   metric: cpu\n  bad indent: x\n    y: 1\n",
            6,
            "invalid YAML: mapping values are not allowed here",
            id="indent",
        ),
        pytest.param(
            "version: 1\n\tcheck: {}\n",
            2,
            "invalid YAML: while scanning for the next token, found character '\\t'",
            id="tab",
        ),
        pytest.param(
            "version: 1\n---\nversion: 1\n",
            2,
            "invalid YAML: expected a single document in the stream, but found another document",
            id="docs",
        ),
        pytest.param(
            "version: 1\nexpect:\n  *: <= n\n",
            3,
            "invalid YAML: while scanning an alias, expected alphabetic or numeric character, "
            "but found ':'; a glob such as * must be quoted",
            id="unquoted-glob",
        ),
    ],
)
def test_yaml_syntax_errors_report_the_yaml_line(
    tmp_path: Path, text: str, line: int, message: str
) -> None:
    path = tmp_path / "perfguard.yml"
    path.write_text(text, encoding="utf-8")
    error = load_error(path)
    assert error.line == line
    assert str(error).startswith(f"{path}:{line}: {message}")


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yml"
    error = load_error(path)
    assert str(error) == f"{path}: no such file"
    assert error.line is None
    default = tmp_path / "perfguard.yml"  # `perfguard run` in a folder without one
    assert str(load_error(default)) == (
        f"{default}: no such file (`perfguard init` writes one for a project)"
    )


def test_directory_instead_of_file(tmp_path: Path) -> None:
    assert str(load_error(tmp_path)) == f"{tmp_path}: is a directory, expected a YAML file"


@pytest.mark.parametrize(
    "text", ["", "\n\n", "# only a comment\n"], ids=["empty", "blank", "comment"]
)
def test_empty_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "perfguard.yml"
    path.write_text(text, encoding="utf-8")
    assert str(load_error(path)) == f'{path}: file is empty; a config needs at least "version: 1"'


def test_non_utf8_file_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "perfguard.yml"
    path.write_bytes(b"version: 1\nexpect:\n  '*': '\xff'\n")
    assert str(load_error(path)) == f"{path}:3: not UTF-8 text"


def test_version_error_wins_over_unknown_keys(tmp_path: Path) -> None:
    # A version-2 file may use keys version 1 does not know; the version is the real problem.
    path = write(tmp_path, "future_section: {}\nversion: 2\n")
    assert str(load_error(path)).startswith(f"{path}:2: version: unsupported version 2")


# ---------------------------------------------------------------- ranges


@pytest.mark.parametrize(
    ("text", "values"),
    [
        pytest.param("2^10..2^13", (1024.0, 2048.0, 4096.0, 8192.0), id="powers-of-two"),
        pytest.param("2^0..2^2", (1.0, 2.0, 4.0), id="from-one"),
        pytest.param("2^5..2^5", (32.0,), id="single"),
        pytest.param("1024..4096", (1024.0, 2048.0, 4096.0), id="powers-written-out"),
        pytest.param(" 2^10 .. 2^11 ", (1024.0, 2048.0), id="spaces"),
        pytest.param("1000..8000 x2", (1000.0, 2000.0, 4000.0, 8000.0), id="geometric"),
        pytest.param("1000..9000 x2", (1000.0, 2000.0, 4000.0, 8000.0), id="geometric-stops-below"),
        pytest.param("10^2..10^4 x10", (100.0, 1000.0, 10000.0), id="geometric-powers-of-ten"),
        pytest.param("1e3..1e5 *10", (1e3, 1e4, 1e5), id="geometric-star"),
        pytest.param("1..3.375 x1.5", (1.0, 1.5, 2.25, 3.375), id="geometric-fraction"),
        pytest.param("10..50 +10", (10.0, 20.0, 30.0, 40.0, 50.0), id="arithmetic"),
        pytest.param("10..55 +10", (10.0, 20.0, 30.0, 40.0, 50.0), id="arithmetic-stops-below"),
        pytest.param("0.1..0.5 +0.1", (0.1, 0.2, 0.3, 0.4, 0.5), id="arithmetic-decimals"),
    ],
)
def test_parse_range(text: str, values: tuple[float, ...]) -> None:
    assert parse_range(text) == values


def test_a_geometric_range_of_large_powers_stays_exact() -> None:
    # fifteen-digit tidying passed 72057594037927904 (51 bits set) for 2^56 and a 65-bit
    # number for 2^64 to the benchmark: a cost that depends on the bits then bumps there
    values = parse_range("2^4..2^64 x16")
    assert values == tuple(16.0**k for k in range(1, 17))
    assert [int(v).bit_count() for v in values] == [1] * 16


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        pytest.param("", "expected", id="empty"),
        pytest.param("2^10", "expected", id="no-end"),
        pytest.param("1..", "expected", id="open-end"),
        pytest.param("2^10...2^12", "expected", id="three-dots"),
        pytest.param("1..8 /2", "expected", id="unknown-step"),
        pytest.param("-4..4 +1", "expected", id="negative-start"),
        pytest.param("10..50", "without a step both ends must be powers of two", id="no-step"),
        pytest.param(
            "2^4..24", "without a step both ends must be powers of two", id="end-not-pow2"
        ),
        pytest.param("0..4 +1", "values must be > 0", id="zero-start"),
        pytest.param("8..2 x2", "the start 8 exceeds the end 2", id="reversed"),
        pytest.param("1..8 x1", "the factor must be greater than 1", id="factor-one"),
        pytest.param("1..8 x0.5", "the factor must be greater than 1", id="factor-below-one"),
        pytest.param("1..8 +0", "the step must be greater than 0", id="step-zero"),
        pytest.param("2^2000..2^2001", "2^2000 is out of range", id="overflow"),
        pytest.param("1..1e9 +1", f"more than the limit of {MAX_RANGE_VALUES}", id="too-many"),
    ],
)
def test_parse_range_rejects(text: str, reason: str) -> None:
    with pytest.raises(ValueError, match="bad range") as info:
        parse_range(text)
    assert reason in str(info.value)


@given(st.integers(-20, 40), st.integers(0, 30))
def test_doubling_range_matches_powers_of_two(first: int, extra: int) -> None:
    last = first + extra
    assert parse_range(f"2^{first}..2^{last}") == tuple(2.0**k for k in range(first, last + 1))


@given(st.integers(1, 1000), st.integers(0, 5000), st.integers(1, 500))
def test_arithmetic_range_matches_python_range(start: int, width: int, step: int) -> None:
    stop = start + width
    expected = tuple(float(v) for v in range(start, stop + 1, step))
    assert parse_range(f"{start}..{stop} +{step}") == expected


@given(st.integers(1, 10_000), st.integers(2, 10), st.integers(0, 8))
def test_geometric_range_reaches_an_exact_end(start: int, factor: int, steps: int) -> None:
    stop = start * factor**steps
    expected = tuple(float(start * factor**k) for k in range(steps + 1))
    assert parse_range(f"{start}..{stop} x{factor}") == expected


# ---------------------------------------------------------------- analytical models


def test_analytical_expression_is_checked_and_stored(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
          n: [64, 128]
          bx: [8, 16]
        benchmarks:
          sweep:
            callable: "kernels:sweep"
            analytical: "ceil(n/bx) * (bx + 2) * n^2"
          plain:
            callable: "kernels:plain"
        """,
    )
    config = load_config(path)
    sweep, plain = config.benchmarks
    assert sweep.analytical == "ceil(n/bx) * (bx + 2) * n^2"
    assert sweep.line_of("analytical") == 8
    assert plain.analytical is None
    models = analytical_models(config, ("n", "bx"))
    assert set(models) == {"sweep"}
    value = models["sweep"].evaluate({"n": [64.0], "bx": [16.0]})
    assert value[0] == pytest.approx(4 * 18 * 64**2)


def test_analytical_block_scalar_spans_several_lines(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
          n: [32, 64]
          bx: [8, 128]
        benchmarks:
          stencil:
            command: ["true"]
            analytical: >-
              8 * ceil(n/bx)
              * (min(bx, n) + 2)
                + 2 * n
        """,
    )
    (bench,) = load_config(path).benchmarks
    assert bench.analytical is not None and "\n" in bench.analytical
    model = analytical_models(load_config(path), ("n", "bx"))["stencil"]
    assert model.source == "8 * ceil(n/bx) * (min(bx, n) + 2) + 2 * n"
    got = model.evaluate({"n": [32.0, 32.0], "bx": [8.0, 128.0]})
    assert list(got) == [8 * 4 * 10 + 64, 8 * 1 * 34 + 64]


def test_analytical_callable_is_resolved_later(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters:
          n: [1, 2]
        benchmarks:
          sweep:
            command: ["true"]
            analytical: " no_such_module_for_perfguard:traffic "
        """,
    )
    config = load_config(path)  # nothing is imported yet
    assert config.benchmarks[0].analytical == "no_such_module_for_perfguard:traffic"
    with pytest.raises(ConfigError) as info:
        analytical_models(config, ("n",))
    error = info.value
    assert (error.path, error.line) == (str(path), 7)
    assert str(error).startswith(
        f"{path}:7: benchmarks.sweep.analytical: cannot import no_such_module_for_perfguard:traffic"
    )


def test_analytical_callable_is_imported_from_the_config_folder(tmp_path: Path) -> None:
    (tmp_path / "perfguard_traffic_model.py").write_text(
        "def traffic(n, bx):\n    return n * bx + 1\n", encoding="utf-8"
    )
    path = write(
        tmp_path,
        """
        version: 1
        parameters: {n: [1, 2], bx: [1, 2]}
        benchmarks:
          sweep:
            command: ["true"]
            analytical: "perfguard_traffic_model:traffic"
        """,
    )
    try:
        model = analytical_models(load_config(path), ("n", "bx"))["sweep"]
        assert model.is_callable
        assert list(model.evaluate({"n": [2.0, 3.0], "bx": [4.0, 5.0]})) == [9.0, 16.0]
    finally:
        sys.modules.pop("perfguard_traffic_model", None)


def test_analytical_models_name_the_line_when_the_measurements_lack_a_parameter(
    tmp_path: Path,
) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        parameters: {n: [1, 2], bx: [1, 2]}
        benchmarks:
          sweep:
            command: ["true"]
            analytical: "n * bx"
        """,
    )
    with pytest.raises(ConfigError) as info:
        analytical_models(load_config(path), ("n",))
    assert str(info.value).startswith(
        f"{path}:6: benchmarks.sweep.analytical: column 5: unknown name 'bx'"
    )


@pytest.mark.parametrize(
    ("analytical", "message"),
    [
        pytest.param('"n * m"', "column 5: unknown name 'm'; allowed: numbers", id="unknown-name"),
        pytest.param('"n * (bx"', "column 5: not an expression", id="syntax"),
        pytest.param('"cbrt(n)"', "column 1: unknown function 'cbrt'", id="unknown-function"),
        pytest.param(
            "\"__import__('os').system('true')\"",
            "column 1: unknown function",
            id="no-code-execution",
        ),
        pytest.param('"n.real"', "column 1: Attribute is not allowed", id="attribute"),
        pytest.param("42", "expected a non-empty string, got 42", id="not-a-string"),
        pytest.param('""', "expected a non-empty string", id="empty"),
    ],
)
def test_bad_analytical_is_a_config_error_at_its_line(
    tmp_path: Path, analytical: str, message: str
) -> None:
    path = write(
        tmp_path,
        f"""
        version: 1
        parameters:
          n: [1, 2]
          bx: [1, 2]
        benchmarks:
          sweep:
            command: ["true"]
            analytical: {analytical}
        """,
    )
    error = load_error(path)
    assert (error.path, error.line) == (str(path), 8)
    assert str(error).startswith(f"{path}:8: benchmarks.sweep.analytical: {message}")
    assert error.exit_code == 2


def test_analytical_without_parameters_knows_no_names(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        """
        version: 1
        benchmarks:
          sweep:
            command: ["true"]
            analytical: "2 * n"
        """,
    )
    error = load_error(path)
    assert error.line == 5
    assert "benchmarks.sweep.analytical: column 5: unknown name 'n'" in str(error)
    assert "the parameters (none)" in str(error)
