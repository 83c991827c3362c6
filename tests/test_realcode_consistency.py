"""The report never contradicts itself on the real-code corpus (issue 16): the verdicts of a
recorded library run (``benchmarks/realcode/findings``) under its documented bounds and
under bounds one class too tight, with and without the machine's cache sizes, pass
``benchmarks/realcode/consistency.py``; and that script does catch contradictions."""

from __future__ import annotations

import copy
import dataclasses
import json
from collections import Counter
from pathlib import Path
from types import MappingProxyType

import pytest
import yaml
from test_realcode_corpus import _module

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.formats import load

REALCODE = Path(__file__).resolve().parents[1] / "benchmarks" / "realcode"
CACHES = {"L1d": 32 << 10, "L2": 1 << 20, "L3": 32 << 20}


consistency = _module(REALCODE / "consistency.py", "realcode_consistency")
DOCUMENTED = {
    name: spec["expect"]
    for name, spec in yaml.safe_load((REALCODE / "perfguard.yml").read_text())["benchmarks"].items()
}
TOO_TIGHT = {  # one class below the documented one (rounds.py's, for the kernels of class >= n)
    "sum_floats": "<= 1",
    "json_loads": "<= 1",
    "accumulate_list": "<= 1",
    "np_dot": "<= 1",
    "sorted_floats": "<= log n",
    "np_sort": "<= log n",
    "pairs_combinations": "<= n",
}


def _verdicts(bounds: dict[str, str], caches: dict | None) -> dict:
    mset = load(REALCODE / "findings" / "round3-lib-A.json")
    if caches is not None:
        machine = dict(mset.run.machine) | {"caches": caches}
        run = dataclasses.replace(mset.run, machine=MappingProxyType(machine))
        mset = dataclasses.replace(mset, run=run)
    rules = tuple(ExpectationRule(k, v) for k, v in bounds.items())
    report = check(mset, None, CheckOptions(rules=rules))
    return json.loads(json.dumps(report.to_json()))


@pytest.fixture(scope="module")
def recorded() -> dict[str, dict]:
    return {
        f"{which} {label}": _verdicts(bounds, caches)
        for which, bounds in (("documented", DOCUMENTED), ("too tight", TOO_TIGHT))
        for label, caches in (("caches", CACHES), ("no caches", None))
    }


def test_the_corpus_verdicts_never_contradict_themselves(recorded):
    checked: Counter = Counter()
    found = [
        c
        for where, doc in recorded.items()
        for c in consistency.file_contradictions(doc, where, checked)
    ]
    assert found == []
    assert checked["bounds"] == 2 * (len(DOCUMENTED) + len(TOO_TIGHT))
    assert checked["reason classes"] >= 2 * len(TOO_TIGHT)  # every too-tight bound fails
    verdicts = Counter(k["verdict"] for doc in recorded.values() for k in doc["kernels"])
    assert verdicts["fail"] and verdicts["inconclusive"] and verdicts["pass"]


def test_with_caches_the_documented_bounds_do_not_fail_and_too_tight_ones_do(recorded):
    documented = recorded["documented caches"]["kernels"]
    assert [k["kernel"] for k in documented if k["verdict"] == "fail"] == []
    tight = {k["kernel"]: k["verdict"] for k in recorded["too tight caches"]["kernels"]}
    assert {name: tight[name] for name in TOO_TIGHT} == dict.fromkeys(TOO_TIGHT, "fail")
    # the same file without its machine's caches: the memory-bound sorts fail as before
    plain = {k["kernel"]: k["verdict"] for k in recorded["documented no caches"]["kernels"]}
    assert plain["sorted_floats"] == "fail"


def _one(recorded, which: str, verdict: str) -> dict:
    doc = recorded[which]
    return next(k for k in doc["kernels"] if k["verdict"] == verdict)


def test_contradictions_are_caught(recorded):
    failed = _one(recorded, "too tight caches", "fail")
    quiet = copy.deepcopy(failed) | {"verdict": "pass", "violates_expectation": False}
    problems = [c.problem for c in consistency.kernel_contradictions(quiet, "x")]
    assert any("passes" in p for p in problems)

    renamed = copy.deepcopy(failed)
    renamed["reasons"][0]["message"] = "1 measured, " + renamed["reasons"][0]["message"]
    renamed["model"]["complexity"] = "O(n^3)"
    problems = [c.problem for c in consistency.kernel_contradictions(renamed, "x")]
    assert any("reason names 1" in p for p in problems)

    passed = _one(recorded, "documented caches", "pass")
    claimed = copy.deepcopy(passed) | {"verdict": "fail", "violates_expectation": True}
    problems = [c.problem for c in consistency.kernel_contradictions(claimed, "x")]
    assert any("shown class inside it" in p for p in problems)

    doc = {"status": "pass", "kernels": [failed]}
    assert [c.problem for c in consistency.file_contradictions(doc, "x")][0].startswith("status")


def test_regression_contradictions_are_caught():
    entry = {
        "kernel": "k",
        "verdict": "pass",
        "regression": True,
        "model": {"complexity": "O(n)"},
        "baseline_model": {"complexity": "O(n^2)"},
        "reasons": [{"kind": "regression", "message": "n log n now, n^2 in the baseline; …"}],
    }
    problems = [c.problem for c in consistency.kernel_contradictions(entry, "x")]
    assert any("says n log n now" in p for p in problems)
    assert any("regression with verdict pass" in p for p in problems)
    grew = entry | {"regression": False, "model": {"complexity": "exponential-like"}, "reasons": []}
    problems = [c.problem for c in consistency.kernel_contradictions(grew, "x")]
    assert problems == ["shown class above the baseline's passes"]
