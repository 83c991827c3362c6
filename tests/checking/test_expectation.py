"""Growth classes, their partial order, and the expectation language (``<= n log n``)."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from guard.checking.classes import GrowthClass, Monomial
from guard.checking.expectation import (
    Expectation,
    ExpectationError,
    parse_class,
    parse_expectation,
)
from guard.errors import UsageError
from guard.modeling.pmnf import Factor, Model, Term


def mono(**orders: tuple[object, object]) -> Monomial:
    """``mono(n=(1, 1), p=(0, 1))`` is n log n log p; exponents may be ints or fraction strings."""
    return Monomial.from_orders({p: (F(a), F(b)) for p, (a, b) in orders.items()})


def cls(*monomials: Monomial) -> GrowthClass:
    return GrowthClass.of(monomials)


ONE = GrowthClass.constant()
N = cls(mono(n=(1, 0)))
P = cls(mono(p=(1, 0)))
LOG_N = cls(mono(n=(0, 1)))
N_LOG_N = cls(mono(n=(1, 1)))
N2 = cls(mono(n=(2, 0)))


# --- parsing: the examples ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,op,expected",
    [
        ("<= n log n", "<=", N_LOG_N),
        ("O(n^2)", "<=", N2),
        ("< n^2", "<", N2),
        ("== n", "==", N),
        ("<= log p", "<=", cls(mono(p=(0, 1)))),
        ("<= sqrt n", "<=", cls(mono(n=("1/2", 0)))),
        ("<= n^1.5", "<=", cls(mono(n=("3/2", 0)))),
        ("<= n * log p", "<=", cls(mono(n=(1, 0), p=(0, 1)))),
        ("<= n^2 + p", "<=", cls(mono(n=(2, 0)), mono(p=(1, 0)))),
        ("<= 1", "<=", ONE),
        ("O(1)", "<=", ONE),
        ("≤ n·log n", "<=", N_LOG_N),
        ("<= n log^2 n", "<=", cls(mono(n=(1, 2)))),
        ("Theta(n)", "==", N),
        ("n log n", "<=", N_LOG_N),
        ("Θ(n log n)", "==", N_LOG_N),
        ("o(n)", "<", N),
        ("= n", "==", N),
        ("<= O(n log n)", "<=", N_LOG_N),
        ("< o(n)", "<", N),
        ("== Theta(n)", "==", N),
        ("  <= n  ", "<=", N),
    ],
)
def test_examples_parse(text: str, op: str, expected: GrowthClass) -> None:
    e = parse_expectation(text)
    assert e.op == op
    assert e.bound == expected
    assert e.text == text.strip()


@pytest.mark.parametrize(
    "text,expected",
    [
        ("n^2", N2),
        ("n**2", N2),
        ("n²", N2),
        ("n^(3/2)", cls(mono(n=("3/2", 0)))),
        ("n^3/2", cls(mono(n=("3/2", 0)))),
        ("n^1.5", cls(mono(n=("3/2", 0)))),
        ("n^0.25", cls(mono(n=("1/4", 0)))),
        ("sqrt(n)", cls(mono(n=("1/2", 0)))),
        ("√n", cls(mono(n=("1/2", 0)))),
        ("cbrt n", cls(mono(n=("1/3", 0)))),
        ("sqrt n^2", N),
        ("log n", LOG_N),
        ("log(n)", LOG_N),
        ("log2 n", LOG_N),
        ("log_2 n", LOG_N),
        ("log10 n", LOG_N),
        ("lg n", LOG_N),
        ("ln n", LOG_N),
        ("log(n^2)", LOG_N),
        ("log^2 n", cls(mono(n=(0, 2)))),
        ("log(n)^2", cls(mono(n=(0, 2)))),
        ("log^(1/2) n", cls(mono(n=(0, "1/2")))),
        ("2 n", N),
        ("2n", N),
        ("0.5*n", N),
        ("3", ONE),
        ("n^0", ONE),
        ("n × p", cls(mono(n=(1, 0), p=(1, 0)))),
        ("n n", N2),
        ("n + n log n + 1", N_LOG_N),
        ("n + p", cls(mono(n=(1, 0)), mono(p=(1, 0)))),
        ("(n + p)^2", cls(mono(n=(2, 0)), mono(p=(2, 0)))),
        ("n (p + log n)", cls(mono(n=(1, 0), p=(1, 0)), mono(n=(1, 1)))),
        ("sqrt(n p)", cls(mono(n=("1/2", 0), p=("1/2", 0)))),
        ("log(n p)", cls(mono(n=(0, 1)), mono(p=(0, 1)))),
        ("log(n log n)", LOG_N),
        ("log n log p", cls(mono(n=(0, 1), p=(0, 1)))),
        ("log^(1/3) n p^2", cls(mono(n=(0, "1/3"), p=(2, 0)))),
    ],
)
def test_spellings(text: str, expected: GrowthClass) -> None:
    assert parse_class(text) == expected


def test_parameters_given_accepts_known_names() -> None:
    e = parse_expectation("<= n^2 + p log p", parameters=["n", "p"])
    assert e.bound == cls(mono(n=(2, 0)), mono(p=(1, 1)))


def test_parse_class_accepts_o_wrapper_and_numbers() -> None:
    assert parse_class("O(n log n)") == N_LOG_N
    assert parse_class(1) == ONE  # type: ignore[arg-type]  # YAML `max_class: 1`


@pytest.mark.parametrize(
    "text,op,describe",
    [
        ("<= n log n", "<=", "<= n log n"),
        ("O( n*log2(n) )", "<=", "<= n log n"),
        ("< n^2", "<", "< n^2"),
        ("Theta(n)", "==", "== n"),
        ("<= p + n^2", "<=", "<= n^2 + p"),
        ("n^3/2 log n", "<=", "<= n^1.5 log n"),
        ("O(1)", "<=", "<= 1"),
    ],
)
def test_describe_is_canonical(text: str, op: str, describe: str) -> None:
    e = parse_expectation(text)
    assert e.op == op
    assert e.describe() == describe
    assert parse_expectation(e.describe()) == Expectation(e.op, e.bound, e.describe())


# --- parsing: errors ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,parameters,column,fragment",
    [
        ("<= n lg^ n", None, 10, "expected a number after '^'"),
        ("<=", None, 3, "expected a class expression"),
        ("<= n^", None, 6, "expected a number after '^'"),
        ("<= n^-1", None, 6, "exponents must not be negative"),
        ("<= n^(-1)", None, 7, "exponents must not be negative"),
        ("<= log^-1 n", None, 8, "exponents must not be negative"),
        ("<= foo(n)", None, 4, "unknown function 'foo'"),
        ("<== n", None, 3, "unexpected '='"),
        ("<= n )", None, 6, "unmatched ')'"),
        ("== O(n)", None, 4, "use Theta() for =="),
        ("< O(n)", None, 3, "use o() for <"),
        ("<= Theta(n)", None, 4, "use O() for <="),
        ("<= m", ["n"], 4, "unknown parameter 'm'"),
        ("<= n * m", ["n", "p"], 8, "this input's parameters are n, p"),
        ("<= log n^2", None, 9, "write 'log^2 n'"),
        ("", None, 1, "empty expectation"),
        ("   ", None, 1, "empty expectation"),
        ("<= n - p", None, 6, "'-' is not allowed"),
        ("<= 2^n", None, 5, "a number cannot be raised to a power"),
        ("O(n", None, 4, "missing ')'"),
        ("O(n) + p", None, 6, "nothing may follow O(...)"),
        ("n^(3/2", None, 7, "missing ')'"),
        ("log log n", None, 5, "log log is not a PMNF class"),
        ("log(log n)", None, 1, "log log n is not a PMNF class"),
        ("n / p", None, 3, "'/' is only allowed inside an exponent"),
        ("n^1/0", None, 5, "division by zero"),
        (">= n", None, 1, "lower bounds are not supported"),
        ("Omega(n)", None, 1, "lower bounds are not supported"),
        ("n O(n)", None, 3, "O() must enclose the whole class"),
        ("0 n", None, 1, "a coefficient of 0"),
        ("<= n $", None, 6, "unexpected character '$'"),
        ("1.2.3 n", None, 1, "malformed number '1.2.3'"),
        ("<= log", None, 7, "expected a parameter or '(' after 'log'"),
        ("<= sqrt + n", None, 9, "expected a parameter or '(' after 'sqrt'"),
        ("n^2^3", None, 4, "unexpected '^'"),
        ("n <= p", None, 3, "unexpected '<='"),
    ],
)
def test_errors_name_the_column(
    text: str, parameters: list[str] | None, column: int, fragment: str
) -> None:
    with pytest.raises(ExpectationError) as info:
        parse_expectation(text, parameters)
    error = info.value
    message = str(error)
    assert error.column == column
    assert error.text == text.strip()
    assert f"at column {column}" in message
    assert fragment in message
    assert message.startswith(f"invalid expectation '{text.strip()}': ")
    assert "\n" not in message
    assert isinstance(error, UsageError)
    assert error.exit_code == 2
    assert error.allowed  # every message says what is allowed instead


def test_error_message_exact_form() -> None:
    with pytest.raises(ExpectationError) as info:
        parse_expectation("<= n lg^ n")
    assert str(info.value) == (
        "invalid expectation '<= n lg^ n': expected a number after '^' at column 10 "
        "(write e.g. 'n^2', 'n^1.5', 'n^(3/2)')"
    )


def test_unknown_parameter_lists_the_parameters() -> None:
    with pytest.raises(ExpectationError) as info:
        parse_expectation("<= n log m", parameters=["n", "p"])
    assert str(info.value) == (
        "invalid expectation '<= n log m': unknown parameter 'm' at column 10 "
        "(this input's parameters are n, p)"
    )


def test_multiline_input_gives_one_line_message() -> None:
    with pytest.raises(ExpectationError) as info:
        parse_expectation("<= n\n+ )")
    assert "\n" not in str(info.value)
    assert info.value.column == 8


@pytest.mark.parametrize("text", ["<= n", "Theta(n)", "o(n)"])
def test_parse_class_rejects_operators(text: str) -> None:
    with pytest.raises(ExpectationError) as info:
        parse_class(text)
    assert info.value.column == 1


# --- the order ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expectation,fitted,admitted",
    [
        ("<= n^1.5", N_LOG_N, True),
        ("<= n", N_LOG_N, False),
        ("<= n log n", N_LOG_N, True),
        ("< n log n", N_LOG_N, False),
        ("< n^2", N2, False),
        ("< n^2", cls(mono(n=("199/100", 0))), True),
        ("< n^2", N_LOG_N, True),
        ("== n", N, True),
        ("== n", N_LOG_N, False),
        ("== n", LOG_N, False),
        ("== n", ONE, False),
        ("<= 1", ONE, True),
        ("<= 1", LOG_N, False),
        ("< 1", ONE, False),
        ("<= log n", ONE, True),
        ("<= n", P, False),  # n and p are incomparable
        ("<= p", N, False),
        ("<= n + p", P, True),
        ("<= n + p", N, True),
        ("== n + p", N, False),
        ("<= n log p", N, True),
        ("<= n log p", cls(mono(n=(1, 0), p=(0, 1))), True),
        ("<= n^2 p", cls(mono(n=(1, 0), p=(0, 1))), True),
        ("<= n^2 p", cls(mono(n=(2, 0), p=(1, 1))), False),
        ("< n^2 p", cls(mono(n=(1, 0), p=(1, 0))), True),
        ("<= n^2 + p", cls(mono(n=(2, 0)), mono(p=(1, 0))), True),
        ("<= n^2 + p", cls(mono(n=(1, 0), p=(1, 0))), False),
        ("== n^2 + p", cls(mono(p=(1, 0)), mono(n=(2, 0))), True),
        ("< n^2 + p", N2, True),
    ],
)
def test_admits(expectation: str, fitted: GrowthClass, admitted: bool) -> None:
    assert parse_expectation(expectation).admits(fitted) is admitted


def test_incomparable_parameters() -> None:
    assert not N.le(P) and not P.le(N)
    assert not N.lt(P) and not P.lt(N)
    assert not N.equivalent(P)


def test_n_log_p_below_n_squared_p() -> None:
    assert parse_class("n log p").le(parse_class("n^2 * p"))
    assert parse_class("n log p").lt(parse_class("n^2 * p"))


def test_log_orders_only_break_ties() -> None:
    assert cls(mono(n=(1, 5))).lt(cls(mono(n=("11/10", 0))))
    assert cls(mono(n=(1, 0))).lt(cls(mono(n=(1, "1/10"))))


def test_order_and_parameters() -> None:
    g = cls(mono(n=(2, 0)), mono(n=(1, 3), p=(1, 0)))
    assert g.parameters() == ("n", "p")
    assert g.order("n") == (F(2), F(0))
    assert g.order("p") == (F(1), F(0))
    assert g.order("q") == (F(0), F(0))
    assert ONE.parameters() == ()
    assert ONE.order("n") == (F(0), F(0))


# --- classes: canonical form and text ----------------------------------------------------------


def test_monomial_is_canonical() -> None:
    a = Monomial((("p", F(1), F(0)), ("n", F(1), F(0))))
    b = Monomial((("n", F(1), F(0)), ("p", F(1), F(0)), ("q", F(0), F(0))))
    assert a == b
    assert a.factors == (("n", F(1), F(0)), ("p", F(1), F(0)))
    assert len({a, b}) == 1
    assert Monomial((("n", F(1), F(0)), ("n", F(1), F(1)))) == mono(n=(2, 1))
    assert a.order("q") == (F(0), F(0))


def test_growth_class_reduces() -> None:
    assert GrowthClass.of([mono(n=(1, 0)), mono(n=(1, 0))]) == GrowthClass.of([mono(n=(1, 0))])
    assert GrowthClass.of([mono(n=(1, 0)), mono(n=(1, 1)), Monomial()]) == N_LOG_N
    assert GrowthClass.of([]) == ONE
    assert ONE.monomials == (Monomial(),)
    assert GrowthClass.of([mono(p=(1, 0)), mono(n=(1, 0))]).monomials == (
        mono(n=(1, 0)),
        mono(p=(1, 0)),
    )
    assert hash(cls(mono(p=(1, 0)), mono(n=(1, 0)))) == hash(cls(mono(n=(1, 0)), mono(p=(1, 0))))


@pytest.mark.parametrize(
    "g,text",
    [
        (ONE, "1"),
        (N, "n"),
        (N2, "n^2"),
        (cls(mono(n=("3/2", 1))), "n^1.5 log n"),
        (cls(mono(n=(0, 2))), "log^2 n"),
        (cls(mono(n=(1, 0), p=(0, 1))), "n log p"),
        (cls(mono(n=("1/3", 0))), "n^(1/3)"),
        (cls(mono(n=(2, 0)), mono(p=(1, 0))), "n^2 + p"),
        (cls(mono(n=(2, 0)), mono(n=(1, 0), p=(1, 0))), "n^2 + n p"),
        (cls(mono(n=("1/1024", 0))), "n^(1/1024)"),  # exact where %g would round
        (cls(mono(n=(1000000, 0))), "n^1000000"),  # never 1e+06
    ],
)
def test_text(g: GrowthClass, text: str) -> None:
    assert g.text() == text
    assert g.big_o() == f"O({text})"
    assert parse_class(text) == g


# --- from_model --------------------------------------------------------------------------------


def model(*terms: Term, parameters: tuple[str, ...] = ("n",)) -> Model:
    return Model("k", "time", parameters, 1.0e-3, terms)


def term(coefficient: float, **orders: tuple[object, object]) -> Term:
    return Term(coefficient, tuple(Factor(p, F(a), F(b)) for p, (a, b) in orders.items()))


def test_from_model_constant() -> None:
    assert GrowthClass.from_model(model()) == ONE


def test_from_model_ignores_negative_terms() -> None:
    m = model(term(-1.0, n=(2, 0)), term(3.0, n=(1, 1)))
    assert GrowthClass.from_model(m) == N_LOG_N
    assert GrowthClass.from_model(model(term(-1.0, n=(2, 0)))) == ONE


def test_from_model_drops_dominated_terms() -> None:
    m = model(term(1.0, n=(2, 0)), term(5.0, n=(1, 0)), term(2.0, n=(0, 1)))
    assert GrowthClass.from_model(m) == N2


def test_from_model_multi_parameter() -> None:
    m = model(
        term(1.0, n=(1, 0), p=(0, 1)),
        term(1.0, p=(1, 0)),
        term(1.0, n=(0, 1)),
        parameters=("n", "p"),
    )
    assert GrowthClass.from_model(m) == cls(mono(n=(1, 0), p=(0, 1)), mono(p=(1, 0)))


@pytest.mark.parametrize(
    "orders",
    [(F(3, 2), F(1)), (F(1), F(1)), (F(0), F(2)), (F(1, 3), F(0)), (F(1, 2), F(0)), (F(2), F(0))],
)
def test_big_o_matches_model_complexity(orders: tuple[F, F]) -> None:
    m = model(term(1.0, n=orders))
    assert GrowthClass.from_model(m).big_o() == m.complexity()


# --- properties --------------------------------------------------------------------------------

PARAMETERS = ("n", "p", "x")
exponents = st.builds(F, st.integers(0, 6), st.sampled_from([1, 2, 3, 4, 5]))
monomials = st.dictionaries(
    st.sampled_from(PARAMETERS), st.tuples(exponents, exponents), max_size=3
).map(Monomial.from_orders)
classes = st.lists(monomials, max_size=4).map(GrowthClass.of)
# A coarse grid so that random pairs are often comparable and implications get exercised.
coarse = st.lists(
    st.dictionaries(
        st.sampled_from(("n", "p")),
        st.tuples(st.sampled_from([F(0), F(1)]), st.sampled_from([F(0), F(1)])),
        max_size=2,
    ).map(Monomial.from_orders),
    max_size=2,
).map(GrowthClass.of)


@given(classes)
def test_le_is_reflexive(g: GrowthClass) -> None:
    assert g.le(g)
    assert g.equivalent(g)


@given(classes)
def test_lt_is_irreflexive(g: GrowthClass) -> None:
    assert not g.lt(g)


@given(coarse, coarse, coarse)
def test_le_is_transitive(a: GrowthClass, b: GrowthClass, c: GrowthClass) -> None:
    if a.le(b) and b.le(c):
        assert a.le(c)
    if a.lt(b) and b.lt(c):
        assert a.lt(c)


@given(classes, monomials, monomials)
def test_le_is_transitive_along_built_chains(a: GrowthClass, m1: Monomial, m2: Monomial) -> None:
    # Multiplying by a monomial and adding terms can only grow a class.
    b = GrowthClass.of([Monomial(x.factors + m1.factors) for x in a.monomials] + [m2])
    c = GrowthClass.of([Monomial(x.factors + m2.factors) for x in b.monomials])
    assert a.le(b) and b.le(c)
    assert a.le(c)


@given(coarse, coarse)
def test_equivalent_means_equal(a: GrowthClass, b: GrowthClass) -> None:
    assert a.equivalent(b) == (a == b)
    assert a.lt(b) == (a.le(b) and a != b)


@given(classes)
def test_of_is_idempotent(g: GrowthClass) -> None:
    assert GrowthClass.of(g.monomials) == g
    assert GrowthClass.of(g.monomials + g.monomials) == g
    assert GrowthClass.of(reversed(g.monomials)) == g


@given(classes)
def test_reduced_monomials_are_incomparable(g: GrowthClass) -> None:
    for m in g.monomials:
        assert not any(m != o and m.dominated_by(o) for o in g.monomials)


@given(classes)
def test_text_round_trips(g: GrowthClass) -> None:
    assert parse_class(g.text()) == g
    assert parse_class(g.text(), parameters=PARAMETERS) == g
    assert parse_expectation(f"< {g.text()}").bound == g
