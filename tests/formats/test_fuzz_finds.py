"""Inputs a fuzzing probe found that crashed perfguard with a traceback (exit 1): each is
now read, or refused in one line naming the file (exit 2). The files are the probe's
minimal reproductions (tests/data/fuzz_finds)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from support import perfguard

from guard.numbers import json_safe

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
