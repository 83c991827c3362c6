"""Charts as plain inline SVG: no script, no chart library, no request.

Why not a charting library: the site must open the same from GitHub Pages, from a
downloaded Actions artifact and from ``file://`` on a laptop.  A CDN is a request (and a
third party) every reader makes; a vendored library is a pinned blob to keep patched;
and browsers block many scripts on ``file://``.  The charts needed here -- dots, lines
and bands on log axes -- are a few hundred lines of SVG, styled by the page's CSS (so
dark mode applies), and each carries ``<title>``/``<desc>`` text for screen readers.

Every function returns ``markupsafe.Markup``; every piece of user text is escaped here.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from markupsafe import Markup, escape

from .. import numbers

__all__ = ["Axis", "Curve", "Dot", "sparkline", "trend_chart", "points_chart"]


@dataclass(frozen=True)
class Axis:
    """Maps values in [lo, hi] (log or linear) to pixels in [start, end]."""

    lo: float
    hi: float
    start: float
    end: float
    log: bool = True

    @classmethod
    def fit(cls, values: Sequence[float], start: float, end: float, pad: float = 0.05) -> Axis:
        """An axis over the finite values, log when all are positive, with a little room."""
        v = np.asarray(values, dtype=float)
        v = v[np.isfinite(v)]
        if not v.size:
            v = np.ones(1)
        log = bool(v.min() > 0)
        f = np.log10(v) if log else v
        lo, hi = float(f.min()), float(f.max())
        span = hi - lo or (0.5 if log else max(abs(hi), 1.0) * 0.5)
        lo, hi = lo - pad * span, hi + pad * span
        if not log or hi - lo >= 0.2:
            return cls(lo, hi, start, end, log)
        middle = (lo + hi) / 2  # a flat series: a tenth of a decade each side
        return cls(middle - 0.1, middle + 0.1, start, end, log)

    def __call__(self, value: float) -> float:
        v = math.log10(value) if self.log else value
        return self.start + (v - self.lo) / (self.hi - self.lo) * (self.end - self.start)

    def many(self, values: Sequence[float]) -> np.ndarray:
        """``self(v)`` for every value at once (NaN where a log axis gets v <= 0)."""
        v = np.asarray(values, dtype=float)
        if self.log:
            with np.errstate(divide="ignore", invalid="ignore"):
                v = np.where(v > 0, np.log10(np.where(v > 0, v, 1.0)), np.nan)
        return self.start + (v - self.lo) / (self.hi - self.lo) * (self.end - self.start)

    def ticks(self, most: int = 6) -> list[float]:
        """Round values inside the axis: decades (then 2 and 5 between) on a log axis."""
        if not self.log:
            step = _nice_step((self.hi - self.lo) / most)
            first = math.ceil(self.lo / step)
            return [k * step for k in range(first, math.floor(self.hi / step) + 1)]
        low, high = math.floor(self.lo), math.ceil(self.hi)
        for mantissas in ((1,), (1, 2, 5), (1, 2, 3, 5, 7)):
            found = [
                m * 10.0**k
                for k in range(low, high + 1)
                for m in mantissas
                if self.lo <= math.log10(m * 10.0**k) <= self.hi
            ]
            if len(found) >= 2:
                return _thin(found, most)
        return [10 ** ((self.lo + self.hi) / 2)]


@dataclass(frozen=True)
class Dot:
    """A plotted value with the text a pointer or a screen reader gets."""

    x: float
    y: float
    label: str
    low: float | None = None  # a whisker from low to high (the spread of repetitions)
    high: float | None = None
    css: str = "point"


@dataclass(frozen=True)
class Curve:
    """A line through (x, y); with ``band``, a shaded area from band[0] to band[1]."""

    xs: Sequence[float]
    ys: Sequence[float]
    css: str
    band: tuple[Sequence[float], Sequence[float]] | None = None


def sparkline(values: Sequence[float | None], ident: str, title: str, desc: str) -> Markup:
    """A small line of one value per commit, a dot on each, the newest one marked."""
    width, height, pad = 120.0, 28.0, 3.0
    known = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    y = Axis.fit([v for _, v in known], height - pad, pad)
    step = (width - 2 * pad) / max(len(values) - 1, 1)
    xy = [(pad + i * step, y(v)) for i, v in known]
    parts = [_polyline(xy, "spark")]
    for k, (px, py) in enumerate(xy):
        css = "dot newest" if k == len(xy) - 1 else "dot"
        parts.append(f'<circle class="{css}" cx="{px:.1f}" cy="{py:.1f}" r="1.6"/>')
    return _svg(width, height, ident, title, desc, parts, css="sparkline")


def trend_chart(
    labels: Sequence[str],
    values: Sequence[float | None],
    unit: str | None,
    ident: str,
    title: str,
    desc: str,
) -> Markup:
    """One dot per commit (oldest left) on a log value axis, joined by a line."""
    width, height = 640.0, 220.0
    left, right, top, bottom = 64.0, 12.0, 12.0, 40.0
    known = [(i, v) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    y = Axis.fit([v for _, v in known], height - bottom, top)
    x = Axis(0, max(len(values) - 1, 1), left, width - right, log=False)
    parts = _y_grid(y, left, width - right, unit)
    for i in _label_indices(len(labels), 7):
        anchor = "end" if i == len(labels) - 1 and i else "start" if i == 0 else "middle"
        parts.append(_text(x(i), height - bottom + 16, labels[i], "tick", anchor=anchor))
    parts.append(_polyline([(x(i), y(v)) for i, v in known], "trend"))
    for i, v in known:
        tip = f"{labels[i]}: {_value(v, unit)}"
        dot = f'<circle class="dot" cx="{x(i):.1f}" cy="{y(v):.1f}" r="3.2">'
        parts.append(f"{dot}<title>{escape(tip)}</title></circle>")
    return _svg(width, height, ident, title, desc, parts)


def points_chart(
    dots: Sequence[Dot],
    curves: Sequence[Curve],
    x_name: str,
    unit: str | None,
    ident: str,
    title: str,
    desc: str,
) -> Markup:
    """Measured points (with the spread of their repetitions) and model curves, log-log."""
    width, height = 640.0, 300.0
    left, right, top, bottom = 64.0, 12.0, 12.0, 44.0
    xs = [d.x for d in dots] + [v for c in curves for v in c.xs]
    ys = [d.y for d in dots] + [v for d in dots for v in (d.low, d.high) if v is not None]
    ys += [v for c in curves for v in c.ys]
    x = Axis.fit(xs, left, width - right, pad=0.03)
    y = Axis.fit(ys, height - bottom, top)
    parts = _y_grid(y, left, width - right, unit)
    sizes = sorted({d.x for d in dots if d.x > 0 or not x.log})
    for i in _label_indices(len(sizes), 7):
        label = numbers.size(sizes[i], True)
        parts.append(_text(x(sizes[i]), height - bottom + 16, label, "tick", "middle"))
    parts.append(_text((left + width - right) / 2, height - 6, x_name, "axis-name", "middle"))
    for curve in curves:
        parts += _curve(curve, x, y)
    for d in dots:
        parts += _dot(d, x, y)
    return _svg(width, height, ident, title, desc, parts)


# ---------------------------------------------------------------------------- pieces


def _svg(
    width: float,
    height: float,
    ident: str,
    title: str,
    desc: str,
    parts: list[str],
    css: str = "chart",
) -> Markup:
    """The ``<svg>`` element; ``ident`` (unique in the page) names its title and desc."""
    head = (
        f'<svg class="{css}" viewBox="0 0 {width:g} {height:g}" role="img" '
        f'aria-labelledby="{ident}-t {ident}-d" xmlns="http://www.w3.org/2000/svg">'
        f'<title id="{ident}-t">{escape(title)}</title><desc id="{ident}-d">{escape(desc)}</desc>'
    )
    return Markup(head + "".join(parts) + "</svg>")


def _y_grid(y: Axis, x0: float, x1: float, unit: str | None) -> list[str]:
    parts = []
    for tick in y.ticks(5):
        py = y(tick)
        parts.append(f'<line class="grid" x1="{x0:g}" x2="{x1:g}" y1="{py:.1f}" y2="{py:.1f}"/>')
        parts.append(_text(x0 - 6, py + 4, _value(tick, unit), "tick", anchor="end"))
    return parts


def _curve(curve: Curve, x: Axis, y: Axis) -> list[str]:
    parts = []
    px = x.many(curve.xs)
    if curve.band is not None:
        upper = _pairs(px, y.many(curve.band[1]))
        lower = _pairs(px, y.many(curve.band[0]))
        if upper and lower:
            ring = " ".join(upper + lower[::-1])
            parts.append(f'<polygon class="band {curve.css}" points="{ring}"/>')
    line = _pairs(px, y.many(curve.ys))
    if len(line) > 1:
        parts.append(f'<polyline class="curve {curve.css}" points="{" ".join(line)}"/>')
    return parts


def _pairs(px: np.ndarray, py: np.ndarray) -> list[str]:
    """``x,y`` texts of the finite pixel pairs."""
    keep = np.isfinite(px) & np.isfinite(py)
    return [f"{a:.1f},{b:.1f}" for a, b in zip(px[keep].tolist(), py[keep].tolist())]


def _dot(d: Dot, x: Axis, y: Axis) -> list[str]:
    if not _plottable(d.x, d.y, x, y):
        return []
    px, py = x(d.x), y(d.y)
    parts = []
    if d.low is not None and d.high is not None and _plottable(d.x, d.low, x, y):
        if _plottable(d.x, d.high, x, y):
            parts.append(
                f'<line class="spread" x1="{px:.1f}" x2="{px:.1f}" '
                f'y1="{y(d.low):.1f}" y2="{y(d.high):.1f}"/>'
            )
    parts.append(
        f'<circle class="{d.css}" cx="{px:.1f}" cy="{py:.1f}" r="3.5">'
        f"<title>{escape(d.label)}</title></circle>"
    )
    return parts


def _plottable(a: float, b: float, x: Axis, y: Axis) -> bool:
    ok = math.isfinite(a) and math.isfinite(b)
    return ok and (not x.log or a > 0) and (not y.log or b > 0)


def _polyline(xy: Sequence[tuple[float, float]], css: str) -> str:
    if len(xy) < 2:
        return ""
    points = " ".join(f"{px:.1f},{py:.1f}" for px, py in xy)
    return f'<polyline class="{css}" points="{points}"/>'


def _text(px: float, py: float, text: str, css: str, anchor: str = "start") -> str:
    return (
        f'<text class="{css}" x="{px:.1f}" y="{py:.1f}" text-anchor="{anchor}">'
        f"{escape(text)}</text>"
    )


def _value(v: float, unit: str | None) -> str:
    return numbers.quantity(v, unit)


def _label_indices(count: int, most: int) -> list[int]:
    """Evenly spread indices of at most ``most`` labels, always the first and the last."""
    if count <= most:
        return list(range(count))
    every = math.ceil((count - 1) / (most - 1))
    inner = list(range(0, count - 1, every))
    if count - 1 - inner[-1] < every / 2:  # too close to the last label: drop it
        inner.pop()
    return inner + [count - 1]


def _nice_step(raw: float) -> float:
    if raw <= 0 or not math.isfinite(raw):
        return 1.0
    base = 10 ** math.floor(math.log10(raw))
    return next(m * base for m in (1, 2, 5, 10) if m * base >= raw)


def _thin(values: list[float], most: int) -> list[float]:
    if len(values) <= most:
        return values
    every = math.ceil(len(values) / most)
    return values[::every]
