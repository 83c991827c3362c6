"""The history as typed data for the site: commits, and each kernel's runs over them.

Read-only: the rows come from ``History`` (guard/history.py) and every model is rebuilt
from the models@1 entry the check stored (``read_verdict``), never fitted again, so the
site shows the very class, formula and verdict ``perfguard check`` gave at that commit.
The one number computed here is each stored model evaluated at one common point (the
newest run's check target, else ``FAR`` for every parameter, as the ranking does), so a
kernel's values across commits are comparable even if the target changed in between.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from .. import numbers
from ..checking.ranking import FAR
from ..checking.verdicts import Verdict
from ..checking.verdicts_json import read_verdict
from ..errors import FormatError, UsageError
from ..history import History, HistoryError, RunRow, StoredResult
from ..modeling.growth import predicts_nothing

__all__ = [
    "Commit",
    "MeasuredPoint",
    "KernelRun",
    "ClassChange",
    "KernelHistory",
    "SiteData",
    "load_site",
    "commit_base_url",
]


@dataclass(frozen=True)
class Commit:
    """One recorded run, the unit of the site's time axis."""

    run_id: int
    sha: str | None
    branch: str | None
    date: str
    url: str | None
    dirty: bool | None = None  # measured with uncommitted changes on top of ``sha``

    @property
    def short(self) -> str:
        """Seven hex digits (``+`` when the tree was dirty), or ``run N`` without a commit."""
        if not self.sha:
            return f"run {self.run_id}"
        return self.sha[:7] + ("+" if self.dirty else "")


@dataclass(frozen=True)
class MeasuredPoint:
    """One measured size of one run: its coordinates and repetitions (NaN for a null)."""

    at: tuple[float, ...]
    values: tuple[float, ...]

    @cached_property
    def finite(self) -> tuple[float, ...]:
        """The repetitions that are numbers."""
        return tuple(v for v in self.values if math.isfinite(v))

    @property
    def median(self) -> float:
        """The median repetition (NaN without any)."""
        finite = self.finite
        return statistics.median(finite) if finite else math.nan


@dataclass(frozen=True)
class KernelRun:
    """A kernel at one commit: what was measured and what the check said."""

    commit: Commit
    points: tuple[MeasuredPoint, ...]
    verdict: Verdict | None
    predicted: float | None  # the stored model at the site's common point
    complexity: str | None  # the stored model's class (None: not checked or not modelled)

    @property
    def verdict_name(self) -> str:
        """pass, fail, inconclusive, error, or ``not checked``."""
        return self.verdict.verdict if self.verdict is not None else "not checked"


@dataclass(frozen=True)
class ClassChange:
    """A commit at which a kernel's class differs from its previous known class."""

    run: KernelRun
    before: str
    after: str
    rerun: bool = False  # the class before was read from a run of the same commit: noise


@dataclass(frozen=True)
class KernelHistory:
    """One kernel and metric over the site's commits, oldest run first."""

    kernel: str
    metric: str
    unit: str | None
    slug: str
    runs: tuple[KernelRun, ...]

    @property
    def latest(self) -> KernelRun:
        """The newest run that measured this kernel."""
        return self.runs[-1]

    @cached_property
    def changes(self) -> tuple[ClassChange, ...]:
        """Every run whose class differs from the last known one before it."""
        out = []
        known: KernelRun | None = None
        for run in self.runs:
            now = run.complexity
            if now is not None and known is not None and now != known.complexity:
                assert known.complexity is not None
                # two runs of one commit as committed (a dirty tree's code is its own)
                rerun = _commit_key(known.commit) == _commit_key(run.commit)
                out.append(ClassChange(run, known.complexity, now, rerun))
            known = run if now is not None else known
        return tuple(out)

    @property
    def commit_changes(self) -> tuple[ClassChange, ...]:
        """The changes between commits (not between two runs of one commit)."""
        return tuple(c for c in self.changes if not c.rerun)

    @property
    def commit_count(self) -> int:
        """How many commits its runs measured (a re-run of a commit counts once)."""
        return len({_commit_key(r.commit) for r in self.runs})


@dataclass(frozen=True)
class SiteData:
    """Everything the pages show."""

    source: str
    branch: str | None
    commits: tuple[Commit, ...]  # oldest first
    kernels: tuple[KernelHistory, ...]
    at: Mapping[str, float]  # where ``KernelRun.predicted`` was evaluated
    at_label: str
    total_runs: int  # runs on the branch (or in all), before --limit

    @property
    def empty(self) -> bool:
        """No run recorded (on the branch)."""
        return not self.commits

    @property
    def commit_count(self) -> int:
        """How many commits the runs measured (a re-run of a commit counts once)."""
        return len({_commit_key(c) for c in self.commits})


def _commit_key(c: Commit) -> tuple[object, ...]:
    """What tells commits apart: the sha as committed; a dirty tree's run, or one without a
    commit, is its own."""
    return (c.sha,) if c.sha and not c.dirty else ("run", c.run_id)


def commit_base_url(repo_url: str | None, environ: Mapping[str, str]) -> str | None:
    """``https://host/owner/repo``: ``repo_url``, else GitHub Actions' own repository, else None."""
    if repo_url:
        return repo_url.rstrip("/")
    server, repo = environ.get("GITHUB_SERVER_URL", ""), environ.get("GITHUB_REPOSITORY", "")
    if server and repo:
        return f"{server.rstrip('/')}/{repo}"
    return None


def load_site(
    db: Path, branch: str | None = None, limit: int = 100, repo_url: str | None = None
) -> SiteData:
    """The newest ``limit`` runs of ``db`` (on ``branch`` if given) as typed data.

    HistoryError (exit 2) for a missing or foreign file, an unknown branch (naming the
    known ones) or a damaged row (naming its run and kernel).
    """
    if limit < 1:
        raise UsageError(f"--limit must be at least 1, got {limit}")
    with History.open(db, create=False) as history:
        if branch is not None and history.runs(branch, limit=1) == []:
            raise _unknown_branch(history, branch)
        branch = branch if branch is not None else _main_branch(history)
        rows = list(reversed(history.runs(branch, limit)))
        total = len(history.runs(branch))
        results = history.results([r.id for r in rows])
        newest_settings = history.report_settings([r.id for r in rows[-1:]])
    commits = tuple(_commit(r, repo_url) for r in rows)
    target = _target(newest_settings, db)
    kernels = _kernels(results, {c.run_id: c for c in commits}, target, db)
    return SiteData(
        source=Path(db).name,
        branch=branch,
        commits=commits,
        kernels=kernels,
        at=target,
        at_label=_at_label(target, kernels),
        total_runs=total,
    )


def _main_branch(history: History) -> str | None:
    """The branch a site without ``--branch`` draws where runs name several: ``main`` or
    ``master``, else the newest run's. One timeline of all branches read a feature branch's
    O(n^2) run and the next run on main as two class changes that never happened."""
    known = history.branches()
    if len(known) < 2:
        return None
    for name in ("main", "master"):
        if name in known:
            return name
    newest = history.runs(limit=1)
    return newest[0].branch if newest else None


def _unknown_branch(history: History, branch: str) -> HistoryError:
    known = history.branches()
    listed = ", ".join(known[:20]) + (f" and {len(known) - 20} more" if len(known) > 20 else "")
    which = f"known branches: {listed}" if known else "no run names a branch"
    return HistoryError(f"no run on branch {branch!r} ({which})", history.path)


def _commit(row: RunRow, repo_url: str | None) -> Commit:
    url = f"{repo_url}/commit/{row.commit}" if repo_url and row.commit else None
    return Commit(row.id, row.commit, row.branch, row.date, url, row.dirty)


def _target(settings: Mapping[int, str | None], db: Path) -> dict[str, float]:
    """The newest run's check target ({} when it had none or was not checked)."""
    for run_id, text in settings.items():
        if text is None:
            return {}
        try:
            target = json.loads(text).get("target") or {}
            return {str(k): float(v) for k, v in target.items()}
        except (ValueError, TypeError, AttributeError) as exc:
            raise HistoryError(f"run {run_id}: damaged check settings ({exc})", db) from None
    return {}


def _at_label(target: Mapping[str, float], kernels: Sequence[KernelHistory]) -> str:
    parameters: list[str] = []
    for k in kernels:
        for run in k.runs:
            if run.verdict is not None and run.verdict.model is not None:
                parameters += [p for p in run.verdict.model.parameters if p not in parameters]
    shown = ", ".join(
        numbers.at(p, target[p]) if p in target else f"{p}=2^20" for p in parameters or ["n"]
    )
    return shown if target else f"{shown} (no check target set)"


def _kernels(
    results: Sequence[StoredResult],
    commits: Mapping[int, Commit],
    target: Mapping[str, float],
    db: Path,
) -> tuple[KernelHistory, ...]:
    runs: dict[tuple[str, str], list[KernelRun]] = {}
    units: dict[tuple[str, str], str | None] = {}
    for row in results:
        key = (row.kernel, row.metric)
        runs.setdefault(key, []).append(_kernel_run(row, commits[row.run_id], target, db))
        units[key] = row.unit
    return tuple(
        KernelHistory(name, metric, units[(name, metric)], _slug(name, metric), tuple(found))
        for (name, metric), found in sorted(runs.items())
    )


def _kernel_run(
    row: StoredResult, commit: Commit, target: Mapping[str, float], db: Path
) -> KernelRun:
    where = f"run {row.run_id}, kernel {row.kernel!r} ({row.metric})"
    try:
        points = _points(json.loads(row.points))
        verdict = None if row.entry is None else read_verdict(json.loads(row.entry), str(db))
    except FormatError as exc:
        raise HistoryError(f"{where}: damaged verdict ({exc.reason})", db) from None
    except KeyError as exc:
        raise HistoryError(f"{where}: damaged row (no {exc} field)", db) from None
    except (ValueError, TypeError, AttributeError) as exc:
        raise HistoryError(f"{where}: damaged row ({exc})", db) from None
    model = verdict.model if verdict is not None else None
    if model is None:
        return KernelRun(commit, points, verdict, None, None)
    at = {p: float(target.get(p, FAR)) for p in model.parameters}
    value = math.nan if predicts_nothing(model) else float(np.asarray(model.evaluate(at)))
    predicted = value if math.isfinite(value) else None
    return KernelRun(commit, points, verdict, predicted, model.complexity())


def _points(doc: Any) -> tuple[MeasuredPoint, ...]:
    """A measurements@1 points list; ValueError/TypeError/KeyError on a damaged one."""
    if not isinstance(doc, list):
        raise ValueError("points: expected a list")
    out = []
    for i, point in enumerate(doc):
        at, values = point["at"], point["values"]
        if not isinstance(at, dict) or not isinstance(values, list):
            raise ValueError(f"points[{i}]: expected at {{...}} and values [...]")
        out.append(
            MeasuredPoint(
                tuple(float(v) for v in at.values()),
                tuple(math.nan if v is None else float(v) for v in values),
            )
        )
    return tuple(out)


def _slug(kernel: str, metric: str) -> str:
    """A file name for the kernel's page: readable, and unique by a hash of name and metric."""
    readable = re.sub(r"[^A-Za-z0-9_.-]+", "-", f"{kernel}-{metric}").strip("-.")[:60]
    digest = hashlib.sha1(f"{kernel}\0{metric}".encode()).hexdigest()[:8]
    return f"{readable or 'kernel'}-{digest}"
