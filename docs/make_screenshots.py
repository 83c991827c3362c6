"""Take the README's screenshots with Debian's chromium (the browser the tests drive).

    .venv/bin/python docs/make_screenshots.py [--out docs]

Writes, from a seeded synthetic history (guard.site.sample: 30 commits x 8 kernels, the
real check and History.record) and the bundled regression example:

* site-index.png       -- the site's index, light, desktop width;
* site-kernel-dark.png -- a kernel page in dark mode (prefers-color-scheme: dark), at the
  chart of the commit where its class grew: measured points, fitted model, the baseline's;
* site-phone.png       -- a kernel page at 390 px, a phone's width;
* report.png           -- the markdown report of `perfguard check` (the pull-request
  comment), rendered by markdown-it (rich's own dependency) up to its first chart: GitHub
  draws the report's mermaid charts, a local renderer cannot.

Needs /usr/bin/chromium (`apt-get install chromium`) and Playwright (`pip install -e
'.[test]'`); no browser is downloaded.
"""

from __future__ import annotations

import argparse
import sqlite3
import subprocess
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt
from playwright.sync_api import sync_playwright

from guard.site.build import SiteOptions, build_site
from guard.site.sample import SampleSpec, write_sample

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
REPORT_CSS = """
body { font: 14px/1.5 -apple-system, "Segoe UI", system-ui, sans-serif; color: #1f2328;
       max-width: 960px; margin: 16px auto; padding: 0 16px; }
table { border-collapse: collapse; margin: 12px 0; }
th, td { border: 1px solid #d1d9e0; padding: 4px 10px; }
th { background: #f6f8fa; }
code { background: #eff1f3; padding: 1px 4px; border-radius: 4px; }
h2 { border-bottom: 1px solid #d1d9e0; padding-bottom: 4px; }
"""


def report_html(tmp: Path) -> Path:
    """The bundled regression example's report, as GitHub shows it up to its first chart."""
    markdown = tmp / "report.md"
    example = ROOT / "examples" / "check"
    subprocess.run(
        [sys.executable, "-m", "guard.cli", "check", str(example / "cand.json")]
        + ["--baseline", str(example / "base.json"), "-c", str(example / "perfguard.yml")]
        + ["--markdown", str(markdown)],
        stdout=subprocess.DEVNULL,
        check=False,  # it exits 1: the example holds a real regression
    )
    text = markdown.read_text().split("```mermaid", 1)[0] + "\n</details>\n"
    body = MarkdownIt("commonmark", {"html": True}).enable("table").render(text)
    page = tmp / "report.html"
    page.write_text(f"<!doctype html><meta charset=utf-8><style>{REPORT_CSS}</style>{body}")
    return page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfguard-shots-") as name:
        tmp = Path(name)
        db = tmp / "history.sqlite"
        write_sample(db, SampleSpec(commits=30, kernels=8, seed=0))
        site = tmp / "site"
        options = SiteOptions(repo_url="https://github.com/perfguard/perfguard", title="perfguard")
        build_site(db, site, options, environ={})
        kernel = next((site / "kernels").glob("kernel03-*.html")).as_uri()
        with sqlite3.connect(db) as c:  # the run where kernel03's class grew
            (run,) = c.execute(
                "SELECT min(run_id) FROM verdicts WHERE kernel = 'kernel03' AND regression"
            ).fetchone()
        regressed = f"{kernel}#run-{run}"
        shots = [
            ("site-index.png", (site / "index.html").as_uri(), "light", (1100, 760), 1),
            ("site-kernel-dark.png", regressed, "dark", (1000, 620), 1),
            ("site-phone.png", kernel, "light", (390, 844), 2),
            ("report.png", report_html(tmp).as_uri(), "light", (1000, 520), 1),
        ]
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
            for file, url, scheme, (width, height), scale in shots:
                page = browser.new_page(
                    viewport={"width": width, "height": height},
                    color_scheme=scheme,
                    device_scale_factor=scale,
                )
                page.goto(url)
                page.screenshot(path=str(args.out / file))
                page.close()
                print(f"wrote {args.out / file}")
            browser.close()


if __name__ == "__main__":
    main()
