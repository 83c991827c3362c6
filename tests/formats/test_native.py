"""The native format (perfguard/measurements@1): round trips, repetitions and refused values."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from readers import shared_point_sets

from guard import formats
from guard.errors import FormatError
from guard.formats import native
from guard.measurements import Kernel, MeasurementSet, RunInfo


@st.composite
def native_sets(draw: st.DrawFn) -> MeasurementSet:
    base = draw(shared_point_sets())
    units = draw(
        st.lists(
            st.none() | st.sampled_from(["s", "B", "instr"]),
            min_size=len(base.kernels),
            max_size=len(base.kernels),
        )
    )
    kernels = tuple(
        Kernel(k.name, k.metric, k.points, u) for k, u in zip(base.kernels, units, strict=True)
    )
    run = RunInfo(
        commit=draw(st.none() | st.from_regex(r"[0-9a-f]{7}", fullmatch=True)),
        machine=draw(st.dictionaries(st.sampled_from(["cpu", "os"]), st.text(max_size=5))),
    )
    return MeasurementSet(base.parameters, kernels, run)


@given(native_sets())
def test_native_round_trip_is_exact(mset: MeasurementSet) -> None:
    text = native.dumps(mset)
    assert formats.detect(text, "rt.json") == "perfguard"
    assert formats.parse(text, "rt.json") == mset


@pytest.mark.parametrize(
    "head",
    ['{"schema": "perfguard/measurements@1", "x": ', '{"parameters": ["p"], "measurements": '],
)
def test_deeply_nested_json_is_a_format_error(tmp_path: Path, head: str) -> None:
    path = tmp_path / "deep.json"
    path.write_text(head + "[" * 100_000)
    with pytest.raises(FormatError, match="nested too deeply"):
        formats.load(path)


def native_values(values: str) -> str:
    return (
        '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": '
        '[{"name": "k", "points": [{"at": {"n": 1}, "values": ' + values + "}]}]}"
    )


def test_native_values_keep_null_as_nan_and_refuse_other_types() -> None:
    (point,) = formats.parse(native_values("[1, 2.5, null]"), "m.json").kernels[0].points
    assert point.values[:2] == (1.0, 2.5) and math.isnan(point.values[2])
    for bad, message in [
        ("[1.0, true]", "kernels[0].points[0].values[1]: expected a number, got true"),
        ('[1.0, "2"]', 'kernels[0].points[0].values[1]: expected a number, got "2"'),
        ("[1" + "0" * 400 + "]", "kernels[0].points[0].values[0]: number 1000"),
    ]:
        with pytest.raises(FormatError, match=re.escape(message)):
            formats.parse(native_values(bad), "m.json")


def test_a_saved_file_gets_the_mode_of_any_new_file(tmp_path) -> None:
    # measurements were 0600 (mkstemp's) beside the report's 0644 files
    import os
    import stat

    from guard.formats.native import save
    from guard.measurements import Kernel, MeasurementSet, Point

    mset = MeasurementSet(("n",), (Kernel("k", "time", (Point((1.0,), (1.0,)),)),))
    old = os.umask(0o022)
    try:
        save(mset, tmp_path / "m.json")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "m.json").stat().st_mode) == 0o644
