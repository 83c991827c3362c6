"""Whole `perfguard model` and `check` processes on pytest-benchmark files of 100,000 rounds.

    .venv/bin/python benchmarks/many_rounds.py [--rounds 100000] [--repeats 3] [--seed 0]

Synthetic pytest-benchmark JSON (every field ``--benchmark-json`` writes for a benchmark,
the statistics computed from the rounds), seeded: kernels of five shapes -- n, n log n,
n^2, log n and n log n with a x1.6 step (which sends the segment search to work) -- over
n = 2^8..2^13, each round lognormal (3%) with 0.5% of rounds hit by a 20-500x pause (GC,
interrupts), as real fast benchmarks show -- the same count at every size, or 1% fewer at
each larger size (pytest-benchmark's counts differ by size, which takes another code
path); and a two-parameter kernel on a 5 x 5 grid.
Each command is the whole process (interpreter, imports, reading, modeling, output), the
median of ``--repeats`` runs, measured in the same invocation as its peers on the same
file:

* the same command on the same kernels with 10 rounds a point (what the rounds add);
* ``pytest-benchmark compare FILE``: pytest-benchmark's own reader rendering its table;
* ``json.load`` of the file in a fresh interpreter: the floor for any Python reader.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = [2**k for k in range(8, 14)]
SHAPES = {
    "linear": lambda n: 2e-9 * n,
    "n_log_n": lambda n: 3e-10 * n * math.log2(n),
    "quadratic": lambda n: 1e-11 * n * n,
    "logarithmic": lambda n: 5e-8 * math.log2(n),
    "stepped": lambda n: 3e-10 * n * math.log2(n) * (1.6 if n > 2048 else 1.0),
}
GRID = [(n, k) for n in (64, 128, 256, 512, 1024) for k in (1, 2, 4, 8, 16)]
BIN = Path(sys.executable).parent


def rounds(rng: np.random.Generator, median: float, count: int) -> np.ndarray:
    values = median * rng.lognormal(0.0, 0.03, count)
    paused = rng.random(count) < 0.005
    return np.where(paused, values * rng.uniform(20, 500, count), values)


def stats(data: np.ndarray) -> dict:
    """The statistics pytest-benchmark writes beside ``data``."""
    q1, median, q3 = np.quantile(data, [0.25, 0.5, 0.75])
    iqr, mean, sd = q3 - q1, float(data.mean()), float(data.std(ddof=1))
    inner = data[(data >= q1 - 1.5 * iqr) & (data <= q3 + 1.5 * iqr)]
    far = int(np.sum(np.abs(data - mean) > sd))
    near = len(data) - len(inner)
    return {
        "min": float(data.min()),
        "max": float(data.max()),
        "mean": mean,
        "stddev": sd,
        "rounds": len(data),
        "median": float(median),
        "iqr": float(iqr),
        "q1": float(q1),
        "q3": float(q3),
        "iqr_outliers": near,
        "stddev_outliers": far,
        "outliers": f"{far};{near}",
        "ld15iqr": float(inner.min()),
        "hd15iqr": float(inner.max()),
        "ops": 1.0 / mean,
        "total": float(data.sum()),
        "data": data.tolist(),
        "iterations": 1,
    }


def benchmark(name: str, params: dict, data: np.ndarray) -> dict:
    ids = "-".join(str(v) for v in params.values())
    return {
        "group": None,
        "name": f"{name}[{ids}]",
        "fullname": f"test_synthetic.py::{name}[{ids}]",
        "params": params,
        "param": ids,
        "extra_info": {},
        "options": {
            "disable_gc": False,
            "timer": "perf_counter",
            "min_rounds": 5,
            "max_time": 1.0,
            "min_time": 5e-06,
            "warmup": False,
        },
        "stats": stats(data),
    }


def write(path: Path, benchmarks: list[dict]) -> None:
    doc = {
        "machine_info": {"node": "synthetic", "machine": "x86_64", "python_version": "3.11"},
        "commit_info": {"id": "0" * 40, "branch": "main", "dirty": False},
        "benchmarks": benchmarks,
        "datetime": "2026-01-01T00:00:00+00:00",
        "version": "5.3.1",
    }
    path.write_text(json.dumps(doc, indent=4), encoding="utf-8")  # as pytest-benchmark does


def one_parameter(path: Path, shapes: list[str], count: int, seed: int, ragged: bool) -> None:
    """``ragged``: 1% fewer rounds at each larger size, as pytest-benchmark keeps them."""
    rng = np.random.default_rng(seed)
    benches = [
        benchmark(
            f"test_{shape}",
            {"n": n},
            rounds(rng, SHAPES[shape](n), count - (count // 100) * i if ragged else count),
        )
        for shape in shapes
        for i, n in enumerate(SIZES)
    ]
    write(path, benches)


def two_parameters(path: Path, count: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    benches = [
        benchmark("test_grid", {"n": n, "k": k}, rounds(rng, 1e-9 * n * k, count)) for n, k in GRID
    ]
    write(path, benches)


def timed(argv: list[str], repeats: int, ok: tuple[int, ...] = (0,)) -> float:
    runs = []
    for _ in range(repeats):
        start = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True)
        runs.append(time.perf_counter() - start)
        if done.returncode not in ok or "Traceback" in done.stderr:
            raise SystemExit(f"{' '.join(argv)} exited {done.returncode}:\n{done.stderr}")
    return statistics.median(runs)


def commands(path: Path) -> dict[str, list[str]]:
    perfguard = [str(BIN / "perfguard")]
    return {
        "model": [*perfguard, "model", str(path), "--json"],
        "check": [*perfguard, "check", str(path), "--expect", "*=<= n^2", "--json"],
        "check --baseline": [*perfguard, "check", str(path), "-b", str(path), "--json"],
    }


def measure(label: str, files: dict[int, Path], kernels: int, points: int, args) -> None:
    big, small = files[args.rounds], files[10]
    floor = timed([sys.executable, "-c", f"import json; json.load(open({str(big)!r}))"], 1)
    compare = timed([str(BIN / "pytest-benchmark"), "compare", str(big)], args.repeats)
    size = big.stat().st_size / 1e6
    print(f"\n{label}: {kernels} kernel(s) x {points} points, {size:.0f} MB at {args.rounds:,}")
    print(f"json.load alone: {floor:.2f} s; pytest-benchmark compare: {compare:.2f} s\n")
    print(f"| command | {args.rounds:,} rounds s | per kernel s | 10 rounds s | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name, argv in commands(big).items():
        ok = (0, 1)  # a check passes or fails by its verdict
        many = timed(argv, args.repeats, ok)
        few = timed(commands(small)[name], args.repeats, ok)
        print(f"| {name} | {many:.2f} | {many / kernels:.2f} | {few:.2f} | {many / few:.1f}x |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=100_000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, seed {args.seed}")
    with tempfile.TemporaryDirectory() as tmp:
        cases = [
            ("one kernel (n log n)", ["n_log_n"], False),
            ("five kernels", list(SHAPES), False),
            ("five kernels, 1% fewer rounds at each larger size", list(SHAPES), True),
        ]
        for label, shapes, ragged in cases:
            files = {r: Path(tmp, f"{len(shapes)}_{r}.json") for r in (args.rounds, 10)}
            for count, path in files.items():
                one_parameter(path, shapes, count, args.seed, ragged)
            measure(label, files, len(shapes), len(SIZES), args)
            for path in files.values():
                path.unlink()
        files = {r: Path(tmp, f"grid_{r}.json") for r in (args.rounds, 10)}
        for count, path in files.items():
            two_parameters(path, count, args.seed)
        measure("two parameters, 5 x 5 grid", files, 1, len(GRID), args)


if __name__ == "__main__":
    main()
