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
    predict: str | None = typer.Option(
        None,
        "--predict",
        "-p",
        help="Predict every single-parameter model at this size (e.g. 4096 or n=4096), "
        "with an interval.",
        show_default=False,
    ),
    level: float = typer.Option(0.9, "--level", help="Coverage of the prediction interval."),
    as_json: bool = typer.Option(False, "--json", help="Print perfguard/models@1 JSON."),
) -> None:
    """Fit a PMNF model to every kernel and metric and print them."""
    impl = get_modeler(modeler)  # fail on a bad option before reading anything
    if format is not None and format not in formats_mod.names():
        raise UsageError(
            f"unknown format {format!r}; choose one of: {', '.join(formats_mod.names())}"
        )
    if not 0 < level < 1:
        raise UsageError(f"--level must lie between 0 and 1, got {level}")
    name, at = _parse_predict(predict)
    results = []
    label: str | None = None
    for path in inputs:
        mset = formats_mod.load(path, format)
        if name is not None and mset.parameters != (name,):
            raise UsageError(
                f"--predict names {name!r} but {path} has parameters {', '.join(mset.parameters)}"
            )
        label = label or (None if at is None else f"{name or mset.parameters[0]}={at:g}")
        results.append((str(path), model_measurements(mset, impl, predict_at=at, level=level)))
    _report_skipped(results)
    if not any(r.models for _, r in results):
        raise ModelingError("no kernel could be modelled (see the reasons above)")
    if as_json:
        sys.stdout.write(json.dumps(_models_json(results), indent=1, ensure_ascii=False) + "\n")
    else:
        _print_models_table(results, label)
        _print_advice(results)


def _parse_predict(text: str | None) -> tuple[str | None, float | None]:
    """``4096`` or ``n=4096`` -> (parameter name or None, positive value)."""
    if text is None:
        return None, None
    name, _, value = text.rpartition("=")
    try:
        at = float(value)
    except ValueError:
        at = float("nan")
    if not at > 0 or at == float("inf"):
        raise UsageError(f"--predict wants a positive size such as 4096 or n=4096, got {text!r}")
    return (name.strip() or None), at


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


def _print_models_table(results: list[tuple[str, ModelingResult]], predicted: str | None) -> None:
    console = Console(highlight=False)
    multiple = len(results) > 1
    table = Table(show_lines=False, header_style="bold")
    if multiple:
        table.add_column("input")
    for col in ("kernel", "metric", "model", "complexity"):
        table.add_column(col, overflow="fold")
    table.add_column("SMAPE %", justify="right")
    table.add_column("noise", justify="right")
    table.add_column("sure", justify="right")
    if predicted:
        table.add_column(f"{predicted} ({_level_of(results):.0%})", justify="right")
    for path, result in results:
        for m in result.models:
            noise = "-" if m.noise is None else f"{m.noise * 100:.1f}%"
            row = [m.kernel, m.metric, m.formula(), m.complexity(), f"{m.smape:.2f}", noise]
            conf = m.extra("confidence")
            row.append("-" if conf is None else f"{conf['probability']:.0%}")
            if predicted:
                row.append(_prediction_text(m.extra("prediction")))
            table.add_row(*([path] if multiple else []), *row)
    console.print(table)


def _prediction_text(pred: dict[str, Any] | None) -> str:
    if pred is None:
        return "-"
    return f"{pred['value']:.3g} [{pred['low']:.3g}, {pred['high']:.3g}]"


def _level_of(results: list[tuple[str, ModelingResult]]) -> float:
    for _, result in results:
        for m in result.models:
            if "prediction" in m.extras:
                return float(m.extra("prediction")["level"])
    return 0.9


UNSURE = 0.8  # below this class probability, say what would settle it
NOISY = 0.2  # a robust noise band wider than this is worth a warning on its own


def _print_advice(results: list[tuple[str, ModelingResult]]) -> None:
    """One line per model whose class is unsure or whose noise is high, saying what to do."""
    err = Console(stderr=True, highlight=False)
    for _, result in results:
        for m in result.models:
            line = _advice(m.kernel, m.complexity(), m.extra("confidence"), m.extra("noise_detail"))
            if line:
                err.print(f"[yellow]note[/] {line}", soft_wrap=True)
            for seg in m.extra("segments") or []:
                err.print(
                    f"[yellow]note[/] {m.kernel}: {seg['sentence']}; one model over the whole "
                    "range misleads: model each side separately or measure past the change",
                    soft_wrap=True,
                )
            drift = m.extra("drift")
            if drift is not None:
                ((name, at),) = drift["at"].items()
                err.print(
                    f"[yellow]note[/] {m.kernel}: the medians at {name}={at:g} are "
                    f"{drift['deviation']:+.0%} off the model while the other sizes fit; "
                    "re-measure that size",
                    soft_wrap=True,
                )


def _advice(
    kernel: str, complexity: str, conf: dict[str, Any] | None, detail: dict[str, Any] | None
) -> str | None:
    detail = detail or {}
    noise = detail.get("robust")
    noisy = noise is not None and noise > NOISY
    unsure = conf is not None and conf["probability"] < UNSURE
    if not (noisy or unsure):
        return None
    parts = [f"{kernel}:"]
    if unsure:
        others = [
            f"{c['complexity']} {c['probability']:.0%}"
            for c in conf["classes"]
            if c["complexity"] != complexity
        ][:3]
        parts.append(f"{complexity} is only {conf['probability']:.0%} likely")
        if others:
            parts.append(f"({', '.join(others)});")
    if noisy:
        worst = max(
            (p for p in detail.get("points", []) if p["spread"] is not None),
            key=lambda p: p["spread"],
            default=None,
        )
        where = ""
        if worst is not None:
            ((name, at),) = worst["at"].items()
            where = f", worst at {name}={at:g} ({worst['spread']:.0%})"
        parts.append(f"noise is {noise:.0%}{where};")
    parts.append(
        "raise the repetitions (4x halves the noise of the medians), quiet the machine, "
        "or measure a wider range of sizes"
    )
    return " ".join(parts)


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
