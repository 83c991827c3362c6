"""Prediction beyond the measured range on real data: perfguard beside Extra-P's modelers.

    .venv/bin/python benchmarks/extrapolation_real.py EXTRAP_TESTS_DATA \
        [--extrap-python /work/peers/extrap-ad/bin/python] [--modelers default,refining,adaptive]

Extra-P's ``tests/data/mpi_data.csv`` holds real timings of seven MPI collectives (Barrier,
Bcast, Reduce, Allreduce, Gather, Allgather, Alltoall) under two MPI libraries at 32, 64,
128, 256 and 512 ranks: 14 scaling series of five points, each point a run's median of
1,600-2,000 calls.  Each series is modelled from its first four points (and, harder, from
its first three) and predicted at the points left out; the error is |predicted - measured|
/ measured at each, averaged over the series.  perfguard is its default modeler
(``guard.modeling.analyze``); Extra-P runs in its own virtualenv
(``benchmarks/extrap_runner.py``) with each of its single-parameter modelers on the same
values, written as an Extra-P text file.

Second, seed 004's RELeARN experiment (``text/mpa/relearn_data.txt``: 14 kernels on a 5 x 5
grid of processes p = 32..512 and neurons n = 5000..9000, two repetitions): each kernel is
modelled from the nine points of the cross through (32, 5000) -- p varied at n = 5000, n
varied at p = 32, no point off the lines -- and predicted at P+ = (512, 9000), the far
corner, which was measured.  Extra-P's multi-parameter modeler gets the same nine points.

Nothing is read from the repository itself: pass the path of a checkout of Extra-P's
``tests/data``.
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import analyze  # noqa: E402

HERE = Path(__file__).resolve().parent
DEFAULT_EXTRAP = "/work/peers/extrap-ad/bin/python"


def series(data: Path) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """(ranks, median microseconds) of every MPI library and collective."""
    rows: dict[str, list[tuple[float, float]]] = {}
    with (data / "mpi_data.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            name = f"{row['mpi']}:{row['variable']}"
            rows.setdefault(name, []).append((float(row["Ranks"]), float(row["median"])))
    out = {}
    for name, points in sorted(rows.items()):
        points.sort()
        out[name] = (np.array([p for p, _ in points]), np.array([v for _, v in points]))
    return out


def perfguard_predictions(data: dict, fit: int) -> dict[str, np.ndarray]:
    """perfguard's default model of each series' first ``fit`` points, at the others."""
    kernels = [
        Kernel(name, "time", tuple(Point((float(x),), (float(y),)) for x, y in zip(xs[:fit], ys)))
        for name, (xs, ys) in data.items()
    ]
    analyses = analyze(MeasurementSet(("p",), tuple(kernels)))
    return {
        a.kernel.name: np.asarray(a.model.evaluate({"p": data[a.kernel.name][0][fit:]}))
        for a in analyses
    }


def extrap_predictions(
    data: dict, fit: int, modeler: str, python: str, work: Path
) -> dict[str, np.ndarray]:
    """Extra-P's model (one modeler) of each series' first ``fit`` points, at the others."""
    xs = next(iter(data.values()))[0]
    text = ["PARAMETER p", "POINTS " + " ".join(f"( {int(x)} )" for x in xs[:fit]), "METRIC time"]
    for name, (_, ys) in data.items():
        text.append(f"REGION {name}")
        text.extend(f"DATA {float(y)!r}" for y in ys[:fit])
    source = work / f"mpi-{fit}.txt"
    source.write_text("\n".join(text) + "\n")
    out: dict[str, np.ndarray] = {}
    for x in xs[fit:]:
        result = work / f"mpi-{fit}-{modeler}-{int(x)}.json"
        command = [python, str(HERE / "extrap_runner.py"), str(source), "--modeler", modeler]
        command += ["--eval-x", str(x), "--out", str(result), "--disable-progress", "--seed", "0"]
        subprocess.run(command, check=True, capture_output=True, text=True)
        for kernel in json.loads(result.read_text())["kernels"]:
            value = kernel.get("prediction")
            out.setdefault(kernel["name"], []).append(np.nan if value is None else value)
    return {name: np.array(values) for name, values in out.items()}


def cross_file(data: Path, work: Path) -> tuple[Path, dict[str, float]]:
    """The RELeARN cross as Extra-P text, and each kernel's measured mean at P+."""
    from guard.formats import load

    full = load(data / "text" / "mpa" / "relearn_data.txt")
    on_cross = [(p, n) for p in (32, 64, 128, 256, 512) for n in (5000,)]
    on_cross += [(32, n) for n in (6000, 7000, 8000, 9000)]
    text = ["PARAMETER p", "PARAMETER n"]
    text += [f"POINTS ( {p} {n} )" for p, n in on_cross]
    truth = {}
    for kernel in full.kernels:
        values = {tuple(int(v) for v in pt.at): pt.values for pt in kernel.points}
        text += [f"METRIC {kernel.metric}", f"REGION {kernel.name}"]
        text += ["DATA " + " ".join(repr(float(v)) for v in values[at]) for at in on_cross]
        truth[kernel.name] = float(np.mean(values[(512, 9000)]))
    path = work / "relearn-cross.txt"
    path.write_text("\n".join(text) + "\n")
    return path, truth


def cross_errors(path: Path, truth: dict[str, float], tools: dict[str, dict]) -> None:
    """Relative error (%) at P+ of each tool's model of the cross, printed as table rows."""
    for tool, predicted in tools.items():
        # relative error is undefined where P+ measured 0 (a count): those kernels are left out
        e = np.array(
            [100 * abs(predicted[k] - v) / v for k, v in truth.items() if k in predicted and v]
        )
        print(
            f"| RELeARN cross (9 points) | (512, 9000) | {tool} | {np.mean(e):.1f} | "
            f"{np.median(e):.1f} | {np.max(e):.1f} | {len(e)} of {sum(map(bool, truth.values()))}"
            " |",
            flush=True,
        )


def perfguard_cross(path: Path) -> dict[str, float]:
    from guard.formats import load

    analyses = analyze(load(path))
    return {
        a.kernel.name: float(a.model.evaluate({"p": 512.0, "n": 9000.0}))
        for a in analyses
        if a.model is not None
    }


def extrap_cross(path: Path, modeler: str, python: str, work: Path) -> dict[str, float]:
    result = work / f"relearn-{modeler}.json"
    command = [python, str(HERE / "extrap_runner.py"), str(path), "--modeler", modeler]
    command += ["--out", str(result), "--disable-progress", "--seed", "0"]
    subprocess.run(command, check=True, capture_output=True, text=True)
    out = {}
    for kernel in json.loads(result.read_text())["kernels"]:
        if "terms" not in kernel:
            continue
        value = kernel["constant"]
        for term in kernel["terms"]:
            part = term["coefficient"]
            for f in term["factors"]:
                x = {"p": 512.0, "n": 9000.0}[f["parameter"]]
                part *= x ** float(Fraction(f["alpha"])) * np.log2(x) ** float(Fraction(f["beta"]))
            value += part
        out[kernel["name"]] = value
    return out


def errors(data: dict, fit: int, predicted: dict[str, np.ndarray]) -> np.ndarray:
    """Relative error (%) at every left-out point of every series (S, P - fit)."""
    rows = []
    for name, (_, ys) in data.items():
        rows.append(100 * np.abs(predicted[name] - ys[fit:]) / ys[fit:])
    return np.array(rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, help="Extra-P's tests/data folder")
    ap.add_argument("--extrap-python", default=DEFAULT_EXTRAP)
    ap.add_argument("--modelers", default="default,refining,adaptive")
    args = ap.parse_args(argv)
    data = series(args.data)
    ranks = next(iter(data.values()))[0]
    print(f"{len(data)} series, ranks {', '.join(str(int(x)) for x in ranks)}")
    print(
        "\n| fitted on | predicted at | tool | mean error % | median error % | worst % | series |"
    )
    print("|---|---|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for fit in (4, 3):
            xs = next(iter(data.values()))[0]
            tools = {"perfguard default": perfguard_predictions(data, fit)}
            for modeler in args.modelers.split(","):
                tools[f"Extra-P {modeler}"] = extrap_predictions(
                    data, fit, modeler, args.extrap_python, Path(tmp)
                )
            where = ", ".join(f"p={int(x)}" for x in xs[fit:])
            for tool, predicted in tools.items():
                e = errors(data, fit, predicted)
                print(
                    f"| first {fit} | {where} | {tool} | {np.nanmean(e):.1f} | "
                    f"{np.nanmedian(e):.1f} | {np.nanmax(e):.1f} | {len(e)} |",
                    flush=True,
                )
        path, truth = cross_file(args.data, Path(tmp))
        tools = {"perfguard default": perfguard_cross(path)}
        for modeler in args.modelers.split(","):
            tools[f"Extra-P {modeler}"] = extrap_cross(path, modeler, args.extrap_python, Path(tmp))
        cross_errors(path, truth, tools)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
