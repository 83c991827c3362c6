"""Wall time of adaptive modeling for 100 kernels: perfguard vs Extra-P, same file, same run.

    .venv/bin/python benchmarks/adaptive_speed.py [--extrap-python /work/extrap-venv/bin/python]

The file holds 100 seed-004 kernels (a class of E each, c0, c1 ~ U[0.001, 1000], x = 4..64,
five repetitions at 50% noise, so the DNN is used for most of them).  Reported, each the
median of five cold runs in a fresh process:

* perfguard ``model FILE --modeler adaptive --json``, the whole command (interpreter start,
  imports, reading, modeling, JSON), and the modeling step alone (``model_measurements``);
* Extra-P's adaptive modeler on the same file (its modeling step, including its
  retraining of the network, as ``extrap`` does by default; TensorFlow import excluded).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from guard.formats.extrap_text import dumps  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402

sys.path.insert(0, str(HERE))
from protocol004 import CLASSES_E  # noqa: E402

X = [4.0, 8.0, 16.0, 32.0, 64.0]


def build(path: Path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    kernels = []
    for i in range(100):
        a, b = CLASSES_E[i % len(CLASSES_E)]
        c0, c1 = rng.uniform(0.001, 1000, 2)
        points = []
        for x in X:
            value = c0 + c1 * x ** float(a) * np.log2(x) ** float(b)
            reps = value * (1 + rng.uniform(-0.25, 0.25, 5))
            points.append(Point((x,), tuple(float(v) for v in reps)))
        kernels.append(Kernel(f"k{i:03d}", "time", tuple(points)))
    path.write_text(dumps(MeasurementSet(("x",), tuple(kernels))))


_STEP = """
import sys, time
from guard.formats import load
from guard.modeling import model_measurements
mset = load(sys.argv[1])
t = time.perf_counter()
model_measurements(mset, "adaptive")
print(time.perf_counter() - t)
"""


def perfguard_times(path: Path) -> tuple[float, float]:
    whole, step = [], []
    for _ in range(5):
        t = time.perf_counter()
        subprocess.run(
            [
                sys.executable,
                "-m",
                "guard.cli",
                "model",
                str(path),
                "--modeler",
                "adaptive",
                "--json",
            ],
            check=True,
            capture_output=True,
        )
        whole.append(time.perf_counter() - t)
        out = subprocess.run(
            [sys.executable, "-c", _STEP, str(path)], check=True, capture_output=True, text=True
        )
        step.append(float(out.stdout))
    return statistics.median(whole), statistics.median(step)


def extrap_time(python: str, path: Path, out: Path) -> float:
    times = []
    for seed in range(5):
        subprocess.run(
            [python, str(HERE / "extrap_runner.py"), str(path), "--modeler", "adaptive",
             "--measure", "median", "--seed", str(seed), "--out", str(out), "--disable-progress"],
            check=True,
            capture_output=True,
        )  # fmt: skip
        times.append(json.loads(out.read_text())["model_seconds"])
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap-python")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "adaptive100.txt"
        build(path, args.seed)
        whole, step = perfguard_times(path)
        print(f"perfguard adaptive, 100 kernels: command {whole:.2f} s, modeling step {step:.3f} s")
        if args.extrap_python:
            ex = extrap_time(args.extrap_python, path, Path(tmp) / "extrap.json")
            print(f"Extra-P adaptive, 100 kernels: modeling step {ex:.2f} s")
            print(f"ratio (Extra-P step / perfguard step): {ex / step:.0f}x")


if __name__ == "__main__":
    main()
