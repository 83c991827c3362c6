"""The site in a real browser: Debian's headless chromium, driven by Playwright from file://.

No browser is downloaded: Playwright is pointed at /usr/bin/chromium (`apt-get install
chromium`; .ci/run installs it when missing). Expected counts come from the SQLite file.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from guard.site.build import SiteOptions, build_site
from guard.site.sample import SampleSpec, write_sample

CHROMIUM = Path("/usr/bin/chromium")
PHONE = 390  # CSS pixels: an iPhone 12-15 in portrait


def _playwright():
    """Playwright's sync API, or a skip (a failure where .ci/run requires the browser)."""
    missing = None
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing = "playwright is not installed (pip install -e '.[test]')"
    if missing is None and not CHROMIUM.is_file():
        missing = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if missing is None:
        return sync_playwright
    if os.environ.get("PERFGUARD_BROWSER_REQUIRED"):
        pytest.fail(missing)
    pytest.skip(missing)


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("browser")
    db = root / "history.sqlite"
    write_sample(db, SampleSpec(commits=5, kernels=4, seed=11))
    site = root / "site"
    build_site(db, site, SiteOptions(repo_url="https://example.org/o/r"), environ={})
    return db, site


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    sync_playwright = _playwright()
    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox"])
        yield launched
        launched.close()


class Visit:
    """A browser context that records every request and every console error."""

    def __init__(self, browser, folder: Path, **options: object) -> None:
        self.context = browser.new_context(**options)
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.folder = folder.resolve().as_uri() + "/"
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))

    def _route(self, route, request) -> None:
        self.requests.append(request.url)
        if request.url.startswith(self.folder):
            route.continue_()
        else:
            route.abort()

    def open(self, relative: str) -> None:
        self.page.goto(self.folder + relative)

    def close(self) -> None:
        self.context.close()


def kernel_runs(db: Path) -> dict[str, list[tuple[int, int]]]:
    """Each kernel's (run id, number of measured points), oldest run first."""
    with sqlite3.connect(db) as c:
        rows = c.execute(
            "SELECT kernel, run_id, points FROM measurements ORDER BY run_id"
        ).fetchall()
    out: dict[str, list[tuple[int, int]]] = {}
    for kernel, run_id, points in rows:
        out.setdefault(kernel, []).append((run_id, len(json.loads(points))))
    return out


def test_every_kernel_page_is_reachable_and_charts_every_measured_point(
    built: tuple[Path, Path], browser
) -> None:
    db, site = built
    expected = kernel_runs(db)
    visit = Visit(browser, site)
    try:
        visit.open("index.html")
        page = visit.page
        links = page.eval_on_selector_all(
            "table.kernels tbody th a", "els => els.map(e => e.getAttribute('href'))"
        )
        sparks = page.eval_on_selector_all(
            "svg.sparkline", "els => els.map(e => e.querySelectorAll('circle.dot').length)"
        )
        assert sparks == [len(expected[k]) for k in sorted(expected)]
        seen = {}
        for link in links:
            visit.open(link)
            name = page.locator("h1").evaluate("h => h.firstChild.textContent.trim()")
            seen[name] = link
            trend = page.locator("figure.chart:not(.run) svg circle.dot").count()
            assert trend == len(expected[name])
            charts = page.eval_on_selector_all(
                "figure.run",
                "els => els.map(e => [Number(e.dataset.run),"
                " e.querySelectorAll('circle.point').length])",
            )
            assert sorted(map(tuple, charts)) == sorted(expected[name])
            for svg in page.locator("svg").all():
                assert svg.locator("title").first.text_content().strip()
                assert svg.locator("desc").first.text_content().strip()
                assert svg.get_attribute("role") == "img"
        assert sorted(seen) == sorted(expected)
        assert visit.errors == []
        assert visit.requests and all(u.startswith(visit.folder) for u in visit.requests)
        assert visit.folder + "site.css" in visit.requests
    finally:
        visit.close()


def test_readable_on_a_phone_and_in_dark_mode(built: tuple[Path, Path], browser) -> None:
    _, site = built
    kernel = next((site / "kernels").glob("*.html")).relative_to(site).as_posix()
    backgrounds = {}
    for scheme in ("light", "dark"):
        visit = Visit(browser, site, viewport={"width": PHONE, "height": 844}, color_scheme=scheme)
        try:
            for relative in ("index.html", kernel):
                visit.open(relative)
                width = visit.page.evaluate("document.documentElement.scrollWidth")
                assert width <= PHONE, f"{relative} is {width}px wide on a {PHONE}px phone"
                chart = visit.page.locator("svg").first.bounding_box()
                assert chart is not None and chart["width"] <= PHONE
            backgrounds[scheme] = visit.page.evaluate(
                "getComputedStyle(document.body).backgroundColor"
            )
            assert visit.errors == []
        finally:
            visit.close()
    assert backgrounds == {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}
