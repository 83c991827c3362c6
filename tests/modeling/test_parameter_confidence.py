"""A model of several parameters says how sure its class is in each parameter."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from support import perfguard

from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements
from guard.modeling.growth import misfit_model

P_SIZES = (32.0, 64.0, 128.0, 256.0, 512.0)
N_WIDE = (1000.0, 2000.0, 4000.0, 8000.0, 16000.0)
N_NARROW = (5000.0, 6000.0, 7000.0, 8000.0, 9000.0)  # x1.8: no class can be told apart


def kernel(name: str, at: list[tuple[float, float]], noise: float, seed: int) -> Kernel:
    """0.5 + 2e-4 p n, each of five repetitions times 1 + U[-noise, noise]."""
    rng = np.random.default_rng(seed)
    return Kernel(
        name,
        "time",
        tuple(
            Point((p, n), tuple(0.5 + 2e-4 * p * n * (1 + rng.uniform(-noise, noise, 5))))
            for p, n in at
        ),
    )


def cross(n_sizes: tuple[float, ...]) -> list[tuple[float, float]]:
    return [(p, n_sizes[0]) for p in P_SIZES] + [(P_SIZES[0], n) for n in n_sizes[1:]]


def test_a_grid_of_clear_growth_is_sure_of_its_class_in_each_parameter() -> None:
    grid = [(p, n) for p in P_SIZES for n in N_WIDE]
    (m,) = model_measurements(MeasurementSet(("p", "n"), (kernel("k", grid, 0.01, 1),))).models
    assert m.complexity() == "O(p n)"
    each = m.extra("parameter_confidence")
    assert [c.parameter for c in each.parameters] == ["p", "n"]
    assert all(c.probability > 0.9 for c in each.parameters), each
    assert m.extra("confidence") is None  # the one-parameter field keeps its meaning
    # read off the longest line of each parameter: the largest other value on ties
    assert [dict(line.at) for line in each.lines] == [{"n": 16000.0}, {"p": 512.0}]


def test_a_line_too_short_to_tell_classes_apart_says_so_and_names_the_line(
    tmp_path: Path,
) -> None:
    at = cross(N_NARROW)
    path = tmp_path / "cross.txt"
    k = kernel("solve", at, 0.02, 2)
    text = ["PARAMETER p", "PARAMETER n"] + [f"POINTS ( {p:g} {n:g} )" for p, n in at]
    text += ["METRIC time", "REGION solve"]
    text += ["DATA " + " ".join(repr(v) for v in point.values) for point in k.points]
    path.write_text("\n".join(text) + "\n")

    doc = json.loads(perfguard("model", path, "--json").stdout)
    (entry,) = doc["models"]
    n = entry["parameter_confidence"]["n"]
    p = entry["parameter_confidence"]["p"]
    assert n["probability"] < 0.5 < p["probability"], entry["parameter_confidence"]
    assert n["line"] == {"at": {"p": 32.0}, "sizes": list(N_NARROW)}
    assert sum(c["probability"] for c in n["classes"]) <= 1.0 + 1e-9

    shown = perfguard("model", path, env={"COLUMNS": "200"})
    assert shown.returncode == 0, shown.stderr
    row = next(line for line in shown.stdout.splitlines() if "solve" in line)
    assert f"n {int(n['probability'] * 100)}%" in row
    note = next(line for line in shown.stderr.splitlines() if "its class in n" in line)
    assert "longest line of n (5 sizes, 5000..9000, at p=32)" in note
    assert "measure more sizes of n" in note
    assert "its class in p" not in note or p["probability"] < 0.8


def test_one_parameter_models_keep_their_own_field_only() -> None:
    k = Kernel("k", "time", tuple(Point((x,), (1.0 + x, 1.01 * (1.0 + x))) for x in N_WIDE))
    (m,) = model_measurements(MeasurementSet(("n",), (k,))).models
    assert m.extra("parameter_confidence") is None
    assert m.extra("confidence") is not None


def test_a_model_of_several_parameters_that_misfits_states_no_class_probability() -> None:
    """2^(p/32) n fitted as p^5 n misses its values by 50%: it showed 'p 97%, n 67%'."""
    rng = np.random.default_rng(4)
    grid = [(p, n) for p in P_SIZES for n in N_WIDE]
    k = Kernel(
        "expo",
        "time",
        tuple(
            Point((p, n), tuple(2 ** (p / 32) * n * 1e-3 * (1 + rng.uniform(-0.02, 0.02, 5))))
            for p, n in grid
        ),
    )
    (m,) = model_measurements(MeasurementSet(("p", "n"), (k,))).models
    assert m.smape >= 50 and misfit_model(m)  # no class fits: the table marks it (misfit)
    assert m.extra("parameter_confidence") is None


def test_a_line_the_other_terms_drown_says_so_instead_of_asking_for_more_sizes(
    tmp_path: Path,
) -> None:
    """10 p^3 + n: the longest n line (at the largest p) moves by a millionth, and the note
    asked to 'measure more sizes of n', which cannot help."""
    grid = [(p, n) for p in P_SIZES for n in N_WIDE]
    rows = ["PARAMETER p", "PARAMETER n"] + [f"POINTS ( {p:g} {n:g} )" for p, n in grid]
    rows += ["METRIC time", "REGION b"]
    rows += [f"DATA {v!r} {v * 1.002!r} {v * 0.998!r}" for v in (10 * p**3 + n for p, n in grid)]
    path = tmp_path / "g.txt"
    path.write_text("\n".join(rows) + "\n")
    shown = perfguard("model", path, env={"COLUMNS": "200"})
    note = next(line for line in shown.stderr.splitlines() if "its class in n" in line)
    assert "cannot show n's class" in note and "measure more sizes of n" not in note


def test_an_exponential_like_model_of_several_parameters_states_no_class_probability() -> None:
    """Its formula is only the least bad class fit: a per-parameter 'sure' beside
    'exponential-like' would speak for a class it does not have."""
    rng = np.random.default_rng(1)
    grid = [(p, float(n)) for p in (2.0, 4.0, 8.0, 16.0, 32.0) for n in range(10, 21, 2)]
    values = (p * (2.7e-4 + 1e-8 * 2.5**n) for p, n in grid)
    k = Kernel(
        "redos",
        "time",
        tuple(
            Point(at, tuple(v * (1 + rng.uniform(-0.02, 0.02, 5)))) for at, v in zip(grid, values)
        ),
    )
    (m,) = model_measurements(MeasurementSet(("p", "n"), (k,))).models
    assert m.complexity() == "exponential-like"
    assert m.extra("parameter_confidence") is None
