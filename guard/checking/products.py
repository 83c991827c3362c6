"""The classes a product of parameters adds, which no line of one parameter can see; the
grid's own test of the product is ``modeling/interaction.py``."""

from __future__ import annotations

from .classes import GrowthClass, Monomial

__all__ = ["products_beyond"]


def products_beyond(shown: GrowthClass, allowed: GrowthClass) -> list[Monomial]:
    """The monomials of ``shown`` that ``allowed`` does not dominate although each of their
    parameters' orders is within ``allowed``'s for it: an excess only a product makes
    (``p n`` against ``p + n``), which no line of one parameter can see."""
    return [
        m
        for m in shown.monomials
        if len(m.factors) >= 2
        and not any(m.dominated_by(b) for b in allowed.monomials)
        and all(o <= allowed.order(q) for q, o in m.orders().items())
    ]
