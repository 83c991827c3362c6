"""Files as pytest-benchmark, Google Benchmark and hyperfine write them (data/formats/recorded).

Each recorded file is read value for value as the tool wrote it, and ``model`` and
``check`` judge every one of them: exit 0 or 1 by the verdict, never a traceback.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from guard import formats
from guard.cli import main

RECORDED = Path(__file__).parents[1] / "data" / "formats" / "recorded"
FILES = {
    "pytest_benchmark_json.json": "pytest-benchmark",
    "pytest_benchmark_saved_data.json": "pytest-benchmark",
    "pytest_benchmark_saved.json": "pytest-benchmark",
    "google_benchmark_repeated.json": "google-benchmark",
    "google_benchmark_single.json": "google-benchmark",
    "google_benchmark_grid.json": "google-benchmark",
    "google_benchmark_aggregates.json": "google-benchmark",
    "google_benchmark_failed.json": "google-benchmark",
    "hyperfine_scan.json": "hyperfine",
    "hyperfine_list.json": "hyperfine",
}
POW2 = [float(2**k) for k in range(8, 14)]


def raw(name: str) -> Any:
    return json.loads((RECORDED / name).read_text(encoding="utf-8"))


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """perfguard in this process: an exception it does not turn into an exit code escapes."""
    code = main([*args])
    out, err = capsys.readouterr()
    return code, out, err


def kernel_values(name: str) -> dict[tuple[str, str], list[tuple[tuple[float, ...], tuple]]]:
    mset = formats.load(RECORDED / name)
    return {k.key: [(p.at, p.values) for p in k.points] for k in mset.kernels}


def test_every_recorded_file_is_committed_with_its_recording() -> None:
    assert sorted(p.name for p in RECORDED.glob("*.json")) == sorted(FILES)
    script = (RECORDED / "record.sh").read_text(encoding="utf-8")
    readme = (RECORDED / "README.md").read_text(encoding="utf-8")
    assert all(name in script and name in readme for name in FILES)


@pytest.mark.parametrize("name", sorted(FILES))
def test_detected_as_the_tool_that_wrote_it(name: str) -> None:
    text = (RECORDED / name).read_text(encoding="utf-8")
    assert formats.detect(text, name) == FILES[name]


def test_pytest_benchmark_json_keeps_every_round() -> None:
    doc = raw("pytest_benchmark_json.json")
    got = kernel_values("pytest_benchmark_json.json")
    assert list(got) == [("test_sum", "time"), ("test_drain", "time")]
    for bench in doc["benchmarks"]:
        kernel = (bench["name"].partition("[")[0], "time")
        at = (float(bench["params"]["n"]),)
        assert (at, tuple(bench["stats"]["data"])) in got[kernel]
    assert [at for at, _ in got["test_sum", "time"]] == [(n,) for n in POW2]
    # Past 1,024 rounds 2^r overflowed a float in the median's interval.
    assert max(len(values) for points in got.values() for _, values in points) > 1024


def test_pytest_benchmark_saved_data_with_two_numeric_parameters() -> None:
    mset = formats.load(RECORDED / "pytest_benchmark_saved_data.json")
    assert mset.parameters == ("n", "k")
    (kernel,) = mset.kernels
    assert kernel.name == "test_grid"
    by_point = {p.at: p.values for p in kernel.points}
    for bench in raw("pytest_benchmark_saved_data.json")["benchmarks"]:
        assert bench["name"] == f"test_grid[n={bench['params']['n']}-k={bench['params']['k']}]"
        at = (float(bench["params"]["n"]), float(bench["params"]["k"]))
        assert by_point[at] == tuple(bench["stats"]["data"])
    assert len(by_point) == 25


def test_pytest_benchmark_saved_without_data_uses_the_median_per_kind() -> None:
    doc = raw("pytest_benchmark_saved.json")
    assert all("data" not in b["stats"] for b in doc["benchmarks"])
    got = kernel_values("pytest_benchmark_saved.json")
    assert list(got) == [
        ("test_pop_front[kind=list]", "time"),
        ("test_pop_front[kind=deque]", "time"),
    ]
    for bench in doc["benchmarks"]:
        kernel = f"test_pop_front[kind={bench['params']['kind']}]"
        assert ((float(bench["params"]["n"]),), (bench["stats"]["median"],)) in got[kernel, "time"]


@pytest.mark.parametrize(
    ("name", "repetitions"),
    [
        ("google_benchmark_repeated.json", 5),
        ("google_benchmark_single.json", 1),
        ("google_benchmark_grid.json", 3),
    ],
)
def test_google_benchmark_iterations_only_in_seconds(name: str, repetitions: int) -> None:
    mset = formats.load(RECORDED / name)
    rows = [r for r in raw(name)["benchmarks"] if r["run_type"] == "iteration"]
    for metric, field in (("time", "real_time"), ("cpu", "cpu_time")):
        values = sorted(
            v for k in mset.kernels if k.metric == metric for p in k.points for v in p.values
        )
        assert values == sorted(r[field] / 1e9 for r in rows)  # all in ns
    assert {len(p.values) for k in mset.kernels for p in k.points} == {repetitions}


def test_google_benchmark_aggregates_only_read_each_sizes_median() -> None:
    # --benchmark_report_aggregates_only writes no iteration rows; perfguard refused the
    # file ("no benchmark runs"), now each size's median is one value, with a note
    name = "google_benchmark_aggregates.json"
    mset = formats.load(RECORDED / name)
    medians = [r for r in raw(name)["benchmarks"] if r.get("aggregate_name") == "median"]
    assert len(medians) == 12 and not any(
        r["run_type"] == "iteration" for r in raw(name)["benchmarks"]
    )
    for metric, field in (("time", "real_time"), ("cpu", "cpu_time")):
        values = sorted(
            v for k in mset.kernels if k.metric == metric for p in k.points for v in p.values
        )
        assert values == sorted(r[field] / 1e9 for r in medians)
    assert {len(p.values) for k in mset.kernels for p in k.points} == {1}
    (note,) = mset.notes
    assert "BM_PopFront, BM_Sort have no iteration rows" in note and "median" in note
    assert mset.kernel("BM_Sort", "cpu").reported is not None  # Complexity() rows kept


def test_google_benchmark_runs_that_reported_an_error_are_left_out_with_a_note(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # SkipWithError at n > 8192: the runs were dropped without a word before
    name = "google_benchmark_failed.json"
    failed = [r for r in raw(name)["benchmarks"] if r.get("error_occurred")]
    assert {r["run_name"] for r in failed} == {"BM_Scratch/16384", "BM_Scratch/32768"}
    mset = formats.load(RECORDED / name)
    assert {p.at for k in mset.kernels for p in k.points} == {(x,) for x in POW2}
    (note,) = mset.notes
    assert "failed or skipped: BM_Scratch/16384, BM_Scratch/32768 (needs more scratch" in note
    code, out, _ = run(capsys, "check", str(RECORDED / name), "--max-class", "n^2")
    assert code == 0 and "BM_Scratch/16384, BM_Scratch/32768" in out  # a check's note too


def test_google_benchmark_two_range_arguments() -> None:
    mset = formats.load(RECORDED / "google_benchmark_grid.json")
    assert mset.parameters == ("n", "m")
    assert [k.key for k in mset.kernels] == [("BM_Grid", "time"), ("BM_Grid", "cpu")]
    grid = {(float(n), float(k)) for n in (64, 128, 256, 512, 1024) for k in (1, 2, 4, 8, 16)}
    assert {p.at for p in mset.kernels[0].points} == grid


@pytest.mark.parametrize(
    "name",
    [
        "google_benchmark_repeated.json",
        "google_benchmark_single.json",
        "google_benchmark_grid.json",
        "google_benchmark_aggregates.json",
    ],
)
def test_google_benchmark_complexity_rows_are_carried_per_metric(name: str) -> None:
    mset = formats.load(RECORDED / name)
    rows = raw(name)["benchmarks"]
    for kernel in mset.kernels:
        (big_o,) = [r for r in rows if r["name"] == f"{kernel.name}_BigO"]
        (rms,) = [r for r in rows if r["name"] == f"{kernel.name}_RMS"]
        reported = kernel.reported
        assert reported is not None and reported.tool == "google-benchmark"
        assert reported.big_o == big_o["big_o"]
        field = "real_coefficient" if kernel.metric == "time" else "cpu_coefficient"
        assert reported.coefficient == pytest.approx(big_o[field] / 1e9, rel=1e-12)
        assert reported.unit == "s"
        # The JSON's RMS is that of the CPU time's fit.
        assert reported.rms == (rms["rms"] if kernel.metric == "cpu" else None)
    classes = {k.name: k.reported.complexity for k in mset.kernels if k.reported is not None}
    expected = {"BM_Sort": "O(N log N)", "BM_PopFront": "O(N^2)", "BM_Grid": "O(N log N)"}
    assert classes == {k: v for k, v in expected.items() if k in classes}


@pytest.mark.parametrize("name", ["hyperfine_scan.json", "hyperfine_list.json"])
def test_hyperfine_commands_with_the_size_put_back(name: str) -> None:
    got = kernel_values(name)
    assert list(got) == [
        ("python3 drain.py list {n}", "time"),
        ("python3 drain.py deque {n}", "time"),
    ]
    for result in raw(name)["results"]:
        kind = result["command"].split()[2]
        at = (float(result["parameters"]["n"]),)
        assert (at, tuple(result["times"])) in got[f"python3 drain.py {kind} {{n}}", "time"]


@pytest.mark.parametrize("name", sorted(FILES))
def test_model_and_check_judge_every_recorded_file(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = str(RECORDED / name)
    code, out, err = run(capsys, "model", path, "--json")
    assert code == 0, err
    models = json.loads(out)["models"]
    assert {(m["kernel"], m["metric"]) for m in models} == set(kernel_values(name))
    code, out, err = run(capsys, "check", path, "--expect", "*=<= n", "--json")
    verdicts = json.loads(out)
    assert code == (1 if verdicts["status"] == "fail" else 0), err
    assert "Traceback" not in err
    assert {k["verdict"] for k in verdicts["kernels"]} <= {"pass", "fail", "inconclusive"}


def test_google_benchmark_class_is_shown_beside_perfguards(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table's cells unfolded
    path = str(RECORDED / "google_benchmark_repeated.json")
    code, out, _ = run(capsys, "model", path, "--json")
    by_key = {(m["kernel"], m["metric"]): m for m in json.loads(out)["models"]}
    assert by_key["BM_PopFront", "time"]["reported_complexity"]["complexity"] == "O(N^2)"
    assert "rms" not in by_key["BM_PopFront", "time"]["reported_complexity"]
    rms = by_key["BM_PopFront", "cpu"]["reported_complexity"]["rms"]
    report = tmp_path / "report.md"
    code, out, _ = run(capsys, "check", path, "--expect", "*=<= n", "--markdown", str(report))
    assert code == 1
    assert "(Google Benchmark: O(N^2))" in out  # the terminal table's class column
    rows = [
        line for line in report.read_text(encoding="utf-8").split("\n") if "BM\\_PopFront" in line
    ]
    assert any(f"(Google Benchmark: O(N^2), RMS {rms:.0%})" in row for row in rows)
    code, out, _ = run(capsys, "check", path, "--expect", "*=<= n", "--json")
    models = [k["model"] for k in json.loads(out)["kernels"]]
    assert all(m["reported_complexity"]["tool"] == "google-benchmark" for m in models)


def test_files_without_a_tool_fit_gain_no_field(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "model", str(RECORDED / "hyperfine_scan.json"), "--json")
    assert code == 0
    assert all("reported_complexity" not in m for m in json.loads(out)["models"])
