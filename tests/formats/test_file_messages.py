"""A file a tool wrote in a way perfguard cannot read is refused with what to do about it
(the real tools' files, a probe of 2026-11-27: each message was a bare "cannot tell the
format" or a JSON parser's complaint)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from guard import formats
from guard.errors import FormatError

GB_ROW = {
    "name": "BM_Sort/1024",
    "run_name": "BM_Sort/1024",
    "run_type": "iteration",
    "iterations": 100,
    "real_time": 10.0,
    "cpu_time": 10.0,
    "time_unit": "ns",
}
GB = json.dumps({"context": {"date": "x"}, "benchmarks": [GB_ROW]}, indent=2)


def refused(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    with pytest.raises(FormatError) as info:
        formats.load(path)
    return str(info.value)


def test_a_file_cut_short_says_so(tmp_path: Path) -> None:
    # a benchmark binary that aborted while writing its --benchmark_out file
    message = refused(tmp_path, "crash.json", GB[: GB.rindex("}", 0, -5)])
    assert "invalid JSON" in message
    assert message.endswith(
        "the file ends before its JSON does (cut short: a run that crashed or was killed "
        "while writing it?)"
    )


def test_json_after_a_warning_line_names_the_line_it_starts_on(tmp_path: Path) -> None:
    # `./bench --benchmark_format=json 2>&1 > out.json`: a warning, then the JSON
    text = "***WARNING*** Library was built as DEBUG. Timings may be affected.\n" + GB
    message = refused(tmp_path, "warn.json", text)
    assert "lines of text come before the JSON that starts on line 2" in message
    assert "--benchmark_out=FILE --benchmark_out_format=json" in message


def test_text_after_the_json_says_so(tmp_path: Path) -> None:
    message = refused(tmp_path, "trail.json", GB + "\ndone\n")
    assert message.endswith(
        "Extra data (column 1): text follows the JSON; write the JSON to a file of its own"
    )


def test_pytest_benchmark_json_after_a_warning_gets_its_own_tools_flag(tmp_path: Path) -> None:
    doc = {"machine_info": {}, "commit_info": {}, "benchmarks": [], "version": "5.1.0"}
    message = refused(tmp_path, "pb.json", "Warning\n" + json.dumps(doc, indent=1))
    assert "(pytest-benchmark: --benchmark-json=FILE)" in message and "Google" not in message


def test_google_benchmarks_console_table_says_how_to_get_json(tmp_path: Path) -> None:
    table = (
        "Running ./bench\n"
        "-----------------------------------------------------\n"
        "Benchmark           Time             CPU   Iterations\n"
        "-----------------------------------------------------\n"
        "BM_Sort/1024     10.0 ns         10.0 ns      100\n"
    )
    message = refused(tmp_path, "console.txt", table)
    assert "Google Benchmark's console table" in message and "--benchmark_format=json" in message


def test_a_pytest_benchmark_storage_folder_names_a_file_in_it(tmp_path: Path) -> None:
    saved = tmp_path / ".benchmarks" / "Linux-CPython-3.11-64bit"
    saved.mkdir(parents=True)
    for name in ("0001_unversioned_x.json", "0002_named.json"):
        (saved / name).write_text("{}")
    with pytest.raises(FormatError) as info:
        formats.load(tmp_path / ".benchmarks")
    assert str(info.value).endswith(f"give one of its files, e.g. {saved / '0002_named.json'}")
