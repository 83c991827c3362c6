"""The markdown report: golden files, escaping of user text, charts, the size limit.

Golden files live in tests/data/report/. After an intended change to the report,
regenerate them and review the diff:

    PERFGUARD_UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/reporting/test_report.py
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from guard.checking.check import CheckOptions, ExpectationRule, check
from guard.checking.verdicts import CheckReport, Reason, Verdict
from guard.measurements import Kernel, MeasurementSet, Point
from guard.modeling.pmnf import Factor, Model, Term
from guard.reporting import charts
from guard.reporting.markdown import (
    escape,
    escape_html,
    fence,
    render_markdown,
    render_report,
)

GOLDEN = Path(__file__).parents[1] / "data" / "report"
UPDATE = os.environ.get("PERFGUARD_UPDATE_GOLDEN") == "1"
SIZES = (256, 512, 1024, 2048, 4096, 8192)
PATTERN = (1.0, 1.01, 0.99, 1.005, 0.995)  # deterministic "noise": +-1% at noise=0.01
REPRODUCE = "perfguard check current.json --baseline baseline.json -c perfguard.yml"
NASTY = "<img src=x onerror=alert(1)> **bold** | pipe [link](http://x)"


def kernel(
    name: str, f: Callable[[float], float], noise: float = 0.01, sizes: tuple[int, ...] = SIZES
) -> Kernel:
    """Repetitions f(n) * (1 +- noise), the pattern's sign alternating from size to size."""
    points = []
    for i, n in enumerate(sizes):
        sign = -1 if i % 2 else 1
        values = tuple(f(n) * (1 + sign * noise * (p - 1) / 0.01) for p in PATTERN)
        points.append(Point((n,), values))
    return Kernel(name, "time", tuple(points), "s")


def mset(*kernels: Kernel) -> MeasurementSet:
    return MeasurementSet(("n",), kernels)


def n_log_n(n: float) -> float:
    return 1e-7 * n * math.log2(n)


def current_set() -> MeasurementSet:
    return mset(
        kernel("sort", n_log_n),
        kernel("dedupe", lambda n: 1e-9 * n * n + 1e-6),
        kernel("lookup", lambda n: 2e-6),
        kernel("scan", lambda n: 1e-8 * n**1.3),
        kernel("wobbly", lambda n: 1e-8 * n**1.1, noise=0.2),
        kernel("broken", lambda n: 1e-6 * n, sizes=SIZES[:1]),
    )


def baseline_set() -> MeasurementSet:
    return mset(
        kernel("sort", n_log_n),
        kernel("dedupe", lambda n: 1e-7 * n + 1e-6),
        kernel("lookup", lambda n: 2e-6),
        kernel("scan", lambda n: 1e-8 * n**1.3),
        kernel("gone", lambda n: 1e-6),
    )


OPTIONS = CheckOptions(
    rules=(
        ExpectationRule("sort", "<= n log n"),
        ExpectationRule("lookup", "<= n"),
        ExpectationRule("scan", "<= n"),
        ExpectationRule("wobbly", "<= n"),
    ),
    target={"n": 1e6},
)


def assert_golden(name: str, text: str) -> None:
    path = GOLDEN / name
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8"), f"{name} differs; see the module docstring"


def outside_fences(text: str) -> list[str]:
    """The lines that are not inside a fenced code block."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            out.append(line)
    return out


def mermaid_blocks(text: str) -> list[str]:
    return re.findall(r"```mermaid\n(.*?)\n```", text, flags=re.S)


def cells(line: str) -> list[str]:
    """A table row's cells, split on the pipes markdown sees (not the escaped ones)."""
    return re.split(r"(?<!\\)\|", line.strip())[1:-1]


@pytest.fixture(scope="module")
def fail_report() -> CheckReport:
    return check(current_set(), baseline_set(), OPTIONS)


# ---------------------------------------------------------------------------- golden


def test_the_fixture_exercises_every_verdict(fail_report: CheckReport) -> None:
    got = {
        v.kernel: (v.verdict, v.regression, v.violates_expectation) for v in fail_report.verdicts
    }
    assert got == {
        "sort": ("pass", False, False),
        "dedupe": ("fail", True, False),
        "lookup": ("pass", False, False),
        "scan": ("fail", False, True),
        "wobbly": ("inconclusive", False, False),
        "broken": ("error", False, False),
    }


def test_failing_report_matches_golden(fail_report: CheckReport) -> None:
    text = render_report(fail_report, current_set(), baseline_set(), reproduce=REPRODUCE)
    assert_golden("report_fail.md", text)
    assert text.startswith("## perfguard: ❌ fail (2 fail, 1 error, 1 inconclusive, 2 pass)\n")


def test_passing_report_matches_golden() -> None:
    current = mset(kernel("sort", n_log_n), kernel("lookup", lambda n: 2e-6))
    report = check(current, None, CheckOptions(rules=(ExpectationRule("*", "<= n log n"),)))
    text = render_report(report, current, title="perfguard (ubuntu-latest)")
    assert_golden("report_pass.md", text)
    assert "<details open>" not in text and "Reproduce" not in text


def test_report_without_measurements_matches_golden(fail_report: CheckReport) -> None:
    text = render_markdown(fail_report)
    assert_golden("report_plain.md", text)
    assert "```mermaid" not in text and text == render_report(fail_report)


def test_rendering_is_deterministic(fail_report: CheckReport) -> None:
    def render() -> str:
        return render_report(fail_report, current_set(), baseline_set(), reproduce=REPRODUCE)

    assert render() == render()


def test_details_list_failures_first_and_open_only_for_failures(fail_report: CheckReport) -> None:
    text = render_report(fail_report, current_set(), baseline_set())
    order = re.findall(r"<summary>.*?<b>(\w+)</b>", text)
    assert order == ["dedupe", "scan", "broken", "wobbly", "sort", "lookup"]
    assert text.count("<details open>") == 2


def test_chart_has_medians_model_and_baseline(fail_report: CheckReport) -> None:
    text = render_report(fail_report, current_set(), baseline_set())
    block = next(b for b in mermaid_blocks(text) if 'title "dedupe (time)"' in b)
    assert 'x-axis "n" ["256", "512", "1024", "2048", "4096", "8192"]' in block
    assert 'y-axis "time (ms)"' in block
    assert block.count("\n    bar [") == 1 and block.count("\n    line [") == 2
    no_baseline = render_report(fail_report, current_set())
    assert "baseline medians" not in no_baseline


def test_multi_parameter_kernels_get_no_chart() -> None:
    points = tuple(
        Point((n, p), tuple(1e-6 * n * p * r for r in PATTERN))
        for n in (64, 128, 256, 512, 1024)
        for p in (2, 4, 8, 16, 32)
    )
    current = MeasurementSet(("n", "p"), (Kernel("grid", "time", points, "s"),))
    text = render_report(check(current), current)
    assert "```mermaid" not in text and "<b>grid</b>" in text


# ---------------------------------------------------------------------------- escaping


@pytest.fixture(scope="module")
def nasty_text() -> str:
    current = mset(kernel(NASTY, n_log_n), kernel("@octocat #12 www.example.com", n_log_n))
    report = check(current)
    first = dataclasses.replace(
        report.verdicts[0],
        expectation="<= `n` ``` log n",
        reasons=(Reason("expectation", "see `x` | and ```` fences\n# heading [a](https://e.vil)"),),
    )
    report = dataclasses.replace(report, verdicts=(first, *report.verdicts[1:]))
    return render_report(report, current, reproduce=f"perfguard check '{NASTY}' ``` x")


def test_user_html_is_escaped_everywhere(nasty_text: str) -> None:
    assert "<img" not in "\n".join(outside_fences(nasty_text))  # code blocks show it as text
    assert "&lt;img src=x onerror=alert(1)&gt;" in nasty_text  # table, summary, details


def test_user_markup_cannot_break_the_table(nasty_text: str) -> None:
    header = next(line for line in nasty_text.splitlines() if line.startswith("| kernel"))
    row = next(line for line in nasty_text.splitlines() if "onerror" in line and line[0] == "|")
    assert len(cells(row)) == len(cells(header)) == 7  # no baseline: no change column
    assert cells(row)[0].strip().startswith("&lt;img") and "\\*\\*bold\\*\\* \\| pipe" in row


def test_user_links_and_mentions_are_not_live(nasty_text: str) -> None:
    prose = "\n".join(outside_fences(nasty_text))
    markdown = [line for line in outside_fences(nasty_text) if "<summary>" not in line]
    assert all(re.search(r"(?<!\\)\]\(", line) is None for line in markdown)
    assert "://" not in prose
    assert "@octocat" not in prose and "@&#8203;octocat" in prose
    assert "#12" not in prose and "www.example" not in prose


def test_user_backticks_are_escaped_outside_code(nasty_text: str) -> None:
    for line in outside_fences(nasty_text):
        assert re.search(r"(?<!\\)`", line) is None, line
    assert "&lt;= \\`n\\` \\`\\`\\` log n" in nasty_text
    assert "\n# heading" not in nasty_text


def test_reproduce_command_cannot_close_its_fence(nasty_text: str) -> None:
    assert f"````sh\nperfguard check '{NASTY}' ``` x\n````" in nasty_text


def test_user_text_cannot_break_the_mermaid_block(nasty_text: str) -> None:
    blocks = mermaid_blocks(nasty_text)
    assert len(blocks) == 2
    for block in blocks:
        for line in block.splitlines()[1:]:
            assert "<" not in line and "`" not in line
            assert line.count('"') % 2 == 0, line
        assert re.search(r'^    title "[^"]*"$', block, flags=re.M)


def test_escape_functions() -> None:
    assert escape("a|b") == "a\\|b"
    assert escape("<b>x</b>\nnext") == "&lt;b&gt;x&lt;/b&gt; next"
    assert escape("ping @me") == "ping @&#8203;me"
    assert escape_html('"<x>" & @y') == "&quot;&lt;x&gt;&quot; &amp; @&#8203;y"
    assert fence("a ```` b", "sh") == "`````sh\na ```` b\n`````"
    # a fork names its kernels: no bidi override reversing a name, no GH-123 autolink, no
    # $math$ rendering (found by a security review of the fork-safe comment)
    assert escape("sort\u202egnp.exe") == "sortgnp.exe"
    assert escape_html("a\u2066b\u2069c\u200f") == "abc"
    assert escape("see GH-12") == "see GH-&#8203;12" and escape("HIGH-2") == "HIGH-2"
    assert escape("$x^2$") == "\\$x^2\\$"


# ---------------------------------------------------------------------------- charts


def test_xychart_block() -> None:
    block = charts.xychart(
        'sort "fast"\nv2',
        ["256", "16.4k"],
        {"measured": [0.5, 1234.6], "model": [0.00012345, 1000]},
        x_label="n",
        y_label="time (ms)",
        bars=("measured",),
    )
    assert block.splitlines()[2:] == [
        "xychart-beta",
        "    title \"sort 'fast' v2\"",
        '    x-axis "n" ["256", "16.4k"]',
        '    y-axis "time (ms)" 0 --> 1500',
        "    bar [0.5, 1235]",
        "    line [0.0001234, 1000]",
        "```",
    ]
    assert block.startswith("```mermaid\n%%{init:")
    assert charts.legend(["measured", "model"], ("measured",)) == (
        "🟦 bars: measured · 🟧 line: model"
    )


def test_xychart_without_series_and_with_negative_values() -> None:
    assert '"" 0 --> 1.5\n```' in charts.xychart("t", [], {})
    assert 'y-axis "" -2 --> 3' in charts.xychart("t", ["1", "2"], {"a": [-2.0, 2.5]})


def test_xychart_rejects_series_of_the_wrong_length() -> None:
    with pytest.raises(ValueError, match="2 values for 3 labels"):
        charts.xychart("t", ["1", "2", "3"], {"a": [1.0, 2.0]})


@pytest.mark.parametrize(
    ("value", "text"),
    [(256, "256"), (8192, "8192"), (16384, "16.4k"), (1048576, "1.05M"), (0.5, "0.5")],
)
def test_compact_number(value: float, text: str) -> None:
    assert charts.compact_number(value) == text


def test_pick_points_keeps_one_stride_the_top_and_at_most_sixteen() -> None:
    assert charts.pick_points(5) == [0, 1, 2, 3, 4]
    assert charts.pick_points(15) == list(range(15))  # 2^6..2^20: every size, the bend's too
    # more than fit: every second one, so the categorical axis keeps its spacing (an uneven
    # pick drew 128 -> 512 and 4096 -> 16384 as single steps)
    assert charts.pick_points(15, most=12) == [0, 2, 4, 6, 8, 10, 12, 14]
    picked = charts.pick_points(40)
    assert len(picked) <= 16 and picked[-1] == 39
    assert len({b - a for a, b in zip(picked, picked[1:])}) == 1


def test_scale_values() -> None:
    assert charts.scale_values([2e-6, 5e-5], "s") == (1e-6, "µs")
    assert charts.scale_values([1500.0], None) == (1e3, "×1000")
    assert charts.scale_values([0.0], "B") == (1.0, "B")
    assert charts.scale_values([2e6], "instructions") == (1e6, "×1e+06 instructions")


def test_long_size_lists_are_thinned_to_one_stride_and_say_so() -> None:
    sizes = tuple(2**k for k in range(4, 24))  # 20 sizes: every second, the top kept
    current = mset(kernel("sum", lambda n: 1e-9 * n, sizes=sizes))
    text = render_report(check(current), current)
    (block,) = mermaid_blocks(text)
    axis = re.search(r"x-axis \"n\" \[(.*)\]", block)
    assert axis is not None and len(axis.group(1).split(", ")) == 10
    assert '"32"' in axis.group(1) and '"8.39M"' in axis.group(1)
    assert "1 size in 2 shown (20 measured)" in text


# ---------------------------------------------------------------------------- size limit


def linear(name: str) -> Model:
    return Model(name, "time", ("n",), 1e-6, (Term(1e-9, (Factor("n", 1),)),), 0.5, 0.02)


def many(count: int, failing: int) -> tuple[CheckReport, MeasurementSet]:
    """``count`` kernels with models and measurements; the first ``failing`` fail."""
    names = [f"k{i:04d}" for i in range(count)]
    verdicts = tuple(
        Verdict(
            name,
            "time",
            "fail" if i < failing else "pass",
            "<= log n",
            violates_expectation=i < failing,
            reasons=(Reason("expectation", "n measured, <= log n expected"),)
            if i < failing
            else (),
            model=linear(name),
            rank=i + 1,
        )
        for i, name in enumerate(names)
    )
    current = mset(*(kernel(name, lambda n: 1e-9 * n + 1e-6) for name in names))
    return CheckReport(verdicts), current


def test_over_the_limit_passing_details_go_first() -> None:
    report, current = many(120, failing=3)
    full = render_report(report, current, reproduce=REPRODUCE, limit=10**9)
    assert len(full) > 65_000
    text = render_report(report, current, reproduce=REPRODUCE)
    assert len(text) <= 65_000
    assert all(f"| k{i:04d} |" in text for i in range(120))  # the whole table
    assert text.count("<details open>") == 3  # every failure keeps its details
    shown = text.count("<details")
    note = f"report truncated: {120 - shown} kernels' details omitted"
    assert note in text and "65,536 characters" in text and "job summary" in text
    assert shown < 120


def test_two_thousand_kernels_stay_under_the_limit() -> None:
    report, current = many(2000, failing=5)
    # the failing kernels come last in the report's own order: the table still opens with
    # them, and their reasons stay (a 5,000-kernel comment kept none, its failures
    # scattered among 473 rows in input order under a note saying "failures kept first")
    report = dataclasses.replace(report, verdicts=report.verdicts[::-1])
    text = render_report(report, current, reproduce=REPRODUCE)
    assert len(text) <= 65_000
    assert text.startswith("## perfguard: ❌ fail (5 fail, 1995 pass)\n")
    rows = re.findall(r"^\| (k\d{4}) \|", text, flags=re.M)
    assert 0 < len(rows) < 2000
    assert sorted(rows[:5]) == [f"k{i:04d}" for i in range(5)]  # failures at the top
    assert text.count("<details") == 5 and text.count("**expectation**: n measured") == 5
    note = f"report truncated: 1995 kernels' details and {2000 - len(rows)} of 2000 table rows"
    assert note in text and "65,536 characters" in text


@pytest.mark.parametrize("limit", [2_000, 5_000, 20_000])
def test_any_limit_is_respected(limit: int) -> None:
    report, current = many(60, failing=2)
    text = render_report(report, current, limit=limit)
    assert len(text) <= limit and "report truncated" in text


def test_a_flood_of_notes_is_cut_with_the_note_kept() -> None:
    report, current = many(10, failing=1)
    notes = tuple(
        f"gone_{i} (time) is in the baseline but not in the current measurements"
        for i in range(2000)
    )
    text = render_report(dataclasses.replace(report, notes=notes), current, limit=20_000)
    assert len(text) <= 20_000
    assert text.startswith("## perfguard: ❌ fail") and text.endswith(
        "see the job summary / artifact\n"
    )


def test_a_chart_label_holds_no_mermaid_directive():
    # a kernel named "%%{init: {'theme':'dark'}}%% x" reached the chart's title, where
    # mermaid reads a directive anywhere in the diagram's text
    from guard.reporting.charts import label

    text = label("%%{init: {'theme':'dark', 'themeCSS': 'x'}}%% sort; `a` <b>")
    assert not set(text) & set("%{};`<>") and "sort" in text


def test_a_chart_label_holds_no_control_character():
    # C1 controls (\x9b is CSI) and U+2028 reached the chart titles of the markdown report
    from guard.reporting.charts import label

    text = label("a\x9bb\x1b[31mc\u2028d\x85e")
    assert not any(0x7F <= ord(c) <= 0x9F or ord(c) < 0x20 or c in "\u2028\u2029" for c in text)
    assert text.startswith("a b")
    # nor a bidi override (a fork's kernel name reading backwards in the chart's title)
    assert label("sort\u202etxt.exe\u202c\u2066x\u2069\u200f") == "sort txt.exe x"
