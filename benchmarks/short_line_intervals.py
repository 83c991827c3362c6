"""How honest `perfguard model --predict` is on lines of 2, 3 and 4 sizes.

    .venv/bin/python benchmarks/short_line_intervals.py [--per-class 10] [--seed 1] \
        [--noise 1,5,20]

Seed 004's single-parameter family (the 43 classes of E, coefficients U[0.001, 1000],
uniform noise of +-n/2 %) measured at the first 2, 3 or 4 of x = 32, 64, 128, 256, with five
repetitions a point or one value a point, and predicted at 512 with the stated 90% interval
(``analyze(..., predict_at=512)``).  Printed per row: the share of true (noise-free) values
inside the interval, the interval's median high / low, and the median relative error (%) of
the model's own value.  A stated 90% interval should cover about 90%: less is overconfident.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from protocol004 import single_parameter_functions  # noqa: E402

from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import analyze  # noqa: E402

SIZES = np.array([32.0, 64.0, 128.0, 256.0])
AT = 512.0


def row(sizes: int, noise: float, repetitions: int, per_class: int, seed: int) -> dict:
    rng = np.random.default_rng([seed, sizes, int(noise * 10), repetitions])
    functions = single_parameter_functions(per_class, rng)
    x = SIZES[:sizes]
    kernels = []
    for i, fn in enumerate(functions):
        clean = fn(x[:, None])
        values = clean[:, None] * (1 + rng.uniform(-noise / 200, noise / 200, (sizes, repetitions)))
        points = tuple(Point((float(xi),), tuple(map(float, v))) for xi, v in zip(x, values))
        kernels.append(Kernel(f"f{i}", "time", points))
    analyses = analyze(MeasurementSet(("x",), tuple(kernels)), predict_at=AT, level=0.9)
    truth = np.array([float(fn(np.array([[AT]]))[0]) for fn in functions])
    pred = [a.model.extra("prediction").prediction for a in analyses]
    low = np.array([p.low for p in pred])
    high = np.array([p.high for p in pred])
    value = np.array([p.value for p in pred])
    return {
        "sizes": sizes,
        "noise": noise,
        "repetitions": repetitions,
        "covered": float(np.mean((low <= truth) & (truth <= high)) * 100),
        "width": float(np.median(high / low)),
        "error": float(np.median(np.abs(value - truth) / truth) * 100),
        "functions": len(functions),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-class", type=int, default=10, help="functions per class of E")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--noise", default="1,5,20", help="noise levels in percent")
    args = ap.parse_args(argv)
    head = "| sizes | noise % | repetitions | covered % (90% stated) | high / low | error % |"
    print(head)
    print("|---:|---:|---:|---:|---:|---:|")
    for sizes in (2, 3, 4):
        for noise in (float(n) for n in args.noise.split(",")):
            for repetitions in (5, 1):
                r = row(sizes, noise, repetitions, args.per_class, args.seed)
                print(
                    f"| {sizes} | {noise:g} | {repetitions} | {r['covered']:.1f} | "
                    f"{r['width']:.2f} | {r['error']:.1f} |",
                    flush=True,
                )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
