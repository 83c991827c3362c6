"""The ``perfguard`` command line: the only module that prints, reads argv and picks exit codes."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.console import Console
from rich.table import Table

from . import __version__
from . import formats as formats_mod
from .errors import ModelingError, PerfguardError, UsageError
from .modeling import MODELERS, ModelingResult, get_modeler, model_measurements
from .modeling.pmnf import MODELS_SCHEMA

__all__ = ["app", "main"]

app = typer.Typer(
    name="perfguard",
    help="Catch scalability bugs before they merge: fit empirical performance models "
    "(PMNF) to benchmark measurements and check their asymptotic class.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
_state: dict[str, bool] = {"debug": False}


def _version(value: bool) -> None:
    if value:
        typer.echo(f"perfguard {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    debug: bool = typer.Option(False, "--debug", help="Show tracebacks for errors."),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    _state["debug"] = debug


@app.command("model")
def model_cmd(
    inputs: list[Path] = typer.Argument(
        ..., help="Measurement files (format auto-detected).", show_default=False
    ),
    format: str | None = typer.Option(
        None, "--format", "-f", help=f"Force the input format: {', '.join(formats_mod.names())}."
    ),
    modeler: str = typer.Option(
        "default", "--modeler", "-m", help=f"Modeler: {', '.join(MODELERS)}."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print perfguard/models@1 JSON."),
) -> None:
    """Fit a PMNF model to every kernel and metric and print them."""
    impl = get_modeler(modeler)  # fail on a bad option before reading anything
    if format is not None and format not in formats_mod.names():
        raise UsageError(
            f"unknown format {format!r}; choose one of: {', '.join(formats_mod.names())}"
        )
    results = []
    for path in inputs:
        mset = formats_mod.load(path, format)
        results.append((str(path), model_measurements(mset, impl)))
    _report_skipped(results)
    if not any(r.models for _, r in results):
        raise ModelingError("no kernel could be modelled (see the reasons above)")
    if as_json:
        sys.stdout.write(json.dumps(_models_json(results), indent=1, ensure_ascii=False) + "\n")
    else:
        _print_models_table(results)


def _models_json(results: list[tuple[str, ModelingResult]]) -> dict[str, Any]:
    models = []
    skipped = []
    for path, result in results:
        models += [{**m.to_json(), "input": path} for m in result.models]
        skipped += [
            {"kernel": s.kernel, "metric": s.metric, "reasons": list(s.reasons), "input": path}
            for s in result.skipped
        ]
    return {"schema": MODELS_SCHEMA, "models": models, "skipped": skipped}


def _report_skipped(results: list[tuple[str, ModelingResult]]) -> None:
    err = Console(stderr=True, highlight=False)
    for path, result in results:
        for s in result.skipped:
            err.print(
                f"[yellow]skipped[/] {path}: kernel {s.kernel!r} metric {s.metric!r}: "
                + "; ".join(s.reasons),
                markup=True,
                soft_wrap=True,
            )


def _print_models_table(results: list[tuple[str, ModelingResult]]) -> None:
    console = Console(highlight=False)
    multiple = len(results) > 1
    table = Table(show_lines=False, header_style="bold")
    if multiple:
        table.add_column("input")
    for col in ("kernel", "metric", "model", "complexity"):
        table.add_column(col, overflow="fold")
    table.add_column("SMAPE %", justify="right")
    table.add_column("noise", justify="right")
    for path, result in results:
        for m in result.models:
            noise = "-" if m.noise is None else f"{m.noise * 100:.1f}%"
            row = [m.kernel, m.metric, m.formula(), m.complexity(), f"{m.smape:.2f}", noise]
            table.add_row(*([path] if multiple else []), *row)
    console.print(table)


def main(argv: list[str] | None = None) -> int:
    """Entry point: run the app, turning perfguard errors into one line and an exit code."""
    try:
        app(args=argv, prog_name="perfguard", standalone_mode=False)
    except PerfguardError as exc:
        if _state["debug"]:
            raise
        Console(stderr=True, highlight=False).print(
            f"[red]perfguard: error:[/] {exc}", soft_wrap=True
        )
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        Console(stderr=True).print("[red]perfguard: aborted[/]")
        return 130
    except Exception as exc:  # click's usage errors
        import click

        if isinstance(exc, click.exceptions.ClickException):
            exc.show()
            return 2
        raise
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
