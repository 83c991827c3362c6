"""Run Extra-P's modelers on an Extra-P text file and dump the models as JSON.

This script is run with the *Extra-P* virtualenv's interpreter; it imports ``extrap`` and never
``guard`` (Extra-P must not become a perfguard dependency)::

    /work/extrap-venv/bin/python benchmarks/extrap_runner.py INPUT.txt [INPUT2.txt ...] \
        --modeler default|refining|adaptive [--measure mean|median] [--preset 0] [--seed N] \
        [--eval-x 128] --out RESULT.json [--out RESULT2.json ...] [--disable-progress]

Several inputs (one ``--out`` each) are modeled one after the other in one process, each as if
by its own ``extrap`` run: the adaptive modeler's cache of retrained networks (a class attribute
keyed by the x values) is emptied before every input, so every file pays its own retraining;
only the one-off imports (TensorFlow) are shared.  ``--keep-networks`` keeps the cache instead,
as one long Extra-P session would: inputs with the same x values then reuse the network the
first of them retrained (``retrained`` in the result says whether an input retrained).

It mirrors what ``extrap --text INPUT.txt --modeler NAME`` does (extrap/extrap/extrapcmd.py, main):

* reading: ``TextFileReader()`` with ``keep_values = False`` (the CLI's ``--keep-values``
  default), ``read_experiment(path, pbar)`` inside ``ProgressBar(desc='Loading file')``;
* modeling, one parameter: the single-parameter modeler NAME (``Default``, ``Refining`` or
  ``Adaptive`` -- the last needs ``extrap_adaptive_modeler`` and TensorFlow, and retrains its
  network once per distinct set of x values in the process, i.e. once per file here);
* modeling, several parameters: Extra-P's multi-parameter modeler (what ``ModelGenerator``
  picks for ``--modeler Default``) with NAME as its single-parameter modeler, like
  ``extrap --modeler Default --options '#spm=NAME'``;
* ``ModelGenerator(experiment, modeler=<that object>, name='New model', use_measure=MEASURE)``
  -- passing the object makes ``ModelGenerator`` set the measure on the modeler and, for the
  multi-parameter one, on its single-parameter modeler too (the CLI, which swaps in the
  single-parameter modeler afterwards, would leave that one on the mean).  The default measure
  is the CLI's ``mean``; seed 004's protocol uses ``median``.  No other modeler options (the
  adaptive modeler's ``--preset``, default 0, is its own default).  Models are generated inside
  ``ProgressBar(desc='Generating models')``; the progress bars are *enabled* by default as in
  the CLI (``--disable-progress`` turns them off, as in the CLI).

``SingularModeler``s (default, refining, the multi-parameter modeler) model in a plain serial
loop ``[self.create_model(m) for m in progress_bar(measurements)]`` -- no multiprocessing.  We
run that same loop ourselves, but with a try/except around each ``create_model`` so one failing
kernel yields an ``"error"`` entry instead of aborting the run.  The adaptive single-parameter
modeler models the whole list at once (batched network inference); should that raise, every
kernel is modeled again on its own so only the failing ones become errors.  The models are then
stored in the generator and attached to the experiment exactly like
``ModelGenerator.model_all`` does.

``--seed`` seeds Python's ``random``, NumPy's global generator and (adaptive only) TensorFlow
before modeling each input -- with a seed derived from ``--seed`` and the input's file name, so
files get independent retraining sets and the result does not depend on how files are batched.

Timings (``time.perf_counter``): ``read_seconds`` covers ``read_experiment`` only;
``model_seconds`` covers the modeling step only (no file reading, no JSON/result extraction),
including the adaptive modeler's retraining but not the TensorFlow import (paid by the first
input of a process), which is reported as ``setup_seconds``.

Each kernel's entry lists the model's ``constant`` and ``terms``; a term is a coefficient and
one factor ``{parameter, alpha, beta}`` (``x^alpha * log2(x)^beta``) per parameter it depends
on, with the coefficients of Extra-P's nested terms multiplied into the term's coefficient.
Single-parameter terms also carry ``alpha``/``beta`` directly, and single-parameter models the
lead-order term at ``--eval-x`` (``lead_alpha``/``lead_beta``); ``prediction`` is the model's
value with every parameter at ``--eval-x``.
"""

from __future__ import annotations

import argparse
import json
import logging
import math
import random
import sys
import time
import traceback
import zlib
from fractions import Fraction
from pathlib import Path

import extrap
import numpy as np
from extrap.entities.measurement import Measure
from extrap.entities.terms import MultiParameterTerm
from extrap.fileio.file_reader.text_file_reader import TextFileReader
from extrap.modelers import multi_parameter, single_parameter
from extrap.modelers.abstract_modeler import SingularModeler
from extrap.modelers.model_generator import ModelGenerator
from extrap.util.progress_bar import ProgressBar

# our name -> Extra-P's single-parameter modeler name
MODELERS = {"default": "Default", "refining": "Refining", "adaptive": "Adaptive"}
MEASURES = ("mean", "median")


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


def _factor(parameter, compound) -> dict:
    alpha, beta = _term_exponents(compound)
    return {"parameter": str(parameter), "alpha": _frac(alpha), "beta": _frac(beta)}


def _flat_term(term, parameters) -> tuple[float, list[dict]]:
    """(coefficient, factors) of a single- or multi-parameter Extra-P term.

    A MultiParameterTerm's value is its coefficient times the product of its compound terms'
    values, each of which carries a coefficient of its own (usually 1 after Extra-P's
    reset_coefficients); all of them are multiplied into one coefficient.
    """
    if isinstance(term, MultiParameterTerm):
        coefficient = float(term.coefficient)
        factors = []
        for index, compound in term.parameter_term_pairs:
            coefficient *= float(compound.coefficient)
            factors.append(_factor(parameters[index], compound))
        return coefficient, factors
    if len(parameters) != 1:
        raise TypeError(f"{type(term).__name__} in a {len(parameters)}-parameter model")
    return float(term.coefficient), [_factor(parameters[0], term)]


def describe_model(model, parameters, eval_x: float) -> dict:
    """Formula, prediction at eval_x, all terms and (one parameter) the lead-order term."""
    function = model.hypothesis.function
    single = len(parameters) == 1
    terms = []
    lead = None  # (contribution, alpha, beta), single-parameter models only
    for term in function.compound_terms:
        coefficient, factors = _flat_term(term, parameters)
        entry = {"coefficient": _num(coefficient), "factors": factors}
        if single:
            alpha, beta = _term_exponents(term)
            entry.update(alpha=_frac(alpha), beta=_frac(beta))
            contribution = abs(coefficient * eval_x**alpha * math.log2(eval_x) ** beta)
            if lead is None or contribution > lead[0]:
                lead = (contribution, alpha, beta)
        terms.append(entry)
    out: dict = {}
    if single:
        if lead is None:  # constant model
            out.update(lead_alpha="0", lead_beta="0")
        else:
            out.update(lead_alpha=_frac(lead[1]), lead_beta=_frac(lead[2]))
    point = eval_x if single else tuple([eval_x] * len(parameters))
    hypothesis = model.hypothesis
    out.update(
        {
            "prediction": _num(function.evaluate(point)),
            # the string `extrap --print all` shows after "Model: "
            "formula": function.to_string(*parameters),
            "constant": _num(function.constant_coefficient),
            "terms": terms,
            "smape": _num(getattr(hypothesis, "SMAPE", None)),
            "rss": _num(getattr(hypothesis, "RSS", None)),
            "ar2": _num(getattr(hypothesis, "AR2", None)),
        }
    )
    return out


def make_modeler(modeler_name: str, n_parameters: int, preset: int | None):
    """The modeler object: NAME itself, or Extra-P's multi-parameter modeler around it."""
    single = single_parameter.all_modelers[MODELERS[modeler_name]]()
    if preset is not None:
        if not hasattr(single, "preset"):
            raise ValueError(f"--preset applies to the adaptive modeler, not {modeler_name!r}")
        single.preset = preset
    if n_parameters == 1:
        return single
    multi = multi_parameter.all_modelers["Default"]()
    multi.single_parameter_modeler = single
    return multi


def file_seed(seed: int, path: str) -> int:
    """A per-input seed from --seed and the file name (not its position in the batch)."""
    return (seed * 1_000_003 + zlib.crc32(Path(path).name.encode())) % 2**32


def _network_cache() -> dict:
    from extrap.modelers.single_parameter.adaptive import AdaptiveModeler

    return AdaptiveModeler._cached_mlmodels  # class-level: shared by every instance


def prepare_adaptive(seed: int | None, keep_networks: bool) -> None:
    """Import TensorFlow, forget networks retrained for earlier inputs, seed the generators."""
    from extrap_adaptive_modeler.lazy_tensorflow import load_tensorflow

    tf = load_tensorflow()
    if not keep_networks:
        _network_cache().clear()
        tf.keras.backend.clear_session()
    if seed is not None:
        tf.keras.utils.set_random_seed(seed)  # also seeds random and numpy.random


def seed_everything(seed: int) -> None:
    """Seed the global generators Extra-P's modelers might draw from."""
    random.seed(seed)
    np.random.seed(seed)


def _model_singular(modeler, series, keys, pbar):
    """Extra-P's serial loop, one try/except per kernel."""
    models: list = [None] * len(series)
    errors: list = [None] * len(series)
    seconds: list = [0.0] * len(series)
    for i, measurements in enumerate(pbar(series)):
        t_k = time.perf_counter()
        try:
            models[i] = modeler.create_model(measurements)
        except Exception as exc:  # noqa: BLE001 - one bad kernel must not kill the run
            errors[i] = f"{type(exc).__name__}: {exc}"
            logging.debug("modeling %s failed:\n%s", keys[i], traceback.format_exc())
        seconds[i] = time.perf_counter() - t_k
    return models, errors, seconds


def _model_batch(modeler, series, keys, pbar):
    """One ``model()`` call for all kernels; kernel by kernel only if that call fails."""
    try:
        models = list(modeler.model(series, pbar))
        if len(models) != len(series):
            raise RuntimeError(f"{len(models)} models for {len(series)} kernels")
        return models, [None] * len(series), [None] * len(series)
    except Exception:  # noqa: BLE001 - retried kernel by kernel below
        logging.warning("batched modeling failed, retrying kernel by kernel", exc_info=True)
    models: list = [None] * len(series)
    errors: list = [None] * len(series)
    seconds: list = [0.0] * len(series)
    for i, measurements in enumerate(series):
        t_k = time.perf_counter()
        try:
            models[i] = modeler.model([measurements])[0]
        except Exception as exc:  # noqa: BLE001 - one bad kernel must not kill the run
            errors[i] = f"{type(exc).__name__}: {exc}"
            logging.debug("modeling %s failed:\n%s", keys[i], traceback.format_exc())
        seconds[i] = time.perf_counter() - t_k
    return models, errors, seconds


def run(
    path: str,
    modeler_name: str,
    eval_x: float,
    disable_progress: bool = False,
    warmup: bool = False,
    measure: str = "mean",
    preset: int | None = None,
    seed: int | None = None,
    keep_networks: bool = False,
) -> dict:
    result: dict = {
        "modeler": modeler_name,
        "extrap_version": extrap.__version__,
        "input": path,
        "eval_x": eval_x,
        "measure": measure,
        "preset": preset,
        "seed": seed,
        "progress_bars": not disable_progress,
        "warmup": warmup,
        "read_seconds": None,
        "setup_seconds": 0.0,
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
    parameters = [str(p) for p in experiment.parameters]
    result["parameters"] = parameters

    # ---- model (ModelGenerator constructed like extrapcmd.main) ----------------------------------
    generator = ModelGenerator(
        experiment,
        modeler=make_modeler(modeler_name, len(parameters), preset),
        name="New model",
        use_measure=Measure.from_str(measure),
    )
    modeler = generator.modeler
    result["modeler_class"] = type(modeler).__name__
    inner = getattr(modeler, "single_parameter_modeler", None)
    if inner is not None:
        result["single_parameter_modeler_class"] = type(inner).__name__

    t0 = time.perf_counter()
    seed = None if seed is None else file_seed(seed, path)
    result["file_seed"] = seed
    if seed is not None:
        seed_everything(seed)
    if modeler_name == "adaptive":
        prepare_adaptive(seed, keep_networks)
    if warmup:
        # Extra-P imports scipy.optimize lazily inside the first fit (~0.3 s); the CLI pays that
        # inside its modeling step, so this is off by default.
        import scipy.optimize  # noqa: F401
    result["setup_seconds"] = time.perf_counter() - t0

    keys = list(experiment.measurements.keys())
    series = list(experiment.measurements.values())
    model_step = _model_singular if isinstance(modeler, SingularModeler) else _model_batch
    networks_before = len(_network_cache()) if modeler_name == "adaptive" else 0
    with ProgressBar(desc="Generating models", disable=disable_progress) as pbar:
        t0 = time.perf_counter()
        models, errors, seconds = model_step(modeler, series, keys, pbar)
        result["model_seconds"] = time.perf_counter() - t0
    if modeler_name == "adaptive":
        result["retrained"] = len(_network_cache()) > networks_before

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
                entry.update(describe_model(model, parameters, eval_x))
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
    parser.add_argument(
        "input", nargs="+", help="Extra-P text file(s) (PARAMETER/POINTS/METRIC/REGION/DATA)"
    )
    parser.add_argument(
        "--modeler",
        choices=list(MODELERS),
        default="default",
        type=str.lower,
        help="single-parameter modeler; with several parameters, the one inside Extra-P's "
        "multi-parameter modeler",
    )
    parser.add_argument(
        "--measure",
        choices=MEASURES,
        default="mean",
        type=str.lower,
        help="how repetitions are aggregated (the CLI's --measure; default mean as in the CLI)",
    )
    parser.add_argument(
        "--preset",
        type=int,
        choices=range(-2, 2),
        default=None,
        help="adaptive modeler preset (Extra-P's own default is 0)",
    )
    parser.add_argument(
        "--seed", type=int, default=None, help="seed random, numpy.random and TensorFlow"
    )
    parser.add_argument(
        "--keep-networks",
        action="store_true",
        help="adaptive: reuse networks retrained for earlier inputs with the same x values",
    )
    parser.add_argument(
        "--eval-x",
        type=float,
        default=128.0,
        help="value of every parameter at which the prediction (and, with one parameter, the "
        "lead-order term) is evaluated",
    )
    parser.add_argument(
        "--out", required=True, action="append", help="result JSON path, once per input"
    )
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
    if len(args.out) != len(args.input):
        parser.error(f"{len(args.input)} inputs need as many --out, got {len(args.out)}")
    return max(model_file(path, out, args) for path, out in zip(args.input, args.out))


def model_file(path: str, out: str, args: argparse.Namespace) -> int:
    """Model one input, write its result JSON; 0 on success, 1 if the whole file failed."""
    try:
        result = run(
            path,
            args.modeler,
            args.eval_x,
            args.disable_progress,
            args.warmup,
            measure=args.measure,
            preset=args.preset,
            seed=args.seed,
            keep_networks=args.keep_networks,
        )
        status = 0
    except Exception as exc:  # noqa: BLE001 - whole-file failure (unreadable/invalid input)
        result = {
            "modeler": args.modeler,
            "extrap_version": extrap.__version__,
            "input": path,
            "eval_x": args.eval_x,
            "measure": args.measure,
            "read_seconds": None,
            "model_seconds": None,
            "kernels": [],
            "error": f"{type(exc).__name__}: {exc}",
        }
        traceback.print_exc()
        status = 1

    with open(out, "w") as fh:
        json.dump(result, fh, indent=1, allow_nan=False)
    if status == 0:
        print(
            f"{result['n_kernels']} kernels ({result['n_errors']} errors) with extrap "
            f"{result['extrap_version']} {result['modeler_class']}/{args.modeler}: "
            f"read {result['read_seconds']:.3f}s, setup {result['setup_seconds']:.3f}s, "
            f"model {result['model_seconds']:.3f}s -> {out}",
            file=sys.stderr,
        )
    return status


if __name__ == "__main__":
    sys.exit(main())
