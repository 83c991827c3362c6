"""PMNF rendering, evaluation and the models@1 entry."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.modeling.pmnf import Factor, Model, Term, fraction_text, parse_fraction


def model(*terms: tuple[float, F, F], constant: float = 2.0e-3) -> Model:
    return Model(
        "k", "time", ("n",), constant, tuple(Term(c, (Factor("n", a, b),)) for c, a, b in terms)
    )


@pytest.mark.parametrize(
    "terms,formula,big_o",
    [
        ((), "2.0e-3", "O(1)"),
        (((3.1e-7, F(3, 2), F(1)),), "2.0e-3 + 3.1e-7·n^(3/2)·log2(n)", "O(n^1.5 log n)"),
        (((2.0e-7, F(1), F(1)),), "2.0e-3 + 2.0e-7·n·log2(n)", "O(n log n)"),
        (((5.0, F(0), F(1)),), "2.0e-3 + 5.0e0·log2(n)", "O(log n)"),
        (((5.0, F(0), F(2)),), "2.0e-3 + 5.0e0·log2^2(n)", "O(log^2 n)"),
        (((1.0, F(1, 3), F(0)),), "2.0e-3 + 1.0e0·n^(1/3)", "O(n^(1/3))"),
        (((1.0, F(1, 2), F(0)),), "2.0e-3 + 1.0e0·n^(1/2)", "O(n^0.5)"),
        (((1.0, F(0), F(1, 2)),), "2.0e-3 + 1.0e0·log2^(1/2)(n)", "O(log^0.5 n)"),
        (((1.0, F(2), F(0)), (3.0, F(1), F(0))), "2.0e-3 + 1.0e0·n^2 + 3.0e0·n", "O(n^2)"),
        (((-1.0, F(2), F(0)), (3.0, F(1), F(0))), "2.0e-3 - 1.0e0·n^2 + 3.0e0·n", "O(n)"),
    ],
)
def test_formula_and_big_o(terms, formula, big_o) -> None:
    m = model(*terms)
    assert m.formula() == formula
    assert m.complexity() == big_o


def test_evaluate_scalar_and_array() -> None:
    m = model((2.0, F(3, 2), F(1)), constant=1.0)
    assert m.evaluate({"n": 16.0}) == pytest.approx(1.0 + 2.0 * 64.0 * 4.0)
    np.testing.assert_allclose(
        m.evaluate({"n": np.array([4.0, 16.0])}), [1 + 2 * 8 * 2, 1 + 2 * 64 * 4]
    )


def test_lead_order_picks_fastest_growing_term() -> None:
    m = model((100.0, F(1), F(1)), (1e-9, F(2), F(0)))
    assert m.lead_order() == (F(2), F(0))


def test_models_json_entry_matches_contract() -> None:
    entry = model((2.0e-7, F(1), F(1)), constant=1.0e-3).to_json()
    assert list(entry)[:9] == [
        "kernel",
        "metric",
        "parameters",
        "constant",
        "terms",
        "formula",
        "complexity",
        "smape",
        "noise",
    ]
    assert entry["terms"] == [
        {
            "coefficient": 2.0e-7,
            "factors": [{"parameter": "n", "exponent": "1", "log_exponent": "1"}],
        }
    ]
    assert entry["formula"] == "1.0e-3 + 2.0e-7·n·log2(n)"
    assert entry["complexity"] == "O(n log n)"
    assert model().to_json()["terms"] == []


@given(st.fractions(min_value=0, max_value=20, max_denominator=64))
def test_fraction_text_round_trips(value: F) -> None:
    assert parse_fraction(fraction_text(value)) == value


@pytest.mark.parametrize(
    "factors,big_o",
    [
        ((("p", F(0), F(1)), ("n", F(1), F(0))), "O(n log p)"),  # was "O(log p n)"
        ((("p", F(1), F(1)), ("n", F(1), F(0))), "O(p n log p)"),
        ((("p", F(1), F(0)), ("n", F(2), F(0))), "O(p n^2)"),
        ((("p", F(0), F(1)), ("n", F(0), F(2))), "O(log p log^2 n)"),
    ],
)
def test_a_product_reads_its_powers_before_its_logs(factors, big_o) -> None:
    term = Term(1.0, tuple(Factor(name, a, b) for name, a, b in factors))
    assert Model("k", "time", ("p", "n"), 0.0, (term,)).complexity() == big_o
