"""Finding the line of a JSON element, so every JSON reader's error names file and line."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.errors import FormatError
from guard.formats._json_lines import JsonFile, describe, locate

NESTED = """{
  "benchmarks": [
    {"name": "a, [b]: {c}", "params": {"n": 1}},
    {
      "name": "tricky \\" quote ]",
      "params": {
        "n": "big",
        "n": 2
      },
      "data": [1, [2, 3], 4]
    }
  ],
  "b": {"n": 1}
}
"""


@pytest.mark.parametrize(
    ("path", "line"),
    [
        ([], 1),
        (["benchmarks"], 2),
        (["benchmarks", 0], 3),
        (["benchmarks", 0, "params", "n"], 3),
        (["benchmarks", 1], 4),
        (["benchmarks", 1, "name"], 5),
        (["benchmarks", 1, "params"], 6),
        (["benchmarks", 1, "params", "n"], 8),  # the last of repeated keys wins, as in json
        (["benchmarks", 1, "data", 1, 0], 10),
        (["b", "n"], 13),
        (["benchmarks", 7], 2),  # no such item: the nearest existing ancestor
        (["benchmarks", 1, "missing"], 4),
        (["benchmarks", 1, "name", 0], 5),  # a path through a string stops there
        (["benchmarks", "0"], 2),  # a key where an index is needed
    ],
)
def test_locate_finds_the_line_where_an_element_starts(path: list, line: int) -> None:
    assert locate(NESTED, path) == line


def test_locate_skips_leading_blank_lines() -> None:
    assert locate('\n\n  {"a":\n\n 1}', []) == 3
    assert locate('\n\n  {"a":\n\n 1}', ["a"]) == 5


@pytest.mark.parametrize("text", ["", "{", '{"a": [1, 2', '{"a" 1}', "[1 2]", "nul", '{"a": 1,'])
def test_locate_never_fails_on_broken_text(text: str) -> None:
    assert locate(text, ["a", 1, "b"]) >= 1
    assert locate(text, [1]) >= 1


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ([], "document"),
        (["benchmarks", 2, "params", "n"], "benchmarks[2].params.n"),
        ([0, "a"], "[0].a"),
        (["results", 0, "parameters", "my key"], 'results[0].parameters["my key"]'),
    ],
)
def test_describe_writes_paths_as_readers_do(path: list, text: str) -> None:
    assert describe(path) == text


def test_json_file_errors_name_file_line_and_path() -> None:
    doc = JsonFile(NESTED, "bench.json")
    err = doc.fail(["benchmarks", 1, "params", "n"], 'expected a number, got "big"')
    assert str(err) == 'bench.json:8: benchmarks[1].params.n: expected a number, got "big"'
    assert (err.path, err.line) == ("bench.json", 8)
    with pytest.raises(FormatError, match=r"^bench.json:1: document: expected a list"):
        doc.arr(doc.root, [])
    with pytest.raises(FormatError, match=r"too large"):
        doc.number(10**400, [])


JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=5)


JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=20,
)


@st.composite
def value_and_path(draw: st.DrawFn) -> tuple[Any, list[str | int], Any]:
    value = draw(JSON_VALUES)
    path: list[str | int] = []
    node = value
    while isinstance(node, (list, dict)) and node and draw(st.booleans()):
        step = draw(st.sampled_from(range(len(node)) if isinstance(node, list) else list(node)))
        path.append(step)
        node = node[step]
    return value, path, node


@given(value_and_path())
def test_locate_agrees_with_indented_json(case: tuple[Any, list[str | int], Any]) -> None:
    value, path, node = case
    text = json.dumps(value, indent=1)
    line = text.split("\n")[locate(text, path) - 1].strip()
    key = json.dumps(path[-1]) + ": " if path and isinstance(path[-1], str) else ""
    assert line.startswith(key + json.dumps(node, indent=1).split("\n")[0])
    assert locate(json.dumps(value), path) == 1


@given(st.text(max_size=60), st.lists(st.integers(0, 3) | st.text(max_size=2), max_size=4))
def test_locate_never_raises(text: str, path: list[str | int]) -> None:
    assert 1 <= locate(text, path) <= text.count("\n") + 1
