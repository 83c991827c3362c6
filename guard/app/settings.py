"""Settings resolved once: the command line, then perfguard.yml, then ``defaults``.

The command line hands over what the user typed (``CheckFlags``, ``None`` where an option
was not given); everything below turns it into the options the core takes, and fails on
a malformed value before anything is read or measured.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..defaults import CONFIDENCE
from ..errors import UsageError

if TYPE_CHECKING:
    from ..checking.check import CheckOptions, ExpectationRule
    from ..config import Config

__all__ = [
    "CheckFlags",
    "check_options",
    "parse_point",
    "point_for",
    "parse_target",
    "expect_rule",
    "glob_rule",
]


@dataclass(frozen=True)
class CheckFlags:
    """What the command line said about a check; ``None`` means "not given"."""

    expect: Sequence[str] = ()
    modeler: str = "default"
    target: Sequence[str] = ()
    max_class: str | None = None
    max_slowdown: float | None = None
    confidence: float | None = None
    strict: bool = False


def check_options(cfg: Config | None, flags: CheckFlags) -> CheckOptions:
    """The options of a check; every rule is parsed here, so a typo fails before a run."""
    from ..checking.check import CheckOptions, ExpectationRule, parse_rules
    from ..config import expectation_rules

    section = cfg.check if cfg is not None else None
    rules = [expect_rule(text) for text in flags.expect]
    if cfg is not None:
        rules += [
            ExpectationRule(r.pattern, r.expectation, r.source, r.literal)
            for r in expectation_rules(cfg)
        ]
    targets = dict(section.target) if section is not None else {}
    given = dict(parse_target(t) for t in flags.target)
    # the config's target serves files of other parameters too; a flag's must be right
    optional = frozenset(targets) - frozenset(given)
    targets.update(given)
    max_class, source = flags.max_class, "--max-class"
    if max_class is None and cfg is not None and cfg.check.max_class is not None:
        max_class = cfg.check.max_class
        source = f"{cfg.path}:{cfg.check.max_class_line}: check.max_class"
    confidence = flags.confidence
    if confidence is None:
        confidence = section.confidence if section is not None else CONFIDENCE
    if not 0.5 < confidence < 1:
        raise UsageError(f"--confidence must lie between 0.5 and 1, got {confidence}")
    slowdown = flags.max_slowdown
    if slowdown is None and section is not None:
        slowdown = section.max_slowdown
    if slowdown is not None and not slowdown > 1:
        raise UsageError(f"--max-slowdown must be greater than 1, got {slowdown}")
    options = CheckOptions(
        rules=tuple(rules),
        max_class=max_class,
        max_class_source=source,
        confidence=confidence,
        strict=flags.strict or bool(section and section.strict),
        target=targets,
        optional_target=optional,
        target_source=f"{cfg.path}: check.target" if cfg is not None else "--target",
        max_slowdown=slowdown,
        modeler=flags.modeler,
    )
    measured = _measured_parameters(cfg)
    if measured is None:
        parse_rules(options)
    else:  # the config's own benchmarks: their bounds must be in their parameters, now
        parse_rules(options, measured, [b.name for b in cfg.benchmarks] if cfg else None)
    return options


def _measured_parameters(cfg: Config | None) -> tuple[str, ...] | None:
    """The parameters the config's benchmarks are measured over, where they share one set
    (a bound in another, ``<= n lgo n``, is then refused before anything is measured)."""
    if cfg is None or not cfg.benchmarks:
        return None
    sets = {tuple(b.parameters or cfg.parameters) for b in cfg.benchmarks}
    return sets.pop() if len(sets) == 1 and () not in sets else None


def expect_rule(text: str) -> ExpectationRule:
    """``GLOB=EXPR``; an expression alone (starting with <, = or ≤) applies to every kernel."""
    from ..checking.check import ExpectationRule

    if text.lstrip()[:1] in ("<", "=", "≤"):
        return ExpectationRule("*", text.strip(), "--expect")
    rule = _named_bound(text) or glob_rule(text)
    if rule is None:
        raise UsageError(f"--expect wants GLOB=EXPR such as 'sort*=<= n log n', got {text!r}")
    return ExpectationRule(*rule, f"--expect {text!r}")


# "<= n" inside what would be the name: the text is a malformed bound, not a glob; a name
# may hold a comparison without a space after it (pytest's ``test_x[k>=2]``)
_COMPARISON_IN_NAME = re.compile(r"[<>≤≥]=?\s")


def _named_bound(text: str) -> tuple[str, str] | None:
    """``GLOB=EXPR`` split at the first ``=`` after which a bound reads: a kernel's name may
    hold ``=`` itself (pytest's ``test_scan[n=5]``), and no bound starts with ``5]``. A name
    holds no comparison: ``halo=<= log p, <= n log n`` is a malformed bound, not a glob
    ``halo=<= log p, <`` bound by ``n log n``."""
    from ..checking.expectation import parse_expectation
    from ..errors import ExpectationError

    at = text.find("=")
    while at > 0:
        glob, expr = text[:at].strip(), text[at + 1 :].strip()
        if _COMPARISON_IN_NAME.search(glob):  # a bound's text, not a name: stop
            return None
        if glob.endswith(tuple("<>≤≥")):  # this = is part of <= or >=
            at = text.find("=", at + 1)
            continue
        if glob and expr:
            try:
                parse_expectation(expr)
            except ExpectationError:
                pass
            else:
                return glob, expr
        at = text.find("=", at + 1)
    return None


def glob_rule(text: str) -> tuple[str, str] | None:
    """``GLOB=EXPR`` (``--expect``, ``--analytical``) -> (glob, expression), stripped; None
    when either side is empty or there is no ``=``."""
    glob, sep, expr = text.partition("=")
    if not sep or not glob.strip() or not expr.strip():
        return None
    return glob.strip(), expr.strip()


def parse_target(text: str) -> tuple[str, float]:
    """``n=1e6`` -> ("n", 1e6)."""
    name, sep, value = text.partition("=")
    at = _positive(value)
    if not sep or not name.strip() or at is None:
        raise UsageError(f"--target wants NAME=SIZE such as n=1e6, got {text!r}")
    return name.strip(), at


def parse_point(text: str | None) -> dict[str | None, float] | None:
    """``--predict``'s ``4096``, ``n=4096`` or ``p=512,n=9000`` -> {name or None: size}."""
    if text is None:
        return None
    point: dict[str | None, float] = {}
    parts = text.split(",")
    for part in parts:
        name, _, value = part.rpartition("=")
        at = _positive(value)
        key = name.strip() or None
        if at is None or (key is None and len(parts) > 1):
            raise UsageError(
                f"--predict wants a positive size such as 4096, 2^12 or n=4096, or a point "
                f"such as p=512,n=9000, got {text!r}"
            )
        if key in point:
            raise UsageError(f"--predict names {key!r} twice in {text!r}")
        point[key] = at
    return point


def point_for(
    point: Mapping[str | None, float], parameters: Sequence[str], path: object
) -> float | dict[str, float]:
    """``--predict``'s point for an input of these parameters: the size (one parameter) or
    the point, every parameter named (several)."""
    if len(parameters) == 1:
        ((name, at),) = point.items() if len(point) == 1 else ((None, math.nan),)
        if len(point) == 1 and name in (None, parameters[0]):
            return at
        raise UsageError(
            f"--predict names {', '.join(str(k) for k in point)} but {path} has the one "
            f"parameter {parameters[0]}: give its size, e.g. --predict {parameters[0]}=4096"
        )
    if set(point) != set(parameters):
        example = ",".join(f"{q}=..." for q in parameters)
        raise UsageError(
            f"--predict: {path} has parameters {', '.join(parameters)}; name each of them, "
            f"e.g. --predict {example}"
        )
    return {q: point[q] for q in parameters}


def _positive(text: str) -> float | None:
    """A finite positive number (``1e6``, or a power as perfguard.yml writes sizes,
    ``2^20``), or None."""
    base, power, exponent = text.partition("^")
    try:
        value = float(base) ** float(exponent) if power else float(text)
    except (ValueError, OverflowError):
        return None
    return value if 0 < value < float("inf") else None
