"""One exit rule for every verb: 0 pass, 1 a failed verdict only, 2 unusable input, 3 a run.

The rule itself (``verdicts.exit_code``) over every combination, then the verbs end to end:
``check`` and ``ci`` (real benchmark subprocesses for ``ci``), ``model``, ``merge``, and
``--strict`` turning an inconclusive kernel into 1 in both ``check`` and ``ci``.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from guard.checking.verdicts import CheckReport, Verdict, exit_code
from guard.cli import main

# A flat benchmark whose largest size ran 8% slow: a "<= 1" violation that hinges on one
# size, so the verdict is inconclusive -- deterministically (the jitter cycles by call).
HINGE = textwrap.dedent(
    """
    import pathlib, sys
    n = int(sys.argv[1])
    counter = pathlib.Path(f"calls-{n}")
    i = int(counter.read_text()) if counter.exists() else 0
    counter.write_text(str(i + 1))
    jitter = (0.004, -0.006, 0.001, 0.008, -0.003)[i % 5]
    print((1.0 + jitter) * (1.08 if n == 256 else 1.0))
    """
)


def verdict(kind: str, **flags: bool) -> Verdict:
    return Verdict("k", "time", kind, **flags)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("verdicts", "strict", "fail_on", "code"),
    [
        ([verdict("pass")], False, "any", 0),
        ([verdict("inconclusive")], False, "any", 0),
        ([verdict("inconclusive")], True, "any", 1),
        ([verdict("inconclusive")], True, "regression", 1),
        ([verdict("inconclusive")], True, "never", 0),
        ([verdict("error")], False, "any", 2),
        ([verdict("error")], True, "any", 2),
        ([verdict("fail", violates_expectation=True)], False, "any", 1),
        ([verdict("fail", violates_expectation=True)], False, "expectation", 1),
        ([verdict("fail", violates_expectation=True)], False, "regression", 0),
        ([verdict("fail", regression=True)], False, "regression", 1),
        ([verdict("fail", regression=True)], False, "expectation", 0),
        ([verdict("fail", regression=True)], False, "never", 0),
        ([verdict("fail", regression=True), verdict("error")], False, "any", 1),
        ([verdict("fail", regression=True), verdict("error")], False, "expectation", 2),
        ([verdict("pass"), verdict("inconclusive"), verdict("error")], False, "any", 2),
    ],
)
def test_the_rule(verdicts: list[Verdict], strict: bool, fail_on: str, code: int) -> None:
    assert exit_code(CheckReport(tuple(verdicts), strict=strict), fail_on) == code


def test_an_unknown_fail_on_is_refused() -> None:
    with pytest.raises(ValueError, match="fail_on must be one of"):
        exit_code(CheckReport(()), "sometimes")


def hinge_project(tmp_path: Path) -> Path:
    (tmp_path / "hinge.py").write_text(HINGE)
    config = tmp_path / "perfguard.yml"
    config.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            parameters:
              n: [8, 16, 32, 64, 128, 256]
            run:
              budget: 60
              repetitions: 5
            benchmarks:
              flat:
                command: ["{sys.executable}", "hinge.py", "{{n}}"]
                metric: custom
                expect: "<= 1"
            """
        )
    )
    return config


def measurements(tmp_path: Path, rows: dict[str, float]) -> Path:
    sizes = [8, 16, 32, 64, 128, 256]
    kernels = [
        {
            "name": name,
            "metric": "time",
            "points": [
                {"at": {"n": n}, "values": [v * (1 + 0.002 * j) * n**power for j in range(5)]}
                for n in sizes
            ],
        }
        for name, (v, power) in rows.items()
    ]
    path = tmp_path / "m.json"
    doc = {"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": kernels}
    path.write_text(json.dumps(doc))
    return path


def test_check_exit_codes(tmp_path: Path) -> None:
    good = measurements(tmp_path, {"a": (1e-6, 1.0)})
    assert main(["check", str(good), "--expect", "a=<= n"]) == 0
    assert main(["check", str(good), "--expect", "a=<= log n"]) == 1
    assert main(["check", str(tmp_path / "missing.json")]) == 2
    assert main(["check", str(good), "--expect", "a=<= ((("]) == 2
    broken = tmp_path / "broken.txt"
    broken.write_text("PARAMETER n\nPOINTS ( 1 )\nREGION r\nDATA 1\n")
    assert main(["check", str(broken)]) == 2  # one point: an error verdict, not a pass


def test_strict_fails_an_inconclusive_kernel_in_check_and_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # ci writes its report folder where it runs
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    config = hinge_project(tmp_path)
    out = tmp_path / "m.json"
    assert main(["run", "-c", str(config), "-o", str(out)]) == 0
    assert main(["check", str(out), "-c", str(config)]) == 0  # inconclusive passes ...
    assert main(["check", str(out), "-c", str(config), "--strict"]) == 1  # ... unless strict
    args = ["ci", "-c", str(config), "--comment", "never", "--db", str(tmp_path / "h.sqlite")]
    assert main(args) == 0
    assert main([*args, "--strict"]) == 1
    verdicts = json.loads((Path(".perfguard") / "report" / "verdicts.json").read_text())
    assert [k["verdict"] for k in verdicts["kernels"]] == ["inconclusive"]


def test_model_and_merge_exit_codes(tmp_path: Path) -> None:
    good = measurements(tmp_path, {"a": (1e-6, 1.0)})
    assert main(["model", str(good)]) == 0
    assert main(["model", str(tmp_path / "missing.json")]) == 2
    missing = str(tmp_path / "missing.json")
    assert main(["merge", str(good), missing, "-o", str(tmp_path / "out.json")]) == 2


def test_a_usage_error_is_one_line_like_every_other_error() -> None:
    """click printed three lines ("Usage: ...", "Try ...", "Error: ...") in another style."""
    from support import perfguard

    for args, message in (
        (["check", "x", "--bogus"], "No such option: --bogus (see perfguard check --help)"),
        (["bogus"], "No such command 'bogus'. (see perfguard --help)"),
    ):
        done = perfguard(*args)
        assert done.returncode == 2
        assert done.stderr == f"perfguard: error: {message}\n"


def test_an_error_exit_of_check_says_why_on_stderr(tmp_path) -> None:
    """Exit 2 for a kernel that could not be judged printed nothing on stderr: a CI log
    filtered to errors showed no reason for the red build."""
    import json

    from support import perfguard

    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "kernels": [
            {"name": "onesize", "metric": "time", "points": [{"at": {"n": 4}, "values": [1.0]}]}
        ],
    }
    source = tmp_path / "m.json"
    source.write_text(json.dumps(doc))
    for extra in ([], ["--json"]):
        done = perfguard("check", source, "--expect", "*=<= n", *extra)
        assert done.returncode == 2
        assert "perfguard: error: 1 kernel could not be judged: onesize" in done.stderr


def test_a_kernel_the_size_limit_stopped_is_not_said_to_have_failed_to_run(tmp_path) -> None:
    """A regressed kernel reaching run.size_limit after three sizes read "did not run to the
    end", like a crash: it ran, and a slower kernel reaches the limit sooner."""
    import json

    from support import perfguard

    points = [{"at": {"n": n}, "values": [1e-6 * n * n] * 3} for n in (64, 128, 256)]
    doc = {
        "schema": "perfguard/measurements@1",
        "parameters": ["n"],
        "run": {
            "errors": [
                {
                    "benchmark": "slow",
                    "kind": "too-few-sizes",
                    "message": "measured 3 of 8 sizes (up to n=256), 5 are needed ...",
                    "at": None,
                }
            ]
        },
        "kernels": [{"name": "slow", "metric": "time", "points": points}],
    }
    source = tmp_path / "m.json"
    source.write_text(json.dumps(doc))
    done = perfguard("check", source, "--expect", "*=<= n")
    assert done.returncode == 3
    assert "1 kernel stopped at the size limit before enough sizes: slow" in done.stderr
    assert "did not run to the end" not in done.stderr + done.stdout
    assert "the benchmark stopped at the size limit before enough sizes: slow" in done.stdout
