"""The tables perfguard draws itself are the tables rich would draw, character for character."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st
from rich.console import Console
from rich.text import Text

from guard.reporting.tables import Column, _rich_table, _table, fit

WORDS = st.text(alphabet="abcxyz_0123456789()^ ×%.-名", min_size=0, max_size=14)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _printed(renderable: object, width: int, terminal: bool) -> str:
    console = Console(
        width=width, force_terminal=terminal, color_system="standard" if terminal else None
    )
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()


@st.composite
def tables(draw: st.DrawFn) -> tuple[list[Column], list[int]]:
    count = draw(st.integers(1, 5))
    rows = draw(st.integers(1, 6))
    columns = []
    for k in range(count):
        cells = tuple(
            Text(t, style="bold red") if draw(st.booleans()) else t
            for t in draw(st.lists(WORDS, min_size=rows, max_size=rows))
        )
        columns.append(Column(draw(WORDS) or f"h{k}", cells, numeric=draw(st.booleans())))
    widths = [
        max([len(c.header)] + [len(str(getattr(x, "plain", x))) * 2 for x in c.cells]) + 1
        for c in columns
    ]
    return columns, widths


@settings(max_examples=150, deadline=None)
@given(tables())
def test_a_drawn_table_is_the_table_rich_draws(case: tuple[list[Column], list[int]]) -> None:
    columns, widths = case
    width = sum(w + 3 for w in widths) + 1
    ours = _table(columns, widths, "bold")
    theirs = _rich_table(columns, widths, "bold")
    assert _printed(ours, width, False) == _printed(theirs, width, False)
    # in a terminal the same characters, styled: the header bold, the styled cells red
    styled = _printed(ours, width, True)
    assert ANSI.sub("", styled) == ANSI.sub("", _printed(theirs, width, True))
    assert "\x1b[1m" in styled


def test_a_cell_too_wide_for_its_column_is_wrapped_by_rich() -> None:
    column = Column("name", ("alpha beta gamma delta",))
    text = _printed(fit([column], 16), 16, False)
    assert text.startswith("┏") and all(len(line) <= 16 for line in text.splitlines())
    assert " ".join(line.strip("│ ") for line in text.splitlines()[3:-1]) == (
        "alpha beta gamma delta"
    )
