"""``perfguard check`` at HPC scale: whole process, time and peak memory per kernel count.

CI-like baseline and candidate files (six doubling sizes, five repetitions, one metric, a
mix of classes, a few real regressions) are written for each count, then

    perfguard check CANDIDATE --baseline BASELINE --json > /dev/null

runs as a separate process; its wall time and peak RSS (``ru_maxrss`` of the child) are
reported, best of ``--repeat``.

    .venv/bin/python benchmarks/check_scale.py [--counts 100,1000,4000,10000] [--repeat 3]
        [--max-class EXPR]

``--max-class n`` also judges every kernel against a bound (a sixth of them, n log n, just
above it), so the bound's statistics -- the posterior, the held-out sizes and the bound test
-- are timed too.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

SIZES = 256 * 2 ** np.arange(6)
SHAPES = ((0.0, 0), (0.0, 1), (0.5, 0), (1.0, 0), (1.0, 1), (2.0, 0))


def measurements(count: int, seed: int, regress: bool) -> dict:
    """``count`` kernels; with ``regress`` every 50th kernel's class grows by n^0.5."""
    rng = np.random.default_rng(seed)
    kernels = []
    for k in range(count):
        alpha, beta = SHAPES[k % len(SHAPES)]
        if regress and k % 50 == 7:
            alpha += 0.5
        scale = float(np.exp(rng.uniform(np.log(1e-6), np.log(1e-3))))
        growth = SIZES**alpha * np.log2(SIZES) ** beta
        clean = scale * (1.0 + growth / growth[-1])
        values = clean[:, None] * np.exp(0.03 * rng.standard_normal((len(SIZES), 5)))
        points = [{"at": {"n": int(n)}, "values": v.tolist()} for n, v in zip(SIZES, values)]
        kernels.append({"name": f"kernel_{k}", "metric": "time", "unit": "s", "points": points})
    return {"schema": "perfguard/measurements@1", "parameters": ["n"], "kernels": kernels}


def run_check(
    candidate: Path, baseline: Path, max_class: str | None = None
) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (MB) and exit code of one whole ``perfguard check``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t0 = time.perf_counter()
    args = [sys.executable, "-m", "guard.cli", "check", str(candidate)]
    done = subprocess.run(
        [*args, "--baseline", str(baseline), "--json"]
        + (["--max-class", max_class] if max_class else []),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    seconds = time.perf_counter() - t0
    if done.returncode not in (0, 1):
        raise SystemExit(f"perfguard check exited {done.returncode}: {done.stderr.strip()}")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return seconds, max(peak, before) / 1024.0, done.returncode


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--counts", default="100,1000,4000,10000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--max-class", default=None, help="a bound for every kernel, e.g. n")
    args = ap.parse_args(argv)
    print("| kernel pairs | time (s, best) | ms per pair | peak memory (MB) |")
    print("|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for count in (int(c) for c in args.counts.split(",")):
            base, cand = Path(tmp) / f"base{count}.json", Path(tmp) / f"cand{count}.json"
            base.write_text(json.dumps(measurements(count, 1, regress=False)))
            cand.write_text(json.dumps(measurements(count, 2, regress=True)))
            runs = [run_check(cand, base, args.max_class) for _ in range(args.repeat)]
            best = min(r[0] for r in runs)
            peak = max(r[1] for r in runs)
            print(
                f"| {count:,} | {best:.2f} | {1000 * best / count:.2f} | {peak:.0f} |", flush=True
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
