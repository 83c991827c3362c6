"""Facts every renderer shows alike: which verdict each reason line stands for."""

from __future__ import annotations

import pytest

from guard.checking.verdicts import SAME_GROWTH, Reason, Verdict
from guard.reporting.summary import shown_reasons, standing_reasons

UNDECIDED = Reason("regression", "n^1.5 now, n in the baseline; but ... to decide")
FAILED = Reason("expectation", "n^1.5 measured, <= n expected; >99.9% confident")
CHANGE = Reason("change", "×4.99 the baseline at n=262144, as measured")
SAME = Reason("regression", f"grows faster than any class at its top sizes{SAME_GROWTH}")


@pytest.mark.parametrize(
    ("verdict", "flags", "reasons", "standings"),
    [
        # the bound failed, the regression did not: its line is not a fail
        ("fail", {"violates_expectation": True}, (FAILED, UNDECIDED, CHANGE),
         ["fail", "inconclusive", "note"]),
        # the regression failed, the bound did not
        ("fail", {"regression": True}, (FAILED, Reason("regression", "grew")),
         ["inconclusive", "fail"]),
        ("fail", {"violates_expectation": True, "regression": True}, (FAILED, UNDECIDED),
         ["fail", "fail"]),
        ("inconclusive", {}, (UNDECIDED, CHANGE), ["inconclusive", "inconclusive"]),
        ("pass", {}, (CHANGE,), []),  # a pass shows no change line
        # exponential-like in both runs: no change to judge, not an undecided regression
        ("fail", {"violates_expectation": True}, (FAILED, SAME, CHANGE),
         ["fail", "note", "note"]),
        ("pass", {}, (SAME,), ["pass"]),
    ],
)  # fmt: skip
def test_each_reason_line_stands_for_what_it_decided(verdict, flags, reasons, standings):
    v = Verdict("k", "time", verdict, reasons=reasons, **flags)
    assert [s for s, _ in standing_reasons(v)] == standings
    assert [line for _, line in standing_reasons(v)] == shown_reasons(v)
