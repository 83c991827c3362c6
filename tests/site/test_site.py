"""`perfguard site`: the pages agree with the SQLite history, bad input is one line and exit 2.

Histories are made by guard.site.sample: seeded measurements judged by the real check and
stored by the real History.record. Expected values are read from the SQLite file with
plain SQL, never from the site's own reader.
"""

from __future__ import annotations

import json
import sqlite3
from html.parser import HTMLParser
from pathlib import Path

import pytest
from support import perfguard

from guard.checking.check import CheckOptions
from guard.checking.check import check as run_check
from guard.cli import main
from guard.history import History
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo
from guard.site.build import MARKER, SiteOptions, build_site
from guard.site.pages import CHARTED
from guard.site.sample import SampleSpec, commit_sha, sample_set, write_sample

SPEC = SampleSpec(commits=6, kernels=5, seed=3)  # kernel03 is O(n^2) in commits 3 and 4


class Page(HTMLParser):
    """A page's table rows (cell texts), links, sources and figures, for assertions."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.rows: dict[str, list[list[str]]] = {}
        self.links: list[str] = []
        self.sources: list[str] = []
        self.figures: list[str] = []
        self.tags: set[str] = set()
        self._table: str | None = None
        self._cell: list[str] | None = None
        self.feed(text)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.add(tag)
        if tag == "table":
            self._table = a.get("class") or ""
            self.rows[self._table] = []
        elif tag == "tr" and self._table is not None:
            self.rows[self._table].append([])
        elif tag in ("td", "th") and self._table is not None:
            self._cell = []
        elif tag == "figure" and a.get("id"):
            self.figures.append(a["id"] or "")
        if a.get("href"):
            self.links.append(a["href"] or "")
        if a.get("src"):
            self.sources.append(a["src"] or "")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self._table is not None:
            self.rows[self._table][-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "table":
            self._table = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("history") / "history.sqlite"
    write_sample(db, SPEC)
    return db


@pytest.fixture(scope="module")
def site(history: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build_site(history, out, SiteOptions(repo_url="https://example.org/o/r"), environ={})
    return out


def rows(db: Path, query: str, *args: object) -> list[tuple]:
    with sqlite3.connect(db) as c:
        return c.execute(query, args).fetchall()


def kernel_pages(site: Path) -> dict[str, Page]:
    """Each kernel page by the kernel name in its <h1>."""
    pages = {}
    for path in sorted((site / "kernels").glob("*.html")):
        text = path.read_text()
        name = text.split("<h1>", 1)[1].split("<span", 1)[0].strip()
        pages[name] = Page(text)
    return pages


def index_rows(site: Path) -> dict[str, list[str]]:
    page = Page((site / "index.html").read_text())
    return {cells[0]: cells for cells in page.rows["kernels"][1:]}


def test_the_index_shows_every_kernel_with_its_stored_class_and_verdict(
    history: Path, site: Path
) -> None:
    newest = rows(history, "SELECT max(id) FROM runs")[0][0]
    stored = rows(
        history,
        "SELECT v.kernel, m.complexity, v.verdict FROM verdicts v"
        " JOIN models m USING (run_id, kernel, metric) WHERE v.run_id = ?",
        newest,
    )
    shown = index_rows(site)
    assert sorted(shown) == sorted(k for k, _, _ in stored) and len(stored) == SPEC.kernels
    for kernel, complexity, verdict in stored:
        assert shown[kernel][1:3] == [complexity, verdict]


def test_class_changes_name_the_commits_where_the_stored_class_changed(
    history: Path, site: Path
) -> None:
    classes = rows(
        history,
        "SELECT r.commit_sha, m.complexity FROM models m JOIN runs r ON r.id = m.run_id"
        " WHERE m.kernel = 'kernel03' ORDER BY r.id",
    )
    expected = [
        f"{sha[:7]} {before} → {after}"
        for (_, before), (sha, after) in zip(classes, classes[1:])
        if before != after
    ]
    assert len(expected) == 2  # into O(n^2) at commit 3, back at commit 5
    assert index_rows(site)["kernel03"][4] == " ".join(reversed(expected))  # newest first
    assert index_rows(site)["kernel00"][4] == "none"


def test_sparklines_and_trends_are_the_stored_models_at_the_target(
    history: Path, site: Path
) -> None:
    """The site evaluates each stored model at the check's target: the check's own number."""
    from guard.site.data import load_site

    data = load_site(history)
    stored = dict(
        ((run, kernel), value)
        for run, kernel, value in rows(
            history, "SELECT run_id, kernel, predicted_at_target FROM verdicts"
        )
    )
    assert data.at == {"n": 1e6}
    for k in data.kernels:
        for run in k.runs:
            assert run.predicted == pytest.approx(stored[(run.commit.run_id, k.kernel)], rel=1e-12)
    index = (site / "index.html").read_text()
    assert index.count('<svg class="sparkline"') == SPEC.kernels
    assert index.count('class="dot') == SPEC.kernels * SPEC.commits


def test_kernel_pages_hold_every_run_and_one_dot_per_measured_point(
    history: Path, site: Path
) -> None:
    pages = kernel_pages(site)
    assert sorted(pages) == sorted(
        r[0] for r in rows(history, "SELECT DISTINCT kernel FROM runs JOIN measurements")
    )
    for kernel, page in pages.items():
        runs = rows(
            history,
            "SELECT r.id, r.commit_sha, m.points FROM measurements m JOIN runs r ON r.id = m.run_id"
            " WHERE m.kernel = ? ORDER BY r.id DESC",
            kernel,
        )
        timeline = page.rows["timeline"][1:]
        assert [cells[0].split()[0] for cells in timeline] == [sha[:7] for _, sha, _ in runs]
        assert page.figures == [f"run-{run_id}" for run_id, _, _ in runs]
        assert f"https://example.org/o/r/commit/{runs[0][1]}" in page.links
    text = next((site / "kernels").glob("kernel03-*.html")).read_text()
    for run_id, _, points in rows(
        history, "SELECT run_id, '', points FROM measurements WHERE kernel = 'kernel03'"
    ):
        figure = text.split(f'id="run-{run_id}"', 1)[1].split("</figure>", 1)[0]
        assert figure.count('<circle class="point"') == len(json.loads(points))
        assert figure.count('class="curve model"') == 1
        assert ("curve baseline" in figure) == (run_id != 1)  # the first run has no baseline


def test_only_the_newest_runs_are_charted_and_the_page_says_how_many_are_not(
    tmp_path: Path,
) -> None:
    db = tmp_path / "h.sqlite"
    write_sample(
        db, SampleSpec(commits=CHARTED + 3, kernels=1, seed=5, sizes=(16, 32, 64, 128, 256))
    )
    build_site(db, tmp_path / "site", SiteOptions(), environ={})
    (page,) = kernel_pages(tmp_path / "site").values()
    assert len(page.rows["timeline"]) - 1 == CHARTED + 3
    assert len(page.figures) == CHARTED
    text = next((tmp_path / "site" / "kernels").glob("*.html")).read_text()
    assert "3 older ones are in the timeline only" in text


def test_user_text_is_escaped_and_nothing_is_fetched_from_outside(tmp_path: Path) -> None:
    name = '<img src=x onerror="alert(1)">&co'
    sizes = (16.0, 32.0, 64.0, 128.0, 256.0, 512.0)
    points = tuple(Point((n,), (1e-6 * n, 1.01e-6 * n, 0.99e-6 * n)) for n in sizes)
    mset = MeasurementSet(
        ("n",), (Kernel(name, "time", points, "s"),), RunInfo(commit="a" * 40, branch="x<y>")
    )
    db = tmp_path / "h.sqlite"
    with History.open(db) as h:
        h.record(mset, run_check(mset, None, CheckOptions()))
    out = tmp_path / "site"
    build_site(db, out, SiteOptions(title="<b>mine</b>"), environ={})
    for path in out.rglob("*.html"):
        text = path.read_text()
        assert name not in text and "<b>mine</b>" not in text
        assert "<script" not in text
        page = Page(text)
        assert page.sources == []
        for link in page.links:
            assert not link.startswith(("http:", "https:", "//")), link
            file, _, anchor = link.partition("#")
            target = (path.parent / file).resolve() if file else path.resolve()
            assert target.is_file() and out.resolve() in target.parents, link
            assert not anchor or f'id="{anchor}"' in target.read_text(), link
    assert "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;&amp;co" in (out / "index.html").read_text()
    assert [p.name for p in (out / "kernels").iterdir()][0].startswith("img-src-x-onerror-alert-1")


def test_commit_links_default_to_the_actions_repository(history: Path, tmp_path: Path) -> None:
    env = {"GITHUB_SERVER_URL": "https://github.com", "GITHUB_REPOSITORY": "me/proj"}
    build_site(history, tmp_path / "a", SiteOptions(), environ=env)
    build_site(history, tmp_path / "b", SiteOptions(), environ={})
    sha = commit_sha(SPEC.seed, SPEC.commits - 1)
    assert f"https://github.com/me/proj/commit/{sha}" in (
        tmp_path / "a" / "index.html"
    ).read_text() + "".join(p.read_text() for p in (tmp_path / "a" / "kernels").glob("*.html"))
    assert "/commit/" not in "".join(p.read_text() for p in (tmp_path / "b").rglob("*.html"))


def test_branch_and_limit_choose_the_runs(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    write_sample(db, SampleSpec(commits=4, kernels=2, branch="main"))
    write_sample(db, SampleSpec(commits=2, kernels=3, branch="dev", seed=9))
    result = build_site(db, tmp_path / "dev", SiteOptions(branch="dev"), environ={})
    assert (result.kernels, result.commits) == (3, 2)
    # without --branch: main, not one timeline of both branches (a feature branch's run
    # between two of main's read as two class changes that never happened)
    newest = build_site(db, tmp_path / "newest", SiteOptions(limit=3), environ={})
    index = (tmp_path / "newest" / "index.html").read_text()
    assert "over 3 commits (the newest 3 of 4 runs)" in " ".join(index.split())
    assert newest.branch == "main" and " on main (--branch for another)" in newest.sentence()


def test_an_empty_history_is_an_empty_state_page(tmp_path: Path) -> None:
    db = tmp_path / "h.sqlite"
    History.open(db).close()
    done = perfguard("site", "--db", db, "-o", tmp_path / "site")
    assert done.returncode == 0, done.stderr
    index = tmp_path / "site" / "index.html"
    assert done.stdout == f"perfguard site: no runs recorded yet; an empty-state page -> {index}\n"
    assert "No runs recorded yet" in (tmp_path / "site" / "index.html").read_text()


def test_a_rebuild_replaces_an_earlier_site_whole(history: Path, tmp_path: Path) -> None:
    out = tmp_path / "site"
    build_site(history, out, SiteOptions(), environ={})
    (out / "kernels" / "stale.html").write_text("old")
    build_site(history, out, SiteOptions(limit=2), environ={})
    assert not (out / "kernels" / "stale.html").exists()
    assert (out / MARKER).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # nothing left beside it


def one_line_error(capsys: pytest.CaptureFixture[str], *args: str | Path) -> str:
    code = main(["site", *map(str, args)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_bad_histories_are_one_line_and_exit_2(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert "no history database here" in one_line_error(
        capsys, "--db", tmp_path / "no.sqlite", "-o", out
    )
    text = tmp_path / "text.sqlite"
    text.write_text("not a database\n" * 100)
    assert "not a perfguard history database" in one_line_error(capsys, "--db", text, "-o", out)
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as c:
        c.execute("CREATE TABLE songs (title)")
    assert "it has tables songs" in one_line_error(capsys, "--db", foreign, "-o", out)
    err = one_line_error(capsys, "--db", history, "-o", out, "--branch", "nope")
    assert "no run on branch 'nope' (known branches: main)" in err
    assert "--limit must be at least 1" in one_line_error(
        capsys, "--db", history, "-o", out, "-n", "0"
    )
    assert not out.exists()


@pytest.mark.parametrize(
    ("table", "column", "value", "message"),
    [
        ("measurements", "points", "[{]", "damaged row"),
        ("measurements", "points", '[{"at": {"n": 16}}]', "damaged row (no 'values' field)"),
        (
            "verdicts",
            "entry",
            '{"kernel": "kernel02"}',
            "damaged verdict (entry.verdict: expected a string",
        ),
    ],
)
def test_a_damaged_row_names_its_run_and_kernel(
    history: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    table: str,
    column: str,
    value: str,
    message: str,
) -> None:
    db = tmp_path / "damaged.sqlite"
    db.write_bytes(history.read_bytes())
    with sqlite3.connect(db) as c:
        c.execute(
            f"UPDATE {table} SET {column} = ? WHERE run_id = 4 AND kernel = 'kernel02'", (value,)
        )
    err = one_line_error(capsys, "--db", db, "-o", tmp_path / "out")
    assert f"run 4, kernel 'kernel02' (time): {message}" in err


def test_an_output_that_is_not_a_perfguard_site_is_refused_untouched(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a_file = tmp_path / "notes.txt"
    a_file.write_text("mine")
    assert "a file, not a folder" in one_line_error(capsys, "--db", history, "-o", a_file)
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "index.html").write_text("my own page")
    err = one_line_error(capsys, "--db", history, "-o", folder)
    assert "not an earlier perfguard site" in err
    assert a_file.read_text() == "mine"
    assert [p.name for p in folder.iterdir()] == ["index.html"]
    assert (folder / "index.html").read_text() == "my own page"


def test_a_failed_rebuild_keeps_the_earlier_site(
    history: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    build_site(history, out, SiteOptions(), environ={})
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    one_line_error(capsys, "--db", history, "-o", out, "--branch", "gone")
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_samples_are_seeded() -> None:
    assert sample_set(SPEC, 2) == sample_set(SPEC, 2)
    assert sample_set(SPEC, 2) != sample_set(SPEC, 1)
    assert sample_set(SPEC, 0).run.commit == commit_sha(SPEC.seed, 0)


def test_runs_of_one_commit_count_once_and_their_class_flips_are_told_apart() -> None:
    # a probe ran ci twice at one commit and four times at another: the index read "over
    # 10 commits" for 6, and a class read differently by two runs of one commit counted as
    # a class change of that commit
    from guard.site.data import Commit, KernelHistory, KernelRun, SiteData

    def run(i: int, sha: str, complexity: str, dirty: bool = False) -> KernelRun:
        commit = Commit(i, sha, "main", "2026-11-27", None, dirty)
        return KernelRun(commit, (), None, None, complexity)

    runs = (
        run(1, "a" * 40, "O(n)"),
        run(2, "b" * 40, "O(n^2)"),  # a commit's change
        run(3, "b" * 40, "O(n^1.5)"),  # the same commit again: noise
        run(4, "b" * 40, "O(n^1.5)", dirty=True),
        run(5, "b" * 40, "O(n)", dirty=True),  # a dirty tree: its own code
    )
    k = KernelHistory("k", "time", "s", "k", runs)
    assert [(c.after, c.rerun) for c in k.changes] == [
        ("O(n^2)", False),
        ("O(n^1.5)", True),
        ("O(n)", False),
    ]
    assert len(k.commit_changes) == 2 and k.commit_count == 4
    data = SiteData("h.sqlite", "main", tuple(r.commit for r in runs), (k,), {}, "n=1e6", 5)
    assert data.commit_count == 4
    from guard.site.build import SiteResult

    said = SiteResult(Path("site/index.html"), 1, 4, 3, None, 5).sentence()
    assert said.startswith("perfguard site: 1 kernel, 5 runs of 4 commits, 3 files")
    assert "runs of" not in SiteResult(Path("i.html"), 1, 4, 3, None, 4).sentence()
