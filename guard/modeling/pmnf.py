"""PMNF terms, functions and models: exact rational exponents, evaluation, rendering, models@1."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, TypeVar

import numpy as np

from .result import CONSTANT_ORDER

__all__ = [
    "MODELS_SCHEMA",
    "Factor",
    "Term",
    "Model",
    "fraction_text",
    "parse_fraction",
]

MODELS_SCHEMA = "perfguard/models@1"

_T = TypeVar("_T")


def fraction_text(value: Fraction) -> str:
    """Exact exponent as text: ``"3/2"``, ``"0"``, ``"2"``."""
    return str(Fraction(value))


def parse_fraction(text: str) -> Fraction:
    """Inverse of :func:`fraction_text`; raises ValueError on anything else."""
    return Fraction(text)


def _decimal_or_fraction(value: Fraction) -> str:
    # Denominators of 2, 4, 5 (and 8, 10) read well as decimals; thirds do not.
    den = value.denominator
    while den % 2 == 0:
        den //= 2
    while den % 5 == 0:
        den //= 5
    if den == 1:
        return f"{float(value):g}"
    return f"({value})"


@dataclass(frozen=True)
class Factor:
    """``parameter^exponent * log2(parameter)^log_exponent``."""

    parameter: str
    exponent: Fraction = Fraction(0)
    log_exponent: Fraction = Fraction(0)

    def __post_init__(self) -> None:
        for name in ("exponent", "log_exponent"):
            value = getattr(self, name)
            if type(value) is not Fraction:  # fitted models pass Fractions: skip the copy
                object.__setattr__(self, name, Fraction(value))

    def evaluate(self, x: np.ndarray) -> np.ndarray:
        """Value of the factor at parameter values x (positive)."""
        x = np.asarray(x, dtype=float)
        out = np.ones_like(x)
        if self.exponent:
            out = out * x ** float(self.exponent)
        if self.log_exponent:
            out = out * np.log2(x) ** float(self.log_exponent)
        return out

    def formula(self) -> str:
        """``n^(3/2)·log2(n)``."""
        parts = []
        if self.exponent == 1:
            parts.append(self.parameter)
        elif self.exponent:
            parts.append(f"{self.parameter}^{_paren(self.exponent)}")
        if self.log_exponent == 1:
            parts.append(f"log2({self.parameter})")
        elif self.log_exponent:
            parts.append(f"log2^{_paren(self.log_exponent)}({self.parameter})")
        return "·".join(parts)

    def big_o(self) -> str:
        """``n^1.5 log n``."""
        return " ".join(part for part in self.big_o_parts() if part)

    def big_o_parts(self) -> tuple[str, str]:
        """The power and the log part: ``("n^1.5", "log n")``, ``("", "log p")``."""
        power = ""
        if self.exponent == 1:
            power = self.parameter
        elif self.exponent:
            power = f"{self.parameter}^{_decimal_or_fraction(self.exponent)}"
        log = ""
        if self.log_exponent == 1:
            log = f"log {self.parameter}"
        elif self.log_exponent:
            log = f"log^{_decimal_or_fraction(self.log_exponent)} {self.parameter}"
        return power, log

    def to_json(self) -> dict[str, str]:
        return {
            "parameter": self.parameter,
            "exponent": fraction_text(self.exponent),
            "log_exponent": fraction_text(self.log_exponent),
        }


def _paren(value: Fraction) -> str:
    return str(value) if value.denominator == 1 else f"({value})"


@dataclass(frozen=True)
class Term:
    """``coefficient * product of factors`` (one factor per parameter it depends on)."""

    coefficient: float
    factors: tuple[Factor, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "coefficient", float(self.coefficient))
        object.__setattr__(self, "factors", tuple(self.factors))

    def basis(self, at: Mapping[str, np.ndarray]) -> np.ndarray:
        """The term's value without its coefficient."""
        out: np.ndarray | float = 1.0
        for f in self.factors:
            out = out * f.evaluate(at[f.parameter])
        return np.asarray(out, dtype=float)

    def order(self, parameter: str) -> tuple[Fraction, Fraction]:
        """(exponent, log exponent) of this term in one parameter."""
        for f in self.factors:
            if f.parameter == parameter:
                return (f.exponent, f.log_exponent)
        return CONSTANT_ORDER

    def to_json(self) -> dict[str, Any]:
        return {"coefficient": self.coefficient, "factors": [f.to_json() for f in self.factors]}


def _number(c: float) -> str:
    mantissa, _, exp = f"{abs(c):.1e}".partition("e")
    return f"{mantissa}e{int(exp)}"


def resolved(value: Any) -> Any:
    """An added field as JSON data: typed details (``modeling.details``) write themselves."""
    to_json = getattr(value, "to_json", None)
    return to_json() if callable(to_json) else value


@dataclass(frozen=True)
class Model:
    """A fitted PMNF model of one kernel and metric."""

    kernel: str
    metric: str
    parameters: tuple[str, ...]
    constant: float
    terms: tuple[Term, ...] = ()
    smape: float = 0.0
    noise: float | None = None
    extras: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "parameters", tuple(self.parameters))
        object.__setattr__(self, "terms", tuple(self.terms))
        object.__setattr__(self, "constant", float(self.constant))

    def evaluate(self, at: Mapping[str, Any]) -> np.ndarray:
        """Predicted value(s) at parameter values (scalars or arrays)."""
        arrays = {p: np.asarray(at[p], dtype=float) for p in self.parameters}
        total: np.ndarray = np.asarray(self.constant, dtype=float)
        for term in self.terms:
            total = total + term.coefficient * term.basis(arrays)
        return total

    def value_at(self, at: Mapping[str, Any]) -> float:
        """The model's value at one point (each parameter a number or a one-value array)."""
        return float(np.asarray(self.evaluate(at)).reshape(-1)[0])

    def formula(self) -> str:
        """``1.0e-3 + 2.0e-7·n·log2(n)``; a zero constant is left out (``2.0e-7·n``)."""
        parts = []
        if self.constant != 0 or not self.terms:
            parts.append(
                _number(self.constant) if self.constant >= 0 else f"-{_number(self.constant)}"
            )
        for term in self.terms:
            body = "·".join(f.formula() for f in term.factors if f.formula())
            sign = "-" if term.coefficient < 0 else ("+" if parts else "")
            text = f"{_number(term.coefficient)}·{body}"
            parts.append(f"{sign} {text}" if sign and parts else f"{sign}{text}")
        return " ".join(parts)

    def lead_terms(self) -> tuple[Term, ...]:
        """Terms not dominated asymptotically by another term (the Big-O class)."""
        return self._derived("lead_terms", self._lead_terms)

    def _derived(self, name: str, compute: Callable[[], _T]) -> _T:
        """``compute()`` once per model: the model is frozen, and the class and its text
        were worked out 5-6 times a kernel by ``check`` (a tenth of it at 4,000 kernels).
        Kept in the instance's ``__dict__``, which equality and ``replace`` do not read."""
        memo = self.__dict__.setdefault("_derived_memo", {})
        if name not in memo:
            memo[name] = compute()
        return memo[name]

    def _lead_terms(self) -> tuple[Term, ...]:
        growing = [
            t
            for t in self.terms
            if t.coefficient > 0 and any(t.order(p) > CONSTANT_ORDER for p in self.parameters)
        ]
        return tuple(
            t
            for t in growing
            if not any(_dominates(o, t, self.parameters) for o in growing if o is not t)
        )

    def lead_order(self, parameter: str | None = None) -> tuple[Fraction, Fraction]:
        """The highest (exponent, log exponent) of any growing term in a parameter."""
        param = parameter or self.parameters[0]
        orders = [t.order(param) for t in self.lead_terms()]
        return max(orders, default=CONSTANT_ORDER)

    def complexity(self) -> str:
        """Big-O rendering of the lead terms: ``O(n^1.5 log n)``; ``exponential-like`` for a
        kernel that grows faster than any class at its top sizes (see growth.py)."""
        return self._derived("complexity", self._complexity)

    def _complexity(self) -> str:
        growth = self.extra("growth")
        if isinstance(growth, Mapping) and growth.get("kind") == "exponential-like":
            return "exponential-like"
        leads = self.lead_terms()
        if not leads:
            return "O(1)"
        texts = []
        for t in leads:
            # powers first, then logs: ``n log p``, not ``log p n`` (which reads as log(pn))
            parts = [f.big_o_parts() for f in t.factors]
            body = " ".join(x for x in [p for p, _ in parts] + [g for _, g in parts] if x)
            if body not in texts:
                texts.append(body)
        return "O(" + " + ".join(texts) + ")"

    def to_json(self) -> dict[str, Any]:
        """One ``models@1`` entry."""
        out: dict[str, Any] = {
            "kernel": self.kernel,
            "metric": self.metric,
            "parameters": list(self.parameters),
            "constant": self.constant,
            "terms": [t.to_json() for t in self.terms],
            "formula": self.formula(),
            "complexity": self.complexity(),
            "smape": self.smape,
            "noise": self.noise,
        }
        out.update({key: resolved(value) for key, value in self.extras.items()})
        return out

    def extra(self, key: str, default: Any = None) -> Any:
        """An added models@1 field as it is held: a typed detail (``modeling.details``) for
        the one-parameter analyses, JSON data for fields read back from a document."""
        return self.extras.get(key, default)


def _dominates(a: Term, b: Term, parameters: Sequence[str]) -> bool:
    """a grows at least as fast as b in every parameter and faster in one."""
    ge = all(a.order(p) >= b.order(p) for p in parameters)
    gt = any(a.order(p) > b.order(p) for p in parameters)
    return ge and gt
