"""The real-code corpus of issue 16 holds together: configs, factories, catalog, rounds.

Nothing here times anything (that is ``benchmarks/realcode/rounds.py``); it checks that
every declared benchmark has a factory that runs, that every bug is pinned at two
releases and measured by a benchmark, and that ``--metric`` rewrites the configs into
ones perfguard accepts.
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path

import pytest

from guard.config import load_config

REALCODE = Path(__file__).resolve().parents[1] / "benchmarks" / "realcode"


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def rounds():
    return _module(REALCODE / "rounds.py", "realcode_rounds")


def test_library_corpus_has_twenty_kernels_with_a_class_and_a_factory():
    config = load_config(REALCODE / "perfguard.yml")
    kernels = _module(REALCODE / "kernels.py", "realcode_kernels")
    assert len(config.benchmarks) >= 20
    for bench in config.benchmarks:
        assert bench.expect, bench.name
        module, _, function = bench.callable.partition(":")
        assert module == "kernels"
        assert callable(getattr(kernels, function)), bench.name


def test_every_library_factory_runs_at_a_small_size():
    kernels = _module(REALCODE / "kernels.py", "realcode_kernels")
    config = load_config(REALCODE / "perfguard.yml")
    has_sorted = importlib.util.find_spec("sortedcontainers") is not None
    for bench in config.benchmarks:
        if bench.name == "sortedlist_add" and not has_sorted:
            continue  # installed by `rounds.py setup`, not a perfguard dependency
        timed = getattr(kernels, bench.callable.partition(":")[2])(n=64)
        timed()


def test_every_bug_is_pinned_at_two_releases_and_measured(rounds):
    config = load_config(REALCODE / "bugs" / "perfguard.yml")
    names = {b.name for b in config.benchmarks}
    bugs = rounds.BUGS
    assert len(bugs) >= 5
    assert {b.name for b in bugs} == names
    classes = {b.buggy_class.split()[0] for b in bugs}
    assert {"exponential", "n^2"} <= classes
    for bug in bugs:
        assert re.fullmatch(r"\d+(\.\d+)+", bug.buggy) and re.fullmatch(r"\d+(\.\d+)+", bug.fixed)
        assert bug.buggy != bug.fixed
        assert bug.advisory.startswith("CVE-") and bug.links


def test_too_tight_bounds_name_library_kernels_and_differ_from_the_declared(rounds):
    declared = {b.name: b.expect for b in load_config(REALCODE / "perfguard.yml").benchmarks}
    for kernel, bound in rounds.TOO_TIGHT.items():
        assert kernel in declared
        assert bound != declared[kernel]


def test_metric_flag_rewrites_every_benchmark(rounds, tmp_path):
    for source in (REALCODE / "perfguard.yml", REALCODE / "bugs" / "perfguard.yml"):
        derived = rounds.derived_config(source, "instructions", tmp_path / source.name)
        config = load_config(derived)
        assert {b.metric for b in config.benchmarks} == {"instructions"}
        assert [b.expect for b in config.benchmarks] == [
            b.expect for b in load_config(source).benchmarks
        ]
