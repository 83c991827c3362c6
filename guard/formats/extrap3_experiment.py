"""Extra-P 3's binary experiments (Extra-P 4 opens them with ``--extra-p-3``).

The file is a stream of records without lengths, so every record is parsed, even those
perfguard does not use (model generators, saved models). Layout, in the byte order the
file's first two bytes announce (a 16-bit 1):

* a *string* is a uint32 length and that many UTF-8 bytes; an integer or id is 64-bit
  signed; a number is a 64-bit float;
* the string ``EXTRAP_EXPERIMENT``, a version string, then records, each a type-name
  string followed by its fields, until the end of the file:

  ``Parameter`` id, name · ``Metric`` id, name, unit (metrics are numbered in order) ·
  ``Region`` id, name, source file, line (a name seen before under another id becomes
  ``name #k``, as Extra-P names it) · ``Callpath`` id, region id, parent id (-1: a root;
  the path is ``parent->region``) · ``Coordinate`` id, count, then per parameter its name
  and value · ``ModelComment`` id, text · ``ExperimentPoint`` coordinate id, sample count,
  mean, mean CI low/high, sd, median, median CI low/high, min, max, metric, call path ·
  model generators and ``Model`` records (see :meth:`_Reader.generator`, :meth:`_Reader.model`).

A point is its mean, one value (the file keeps no repetitions: the value Extra-P models
by default). The models Extra-P 3 saved are skipped; perfguard makes its own.
"""

from __future__ import annotations

import builtins
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..errors import FormatError
from ..measurements import MeasurementSet
from ._common import KernelTable, build_set

__all__ = ["MAGIC", "is_extrap3", "load"]

MAGIC = b"EXTRAP_EXPERIMENT"
_STRATEGIES = (
    {"FIRST_POINTS_FOUND", "MAX_NUMBER_POINTS", "CHEAPEST_POINTS"},
    {"INCREASING_COST", "DECREASING_COST"},
)


def is_extrap3(head: bytes) -> bool:
    """Whether the first bytes of a file are an Extra-P 3 experiment's."""
    return head[6 : 6 + len(MAGIC)] == MAGIC and head[:2] in (b"\x01\x00", b"\x00\x01")


def load(path: Path) -> MeasurementSet:
    """Read an Extra-P 3 experiment; errors name the file and the byte where reading failed."""
    where = str(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FormatError(exc.strerror or str(exc), where) from None
    return load_bytes(data, where)


def load_bytes(data: bytes, where: str) -> MeasurementSet:
    """An Extra-P 3 experiment read from ``data``; errors name ``where``."""
    return _Reader(data, where).experiment()


class _Reader:
    def __init__(self, data: bytes, path: str):
        self.data = data
        self.path = path
        self.pos = 2
        self.order = "<" if data[:2] == b"\x01\x00" else ">"
        self.parameters: list[str] = []
        self.metrics: list[str] = []
        self.regions: dict[int, str] = {}
        self.region_names: dict[str, int] = {}
        self.callpaths: dict[int, str] = {}
        self.coordinates: dict[int, tuple[float, ...]] = {}
        self.table = KernelTable()
        self.sparse = False  # generators with the newer options: models carry one more number

    # --- primitives -------------------------------------------------------------------

    def unpack(self, pattern: str) -> tuple[Any, ...]:
        fmt = struct.Struct(self.order + pattern)
        if self.pos + fmt.size > len(self.data):
            raise self.error("the file ends inside a record")
        values = fmt.unpack_from(self.data, self.pos)
        self.pos += fmt.size
        return values

    def int(self) -> int:
        return self.unpack("q")[0]

    def number(self) -> float:
        return self.unpack("d")[0]

    def string(self) -> str:
        (size,) = self.unpack("I")
        if self.pos + size > len(self.data):
            raise self.error("the file ends inside a string")
        raw = self.data[self.pos : self.pos + size]
        self.pos += size
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise self.error("a string that is not UTF-8") from None

    def error(self, message: str) -> FormatError:
        return FormatError(f"byte {self.pos}: {message}", self.path)

    # --- records ----------------------------------------------------------------------

    def experiment(self) -> MeasurementSet:
        if not is_extrap3(self.data[:32]) or self.string() != MAGIC.decode():
            raise FormatError("not an Extra-P 3 experiment", self.path)
        self.string()  # version
        records: dict[str, Callable[[], None]] = {
            "Parameter": self.parameter,
            "Metric": self.metric,
            "Region": self.region,
            "Callpath": self.callpath,
            "Coordinate": self.coordinate,
            "ModelComment": lambda: (self.int(), self.string()) and None,
            "ExperimentPoint": self.point,
            "SingleParameterSimpleModelGenerator": lambda: self.generator(single=True, terms=True),
            "SingleParameterRefiningModelGenerator": lambda: self.generator(single=True),
            "MultiParameterSimpleModelGenerator": lambda: self.generator(single=False),
            "MultiParameterSparseModelGenerator": lambda: self.generator(single=False),
            "Model": self.model,
        }
        while self.pos < len(self.data):
            start = self.pos
            kind = self.string()
            if kind not in records:
                self.pos = start
                raise self.error(f"unknown record {kind[:40]!r}")
            records[kind]()
        if not self.parameters:
            raise FormatError("an Extra-P 3 experiment without parameters", self.path)
        return build_set(self.parameters, self.table.kernels(), self.path)

    def parameter(self) -> None:
        self.int()
        self.parameters.append(self.string())

    def metric(self) -> None:
        self.int()
        self.metrics.append(self.string())
        self.string()  # unit

    def region(self) -> None:
        rid, name = self.int(), self.string()
        self.string()  # source file
        self.int()  # line
        if rid not in self.regions and name in self.region_names:
            self.region_names[name] += 1
            name = f"{name} #{self.region_names[name]}"
        else:
            self.region_names[name] = 0
        self.regions[rid] = name

    def callpath(self) -> None:
        cid, region, parent = self.int(), self.int(), self.int()
        if region not in self.regions or (parent != -1 and parent not in self.callpaths):
            raise self.error(f"call path {cid} names an unknown region or parent")
        name = self.regions[region]
        self.callpaths[cid] = name if parent == -1 else f"{self.callpaths[parent]}->{name}"

    def coordinate(self) -> None:
        cid, count = self.int(), self.int()
        values: dict[str, float] = {}
        for _ in range(count):
            name = self.string()
            values[name] = self.number()
        if sorted(values) != sorted(self.parameters):
            raise self.error(f"coordinate {cid} names {sorted(values)}, not {self.parameters}")
        self.coordinates[cid] = tuple(values[p] for p in self.parameters)

    def point(self) -> None:
        fields = self.unpack("qqdddddddddqq")
        coordinate, mean, metric, callpath = fields[0], fields[2], fields[11], fields[12]
        if coordinate not in self.coordinates or callpath not in self.callpaths:
            raise self.error("a point names an unknown coordinate or call path")
        if not 0 <= metric < len(self.metrics):
            raise self.error(f"a point names metric {metric}, the file has {len(self.metrics)}")
        key = (self.callpaths[callpath], self.metrics[metric])
        self.table.add(key, self.coordinates[coordinate], [mean])

    def generator(self, single: bool, terms: bool = False) -> None:
        """A model generator: its name and options, skipped.

        Single-parameter ones hold a cross-validation method and an epsilon before the
        mean/median option; then newer files add a strategy block (minimum points, a
        single-parameter strategy, two integers, a multi-parameter strategy), recognised
        by its strategy names and absent otherwise. The "simple" single-parameter
        generator ends with its building blocks (compound terms) and a maximum term count.
        """
        self.string()  # user name
        if single:
            self.string()  # cross-validation method
            self.number()  # epsilon
        self.string()  # mean or median
        start = self.pos
        try:
            self.int()
            first = self.string()
            self.int(), self.int()
            second = self.string()
            known = first in _STRATEGIES[0] and second in _STRATEGIES[1]
        except FormatError:
            known = False
        if known:
            self.sparse = True
        else:
            self.pos = start
        if terms:
            for _ in range(self.count()):
                self.expect("CompoundTerm")
                self.compound_term()
            self.int()  # maximum term count

    def model(self) -> None:
        """A saved model: metric, call path, generator, its function, three intervals of
        two functions each, RSS, adjusted R², SMAPE (and RE from sparse-capable files),
        comment ids, and per parameter a list of (start, end) intervals; skipped."""
        self.int(), self.int(), self.int()
        self.function(self.string())
        for _ in range(6):
            self.function(self.string())
        self.unpack("dddd" if self.sparse else "ddd")
        for _ in range(self.count()):
            self.int()
        for _ in range(self.count()):
            self.string()
            for _ in range(self.count()):
                self.unpack("dd")

    def function(self, kind: str) -> None:
        if kind == "SingleParameterFunction":
            self.number()
            for _ in range(self.count()):
                self.expect("CompoundTerm")
                self.compound_term()
        elif kind == "MultiParameterFunction":
            self.number()
            for _ in range(self.count()):
                self.number()
                for _ in range(self.count()):
                    self.string()  # parameter
                    self.expect("CompoundTerm")
                    self.compound_term()
        elif kind == "CompoundTerm":
            self.compound_term()
        elif kind == "SimpleTerm":
            self.string(), self.number()
        elif kind != "Function":
            raise self.error(f"unknown function {kind[:40]!r}")

    def compound_term(self) -> None:
        self.number()
        for _ in range(self.count()):
            self.expect("SimpleTerm")
            self.string(), self.number()

    def count(self) -> builtins.int:  # the method int() shadows the type in this class
        n = self.int()
        if not 0 <= n <= len(self.data):
            raise self.error(f"a count of {n}")
        return n

    def expect(self, kind: str) -> None:
        found = self.string()
        if found != kind:
            raise self.error(f"expected {kind}, found {found[:40]!r}")
