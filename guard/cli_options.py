"""Every command-line option and argument of ``perfguard``, declared once with its help.

Also the application itself with its global options (``--debug``, ``--version``);
``cli.py`` lists which verb takes which of these, so a verb reads as its options and one
call. Nothing here imports more than typer: ``--help`` and
``--version`` start fast.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
import typer.core

from .defaults import CONFIDENCE, FORMAT_NAMES, MODELER_NAMES

Opt = typer.Option
Arg = typer.Argument
SCALING_HELP = (
    "Score-P/CUBE folders: weak (a profile is the mean of its processes; default), "
    "weak_threaded (the same without locations that recorded 0) or strong (a profile's "
    "processes summed). Files: strong or strong=PARAM, each value times the process "
    "count (Extra-P's strong-scaling conversion), so falling times model as total effort."
)
_CONFIG_HELP = "perfguard.yml (default: ./perfguard.yml when present)."


class _Group(typer.core.TyperGroup):
    """The verbs; Ctrl-C that escapes one is an abort that says so (typer turns it into a
    silent exit 130, and a second Ctrl-C while a run was writing what it measured left the
    user without a word)."""

    def invoke(self, ctx: typer.core._click.Context) -> object:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt:
            raise typer.Abort() from None


app = typer.Typer(
    name="perfguard",
    cls=_Group,
    context_settings={"help_option_names": ["-h", "--help"]},
    help="Catch scalability bugs before they merge: fit empirical performance models "
    "(PMNF) to benchmark measurements and check their asymptotic class.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain help: fast to start, and what a CI log shows anyway
)
state: dict[str, bool] = {"debug": False}


def _version(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"perfguard {__version__}")
        raise typer.Exit()


Debug = Annotated[bool, Opt("--debug", help="Show tracebacks for errors.")]
Version = Annotated[
    bool,
    Opt("--version", callback=_version, is_eager=True, help="Print the version and exit."),
]


@app.callback()
def _root(debug: Debug = False, version: Version = False) -> None:
    state["debug"] = debug


# ---------------------------------------------------------------- shared by several verbs
Format = Annotated[
    str | None,
    Opt("--format", "-f", help=f"Force the input format: {', '.join(FORMAT_NAMES)}."),
]
Modeler = Annotated[str, Opt("--modeler", "-m", help=f"Modeler: {', '.join(MODELER_NAMES)}.")]
Scaling = Annotated[str | None, Opt("--scaling", help=SCALING_HELP, show_default=False)]
Inclusive = Annotated[
    bool,
    Opt(
        "--inclusive",
        help="Score-P/CUBE folders: a call path's inclusive values (its callees' included), "
        "as Extra-P's 'use inclusive measurements'; exclusive by default.",
    ),
]
Json = Annotated[bool, Opt("--json", help="Print perfguard/models@1 JSON.")]
Strict = Annotated[bool, Opt("--strict", help="Inconclusive verdicts fail the build.")]
Db = Annotated[Path, Opt("--db", help="The history database.")]
Baseline = Annotated[
    Path | None,
    Opt("--baseline", "-b", help="Measurements of the baseline commit.", show_default=False),
]
OptionalConfig = Annotated[
    Path | None, Opt("--config", "-c", help=_CONFIG_HELP, show_default=False)
]

# ------------------------------------------------------------------------------ model
ModelInputs = Annotated[
    list[Path],
    Arg(
        metavar="FILE...",
        help="Measurement files or Score-P experiment folders (format auto-detected).",
        show_default=False,
    ),
]
PredictAt = Annotated[
    str | None,
    Opt(
        "--predict",
        "-p",
        help="Predict every model at this size (e.g. 4096 or n=4096), or, in a file of "
        "several parameters, at this point (e.g. p=512,n=9000), with an interval.",
        show_default=False,
    ),
]
Level = Annotated[float, Opt("--level", help="Coverage of the prediction interval.")]

# ------------------------------------------------------------------------------ check
Current = Annotated[
    Path | None,
    Arg(help="Measurements of the commit under test (any supported format).", show_default=False),
]
Expect = Annotated[
    list[str],
    Opt(
        "--expect",
        "-e",
        metavar="GLOB=EXPR",
        help="GLOB=EXPR, e.g. 'sort*=<= n log n' (repeatable; first match wins).",
    ),
]
Target = Annotated[
    list[str],
    Opt(
        "--target",
        "-t",
        metavar="PARAM=VALUE",
        help="Rank and compare at this scale, e.g. n=1e6 (repeatable).",
    ),
]
MaxClass = Annotated[
    str | None,
    Opt("--max-class", help="Flag any kernel above this class, e.g. 'n'.", show_default=False),
]
MaxSlowdown = Annotated[
    float | None,
    Opt(
        "--max-slowdown",
        help="Also fail when x this much slower than the baseline at the target.",
        show_default=False,
    ),
]
Confidence = Annotated[
    float | None,
    Opt(
        "--confidence",
        help=(
            f"How sure a failure must be (default {CONFIDENCE:g}); "
            "1 minus it is the bound test's level."
        ),
        show_default=False,
    ),
]
VerdictsJson = Annotated[bool, Opt("--json", help="Print perfguard/verdicts@1 JSON.")]
Markdown = Annotated[
    Path | None,
    Opt("--markdown", help="Also write a markdown report to this file.", show_default=False),
]

# ----------------------------------------------------------------------------- report
Verdicts = Annotated[
    Path,
    Arg(
        metavar="VERDICTS",
        help="A verdicts@1 file: perfguard check --json, or a report folder's verdicts.json.",
        show_default=False,
    ),
]
ReportMarkdown = Annotated[
    Path | None,
    Opt("--markdown", help="Write the markdown report here instead of printing the table."),
]
ReportCurrent = Annotated[
    Path | None,
    Opt(
        "--current",
        help="The checked measurements: their units in the table, their charts in --markdown.",
    ),
]
ReportBaseline = Annotated[
    Path | None, Opt("--baseline", "-b", help="The baseline's measurements, for the charts.")
]

# ---------------------------------------------------------------------------- predict
PredictInputs = Annotated[
    list[Path] | None,
    Arg(
        metavar="FILE...",
        help="Measurement files (any supported format); without them the benchmarks of "
        "perfguard.yml are measured first.",
        show_default=False,
    ),
]
PredictConfig = Annotated[
    Path | None,
    Opt(
        "--config",
        "-c",
        help="perfguard.yml with the analytical: models (default: ./perfguard.yml when present).",
        show_default=False,
    ),
]
At = Annotated[
    list[str],
    Opt(
        "--at",
        metavar="POINT",
        help="Predict here, e.g. n=4096,block=32 (repeatable).",
        show_default=False,
    ),
]
Grid = Annotated[
    list[str],
    Opt(
        "--grid",
        metavar="PARAM=VALUES",
        help="Predict over the product of PARAM=VALUES, e.g. n=64..256+64 or bx=8,16 "
        "(one per parameter).",
        show_default=False,
    ),
]
Kernels = Annotated[
    list[str],
    Opt("--kernel", "-k", metavar="GLOB", help="Only kernels matching this glob (repeatable)."),
]
Analytical = Annotated[
    list[str],
    Opt(
        "--analytical",
        "-a",
        metavar="GLOB=EXPR",
        help="GLOB=EXPR: an analytical model for matching kernels, e.g. 'sweep=n^3*(1+2/bx)' "
        "(repeatable; overrides perfguard.yml).",
        show_default=False,
    ),
]
PredictSeed = Annotated[int, Opt("--seed", help="Seed of the trees and the folds.")]
PredictionsJson = Annotated[bool, Opt("--json", help="Print perfguard/predictions@1 JSON.")]

# ------------------------------------------------------------------------------- init
Directory = Annotated[Path, Arg(help="The project's root folder (the repository root).")]
Force = Annotated[
    bool, Opt("--force", help="Overwrite perfguard.yml and the workflow if they exist.")
]
Workflow = Annotated[
    str,
    Opt(
        "--workflow",
        help="check: your benchmark tool, then perfguard check (no token); pull-request: the "
        "perfguard action with a comment; fork-safe: the measure/comment pair for forks.",
    ),
]
Shards = Annotated[
    int | None,
    Opt(
        "--shards",
        help="Write the matrix workflow instead: N measuring jobs (2-256), one gate, and "
        "the GitHub Pages site of the history (perfguard-pages.yml).",
        show_default=False,
    ),
]
ActionRef = Annotated[
    str | None,
    Opt(
        "--action-ref",
        help="The perfguard commit SHA the workflows pin (default: the one perfguard was "
        "installed from, when it can tell).",
        show_default=False,
    ),
]

# -------------------------------------------------------------------------------- run
RunConfig = Annotated[
    Path, Opt("--config", "-c", help="The perfguard.yml declaring the benchmarks.")
]
Output = Annotated[
    Path,
    Opt(
        "--output",
        "-o",
        help="Where to write perfguard/measurements@1 (kept valid during the run).",
    ),
]
Budget = Annotated[
    float | None,
    Opt("--budget", help="Seconds for the whole run (default: run.budget).", show_default=False),
]
Shard = Annotated[
    str | None,
    Opt(
        "--shard",
        help="Run shard i of N (1-based, e.g. 2/4) for a CI matrix; join with perfguard merge.",
        show_default=False,
    ),
]
Benchmarks = Annotated[
    list[str],
    Opt("--benchmark", "-k", metavar="NAME", help="Run only this benchmark (repeatable)."),
]
RunSeed = Annotated[
    int | None,
    Opt("--seed", help="Seed of the measurement order (default: run.seed).", show_default=False),
]

# ------------------------------------------------------------------------------ merge
ShardFiles = Annotated[
    list[Path],
    Arg(
        metavar="SHARD...",
        help="Measurement files to join (e.g. the shards of one run).",
        show_default=False,
    ),
]
MergeOutput = Annotated[
    Path,
    Opt("--output", "-o", help="Where to write the joined measurements@1.", show_default=False),
]

# ------------------------------------------------------------------------ history, site
KernelGlob = Annotated[
    str | None, Arg(help="A kernel name or glob (default: every kernel).", show_default=False)
]
Metric = Annotated[
    str | None, Opt("--metric", help="Only this metric, e.g. time.", show_default=False)
]
HistoryLimit = Annotated[int, Opt("--limit", "-n", help="Show each kernel's last N runs.")]
SiteOutput = Annotated[
    Path,
    Opt(
        "--output",
        "-o",
        help="The folder to write (new, empty, or an earlier perfguard site).",
        show_default=False,
    ),
]
Branch = Annotated[
    str | None, Opt("--branch", help="Only runs recorded on this branch.", show_default=False)
]
SiteLimit = Annotated[int, Opt("--limit", "-n", help="The newest N runs.")]
RepoUrl = Annotated[
    str | None,
    Opt(
        "--repo-url",
        help="Link commits to REPO_URL/commit/SHA (default in GitHub Actions: this repository).",
        show_default=False,
    ),
]
Title = Annotated[str, Opt("--title", help="The site's title.")]

# --------------------------------------------------------------------------------- ci
CiConfig = Annotated[Path, Opt("--config", "-c", help="The perfguard.yml to run and check.")]
CiBaseline = Annotated[
    Path | None,
    Opt("--baseline", "-b", help="Compare with this measurement file.", show_default=False),
]
BaselineRef = Annotated[
    str | None,
    Opt(
        "--baseline-ref",
        help="Compare with the history's run of the merge base with this branch "
        "(default in a pull request: its target branch).",
        show_default=False,
    ),
]
BaselineCommit = Annotated[
    str | None,
    Opt(
        "--baseline-commit",
        help="Also measure this commit (in a temporary git worktree) in the same job and "
        "compare with it: same-runner A/B.",
        show_default=False,
    ),
]
Comment = Annotated[
    str, Opt("--comment", help="Pull-request comment: always, on-failure or never.")
]
FailOn = Annotated[
    str, Opt("--fail-on", help="What fails the step: expectation, regression, any or never.")
]
CiDb = Annotated[Path, Opt("--db", help="The SQLite history to read and extend.")]
Store = Annotated[bool, Opt("--store/--no-store", help="Record the run in the history.")]
Measurements = Annotated[
    Path | None,
    Opt(
        "--measurements",
        help="Check this measurement file instead of running the benchmarks.",
        show_default=False,
    ),
]
CiStrict = Annotated[bool, Opt("--strict", help="Inconclusive verdicts fail the step.")]
Publish = Annotated[
    Path | None,
    Opt(
        "--publish",
        help="Only comment the report folder another workflow uploaded (fork-safe pattern).",
        show_default=False,
    ),
]
