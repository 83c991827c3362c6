"""Terminal rendering of ``perfguard predict``: a summary line and a table per kernel."""

from __future__ import annotations

from collections.abc import Sequence

from rich.table import Table

from .. import numbers
from ..modeling.predict import PredictionRow, Predictor
from .charts import scale_values
from .tables import one_line

__all__ = ["model_summary", "predictions_table"]


def model_summary(predictor: Predictor) -> str:
    """What was trained and how well each part did in cross-validation on the training set."""
    model = predictor.model
    name = one_line(predictor.kernel)
    lines = [f"{name} ({predictor.metric}): {model.training_size} configurations"]
    cv = model.cv_mape
    if predictor.analytical is None:
        lines.append("model: extra trees alone (no analytical model)")
        lines.append(f"cross-validated error: {cv['extra trees']:.1f}%")
        return "\n  ".join(lines)
    if model.weight == 0:
        bagging = "not bagged with it (not representative here)"
    else:
        bagging = f"bagged with it at weight {model.weight:.1f}"
    lines.append(f"model: extra trees stacked on the analytical model, {bagging}")
    lines.append(
        f"cross-validated error: analytical {cv['analytical']:.1f}%, "
        f"stacked {cv['stacked']:.1f}%, hybrid {cv['hybrid']:.1f}%"
    )
    dep = predictor.departure
    if dep is not None:
        lines.append(
            f"the measurements depart from the calibrated analytical model by {dep.mape:.1f}% "
            f"on average (measured / model {min(dep.ratios):.2f} .. {max(dep.ratios):.2f})"
        )
    return "\n  ".join(lines)


def predictions_table(predictor: Predictor, rows: Sequence[PredictionRow]) -> Table:
    """One row per requested configuration: prediction, 5-95% spread, analytical model."""
    values = [r["high"] for r in rows]
    factor, unit = scale_values(values, predictor.unit)
    suffix = f" ({unit})" if unit else ""
    table = Table(title=one_line(predictor.kernel), title_justify="left")
    for p in predictor.parameters:
        table.add_column(p, justify="right")
    table.add_column(f"predicted{suffix}", justify="right")
    table.add_column("spread 5-95%", justify="right")
    if predictor.analytical is not None:
        table.add_column(f"analytical{suffix}", justify="right")
    for row in rows:
        at = row["at"]
        outside = row["outside_measured"]
        cells = [numbers.size(at[p]) + ("*" if p in outside else "") for p in predictor.parameters]
        cells.append(_num(row["value"], factor))
        cells.append(f"{_num(row['low'], factor)} .. {_num(row['high'], factor)}")
        if predictor.analytical is not None:
            cells.append(_num(row["analytical"], factor))
        table.add_row(*cells)
    if any(row.get("outside_measured") for row in rows):
        table.caption = "* beyond the measured range: the trees cannot extrapolate there" + (
            "; compare the analytical column" if predictor.analytical is not None else ""
        )
        table.caption_justify = "left"
    return table


def _num(value: float | None, factor: float) -> str:
    return f"{float(value) / factor:.3g}" if value is not None else "-"
