"""Tables that fit the width they get: CI logs are 80 columns and not a terminal.

A column never splits a header word or a number: each column is at least as wide as its
longest header word, and a number column as wide as its widest number.  When that does not
fit, columns that are empty for every row go first, then the short forms of the numbers
(``×6.2e4``), then the optional columns, least important first; when even that does not fit, every
row becomes a block of ``header: value`` lines.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

from rich.cells import chop_cells
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

__all__ = ["Column", "fit", "table_width"]

_EMPTY = ("", "-")
_ACTIONS_WIDTH = 120  # GitHub's log viewer wraps long lines itself


@dataclass(frozen=True)
class Column:
    """One column: its header and cells; numbers right-aligned and never broken."""

    header: str
    cells: tuple[str | Text, ...]
    numeric: bool = False
    drop: int = 0  # 0: always shown; else dropped when too wide, the highest first
    short: tuple[str | Text, ...] | None = None  # narrower cells to try before dropping
    style: str | None = None

    def min_width(self) -> int:
        if self.numeric:  # never wrapped: the header must fit on one line too
            return max([len(self.header)] + [len(_plain(c)) for c in self.cells])
        words = [len(w) for w in self.header.split()]
        words += [len(w) for c in self.cells for w in _plain(c).split()]
        return max(words, default=1)

    def max_width(self) -> int:
        lines = [self.header] + [_plain(c) for c in self.cells]
        return max(len(line) for line in lines)

    @property
    def empty(self) -> bool:
        return all(_plain(c).strip() in _EMPTY for c in self.cells)


def table_width(environ: Mapping[str, str] | None = None) -> int:
    """The width to lay tables out for: COLUMNS, else 120 in GitHub Actions, else 80."""
    env = os.environ if environ is None else environ
    columns = env.get("COLUMNS", "")
    if columns.isdigit() and int(columns) > 0:
        return int(columns)
    return _ACTIONS_WIDTH if env.get("GITHUB_ACTIONS") == "true" else 80


def fit(columns: Sequence[Column], width: int, header_style: str = "bold") -> RenderableType:
    """The widest layout that fits ``width``: a table, or one block per row."""
    chosen = [c for c in columns if not c.empty] or list(columns[:1])
    if _needed(chosen) > width:
        chosen = [replace(c, cells=c.short) if c.short is not None else c for c in chosen]
    while _needed(chosen) > width and any(c.drop for c in chosen):
        chosen.remove(max(chosen, key=lambda c: c.drop))
    if _needed(chosen) > width:
        return _blocks([c for c in columns if not c.empty], width)
    # an optional column goes before a cell is wrapped, where that leaves none wrapped (at
    # 100 columns "O(n log n)" broke over two lines that 80, dropping columns, kept whole)
    whole = list(chosen)
    while _full(whole) > width and any(c.drop for c in whole):
        whole.remove(max(whole, key=lambda c: c.drop))
    if _full(whole) <= width:
        chosen = whole
    return _table(chosen, _widths(chosen, width), header_style)


def _full(columns: Sequence[Column]) -> int:
    """The width with every cell on one line."""
    return sum(max(c.max_width(), c.min_width()) + 3 for c in columns) + 1


def _widths(columns: Sequence[Column], width: int) -> list[int]:
    """Each column's width: all it wants if that fits, else its minimum plus a share of
    the room left, in proportion to how much more it wants (rich's own layout may squeeze
    a column below its longest word)."""
    low = [c.min_width() for c in columns]
    high = [max(c.max_width(), m) for c, m in zip(columns, low)]
    room = width - (sum(w + 3 for w in low) + 1)
    want = [h - lw for h, lw in zip(high, low)]
    if room >= sum(want):
        return high
    total = sum(want) or 1
    out = [lw + (room * w) // total for lw, w in zip(low, want)]
    return out


def _needed(columns: Sequence[Column]) -> int:
    # rich's default box: one separator per column and one more, one space of padding a side
    return sum(c.min_width() + 3 for c in columns) + 1


def _table(columns: Sequence[Column], widths: Sequence[int], header_style: str) -> RenderableType:
    count = len(columns[0].cells) if columns else 0
    cells = [[_text(c.cells[i]) for c in columns] for i in range(count)]
    lines = _drawn(columns, widths, cells, header_style)
    return Group(*lines) if lines is not None else _rich_table(columns, widths, header_style)


def _drawn(
    columns: Sequence[Column], widths: Sequence[int], rows: list[list[Text]], header_style: str
) -> list[Text] | None:
    """The table rich would draw, line by line, where every cell fits its width on one line
    (else None: rich wraps).  rich's layout measures every cell of every row again; for a
    few thousand kernels that was most of ``perfguard check``'s time at the terminal."""
    heads = [Text(c.header) for c in columns]
    if not rows or any(cell.cell_len > w for row in [heads, *rows] for cell, w in zip(row, widths)):
        return None
    right = [c.numeric for c in columns]
    styles = [c.style or "" for c in columns]

    def line(cells: list[Text], edge: str, style: str | None = None) -> Text:
        out = Text(edge[0])
        for k, (cell, w) in enumerate(zip(cells, widths)):
            if right[k]:  # rich right-justifies a cell without its trailing spaces
                cell = cell.copy()
                cell.rstrip()
            gap = " " * (w - cell.cell_len)
            body = Text(style=style or styles[k])
            body.append(gap if right[k] else "")
            body.append_text(cell)
            body.append("" if right[k] else gap)
            out.append_text(Text(" ", style or "").append_text(body).append(" "))
            out.append(edge[1] if k < len(cells) - 1 else edge[2])
        out.no_wrap, out.overflow = True, "ignore"
        return out

    def rule(left: str, fill: str, cross: str, end: str) -> Text:
        return Text(left + cross.join(fill * (w + 2) for w in widths) + end, no_wrap=True)

    return [
        rule("┏", "━", "┳", "┓"),
        line(heads, "┃┃┃", header_style),
        rule("┡", "━", "╇", "┩"),
        *(line(row, "│││") for row in rows),
        rule("└", "─", "┴", "┘"),
    ]


def _rich_table(columns: Sequence[Column], widths: Sequence[int], header_style: str) -> Table:
    table = Table(header_style=header_style)
    for c, w in zip(columns, widths):
        table.add_column(
            c.header,
            justify="right" if c.numeric else "left",
            no_wrap=c.numeric,
            width=w,
            overflow="fold",
            style=c.style,
        )
    rows = len(columns[0].cells) if columns else 0
    for i in range(rows):
        table.add_row(*(_text(c.cells[i]) for c in columns))
    return table


_CONTROLS = {c: f"\\x{c:02x}" for c in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
_CONTROLS.update({ord("\n"): "\\n", ord("\r"): "\\r", ord("\t"): "\\t"})
_CONTROLS.update({0x2028: "\\u2028", 0x2029: "\\u2029"})  # line breaks to str.splitlines
# bidirectional overrides and marks: a name that reads backwards in a log ("Trojan Source")
_CONTROLS.update(
    {
        c: f"\\u{c:04x}"
        for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    }
)


def one_line(text: str) -> str:
    """``text`` on one line, control characters written out: names and messages come from
    benchmark files, and a line break in one would start a line of its own, which a CI
    runner reads for workflow commands (``::error::...``, ``::add-mask::``); an escape
    sequence would retitle or recolour the user's terminal."""
    return text.replace("\r\n", "\n").translate(_CONTROLS)


def _text(cell: str | Text) -> Text:
    """User text is never rich markup: ``test_sort[kind=list]`` stays as written, and on
    one line, its control characters written out."""
    if isinstance(cell, Text):
        return (
            cell if one_line(cell.plain) == cell.plain else Text(one_line(cell.plain), cell.style)
        )
    return Text(one_line(cell))


def _blocks(columns: Sequence[Column], width: int) -> Group:
    """Every row as ``first cell`` and then ``header: value`` lines."""
    rows = len(columns[0].cells) if columns else 0
    parts: list[RenderableType] = []
    for i in range(rows):
        head = columns[0].cells[i]
        parts += _folded(head if isinstance(head, Text) else Text(one_line(head), "bold"), width)
        for c in columns[1:]:
            value = c.cells[i]
            if _plain(value).strip() in _EMPTY:
                continue
            line = Text(f"  {c.header}: ")
            line.append(_text(value))
            parts += _folded(line, width)
    return Group(*parts)


def _folded(line: Text, width: int) -> list[Text]:
    """``line`` in pieces of at most ``width`` cells, each after the first led by "… ".

    A name folded by the terminal's width would start a line with its tail, and a CI
    runner reads a line that starts with "::" as a workflow command."""
    if one_line(line.plain) != line.plain:  # a line break inside: written \\n instead
        line = Text(one_line(line.plain), line.style)
    first, *rest = chop_cells(line.plain, max(width, 8)) or [""]
    tail = chop_cells(line.plain[len(first) :], max(width - 2, 6)) if rest else []
    cuts = [len(first)]
    for chunk in tail[:-1]:
        cuts.append(cuts[-1] + len(chunk))
    pieces = line.divide(cuts) if tail else [line]
    out = [pieces[0]] + [Text("… ").append_text(p) for p in pieces[1:]]
    for text in out:
        text.no_wrap, text.overflow = True, "crop"
    return out


def _plain(cell: str | Text) -> str:
    return cell.plain if isinstance(cell, Text) else str(cell)
