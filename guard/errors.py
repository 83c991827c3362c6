"""The one exception tree; the CLI turns each into a one-line message and its exit code.

2 for anything the user must fix (usage, input files, config, history, GitHub), 3 for a
benchmark that failed to execute.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

__all__ = [
    "PerfguardError",
    "UsageError",
    "FormatError",
    "ConfigError",
    "ModelingError",
    "CollectionError",
    "ExecutionError",
    "HistoryError",
    "ExpectationError",
    "AnalyticalError",
    "MissingExtra",
    "GitHubError",
    "Interrupted",
]


class PerfguardError(Exception):
    """Base of every error perfguard raises on purpose."""

    exit_code = 2
    details: tuple[str, ...] = ()  # clauses a caller that knows more adds to the message

    def explain(self, detail: str) -> None:
        """End the one-line message with ``detail`` (what the raiser could not know)."""
        self.details = (*self.details, detail)

    def one_line(self) -> str:
        """The message the CLI prints."""
        return "; ".join([str(self), *self.details])


class UsageError(PerfguardError):
    """A command-line argument or option that cannot be honoured."""


class FormatError(PerfguardError):
    """An input file that cannot be read; names the file and, where known, the line."""

    def __init__(self, message: str, path: str | None = None, line: int | None = None):
        self.path = path
        self.line = line
        self.reason = message
        where = ""
        if path is not None:
            where = f"{path}:{line}: " if line is not None else f"{path}: "
        super().__init__(f"{where}{message}")


class ConfigError(FormatError):
    """A perfguard.yml that is not valid; names file:line and key."""


class ModelingError(PerfguardError):
    """Nothing in the input could be modelled."""


class CollectionError(PerfguardError):
    """A benchmark failed to execute (exit code 3)."""

    exit_code = 3


class ExecutionError(CollectionError):
    """One execution failed; ``kind`` is "timeout", "crash" or "error"."""

    def __init__(self, kind: str, message: str):
        self.kind = kind
        super().__init__(message)


class HistoryError(PerfguardError):
    """The history database cannot be opened, read or written; names the file."""

    def __init__(self, message: str, path: str | Path):
        self.path = str(path)
        super().__init__(f"{path}: {message}")


class ExpectationError(UsageError):
    """An expectation string that cannot be read; names the column and what is allowed there."""

    def __init__(self, text: str, column: int, problem: str, allowed: str | None = None) -> None:
        self.text = text
        self.column = column
        self.problem = problem
        self.allowed = allowed
        shown = "".join(" " if c.isspace() else c for c in text)  # keep the message one line
        message = f"invalid expectation '{shown}': {problem} at column {column}"
        if allowed:
            message += f" ({allowed})"
        super().__init__(message)


class AnalyticalError(UsageError, ValueError):
    """An analytical model that cannot be parsed or evaluated; ``column`` is 1-based."""

    def __init__(self, message: str, column: int | None = None):
        self.message = message
        self.column = column
        where = f"column {column}: " if column is not None else ""
        super().__init__(where + message)


class MissingExtra(UsageError):
    """An optional dependency that is not installed (exit code 2, with the install hint)."""


class GitHubError(PerfguardError):
    """A GitHub API call, event payload or runner file perfguard cannot use (exit code 2)."""

    def __init__(self, message: str, status: int | None = None):
        self.status = status
        super().__init__(message)


class Interrupted(PerfguardError):
    """Ctrl-C or a cancelled CI job during a run (exit code 130; what was measured is kept)."""

    exit_code = 130
