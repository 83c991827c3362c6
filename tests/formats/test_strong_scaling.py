"""--scaling strong on files: each value times the process count (Extra-P's conversion)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from support import perfguard

from guard import formats
from guard.errors import UsageError
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import model_measurements

RANKS = (16, 32, 64, 128, 256, 512)


def text_file(path: Path, curves: dict[str, object], ranks=RANKS, seed: int = 1) -> Path:
    """An Extra-P text file of kernels t(p), five repetitions with +-1% noise."""
    rng = np.random.default_rng(seed)
    lines = ["PARAMETER p", "POINTS " + " ".join(f"( {p} )" for p in ranks)]
    for name, f in curves.items():
        lines += [f"REGION {name}", "METRIC time"]
        for p in ranks:
            values = f(p) * (1 + rng.uniform(-0.01, 0.01, 5))  # type: ignore[operator]
            lines.append("DATA " + " ".join(f"{v:.9g}" for v in values))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_strong_multiplies_every_value_by_the_process_count(tmp_path: Path) -> None:
    path = text_file(tmp_path / "s.txt", {"solve": lambda p: 100.0 / p})
    plain = formats.load(path)
    total = formats.load(path, scaling="strong")
    for a, b in zip(plain.kernels[0].points, total.kernels[0].points):
        assert b.values == pytest.approx([v * a.at[0] for v in a.values])
    assert formats.load(path, scaling="strong=p") == total


def two_parameter_set(falls_along: tuple[str, ...]) -> MeasurementSet:
    points = []
    for p in (2, 4, 8, 16, 32):
        for n in (100, 200, 400, 800, 1600):
            t = (
                n
                * (1.0 / p if "p" in falls_along else p)
                * (1.0 / n**2 if "n" in falls_along else 1)
            )
            points.append(Point((p, n), (t,)))
    return MeasurementSet(("p", "n"), (Kernel("main", "time", tuple(points)),))


def test_with_several_parameters_the_falling_one_is_found_or_asked_for(tmp_path: Path) -> None:
    from guard.formats.strong_scaling import falling_parameters, total_effort

    assert falling_parameters(two_parameter_set(("p",))) == ["p"]
    scaled = total_effort(two_parameter_set(("p",)), None, "grid.txt")
    assert {p.values[0] for p in scaled.kernels[0].points if p.at[1] == 400} == {400.0}
    with pytest.raises(UsageError, match=r"fall along p, n; name the one .*strong=p"):
        total_effort(two_parameter_set(("p", "n")), None, "grid.txt")
    with pytest.raises(UsageError, match="no parameter's values fall"):
        total_effort(two_parameter_set(()), None, "grid.txt")
    with pytest.raises(UsageError, match=r"strong=q: grid.txt has parameters p, n"):
        total_effort(two_parameter_set(("p",)), "q", "grid.txt")


@pytest.mark.parametrize("bad", ["strong=", "weak=p", "sideways"])
def test_a_bad_scaling_is_a_usage_error(tmp_path: Path, bad: str) -> None:
    path = text_file(tmp_path / "s.txt", {"solve": lambda p: 100.0 / p})
    with pytest.raises(UsageError, match="--scaling must be weak, weak_threaded, strong or"):
        formats.load(path, scaling=bad)


def test_falling_kernels_are_marked_and_leave_the_others_drift_alone(tmp_path: Path) -> None:
    # Extra-P's strong_scaling/one_parameter_6.txt: three kernels fall, one grows linearly
    # once converted; the falling ones misfit every class and once lent that misfit, as
    # the run's drift, to the linear one (O(1) at 18%).
    curves = {f"fall{i}": (lambda p, i=i: 1e4 / p ** (1 + i)) for i in range(3)}
    curves["flat"] = lambda p: 4.0
    path = text_file(tmp_path / "s.txt", curves)
    plain = {m.kernel: m for m in model_measurements(formats.load(path)).models}
    assert all(plain[f"fall{i}"].extra("falls")["parameter"] == "p" for i in range(3))
    assert plain["flat"].extra("falls") is None and plain["flat"].complexity() == "O(1)"
    # the nearest constant of a falling kernel states no probability and predicts nothing
    # (the table showed "-", and --json predicted it at p=4096, far from the truth)
    predicted = model_measurements(formats.load(path), predict_at=4096.0).models
    fall = next(m for m in predicted if m.kernel == "fall0")
    assert fall.extra("confidence") is None and fall.extra("prediction") is None
    flat = next(m for m in predicted if m.kernel == "flat")
    assert flat.extra("prediction") is not None
    total = {m.kernel: m for m in model_measurements(formats.load(path, scaling="strong")).models}
    assert total["flat"].complexity() == "O(p)"
    assert total["flat"].extra("confidence").probability > 0.8


def test_check_sees_lost_scalability_only_as_total_effort(tmp_path: Path) -> None:
    base = text_file(tmp_path / "base.txt", {"solve": lambda p: 100.0 / p + 0.05})
    cand = text_file(tmp_path / "cand.txt", {"solve": lambda p: 100.0 / p + 0.002 * p}, seed=2)
    plain = perfguard("check", cand, "--baseline", base)
    assert plain.returncode == 0, plain.stderr
    assert "solve (time) falls" in plain.stdout and "--scaling strong" in plain.stdout
    total = perfguard("check", cand, "--baseline", base, "--scaling", "strong", "--json")
    assert total.returncode == 1, total.stderr
    import json

    (verdict,) = json.loads(total.stdout)["kernels"]
    assert verdict["regression"] and verdict["model"]["complexity"] == "O(p^2)"
    assert verdict["baseline_model"]["complexity"] == "O(p)"


def test_model_says_how_to_model_a_strong_scaling_study(tmp_path: Path) -> None:
    path = text_file(tmp_path / "s.txt", {"solve": lambda p: 100.0 / p, "io": lambda p: 5.0})
    out = perfguard("model", path)
    assert out.returncode == 0, out.stderr
    assert "solve (time) falls ÷32.0 from p=16 to p=512" in out.stderr
    assert "re-measure" not in out.stderr  # no shifted size: the constant misfits a fall
    assert "--scaling strong" in out.stderr
    doc = perfguard("model", path, "--json")
    falls = {m["kernel"]: m.get("falls") for m in __import__("json").loads(doc.stdout)["models"]}
    assert falls["io"] is None and falls["solve"]["factor"] == pytest.approx(1 / 32, rel=0.05)
    scaled = perfguard("model", path, "--scaling", "strong")
    assert "falls" not in scaled.stderr


def test_a_wrong_scaling_parameter_is_one_line_and_exit_2(tmp_path: Path) -> None:
    path = text_file(tmp_path / "s.txt", {"solve": lambda p: 100.0 / p})
    out = perfguard("model", path, "--scaling", "strong=ranks")
    assert out.returncode == 2
    assert "--scaling strong=ranks" in out.stderr and "has parameters p" in out.stderr
    assert "Traceback" not in out.stderr
