"""Helpers the reader tests share: fixture files, value lookups, generated measurement sets."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import strategies as st
from support import perfguard

from guard.measurements import Kernel, MeasurementSet, Point

POSITIVE = st.floats(min_value=0.0, exclude_min=True, allow_nan=False, allow_infinity=False)


PARAM_NAMES = st.lists(
    st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1, max_size=3, unique=True
)


LINE_TEXT = (
    st.text(st.characters(blacklist_categories=("Cs", "Cc", "Zl", "Zp")), min_size=1, max_size=12)
    .map(str.strip)
    .filter(bool)
)


@st.composite
def shared_point_sets(draw: st.DrawFn) -> MeasurementSet:
    params = draw(PARAM_NAMES)
    coords = draw(st.lists(st.tuples(*[POSITIVE] * len(params)), min_size=1, max_size=5))
    keys = draw(st.lists(st.tuples(LINE_TEXT, LINE_TEXT), min_size=1, max_size=4, unique=True))
    kernels = []
    for name, metric in keys:
        values = draw(
            st.lists(
                st.lists(POSITIVE, min_size=1, max_size=4),
                min_size=len(coords),
                max_size=len(coords),
            )
        )
        kernels.append(
            Kernel(
                name, metric, tuple(Point(a, tuple(v)) for a, v in zip(coords, values, strict=True))
            )
        )
    return MeasurementSet(tuple(params), tuple(kernels))


DATA = Path(__file__).parents[1] / "data" / "formats"


def write(tmp_path: Path, text: str, name: str = "bad.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def raw(name: str) -> Any:
    return json.loads((DATA / name).read_text(encoding="utf-8"))


def all_values(mset: MeasurementSet, metric: str = "time") -> list[float]:
    return sorted(v for k in mset.kernels if k.metric == metric for p in k.points for v in p.values)


def points(mset: MeasurementSet, name: str, metric: str = "time") -> list[tuple[float, ...]]:
    return [p.at for p in mset.kernel(name, metric).points]


def values(mset: MeasurementSet, name: str, at: tuple[float, ...], metric: str = "time") -> tuple:
    (point,) = [p for p in mset.kernel(name, metric).points if p.at == at]
    return point.values


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


def assert_cli_names_file_and_line(tmp_path: Path, text: str, line: int) -> None:
    """``perfguard model`` on a bad file: exit 2, one line on stderr naming file and line."""
    path = write(tmp_path, text)
    result = perfguard("model", path)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:{line}: " in lines[0]
    assert "Traceback" not in result.stderr
