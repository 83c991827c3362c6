"""perfguard's own ``perfguard/measurements@1`` JSON."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from ..atomic import write_atomic
from ..errors import FormatError
from ..measurements import SCHEMA, Kernel, MeasurementSet, Point, RunError, RunInfo
from . import Importer, register
from ._common import decode_json, plain_numbers, shown

__all__ = ["dumps", "loads_json", "save"]


def dumps(mset: MeasurementSet) -> str:
    """Serialise to measurements@1 text (stable key order, no NaN literals)."""
    return json.dumps(mset.to_json(), indent=1, allow_nan=False) + "\n"


def save(mset: MeasurementSet, path: str | Path) -> None:
    """Write measurements@1 atomically: readers see the old file or the new one, never half
    (a symlink is written through, a pipe written into: see ``write_atomic``)."""
    write_atomic(path, dumps(mset))


def sniff(text: str) -> bool:
    """A JSON object naming a measurements@ schema anywhere: another tool may write the keys
    sorted (``kernels`` first) or the slash escaped, and a wrong version is best named by
    the reader ("expected measurements@1, got @2") than by "cannot tell the format"."""
    return text.lstrip().startswith("{") and any(
        tag in text for tag in ("perfguard/measurements@", "perfguard\\/measurements@")
    )


class _Reader:
    def __init__(self, path: str):
        self.path = path

    def fail(self, where: str, message: str) -> FormatError:
        return FormatError(f"{where}: {message}", self.path)

    def obj(self, value: Any, where: str) -> dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(where, f"expected an object, got {shown(value)}")
        return value

    def arr(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {shown(value)}")
        return value

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str) or not value:
            raise self.fail(where, "expected a non-empty string")
        return value

    def number(self, value: Any, where: str, allow_null: bool = False) -> float:
        if value is None and allow_null:
            return math.nan
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a number, got {json.dumps(value)}")
        try:
            return float(value)
        except OverflowError:
            digits = str(value)
            raise self.fail(
                where, f"number {digits[:20]}... ({len(digits)} digits) is too large"
            ) from None


def loads_json(doc: Any, path: str) -> MeasurementSet:
    """Build a MeasurementSet from a decoded measurements@1 document."""
    r = _Reader(path)
    doc = r.obj(doc, "document")
    if doc.get("schema") != SCHEMA:
        raise r.fail("schema", f"expected {SCHEMA!r}, got {doc.get('schema')!r}")
    params = [
        r.text(p, f"parameters[{i}]")
        for i, p in enumerate(r.arr(doc.get("parameters"), "parameters"))
    ]
    run = _run_info(r, r.obj(doc.get("run", {}), "run"))
    kernels = []
    for k, kdoc in enumerate(r.arr(doc.get("kernels"), "kernels")):
        where = f"kernels[{k}]"
        kdoc = r.obj(kdoc, where)
        points = []
        for j, pdoc in enumerate(r.arr(kdoc.get("points"), f"{where}.points")):
            pw = f"{where}.points[{j}]"
            pdoc = r.obj(pdoc, pw)
            at = r.obj(pdoc.get("at"), f"{pw}.at")
            missing = [p for p in params if p not in at]
            extra = [p for p in at if p not in params]
            if missing or extra:
                raise r.fail(f"{pw}.at", f"coordinates must name exactly {params}")
            coords = tuple(r.number(at[p], f"{pw}.at.{p}") for p in params)
            points.append(Point(coords, _values(r, pdoc.get("values"), f"{pw}.values")))
        unit = kdoc.get("unit")
        try:
            kernels.append(
                Kernel(
                    name=r.text(kdoc.get("name"), f"{where}.name"),
                    metric=r.text(kdoc.get("metric", "time"), f"{where}.metric"),
                    unit=unit if isinstance(unit, str) else None,
                    points=tuple(points),
                )
            )
        except ValueError as exc:
            raise r.fail(where, str(exc)) from None
    try:
        return MeasurementSet(tuple(params), tuple(kernels), run)
    except ValueError as exc:
        raise FormatError(str(exc), path) from None


def _values(r: _Reader, value: Any, where: str) -> tuple[float, ...]:
    """A point's repetitions; null is NaN (a failed repetition)."""
    items = r.arr(value, where)
    fast = plain_numbers(items)
    if fast is not None:
        return tuple(fast)
    return tuple(r.number(v, f"{where}[{i}]", allow_null=True) for i, v in enumerate(items))


def _run_info(r: _Reader, run_doc: dict[str, Any]) -> RunInfo:
    machine = r.obj(run_doc.get("machine", {}), "run.machine")
    dirty = run_doc.get("dirty")
    errors = []
    for i, edoc in enumerate(r.arr(run_doc.get("errors", []), "run.errors")):
        where = f"run.errors[{i}]"
        edoc = r.obj(edoc, where)
        at = edoc.get("at")
        errors.append(
            RunError(
                benchmark=r.text(edoc.get("benchmark"), f"{where}.benchmark"),
                kind=r.text(edoc.get("kind"), f"{where}.kind"),
                message=r.text(edoc.get("message"), f"{where}.message"),
                at=None
                if at is None
                else {
                    k: r.number(v, f"{where}.at.{k}") for k, v in r.obj(at, f"{where}.at").items()
                },
            )
        )
    for key in ("commit", "branch", "started"):
        if not isinstance(run_doc.get(key), (str, type(None))):
            raise r.fail(f"run.{key}", f"expected a string, got {json.dumps(run_doc[key])}")
    try:  # it is written back as read (merge): JSON has no NaN to write
        json.dumps(machine, allow_nan=False)
    except ValueError:
        raise r.fail("run.machine", "expected finite numbers, found NaN or Infinity") from None
    return RunInfo(
        commit=run_doc.get("commit"),
        branch=run_doc.get("branch"),
        started=run_doc.get("started"),
        machine=machine,
        dirty=dirty if isinstance(dirty, bool) else None,
        errors=tuple(errors),
        interrupted=run_doc.get("interrupted") is True,
        round_speed=tuple(
            r.number(v, f"run.round_speed[{i}]")
            for i, v in enumerate(r.arr(run_doc.get("round_speed", []), "run.round_speed"))
        ),
    )


def _parse(text: str, path: str) -> MeasurementSet:
    doc = decode_json(text, path)
    return loads_json(doc, path)


register(Importer("perfguard", sniff, _parse))
