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

``--synthetic`` instead runs the same first-3 task on seed 004's function family: FUNCTIONS
functions ``c0 + c1 * x^alpha * log2(x)^beta`` with (alpha, beta) cycling through the 43
classes of E (shuffled), c0 and c1 U[0.001, 1000], one value per point at x = 32, 64, 128
(times 1 + U[-n/200, n/200] for n% noise), predicted at 256 and 512 and scored against the
noise-free function there (``--fit 4``: fitted on 32..256, predicted at 512); the same
functions at every noise level::

    .venv/bin/python benchmarks/extrapolation_real.py --synthetic [--functions 600] \
        [--noise 2,5,10] [--seed 1] [--fit 3] [--modelers default,refining,adaptive]
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
sys.path.insert(0, str(Path(__file__).resolve().parent))

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


def synthetic_series(
    functions: int, level: float, seed: int
) -> tuple[dict[str, tuple[np.ndarray, np.ndarray]], dict[str, np.ndarray]]:
    """Seed 004's one-parameter functions at x = 32..512: noisy series and true values."""
    from protocol004 import multi_parameter_functions

    fns = multi_parameter_functions(1, functions, np.random.default_rng([seed, 18, 3]))
    rng = np.random.default_rng([seed, 18, 3, int(level * 10)])
    x = np.array([32.0, 64.0, 128.0, 256.0, 512.0])
    data, truth = {}, {}
    for i, fn in enumerate(fns):
        name = f"f{i:04d}"
        truth[name] = fn(x[:, None])
        data[name] = (x, truth[name] * (1 + rng.uniform(-level / 200, level / 200, len(x))))
    return data, truth


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
    data: dict, fit: int, modeler: str, python: str, work: Path, tag: str = "mpi"
) -> dict[str, np.ndarray]:
    """Extra-P's model (one modeler) of each series' first ``fit`` points, at the others."""
    xs = next(iter(data.values()))[0]
    text = ["PARAMETER p", "POINTS " + " ".join(f"( {int(x)} )" for x in xs[:fit]), "METRIC time"]
    for name, (_, ys) in data.items():
        text.append(f"REGION {name}")
        text.extend(f"DATA {float(y)!r}" for y in ys[:fit])
    source = work / f"{tag}-{fit}.txt"
    source.write_text("\n".join(text) + "\n")
    out: dict[str, np.ndarray] = {}
    for x in xs[fit:]:
        result = work / f"{tag}-{fit}-{modeler}-{int(x)}.json"
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


def errors(
    data: dict, fit: int, predicted: dict[str, np.ndarray], truth: dict | None = None
) -> np.ndarray:
    """Relative error (%) at every left-out point of every series (S, P - fit), against the
    measured values or, given ``truth``, the true ones."""
    rows = []
    for name, (_, ys) in data.items():
        want = (ys if truth is None else truth[name])[fit:]
        rows.append(100 * np.abs(predicted[name] - want) / want)
    return np.array(rows)


def synthetic(args: argparse.Namespace, work: Path) -> None:
    """The first-3 (or first-4) task on seed 004's functions, every tool on the same values."""
    fit = args.fit
    sizes = ", ".join(str(32 * 2**i) for i in range(fit))
    print(f"{args.functions} functions of seed 004's family, fitted on x = {sizes}")
    print("\n| noise | tool | mean error % | median error % | worst % | within 10% | modelled |")
    print("|---|---|---:|---:|---:|---:|---:|")
    for level in (float(n) for n in args.noise.split(",")):
        data, truth = synthetic_series(args.functions, level, args.seed)
        tools = {"perfguard default": perfguard_predictions(data, fit)}
        for modeler in filter(None, args.modelers.split(",")):
            tools[f"Extra-P {modeler}"] = extrap_predictions(
                data, fit, modeler, args.extrap_python, work, f"synthetic-{level:g}"
            )
        for tool, predicted in tools.items():
            e = errors(data, fit, predicted, truth)
            modelled = int(np.isfinite(e).all(axis=1).sum())
            print(
                f"| {level:g}% | {tool} | {np.nanmean(e):.1f} | {np.nanmedian(e):.1f} | "
                f"{np.nanmax(e):.1f} | {100 * np.mean(e <= 10):.0f}% | {modelled} |",
                flush=True,
            )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", type=Path, nargs="?", help="Extra-P's tests/data folder")
    ap.add_argument("--extrap-python", default=DEFAULT_EXTRAP)
    ap.add_argument("--modelers", default="default,refining,adaptive", help="'' for none")
    ap.add_argument("--synthetic", action="store_true", help="seed 004's functions instead")
    ap.add_argument("--functions", type=int, default=600)
    ap.add_argument("--noise", default="2,5,10", help="percent, comma-separated")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--fit", type=int, choices=(3, 4), default=3, help="with --synthetic")
    args = ap.parse_args(argv)
    if args.synthetic:
        with tempfile.TemporaryDirectory() as tmp:
            synthetic(args, Path(tmp))
        return 0
    if args.data is None:
        ap.error("the data folder is needed without --synthetic")
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
            for modeler in filter(None, args.modelers.split(",")):
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
        for modeler in filter(None, args.modelers.split(",")):
            tools[f"Extra-P {modeler}"] = extrap_cross(path, modeler, args.extrap_python, Path(tmp))
        cross_errors(path, truth, tools)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
