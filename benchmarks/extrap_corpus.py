"""Extra-P 4.2.5 and perfguard on every input of Extra-P's own test data (issue 18).

Usage (Extra-P lives in its own virtualenv; it is never a perfguard dependency)::

    git -C /work/.mirror/extra-p+extrap/repo archive HEAD tests/data | tar -x -C /tmp/x
    .venv/bin/python benchmarks/extrap_corpus.py /tmp/x/tests/data \
        [--extrap-python /work/peers/extrap/bin/python] [--cache DIR] [--json OUT.json] \
        [--scaling weak|weak_threaded|strong] [--inclusive]

Every input of the tree is found as Extra-P's tests use it: a folder whose subfolders hold
``*.cubex`` files is one CUBE set (Extra-P's ``--cube``), ``*.txt`` files are Extra-P text, or
TaLPas when they open with ``{``, ``*.json``/``*.JSON``/``*.jsonl`` are read by Extra-P's JSON
reader (which also reads JSON Lines), ``*.extra-p`` are saved experiments, and files opening
with ``EXTRAP_EXPERIMENT`` are Extra-P 3 experiments; anything else (a ``.py``, a ``.csv``)
is not an input.  An input is *invalid* when Extra-P's own tests expect its reader to refuse
it (``assertRaises`` in its ``tests/test_load_*.py``): the ``*_neg*`` files, the
``negative_example*`` CUBE sets and ``json/input_11.JSON`` (a declared coordinate nothing
was measured at).

Extra-P: ``benchmarks/extrap_corpus_runner.py`` in the Extra-P interpreter, one process per
input (results cached in ``--cache``, since Extra-P does not change between perfguard runs).
perfguard: ``guard.formats.load`` (auto-detected, as a user gets it) and the default modeler,
in this process.  An input is *modelled* by a tool when at least one kernel got a model.

Prints the table both / only Extra-P / only perfguard / neither, the invalid inputs, the
refusals of the inputs only Extra-P models with perfguard's reason, and -- where both model a
single-parameter kernel -- how often the lead classes (the highest growing term's
``x^alpha log^beta x``) agree.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

import numpy as np

from guard import formats
from guard.errors import PerfguardError
from guard.modeling import model_measurements

HERE = Path(__file__).resolve().parent
RUNNER = HERE / "extrap_corpus_runner.py"
DEFAULT_EXTRAP = "/work/peers/extrap/bin/python"
JSON_SUFFIXES = {".json", ".jsonl"}
NOT_INPUTS = {".py", ".csv", ".cfg", ".keep", ".cubex"}
# refused by Extra-P's tests though their names do not say so (test_load_json_file.py)
INVALID_BY_TESTS = {"json/input_11.JSON"}


@dataclass(frozen=True)
class Input:
    path: Path
    kind: str  # Extra-P's reader: text, talpas, json, experiment, extrap3, cube
    name: str  # relative to the data folder

    @property
    def invalid(self) -> bool:
        """Extra-P's own tests expect its reader to refuse this input."""
        named = "_neg" in self.path.name or self.path.name.startswith("negative_example")
        return named or self.name in INVALID_BY_TESTS


@dataclass
class Outcome:
    modelled: int = 0  # kernels with a model
    kernels: int = 0
    error: str | None = None  # the whole input refused (None: read)
    leads: dict[tuple[str, str], tuple[Fraction, Fraction]] = field(default_factory=dict)
    reasons: Counter = field(default_factory=Counter)  # why kernels went without a model
    means: dict[tuple[str, str], dict[tuple[float, ...], float]] | None = None  # as read
    seconds: float = 0.0

    @property
    def models(self) -> bool:
        return self.modelled > 0


def find_inputs(root: Path) -> list[Input]:
    found: list[Input] = []
    for path in sorted(root.rglob("*")):
        if any(parent in {i.path for i in found if i.kind == "cube"} for parent in path.parents):
            continue
        kind = _kind(path)
        if kind is not None:
            found.append(Input(path, kind, str(path.relative_to(root))))
    return found


def _kind(path: Path) -> str | None:
    if path.is_dir():
        return "cube" if any(path.glob("*/*.cubex")) else None
    suffix = path.suffix.lower()
    if suffix in NOT_INPUTS:
        return None
    head = path.read_bytes()[:64]
    if suffix == ".extra-p":
        return "experiment"
    if b"EXTRAP_EXPERIMENT" in head:
        return "extrap3"
    if suffix in JSON_SUFFIXES:
        return "json"
    if suffix == ".txt":
        return "talpas" if head.lstrip().startswith(b"{") else "text"
    return None


def extrap_outcome(
    item: Input, python: str, cache: Path, scaling: str, inclusive: bool = False
) -> Outcome:
    values = ".inclusive" if inclusive else ""
    out = cache / (item.name.replace("/", "__") + f".{scaling}{values}.json")
    if not out.exists():
        subprocess.run(
            [python, str(RUNNER), item.kind, str(item.path), "--out", str(out)]
            + ["--scaling", scaling]
            + (["--inclusive"] if inclusive else []),
            check=True,
            cwd=HERE,
            capture_output=True,
            timeout=1800,
        )
    result = json.loads(out.read_text())
    if "error" in result:
        return Outcome(error=result["error"])
    outcome = Outcome(kernels=len(result["kernels"]), means={})
    single = len(result["parameters"]) == 1
    for kernel in result["kernels"]:
        # a file without METRIC: Extra-P names the metric "" (text) or "<default>" (JSON
        # Lines), perfguard "time"; the same kernel either way
        metric = kernel["metric"] if kernel["metric"] not in ("", "<default>") else "time"
        outcome.means[(kernel["callpath"], metric)] = {
            tuple(m[:-1]): m[-1] for m in kernel["means"]
        }
        if "error" in kernel:
            outcome.reasons[kernel["error"].split(":")[0]] += 1
            continue
        outcome.modelled += 1
        if single:
            outcome.leads[(kernel["callpath"], metric)] = extrap_lead(kernel["terms"])
    return outcome


def extrap_lead(terms: list[dict]) -> tuple[Fraction, Fraction]:
    """Highest (alpha, beta) among growing terms, as perfguard's Model.lead_order counts."""
    growing = [
        (Fraction(t["alpha"]), Fraction(t["beta"]))
        for t in terms
        if (t["coefficient"] or 0) > 0 and (Fraction(t["alpha"]), Fraction(t["beta"])) > (0, 0)
    ]
    return max(growing, default=(Fraction(0), Fraction(0)))


def perfguard_outcome(item: Input, scaling: str, inclusive: bool = False) -> Outcome:
    t0 = time.perf_counter()
    try:
        mset = load(item, scaling, inclusive)
        result = model_measurements(mset)
    except PerfguardError as exc:
        return Outcome(error=str(exc), seconds=time.perf_counter() - t0)
    outcome = Outcome(
        modelled=len(result.models), kernels=len(mset.kernels), seconds=time.perf_counter() - t0
    )
    outcome.means = {
        k.key: {p.at: float(np.mean(p.values)) if p.values else None for p in k.points}
        for k in mset.kernels
    }
    for model in result.models:
        if len(model.parameters) == 1:
            outcome.leads[(model.kernel, model.metric)] = model.lead_order()
    for skipped in result.skipped:
        for reason in skipped.reasons:
            outcome.reasons[_reason_kind(reason)] += 1
    return outcome


def load(item: Input, scaling: str, inclusive: bool = False):
    """The set as a user's ``perfguard model PATH [--scaling S] [--inclusive]`` reads it."""
    if item.kind == "cube":
        return formats.load(item.path, scaling=scaling, inclusive=inclusive)
    return formats.load(item.path)


def _reason_kind(reason: str) -> str:
    """A refusal sentence without its numbers and points, to count alike reasons together."""
    words = []
    for word in reason.split():
        if any(c.isdigit() for c in word) or word.startswith("("):
            words.append("#")
        else:
            words.append(word)
    return " ".join(words)[:90]


def table(rows: list[tuple[Input, Outcome, Outcome]]) -> list[str]:
    valid = [(i, e, p) for i, e, p in rows if not i.invalid]
    cells = Counter((e.models, p.models) for _, e, p in valid)
    lines = [
        f"{len(rows)} inputs ({len(valid)} valid, {len(rows) - len(valid)} invalid per Extra-P's "
        "tests)",
        "",
        "| valid inputs | count |",
        "| --- | --- |",
        f"| both model | {cells[(True, True)]} |",
        f"| only Extra-P models | {cells[(True, False)]} |",
        f"| only perfguard models | {cells[(False, True)]} |",
        f"| both reject | {cells[(False, False)]} |",
        "",
        "| kernels of valid inputs | Extra-P | perfguard |",
        "| --- | --- | --- |",
        f"| modelled | {sum(e.modelled for _, e, _ in valid)} | "
        f"{sum(p.modelled for _, _, p in valid)} |",
        "",
        "| invalid input | Extra-P | perfguard |",
        "| --- | --- | --- |",
    ]
    for item, e, p in rows:
        if item.invalid:
            lines.append(f"| {item.name} | {_verdict(e)} | {_verdict(p)} |")
    return lines


def _verdict(outcome: Outcome) -> str:
    if outcome.error is not None:
        return "refused: " + outcome.error.replace("|", "/")[:100]
    return f"models {outcome.modelled}/{outcome.kernels} kernels"


def lead_agreement(rows: list[tuple[Input, Outcome, Outcome]]) -> list[str]:
    agree = total = 0
    differ: Counter = Counter()
    for _, e, p in rows:
        for key, lead in e.leads.items():
            if key in p.leads:
                total += 1
                if p.leads[key] == lead:
                    agree += 1
                else:
                    differ[(_class(lead), _class(p.leads[key]))] += 1
    lines = [
        f"single-parameter kernels both model: {total}; lead classes agree on {agree} "
        f"({100 * agree / max(total, 1):.0f}%)"
    ]
    for (ours, theirs), n in differ.most_common(8):
        lines.append(f"  Extra-P {ours} vs perfguard {theirs}: {n}")
    return lines


def _class(lead: tuple[Fraction, Fraction]) -> str:
    alpha, beta = lead
    if (alpha, beta) == (0, 0):
        return "1"
    parts = [f"x^{alpha}" if alpha != 1 else "x"] if alpha else []
    if beta:
        parts.append("log x" if beta == 1 else f"log^{beta} x")
    return " ".join(parts)


def same_data(rows: list[tuple[Input, Outcome, Outcome]]) -> list[str]:
    """Inputs both read: do they hold the same kernels (call path, metric) and point means?"""
    same = 0
    lines = []
    for item, e, p in rows:
        if e.means is None or p.means is None:
            continue
        problem = _data_difference(e.means, p.means)
        if problem is None:
            same += 1
        else:
            lines.append(f"  {item.name}: {problem}")
    read = sum(1 for _, e, p in rows if e.means is not None and p.means is not None)
    return [f"inputs both read: {read}; same kernels and point means: {same}"] + lines


def _data_difference(theirs: dict, ours: dict) -> str | None:
    if set(theirs) != set(ours):
        only_e = sorted(set(theirs) - set(ours))[:2]
        only_p = sorted(set(ours) - set(theirs))[:2]
        return f"kernels differ: only Extra-P {only_e}, only perfguard {only_p}"
    for key, points in theirs.items():
        mine = ours[key]
        if set(points) != set(mine):
            return f"{key}: points differ"
        for at, mean in points.items():
            if mean is None or mine[at] is None:
                if mean != mine[at]:
                    return f"{key} at {at}: mean {mine[at]} vs Extra-P {mean}"
            elif not np.isclose(mine[at], mean, rtol=1e-9, atol=0):
                return f"{key} at {at}: mean {mine[at]:.6g} vs Extra-P {mean:.6g}"
    return None


def refusals(rows: list[tuple[Input, Outcome, Outcome]]) -> list[str]:
    lines = ["valid inputs only Extra-P models, with perfguard's reason:"]
    for item, e, p in rows:
        if item.invalid or not e.models or p.models:
            continue
        reason = p.error or "; ".join(f"{n}x {r}" for r, n in p.reasons.most_common(2))
        lines.append(f"  {item.name}: {reason[:160]}")
    partial = [
        f"  {item.name}: perfguard {p.modelled}/{p.kernels}, Extra-P {e.modelled}/{e.kernels}; "
        + "; ".join(f"{n}x {r}" for r, n in p.reasons.most_common(2))
        for item, e, p in rows
        if not item.invalid and p.models and p.modelled < e.modelled
    ]
    if partial:
        lines += ["inputs both model where perfguard models fewer kernels:"] + partial
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=Path, help="Extra-P's tests/data folder")
    parser.add_argument("--extrap-python", default=DEFAULT_EXTRAP)
    parser.add_argument("--cache", type=Path, default=Path("/tmp/extrap_corpus_cache"))
    parser.add_argument("--scaling", default="weak", choices=["weak", "weak_threaded", "strong"])
    parser.add_argument(
        "--inclusive", action="store_true", help="CUBE sets: inclusive values (both tools)"
    )
    parser.add_argument("--json", type=Path, help="write every input's outcome here")
    args = parser.parse_args(argv)
    args.cache.mkdir(parents=True, exist_ok=True)
    rows = []
    for item in find_inputs(args.data):
        e = extrap_outcome(item, args.extrap_python, args.cache, args.scaling, args.inclusive)
        p = perfguard_outcome(item, args.scaling, args.inclusive)
        rows.append((item, e, p))
        print(f"{item.name}: Extra-P {_verdict(e)[:60]} | perfguard {_verdict(p)[:60]}", flush=True)
    print()
    print(
        "\n".join(
            table(rows)
            + [""]
            + lead_agreement(rows)
            + [""]
            + same_data(rows)
            + [""]
            + refusals(rows)
        )
    )
    print(f"\nperfguard seconds, all inputs: {sum(p.seconds for _, _, p in rows):.1f}")
    if args.json:
        args.json.write_text(json.dumps([_row_json(*row) for row in rows], indent=1))
    return 0


def _row_json(item: Input, e: Outcome, p: Outcome) -> dict:
    def side(o: Outcome) -> dict:
        return {
            "modelled": o.modelled,
            "kernels": o.kernels,
            "error": o.error,
            "reasons": dict(o.reasons),
        }

    return {"input": item.name, "kind": item.kind, "invalid": item.invalid} | {
        "extrap": side(e),
        "perfguard": side(p),
    }


if __name__ == "__main__":
    sys.exit(main())
