"""Fuzzing every reader and parser: any input is a result or a clear perfguard error.

Three kinds of input per reader: random text, random JSON-ish structure, and mutations of
a real fixture (bytes flipped, lines dropped or repeated, numbers replaced by huge, tiny,
negative or non-numeric ones, nesting made deep).  Whatever comes in, the reader returns a
measurement set or raises a PerfguardError (the CLI's one-line message and exit 2) -- never
an OverflowError, RecursionError, KeyError or any other traceback.  The number of inputs
tried is in docs/security.md; ``PERFGUARD_FUZZ_EXAMPLES`` raises it for a long run.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from guard.checking.expectation import ExpectationError, parse_class, parse_expectation
from guard.config import load_config
from guard.errors import PerfguardError
from guard.formats import names, parse
from guard.modeling.analytical import AnalyticalError, parse_analytical

DATA = Path(__file__).parents[1] / "data" / "formats"
EXAMPLES = int(os.environ.get("PERFGUARD_FUZZ_EXAMPLES", "60"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
    derandomize=True,
)
FIXTURES = sorted(p for p in DATA.iterdir() if p.is_file())
NASTY_NUMBERS = [
    "1e999",
    "-1e999",
    "9" * 5000,
    "9" * 400,
    "1e-170",
    "1e200",
    "1e-400",
    "-0",
    "NaN",
    "Infinity",
    '"7"',
    "null",
]

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=12),
)
json_doc = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.text(max_size=10), inner, max_size=5)
    ),
    max_leaves=30,
)


def reads_or_refuses(text: str, format: str | None) -> None:
    """Parsing may succeed or raise a PerfguardError; anything else is a defect."""
    try:
        parse(text, "fuzz.input", format)
    except PerfguardError:
        pass


def mutate(text: str, rng: random.Random) -> str:
    """One of several structural mutations of a real file."""
    kind = rng.randrange(6)
    lines = text.splitlines(keepends=True)
    if kind == 0 and text:  # flip a character
        i = rng.randrange(len(text))
        return text[:i] + chr(rng.randrange(32, 0x2FF)) + text[i + 1 :]
    if kind == 1 and lines:  # drop a line
        del lines[rng.randrange(len(lines))]
        return "".join(lines)
    if kind == 2 and lines:  # repeat a line
        i = rng.randrange(len(lines))
        return "".join(lines[: i + 1] + lines[i:])
    if kind == 3:  # a number becomes something nasty
        digits = [i for i, c in enumerate(text) if c.isdigit()]
        if digits:
            i = rng.choice(digits)
            j = i
            while j < len(text) and (text[j].isdigit() or text[j] in ".e-+"):
                j += 1
            return text[:i] + rng.choice(NASTY_NUMBERS) + text[j:]
    if kind == 4:  # deep nesting
        depth = rng.choice([50, 5000, 100_000])
        return "[" * depth + text + "]" * depth
    return text[: rng.randrange(len(text) + 1)]  # truncated


@pytest.mark.parametrize("fixture", FIXTURES, ids=lambda p: p.name)
@FUZZ
@given(seed=st.integers(0, 2**32 - 1))
def test_mutated_fixtures_are_read_or_refused(fixture: Path, seed: int) -> None:
    rng = random.Random(seed)
    text = fixture.read_text(encoding="utf-8")
    for _ in range(rng.randrange(1, 4)):
        text = mutate(text, rng)
    reads_or_refuses(text, None)


@pytest.mark.parametrize("format", names())
@FUZZ
@given(doc=json_doc)
def test_random_json_structures_are_refused_cleanly(format: str, doc: object) -> None:
    reads_or_refuses(json.dumps(doc), format)


@pytest.mark.parametrize("format", names())
@FUZZ
@given(text=st.text(max_size=300))
def test_random_text_is_refused_cleanly(format: str, text: str) -> None:
    reads_or_refuses(text, format)


@FUZZ
@given(text=st.text(max_size=60))
def test_expectations_parse_or_say_where(text: str) -> None:
    for parse_one in (parse_expectation, parse_class):
        try:
            parse_one(text, ["n", "p"])
        except ExpectationError:
            pass


EXPRESSION_PARTS = st.sampled_from(
    ["n", "p", "+", "-", "*", "/", "**", "^", "(", ")", "log2(", "sqrt(", "1e308", "9" * 40,
     "0", "1.5", ",", "max(", "min(", "__import__", "'x'", "[", "]", "lambda", " "]
)  # fmt: skip


@FUZZ
@given(parts=st.lists(EXPRESSION_PARTS, max_size=25), nesting=st.sampled_from([0, 200, 50_000]))
def test_analytical_expressions_parse_or_say_where(parts: list[str], nesting: int) -> None:
    text = "(" * nesting + "".join(parts) + ")" * nesting
    try:
        model = parse_analytical(text, ("n", "p"))
    except AnalyticalError:
        return
    try:
        model.evaluate({"n": [1.0, 2.0, 1e300], "p": [1.0, 3.0, 1e-300]})
    except AnalyticalError:
        pass


CONFIG_LINES = st.sampled_from(
    ["version: 1", "version: 9", "parameters:", "  n: \"2^4..2^10\"", "  n: [1, 2, 3]",
     "  n: \"1..1e999 x2\"", "benchmarks:", "  a:", "    command: \"echo {n}\"",
     "    callable: \"m:f\"", "    expect: \"<= n\"", "    expect: \"<= (((\"",
     "    repetitions: -3", "    repetitions: 1e999", "run:", "  budget: 1e999",
     "  budget: -1", "check:", "  confidence: 2", "  target: {n: 1e999}", "- [", "{{", ": :",
     "    analytical: \"n**n**n**n\"", "    analytical: \"" + "(" * 300 + "n" + ")" * 300 + "\""]
)  # fmt: skip


@FUZZ
@given(lines=st.lists(CONFIG_LINES, max_size=14))
def test_configs_load_or_name_the_line(lines: list[str], tmp_path_factory) -> None:
    path = tmp_path_factory.mktemp("fuzz") / "perfguard.yml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    try:
        load_config(path)
    except PerfguardError:
        pass
