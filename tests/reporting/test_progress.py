"""The run's progress lines: names from perfguard.yml never start a line of their own."""

import io

from rich.console import Console

from guard.collection.runner import RunEvent
from guard.reporting.progress import RunProgress


def test_a_benchmark_name_with_a_line_break_stays_on_its_progress_line():
    # "sizing line1\n::error::injected (4/5)": the name's second line read as a command
    stream = io.StringIO()
    console = Console(file=stream, width=80, force_terminal=False)
    name = "line1\n::error::injected\r\n| x | y |"
    with RunProgress(10.0, 1, console) as progress:
        progress(RunEvent("start", name))
        progress(RunEvent("error", name, "n=8", message="died\n::warning::x"))
    lines = stream.getvalue().splitlines()
    assert lines and not any(line.lstrip().startswith("::") for line in lines)
    assert "sizing line1\\n::error::injected\\n| x | y | (1/1)" in lines
