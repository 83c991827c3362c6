"""Is a several-parameter model's stated class probability (``sure``, `parameter_confidence`)
honest? How often the model's class in a parameter is the true one, by stated probability.

`perfguard model` states, for a model of several parameters, the probability of its class
in each parameter, read off that parameter's longest line. On seed 004's two-parameter
functions (protocol004.py: each parameter's class from E, additive or multiplicative,
coefficients U[0.001, 1000], each value times 1 + U[-n/200, n/200]) on the full 5 x 5 grid
and the nine-point cross through its first corner, with 1 or 5 repetitions, each stated
probability is put in a bin and compared with the share of those classes that are right.
A truth of several terms in one parameter is not in the test (protocol004 draws one class
per parameter); "right" means the model's lead order in that parameter equals the truth's.

    python benchmarks/parameter_confidence.py [--seed 1] [--count 60]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from protocol004 import COMBOS, design_set, multi_parameter_functions  # noqa: E402

from guard.modeling import model_measurements  # noqa: E402

BINS = (0.0, 0.5, 0.8, 0.95, 0.99, 1.0001)
PARAMS = ("x1", "x2")


def stated(
    seed: int, count: int, design: str, reps: int, level: int
) -> tuple[np.ndarray, np.ndarray]:
    """(stated probability, right) of every parameter of every model, over all five series
    combinations."""
    probs: list[float] = []
    right: list[bool] = []
    for combo, kinds in enumerate(COMBOS[2]):
        fns = multi_parameter_functions(2, count, np.random.default_rng([seed, 7, combo]))
        rng = np.random.default_rng([seed, 7, combo, level, reps])
        mset = design_set(fns, kinds, design, level, reps, rng, PARAMS)
        for m in model_measurements(mset).models:
            each = m.extra("parameter_confidence")
            if each is None:
                continue
            fn = fns[int(m.kernel[1:])]
            for conf in each.parameters:
                j = PARAMS.index(conf.parameter)
                probs.append(conf.probability)
                right.append(m.lead_order(conf.parameter) == tuple(fn.exponents[j]))
    return np.array(probs), np.array(right)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--count", type=int, default=60, help="functions per series combination")
    args = ap.parse_args()
    bins = [f"[{lo:g}, {min(hi, 1):g})" for lo, hi in zip(BINS, BINS[1:])]
    print(
        "| design | reps | noise % | stated (mean) | right | "
        + " | ".join(f"{b}: right of n" for b in bins)
        + " |"
    )
    print("|---|---:|---:|---:|---:|" + "---:|" * len(bins))
    for design in ("grid", "cross"):
        for reps in (1, 5):
            for level in (2, 10, 50):
                t0 = time.perf_counter()
                p, r = stated(args.seed, args.count, design, reps, level)
                which = np.digitize(p, BINS) - 1
                cells = []
                for b in range(len(bins)):
                    sel = which == b
                    cells.append(f"{r[sel].mean():.0%} of {sel.sum()}" if sel.any() else "-")
                print(
                    f"| {design} | {reps} | {level} | {p.mean():.1%} | {r.mean():.1%} | "
                    + " | ".join(cells)
                    + f" |  <!-- {time.perf_counter() - t0:.0f} s -->",
                    flush=True,
                )


if __name__ == "__main__":
    main()
