"""Expected growth classes written as short strings (``<= n log n``, ``O(n^2)``) and checking.

The language is forgiving in spelling (``log2 n``, ``lg n``, ``n**2``, ``n·log n``, ``≤``,
``sqrt(n)``, leading coefficients) and strict in meaning: anything that could be read two ways
or that is not a PMNF class is an :class:`ExpectationError` naming the column and what is
allowed there.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, NoReturn

from guard.checking.classes import GrowthClass, Monomial

from ..errors import ExpectationError

__all__ = [
    "Op",
    "Expectation",
    "ExpectationError",
    "ExpectationRule",
    "parse_expectation",
    "parse_class",
]

Op = Literal["<=", "<", "=="]


@dataclass(frozen=True)
class ExpectationRule:
    """``pattern`` (a kernel-name glob) is expected to satisfy ``text``; ``source`` for errors.

    ``literal``: the pattern is one kernel's own name (a benchmark's ``expect:``), matched as
    text; a glob also matches the kernel it spells literally (``test_grid[k=1]``)."""

    pattern: str
    text: str
    source: str = "--expect"
    literal: bool = False

    def matches(self, name: str) -> bool:
        if name == self.pattern:
            return True
        return not self.literal and fnmatch.fnmatchcase(name, self.pattern)


_UPPER_BOUNDS: tuple[Op, ...] = ("<=", "<", "==")

_EXPONENT_HINT = "write e.g. 'n^2', 'n^1.5', 'n^(3/2)'"
_CLASS_HINT = "write e.g. 'n log n', 'n^2 + p' or '1'"
_OPERATOR_HINT = "one operator, '<=', '<' or '==', and only at the start"

# log2, log_2, log10, ln, lg all name the same class: the base is only a constant factor.
_LOG = re.compile(r"log(?:_?\d+|_e)?|lg|ln")
_ROOTS = {"sqrt": Fraction(1, 2), "cbrt": Fraction(1, 3)}
_WRAPPERS: dict[str, Op] = {"O": "<=", "o": "<", "Theta": "==", "theta": "==", "Θ": "==", "θ": "=="}
_WRAPPER_FOR: dict[Op, str] = {"<=": "O()", "<": "o()", "==": "Theta()"}
_MEANING: dict[Op, str] = {
    "<=": "an upper bound (<=)",
    "<": "a strict upper bound (<)",
    "==": "a tight bound (==)",
}
_LOWER = {"Omega", "omega", "Ω", "ω"}


@dataclass(frozen=True)
class Expectation:
    """A declared bound on a benchmark's growth class: ``op bound``."""

    op: Op
    bound: GrowthClass
    text: str

    def admits(self, cls: GrowthClass) -> bool:
        """True if a fitted class satisfies the expectation."""
        if self.op == "<=":
            return cls.le(self.bound)
        if self.op == "<":
            return cls.lt(self.bound)
        return cls.equivalent(self.bound)

    def describe(self) -> str:
        """Canonical text: ``<= n log n``, ``< n^2``, ``== n``."""
        return f"{self.op} {self.bound.text()}"


def parse_expectation(text: str, parameters: Sequence[str] | None = None) -> Expectation:
    """Read ``<= n log n``, ``O(n^2)``, ``Theta(n)``, ``n log n`` (meaning ``<=``) and so on."""
    stripped = _clean(text)
    op, bound = _Parser(stripped, parameters).expectation()
    return Expectation(op, bound, stripped)


def parse_class(text: str, parameters: Sequence[str] | None = None) -> GrowthClass:
    """Read a class alone, without an operator: ``n log n``, ``n^2 + p``, ``1`` or ``O(n)``."""
    return _Parser(_clean(text), parameters).class_only()


def _clean(text: str) -> str:
    # YAML hands `max_class: 1` over as an int; it still means the constant class.
    if isinstance(text, (int, float)) and not isinstance(text, bool):
        text = str(text)
    stripped = text.strip()
    if not stripped:
        raise ExpectationError(stripped, 1, "empty expectation", "write e.g. '<= n log n'")
    return stripped


# --- tokens -----------------------------------------------------------------------------------

_SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
_NOT_SUP = f"(?![{_SUPERSCRIPT}])"  # \w also matches superscript digits; n² is n^2, not a name
_LEXER = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<num>[0-9.]+)"
    rf"|(?P<sup>[{_SUPERSCRIPT}]+)"
    rf"|(?P<name>{_NOT_SUP}[^\W\d](?:{_NOT_SUP}\w)*)"
    r"|(?P<sym><=|>=|==|\*\*|[<>≤≥=()^*·⋅×∙+\-−/√])"
)
_NUMBER = re.compile(r"\d+(?:\.\d+)?|\.\d+")
_SYMBOLS = {
    "<=": ("op", "<="),
    "≤": ("op", "<="),
    "<": ("op", "<"),
    "==": ("op", "=="),
    "=": ("op", "=="),
    ">=": ("op", ">="),
    "≥": ("op", ">="),
    ">": ("op", ">"),
    "**": ("^", "^"),
    "^": ("^", "^"),
    "*": ("*", "*"),
    "·": ("*", "*"),
    "⋅": ("*", "*"),
    "×": ("*", "*"),
    "∙": ("*", "*"),
    "+": ("+", "+"),
    "-": ("-", "-"),
    "−": ("-", "-"),
    "/": ("/", "/"),
    "(": ("(", "("),
    ")": (")", ")"),
    "√": ("name", "sqrt"),
}


@dataclass(frozen=True)
class _Token:
    """kind is num, name, op, end, or one of ( ) ^ * + - /; start and end index the text."""

    kind: str
    value: str
    raw: str
    start: int
    end: int


def _tokenize(text: str) -> list[_Token]:
    tokens: list[_Token] = []
    at = 0
    while at < len(text):
        match = _LEXER.match(text, at)
        if match is None:
            raise ExpectationError(text, at + 1, f"unexpected character '{text[at]}'", _CLASS_HINT)
        tokens.extend(_tokens_of(text, match))
        at = match.end()
    tokens.append(_Token("end", "", "", len(text), len(text)))
    return tokens


def _tokens_of(text: str, match: re.Match[str]) -> list[_Token]:
    kind, raw, start, end = match.lastgroup or "", match.group(), match.start(), match.end()
    if kind == "space":
        return []
    if kind == "num":
        if not _NUMBER.fullmatch(raw):
            raise ExpectationError(
                text, start + 1, f"malformed number '{raw}'", "write e.g. '2', '1.5' or '3/2'"
            )
        return [_Token("num", raw, raw, start, end)]
    if kind == "sup":
        digits = "".join(str(_SUPERSCRIPT.index(c)) for c in raw)
        return [_Token("^", "^", raw, start, start), _Token("num", digits, raw, start, end)]
    if kind == "name":
        return [_Token("name", raw, raw, start, end)]
    sym_kind, value = _SYMBOLS[raw]
    return [_Token(sym_kind, value, raw, start, end)]


def _is_keyword(name: str) -> bool:
    return bool(_LOG.fullmatch(name)) or name in _ROOTS or name in _WRAPPERS or name in _LOWER


# --- class algebra (exact up to constant factors) ---------------------------------------------


def _times(a: GrowthClass, b: GrowthClass) -> GrowthClass:
    """(sum a_i)(sum b_j) is the sum of the products: distribute."""
    return GrowthClass.of(Monomial(x.factors + y.factors) for x in a.monomials for y in b.monomials)


def _power(cls: GrowthClass, k: Fraction) -> GrowthClass:
    """(sum m_i)^k is within constants of sum m_i^k for k >= 0, so raise each monomial."""
    return GrowthClass.of(
        Monomial(tuple((p, alpha * k, beta * k) for p, alpha, beta in m.factors))
        for m in cls.monomials
    )


# --- parser -----------------------------------------------------------------------------------


class _Parser:
    """Recursive descent over the tokens; every method consumes what it reads."""

    def __init__(self, text: str, parameters: Sequence[str] | None) -> None:
        self.text = text
        self.parameters = None if parameters is None else tuple(parameters)
        self.tokens = _tokenize(text)
        self.pos = 0

    def peek(self, ahead: int = 0) -> _Token:
        return self.tokens[min(self.pos + ahead, len(self.tokens) - 1)]

    def advance(self) -> _Token:
        token = self.peek()
        self.pos += 1
        return token

    def fail(self, token: _Token, problem: str, allowed: str | None = None) -> NoReturn:
        raise ExpectationError(self.text, token.start + 1, problem, allowed)

    # top level

    def expectation(self) -> tuple[Op, GrowthClass]:
        op = self.operator()
        token = self.peek()
        implied = self.wrapper_op(token)
        if implied is None:
            bound = self.expression()
        else:
            if op is not None and op != implied:
                self.fail(
                    token,
                    f"'{op}' cannot be combined with {token.raw}(), which is {_MEANING[implied]}",
                    f"use {_WRAPPER_FOR[op]} for {op}, or drop the operator",
                )
            op = implied
            bound = self.wrapped()
        self.finish(token if implied else None)
        return (op or "<=", bound)

    def class_only(self) -> GrowthClass:
        token = self.peek()
        if token.kind == "op":
            self.fail(
                token, f"unexpected operator '{token.raw}'", "write the class alone, e.g. 'n log n'"
            )
        implied = self.wrapper_op(token)
        if implied is None:
            bound = self.expression()
        elif implied == "<=":
            bound = self.wrapped()
        else:
            self.fail(
                token, f"{token.raw}() is not a class", "write the class alone, e.g. 'n log n'"
            )
        self.finish(token if implied else None)
        return bound

    def operator(self) -> Op | None:
        token = self.peek()
        if token.kind != "op":
            return None
        if token.value in (">", ">="):
            self.fail(token, "lower bounds are not supported", "use '<=', '<' or '=='")
        self.advance()
        for op in _UPPER_BOUNDS:
            if token.value == op:
                return op
        self.fail(token, f"unknown operator {token.value!r}", "use '<=', '<' or '=='")

    def wrapper_op(self, token: _Token) -> Op | None:
        if token.kind == "name" and token.value in _WRAPPERS and self.peek(1).kind == "(":
            return _WRAPPERS[token.value]
        return None

    def wrapped(self) -> GrowthClass:
        self.advance()
        opening = self.advance()
        bound = self.expression()
        self.close(opening)
        return bound

    def finish(self, wrapper: _Token | None) -> None:
        token = self.peek()
        if token.kind == "end":
            return
        if wrapper is not None:
            self.fail(
                token,
                f"nothing may follow {wrapper.raw}(...)",
                f"put the whole class inside, e.g. '{wrapper.raw}(n^2 + p)'",
            )
        self.unexpected(token)

    def close(self, opening: _Token) -> None:
        token = self.peek()
        if token.kind != ")":
            self.fail(token, "missing ')'", f"to close the '(' at column {opening.start + 1}")
        self.advance()

    def unexpected(self, token: _Token) -> NoReturn:
        if token.kind == "end":
            self.fail(token, "expected a class expression", _CLASS_HINT)
        if token.kind == ")":
            self.fail(token, "unmatched ')'", "remove it or open it with '('")
        if token.kind == "-":
            self.fail(token, "'-' is not allowed", "classes are sums of growing terms")
        if token.kind == "/":
            self.fail(token, "'/' is only allowed inside an exponent", _EXPONENT_HINT)
        if token.kind == "op":
            self.fail(token, f"unexpected '{token.raw}'", _OPERATOR_HINT)
        if token.kind == "^":
            self.fail(token, "unexpected '^'", "write a single exponent, e.g. 'n^6'")
        self.fail(token, f"unexpected '{token.raw}'", _CLASS_HINT)

    # expressions

    def expression(self) -> GrowthClass:
        monomials = list(self.product().monomials)
        while self.peek().kind == "+":
            self.advance()
            monomials.extend(self.product().monomials)
        return GrowthClass.of(monomials)

    def product(self) -> GrowthClass:
        result = self.factor()
        while True:
            kind = self.peek().kind
            if kind == "*":
                self.advance()
            elif kind not in ("num", "name", "("):  # juxtaposition: `n log n`, `2 n`
                return result
            result = _times(result, self.factor())

    def factor(self) -> GrowthClass:
        token = self.peek()
        if token.kind == "num":
            return self.coefficient()
        if token.kind == "(":
            self.advance()
            inner = self.expression()
            self.close(token)
            return self.power_of(inner)
        if token.kind == "name":
            return self.named()
        self.unexpected(token)

    def coefficient(self) -> GrowthClass:
        token = self.advance()
        if Fraction(token.value) == 0:
            self.fail(
                token, "a coefficient of 0", "coefficients must be positive; classes drop them"
            )
        if self.peek().kind == "^":
            self.fail(
                self.peek(),
                "a number cannot be raised to a power",
                "exponential growth is not a PMNF class; put exponents on parameters, e.g. 'n^2'",
            )
        return GrowthClass.constant()

    def named(self) -> GrowthClass:
        token = self.peek()
        if _LOG.fullmatch(token.value):
            return self.logarithm()
        if token.value in _ROOTS:
            return self.root()
        if token.value in _WRAPPERS:
            self.fail(
                token,
                f"{token.raw}() must enclose the whole class",
                "write e.g. 'O(n log n)' or '<= n log n'",
            )
        if token.value in _LOWER:
            self.fail(token, "lower bounds are not supported", "use O(), o() or Theta()")
        return self.power_of(self.parameter())

    def parameter(self) -> GrowthClass:
        token = self.advance()
        after = self.peek()
        if after.kind == "(" and after.start == token.end:
            self.fail(
                token,
                f"unknown function '{token.raw}'",
                "functions are log, log2, lg, ln, sqrt and cbrt",
            )
        if self.parameters is not None and token.value not in self.parameters:
            self.fail(token, f"unknown parameter '{token.raw}'", self.known_parameters())
        return GrowthClass.from_orders({token.value: (Fraction(1), Fraction(0))})

    def known_parameters(self) -> str:
        if not self.parameters:
            return "this input has no parameters"
        return "this input's parameters are " + ", ".join(self.parameters)

    def argument_name(self) -> _Token | None:
        """The next token if it can be the bare argument of log or sqrt (``log n``)."""
        token = self.peek()
        if token.kind == "name" and not _is_keyword(token.value):
            return token
        return None

    def logarithm(self) -> GrowthClass:
        log = self.advance()
        power = Fraction(1)
        if self.peek().kind == "^":
            self.advance()
            power = self.exponent()
        token = self.peek()
        if token.kind == "(":
            self.advance()
            inner = self.expression()
            self.close(token)
            return self.power_of(_power(self.log_of(inner, log), power))
        if self.argument_name() is not None:
            result = _power(self.log_of(self.parameter(), log), power)
            self.reject_power_after_bare_log(log, token)
            return result
        if token.kind == "name" and _LOG.fullmatch(token.value):
            self.fail(token, "log log is not a PMNF class", "PMNF classes use powers of log p")
        self.fail(
            token,
            f"expected a parameter or '(' after '{log.raw}'",
            "write e.g. 'log n', 'log(n)' or 'log^2 n'",
        )

    def reject_power_after_bare_log(self, log: _Token, name: _Token) -> None:
        # `log n^2` reads as (log n)^2 to some and as log(n^2) = 2 log n to others.
        caret = self.peek()
        if caret.kind != "^":
            return
        self.advance()
        k = str(self.exponent())
        self.fail(
            caret,
            f"'{log.raw} {name.raw}^{k}' is ambiguous",
            f"write '{log.raw}^{k} {name.raw}' for the power of the log "
            f"or '{log.raw}({name.raw}^{k})' for the log of the power",
        )

    def log_of(self, cls: GrowthClass, log: _Token) -> GrowthClass:
        """log of a sum of monomials: log p for every parameter that appears with a power."""
        monomials = []
        for m in cls.monomials:
            for p, alpha, _ in m.factors:
                if alpha == 0:  # log(log^b p) = b log log p, and the log log has no PMNF form
                    self.fail(log, f"log log {p} is not a PMNF class", "take the log of a power")
                monomials.append(Monomial(((p, Fraction(0), Fraction(1)),)))
        return GrowthClass.of(monomials)

    def root(self) -> GrowthClass:
        root = self.advance()
        token = self.peek()
        if token.kind == "(":
            self.advance()
            base = self.expression()
            self.close(token)
        elif self.argument_name() is not None:
            base = self.parameter()
        else:
            self.fail(
                token,
                f"expected a parameter or '(' after '{root.raw}'",
                f"write e.g. '{root.value} n' or '{root.value}(n log n)'",
            )
        # sqrt n^2 is unambiguous: (sqrt n)^2 and sqrt(n^2) are the same class.
        return self.power_of(_power(base, _ROOTS[root.value]))

    # exponents

    def power_of(self, base: GrowthClass) -> GrowthClass:
        if self.peek().kind != "^":
            return base
        self.advance()
        return _power(base, self.exponent())

    def exponent(self) -> Fraction:
        token = self.peek()
        if token.kind != "(":
            return self.fraction(after="^")
        self.advance()
        value = self.fraction(after="(")
        self.close(token)
        return value

    def fraction(self, after: str) -> Fraction:
        """``2``, ``1.5`` or ``3/2``, exactly."""
        token = self.peek()
        if token.kind == "-":
            self.fail(token, "exponents must not be negative", _EXPONENT_HINT)
        if token.kind != "num":
            self.fail(token, f"expected a number after '{after}'", _EXPONENT_HINT)
        self.advance()
        if len(token.value) > 30:
            self.fail(token, "a number too long for an exponent", _EXPONENT_HINT)
        value = Fraction(token.value)
        if self.peek().kind == "/" and self.peek(1).kind in ("num", "-"):
            self.advance()
            denominator = self.peek()
            if denominator.kind == "-":
                self.fail(denominator, "exponents must not be negative", _EXPONENT_HINT)
            self.advance()
            if Fraction(denominator.value) == 0:
                self.fail(denominator, "division by zero in an exponent", _EXPONENT_HINT)
            value /= Fraction(denominator.value)
        return value
