"""Peers of perfguard's regression gate, run on the seeded cases of ``regression_cases``.

Each peer gives a verdict (fail / pass) per baseline/candidate case:

* ``ratio-150`` / ``ratio-200`` -- github-action-benchmark style "fail when the largest size is
  X% slower": fail if median(candidate at the largest size) / median(baseline at the largest
  size) > 1.5 (resp. > 2.0).  Regression mode only.
* ``extrap`` -- Extra-P 4.2.5's default single-parameter modeler with the CLI's defaults
  (measure = mean) models every baseline and every candidate kernel; it runs in its own
  virtualenv through ``extrap_runner.py`` (flags in ``EXTRAP_FLAGS``) on Extra-P text files,
  one file per distinct size series (kernels in one file must share their POINTS), with one
  REGION ``<case id>/base`` and one ``<case id>/cand`` per case.  A model's order is the
  ``(alpha, beta)`` of its lead-order term (``x^alpha * log2(x)^beta``; a constant model is
  ``(0, 0)``), compared lexicographically as Fractions.  Regression mode: fail if the
  candidate's order > the baseline's.  Expectation mode: fail if the candidate's order > the
  order of the expected class (the case's ``base_class``, ``regression_cases.CLASSES``).  A
  kernel Extra-P fails to model counts as "no fail" (and is counted in ``extrap_errors``).
* ``big_o`` -- ``big_o.infer_big_o_class(sizes, median time per size)`` with the library's
  default class list, run in its own virtualenv through ``bigo_runner.py``.  Classes are ranked

      Constant 0 < Logarithmic 1 < Linear 2 < Linearithmic 3 < Quadratic 4 < Cubic 5
      < Exponential 7

  and ``Polynomial`` (``c * n^k``) by its fitted exponent ``k``, piecewise linearly through
  the polynomial anchors Constant (k = 0, rank 0), Linear (k = 1, rank 2), Quadratic (k = 2,
  rank 4) and Cubic (k = 3, rank 5): rank = 2k for k <= 2 (negative for a decreasing fit),
  4 + (k - 2) for 2 < k <= 3, and 7 - 6 / k above 3 (continuous at k = 3, approaching but
  never reaching Exponential).  So n^0.5 ranks with Logarithmic (1) and n^1.5 with
  Linearithmic (3): both sit halfway between their polynomial neighbours.  Regression mode:
  fail if the candidate's rank > the baseline's.  Expectation mode: the expected class maps to
  a big_O class (``EXPECTED_BIGO``: ``sqrt n`` -> Polynomial k = 0.5, ``n^1.5`` -> Polynomial
  k = 1.5) and the candidate fails if its rank is greater.  A series big_O fails on counts as
  "no fail" (``big_o_errors``).  big_O's ``simplicity_bias`` (default 1e-6) is an *absolute*
  margin on sums of squared residuals in seconds^2, so with it every sub-millisecond series is
  classed Constant; ``bigo_simplicity_bias`` (None = the library default) overrides it.

Neither ``extrap`` nor ``big_o`` is imported here: both run as subprocesses of their own
interpreters.  Intermediate files go to ``WORKDIR/<tool>/<hash>/`` where the hash covers the
case data and the tool's flags, so a re-run on the same cases reuses the results.

Command line (prints detection and false-alarm rates, overall and by kind, for both modes)::

    .venv/bin/python benchmarks/regression_peers.py --level 0.1 --count 200 --seed 0 \\
        --out benchmarks/out/peers
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from regression_cases import CLASSES, Case, generate  # noqa: E402

__all__ = [
    "BIGO_RANKS",
    "EXPECTATION_PEERS",
    "EXPECTED_BIGO",
    "EXTRAP_FLAGS",
    "PEERS",
    "PeerDetails",
    "bigo_rank",
    "peer_details",
    "peer_verdicts",
]

PEERS = ("ratio-150", "ratio-200", "extrap", "big_o")
EXPECTATION_PEERS = ("extrap", "big_o")
RATIO_LIMITS = {"ratio-150": 1.5, "ratio-200": 2.0}
EXTRAP_PYTHON = "/work/extrap-venv/bin/python"
BIGO_PYTHON = "/work/bigo-venv/bin/python"
EXTRAP_FLAGS = ("--modeler", "default", "--measure", "mean", "--disable-progress")
CACHE_VERSION = "1"  # bump when the files written or the way results are read change

BIGO_RANKS = {
    "Constant": 0.0,
    "Logarithmic": 1.0,
    "Linear": 2.0,
    "Linearithmic": 3.0,
    "Quadratic": 4.0,
    "Cubic": 5.0,
    "Exponential": 7.0,
}
# expected class -> (big_O class, Polynomial exponent)
EXPECTED_BIGO: dict[str, tuple[str, float | None]] = {
    "1": ("Constant", None),
    "log n": ("Logarithmic", None),
    "sqrt n": ("Polynomial", 0.5),
    "n": ("Linear", None),
    "n log n": ("Linearithmic", None),
    "n^1.5": ("Polynomial", 1.5),
    "n^2": ("Quadratic", None),
}

Order = tuple[Fraction, Fraction]


def bigo_rank(name: str, exponent: float | None = None) -> float:
    """Rank of a big_O class; ``Polynomial`` is placed by its exponent (see the docstring)."""
    if name != "Polynomial":
        return BIGO_RANKS[name]
    k = float(exponent)
    if k <= 2:
        return 2 * k
    if k <= 3:
        return 4 + (k - 2)
    return 7 - 6 / k


# ---- case data ---------------------------------------------------------------------------------


def cases_digest(cases: Sequence[Case], *extra: str) -> str:
    """Hash of everything the peers read from the cases (plus ``extra``, e.g. tool flags)."""
    h = hashlib.sha256(CACHE_VERSION.encode())
    for part in extra:
        h.update(b"\0" + part.encode())
    for case in cases:
        h.update(f"\0{case.id}\0{case.kind}\0{case.base_class}\0{case.cand_class}".encode())
        for array in (case.sizes, case.baseline, case.candidate):
            h.update(np.ascontiguousarray(array, dtype=float).tobytes())
    return h.hexdigest()[:16]


def _run(command: list[str]) -> float:
    """Run a subprocess, raising with its stderr on failure; returns the wall-clock seconds."""
    t0 = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return time.perf_counter() - t0


# ---- ratio rules -------------------------------------------------------------------------------


def ratio_verdicts(cases: Sequence[Case]) -> dict[str, np.ndarray]:
    """Fail if the median at the largest size grew by more than each rule's limit."""
    ratios = np.array(
        [np.median(c.candidate[-1]) / np.median(c.baseline[-1]) for c in cases], dtype=float
    )
    return {peer: ratios > limit for peer, limit in RATIO_LIMITS.items()}


# ---- Extra-P -----------------------------------------------------------------------------------


def extrap_text(sizes: np.ndarray, kernels: dict[str, np.ndarray]) -> str:
    """Extra-P text file: one parameter ``n``, one REGION per kernel, one DATA line per size."""
    lines = [
        "PARAMETER n",
        "POINTS " + " ".join(f"( {float(n)!r} )" for n in sizes),
        "METRIC time",
    ]
    for name, values in kernels.items():
        lines.append(f"REGION {name}")
        lines.extend("DATA " + " ".join(repr(float(v)) for v in row) for row in values)
    return "\n".join(lines) + "\n"


def _order(kernel: dict) -> Order:
    return Fraction(kernel["lead_alpha"]), Fraction(kernel["lead_beta"])


def _modeled(output: Path) -> bool:
    """Whether a cached Extra-P result exists (a whole-file failure is retried, not reused)."""
    return output.exists() and "error" not in json.loads(output.read_text())


def extrap_models(
    cases: Sequence[Case], workdir: Path, python: str = EXTRAP_PYTHON
) -> tuple[dict[str, dict], dict]:
    """Extra-P's result entry per kernel name (``<id>/base``, ``<id>/cand``) and run info."""
    directory = Path(workdir) / "extrap" / cases_digest(cases, *EXTRAP_FLAGS)
    groups: dict[tuple[float, ...], list[Case]] = {}
    for case in cases:
        groups.setdefault(tuple(float(n) for n in case.sizes), []).append(case)
    inputs, outputs = [], []
    for sizes, members in sorted(groups.items()):
        stem = directory / f"sizes-{int(sizes[0])}"
        inputs.append(stem.with_suffix(".txt"))
        outputs.append(stem.with_suffix(".json"))
        kernels = {}
        for case in members:
            kernels[f"{case.id}/base"] = case.baseline
            kernels[f"{case.id}/cand"] = case.candidate
        if not _modeled(outputs[-1]):
            directory.mkdir(parents=True, exist_ok=True)
            inputs[-1].write_text(extrap_text(np.array(sizes), kernels))
    todo = [(i, o) for i, o in zip(inputs, outputs) if not _modeled(o)]
    info = {"cached": not todo, "wall_seconds": 0.0, "files": len(inputs)}
    if todo:
        command = [python, str(HERE / "extrap_runner.py"), *(str(i) for i, _ in todo)]
        command += [*EXTRAP_FLAGS, *(a for _, o in todo for a in ("--out", str(o)))]
        info["wall_seconds"] = _run(command)
    models: dict[str, dict] = {}
    info["read_seconds"] = info["model_seconds"] = 0.0
    for output in outputs:
        result = json.loads(output.read_text())
        info["read_seconds"] += result["read_seconds"]
        info["model_seconds"] += result["model_seconds"]
        models.update((kernel["name"], kernel) for kernel in result["kernels"])
    info["kernels"] = len(models)
    return models, info


# ---- big_O -------------------------------------------------------------------------------------


def bigo_classes(
    cases: Sequence[Case],
    workdir: Path,
    python: str = BIGO_PYTHON,
    simplicity_bias: float | None = None,
) -> tuple[dict[str, dict], dict]:
    """big_O's result entry per series key (``<id>/base``, ``<id>/cand``) and run info."""
    flags = [] if simplicity_bias is None else ["--simplicity-bias", repr(float(simplicity_bias))]
    directory = Path(workdir) / "big_o" / cases_digest(cases, "median", *flags)
    series_path, result_path = directory / "series.json", directory / "result.json"
    info = {"cached": result_path.exists(), "wall_seconds": 0.0}
    if not result_path.exists():
        series = [
            {"key": f"{case.id}/{role}", "ns": case.sizes.tolist(), "times": values}
            for case in cases
            for role, data in (("base", case.baseline), ("cand", case.candidate))
            for values in [np.median(data, axis=1).tolist()]
        ]
        directory.mkdir(parents=True, exist_ok=True)
        series_path.write_text(json.dumps({"series": series}))
        command = [python, str(HERE / "bigo_runner.py"), str(series_path)]
        info["wall_seconds"] = _run([*command, *flags, "--out", str(result_path)])
    result = json.loads(result_path.read_text())
    info["seconds"] = result["seconds"]
    info["simplicity_bias"] = result["simplicity_bias"]
    return {entry["key"]: entry for entry in result["results"]}, info


# ---- verdicts ----------------------------------------------------------------------------------


@dataclass
class PeerDetails:
    """Verdicts plus what they were computed from (per case, in case order)."""

    verdicts: dict[str, dict[str, np.ndarray]]
    extrap_orders: list[tuple[Order | None, Order | None]]
    extrap_errors: int
    bigo_ranks: list[tuple[float | None, float | None]]
    bigo_classes: list[tuple[str | None, str | None]]
    bigo_errors: int
    info: dict = field(default_factory=dict)


def peer_details(
    cases: Sequence[Case],
    workdir: Path,
    extrap_python: str = EXTRAP_PYTHON,
    bigo_python: str = BIGO_PYTHON,
    *,
    bigo_simplicity_bias: float | None = None,
) -> PeerDetails:
    """Run every peer on ``cases``; see ``peer_verdicts`` for the verdicts' layout."""
    cases = list(cases)
    regression = dict(ratio_verdicts(cases))

    models, extrap_info = extrap_models(cases, workdir, extrap_python)
    orders: list[tuple[Order | None, Order | None]] = []
    for case in cases:
        entries = (models.get(f"{case.id}/base"), models.get(f"{case.id}/cand"))
        orders.append(tuple(None if e is None or "error" in e else _order(e) for e in entries))
    regression["extrap"] = np.array(
        [b is not None and c is not None and c > b for b, c in orders], dtype=bool
    )
    extrap_expect = np.array(
        [c is not None and c > CLASSES[case.base_class] for case, (_, c) in zip(cases, orders)],
        dtype=bool,
    )

    fits, bigo_info = bigo_classes(cases, workdir, bigo_python, bigo_simplicity_bias)
    ranks: list[tuple[float | None, float | None]] = []
    names: list[tuple[str | None, str | None]] = []
    for case in cases:
        entries = (fits[f"{case.id}/base"], fits[f"{case.id}/cand"])
        ok = [e if "error" not in e else None for e in entries]
        names.append(tuple(None if e is None else e["class"] for e in ok))
        ranks.append(tuple(None if e is None else bigo_rank(e["class"], e["exponent"]) for e in ok))
    regression["big_o"] = np.array(
        [b is not None and c is not None and c > b for b, c in ranks], dtype=bool
    )
    bigo_expect = np.array(
        [
            c is not None and c > bigo_rank(*EXPECTED_BIGO[case.base_class])
            for case, (_, c) in zip(cases, ranks)
        ],
        dtype=bool,
    )

    verdicts = {
        "regression": {peer: regression[peer] for peer in PEERS},
        "expectation": {"extrap": extrap_expect, "big_o": bigo_expect},
    }
    return PeerDetails(
        verdicts=verdicts,
        extrap_orders=orders,
        extrap_errors=sum(o is None for pair in orders for o in pair),
        bigo_ranks=ranks,
        bigo_classes=names,
        bigo_errors=sum(r is None for pair in ranks for r in pair),
        info={"extrap": extrap_info, "big_o": bigo_info},
    )


def peer_verdicts(
    cases: Sequence[Case],
    workdir: Path,
    extrap_python: str = EXTRAP_PYTHON,
    bigo_python: str = BIGO_PYTHON,
    *,
    bigo_simplicity_bias: float | None = None,
) -> dict[str, dict[str, np.ndarray]]:
    """``{"regression": {peer: fails}, "expectation": {"extrap": fails, "big_o": fails}}``.

    Every ``fails`` is a bool array with one entry per case (True = the peer fails the case).
    ``bigo_simplicity_bias`` overrides big_O's default (see the module docstring).
    """
    details = peer_details(
        cases, workdir, extrap_python, bigo_python, bigo_simplicity_bias=bigo_simplicity_bias
    )
    return details.verdicts


# ---- command line ------------------------------------------------------------------------------

KINDS = ("regression", "slower", "same-or-faster", "improvement")


def summarize(cases: Sequence[Case], verdicts: dict[str, dict[str, np.ndarray]]) -> dict:
    """Fail rates in % per mode and peer: detection, false alarm, and per kind."""
    kinds = np.array([c.kind for c in cases])
    regression = kinds == "regression"
    summary: dict = {}
    for mode, peers in verdicts.items():
        for peer, fails in peers.items():
            row = {
                "detection": 100 * float(fails[regression].mean()),
                "false_alarm": 100 * float(fails[~regression].mean()),
            }
            row.update({k: 100 * float(fails[kinds == k].mean()) for k in KINDS if k in kinds})
            summary.setdefault(mode, {})[peer] = row
    return summary


def print_summary(level: float, count: int, seed: int, details: PeerDetails, summary: dict):
    bias = details.info["big_o"]["simplicity_bias"]
    bias = "default" if bias is None else f"{bias:g}"
    print(f"\nlevel {level:g}, {count} cases, seed {seed} (big_O simplicity_bias {bias})")
    print(
        f"  {'mode':<12}{'peer':<11}{'detect%':>8}{'false%':>8}"
        + "".join(f"{k:>16}" for k in KINDS)
    )
    for mode, peers in summary.items():
        for peer, row in peers.items():
            cells = "".join(f"{row.get(k, float('nan')):16.1f}" for k in KINDS)
            print(f"  {mode:<12}{peer:<11}{row['detection']:8.1f}{row['false_alarm']:8.1f}{cells}")
    ex, bo = details.info["extrap"], details.info["big_o"]
    cached = " (cached)" if ex["cached"] else ""
    print(
        f"  Extra-P: {ex['kernels']} kernels in {ex['files']} files, {details.extrap_errors} "
        f"errors; wall {ex['wall_seconds']:.1f}s{cached}, read {ex['read_seconds']:.1f}s, "
        f"model {ex['model_seconds']:.1f}s"
    )
    cached = " (cached)" if bo["cached"] else ""
    print(
        f"  big_O: {2 * len(details.bigo_ranks)} series, {details.bigo_errors} errors; "
        f"wall {bo['wall_seconds']:.1f}s{cached}, infer {bo['seconds']:.1f}s"
    )


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--level", type=float, nargs="+", required=True, help="jitter level(s)")
    parser.add_argument("--count", type=int, default=200, help="cases per level")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, required=True, help="work and result directory")
    parser.add_argument("--extrap-python", default=EXTRAP_PYTHON)
    parser.add_argument("--bigo-python", default=BIGO_PYTHON)
    parser.add_argument(
        "--bigo-simplicity-bias",
        type=float,
        default=None,
        help="big_O's simplicity_bias (default: the library's, 1e-6 s^2)",
    )
    args = parser.parse_args(argv)

    for level in args.level:
        cases = generate(level, args.count, args.seed)
        details = peer_details(
            cases,
            args.out,
            args.extrap_python,
            args.bigo_python,
            bigo_simplicity_bias=args.bigo_simplicity_bias,
        )
        summary = summarize(cases, details.verdicts)
        print_summary(level, args.count, args.seed, details, summary)
        record = {
            "level": level,
            "count": args.count,
            "seed": args.seed,
            "extrap_flags": list(EXTRAP_FLAGS),
            "big_o_simplicity_bias": args.bigo_simplicity_bias,
            "extrap_errors": details.extrap_errors,
            "big_o_errors": details.bigo_errors,
            "info": details.info,
            "summary": summary,
            "cases": [
                {
                    "id": case.id,
                    "kind": case.kind,
                    "extrap": [None if o is None else [str(x) for x in o] for o in orders],
                    "big_o": list(classes),
                    "big_o_rank": list(ranks),
                    **{
                        f"{mode}/{peer}": bool(fails[i])
                        for mode, peers in details.verdicts.items()
                        for peer, fails in peers.items()
                    },
                }
                for i, (case, orders, classes, ranks) in enumerate(
                    zip(cases, details.extrap_orders, details.bigo_classes, details.bigo_ranks)
                )
            ],
        }
        bias = "" if args.bigo_simplicity_bias is None else f"_bias{args.bigo_simplicity_bias:g}"
        path = args.out / f"peers_level{level:g}_count{args.count}_seed{args.seed}{bias}.json"
        path.write_text(json.dumps(record, indent=1))
        print(f"  -> {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
