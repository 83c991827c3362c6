"""How numbers read in tables and sentences."""

from __future__ import annotations

import pytest

from guard import numbers


@pytest.mark.parametrize(
    ("ratio", "long", "short"),
    [
        (1.02, "×1.02", "×1.02"),
        (12.4, "×12.4", "×12.4"),
        (61566, "×61,566", "×6.2e4"),
        (2.5e12, "×2.5e12", "×2.5e12"),  # no thirteen-digit numbers
        (1e300, "×1e300", "×1e300"),  # a damaged growth factor read back from verdicts@1
        (0.5, "×0.50", "×0.50"),
        (0.031, "×0.031", "×0.031"),
        (0.000999, "×0.001", "×0.001"),  # a thousandfold improvement read ×0.00
        (2.5e-7, "×2.5e-7", "×2.5e-7"),
    ],
)
def test_factor_is_short_enough_to_read(ratio: float, long: str, short: str) -> None:
    assert numbers.factor(ratio) == long
    assert numbers.factor(ratio, short=True) == short


@pytest.mark.parametrize(("n", "text"), [(0, "0 kernels"), (1, "1 kernel"), (2, "2 kernels")])
def test_counted(n: int, text: str) -> None:
    assert numbers.counted(n, "kernel") == text


def test_a_probability_reads_the_same_in_the_table_and_the_reasons():
    # the table rounded 0.84457 to 84.5% where its reason said "84.4% confident"
    from guard.checking.sentences import percent
    from guard.checking.verdicts import Verdict
    from guard.reporting.terminal import _probability

    assert numbers.probability(0.84457) == "84.4%" == percent(0.84457)
    assert numbers.probability(0.99995) == ">99.9%"  # never 100.0% for a probability < 1
    assert numbers.probability(0.0) == "0.0%"
    verdict = Verdict("k", "time", "inconclusive", probabilities={"regression": 0.84457})
    assert _probability(verdict) == "84.4%"


def test_a_huge_size_is_not_written_out_in_full():
    # --predict p=1e300 labelled its column with a 301-digit integer
    assert numbers.size(1e300) == "1e300"
    assert numbers.size(2.0**64) == "18446744073709551616"  # exact sizes stay exact
