"""``perfguard site`` on a big history: whole-process wall time, beside ``perfguard history``.

A synthetic history of COMMITS commits x KERNELS kernels is made by guard.site.sample
(seeded measurements, the real check, the real History.record), then each command runs as
a separate process, alternating, ``--repeat`` times:

    perfguard site --db H -o SITE          (a new folder each time)
    perfguard history --db H -n COMMITS    (the terminal table: the peer, same data)

Wall time (median and worst), the site's size and its file count are printed as a
markdown table for docs/benchmarks.md.

    .venv/bin/python benchmarks/site_speed.py [--commits 30] [--kernels 20] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from guard.site.sample import SampleSpec, write_sample


def timed(args: list[str]) -> float:
    """Wall seconds of one whole ``perfguard`` process (it must exit 0)."""
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "guard.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "COLUMNS": "120"},
    )
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise SystemExit(f"perfguard {' '.join(args)}: exit {done.returncode}: {done.stderr}")
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commits", type=int, default=30)
    parser.add_argument("--kernels", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="perfguard-site-speed-") as tmp:
        db = Path(tmp) / "history.sqlite"
        t0 = time.perf_counter()
        spec = SampleSpec(commits=args.commits, kernels=args.kernels, seed=args.seed)
        write_sample(db, spec)
        made = time.perf_counter() - t0
        site, peer = [], []
        for i in range(args.repeat):
            out = Path(tmp) / f"site{i}"
            site.append(timed(["site", "--db", str(db), "-o", str(out)]))
            peer.append(timed(["history", "--db", str(db), "-n", str(args.commits)]))
        files = [p for p in (Path(tmp) / "site0").rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files) / 1e6
    print(
        f"history: {args.commits} commits x {args.kernels} kernels, seed {args.seed} "
        f"(made in {made:.1f} s, {db.name}); {args.repeat} runs each, alternating"
    )
    print()
    print("| command | median wall | worst wall | output |")
    print("|---|---:|---:|---|")
    print(
        f"| `perfguard site --db H -o SITE` | {statistics.median(site):.2f} s | "
        f"{max(site):.2f} s | {len(files)} files, {size:.1f} MB |"
    )
    print(
        f"| `perfguard history --db H -n {args.commits}` | {statistics.median(peer):.2f} s | "
        f"{max(peer):.2f} s | a terminal table |"
    )


if __name__ == "__main__":
    main()
