"""Asymptotic growth classes of PMNF models and their partial order.

A class is a reduced sum of monomials ``prod_p p^alpha * log2(p)^beta``. Every parameter is
taken to grow independently of the others, so one monomial is in O(another) exactly when it
is no larger, lexicographically in (alpha, beta), in every parameter.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction

from guard.modeling.pmnf import Model, Term

__all__ = ["Order", "Monomial", "GrowthClass"]

Order = tuple[Fraction, Fraction]
"""(alpha, beta) of ``x^alpha * log2(x)^beta`` for one parameter."""

_ZERO: Order = (Fraction(0), Fraction(0))
_PLAIN_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _exponent_text(value: Fraction) -> str:
    """An exponent the way Factor.big_o writes it, but always exact and parseable back."""
    # Halves, quarters and fifths read well as decimals; ``:g`` rounds to six digits and
    # switches to ``1e+06`` for big values, so the decimal is only used when it is exact.
    decimal = f"{float(value):g}"
    if _PLAIN_NUMBER.fullmatch(decimal) and Fraction(decimal) == value:
        return decimal
    if value.denominator == 1:
        return str(value.numerator)
    return f"({value})"


def _factor_text(parameter: str, alpha: Fraction, beta: Fraction) -> str:
    """``n^1.5 log n``, ``log^2 n``, ``n``."""
    parts = []
    if alpha == 1:
        parts.append(parameter)
    elif alpha:
        parts.append(f"{parameter}^{_exponent_text(alpha)}")
    if beta == 1:
        parts.append(f"log {parameter}")
    elif beta:
        parts.append(f"log^{_exponent_text(beta)} {parameter}")
    return " ".join(parts)


def _canonical_factors(
    factors: Iterable[tuple[str, Fraction, Fraction]],
) -> tuple[tuple[str, Fraction, Fraction], ...]:
    # A repeated parameter multiplies out (exponents add), so no spelling has two entries.
    merged: dict[str, Order] = {}
    for parameter, alpha, beta in factors:
        old_alpha, old_beta = merged.get(parameter, _ZERO)
        merged[parameter] = (old_alpha + Fraction(alpha), old_beta + Fraction(beta))
    return tuple(
        (parameter, alpha, beta)
        for parameter, (alpha, beta) in sorted(merged.items())
        if (alpha, beta) != _ZERO
    )


@dataclass(frozen=True)
class Monomial:
    """Product over parameters of p^alpha * log^beta p; () is the constant class 1."""

    factors: tuple[tuple[str, Fraction, Fraction], ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "factors", _canonical_factors(self.factors))

    @classmethod
    def from_orders(cls, orders: Mapping[str, Order]) -> Monomial:
        """The monomial with the given (alpha, beta) per parameter."""
        return cls(tuple((p, alpha, beta) for p, (alpha, beta) in orders.items()))

    def orders(self) -> dict[str, Order]:
        """(alpha, beta) of every parameter the monomial depends on."""
        return {p: (alpha, beta) for p, alpha, beta in self.factors}

    def order(self, parameter: str) -> Order:
        """(alpha, beta) in one parameter; (0, 0) if the monomial does not depend on it."""
        for p, alpha, beta in self.factors:
            if p == parameter:
                return (alpha, beta)
        return _ZERO

    def dominated_by(self, other: Monomial) -> bool:
        """True if self is in O(other): no larger in every parameter."""
        names = {p for p, _, _ in self.factors} | {p for p, _, _ in other.factors}
        return all(self.order(p) <= other.order(p) for p in names)

    def text(self) -> str:
        """``1``, ``n^1.5 log n``, ``n log p``."""
        if not self.factors:
            return "1"
        return " ".join(_factor_text(p, alpha, beta) for p, alpha, beta in self.factors)


def _sort_key(monomial: Monomial) -> tuple[tuple[str, Fraction, Fraction], ...]:
    # Parameters by name, faster growth first: ``n^2 + n p``, ``n + p``.
    return tuple((p, -alpha, -beta) for p, alpha, beta in monomial.factors)


def _reduced(monomials: Iterable[Monomial]) -> tuple[Monomial, ...]:
    unique = set(monomials)
    if not unique:
        return (Monomial(),)
    kept = [m for m in unique if not any(o != m and m.dominated_by(o) for o in unique)]
    return tuple(sorted(kept, key=_sort_key))


@dataclass(frozen=True)
class GrowthClass:
    """A sum of monomials, reduced (none dominated by another) and in canonical order."""

    monomials: tuple[Monomial, ...] = (Monomial(),)

    def __post_init__(self) -> None:
        # Reducing here keeps equality and hashing structural however the class was built.
        object.__setattr__(self, "monomials", _reduced(self.monomials))

    @classmethod
    def of(cls, monomials: Iterable[Monomial]) -> GrowthClass:
        """The reduced, canonical sum of the given monomials (constant if there are none)."""
        return cls(tuple(monomials))

    @classmethod
    def constant(cls) -> GrowthClass:
        """The class O(1)."""
        return cls((Monomial(),))

    @classmethod
    def from_model(cls, model: Model) -> GrowthClass:
        """The Big-O class of a fitted model: its lead terms, or constant if it has none."""
        return cls.of(_term_monomial(t) for t in model.lead_terms())

    @classmethod
    def from_orders(cls, orders: Mapping[str, Order]) -> GrowthClass:
        """The class of the single monomial with these orders."""
        return cls((Monomial.from_orders(orders),))

    def le(self, other: GrowthClass) -> bool:
        """True if self is in O(other): each monomial is dominated by one of other's."""
        return all(any(m.dominated_by(o) for o in other.monomials) for m in self.monomials)

    def lt(self, other: GrowthClass) -> bool:
        """True if self is in O(other) but other is not in O(self)."""
        return self.le(other) and not other.le(self)

    def equivalent(self, other: GrowthClass) -> bool:
        """True if each class is in O(the other)."""
        return self.le(other) and other.le(self)

    def parameters(self) -> tuple[str, ...]:
        """Sorted names of the parameters the class depends on."""
        return tuple(sorted({p for m in self.monomials for p, _, _ in m.factors}))

    def order(self, parameter: str) -> Order:
        """The largest (alpha, beta) of any monomial in one parameter."""
        return max(m.order(parameter) for m in self.monomials)

    def text(self) -> str:
        """``n^2 + p``, ``n log n``, ``1``."""
        return " + ".join(m.text() for m in self.monomials)

    def big_o(self) -> str:
        """``O(n log n)``."""
        return f"O({self.text()})"


def _term_monomial(term: Term) -> Monomial:
    return Monomial(tuple((f.parameter, f.exponent, f.log_exponent) for f in term.factors))
