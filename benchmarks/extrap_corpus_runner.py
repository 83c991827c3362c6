"""Read one input with the Extra-P reader for its kind, model it, dump the models as JSON.

Run with the *Extra-P* virtualenv's interpreter (it imports ``extrap``, never ``guard``); the
corpus benchmark (``benchmarks/extrap_corpus.py``) calls it once per input::

    /work/peers/extrap/bin/python benchmarks/extrap_corpus_runner.py KIND PATH --out RESULT.json
        [--scaling weak|weak_threaded|strong] [--inclusive]

KIND picks the reader as Extra-P's CLI flags do: ``text`` (--text), ``talpas`` (--talpas),
``json`` (--json, which also reads JSON Lines), ``cube`` (--cube, a directory), ``experiment``
(--experiment, a ``.extra-p`` file) and ``extrap3`` (--extra-p-3).  Modeling is Extra-P's
default modeler (its multi-parameter modeler around the default single-parameter one for
several parameters), on the mean, as ``extrap --KIND PATH`` does; each kernel is modelled in
its own try/except, so one failing kernel is an error entry, not a failed input.  A reader
error (Extra-P refusing the input) is the result's ``error``.
"""

from __future__ import annotations

import argparse
import json
import sys
import traceback
import warnings

from extrap.entities.measurement import Measure
from extrap.modelers.model_generator import ModelGenerator
from extrap.util.progress_bar import DUMMY_PROGRESS
from extrap_runner import describe_model, make_modeler


def reader_for(kind: str, scaling: str, inclusive: bool = False):
    if kind == "text":
        from extrap.fileio.file_reader.text_file_reader import TextFileReader

        return TextFileReader()
    if kind == "talpas":
        from extrap.fileio.file_reader.talpas_file_reader import TalpasFileReader

        return TalpasFileReader()
    if kind == "json":
        from extrap.fileio.file_reader.json_file_reader import JsonFileReader

        return JsonFileReader()
    if kind == "experiment":
        from extrap.fileio.experiment_io import ExperimentReader

        return ExperimentReader()
    if kind == "extrap3":
        from extrap.fileio.file_reader.extrap3_experiment_reader import (
            Extrap3ExperimentFileReader,
        )

        return Extrap3ExperimentFileReader()
    if kind == "cube":
        from extrap.entities.scaling_type import ScalingType
        from extrap.fileio.file_reader.cube_file_reader2 import CubeFileReader2

        reader = CubeFileReader2()
        reader.scaling_type = ScalingType(scaling)
        reader.use_inclusive_measurements = inclusive
        return reader
    raise ValueError(f"unknown kind {kind!r}")


def run(kind: str, path: str, scaling: str, inclusive: bool = False) -> dict:
    result: dict = {"kind": kind, "input": path, "scaling": scaling, "inclusive": inclusive}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reader = reader_for(kind, scaling, inclusive)
            experiment = reader.read_experiment(path, DUMMY_PROGRESS)
    except Exception as exc:  # noqa: BLE001 - Extra-P refusing the input is a result
        result["error"] = f"{type(exc).__name__}: {exc}"
        return result
    parameters = [str(p) for p in experiment.parameters]
    result["parameters"] = parameters
    modeler = make_modeler("default", len(parameters), None)
    generator = ModelGenerator(experiment, modeler=modeler, use_measure=Measure.MEAN)
    kernels = []
    for (callpath, metric), measurements in experiment.measurements.items():
        entry = {
            "callpath": callpath.name,
            "metric": metric.name,
            "points": len(measurements),
            # each point's coordinates and mean, to compare what the two readers read
            "means": [[*map(float, m.coordinate), _finite(m.mean)] for m in measurements],
        }
        try:
            model = generator.modeler.create_model(measurements)
            entry.update(describe_model(model, parameters, 128.0))
        except Exception as exc:  # noqa: BLE001 - one failing kernel is an entry
            entry["error"] = f"{type(exc).__name__}: {exc}"
        kernels.append(entry)
    result["kernels"] = kernels
    return result


def _finite(value) -> float | None:
    value = float(value)
    return value if value == value and abs(value) != float("inf") else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("kind")
    parser.add_argument("path")
    parser.add_argument("--out", required=True)
    parser.add_argument("--scaling", default="weak", choices=["weak", "weak_threaded", "strong"])
    parser.add_argument("--inclusive", action="store_true")
    args = parser.parse_args()
    try:
        result = run(args.kind, args.path, args.scaling, args.inclusive)
    except Exception as exc:  # noqa: BLE001
        traceback.print_exc()
        result = {"kind": args.kind, "input": args.path, "error": f"{type(exc).__name__}: {exc}"}
    with open(args.out, "w") as fh:
        json.dump(result, fh, indent=1, allow_nan=False)
    return 0


if __name__ == "__main__":
    sys.exit(main())
