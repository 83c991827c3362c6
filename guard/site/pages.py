"""The site's pages as text: jinja2 templates (autoescaped) filled from ``SiteData``.

Renderers return text; ``build.py`` writes.  Kernel names, reasons and commit messages
are user text: jinja2 escapes them in HTML, ``svg.py`` escapes them in charts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import jinja2
import numpy as np
from markupsafe import Markup

from .. import numbers
from ..modeling.growth import exploding
from ..modeling.pmnf import Model
from ..reporting.summary import formula_text, shown_reasons
from ..templating import environment, template_text
from .data import KernelHistory, KernelRun, SiteData
from .svg import Curve, Dot, points_chart, sparkline, trend_chart

__all__ = ["CHARTED", "STYLESHEET", "render_site"]

CHARTED = 20  # newest runs of a kernel that get a chart of their points (all are in the table)
STYLESHEET = "site.css"
_CURVE_POINTS = 48


@dataclass(frozen=True)
class _Row:
    """One kernel on the index."""

    kernel: KernelHistory
    page: str
    spark: Markup
    predicted: str


@dataclass(frozen=True)
class _Chart:
    """One run's chart of measured points and models on a kernel page."""

    run: KernelRun
    anchor: str
    svg: Markup
    caption: str


def render_site(data: SiteData, title: str, generated: str) -> dict[str, str]:
    """Every file of the site (path relative to its root -> text)."""
    env = _environment()
    common = {"title": title, "data": data, "generated": generated}
    if data.empty:
        return {
            "index.html": env.get_template("site-empty.html.j2").render(root="", **common),
            STYLESHEET: _stylesheet(),
        }
    rows = [_index_row(k, data) for k in data.kernels]
    files = {
        "index.html": env.get_template("site-index.html.j2").render(root="", rows=rows, **common),
        STYLESHEET: _stylesheet(),
    }
    kernel_page = env.get_template("site-kernel.html.j2")
    for k in data.kernels:
        files[page_path(k)] = kernel_page.render(root="../", **_kernel_context(k, data), **common)
    return files


def page_path(kernel: KernelHistory) -> str:
    """Where a kernel's page lives, relative to the site's root."""
    return f"kernels/{kernel.slug}.html"


def _environment() -> jinja2.Environment:
    env = environment(
        autoescape=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["quantity"] = numbers.quantity
    return env


def _stylesheet() -> str:
    return template_text(STYLESHEET)


def _index_row(k: KernelHistory, data: SiteData) -> _Row:
    values = [r.predicted for r in k.runs]
    what = f"{k.kernel} ({k.metric}) predicted at {data.at_label}"
    spark = sparkline(values, f"spark-{k.slug}", what, _trend_sentence(k, data))
    return _Row(k, page_path(k), spark, numbers.quantity(k.latest.predicted, k.unit))


def _trend_sentence(k: KernelHistory, data: SiteData) -> str:
    """The sparkline's text alternative: first, newest and highest value, and the count."""
    known = [(r, r.predicted) for r in k.runs if r.predicted is not None]
    if not known:
        return f"No model of {k.kernel} in {len(k.runs)} runs, so nothing to predict."
    first, newest = known[0], known[-1]
    top = max(known, key=lambda pair: pair[1])
    return (
        f"{len(known)} runs, at {data.at_label}: {_q(first[1], k)} at {first[0].commit.short}, "
        f"{_q(newest[1], k)} at {newest[0].commit.short} (newest), highest "
        f"{_q(top[1], k)} at {top[0].commit.short}."
    )


def _q(value: float, k: KernelHistory) -> str:
    return numbers.quantity(value, k.unit)


def _kernel_context(k: KernelHistory, data: SiteData) -> dict[str, object]:
    labels = [r.commit.short for r in k.runs]
    trend = trend_chart(
        labels,
        [r.predicted for r in k.runs],
        k.unit,
        "trend",
        f"{k.kernel} ({k.metric}) predicted at {data.at_label}, per commit",
        _trend_sentence(k, data),
    )
    charted = k.runs[-CHARTED:]
    charts = [_run_chart(k, run) for run in reversed(charted)]
    changed = {c.run.commit.run_id for c in k.changes}
    return {
        "k": k,
        "trend": trend,
        "charts": charts,
        "charted": {c.run.commit.run_id for c in charts},
        "not_charted": len(k.runs) - len(charted),
        "timeline": list(reversed(k.runs)),
        "changed": changed,
        "reasons": {r.commit.run_id: _reasons(r) for r in k.runs},
    }


def _reasons(run: KernelRun) -> list[str]:
    return shown_reasons(run.verdict) if run.verdict is not None else []


def _run_chart(k: KernelHistory, run: KernelRun) -> _Chart:
    """The measured points of one run, its fitted model with a noise band, the baseline's."""
    parameter = _parameter(run)
    dots = [
        Dot(
            p.at[0],
            p.median,
            f"{numbers.at(parameter, p.at[0])}: median {_q(p.median, k)} "
            f"of {len(p.finite)} repetitions",
            low=min(p.finite, default=None),
            high=max(p.finite, default=None),
        )
        for p in run.points
    ]
    curves, notes = _curves(run, [p.at[0] for p in run.points])
    title = f"{k.kernel} at {run.commit.short}: {len(dots)} measured sizes"
    desc = "; ".join([f"{len(dots)} measured sizes of {parameter}", *notes])
    svg = points_chart(dots, curves, parameter, k.unit, f"run-{run.commit.run_id}-svg", title, desc)
    return _Chart(run, f"run-{run.commit.run_id}", svg, "; ".join(notes))


def _parameter(run: KernelRun) -> str:
    v = run.verdict
    return v.model.parameters[0] if v is not None and v.model is not None else "n"


def _curves(run: KernelRun, sizes: Sequence[float]) -> tuple[list[Curve], list[str]]:
    """The model's and the baseline's curves over the measured range, and sentences on them."""
    v = run.verdict
    positive = [s for s in sizes if s > 0]
    if v is None or v.model is None:
        return [], ["not modelled: no curve"]
    if len(v.model.parameters) != 1 or not positive:
        return [], [f"fitted {v.model.complexity()} over {len(v.model.parameters)} parameters"]
    if exploding(v.model):
        return [], [f"{v.model.complexity()}: {formula_text(v.model)}, no class describes it"]
    xs = np.geomspace(min(positive), max(positive), _CURVE_POINTS)
    ys = _on(v.model, xs)
    half = (v.model.noise or 0.0) / 2
    band = ((ys * (1 - half)).tolist(), (ys * (1 + half)).tolist()) if half > 0 else None
    curves = [Curve(xs.tolist(), ys.tolist(), "model", band)]
    notes = [f"fitted {v.model.complexity()}: {formula_text(v.model)}"]
    if half > 0:
        notes.append(f"band: ±{numbers.percent(half)} (half the noise)")
    base = v.baseline_model
    if base is not None and base.parameters == v.model.parameters:
        if not exploding(base):  # no curve for the least bad fit of an explosion
            curves.insert(0, Curve(xs.tolist(), _on(base, xs).tolist(), "baseline"))
        notes.append(f"baseline {base.complexity()}: {formula_text(base)}")
    return curves, notes


def _on(model: Model, xs: np.ndarray) -> np.ndarray:
    """A one-parameter model over ``xs`` (a constant model broadcast to their shape)."""
    values = np.asarray(model.evaluate({model.parameters[0]: xs}), dtype=float)
    return np.broadcast_to(values, xs.shape)
