"""Extra-P's input formats (text, JSON, JSON lines, Talpas): fixtures, detection, errors
naming file and line, round trips, fuzzing."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from readers import shared_point_sets

from guard import formats
from guard.errors import FormatError
from guard.formats import extrap_text, native
from guard.measurements import Kernel, MeasurementSet, Point

DATA = Path(__file__).parents[1] / "data" / "formats"


def kernel(name: str, metric: str, *points: tuple[tuple[float, ...], tuple[float, ...]]) -> Kernel:
    return Kernel(name, metric, tuple(Point(at, values) for at, values in points))


SORT_TIME = [
    (1000, (0.011, 0.012, 0.0115)),
    (2000, (0.023, 0.024, 0.022)),
    (4000, (0.05, 0.049, 0.051)),
    (8000, (0.11, 0.105, 0.108)),
    (16000, (0.23, 0.231, 0.229)),
]


MULTI_POINTS = [(2, 100), (4, 100), (2, 200), (4, 200)]


EXPECTED: dict[str, tuple[str, MeasurementSet]] = {
    "extrap_text_one.txt": (
        "extrap-text",
        MeasurementSet(
            ("n",),
            (
                kernel("main->sort", "time", *(((n,), v) for n, v in SORT_TIME)),
                kernel(
                    "main->lookup",
                    "time",
                    ((1000,), (1e-5, 1.1e-5)),
                    ((2000,), (1.2e-5, 1.1e-5)),
                    ((4000,), (1.3e-5, 1.2e-5)),
                    ((8000,), (1.2e-5, 1.3e-5)),
                    ((16000,), (1.4e-5, 1.3e-5)),
                ),
                kernel("main->sort", "bytes", *(((n,), (8 * n, 8 * n)) for n, _ in SORT_TIME)),
            ),
        ),
    ),
    "extrap_text_multi.txt": (
        "extrap-text",
        MeasurementSet(
            ("p", "size"),
            (
                kernel(
                    "solve",
                    "time",
                    *zip(
                        MULTI_POINTS, [(1.5, 1.6), (2.5, 2.4), (3.0, 3.1), (5.25, 5.5)], strict=True
                    ),
                ),
                kernel(
                    "solve", "visits", *zip(MULTI_POINTS, [(10,), (20,), (20,), (40,)], strict=True)
                ),
            ),
        ),
    ),
    "extrap_json_current.json": (
        "extrap-json",
        MeasurementSet(
            ("p", "n"),
            (
                kernel(
                    "main",
                    "time",
                    ((1, 10), (0.5, 0.51)),
                    ((2, 10), (0.9, 0.95, 1.0)),
                    ((1, 20), (1.1,)),
                ),
                kernel("main", "flops", ((1, 10), (1000, 1000))),
                kernel("main->io", "time", ((2, 10), (0.01, 0.02))),
            ),
        ),
    ),
    "extrap_json_legacy.json": (
        "extrap-json",
        MeasurementSet(
            ("p", "q"),
            (
                kernel("kernel_b", "time", ((16, 5), (4.5,)), ((8, 3), (2.25,))),
                kernel("kernel_a", "time", ((8, 3), (1.25, 1.5)), ((16, 5), (2.75,))),
            ),
        ),
    ),
    "extrap_sample.jsonl": (
        "extrap-jsonl",
        MeasurementSet(
            ("x", "y"),
            (
                kernel("compute", "time", ((16, 1), (0.5, 0.52, 0.49)), ((32, 1), (1.0,))),
                kernel("compute;comm", "time", ((16, 2), (0.125,))),
                kernel("<root>", "bytes", ((16, 1), (4096,))),
            ),
        ),
    ),
    "talpas_sample.txt": (
        "talpas",
        MeasurementSet(
            ("procs", "size"),
            (
                kernel("main;solve", "time", ((4, 64), (2.5, 2.75)), ((8, 64), (1.5,))),
                kernel("main", "energy", ((4, 64), (120,)), ((8, 64), (200,))),
            ),
        ),
    ),
}


def write(tmp_path: Path, text: str, name: str = "bad.txt") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fixture_parses_to_expected_set(name: str) -> None:
    # the reader's own set (load() then drops parameters with one value, as talpas_sample's
    # size; see test_a_parameter_with_one_value_is_dropped_with_a_note)
    got = formats.parse((DATA / name).read_text(encoding="utf-8"), str(DATA / name))
    want = EXPECTED[name][1]
    assert got.parameters == want.parameters
    assert [k.key for k in got.kernels] == [k.key for k in want.kernels]
    for g, w in zip(got.kernels, want.kernels, strict=True):
        assert [p.at for p in g.points] == [p.at for p in w.points], g.key
        assert [p.values for p in g.points] == [p.values for p in w.points], g.key
    assert got == want


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_detection_picks_the_right_format(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    assert formats.detect(text, name) == EXPECTED[name][0]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_exactly_one_sniffer_accepts_each_fixture(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    accepted = [n for n, imp in formats._REGISTRY.items() if imp.sniff(text)]
    assert accepted == [EXPECTED[name][0]]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_forced_format_matches_detected(name: str) -> None:
    text = (DATA / name).read_text(encoding="utf-8")
    assert formats.parse(text, str(DATA / name), EXPECTED[name][0]) == EXPECTED[name][1]
    assert formats.load(DATA / name, EXPECTED[name][0]) == formats.load(DATA / name)


def test_all_extrap_formats_are_registered_after_native() -> None:
    names = formats.names()
    assert names[0] == "perfguard"
    assert {"extrap-text", "extrap-json", "extrap-jsonl", "talpas"} <= set(names)


def test_native_json_is_sniffed_only_as_native() -> None:
    mset = EXPECTED["extrap_json_current.json"][1]
    text = native.dumps(mset)
    assert [n for n, imp in formats._REGISTRY.items() if imp.sniff(text)] == ["perfguard"]


def test_minified_extrap_json_is_detected() -> None:
    text = json.dumps(json.loads((DATA / "extrap_json_current.json").read_text()))
    assert formats.detect(text, "x.json") == "extrap-json"


def test_extrap_sniffers_reject_unrelated_text() -> None:
    ours = ["extrap-text", "extrap-json", "extrap-jsonl", "talpas"]
    for text in ("", "hello world\n", "[1, 2]\n", '{"a": 1}\n', "# only a comment\n"):
        assert [n for n in ours if formats._REGISTRY[n].sniff(text)] == [], text


def parse_text(text: str) -> MeasurementSet:
    return formats.parse(text, "mem.txt", "extrap-text")


def test_text_fewer_data_lines_than_points_are_refused_as_extrap_does() -> None:
    """Extra-P's experiment_MP_neg1.txt: a block one DATA line short is an invalid file."""
    text = "PARAMETER n\nPOINTS 1 2 4\nREGION a\nDATA 1\nDATA 2\nDATA 3\nREGION r\nDATA 1\nDATA 2\n"
    with pytest.raises(FormatError, match=r"mem\.txt:8: region 'r' metric 'time' has 2 DATA"):
        parse_text(text)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("PARAMETER p\nPOINTS ( 32 ) ( 64 )\nREGION r\nMETRIC time\n", r"mem\.txt:4: region 'r'"),
        (
            "PARAMETER p\nPOINTS 1 2\nREGION a\nREGION b\nDATA 1\nDATA 2\n",
            r"mem\.txt:3: region 'a'",
        ),
        (
            "PARAMETER p\nPOINTS 1 2\nREGION a\nDATA 1\nDATA 2\nREGION b\n",
            r"mem\.txt:6: region 'b'",
        ),
    ],
)
def test_text_region_without_data_is_refused(text: str, where: str) -> None:
    """A cut profile: a REGION no DATA line follows was read as no kernel at all, and
    ``check`` passed the file with nothing judged."""
    with pytest.raises(FormatError, match=where + r" metric 'time' has no DATA lines"):
        parse_text(text)


@pytest.mark.parametrize(
    ("text", "line"),
    [  # REGION, then each METRIC with its DATA: a METRIC left empty was dropped silently
        ("PARAMETER p\nPOINTS 1 2\nREGION a\nMETRIC time\nDATA 1\nDATA 2\nMETRIC visits\n", 7),
        ("PARAMETER p\nPOINTS 1 2\nREGION a\nMETRIC time\nMETRIC visits\nDATA 1\nDATA 2\n", 4),
    ],
)
def test_text_metric_without_data_is_refused(text: str, line: int) -> None:
    with pytest.raises(FormatError, match=rf"mem\.txt:{line}: METRIC '\w+' has no DATA lines"):
        parse_text(text)


def test_text_metric_before_region_and_between_blocks_stays_valid() -> None:
    text = "PARAMETER p\nPOINTS 1 2\nMETRIC time\nREGION a\nDATA 1\nDATA 2\n"
    text += "METRIC visits\nREGION a\nDATA 3\nDATA 4\nREGION b\nMETRIC time\nDATA 5\nDATA 6\n"
    assert [(k.name, k.metric) for k in parse_text(text).kernels] == [
        ("a", "time"),
        ("a", "visits"),
        ("b", "time"),
    ]


@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("h.txt", "PARAMETER p\nPOINTS ( 32 ) ( 64 )\n"),
        ("e.json", '{"parameters": ["p"], "measurements": {}}'),
    ],
)
def test_a_file_without_measurements_is_refused(tmp_path: Path, name: str, content: str) -> None:
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(FormatError, match="holds no measurements"):
        formats.load(path)


def test_talpas_kernel_missing_a_point_is_refused_as_extrap_does() -> None:
    """Extra-P's talpas_10_neg.txt: a kernel without values at a point the others have."""
    lines = [
        '{"parameters":{"x":1};"metric":"time";"callpath":"c";"value":1}',
        '{"parameters":{"x":2};"metric":"time";"callpath":"c";"value":2}',
        '{"parameters":{"x":1};"metric":"flops";"callpath":"c";"value":1}',
    ]
    with pytest.raises(
        FormatError, match=r"t\.txt:3: kernel 'c' metric 'flops' has no values at \(2\)"
    ):
        formats.parse("\n".join(lines), "t.txt", "talpas")


def test_text_defaults_and_special_values() -> None:
    mset = parse_text("PARAMETER n\nPOINTS 1 2 3 4\nDATA nan inf\nDATA -1 -inf\nDATA 0\nDATA\n")
    (k,) = mset.kernels
    assert k.key == ("<root>", "time")
    assert math.isnan(k.points[0].values[0]) and k.points[0].values[1] == math.inf
    assert k.points[1].values == (-1.0, -math.inf)
    assert k.points[3].values == ()


def test_text_parameters_on_several_lines_and_mixed_points() -> None:
    mset = parse_text(
        "PARAMETER a\nPARAMETER b c\nPOINTS (1 2 3)(4 5 6)\nPOINTS ( 7 8 9 )\n"
        "REGION r\nDATA 1\nDATA 2\nDATA 3\n"
    )
    assert mset.parameters == ("a", "b", "c")
    assert [p.at for p in mset.kernels[0].points] == [(1, 2, 3), (4, 5, 6), (7, 8, 9)]


def test_text_region_names_keep_inner_spaces_and_indented_comments() -> None:
    mset = parse_text(
        "PARAMETER n\n  # indented comment\nPOINTS 1\nREGION  main -> a b  \nDATA 1\n"
    )
    assert mset.kernels[0].name == "main -> a b"


TEXT_ERRORS = [
    ("PARAMETER n\nPOINTS 1 2\nDATA 1\nDATA 2\nDATA 3\n", 5, "too many DATA lines"),
    ("PARAMETER n\nDATA 1\n", 2, "DATA before any POINTS"),
    ("PARAMETER n\nPOINTS 1\nFOO x\n", 3, "unknown keyword 'FOO'"),
    ("PARAMETER n\nPOINTS 1\nmetric time\n", 3, "upper case"),
    (
        "PARAMETER n\nPOINTS 1 2\n\n# c\nREGION r\nMETRIC m\nDATA 1 abc\n",
        7,
        "DATA value 'abc' is not a number",
    ),
    ("PARAMETER n\nPOINTS 1 x\n", 2, "POINTS coordinate 'x' is not a number"),
    ("POINTS 1 2\n", 1, "POINTS before any PARAMETER"),
    ("PARAMETER a b\nPOINTS 1 2\n", 2, "needs parentheses"),
    ("PARAMETER a b\nPOINTS ( 1 ) ( 2 3 )\n", 2, "has 1 coordinates, expected 2"),
    ("PARAMETER a b\nPOINTS ( 1 2 ( 3 4 )\n", 2, "unbalanced"),
    ("PARAMETER n\nPOINTS 1\nPARAMETER m\n", 3, "PARAMETER after POINTS"),
    ("PARAMETER n n\n", 1, "declared twice"),
    ("PARAMETER\n", 1, "PARAMETER needs a name"),
    ("PARAMETER n\nPOINTS\n", 2, "POINTS lists no points"),
    ("PARAMETER n\nPOINTS 1\nREGION\n", 3, "REGION needs a call path"),
    ("PARAMETER n\nPOINTS 1\nMETRIC\n", 3, "METRIC needs a name"),
    (
        "PARAMETER n\nPOINTS 1 2\nREGION r\nDATA 1\nREGION s\nDATA 1\nREGION r\nDATA 2\n",
        8,
        "already has DATA lines (line 4)",
    ),
]


@pytest.mark.parametrize(("text", "line", "fragment"), TEXT_ERRORS)
def test_text_errors_name_file_and_line(
    tmp_path: Path, text: str, line: int, fragment: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(FormatError) as info:
        formats.load(path, "extrap-text")
    assert f"{path}:{line}: " in str(info.value)
    assert fragment in str(info.value)
    assert info.value.line == line


def test_text_without_parameters_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "# nothing here\n")
    with pytest.raises(FormatError, match="no PARAMETER line") as info:
        formats.load(path, "extrap-text")
    assert str(info.value).startswith(f"{path}: ")


def test_dumps_writes_one_points_line_and_blocks() -> None:
    mset = EXPECTED["extrap_text_multi.txt"][1]
    text = extrap_text.dumps(mset)
    assert text.splitlines()[:2] == [
        "PARAMETER p size",
        "POINTS ( 2 100 ) ( 4 100 ) ( 2 200 ) ( 4 200 )",
    ]
    assert parse_text(text) == mset


def test_dumps_refuses_kernels_with_different_points() -> None:
    mset = MeasurementSet(
        ("n",),
        (
            kernel("a", "time", ((1,), (1,)), ((2,), (2,))),
            kernel("b", "time", ((2,), (1,)), ((1,), (2,))),
        ),
    )
    with pytest.raises(ValueError, match="same points"):
        extrap_text.dumps(mset)


@pytest.mark.parametrize(
    ("param", "name", "metric"),
    [
        ("two words", "k", "time"),
        ("n(", "k", "time"),
        ("n", " lead", "time"),
        ("n", "two\nlines", "time"),
        ("n", "k", "time\u2028x"),
    ],
)
def test_dumps_refuses_names_the_format_cannot_hold(param: str, name: str, metric: str) -> None:
    mset = MeasurementSet((param,), (kernel(name, metric, ((1,), (1,))),))
    with pytest.raises(ValueError):
        extrap_text.dumps(mset)


JSONL_ERRORS = [
    ('{"params": {"n": 1}, "value": 1}\n{"params": {"n": 2}, "value": \n', 2, "invalid JSON"),
    (
        '{"params": {"n": 1}, "value": 1}\n\n{"params": {"m": 2}, "value": 1}\n',
        3,
        "same parameters",
    ),
    ('{"params": {"n": 1}}\n', 1, 'missing "value"'),
    ('{"params": {"n": 1}, "value": [1, "abc"]}\n', 1, 'value[1]: expected a number, got "abc"'),
    ('{"params": {"n": "x"}, "value": 1}\n', 1, "params.n: expected a number"),
    ('{"params": {"n": null}, "value": 1}\n', 1, "params.n: expected a number"),
    ('{"value": 1}\n', 1, 'expected "params"'),
    ("[1, 2]\n", 1, "expected a JSON object"),
    (
        '{"params": {"n": 1}, "callpath": "", "value": 1}\n',
        1,
        '"callpath" must be a non-empty string',
    ),
    ('{"params": {"n": 1}, "metric": 3, "value": true}\n', 1, '"metric" must be'),
]


@pytest.mark.parametrize(("text", "line", "fragment"), JSONL_ERRORS)
def test_jsonl_errors_name_file_and_line(
    tmp_path: Path, text: str, line: int, fragment: str
) -> None:
    path = write(tmp_path, text, "bad.jsonl")
    with pytest.raises(FormatError) as info:
        formats.load(path, "extrap-jsonl")
    assert f"{path}:{line}: " in str(info.value)
    assert fragment in str(info.value)


def test_talpas_errors_name_file_line_and_semicolons(tmp_path: Path) -> None:
    good = '{"parameters":{"p":1};"metric":"t";"callpath":"c";"value":1}\n'
    path = write(tmp_path, good + '{"parameters":{"p":2} "metric":"t";"value":1}\n')
    with pytest.raises(FormatError, match="Expecting ';' delimiter") as info:
        formats.load(path, "talpas")
    assert f"{path}:2: " in str(info.value)


def test_talpas_value_error_names_line(tmp_path: Path) -> None:
    path = write(tmp_path, '\n{"parameters":{"p":1};"value":"1.5"}\n')
    with pytest.raises(FormatError, match="expected a number") as info:
        formats.load(path)
    assert f"{path}:2: " in str(info.value)


def test_empty_jsonl_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no records"):
        formats.load(write(tmp_path, "\n\n", "empty.jsonl"), "extrap-jsonl")


def test_extrap_json_decode_error_names_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n "parameters": ["n"],\n "measurements": {,}\n}\n', "bad.json")
    with pytest.raises(FormatError, match="invalid JSON") as info:
        formats.load(path)
    assert f"{path}:3: " in str(info.value)


EXTRAP_JSON_ERRORS = [
    ([1, 2], "document: expected an object"),
    ({"parameters": ["n"]}, "document: missing 'measurements'"),
    ({"parameters": "n", "measurements": {}}, "parameters: expected a list"),
    (
        {"parameters": ["n"], "measurements": {"m": {"t": [{"point": [1, 2], "values": [1]}]}}},
        'measurements["m"]["t"][0].point: has 2 coordinates, expected 1',
    ),
    (
        {"parameters": ["n"], "measurements": {"m": {"t": [{"point": 1, "values": ["x"]}]}}},
        'measurements["m"]["t"][0].values[0]: expected a number',
    ),
    (
        {"parameters": ["n"], "measurements": {"m": {"t": [{"point": 1}]}}},
        'needs "point" and "values"',
    ),
    ({"parameters": ["n"], "measurements": {"m": {"t": {}}}}, "expected a list of"),
    ({"parameters": ["n", "n"], "measurements": {}}, "parameter names repeat"),
    (
        {
            "parameters": [{"id": 1, "name": "n"}],
            "callpaths": [{"id": 1, "name": "c"}],
            "metrics": [{"id": 1, "name": "t"}],
            "coordinates": [
                {"id": 1, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": 2}]}
            ],
            "measurements": [{"coordinate_id": 7, "callpath_id": 1, "metric_id": 1, "value": 1}],
        },
        "measurements[0].coordinate_id: no entry with id 7",
    ),
    (
        {
            "parameters": [{"id": 1, "name": "n"}],
            "callpaths": [{"id": 1, "name": "c"}],
            "metrics": [{"id": 1, "name": "t"}],
            "coordinates": [
                {"id": 1, "parameter_value_pairs": [{"parameter_id": 2, "parameter_value": 2}]}
            ],
            "measurements": [],
        },
        "coordinates id 1: needs one value for each parameter id [1]",
    ),
    (  # a declared coordinate nothing was measured at (Extra-P's tests refuse input_11)
        {
            "parameters": [{"id": 1, "name": "n"}],
            "callpaths": [{"id": 1, "name": "c"}],
            "metrics": [{"id": 1, "name": "t"}],
            "coordinates": [
                {"id": i, "parameter_value_pairs": [{"parameter_id": 1, "parameter_value": v}]}
                for i, v in ((1, 2), (2, 4), (3, 8))
            ],
            "measurements": [
                {"coordinate_id": i, "callpath_id": 1, "metric_id": 1, "value": 1.0} for i in (1, 2)
            ],
        },
        "coordinates id 3 (n=8) has no measurement of callpath 'c', metric 't'",
    ),
    (
        {
            "parameters": [{"id": 1}],
            "callpaths": [],
            "metrics": [],
            "coordinates": [],
            "measurements": [],
        },
        "parameters id 1.name: expected a non-empty string",
    ),
    (
        {
            "parameters": [{"id": "x", "name": "n"}],
            "callpaths": [],
            "metrics": [],
            "coordinates": [],
            "measurements": [],
        },
        "parameters[0].id: expected an integer id",
    ),
]


@pytest.mark.parametrize(("doc", "fragment"), EXTRAP_JSON_ERRORS)
def test_extrap_json_errors_name_file_and_element(
    tmp_path: Path, doc: object, fragment: str
) -> None:
    path = write(tmp_path, json.dumps(doc), "bad.json")
    with pytest.raises(FormatError) as info:
        formats.load(path, "extrap-json")
    assert str(info.value).startswith(f"{path}: ")
    assert fragment in str(info.value)


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)


JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(
            st.sampled_from(["point", "values", "id", "name", "n", "x"]) | st.text(max_size=3),
            inner,
            max_size=3,
        )
    ),
    max_leaves=12,
)


KEYS = [
    "parameters",
    "measurements",
    "callpaths",
    "metrics",
    "coordinates",
    "params",
    "value",
    "callpath",
    "metric",
    "point",
    "values",
    "parameter_value_pairs",
    "coordinate_id",
]


JSON_DOCS = st.dictionaries(st.sampled_from(KEYS), JSON_VALUES, max_size=6)


TEXT_LINES = st.lists(
    st.tuples(
        st.sampled_from(["PARAMETER", "POINTS", "METRIC", "REGION", "DATA", "#", "foo", ""]),
        st.lists(
            st.sampled_from(["1", "2.5", "x", "(", ")", "( 1 2 )", "nan", "-3", "a"]), max_size=4
        ),
    ),
    max_size=12,
)


def only_format_errors(text: str, fmt: str) -> None:
    try:
        formats.parse(text, "fuzz", fmt)
    except FormatError:
        pass


@settings(max_examples=150)
@given(st.text(max_size=200), st.sampled_from([n for n in formats.names() if n != "perfguard"]))
def test_arbitrary_text_raises_only_format_errors(text: str, fmt: str) -> None:
    only_format_errors(text, fmt)


@settings(max_examples=200)
@given(TEXT_LINES)
def test_keyword_soup_raises_only_format_errors(lines: list[tuple[str, list[str]]]) -> None:
    only_format_errors("\n".join(" ".join([k, *rest]) for k, rest in lines), "extrap-text")


@settings(max_examples=200)
@given(st.lists(JSON_DOCS, min_size=1, max_size=3))
def test_json_shaped_input_raises_only_format_errors(docs: list[dict[str, object]]) -> None:
    only_format_errors(json.dumps(docs[0]), "extrap-json")
    lines = "\n".join(json.dumps(d) for d in docs)
    only_format_errors(lines, "extrap-jsonl")
    only_format_errors(lines.replace(",", ";"), "talpas")


@given(shared_point_sets())
def test_extrap_text_round_trip_is_exact(mset: MeasurementSet) -> None:
    text = extrap_text.dumps(mset)
    assert formats.detect(text, "rt.txt") == "extrap-text"
    assert formats.parse(text, "rt.txt") == mset


def test_a_parameter_with_one_value_is_dropped_with_a_note(tmp_path: Path) -> None:
    # p = 64 at every point of a study over n: "no line of 3 points varying only p", exit 2,
    # where Extra-P models 0.005 + 0.01 n
    rows = "\n".join(
        f"DATA {0.005 + 0.01 * n} {0.005 + 0.01 * n}" for n in (100, 200, 400, 800, 1600)
    )
    text = tmp_path / "fixed.txt"
    text.write_text(
        "PARAMETER n\nPARAMETER p\n"
        "POINTS ( 100 64 ) ( 200 64 ) ( 400 64 ) ( 800 64 ) ( 1600 64 )\n"
        f"REGION solve\nMETRIC time\n{rows}\n"
    )
    mset = formats.load(text)
    assert mset.parameters == ("n",)
    assert [p.at for p in mset.kernels[0].points] == [
        (100.0,),
        (200.0,),
        (400.0,),
        (800.0,),
        (1600.0,),
    ]
    assert mset.notes == (
        f"{text}: p=64 at every point: modelled over n "
        "(a parameter that does not vary has no effect to model)",
    )
    # every parameter fixed: nothing to model over, the set is as read (its own error follows)
    one = tmp_path / "one.txt"
    one.write_text("PARAMETER n\nPARAMETER p\nPOINTS ( 1 2 )\nREGION r\nMETRIC time\nDATA 1.0\n")
    assert formats.load(one).parameters == ("n", "p")


def test_a_point_at_a_size_of_zero_is_left_out_with_a_note(tmp_path: Path) -> None:
    # t = 0, 1, 2, 4, 8, 16 of 5 + 2t: "non-positive parameter values at (0)", exit 2, where
    # Extra-P gives 5 + 2t
    sizes = (0, 1, 2, 4, 8, 16)
    text = tmp_path / "zero.txt"
    rows = "\n".join(f"DATA {5 + 2 * t}" for t in sizes)
    text.write_text(
        f"PARAMETER t\nPOINTS {' '.join(f'( {t} )' for t in sizes)}\n"
        f"REGION k\nMETRIC time\n{rows}\n"
    )
    mset = formats.load(text)
    assert [p.at for p in mset.kernels[0].points] == [(t,) for t in (1.0, 2.0, 4.0, 8.0, 16.0)]
    assert (
        "left out 1 point at a parameter value of 0 or less, or not finite (k at t=0)"
        in mset.notes[0]
    )
