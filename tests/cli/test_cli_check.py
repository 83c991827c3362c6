"""``perfguard check`` end to end on real measurement files (the CLI run in process)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from support import failed_run_file, perfguard

EXAMPLES = Path(__file__).parents[2] / "examples" / "check"
BASE, CAND = EXAMPLES / "base.json", EXAMPLES / "cand.json"


def test_regression_and_violation_exit_1_with_verdicts_json(tmp_path):
    report = tmp_path / "report.md"
    r = perfguard(
        "check",
        CAND,
        "--baseline",
        BASE,
        "--expect",
        "dedupe=<= n",
        "--expect",
        "sort=<= n log n",
        "--json",
        "--markdown",
        report,
    )
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["schema"] == "perfguard/verdicts@1" and doc["status"] == "fail"
    by_name = {k["kernel"]: k for k in doc["kernels"]}
    dedupe = by_name["dedupe"]
    assert dedupe["verdict"] == "fail"
    assert dedupe["violates_expectation"] and dedupe["regression"]
    assert dedupe["expectation"] == "<= n"
    assert by_name["sort"]["verdict"] == "pass"
    assert report.read_text().startswith("## perfguard: ❌ fail")


def test_same_measurements_pass_with_exit_0_and_a_table():
    r = perfguard("check", BASE, "--baseline", BASE, "--expect", "*=<= n log n")
    assert r.returncode == 0, r.stderr
    assert "perfguard check: pass" in r.stdout
    assert "dedupe" in r.stdout


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--expect", "dedupe=<= n lg^ n"], "at column 10"),
        (["--expect", "dedupe"], "GLOB=EXPR"),
        (["--max-class", "n^^2"], "--max-class"),
        (["--target", "n=abc"], "--target wants NAME=SIZE"),
        (["--confidence", "1.5"], "--confidence"),
        (["--baseline", "missing.json"], "missing.json"),
        (["--modeler", "nope"], "unknown modeler"),
    ],
)
def test_bad_input_is_one_line_exit_2(args, fragment):
    r = perfguard("check", CAND, *args)
    assert r.returncode == 2
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and fragment in lines[0], r.stderr
    assert r.stdout == ""


def test_config_supplies_expectations_baseline_and_target(tmp_path):
    (tmp_path / "perfguard.yml").write_text(
        "version: 1\n"
        "expect:\n"
        '  "dedupe": "<= n"\n'
        "check:\n"
        f"  baseline: {BASE}\n"
        "  target: {n: 1.0e6}\n"
        '  max_class: "n^2"\n'
    )
    r = perfguard("check", CAND, "--json", cwd=tmp_path)
    assert r.returncode == 1, r.stderr
    doc = json.loads(r.stdout)
    assert doc["target"] == {"n": 1e6}
    dedupe = next(k for k in doc["kernels"] if k["kernel"] == "dedupe")
    assert dedupe["expectation"] == "<= n" and dedupe["regression"]
    assert dedupe["rank"] == 1 and dedupe["predicted_at_target"] > 0


def test_config_error_names_file_and_line(tmp_path):
    cfg = tmp_path / "bad.yml"
    cfg.write_text('version: 1\nexpect:\n  "*": "<= n ^"\n')
    r = perfguard("check", CAND, "-c", cfg)
    assert r.returncode == 2
    assert f"{cfg}:3" in r.stderr and "column" in r.stderr


def test_check_without_current_says_what_to_do():
    r = perfguard("check")
    assert r.returncode == 2
    assert "perfguard check CURRENT" in r.stderr


def _over_p(path: Path) -> Path:
    """A file over ranks p (Extra-P text), where the project's other files are over n."""
    rows = "\n".join(f"DATA {10 * p} {10.2 * p} {9.9 * p}" for p in (2, 4, 8, 16, 32))
    path.write_text(
        f"PARAMETER p\nPOINTS ( 2 ) ( 4 ) ( 8 ) ( 16 ) ( 32 )\nMETRIC time\nREGION solve\n{rows}\n"
    )
    return path


def test_one_config_serves_files_of_other_parameters(tmp_path):
    """pytest-benchmark writes one file per set of parameters: a rule for kernels the file
    does not hold, and the config's target in another parameter, must not stop its check."""
    (tmp_path / "perfguard.yml").write_text(
        "version: 1\n"
        "expect:\n"
        '  "test_sort": "<= n log n"\n'
        '  "solve": "<= p"\n'
        '  "*": "<= n^2"\n'
        "check:\n"
        "  target: {n: 1.0e6}\n"
    )
    ranks = _over_p(tmp_path / "ranks.txt")
    r = perfguard("check", ranks, "--json", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    (solve,) = doc["kernels"]
    assert solve["expectation"] == "<= p" and solve["verdict"] == "pass"
    assert doc["notes"] == [
        "perfguard.yml: check.target: n is not a parameter of these measurements (p); "
        "ranked without it",
        # found in the folder, not named: the same data judged elsewhere differs
        "bounds and settings from ./perfguard.yml (found here; -c names another)",
    ]
    named = perfguard("check", ranks, "--json", "-c", "perfguard.yml", cwd=tmp_path)
    assert "found here" not in named.stdout
    # a flag's target must name a parameter, and a rule that decides a kernel must fit it
    r = perfguard("check", ranks, "--target", "n=1e6", cwd=tmp_path)
    assert r.returncode == 2 and "target parameter 'n'" in r.stderr
    (tmp_path / "perfguard.yml").write_text('version: 1\nexpect:\n  "*": "<= n^2"\n')
    r = perfguard("check", ranks, cwd=tmp_path)
    assert r.returncode == 2
    assert "perfguard.yml:3: * (the bound of solve): invalid expectation '<= n^2'" in r.stderr


def test_no_name_from_a_file_starts_a_line_of_its_own(tmp_path):
    # a kernel named "x\n::error::..." printed a line a CI runner reads as a workflow command
    from guard.measurements import Kernel, MeasurementSet, Point

    points = tuple(Point((float(n),), (n * 1e-6, n * 1.01e-6)) for n in (8, 16, 32, 64, 128))
    name = "sort\n::error title=Security::rotate your token\r\n::add-mask::perfguard"
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MeasurementSet(("n",), (Kernel(name, "time", points),)).to_json()))
    done = perfguard("check", path, "--expect", "*=<= 1")
    assert done.returncode == 1, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert lines and not any(line.lstrip().startswith("::") for line in lines)
    assert "sort\\n::error title=Security" in done.stdout  # shown, escaped, in the reasons
    # a bidi override would make the name read backwards in the log: written out too
    path.write_text(
        json.dumps(MeasurementSet(("n",), (Kernel("sort\u202egnp", "time", points),)).to_json())
    )
    shown = perfguard("check", path, "--expect", "*=<= 1")
    assert "\u202e" not in shown.stdout + shown.stderr and "sort\\u202egnp" in shown.stdout
    bad = tmp_path / "bad.json"
    bad.write_text(
        '{"schema": "perfguard/verdicts@1", "status": "pass", "target": {"n\\n::error::x": "y"}}'
    )
    refused = perfguard("report", bad)
    assert refused.returncode == 2
    assert not any(line.startswith("::") for line in refused.stderr.splitlines())


@pytest.mark.parametrize(
    ("suffix", "glob", "malformed", "message"),
    [
        # pytest names a parametrized test test_dedupe[n=5] and the plugin prints its check
        # command with --expect 'test_dedupe[[]n=5]=<= n': that split at the first "="
        ("[mode=fast]", "dedupe[[]mode=fast]", "dedupe=<= n, <= n", "unexpected character ','"),
        # ids such as test_x[k>=2,n=5]: the split stopped at the name's ">="
        ("[k>=2,n=5]", "dedupe[[]k>=2,n=5]", "dedupe=<= n log n = p", "invalid expectation"),
    ],
)
def test_expect_names_a_kernel_whose_name_holds_an_equals_sign(
    tmp_path, suffix, glob, malformed, message
):
    doc = json.loads(CAND.read_text())
    for kernel in doc["kernels"]:
        kernel["name"] = f"{kernel['name']}{suffix}"
    cand = tmp_path / "cand.json"
    cand.write_text(json.dumps(doc))
    r = perfguard("check", cand, "--expect", f"{glob}=<= n", "--json")
    assert r.returncode == 1, r.stderr
    verdicts = {k["kernel"]: k for k in json.loads(r.stdout)["kernels"]}
    assert verdicts[f"dedupe{suffix}"]["expectation"] == "<= n"
    assert verdicts[f"dedupe{suffix}"]["verdict"] == "fail"
    # a malformed bound is an error, not a glob ("dedupe=<= n, <") bound by what follows
    bad = perfguard("check", cand, "--expect", malformed)
    assert bad.returncode == 2 and message in bad.stderr


def test_an_error_naming_a_dropped_parameter_says_it_was_dropped(tmp_path):
    """n is 100 at every point, so reading drops it; "unknown parameter 'n'" alone read as a
    typo of a parameter the file has."""
    rows = "\n".join(f"DATA {p}.1 {p}.0 {p}.05" for p in (2, 4, 8, 16, 32))
    source = tmp_path / "onev.txt"
    source.write_text(
        "PARAMETER p\nPARAMETER n\n"
        "POINTS ( 2 100 ) ( 4 100 ) ( 8 100 ) ( 16 100 ) ( 32 100 )\n"
        f"REGION k\n{rows}\n"
    )
    dropped = "n was left out of the measurements: it is 100 at every point"
    for extra in (["--expect", "k=<= n"], ["--expect", "k=<= p", "--target", "n=1e6"]):
        r = perfguard("check", source, *extra)
        assert r.returncode == 2
        assert dropped in r.stderr and len(r.stderr.strip().splitlines()) == 1
    typo = perfguard("check", source, "--expect", "k=<= q")
    assert typo.returncode == 2 and "unknown parameter 'q'" in typo.stderr
    assert "left out" not in typo.stderr


def test_a_markdown_path_it_cannot_write_is_one_line_before_checking(tmp_path):
    """A folder as --markdown was a traceback and exit 1 (a scalability bug, to CI) after a
    passing check."""
    folder = tmp_path / "adir"
    folder.mkdir()
    for target, message in (
        (folder, "is a directory; give a file name"),
        (tmp_path / "no" / "x.md", "does not exist"),
    ):
        r = perfguard("check", CAND, "--markdown", target)
        assert r.returncode == 2 and message in r.stderr and "Traceback" not in r.stderr
        assert r.stderr.startswith("perfguard: error: --markdown")


def test_format_names_the_current_files_tool_and_a_native_baseline_still_reads(tmp_path):
    """-f pytest-benchmark applied to a measurements@1 baseline too: 'missing "benchmarks"'."""
    source = Path(__file__).parents[1] / "data" / "formats" / "pytest_benchmark.json"
    native = tmp_path / "base.json"
    assert perfguard("merge", source, "-o", native).returncode == 0
    r = perfguard("check", source, "--baseline", native, "-f", "pytest-benchmark")
    assert r.returncode == 0, r.stderr


def test_a_long_name_folded_to_the_width_never_starts_a_line_with_its_tail(tmp_path):
    # at 80 columns a name of 80 x's then "::warning::..." was folded by the terminal width
    # into a line of its own that a CI runner reads as a workflow command
    from guard.measurements import Kernel, MeasurementSet, Point

    points = tuple(Point((float(n),), (n * 1e-6, n * 1.01e-6)) for n in (8, 16, 32, 64, 128))
    names = ("x" * 80 + "::warning::spoofed-by-wrap", "sort\n::error::injected")
    kernels = tuple(Kernel(name, "time", points) for name in names)
    path = tmp_path / "m.json"
    path.write_text(json.dumps(MeasurementSet(("n",), kernels).to_json()))
    done = perfguard("check", path, "--expect", "*=<= n", env={"COLUMNS": "80"})
    assert done.returncode == 0, done.stderr
    lines = (done.stdout + done.stderr).splitlines()
    assert not any(line.lstrip().startswith("::") for line in lines), done.stdout
    assert "… ::warning::spoofed-by-wrap" in done.stdout  # the whole name is still shown
    assert "sort\\n::error::injected" in done.stdout


def test_ctrl_c_that_escapes_a_verb_says_aborted(monkeypatch, capsys):
    # typer turned it into a silent exit 130: a second Ctrl-C while `perfguard run` wrote
    # what it measured left no word at all
    import guard.formats
    from guard.cli import main

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(guard.formats, "load", interrupted)
    assert main(["model", str(CAND)]) == 130
    assert capsys.readouterr().err.strip() == "perfguard: aborted"


def test_h_is_help():
    done = perfguard("model", "-h")
    assert done.returncode == 0 and done.stdout.startswith("Usage: perfguard model")


def test_control_characters_in_a_table_cell_are_written_out(tmp_path):
    # short names fit the boxed table, whose cells printed ESC raw and split "a\n::error::x"
    # over two rows; rich dropped BEL without a trace
    from guard.measurements import Kernel, MeasurementSet, Point

    points = tuple(Point((float(n),), (n * 1e-6, n * 1.01e-6)) for n in (8, 16, 32, 64, 128))
    names = ("red\x1b[31mRED", "t\x1b]0;title\x07x", "a\n::error::x", "u\u2028::error::y")
    path = tmp_path / "m.json"
    kernels = tuple(Kernel(name, "time", points) for name in names)
    path.write_text(json.dumps(MeasurementSet(("n",), kernels).to_json()))
    done = perfguard("check", path, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout and "\u2028" not in done.stdout
    for shown in (
        "red\\x1b[31mRED",
        "t\\x1b]0;title\\x07x",
        "a\\n::error::x",
        "u\\u2028::error::y",
    ):
        assert f"│ {shown}" in done.stdout, done.stdout


def test_a_verdicts_file_with_a_lone_surrogate_is_one_line(tmp_path):
    doc = json.loads(perfguard("check", CAND, "--json").stdout)
    doc["kernels"][0]["kernel"] = "\ud800"
    path = tmp_path / "v.json"
    path.write_text(json.dumps(doc))
    done = perfguard("report", path)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "kernels[0].kernel: holds \\ud800, a lone surrogate" in done.stderr


def test_bare_perfguard_prints_its_help_and_errors_name_the_verb():
    bare = perfguard()
    assert bare.returncode == 2 and bare.stderr.startswith("Usage: perfguard [OPTIONS] COMMAND")
    assert "\\n" not in bare.stderr and "\n  check" in bare.stderr
    missing = perfguard("check", CAND, "-e")
    assert missing.returncode == 2
    assert missing.stderr.endswith("requires an argument. (see perfguard check --help)\n")


def test_report_reads_standard_input():
    # perfguard check --json | perfguard report -: "-: cannot read: No such file"
    import subprocess
    import sys

    saved = perfguard("check", CAND, "--json").stdout
    done = subprocess.run(
        [sys.executable, "-m", "guard.cli", "report", "-"],
        input=saved,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "dedupe" in done.stdout


@pytest.mark.parametrize(
    ("name", "content"),
    [
        (
            "empty.json",
            '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": []}',
        ),
        ("cut.txt", "PARAMETER p\nPOINTS ( 32 ) ( 64 ) ( 128 ) ( 256 )\nREGION r\nMETRIC time\n"),
        ("none.json", '{"parameters": ["p"], "measurements": {}}'),
    ],
)
def test_a_file_without_kernels_is_exit_2_not_a_pass(
    tmp_path: Path, name: str, content: str
) -> None:
    """A cut or empty profile passed the gate ('pass (no kernels)', exit 0)."""
    path = tmp_path / name
    path.write_text(content)
    result = perfguard("check", path)
    assert result.returncode == 2, result.stdout
    assert "pass" not in result.stdout
    (line,) = result.stderr.strip().splitlines()
    assert name in line and ("no kernels" in line or "no measurements" in line or "no DATA" in line)


def test_check_without_a_file_in_a_project_of_bounds_only_says_to_give_the_file(
    tmp_path: Path,
) -> None:
    """A pytest-benchmark project's perfguard.yml holds bounds, no benchmarks: a bare
    `perfguard check` said only 'no parameters: section'."""
    (tmp_path / "perfguard.yml").write_text('version: 1\nexpect:\n  "test_sort": "<= n log n"\n')
    result = perfguard("check", cwd=tmp_path)
    assert result.returncode == 2
    assert "perfguard check bench.json" in result.stderr and "no parameters" not in result.stderr
    for verb in ("run", "ci"):  # they measure the config too
        again = perfguard(verb, cwd=tmp_path)
        assert again.returncode == 2 and "perfguard check bench.json" in again.stderr
    assert not (tmp_path / ".perfguard").exists()  # a refused ci leaves no report folder


def test_the_terminal_table_lists_failures_first(tmp_path: Path) -> None:
    """In a long suite at CI width a failure stood wherever its kernel was in the file."""
    xs = (16, 32, 64, 128, 256, 512)
    rows = ["PARAMETER n", "POINTS " + " ".join(f"( {x} )" for x in xs)]
    for name, power in (("aaa_linear", 1), ("zzz_square", 2)):
        rows += ["METRIC time", f"REGION {name}"]
        rows += [f"DATA {x**power * 1e-6!r} {x**power * 1.01e-6!r}" for x in xs]
    path = tmp_path / "m.txt"
    path.write_text("\n".join(rows) + "\n")
    done = perfguard("check", path, "--expect", "*=<= n", env={"COLUMNS": "120"})
    assert done.returncode == 1
    table = [line for line in done.stdout.splitlines() if "_linear" in line or "_square" in line]
    assert "zzz_square" in table[0] and "aaa_linear" in table[1]


def test_a_bound_that_does_not_name_a_parameter_says_so(tmp_path: Path) -> None:
    """'<= n' on a kernel of p and n failed 'along p: log p measured ... (the bound allows
    no growth)' beside a table reading O(n log p): a reviewer saw n <= n."""
    grid = [(p, n) for p in (2, 4, 8, 16, 32) for n in (1000, 2000, 4000, 8000, 16000)]
    rows = ["PARAMETER p", "PARAMETER n"] + [f"POINTS ( {p} {n} )" for p, n in grid]
    rows += ["METRIC time", "REGION solve"]
    values = (1e-6 * n * (1 + math.log2(p)) for p, n in grid)
    rows += [f"DATA {v!r} {v * 1.01!r} {v * 0.99!r}" for v in values]
    path = tmp_path / "g.txt"
    path.write_text("\n".join(rows) + "\n")
    done = perfguard("check", path, "--expect", "solve=<= n", env={"COLUMNS": "200"})
    assert done.returncode == 1
    assert "<= n does not name p, so it allows no growth in p" in done.stdout
    assert "e.g. <= n log p" in done.stdout


def test_the_file_of_a_run_whose_every_benchmark_failed_is_exit_3(tmp_path: Path) -> None:
    """It read 'holds no kernels: was it written by a run that selected no benchmark?',
    exit 2, where its own run said why, exit 3."""
    done = perfguard("check", failed_run_file(tmp_path / "m.json"))
    assert done.returncode == 3, done.stderr
    assert "exit code 3" in done.stdout and "no kernels" not in done.stderr
    assert "┏" not in done.stdout


def test_too_few_sizes_advise_sizes_alone(tmp_path: Path) -> None:
    """3 sizes of a x997 class regression: the advice led with the noise and repetitions,
    which cannot decide what the gate will not fail on fewer than 5 sizes."""
    xs = (1000, 10000, 100000)

    def write(path: Path, power: int, scale: float) -> Path:
        rows = ["PARAMETER n", "POINTS " + " ".join(f"( {x} )" for x in xs)]
        rows += ["METRIC time", "REGION three"]
        rows += [f"DATA {v!r} {v * 1.3!r} {v * 0.8!r}" for v in (scale * x**power for x in xs)]
        path.write_text("\n".join(rows) + "\n")
        return path

    cand, base = write(tmp_path / "c.txt", 2, 1e-9), write(tmp_path / "b.txt", 1, 1e-6)
    done = perfguard("check", cand, "--baseline", base, env={"COLUMNS": "200"})
    assert done.returncode == 0
    (advice,) = [line for line in done.stdout.splitlines() if ": to decide:" in line]
    assert "measure at least 5 sizes of n (now 3)" in advice
    assert "repetitions" not in advice


def test_a_baseline_of_another_suite_is_exit_2_not_a_pass(tmp_path):
    # a Google Benchmark run checked against a pytest-benchmark file passed with a note
    # (a real-tools probe): a gate pointed at the wrong file compared nothing
    other = tmp_path / "other.json"
    doc = json.loads(BASE.read_text())
    for k in doc["kernels"]:
        k["name"] = "BM_" + k["name"]
    other.write_text(json.dumps(doc))
    r = perfguard("check", CAND, "--baseline", other)
    assert r.returncode == 2 and r.stdout == ""
    assert f"{other}: the baseline shares no kernel with the current measurements" in r.stderr
