"""pytest-benchmark, Google Benchmark and hyperfine importers, and JSON line lookup."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from guard import formats
from guard.errors import FormatError
from guard.formats import native
from guard.formats._json_lines import JsonFile, describe, locate
from guard.measurements import MeasurementSet

DATA = Path(__file__).parent / "data" / "formats"
NEW_FORMATS = ["pytest-benchmark", "google-benchmark", "hyperfine"]
SIZES = [256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0]


def write(tmp_path: Path, text: str, name: str = "bad.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def perfguard(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "guard.cli", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": "200"},
    )


def raw(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def all_values(mset: MeasurementSet, metric: str = "time") -> list[float]:
    return sorted(v for k in mset.kernels if k.metric == metric for p in k.points for v in p.values)


def points(mset: MeasurementSet, name: str, metric: str = "time") -> list[tuple[float, ...]]:
    return [p.at for p in mset.kernel(name, metric).points]


def values(mset: MeasurementSet, name: str, at: tuple[float, ...], metric: str = "time") -> tuple:
    (point,) = [p for p in mset.kernel(name, metric).points if p.at == at]
    return point.values


# --- line lookup ------------------------------------------------------------------------

NESTED = """{
  "benchmarks": [
    {"name": "a, [b]: {c}", "params": {"n": 1}},
    {
      "name": "tricky \\" quote ]",
      "params": {
        "n": "big",
        "n": 2
      },
      "data": [1, [2, 3], 4]
    }
  ],
  "b": {"n": 1}
}
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ([], 1),
        (["benchmarks"], 2),
        (["benchmarks", 0], 3),
        (["benchmarks", 0, "params", "n"], 3),
        (["benchmarks", 1], 4),
        (["benchmarks", 1, "name"], 5),
        (["benchmarks", 1, "params"], 6),
        (["benchmarks", 1, "params", "n"], 8),  # the last of repeated keys wins, as in json
        (["benchmarks", 1, "data", 1, 0], 10),
        (["b", "n"], 13),
        (["benchmarks", 7], 2),  # no such item: the nearest existing ancestor
        (["benchmarks", 1, "missing"], 4),
        (["benchmarks", 1, "name", 0], 5),  # a path through a string stops there
        (["benchmarks", "0"], 2),  # a key where an index is needed
    ],
)
def test_locate_finds_the_line_where_an_element_starts(path: list, line: int) -> None:
    assert locate(NESTED, path) == line


def test_locate_skips_leading_blank_lines() -> None:
    assert locate('\n\n  {"a":\n\n 1}', []) == 3
    assert locate('\n\n  {"a":\n\n 1}', ["a"]) == 5


@pytest.mark.parametrize("text", ["", "{", '{"a": [1, 2', '{"a" 1}', "[1 2]", "nul", '{"a": 1,'])
def test_locate_never_fails_on_broken_text(text: str) -> None:
    assert locate(text, ["a", 1, "b"]) >= 1
    assert locate(text, [1]) >= 1


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ([], "document"),
        (["benchmarks", 2, "params", "n"], "benchmarks[2].params.n"),
        ([0, "a"], "[0].a"),
        (["results", 0, "parameters", "my key"], 'results[0].parameters["my key"]'),
    ],
)
def test_describe_writes_paths_as_readers_do(path: list, text: str) -> None:
    assert describe(path) == text


def test_json_file_errors_name_file_line_and_path() -> None:
    doc = JsonFile(NESTED, "bench.json")
    err = doc.fail(["benchmarks", 1, "params", "n"], 'expected a number, got "big"')
    assert str(err) == 'bench.json:8: benchmarks[1].params.n: expected a number, got "big"'
    assert (err.path, err.line) == ("bench.json", 8)
    with pytest.raises(FormatError, match=r"^bench.json:1: document: expected a list"):
        doc.arr(doc.root, [])
    with pytest.raises(FormatError, match=r"too large"):
        doc.number(10**400, [])


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@st.composite
def value_and_path(draw: st.DrawFn) -> tuple[Any, list[str | int], Any]:
    value = draw(JSON_VALUES)
    path: list[str | int] = []
    node = value
    while isinstance(node, (list, dict)) and node and draw(st.booleans()):
        step = draw(st.sampled_from(range(len(node)) if isinstance(node, list) else list(node)))
        path.append(step)
        node = node[step]
    return value, path, node


@given(value_and_path())
def test_locate_agrees_with_indented_json(case: tuple[Any, list[str | int], Any]) -> None:
    value, path, node = case
    text = json.dumps(value, indent=1)
    line = text.split("\n")[locate(text, path) - 1].strip()
    key = json.dumps(path[-1]) + ": " if path and isinstance(path[-1], str) else ""
    assert line.startswith(key + json.dumps(node, indent=1).split("\n")[0])
    assert locate(json.dumps(value), path) == 1


@given(st.text(max_size=60), st.lists(st.integers(0, 3) | st.text(max_size=2), max_size=4))
def test_locate_never_raises(text: str, path: list[str | int]) -> None:
    assert 1 <= locate(text, path) <= text.count("\n") + 1


# --- fixtures ---------------------------------------------------------------------------

FIXTURE_FORMATS = {
    "pytest_benchmark.json": "pytest-benchmark",
    "pytest_benchmark_nodata.json": "pytest-benchmark",
    "google_benchmark.json": "google-benchmark",
    "google_benchmark_2arg.json": "google-benchmark",
    "hyperfine_scan.json": "hyperfine",
    "hyperfine_list.json": "hyperfine",
}
FIXTURE_KERNELS = {
    "pytest_benchmark.json": [
        ("test_sort[kind=list]", "time"),
        ("test_sort[kind=array]", "time"),
        ("test_sum", "time"),
    ],
    "pytest_benchmark_nodata.json": [("test_bisect", "time"), ("test_sorted", "time")],
    "google_benchmark.json": [
        ("BM_Sort", "time"),
        ("BM_Sort", "cpu"),
        ("BM_Find", "time"),
        ("BM_Find", "cpu"),
    ],
    "google_benchmark_2arg.json": [("BM_MatVec", "time"), ("BM_MatVec", "cpu")],
    "hyperfine_scan.json": [("sort -n data_{n}.txt", "time")],
    "hyperfine_list.json": [
        ("./sorter --size {n} [impl=merge]", "time"),
        ("./sorter --size {n} [impl=quick]", "time"),
        ("python3 sorter.py --algo merge --size {n}", "time"),
        ("python3 sorter.py --algo quick --size {n}", "time"),
    ],
}


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
def test_exactly_one_sniffer_accepts_each_fixture(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    assert [n for n, imp in formats._REGISTRY.items() if imp.sniff(text)] == [FIXTURE_FORMATS[name]]


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
@pytest.mark.parametrize("dump", [json.dumps, lambda d: json.dumps(d, sort_keys=True, indent=2)])
def test_minified_and_key_sorted_files_are_detected(name: str, dump: Any) -> None:
    text = dump(raw(name))
    assert [n for n, imp in formats._REGISTRY.items() if imp.sniff(text)] == [FIXTURE_FORMATS[name]]


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
def test_fixture_kernels_units_and_native_round_trip(name: str) -> None:
    mset = formats.load(DATA / name)
    assert [k.key for k in mset.kernels] == FIXTURE_KERNELS[name]
    assert {k.unit for k in mset.kernels} == {"s"}
    assert formats.load(DATA / name, FIXTURE_FORMATS[name]) == mset
    text = native.dumps(mset)
    assert [n for n, imp in formats._REGISTRY.items() if imp.sniff(text)] == ["perfguard"]
    assert formats.parse(text, "rt.json") == mset


def test_pytest_benchmark_with_data() -> None:
    mset = formats.load(DATA / "pytest_benchmark.json")
    assert mset.parameters == ("n",)
    for kernel in mset.kernels:
        assert [p.at for p in kernel.points] == [(n,) for n in SIZES]
        assert {len(p.values) for p in kernel.points} == ({7} if kernel.name == "test_sum" else {5})
    assert values(mset, "test_sort[kind=list]", (256,)) == (
        8.664e-05,
        8.427e-05,
        8.984e-05,
        8.217e-05,
        8.538e-05,
    )
    assert values(mset, "test_sort[kind=list]", (8192,)) == (
        0.004575,
        0.004344,
        0.004684,
        0.004531,
        0.004407,
    )
    assert values(mset, "test_sum", (256,))[:3] == (8.152e-06, 8.347e-06, 8.427e-06)
    doc = raw("pytest_benchmark.json")
    assert all_values(mset) == sorted(v for b in doc["benchmarks"] for v in b["stats"]["data"])


def test_pytest_benchmark_run_info() -> None:
    run = formats.load(DATA / "pytest_benchmark.json").run
    assert run.commit == "9c1f2e7a4b5d6e8f0a1b2c3d4e5f60718293a4b5"
    assert run.branch == "main"
    assert run.started == "2024-01-15T09:25:02.481503+00:00"
    assert dict(run.machine) == {
        "node": "ci-runner-7",
        "processor": "x86_64",
        "machine": "x86_64",
        "python_version": "3.11.6",
        "cpu": "Intel(R) Core(TM) i7-8650U CPU @ 1.90GHz",
    }


def test_pytest_benchmark_without_data_uses_the_median() -> None:
    mset = formats.load(DATA / "pytest_benchmark_nodata.json")
    medians = [1.693e-06, 1.944e-06, 2.134e-06, 2.378e-06, 2.56e-06, 2.747e-06]
    assert [p.values for p in mset.kernel("test_bisect", "time").points] == [(m,) for m in medians]
    assert points(mset, "test_sorted") == [(n,) for n in SIZES]
    assert values(mset, "test_sorted", (8192,)) == (0.005403,)


def test_google_benchmark_skips_aggregates_and_converts_units() -> None:
    mset = formats.load(DATA / "google_benchmark.json")
    assert mset.parameters == ("n",)
    assert points(mset, "BM_Sort") == [(1024.0 * 2**k,) for k in range(6)]
    assert points(mset, "BM_Find", "cpu") == [(64.0 * 4**k,) for k in range(6)]
    assert values(mset, "BM_Sort", (1024,)) == (
        1.1709925942288439e01 / 1e6,
        1.1785199945221512e01 / 1e6,
        1.1739211018124864e01 / 1e6,
    )
    assert values(mset, "BM_Sort", (1024,), "cpu")[0] == 1.1646748185664311e01 / 1e6
    assert values(mset, "BM_Find", (64,)) == (23.97567156736757 / 1e9,)
    assert values(mset, "BM_Find", (64,), "cpu") == (23.824520347625942 / 1e9,)
    rows = [r for r in raw("google_benchmark.json")["benchmarks"] if r["run_type"] == "iteration"]
    scale = {"us": 1e6, "ns": 1e9}
    assert all_values(mset) == sorted(r["real_time"] / scale[r["time_unit"]] for r in rows)
    assert all_values(mset, "cpu") == sorted(r["cpu_time"] / scale[r["time_unit"]] for r in rows)


def test_google_benchmark_run_info() -> None:
    run = formats.load(DATA / "google_benchmark.json").run
    assert (run.commit, run.branch, run.started) == (None, None, "2024-01-15T10:31:07+01:00")
    assert dict(run.machine) == {
        "host_name": "ci-runner-7",
        "executable": "./build/bench/sort_bench",
        "num_cpus": 8,
        "mhz_per_cpu": 4200,
        "library_build_type": "release",
    }


def test_google_benchmark_two_arguments() -> None:
    mset = formats.load(DATA / "google_benchmark_2arg.json")
    assert mset.parameters == ("n", "m")
    grid = [(n, m) for n in (64.0, 128.0, 256.0, 512.0, 1024.0) for m in (1.0, 2.0, 4.0, 8.0, 16.0)]
    assert points(mset, "BM_MatVec") == grid
    assert values(mset, "BM_MatVec", (64, 1)) == (0.011730284366711797 / 1e3,)
    assert values(mset, "BM_MatVec", (64, 1), "cpu") == (0.011683493906607736 / 1e3,)


def test_hyperfine_parameter_scan() -> None:
    mset = formats.load(DATA / "hyperfine_scan.json")
    assert mset.parameters == ("n",)
    assert points(mset, "sort -n data_{n}.txt") == [(1000.0 * k,) for k in range(1, 7)]
    first = (0.003452129059, 0.00364684049, 0.003899435405, 0.003729887548, 0.003366991594)
    assert values(mset, "sort -n data_{n}.txt", (1000,)) == first
    assert values(mset, "sort -n data_{n}.txt", (6000,))[-1] == 0.02028205003
    assert all_values(mset) == sorted(
        t for r in raw("hyperfine_scan.json")["results"] for t in r["times"]
    )
    assert mset.run.commit is None and dict(mset.run.machine) == {}


def test_hyperfine_parameter_list_with_a_text_parameter() -> None:
    mset = formats.load(DATA / "hyperfine_list.json")
    assert mset.parameters == ("n",)
    sizes = [(1000.0,), (2000.0,), (4000.0,), (8000.0,), (16000.0,)]
    for name, _ in FIXTURE_KERNELS["hyperfine_list.json"]:
        assert points(mset, name) == sizes
    assert values(mset, "./sorter --size {n} [impl=merge]", (1000,)) == (
        0.002064974044,
        0.002193734397,
        0.002063971605,
    )
    assert values(mset, "python3 sorter.py --algo quick --size {n}", (16000,)) == (
        0.6082526392,
        0.5959001328,
        0.6207453957,
    )
    assert all_values(mset) == sorted(
        t for r in raw("hyperfine_list.json")["results"] for t in r["times"]
    )


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
def test_cli_models_every_fixture(name: str) -> None:
    result = perfguard("model", DATA / name, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {(m["kernel"], m["metric"]) for m in doc["models"]} == set(FIXTURE_KERNELS[name])
    assert doc["skipped"] == []


# --- pytest-benchmark: semantics ----------------------------------------------------------


def pytest_text(*rows: str) -> str:
    """A pytest-benchmark file whose benchmarks[i] starts on line 5 + (lines before it)."""
    return (
        '{\n "machine_info": {},\n "commit_info": {},\n "benchmarks": [\n'
        + ",\n".join(rows)
        + "\n ]\n}\n"
    )


def pb_row(name: str, params: object, stats: str = '{"median": 1.5, "data": [1.0, 2.0]}') -> str:
    return f'  {{"name": "{name}", "params": {json.dumps(params)}, "stats": {stats}}}'


def parse_pytest(*rows: str) -> MeasurementSet:
    return formats.parse(pytest_text(*rows), "b.json", "pytest-benchmark")


def test_pytest_several_numeric_and_text_params() -> None:
    mset = parse_pytest(
        pb_row("test_mm[a-64-8-True]", {"algo": "a", "n": 64, "m": 8, "fast": True}),
        pb_row("test_mm[a-128-8-True]", {"m": 8, "n": 128, "algo": "a", "fast": True}),
        pb_row("test_mm[b-64-4.5-None]", {"algo": "b", "n": 64, "m": 4.5, "fast": None}),
    )
    assert mset.parameters == ("n", "m")
    assert [k.name for k in mset.kernels] == [
        "test_mm[algo=a,fast=true]",
        "test_mm[algo=b,fast=null]",
    ]
    assert points(mset, "test_mm[algo=a,fast=true]") == [(64.0, 8.0), (128.0, 8.0)]
    assert points(mset, "test_mm[algo=b,fast=null]") == [(64.0, 4.5)]


def test_pytest_sniffer_ignores_other_benchmark_lists() -> None:
    assert formats.detect(pytest_text(pb_row("t[1]", {"n": 1})), "b.json") == "pytest-benchmark"
    with pytest.raises(FormatError, match="cannot tell the format"):
        formats.detect('{"benchmarks": [{"name": "t[1]"}]}', "b.json")


def test_pytest_run_info_tolerates_missing_or_odd_metadata() -> None:
    text = json.dumps(
        {
            "machine_info": {"node": 3, "cpu": {"brand": "Old CPU"}},
            "commit_info": [],
            "benchmarks": [{"name": "t[1]", "params": {"n": 1}, "stats": {"median": 2.0}}],
            "datetime": 17,
        }
    )
    run = formats.parse(text, "b.json").run
    assert (run.commit, run.branch, run.started) == (None, None, None)
    assert dict(run.machine) == {"cpu": "Old CPU"}


PYTEST_ERRORS = [
    (
        [
            pb_row("test_sort[256]", {"n": 256}),
            '  {"name": "test_sort[big]",\n   "params": {\n    "n": "big"\n   },\n'
            '   "stats": {"median": 1.0}}',
        ],
        8,
        'benchmarks[1].params.n: expected a number, got "big"',
    ),
    (
        [pb_row("test_sort[256]", {"n": 256}), pb_row("test_startup", None)],
        6,
        "benchmarks[1]: test_startup is not parametrized",
    ),
    (
        [pb_row("test_sort[256]", {"n": 256}), pb_row("test_sort[512-4]", {"n": 512, "m": 4})],
        6,
        "benchmarks[1].params.m: test_sort[512-4] has the numeric parameter m, but "
        "benchmarks[0] has only n",
    ),
    (
        [pb_row("test_sort[256]", {"n": 256}), pb_row("test_sort[list]", {"kind": "list"})],
        6,
        "benchmarks[1].params: test_sort[list] has no n, but benchmarks[0] has",
    ),
    (
        [pb_row("test_sort[list]", {"kind": "list"})],
        5,
        "benchmarks[0].params: test_sort[list] has no numeric parameter",
    ),
    (
        [
            pb_row("test_sort[256]", {"n": 256}),
            '  {"name": "test_sort[512]", "params": {"n": 512}, "stats": {\n    "median": 1.0,\n'
            '    "data": [\n     1.0,\n     "x"\n    ]}}',
        ],
        10,
        'benchmarks[1].stats.data[1]: expected a number, got "x"',
    ),
    (
        [pb_row("t[1]", {"n": 1}, '{"mean": 1.0}')],
        5,
        'benchmarks[0].stats: missing "median"',
    ),
    (
        [pb_row("t[1]", {"n": 1}, '{"median": 1.0, "data": 3}')],
        5,
        "benchmarks[0].stats.data: expected a list, got 3",
    ),
    (
        [pb_row("t[1]", {"n": 1}, '{"median": 1.0, "data": [1.0, 2, true]}')],
        5,
        "benchmarks[0].stats.data[2]: expected a number, got true",
    ),
    (
        [pb_row("t[1]", {"n": 1}, '{"median": 1.0, "data": [1.0, 1' + "0" * 400 + "]}")],
        5,
        "benchmarks[0].stats.data[1]: number 1000",
    ),
    (['  {"name": "t[1]", "params": {"n": 1}}'], 5, 'benchmarks[0]: missing "stats"'),
    (
        [pb_row("test_sort[256]", {"n": 256}), pb_row("test_sort[256]", {"n": 256})],
        6,
        "test_sort at n=256 is already measured by benchmarks[0]",
    ),
    ([pb_row("t[1]", {"n": 1}), '  "t[2]"'], 6, 'benchmarks[1]: expected an object, got "t[2]"'),
    (
        ['  {"name": 7, "params": {"n": 1}}'],
        5,
        "benchmarks[0].name: expected a non-empty string, got 7",
    ),
    (
        ['  {"name": "t[1]", "params": [1]}'],
        5,
        "benchmarks[0].params: expected an object, got [1]",
    ),
]


@pytest.mark.parametrize(("rows", "line", "fragment"), PYTEST_ERRORS)
def test_pytest_errors_name_file_and_line(
    tmp_path: Path, rows: list[str], line: int, fragment: str
) -> None:
    path = write(tmp_path, pytest_text(*rows))
    with pytest.raises(FormatError) as info:
        formats.load(path, "pytest-benchmark")
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)
    assert info.value.line == line


@pytest.mark.parametrize(
    ("text", "line", "fragment"),
    [
        ('{\n "machine_info": {},\n "benchmarks": {}\n}\n', 3, "benchmarks: expected a list"),
        ('{\n "machine_info": {},\n "benchmarks": []\n}\n', 3, "benchmarks: no benchmarks"),
        ('{\n "machine_info": {}\n}\n', 1, 'document: missing "benchmarks"'),
        ('{\n "benchmarks": [\n  {"name": "a"},\n ]\n}\n', 4, "invalid JSON"),
        ("[1, 2]\n", 1, "document: expected an object, got [1, 2]"),
    ],
)
def test_pytest_document_errors(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as info:
        formats.load(path, "pytest-benchmark")
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)


# --- Google Benchmark: semantics ------------------------------------------------------------


def gb_text(*rows: str) -> str:
    """A Google Benchmark file whose benchmarks[i] starts on line 4 + (lines before it)."""
    return (
        '{\n "context": {"date": "2024-01-15T10:31:07+01:00"},\n "benchmarks": [\n'
        + ",\n".join(rows)
        + "\n ]\n}\n"
    )


def gb_row(
    name: str, real: object = 2.0, cpu: object = 1.0, unit: str = "ns", **extra: object
) -> str:
    row = {"name": name, "run_name": name, "run_type": "iteration", "real_time": real}
    row |= {"cpu_time": cpu, "time_unit": unit, **extra}
    return "  " + json.dumps(row)


def parse_google(*rows: str) -> MeasurementSet:
    return formats.parse(gb_text(*rows), "g.json", "google-benchmark")


@pytest.mark.parametrize(
    ("name", "kernel", "at"),
    [
        ("BM_Sort/1024", "BM_Sort", (1024.0,)),
        ("BM_Sort/1024/repeats:3", "BM_Sort", (1024.0,)),
        ("BM_Sort/1024/min_time:0.500/iterations:100", "BM_Sort", (1024.0,)),
        ("BM_Sort/1024/min_warmup_time:0.200s/process_time/real_time", "BM_Sort", (1024.0,)),
        ("BM_Sort/1024/manual_time", "BM_Sort", (1024.0,)),
        ("BM_Sort/1024/threads:4", "BM_Sort/threads:4", (1024.0,)),
        ("BM_Sort/1024/real_time/threads:8", "BM_Sort/threads:8", (1024.0,)),
        ("BM_Sort<std::string>/-8", "BM_Sort<std::string>", (-8.0,)),
        ("sort/vector/1024", "sort/vector", (1024.0,)),
        ("BM_Sort/n:1024", "BM_Sort", (1024.0,)),
    ],
)
def test_google_names_become_kernel_and_size(name: str, kernel: str, at: tuple) -> None:
    mset = parse_google(gb_row(name))
    assert mset.parameters == ("n",)
    assert [k.key for k in mset.kernels] == [(kernel, "time"), (kernel, "cpu")]
    assert mset.kernels[0].points[0].at == at


def test_google_argument_names() -> None:
    mset = parse_google(gb_row("BM_X/rows:64/cols:8"), gb_row("BM_X/cols:4/rows:32"))
    assert mset.parameters == ("rows", "cols")
    assert points(mset, "BM_X") == [(64.0, 8.0), (32.0, 4.0)]
    mset = parse_google(gb_row("BM_Y/1/2/3/4/5"))
    assert mset.parameters == ("n", "m", "k", "arg3", "arg4")
    assert parse_google(gb_row("BM_Z/64/cols:8")).parameters == ("n", "cols")


@pytest.mark.parametrize(("unit", "scale"), [("ns", 1e9), ("us", 1e6), ("ms", 1e3), ("s", 1.0)])
def test_google_time_units(unit: str, scale: float) -> None:
    mset = parse_google(gb_row("BM_A/8", 3.5, 2.5, unit))
    assert values(mset, "BM_A", (8,)) == (3.5 / scale,)
    assert values(mset, "BM_A", (8,), "cpu") == (2.5 / scale,)


def test_google_skips_aggregates_failures_and_old_complexity_rows() -> None:
    mset = parse_google(
        gb_row("BM_A/8", 5.0),
        gb_row("BM_A/8", 7.0),
        gb_row("BM_A/8", 6.0, run_type="aggregate", aggregate_name="mean"),
        gb_row("BM_A/16", 0.0, error_occurred=True, error_message="out of memory"),
        gb_row("BM_A/32", 0.0, skipped=True, skip_message="not supported"),
        '  {"name": "BM_A_BigO", "cpu_coefficient": 1.0, "big_o": "N", "time_unit": "ns"}',
        '  {"name": "BM_A_RMS", "rms": 0.01}',
        '  {"name": "BM_A/64", "real_time": 9.0, "cpu_time": 8.0}',  # pre-1.5: no run_type
    )
    assert points(mset, "BM_A") == [(8.0,), (64.0,)]
    assert values(mset, "BM_A", (8,)) == (5e-9, 7e-9)
    assert values(mset, "BM_A", (64,), "cpu") == (8e-9,)


def test_google_old_complexity_rows_are_carried_on_their_family() -> None:
    mset = parse_google(
        *(gb_row(f"BM_A/{n}", 5.0) for n in (8, 16)),
        '  {"name": "BM_A_BigO", "cpu_coefficient": 2.5, "big_o": "N", "time_unit": "us"}',
        '  {"name": "BM_A_RMS", "rms": 0.01}',
    )
    cpu, time = mset.kernel("BM_A", "cpu").reported, mset.kernel("BM_A", "time").reported
    assert cpu is not None and (cpu.complexity, cpu.coefficient, cpu.rms) == ("O(N)", 2.5e-6, 0.01)
    # No real_coefficient in the row: the class stays, the coefficient is unknown.
    assert time is not None and (time.complexity, time.coefficient, time.rms) == (
        "O(N)",
        None,
        None,
    )


@pytest.mark.parametrize(
    ("fields", "complexity", "coefficient"),
    [
        ({"big_o": "f(N)", "cpu_coefficient": 3.0}, "O(f(N))", 3e-9),  # a Complexity(lambda)
        ({"big_o": "NlgN", "cpu_coefficient": "fast"}, "O(N log N)", None),
        ({"big_o": "lgN", "cpu_coefficient": 1.0, "time_unit": "weeks"}, "O(log N)", None),
        ({"big_o": 7, "cpu_coefficient": 1.0}, None, None),
        ({"big_o": "", "cpu_coefficient": 1.0}, None, None),
    ],
)
def test_google_complexity_fields_of_an_unexpected_kind_are_left_out(
    fields: dict[str, Any], complexity: str | None, coefficient: float | None
) -> None:
    big_o = {"name": "BM_A_BigO", "run_name": "BM_A", "run_type": "aggregate"}
    big_o |= {"aggregate_name": "BigO", "time_unit": "ns", **fields}
    mset = parse_google(gb_row("BM_A/8"), gb_row("BM_A/16"), "  " + json.dumps(big_o))
    assert values(mset, "BM_A", (8,), "cpu") == (1e-9,)
    reported = mset.kernel("BM_A", "cpu").reported
    if complexity is None:
        assert reported is None
    else:
        assert reported is not None
        assert (reported.complexity, reported.coefficient) == (complexity, coefficient)


GOOGLE_ERRORS = [
    (
        [
            gb_row("BM_Sort/8"),
            '  {\n   "name": "BM_Startup",\n   "run_name": "BM_Startup",\n'
            '   "run_type": "iteration",\n   "real_time": 1.0,\n   "cpu_time": 1.0\n  }',
        ],
        7,
        "benchmarks[1].run_name: BM_Startup has no numeric argument to use as the size",
    ),
    (
        [gb_row("BM_Sort/8"), gb_row("BM_Mat/8/2")],
        5,
        "BM_Mat/8/2 has the arguments n, m but benchmarks[0] has n",
    ),
    (
        [
            gb_row("BM_Sort/8"),
            '  {"name": "BM_Sort/16", "real_time": 1.0, "cpu_time": 1.0,\n   "time_unit": "min"}',
        ],
        6,
        'benchmarks[1].time_unit: expected one of ns, us, ms, s, got "min"',
    ),
    ([gb_row("BM_Sort/8", "fast")], 4, 'benchmarks[0].real_time: expected a number, got "fast"'),
    (
        ['  {"name": "BM_Sort/8", "real_time": 1.0}'],
        4,
        'benchmarks[0]: missing "cpu_time"',
    ),
    ([gb_row("BM_X/n:1/n:2")], 4, "BM_X/n:1/n:2 names the argument n twice"),
    ([gb_row("/8")], 4, "/8 has no benchmark name before its arguments"),
    (['  {"run_name": 3}'], 4, "benchmarks[0].run_name: expected a non-empty string, got 3"),
    (['  "BM_Sort/8"'], 4, 'benchmarks[0]: expected an object, got "BM_Sort/8"'),
    (
        [gb_row("BM_A/8", run_type="aggregate", aggregate_name="mean")],
        3,
        "benchmarks: no benchmark runs (only aggregates or failed runs)",
    ),
]


@pytest.mark.parametrize(("rows", "line", "fragment"), GOOGLE_ERRORS)
def test_google_errors_name_file_and_line(
    tmp_path: Path, rows: list[str], line: int, fragment: str
) -> None:
    path = write(tmp_path, gb_text(*rows))
    with pytest.raises(FormatError) as info:
        formats.load(path, "google-benchmark")
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)
    assert info.value.line == line


# --- hyperfine: semantics -----------------------------------------------------------------


def hf_text(*rows: str) -> str:
    """A hyperfine file whose results[i] starts on line 3 + (lines before it)."""
    return '{\n "results": [\n' + ",\n".join(rows) + "\n ]\n}\n"


def hf_row(command: str, parameters: object, times: object = (1.0, 1.5), **extra: object) -> str:
    row = {"command": command, "mean": 1.25, "times": times, "parameters": parameters, **extra}
    return "  " + json.dumps(row)


def parse_hyperfine(*rows: str) -> MeasurementSet:
    return formats.parse(hf_text(*rows), "h.json", "hyperfine")


def test_hyperfine_values_that_occur_by_coincidence_stay() -> None:
    mset = parse_hyperfine(
        *(hf_row(f"./bench --size {n} --threads 1", {"n": str(n)}) for n in (1, 2, 10))
    )
    assert [k.name for k in mset.kernels] == ["./bench --size {n} --threads 1"]
    assert points(mset, mset.kernels[0].name) == [(1.0,), (2.0,), (10.0,)]


def test_hyperfine_digits_inside_other_numbers_are_not_parameters() -> None:
    mset = parse_hyperfine(
        hf_row("sleep 0.1; cat f_10.txt | head -1", {"n": "1"}),
        hf_row("sleep 0.1; cat f_10.txt | head -10", {"n": "10"}),
        hf_row("sleep 0.1; cat f_10.txt | head -0.5", {"n": "0.5"}),
    )
    assert [k.name for k in mset.kernels] == ["sleep 0.1; cat f_10.txt | head -{n}"]


def test_hyperfine_two_numeric_parameters_and_numbers_as_json() -> None:
    mset = parse_hyperfine(
        hf_row("mm 64 8", {"m": "8", "n": "64"}),
        hf_row("mm 64 64", {"m": 64, "n": 64}),
        hf_row("mm 128 8", {"m": "8", "n": "128"}),
    )
    assert mset.parameters == ("m", "n")
    assert [k.name for k in mset.kernels] == ["mm {n} {m}"]
    assert points(mset, "mm {n} {m}") == [(8.0, 64.0), (64.0, 64.0), (8.0, 128.0)]


def test_hyperfine_text_parameters_label_kernels_only_when_needed() -> None:
    rows = [
        hf_row(f"./{impl}-sort {n}", {"impl": impl, "n": str(n)})
        for impl in ("gnu", "busybox")
        for n in (10, 20)
    ]
    assert [k.name for k in parse_hyperfine(*rows).kernels] == [
        "./gnu-sort {n}",
        "./busybox-sort {n}",
    ]
    rows = [
        hf_row(f"./sort {n}", {"impl": impl, "n": str(n), "opt": "O2"})
        for impl in ("gnu", "busybox")
        for n in (10, 20)
    ]
    assert [k.name for k in parse_hyperfine(*rows).kernels] == [
        "./sort {n} [impl=gnu,opt=O2]",
        "./sort {n} [impl=busybox,opt=O2]",
    ]


def test_hyperfine_command_names_without_the_value_share_a_kernel() -> None:
    mset = parse_hyperfine(*(hf_row("sort", {"n": str(n)}) for n in (10, 20, 40)))
    assert [k.name for k in mset.kernels] == ["sort"]
    assert len(mset.kernels[0].points) == 3


def test_hyperfine_without_times_uses_the_mean() -> None:
    mset = parse_hyperfine(
        '  {"command": "sort 10", "mean": 0.25, "parameters": {"n": "10"}}',
        '  {"command": "sort 20", "mean": 0.5, "times": null, "parameters": {"n": "20"}}',
    )
    assert [p.values for p in mset.kernels[0].points] == [(0.25,), (0.5,)]


HYPERFINE_ERRORS = [
    (
        [hf_row("sort 1", {"n": "1"}), '  {"command": "sort", "mean": 1.0, "times": [1.0]}'],
        4,
        'results[1]: no "parameters"; run hyperfine with --parameter-scan or -L',
    ),
    (
        [
            hf_row("sort 1", {"n": "1"}),
            hf_row("sort 2", {"n": "2"}),
            '  {"command": "sort big",\n   "times": [1.0],\n   "parameters": {\n'
            '    "n": "big"\n   }\n  }',
        ],
        8,
        'results[2].parameters.n: expected a number, got "big" (results[0] has a number)',
    ),
    (
        [hf_row("sort 1", {"n": "1"}, [1.0, None])],
        3,
        "results[0].times[1]: expected a number, got null",
    ),
    (
        [hf_row("sort 1", {"n": "1"}), hf_row("sort 2", {"k": "2"})],
        4,
        "results[1].parameters: names k but results[0] names n",
    ),
    (
        [hf_row("sort-a", {"impl": "a"}), hf_row("sort-b", {"impl": "b"})],
        3,
        "results[0].parameters: no parameter is a number",
    ),
    (
        [hf_row("sort 1", {"n": ["1"]})],
        3,
        'results[0].parameters.n: expected a string, got ["1"]',
    ),
    (['  {"mean": 1.0, "parameters": {"n": "1"}}'], 3, 'results[0]: missing "command"'),
    (['  {"command": "s 1", "parameters": {"n": "1"}}'], 3, 'results[0]: missing "mean"'),
    ([], 2, "results: no results"),
]


@pytest.mark.parametrize(("rows", "line", "fragment"), HYPERFINE_ERRORS)
def test_hyperfine_errors_name_file_and_line(
    tmp_path: Path, rows: list[str], line: int, fragment: str
) -> None:
    path = write(tmp_path, hf_text(*rows))
    with pytest.raises(FormatError) as info:
        formats.load(path, "hyperfine")
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)
    assert info.value.line == line


# --- the CLI on bad files -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "line"),
    [
        (pytest_text(*PYTEST_ERRORS[0][0]), 8),
        (gb_text(*GOOGLE_ERRORS[0][0]), 7),
        (hf_text(*HYPERFINE_ERRORS[1][0]), 8),
    ],
    ids=NEW_FORMATS,
)
def test_cli_bad_file_is_one_line_with_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    path = write(tmp_path, text)
    result = perfguard("model", path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:{line}: " in lines[0]
    assert "Traceback" not in result.stderr


# --- detection and robustness ---------------------------------------------------------------


def test_new_formats_are_registered() -> None:
    assert set(NEW_FORMATS) <= set(formats.names())
    assert formats.names()[0] == "perfguard"


@pytest.mark.parametrize(
    "text",
    [
        "",
        "hello world\n",
        "[1, 2]\n",
        '{"a": 1}\n',
        '{"benchmarks": []}\n',
        '{"results": [1]}\n',
        '{"params": {"n": 1}, "value": 1}\n',
        '{"parameters": ["n"], "measurements": {}}\n',
        "PARAMETER n\nPOINTS 1\n",
    ],
)
def test_new_sniffers_reject_other_text(text: str) -> None:
    assert [n for n in NEW_FORMATS if formats._REGISTRY[n].sniff(text)] == []


TOOL_KEYS = [
    "benchmarks",
    "results",
    "context",
    "machine_info",
    "commit_info",
    "name",
    "run_name",
    "run_type",
    "params",
    "parameters",
    "stats",
    "data",
    "median",
    "mean",
    "times",
    "command",
    "real_time",
    "cpu_time",
    "time_unit",
    "n",
]
TOOL_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.sampled_from(["BM_A/8", "BM_A/n:8", "t[1]", "sort 8", "8", "big", "ns", "iteration"])
)
TOOL_VALUES = st.recursive(
    TOOL_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(TOOL_KEYS), inner, max_size=5)
    ),
    max_leaves=20,
)
TOOL_DOCS = st.dictionaries(
    st.sampled_from(["benchmarks", "results", "context", "commit_info", "datetime"]),
    st.lists(st.dictionaries(st.sampled_from(TOOL_KEYS), TOOL_VALUES, max_size=6), max_size=3)
    | TOOL_VALUES,
    max_size=3,
)


@settings(max_examples=300)
@given(TOOL_DOCS, st.sampled_from(NEW_FORMATS))
def test_json_shaped_input_raises_only_format_errors(doc: dict[str, Any], fmt: str) -> None:
    try:
        formats.parse(json.dumps(doc, indent=1), "fuzz.json", fmt)
    except FormatError as exc:
        assert exc.line is None or exc.line >= 1
