"""``perfguard model`` against ``extrap``, whole process against whole process.

    .venv/bin/python benchmarks/model_process.py --extrap /work/peers/extrap/bin/extrap

One Extra-P text file of seed 000's protocol (benchmarks/pmnf_accuracy.py's first x-set,
seven classes x ``--per-class`` functions: 1,400 kernels by default), modelled by both
command lines as a user runs them: interpreter start, imports, reading, modeling and
printing every model (``perfguard model FILE --json``, ``extrap --text FILE --modeler
default --print all``; output to /dev/null). Each is run ``--repeat`` times in turn, in
the same invocation, so both see the same machine; the table gives the median wall time
and the median CPU time (user + system, the work when the machine is shared).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from pmnf_accuracy import XSETS, build_file  # noqa: E402


def timed(cmd: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one whole process (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--extrap", required=True, help="the extrap command of a peer venv")
    ap.add_argument("--per-class", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)
    perfguard = str(Path(sys.executable).parent / "perfguard")
    xname = next(iter(XSETS))
    with tempfile.TemporaryDirectory() as tmp:
        path, truth = build_file(xname, args.per_class, args.seed, Path(tmp))
        commands = {
            "perfguard model --json": [perfguard, "model", str(path), "--json"],
            "extrap --modeler default": [
                args.extrap, "--text", str(path), "--modeler", "default", "--print", "all",
                "--disable-progress",
            ],
        }  # fmt: skip
        runs: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
        for _ in range(args.repeat):
            for name, cmd in commands.items():
                runs[name].append(timed(cmd))
    print(f"{len(truth)} kernels, x-set {xname}, median of {args.repeat} whole processes\n")
    print("| command | wall (s) | CPU (s) |")
    print("|---|---:|---:|")
    medians = {}
    for name, rows in runs.items():
        wall = statistics.median(r[0] for r in rows)
        cpu = statistics.median(r[1] for r in rows)
        medians[name] = (wall, cpu)
        print(f"| {name} | {wall:.2f} | {cpu:.2f} |")
    (pw, pc), (ew, ec) = medians.values()
    print(f"\nExtra-P / perfguard: wall {ew / pw:.0f}x, CPU {ec / pc:.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
