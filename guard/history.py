"""The history store: every run's measurements, models and verdicts in one SQLite file.

The embedded default lives at ``.perfguard/history.sqlite``. Schema (version 2):

* ``runs``: one row per recorded run: ``commit_sha``, ``branch``, ``started``, ``dirty``,
  ``machine`` (JSON), ``parameters`` (JSON list), ``extra`` (JSON: the rest of the
  measurements@1 ``run`` object: errors, interrupted, round_speed), ``recorded_at``
  (UTC ISO-8601) and, from version 2, ``report`` (JSON: the check's status, strict,
  confidence, target and notes; null when the run was recorded without a check).
* ``measurements``: one row per kernel and metric of a run: ``position`` (order in the
  file), ``unit`` and ``points`` (the measurements@1 points list as JSON).
* ``models`` (version 2): the fitted model of a kernel: ``complexity``, ``formula`` and
  ``model`` (the models@1 entry as JSON).
* ``verdicts`` (version 2): ``verdict``, ``expectation``, ``violates_expectation``,
  ``regression``, ``reasons`` (JSON), ``predicted_at_target`` and ``entry`` (the whole
  verdicts@1 kernel entry as JSON, for fields added later).

The version is ``PRAGMA user_version``; ``MIGRATIONS[k - 1]`` brings version k-1 to k and
runs in one transaction together with the version bump, so a database is always at some
whole version. A database from a newer perfguard is refused, never downgraded.

Guarantees: the file is in WAL mode, so readers never block the writer or see its
uncommitted rows; every write is one ``BEGIN IMMEDIATE`` transaction, so two writers
queue (for up to ``BUSY_TIMEOUT_S``) instead of failing, and a writer killed mid-run
leaves no trace of that run. Runs are append-only. Every SQLite failure surfaces as a
one-line ``HistoryError`` naming the file.
"""

from __future__ import annotations

import fnmatch
import json
import sqlite3
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .defaults import HISTORY_PATH
from .errors import FormatError, HistoryError
from .formats.native import loads_json
from .git import git
from .measurements import SCHEMA, MeasurementSet

if TYPE_CHECKING:  # history knows measurements; checks arrive as finished objects
    from .checking.verdicts import CheckReport, Verdict

__all__ = [
    "BUSY_TIMEOUT_S",
    "DEFAULT_PATH",
    "MIGRATIONS",
    "SCHEMA_VERSION",
    "History",
    "HistoryError",
    "RunRow",
    "StoredResult",
    "TimelineRow",
]

DEFAULT_PATH = HISTORY_PATH
BUSY_TIMEOUT_S = 30.0
_QUICK_S = 1.0  # a wait this long for the write lock goes unannounced

MIGRATIONS: tuple[str, ...] = (
    # 1: runs and their measurements
    """
    CREATE TABLE runs (
        id INTEGER PRIMARY KEY,
        commit_sha TEXT,
        branch TEXT,
        started TEXT,
        dirty INTEGER,
        machine TEXT NOT NULL,
        parameters TEXT NOT NULL,
        extra TEXT NOT NULL,
        recorded_at TEXT NOT NULL
    );
    CREATE INDEX runs_by_commit ON runs (commit_sha);
    CREATE INDEX runs_by_branch ON runs (branch, id);
    CREATE TABLE measurements (
        run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        kernel TEXT NOT NULL,
        metric TEXT NOT NULL,
        unit TEXT,
        points TEXT NOT NULL,
        PRIMARY KEY (run_id, kernel, metric)
    );
    CREATE INDEX measurements_by_kernel ON measurements (kernel, metric, run_id);
    """,
    # 2: models and verdicts of a check, the check's settings on the run
    """
    ALTER TABLE runs ADD COLUMN report TEXT;
    CREATE TABLE models (
        run_id INTEGER NOT NULL,
        kernel TEXT NOT NULL,
        metric TEXT NOT NULL,
        complexity TEXT NOT NULL,
        formula TEXT NOT NULL,
        model TEXT NOT NULL,
        PRIMARY KEY (run_id, kernel, metric),
        FOREIGN KEY (run_id, kernel, metric)
            REFERENCES measurements (run_id, kernel, metric) ON DELETE CASCADE
    );
    CREATE TABLE verdicts (
        run_id INTEGER NOT NULL,
        kernel TEXT NOT NULL,
        metric TEXT NOT NULL,
        verdict TEXT NOT NULL,
        expectation TEXT,
        violates_expectation INTEGER NOT NULL,
        regression INTEGER NOT NULL,
        reasons TEXT NOT NULL,
        predicted_at_target REAL,
        entry TEXT NOT NULL,
        PRIMARY KEY (run_id, kernel, metric),
        FOREIGN KEY (run_id, kernel, metric)
            REFERENCES measurements (run_id, kernel, metric) ON DELETE CASCADE
    );
    """,
    # 3: the event that recorded a run (push, merge_group, pull_request, ... or local): only
    # runs of the base branch's own pushes and merge queue may become baselines
    """
    ALTER TABLE runs ADD COLUMN event TEXT;
    CREATE INDEX runs_by_branch_event ON runs (branch, event, id);
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)
TRUSTED_EVENTS = ("push", "merge_group")  # what a pull request cannot trigger with its code
LOCAL = "local"  # recorded outside GitHub Actions

_CHUNK = 500  # run ids per IN (...) list: far below SQLite's limit on parameters
_RUN_COLUMNS = "id, commit_sha, branch, started, recorded_at, dirty"


@dataclass(frozen=True)
class RunRow:
    """One recorded run, without its measurements."""

    id: int
    commit: str | None
    branch: str | None
    started: str | None
    recorded_at: str
    dirty: bool | None

    @property
    def short(self) -> str:
        """The commit as a short sha (``+``: uncommitted changes on top; ``-`` when unknown)."""
        return self.commit[:7] + ("+" if self.dirty else "") if self.commit else "-"

    @property
    def date(self) -> str:
        """The day the run was measured (or recorded), ``YYYY-MM-DD``."""
        return (self.started or self.recorded_at)[:10]


@dataclass(frozen=True)
class TimelineRow:
    """One kernel and metric at one run: its class and predicted value, if it was checked."""

    run_id: int
    commit: str | None
    branch: str | None
    measured_at: str  # the run's start as its file says, else when it was stored
    kernel: str
    metric: str
    unit: str | None
    verdict: str | None
    complexity: str | None
    predicted_at_target: float | None
    dirty: bool | None = None  # measured with uncommitted changes on top of ``commit``


def _flag(value: int | None) -> bool | None:
    return None if value is None else bool(value)


@dataclass(frozen=True)
class StoredResult:
    """One kernel and metric of a recorded run as stored: JSON text, parsed by the reader.

    ``points`` is the measurements@1 points list; ``entry`` the verdicts@1 kernel entry
    (None when the run was recorded without a check).
    """

    run_id: int
    kernel: str
    metric: str
    unit: str | None
    points: str
    entry: str | None


class History:
    """An open history database; use ``History.open(path)`` as a context manager."""

    def __init__(self, connection: sqlite3.Connection, path: Path):
        self._db = connection
        self.path = path

    @classmethod
    def open(cls, path: str | Path = DEFAULT_PATH, create: bool = True) -> History:
        """Open and migrate a history database, creating it and its folders if ``create``."""
        target = Path(path)
        if not create and target.is_dir():
            raise HistoryError(
                "is a folder; --db names the history file (e.g. .perfguard/history.sqlite)",
                target,
            )
        if not create and not (target.is_file() and target.stat().st_size > 0):
            # an empty file (truncated, or made by `touch`) is not a history to read: a
            # reader must not turn it into one
            raise HistoryError("no history database here; record a run first", target)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise HistoryError(f"cannot create its folder ({e.strerror})", target) from None
        with _errors(target):
            db = sqlite3.connect(target, timeout=BUSY_TIMEOUT_S, isolation_level=None)
        history = cls(db, target)
        try:
            with _errors(target):
                _configure(db)
                _migrate(db, target)
        except BaseException:
            db.close()
            raise
        return history

    def close(self) -> None:
        """Close the connection (idempotent)."""
        self._db.close()

    def __enter__(self) -> History:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------ writing

    def record(
        self, mset: MeasurementSet, report: CheckReport | None = None, event: str = LOCAL
    ) -> int:
        """Store a run (and the check of it, if given) in one transaction; return its id.

        ``event`` is what recorded it (GitHub's event name, or ``local``): baselines are
        chosen by it.
        """
        doc = mset.to_json()
        with _errors(self.path), _transaction(self._db):
            run_id = self._insert_run(doc, report, event)
            for position, kernel in enumerate(doc["kernels"]):
                self._db.execute(
                    "INSERT INTO measurements VALUES (?, ?, ?, ?, ?, ?)",
                    _kernel_row(run_id, position, kernel),
                )
            for verdict in report.verdicts if report is not None else ():
                self._insert_verdict(run_id, verdict)
        self._checkpoint()
        return run_id

    def _checkpoint(self) -> None:
        """Copy the write-ahead log into the file itself: a CI cache saves the file alone,
        and a run left in ``-wal`` (a full disk when closing) was lost with a malformed file.
        Another connection holding the log only defers it (it checkpoints in turn)."""
        try:
            self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()
        except sqlite3.Error as exc:
            raise HistoryError(
                f"the run is in {self.path.name}-wal but could not be copied into the file "
                f"({exc}): keep the -wal file beside it, or free space and store again",
                self.path,
            ) from None

    def _insert_run(self, doc: dict[str, Any], report: CheckReport | None, event: str) -> int:
        run = dict(doc["run"])
        columns = [run.pop(key, None) for key in ("commit", "branch", "started", "dirty")]
        machine = run.pop("machine", {})
        cursor = self._db.execute(
            "INSERT INTO runs (commit_sha, branch, started, dirty, machine, parameters, extra,"
            " recorded_at, report, event) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *columns,
                _dumps(machine),
                _dumps(doc["parameters"]),
                _dumps(run),
                _now(),
                None if report is None else _dumps(_report_settings(report)),
                event,
            ),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def _insert_verdict(self, run_id: int, v: Verdict) -> None:
        key = (run_id, v.kernel, v.metric)
        entry = v.to_json()
        if v.model is not None:
            self._db.execute(
                "INSERT INTO models VALUES (?, ?, ?, ?, ?, ?)",
                (*key, v.model.complexity(), v.model.formula(), _dumps(entry["model"])),
            )
        self._db.execute(
            "INSERT INTO verdicts VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (
                *key,
                v.verdict,
                v.expectation,
                v.violates_expectation,
                v.regression,
                _dumps(entry["reasons"]),
                v.predicted,
                _dumps(entry),
            ),
        )

    # ------------------------------------------------------------------ reading

    def load_run(self, run_id: int) -> MeasurementSet:
        """The measurements of a recorded run, equal to what was recorded."""
        with _errors(self.path):
            run = self._db.execute(
                "SELECT commit_sha, branch, started, dirty, machine, parameters, extra"
                " FROM runs WHERE id = ?",
                (run_id,),
            ).fetchone()
            if run is None:
                raise HistoryError(f"no run with id {run_id}", self.path)
            kernels = self._db.execute(
                "SELECT kernel, metric, unit, points FROM measurements"
                " WHERE run_id = ? ORDER BY position",
                (run_id,),
            ).fetchall()
        try:
            return loads_json(_measurements_doc(run, kernels), f"{self.path}#run{run_id}")
        except (FormatError, ValueError) as e:
            raise HistoryError(f"run {run_id} is damaged: {e}", self.path) from None

    def runs(self, branch: str | None = None, limit: int | None = None) -> list[RunRow]:
        """Recorded runs, newest first; only those on ``branch`` if given."""
        where, args = ("WHERE branch = ?", [branch]) if branch is not None else ("", [])
        return self._run_rows(
            f"SELECT {_RUN_COLUMNS} FROM runs {where} ORDER BY id DESC LIMIT ?",
            (*args, -1 if limit is None else limit),
        )

    def find_commit(self, commit_prefix: str) -> RunRow | None:
        """The newest run of the commit this (short) sha names; None if there is none."""
        prefix = commit_prefix.strip().lower()
        if not prefix:
            raise HistoryError("an empty commit prefix names no commit", self.path)
        rows = self._run_rows(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE substr(lower(commit_sha), 1, ?) = ?"
            " ORDER BY dirty IS 1, id DESC",
            (len(prefix), prefix),
        )
        commits = sorted({r.commit for r in rows if r.commit})
        if len(commits) > 1:
            shown = ", ".join(c[:12] for c in commits[:5])
            raise HistoryError(
                f"commit {commit_prefix!r} is ambiguous ({shown}); give more digits", self.path
            )
        return rows[0] if rows else None

    def baseline_for(
        self,
        ref: str,
        repo: str | Path,
        head: str = "HEAD",
        events: Sequence[str] = (*TRUSTED_EVENTS, LOCAL),
        dirty: bool = False,
    ) -> tuple[RunRow, str]:
        """The baseline run for ``head``: its merge base with ``ref``, else ``ref``'s newest run.

        Only runs recorded by one of ``events`` count: in GitHub Actions the base branch's
        pushes and merge queue (a pull request's run is keyed by a branch name its author
        chose, and may be a fork's branch called ``main``).  A run with uncommitted changes
        (``dirty``) on a commit of the branch is compared with that commit as committed,
        where a clean run of it is recorded: what the working tree changed, not the commit.
        """
        folder = Path(repo)
        own = git(folder, "rev-parse", "--verify", "--quiet", f"{head}^{{commit}}")[0]
        base, failure = _merge_base(folder, head, ref)
        if dirty and base is not None and base == own:
            clean = self._exact_commit(own, events, clean=True)
            if clean is not None:
                return clean, (
                    f"baseline: {own[:7]} as committed (this run has uncommitted changes on "
                    f"top of it; {clean.date})"
                )
        if base is not None and base == own:
            # HEAD is on the branch (a push): its baseline is the run before it, never a
            # run of HEAD itself (a re-run of a failed job read as no change)
            why = ""
        elif base is not None:
            run = self._exact_commit(base, events)
            if run is not None:
                return run, f"baseline: merge base {base[:7]} of {ref}"
            why = f"no run of the merge base {base[:7]}"
        else:
            why = f"no merge base of {head} and {ref} ({failure})"
        recent = [r for r in self._newest_on(ref, events, limit=50) if not own or r.commit != own]
        if not recent:
            raise HistoryError(
                f"{why or 'no run before ' + head} and no run on branch "
                f"{_branch_names(ref)[-1]}; record a run on that branch first (or compare "
                "against a measurement file with --baseline FILE)",
                self.path,
            )
        lead = f"{why}; using" if why else "baseline:"
        # a run of a commit HEAD descends from; after a force-push the newest may be of a
        # commit no longer in the repository, whose changes this one never had
        unknown = False
        for row in recent:
            related = _is_ancestor(folder, row.commit, head) if row.commit else False
            if related:
                note = f"{lead} the newest run of an ancestor on {row.branch}, {row.short}"
                return row, f"{note} ({row.date})"
            unknown |= related is None
        newest = recent[0]
        caveat = (
            "git cannot tell whether it is an ancestor (a commit this repository does not "
            "hold: a shallow clone's history, or another project's run in this database)"
            if unknown
            else f"although {newest.short} is not an ancestor of {head}"
        )
        note = f"{lead} the newest run on {newest.branch}, {newest.short} ({newest.date}), {caveat}"
        return newest, note

    def timeline(
        self, kernel: str | None = None, metric: str | None = None, limit: int = 20
    ) -> list[TimelineRow]:
        """Each kernel's last ``limit`` runs, oldest to newest: class, verdict, predicted value."""
        names = self._kernel_names(kernel)
        if not names:
            return []
        marks = ", ".join("?" * len(names))
        metric_filter = "AND m.metric = ?" if metric is not None else ""
        query = f"""
            SELECT * FROM (
                SELECT r.id, r.commit_sha, r.branch, COALESCE(r.started, r.recorded_at),
                       m.kernel, m.metric, m.unit,
                       v.verdict, mo.complexity, v.predicted_at_target, r.dirty,
                       row_number() OVER (PARTITION BY m.kernel, m.metric ORDER BY r.id DESC) AS k
                FROM measurements m
                JOIN runs r ON r.id = m.run_id
                LEFT JOIN verdicts v USING (run_id, kernel, metric)
                LEFT JOIN models mo USING (run_id, kernel, metric)
                WHERE m.kernel IN ({marks}) {metric_filter}
            ) WHERE k <= ? ORDER BY kernel, metric, id"""
        args = (*names, *([metric] if metric is not None else []), limit)
        with _errors(self.path):
            rows = self._db.execute(query, args).fetchall()
        # the dirty flag is stored as 0/1 (NULL when unknown)
        return [TimelineRow(*row[:10], *map(_flag, row[10:11])) for row in rows]

    def branches(self) -> list[str]:
        """The branch names runs were recorded on, sorted (runs without one are left out)."""
        with _errors(self.path):
            rows = self._db.execute(
                "SELECT DISTINCT branch FROM runs WHERE branch IS NOT NULL ORDER BY branch"
            ).fetchall()
        return [r[0] for r in rows]

    def report_settings(self, run_ids: Sequence[int]) -> dict[int, str | None]:
        """Each run's stored check settings (JSON text: status, target, ...), by run id."""
        rows = self._in_runs("SELECT id, report FROM runs WHERE id IN ({})", run_ids)
        return {run_id: report for run_id, report in rows}

    def results(self, run_ids: Sequence[int]) -> list[StoredResult]:
        """Every kernel and metric of these runs as stored, by run, in the file's order."""
        rows = self._in_runs(
            "SELECT m.run_id, m.kernel, m.metric, m.unit, m.points, v.entry"
            " FROM measurements m LEFT JOIN verdicts v USING (run_id, kernel, metric)"
            " WHERE m.run_id IN ({}) ORDER BY m.run_id, m.position",
            run_ids,
        )
        return [StoredResult(*row) for row in rows]

    def _in_runs(self, query: str, run_ids: Sequence[int]) -> list[tuple[Any, ...]]:
        """``query`` with its ``{}`` filled by the run ids (in chunks under SQLite's limit)."""
        out: list[tuple[Any, ...]] = []
        ids = [int(i) for i in run_ids]
        with _errors(self.path):
            for start in range(0, len(ids), _CHUNK):
                chunk = ids[start : start + _CHUNK]
                marks = ", ".join("?" * len(chunk))
                out += self._db.execute(query.format(marks), chunk).fetchall()
        return out

    def _kernel_names(self, pattern: str | None) -> list[str]:
        """Kernel names equal to ``pattern``; failing that, matching it as a glob."""
        with _errors(self.path):
            names = [r[0] for r in self._db.execute("SELECT DISTINCT kernel FROM measurements")]
        if pattern is None or pattern in names:
            return names if pattern is None else [pattern]
        return [n for n in names if fnmatch.fnmatchcase(n, pattern)]

    def _exact_commit(
        self, commit: str, events: Sequence[str], clean: bool = False
    ) -> RunRow | None:
        """The newest run of ``commit`` (a clean one first; ``clean``: only a clean one,
        measured without uncommitted changes)."""
        marks = ", ".join("?" * len(events))
        only = " AND dirty IS 0" if clean else ""
        rows = self._run_rows(
            f"SELECT {_RUN_COLUMNS} FROM runs WHERE lower(commit_sha) = ?"
            f" AND event IN ({marks}){only} ORDER BY dirty IS 1, id DESC LIMIT 1",
            (commit.lower(), *events),
        )
        return rows[0] if rows else None

    def _newest_on(self, ref: str, events: Sequence[str], limit: int = 1) -> list[RunRow]:
        """The newest ``limit`` runs on the branch ``ref`` names, newest first."""
        marks = ", ".join("?" * len(events))
        for name in _branch_names(ref):
            rows = self._run_rows(
                f"SELECT {_RUN_COLUMNS} FROM runs WHERE branch = ? AND event IN ({marks})"
                " ORDER BY id DESC LIMIT ?",
                (name, *events, limit),
            )
            if rows:
                return rows
        return []

    def _run_rows(self, query: str, args: Sequence[Any]) -> list[RunRow]:
        with _errors(self.path):
            rows = self._db.execute(query, tuple(args)).fetchall()
        return [RunRow(i, c, b, s, r, _flag(d)) for i, c, b, s, r, d in rows]


# ---------------------------------------------------------------------- connection


@contextmanager
def _errors(path: Path) -> Iterator[None]:
    """Turn SQLite's exceptions into one-line HistoryErrors naming the file."""
    try:
        yield
    except sqlite3.Error as e:
        text = str(e)
        if "not a database" in text or isinstance(e, sqlite3.DatabaseError) and "malformed" in text:
            text = (
                f"not a perfguard history database, or damaged ({text}); move it aside to "
                "start a new history"
            )
        elif "locked" in text or "busy" in text:
            text = f"{text}: another process held it for over {BUSY_TIMEOUT_S:g} s"
        elif "readonly" in text:  # the -shm and -wal files beside it count too
            text = f"{text} (it, its folder and its -wal and -shm files must be writable)"
        raise HistoryError(text, path) from None


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    """A write transaction, taken at once so concurrent writers queue instead of deadlocking.

    Where another process holds the database past a moment, a line on stderr says so before
    the wait (up to ``BUSY_TIMEOUT_S``): a silent 30 s looked like a hang."""
    db.execute(f"PRAGMA busy_timeout = {int(_QUICK_S * 1000)}")
    try:
        db.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as exc:
        if "locked" not in str(exc) and "busy" not in str(exc):
            raise
        sys.stderr.write(
            f"perfguard: the history database is busy (another process is writing it); "
            f"waiting up to {BUSY_TIMEOUT_S:g} s\n"
        )
        sys.stderr.flush()
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        db.execute("BEGIN IMMEDIATE")
    finally:
        db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    try:
        yield
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _configure(db: sqlite3.Connection) -> None:
    db.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
    db.execute("PRAGMA foreign_keys = ON")
    _enable_wal(db)


def _enable_wal(db: sqlite3.Connection) -> None:
    """Switch to WAL, retrying: SQLite skips the busy handler when two switch at once."""
    deadline = time.monotonic() + BUSY_TIMEOUT_S
    while True:
        try:
            db.execute("PRAGMA journal_mode = WAL").fetchone()
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _user_version(db: sqlite3.Connection) -> int:
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def _migrate(db: sqlite3.Connection, path: Path) -> None:
    """Apply the missing migrations, each with its version bump in one transaction."""
    if _check_version(db, path) == SCHEMA_VERSION:
        return
    while True:
        with _transaction(db):
            version = _check_version(db, path)
            if version == SCHEMA_VERSION:
                return
            if version == 0:
                _refuse_foreign(db, path)
            for statement in _statements(MIGRATIONS[version]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {version + 1}")


def _check_version(db: sqlite3.Connection, path: Path) -> int:
    version = _user_version(db)
    if version > SCHEMA_VERSION:
        raise HistoryError(
            f"written by a newer perfguard (schema {version}, this one knows {SCHEMA_VERSION});"
            " upgrade perfguard",
            path,
        )
    return version


def _refuse_foreign(db: sqlite3.Connection, path: Path) -> None:
    """A version-0 database with tables belongs to something else: leave it alone."""
    tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    if tables:
        raise HistoryError(
            f"not a perfguard history database (it has tables {', '.join(sorted(tables)[:5])})",
            path,
        )


def _statements(script: str) -> Iterator[str]:
    """Split a migration into statements (``executescript`` would commit mid-migration)."""
    pending = ""
    for piece in script.split(";"):
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            if pending.strip(" \n\t;"):
                yield pending.strip()
            pending = ""


# ---------------------------------------------------------------------- rows and JSON


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _kernel_row(run_id: int, position: int, kernel: dict[str, Any]) -> tuple[Any, ...]:
    """A measurements@1 kernel entry as a ``measurements`` row."""
    return (
        run_id,
        position,
        kernel["name"],
        kernel["metric"],
        kernel.get("unit"),
        _dumps(kernel["points"]),
    )


def _report_settings(report: CheckReport) -> dict[str, Any]:
    doc = report.to_json()
    return {key: doc[key] for key in ("status", "strict", "confidence", "target", "notes")}


def _measurements_doc(run: Sequence[Any], kernels: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Rebuild the measurements@1 document of a stored run."""
    commit, branch, started, dirty, machine, parameters, extra = run
    info = {"commit": commit, "branch": branch, "started": started}
    info = {k: v for k, v in info.items() if v is not None}
    if dirty is not None:
        info["dirty"] = bool(dirty)
    info.update(machine=json.loads(machine), **json.loads(extra))
    entries = []
    for name, metric, unit, points in kernels:
        entry = {"name": name, "metric": metric, "points": json.loads(points)}
        entries.append(entry if unit is None else {**entry, "unit": unit})
    return {
        "schema": SCHEMA,
        "parameters": json.loads(parameters),
        "run": info,
        "kernels": entries,
    }


# ---------------------------------------------------------------------- git


def _merge_base(repo: Path, head: str, ref: str) -> tuple[str | None, str]:
    """``git merge-base head ref`` in ``repo``: (sha, "") or (None, why not). A checkout as
    actions/checkout makes it has no local ``main``, only ``origin/main``: tried next."""
    sha, why = git(repo, "merge-base", head, ref, timeout=60)
    if sha is None and not ref.startswith(("origin/", "refs/")):
        sha, _ = git(repo, "merge-base", head, f"origin/{ref}", timeout=60)
    return sha, (why if sha is None else "")


def _is_ancestor(repo: Path, commit: str, head: str) -> bool | None:
    """Whether ``commit`` is in ``head``'s history; None where git cannot tell (a shallow
    clone does not hold the commit)."""
    if git(repo, "cat-file", "-e", f"{commit}^{{commit}}", timeout=60)[0] is None:
        return None
    out, _ = git(repo, "merge-base", "--is-ancestor", commit, head, timeout=60)
    return out is not None


def _branch_names(ref: str) -> list[str]:
    """Branch names a ref may have been recorded under: ``origin/main`` -> also ``main``."""
    names = [ref]
    for prefix in ("refs/heads/", "refs/remotes/origin/", "origin/"):
        if ref.startswith(prefix):
            names.append(ref[len(prefix) :])
    return names
