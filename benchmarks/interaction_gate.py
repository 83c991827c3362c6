"""Products of parameters on 5 x 5 grids: does `perfguard check` tell ``p n`` from ``p + n``?

Each case is a kernel over p in 64..1024 and n in 1000..16000 (doubling), five repetitions,
uniform jitter, per-point drift of 0.5 x the jitter: ``c + a g(p) + b h(n)`` (a sum) or the
same plus ``k a b g(p) h(n)`` (an interaction of strength k in 0.1..10), g and h drawn from
log, sqrt, x, x log x and x^2, each effect 5-100% of the top value. Both kinds are checked
against the bound made of the sum's own terms (``<= g + h``) and, in regression mode, a
product candidate against a sum baseline of the same g and h; sums against sums are the
non-regressions. Prints detection and false alarms per jitter level, and the distribution
of the corner statistic on the sums (what ``interaction.DECISIVE`` was set from).

    .venv/bin/python benchmarks/interaction_gate.py --count 300 --seed 1
"""

from __future__ import annotations

import argparse
import itertools
import math

import numpy as np

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.classes import GrowthClass
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling import analyze
from guard.modeling.interaction import DECISIVE, interaction

P = (64, 128, 256, 512, 1024)
N = (1000, 2000, 4000, 8000, 16000)
SHAPES = {
    "log": (lambda x: math.log2(x), "log {}"),
    "sqrt": (lambda x: x**0.5, "{}^0.5"),
    "x": (lambda x: x, "{}"),
    "xlog": (lambda x: x * math.log2(x), "{} log {}"),
    "x2": (lambda x: x * x, "{}^2"),
}


def case(rng: np.random.Generator, name: str, interact: bool, jitter: float):
    a, b = rng.choice(list(SHAPES), 2)
    (g, gt), (h, ht) = SHAPES[a], SHAPES[b]
    sa, sb = rng.uniform(0.05, 1) / g(P[-1]), rng.uniform(0.05, 1) / h(N[-1])
    c, k = rng.uniform(0.02, 1), 10 ** rng.uniform(-1, 1)
    drift = 0.5 * jitter / math.sqrt(3)
    points = []
    for p, n in itertools.product(P, N):
        value = c + sa * g(p) + sb * h(n) + (k * sa * sb * g(p) * h(n) if interact else 0.0)
        value *= 1 + drift * rng.standard_normal()
        points.append(Point((p, n), tuple(value * (1 + rng.uniform(-jitter, jitter, 5)))))
    bound = f"<= {gt.format('p', 'p')} + {ht.format('n', 'n')}"
    return Kernel(name, "time", tuple(points)), bound, (a, b, c, sa, sb)


def level(count: int, jitter: float, seed: int) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    sums, products, rules = [], [], []
    for i in range(count):
        state = rng.bit_generator.state
        kernel, bound, _ = case(rng, f"k{i}", False, jitter)
        sums.append(kernel)
        rng.bit_generator.state = state  # the same shapes and shares, with a product
        product, _, _ = case(rng, f"k{i}", True, jitter)
        products.append(product)
        case(rng, f"k{i}", False, jitter)  # unused draw, kept: the published numbers' stream
        rules.append(ExpectationRule(f"k{i}", bound))
    options = CheckOptions(rules=tuple(rules))
    mset = lambda ks: MeasurementSet(("p", "n"), tuple(ks))  # noqa: E731
    out: dict[str, float] = {}
    for label, kernels in (("sum", sums), ("product", products)):
        verdicts = check(mset(kernels), options=options).verdicts
        out[f"bound {label} fail"] = 100 * np.mean([v.violates_expectation for v in verdicts])
    # regression mode: same shapes, a sum baseline measured apart
    rng2 = np.random.default_rng(seed + 1000)
    rebased = []
    for kernel in sums:  # the sum again, with fresh noise
        scale = [float(np.median(q.values)) for q in kernel.points]
        drift = 0.5 * jitter / math.sqrt(3)
        rebased.append(
            Kernel(
                kernel.name,
                "time",
                tuple(
                    Point(
                        q.at,
                        tuple(
                            v
                            * (1 + drift * rng2.standard_normal())
                            * (1 + rng2.uniform(-jitter, jitter, 5))
                        ),
                    )
                    for q, v in zip(kernel.points, scale)
                ),
            )
        )
    base = mset(rebased)
    for label, kernels in (("sum", sums), ("product", products)):
        verdicts = check(mset(kernels), base).verdicts
        out[f"regression {label} fail"] = 100 * np.mean([v.regression for v in verdicts])
    z = []
    for analysis in analyze(mset(sums)):
        error = max(float(le.evidence.sigma[0]) for le in analysis.lines)
        found = interaction(analysis.kernel, ("p", "n"), "p", "n", error)
        if found is not None:
            z.append((found.z, found.held))
    zs = np.array(z)
    shown = decisive = 0
    for analysis in analyze(mset(products)):
        assert analysis.model is not None
        shown += any(len(m.factors) > 1 for m in GrowthClass.from_model(analysis.model).monomials)
        error = max(float(le.evidence.sigma[0]) for le in analysis.lines)
        found = interaction(analysis.kernel, ("p", "n"), "p", "n", error)
        decisive += found is not None and found.decisive(*DECISIVE)
    out["products shown"] = 100 * shown / count
    out["products decisive"] = 100 * decisive / count
    out["sum z 99%"] = float(np.quantile(zs[:, 0], 0.99))
    out["sum z max"] = float(zs[:, 0].max())
    out["sum held max"] = float(zs[:, 1].max())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--count", type=int, default=300)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--levels", type=float, nargs="+", default=[0.01, 0.05, 0.1, 0.2, 0.35])
    args = parser.parse_args()
    print(
        "| jitter | bound: products failed | bound: sums failed | regression: products failed "
        "| regression: sums failed | products the model shows as one | products whose corners "
        "are decisive | sums' corner z, 99% / max | held max |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for jitter in args.levels:
        r = level(args.count, jitter, args.seed)
        print(
            f"| {100 * jitter:g}% | {r['bound product fail']:.1f} | {r['bound sum fail']:.1f} | "
            f"{r['regression product fail']:.1f} | {r['regression sum fail']:.1f} | "
            f"{r['products shown']:.1f} | {r['products decisive']:.1f} | "
            f"{r['sum z 99%']:.2f} / {r['sum z max']:.2f} | {r['sum held max']:.2f} |"
        )


if __name__ == "__main__":
    main()
