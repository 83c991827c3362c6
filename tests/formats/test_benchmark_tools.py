"""pytest-benchmark, Google Benchmark and hyperfine together: detection, fixture kernels,
the CLI on every fixture, fuzzing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from readers import DATA, FIXTURE_FORMATS, FIXTURE_KERNELS, raw
from support import perfguard

from guard import formats
from guard.errors import FormatError
from guard.formats import native

NEW_FORMATS = ["pytest-benchmark", "google-benchmark", "hyperfine"]


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


@pytest.mark.parametrize("name", sorted(FIXTURE_FORMATS))
def test_cli_models_every_fixture(name: str) -> None:
    result = perfguard("model", DATA / name, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {(m["kernel"], m["metric"]) for m in doc["models"]} == set(FIXTURE_KERNELS[name])
    assert doc["skipped"] == []


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
