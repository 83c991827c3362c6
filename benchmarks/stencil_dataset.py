"""Measure issue 7's dataset: the blocked 3-D 7-point stencil over sizes and block shapes.

Every configuration (grid edge n, block edges bx, by, bz) is timed in ``--rounds``
rounds; each round visits all configurations in a fresh shuffled order, so a slow
phase of a shared machine spreads over many configurations instead of biasing a few.
A repetition loops the sweep until it lasts at least ``--min-time`` seconds. Then, as
``perfguard run`` does, each round's timings are divided by that round's speed (the
median over configurations of timing / the configuration's median), which takes out the
minutes-long slow phases of a shared VM. The result is a perfguard/measurements@1 file
with the four parameters and the round speeds in ``run.round_speed``::

    .venv/bin/python benchmarks/stencil_dataset.py -o benchmarks/data/stencil7.json
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples" / "stencil")]

from stencil import stencil7  # noqa: E402

from guard.collection.environment import machine_info, now_iso  # noqa: E402
from guard.collection.timing import calibrate_loops, measure_once  # noqa: E402
from guard.formats.native import save  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo  # noqa: E402

SIZES = (32, 48, 64, 80, 96, 112, 128, 144, 160)
BLOCKS = (8, 16, 32, 64, 128)


def round_corrected(timings: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Timings (configurations x rounds) divided by each round's relative speed."""
    speeds = np.ones(timings.shape[1])
    for _ in range(3):  # the medians move a little once slow rounds are corrected
        corrected = timings / speeds
        rel = corrected / np.median(corrected, axis=1, keepdims=True)
        speeds = speeds * np.median(rel, axis=0)
    return timings / speeds, speeds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--output", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--min-time", type=float, default=0.005)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    configs = [(n, *b) for n in SIZES for b in itertools.product(BLOCKS, repeat=3)]
    rng = random.Random(args.seed)
    loops: dict[tuple[int, ...], int] = {}
    values: dict[tuple[int, ...], list[float]] = {c: [] for c in configs}
    started, t0 = now_iso(), time.monotonic()
    for r in range(args.rounds):
        order = configs[:]
        rng.shuffle(order)
        for i, config in enumerate(order):
            fn = stencil7(*config)
            if config not in loops:
                fn()  # warm-up
                loops[config] = calibrate_loops(fn, "time", args.min_time)
            values[config].append(measure_once(fn, "time", loops[config]))
            if i % 100 == 0:
                elapsed = time.monotonic() - t0
                print(
                    f"round {r + 1}/{args.rounds}: {i}/{len(order)} ({elapsed:.0f} s)",
                    file=sys.stderr,
                    flush=True,
                )
    matrix, speeds = round_corrected(np.array([values[c] for c in configs]))
    points = tuple(
        Point(at=tuple(float(x) for x in c), values=tuple(row))
        for c, row in zip(configs, matrix, strict=True)
    )
    mset = MeasurementSet(
        parameters=("n", "bx", "by", "bz"),
        kernels=(Kernel(name="stencil7", metric="time", unit="s", points=points),),
        run=RunInfo(started=started, machine=machine_info(), round_speed=tuple(speeds)),
    )
    save(mset, args.output)
    print(
        f"{len(configs)} configurations x {args.rounds} rounds in "
        f"{time.monotonic() - t0:.0f} s -> {args.output}"
    )


if __name__ == "__main__":
    main()
