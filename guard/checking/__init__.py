"""Expectations, class order, verdicts, baseline comparison and ranking."""
