"""The bundled example project, end to end: `perfguard run` + `perfguard check`, several times.

Acceptance of issue 5: on this machine, every function of examples/project/kernels.py
is classified correctly within a total of 60 s per run + check, five runs in a row
without a false fail. big_O, run by its own interpreter, classifies the same series
(perfguard's medians) and also times the functions itself, as its README shows::

    .venv/bin/python benchmarks/example_project.py --runs 5 \
        [--bigo-python /work/bigo-venv/bin/python] [--json RESULT.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bigo_example import NAMES as BIGO_NAMES  # this folder is on sys.path for a script

ROOT = Path(__file__).resolve().parents[1]
PROJECT = ROOT / "examples" / "project"
CONFIG = PROJECT / "perfguard.yml"
TRUTH = {
    "lookup": "O(1)",
    "search": "O(log n)",
    "total": "O(n)",
    "sort": "O(n log n)",
    "pairs": "O(n^2)",
}


def perfguard(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "guard.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=ROOT, check=False)


def one_run(index: int, folder: Path) -> dict:
    out = folder / f"run{index}.json"
    start = time.monotonic()
    ran = perfguard("run", "-c", str(CONFIG), "-o", str(out))
    measured = time.monotonic()
    checked = perfguard("check", str(out), "-c", str(CONFIG), "--json")
    finished = time.monotonic()
    report = json.loads(checked.stdout)
    kernels = {}
    for verdict in report["kernels"]:
        model = verdict.get("model") or {}
        kernels[verdict["kernel"]] = {
            "verdict": verdict["verdict"],
            "class": model.get("complexity"),
            "correct": model.get("complexity") == TRUTH[verdict["kernel"]],
        }
    return {
        "run_exit": ran.returncode,
        "check_exit": checked.returncode,
        "run_seconds": round(measured - start, 2),
        "total_seconds": round(finished - start, 2),
        "kernels": kernels,
        "measurements": str(out),
    }


def series(path: str) -> list[dict]:
    doc = json.loads(Path(path).read_text())
    return [
        {
            "key": k["name"],
            "ns": [p["at"]["n"] for p in k["points"]],
            "times": [statistics.median(p["values"]) for p in k["points"]],
        }
        for k in doc["kernels"]
    ]


def bigo_on(python: str, runs: list[dict], folder: Path) -> list[dict[str, str]]:
    """big_O's class for each run's series (the same medians perfguard modelled)."""
    out = []
    for i, run in enumerate(runs):
        src, dst = folder / f"series{i}.json", folder / f"bigo{i}.json"
        src.write_text(json.dumps({"series": series(run["measurements"])}))
        runner = ROOT / "benchmarks" / "bigo_runner.py"
        subprocess.run([python, str(runner), str(src), "--out", str(dst)], check=True)
        results = json.loads(dst.read_text())["results"]
        out.append({r["key"]: BIGO_NAMES.get(r.get("class"), str(r.get("class"))) for r in results})
    return out


def bigo_timing(python: str, runs: int) -> list[dict]:
    """big_O measuring the functions itself (benchmarks/bigo_example.py)."""
    script = ROOT / "benchmarks" / "bigo_example.py"
    out = []
    for seed in range(runs):
        done = subprocess.run(
            [python, str(script), str(PROJECT), "--seed", str(seed)],
            capture_output=True,
            text=True,
            check=True,
        )
        out.append(json.loads(done.stdout))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--bigo-python", default=None)
    parser.add_argument("--json", default=None, help="write all results here")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        runs = []
        for i in range(args.runs):
            runs.append(one_run(i, folder))
            print(json.dumps({k: v["class"] for k, v in runs[-1]["kernels"].items()}), flush=True)
        bigo_same = bigo_on(args.bigo_python, runs, folder) if args.bigo_python else []
        bigo_own = bigo_timing(args.bigo_python, args.runs) if args.bigo_python else []
    print("| run | perfguard run + check (s) | exit | " + " | ".join(TRUTH) + " |")
    print("|---|---|---|" + "---|" * len(TRUTH))
    for i, run in enumerate(runs):
        cells = []
        for name in TRUTH:
            k = run["kernels"][name]
            mark = "" if k["correct"] else " ✗"
            cells.append(f"{k['class']} {k['verdict']}{mark}")
        row = f"| {i + 1} | {run['run_seconds']} + {run['total_seconds'] - run['run_seconds']:.2f}"
        print(f"{row} = {run['total_seconds']} | {run['check_exit']} | " + " | ".join(cells) + " |")
    for label, rows in (("big_O, same medians", bigo_same), ("big_O, own timing", bigo_own)):
        for i, classes in enumerate(rows):
            cells = [
                classes.get(name, "-") + ("" if classes.get(name) == TRUTH[name] else " ✗")
                for name in TRUTH
            ]
            print(f"| {label} {i + 1} | | | " + " | ".join(cells) + " |")
    correct = sum(k["correct"] for r in runs for k in r["kernels"].values())
    fails = sum(k["verdict"] == "fail" for r in runs for k in r["kernels"].values())
    print(
        f"\nperfguard: {correct}/{len(runs) * len(TRUTH)} classes correct, {fails} false fails, "
        f"slowest run + check {max(r['total_seconds'] for r in runs)} s"
    )
    for label, rows in (("big_O same medians", bigo_same), ("big_O own timing", bigo_own)):
        if rows:
            ok = sum(row.get(name) == TRUTH[name] for row in rows for name in TRUTH)
            print(f"{label}: {ok}/{len(rows) * len(TRUTH)} classes correct")
    if args.json:
        Path(args.json).write_text(
            json.dumps({"runs": runs, "bigo_same": bigo_same, "bigo_own": bigo_own}, indent=1)
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
