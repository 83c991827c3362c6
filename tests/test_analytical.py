"""Analytical models: the safe expression language, callables, calibration and departure."""

from __future__ import annotations

import math
import re
import sys
import textwrap

import numpy as np
import pytest

from guard.app.departures import departure_lines as analytical_facts
from guard.measurements import Kernel, Point
from guard.modeling.analytical import (
    AnalyticalError,
    calibrate,
    departure,
    parse_analytical,
)

PARAMS = ("n", "bx")


def value(source: str, **values: list[float]) -> np.ndarray:
    return parse_analytical(source, tuple(values)).evaluate(values)


def parse_error(source: str, parameters=PARAMS) -> AnalyticalError:
    with pytest.raises(AnalyticalError) as info:
        parse_analytical(source, parameters)
    return info.value


# ---------------------------------------------------------------- expressions


@pytest.mark.parametrize(
    ("source", "values", "expected"),
    [
        ("n^2", {"n": [3, 5]}, [9, 25]),
        ("2^10 * n", {"n": [1, 3]}, [1024, 3072]),
        ("n**2 * 3", {"n": [2, 4]}, [12, 48]),
        ("min(n, bx, 3)", {"n": [1, 8, 8], "bx": [5, 2, 9]}, [1, 2, 3]),
        ("max(n, bx, 100)", {"n": [1, 800, 8], "bx": [5, 2, 900]}, [100, 800, 900]),
        ("ceil(n/bx)", {"n": [7, 8, 9], "bx": [4, 4, 4]}, [2, 2, 3]),
        ("floor(n/bx) + n % bx + n // bx", {"n": [7, 9], "bx": [4, 4]}, [5, 5]),
        ("log2(n)", {"n": [8, 1024]}, [3, 10]),
        ("log10(n) + ln(e) + log(e^2)", {"n": [100, 1000]}, [5, 6]),
        ("sqrt(n) * abs(-bx) / exp(0)", {"n": [16, 81], "bx": [2, 3]}, [8, 27]),
        ("pi * e + 0 * n", {"n": [1, 2]}, [math.pi * math.e] * 2),
        ("-n + 2*n + +bx - bx", {"n": [3, 4], "bx": [1, 1]}, [3, 4]),
        ("1.5e2 / n", {"n": [3, 150]}, [50, 1]),
    ],
)
def test_expressions_evaluate_over_arrays(source, values, expected):
    got = value(source, **values)
    assert got.dtype == float
    np.testing.assert_allclose(got, expected, rtol=1e-12)


@pytest.mark.parametrize(
    ("source", "n", "expected"),
    [
        ("n^2 * 3", 2, 12.0),
        ("n^2 + 1", 3, 10.0),
        ("n * 2^2", 3, 12.0),
        ("2 * n^3", 2, 16.0),
        ("2^3^2 + 0*n", 1, 512.0),
        ("n^-1", 4, 0.25),
        ("(n + 1)^2 / n^2", 1, 4.0),
    ],
)
def test_caret_is_power_with_the_precedence_of_power(source, n, expected):
    assert value(source, n=[n])[0] == pytest.approx(expected, rel=1e-12)
    assert value(source.replace("^", "**"), n=[n])[0] == pytest.approx(expected, rel=1e-12)


def test_constant_expression_broadcasts_to_every_point():
    model = parse_analytical("2 * pi", PARAMS)
    got = model.evaluate({"n": [1, 2, 3], "bx": [4, 5, 6]})
    np.testing.assert_allclose(got, [2 * math.pi] * 3)


def test_folded_multi_line_text_is_one_expression():
    text = "ceil(n/bx)\n  * (bx + 2)\n\t* n\n"
    model = parse_analytical(text, PARAMS)
    assert model.source == "ceil(n/bx) * (bx + 2) * n"
    assert not model.is_callable and model.parameters == PARAMS
    got = model.evaluate({"n": [64, 100], "bx": [16, 30]})
    np.testing.assert_allclose(got, [4 * 18 * 64, 4 * 32 * 100])


def test_stencil_traffic_model_from_the_example():
    text = textwrap.dedent(
        """
        8 * ceil(n/bx) * ceil(n/by) * ceil(n/bz)
        * (ceil((min(bx, n) + 2) / 8) * 8 * (min(by, n) + 2) * (min(bz, n) + 2)
           + 2 * min(bx, n) * min(by, n) * min(bz, n))
        """
    )
    model = parse_analytical(text, ("n", "bx", "by", "bz"))
    got = model.evaluate({"n": [32, 32], "bx": [8, 128], "by": [8, 128], "bz": [8, 128]})
    # 4x4x4 blocks of 8^3 (+ halo: x rounded up to 16); one unblocked 32^3 block.
    expected = [8 * 64 * (16 * 10 * 10 + 2 * 8**3), 8 * (40 * 34 * 34 + 2 * 32**3)]
    np.testing.assert_allclose(got, expected)


def test_missing_parameter_value_is_named():
    model = parse_analytical("n * bx", PARAMS)
    with pytest.raises(AnalyticalError, match="no value for parameter bx"):
        model.evaluate({"n": [1.0]})


# ---------------------------------------------------------------- parse errors


@pytest.mark.parametrize(
    ("source", "column", "fragment"),
    [
        ("2*n + m", 7, "unknown name 'm'"),
        ("n * foo(bx)", 5, "unknown function 'foo'"),
        ("n + bx.real", 5, "Attribute is not allowed"),
        ("n[0]", 1, "Subscript is not allowed"),
        ("lambda: n", 1, "Lambda is not allowed"),
        ("n * (lambda: 2)()", 5, "unknown function"),
        ("n < 3", 1, "Compare is not allowed"),
        ("n if bx else 1", 1, "IfExp is not allowed"),
        ("n and bx", 1, "BoolOp is not allowed"),
        ("[n, bx]", 1, "List is not allowed"),
        ("n << 1", 1, "operator is not allowed"),
        ("~n", 1, "operator is not allowed"),
        ("n * 'x'", 5, "'x' is not a number"),
        ("True * n", 1, "True is not a number"),
        ("2j * n", 1, "2j is not a number"),
        ("min(n, bx, key=1)", 1, "min() takes no keyword arguments"),
        ("n * log(n, base=2)", 5, "log() takes no keyword arguments"),
        ("n * sqrt(n, bx)", 5, "sqrt() takes 1 argument(s), got 2"),
        ("max(n)", 1, "max() takes at least 2 argument(s), got 1"),
        ("n * (bx", 5, "not an expression"),
        ("n bx", 3, "not an expression"),
    ],
)
def test_parse_errors_name_the_column(source, column, fragment):
    error = parse_error(source)
    assert isinstance(error, ValueError)
    assert error.column == column
    assert str(error).startswith(f"column {column}: ")
    assert fragment in str(error)


@pytest.mark.parametrize(
    ("source", "column"),
    [
        ("n^2 * m", 7),
        ("n^2 * n^2 + m", 13),
        ("n^2 * (bx", 7),
        ("n**2 * m", 8),
        ("n ** 2 + 3 ** 2 + m", 19),
    ],
)
def test_columns_are_counted_in_the_users_text(source, column):
    assert parse_error(source).column == column


def test_unknown_name_lists_what_is_allowed():
    message = str(parse_error("n * size"))
    assert "unknown name 'size'" in message
    assert "the parameters (n, bx)" in message
    for allowed in ("pi", "e", "^", "log2()", "ceil()", "min()", "max()"):
        assert allowed in message


def test_unknown_function_lists_the_known_ones():
    message = str(parse_error("cbrt(n)"))
    assert "unknown function 'cbrt'" in message
    assert "known: log, ln, log2, log10, sqrt, exp, ceil, floor, abs, min, max" in message


def test_without_parameters_every_name_is_unknown():
    assert "the parameters (none)" in str(parse_error("n + 1", ()))


@pytest.mark.parametrize("source", ["", "   ", "\n\t"])
def test_empty_expression(source):
    error = parse_error(source)
    assert "empty" in str(error) and error.column is None


def test_code_is_never_executed(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    marker = tmp_path / "pwned"
    for source in (
        f"__import__('os').system('touch {marker}')",
        f"n * __import__('pathlib').Path('{marker}').touch()",
        "().__class__.__bases__[0].__subclasses__()",
        "open('pwned', 'w')",
    ):
        with pytest.raises(AnalyticalError, match="not allowed|unknown function"):
            parse_analytical(source, PARAMS)
    assert not marker.exists()


@pytest.mark.parametrize("source", ["n +", "2 * n *", "n^2 +"])
def test_syntax_error_at_the_end_has_a_1_based_column(source):
    error = parse_error(source)
    assert error.column == len(source) + 1  # just after the last character
    assert "column 0" not in str(error) and "column -" not in str(error)


# ---------------------------------------------------------------- evaluation errors


@pytest.mark.parametrize(
    ("source", "shown", "point"),
    [
        ("n - 4", "gives 0 at", "n=4, bx=2"),
        ("n - 10*bx", "gives -2 at", "n=8, bx=1"),
        ("n / (bx - 1)", "gives inf at", "n=8, bx=1"),
        ("sqrt(n - 9)", "gives nan at", "n=8, bx=1"),
        ("exp(n * 100)", "gives inf at", "n=8, bx=1"),
    ],
)
def test_non_positive_or_non_finite_results_name_the_point(source, shown, point):
    model = parse_analytical(source, PARAMS)
    with pytest.raises(AnalyticalError) as info:
        model.evaluate({"n": [8.0, 4.0, 16.0], "bx": [1.0, 2.0, 1.0]})
    message = str(info.value)
    assert repr(source) in message and shown in message and f"at {point};" in message
    assert "positive and finite" in message
    assert info.value.column is None


def test_positive_results_pass_through_unchanged():
    model = parse_analytical("n - 4", PARAMS)
    np.testing.assert_array_equal(model.evaluate({"n": [5, 6], "bx": [1, 1]}), [1.0, 2.0])


# ---------------------------------------------------------------- "module:function"


@pytest.fixture
def module_folder(tmp_path):
    """A folder with a uniquely named module; the module is forgotten afterwards."""
    name = "user_model_" + re.sub(r"\W", "_", tmp_path.name)
    before = list(sys.path)

    def write(source: str) -> str:
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(source), encoding="utf-8")
        return name

    yield tmp_path, write
    sys.modules.pop(name, None)
    assert sys.path == before


def test_callable_gets_keyword_arguments_ints_when_integral(module_folder):
    folder, write = module_folder
    name = write(
        """
        def cost(n, b):
            assert isinstance(n, int), type(n)
            return n * b + (0 if isinstance(b, int) else 1000)
        """
    )
    model = parse_analytical(f"{name}:cost", ("n", "b"), folder)
    assert model.is_callable and model.source == f"{name}:cost"
    got = model.evaluate({"n": [2.0, 3.0], "b": [4.0, 0.5]})
    np.testing.assert_array_equal(got, [8.0, 1001.5])
    assert str(folder) not in sys.path


def test_callable_may_be_a_nested_attribute(module_folder):
    folder, write = module_folder
    name = write(
        """
        class Models:
            @staticmethod
            def traffic(n):
                return 8.0 * n
        """
    )
    model = parse_analytical(f"  {name}:Models.traffic\n", ("n",), folder)
    np.testing.assert_array_equal(model.evaluate({"n": [1, 2]}), [8.0, 16.0])


def test_exception_in_the_users_function_names_the_call(module_folder):
    folder, write = module_folder
    name = write(
        """
        def cost(n, b):
            if n > 2:
                raise RuntimeError("boom")
            return 1.0
        """
    )
    model = parse_analytical(f"{name}:cost", ("n", "b"), folder)
    with pytest.raises(AnalyticalError) as info:
        model.evaluate({"n": [1, 3], "b": [4, 4]})
    assert f"{name}:cost(n=3, b=4) raised RuntimeError('boom')" in str(info.value)


def test_callable_results_are_checked_like_expressions(module_folder):
    folder, write = module_folder
    name = write("def cost(n):\n    return n - 2\n")
    model = parse_analytical(f"{name}:cost", ("n",), folder)
    with pytest.raises(AnalyticalError, match=r"gives 0 at n=2;"):
        model.evaluate({"n": [3, 2]})


def test_callable_that_cannot_be_imported(module_folder):
    folder, write = module_folder
    name = write("VALUE = 3\n")
    with pytest.raises(AnalyticalError, match=f"cannot import {name}:nope: "):
        parse_analytical(f"{name}:nope", ("n",), folder)
    with pytest.raises(AnalyticalError, match="is not callable"):
        parse_analytical(f"{name}:VALUE", ("n",), folder)
    with pytest.raises(AnalyticalError, match="No module named 'no_such_module_xyz'"):
        parse_analytical("no_such_module_xyz:f", ("n",), folder)


def test_module_failing_at_import_is_an_analytical_error(module_folder):
    folder, write = module_folder
    name = write("RATIO = 1 / 0\n\ndef cost(n):\n    return n\n")
    with pytest.raises(AnalyticalError, match="cannot import"):
        parse_analytical(f"{name}:cost", ("n",), folder)


# ---------------------------------------------------------------- calibration, departure


def test_exact_model_calibrates_to_its_factor_with_no_departure():
    a = np.array([1.0, 2.0, 4.0, 1000.0])
    y = 3e-6 * a
    assert calibrate(a, y) == pytest.approx(3e-6, rel=1e-12)
    dep = departure(a, y)
    assert dep.scale == pytest.approx(3e-6, rel=1e-12)
    np.testing.assert_allclose(dep.ratios, 1.0, rtol=1e-12)
    assert dep.mape == pytest.approx(0.0, abs=1e-9)


def test_calibration_is_the_geometric_mean_of_the_ratios():
    a = np.ones(4)
    y = np.array([1.0, 4.0, 1.0, 4.0])
    assert calibrate(a, y) == pytest.approx(2.0)
    dep = departure(a, y)
    np.testing.assert_allclose(dep.ratios, [0.5, 2.0, 0.5, 2.0])
    # the calibrated model predicts 2 everywhere: |2-1|/1 and |2-4|/4 -> 75% on average
    assert dep.mape == pytest.approx(75.0)


def test_worst_points_are_furthest_in_log_ratio():
    a = np.array([10.0, 20.0, 40.0, 80.0])
    y = np.array([10.0, 200.0, 10.0, 80.0])  # ratios to a: 1, 10, 1/4, 1
    dep = departure(a, y)
    scale = (10 * 0.25) ** 0.25
    np.testing.assert_allclose(dep.ratios, np.array([1, 10, 0.25, 1]) / scale)
    assert dep.worst(2) == [1, 2]
    assert dep.worst(1) == [1]
    assert sorted(dep.worst(10)) == [0, 1, 2, 3]


def test_calibrate_needs_points():
    with pytest.raises(AnalyticalError, match="no points"):
        calibrate(np.array([]), np.array([]))


def test_report_facts_state_the_departure():
    model = parse_analytical("n*b", ("n", "b"))
    points = (Point((1.0, 1.0), (2.0, 2.2, 1.8)), Point((2.0, 4.0), (16.0,)), Point((3.0, 1.0), ()))
    kernel = Kernel(name="k", metric="time", points=points)
    head, facts = analytical_facts(model, kernel, ("n", "b"))
    assert head == "analytical model: n*b"
    assert facts.startswith("the measurements depart from it by 0.0% on average")
    assert "over 2 points" in facts and "1.00× the model" in facts


def test_report_facts_when_the_model_cannot_be_evaluated():
    model = parse_analytical("n - 2", ("n",))
    kernel = Kernel(name="k", metric="time", points=(Point((2.0,), (1.0,)),))
    head, problem = analytical_facts(model, kernel, ("n",))
    assert head == "analytical model: n - 2"
    assert problem.startswith("the analytical model could not be evaluated:")
    assert "gives 0 at n=2" in problem
