"""`perfguard ci` end to end: a real event payload, real benchmarks (subprocesses), a real
SQLite history and a local HTTP server standing in for the GitHub REST API."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from support import Ran, perfguard
from werkzeug import Request, Response

from guard.history import History

PY = sys.executable
DATA = Path(__file__).parents[1] / "data" / "github"
TOKEN = "ghs_secret-token-never-printed-123"
COMMENTS = "/repos/octo/widget/issues/7/comments"


def project(tmp_path: Path, quadratic_power: float) -> Path:
    (tmp_path / "value.py").write_text(
        "import sys\nn, p = int(sys.argv[1]), float(sys.argv[2])\nprint(n ** p)\n"
    )
    config = tmp_path / "perfguard.yml"
    config.write_text(
        "version: 1\n"
        "parameters:\n  n: [8, 16, 32, 64, 128, 256]\n"
        "run:\n  repetitions: 2\n  warmup: 0\n"
        "benchmarks:\n"
        f'  linear:\n    command: ["{PY}", "value.py", "{{n}}", "1"]\n    metric: custom\n'
        f'  dedupe:\n    command: ["{PY}", "value.py", "{{n}}", "{quadratic_power}"]\n'
        "    metric: custom\n"
        'expect:\n  "*": "<= n"\n'
    )
    return config


def ci(tmp_path: Path, httpserver: HTTPServer, *args: str) -> Ran:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_EVENT_PATH": str(DATA / "pull_request_same_repo.json"),
        "GITHUB_REPOSITORY": "octo/widget",
        "GITHUB_SHA": "f" * 40,
        "GITHUB_API_URL": httpserver.url_for("").rstrip("/"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md"),
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
        "GITHUB_TOKEN": TOKEN,
    }
    return perfguard("ci", "-c", "perfguard.yml", *args, cwd=tmp_path, env=env)


def comment(id_: int, body: str) -> dict:
    return {"id": id_, "body": body, "user": {"login": "github-actions[bot]", "type": "Bot"}}


def test_first_run_creates_the_comment_and_the_second_updates_it(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    config = project(tmp_path, 2.0)
    posted: list[dict] = []

    def create(request: Request) -> Response:
        assert request.headers["Authorization"] == f"Bearer {TOKEN}"
        posted.append(request.get_json())
        return Response(json.dumps(comment(41, posted[-1]["body"])), 201)

    # first run: a 502 on the listing is retried, then no comment exists, so one is created
    httpserver.expect_ordered_request(COMMENTS, method="GET").respond_with_data("bad", 502)
    httpserver.expect_ordered_request(COMMENTS, method="GET").respond_with_json([])
    httpserver.expect_ordered_request(COMMENTS, method="POST").respond_with_handler(create)
    first = ci(tmp_path, httpserver, "--db", "history.sqlite")
    assert first.returncode == 1, first.stdout + first.stderr  # dedupe is O(n^2), <= n expected
    assert len(posted) == 1 and posted[0]["body"].startswith("<!-- perfguard-report -->")
    assert "dedupe" in posted[0]["body"]
    httpserver.check_assertions()
    httpserver.clear()

    # second run: the marked comment is found and updated in place, never a second one
    patched: list[dict] = []

    def update(request: Request) -> Response:
        patched.append(request.get_json())
        return Response(json.dumps(comment(41, patched[-1]["body"])), 200)

    httpserver.expect_ordered_request(COMMENTS, method="GET").respond_with_json(
        [comment(40, "looks good"), comment(41, posted[0]["body"])]
    )
    # a marked comment exists: whose? GITHUB_TOKEN may not read /user -> the Actions bot
    httpserver.expect_ordered_request("/user", method="GET").respond_with_json(
        {"message": "Resource not accessible by integration"}, status=403
    )
    httpserver.expect_ordered_request(
        "/repos/octo/widget/issues/comments/41", method="PATCH"
    ).respond_with_handler(update)
    second = ci(tmp_path, httpserver, "--db", "history.sqlite")
    assert second.returncode == 1
    assert len(patched) == 1 and len(posted) == 1
    httpserver.check_assertions()

    summary = (tmp_path / "summary.md").read_text()
    assert summary.count("perfguard") >= 2 and "dedupe" in summary  # appended twice
    outputs = (tmp_path / "output.txt").read_text()
    assert "status=fail" in outputs and "report=.perfguard/report/report.md" in outputs
    assert "::error title=perfguard%3A dedupe (custom)::" in first.stdout  # ":" escaped
    with History.open(tmp_path / "history.sqlite") as history:
        runs = history.runs()
    assert len(runs) == 2 and runs[0].commit == "3" * 40  # the PR head, not GITHUB_SHA
    for done in (first, second):
        assert TOKEN not in done.stdout + done.stderr
    assert config.is_file()


def test_a_forbidden_comment_is_a_notice_and_the_verdict_decides(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    project(tmp_path, 1.0)  # every kernel linear: pass
    httpserver.expect_request(COMMENTS, method="GET").respond_with_json([])
    httpserver.expect_request(COMMENTS, method="POST").respond_with_json(
        {"message": "Resource not accessible by integration"}, status=403
    )
    done = ci(tmp_path, httpserver, "--no-store")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "::notice" in done.stdout and "fork" in done.stdout.lower()
    assert (tmp_path / "summary.md").read_text().startswith("<!-- perfguard-report -->") or (
        "perfguard" in (tmp_path / "summary.md").read_text()
    )
    assert TOKEN not in done.stdout + done.stderr


@pytest.mark.parametrize(("fail_on", "code"), [("any", 1), ("regression", 0), ("never", 0)])
def test_fail_on_picks_what_fails_the_step(
    tmp_path: Path, httpserver: HTTPServer, fail_on: str, code: int
) -> None:
    project(tmp_path, 2.0)
    done = ci(tmp_path, httpserver, "--comment", "never", "--no-store", "--fail-on", fail_on)
    assert done.returncode == code, done.stdout + done.stderr
    assert not httpserver.log  # --comment never: no API call at all
    # a log and a report saying "fail" above a step that passes say why
    why = f"but --fail-on {fail_on} gates"
    assert (why in done.stdout) == (code == 0), done.stdout
    report = next(tmp_path.rglob("report.md")).read_text()
    assert ("the step passes" in report) == (code == 0)


def test_config_errors_exit_2_in_ci_too(tmp_path: Path, httpserver: HTTPServer) -> None:
    (tmp_path / "perfguard.yml").write_text("version: 1\nrun:\n  budgte: 3\n")
    done = ci(tmp_path, httpserver)
    assert done.returncode == 2
    assert "perfguard.yml:3: run.budgte: unknown key" in done.stderr


def git(folder: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=folder,
        check=True,
        capture_output=True,
    )


def head(folder: Path) -> str:
    done = subprocess.run(["git", "rev-parse", "HEAD"], cwd=folder, capture_output=True, text=True)
    return done.stdout.strip()


def outside_actions(tmp_path: Path, *args: str) -> Ran:
    """perfguard ci as on a developer's machine: no GITHUB_* variable at all."""
    unset = {name: None for name in os.environ if name.startswith("GITHUB_")}
    return perfguard("ci", "-c", "perfguard.yml", *args, cwd=tmp_path, env=unset)


def test_same_runner_ab_measures_the_base_commit_in_a_worktree(tmp_path: Path) -> None:
    # base commit: dedupe linear; head commit: dedupe quadratic -> a class regression
    project(tmp_path, 1.0)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    project(tmp_path, 2.0)
    git(tmp_path, "commit", "-qam", "head")
    args = ["--baseline-commit", "HEAD~1", "--comment", "never", "--no-store"]
    done = outside_actions(tmp_path, *args, "--fail-on", "regression")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "HEAD~1 measured in this job (same runner)" in done.stdout
    # and the report a reviewer reads says what the run was compared with
    report = (tmp_path / ".perfguard/report/report.md").read_text()
    assert "- note: baseline: HEAD\\~1 measured in this job (same runner)" in report
    verdicts = json.loads((tmp_path / ".perfguard/report/verdicts.json").read_text())
    flags = {k["kernel"]: k["regression"] for k in verdicts["kernels"]}
    assert flags == {"linear": False, "dedupe": True}
    listed = subprocess.run(["git", "worktree", "list"], cwd=tmp_path, capture_output=True)
    assert len(listed.stdout.decode().splitlines()) == 1  # the temporary worktree is gone


@pytest.mark.parametrize("ref", ["--no-checkout", "-x", "--lock", "no-such-commit", "HEAD~9"])
def test_a_baseline_commit_that_is_no_commit_is_refused(tmp_path: Path, ref: str) -> None:
    """git must never read the ref as an option (--no-checkout measured an empty tree)."""
    project(tmp_path, 1.0)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    done = outside_actions(tmp_path, f"--baseline-commit={ref}", "--comment", "never", "--no-store")
    assert done.returncode == 2, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    if not ref.startswith("-"):  # was "git rev-parse --verify: git rev-parse failed", measured
        assert f"--baseline-commit {ref}: git knows no such commit here" in done.stderr
        assert not (tmp_path / ".perfguard" / "report" / "measurements.json").exists()
    listed = subprocess.run(["git", "worktree", "list"], cwd=tmp_path, capture_output=True)
    assert len(listed.stdout.decode().splitlines()) == 1


def test_a_benchmark_that_fails_to_run_is_exit_3(tmp_path: Path, httpserver: HTTPServer) -> None:
    config = project(tmp_path, 1.0)
    config.write_text(
        config.read_text().replace(
            "expect:", f'  broken:\n    command: ["{PY}", "-c", "raise SystemExit(4)"]\nexpect:'
        )
    )
    done = ci(tmp_path, httpserver, "--comment", "never", "--no-store")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "broken at n=8: exit code 4" in done.stderr
    # the check's own summary says so too, not "pass" beside exit 3
    assert "perfguard check: error" in done.stdout and "1 benchmark failed to run" in done.stdout
    assert "benchmark crash: broken at n=8: exit code 4" in done.stdout
    report = done.stdout.split("perfguard ci: report in ", 1)[1].strip()
    markdown = (tmp_path / report).read_text()
    assert "💥 error (" in markdown and "broken at n=8: exit code 4" in markdown


def test_an_interrupted_run_is_checked_as_an_error_and_not_stored(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    # a run stopped by Ctrl-C read "inconclusive", exit 0, and was stored as run N, a later
    # check's baseline
    from guard.measurements import Kernel, MeasurementSet, Point, RunError, RunInfo

    project(tmp_path, 1.0)
    points = tuple(Point((float(n),), (float(n), float(n))) for n in (8, 16, 32, 64, 128, 256))
    cut = RunError("dedupe", "interrupted", "the run was interrupted with 2 of 6 sizes measured")
    partial = MeasurementSet(
        ("n",),
        (Kernel("linear", "custom", points),),
        RunInfo(errors=(cut,), interrupted=True),
    )
    (tmp_path / "part.json").write_text(json.dumps(partial.to_json()))
    done = ci(tmp_path, httpserver, "--comment", "never", "--measurements", "part.json")
    assert done.returncode == 3, done.stdout + done.stderr
    assert "not stored" in done.stdout + done.stderr and "interrupted" in done.stdout
    db = tmp_path / ".perfguard" / "history.sqlite"
    if db.exists():
        with History.open(db) as history:
            assert history.runs() == []
    # the same file, not interrupted, is stored: the refusal is the interruption's
    whole = dataclasses.replace(partial, run=RunInfo())
    (tmp_path / "whole.json").write_text(json.dumps(whole.to_json()))
    stored = ci(tmp_path, httpserver, "--comment", "never", "--measurements", "whole.json")
    assert "stored run 1" in stored.stdout + stored.stderr


@pytest.mark.parametrize("baseline", [[], ["--baseline-ref", "main"]])
def test_a_history_it_cannot_store_in_still_shows_the_verdicts(
    tmp_path: Path, baseline: list[str]
) -> None:
    # a damaged history: "...damaged (database disk image is malformed)", exit 2, and the
    # regression's table never appeared (the fail only in .perfguard/report/); read for a
    # baseline (every pull request), it skipped the check and wrote no report at all
    from guard.measurements import Kernel, MeasurementSet, Point

    project(tmp_path, 2.0)
    points = tuple(
        Point((float(n),), (float(n * n), float(n * n))) for n in (8, 16, 32, 64, 128, 256)
    )
    now = MeasurementSet(("n",), (Kernel("dedupe", "custom", points),))
    (tmp_path / "now.json").write_text(json.dumps(now.to_json()))
    (tmp_path / "broken.sqlite").write_bytes(b"SQLite format 3\x00" + b"\xff" * 4096)
    done = perfguard(
        "ci", "-c", "perfguard.yml", "--comment", "never", "--measurements", "now.json",
        "--db", "broken.sqlite", *baseline, cwd=tmp_path, env={"GITHUB_ACTIONS": None},
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr  # the verdict's code, not 2
    assert (
        "fail dedupe" in done.stdout and "perfguard: not stored: " in done.stderr
    )  # an error: stderr
    assert (tmp_path / ".perfguard" / "report" / "verdicts.json").is_file()
    if baseline:
        assert "no baseline: " in done.stdout + done.stderr


def test_the_run_is_stored_before_the_comment_is_posted(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    """A slow or rate-limited API, and a job cancelled while it waits, lost the finished run:
    it was stored only after the comment."""
    from guard.history import History

    project(tmp_path, 2.0)
    stored_when_listed: list[int] = []

    def listing(request: Request) -> Response:
        with History.open(tmp_path / "history.sqlite") as history:
            stored_when_listed.append(len(history.runs()))
        return Response("[]", 200, content_type="application/json")

    httpserver.expect_request(COMMENTS, method="GET").respond_with_handler(listing)
    httpserver.expect_request(COMMENTS, method="POST").respond_with_json(comment(41, "x"), 201)
    done = ci(tmp_path, httpserver, "--db", "history.sqlite")
    assert done.returncode == 1, done.stdout + done.stderr
    assert stored_when_listed == [1]


def test_two_baselines_or_a_mistyped_ref_are_refused_before_measuring(tmp_path: Path) -> None:
    """One of two baselines silently won; a mistyped --baseline-ref turned the regression
    gate off with a note and the build passed."""
    project(tmp_path, 1.0)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    (tmp_path / "base.json").write_text("{}")
    both = outside_actions(tmp_path, "--baseline", "base.json", "--baseline-ref", "main")
    assert both.returncode == 2
    assert "give one baseline, not --baseline base.json and --baseline-ref main" in both.stderr
    typo = outside_actions(tmp_path, "--baseline-ref", "mian", "--comment", "never")
    assert typo.returncode == 2 and "--baseline-ref mian: git knows no such branch" in typo.stderr
    # a baseline file that is missing or holds nothing: refused in a second, not after the
    # suite was measured (and the report folder left mixing two runs)
    (tmp_path / "other.json").write_text(
        '{"schema": "perfguard/measurements@1", "parameters": ["n", "b"], "kernels": [{"name":'
        ' "k", "metric": "time", "points": [{"at": {"n": 1, "b": 1}, "values": [1.0]}]}]}'
    )
    other = outside_actions(tmp_path, "--baseline", "other.json", "--comment", "never")
    assert other.returncode == 2 and "the baseline's parameters (n, b) differ" in other.stderr
    for given in ("nope.json", "empty.json"):
        (tmp_path / "empty.json").write_text(
            '{"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": []}'
        )
        done = outside_actions(tmp_path, "--baseline", given, "--comment", "never")
        assert done.returncode == 2 and given in done.stderr, done.stderr
    assert not (tmp_path / ".perfguard" / "report").exists()  # nothing was measured


def test_on_failure_updates_the_fail_comment_once_the_pull_request_passes(
    tmp_path: Path, httpserver: HTTPServer
) -> None:
    """--comment on-failure left the "fail" comment standing after the fix; it still never
    creates one for a pass."""
    project(tmp_path, 1.0)  # dedupe linear: a pass
    patched: list[dict] = []

    def patch(request: Request) -> Response:
        patched.append(request.get_json())
        return Response(json.dumps(comment(41, patched[-1]["body"])), 200)

    old = comment(41, "<!-- perfguard-report -->\n## perfguard: ❌ fail")
    httpserver.expect_ordered_request(COMMENTS, method="GET").respond_with_json([old])
    httpserver.expect_ordered_request("/user", method="GET").respond_with_json(
        {"message": "Resource not accessible by integration"}, status=403
    )
    httpserver.expect_ordered_request(
        "/repos/octo/widget/issues/comments/41", method="PATCH"
    ).respond_with_handler(patch)
    done = ci(tmp_path, httpserver, "--comment", "on-failure", "--no-store")
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(patched) == 1 and "✅ pass" in patched[0]["body"]
    httpserver.clear()
    httpserver.expect_request(COMMENTS, method="GET").respond_with_json([])
    again = ci(tmp_path, httpserver, "--comment", "on-failure", "--no-store")
    assert again.returncode == 0
    assert [r.method for r, _ in httpserver.log] == ["GET"]  # looked, created nothing


def test_a_push_compares_with_the_run_of_the_commit_before(tmp_path: Path) -> None:
    """A push had no baseline at all, so --fail-on regression could never fire on main."""
    project(tmp_path, 1.0)
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "linear")
    first = head(tmp_path)
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "push",
        "GITHUB_EVENT_PATH": str(DATA / "push.json"),
        "GITHUB_REPOSITORY": "octo/widget",
        "GITHUB_REF": "refs/heads/main",
        "GITHUB_SHA": first,
        "GITHUB_OUTPUT": str(tmp_path / "output.txt"),
    }
    args = ["ci", "-c", "perfguard.yml", "--comment", "never", "--db", "h.sqlite"]
    stored = perfguard(*args, cwd=tmp_path, env=env)
    assert stored.returncode == 0, stored.stdout + stored.stderr
    project(tmp_path, 2.0)  # dedupe turns quadratic
    git(tmp_path, "commit", "-qam", "quadratic")
    env["GITHUB_SHA"] = head(tmp_path)
    pushed = perfguard(*args, "--fail-on", "regression", cwd=tmp_path, env=env)
    assert pushed.returncode == 1, pushed.stdout + pushed.stderr
    assert f"baseline: the newest run of an ancestor on main, {first[:7]}" in pushed.stdout
    verdicts = json.loads((tmp_path / ".perfguard/report/verdicts.json").read_text())
    assert {k["kernel"]: k["regression"] for k in verdicts["kernels"]} == {
        "linear": False,
        "dedupe": True,
    }
    # a re-run of the failed job: its own stored run is not its baseline
    again = perfguard(*args, "--fail-on", "regression", cwd=tmp_path, env=env)
    assert again.returncode == 1, again.stdout + again.stderr
    assert f"of an ancestor on main, {first[:7]}" in again.stdout


def test_a_local_run_without_a_baseline_says_how_to_name_one(tmp_path: Path) -> None:
    # "no baseline (no --baseline or --baseline-ref)": a local run never compares with the
    # history unless told which branch, and --baseline-commit went unmentioned
    project(tmp_path, 1.0)
    done = outside_actions(tmp_path, "--comment", "never", "--no-store")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (
        "no baseline (no --baseline, --baseline-ref or --baseline-commit; outside GitHub "
        "Actions name one, e.g. --baseline-ref main)" in done.stdout + done.stderr
    )


def test_an_interrupted_report_write_leaves_the_earlier_report_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Action uploads the report folder even when the job is cancelled: a cancel while
    its files are replaced must leave the earlier files, not a new verdicts.json beside an
    old report.md (or half a file)."""
    from guard.app import ci as ci_app
    from guard.checking.verdicts import CheckReport

    folder = tmp_path / "report"
    folder.mkdir()
    earlier = {"report.md": "# earlier\n", "verdicts.json": "{}\n", "pr.json": "{}\n"}
    for name, text in earlier.items():
        (folder / name).write_text(text, encoding="utf-8")

    def cancelled(src: str, dst: str) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", cancelled)
    with pytest.raises(KeyboardInterrupt):
        ci_app._write_report(folder, "# new\n", CheckReport(verdicts=()), None)
    assert {p.name: p.read_text(encoding="utf-8") for p in folder.iterdir()} == earlier


def test_a_run_interrupted_while_it_checks_leaves_no_earlier_verdicts_beside_its_measurements(
    tmp_path: Path, httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Ctrl-C after the measurements were written left the last run's verdicts.json and
    # report.md beside them; `perfguard report` then drew one commit's bars under another
    # commit's model, labelled fail
    from guard.app import ci as ci_app

    project(tmp_path, 1.0)
    folder = tmp_path / ".perfguard" / "report"
    folder.mkdir(parents=True)
    for name in ("report.md", "verdicts.json", "pr.json"):
        (folder / name).write_text("from the run before\n")

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(ci_app, "judge", interrupted)
    done = ci(tmp_path, httpserver, "--comment", "never")
    assert done.returncode == 130
    assert sorted(p.name for p in folder.iterdir()) == ["measurements.json"]
