"""The application layer in-process: each verb with the collaborators handed in.

No subprocess and no terminal: measuring is a function the test passes (the seam where
the CLI passes its progress display), GitHub is a local HTTP server reached through the
session factory, and the report folder is the test's own, so nothing lands in the cwd.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import requests
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from guard.app.check import CheckRequest, check
from guard.app.ci import CiOptions, CiServices, ci, wants_comment
from guard.app.run import RunOutcome, RunRequest, run
from guard.app.settings import CheckFlags, check_options
from guard.checking.verdicts_json import read_report
from guard.config import load_config
from guard.defaults import CONFIDENCE
from guard.errors import Interrupted, UsageError
from guard.formats import load
from guard.github import actions_context
from guard.measurements import MeasurementSet, RunError

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "check"
EVENT = ROOT / "tests" / "data" / "github" / "pull_request_same_repo.json"
HEAD = "3" * 40


def write_config(folder: Path, text: str) -> Path:
    path = folder / "perfguard.yml"
    path.write_text(text, encoding="utf-8")
    return path


def replay(mset: MeasurementSet, calls: list[list[str]]) -> Callable[..., MeasurementSet]:
    """A Measure that records which benchmarks it was asked for and returns ``mset``."""

    def measure(config, specs: Sequence, options, checkpoint) -> MeasurementSet:  # type: ignore[no-untyped-def]
        calls.append([s.name for s in specs])
        checkpoint(mset)
        return mset

    return measure


# ------------------------------------------------------------------------ settings


def test_settings_resolve_the_command_line_then_the_config_then_the_defaults(
    tmp_path: Path,
) -> None:
    cfg = load_config(
        write_config(
            tmp_path,
            "version: 1\nexpect:\n  '*': '<= n'\ncheck:\n  confidence: 0.95\n"
            "  max_slowdown: 3\n  target: {n: 1.0e6}\n",
        )
    )
    from_config = check_options(cfg, CheckFlags())
    assert from_config.confidence == 0.95 and from_config.max_slowdown == 3
    assert dict(from_config.target) == {"n": 1e6}
    assert [r.text for r in from_config.rules] == ["<= n"]

    flags = CheckFlags(expect=["sort*=<= n log n"], confidence=0.999, target=["n=1e9"])
    from_flags = check_options(cfg, flags)
    assert from_flags.confidence == 0.999 and dict(from_flags.target) == {"n": 1e9}
    assert [r.pattern for r in from_flags.rules] == ["sort*", "*"]  # the command line first

    defaults = check_options(None, CheckFlags())
    assert defaults.confidence == CONFIDENCE and defaults.max_slowdown is None


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (CheckFlags(confidence=1.5), "--confidence must lie between 0.5 and 1"),
        (CheckFlags(max_slowdown=0.5), "--max-slowdown must be greater than 1"),
        (CheckFlags(target=["n"]), "--target wants NAME=SIZE"),
        (CheckFlags(expect=["sort"]), "--expect wants GLOB=EXPR"),
        (CheckFlags(expect=["sort=<= n^^2"]), "--expect 'sort=<= n^^2': sort: invalid"),
    ],
)
def test_bad_settings_fail_before_anything_is_read(flags: CheckFlags, message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("^", r"\^")):
        check_options(None, flags)


# ---------------------------------------------------------------------------- check


def test_check_without_current_measures_every_benchmark_through_the_collaborator(
    tmp_path: Path,
) -> None:
    cand = load(EXAMPLE / "cand.json")
    config = write_config(
        tmp_path,
        "version: 1\nparameters:\n  n: [1, 2]\nbenchmarks:\n"
        "  dedupe: {command: 'true {n}'}\n  sort: {command: 'true {n}'}\n"
        "expect:\n  dedupe: '<= n'\n",
    )
    calls: list[list[str]] = []
    outcome = check(CheckRequest(config=config), replay(cand, calls))
    assert calls == [["dedupe", "sort"]]
    dedupe = next(v for v in outcome.report.verdicts if v.kernel == "dedupe")
    assert dedupe.verdict == "fail" and outcome.exit_code() == 1


def test_a_benchmark_that_failed_to_run_cannot_pass(tmp_path: Path) -> None:
    base = load(EXAMPLE / "base.json")
    failed = RunError("x", "crash", "exit status 139")
    broken = replace(base, run=replace(base.run, errors=(failed,)))
    path = tmp_path / "m.json"
    from guard.formats.native import save

    save(broken, path)
    outcome = check(CheckRequest(current=path), replay(base, []))
    # every kernel that ran passes, but the report must not say "pass" beside exit 3
    assert {v.verdict for v in outcome.report.verdicts} == {"pass"}
    assert outcome.report.status == "error" and outcome.exit_code() == 3
    assert outcome.report.not_run == ("x",)
    assert "benchmark crash: x: exit status 139" in outcome.report.notes
    doc = outcome.report.to_json()
    assert doc["status"] == "error" and doc["not_run"] == ["x"]
    assert read_report(doc, "verdicts.json").status == "error"  # `perfguard report` agrees


def test_on_failure_comments_whenever_the_job_fails() -> None:
    # a benchmark that did not run is status error (exit 3): the author must hear of it
    assert [wants_comment("on-failure", s) for s in ("fail", "error")] == [True, True]
    assert [wants_comment("on-failure", s) for s in ("pass", "inconclusive")] == [False, False]
    assert wants_comment("always", "pass") and not wants_comment("never", "fail")


def test_check_writes_the_markdown_report_it_was_asked_for(tmp_path: Path) -> None:
    report = tmp_path / "report.md"
    request = CheckRequest(
        current=EXAMPLE / "cand.json", config=EXAMPLE / "perfguard.yml", markdown=report
    )
    outcome = check(request, replay(load(EXAMPLE / "cand.json"), []))
    text = report.read_text(encoding="utf-8")
    assert text.startswith("## ") and "dedupe" in text
    assert outcome.exit_code() == 1


# ------------------------------------------------------------------------------ run


def test_run_keeps_the_output_valid_and_reports_an_interruption(tmp_path: Path) -> None:
    base = load(EXAMPLE / "base.json")
    stopped = replace(base, run=replace(base.run, interrupted=True))
    config = write_config(
        tmp_path, "version: 1\nparameters:\n  n: [1, 2]\nbenchmarks:\n  a: {command: 'true'}\n"
    )
    output = tmp_path / "m.json"
    outcome = run(RunRequest(config, output), replay(stopped, []))
    assert isinstance(outcome, RunOutcome) and outcome.exit_code() == Interrupted.exit_code == 130
    assert load(output).kernels == base.kernels  # what was measured is on disk


def test_a_check_that_measures_says_so_when_interrupted(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # `perfguard ci` stopped by Ctrl-C exited 130 without a word
    from guard import cli

    base = load(EXAMPLE / "base.json")
    stopped = replace(base, run=replace(base.run, interrupted=True))
    config = write_config(
        tmp_path, "version: 1\nparameters:\n  n: [1, 2]\nbenchmarks:\n  a: {command: 'true'}\n"
    )
    monkeypatch.setattr(cli, "measure", replay(stopped, []))
    assert cli.main(["check", "-c", str(config)]) == 130
    assert "interrupted while measuring: nothing was checked or stored" in capsys.readouterr().err


def test_run_refuses_an_unwritable_output_before_measuring(tmp_path: Path) -> None:
    config = write_config(
        tmp_path, "version: 1\nparameters:\n  n: [1, 2]\nbenchmarks:\n  a: {command: 'true'}\n"
    )
    calls: list[list[str]] = []
    with pytest.raises(UsageError, match="does not exist"):
        run(
            RunRequest(config, tmp_path / "missing" / "m.json"),
            replay(load(EXAMPLE / "base.json"), calls),
        )
    assert calls == []


# ------------------------------------------------------------------------------- ci


def github(server: HTTPServer, posted: list[str]) -> None:
    server.expect_request("/repos/octo/widget/issues/7/comments", method="GET").respond_with_json(
        []
    )

    def create(request: Request) -> Response:
        posted.append(request.get_json()["body"])
        return Response(json.dumps({"id": 1, "html_url": "u", "body": "b"}), 201)

    server.expect_request(
        "/repos/octo/widget/issues/7/comments", method="POST"
    ).respond_with_handler(create)


def test_ci_writes_its_report_folder_and_comments_through_the_session_factory(
    tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # anything written outside report_dir would land here
    posted: list[str] = []
    github(httpserver, posted)
    environ = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(EVENT),
        "GITHUB_REPOSITORY": "octo/widget",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_API_URL": httpserver.url_for("").rstrip("/"),
        "GITHUB_TOKEN": "ghs_in-process",
    }
    sessions: list[requests.Session] = []

    def session_factory() -> requests.Session:
        sessions.append(requests.Session())
        return sessions[-1]

    said: list[str] = []
    folder = tmp_path / "out" / "report"
    options = CiOptions(
        config=EXAMPLE / "perfguard.yml",
        measurements=EXAMPLE / "cand.json",
        db=tmp_path / "history.sqlite",
        report_dir=folder,
    )
    services = CiServices(
        replay(load(EXAMPLE / "cand.json"), []),
        environ,
        actions_context(environ),
        said.append,
        session_factory,
    )
    outcome = ci(options, services)
    assert outcome.exit_code() == 1 and outcome.report.status == "fail"
    assert sorted(p.name for p in folder.iterdir()) == [
        "measurements.json",
        "pr.json",
        "report.md",
        "verdicts.json",
    ]
    assert json.loads((folder / "pr.json").read_text()) == {"number": 7, "status": "fail"}
    assert len(sessions) == 1 and len(posted) == 1 and "dedupe" in posted[0]
    assert any(line.startswith("::error") for line in said)
    assert outcome.run_id is not None and (tmp_path / "history.sqlite").is_file()
    assert sorted(os.listdir(tmp_path)) == ["history.sqlite", "out"]


def test_ci_fail_on_decides_the_exit_code(tmp_path: Path) -> None:
    common = dict(
        config=EXAMPLE / "perfguard.yml",
        measurements=EXAMPLE / "cand.json",
        store=False,
        report_dir=tmp_path,
    )
    services = CiServices(replay(load(EXAMPLE / "cand.json"), []), {}, None, lambda line: None)
    assert ci(CiOptions(**common, fail_on="any"), services).exit_code() == 1  # type: ignore[arg-type]
    assert ci(CiOptions(**common, fail_on="never"), services).exit_code() == 0  # type: ignore[arg-type]


def test_sizes_are_read_as_perfguard_yml_writes_them_and_a_point_names_each() -> None:
    # `--predict 2^20` was refused although perfguard.yml writes sizes so, and
    # `--predict n=4096,p=64` read as a parameter named 'n=4096,p'
    from guard.app.settings import parse_point, parse_target, point_for

    assert parse_point("2^20") == {None: 2.0**20}
    assert parse_point("n=1e6") == {"n": 1e6}
    assert parse_target("p=2^10") == ("p", 1024.0)
    assert parse_point("n=4096,p=64") == {"n": 4096.0, "p": 64.0}
    assert point_for({None: 8.0}, ("n",), "f") == point_for({"n": 8.0}, ("n",), "f") == 8.0
    assert point_for({"n": 4096.0, "p": 64.0}, ("p", "n"), "f") == {"p": 64.0, "n": 4096.0}
    with pytest.raises(UsageError, match="f has parameters p, n; name each of them"):
        point_for({None: 8.0}, ("p", "n"), "f")
    with pytest.raises(UsageError, match="has the one parameter n"):
        point_for({"n": 4096.0, "p": 64.0}, ("n",), "f")
    with pytest.raises(UsageError, match="positive size"):
        parse_point("2^x")
    with pytest.raises(UsageError, match="positive size"):
        parse_point("4096,p=64")
    with pytest.raises(UsageError, match="names 'n' twice"):
        parse_point("n=1,n=2")
