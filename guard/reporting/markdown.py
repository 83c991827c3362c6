"""The markdown report of a check: the pull-request comment and the job summary.

Rendered from ``templates/report.md.j2``. Autoescaping is off because the output is
markdown, not HTML: every user-provided string (kernel and metric names, expectations,
reasons, notes, commands) goes through an explicit filter instead — ``md`` in text and
table cells, ``html`` inside raw HTML (``<summary>``), ``fence`` for code blocks; chart
labels are cleaned by ``charts.label``.
"""

from __future__ import annotations

import functools
import html
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import jinja2
import numpy as np

from .. import numbers
from ..checking.verdicts import CheckReport, Verdict
from ..measurements import Kernel, MeasurementSet
from ..modeling.growth import misfit_model
from ..templating import environment
from . import charts
from .summary import by_verdict, counts_sentence, formula_text, reported_class

__all__ = ["GITHUB_LIMIT", "escape", "escape_html", "fence", "render_markdown", "render_report"]

GITHUB_LIMIT = 65_536  # characters in an issue or pull-request comment
ICONS = {"pass": "✅", "fail": "❌", "inconclusive": "⚠️", "error": "💥"}
_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~$"})  # $: GitHub's math
_ZWSP = "&#8203;"  # breaks what GitHub would turn into a mention, issue link or URL
_LINKISH = re.compile(r"(@|#(?=\d)|:(?=//)|(?<![\w.])www(?=\.)|(?<!\w)GH-(?=\d))", re.IGNORECASE)
_TRUNCATED = (
    "report truncated: {what} (GitHub comments hold {limit:,} characters); "
    "see the job summary / artifact"
)


# control characters other than line breaks and tabs: an escape sequence in a name is noise
# in a comment, and a terminal that shows the raw file would act on it
# ... and the bidirectional overrides and marks, which can make a name read backwards
# ("Trojan Source"): shown in a pull request they would disguise what a kernel is called
_BIDI = (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
_CONTROLS = dict.fromkeys(
    (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), 0x7F, *range(0x80, 0xA0), *_BIDI)
)


def escape(text: str) -> str:
    """User text safe in markdown text and table cells: no HTML, markup, links, mentions."""
    marked = html.escape(text.translate(_CONTROLS), quote=False).translate(_SPECIAL)
    return _unlink(marked).replace("\r", "").replace("\n", " ")


def escape_html(text: str) -> str:
    """User text safe inside raw HTML (``<summary>``), where markdown is not parsed."""
    plain = html.escape(text.translate(_CONTROLS), quote=True)
    return _unlink(plain).replace("\r", "").replace("\n", " ")


def fence(text: str, language: str = "") -> str:
    """A fenced code block that ``text`` cannot close (its fence outruns any backtick run)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{language}\n{text.rstrip()}\n{ticks}"


def render_markdown(report: CheckReport) -> str:
    """The report without measurements (no charts): what ``perfguard check --markdown`` wrote."""
    return render_report(report)


def render_report(
    report: CheckReport,
    current: MeasurementSet | None = None,
    baseline: MeasurementSet | None = None,
    *,
    reproduce: str | None = None,
    title: str = "perfguard",
    limit: int = 65_000,
    facts: Mapping[tuple[str, str], Sequence[str]] | None = None,
) -> str:
    """Status line, verdict table, per-kernel details with charts, notes; at most ``limit`` chars.

    The table and the details list failures first, then errors, inconclusive and passes
    (the report's order within each). Over the limit, the details of passing kernels go
    first, then the others', then table rows from the bottom (passes first) -- keeping the
    failures' details while every failing row still fits; a note says what was left out.
    ``facts`` adds lines to a kernel's details, keyed by (kernel, metric):
    ``app.departures`` computes them.
    """
    now, before = _index(current), _index(baseline)
    axis = current.parameters[0] if current is not None and len(current.parameters) == 1 else None
    ordered = by_verdict(report.verdicts)  # a long table shows its failures at the top
    rows = [_row(v, now.get((v.kernel, v.metric))) for v in ordered]
    extra = facts or {}
    details = [
        _details(v, now.get(key), before.get(key), axis, reproduce, extra.get(key, ()))
        for v in ordered
        for key in [(v.kernel, v.metric)]
    ]
    page = _Page(report, title, rows, details, limit)
    return page.fitted()


# ---------------------------------------------------------------------------- view


@dataclass(frozen=True)
class _Row:
    kernel: str
    metric: str
    expected: str | None
    formula: str | None
    complexity: str | None
    verdict: str
    change: str
    predicted: str | None
    unit: str | None
    rank: int | None


@dataclass(frozen=True)
class _Details:
    kernel: str
    metric: str
    verdict: str
    reasons: tuple[tuple[str, str], ...]
    facts: tuple[str, ...]
    chart: str | None
    legend: str | None
    reproduce: str | None


def _row(v: Verdict, kernel: Kernel | None) -> _Row:
    own = None if v.model is None else v.model.complexity()
    base = None if v.baseline_model is None else v.baseline_model.complexity()
    complexity = own
    if v.model is not None and misfit_model(v.model):
        complexity = f"{own} (misfit)"
    if own is not None and base is not None and base != own:
        complexity = f"{complexity} (baseline {base})"
    tool = reported_class(v.model)
    if complexity is not None and tool is not None:
        complexity = f"{complexity} ({tool})"
    return _Row(
        kernel=v.kernel,
        metric=v.metric,
        expected=v.expectation,
        formula=None if v.model is None else formula_text(v.model),
        complexity=complexity,
        verdict=v.verdict,
        change=_change(v.change),
        predicted=_predicted(v.predicted),
        unit=None if kernel is None else kernel.unit,
        rank=v.rank,
    )


def _change(change: float | None) -> str:
    if change is None or not math.isfinite(change):
        return "-"
    return numbers.factor(change)  # as the terminal writes it


def _predicted(value: float | None) -> str | None:
    return None if value is None or not math.isfinite(value) else numbers.compact(value)


def _details(
    v: Verdict,
    kernel: Kernel | None,
    base_kernel: Kernel | None,
    axis: str | None,
    reproduce: str | None,
    extra: Sequence[str] = (),
) -> _Details:
    chart, legend = _chart(v, kernel, base_kernel, axis) if axis else (None, None)
    facts = _facts(v, kernel) + list(extra)
    return _Details(
        kernel=v.kernel,
        metric=v.metric,
        verdict=v.verdict,
        reasons=tuple((r.kind, r.message) for r in v.reasons),
        facts=tuple(facts),
        chart=chart,
        legend=legend,
        reproduce=reproduce,
    )


def _facts(v: Verdict, kernel: Kernel | None) -> list[str]:
    """Model, baseline model, noise and repetitions, as short lines (no user text)."""
    out = []
    if v.model is not None:
        out.append(f"model: {formula_text(v.model)} (SMAPE {v.model.smape:.1f}%)")
    if v.baseline_model is not None:
        out.append(f"baseline model: {formula_text(v.baseline_model)}")
    if v.model is not None and v.model.noise is not None and math.isfinite(v.model.noise):
        out.append(
            f"repetitions spread: {v.model.noise:.1%} of their value (largest minus smallest)"
        )
    if kernel is not None and kernel.points:
        counts = [len(p.values) for p in kernel.points]
        low, high = min(counts), max(counts)
        span = f"{low}" if low == high else f"{low}–{high}"
        points = "1 point" if len(counts) == 1 else f"{len(counts)} points"
        out.append(f"repetitions: {span} per point, {points}")
    return out


def _chart(
    v: Verdict, kernel: Kernel | None, base_kernel: Kernel | None, axis: str
) -> tuple[str | None, str | None]:
    """Medians (bars), the model and the baseline's medians (lines) along ``axis``."""
    if kernel is None:
        return None, None
    sizes, medians = _medians(kernel)
    measured = len(sizes)
    keep = charts.pick_points(measured)
    if len(keep) < 2:
        return None, None
    sizes, series = [sizes[i] for i in keep], {"measured medians": [medians[i] for i in keep]}
    if v.model is not None and not v.model.extra("growth"):  # no line for a fit of nothing
        at = {axis: np.array(sizes)}
        series["model"] = [float(y) for y in np.broadcast_to(v.model.evaluate(at), len(sizes))]
    if base_kernel is not None:
        base_sizes, base_medians = _medians(base_kernel)
        lookup = dict(zip(base_sizes, base_medians))
        if all(s in lookup for s in sizes):
            series["baseline medians"] = [lookup[s] for s in sizes]
    values = [y for ys in series.values() for y in ys]
    if not all(math.isfinite(y) for y in values):
        return None, None
    factor, unit = charts.scale_values(values, kernel.unit)
    scaled = {name: [y / factor for y in ys] for name, ys in series.items()}
    bars = ("measured medians",)
    block = charts.xychart(
        f"{v.kernel} ({v.metric})",
        [charts.compact_number(s) for s in sizes],
        scaled,
        x_label=axis,
        y_label=f"{v.metric} ({unit})" if unit else v.metric,
        bars=bars,
    )
    shown = charts.legend(list(scaled), bars)
    stride = charts.stride_of(measured)
    if stride > 1:  # say the chart skips sizes: the text may name one it does not show
        shown += f" · 1 size in {stride} shown ({measured} measured)"
    return block, shown


def _medians(kernel: Kernel) -> tuple[list[float], list[float]]:
    """Sizes in increasing order and the median of each point's repetitions."""
    points = sorted((p for p in kernel.points if p.values), key=lambda p: p.at)
    return [p.at[0] for p in points], [float(np.median(p.values)) for p in points]


def _index(mset: MeasurementSet | None) -> dict[tuple[str, str], Kernel]:
    """Kernels by (name, metric); empty without a measurement set."""
    return {} if mset is None else {k.key: k for k in mset.kernels}


def _unlink(text: str) -> str:
    """A zero-width space after ``@``, before ``//`` in ``://``, ... so nothing becomes a link."""
    return _LINKISH.sub(lambda m: m.group(0) + _ZWSP, text)


# ---------------------------------------------------------------------------- page


@functools.lru_cache(maxsize=1)
def _template() -> jinja2.Template:
    env = environment(
        autoescape=False,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(md=escape, html=escape_html, fence=fence)
    return env.get_template("report.md.j2")


class _Page:
    """The report's parts, and what to leave out to fit ``limit`` characters."""

    def __init__(
        self,
        report: CheckReport,
        title: str,
        rows: list[_Row],
        details: list[_Details],
        limit: int,
    ) -> None:
        self.report, self.title, self.limit = report, title, limit
        self.rows, self.details = rows, details
        self._module: jinja2.environment.TemplateModule | None = None

    def render(self, rows: Sequence[_Row], details: Sequence[_Details], note: str = "") -> str:
        """The template with these rows and details, and a truncation note if any."""
        text = _template().render(self._context(rows, details, note))
        return text.rstrip("\n") + "\n"

    def fitted(self) -> str:
        """Everything if it fits; else fewer details (passing kernels' first), then fewer rows."""
        text = self.render(self.rows, self.details)
        if len(text) <= self.limit:
            return text
        sizes = [len(self._macro("kernel_details", d)) for d in self.details]
        kept = self._fit(sizes, lambda k: self.render(self.rows, self.details[:k], self._note(k)))
        if kept > 0 or len(self.render(self.rows, (), self._note(0))) <= self.limit:
            return self.render(self.rows, self.details[:kept], self._note(kept))
        # rows are in verdict order already: keep the leading ones, with the failures' details
        # while every failing row still fits beside them
        sizes = [len(self._macro("table_row", row)) for row in self.rows]
        failing = sum(row.verdict == "fail" for row in self.rows)
        for details in (failing, 0):

            def with_rows(k: int, d: int = details) -> str:
                return self.render(self.rows[:k], self.details[:d], self._note(d, k))

            kept = self._fit(sizes, with_rows)
            if kept >= failing:
                break
        text = with_rows(kept)
        return text if len(text) <= self.limit else _cut(text, self.limit, self._note(0, kept))

    def _fit(self, sizes: list[int], render: Callable[[int], str]) -> int:
        """The most leading parts (of these sizes) that fit: estimated once, then checked."""
        room = self.limit - len(render(0))
        kept, used = 0, 0
        while kept < len(sizes) and used + sizes[kept] <= room:
            used += sizes[kept]
            kept += 1
        while kept > 0:
            excess = len(render(kept)) - self.limit
            if excess <= 0:
                break
            while kept > 0 and excess > 0:  # drop enough parts to cover the overshoot
                kept -= 1
                excess -= sizes[kept]
        return kept

    def _macro(self, name: str, item: object) -> str:
        """One table row or one kernel's details, rendered by the template's macro."""
        if self._module is None:
            self._module = _template().make_module(self._context((), (), ""))
        return str(getattr(self._module, name)(item))

    def _context(
        self, rows: Sequence[_Row], details: Sequence[_Details], note: str
    ) -> dict[str, object]:
        return {
            "title": self.title,
            "icon": ICONS[self.report.status],
            "status": self.report.status,
            "counts": counts_sentence(self.report),
            "target": ", ".join(numbers.at(k, v) for k, v in sorted(self.report.target.items())),
            "rows": rows,
            # a check without a baseline has no change to show: no column of dashes
            "compared": any(
                v.baseline_model is not None or v.change is not None for v in self.report.verdicts
            ),
            "details": details,
            "icons": ICONS,
            "notes": self.report.notes,
            "truncation": [note] if note else [],
        }

    def _note(self, details_kept: int, rows_kept: int | None = None) -> str:
        """``report truncated: ...`` for what is left out."""
        what = f"{len(self.details) - details_kept} kernels' details"
        if rows_kept is not None:
            omitted = len(self.rows) - rows_kept
            what += f" and {omitted} of {len(self.rows)} table rows (failures kept first)"
        return _TRUNCATED.format(what=what + " omitted", limit=GITHUB_LIMIT)


def _cut(text: str, limit: int, note: str) -> str:
    """Last resort (the report's own notes are too long): whole lines, then the note."""
    tail = f"\n…\n\n- note: {escape(note)}\n"
    head = text[: max(0, limit - len(tail))]
    return head[: head.rfind("\n") + 1].rstrip("\n") + tail
