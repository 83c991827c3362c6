"""Correct declarations of real code measured as commands: how often `check` fails them.

    .venv/bin/python benchmarks/command_false_alarms.py [--runs 5] [--perfguard .venv/bin/perfguard]

``perfguard run`` command benchmarks (``python3 k.py KIND {n}``, so every value carries the
interpreter's start-up, ~20-80 ms) over 2^14..2^20, each run measured afresh and checked
against its ``expect``: ``a.sort()`` of random floats ``<= n log n``, ``sum`` ``<= n`` and
a dict built and probed ``<= n`` (declared right: a fail is a false alarm), and a quadratic
``<= n`` (too tight: it should fail).  Prints each benchmark's fails over the runs.
"""

from __future__ import annotations

import argparse
import collections
import json
import subprocess
import sys
import tempfile
from pathlib import Path

PY = sys.executable
SCRIPT = """import random, sys
kind, n = sys.argv[1], int(sys.argv[2])
if kind == "sort":
    a = [random.random() for _ in range(n)]
    a.sort()
elif kind == "sum":
    print(sum(range(n)))
elif kind == "dict":
    d = dict.fromkeys(range(n))
    print(sum(k in d for k in range(n)))
elif kind == "pairs":
    m = n // 512
    print(sum(1 for i in range(m) for j in range(m)))
"""
CONFIG = f"""version: 1
parameters:
  n: "2^14..2^20"
run:
  budget: 60
benchmarks:
  sort_floats: {{command: ["{PY}", "k.py", "sort", "{{n}}"], expect: "<= n log n"}}
  sum_ints: {{command: ["{PY}", "k.py", "sum", "{{n}}"], expect: "<= n"}}
  dict_probe: {{command: ["{PY}", "k.py", "dict", "{{n}}"], expect: "<= n"}}
  too_tight_pairs: {{command: ["{PY}", "k.py", "pairs", "{{n}}"], expect: "<= n"}}
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--perfguard", default=str(Path(PY).with_name("perfguard")))
    args = ap.parse_args(argv)
    fails: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as work:
        (Path(work) / "perfguard.yml").write_text(CONFIG, encoding="utf-8")
        (Path(work) / "k.py").write_text(SCRIPT, encoding="utf-8")
        for _ in range(args.runs):
            subprocess.run(
                [args.perfguard, "run", "-o", "m.json"], cwd=work, capture_output=True, check=False
            )
            done = subprocess.run(
                [args.perfguard, "check", "m.json", "--json"],
                cwd=work, capture_output=True, text=True, check=False,
            )  # fmt: skip
            for kernel in json.loads(done.stdout)["kernels"]:
                fails[kernel["kernel"]] += kernel["verdict"] == "fail"
    print(f"| benchmark | failed runs of {args.runs} |\n|---|---:|")
    for name in ("sort_floats", "sum_ints", "dict_probe", "too_tight_pairs"):
        print(f"| {name} | {fails[name]} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
