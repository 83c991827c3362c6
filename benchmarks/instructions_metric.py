"""The instructions metric: what it costs per repetition and how much it varies, beside time.

    .venv/bin/python benchmarks/instructions_metric.py [--reps 3] [--max-exp 18]

Two in-process kernels run by perfguard's own callable executor, at sizes 2^12..2^max-exp
(x4): ``sorted()`` of random floats (n log n) and ``sum()`` over floats in shuffled memory
order (n, memory-bound). Their working set (32 bytes an element) leaves this machine's
L2 around 2^16. For each size: ``time`` (looped to 50 ms a repetition) and
``instructions`` (counted by valgrind, only the timed call) with the repetitions' spread
((max - min) / median) and the value per n log n (or per n) relative to the smallest
size -- flat when only the algorithm counts -- and the wall-clock cost of one repetition.
Then a command kernel (a Python process sorting 2^16 floats) under each counter this
machine has: native time, valgrind (cachegrind) and perf where ``perf stat`` counts.
"""

from __future__ import annotations

import argparse
import math
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from guard.collection.counters import CounterChoice  # noqa: E402
from guard.collection.executors import CallableExecutor, CommandExecutor  # noqa: E402
from guard.collection.spec import BenchmarkSpec  # noqa: E402

KERNELS = textwrap.dedent(
    """
    import random

    def sort_floats(n):
        rng = random.Random(n)
        data = [rng.random() for _ in range(n)]
        return lambda: sorted(data)

    def sum_shuffled(n):
        rng = random.Random(n)
        data = [float(i) for i in range(n)]
        rng.shuffle(data)  # the float objects stay in allocation order: visits jump around
        return lambda: sum(data)
    """
)
COMMAND = "import random, sys; r = random.Random(1); sorted(r.random() for _ in range({n}))"


def spec(target, folder: Path, metric: str, kind: str = "callable", counter: str = "auto"):
    return BenchmarkSpec(
        name=f"{target}:{metric}:{counter}",
        kind=kind,  # type: ignore[arg-type]
        target=target,
        shell=False,
        metric=metric,
        unit=None,
        repetitions=1,
        timeout=600,
        warmup=1,
        parameters=("n",),
        points=((1.0,),),
        folder=folder,
        instruction_counter=counter,
    )


def repeat(executor, bench: BenchmarkSpec, n: int, reps: int) -> tuple[list[float], float]:
    """``reps`` values at n (after one warmed-up first call) and the wall seconds per repetition."""
    executor.measure(bench, (float(n),), 1)  # the point's setup, warm-up and calibration
    values, started = [], time.perf_counter()
    for _ in range(reps):
        values.append(executor.measure(bench, (float(n),), 0))
    return values, (time.perf_counter() - started) / reps


def spread(values: list[float]) -> float:
    return (max(values) - min(values)) / statistics.median(values)


def callables(folder: Path, exps: list[int], reps: int) -> None:
    print("## In-process kernels (callable benchmarks)\n")
    timing = CallableExecutor(min_time=0.05)
    counting = CallableExecutor()
    started = time.perf_counter()
    counting.measure(spec("kernels:sum_shuffled", folder, "instructions"), (16.0,), 0)
    print(f"callgrind worker start-up (first request): {time.perf_counter() - started:.2f} s\n")
    print(
        "| kernel | n | time median | time spread | time/unit (rel.) | instructions median "
        "| instr. spread | instr./unit (rel.) | s/rep time | s/rep valgrind | slowdown |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, unit in (("sort_floats", lambda n: n * math.log2(n)), ("sum_shuffled", float)):
        first: tuple[float, float] | None = None
        for e in exps:
            n = 2**e
            t, t_cost = repeat(timing, spec(f"kernels:{name}", folder, "time"), n, reps)
            c, c_cost = repeat(counting, spec(f"kernels:{name}", folder, "instructions"), n, reps)
            per = (statistics.median(t) / unit(n), statistics.median(c) / unit(n))
            first = first or per
            slowdown = c_cost / statistics.median(t)  # one counted call vs one native call
            print(
                f"| {name} | 2^{e} | {statistics.median(t) * 1e3:.3f} ms | {spread(t):.1%} "
                f"| {per[0] / first[0]:.2f} | {statistics.median(c):,.0f} | {spread(c):.4%} "
                f"| {per[1] / first[1]:.3f} | {t_cost:.2f} | {c_cost:.2f} | {slowdown:.0f}x |",
                flush=True,
            )
    timing.close()
    counting.close()


def commands(folder: Path, n: int, reps: int) -> None:
    print(f"\n## A command: a Python process sorting 2^{int(math.log2(n))} floats\n")
    print("| counter | median | spread | s/rep | slowdown |")
    print("|---|---|---|---|---|")
    argv = [sys.executable, "-c", COMMAND.format(n=n)]
    executor = CommandExecutor()
    native, native_cost = repeat(executor, spec(argv, folder, "time", "command"), n, reps)
    print(
        f"| time (native) | {statistics.median(native):.3f} s | {spread(native):.1%} "
        f"| {native_cost:.2f} | 1x |"
    )
    counters = ["valgrind"] + (["perf"] if CounterChoice().perf_counts() else [])
    for counter in counters:
        bench = spec(argv, folder, "instructions", "command", counter)
        values, cost = repeat(executor, bench, n, reps)
        print(
            f"| instructions ({counter}) | {statistics.median(values):,.0f} "
            f"| {spread(values):.4%} | {cost:.2f} | {cost / native_cost:.0f}x |"
        )
    if "perf" not in counters:
        probe = subprocess.run(
            ["perf", "stat", "-x", ",", "-e", "instructions:u", "true"],
            capture_output=True,
            text=True,
            check=False,
        )
        print(f"| instructions (perf) | not on this machine: `{probe.stderr.strip()}` | | | |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--max-exp", type=int, default=18)
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="perfguard-instructions-") as tmp:
        folder = Path(tmp)
        (folder / "kernels.py").write_text(KERNELS)
        callables(folder, list(range(12, args.max_exp + 1, 2)), args.reps)
        commands(folder, 2**16, args.reps)
    return 0


if __name__ == "__main__":
    sys.exit(main())
