"""Modeling throughput, perfguard default vs Extra-P default, on seed 000's 7000-kernel files.

    .venv/bin/python benchmarks/throughput.py --extrap-python /work/extrap-venv/bin/python

For each x-set of benchmarks/pmnf_accuracy.py (seed 1, 1000 functions per class): the
modeling step of perfguard (``model_measurements``: fitting plus noise statistics, class
confidence, drift and segment checks) as the median of three runs in this process, and
Extra-P's modeling step in its own process (one run: it takes over a minute), in the same
invocation so both see the same machine.  Run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from pmnf_accuracy import XSETS, build_file, run_extrap  # noqa: E402

from guard.formats import load  # noqa: E402
from guard.modeling import model_measurements  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap-python", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print("| x-set | kernels | perfguard s (median of 3) | Extra-P s | ratio |")
    print("|---|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        for xname in XSETS:
            path, truth = build_file(xname, 1000, args.seed, Path(tmp))
            mset = load(path)
            runs = []
            for _ in range(3):
                t = time.perf_counter()
                model_measurements(mset)
                runs.append(time.perf_counter() - t)
            ours = statistics.median(runs)
            theirs = run_extrap(
                args.extrap_python, path, "default", 4 * XSETS[xname][-1], Path(tmp)
            )["model_seconds"]
            print(f"| {xname} | {len(truth)} | {ours:.2f} | {theirs:.1f} | {theirs / ours:.0f}x |")


if __name__ == "__main__":
    main()
