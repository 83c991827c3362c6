"""The CI-like gate benchmark: perfguard's check on two generators, next to the limit.

    .venv/bin/python benchmarks/regression_gate.py --count 2000 --seed 1 \
        [--generators regression,crossover] [--peers] [--out benchmarks/out/gate] [--caches] \
        [--per-case] [--drift R] [--setting NAME=VALUE]

Two seeded generators of baseline/candidate pairs:

* ``regression`` (benchmarks/regression_cases.py): the candidate's kernel matched to the
  baseline's at the smallest size; uniform jitter with a per-size drift of 0.25 x jitter;
* ``crossover`` (benchmarks/crossover_cases.py): the candidate matched at the *largest* size
  (0.8-2.5x), overhead up to 60% of the top-size time, lognormal jitter, classes up to n^3;
  ``--drift R`` sets its per-size drift to R x jitter (0.5 by default).

perfguard runs its real ``check`` on measurement sets built from the cases:

* regression mode: ``check(candidate, baseline)``, a fail with ``regression`` true counts;
* expectation mode: ``check(candidate, expect "<= <baseline class>")`` without a baseline,
  a fail with ``violates_expectation`` true counts.

Detection is the share of class regressions that fail; false alarms the share of the other
cases (same class slower or faster, improvements) that fail.  Beside perfguard, the limit
(benchmarks/limit_reference.py): a test told the baseline's true class, thresholded at 1%
false alarms per level -- an upper bound, not a peer.  ``--peers`` adds ratio rules,
Extra-P and big_O on the first generator (benchmarks/regression_peers.py).
``--caches`` records this machine's cache sizes with every set, as ``perfguard run`` does,
so check's memory-hierarchy rule for `time` (guard/checking/memory.py) applies.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import crossover_cases  # noqa: E402
import regression_cases  # noqa: E402
from limit_reference import reference_fails  # noqa: E402
from regression_cases import Case, NoiseModel  # noqa: E402

from guard.checking.check import CheckOptions, ExpectationRule, check  # noqa: E402
from guard.collection.caches import cache_sizes  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point, RunInfo  # noqa: E402
from guard.modeling.evidence import EvidenceSettings  # noqa: E402

LEVELS = (0.01, 0.03, 0.05, 0.10, 0.20, 0.35)
PAIR_TABLE_LEVELS = (0.01, 0.10)


def generate(
    generator: str,
    level: float,
    count: int,
    seed: int,
    factors: tuple[float, float] | None = None,
    drift: float | None = None,
) -> list[Case]:
    """The cases of one generator at one jitter level (``factors``: of the same-class cases;
    ``drift``: the crossover generator's per-size drift over its jitter, default 0.5)."""
    if generator == "crossover":
        ratio = crossover_cases.DRIFT_RATIO if drift is None else drift
        return crossover_cases.generate(level, count, seed, factors, ratio)
    noise = NoiseModel(jitter="uniform", drift_ratio=0.25)
    return regression_cases.generate(level, count, seed, noise, factors)


def measurement_set(cases: list[Case], which: str, run: RunInfo | None = None) -> MeasurementSet:
    """One kernel per case: its baseline or candidate repetitions (``run``: e.g. the cache
    sizes of a machine, which check's memory-hierarchy rule reads for `time` kernels)."""
    kernels = []
    for c in cases:
        values = getattr(c, which)
        points = tuple(Point((float(x),), tuple(map(float, v))) for x, v in zip(c.sizes, values))
        kernels.append(Kernel(c.id, "time", points))
    return MeasurementSet(("n",), tuple(kernels), run or RunInfo())


def bound(case: Case) -> str:
    """The expectation text for a case: its baseline's class."""
    return "<= " + case.base_class.replace("sqrt n", "n^0.5")


def perfguard_verdicts(
    cases: list[Case],
    run: RunInfo | None = None,
    per_case: bool = False,
    settings: EvidenceSettings | None = None,
) -> dict[str, np.ndarray]:
    """perfguard's fails in both modes (bool arrays in case order).

    All cases are one run's kernels by default, so the run's drift is read off all of them;
    ``per_case`` checks each case on its own, as a user with one kernel per file would.
    ``settings``: the evidence's, instead of the defaults (for experiments)."""
    if per_case:
        parts = [perfguard_verdicts([c], run, settings=settings) for c in cases]
        return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    current = measurement_set(cases, "candidate", run)
    baseline = measurement_set(cases, "baseline", run)
    s = settings or EvidenceSettings()
    reg = check(current, baseline, CheckOptions(settings=s))
    rules = tuple(ExpectationRule(c.id, bound(c)) for c in cases)
    exp = check(current, None, CheckOptions(rules=rules, settings=s))
    return {
        "regression": np.array([v.verdict == "fail" and v.regression for v in reg.verdicts]),
        "expectation": np.array(
            [v.verdict == "fail" and v.violates_expectation for v in exp.verdicts]
        ),
        "regression_inconclusive": np.array([v.verdict == "inconclusive" for v in reg.verdicts]),
        "expectation_inconclusive": np.array([v.verdict == "inconclusive" for v in exp.verdicts]),
        "regression_score": np.array(
            [v.probabilities.get("regression", 0.0) for v in reg.verdicts]
        ),
        "expectation_score": np.array(
            [v.probabilities.get("violation", 0.0) for v in exp.verdicts]
        ),
    }


def rates(fails: np.ndarray, cases: list[Case]) -> dict[str, float]:
    reg = np.array([c.regression for c in cases])
    return {
        "detection": float(fails[reg].mean() * 100),
        "false_alarms": float(fails[~reg].mean() * 100),
    }


def at_limit_point(score: np.ndarray, cases: list[Case], quantile: float = 0.99) -> np.ndarray:
    """perfguard's reported probability thresholded as the limit is: at the level's 99th
    percentile of the non-regressions (1% false alarms by construction, told the level)."""
    score = np.nan_to_num(score, nan=0.0)
    regression = np.array([c.regression for c in cases])
    return score > np.quantile(score[~regression], quantile)


def by_kind(fails: np.ndarray, cases: list[Case]) -> dict[str, float]:
    """Fail rate (%) per regression pair, per slower class, and per other kind."""
    groups: dict[str, list[bool]] = {}
    for fail, c in zip(fails, cases):
        label = c.kind
        if c.kind in ("regression", "slower"):
            label = f"{c.kind} {c.base_class} -> {c.cand_class}"
        groups.setdefault(label, []).append(bool(fail))
    return {k: 100 * float(np.mean(v)) for k, v in sorted(groups.items())}


def run_level(generator: str, level: float, args: argparse.Namespace) -> dict:
    """Every tool on one generator at one jitter level."""
    factors = tuple(float(f) for f in args.factors.split(",")) if args.factors else None
    cases = generate(generator, level, args.count, args.seed, factors, args.drift)
    t0 = time.perf_counter()
    run = RunInfo(machine={"caches": cache_sizes()}) if args.caches else None
    ours = perfguard_verdicts(cases, run, args.per_case, args.settings)
    seconds = time.perf_counter() - t0
    limit = reference_fails(cases)
    row: dict = {"generator": generator, "level": level, "cases": len(cases)}
    row["perfguard_seconds"] = seconds
    for mode in ("regression", "expectation"):
        row[f"perfguard_{mode}"] = rates(ours[mode], cases)
        row[f"perfguard_{mode}_inconclusive"] = rates(ours[f"{mode}_inconclusive"], cases)
        row[f"perfguard_{mode}_by_kind"] = by_kind(ours[mode], cases)
        point = at_limit_point(ours[f"{mode}_score"], cases)
        row[f"perfguard_{mode}_at_limit_point"] = rates(point, cases)
    row["limit"] = rates(limit, cases)
    row["limit_by_kind"] = by_kind(limit, cases)
    if args.peers and generator == "regression":
        from regression_peers import peer_verdicts

        work = Path(args.out) / f"peers-{generator}-{level}-{args.seed}"
        for mode, table in peer_verdicts(cases, work).items():
            for name, fails in table.items():
                row[f"{name}_{mode}"] = rates(np.asarray(fails, dtype=bool), cases)
    return row


def summary_table(rows: list[dict]) -> str:
    """Detection / false alarms per generator and level, perfguard next to the limit."""
    lines = [
        "| generator | jitter | perfguard regression | perfguard expectation | limit |",
        "|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        cells = [
            f"{r[k]['detection']:.1f} / {r[k]['false_alarms']:.2f}"
            for k in ("perfguard_regression", "perfguard_expectation", "limit")
        ]
        lines.append(f"| {r['generator']} | {r['level']:.0%} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def operating_point_table(rows: list[dict]) -> str:
    """perfguard at its own threshold (confidence 0.99) and at the limit's operating point."""
    lines = [
        "| generator | jitter | regression mode | at the limit's point | expectation mode | "
        "at the limit's point | limit |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    keys = (
        "perfguard_regression",
        "perfguard_regression_at_limit_point",
        "perfguard_expectation",
        "perfguard_expectation_at_limit_point",
        "limit",
    )
    for r in rows:
        cells = [f"{r[k]['detection']:.1f} / {r[k]['false_alarms']:.2f}" for k in keys]
        lines.append(f"| {r['generator']} | {r['level']:.0%} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def pair_table(rows: list[dict]) -> str:
    """Detection (%) by regression pair at the PAIR_TABLE_LEVELS."""
    chosen = [r for r in rows if r["level"] in PAIR_TABLE_LEVELS]
    header = "| generator | jitter | pair | perfguard regression | perfguard expectation | limit |"
    lines = [header, "|---|---:|---|---:|---:|---:|"]
    for r in chosen:
        for pair, value in r["perfguard_regression_by_kind"].items():
            if not pair.startswith("regression "):
                continue
            exp = r["perfguard_expectation_by_kind"][pair]
            lim = r["limit_by_kind"][pair]
            name = pair.removeprefix("regression ")
            lines.append(
                f"| {r['generator']} | {r['level']:.0%} | {name} | {value:.0f} | {exp:.0f} | "
                f"{lim:.0f} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=2000, help="cases per noise level")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", type=float, nargs="*", default=list(LEVELS))
    ap.add_argument("--generators", default="regression,crossover")
    ap.add_argument("--peers", action="store_true", help="ratio rules, Extra-P, big_O too")
    ap.add_argument("--out", default="benchmarks/out/gate")
    ap.add_argument(
        "--factors",
        default="",
        help="LO,HI: same-class cases change the kernel's constant factor LO-HIx slower or "
        "1/HI-1/LO faster (default 1.1-1.3 slower, 0.7-1.0 faster)",
    )
    ap.add_argument(
        "--drift",
        type=float,
        default=None,
        metavar="R",
        help="the crossover generator's per-size drift as R x its jitter (default 0.5)",
    )
    ap.add_argument("--caches", action="store_true", help="record this machine's cache sizes")
    ap.add_argument(
        "--per-case", action="store_true", help="check each case alone (one kernel a run)"
    )
    ap.add_argument(
        "--setting",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an EvidenceSettings field changed for an experiment, e.g. drift_prior=0.75",
    )
    args = ap.parse_args(argv)
    args.settings = evidence_settings(ap, args.setting)
    if args.caches:
        print(f"every set records this machine's cache sizes: {cache_sizes()}")
    Path(args.out).mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    rows = []
    for generator in args.generators.split(","):
        for level in args.levels:
            row = run_level(generator, level, args)
            rows.append(row)
            print(_line(row), flush=True)
    tag = f"-factors{args.factors.replace(',', '-')}" if args.factors else ""
    tag += f"-drift{args.drift:g}" if args.drift is not None else ""
    tag += "-caches" if args.caches else ""
    tag += "-per-case" if args.per_case else ""
    tag += "".join(f"-{pair}" for pair in args.setting)
    name = Path(args.out) / f"gate-seed{args.seed}{tag}.json"
    name.write_text(json.dumps(rows, indent=1))
    print(f"\n{summary_table(rows)}\n\n{operating_point_table(rows)}\n\n{pair_table(rows)}\n")
    print(f"wrote {name}; {time.perf_counter() - started:.0f} s in all")
    return 0


def evidence_settings(ap: argparse.ArgumentParser, pairs: list[str]) -> EvidenceSettings:
    """EvidenceSettings with each NAME=VALUE of ``pairs`` changed (numbers only)."""
    names = {f.name for f in dataclasses.fields(EvidenceSettings)}
    changed = {}
    for pair in pairs:
        name, _, value = pair.partition("=")
        if name not in names:
            ap.error(f"--setting {pair}: no evidence setting {name!r}")
        try:
            changed[name] = float(value)
        except ValueError:
            ap.error(f"--setting {pair}: {value!r} is not a number")
    if changed:
        print(f"evidence settings changed: {changed}")
    return dataclasses.replace(EvidenceSettings(), **changed)


def _line(row: dict) -> str:
    parts = [f"{row['generator']} {row['level']:.0%}:"]
    for key in sorted(k for k in row if isinstance(row[k], dict) and "detection" in row[k]):
        if key.endswith(("_inconclusive", "_at_limit_point")):
            continue
        r = row[key]
        parts.append(f"{key} {r['detection']:.1f}/{r['false_alarms']:.2f}")
    return "  ".join(parts) + f"  ({row['perfguard_seconds']:.1f} s)"


if __name__ == "__main__":
    raise SystemExit(main())
