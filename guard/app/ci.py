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

from .. import numbers
from ..atomic import write_atomic
from ..checking.check import check as judge
from ..checking.verdicts import FAIL_ON, CheckReport, Verdict
from ..checking.verdicts_json import read_report
from ..config import Config, load_config
from ..defaults import CONFIG_PATH, HISTORY_PATH, REPORT_DIR
from ..errors import HistoryError, PerfguardError, UsageError
from ..formats import load as load_measurements
from ..formats._common import decode_json
from ..formats.native import save as save_measurements
from ..git import git
from ..github import (
    ActionsContext,
    CommentResult,
    GitHubClient,
    GitHubError,
    annotation,
    write_outputs,
    write_step_summary,
)
from ..history import LOCAL, TRUSTED_EVENTS, History
from ..measurements import MeasurementSet
from ..reporting.jsonl import encode_document
from ..reporting.markdown import escape, render_markdown, render_report
from ..reporting.summary import shown_reasons
from .departures import analytical_facts
from .inputs import require_kernels
from .run import Measure, measure_config, measured_exit
from .settings import CheckFlags, check_options

__all__ = [
    "COMMENT_POLICIES",
    "FAIL_ON",
    "CiOptions",
    "CiServices",
    "CiOutcome",
    "ci",
    "publish",
    "wants_comment",
]

COMMENT_POLICIES = ("always", "on-failure", "never")


@dataclass(frozen=True)
class CiOptions:
    """What ``perfguard ci`` was asked to do."""

    config: Path = CONFIG_PATH
    comment: str = "always"
    fail_on: str = "any"
    baseline: Path | None = None
    baseline_ref: str | None = None
    baseline_commit: str | None = None
    db: Path = HISTORY_PATH
    store: bool = True
    measurements: Path | None = None  # check this file instead of running the benchmarks
    strict: bool = False
    report_dir: Path = REPORT_DIR

    def __post_init__(self) -> None:
        if self.comment not in COMMENT_POLICIES:
            raise UsageError(f"--comment must be one of {', '.join(COMMENT_POLICIES)}")
        if self.fail_on not in FAIL_ON:
            raise UsageError(f"--fail-on must be one of {', '.join(FAIL_ON)}")

    @property
    def output(self) -> Path:
        """Where the measurements of this run are written."""
        return self.report_dir / "measurements.json"


@dataclass(frozen=True)
class CiServices:
    """What ``perfguard ci`` uses but does not build: tests and the CLI hand these in."""

    measure: Measure
    environ: Mapping[str, str]
    context: ActionsContext | None
    say: Callable[[str], None]
    session_factory: Callable[[], requests.Session] = requests.Session
    complain: Callable[[str], None] | None = None  # an error line outside Actions (stderr)


@dataclass(frozen=True)
class CiOutcome:
    """The outcome and what was written, for the exit code and the log."""

    report: CheckReport
    current: MeasurementSet
    markdown: Path
    baseline_note: str | None
    comment: CommentResult | None
    run_id: int | None
    fail_on: str = "any"
    unstored: str | None = None  # why the run could not be stored (the history's error)

    def exit_code(self) -> int:
        """1 a failure of the kind ``--fail-on`` names, 2 unusable input (or a history the
        run could not be stored in), 3 a benchmark failed to execute, else 0."""
        from ..checking.verdicts import exit_code

        code = measured_exit(exit_code(self.report, self.fail_on), self.current)
        return 2 if code == 0 and self.unstored is not None else code


def ci(options: CiOptions, services: CiServices) -> CiOutcome:
    """Measure, check, report, comment and store; returns what happened."""
    given = [
        f"{flag} {value}"
        for flag, value in (
            ("--baseline", options.baseline),
            ("--baseline-ref", options.baseline_ref),
            ("--baseline-commit", options.baseline_commit),
        )
        if value is not None
    ]
    if len(given) > 1:  # one of them silently won, a different one for each pair
        raise UsageError(f"give one baseline, not {' and '.join(given)}")
    config = load_config(options.config)
    if options.baseline_ref is not None:
        _check_ref(options.baseline_ref, config.path.absolute().parent, options.db)
    if options.baseline_commit is not None:  # before the suite is measured, not after
        _commit_of(options.baseline_commit, config.path.absolute().parent)
    check_opts = check_options(config, CheckFlags(strict=options.strict))
    from_file = _file_baseline(options, config)
    if from_file is not None and options.measurements is None:
        from ..checking.check import same_parameters

        same_parameters(from_file[0].parameters, tuple(config.parameters), f"{config.path}'s")
    current = _current(options, config, services.measure)
    options.report_dir.mkdir(parents=True, exist_ok=True)  # not for a run refused above
    _clear_report(options.report_dir)
    context = services.context
    if context is not None and current.run.commit != context.head_sha:
        # In a pull request GITHUB_SHA is a merge commit nobody can find again later;
        # the history keys runs by the head commit the developer pushed.
        current = replace(current, run=replace(current.run, commit=context.head_sha))
    save_measurements(current, options.output)
    baseline, note = from_file or _baseline(
        options, context, config, services.measure, bool(current.run.dirty)
    )
    report = judge(current, baseline, check_opts)
    if note:  # in the report, the summary and the comment: what the PR was compared with
        report = replace(report, notes=(note, *report.notes))
    ungated = not_gating(report, options.fail_on)
    if ungated:  # a comment saying "fail" above a green job must say why
        report = replace(report, notes=(*report.notes, ungated))
    markdown = render_report(
        report,
        current,
        baseline,
        reproduce=_reproduce(config, options.output),
        facts=analytical_facts(config, current),
    )
    report_path = _write_report(options.report_dir, markdown, report, context)
    unstored = None
    try:  # before the network: a slow API and a cancelled job must not lose the run
        run_id = _store(options, current, report, services.say, context)
    except HistoryError as exc:  # the verdicts stand and are shown; the store failed
        run_id, unstored = None, str(exc)
        why = f"not stored: {exc}"
        if context is not None:  # a workflow command: read from stdout
            services.say(annotation("error", why, title="perfguard"))
        else:
            (services.complain or services.say)(f"perfguard: {why}")
    comment = _announce(options, services, report, markdown, report_path)
    return CiOutcome(report, current, report_path, note, comment, run_id, options.fail_on, unstored)


def not_gating(report: CheckReport, fail_on: str) -> str | None:
    """Why failing kernels do not fail the step under ``--fail-on``, or None: they do (or
    none fails)."""
    from ..checking.verdicts import exit_code

    failing = [v for v in report.verdicts if v.verdict == "fail"]
    if not failing or fail_on == "any" or exit_code(report, fail_on) == 1:
        return None
    why = {f"{v.kernel} on {_failed_on(v)}": None for v in failing}  # once each, in order
    gates = {"expectation": "exceeded bounds", "regression": "class regressions"}.get(fail_on)
    what = f"gates only {gates}" if gates else "gates nothing"
    return (
        f"{numbers.counted(len(failing), 'kernel')} fail{'s' if len(failing) == 1 else ''} "
        f"({'; '.join(why)}), but --fail-on {fail_on} {what}: the step passes"
    )


def _failed_on(v: Verdict) -> str:
    if v.violates_expectation:
        return "an exceeded bound"
    return "a class regression" if v.regression else "a slowdown"


def _current(options: CiOptions, config: Config, measure: Measure) -> MeasurementSet:
    if options.measurements is not None:
        return require_kernels(load_measurements(options.measurements), options.measurements)
    return measure_config(config, measure)


REPORT_FILES = ("report.md", "verdicts.json", "pr.json")  # _write_report's, this run's


def _clear_report(folder: Path) -> None:
    """An earlier run's report files go before this run's measurements are written: a run
    interrupted while it checks must not leave its measurements beside the last run's
    verdicts (``perfguard report`` drew one commit's bars under another's model)."""
    for name in REPORT_FILES:
        try:
            (folder / name).unlink(missing_ok=True)
        except OSError as exc:
            raise UsageError(f"cannot replace {folder / name}: {exc.strerror or exc}") from None


def _write_report(
    folder: Path, markdown: str, report: CheckReport, context: ActionsContext | None
) -> Path:
    """report.md, verdicts.json and pr.json: what the Action uploads and publishes.

    Each file is replaced whole (an interrupted job leaves the earlier file, never half of
    one); report.md, which the summary and the comment show, comes last."""
    verdicts = "".join(encode_document(report.to_json(), "kernels"))
    write_atomic(folder / "verdicts.json", verdicts)
    doc = {"number": None if context is None else context.pr_number, "status": report.status}
    write_atomic(folder / "pr.json", json.dumps(doc) + "\n")
    path = folder / "report.md"
    write_atomic(path, markdown)
    return path


def _announce(
    options: CiOptions,
    services: CiServices,
    report: CheckReport,
    markdown: str,
    report_path: Path,
) -> CommentResult | None:
    """Inside GitHub Actions: job summary, ::error lines, the comment and step outputs."""
    context = services.context
    if context is None:
        return None
    if context.step_summary is not None:
        write_step_summary(context.step_summary, markdown)
    for v in report.verdicts:
        if v.verdict == "fail":
            reasons = "; ".join(shown_reasons(v)) or "failed"
            services.say(annotation("error", reasons, title=f"perfguard: {v.kernel} ({v.metric})"))
    comment = _comment(options, services, report, markdown)
    if context.output is not None:
        outputs = {"status": report.status, "report": str(report_path)}
        write_outputs(context.output, {**outputs, "measurements": str(options.output)})
    return comment


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
    create = wants_comment(comment, report.status)
    if not create and not updates_comment(comment, report.status):
        return f"perfguard: no comment (--comment {comment}, status {report.status})"
    with session_factory() as session:
        client = GitHubClient(session, context.api_url, _token(environ))
        try:
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
            result = client.upsert_comment(
                context.repository,
                number,
                _provenance(context) + render_markdown(report),
                create=create,
                author=_author(environ),
            )
        except GitHubError as exc:  # a broken API fails nothing: the check already decided
            return annotation("warning", f"no pull-request comment: {exc}", title="perfguard")
    return f"perfguard: comment {result.action}" + (f": {result.message}" if result.message else "")


def _provenance(context: ActionsContext) -> str:
    """The line above a published comment that says whose report it is: the pull request's
    own workflow run measured and checked it, and whoever controls that run (a fork edits
    its own copy of the workflow) can make its verdicts say anything -- this job validates
    and re-renders them, it cannot re-measure the code.  A reader must not take a pass for
    the base repository's verification (a security probe posted a forged pass)."""
    source = context.head_repository or context.repository
    where = "a fork, " if source != context.repository else ""
    return (
        f"> Reported by this pull request's own workflow run ({where}{escape(source)}); "
        "re-rendered here from its verdicts, not re-measured: its numbers and verdicts are "
        "that run's report.\n\n"
    )


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
    if not context.head_repository:
        # a deleted fork's run names no head repository: taking the base repository for it
        # would comment on whichever pull request of the base shares the commit
        raise UsageError(
            "the triggering run names no head repository (a fork deleted since?): cannot "
            "tell which pull request it measured; refusing to comment"
        )
    return client.pull_for_commit(context.repository, context.head_sha, context.head_repository)


def _author(environ: Mapping[str, str]) -> str | None:
    """Whose marked comment is perfguard's: ``PERFGUARD_COMMENT_AUTHOR`` (a GitHub App's bot,
    ``my-app[bot]``, whose installation token cannot read /user), else the token's own
    identity (GitHub's /user; github-actions[bot] for a workflow's GITHUB_TOKEN)."""
    return environ.get("PERFGUARD_COMMENT_AUTHOR", "").strip() or None


def _token(environ: Mapping[str, str]) -> str:
    token = environ.get("PERFGUARD_TOKEN") or environ.get("GITHUB_TOKEN") or ""
    if not token:
        raise UsageError("no token: set GITHUB_TOKEN (or PERFGUARD_TOKEN) for the comment")
    return token


def _file_baseline(options: CiOptions, config: Config) -> tuple[MeasurementSet, str] | None:
    """A baseline file (--baseline, check.baseline), read before anything is measured: a
    missing or unusable one fails in a second, not after the suite."""
    path = options.baseline or config.check.baseline
    if path is None or options.baseline_commit is not None:
        return None
    return require_kernels(load_measurements(path), path), f"baseline: {path}"


def _baseline(
    options: CiOptions,
    context: ActionsContext | None,
    config: Config,
    measure: Measure,
    dirty: bool = False,
) -> tuple[MeasurementSet | None, str | None]:
    if options.baseline_commit is not None:
        mset = measure_commit(options.baseline_commit, config, measure)
        return mset, f"baseline: {options.baseline_commit} measured in this job (same runner)"
    ref = options.baseline_ref or (_branch_baseline(context) if context is not None else None)
    if not ref or not options.db.exists():
        why = (
            "no --baseline, --baseline-ref or --baseline-commit; outside GitHub Actions name "
            "one, e.g. --baseline-ref main"
            if not ref
            else f"no history at {options.db}"
        )
        return None, f"no baseline ({why}): checking the expectations only"
    try:  # no usable baseline -- none recorded, a damaged or newer history -- is a note:
        # the expectations are still checked and shown, and storing says what went wrong
        with History.open(options.db) as history:
            events = TRUSTED_EVENTS if context is not None else (*TRUSTED_EVENTS, LOCAL)
            folder = config.path.absolute().parent
            row, note = history.baseline_for(ref, folder, events=events, dirty=dirty)
            return history.load_run(row.id), note
    except PerfguardError as exc:
        return None, f"no baseline: {exc}; checking the expectations only"


def _check_ref(ref: str, folder: Path, db: Path) -> None:
    """A --baseline-ref neither git (as given, or on origin) nor the history knows is a typo:
    it turned the regression gate off with a note ("no baseline") and the build passed.
    Outside a git repository, or in a shallow clone (actions/checkout's default fetches no
    other branch), the history's branch names are all there is to check against."""
    if git(folder, "rev-parse", "--git-dir")[0] is None:
        return
    for name in (ref, f"origin/{ref}"):
        if git(folder, "rev-parse", "--verify", "--quiet", "--end-of-options", name)[0]:
            return
    shallow = git(folder, "rev-parse", "--is-shallow-repository")[0] == "true"
    try:
        with History.open(db, create=False) as history:
            if ref in history.branches() or ref.removeprefix("origin/") in history.branches():
                return
    except PerfguardError:  # no history, or one that cannot be read: git had the last word
        pass
    if shallow:
        return
    raise UsageError(
        f"--baseline-ref {ref}: git knows no such branch or commit here (nor origin/{ref}), "
        "and the history has no run on it"
    )


def _branch_baseline(context: ActionsContext) -> str | None:
    """The branch a run compares with: a pull request's base; a push's own branch, whose
    newest run of an ancestor is the commit before (a push had no baseline, so
    ``fail-on: regression`` could never fire on main)."""
    if context.base_ref:
        return context.base_ref
    if context.event_name == "push" and context.ref.startswith("refs/heads/"):
        return context.ref.removeprefix("refs/heads/")
    return None


def measure_commit(ref: str, config: Config, measure: Measure) -> MeasurementSet:
    """Same-runner A/B: measure ``ref`` in a temporary git worktree with this config.

    The config is the one under test (copied in when ``ref`` has none at that path), so
    both sides run the same benchmarks on the same machine in the same job.
    """
    folder = config.path.absolute().parent
    sha = _commit_of(ref, folder)
    top = Path(_git(folder, "rev-parse", "--show-toplevel"))
    relative = config.path.absolute().relative_to(top)
    with tempfile.TemporaryDirectory(prefix="perfguard-base-") as tmp:
        tree = Path(tmp) / "tree"
        _git(top, "worktree", "add", "--detach", str(tree), sha)
        try:
            base_config = tree / relative
            if not base_config.exists():
                base_config.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(config.path, base_config)
            return measure_config(load_config(base_config), measure)
        finally:
            _git(top, "worktree", "remove", "--force", str(tree))


def _commit_of(ref: str, folder: Path) -> str:
    """The commit ``ref`` names in the repository around ``folder``, or a one-line error."""
    if not ref or ref.startswith("-"):
        raise UsageError(f"--baseline-commit {ref!r}: not a commit (a ref cannot start with -)")
    if git(folder, "rev-parse", "--git-dir")[0] is None:
        raise UsageError(
            f"--baseline-commit {ref}: {folder} is not in a git repository; measure the "
            "baseline elsewhere and give it with --baseline FILE"
        )
    # --end-of-options: whatever ref says, git reads it as a revision, never as an option
    sha, _ = git(
        folder, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}"
    )
    if not sha:
        raise UsageError(
            f"--baseline-commit {ref}: git knows no such commit here (a typo, or a branch "
            "not fetched: a shallow clone holds only the commit it checked out)"
        )
    return sha


def _git(folder: Path, *args: str) -> str:
    out, why = git(folder, *args)
    if out is None:
        raise UsageError(f"git {' '.join(args[:2])}: {why}")
    return out


def wants_comment(policy: str, status: str) -> bool:
    """Whether ``--comment policy`` posts for a check of ``status``: ``on-failure`` posts when
    the job fails -- a failed kernel, or an error (a benchmark that did not run, a kernel
    that cannot be modelled: exit 3 or 2)."""
    return policy == "always" or (policy == "on-failure" and status in ("fail", "error"))


def updates_comment(policy: str, status: str) -> bool:
    """Whether a check that posts nothing still updates the comment an earlier run posted:
    ``on-failure`` once the pull request is fixed (a "fail" comment left standing misleads
    the reviewer)."""
    return policy == "on-failure" and not wants_comment(policy, status)


def _comment(
    options: CiOptions, services: CiServices, report: CheckReport, markdown: str
) -> CommentResult | None:
    context, environ, say = services.context, services.environ, services.say
    assert context is not None  # only called inside GitHub Actions
    create = wants_comment(options.comment, report.status)
    if not (create or updates_comment(options.comment, report.status)):
        return None
    if context.pr_number is None:
        return None
    if not (environ.get("GITHUB_TOKEN") or environ.get("PERFGUARD_TOKEN")):
        if create:  # an update of a comment that cannot have been posted is no news
            say(
                annotation(
                    "notice", "no GITHUB_TOKEN, so no pull-request comment", title="perfguard"
                )
            )
        return None
    try:
        result = _upsert(services, context, context.pr_number, markdown, create)
    except GitHubError as exc:  # the report is in the job summary: a broken API fails nothing
        say(annotation("warning", f"no pull-request comment: {exc}", title="perfguard"))
        return None
    if result.action == "forbidden":
        say(annotation("notice", result.message, title="perfguard"))
    return result


def _upsert(
    services: CiServices, context: ActionsContext, number: int, body: str, create: bool
) -> CommentResult:
    token = _token(services.environ)
    with services.session_factory() as session:
        client = GitHubClient(session, context.api_url, token)
        return client.upsert_comment(
            context.repository,
            number,
            body,
            fork=context.restricted_fork_pr,
            create=create,
            author=_author(services.environ),
        )


def _store(
    options: CiOptions,
    current: MeasurementSet,
    report: CheckReport,
    say: Callable[[str], None],
    context: ActionsContext | None,
) -> int | None:
    if not options.store:
        return None
    if current.run.interrupted:
        # a part of a run must not become a later check's baseline
        say(f"perfguard: not stored in {options.db}: the run was interrupted")
        return None
    options.db.parent.mkdir(parents=True, exist_ok=True)
    event = context.event_name or "unknown" if context is not None else LOCAL
    with History.open(options.db) as history:
        run_id = history.record(current, report, event=event)
    dirty = current.run.dirty
    mark = " (uncommitted changes: marked +; a clean run of the commit is the baseline first)"
    say(f"perfguard: stored run {run_id} in {options.db}" + (mark if dirty else ""))
    return run_id


def _reproduce(config: Config, output: Path) -> str:
    cfg = os.path.relpath(config.path)
    return f"perfguard run -c {shlex.quote(cfg)} -o {shlex.quote(str(output))} && " + (
        f"perfguard check {shlex.quote(str(output))} -c {shlex.quote(cfg)}"
    )
