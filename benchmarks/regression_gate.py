"""The CI-like regression benchmark: perfguard's gate against ratio rules, Extra-P and big_O.

    .venv/bin/python benchmarks/regression_gate.py --count 2000 --seed 1 [--peers] \
        [--jitter uniform|lognormal] [--drift 0.25] [--out benchmarks/out/gate]

Cases come from benchmarks/regression_cases.py (seeded; see its docstring for the noise
model).  perfguard runs its real ``check`` on measurement sets built from the cases:

* regression mode: ``check(candidate, baseline)``, a fail with ``regression`` true counts;
* expectation mode: ``check(candidate, expect "<= <baseline class>")`` without a baseline,
  a fail with ``violates_expectation`` true counts.

Detection is the share of class regressions that fail; false alarms the share of the
other cases (same class 10-30% slower, as fast or faster, improvements) that fail.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from regression_cases import LEVELS, Case, NoiseModel, generate  # noqa: E402

from guard.checking.check import CheckOptions, ExpectationRule, check  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402


def measurement_set(cases: list[Case], which: str) -> MeasurementSet:
    """One kernel per case: its baseline or candidate repetitions."""
    kernels = []
    for c in cases:
        values = getattr(c, which)
        points = tuple(Point((float(x),), tuple(map(float, v))) for x, v in zip(c.sizes, values))
        kernels.append(Kernel(c.id, "time", points))
    return MeasurementSet(("n",), tuple(kernels))


def perfguard_verdicts(cases: list[Case]) -> dict[str, np.ndarray]:
    """perfguard's fails in both modes (bool arrays in case order)."""
    current = measurement_set(cases, "candidate")
    baseline = measurement_set(cases, "baseline")
    reg = check(current, baseline, CheckOptions())
    rules = tuple(ExpectationRule(c.id, f"<= {c.base_class}") for c in cases)
    exp = check(current, None, CheckOptions(rules=rules))
    return {
        "regression": np.array([v.verdict == "fail" and v.regression for v in reg.verdicts]),
        "expectation": np.array(
            [v.verdict == "fail" and v.violates_expectation for v in exp.verdicts]
        ),
        "regression_inconclusive": np.array([v.verdict == "inconclusive" for v in reg.verdicts]),
    }


def rates(fails: np.ndarray, cases: list[Case]) -> dict[str, float]:
    reg = np.array([c.regression for c in cases])
    return {
        "detection": float(fails[reg].mean() * 100),
        "false_alarms": float(fails[~reg].mean() * 100),
    }


def by_kind(fails: np.ndarray, cases: list[Case]) -> dict[str, float]:
    """Fail rate (%) per regression pair, per slower class, and per other kind."""
    groups: dict[str, list[bool]] = {}
    for fail, c in zip(fails, cases):
        label = c.kind
        if c.kind in ("regression", "slower"):
            label = f"{c.kind} {c.base_class} -> {c.cand_class}"
        groups.setdefault(label, []).append(bool(fail))
    return {k: 100 * float(np.mean(v)) for k, v in sorted(groups.items())}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000, help="cases per noise level")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", type=float, nargs="*", default=list(LEVELS))
    ap.add_argument("--jitter", default="uniform", choices=["uniform", "lognormal"])
    ap.add_argument("--drift", type=float, default=0.25, help="per-size drift sd / jitter")
    ap.add_argument("--peers", action="store_true", help="also run ratio rules, Extra-P, big_O")
    ap.add_argument("--out", default="benchmarks/out/gate")
    args = ap.parse_args(argv)
    noise = NoiseModel(jitter=args.jitter, drift_ratio=args.drift)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    results = []
    for level in args.levels:
        cases = generate(level, args.count, args.seed, noise)
        t0 = time.perf_counter()
        ours = perfguard_verdicts(cases)
        seconds = time.perf_counter() - t0
        row: dict = {"level": level, "cases": len(cases), "perfguard_seconds": seconds}
        row["perfguard"] = rates(ours["regression"], cases)
        row["perfguard_expectation"] = rates(ours["expectation"], cases)
        row["perfguard_inconclusive"] = rates(ours["regression_inconclusive"], cases)
        row["perfguard_by_kind"] = by_kind(ours["regression"], cases)
        row["perfguard_expectation_by_kind"] = by_kind(ours["expectation"], cases)
        if args.peers:
            from regression_peers import peer_verdicts

            work = out / f"peers-{args.jitter}-{args.drift}-{level}-{args.seed}"
            peers = peer_verdicts(cases, work)
            for mode, table in peers.items():
                for name, fails in table.items():
                    row[f"{name}_{mode}"] = rates(np.asarray(fails, dtype=bool), cases)
                    row[f"{name}_{mode}_by_kind"] = by_kind(np.asarray(fails, dtype=bool), cases)
        results.append(row)
        print(_line(row), flush=True)
    name = f"gate-{args.jitter}-{args.drift}-seed{args.seed}.json"
    (out / name).write_text(json.dumps(results, indent=1))
    print(f"wrote {out / name}")
    return 0


def _line(row: dict) -> str:
    parts = [f"jitter {row['level']:.0%}:"]
    for key in sorted(k for k in row if isinstance(row[k], dict) and "detection" in row[k]):
        r = row[key]
        parts.append(f"{key} {r['detection']:.1f}/{r['false_alarms']:.2f}")
    return "  ".join(parts) + f"  ({row['perfguard_seconds']:.1f} s)"


if __name__ == "__main__":
    raise SystemExit(main())
