"""Extra-P's saved experiments (``.extra-p``): a zip archive holding ``experiment.json``.

The JSON names the ``parameters`` and holds ``measurements`` as ``{call path: {metric:
[{"coordinate": [...], "mean": m, "median": ..., "repetitions": k, "values": ...}]}}``.
``values`` is null unless Extra-P kept the raw values; then it is ``[chunk, index]``: the
index-th array of ``values/<chunk>.vals`` (``Extra-P VALUES`` and NumPy ``.npy`` arrays),
whose start offsets ``values/<chunk>.indx`` lists (``Extra-P INDEX``, a count, then one
little-endian uint64 per array). Numbers may be written as ``"nan"``, ``"inf"`` or a
fraction ``"1/3"``.

A point becomes its raw values when the file has them, else its one mean (the value
Extra-P models by default): the file keeps no repetitions then, and perfguard says so by
having one value. The models Extra-P saved are not read; perfguard makes its own.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
import zlib
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
from numpy.lib import format as npy

from ..errors import FormatError
from ..measurements import MeasurementSet
from ._common import KernelTable, build_set, decode_json
from .extrap_json import _name, _object

__all__ = ["ZIP_MAGIC", "load"]

ZIP_MAGIC = b"PK\x03\x04"
EXPERIMENT = "experiment.json"
_VALUES_MAGIC = b"Extra-P VALUES\0\0"
_INDEX_MAGIC = b"Extra-P INDEX\0\0\0"


MAX_UNPACKED = 2**29  # a zip's contents, uncompressed: a larger one is a bomb, not a study


def load(path: Path) -> MeasurementSet:
    """Read a ``.extra-p`` experiment; errors name the file and the JSON element."""
    return _load(path, str(path))


def load_bytes(data: bytes, where: str) -> MeasurementSet:
    """A ``.extra-p`` experiment read from ``data``; errors name ``where``."""
    return _load(io.BytesIO(data), where)


def _load(source: Path | io.BytesIO, where: str) -> MeasurementSet:
    try:
        with zipfile.ZipFile(source) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
            if unpacked > MAX_UNPACKED:
                raise FormatError(
                    f"unpacks to {unpacked / 2**30:.1f} GiB, more than the "
                    f"{MAX_UNPACKED / 2**20:g} MiB an Extra-P experiment is read up to",
                    where,
                )
            try:
                text = archive.read(EXPERIMENT).decode("utf-8")
            except KeyError:
                raise FormatError(
                    f"a zip archive without {EXPERIMENT}: not an Extra-P experiment", where
                ) from None
            doc = _object(decode_json(text, f"{where}!{EXPERIMENT}"), "document", where)
            return _experiment(doc, _Values(archive, where), where)
    except (zipfile.BadZipFile, UnicodeDecodeError, OSError, zlib.error, EOFError) as exc:
        raise FormatError(f"not a readable Extra-P experiment ({exc})", where) from None


def _experiment(doc: dict[str, Any], values: _Values, path: str) -> MeasurementSet:
    raw = doc.get("parameters")
    if not isinstance(raw, list) or not raw:
        raise FormatError('"parameters": expected a list of parameter names', path)
    names = [_name(p, f"parameters[{i}]", path) for i, p in enumerate(raw)]
    measurements = _object(doc.get("measurements"), "measurements", path)
    table = KernelTable()
    for callpath, metrics in measurements.items():
        cwhere = f"measurements[{json.dumps(callpath)}]"
        for metric, entries in _object(metrics, cwhere, path).items():
            mwhere = f"{cwhere}[{json.dumps(metric)}]"
            if not isinstance(entries, list):
                raise FormatError(f"{mwhere}: expected a list of measurements", path)
            for j, entry in enumerate(entries):
                ewhere = f"{mwhere}[{j}]"
                entry = _object(entry, ewhere, path)
                at = _coordinate(entry.get("coordinate"), len(names), ewhere, path)
                table.add((callpath, metric), at, values.of(entry, ewhere))
    return build_set(names, table.kernels(), path)


def _coordinate(value: Any, size: int, where: str, path: str) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != size:
        raise FormatError(f"{where}.coordinate: expected a list of {size} numbers", path)
    return tuple(_number(v, f"{where}.coordinate[{i}]", path) for i, v in enumerate(value))


def _number(value: Any, where: str, path: str) -> float:
    """A number as Extra-P writes one: a JSON number, "nan", "inf", "-inf" or "1/3"."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(Fraction(value)) if "/" in value else float(value)
        except (ValueError, ZeroDivisionError):
            pass
    raise FormatError(f"{where}: expected a number, got {json.dumps(value)[:40]}", path)


class _Values:
    """The raw values Extra-P kept, read from the archive's value chunks on demand."""

    def __init__(self, archive: zipfile.ZipFile, path: str):
        self.archive = archive
        self.path = path
        self.offsets: dict[int, tuple[int, ...]] = {}
        self.chunks: dict[int, bytes] = {}

    def of(self, entry: dict[str, Any], where: str) -> list[float]:
        ref = entry.get("values")
        if ref is None:
            if "mean" not in entry:
                raise FormatError(f'{where}: no "values" and no "mean"', self.path)
            return [_number(entry["mean"], f"{where}.mean", self.path)]
        if (
            not isinstance(ref, list)
            or len(ref) != 2
            or not all(isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in ref)
        ):
            raise FormatError(f"{where}.values: expected [chunk, index] or null", self.path)
        return self.read(ref[0], ref[1], f"{where}.values")

    def read(self, chunk: int, index: int, where: str) -> list[float]:
        offsets = self._offsets(chunk, where)
        if index >= len(offsets):
            raise FormatError(f"{where}: chunk {chunk} holds {len(offsets)} arrays", self.path)
        stream = io.BytesIO(self.chunks[chunk])
        stream.seek(offsets[index])
        try:
            array = npy.read_array(stream, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise FormatError(f"{where}: unreadable value array ({exc})", self.path) from None
        return [float(v) for v in np.asarray(array, dtype=float).ravel()]

    def _offsets(self, chunk: int, where: str) -> tuple[int, ...]:
        if chunk not in self.offsets:
            index = self._member(f"values/{chunk}.indx", _INDEX_MAGIC, where)
            values = self._member(f"values/{chunk}.vals", _VALUES_MAGIC, where)
            (count,) = struct.unpack_from("<Q", index, len(_INDEX_MAGIC))
            start = len(_INDEX_MAGIC) + 8
            if len(index) < start + 8 * count:
                raise FormatError(f"values/{chunk}.indx: cut short", self.path)
            self.offsets[chunk] = struct.unpack_from(f"<{count}Q", index, start)
            self.chunks[chunk] = values
        return self.offsets[chunk]

    def _member(self, name: str, magic: bytes, where: str) -> bytes:
        try:
            data = self.archive.read(name)
        except KeyError:
            raise FormatError(f"{where}: the archive has no {name}", self.path) from None
        if not data.startswith(magic):
            raise FormatError(f"{name}: does not start with {magic!r}", self.path)
        return data
