"""``perfguard predict`` end to end, plus its pure helpers.

The ``runs`` fixture runs every command of this module once (training the hybrid model,
200 trees and 5 folds, takes about a second a run), and the tests only read the results.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import subprocess
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from support import Ran, failed_run_file, perfguard, perfguard_process

from guard.config import parse_range
from guard.errors import UsageError
from guard.modeling.analytical import parse_analytical
from guard.modeling.hybrid import HybridModel
from guard.modeling.predict import (
    PREDICTIONS_SCHEMA,
    Predictor,
    parse_grid,
    parse_point,
    predict_rows,
    predictions_json,
)

pytest.importorskip("sklearn.ensemble")

NS = (8, 16, 32, 64, 128, 256, 512, 1024)
BS = (1, 2, 4, 8, 16)
JITTER = (1.0, 1.04, 0.97, 1.02, 0.99, 1.03, 0.98, 1.01, 0.96, 1.05, 1.0, 0.95, 1.02)
MODEL = "n*n * (1 + 4/b)"
ROW_KEYS = {"at", "value", "low", "high", "analytical", "outside_measured"}
KERNEL_KEYS = {
    "kernel",
    "metric",
    "unit",
    "parameters",
    "training_points",
    "analytical",
    "analytical_scale",
    "analytical_weight",
    "cross_validated_mape",
    "analytical_mape",
    "predictions",
}


def measurements() -> dict:
    """perfguard/measurements@1: 8 x 5 configurations, 3 repetitions with fixed jitter."""
    points, k = [], 0
    for n in NS:
        for b in BS:
            base = 2e-7 * n * n * (1 + 4 / b)
            values = []
            for _ in range(3):
                values.append(base * JITTER[k % len(JITTER)])
                k += 1
            points.append({"at": {"n": n, "b": b}, "values": values})
    kernel = {"name": "sweep", "metric": "time", "unit": "s", "points": points}
    return {"schema": "perfguard/measurements@1", "parameters": ["n", "b"], "kernels": [kernel]}


CONFIG = f"""\
version: 1
parameters:
  n: {list(NS)}
  b: {list(BS)}
benchmarks:
  sweep:
    command: ["true"]
    analytical: "{MODEL}"
"""

BAD_CONFIG = """\
version: 1
parameters:
  n: [8, 16]
  b: [1, 2]
benchmarks:
  sweep:
    command: ["true"]
    analytical: "n * q"
"""

TINY_PROJECT = {
    "tiny.py": """\
        def k(n, b):
            return lambda: sum(range(int(n * b)))
        """,
    "perfguard.yml": """\
        version: 1
        parameters:
          n: [100, 200, 400, 800]
          b: [1, 2, 4]
        run:
          repetitions: 3
          min_time: 0.001
          warmup: 0
        benchmarks:
          tiny:
            callable: "tiny:k"
            analytical: "n*b"
        """,
}


@pytest.fixture(scope="module")
def project(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("predict")
    (root / "m.json").write_text(json.dumps(measurements()), encoding="utf-8")
    (root / "perfguard.yml").write_text(CONFIG, encoding="utf-8")
    (root / "bad.yml").write_text(BAD_CONFIG, encoding="utf-8")
    (root / "empty").mkdir()
    fake = root / "fake" / "sklearn"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text('raise ImportError("scikit-learn is not here")\n')
    tiny = root / "tiny"
    tiny.mkdir()
    for name, text in TINY_PROJECT.items():
        (tiny / name).write_text(textwrap.dedent(text), encoding="utf-8")
    # The same project, but its benchmark leaves a mark when it is set up.
    marked = root / "marked"
    marked.mkdir()
    (marked / "perfguard.yml").write_text(
        textwrap.dedent(TINY_PROJECT["perfguard.yml"]), encoding="utf-8"
    )
    (marked / "tiny.py").write_text(
        "import pathlib\n\n\ndef k(n, b):\n"
        "    pathlib.Path(__file__).with_name('measured').touch()\n"
        "    return lambda: None\n",
        encoding="utf-8",
    )
    return root


def predict_jobs(root: Path) -> dict[str, tuple[list[str], Path]]:
    """Name -> (perfguard arguments, working folder)."""
    data = ["predict", "m.json", "-c", "perfguard.yml"]
    at = ["--at", "n=100,b=3", "--at", "n=2048,b=2"]
    return {
        "json": ([*data, *at, "--json"], root),
        "json again": ([*data, *at, "--json"], root),
        "table": ([*data, *at], root),
        "grid": ([*data, "--grid", "n=64..256 +64", "--grid", "b=2,4", "--json"], root),
        "no points": (data, root),
        "unknown at": ([*data, "--at", "n=100,q=3"], root),
        "missing at": ([*data, "--at", "n=100"], root),
        "non-numeric at": ([*data, "--at", "n=abc,b=2"], root),
        "at and grid": ([*data, "--at", "n=100,b=2", "--grid", "n=64"], root),
        "bad analytical": ([*data, "--analytical", "sw*=n +* b"], root),
        "bad config": (["predict", "m.json", "-c", str(root / "bad.yml")], root),
        "no inputs": (["predict", "--at", "n=8,b=1"], root / "empty"),
        "unknown kernel": ([*data, "--kernel", "nope*"], root),
        "measured": (["predict", "--json", "--at", "n=300,b=3"], root / "tiny"),
        "typo before measuring": (["predict", "--at", "n=300"], root / "marked"),
        "report": (["check", "m.json", "-c", "perfguard.yml", "--markdown", "out.md"], root),
    }


def without_sklearn(root: Path) -> subprocess.CompletedProcess[str]:
    """perfguard predict with a scikit-learn that fails to import, first on PYTHONPATH."""
    path = os.pathsep.join(filter(None, [str(root / "fake"), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "COLUMNS": "200", "PYTHONPATH": path}
    return perfguard_process("predict", "m.json", "--at", "n=8,b=1", cwd=root, env=env)


@pytest.fixture(scope="module")
def runs(project) -> dict[str, Ran | subprocess.CompletedProcess[str]]:
    """Every run of this module, once: the tests only read the results.

    Two need a fresh interpreter: one without scikit-learn, and the second JSON run, so
    "byte-identical" holds across processes (other hash seeds), not only within one.
    """
    jobs = predict_jobs(project)
    again, cwd = jobs.pop("json again")
    with ThreadPoolExecutor(max_workers=2) as pool:  # the processes run while these do
        fresh = {
            "json again": pool.submit(perfguard_process, *again, cwd=cwd),
            "no sklearn": pool.submit(without_sklearn, project),
        }
        done: dict[str, Ran | subprocess.CompletedProcess[str]] = {
            name: perfguard(*args, cwd=cwd) for name, (args, cwd) in jobs.items()
        }
        return done | {name: future.result() for name, future in fresh.items()}


def predictions(run: Ran | subprocess.CompletedProcess[str]) -> dict:
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


# ---------------------------------------------------------------- successful runs


def test_json_follows_the_predictions_contract(runs):
    doc = predictions(runs["json"])
    assert doc["schema"] == PREDICTIONS_SCHEMA == "perfguard/predictions@1"
    (kernel,) = doc["kernels"]
    assert set(kernel) == KERNEL_KEYS
    assert kernel["kernel"] == "sweep" and kernel["metric"] == "time" and kernel["unit"] == "s"
    assert kernel["parameters"] == ["n", "b"]
    assert kernel["training_points"] == len(NS) * len(BS)
    assert kernel["analytical"] == MODEL
    assert 0.0 <= kernel["analytical_weight"] <= 1.0
    assert kernel["analytical_scale"] == pytest.approx(2e-7, rel=0.05)
    assert set(kernel["cross_validated_mape"]) == {"analytical", "stacked", "hybrid"}
    assert 0.0 <= kernel["analytical_mape"] < 5.0  # the jitter is within 5%
    rows = kernel["predictions"]
    assert len(rows) == 2
    for row in rows:
        assert set(row) == ROW_KEYS
        assert 0 < row["low"] <= row["value"] <= row["high"]
        assert row["analytical"] > 0
    assert [row["at"] for row in rows] == [{"n": 100, "b": 3}, {"n": 2048, "b": 2}]
    assert [row["outside_measured"] for row in rows] == [[], ["n"]]
    # the calibrated analytical model at the requested points
    for row in rows:
        n, b = row["at"]["n"], row["at"]["b"]
        expected = kernel["analytical_scale"] * n * n * (1 + 4 / b)
        assert row["analytical"] == pytest.approx(expected, rel=1e-9)


def test_json_is_byte_identical_across_runs(runs):
    assert runs["json"].returncode == runs["json again"].returncode == 0
    assert runs["json"].stdout == runs["json again"].stdout


def test_table_shows_the_requested_points(runs):
    run = runs["table"]
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert f"sweep (time): {len(NS) * len(BS)} configurations" in out
    assert "cross-validated error: analytical" in out
    assert "the measurements depart from the calibrated analytical model by" in out
    assert "predicted (s)" in out and "analytical (s)" in out
    cells = {
        tuple(re.findall(r"[0-9][0-9.e+-]*\*?", line)[:2])
        for line in out.splitlines()
        if re.search(r"\b(100|2048)\b", line)
    }
    assert ("100", "3") in cells and ("2048*", "2") in cells  # * marks beyond the range
    assert "beyond the measured range" in out


def test_grid_predicts_the_product_of_the_values(runs):
    (kernel,) = predictions(runs["grid"])["kernels"]
    ats = [row["at"] for row in kernel["predictions"]]
    assert ats == [{"n": n, "b": b} for n in (64, 128, 192, 256) for b in (2, 4)]
    assert all(row["outside_measured"] == [] for row in kernel["predictions"])


def test_config_run_measures_the_benchmarks_first(runs):
    doc = predictions(runs["measured"])
    (kernel,) = doc["kernels"]
    assert kernel["kernel"] == "tiny"
    assert kernel["training_points"] == 12
    assert kernel["analytical"] == "n*b"
    assert 0.0 <= kernel["analytical_weight"] <= 1.0
    (row,) = kernel["predictions"]
    assert row["at"] == {"n": 300, "b": 3} and row["outside_measured"] == []
    assert row["value"] > 0 and row["analytical"] > 0


def test_check_report_states_the_departure_from_the_analytical_model(runs, project):
    run = runs["report"]
    assert run.returncode in (0, 1), run.stderr
    report = (project / "out.md").read_text(encoding="utf-8")
    assert "analytical model:" in report
    assert "the measurements depart from it by" in report
    assert f"over {len(NS) * len(BS)} points" in report


def test_without_points_it_summarizes_the_model_and_says_how_to_predict(runs):
    run = runs["no points"]
    assert run.returncode == 0, run.stderr
    assert f"sweep (time): {len(NS) * len(BS)} configurations" in run.stdout
    assert "predicted" not in run.stdout  # no table
    assert "add --at n=...,... or --grid PARAM=VALUES" in run.stderr


# ---------------------------------------------------------------- errors


@pytest.mark.parametrize(
    ("name", "fragment"),
    [
        ("unknown at", "unknown parameter 'q' (parameters: n, b)"),
        ("missing at", "give a value for b too"),
        ("non-numeric at", "'abc' is not a number"),
        ("at and grid", "give either --at points or a --grid, not both"),
        ("bad analytical", "--analytical sw*=n +* b: column"),
        ("bad config", "benchmarks.sweep.analytical: column 5: unknown name 'q'"),
        ("no inputs", "give the measurements to learn from"),
        ("unknown kernel", "no kernel matches nope* (kernels: sweep)"),
        ("no sklearn", "perfguard[ml]"),
    ],
)
def test_bad_input_is_one_line_exit_2(runs, project, name, fragment):
    run = runs[name]
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], run.stderr
    assert run.stdout == ""
    if name == "bad config":  # file:line of the analytical: entry
        assert f"{project / 'bad.yml'}:8: benchmarks.sweep.analytical" in lines[0]


def test_a_bad_point_stops_a_config_run_before_anything_is_measured(runs, project):
    run = runs["typo before measuring"]
    assert run.returncode == 2 and "give a value for b too" in run.stderr
    assert not (project / "marked" / "measured").exists()


# ---------------------------------------------------------------- the pure helpers


def test_parse_point():
    assert parse_point(" n = 4096 , bx=32", ("n", "bx")) == {"n": 4096.0, "bx": 32.0}
    assert parse_point("bx=1.5,n=1e3", ("n", "bx")) == {"n": 1000.0, "bx": 1.5}


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("n=1,bx=2,", "expected NAME=VALUE pairs"),
        ("n4096", "expected NAME=VALUE pairs"),
        ("n=1,n=2,bx=3", "n given twice"),
        ("n=1,q=2", "unknown parameter 'q'"),
        ("n=1", "give a value for bx too"),
        ("n=0,bx=2", "expected a positive number, got 0"),
        ("n=-3,bx=2", "expected a positive number, got -3"),
        ("n=inf,bx=2", "expected a positive number, got inf"),
        ("n=x,bx=2", "'x' is not a number"),
        # a traceback and exit 1 from the trees' single precision
        ("n=1e60,bx=2", "1e60 is too large to predict at (at most 1e30)"),
    ],
)
def test_parse_point_rejects(text, fragment):
    with pytest.raises(UsageError, match=re.escape(fragment)):
        parse_point(text, ("n", "bx"))


def test_parse_grid_is_the_product_in_parameter_order():
    points = parse_grid(["bx=8,16", "n=64..256 +64"], ("n", "bx"), parse_range)
    assert points == [{"n": n, "bx": b} for n in (64.0, 128.0, 192.0, 256.0) for b in (8.0, 16.0)]
    assert len(parse_grid(["n=2^4..2^6", "bx=1"], ("n", "bx"), parse_range)) == 3


@pytest.mark.parametrize(
    ("items", "fragment"),
    [
        (["n=8", "q=1"], "expected PARAMETER=VALUES with one of n, bx"),
        (["n=8", "bx"], "expected PARAMETER=VALUES"),
        (["n=8", "n=16", "bx=1"], "n given twice"),
        (["n=8"], "give values for bx too"),
        (["n=8..4", "bx=1"], "--grid 'n=8..4'"),
        (["n=8,zero", "bx=1"], "'zero' is not a number"),
    ],
)
def test_parse_grid_rejects(items, fragment):
    with pytest.raises(UsageError, match=re.escape(fragment)):
        parse_grid(items, ("n", "bx"), parse_range)


@pytest.fixture(scope="module")
def predictor() -> Predictor:
    x = np.array([(n, b) for n in (8.0, 16.0, 32.0, 64.0) for b in (1.0, 2.0)])
    model = parse_analytical("n * b", ("n", "b"))
    a = model.evaluate({"n": x[:, 0], "b": x[:, 1]})
    return Predictor(
        kernel="k",
        metric="time",
        unit="s",
        parameters=("n", "b"),
        model=HybridModel.fit(x, 1e-6 * a, a, seed=0, trees=20),
        analytical=model,
        departure=None,
        bounds=((8.0, 64.0), (1.0, 2.0)),
    )


def test_outside_names_parameters_beyond_the_measured_range(predictor):
    assert predictor.outside({"n": 8.0, "b": 2.0}) == []
    assert predictor.outside({"n": 100.0, "b": 1.5}) == ["n"]
    assert predictor.outside({"n": 4.0, "b": 3.0}) == ["n", "b"]


def test_predict_rows_and_json(predictor):
    rows = predict_rows(predictor, [{"n": 32.0, "b": 1.5}, {"n": 128.0, "b": 2.0}])
    assert [row["at"] for row in rows] == [{"n": 32, "b": 1.5}, {"n": 128, "b": 2}]
    assert [row["outside_measured"] for row in rows] == [[], ["n"]]
    assert rows[1]["analytical"] == pytest.approx(1e-6 * 256, rel=1e-9)
    doc = predictions_json([(predictor, rows)])
    assert doc["schema"] == PREDICTIONS_SCHEMA
    (kernel,) = doc["kernels"]
    assert kernel["training_points"] == 8 and kernel["analytical"] == "n * b"
    assert kernel["analytical_mape"] is None and kernel["predictions"] == rows
    json.dumps(doc)  # plain JSON types only


def test_analytical_model_failing_at_a_point_is_a_usage_error(predictor):
    shifted = dataclasses.replace(predictor, analytical=parse_analytical("n - 4", ("n", "b")))
    assert predict_rows(shifted, [{"n": 8.0, "b": 1.0}])[0]["analytical"] > 0
    with pytest.raises(UsageError, match=r"k: analytical model: 'n - 4' gives -2 at n=2, b=1;"):
        predict_rows(shifted, [{"n": 8.0, "b": 1.0}, {"n": 2.0, "b": 1.0}])


@pytest.mark.parametrize("with_model", [True, False])
def test_predict_rows_without_points_is_empty(predictor, with_model):
    chosen = predictor
    if not with_model:
        x = np.array([(n, b) for n in (8.0, 16.0, 32.0, 64.0) for b in (1.0, 2.0)])
        trees = HybridModel.fit(x, x[:, 0] * x[:, 1], seed=0, trees=20)
        chosen = dataclasses.replace(predictor, model=trees, analytical=None)
    assert predict_rows(chosen, []) == []


def test_an_analytical_model_of_a_benchmark_the_file_lacks_is_not_read(tmp_path: Path) -> None:
    # ./perfguard.yml's stencil model over bx refused a file of other kernels over n only:
    # "benchmarks.stencil7.analytical: unknown name 'bx'", exit 2
    from guard.config import analytical_models, load_config

    config = tmp_path / "perfguard.yml"
    config.write_text(
        "version: 1\nparameters:\n  n: [1, 2]\n  bx: [1, 2]\nbenchmarks:\n"
        "  stencil7:\n    command: 'true'\n    analytical: 'n^3 / bx'\n"
    )
    cfg = load_config(config)
    assert analytical_models(cfg, ("n",), names={"other"}) == {}
    with pytest.raises(Exception, match="unknown name 'bx'"):
        analytical_models(cfg, ("n",), names={"stencil7"})  # its own kernel: still refused


def test_a_kernel_too_small_to_train_is_left_out_with_a_note(tmp_path: Path) -> None:
    """One kernel of a single size refused the whole file; named by --kernel it still is an
    error."""
    kernels = [
        {
            "name": "sweep",
            "metric": "time",
            "points": [{"at": {"n": n}, "values": [n * 1e-6, n * 1.1e-6]} for n in range(1, 9)],
        },
        {"name": "onesize", "metric": "time", "points": [{"at": {"n": 4}, "values": [1.0]}]},
    ]
    source = tmp_path / "m.json"
    source.write_text(
        json.dumps({"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": kernels})
    )
    done = perfguard("predict", source, "--at", "n=6")
    assert done.returncode == 0, done.stderr
    assert "note left out onesize: 1 measured configurations" in done.stderr
    assert "sweep" in done.stdout
    named = perfguard("predict", source, "--at", "n=6", "--kernel", "onesize")
    assert named.returncode == 2 and "onesize: 1 measured configurations" in named.stderr


def test_a_benchmark_that_failed_to_run_is_exit_3_as_in_check(tmp_path: Path) -> None:
    """A crash while measuring was printed, and predict exited 0; run and check exit 3."""
    points = [{"at": {"n": n}, "values": [n * 1e-6, n * 1.1e-6]} for n in range(1, 9)]
    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "run": {"errors": [{"benchmark": "crash", "kind": "crash", "message": "exit code 1"}]},
        "kernels": [{"name": "sweep", "metric": "time", "points": points}],
    }
    source = tmp_path / "m.json"
    source.write_text(json.dumps(doc))
    done = perfguard("predict", source, "--at", "n=6")
    assert done.returncode == 3, done.stderr
    assert "sweep" in done.stdout  # the kernels that ran are still predicted


def test_a_file_whose_every_benchmark_failed_is_exit_3(tmp_path: Path) -> None:
    source = failed_run_file(tmp_path / "m.json", "exit code 1")
    done = perfguard("predict", source, "--at", "n=6")
    assert done.returncode == 3, done.stderr
    assert "no benchmark ran to the end" in done.stderr and "exit code 1" in done.stderr
