"""Extra-P's saved experiments (``.extra-p``): summaries only, kept raw values, bad archives."""

from __future__ import annotations

import io
import json
import struct
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy
from support import perfguard

from guard import formats
from guard.errors import FormatError

POINTS = [4.0, 8.0, 16.0, 32.0, 64.0]


def summary(x: float, values: list[float]) -> dict:
    v = np.asarray(values)
    return {
        "coordinate": [x],
        "median": float(np.median(v)),
        "mean": float(v.mean()),
        "minimum": float(v.min()),
        "maximum": float(v.max()),
        "std": float(v.std()),
        "repetitions": len(v),
    }


def value_chunk(arrays: list[np.ndarray]) -> tuple[bytes, bytes]:
    """values/0.vals and values/0.indx as Extra-P lays them out."""
    vals = io.BytesIO()
    vals.write(b"Extra-P VALUES\0\0")
    offsets = []
    for array in arrays:
        offsets.append(vals.tell())
        npy.write_array(vals, array)
    index = b"Extra-P INDEX\0\0\0" + struct.pack(f"<Q{len(offsets)}Q", len(offsets), *offsets)
    return vals.getvalue(), index


def write_experiment(path: Path, keep_values: bool) -> dict[float, list[float]]:
    """One kernel, ``solve`` / ``time`` = n log2 n times 1, 1.02, 0.99 per repetition."""
    reps = {x: [x * np.log2(x) * f for f in (1.0, 1.02, 0.99)] for x in POINTS}
    entries = []
    for i, x in enumerate(POINTS):
        entry = summary(x, reps[x])
        entry["values"] = [0, i] if keep_values else None
        entries.append(entry)
    doc = {
        "Extra-P": "4.2.5",
        "parameters": ["n"],
        "measurements": {"solve": {"time": entries}},
        "modelers": [],
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("experiment.json", json.dumps(doc))
        if keep_values:
            vals, index = value_chunk([np.asarray(reps[x]) for x in POINTS])
            archive.writestr("values/0.vals", vals)
            archive.writestr("values/0.indx", index)
    return reps


def test_summaries_only_become_one_mean_per_point(tmp_path: Path) -> None:
    reps = write_experiment(tmp_path / "e.extra-p", keep_values=False)
    kernel = formats.load(tmp_path / "e.extra-p").kernel("solve", "time")
    assert [p.at for p in kernel.points] == [(x,) for x in POINTS]
    assert [p.values for p in kernel.points] == [(float(np.mean(reps[x])),) for x in POINTS]


def test_kept_values_are_the_repetitions(tmp_path: Path) -> None:
    reps = write_experiment(tmp_path / "e.extra-p", keep_values=True)
    kernel = formats.load(tmp_path / "e.extra-p").kernel("solve", "time")
    for point in kernel.points:
        np.testing.assert_array_equal(point.values, reps[point.at[0]])


def test_model_reads_an_experiment(tmp_path: Path) -> None:
    write_experiment(tmp_path / "e.extra-p", keep_values=True)
    done = perfguard("model", tmp_path / "e.extra-p", "--json")
    assert done.returncode == 0, done.stderr
    (model,) = json.loads(done.stdout)["models"]
    assert model["kernel"] == "solve" and model["complexity"] == "O(n log n)"


def test_numbers_as_extrap_writes_them(tmp_path: Path) -> None:
    doc = {
        "parameters": ["n"],
        "measurements": {
            "k": {"m": [{"coordinate": ["1/2"], "mean": "nan"}, {"coordinate": [2], "mean": 3}]}
        },
    }
    with zipfile.ZipFile(tmp_path / "e.extra-p", "w") as archive:
        archive.writestr("experiment.json", json.dumps(doc))
    kernel = formats.load(tmp_path / "e.extra-p").kernel("k", "m")
    assert kernel.points[0].at == (0.5,) and np.isnan(kernel.points[0].values[0])
    assert kernel.points[1].values == (3.0,)


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"other.json": "{}"}, "without experiment.json"),
        ({"experiment.json": "{"}, r"e\.extra-p!experiment\.json:1: invalid JSON"),
        ({"experiment.json": '{"parameters": []}'}, '"parameters": expected a list'),
        (
            {"experiment.json": json.dumps({"parameters": ["n"], "measurements": {"k": []}})},
            r'measurements\["k"\]: expected an object',
        ),
        (
            {
                "experiment.json": json.dumps(
                    {
                        "parameters": ["n"],
                        "measurements": {"k": {"m": [{"coordinate": [1], "values": [0, 0]}]}},
                    }
                )
            },
            r'measurements\["k"\]\["m"\]\[0\]\.values: the archive has no values/0\.indx',
        ),
        (
            {
                "experiment.json": json.dumps(
                    {"parameters": ["n"], "measurements": {"k": {"m": [{"coordinate": [1, 2]}]}}}
                )
            },
            r"coordinate: expected a list of 1 numbers",
        ),
    ],
)
def test_bad_experiments_are_named(tmp_path: Path, members: dict, message: str) -> None:
    path = tmp_path / "e.extra-p"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in members.items():
            archive.writestr(name, text)
    with pytest.raises(FormatError, match=message):
        formats.load(path)


def test_a_cut_zip_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "e.extra-p"
    write_experiment(path, keep_values=True)
    path.write_bytes(path.read_bytes()[:60])
    with pytest.raises(FormatError, match="not a readable Extra-P experiment"):
        formats.load(path)
