"""Rounds over the real-code corpus (issue 16): whole `perfguard run` and `check` processes.

    .venv/bin/python benchmarks/realcode/rounds.py setup       # pinned packages under work/site
    .venv/bin/python benchmarks/realcode/rounds.py probe       # each bug, buggy vs fixed, by hand
    .venv/bin/python benchmarks/realcode/rounds.py run [--rounds 3] [--metric time]
                                                       [--budget 240] [--bug-budget 15]
                                                       [--size-limit S] [--min-repetitions N]
                                                       [--timeout S] [--jobs 1]
    .venv/bin/python benchmarks/realcode/rounds.py recheck [--metric time] [--folder DIR]

One round:

1. ``perfguard run`` of the library corpus (``perfguard.yml``, ``kernels.py``) twice, A and
   B, with different measurement-order seeds; each buggy and each fixed release of
   ``bugs/catalog.py`` once (``bugs/perfguard.yml``, its release on ``PYTHONPATH``).
2. ``perfguard check`` of:
   * **expectation**: run A against the documented classes of ``perfguard.yml`` (want 0 fail);
   * **A/A**: run B with run A as baseline, no expectations (want 0 fail);
   * **buggy vs fix**: each buggy release with its fix as baseline (want fail);
   * **fix vs buggy**: each fix with its buggy release as baseline (want no fail);
   * **too tight**: run A and the quadratic buggy releases declared one class below the
     truth, a gap of at least n^1 (``TOO_TIGHT``; want fail);
   * **exponential vs any polynomial**: the exponential buggy releases declared
     ``<= n^3`` (want fail);
   * **fixes vs their class**: each fixed release against ``bugs/perfguard.yml`` (want 0 fail).

Every check without expectations runs in an empty folder, so no ``perfguard.yml`` is
read by accident. ``--metric`` writes the two configs with every benchmark's ``metric``
set to it (``time`` today; ``instructions`` once the collection has it) into the round's
folder; the modules are found through ``PYTHONPATH``. Results: ``work/rounds/<metric>/``
(``round-N/*.json``, each check's verdicts@1 in ``round-N/checks/``, ``summary.json``);
the tables are printed as markdown. ``--jobs 2`` runs two ``perfguard run`` processes at
a time: only for ``instructions``, whose counts do not depend on what else runs (never for
``time``, where the second process would be the noise).  ``recheck`` judges the recorded
measurement files again with the perfguard of today (``summary-recheck.json``).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
WORK = HERE / "work"
LIB_CONFIG = HERE / "perfguard.yml"
BUG_CONFIG = HERE / "bugs" / "perfguard.yml"
CORPUS_PINS = ("sortedcontainers==2.4.0",)
# One class below the documented one, a gap of n^1 at least.
TOO_TIGHT = {
    "sum_floats": "<= 1",
    "str_join": "<= 1",
    "json_dumps": "<= 1",
    "json_loads": "<= 1",
    "re_search": "<= 1",
    "list_insert_front": "<= 1",
    "counter_build": "<= 1",
    "sha256_bytes": "<= 1",
    "accumulate_list": "<= 1",
    "yaml_safe_load": "<= 1",
    "np_cumsum": "<= 1",
    "np_dot": "<= 1",
    "sorted_floats": "<= log n",
    "sorted_strings": "<= log n",
    "list_sort_ints": "<= log n",
    "np_sort": "<= log n",
    "pairs_combinations": "<= n",
}
POLYNOMIAL_CEILING = "<= n^3"
# One thread for BLAS and friends: two cores, shared.
QUIET_THREADS = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def _catalog():
    spec = importlib.util.spec_from_file_location("realcode_catalog", HERE / "bugs" / "catalog.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


BUGS = _catalog().BUGS


def site(name: str) -> Path:
    return WORK / "site" / name


def release_site(bug, version: str) -> Path:
    return site(f"{bug.package}-{version}")


# ---------------------------------------------------------------- setup and probe


def setup() -> int:
    """pip install --target every pinned release (and the corpus' own pins)."""
    jobs = [(site("corpus"), list(CORPUS_PINS))]
    for bug in BUGS:
        for version in (bug.buggy, bug.fixed):
            jobs.append((release_site(bug, version), [bug.requirement(version), *bug.extra]))
    for target, requirements in jobs:
        if target.exists():
            print(f"have {target.relative_to(HERE)}")
            continue
        pip = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target)]
        done = subprocess.run([*pip, *requirements], capture_output=True, text=True, check=False)
        if done.returncode:
            print(f"pip failed for {requirements}: {done.stderr.strip()[-300:]}", file=sys.stderr)
            return 2
        print(f"installed {' '.join(requirements)} -> {target.relative_to(HERE)}")
    return 0


PROBE_SIZES = {
    "sqlparse_string_literal": (8, 11, 14),
    "sqlparse_strip_comments": (10, 14, 18),
    "multipart_options_header": (16, 22, 28),
    "urllib3_percent_encoding": (1024, 4096, 16384),
    "urllib3_authority_at": (512, 2048, 8192),
    "werkzeug_multipart_cr": (1 << 17, 1 << 19, 1 << 21),
}


def probe() -> int:
    """Time each bug at three sizes in both releases (best of 3, a fresh interpreter)."""
    code = (
        "import sys, time, cases\n"
        "for n in map(int, sys.argv[2:]):\n"
        "    f = getattr(cases, sys.argv[1])(n); best = 1e9\n"
        "    for _ in range(3):\n"
        "        t = time.perf_counter(); f(); best = min(best, time.perf_counter() - t)\n"
        "    print(f'{best * 1e3:.3f}')\n"
    )
    print("| bug | release | " + " | ".join(f"size {i + 1}" for i in range(3)) + " |")
    print("|---|---|---|---|---|")
    for bug in BUGS:
        sizes = PROBE_SIZES[bug.name]
        for label, version in (("buggy", bug.buggy), ("fixed", bug.fixed)):
            env = _env(HERE / "bugs", release_site(bug, version), bug.requirement(version))
            argv = [sys.executable, "-c", code, bug.name, *map(str, sizes)]
            done = subprocess.run(argv, env=env, capture_output=True, text=True, check=False)
            if done.returncode:
                print(f"{bug.name} {version}: {done.stderr.strip()[-300:]}", file=sys.stderr)
                return 3
            cells = [f"n={n}: {ms} ms" for n, ms in zip(sizes, done.stdout.split())]
            print(f"| {bug.name} | {label} {version} | " + " | ".join(cells) + " |")
    return 0


# ---------------------------------------------------------------- running perfguard


def _env(module_dir: Path, *extra: Path | str) -> dict[str, str]:
    """PYTHONPATH = the benchmark modules and a release site; REALCODE_VERSION if given."""
    env = {**os.environ, **QUIET_THREADS}
    paths = [str(module_dir)] + [str(p) for p in extra if isinstance(p, Path)]
    env["PYTHONPATH"] = os.pathsep.join(paths)
    versions = [p for p in extra if isinstance(p, str)]
    if versions:
        env["REALCODE_VERSION"] = versions[0]
    else:
        env.pop("REALCODE_VERSION", None)
    return env


@dataclass
class Step:
    what: str
    seconds: float
    exit_code: int
    stderr_tail: str = ""


def perfguard(args: list[str], env: dict[str, str], cwd: Path, log: list[Step], what: str):
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "guard.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    tail = "\n".join(done.stderr.strip().splitlines()[-3:])
    log.append(Step(what, round(time.monotonic() - start, 1), done.returncode, tail))
    return done


def derived_config(source: Path, metric: str, target: Path, run: dict | None = None) -> Path:
    """The config with every benchmark's metric set and ``run`` settings overridden; written
    beside the round's files."""
    doc = yaml.safe_load(source.read_text(encoding="utf-8"))
    doc["run"].update(run or {})
    for spec in doc["benchmarks"].values():
        spec["metric"] = metric
    target.write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")
    return target


@dataclass
class Outcome:
    """One kernel of one check: its verdict and the first reason."""

    check: str
    kernel: str
    want: str  # "fail" or "pass" (pass: anything but fail and error)
    verdict: str
    klass: str
    reason: str

    @property
    def met(self) -> bool:
        if self.want == "fail":
            return self.verdict == "fail"
        return self.verdict not in ("fail", "error")


@dataclass
class Round:
    index: int
    steps: list[Step] = field(default_factory=list)
    outcomes: list[Outcome] = field(default_factory=list)
    seconds: float = 0.0


def _verdicts(done: subprocess.CompletedProcess[str]) -> dict[str, dict]:
    try:
        doc = json.loads(done.stdout)
    except ValueError:
        return {}
    return {k["kernel"]: k for k in doc.get("kernels", [])}


def _record(rnd: Round, check: str, want: str, kernels: list[str], done) -> None:
    found = _verdicts(done)
    for name in kernels:
        entry = found.get(name)
        if entry is None:
            err = done.stderr.strip().splitlines()[-1:] or [f"exit {done.returncode}"]
            rnd.outcomes.append(Outcome(check, name, want, "error", "-", err[0][:300]))
            continue
        model = entry.get("model") or {}
        reasons = [r.get("message", "") for r in entry.get("reasons", [])]
        rnd.outcomes.append(
            Outcome(
                check,
                name,
                want,
                entry.get("verdict", "error"),
                model.get("complexity", "-"),
                " | ".join(reasons)[:600],
            )
        )


def one_round(index: int, args, folder: Path) -> Round:
    folder.mkdir(parents=True, exist_ok=True)
    rnd = Round(index)
    start = time.monotonic()
    run = {"size_limit": args.size_limit} if args.size_limit else {}
    run |= {"min_repetitions": args.min_repetitions} if args.min_repetitions else {}
    run |= {"timeout": args.timeout} if args.timeout else {}
    lib_cfg = derived_config(LIB_CONFIG, args.metric, folder / "lib.yml", run)
    bug_cfg = derived_config(BUG_CONFIG, args.metric, folder / "bugs.yml", run)
    lib_env = _env(HERE, site("corpus"))
    budget = ["--budget", str(args.budget)] if args.budget else []

    jobs = []  # (arguments, environment, what)
    lib = {}
    for tag, seed in (("A", 100 * index + 1), ("B", 100 * index + 2)):
        out = folder / f"lib-{tag}.json"
        run_args = ["run", "-c", str(lib_cfg), "-o", str(out), "--seed", str(seed), *budget]
        jobs.append((run_args, lib_env, f"run library {tag}"))
        lib[tag] = out
    runs = {}
    for bug in BUGS:
        for version in (bug.buggy, bug.fixed):
            out = folder / f"{bug.name}-{version}.json"
            env = _env(HERE / "bugs", release_site(bug, version), bug.requirement(version))
            run_args = ["run", "-c", str(bug_cfg), "-k", bug.name, "-o", str(out)]
            run_args += ["--seed", str(100 * index + 3), "--budget", str(args.bug_budget)]
            jobs.append((run_args, env, f"run {bug.name} {version}"))
            runs[bug.name, version] = out
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        list(pool.map(lambda job: perfguard(job[0], job[1], folder, rnd.steps, job[2]), jobs))

    judge_round(rnd, folder, lib, runs, lib_cfg, bug_cfg)
    rnd.seconds = round(time.monotonic() - start, 1)
    return rnd


def judge_round(rnd: Round, folder: Path, lib, runs, lib_cfg: Path, bug_cfg: Path) -> None:
    """The round's checks over its measurement files; each verdicts@1 kept in checks/."""
    empty = folder / "checks"  # no perfguard.yml here: checks without expectations
    empty.mkdir(exist_ok=True)
    lib_env = _env(HERE, site("corpus"))
    names = list(yaml.safe_load(LIB_CONFIG.read_text(encoding="utf-8"))["benchmarks"])

    def judge(check: str, want: str, kernels: list[str], *check_args: str) -> None:
        done = perfguard(["check", "--json", *check_args], lib_env, empty, rnd.steps, check)
        _record(rnd, check, want, kernels, done)
        tag = check.replace("/", "").replace(" ", "-")
        tag += f"-{kernels[0]}" if len(kernels) == 1 else ""
        (empty / f"{tag}.json").write_text(done.stdout, encoding="utf-8")

    judge("expectation", "pass", names, str(lib["A"]), "-c", str(lib_cfg))
    judge("A/A", "pass", names, str(lib["B"]), "--baseline", str(lib["A"]))
    tight = [arg for k, bound in TOO_TIGHT.items() for arg in ("--expect", f"{k}={bound}")]
    judge("too tight", "fail", list(TOO_TIGHT), str(lib["A"]), *tight)
    for bug in BUGS:
        buggy, fixed = str(runs[bug.name, bug.buggy]), str(runs[bug.name, bug.fixed])
        judge("buggy vs fix", "fail", [bug.name], buggy, "--baseline", fixed)
        judge("fix vs buggy", "pass", [bug.name], fixed, "--baseline", buggy)
        judge("fix vs its class", "pass", [bug.name], fixed, "-c", str(bug_cfg))
        if bug.buggy_class == "n^2":
            judge("too tight", "fail", [bug.name], buggy, "--expect", f"{bug.name}=<= n")
        else:
            bound = f"{bug.name}={POLYNOMIAL_CEILING}"
            judge("exponential vs n^3", "fail", [bug.name], buggy, "--expect", bound)


# ---------------------------------------------------------------- tables

CHECKS = (
    "expectation",
    "A/A",
    "buggy vs fix",
    "fix vs buggy",
    "too tight",
    "exponential vs n^3",
    "fix vs its class",
)


def table(outcomes: list[Outcome]) -> list[str]:
    lines = [
        "| check | want | kernels | fail | inconclusive | pass | error | met |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for check in CHECKS:
        rows = [o for o in outcomes if o.check == check]
        if not rows:
            continue
        verdicts = ("fail", "inconclusive", "pass", "error")
        count = {v: sum(o.verdict == v for o in rows) for v in verdicts}
        met = sum(o.met for o in rows)
        want = "fail" if rows[0].want == "fail" else "no fail"
        lines.append(
            f"| {check} | {want} | {len(rows)} | {count['fail']} | {count['inconclusive']} "
            f"| {count['pass']} | {count['error']} | {met}/{len(rows)} |"
        )
    return lines


def misses(outcomes: list[Outcome]) -> list[str]:
    return [
        f"- {o.check}: {o.kernel} -> {o.verdict} ({o.klass}): {o.reason}"
        for o in outcomes
        if not o.met or o.verdict == "inconclusive"
    ]


def run_rounds(args) -> int:
    if args.jobs > 1 and args.metric == "time":
        print("--jobs > 1 would time one run against another; use it for instructions")
        return 2
    out = WORK / "rounds" / (args.out or args.metric)
    summary = []
    for index in range(1, args.rounds + 1):
        summary.append(one_round(index, args, out / f"round-{index}"))
        report(summary, out / "summary.json", args.metric)
    totals(summary, args.metric)
    return 0


def recheck(args) -> int:
    """Judge the measurement files of recorded rounds again with today's perfguard."""
    out = Path(args.folder) if args.folder else WORK / "rounds" / args.metric
    summary = []
    for folder in sorted(out.glob("round-*"), key=lambda f: int(f.name.split("-")[1])):
        rnd = Round(int(folder.name.split("-")[1]))
        start = time.monotonic()
        lib = {tag: folder / f"lib-{tag}.json" for tag in ("A", "B")}
        runs = {
            (b.name, v): folder / f"{b.name}-{v}.json" for b in BUGS for v in (b.buggy, b.fixed)
        }
        lib_cfg, bug_cfg = folder / "lib.yml", folder / "bugs.yml"
        judge_round(rnd, folder, lib, runs, lib_cfg, bug_cfg)
        rnd.seconds = round(time.monotonic() - start, 1)
        summary.append(rnd)
        report(summary, out / "summary-recheck.json", args.metric)
    totals(summary, args.metric)
    return 0


def report(summary: list[Round], path: Path, metric: str) -> None:
    """Print the last round's table, slowest steps, errors and misses; save the summary."""
    rnd = summary[-1]
    slow = sorted(rnd.steps, key=lambda s: -s.seconds)[:3]
    print(f"\n### Round {rnd.index} ({metric}): {rnd.seconds:.0f} s\n")
    print("\n".join(table(rnd.outcomes)))
    print("\nslowest steps: " + ", ".join(f"{s.what} {s.seconds:.0f} s" for s in slow))
    for step in (s for s in rnd.steps if s.exit_code not in (0, 1)):
        print(f"- exit {step.exit_code} from {step.what}: {step.stderr_tail}")
    print("\n".join(misses(rnd.outcomes)), flush=True)
    path.write_text(json.dumps([_as_dict(r) for r in summary], indent=1), encoding="utf-8")


def totals(summary: list[Round], metric: str) -> None:
    print(f"\n### Totals over {len(summary)} rounds ({metric})\n")
    print("\n".join(table([o for r in summary for o in r.outcomes])))
    print("round times: " + ", ".join(f"{r.seconds:.0f} s" for r in summary))


def _as_dict(rnd: Round) -> dict:
    return {
        "round": rnd.index,
        "seconds": rnd.seconds,
        "steps": [vars(s) for s in rnd.steps],
        "outcomes": [vars(o) for o in rnd.outcomes],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    sub.add_parser("setup", help="install the pinned releases under work/site")
    sub.add_parser("probe", help="time each bug, buggy vs fixed, at three sizes")
    run = sub.add_parser("run", help="run the rounds")
    run.add_argument("--rounds", type=int, default=3)
    run.add_argument("--metric", default="time", help="time today; instructions later")
    run.add_argument("--budget", type=float, default=0, help="library run budget (default: yml)")
    run.add_argument("--bug-budget", type=float, default=15)
    run.add_argument("--size-limit", type=float, help="run.size_limit of both configs")
    run.add_argument("--min-repetitions", type=int, help="run.min_repetitions of both")
    run.add_argument("--timeout", type=float, help="run.timeout of both (one execution, s)")
    run.add_argument("--jobs", type=int, default=1, help="perfguard runs at a time")
    run.add_argument("--out", help="results folder name under work/rounds (default: metric)")
    again = sub.add_parser("recheck", help="judge recorded rounds again (no measuring)")
    again.add_argument("--metric", default="time", help="the rounds under work/rounds/METRIC")
    again.add_argument("--folder", help="a folder of round-N folders instead")
    args = ap.parse_args(argv)
    if args.command == "setup":
        return setup()
    if args.command == "probe":
        return probe()
    if args.command == "recheck":
        return recheck(args)
    return run_rounds(args)


if __name__ == "__main__":
    sys.exit(main())
