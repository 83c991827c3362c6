"""Start-up of the command line: whole processes, median of N, beside their floors.

    .venv/bin/python benchmarks/startup.py [--runs 10]

Times ``perfguard --version`` and ``perfguard check --help`` as a user runs them (the
installed console script), next to two floors measured in the same run: the bare
interpreter (``python -c pass``) and the command-line library alone (``python -c "import
typer"``). Each row gives the median wall time and the median CPU time (user + system)
of the process: on a shared machine the CPU time shows the work when the wall time is
mostly waiting for a core. Then prints the ten slowest imports of ``guard.cli``
from ``python -X importtime`` (cumulative microseconds).
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

BIN = Path(sys.executable).parent


def median_seconds(args: list[str], runs: int) -> tuple[float, float]:
    """Median wall and CPU (user + system) seconds of ``runs`` whole processes."""
    walls, cpus = [], []
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        walls.append(time.perf_counter() - t0)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return statistics.median(walls), statistics.median(cpus)


def slowest_imports(count: int = 10) -> list[tuple[int, str]]:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import guard.cli"],
        capture_output=True,
        text=True,
        check=True,
    )
    rows = []
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[1].strip().isdigit():
            rows.append((int(parts[1]), parts[2].rstrip()))
    return sorted(rows, reverse=True)[:count]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args(argv)
    perfguard = str(BIN / "perfguard")
    rows = [
        ("perfguard --version", [perfguard, "--version"]),
        ("perfguard check --help", [perfguard, "check", "--help"]),
        ("floor: python -c pass", [sys.executable, "-c", "pass"]),
        ("floor: import typer", [sys.executable, "-c", "import typer"]),
    ]
    print(f"| command | wall, median of {args.runs} (s) | CPU (s) |")
    print("|---|---:|---:|")
    for label, command in rows:
        wall, cpu = median_seconds(command, args.runs)
        print(f"| {label} | {wall:.3f} | {cpu:.3f} |", flush=True)
    print("\nslowest imports of guard.cli (cumulative us):")
    for us, name in slowest_imports():
        print(f"{us:>9} {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
