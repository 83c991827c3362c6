"""Extra-P's JSON input, current and legacy.

Current: ``{"parameters": ["p", ...], "measurements": {callpath: {metric: [{"point": [...],
"values": [...]}]}}}``; a one-parameter ``point`` may be a bare number.

Legacy (recognised by its ``callpaths`` list): ``parameters``, ``callpaths``, ``metrics``
and ``coordinates`` are lists of objects with an ``id``; each coordinate has
``parameter_value_pairs`` of ``parameter_id`` / ``parameter_value``; each entry of
``measurements`` names ``coordinate_id``, ``callpath_id``, ``metric_id`` and one ``value``.
Parameters are ordered by id, as Extra-P does.

In both, values at the same kernel and point accumulate as repetitions; kernels and
points keep their first-seen order, and a metric without entries yields no kernel.
Errors name the offending JSON element (JSON gives no line numbers past decoding).
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..errors import FormatError
from ..measurements import Kernel, MeasurementSet
from . import Importer, register
from ._common import (
    KernelTable,
    build_set,
    decode_json,
    json_number,
    json_values,
    top_level_keys,
)

__all__: list[str] = []

_INTEGER = re.compile(r"\s*-?[0-9]+\s*")
_KINDS: dict[type, str] = {dict: "an object", list: "a list", str: "a string"}


def _sniff(text: str) -> bool:
    keys = top_level_keys(text)
    if "schema" in keys or "params" in keys or keys.get("parameters") == "{":
        return False
    return keys.get("parameters") == "[" or "measurements" in keys or "callpaths" in keys


def _field(obj: dict[str, Any], key: str, kind: type, where: str, path: str) -> Any:
    if key not in obj:
        raise FormatError(f"{where}: missing {key!r}", path)
    value = obj[key]
    if not isinstance(value, kind):
        raise FormatError(
            f"{where}.{key}: expected {_KINDS[kind]}, got {json.dumps(value)[:40]}", path
        )
    return value


def _object(value: Any, where: str, path: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise FormatError(f"{where}: expected an object, got {json.dumps(value)[:40]}", path)
    return value


def _name(value: Any, where: str, path: str) -> str:
    if not isinstance(value, str) or not value:
        raise FormatError(
            f"{where}: expected a non-empty string, got {json.dumps(value)[:40]}", path
        )
    return value


def _point(value: Any, size: int, where: str, path: str) -> tuple[float, ...]:
    coords = value if isinstance(value, list) else [value]
    if len(coords) != size:
        raise FormatError(f"{where}: has {len(coords)} coordinates, expected {size}", path)
    return tuple(
        json_number(c, f"{where}[{i}]", path, allow_null=False) for i, c in enumerate(coords)
    )


def _parse_current(doc: dict[str, Any], path: str) -> MeasurementSet:
    raw = _field(doc, "parameters", list, "document", path)
    names = [_name(p, f"parameters[{i}]", path) for i, p in enumerate(raw)]
    table = KernelTable()
    for callpath, metrics in _field(doc, "measurements", dict, "document", path).items():
        where = f"measurements[{json.dumps(callpath)}]"
        _name(callpath, where, path)
        for metric, entries in _object(metrics, where, path).items():
            mwhere = f"{where}[{json.dumps(metric)}]"
            _name(metric, mwhere, path)
            if not isinstance(entries, list):
                raise FormatError(f"{mwhere}: expected a list of {{point, values}} objects", path)
            for j, entry in enumerate(entries):
                ewhere = f"{mwhere}[{j}]"
                entry = _object(entry, ewhere, path)
                if "point" not in entry or "values" not in entry:
                    raise FormatError(f'{ewhere}: needs "point" and "values"', path)
                at = _point(entry["point"], len(names), f"{ewhere}.point", path)
                table.add(
                    (callpath, metric), at, json_values(entry["values"], f"{ewhere}.values", path)
                )
    return build_set(names, table.kernels(), path)


def _entity_id(value: Any, where: str, path: str) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and _INTEGER.fullmatch(value):
        return int(value)
    raise FormatError(f"{where}: expected an integer id, got {json.dumps(value)[:40]}", path)


def _entities(doc: dict[str, Any], key: str, path: str) -> dict[int, Any]:
    """Map id -> entry of a legacy entity list, ordered by id."""
    found: dict[int, Any] = {}
    for i, entry in enumerate(_field(doc, key, list, "document", path)):
        where = f"{key}[{i}]"
        entry = _object(entry, where, path)
        ident = _entity_id(entry.get("id"), f"{where}.id", path)
        if ident in found:
            raise FormatError(f"{where}.id: id {ident} is used twice in {key}", path)
        found[ident] = entry
    return dict(sorted(found.items()))


def _names(doc: dict[str, Any], key: str, path: str) -> dict[int, str]:
    entities = _entities(doc, key, path)
    return {i: _name(e.get("name"), f"{key} id {i}.name", path) for i, e in entities.items()}


def _legacy_value(value: Any, where: str, path: str, allow_null: bool = False) -> float:
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            raise FormatError(f"{where}: {value!r} is not a number", path) from None
    return json_number(value, where, path, allow_null=allow_null)


def _coordinate(
    entry: dict[str, Any], ident: int, order: list[int], path: str
) -> tuple[float, ...]:
    where = f"coordinates id {ident}"
    values: dict[int, float] = {}
    for j, pair in enumerate(_field(entry, "parameter_value_pairs", list, where, path)):
        pwhere = f"{where}.parameter_value_pairs[{j}]"
        pair = _object(pair, pwhere, path)
        pid = _entity_id(pair.get("parameter_id"), f"{pwhere}.parameter_id", path)
        values[pid] = _legacy_value(pair.get("parameter_value"), f"{pwhere}.parameter_value", path)
    if sorted(values) != order:
        raise FormatError(f"{where}: needs one value for each parameter id {order}", path)
    return tuple(values[p] for p in order)


def _lookup(table: dict[int, Any], entry: dict[str, Any], key: str, where: str, path: str) -> Any:
    ident = _entity_id(entry.get(key), f"{where}.{key}", path)
    if ident not in table:
        raise FormatError(f"{where}.{key}: no entry with id {ident}", path)
    return table[ident]


def _parse_legacy(doc: dict[str, Any], path: str) -> MeasurementSet:
    parameters = _names(doc, "parameters", path)
    callpaths = _names(doc, "callpaths", path)
    metrics = _names(doc, "metrics", path)
    order = list(parameters)
    coords = {
        i: _coordinate(e, i, order, path) for i, e in _entities(doc, "coordinates", path).items()
    }
    table = KernelTable()
    for i, entry in enumerate(_field(doc, "measurements", list, "document", path)):
        where = f"measurements[{i}]"
        entry = _object(entry, where, path)
        at = _lookup(coords, entry, "coordinate_id", where, path)
        key = (
            _lookup(callpaths, entry, "callpath_id", where, path),
            _lookup(metrics, entry, "metric_id", where, path),
        )
        if "value" not in entry:
            raise FormatError(f'{where}: missing "value"', path)
        table.add(
            key,
            at,
            [_legacy_value(v, f"{where}.value", path, True) for v in _listed(entry["value"])],
        )
    kernels = table.kernels()
    _every_coordinate_measured(kernels, coords, list(parameters.values()), path)
    return build_set(list(parameters.values()), kernels, path)


def _every_coordinate_measured(
    kernels: tuple[Kernel, ...], coords: dict[int, tuple[float, ...]], names: list[str], path: str
) -> None:
    """A declared coordinate some kernel has no measurement at makes the experiment
    incomplete, as Extra-P's validation says (its tests expect input_11.JSON refused): the
    point was meant to be measured, and a model of the others would hide that it was not."""
    for kernel in kernels:
        measured = {p.at for p in kernel.points}
        for ident, at in coords.items():
            if at not in measured:
                point = ", ".join(f"{n}={v:g}" for n, v in zip(names, at))
                raise FormatError(
                    f"coordinates id {ident} ({point}) has no measurement of callpath "
                    f"{kernel.name!r}, metric {kernel.metric!r}: a declared point must be "
                    "measured for every callpath and metric (Extra-P refuses the file too); "
                    "add its measurements or remove the coordinate",
                    path,
                )


def _listed(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _parse(text: str, path: str) -> MeasurementSet:
    doc = decode_json(text, path)
    doc = _object(doc, "document", path)
    return _parse_legacy(doc, path) if "callpaths" in doc else _parse_current(doc, path)


register(Importer("extrap-json", _sniff, _parse))
