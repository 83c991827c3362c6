"""Run Extra-P's single-parameter modelers on an Extra-P text file and dump the models as JSON.

This script is run with the *Extra-P* virtualenv's interpreter; it imports ``extrap`` and never
``guard`` (Extra-P must not become a perfguard dependency)::

    /work/extrap-venv/bin/python benchmarks/extrap_runner.py INPUT.txt \
        --modeler default|refining [--eval-x 128] --out RESULT.json [--disable-progress]

It mirrors what ``extrap --text INPUT.txt --modeler NAME`` does (extrap/extrap/extrapcmd.py, main):

* reading: ``TextFileReader()`` with ``keep_values = False`` (the CLI's ``--keep-values``
  default), ``read_experiment(path, pbar)`` inside ``ProgressBar(desc='Loading file')``;
* modeling: ``ModelGenerator(experiment, modeler=NAME, name='New model',
  use_measure=Measure.MEAN)`` (CLI defaults for ``--model-set-name`` and ``--measure``), no
  modeler options (``--options`` default is ``{}``), models generated inside
  ``ProgressBar(desc='Generating models')``; the progress bars are *enabled* by default as in the
  CLI (``--disable-progress`` turns them off, as in the CLI).
  Both selectable modelers are ``SingularModeler``s, whose ``model()`` is a plain serial loop
  ``[self.create_model(m) for m in progress_bar(measurements)]`` -- no multiprocessing.  We run
  that same loop ourselves, but with a try/except around each ``create_model`` so one failing
  kernel yields an ``"error"`` entry instead of aborting the run, then store the models in the
  generator and attach it to the experiment exactly like ``ModelGenerator.model_all`` does.

Timings (``time.perf_counter``): ``read_seconds`` covers ``read_experiment`` only; ``model_seconds``
covers the modeling loop only (no file reading, no JSON/result extraction).
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import sys
import time
import traceback
from fractions import Fraction

import extrap
from extrap.entities.measurement import Measure
from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers.abstract_modeler import SingularModeler
from extrap.modelers.model_generator import ModelGenerator
from extrap.util.progress_bar import ProgressBar

MODELERS = ("default", "refining")


def _frac(value) -> str:
    """Exponent (float / Extra-P Fraction / int) as an exact fraction string, e.g. '3/2', '0'."""
    return str(Fraction(float(value)).limit_denominator(12))


def _num(value):
    """JSON-safe float (non-finite -> None)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def _term_exponents(term) -> tuple[float, float]:
    """(alpha, beta) of an Extra-P CompoundTerm: x^alpha * log2(x)^beta."""
    alpha = 0.0
    beta = 0.0
    for simple in term.simple_terms:
        if simple.term_type == "polynomial":
            alpha += float(simple.exponent)
        elif simple.term_type == "logarithm":
            beta += float(simple.exponent)
        else:  # pragma: no cover - Extra-P has only these two simple-term types
            raise ValueError(f"unknown simple term type {simple.term_type!r}")
    return alpha, beta


def describe_model(model, parameters, eval_x: float) -> dict:
    """Formula, prediction at eval_x, all terms and the lead-order term of one Extra-P model."""
    function = model.hypothesis.function
    terms = []
    lead = None  # (contribution, alpha, beta)
    for term in function.compound_terms:
        alpha, beta = _term_exponents(term)
        coefficient = float(term.coefficient)
        contribution = abs(coefficient * eval_x**alpha * math.log2(eval_x) ** beta)
        terms.append({"coefficient": _num(coefficient), "alpha": _frac(alpha), "beta": _frac(beta)})
        if lead is None or contribution > lead[0]:
            lead = (contribution, alpha, beta)
    if lead is None:  # constant model
        lead_alpha, lead_beta = "0", "0"
    else:
        lead_alpha, lead_beta = _frac(lead[1]), _frac(lead[2])
    hypothesis = model.hypothesis
    return {
        "lead_alpha": lead_alpha,
        "lead_beta": lead_beta,
        "prediction": _num(function.evaluate(eval_x)),
        # the string `extrap --print all` shows after "Model: "
        "formula": function.to_string(*parameters),
        "constant": _num(function.constant_coefficient),
        "terms": terms,
        "smape": _num(getattr(hypothesis, "SMAPE", None)),
        "rss": _num(getattr(hypothesis, "RSS", None)),
        "ar2": _num(getattr(hypothesis, "AR2", None)),
    }


def run(
    path: str,
    modeler_name: str,
    eval_x: float,
    disable_progress: bool = False,
    warmup: bool = False,
) -> dict:
    result: dict = {
        "modeler": modeler_name,
        "extrap_version": extrap.__version__,
        "input": path,
        "eval_x": eval_x,
        "progress_bars": not disable_progress,
        "warmup": warmup,
        "read_seconds": None,
        "model_seconds": None,
        "kernels": [],
    }

    # ---- read (as the CLI does for --text) -------------------------------------------------------
    reader = TextFileReader()
    reader.keep_values = False  # CLI default (--keep-values not given)
    with ProgressBar(desc="Loading file", disable=disable_progress) as pbar:
        t0 = time.perf_counter()
        experiment = reader.read_experiment(path, pbar)
        result["read_seconds"] = time.perf_counter() - t0
    experiment.debug()  # the CLI calls this too; a no-op unless log level is debug

    if len(experiment.parameters) != 1:
        raise ValueError(
            f"expected a single-parameter experiment, got {len(experiment.parameters)} parameters"
        )

    # ---- model (ModelGenerator constructed exactly like extrapcmd.main) --------------------------
    generator = ModelGenerator(
        experiment, modeler=modeler_name, name="New model", use_measure=Measure.from_str("mean")
    )
    modeler = generator.modeler
    if not isinstance(modeler, SingularModeler):  # pragma: no cover - default/refining are singular
        raise TypeError(f"modeler {modeler_name!r} is not a SingularModeler")
    result["modeler_class"] = type(modeler).__name__

    if warmup:
        # Extra-P imports scipy.optimize lazily inside the first fit (~0.3 s); the CLI pays that
        # inside its modeling step, so this is off by default.
        import scipy.optimize  # noqa: F401

    keys = list(experiment.measurements.keys())
    series = list(experiment.measurements.values())
    models: list = [None] * len(series)
    errors: list = [None] * len(series)
    seconds: list = [0.0] * len(series)
    with ProgressBar(desc="Generating models", disable=disable_progress) as pbar:
        t0 = time.perf_counter()
        for i, measurements in enumerate(pbar(series)):
            t_k = time.perf_counter()
            try:
                models[i] = modeler.create_model(measurements)
            except Exception as exc:  # noqa: BLE001 - one bad kernel must not kill the run
                errors[i] = f"{type(exc).__name__}: {exc}"
                logging.debug("modeling %s failed:\n%s", keys[i], traceback.format_exc())
            seconds[i] = time.perf_counter() - t_k
        result["model_seconds"] = time.perf_counter() - t0

    # bookkeeping of ModelGenerator.model_all (outside the timed section)
    generator.models = {k: m for k, m in zip(keys, models) if m is not None}
    for (callpath, metric), model in generator.models.items():
        model.callpath = callpath
        model.metric = metric
        model.measurements = experiment.measurements[(callpath, metric)]
    experiment.add_modeler(generator)

    # ---- results ---------------------------------------------------------------------------------
    for (callpath, metric), model, error, secs in zip(keys, models, errors, seconds):
        entry = {"name": callpath.name, "metric": metric.name, "model_seconds": secs}
        if error is None:
            try:
                entry.update(describe_model(model, experiment.parameters, eval_x))
            except Exception as exc:  # noqa: BLE001
                error = f"{type(exc).__name__} while describing model: {exc}"
        if error is not None:
            entry["error"] = error
        result["kernels"].append(entry)
    result["n_kernels"] = len(result["kernels"])
    result["n_errors"] = sum(1 for k in result["kernels"] if "error" in k)
    return result


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("input", help="Extra-P text file (PARAMETER/POINTS/METRIC/REGION/DATA)")
    parser.add_argument("--modeler", choices=MODELERS, default="default", type=str.lower)
    parser.add_argument(
        "--eval-x",
        type=float,
        default=128.0,
        help="x at which the prediction and the lead-order term are evaluated",
    )
    parser.add_argument("--out", required=True, help="result JSON path")
    parser.add_argument(
        "--disable-progress",
        action="store_true",
        help="disable Extra-P's tqdm progress bars (the CLI shows them by default)",
    )
    parser.add_argument(
        "--warmup",
        action="store_true",
        help="import scipy.optimize before the timed modeling step (Extra-P "
        "imports it lazily in the first fit; off by default, like the CLI)",
    )
    parser.add_argument(
        "--log", default="warning", choices=["debug", "info", "warning", "error", "critical"]
    )
    args = parser.parse_args(argv)

    # same logging setup as the CLI at its default level
    logging.basicConfig(
        format="%(levelname)s: %(message)s", level=logging.getLevelName(args.log.upper())
    )
    if args.eval_x <= 0:
        parser.error("--eval-x must be positive")

    try:
        result = run(args.input, args.modeler, args.eval_x, args.disable_progress, args.warmup)
        status = 0
    except Exception as exc:  # noqa: BLE001 - whole-file failure (unreadable/invalid input)
        result = {
            "modeler": args.modeler,
            "extrap_version": extrap.__version__,
            "input": args.input,
            "eval_x": args.eval_x,
            "read_seconds": None,
            "model_seconds": None,
            "kernels": [],
            "error": f"{type(exc).__name__}: {exc}",
        }
        traceback.print_exc()
        status = 1

    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1, allow_nan=False)
    if status == 0:
        print(
            f"{result['n_kernels']} kernels ({result['n_errors']} errors) with extrap "
            f"{result['extrap_version']} {args.modeler}: read {result['read_seconds']:.3f}s, "
            f"model {result['model_seconds']:.3f}s -> {args.out}",
            file=sys.stderr,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
