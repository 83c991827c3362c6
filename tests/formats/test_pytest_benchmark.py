"""pytest-benchmark's JSON: values, parameters, run info and errors naming file and line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from readers import DATA, all_values, assert_cli_names_file_and_line, points, raw, values, write

from guard import formats
from guard.errors import FormatError
from guard.measurements import MeasurementSet

SIZES = [256.0, 512.0, 1024.0, 2048.0, 4096.0, 8192.0]


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
        # py-cpuinfo's sizes, one of them as text ("1 MiB"): check's memory rule reads them
        "caches": {"L1d": 131072, "L2": 1048576, "L3": 8388608},
    }


def test_cache_sizes_out_of_order_are_left_out() -> None:
    # py-cpuinfo on this project's machine: L1d 96 KiB, L2 2 MiB, L3 1 MiB (sysfs: 32 MiB)
    cpu = {"l1_data_cache_size": 98304, "l2_cache_size": 2097152, "l3_cache_size": 1048576}
    text = json.dumps(
        {
            "machine_info": {"cpu": cpu},
            "benchmarks": [{"name": "t[1]", "params": {"n": 1}, "stats": {"median": 2.0}}],
        }
    )
    run = formats.parse(text, "b.json").run
    assert dict(run.machine) == {"caches": {"L1d": 98304, "L2": 2097152}}


def test_a_file_written_on_this_machine_takes_its_cache_sizes_as_perfguard_reads_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """py-cpuinfo put L3 (1 MiB) below L2 on the probe's VM, so the memory rule lost a
    level and sorted() of 2^8..2^20 failed <= n log n; the plugin, reading sysfs, did not."""
    import platform

    from guard.collection import caches
    from guard.formats import pytest_benchmark

    cpuinfo = tmp_path / "cpuinfo"
    cpuinfo.write_text("processor\t: 0\nmodel name\t: Test CPU 9000\n")
    monkeypatch.setattr(caches, "CPUINFO", cpuinfo)
    here = {"L1d": 49152, "L2": 1048576, "L3": 33554432}
    monkeypatch.setattr(pytest_benchmark, "cache_sizes", lambda: here)
    cpu = {
        "brand_raw": "Test CPU 9000",
        "l1_data_cache_size": 98304,
        "l2_cache_size": 2097152,
        "l3_cache_size": 1048576,
    }

    def machine(node: str, brand: str) -> dict[str, object]:
        text = json.dumps(
            {
                "machine_info": {"node": node, "cpu": {**cpu, "brand_raw": brand}},
                "benchmarks": [{"name": "t[1]", "params": {"n": 1}, "stats": {"median": 2.0}}],
            }
        )
        return dict(formats.parse(text, "b.json").run.machine)

    assert machine(platform.node(), "Test CPU 9000")["caches"] == here
    # another host, or another CPU under the same name: the file's own sizes, in order
    assert machine(platform.node() + "-other", "Test CPU 9000")["caches"] == {
        "L1d": 98304,
        "L2": 2097152,
    }
    assert machine(platform.node(), "Other CPU")["caches"] == {"L1d": 98304, "L2": 2097152}


def test_pytest_benchmark_without_data_uses_the_median() -> None:
    mset = formats.load(DATA / "pytest_benchmark_nodata.json")
    medians = [1.693e-06, 1.944e-06, 2.134e-06, 2.378e-06, 2.56e-06, 2.747e-06]
    assert [p.values for p in mset.kernel("test_bisect", "time").points] == [(m,) for m in medians]
    assert points(mset, "test_sorted") == [(n,) for n in SIZES]
    assert values(mset, "test_sorted", (8192,)) == (0.005403,)
    # --benchmark-save without --benchmark-save-data: the note names the flag that keeps the
    # rounds (check advised "repeat each size 5 times" of a test timed 7,351 rounds a size)
    (note,) = mset.notes
    assert "hold only their rounds' statistics" in note and "--benchmark-save-data" in note


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
    # labelled as pytest's ids read them (True, None), not as JSON (true, null)
    assert [k.name for k in mset.kernels] == [
        "test_mm[algo=a,fast=True]",
        "test_mm[algo=b,fast=None]",
    ]
    assert points(mset, "test_mm[algo=a,fast=True]") == [(64.0, 8.0), (128.0, 8.0)]
    assert points(mset, "test_mm[algo=b,fast=None]") == [(64.0, 4.5)]


def test_numpy_sizes_and_sizes_written_as_text_are_sizes() -> None:
    # @pytest.mark.parametrize("n", np.geomspace(100, 6400, 7, dtype=int)): pytest-benchmark
    # cannot serialise np.int64 and writes its repr; the file was refused whole
    rows = [
        pb_row(f"test_np[n{i}]", {"n": f"UNSERIALIZABLE[np.int64({n})]"})
        for i, n in enumerate((100, 200, 400))
    ]
    rows += [pb_row(f"test_text[{n}]", {"n": str(n)}) for n in (100, 200, 400)]
    rows += [pb_row(f"test_plain[{n}]", {"n": n}) for n in (100, 200, 400)]
    rows += [pb_row("test_old[n0]", {"n": "UNSERIALIZABLE[100]"})]
    mset = parse_pytest(*rows)
    assert {k.name for k in mset.kernels} == {"test_np", "test_text", "test_plain", "test_old"}
    assert points(mset, "test_np") == points(mset, "test_text") == [(100.0,), (200.0,), (400.0,)]
    assert points(mset, "test_old") == [(100.0,)]


def test_a_size_that_is_no_number_is_left_out_with_a_note_naming_it() -> None:
    # a test parametrized over n with True/False, None or a word beside numbers: the whole
    # file was refused ("benchmarks[59].params.n: expected a number, got true", a real-tools
    # probe); a benchmark without a size is left out and named, as the README says
    mset = parse_pytest(
        pb_row("test_s[256]", {"n": 256}),
        pb_row("test_s[512]", {"n": 512}),
        pb_row("test_s[big]", {"n": "big"}),
        pb_row("test_flag[True]", {"n": True}),
        pb_row("test_none[None]", {"n": None}),
    )
    assert [k.name for k in mset.kernels] == ["test_s"]
    assert points(mset, "test_s") == [(256.0,), (512.0,)]
    (note,) = [n for n in mset.notes if "whose size is not a number" in n]
    assert note.endswith(
        'left out 3 benchmarks whose size is not a number: test_s[big] (n = "big"), '
        "test_flag[True] (n = true), test_none[None] (n = null)"
    )


def test_tests_of_one_name_in_two_classes_are_two_kernels() -> None:
    # TestList::test_append and TestDeque::test_append: the file was refused ("two tests of
    # this name cannot share a file") although fullname tells them apart
    def row(owner: str, n: int) -> str:
        return (
            f'  {{"name": "test_scan[{n}]", "fullname": "t/test_m.py::{owner}::test_scan[{n}]", '
            f'"params": {{"n": {n}}}, "stats": {{"median": 1.0}}}}'
        )

    mset = parse_pytest(*(row(owner, n) for owner in ("TestA", "TestB") for n in (1, 2, 3)))
    assert [k.name for k in mset.kernels] == ["TestA::test_scan", "TestB::test_scan"]
    modules = parse_pytest(
        *(
            f'  {{"name": "test_x[{n}]", "fullname": "{m}::test_x[{n}]", "params": {{"n": {n}}}, '
            '"stats": {"median": 1.0}}'
            for m in ("a/test_m.py", "b/test_m.py")
            for n in (1, 2)
        )
    )
    assert [k.name for k in modules.kernels] == ["a/test_m.py::test_x", "b/test_m.py::test_x"]


def test_an_objects_label_has_no_memory_address() -> None:
    # parametrize("algo", [sorted, mysorted]): the address changed every run, so the kernel
    # never met its baseline
    def row(n: int, algo: str) -> str:
        return pb_row(f"test_o[{n}-x]", {"n": n, "algo": f"UNSERIALIZABLE[{algo}]"})

    rows = [row(n, "<function mysorted at 0x7f3e59586c00>") for n in (1, 2, 3)]
    rows += [row(n, "<built-in function sorted>") for n in (1, 2, 3)]
    rows += [row(n, "<m.Shape object at 0x7f00aa>") for n in (1, 2, 3)]
    names = [k.name for k in parse_pytest(*rows).kernels]
    assert names == [
        "test_o[algo=mysorted]",
        "test_o[algo=sorted]",
        "test_o[algo=<m.Shape object at 0x7f00aa>]",  # instances differ only by address
    ]


def test_a_session_file_keeps_the_parameters_of_most_tests_and_notes_the_rest() -> None:
    # pytest-benchmark writes a whole session into one file: unparametrized benchmarks and
    # tests over other parameters are left out, each group with a note, not the file
    # refused; a grid over the file's parameters and more is modelled, k naming its kernels,
    # where every kernel it makes has three sizes or more (a zipped n, k is left out)
    mset = parse_pytest(
        *(pb_row(f"test_grid[{n}-{k}]", {"n": n, "k": k}) for n in (64, 128, 256) for k in (8, 16)),
        pb_row("test_sort[256]", {"n": 256}),
        pb_row("test_startup", None),
        pb_row("test_sort[512]", {"n": 512}),
        pb_row("test_sum[256]", {"n": 256}),
        pb_row("test_sort[list]", {"kind": "list"}),
        *(pb_row(f"test_zip[{n}-{n // 8}]", {"n": n, "k": n // 8}) for n in (64, 128, 256)),
    )
    assert mset.parameters == ("n",)  # the fewest parameters
    assert [k.name for k in mset.kernels] == [
        "test_grid[k=8]",
        "test_grid[k=16]",
        "test_sort",
        "test_sum",
    ]
    assert points(mset, "test_sort") == [(256.0,), (512.0,)]
    assert points(mset, "test_grid[k=8]") == [(64.0,), (128.0,), (256.0,)]
    assert mset.notes == (
        "b.json: left out 2 benchmarks without a numeric parameter to use as the size "
        '(test_startup, test_sort); parametrize them, e.g. @pytest.mark.parametrize("n", '
        "[256, 1024, 4096]), to model them",
        "b.json: left out 3 benchmarks measured over n, k (test_zip): a file's kernels share "
        "one set of parameters, here n; to model them, give them a file of their own "
        "(pytest -k test_zip --benchmark-json=FILE)",
        "b.json: test_grid measured over n, k: modelled over n (the file's parameters) with k "
        "in the kernel names; for one model over n, k, give them a file of their own "
        "(pytest -k test_grid --benchmark-json=FILE)",
    )


def test_a_size_of_zero_is_left_out_with_a_note() -> None:
    # parametrize("n", [0, 8, 16]): the empty input is a fair benchmark, not a size a class
    # can be fitted at (log 0); the kernel was skipped whole ("non-positive parameter values")
    mset = parse_pytest(*(pb_row(f"test_sort[{n}]", {"n": n, "kind": "list"}) for n in (0, 8, 16)))
    assert points(mset, "test_sort[kind=list]") == [(8.0,), (16.0,)]
    assert mset.notes == (
        "b.json: left out 1 benchmark at a size of 0 or less (test_sort at n=0): the classes "
        "are functions of positive sizes, so those points cannot be modelled",
    )


def test_adding_grid_tests_does_not_switch_the_files_parameters() -> None:
    # the fewest parameters win, not the most tests: a pull request that adds tests over
    # (n, k) keeps the file's kernels over n, so its check still meets the baseline's
    mset = parse_pytest(
        pb_row("test_sort[256]", {"n": 256}),
        *(pb_row(f"test_grid{i}[64-8]", {"n": 64, "k": 8}) for i in range(3)),
    )
    assert mset.parameters == ("n",)
    assert [k.name for k in mset.kernels] == ["test_sort"]  # one size a grid kernel: left out
    assert (
        "left out 3 benchmarks measured over n, k (test_grid0, test_grid1, test_grid2)"
        in (mset.notes[0])
    )


def test_equal_sets_of_parameters_keep_the_one_with_more_benchmarks_then_the_first() -> None:
    more = parse_pytest(
        pb_row("test_a[1]", {"n": 1}),
        pb_row("test_b[1]", {"size": 1}),
        pb_row("test_b[2]", {"size": 2}),
    )
    assert more.parameters == ("size",)
    first = parse_pytest(pb_row("test_a[1]", {"n": 1}), pb_row("test_b[1]", {"size": 1}))
    assert first.parameters == ("n",)


def test_a_test_sized_by_another_name_is_read_over_the_files_parameter() -> None:
    # test_dedupe parametrized over "size" beside tests over "n" was left out with a note,
    # and a quadratic dedupe passed the check unseen; one-size tests are now all read
    mset = parse_pytest(
        pb_row("test_sort[256]", {"n": 256}),
        pb_row("test_sort[512]", {"n": 512}),
        pb_row("test_dedupe[256-set]", {"size": 256, "kind": "set"}),
        pb_row("test_dedupe[512-set]", {"size": 512, "kind": "set"}),
        *(pb_row(f"test_grid[{n}-{k}]", {"m": n, "k": k}) for n in (64, 128) for k in (8, 16)),
    )
    assert mset.parameters == ("n",)
    assert [k.name for k in mset.kernels] == ["test_sort", "test_dedupe[kind=set]"]
    assert points(mset, "test_dedupe[kind=set]") == [(256.0,), (512.0,)]
    assert mset.notes == (
        "b.json: left out 4 benchmarks measured over m, k (test_grid): a file's kernels share "
        "one set of parameters, here n; to model them, give them a file of their own "
        "(pytest -k test_grid --benchmark-json=FILE)",
        "b.json: test_dedupe measured over size: read as n (a file's kernels share one set of "
        "parameters), so bounds and reasons name it n; to keep size, give them a file of "
        "their own (pytest -k test_dedupe --benchmark-json=FILE)",
    )
    # a number that names a run, not a size, is not read as one (a seed read as n failed
    # "n^2 measured, <= n expected" on work that only depended on the seed)
    seeded = parse_pytest(
        pb_row("test_sort[256]", {"n": 256}),
        pb_row("test_sort[512]", {"n": 512}),
        *(pb_row(f"test_seeded[{k}]", {"seed": k}) for k in (1, 2, 3)),
    )
    assert [k.name for k in seeded.kernels] == ["test_sort"]
    assert "left out 3 benchmarks measured over seed (test_seeded)" in seeded.notes[0]


def test_a_file_read_whole_has_no_notes() -> None:
    assert formats.load(DATA / "pytest_benchmark.json").notes == ()


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
        [pb_row("test_sort[list]", {"kind": "list"})],
        5,
        "benchmarks[0].params: test_sort[list] has no numeric parameter",
    ),
    (
        [pb_row("test_startup", None), pb_row("test_teardown", {})],
        5,
        "benchmarks[0]: test_startup is not parametrized",
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


def test_cli_bad_file_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    rows, line, _ = PYTEST_ERRORS[2]  # a value of the data that is no number
    assert_cli_names_file_and_line(tmp_path, pytest_text(*rows), line)


def test_the_recorded_cache_sizes_reach_checks_memory_rule() -> None:
    # sorted() of 2^8..2^18 floats: the time per n log n climbs x2.6 as the data leaves L1
    # and L2, which check cannot tell from n^1.25 log n on `time` -- with the machine's
    # cache sizes it says so (inconclusive); without them it fails the bound
    from guard.checking.check import CheckOptions, ExpectationRule, check

    rng = np.random.default_rng(3)
    sizes = [2**k for k in range(8, 19)]
    rows = []
    for n in sizes:
        climb = 1 + 1.6 * np.clip((np.log2(n) - 10) / 6, 0, 1)
        rounds = 1e-8 * n * np.log2(n) * climb * (1 + 0.01 * rng.standard_normal(5))
        rows.append(
            {
                "name": f"test_sorted[{n}]",
                "params": {"n": n},
                "stats": {"median": float(np.median(rounds)), "data": rounds.tolist()},
            }
        )
    cpu = {"l1_data_cache_size": 49152, "l2_cache_size": 1048576, "l3_cache_size": 33554432}
    rule = CheckOptions(rules=(ExpectationRule("*", "<= n log n"),))
    verdicts = {}
    for label, info in (("caches", {"cpu": cpu}), ("none", {})):
        text = json.dumps({"machine_info": info, "benchmarks": rows})
        (verdicts[label],) = check(formats.parse(text, "b.json"), None, rule).verdicts
    assert verdicts["none"].verdict == "fail"
    assert verdicts["caches"].verdict == "inconclusive"
    assert any(
        "cache levels of the measuring machine" in r.message for r in verdicts["caches"].reasons
    )


@pytest.mark.parametrize("text", ["", "\n  \n"])
def test_an_empty_file_says_so_not_that_its_format_is_unknown(text: str) -> None:
    # `--benchmark_min_time=0.01s` on an older Google Benchmark exits before writing: the
    # redirected file is empty, and "cannot tell the format" sends the user to --format
    with pytest.raises(FormatError, match="the file is empty: did the tool that writes it fail"):
        formats.detect(text, "out.json")


def test_a_test_parametrized_over_lists_is_told_how_to_give_a_size() -> None:
    # @pytest.mark.parametrize("data", [list(range(n)) ...], ids=["n=256", ...]): refused
    # with "(all are text)", though the parameter is a list
    rows = [pb_row(f"test_d[n={n}]", {"data": list(range(4))}) for n in (256, 512)]
    with pytest.raises(
        FormatError,
        match=r"the size \(data is a list\); parametrize the size itself",
    ):
        parse_pytest(*rows)
