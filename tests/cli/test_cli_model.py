"""``perfguard model`` end to end: real files through the whole command."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from support import DATA, EXAMPLES, Ran, perfguard, perfguard_process

EXAMPLE = EXAMPLES / "python-kernels.json"
MODEL_KEYS = {
    "kernel",
    "metric",
    "parameters",
    "constant",
    "terms",
    "formula",
    "complexity",
    "smape",
    "noise",
}


def write_text_file(
    path: Path, rows: dict[str, list[float]], points=(16, 32, 64, 128, 256)
) -> Path:
    lines = ["PARAMETER n", "POINTS " + " ".join(f"( {p} )" for p in points)]
    for name, values in rows.items():
        lines += ["METRIC time", f"REGION {name}"] + [f"DATA {v!r} {v * 1.01!r}" for v in values]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_follows_models_contract(example_models: Ran) -> None:
    result = example_models
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["schema"] == "perfguard/models@1"
    assert {m["kernel"] for m in doc["models"]} == {
        "dict_lookup",
        "bisect",
        "sum",
        "sorted",
        "pair_loop",
    }
    for model in doc["models"]:
        assert MODEL_KEYS <= set(model)
        assert model["parameters"] == ["n"]
        assert isinstance(model["constant"], float)
        assert model["complexity"].startswith("O(")
        assert isinstance(model["noise"], float)
        for term in model["terms"]:
            assert isinstance(term["coefficient"], float)
            for factor in term["factors"]:
                assert set(factor) == {"parameter", "exponent", "log_exponent"}
                Fraction(factor["exponent"]), Fraction(factor["log_exponent"])  # exact fractions
    by_name = {m["kernel"]: m for m in doc["models"]}
    # dict_lookup steps up x1.28 between n=512 and 1024 (a cache level): reported as a
    # change of behaviour, not hidden in a model.
    (step,) = by_name["dict_lookup"]["segments"]
    assert step["between"] == [512.0, 1024.0]
    assert by_name["sum"]["complexity"] == "O(n)"
    # sorted() bends through the caches: n log n is one of its two likeliest classes
    top_two = [c["complexity"] for c in by_name["sorted"]["confidence"]["classes"][:2]]
    assert "O(n log n)" in top_two
    assert by_name["pair_loop"]["complexity"] == "O(n^2)"


def test_output_is_deterministic(example_models: Ran) -> None:
    first = example_models.stdout
    second = perfguard_process("model", EXAMPLE, "--json").stdout  # another hash seed
    assert first == second and first


def test_terminal_table_lists_models() -> None:
    result = perfguard("model", EXAMPLE)
    assert result.returncode == 0
    for text in ("kernel", "class", "pair_loop", "O(n^2)"):
        assert text in result.stdout


@pytest.mark.parametrize("modeler", ["default", "refining", "exhaustive"])
def test_every_modeler_runs(modeler: str) -> None:
    result = perfguard("model", EXAMPLE, "--modeler", modeler, "--json")
    assert result.returncode == 0, result.stderr
    assert len(json.loads(result.stdout)["models"]) == 5


def test_malformed_file_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.txt"
    bad.write_text("PARAMETER n\nPOINTS ( 1 ) ( 2 )\nMETRIC time\nREGION r\nDATA 1.0\nDATA abc\n")
    result = perfguard("model", bad)
    assert result.returncode == 2
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{bad}:6" in lines[0]
    assert "Traceback" not in result.stderr


def test_bad_kernels_are_skipped_and_the_rest_modelled(tmp_path: Path) -> None:
    path = write_text_file(
        tmp_path / "m.txt",
        {
            "good": [1.6, 3.2, 6.4, 12.8, 25.6],
            "nan": [1.0, float("nan"), 1.0, 1.0, 1.0],
            "negative": [1.0, -2.0, 1.0, 1.0, 1.0],
        },
    )
    result = perfguard("model", path, "--json")
    assert result.returncode == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [m["kernel"] for m in doc["models"]] == ["good"]
    assert {s["kernel"] for s in doc["skipped"]} == {"nan", "negative"}
    assert "skipped" in result.stderr and "NaN value" in result.stderr
    assert "Traceback" not in result.stderr


def test_nothing_modellable_is_an_error(tmp_path: Path) -> None:
    path = write_text_file(tmp_path / "m.txt", {"short": [1.0]}, points=(1,))
    result = perfguard("model", path)
    assert result.returncode == 2
    assert "only 1 distinct point," in result.stderr
    assert "no kernel could be modelled" in result.stderr


@pytest.mark.parametrize(
    "args,message",
    [
        (["--modeler", "nope"], "unknown modeler 'nope'"),
        (["--format", "nope"], "unknown format 'nope'"),
    ],
)
def test_bad_options_exit_2_before_reading(args: list[str], message: str) -> None:
    result = perfguard("model", "does-not-exist.txt", *args)
    assert result.returncode == 2
    assert message in result.stderr


def test_missing_file_exit_2() -> None:
    result = perfguard("model", "does-not-exist.txt")
    assert result.returncode == 2
    assert "does-not-exist.txt: no such file" in result.stderr


def test_forced_format_mismatch_names_the_file(tmp_path: Path) -> None:
    result = perfguard("model", EXAMPLE, "--format", "extrap-text")
    assert result.returncode == 2
    assert str(EXAMPLE) in result.stderr and "Traceback" not in result.stderr


def test_several_inputs_are_labelled(tmp_path: Path) -> None:
    other = write_text_file(tmp_path / "m.txt", {"lin": [1.6, 3.2, 6.4, 12.8, 25.6]})
    doc = json.loads(perfguard("model", EXAMPLE, other, "--json").stdout)
    assert {m["input"] for m in doc["models"]} == {str(EXAMPLE), str(other)}


def test_help_and_version() -> None:
    assert "model" in perfguard("--help").stdout
    assert perfguard("--version").stdout.startswith("perfguard ")
    assert perfguard("model", "--help").returncode == 0


def test_predict_adds_an_interval_to_json_and_table():
    out = perfguard("model", EXAMPLE, "--predict", "n=65536", "--level", "0.8", "--json")
    assert out.returncode == 0, out.stderr
    for entry in json.loads(out.stdout)["models"]:
        pred = entry["prediction"]
        assert pred["at"] == {"n": 65536.0} and pred["level"] == 0.8
        assert pred["low"] <= pred["value"] <= pred["high"]
    table = perfguard("model", EXAMPLE, "--predict", "65536")
    assert table.returncode == 0, table.stderr
    assert "n=65536" in table.stdout


@pytest.mark.parametrize(
    "args, message",
    [
        (["--predict", "m=10"], "--predict names m but"),
        (["--predict", "-4"], "positive size"),
        (["--predict", "big"], "positive size"),
        (["--level", "1.5"], "--level must lie between 0 and 1"),
    ],
)
def test_bad_predict_options_are_usage_errors(args, message):
    out = perfguard("model", EXAMPLE, *args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr


def test_unsure_classes_get_advice_on_stderr(tmp_path):
    rng = np.random.default_rng(3)
    xs = [16, 32, 64, 128, 256]
    points = [
        {"at": {"n": x}, "values": list(0.5 + x * np.log2(x) * (1 + rng.uniform(-0.4, 0.4, 5)))}
        for x in xs
    ]
    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "kernels": [{"name": "shaky", "metric": "time", "points": points}],
    }
    path = tmp_path / "shaky.json"
    path.write_text(json.dumps(doc))
    out = perfguard("model", path)
    assert out.returncode == 0, out.stderr
    assert "shaky:" in out.stderr and "likely" in out.stderr
    assert "raise the repetitions" in out.stderr


def _noisy_text_file(path: Path, seed: int) -> Path:
    """Extra-P text: 12 noisy one-parameter kernels and a two-parameter file beside it."""
    rng = np.random.default_rng(seed)
    xs = [4, 8, 16, 32, 64]
    lines = ["PARAMETER n", "", "POINTS " + " ".join(f"( {x} )" for x in xs), "", "REGION main"]
    for k in range(12):
        lines.append(f"METRIC m{k}")
        for x in xs:
            true = 3 + (k + 1) * x ** (0.5 + k / 8)
            reps = true * (1 + rng.uniform(-0.3, 0.3, 5))
            lines.append("DATA " + " ".join(f"{v:.9g}" for v in reps))
    path.write_text("\n".join(lines) + "\n")
    return path


def _two_parameter_file(path: Path, seed: int) -> Path:
    rng = np.random.default_rng(seed)
    grid = [(p, n) for p in (2, 4, 8, 16, 32) for n in (10, 20, 30, 40, 50)]
    lines = ["PARAMETER p", "PARAMETER n", ""]
    lines.append("POINTS " + " ".join(f"( {p} {n} )" for p, n in grid))
    lines += ["", "REGION main", "METRIC time"]
    for p, n in grid:
        reps = (5 + 0.1 * p * n**2) * (1 + rng.uniform(-0.05, 0.05, 5))
        lines.append("DATA " + " ".join(f"{v:.9g}" for v in reps))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_falling_kernel_predicts_no_interval_in_the_table(tmp_path: Path) -> None:
    # 100 / p + 0.5 read as its nearest constant: "5.38 [5.25e-39..7.35e42]" at p=1024
    ps = (1, 2, 4, 8, 16, 32)
    rows = "\n".join(f"DATA {100 / p + 0.5} {100 / p * 1.02 + 0.5}" for p in ps)
    path = tmp_path / "strong.txt"
    path.write_text(
        f"PARAMETER p\nPOINTS {' '.join(f'( {p} )' for p in ps)}\n"
        f"REGION main\nMETRIC time\n{rows}\n"
    )
    table = perfguard("model", path, "--predict", "1024", env={"COLUMNS": "160"})
    assert table.returncode == 0, table.stderr
    (row,) = [line for line in table.stdout.splitlines() if line.startswith("│ main")]
    assert "[" not in row and "falls" in table.stderr
    # and says so: the column or the value was missing without a word (an HPC probe)
    assert "nor is it predicted at p=1024" in table.stderr


@pytest.mark.parametrize("modeler", ["default", "adaptive"])
def test_json_is_byte_identical_across_runs_for_noisy_and_multi_parameter_input(
    tmp_path: Path, modeler: str
) -> None:
    one = _noisy_text_file(tmp_path / "noisy.txt", 5)
    two = _two_parameter_file(tmp_path / "grid.txt", 6)
    runs = [
        perfguard("model", one, two, "--modeler", modeler, "--predict", "n=256", "--json")
        for _ in range(2)
    ]
    assert runs[0].returncode == 2  # --predict names n, grid.txt has p and n
    args = ("model", one, two, "--modeler", modeler, "--json")
    runs = [perfguard(*args), perfguard_process(*args)]  # in this process and a fresh one
    assert runs[0].returncode == 0, runs[0].stderr
    assert runs[0].stdout == runs[1].stdout
    models = json.loads(runs[0].stdout)["models"]
    assert len(models) == 13
    grid = models[-1]
    assert grid["parameters"] == ["p", "n"] and grid["complexity"] == "O(p n^2)"


def test_kernel_names_with_brackets_are_shown_verbatim() -> None:
    # pytest-benchmark names such as test_sort[kind=list] must not be read as rich markup.
    done = perfguard("model", DATA / "formats" / "pytest_benchmark.json")
    assert done.returncode == 0, done.stderr
    assert "test_sort[kind=list]" in done.stdout
    assert "test_sort[kind=array]" in done.stdout


@pytest.mark.parametrize("verb", ["model", "check", "predict"])
def test_an_unknown_option_is_a_usage_error_not_a_crash(verb: str) -> None:
    # typer >= 0.23 raises its vendored click's exceptions and click may be absent.
    result = perfguard(verb, "--no-such-option")
    assert result.returncode == 2
    assert "No such option: --no-such-option" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_bare_predict_size_on_several_parameters_is_a_usage_error(tmp_path: Path) -> None:
    # it printed the models and silently no prediction; a point naming each is predicted
    grid = _two_parameter_file(tmp_path / "grid.txt", 6)
    out = perfguard("model", grid, "--predict", "1024")
    assert out.returncode == 2
    assert "has parameters p, n; name each of them, e.g. --predict p=...,n=..." in out.stderr
    assert "Traceback" not in out.stderr


def test_three_sizes_say_why_the_class_shown_is_not_the_likeliest(tmp_path: Path) -> None:
    # 38.3, 42.6, 56.1 us at 32, 64, 128 ranks: OpenMPI's MPI_Bcast in Extra-P's data
    path = write_text_file(tmp_path / "bcast.txt", {"bcast": [38.3, 42.6, 56.1]}, (32, 64, 128))
    out = perfguard("model", path)
    assert out.returncode == 0, out.stderr
    assert "3 sizes cannot tell neighbouring classes apart" in out.stderr
    assert "80% of the probability at or above it" in out.stderr
    assert "measure 5 or more sizes" in out.stderr and "raise the repetitions" not in out.stderr


def test_two_sizes_are_modelled_and_say_that_they_tell_no_class_apart(tmp_path: Path) -> None:
    # Extra-P's cubeset/extra_file holds two sizes; one size stays an error (see above)
    path = write_text_file(tmp_path / "two.txt", {"two": [1.0, 1.9]}, (1000, 2000))
    out = perfguard("model", path, "--predict", "n=4000", "--json")
    assert out.returncode == 0, out.stderr
    (m,) = json.loads(out.stdout)["models"]
    assert m["kernel"] == "two" and m["terms"]
    p = m["prediction"]
    assert p["low"] <= 3.7 <= p["high"] and p["high"] / p["low"] > 2  # 0.1 + 0.9 n/1000 is in
    out = perfguard("model", path)
    assert "2 sizes cannot tell classes apart" in out.stderr
    assert "measure 5 or more sizes" in out.stderr


def test_a_file_without_kernels_says_so(tmp_path: Path) -> None:
    path = tmp_path / "empty.json"
    path.write_text('{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": []}')
    result = perfguard("model", path)
    assert result.returncode == 2
    assert "empty.json: no kernels" in result.stderr and "reasons above" not in result.stderr


def test_a_kernel_of_several_metrics_keeps_the_metric_column(tmp_path: Path) -> None:
    """At 80 columns the metric column was the first dropped, and a call path measured as
    time and visits stood on two rows no one could tell apart."""
    rows = ["PARAMETER p", "POINTS ( 32 ) ( 64 ) ( 128 ) ( 256 )"]
    name = "main->solve->MPI_Allreduce"
    for metric, values in (("time", (2.0, 2.2, 2.45, 2.6)), ("visits", (3200, 6400, 12800, 25600))):
        rows += [f"REGION {name}", f"METRIC {metric}"]
        rows += [f"DATA {v} {v * 1.03} {v * 0.98}" for v in values]
    path = tmp_path / "m.txt"
    path.write_text("\n".join(rows) + "\n")
    result = perfguard("model", path, env={"COLUMNS": "80"})
    assert result.returncode == 0, result.stderr
    assert "time" in result.stdout and "visits" in result.stdout  # as a column or a field
    # the note states the probability as the table does (cut, never rounded up)
    wide = perfguard("model", path, env={"COLUMNS": "200"})
    row = next(line for line in wide.stdout.splitlines() if "time" in line)
    sure = row.rstrip("│ ").rsplit("│", 1)[1].strip()
    note = next(line for line in wide.stderr.splitlines() if "(time)" in line and "%" in line)
    assert f"({sure})" in note or f"only {sure}" in note, (sure, note)


def test_with_both_streams_on_one_pipe_the_table_ends_before_the_first_note() -> None:
    # a CI log merges stdout (block-buffered on a pipe) and stderr: a note began on the
    # table's bottom border line ("┘note k005: ...")
    import os
    import subprocess
    import sys

    env = {**os.environ, "COLUMNS": "100"}
    done = subprocess.run(
        [sys.executable, "-m", "guard.cli", "model", str(EXAMPLE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        env=env,
    )
    lines = done.stdout.splitlines()
    bottom = next(i for i, line in enumerate(lines) if line.startswith("└"))
    assert lines[bottom].rstrip().endswith("┘")
    assert not any(line.startswith("note") for line in lines[:bottom])
    assert any(line.startswith("note") for line in lines[bottom + 1 :])


def test_a_constant_on_four_sizes_reads_as_a_sentence(tmp_path: Path) -> None:
    # "... hold less than 80% of the probability measure 5 or more sizes" (an HPC probe)
    path = tmp_path / "const.txt"
    rows = ["5.01 4.98 5.00", "5.02 4.99 5.00", "4.99 5.01 5.00", "5.00 5.00 5.02"]
    path.write_text(
        "PARAMETER p\nPOINTS ( 32 ) ( 64 ) ( 128 ) ( 256 )\nMETRIC time\nREGION const\n"
        + "".join(f"DATA {row}\n" for row in rows)
    )
    out = perfguard("model", path)
    assert out.returncode == 0, out.stderr
    assert "hold less than 80% of the probability; measure 5 or more sizes" in out.stderr
