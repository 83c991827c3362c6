"""The SQLite history: round trips, migrations, concurrent and killed writers, baselines."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from rich.console import Console

import guard
from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.history import MIGRATIONS, SCHEMA_VERSION, History, HistoryError, TimelineRow
from guard.measurements import Kernel, MeasurementSet, Point, RunError, RunInfo
from guard.reporting.timeline import timeline_table

REPO_ROOT = Path(guard.__file__).resolve().parent.parent
SIZES = (64.0, 128.0, 256.0, 512.0, 1024.0, 2048.0)
JITTER = (1.0, 1.002, 0.999, 1.001, 0.998)


def linear(name: str, scale: float = 1e-6, metric: str = "time", unit: str | None = "s") -> Kernel:
    """``scale * n`` at six sizes, five repetitions with tiny deterministic jitter."""
    points = tuple(
        Point((n,), tuple(scale * n * JITTER[(i + j) % 5] for j in range(5)))
        for i, n in enumerate(SIZES)
    )
    return Kernel(name, metric, points, unit)


def one_parameter(commit: str = "a" * 40, branch: str | None = "main") -> MeasurementSet:
    info = RunInfo(
        commit=commit,
        branch=branch,
        started="2026-11-20T10:00:00+00:00",
        machine={"cpu": "test", "cores": 4, "nested": {"governor": "performance"}},
        dirty=False,
        errors=(
            RunError("slow", "timeout", "exceeded 10 s", {"n": 4096.0}),
            RunError("broken", "crash", "exit 139"),
        ),
        interrupted=True,
        round_speed=(1.0, 0.98, 1.03),
    )
    kernels = (
        linear("sort"),
        linear("test_x[kind=list]", scale=3e-6),
        linear("sort", scale=8.0, metric="bytes", unit=None),
    )
    return MeasurementSet(("n",), kernels, info)


def two_parameters() -> MeasurementSet:
    points = tuple(
        Point((n, p), (n * p * 1e-7, n * p * 1.01e-7)) for n in SIZES[:3] for p in (2.0, 4.0, 8.0)
    )
    return MeasurementSet(("n", "p"), (Kernel("stencil", "time", points, "s"),), RunInfo())


def checked(mset: MeasurementSet):
    options = CheckOptions(rules=(ExpectationRule("*", "<= n^2"),), target={"n": 1e6})
    return check(mset, None, options)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "nested" / ".perfguard" / "history.sqlite"


# ---------------------------------------------------------------------- round trips


@pytest.mark.parametrize("make", [one_parameter, two_parameters], ids=["1-param", "2-param"])
def test_a_recorded_run_loads_back_equal(db: Path, make) -> None:
    mset = make()
    with History.open(db) as history:
        run_id = history.record(mset)
        assert history.load_run(run_id) == mset
    with History.open(db) as history:  # and from a fresh connection
        assert history.load_run(run_id) == mset


def test_open_creates_folders_and_a_wal_database(db: Path) -> None:
    with History.open(db) as history:
        history.record(one_parameter())
    assert db.exists()
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_open_without_create_refuses_a_missing_file(db: Path) -> None:
    with pytest.raises(HistoryError, match="no history database here"):
        History.open(db, create=False)
    assert not db.parent.exists()


def test_open_without_create_names_a_folder_as_a_folder(tmp_path: Path) -> None:
    # `history --db .perfguard` said "no history database here; record a run first"
    with pytest.raises(HistoryError, match="is a folder; --db names the history file"):
        History.open(tmp_path, create=False)


def test_open_without_create_leaves_an_empty_file_alone(tmp_path: Path) -> None:
    # `history --db empty.sqlite` turned a zero-byte file into a 48 KB database
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(HistoryError, match="no history database here"):
        History.open(empty, create=False)
    assert empty.stat().st_size == 0


def test_runs_are_newest_first_and_filter_by_branch(db: Path) -> None:
    with History.open(db) as history:
        ids = [
            history.record(one_parameter(c * 40, b)) for c, b in zip("abc", ["main", "f", "main"])
        ]
        assert [r.id for r in history.runs()] == ids[::-1]
        assert [r.commit for r in history.runs(branch="main")] == ["c" * 40, "a" * 40]
        assert len(history.runs(limit=1)) == 1
        row = history.runs()[0]
        assert (row.short, row.date, row.dirty) == ("ccccccc", "2026-11-20", False)


def test_missing_run_is_a_history_error(db: Path) -> None:
    with History.open(db) as history, pytest.raises(HistoryError, match="no run with id 7"):
        history.load_run(7)


def test_find_commit_by_prefix(db: Path) -> None:
    with History.open(db) as history:
        history.record(one_parameter("abc1" + "0" * 36))
        newest = history.record(one_parameter("abc1" + "0" * 36))
        history.record(one_parameter("abc2" + "0" * 36))
        found = history.find_commit("ABC1")
        assert found is not None and found.id == newest
        assert history.find_commit("fff") is None
        with pytest.raises(HistoryError, match="ambiguous"):
            history.find_commit("abc")


# ---------------------------------------------------------------------- verdicts and timeline


def test_a_checked_run_stores_verdicts_and_models(db: Path) -> None:
    mset = one_parameter()
    report = checked(mset)
    with History.open(db) as history:
        history.record(mset, report)
        rows = history.timeline()
    by_key = {(r.kernel, r.metric): r for r in rows}
    assert len(rows) == len(report.verdicts) == 3
    # the date a timeline shows is when the run was measured, not when it was stored
    assert {r.measured_at for r in rows} == {"2026-11-20T10:00:00+00:00"}
    for v in report.verdicts:
        row = by_key[(v.kernel, v.metric)]
        assert row.verdict == v.verdict
        assert v.model is not None and row.complexity == v.model.complexity() == "O(n)"
        assert row.predicted_at_target == v.predicted
    assert by_key[("sort", "time")].predicted_at_target == pytest.approx(1.0, rel=0.05)


def test_timeline_is_oldest_first_per_kernel_and_keeps_the_last_runs(db: Path) -> None:
    with History.open(db) as history:
        for c in "abcd":
            mset = one_parameter(c * 40)
            history.record(mset, checked(mset) if c != "b" else None)
        rows = history.timeline("sort", metric="time", limit=3)
        assert [r.commit[0] for r in rows if r.commit] == ["b", "c", "d"]
        assert rows[0].verdict is None and rows[1].complexity == "O(n)"
        assert {r.kernel for r in history.timeline("test_x[kind=list]")} == {"test_x[kind=list]"}
        assert {r.kernel for r in history.timeline("test_*")} == {"test_x[kind=list]"}
        assert {r.metric for r in history.timeline("sort")} == {"time", "bytes"}
        assert history.timeline("absent") == []


def test_timeline_table_shows_names_verbatim(db: Path) -> None:
    mset = one_parameter()
    with History.open(db) as history:
        history.record(mset, checked(mset))
        rows = history.timeline()
    console = Console(record=True, width=200, color_system=None)
    console.print(timeline_table(rows))
    text = console.export_text()
    assert "test_x[kind=list]" in text
    assert "aaaaaaa" in text and "O(n)" in text and "2026-" in text


def test_a_run_measured_on_a_dirty_tree_is_marked_wherever_its_commit_is_shown(db: Path) -> None:
    # A local `perfguard ci` on uncommitted changes is stored under HEAD's commit; a reader
    # of the history must not take it for that commit's own measurements.
    from dataclasses import replace

    from guard.site.data import load_site

    clean = one_parameter("a" * 40)
    dirty = one_parameter("b" * 40)
    dirty = replace(dirty, run=replace(dirty.run, dirty=True))
    with History.open(db) as history:
        for mset in (clean, dirty):
            history.record(mset, checked(mset))
        rows = history.timeline("sort", metric="time")
        newest = history.runs(limit=1)[0]
    assert [(r.commit[0], r.dirty) for r in rows if r.commit] == [("a", False), ("b", True)]
    assert newest.short == "bbbbbbb+"
    console = Console(record=True, width=200, color_system=None)
    console.print(timeline_table(rows))
    text = console.export_text()
    assert "aaaaaaa " in text and "bbbbbbb+" in text
    site = load_site(db)
    assert [c.short for c in site.commits] == ["aaaaaaa", "bbbbbbb+"]


# ---------------------------------------------------------------------- migrations and damage


def test_an_older_schema_is_migrated_and_keeps_its_runs(db: Path) -> None:
    db.parent.mkdir(parents=True)
    raw = sqlite3.connect(db)
    raw.executescript(MIGRATIONS[0] + "PRAGMA user_version = 1;")
    raw.execute(
        "INSERT INTO runs VALUES (1, 'abc', 'main', NULL, NULL, '{}', '[\"n\"]', '{}', 'now')"
    )
    raw.execute(
        "INSERT INTO measurements VALUES (1, 0, 'k', 'time', NULL, "
        '\'[{"at": {"n": 1}, "values": [2.5]}]\')'
    )
    raw.commit()
    raw.close()
    with History.open(db) as history:
        old = history.load_run(1)
        assert old.kernels == (Kernel("k", "time", (Point((1.0,), (2.5,)),)),)
        assert old.run.commit == "abc"
        mset = one_parameter()
        history.record(mset, checked(mset))
        assert len(history.timeline("sort")) == 2  # time and bytes; the old run has no "sort"
        assert [(r.run_id, r.verdict) for r in history.timeline("k")] == [(1, None)]
    with sqlite3.connect(db) as raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    raw.close()


def test_a_newer_schema_is_refused(db: Path) -> None:
    with History.open(db):
        pass
    raw = sqlite3.connect(db)
    raw.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    raw.close()
    expected = f"newer perfguard \\(schema {SCHEMA_VERSION + 1}, this one knows {SCHEMA_VERSION}\\)"
    with pytest.raises(HistoryError, match=expected) as info:
        History.open(db)
    assert str(db) in str(info.value)


def test_a_file_that_is_not_sqlite_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    path.write_text("this is not a database\n" * 200)
    with pytest.raises(HistoryError, match="not a perfguard history database") as info:
        History.open(path)
    assert str(info.value).startswith(str(path))


def test_another_applications_database_is_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "other.sqlite"
    raw = sqlite3.connect(path)
    raw.execute("CREATE TABLE notes (body TEXT)")
    raw.close()
    with pytest.raises(HistoryError, match="has tables notes"):
        History.open(path)


# ---------------------------------------------------------------------- concurrency and crashes

CHILD_ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), os.environ.get("PYTHONPATH", "")]),
}

WRITER = textwrap.dedent(
    """
    import sys
    from guard.history import History
    from guard.measurements import Kernel, MeasurementSet, Point, RunInfo

    path, tag, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(count):
        points = tuple(Point((float(n),), (n * 1e-6, n * 1.1e-6)) for n in range(1, 41))
        kernels = tuple(Kernel(f"k{j}", "time", points) for j in range(5))
        mset = MeasurementSet(("n",), kernels, RunInfo(commit=f"{tag}{i:03d}", branch=tag))
        with History.open(path) as history:  # reopen each time: concurrent opens too
            history.record(mset)
    """
)


def test_two_writers_at_once_lose_nothing(tmp_path: Path) -> None:
    path, count = tmp_path / "history.sqlite", 25
    children = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), tag, str(count)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=CHILD_ENV,
        )
        for tag in ("left", "right")
    ]
    for child in children:  # both imported and waiting: start them together
        assert child.stdout is not None and child.stdout.readline() == "ready\n"
    for child in children:
        assert child.stdin is not None
        child.stdin.write("go\n")
        child.stdin.flush()
    for child in children:
        _, err = child.communicate(timeout=60)
        assert child.returncode == 0, err
    with History.open(path) as history:
        for tag in ("left", "right"):
            runs = history.runs(branch=tag)
            assert sorted(r.commit for r in runs) == [f"{tag}{i:03d}" for i in range(count)]
        assert len(history.load_run(runs[0].id).kernels) == 5


KILLED = textwrap.dedent(
    """
    import sys, time
    import guard.history as gh
    from guard.measurements import Kernel, MeasurementSet, Point, RunInfo

    def mset(commit, kernels):
        points = tuple(Point((float(n),), (n * 1e-6,)) for n in range(1, 21))
        ks = tuple(Kernel(f"k{j}", "time", points) for j in range(kernels))
        return MeasurementSet(("n",), ks, RunInfo(commit=commit, branch="main"))

    with gh.History.open(sys.argv[1]) as history:
        for i in range(3):
            history.record(mset(f"done{i}", 2))
        original = gh._kernel_row

        def stall(run_id, position, kernel):
            if position == 50:  # fifty kernels written, still inside the transaction
                print("mid-transaction", flush=True)
                time.sleep(60)
            return original(run_id, position, kernel)

        gh._kernel_row = stall
        history.record(mset("half", 100))
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL is POSIX")
def test_a_writer_killed_mid_run_leaves_only_complete_runs(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite"
    child = subprocess.Popen(
        [sys.executable, "-c", KILLED, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=CHILD_ENV,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline()
        assert line == "mid-transaction\n", child.stderr.read() if child.stderr else ""
        with History.open(path) as reader:  # a reader meanwhile: not blocked, sees no half run
            assert [r.commit for r in reader.runs()] == ["done2", "done1", "done0"]
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.kill()
        child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL
    raw = sqlite3.connect(path)
    assert raw.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert raw.execute("SELECT count(*) FROM measurements").fetchone()[0] == 6
    raw.close()
    with History.open(path) as history:
        assert [r.commit for r in history.runs()] == ["done2", "done1", "done0"]
        assert all(len(history.load_run(r.id).kernels) == 2 for r in history.runs())
        history.record(one_parameter())  # the dead writer's lock is gone
        assert len(history.runs()) == 4


# ---------------------------------------------------------------------- baselines from git


def git(repo: Path, *args: str) -> str:
    command = ["git", "-c", "user.name=perfguard", "-c", "user.email=test@example.com"]
    command += ["-c", "commit.gpgsign=false", "-C", str(repo), *args]
    done = subprocess.run(command, check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def repo(tmp_path: Path) -> dict[str, str]:
    """main: base -> main2; feature: base -> feat (checked out)."""
    path = tmp_path / "repo"
    path.mkdir()
    git(path, "init", "-q", "--initial-branch=main")
    git(path, "commit", "-q", "--allow-empty", "-m", "base")
    base = git(path, "rev-parse", "HEAD")
    git(path, "commit", "-q", "--allow-empty", "-m", "main 2")
    main2 = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-b", "feature", base)
    git(path, "commit", "-q", "--allow-empty", "-m", "feature")
    return {"path": str(path), "base": base, "main2": main2, "feat": git(path, "rev-parse", "HEAD")}


def test_baseline_is_the_run_of_the_merge_base(db: Path, repo: dict[str, str]) -> None:
    with History.open(db) as history:
        base_id = history.record(one_parameter(repo["base"], "main"))
        history.record(one_parameter(repo["main2"], "main"))
        history.record(one_parameter(repo["feat"], "feature"))
        run, note = history.baseline_for("main", Path(repo["path"]))
    assert run.id == base_id
    assert note == f"baseline: merge base {repo['base'][:7]} of main"


def test_baseline_falls_back_to_the_newest_run_on_the_branch(
    db: Path, repo: dict[str, str]
) -> None:
    with History.open(db) as history:
        newest = history.record(one_parameter(repo["main2"], "main"))
        run, note = history.baseline_for("main", Path(repo["path"]))
        assert run.id == newest
        assert note == (
            f"no run of the merge base {repo['base'][:7]}; using the newest run on main, "
            f"{repo['main2'][:7]} (2026-11-20), although {repo['main2'][:7]} is not an "
            "ancestor of HEAD"
        )
        run, note = history.baseline_for("origin/main", Path(repo["path"]))  # git knows no origin
        assert run.id == newest and note.startswith("no merge base of HEAD and origin/main (")


def test_the_fallback_prefers_a_run_of_an_ancestor(db: Path, repo: dict[str, str]) -> None:
    """After a force-push the newest run on main may be of a commit the pull request never
    had: a run of a commit HEAD descends from is the baseline, however old."""
    path = Path(repo["path"])
    git(path, "checkout", "-q", "--detach", repo["base"])
    git(path, "commit", "-q", "--allow-empty", "-m", "before the merge base")
    older = git(path, "rev-parse", "HEAD")
    git(path, "checkout", "-q", "-B", "feature2", older)
    git(path, "commit", "-q", "--allow-empty", "-m", "feature 2")
    with History.open(db) as history:
        ancestor = history.record(one_parameter(older, "main"))
        history.record(one_parameter(repo["main2"], "main"))  # newer, not an ancestor
        run, note = history.baseline_for("main", path)
    assert run.id == ancestor
    assert f"using the newest run of an ancestor on main, {older[:7]}" in note


def test_a_checkout_without_a_local_main_finds_the_merge_base_on_origin(
    db: Path, repo: dict[str, str], tmp_path: Path
) -> None:
    """actions/checkout leaves remote branches only: "main" is origin/main there."""
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", repo["path"], str(clone)], check=True)
    git(clone, "checkout", "-q", "--detach", repo["feat"])
    assert git(clone, "branch", "--list", "main") == ""  # origin/main only
    with History.open(db) as history:
        base_id = history.record(one_parameter(repo["base"], "main"))
        history.record(one_parameter(repo["main2"], "main"))
        run, note = history.baseline_for("main", clone)
    assert run.id == base_id and note == f"baseline: merge base {repo['base'][:7]} of main"


def test_only_pushes_and_the_merge_queue_become_baselines_in_actions(
    db: Path, repo: dict[str, str]
) -> None:
    """A fork can name its branch main: a pull request's run never becomes the baseline."""
    trusted = ("push", "merge_group")
    with History.open(db) as history:
        pushed = history.record(one_parameter(repo["main2"], "main"), event="push")
        # the merge base itself, and the newest "main" run, both recorded by pull requests
        history.record(one_parameter(repo["base"], "main"), event="pull_request")
        history.record(one_parameter(repo["feat"], "main"), event="pull_request_target")
        run, note = history.baseline_for("main", Path(repo["path"]), events=trusted)
        assert run.id == pushed
        assert note.startswith(f"no run of the merge base {repo['base'][:7]}; using the newest")
        queued = history.record(one_parameter(repo["base"], "main"), event="merge_group")
        run, _ = history.baseline_for("main", Path(repo["path"]), events=trusted)
        assert run.id == queued  # the merge base, recorded by the merge queue


def test_no_baseline_at_all_is_a_history_error(db: Path, repo: dict[str, str]) -> None:
    with History.open(db) as history:
        history.record(one_parameter(repo["feat"], "feature"))
        with pytest.raises(HistoryError, match="no run on branch main; record a run"):
            history.baseline_for("main", Path(repo["path"]))


def test_timeline_table_highlights_a_class_change_only() -> None:
    def row(run_id: int, complexity: str | None) -> TimelineRow:
        return TimelineRow(
            run_id, "f" * 40, "main", "2026-11-20", "k", "time", "s", "pass", complexity, None
        )

    from rich.console import Console

    table = timeline_table([row(1, "O(n)"), row(2, None), row(3, "O(n)"), row(4, "O(n^2)")])
    console = Console(width=200, force_terminal=True, color_system="standard")
    with console.capture() as captured:
        console.print(table)
    lines = captured.get().splitlines()[3:-1]  # the rows, between the header and the bottom
    bold_yellow = "\x1b[1;33m"
    assert [bold_yellow in line for line in lines] == [False, False, False, True]
    assert bold_yellow + "O(n^2)" in lines[3]


def test_a_stored_run_is_in_the_file_itself_not_only_its_log(db: Path, tmp_path: Path) -> None:
    """A CI cache saves history.sqlite alone: a run left in history.sqlite-wal (a full disk
    at close) was lost, and the file read as malformed."""
    import shutil

    with History.open(db) as history:
        run_id = history.record(one_parameter())
        alone = tmp_path / "alone.sqlite"
        shutil.copyfile(db, alone)  # while the writer is still open: the file, not its log
    with History.open(alone) as copy:
        assert [r.id for r in copy.runs()] == [run_id]


def test_a_shallow_clone_says_git_cannot_tell_rather_than_no_ancestor(
    db: Path, repo: dict[str, str], tmp_path: Path
) -> None:
    """actions/checkout fetches one commit: the parent's run read "not an ancestor"."""
    shallow = tmp_path / "shallow"
    url = f"file://{repo['path']}"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "-b", "main", url, str(shallow)], check=True
    )
    with History.open(db) as history:
        parent = history.record(one_parameter(repo["base"], "main"))
        run, note = history.baseline_for("main", shallow)
    assert run.id == parent
    assert "git cannot tell whether it is an ancestor" in note and "not an ancestor" not in note


def test_a_read_only_history_names_the_files_that_must_be_writable(tmp_path: Path) -> None:
    # after a failed write the -shm file stayed read-only: fixing the file alone did not help
    import sqlite3

    from guard.history import _errors

    with pytest.raises(HistoryError, match="its -wal and -shm files must be writable"):
        with _errors(tmp_path / "h.sqlite"):
            raise sqlite3.OperationalError("attempt to write a readonly database")


def test_a_writer_kept_waiting_says_so_and_then_stores(
    db: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # another process held the write lock: ci printed nothing for 30 s, then failed
    import threading

    with History.open(db) as history:
        history.record(one_parameter("b" * 40))
    holder = sqlite3.connect(db, isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(2.0, lambda: holder.execute("COMMIT"))
    release.start()
    try:
        with History.open(db) as history:
            run_id = history.record(one_parameter("c" * 40))
    finally:
        release.join()
        holder.close()
    assert run_id == 2
    assert "the history database is busy (another process is writing it)" in capsys.readouterr().err


def test_a_run_with_uncommitted_changes_on_the_branch_is_compared_with_its_commit(
    db: Path, repo: dict[str, str]
) -> None:
    # HEAD on main, recorded clean; a run with uncommitted changes on top of it was compared
    # with the commit before, so HEAD's own changes were read as the working tree's
    import dataclasses

    path = Path(repo["path"])
    git(path, "checkout", "-q", "main")
    with History.open(db) as history:
        history.record(one_parameter(repo["base"], "main"))
        clean = history.record(one_parameter(repo["main2"], "main"))
        dirty_run = one_parameter(repo["main2"], "main")
        history.record(
            dataclasses.replace(dirty_run, run=dataclasses.replace(dirty_run.run, dirty=True))
        )
        run, note = history.baseline_for("main", path, dirty=True)
        assert run.id == clean
        assert note.startswith(f"baseline: {repo['main2'][:7]} as committed")
        # a clean re-run of HEAD is a push: still the run before it
        run, _ = history.baseline_for("main", path)
        assert run.commit == repo["base"]
