"""Extra-P's line-oriented text input: ``PARAMETER``, ``POINTS``, ``METRIC``, ``REGION``, ``DATA``.

Reading rules, beyond Extra-P's own:

* Whole-line comments start with ``#``; blank lines are ignored.
* ``PARAMETER`` lines (one or several names each) must all come before the first ``POINTS``.
* ``POINTS`` lines accumulate. With one parameter, points are bare numbers or ``( 4 )``
  groups; with several, every point is a parenthesised group ``( 4 16 )``.
* ``METRIC`` and ``REGION`` each start a new block; the block's ``DATA`` lines map, in
  order, onto the declared points, one line per point: a block with fewer lines is
  refused, as Extra-P refuses it (a missing line would put every later value on the wrong
  point), and so is one running past the last point.
* Without a ``METRIC`` line the metric is ``time``; without ``REGION`` the call path is
  ``<root>``. A kernel exists once it has a ``DATA`` line, and its DATA lines must sit in
  one block.
* A ``DATA`` line without values is kept as a point without repetitions, which the
  modeler reports; NaN, infinite and negative values are kept as given, too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from ..errors import FormatError
from ..measurements import Kernel, MeasurementSet, Point
from . import Importer, register
from ._common import DEFAULT_CALLPATH, DEFAULT_METRIC, SNIFF_BYTES, build_set

__all__ = ["KEYWORDS", "dumps"]

KEYWORDS = ("PARAMETER", "POINTS", "METRIC", "REGION", "DATA")

_GROUPS = re.compile(r"(?:\s*\([^()]*\))+\s*")
_GROUP = re.compile(r"\(([^()]*)\)")


def _sniff(text: str) -> bool:
    for line in text[:SNIFF_BYTES].splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            return stripped.split(None, 1)[0] in KEYWORDS
    return False


class _Reader:
    """Parsing state while walking the file line by line."""

    def __init__(self, path: str):
        self.path = path
        self.line = 0
        self.parameters: list[str] = []
        self.points: list[tuple[float, ...]] = []
        self.metric = DEFAULT_METRIC
        self.region = DEFAULT_CALLPATH
        self.index = 0
        self.kernels: dict[tuple[str, str], list[Point]] = {}
        self.first_data: dict[tuple[str, str], int] = {}
        self.declared: int | None = None  # the line of a REGION no DATA has followed yet
        self.metric_line_at: int | None = None  # ... of a METRIC, before a REGION or DATA
        self.handlers: dict[str, Callable[[str], None]] = {
            "PARAMETER": self.parameter,
            "POINTS": self.points_line,
            "METRIC": self.metric_line,
            "REGION": self.region_line,
            "DATA": self.data,
        }

    def fail(self, message: str) -> FormatError:
        return FormatError(message, self.path, self.line)

    def feed(self, number: int, line: str) -> None:
        self.line = number
        keyword, *rest = line.split(None, 1)
        handler = self.handlers.get(keyword)
        if handler is None:
            raise self.fail(_unknown_keyword(keyword))
        handler(rest[0].strip() if rest else "")

    def number(self, token: str, what: str) -> float:
        try:
            return float(token)
        except ValueError:
            raise self.fail(f"{what} {token!r} is not a number") from None

    def parameter(self, rest: str) -> None:
        if self.points:
            raise self.fail(
                "PARAMETER after POINTS; declare every parameter before the first POINTS line"
            )
        if not rest:
            raise self.fail("PARAMETER needs a name, e.g. 'PARAMETER n'")
        for name in rest.split():
            if name in self.parameters:
                raise self.fail(f"parameter {name!r} is declared twice")
            self.parameters.append(name)

    def points_line(self, rest: str) -> None:
        if not self.parameters:
            raise self.fail("POINTS before any PARAMETER line; declare the parameters first")
        groups = self.groups(rest)
        if not groups:
            raise self.fail("POINTS lists no points, e.g. 'POINTS ( 4 ) ( 8 )'")
        for group in groups:
            if len(group) != len(self.parameters):
                raise self.fail(
                    f"POINTS ( {' '.join(group)} ) has {len(group)} coordinates, expected "
                    f"{len(self.parameters)} ({', '.join(self.parameters)})"
                )
            self.points.append(tuple(self.number(t, "POINTS coordinate") for t in group))

    def groups(self, rest: str) -> list[list[str]]:
        if "(" not in rest and ")" not in rest:
            if len(self.parameters) > 1 and rest:
                raise self.fail(
                    f"with {len(self.parameters)} parameters every point needs parentheses, "
                    f"e.g. 'POINTS ( {' '.join(['4'] * len(self.parameters))} )'"
                )
            return [[token] for token in rest.split()]
        if not _GROUPS.fullmatch(rest):
            raise self.fail(
                "POINTS has unbalanced or nested parentheses; write '( 4 16 ) ( 8 32 )'"
            )
        return [group.split() for group in _GROUP.findall(rest)]

    def metric_line(self, rest: str) -> None:
        if not rest:
            raise self.fail("METRIC needs a name, e.g. 'METRIC time'")
        self.metric_without_data()
        self.metric, self.index = rest, 0
        self.metric_line_at = self.line
        if self.declared is not None:  # REGION, then METRIC, then its DATA
            self.declared = self.line

    def region_line(self, rest: str) -> None:
        if not rest:
            raise self.fail("REGION needs a call path, e.g. 'REGION main'")
        self.without_data()
        self.metric_line_at = None
        self.region, self.index = rest, 0
        self.declared = self.line

    def metric_without_data(self) -> None:
        """A METRIC line followed by another METRIC or the end, no DATA between: nothing
        was measured for it (a REGION after it is the other order, METRIC then REGION)."""
        if self.metric_line_at is not None and self.points:
            raise FormatError(
                f"METRIC {self.metric!r} has no DATA lines; give one DATA line per point "
                "after it, or remove it (was the file cut short?)",
                self.path,
                self.metric_line_at,
            )

    def without_data(self) -> None:
        """The REGION declared last got no DATA line before the next REGION or the end."""
        if self.declared is not None and self.points:
            raise FormatError(
                f"region {self.region!r} metric {self.metric!r} has no DATA lines for its "
                f"{len(self.points)} POINTS; give one DATA line per point, or remove the "
                "REGION (was the file cut short?)",
                self.path,
                self.declared,
            )

    def data(self, rest: str) -> None:
        if not self.points:
            raise self.fail("DATA before any POINTS line; list the measurement points first")
        key = (self.region, self.metric)
        if self.index >= len(self.points):
            raise self.fail(
                f"too many DATA lines for region {key[0]!r} metric {key[1]!r}: only "
                f"{len(self.points)} POINTS are declared; add POINTS or remove this DATA line"
            )
        if self.index == 0 and key in self.kernels:
            raise self.fail(
                f"region {key[0]!r} metric {key[1]!r} already has DATA lines (line "
                f"{self.first_data[key]}); keep all of a kernel's DATA lines in one block"
            )
        self.declared = self.metric_line_at = None
        values = tuple(self.number(t, "DATA value") for t in rest.split())
        self.kernels.setdefault(key, []).append(Point(self.points[self.index], values))
        self.first_data.setdefault(key, self.line)
        self.index += 1

    def result(self) -> MeasurementSet:
        if not self.parameters:
            raise FormatError(
                "no PARAMETER line; start the file with e.g. 'PARAMETER n'", self.path
            )
        self.without_data()
        self.metric_without_data()
        for (region, metric), points in self.kernels.items():
            if len(points) < len(self.points):
                raise FormatError(
                    f"region {region!r} metric {metric!r} has {len(points)} DATA lines for "
                    f"{len(self.points)} POINTS; give one DATA line per point (a missing "
                    "line would put every value after it on the wrong point)",
                    self.path,
                    self.first_data[(region, metric)],
                )
        kernels = tuple(
            Kernel(name, metric, tuple(pts)) for (name, metric), pts in self.kernels.items()
        )
        return build_set(self.parameters, kernels, self.path, self.line or None)


def _unknown_keyword(keyword: str) -> str:
    hint = " (keywords are upper case)" if keyword.upper() in KEYWORDS else ""
    return f"unknown keyword {keyword!r}{hint}; expected one of {', '.join(KEYWORDS)}"


def _parse(text: str, path: str) -> MeasurementSet:
    reader = _Reader(path)
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            reader.feed(number, stripped)
    return reader.result()


def dumps(mset: MeasurementSet) -> str:
    """Serialise to Extra-P text; every kernel must have the same points in the same order."""
    points = _shared_points(mset)
    lines = ["PARAMETER " + " ".join(_parameter_name(p) for p in mset.parameters)]
    if points:
        lines.append("POINTS " + " ".join(f"( {_numbers(at)} )" for at in points))
    for kernel in mset.kernels:
        lines.append(f"METRIC {_line_name(kernel.metric, 'metric')}")
        lines.append(f"REGION {_line_name(kernel.name, 'kernel name')}")
        lines.extend(f"DATA {_numbers(p.values)}".rstrip() for p in kernel.points)
    return "\n".join(lines) + "\n"


def _shared_points(mset: MeasurementSet) -> tuple[tuple[float, ...], ...]:
    if not mset.kernels:
        return ()
    first = tuple(p.at for p in mset.kernels[0].points)
    for kernel in mset.kernels:
        if not kernel.points:
            raise ValueError(f"kernel {kernel.name!r} has no points; Extra-P text cannot hold it")
        if tuple(p.at for p in kernel.points) != first:
            raise ValueError(
                f"kernel {kernel.name!r} metric {kernel.metric!r} has other points than "
                f"{mset.kernels[0].name!r}; Extra-P text needs the same points for every kernel"
            )
    return first


def _parameter_name(name: str) -> str:
    if name.split() != [name] or "(" in name or ")" in name:
        raise ValueError(f"parameter name {name!r} must be one word without parentheses")
    return name


def _line_name(name: str, what: str) -> str:
    if name != name.strip() or len(name.splitlines()) != 1:
        raise ValueError(f"{what} {name!r} must fit on one line without surrounding spaces")
    return name


def _numbers(values: tuple[float, ...]) -> str:
    return " ".join(_number_text(v) for v in values)


def _number_text(value: float) -> str:
    if value.is_integer() and abs(value) < 2**53:
        return str(int(value))
    return repr(value)


register(Importer("extrap-text", _sniff, _parse))
