"""Google Benchmark's JSON: names, arguments, units, aggregates, complexity rows and errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from readers import DATA, all_values, assert_cli_names_file_and_line, points, raw, values, write
from support import perfguard

from guard import formats
from guard.errors import FormatError
from guard.measurements import MeasurementSet


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
        "caches": {"L1d": 32768, "L2": 262144, "L3": 8388608},  # context.caches, by level
    }


def test_google_benchmark_two_arguments() -> None:
    mset = formats.load(DATA / "google_benchmark_2arg.json")
    assert mset.parameters == ("n", "m")
    grid = [(n, m) for n in (64.0, 128.0, 256.0, 512.0, 1024.0) for m in (1.0, 2.0, 4.0, 8.0, 16.0)]
    assert points(mset, "BM_MatVec") == grid
    assert values(mset, "BM_MatVec", (64, 1)) == (0.011730284366711797 / 1e3,)
    assert values(mset, "BM_MatVec", (64, 1), "cpu") == (0.011683493906607736 / 1e3,)


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
        ("BM_Sort<std::string>/8", "BM_Sort<std::string>", (8.0,)),
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
            gb_row("BM_Teardown", run_type="aggregate", aggregate_name="stddev"),
            '  {\n   "name": "BM_Startup",\n   "run_name": "BM_Startup",\n'
            '   "run_type": "iteration",\n   "real_time": 1.0,\n   "cpu_time": 1.0\n  }',
            gb_row("BM_Warmup"),
        ],
        7,
        "benchmarks[1].run_name: BM_Startup has no numeric argument to use as the size",
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
        [gb_row("BM_A/8", run_type="aggregate", aggregate_name="stddev")],
        3,
        "benchmarks: no benchmark runs (only failed runs, or aggregates without a median)",
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


def test_a_binarys_file_keeps_the_arguments_of_most_families_and_notes_the_rest() -> None:
    # a benchmark binary writes every family into one file: those without arguments and
    # those over other arguments are left out, each group with a note, not the file
    # refused; a family over the file's arguments and more is modelled, m naming its
    # kernels, where each has three sizes or more (a zipped n, m is left out)
    mset = parse_google(
        *(gb_row(f"BM_Mat/{n}/2") for n in (8, 16, 32)),
        gb_row("BM_Sort/8"),
        gb_row("BM_Startup"),
        gb_row("BM_Sort/16"),
        *(gb_row(f"BM_Mat/{n}/2/threads:4") for n in (8, 16, 32)),
        gb_row("BM_Find/8"),
        gb_row("BM_Pair/rows:8/cols:4"),
        gb_row("BM_Zip/8/1"),
        gb_row("BM_Zip/16/2"),
    )
    assert mset.parameters == ("n",)  # the fewest parameters
    assert sorted({k.name for k in mset.kernels}) == [
        "BM_Find",
        "BM_Mat/m:2",
        "BM_Mat/m:2/threads:4",
        "BM_Sort",
    ]
    assert points(mset, "BM_Sort") == [(8.0,), (16.0,)]
    assert points(mset, "BM_Mat/m:2") == [(8.0,), (16.0,), (32.0,)]
    assert mset.notes == (
        "g.json: left out 1 benchmark without a numeric parameter to use as the size "
        "(BM_Startup); register them with ->Arg(n), ->Range(lo, hi) or ->Args({...}), to "
        "model them",
        "g.json: left out 2 benchmarks measured over n, m (BM_Zip): a file's kernels share "
        "one set of parameters, here n; to model them, give them a file of their own "
        "(--benchmark_filter=BM_Zip)",
        "g.json: left out 1 benchmark measured over rows, cols (BM_Pair): a file's kernels "
        "share one set of parameters, here n; to model them, give them a file of their own "
        "(--benchmark_filter=BM_Pair)",
        "g.json: BM_Mat, BM_Mat/threads:4 measured over n, m: modelled over n (the file's "
        "parameters) with m in the kernel names; for one model over n, m, give them a file "
        "of their own (--benchmark_filter=BM_Mat)",
    )


def test_the_notes_count_a_repeated_benchmark_once() -> None:
    # --benchmark_repetitions=3 writes each run three times: one benchmark left out, not 3
    rows = [
        gb_row(name, repetition_index=i) for name in ("BM_Startup", "BM_Zip/8/1") for i in range(3)
    ]
    mset = parse_google(*(gb_row(f"BM_Sort/{n}") for n in (8, 16)), *rows)
    assert [note.split(" without")[0].split(" measured")[0] for note in mset.notes] == [
        "g.json: left out 1 benchmark",
        "g.json: left out 1 benchmark",
    ]


def test_a_range_from_zero_leaves_the_zero_out_with_a_note() -> None:
    mset = parse_google(
        gb_row("BM_Fill/0"), gb_row("BM_Fill/0"), gb_row("BM_Fill/8"), gb_row("BM_T<int>/-8")
    )
    assert points(mset, "BM_Fill") == [(8.0,)]
    (note,) = mset.notes
    assert note.startswith(
        "g.json: left out 3 benchmarks at a size of 0 or less (BM_Fill at n=0, BM_T<int> at n=-8)"
    )


def test_a_family_without_iteration_rows_reads_its_medians_else_its_means() -> None:
    def agg(name: str, kind: str, real: float) -> str:
        return gb_row(
            f"{name}_{kind}", real, run_name=name, run_type="aggregate", aggregate_name=kind
        )

    mset = parse_google(
        gb_row("BM_Run/8", 3.0),  # iteration rows: its aggregates stay unread
        agg("BM_Run/8", "median", 99.0),
        agg("BM_Med/8", "mean", 5.0),
        agg("BM_Med/8", "median", 4.0),
        agg("BM_Med/8", "stddev", 0.5),
        agg("BM_Mean/8", "mean", 7.0),
    )
    assert values(mset, "BM_Run", (8,)) == (3e-9,)
    assert values(mset, "BM_Med", (8,)) == (4e-9,)
    assert values(mset, "BM_Mean", (8,)) == (7e-9,)
    assert [n.split(": ", 1)[1][:40] for n in mset.notes] == [
        "BM_Med has no iteration rows (--benchmar",
        "BM_Mean has no iteration rows (--benchma",
    ]


def test_cli_bad_file_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    assert_cli_names_file_and_line(tmp_path, gb_text(*GOOGLE_ERRORS[0][0]), 7)


def test_reasons_and_notes_name_the_metric_where_a_file_has_two() -> None:
    """Google Benchmark writes time and cpu for every kernel: without the metric the same
    kernel's two reasons read as one printed twice."""
    recorded = Path(__file__).parent.parent / "data/formats/recorded/google_benchmark_repeated.json"
    ran = perfguard("check", recorded, "--expect", "*=<= 1")
    assert ran.returncode == 1, ran.stderr
    reasons = [line for line in ran.stdout.splitlines() if line.startswith("fail BM_Sort")]
    assert [r.split(":")[0] for r in reasons] == ["fail BM_Sort (time)", "fail BM_Sort (cpu)"]
    notes = perfguard("model", recorded).stderr.splitlines()
    assert any(n.startswith("note BM_Sort (cpu): ") for n in notes), notes


def test_a_saved_check_keeps_the_tools_own_class() -> None:
    """`perfguard report` renders verdicts@1: the tool's class read back, as the table had it."""
    from guard.checking.verdicts_json import read_report
    from guard.reporting.summary import class_text

    recorded = Path(__file__).parent.parent / "data/formats/recorded/google_benchmark_repeated.json"
    ran = perfguard("check", recorded, "--json")
    again = read_report(json.loads(ran.stdout), "verdicts.json")
    texts = [class_text(v.model) for v in again.verdicts if v.kernel == "BM_PopFront"]
    assert texts and all("(Google Benchmark: O(N^2)" in t for t in texts), texts


def test_a_family_sized_by_another_argument_name_is_read_over_the_files_parameter() -> None:
    # ->ArgName("size") beside families over n: left out with a note, so a check never saw
    # it; one-argument families are now all read over the file's parameter
    mset = parse_google(
        gb_row("BM_Sort/8"),
        gb_row("BM_Sort/16"),
        gb_row("BM_Sort/32"),
        gb_row("BM_Dedupe/size:8"),
        gb_row("BM_Dedupe/size:16"),
        gb_row("BM_Dedupe/size:0"),
    )
    assert mset.parameters == ("n",)
    assert sorted({k.name for k in mset.kernels}) == ["BM_Dedupe", "BM_Sort"]
    assert points(mset, "BM_Dedupe") == [(8.0,), (16.0,)]
    assert mset.notes == (
        "g.json: BM_Dedupe measured over size: read as n (a file's kernels share one set of "
        "parameters), so bounds and reasons name it n; to keep size, give them a file of "
        "their own (--benchmark_filter=BM_Dedupe)",
        "g.json: left out 1 benchmark at a size of 0 or less (BM_Dedupe at size=0): the "
        "classes are functions of positive sizes, so those points cannot be modelled",
    )
