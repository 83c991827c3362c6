"""Noise resilience of perfguard's modelers vs Extra-P on seed 004's protocol (Ritter et al., V).

For every number of parameters m, series combination and noise level one Extra-P text file
holds the functions (five repetitions per point, full 5^m grid); its truth and the four
evaluation points P+1..P+4 sit beside it in a JSON file.  perfguard and Extra-P model the
same files in the same run; both are scored by the same code, from guard pmnf ``Model``s:

* lead order per parameter: ``Model.lead_order(param)``; the truth's is that parameter's
  term exponents (``(0, 0)`` for the constant class);
* lead-exponent distance d: max over parameters of |alpha_true - alpha_model|; shares with
  d <= 1/4, 1/3, 1/2, and the share whose (alpha, beta) match exactly in every parameter;
* predictive power: median over functions of |model(P+k) - f(P+k)| / f(P+k) in percent;
* throughput: kernels per second of the modeling step alone (reading timed separately;
  Extra-P's adaptive modeler includes its retraining -- per file unless ``--retrain series``
  -- but not the TensorFlow import).

A kernel a tool could not model counts as wrong with an infinite prediction error.

    python benchmarks/noise_accuracy.py [--params 1,2,3] [--per-class 8]
        [--functions-multi 150] [--combos 3] [--retrain file|series] [--seed 1]
        [--levels 2,5,10,20,50,75,100]
        [--modelers default,adaptive] [--extrap-python /work/extrap-venv/bin/python]
        [--out benchmarks/out/noise]

Without ``--extrap-python`` only perfguard runs.  Extra-P runs through
``benchmarks/extrap_runner.py`` in its own interpreter (median of the repetitions; for m > 1
its multi-parameter modeler around its default and around its adaptive single-parameter
modeler), one process per series combination and modeler, each file retraining its own
network (``--retrain series``: one network per series combination, reused across its noise
levels -- about half the run time, the same accuracy in distribution, since Extra-P's default
preset retrains on synthetic data whose noise ignores the file's).

The functions of a series combination are the same at every noise level (only the noise
differs), so differences between levels are not sampling noise of the functions.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from fractions import Fraction as F
from pathlib import Path
from typing import Any

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))

from protocol004 import (  # noqa: E402
    CLASSES_E,
    COMBOS,
    NOISE_LEVELS,
    Function,
    grid,
    multi_parameter_functions,
    noisy_values,
    plus_points,
    single_parameter_functions,
)

from guard.errors import PerfguardError, UsageError  # noqa: E402
from guard.formats import load  # noqa: E402
from guard.formats.extrap_text import dumps  # noqa: E402
from guard.measurements import Kernel, MeasurementSet, Point  # noqa: E402
from guard.modeling import get_modeler, model_measurements  # noqa: E402
from guard.modeling.pmnf import Factor, Model, Term  # noqa: E402

RESULTS_VERSION = 1
THRESHOLDS = (F(1, 4), F(1, 3), F(1, 2))
EVAL_X = 100.0  # where the runner's own prediction is compared with ours (term check)
# (column label, extrap_runner --modeler) per m; m > 1 is the multi-parameter modeler.
EXTRAP_TOOLS = {
    1: (("extrap default", "default"), ("extrap adaptive", "adaptive")),
    2: (("extrap multi", "default"), ("extrap multi+adaptive", "adaptive")),
}
EXTRAP_TOOLS[3] = EXTRAP_TOOLS[2]


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# ---- data ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Task:
    """One file: m parameters, one series combination, one noise level."""

    m: int
    kinds: tuple[str, ...]
    level: int
    path: Path
    names: tuple[str, ...]
    functions: tuple[Function, ...]
    classes: tuple[int | None, ...]

    @property
    def parameters(self) -> tuple[str, ...]:
        return parameter_names(self.m)


def parameter_names(m: int) -> tuple[str, ...]:
    return tuple(f"x{j + 1}" for j in range(m))


def combo_functions(m: int, combo: int, args: argparse.Namespace) -> list[Function]:
    """The functions of one series combination (the same at every noise level)."""
    rng = np.random.default_rng([args.seed, 4, m, combo])
    if m == 1:
        return single_parameter_functions(args.per_class, rng)
    per_combo = -(-args.functions_multi // args.combos)
    return multi_parameter_functions(m, per_combo, rng)


def write_task(
    m: int, combo: int, kinds: tuple[str, ...], level: int, fns: list[Function], args
) -> Task:
    """Write the Extra-P text file and its truth JSON; return the task."""
    at = grid(kinds)
    rng = np.random.default_rng([args.seed, 4, m, combo, level])
    names = tuple(f"f{i:05d}" for i in range(len(fns)))
    kernels = []
    for name, fn in zip(names, fns):
        values = noisy_values(fn, at, level, rng)
        points = tuple(Point(tuple(a), tuple(v)) for a, v in zip(at, values))
        kernels.append(Kernel(name, "time", points))
    folder = args.out / f"m{m}" / "+".join(kinds)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"n{level:03d}.txt"
    path.write_text(dumps(MeasurementSet(parameter_names(m), tuple(kernels))))
    per_class = args.per_class if m == 1 else None
    classes = tuple(i // per_class if per_class else None for i in range(len(fns)))
    plus = plus_points(kinds)
    truth = {
        "version": RESULTS_VERSION,
        "protocol": "seed-004",
        "m": m,
        "series": list(kinds),
        "noise_percent": level,
        "points": at.tolist(),
        "plus_points": plus.tolist(),
        "functions": {
            n: {**fn.to_json(), "plus_values": fn(plus).tolist()} for n, fn in zip(names, fns)
        },
    }
    path.with_suffix(".truth.json").write_text(json.dumps(truth, indent=1))
    return Task(m, kinds, level, path, names, tuple(fns), classes)


# ---- scoring -------------------------------------------------------------------------------------


def score(model: Model | None, fn: Function, task: Task, error: str | None = None) -> dict:
    """Lead orders, distance, exactness and relative errors at P+1..P+4 of one model."""
    if model is None:
        return {"error": error or "no model"}
    leads = [model.lead_order(p) for p in task.parameters]
    d = max(abs(truth[0] - lead[0]) for truth, lead in zip(fn.exponents, leads))
    plus = plus_points(task.kinds)
    truth_plus = fn(plus)
    at = {p: plus[:, j] for j, p in enumerate(task.parameters)}
    with np.errstate(all="ignore"):
        predicted = np.asarray(model.evaluate(at))
        rel = np.abs(predicted - truth_plus) / truth_plus * 100.0
    return {
        "lead": [[str(a), str(b)] for a, b in leads],
        "d": str(d),
        "exact": all(tuple(t) == tuple(lead) for t, lead in zip(fn.exponents, leads)),
        "rel_error": [float(r) if math.isfinite(r) else None for r in np.broadcast_to(rel, (4,))],
        "formula": model.formula(),
    }


@dataclass
class Cell:
    """Everything one tool produced at one m and noise level."""

    records: list[dict] = field(default_factory=list)
    timed_kernels: int = 0  # kernels of files whose modeling step was timed
    seconds: float = 0.0

    def add(self, records: list[dict], seconds: float | None) -> None:
        self.records += records
        if seconds is not None:
            self.timed_kernels += len(records)
            self.seconds += seconds

    def summary(self) -> dict[str, Any]:
        n = len(self.records)
        ok = [r for r in self.records if "error" not in r]
        d = [F(r["d"]) for r in ok]
        errors = np.array(
            [
                [math.inf if e is None else e for e in r["rel_error"]]
                if "error" not in r
                else [math.inf] * 4
                for r in self.records
            ]
        ).reshape(n, 4)
        reasons = sorted({r["error"] for r in self.records if "error" in r})
        return {
            "functions": n,
            "failed": n - len(ok),
            "failure_reasons": reasons[:3],
            "share_d": {str(t): sum(x <= t for x in d) / n for t in THRESHOLDS},
            "share_exact": sum(r["exact"] for r in ok) / n,
            # null: more than half of the predictions failed or overflowed
            "median_rel_error": [
                float(v) if math.isfinite(v) else None for v in np.median(errors, axis=0)
            ],
            "models_per_second": self.timed_kernels / self.seconds if self.seconds > 0 else None,
        }


# ---- tools ---------------------------------------------------------------------------------------


def run_perfguard(task: Task, modeler: str) -> tuple[list[dict], float | None]:
    """Model a task's file with a perfguard modeler; scored records and modeling seconds."""
    mset = load(task.path)
    t0 = time.perf_counter()
    try:
        result = model_measurements(mset, modeler=modeler)
    except PerfguardError as exc:  # the whole file failed: every function counts as failed
        why = f"{type(exc).__name__}: {exc}"
        return [score(None, fn, task, why) for fn in task.functions], None
    seconds = time.perf_counter() - t0
    models = {m.kernel: m for m in result.models}
    skipped = {s.kernel: "; ".join(s.reasons) for s in result.skipped}
    records = [
        score(models.get(n), fn, task, skipped.get(n, "no model"))
        for n, fn in zip(task.names, task.functions)
    ]
    return records, seconds


def extrap_model(entry: dict, parameters: tuple[str, ...]) -> Model:
    """A guard Model from one kernel of the runner's JSON (terms with per-parameter factors)."""
    if entry.get("constant") is None or any(t["coefficient"] is None for t in entry["terms"]):
        raise ValueError("non-finite coefficient")
    terms = tuple(
        Term(
            t["coefficient"],
            tuple(Factor(f["parameter"], F(f["alpha"]), F(f["beta"])) for f in t["factors"]),
        )
        for t in entry["terms"]
    )
    model = Model(entry["name"], entry["metric"], parameters, entry["constant"], terms)
    ours = float(model.evaluate({p: EVAL_X for p in parameters}))
    theirs = entry.get("prediction")
    if theirs is None or not math.isclose(ours, theirs, rel_tol=1e-6, abs_tol=1e-9):
        raise ValueError(f"terms evaluate to {ours!r}, Extra-P's model to {theirs!r}")
    return model


def run_extrap(
    python: str, tasks: list[Task], modeler: str, seed: int, keep_networks: bool
) -> list[tuple[list[dict], float | None]]:
    """Model several tasks' files in one runner process; per task records and seconds."""
    outs = [t.path.with_suffix(f".extrap-{modeler}.json") for t in tasks]
    for out in outs:
        out.unlink(missing_ok=True)
    cmd = [python, str(HERE / "extrap_runner.py"), *(str(t.path) for t in tasks)]
    cmd += ["--modeler", modeler, "--measure", "median", "--seed", str(seed)]
    cmd += ["--eval-x", str(EVAL_X), "--disable-progress"]
    if keep_networks:
        cmd.append("--keep-networks")
    for out in outs:
        cmd += ["--out", str(out)]
    env = dict(os.environ, TF_CPP_MIN_LOG_LEVEL="2", PYTHONWARNINGS="ignore")
    proc = subprocess.run(
        cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env
    )
    for line in proc.stderr.splitlines():
        if " kernels (" in line:
            log(f"    {line}")
    failure = f"extrap_runner exited {proc.returncode}: {proc.stderr.strip()[-300:]}"
    return [_extrap_records(task, out, failure) for task, out in zip(tasks, outs)]


def _extrap_records(task: Task, out: Path, failure: str) -> tuple[list[dict], float | None]:
    if not out.exists():
        return [score(None, fn, task, failure) for fn in task.functions], None
    doc = json.loads(out.read_text())
    entries = {k["name"]: k for k in doc["kernels"]}
    records = []
    for name, fn in zip(task.names, task.functions):
        entry = entries.get(name)
        if entry is None or "error" in entry:
            why = doc.get("error") or (entry or {}).get("error") or "missing from Extra-P's output"
            records.append(score(None, fn, task, why))
            continue
        try:
            records.append(score(extrap_model(entry, task.parameters), fn, task))
        except ValueError as exc:
            records.append(score(None, fn, task, f"model not usable: {exc}"))
    return records, doc.get("model_seconds")


def available_modelers(names: list[str]) -> list[str]:
    """The perfguard modelers that exist; a warning for each unknown one."""
    out = []
    for name in names:
        try:
            get_modeler(name)
        except UsageError as exc:
            log(f"warning: skipping perfguard modeler {name!r}: {exc}")
            continue
        out.append(name)
    return out


# ---- driver --------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--params", default="1,2,3", help="numbers of parameters m to run")
    ap.add_argument(
        "--per-class", type=int, default=8, help="m=1: functions per class, series and level"
    )
    ap.add_argument(
        "--functions-multi",
        type=int,
        default=150,
        help="m>1: functions per noise level (split evenly over the series combinations)",
    )
    ap.add_argument("--combos", type=int, default=3, help="m>1: series combinations used (1..5)")
    ap.add_argument(
        "--retrain",
        choices=("file", "series"),
        default="file",
        help="Extra-P adaptive: retrain its network for every file (default, per modeling "
        "task) or once per series combination, reused across noise levels (faster; same "
        "accuracy in distribution, as preset 0's retraining set ignores the data's noise)",
    )
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--levels", default=",".join(map(str, NOISE_LEVELS)), help="noise, percent")
    ap.add_argument("--modelers", default="default,adaptive", help="perfguard modelers")
    ap.add_argument(
        "--extrap-python", default=None, help="Extra-P's interpreter; omit to run perfguard only"
    )
    ap.add_argument("--out", type=Path, default=HERE / "out" / "noise")
    args = ap.parse_args(argv)
    try:
        args.params = [int(p) for p in args.params.split(",")]
        args.levels = [int(n) for n in args.levels.split(",")]
    except ValueError:
        ap.error("--params and --levels take comma-separated integers")
    if not set(args.params) <= {1, 2, 3}:
        ap.error("--params: m must be 1, 2 or 3")
    if not 1 <= args.combos <= len(COMBOS[2]):
        ap.error(f"--combos must be between 1 and {len(COMBOS[2])}")
    if args.per_class < 1 or args.functions_multi < 1 or any(n <= 0 for n in args.levels):
        ap.error("--per-class, --functions-multi and --levels must be positive")
    if args.extrap_python and not Path(args.extrap_python).exists():
        ap.error(f"--extrap-python {args.extrap_python}: no such interpreter")
    args.modelers = [m for m in args.modelers.split(",") if m]
    return args


def check_output(out: Path) -> None:
    """Fail before the long run if the output folder cannot be written."""
    out.mkdir(parents=True, exist_ok=True)
    probe = out / ".write-test"
    probe.write_text("")
    probe.unlink()


def run_m(m: int, args, pg_modelers: list[str], cells: dict, functions: list) -> None:
    """All series combinations and noise levels of m parameters, every tool."""
    kinds_list = COMBOS[m] if m == 1 else COMBOS[m][: args.combos]
    for combo, kinds in enumerate(kinds_list):
        fns = combo_functions(m, combo, args)
        tasks = [write_task(m, combo, kinds, level, fns, args) for level in args.levels]
        log(f"# m={m} {'+'.join(kinds)}: {len(fns)} functions x {len(tasks)} noise levels")
        results: dict[str, list[tuple[list[dict], float | None]]] = {}
        for name in pg_modelers:
            t0 = time.perf_counter()
            results[f"perfguard {name}"] = [run_perfguard(t, name) for t in tasks]
            log(f"    perfguard {name}: {time.perf_counter() - t0:.1f}s")
        if args.extrap_python:
            for label, modeler in EXTRAP_TOOLS[m]:
                t0 = time.perf_counter()
                results[label] = run_extrap(
                    args.extrap_python, tasks, modeler, args.seed, args.retrain == "series"
                )
                log(f"    {label}: {time.perf_counter() - t0:.1f}s wall")
        for i, task in enumerate(tasks):
            for tool, per_task in results.items():
                records, seconds = per_task[i]
                cells.setdefault((m, task.level, tool), Cell()).add(records, seconds)
            for j, (name, fn) in enumerate(zip(task.names, task.functions)):
                functions.append(
                    {
                        "m": m,
                        "series": list(kinds),
                        "noise_percent": task.level,
                        "file": str(task.path),
                        "kernel": name,
                        "class": task.classes[j],
                        "truth": fn.to_json(),
                        "tools": {tool: per_task[i][0][j] for tool, per_task in results.items()},
                    }
                )


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    check_output(args.out)
    pg_modelers = available_modelers(args.modelers)
    cells: dict[tuple[int, int, str], Cell] = {}
    functions: list[dict] = []
    started = time.perf_counter()
    for m in args.params:
        t0 = time.perf_counter()
        run_m(m, args, pg_modelers, cells, functions)
        log(f"# m={m} done in {time.perf_counter() - t0:.0f}s")
    summary = {f"m{m}/n{n}/{tool}": c.summary() for (m, n, tool), c in cells.items()}
    text = report(cells, args, time.perf_counter() - started)
    doc = {
        "version": RESULTS_VERSION,
        "protocol": "seed-004",
        "arguments": {k: str(v) if isinstance(v, Path) else v for k, v in vars(args).items()},
        "machine": machine(),
        "summary": summary,
        "functions": functions,
    }
    (args.out / "results.json").write_text(json.dumps(doc, indent=1, allow_nan=False))
    (args.out / "report.md").write_text(text)
    print(text)
    log(f"# wrote {args.out / 'results.json'} and {args.out / 'report.md'}")
    return 0


def machine() -> dict[str, Any]:
    return {
        "machine": platform.machine(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
        "perfguard_commit": commit(),
    }


def commit() -> str:
    """The perfguard commit the run used, '+dirty' with uncommitted changes; '?' without git."""

    def git(*cmd: str) -> str:
        return subprocess.run(
            ["git", *cmd], cwd=HERE, capture_output=True, text=True, check=True
        ).stdout.strip()

    try:
        dirty = git("status", "--porcelain", "--untracked-files=no")
        return git("rev-parse", "--short", "HEAD") + ("+dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "?"


# ---- report --------------------------------------------------------------------------------------


def _pct(value: float) -> str:
    return f"{value * 100:.1f}"


def _err(value: float | None) -> str:
    if value is None:
        return "∞"
    return f"{value:.2f}" if value < 100 else f"{value:,.0f}"


def report(cells: dict, args: argparse.Namespace, seconds: float) -> str:
    """Markdown: one table per m, rows = noise level x tool."""
    lines = [
        f"Protocol: seed 004 Sec. V, seed {args.seed}; m=1: {args.per_class} functions per class "
        f"(of {len(CLASSES_E)}) per series (5) and noise level; m>1: {args.functions_multi} "
        f"functions per noise level over {args.combos} series combinations; five repetitions "
        f"per point, uniform noise ±n/2 %. Machine: {platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}; perfguard {commit()}; "
        f"whole run {seconds / 60:.1f} min.",
        "",
    ]
    notes: list[str] = []
    for m in sorted({m for m, _, _ in cells}):
        lines += [
            f"#### m = {m}",
            "",
            "| noise | tool | functions | failed | d≤1/4 | d≤1/3 | d≤1/2 | exact "
            "| P+1 err % | P+2 err % | P+3 err % | P+4 err % | models/s |",
            "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        tools = sorted({t for mm, _, t in cells if mm == m}, key=_tool_order)
        for level in sorted({n for mm, n, _ in cells if mm == m}):
            for tool in tools:
                cell = cells.get((m, level, tool))
                if cell is None:
                    continue
                s = cell.summary()
                if s["failed"] == s["functions"]:
                    note = f"{tool}, m={m}: no models ({'; '.join(s['failure_reasons'])})"
                    if note not in notes:
                        notes.append(note)
                    lines.append(
                        f"| {level}% | {tool} | {s['functions']} | {s['failed']} |" + " — |" * 9
                    )
                    continue
                rate = s["models_per_second"]
                lines.append(
                    f"| {level}% | {tool} | {s['functions']} | {s['failed']} | "
                    + " | ".join(_pct(v) for v in s["share_d"].values())
                    + f" | {_pct(s['share_exact'])} | "
                    + " | ".join(_err(v) for v in s["median_rel_error"])
                    + f" | {_rate(rate)} |"
                )
        lines.append("")
    if args.retrain == "series" and args.extrap_python:
        notes.append(
            "--retrain series: Extra-P's adaptive network was retrained once per series "
            "combination and reused across noise levels; its models/s include that "
            "retraining only once, not per file"
        )
    if notes:
        lines += ["Notes:", ""] + [f"* {n}" for n in notes] + [""]
    return "\n".join(lines)


def _rate(rate: float | None) -> str:
    if rate is None:
        return "—"
    return f"{rate:,.0f}" if rate >= 10 else f"{rate:.2g}"


def _tool_order(tool: str) -> tuple[int, str]:
    return (0 if tool.startswith("perfguard") else 1, tool)


if __name__ == "__main__":
    sys.exit(main())
