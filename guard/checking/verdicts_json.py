"""Reading ``verdicts@1`` (and the ``models@1`` entries inside it) back, validated.

The fork-safe comment workflow receives a check's verdicts as an artifact written by a pull
request's own workflow run, so the document is untrusted input: every field is checked for
its type and the document is rebuilt into the typed report, which the markdown renderer
escapes like any other -- nothing in the artifact reaches the comment verbatim.  Errors
name the key path (``kernels[3].reasons[0].message``).
"""

from __future__ import annotations

import math
import sys
from collections.abc import Mapping
from fractions import Fraction
from pathlib import Path
from typing import Any

from ..defaults import CONFIDENCE
from ..errors import FormatError
from ..formats._common import decode_json, lone_surrogate, shown
from ..modeling.pmnf import Factor, Model, Term
from .verdicts import SCHEMA, CheckReport, Reason, Verdict, VerdictName

__all__ = ["load_report", "read_report", "read_verdict"]

_VERDICTS: tuple[VerdictName, ...] = ("pass", "fail", "inconclusive", "error")
_MAX_TEXT = 10_000  # characters in any one string field
_MAX_KERNELS = 100_000


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path

    def fail(self, where: str, problem: str) -> FormatError:
        return FormatError(f"{where}: {problem}", self.path)

    def obj(self, value: Any, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"expected an object, got {shown(value)}")
        return value

    def arr(self, value: Any, where: str, limit: int = _MAX_KERNELS) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, f"expected a list, got {shown(value)}")
        if len(value) > limit:
            raise self.fail(where, f"{len(value)} entries; at most {limit}")
        return value

    def text(self, value: Any, where: str, optional: bool = False) -> str | None:
        if value is None and optional:
            return None
        if not isinstance(value, str):
            raise self.fail(where, f"expected a string, got {shown(value)}")
        if len(value) > _MAX_TEXT:
            raise self.fail(where, f"{len(value)} characters; at most {_MAX_TEXT}")
        bad = lone_surrogate(value)
        if bad is not None:
            raise self.fail(where, f"holds {bad}, a lone surrogate, not text")
        return value

    def number(self, value: Any, where: str, optional: bool = False) -> float | None:
        if value is None and optional:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(where, f"expected a number, got {shown(value)}")
        try:
            number = float(value)
        except OverflowError:
            number = math.inf  # an integer of hundreds of digits
        if not math.isfinite(number):
            raise self.fail(where, "expected a finite number")
        return number

    def flag(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(where, f"expected true or false, got {shown(value)}")
        return value

    def fraction(self, value: Any, where: str) -> Fraction:
        text = self.text(value, where) or ""
        try:
            out = Fraction(text)
        except (ValueError, ZeroDivisionError):
            problem = f"expected an exact exponent such as 3/2, got {text!r}"
            raise self.fail(where, problem) from None
        if abs(out) > 100 or out.denominator > 1000:
            raise self.fail(where, f"exponent {text} is out of range")
        return out


def load_report(path: Path) -> CheckReport:
    """A saved ``verdicts@1`` file (``perfguard check --json``), validated."""
    try:  # "-": standard input (perfguard check --json | perfguard report -)
        text = sys.stdin.read() if str(path) == "-" else path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise FormatError("not UTF-8 text: expected perfguard/verdicts@1 JSON", str(path)) from None
    except OSError as exc:
        raise FormatError(f"cannot read: {exc.strerror or exc}", str(path)) from None
    return read_report(decode_json(text, str(path)), str(path))


def read_report(doc: Any, path: str) -> CheckReport:
    """A validated ``verdicts@1`` document as a CheckReport; FormatError naming the key."""
    r = _Reader(path)
    doc = r.obj(doc, "document")
    if doc.get("schema") != SCHEMA:
        raise r.fail("schema", f"expected {SCHEMA!r}")
    kernels = r.arr(doc.get("kernels"), "kernels")
    verdicts = tuple(_verdict(r, entry, f"kernels[{i}]") for i, entry in enumerate(kernels))
    target = r.obj(doc.get("target", {}), "target")
    notes = r.arr(doc.get("notes", []), "notes", limit=1000)
    not_run = r.arr(doc.get("not_run", []), "not_run")
    return CheckReport(
        verdicts=verdicts,
        strict=r.flag(doc.get("strict", False), "strict"),
        confidence=r.number(doc.get("confidence", CONFIDENCE), "confidence") or CONFIDENCE,
        target={
            (r.text(k, "target") or ""): r.number(v, f"target.{k}") or 0.0
            for k, v in target.items()
        },
        notes=tuple(r.text(n, f"notes[{i}]") or "" for i, n in enumerate(notes)),
        not_run=tuple(r.text(n, f"not_run[{i}]") or "" for i, n in enumerate(not_run)),
    )


def read_verdict(entry: Any, path: str, where: str = "entry") -> Verdict:
    """One validated verdicts@1 kernel entry with its models rebuilt; FormatError names the key."""
    return _verdict(_Reader(path), entry, where)


def _verdict(r: _Reader, entry: Any, where: str) -> Verdict:
    e = r.obj(entry, where)
    kind = r.text(e.get("verdict"), f"{where}.verdict")
    verdict = next((name for name in _VERDICTS if name == kind), None)
    if verdict is None:
        raise r.fail(f"{where}.verdict", f"expected one of {', '.join(_VERDICTS)}")
    reasons = r.arr(e.get("reasons", []), f"{where}.reasons", limit=100)
    probabilities = r.obj(e.get("probabilities", {}), f"{where}.probabilities")
    rank = e.get("rank")
    if rank is not None and (isinstance(rank, bool) or not isinstance(rank, int)):
        raise r.fail(f"{where}.rank", "expected an integer")
    return Verdict(
        kernel=r.text(e.get("kernel"), f"{where}.kernel") or "",
        metric=r.text(e.get("metric"), f"{where}.metric") or "",
        verdict=verdict,
        expectation=r.text(e.get("expectation"), f"{where}.expectation", optional=True),
        violates_expectation=r.flag(e.get("violates_expectation", False), f"{where}.violates"),
        regression=r.flag(e.get("regression", False), f"{where}.regression"),
        reasons=tuple(_reason(r, x, f"{where}.reasons[{i}]") for i, x in enumerate(reasons)),
        model=_model(r, e.get("model"), f"{where}.model"),
        baseline_model=_model(r, e.get("baseline_model"), f"{where}.baseline_model"),
        probabilities={
            (r.text(k, f"{where}.probabilities") or ""): r.number(v, f"{where}.probabilities.{k}")
            or 0.0
            for k, v in probabilities.items()
        },
        rank=rank,
        predicted=r.number(e.get("predicted_at_target"), f"{where}.predicted", optional=True),
        change=r.number(e.get("change_at_target"), f"{where}.change", optional=True),
    )


def _reason(r: _Reader, entry: Any, where: str) -> Reason:
    e = r.obj(entry, where)
    kind = r.text(e.get("kind"), f"{where}.kind") or ""
    return Reason(kind, r.text(e.get("message"), f"{where}.message") or "")


def _model(r: _Reader, entry: Any, where: str) -> Model | None:
    if entry is None:
        return None
    e = r.obj(entry, where)
    parameters = tuple(
        r.text(p, f"{where}.parameters[{i}]") or ""
        for i, p in enumerate(r.arr(e.get("parameters"), f"{where}.parameters", limit=20))
    )
    terms = []
    for i, t in enumerate(r.arr(e.get("terms", []), f"{where}.terms", limit=20)):
        tw = f"{where}.terms[{i}]"
        term = r.obj(t, tw)
        factors = tuple(
            Factor(
                r.text(r.obj(f, f"{tw}.factors[{j}]").get("parameter"), f"{tw}.parameter") or "",
                r.fraction(f.get("exponent", "0"), f"{tw}.factors[{j}].exponent"),
                r.fraction(f.get("log_exponent", "0"), f"{tw}.factors[{j}].log_exponent"),
            )
            for j, f in enumerate(r.arr(term.get("factors"), f"{tw}.factors", limit=20))
        )
        terms.append(Term(r.number(term.get("coefficient"), f"{tw}.coefficient") or 0.0, factors))
    # Of the added models@1 fields only the marks that change what a class reads as are read
    # back (exponential-like, falling, the tool's own class), rebuilt from checked values;
    # the rest (confidence, noise detail, ...) the report does not render.
    return Model(
        kernel=r.text(e.get("kernel"), f"{where}.kernel") or "",
        metric=r.text(e.get("metric"), f"{where}.metric") or "",
        parameters=parameters,
        constant=r.number(e.get("constant"), f"{where}.constant") or 0.0,
        terms=tuple(terms),
        smape=r.number(e.get("smape", 0.0), f"{where}.smape") or 0.0,
        noise=r.number(e.get("noise"), f"{where}.noise", optional=True),
        extras=_marks(r, e, where),
    )


def _marks(r: _Reader, e: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The marks of a models@1 entry that change what its class reads as, checked."""
    readers = {"growth": _growth, "falls": _falls, "reported_complexity": _reported}
    return {
        key: read(r, r.obj(e[key], f"{where}.{key}"), f"{where}.{key}")
        for key, read in readers.items()
        if e.get(key) is not None
    }


def _growth(r: _Reader, g: Mapping[str, Any], where: str) -> dict[str, Any]:
    kind = r.text(g.get("kind"), f"{where}.kind")
    if kind != "exponential-like":
        raise r.fail(f"{where}.kind", f"expected exponential-like, got {kind!r}")
    steps = r.obj(g.get("step"), f"{where}.step")
    if len(steps) != 1:
        raise r.fail(f"{where}.step", "expected one parameter")
    ((name, span),) = steps.items()
    sw = f"{where}.step.{r.text(name, f'{where}.step')}"
    if len(r.arr(span, sw, limit=2)) != 2:
        raise r.fail(sw, "expected [from, to]")
    return {
        "kind": kind,
        "probability": r.number(g.get("probability"), f"{where}.probability"),
        "factor_per_step": r.number(g.get("factor_per_step"), f"{where}.factor_per_step"),
        "step": {name: [r.number(v, f"{sw}[{i}]") for i, v in enumerate(span)]},
    }


def _falls(r: _Reader, f: Mapping[str, Any], where: str) -> dict[str, Any]:
    return {
        "parameter": r.text(f.get("parameter"), f"{where}.parameter"),
        **{k: r.number(f.get(k), f"{where}.{k}") for k in ("factor", "from", "to")},
    }


def _reported(r: _Reader, c: Mapping[str, Any], where: str) -> dict[str, Any]:
    return {
        **{k: r.text(c.get(k), f"{where}.{k}") for k in ("tool", "big_o", "complexity")},
        **{
            k: r.number(c.get(k), f"{where}.{k}", optional=True)
            for k in ("coefficient", "rms")
            if c.get(k) is not None
        },
    }
