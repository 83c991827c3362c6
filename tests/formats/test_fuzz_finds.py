"""Inputs a fuzzing probe found that crashed perfguard with a traceback (exit 1): each is
now read, or refused in one line naming the file (exit 2). The files are the probe's
minimal reproductions (tests/data/fuzz_finds)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from support import perfguard

from guard.numbers import json_safe, json_text
from guard.reporting.jsonl import encode_document

FINDS = Path(__file__).parents[1] / "data" / "fuzz_finds"
REFUSED = {
    "d1_talpas_bigint.txt": "a number is too large",
    "d1_jsonl_bigint.jsonl": "a number is too large",
    "d1_extrap_json_bigint.json": "a number is too large",
    "d1_extrap_zip_bigint.extra-p": "a number is too large",
    "d1_pytest_bigint_param.json": "a number is too large",
    "d1_gbench_bigint_coef.json": "a number is too large",
    "d2_gbench_aggname_obj.json": "cannot be read",
    "d10_short_index.extra-p": "cannot be read",
    "d11_huge_npy_shape.extra-p": "more memory than there is",
    "d8_machine_nan.json": "run.machine: expected finite numbers",
    "d9_run_types.json": "run.commit: expected a string",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_a_broken_file_is_one_line_naming_it(name: str) -> None:
    done = perfguard("model", FINDS / name)
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    assert f"{FINDS / name}: " in done.stderr and REFUSED[name] in done.stderr


@pytest.mark.parametrize("name", ["d4_tiny_values_crash.txt", "d12_segment_step_overflow.txt"])
def test_values_no_relative_fit_can_hold_are_a_skipped_kernel(name: str) -> None:
    done = perfguard("model", FINDS / name)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert "the range a fit by relative error can hold" in done.stderr


@pytest.mark.parametrize("name", ["d15_bom_extrap.txt", "d15_bom_native.json"])
def test_a_byte_order_mark_is_not_content(name: str) -> None:
    assert perfguard("model", FINDS / name).returncode == 0


def test_a_native_file_with_sorted_keys_is_recognised(tmp_path: Path) -> None:
    source = Path(__file__).parents[2] / "examples" / "check" / "cand.json"
    sorted_keys = tmp_path / "sorted.json"
    sorted_keys.write_text(json.dumps(json.loads(source.read_text()), sort_keys=True))
    assert perfguard("model", sorted_keys).returncode == 0
    newer = tmp_path / "v2.json"
    newer.write_text(source.read_text().replace("measurements@1", "measurements@2"))
    done = perfguard("model", newer)
    assert done.returncode == 2 and "expected 'perfguard/measurements@1'" in done.stderr


def test_a_zip_that_unpacks_too_large_is_refused_unread(tmp_path: Path, monkeypatch) -> None:
    from guard.formats import extrap_experiment

    monkeypatch.setattr(extrap_experiment, "MAX_UNPACKED", 1000)
    bomb = tmp_path / "bomb.extra-p"
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("experiment.json", " " * 5000)
    done = perfguard("model", bomb)
    assert done.returncode == 2 and "more than the" in done.stderr


def test_ranges_and_numbers_too_large_for_a_float_are_config_errors(tmp_path: Path) -> None:
    data = Path(__file__).parents[1] / "data" / "formats" / "extrap_text_one.txt"
    for text, message in (
        ('version: 1\nparameters:\n  n: "1..10 +1e-320"\n', "more than the limit"),
        ('version: 1\nparameters:\n  n: "5e-324..8000 x2"\n', "more than the limit"),
        ("version: " + "9" * 5000 + "\n", "a number too long to read"),
    ):
        config = tmp_path / "perfguard.yml"
        config.write_text(text)
        done = perfguard("check", data, "-c", config)
        assert done.returncode == 2 and message in done.stderr, done.stderr


def test_json_output_has_no_infinity() -> None:
    doc = {"a": [1.0, float("inf"), {"b": float("nan")}], "c": (2.0,)}
    assert json_safe(doc) == {"a": [1.0, None, {"b": None}], "c": [2.0]}


def test_json_text_writes_null_for_what_json_cannot_hold_and_plain_values_as_json() -> None:
    # the C encoder's fast path must fall back, not write NaN or fail
    text = json_text({"a": [1.0, float("-inf")], "b": float("nan")})
    assert text == '{"a": [1.0, null], "b": null}'
    assert json_text({"név": (1, 2.5)}) == '{"név": [1, 2.5]}'
    doc = {"schema": "x", "bound": float("inf"), "kernels": [{"v": float("nan")}, {"v": 1.0}]}
    assert json.loads("".join(encode_document(doc, "kernels"))) == {
        "schema": "x",
        "bound": None,
        "kernels": [{"v": None}, {"v": 1.0}],
    }


# --- a second fuzzing probe (2026-11-26): tracebacks, a hang, raw escape sequences ---------


def test_a_name_with_a_lone_surrogate_is_refused_naming_the_kernel() -> None:
    # JSON's "\ud800" decoded to a string no terminal or JSON output could write: traceback
    done = perfguard("model", FINDS / "f1_surrogate_name.json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "kernel 1 ('bad\\ud800name'): name holds \\ud800, a lone surrogate" in done.stderr


def test_an_extra_p_zip_whose_data_does_not_inflate_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.extra-p"
    body = json.dumps({"parameters": ["p"], "measurements": {}, "pad": "x" * 4000}).encode()
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("experiment.json", body)
    raw = bytearray(path.read_bytes())
    start = raw.index(b"experiment.json") + len("experiment.json")  # the deflated stream
    raw[start + 4 : start + 24] = bytes(20)  # zlib: "invalid ... distance" or similar
    path.write_bytes(bytes(raw))
    done = perfguard("model", path)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"perfguard: error: {path}: not a readable Extra-P experiment")


def test_a_config_nested_a_thousand_deep_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "perfguard.yml"
    config.write_text("version: 1\nzz: " + "[" * 1000 + "]" * 1000 + "\n")
    cand = Path(__file__).parents[2] / "examples" / "check" / "cand.json"
    done = perfguard("check", cand, "-c", config)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "invalid YAML: nested too deeply" in done.stderr


def test_a_verdicts_file_with_a_huge_integer_is_refused() -> None:
    done = perfguard("report", FINDS / "f4_report_bigint.json")
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "kernels[0].model.constant: expected a finite number" in done.stderr


def test_a_pipe_is_read_once(tmp_path: Path) -> None:
    # <(cat file): the format was sniffed from a first read, then parsed from an empty second
    import os
    import threading

    text = (Path(__file__).parents[2] / "examples" / "check" / "cand.json").read_bytes()
    read_end, write_end = os.pipe()

    def feed() -> None:
        with os.fdopen(write_end, "wb") as fh:
            fh.write(text)

    writer = threading.Thread(target=feed)
    writer.start()
    try:
        done = perfguard("model", f"/dev/fd/{read_end}")
    finally:
        writer.join()
        os.close(read_end)
    assert done.returncode == 0, done.stderr
    assert "dedupe" in done.stdout


def test_a_file_larger_than_the_cap_is_refused_before_it_fills_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import guard.formats

    monkeypatch.setattr(guard.formats, "MAX_FILE", 1000)
    path = tmp_path / "big.json"
    path.write_bytes(b" " * 1001)
    done = perfguard("model", path)
    assert done.returncode == 2 and "is larger than the" in done.stderr, done.stderr


def test_escape_sequences_in_a_name_are_written_out_not_sent_to_the_terminal() -> None:
    done = perfguard("model", FINDS / "f7_escape_name.json")
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout + done.stderr and "\x07" not in done.stdout
    assert "\\x1b]0;PWNED" in done.stdout


def test_escape_sequences_do_not_reach_the_markdown_report() -> None:
    from guard.reporting.markdown import escape, escape_html

    name = "\x1b]0;PWNED\x07\x1b[31mred\x1b[0m\x00"
    assert escape_html(name) == "]0;PWNED[31mred[0m"
    assert escape(name) == "\\]0;PWNED\\[31mred\\[0m"  # markdown's brackets escaped


@pytest.mark.parametrize("value", ["inf", "nan", "1e400"])
def test_a_size_that_is_not_finite_is_left_out_like_a_size_of_zero(
    tmp_path: Path, value: str
) -> None:
    # POINTS ( inf ) made the file fail ("non-positive parameter values at (inf)", exit 2)
    # where ( 0 ) was left out with a note that called nan "0 or less"
    path = tmp_path / "m.txt"
    points = " ".join(f"( {p} )" for p in (2, 4, 8, 16, 32))
    data = "\n".join(f"DATA {p * 1.5} {p * 1.51}" for p in (2, 4, 8, 16, 32, 3))
    path.write_text(f"PARAMETER p\nPOINTS {points} ( {value} )\nREGION main\n{data}\n")
    done = perfguard("model", path)
    assert done.returncode == 0, done.stderr
    assert "left out 1 point at a parameter value of 0 or less, or not finite" in done.stderr


def test_a_wrong_type_is_named_as_json_not_as_python(tmp_path: Path) -> None:
    # "expected a list, got NoneType"
    path = tmp_path / "v.json"
    path.write_text('{"schema": "perfguard/verdicts@1", "status": "pass", "kernels": null}')
    done = perfguard("report", path)
    assert done.returncode == 2 and "kernels: expected a list, got null" in done.stderr
    measured = tmp_path / "m.json"
    measured.write_text(
        '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": {}}'
    )
    done = perfguard("model", measured)
    assert done.returncode == 2 and "expected a list, got {}" in done.stderr, done.stderr
