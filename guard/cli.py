"""The ``perfguard`` command line: each verb's options (``cli_options``) become a request
for ``guard.app``, with the terminal's collaborators (``measuring``); the outcome is printed
by ``reporting.console`` and decides the exit code."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from . import cli_options as o
from . import defaults as d
from .errors import PerfguardError
from .measuring import measure

if TYPE_CHECKING:
    from .checking.verdicts import CheckReport
    from .measurements import MeasurementSet

__all__ = ["app", "main"]

app = o.app
_NONE: list[str] = []  # typer reads list defaults; never mutated


@app.command("model")
def model_cmd(
    inputs: o.ModelInputs,
    format: o.Format = None,
    modeler: o.Modeler = "default",
    predict: o.PredictAt = None,
    level: o.Level = d.PREDICTION_LEVEL,
    as_json: o.Json = False,
    scaling: o.Scaling = None,
    inclusive: o.Inclusive = False,
) -> None:
    """Fit a PMNF model to every kernel and metric and print them.

    An input may be a folder of Score-P experiment folders (app.p64n1000.r1/profile.cubex).
    """
    from .app.model import ModelRequest, model
    from .reporting import console

    request = ModelRequest(tuple(inputs), format, modeler, predict, level, scaling, inclusive)
    outcome = model(request)
    console.print_skipped(outcome.results)
    console.print_notes(outcome.notes)
    outcome.raise_if_empty()
    if as_json:
        console.print_document(outcome.to_json(), "models")
    else:
        console.print_models(outcome.results, outcome.predicted, outcome.scaled)


@app.command("check")
def check_cmd(
    current: o.Current = None,
    baseline: o.Baseline = None,
    expect: o.Expect = _NONE,
    config: o.OptionalConfig = None,
    format: o.Format = None,
    modeler: o.Modeler = "default",
    target: o.Target = _NONE,
    max_class: o.MaxClass = None,
    max_slowdown: o.MaxSlowdown = None,
    confidence: o.Confidence = None,
    strict: o.Strict = False,
    as_json: o.VerdictsJson = False,
    markdown: o.Markdown = None,
    scaling: o.Scaling = None,
    inclusive: o.Inclusive = False,
) -> None:
    """Verdicts: pass, fail or inconclusive against declared bounds and the baseline.

    Without CURRENT, the benchmarks of perfguard.yml are measured first (perfguard run).

    Exit codes: 0 pass (inconclusive passes unless --strict), 1 a scalability bug,
    2 usage, config or input error, 3 a benchmark failed to execute.
    """
    from .app.check import CheckRequest, check
    from .app.settings import CheckFlags
    from .reporting import console

    flags = CheckFlags(expect, modeler, target, max_class, max_slowdown, confidence, strict)
    request = CheckRequest(current, baseline, config, flags, format, scaling, markdown, inclusive)
    outcome = check(request, measure)
    if as_json:
        console.print_document(outcome.report.to_json(), "kernels")
    else:
        console.print_check(outcome.report, outcome.current)
    code = outcome.exit_code()
    if code in (2, 3):  # an error exit says why on stderr too, whatever stdout holds
        console.print_error(_error_summary(outcome.report, code, outcome.current))
    raise typer.Exit(code)


@app.command("report")
def report_cmd(
    verdicts: o.Verdicts,
    markdown: o.ReportMarkdown = None,
    current: o.ReportCurrent = None,
    baseline: o.ReportBaseline = None,
) -> None:
    """Render a saved check again: the terminal table, or the markdown report.

    Nothing is measured or modelled again: the verdicts and models are the file's. Exit
    codes: 0 rendered, 2 a missing or invalid file.
    """
    from .app.report import report
    from .reporting import console

    outcome = report(verdicts, markdown, current, baseline)
    if outcome.written is None:
        console.print_check(outcome.report, outcome.current)
    else:
        console.out().print(f"perfguard report: wrote {outcome.written}", markup=False)


@app.command("predict")
def predict_cmd(
    inputs: o.PredictInputs = None,
    config: o.PredictConfig = None,
    at: o.At = _NONE,
    grid: o.Grid = _NONE,
    kernel: o.Kernels = _NONE,
    analytical: o.Analytical = _NONE,
    format: o.Format = None,
    seed: o.PredictSeed = 0,
    as_json: o.PredictionsJson = False,
) -> None:
    """Predict across the configuration space with a hybrid analytical + ML model.

    Extremely randomized trees (scikit-learn, pip install 'perfguard[ml]') learn from the
    measured configurations, stacked on the benchmark's analytical model (perfguard.yml's
    analytical: section) and bagged with it where it is representative. Prints each
    prediction with its spread, and how far the measurements depart from the analytical
    model. Exit codes: 0, 2 usage, config or input error, 3 a benchmark failed to execute.
    """
    from .app.predict import PredictRequest, predict, prepare
    from .reporting import console

    request = PredictRequest(inputs or [], config, at, grid, kernel, analytical, format, seed)
    plan = prepare(request, measure)
    with console.err().status("training the hybrid models") as status:
        outcome = predict(plan, lambda name: status.update(f"training the hybrid model of {name}"))
    console.print_notes([f"left out {why}" for why in outcome.skipped])
    if as_json:
        console.print_document(outcome.to_json())
    else:
        console.print_predictions(outcome.results, outcome.asked)
    raise typer.Exit(outcome.exit_code())


@app.command("init")
def init_cmd(
    directory: o.Directory = Path("."),
    force: o.Force = False,
    workflow: o.Workflow = "check",
    shards: o.Shards = None,
    action_ref: o.ActionRef = None,
) -> None:
    """Write a commented perfguard.yml and GitHub Actions workflow(s) for DIR.

    Detects pytest-benchmark and asv benchmarks by reading files; nothing is imported
    or run. Exit codes: 0 written, 2 a file already exists (pass --force) or DIR is not
    a folder.
    """
    from .app.init import init
    from .reporting import console

    console.print_init(init(directory, workflow, shards, action_ref, force))


@app.command("run")
def run_cmd(
    config: o.RunConfig = d.CONFIG_PATH,
    output: o.Output = d.MEASUREMENTS_PATH,
    budget: o.Budget = None,
    shard: o.Shard = None,
    benchmark: o.Benchmarks = _NONE,
    seed: o.RunSeed = None,
) -> None:
    """Measure the benchmarks of perfguard.yml at growing sizes, within a time budget.

    Exit codes: 0 measured, 2 config or usage error, 3 a benchmark failed to execute
    (the others are still measured and written), 130 interrupted (what was measured is
    written).
    """
    from .app.run import RunRequest, run
    from .reporting import console

    outcome = run(RunRequest(config, output, budget, shard, benchmark, seed), measure)
    console.print_run_summary(outcome.measurements, outcome.output)
    raise typer.Exit(outcome.exit_code())


@app.command("merge")
def merge_cmd(inputs: o.ShardFiles, output: o.MergeOutput, format: o.Format = None) -> None:
    """Join measurement files into one perfguard/measurements@1 file."""
    from .app.merge import merge
    from .reporting import console

    outcome = merge(tuple(inputs), output, format)
    console.print_notes(outcome.notes)
    console.err().print(outcome.sentence(), markup=False)


@app.command("history")
def history_cmd(
    kernel: o.KernelGlob = None,
    db: o.Db = d.HISTORY_PATH,
    metric: o.Metric = None,
    limit: o.HistoryLimit = d.HISTORY_ROWS,
) -> None:
    """Each kernel's class, verdict and predicted value over the recorded commits."""
    from .app.history import timeline
    from .reporting import console

    console.print_timeline(db, timeline(db, kernel, metric, limit))


@app.command("site")
def site_cmd(
    db: o.Db = d.HISTORY_PATH,
    *,
    output: o.SiteOutput,
    branch: o.Branch = None,
    limit: o.SiteLimit = d.SITE_RUNS,
    repo_url: o.RepoUrl = None,
    title: o.Title = "perfguard history",
) -> None:
    """A static site of the history: every kernel's class, verdict and models over commits.

    Plain HTML and inline SVG, no script and no request outside the folder: it opens from
    GitHub Pages, an artifact or file://. Exit codes: 0 written, 2 a bad history, branch
    or output folder (nothing is changed).
    """
    from .site.build import SiteOptions, build_site

    options = SiteOptions(branch=branch, limit=limit, repo_url=repo_url, title=title)
    typer.echo(build_site(db, output, options).sentence())


@app.command("ci")
def ci_cmd(
    config: o.CiConfig = d.CONFIG_PATH,
    baseline: o.CiBaseline = None,
    baseline_ref: o.BaselineRef = None,
    baseline_commit: o.BaselineCommit = None,
    comment: o.Comment = "always",
    fail_on: o.FailOn = "any",
    db: o.CiDb = d.HISTORY_PATH,
    store: o.Store = True,
    measurements: o.Measurements = None,
    strict: o.CiStrict = False,
    publish: o.Publish = None,
) -> None:
    """Run, check, report, comment and store: perfguard's whole job in a CI step.

    In GitHub Actions it writes the job summary, step outputs and ::error annotations
    and upserts one pull-request comment. Exit codes: 0 pass, 1 a scalability bug of
    the kind --fail-on names, 2 usage/config/input error, 3 a benchmark failed to run,
    130 interrupted.
    """
    from .app import ci as app_ci
    from .github import actions_context
    from .reporting import console

    context = actions_context(os.environ)
    if publish is not None:
        console.out().print(app_ci.publish(publish, context, os.environ, comment), markup=False)
        return
    options = app_ci.CiOptions(
        config, comment, fail_on, baseline, baseline_ref, baseline_commit, db, store,
        measurements, strict,
    )  # fmt: skip
    services = app_ci.CiServices(
        measure, os.environ, context, print, complain=lambda line: print(line, file=sys.stderr)
    )
    outcome = app_ci.ci(options, services)
    console.print_check(outcome.report, outcome.current)
    console.out().print(f"perfguard ci: report in {outcome.markdown}", markup=False)
    raise typer.Exit(outcome.exit_code())


def _error_summary(report: CheckReport, code: int, current: MeasurementSet | None = None) -> str:
    """One stderr line for a check that exits 2 or 3: which kernels, where to read why."""
    from . import numbers

    errors = list(dict.fromkeys(v.kernel for v in report.verdicts if v.verdict == "error"))
    what = "did not run to the end" if code == 3 else "could not be judged"
    endings = {e.ending() for e in current.run.errors} if current is not None else set()
    if code == 3 and len(endings) == 1:  # all alike: say how (a size limit is no crash)
        what = endings.pop()
    if not errors:
        return f"a benchmark {what} (see the notes in the report)"
    shown = ", ".join(errors[:5]) + (f" and {len(errors) - 5} more" if len(errors) > 5 else "")
    counted = numbers.counted(len(errors), "kernel")
    return f"{counted} {what}: {shown} (see their reasons in the report)"


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning perfguard errors into one line and an exit code."""
    import warnings

    # numpy's floating-point notices (an overflow in a far extrapolation) are not messages
    # for a user: what they mean reaches the output as a skipped kernel or a null
    warnings.filterwarnings(
        "ignore",
        message=r"(overflow|invalid value|divide by zero|underflow) encountered",
        category=RuntimeWarning,
    )
    try:
        code = app(args=argv, prog_name="perfguard", standalone_mode=False)
        if code == 130 and argv is None:
            _calm()
    except PerfguardError as exc:
        if o.state["debug"]:
            raise
        from .reporting.console import print_error

        print_error(exc.one_line())
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        from .reporting.console import print_aborted

        if argv is None:  # the process's own command line: it ends here
            _calm()
        print_aborted()
        return 130
    except Exception as exc:  # click's usage errors, by name: typer vendors click since 0.23
        if not any(cls.__name__ == "ClickException" for cls in type(exc).__mro__):
            raise
        from .reporting.console import print_error

        if type(exc).__name__ == "NoArgsIsHelpError":  # bare `perfguard`: the help, as is
            sys.stderr.write(exc.format_message() + "\n")  # type: ignore[attr-defined]
            return 2
        # one line like every other error, with where to look (click printed three)
        context = getattr(exc, "ctx", None)
        command = getattr(context, "command_path", None) or _command_path(argv)
        print_error(f"{exc.format_message()} (see {command} --help)")  # type: ignore[attr-defined]
        return 2
    return code if isinstance(code, int) else 0


def _calm() -> None:
    """Once an interrupt was handled, a further Ctrl-C while the process exits is ignored: it
    turned exit 130 into a death by SIGINT (or a traceback) when it came during teardown."""
    import signal

    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except ValueError:  # not the main thread (an embedding caller): nothing to calm
        pass


def _command_path(argv: list[str] | None) -> str:
    """``perfguard VERB`` for the verb the arguments name (typer's parse errors carry no
    context), else ``perfguard``."""
    import typer.main

    args = sys.argv[1:] if argv is None else argv
    verb = next((a for a in args if not a.startswith("-")), None)
    verbs = getattr(typer.main.get_command(app), "commands", {})
    return f"perfguard {verb}" if verb in verbs else "perfguard"


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
