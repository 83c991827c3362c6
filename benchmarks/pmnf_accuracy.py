"""Accuracy and throughput of perfguard's modelers vs Extra-P on seed 000's protocol (Fig. 3).

For each x-set one Extra-P text file holds 7 classes x COUNT functions; perfguard and
Extra-P model the same file in the same run.  Scored per class: exact match of the
lead-order exponents (lead = the term contributing most at 4*x_max) and prediction
within +-2% of the noise-free value at 4*x_max.  Throughput: models per second of the
modeling step alone (file reading timed separately).

    python benchmarks/pmnf_accuracy.py [--count 1000] [--seed 1]
        [--extrap-python /path/to/venv/bin/python] [--out benchmarks/out]

Extra-P is skipped when its interpreter is not found.  Tuning of perfguard's default
modeler used seed 0; report with another seed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from fractions import Fraction as F
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from protocol000 import CLASSES, XSETS, functions, noisy_values  # noqa: E402

from guard.formats import load  # noqa: E402
from guard.formats.extrap_text import dumps  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import get_modeler, model_measurements  # noqa: E402

PERFGUARD_MODELERS = ("default", "penalized", "refining", "exhaustive")
EXTRAP_MODELERS = ("default", "refining")


def build_file(xname: str, count: int, seed: int, out: Path) -> tuple[Path, dict]:
    """Write the x-set's Extra-P text file; return it and the truth per kernel."""
    xs = XSETS[xname]
    x_eval = 4 * xs[-1]
    rng = np.random.default_rng([seed, xs[0]])
    kernels, truth = [], {}
    for ci, cls in enumerate(CLASSES):
        for i, fn in enumerate(functions(cls, count, seed=seed * 1000 + ci)):
            name = f"{cls}.{i:04d}"
            values = noisy_values(fn, xs, rng)
            kernels.append(
                Kernel(name, "time", tuple(Point((x,), tuple(v)) for x, v in zip(xs, values)))
            )
            truth[name] = {
                "class": cls,
                "lead": fn.lead(x_eval),
                "value": float(fn(np.array([x_eval]))[0]),
            }
    path = out / f"protocol000_{xname}.txt"
    path.write_text(dumps(MeasurementSet(("x",), tuple(kernels))))
    return path, truth


def lead_of(terms: list[tuple[float, F, F]], x_eval: float) -> tuple[F, F]:
    """Lead-order exponents of a model by contribution at x_eval; (0, 0) when constant."""
    if not terms:
        return (F(0), F(0))
    contrib = [abs(c) * x_eval ** float(a) * np.log2(x_eval) ** float(b) for c, a, b in terms]
    _, a, b = terms[int(np.argmax(contrib))]
    return (a, b)


def run_perfguard(path: Path, modeler: str, x_eval: float) -> dict:
    t0 = time.perf_counter()
    mset = load(path)
    t1 = time.perf_counter()
    result = model_measurements(mset, get_modeler(modeler))
    t2 = time.perf_counter()
    kernels = {}
    for m in result.models:
        terms = [(t.coefficient, t.factors[0].exponent, t.factors[0].log_exponent) for t in m.terms]
        kernels[m.kernel] = {
            "lead": lead_of(terms, x_eval),
            "prediction": float(m.evaluate({"x": x_eval})),
        }
    return {"read_seconds": t1 - t0, "model_seconds": t2 - t1, "kernels": kernels}


def run_extrap(python: str, path: Path, modeler: str, x_eval: float, out: Path) -> dict:
    result_path = out / f"{path.stem}.extrap-{modeler}.json"
    cmd = [
        python,
        str(HERE / "extrap_runner.py"),
        str(path),
        "--modeler",
        modeler,
        "--eval-x",
        str(x_eval),
        "--out",
        str(result_path),
        "--disable-progress",
    ]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    doc = json.loads(result_path.read_text())
    kernels = {}
    for k in doc["kernels"]:
        if "error" in k:
            continue
        kernels[k["name"]] = {
            "lead": (F(k["lead_alpha"]), F(k["lead_beta"])),
            "prediction": k["prediction"] if k["prediction"] is not None else float("nan"),
        }
    return {
        "read_seconds": doc["read_seconds"],
        "model_seconds": doc["model_seconds"],
        "kernels": kernels,
    }


def score(run: dict, truth: dict) -> dict[str, tuple[float, float]]:
    """Per class: (share of exact lead matches, share of predictions within 2%)."""
    out = {}
    for cls in CLASSES:
        names = [n for n, t in truth.items() if t["class"] == cls]
        exact = pred = 0
        for n in names:
            got = run["kernels"].get(n)
            if got is None:
                continue
            exact += got["lead"] == truth[n]["lead"]
            pred += abs(got["prediction"] - truth[n]["value"]) <= 0.02 * truth[n]["value"]
        out[cls] = (exact / len(names), pred / len(names))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument(
        "--extrap-python", default=os.environ.get("EXTRAP_PYTHON", "/work/extrap-venv/bin/python")
    )
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--xsets", default=",".join(XSETS))
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    have_extrap = Path(args.extrap_python).exists()
    tools = [("perfguard", m) for m in PERFGUARD_MODELERS]
    if have_extrap:
        tools += [("extrap", m) for m in EXTRAP_MODELERS]
    else:
        print(f"# Extra-P not found at {args.extrap_python}: skipped", file=sys.stderr)
    results: dict = {}
    for xname in args.xsets.split(","):
        path, truth = build_file(xname, args.count, args.seed, args.out)
        x_eval = 4 * XSETS[xname][-1]
        for tool, modeler in tools:
            run = (
                run_perfguard(path, modeler, x_eval)
                if tool == "perfguard"
                else run_extrap(args.extrap_python, path, modeler, x_eval, args.out)
            )
            results[xname, tool, modeler] = (
                score(run, truth),
                run["model_seconds"],
                run["read_seconds"],
                len(truth),
            )
            print(
                f"# {xname} {tool}:{modeler} modeled {len(truth)} in {run['model_seconds']:.2f}s",
                file=sys.stderr,
            )
    print(report(results, args, have_extrap))


def report(results: dict, args: argparse.Namespace, have_extrap: bool) -> str:
    lines = [
        f"Protocol: seed 000 Fig. 3, {args.count} functions per class, seed {args.seed}, "
        f"+-2% uniform noise, one value per point. Machine: {platform.machine()}, "
        f"{os.cpu_count()} cores, Python {platform.python_version()}.",
        "",
    ]
    tools = sorted({(t, m) for _, t, m in results}, key=lambda tm: (tm[0] != "perfguard", tm[1]))
    for metric, idx in (
        ("Exact lead-exponent match (%)", 0),
        ("Prediction within ±2% at 4·x_max (%)", 1),
    ):
        lines += [
            f"#### {metric}",
            "",
            "| x-set | tool | " + " | ".join(CLASSES) + " | all |",
            "|---|---|" + "---:|" * (len(CLASSES) + 1),
        ]
        for xname in args.xsets.split(","):
            for tool, modeler in tools:
                sc = results[xname, tool, modeler][0]
                vals = [sc[c][idx] * 100 for c in CLASSES]
                lines.append(
                    f"| {xname} | {tool} {modeler} | "
                    + " | ".join(f"{v:.1f}" for v in vals)
                    + f" | {np.mean(vals):.1f} |"
                )
        lines.append("")
    lines += [
        "#### Throughput (modeling step only, models per second)",
        "",
        "| x-set | kernels | "
        + " | ".join(f"{t} {m}" for t, m in tools)
        + (" | perfguard default ÷ Extra-P default |" if have_extrap else " |"),
        "|---|---:|" + "---:|" * (len(tools) + (1 if have_extrap else 0)),
    ]
    for xname in args.xsets.split(","):
        n = results[xname, tools[0][0], tools[0][1]][3]
        rates = {tm: n / results[(xname, *tm)][1] for tm in tools}
        row = f"| {xname} | {n} | " + " | ".join(f"{rates[tm]:,.0f}" for tm in tools)
        if have_extrap:
            row += f" | {rates['perfguard', 'default'] / rates['extrap', 'default']:,.0f}× |"
        lines.append(row)
    return "\n".join(lines)


if __name__ == "__main__":
    main()
