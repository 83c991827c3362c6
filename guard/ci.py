"""``perfguard ci``: run -> model -> check -> report -> comment -> store, for GitHub Actions.

Every step is an ordinary perfguard piece; this module only wires them and decides
what a CI step should do with the result. Side effects are in the order that loses
least when something breaks: the measurements and the report are written first, the
history last; a failing comment is a notice, never a lost report. Outside GitHub
Actions it does the same minus the GitHub calls, so it can be tried locally.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import stat
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

import requests

from .checking.check import CheckOptions
from .checking.check import check as run_check
from .checking.verdicts import FAIL_ON, CheckReport
from .checking.verdicts_json import read_report
from .config import Config, analytical_models, load_config
from .defaults import HISTORY_PATH
from .errors import PerfguardError, UsageError
from .formats import load as load_measurements
from .formats._common import decode_json
from .formats.native import save as save_measurements
from .git import git
from .github import (
    ActionsContext,
    CommentResult,
    GitHubClient,
    GitHubError,
    annotation,
    write_outputs,
    write_step_summary,
)
from .history import LOCAL, TRUSTED_EVENTS, History
from .measurements import MeasurementSet
from .reporting.markdown import render_markdown, render_report
from .reporting.summary import shown_reasons

__all__ = ["COMMENT_POLICIES", "FAIL_ON", "CiOptions", "CiResult", "run_ci", "publish"]

COMMENT_POLICIES = ("always", "on-failure", "never")
REPORT_DIR = Path(".perfguard/report")


@dataclass(frozen=True)
class CiOptions:
    """What ``perfguard ci`` was asked to do."""

    comment: str = "always"
    fail_on: str = "any"
    baseline: Path | None = None
    baseline_ref: str | None = None
    baseline_commit: str | None = None
    db: Path = HISTORY_PATH
    output: Path = REPORT_DIR / "measurements.json"
    store: bool = True

    def __post_init__(self) -> None:
        if self.comment not in COMMENT_POLICIES:
            raise UsageError(f"--comment must be one of {', '.join(COMMENT_POLICIES)}")
        if self.fail_on not in FAIL_ON:
            raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)}")


@dataclass(frozen=True)
class CiResult:
    """The outcome and what was written, for the exit code and the log."""

    report: CheckReport
    current: MeasurementSet
    markdown: Path
    baseline_note: str | None
    comment: CommentResult | None
    run_id: int | None


def run_ci(
    config: Config,
    options: CiOptions,
    check_options: CheckOptions,
    collect_current: Callable[[Config], MeasurementSet],
    context: ActionsContext | None,
    environ: Mapping[str, str],
    say: Callable[[str], None],
) -> CiResult:
    """Measure, check, report, comment and store; returns what happened."""
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    current = collect_current(config)
    if context is not None and current.run.commit != context.head_sha:
        # In a pull request GITHUB_SHA is a merge commit nobody can find again later;
        # the history keys runs by the head commit the developer pushed.
        current = replace(current, run=replace(current.run, commit=context.head_sha))
    save_measurements(current, options.output)
    baseline, note = _baseline(options, context, config, collect_current)
    if note:
        say(note)
    report = run_check(current, baseline, check_options)
    markdown = render_report(
        report,
        current,
        baseline,
        reproduce=_reproduce(config, options.output),
        analytical=analytical_models(config, current.parameters),
    )
    report_path = REPORT_DIR / "report.md"
    report_path.write_text(markdown, encoding="utf-8")
    (REPORT_DIR / "verdicts.json").write_text(
        json.dumps(report.to_json(), indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
    )
    _write_pr(context, report)
    comment = None
    if context is not None:
        if context.step_summary is not None:
            write_step_summary(context.step_summary, markdown)
        for v in report.verdicts:
            if v.verdict == "fail":
                reasons = "; ".join(shown_reasons(v)) or "failed"
                say(annotation("error", reasons, title=f"perfguard: {v.kernel} ({v.metric})"))
        comment = _comment(options, context, report, markdown, environ, say)
        if context.output is not None:
            write_outputs(
                context.output,
                {
                    "status": report.status,
                    "report": str(report_path),
                    "measurements": str(options.output),
                },
            )
    run_id = _store(options, current, report, say, context)
    return CiResult(report, current, report_path, note, comment, run_id)


ARTIFACT_LIMITS = {"verdicts.json": 32_000_000, "pr.json": 64_000}


def publish(
    folder: Path,
    context: ActionsContext | None,
    environ: Mapping[str, str],
    comment: str = "always",
    session_factory: Callable[[], requests.Session] = requests.Session,
) -> str:
    """``perfguard ci --publish DIR``: comment the check another workflow run uploaded.

    The folder is untrusted (a fork's workflow wrote it): only regular files under a size
    cap are read, the comment is rendered again from the validated verdicts.json -- never
    artifact markdown -- and the pull request is the one GitHub says the triggering run's
    head commit belongs to; the artifact's pr.json may only agree with it.
    """
    if context is None:
        raise UsageError("--publish posts to a pull request: run it inside GitHub Actions")
    report = read_report(_artifact_json(folder, "verdicts.json"), str(folder / "verdicts.json"))
    claimed = _claimed_pr(folder)
    wanted = comment == "always" or (comment == "on-failure" and report.status == "fail")
    if not wanted:
        return f"perfguard: no comment (--comment {comment}, status {report.status})"
    with session_factory() as session:
        client = GitHubClient(session, context.api_url, _token(environ))
        number = _pull_request(client, context)
        if number is None:
            return (
                f"perfguard: no open pull request has head {context.head_sha[:12]} in "
                f"{context.head_repository or context.repository}; nothing to comment on"
            )
        if claimed is not None and claimed != number:
            raise UsageError(
                f"{folder}/pr.json names #{claimed}, but the run's head commit belongs to "
                f"#{number}: refusing to comment"
            )
        body = render_markdown(report)
        result = client.upsert_comment(context.repository, number, body)
    return f"perfguard: comment {result.action}" + (f": {result.message}" if result.message else "")


def _artifact_json(folder: Path, name: str) -> object:
    """A JSON file of an uploaded artifact: a regular file, not a link, under its cap."""
    path = folder / name
    try:
        info = path.lstat()
        folder_info = folder.lstat()
    except OSError as exc:
        raise UsageError(f"{path}: {exc.strerror or exc}") from None
    if stat.S_ISLNK(folder_info.st_mode) or not stat.S_ISDIR(folder_info.st_mode):
        raise UsageError(f"{folder}: not a plain folder (a link or a file); refusing to read it")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{path}: not a regular file (a link, a folder or a device)")
    limit = ARTIFACT_LIMITS[name]
    if info.st_size > limit:
        raise UsageError(f"{path}: {info.st_size:,} bytes; at most {limit:,} are read")
    with open(path, "rb") as handle:  # read no more than the cap, even if it grew
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise UsageError(f"{path}: more than {limit:,} bytes; refusing to read it")
    try:
        return decode_json(data.decode("utf-8"), str(path))
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 (byte {exc.start})") from None


def _claimed_pr(folder: Path) -> int | None:
    """The pull request the artifact says it is for (a cross-check only), or None."""
    if not (folder / "pr.json").exists() and not (folder / "pr.json").is_symlink():
        return None
    doc = _artifact_json(folder, "pr.json")
    if not isinstance(doc, dict):
        raise UsageError(f'{folder}/pr.json: expected a JSON object such as {{"number": 12}}')
    number = doc.get("number")
    if number is None:
        return None
    if isinstance(number, bool) or not isinstance(number, int):
        raise UsageError(f"{folder}/pr.json: number must be an integer")
    return number


def _pull_request(client: GitHubClient, context: ActionsContext) -> int | None:
    """The run's pull request: the event's own for pull_request, GitHub's for workflow_run."""
    if context.event_name in ("pull_request", "pull_request_target"):
        return context.pr_number
    if context.event_name != "workflow_run":
        return None  # a push or a schedule belongs to no pull request
    if not context.head_sha:
        raise UsageError("the event names no head commit; nothing to look up")
    head_repo = context.head_repository or context.repository
    return client.pull_for_commit(context.repository, context.head_sha, head_repo)


def _token(environ: Mapping[str, str]) -> str:
    token = environ.get("PERFGUARD_TOKEN") or environ.get("GITHUB_TOKEN") or ""
    if not token:
        raise UsageError("no token: set GITHUB_TOKEN (or PERFGUARD_TOKEN) for the comment")
    return token


def _baseline(
    options: CiOptions,
    context: ActionsContext | None,
    config: Config,
    collect: Callable[[Config], MeasurementSet],
) -> tuple[MeasurementSet | None, str | None]:
    if options.baseline_commit is not None:
        mset = measure_commit(options.baseline_commit, config, collect)
        return mset, f"baseline: {options.baseline_commit} measured in this job (same runner)"
    path = options.baseline or config.check.baseline
    if path is not None:
        return load_measurements(path), f"baseline: {path}"
    ref = options.baseline_ref or (context.base_ref if context is not None else None)
    if not ref or not options.db.exists():
        why = "no --baseline or --baseline-ref" if not ref else f"no history at {options.db}"
        return None, f"no baseline ({why}): checking the expectations only"
    with History.open(options.db) as history:
        try:
            events = TRUSTED_EVENTS if context is not None else (*TRUSTED_EVENTS, LOCAL)
            row, note = history.baseline_for(ref, config.path.absolute().parent, events=events)
        except PerfguardError as exc:  # no usable baseline is a note, not a broken build
            return None, f"no baseline: {exc}; checking the expectations only"
        return history.load_run(row.id), note


def measure_commit(
    ref: str, config: Config, collect: Callable[[Config], MeasurementSet]
) -> MeasurementSet:
    """Same-runner A/B: measure ``ref`` in a temporary git worktree with this config.

    The config is the one under test (copied in when ``ref`` has none at that path), so
    both sides run the same benchmarks on the same machine in the same job.
    """
    if not ref or ref.startswith("-"):
        raise UsageError(f"--baseline-commit {ref!r}: not a commit (a ref cannot start with -)")
    folder = config.path.absolute().parent
    top = Path(_git(folder, "rev-parse", "--show-toplevel"))
    relative = config.path.absolute().relative_to(top)
    # --end-of-options: whatever ref says, git reads it as a revision, never as an option
    sha = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    with tempfile.TemporaryDirectory(prefix="perfguard-base-") as tmp:
        tree = Path(tmp) / "tree"
        _git(top, "worktree", "add", "--detach", str(tree), sha)
        try:
            base_config = tree / relative
            if not base_config.exists():
                base_config.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(config.path, base_config)
            return collect(load_config(base_config))
        finally:
            _git(top, "worktree", "remove", "--force", str(tree))


def _git(folder: Path, *args: str) -> str:
    out, why = git(folder, *args)
    if out is None:
        raise UsageError(f"git {' '.join(args[:2])}: {why}")
    return out


def _comment(
    options: CiOptions,
    context: ActionsContext,
    report: CheckReport,
    markdown: str,
    environ: Mapping[str, str],
    say: Callable[[str], None],
) -> CommentResult | None:
    wanted = options.comment == "always" or (
        options.comment == "on-failure" and report.status == "fail"
    )
    if not wanted or context.pr_number is None:
        return None
    if not (environ.get("GITHUB_TOKEN") or environ.get("PERFGUARD_TOKEN")):
        say(annotation("notice", "no GITHUB_TOKEN, so no pull-request comment", title="perfguard"))
        return None
    try:
        result = _upsert(context, environ, context.pr_number, markdown)
    except GitHubError as exc:  # the report is in the job summary: a broken API fails nothing
        say(annotation("warning", f"no pull-request comment: {exc}", title="perfguard"))
        return None
    if result.action == "forbidden":
        say(annotation("notice", result.message, title="perfguard"))
    return result


def _upsert(
    context: ActionsContext, environ: Mapping[str, str], number: int, body: str
) -> CommentResult:
    token = _token(environ)
    with requests.Session() as session:
        client = GitHubClient(session, context.api_url, token)
        return client.upsert_comment(
            context.repository, number, body, fork=context.restricted_fork_pr
        )


def _write_pr(context: ActionsContext | None, report: CheckReport) -> None:
    doc = {"number": None if context is None else context.pr_number, "status": report.status}
    (REPORT_DIR / "pr.json").write_text(json.dumps(doc) + "\n", encoding="utf-8")


def _store(
    options: CiOptions,
    current: MeasurementSet,
    report: CheckReport,
    say: Callable[[str], None],
    context: ActionsContext | None,
) -> int | None:
    if not options.store:
        return None
    options.db.parent.mkdir(parents=True, exist_ok=True)
    event = context.event_name or "unknown" if context is not None else LOCAL
    with History.open(options.db) as history:
        run_id = history.record(current, report, event=event)
    say(f"perfguard: stored run {run_id} in {options.db}")
    return run_id


def _reproduce(config: Config, output: Path) -> str:
    cfg = os.path.relpath(config.path)
    return f"perfguard run -c {shlex.quote(cfg)} -o {shlex.quote(str(output))} && " + (
        f"perfguard check {shlex.quote(str(output))} -c {shlex.quote(cfg)}"
    )
