"""The one exception tree; the CLI turns each into a one-line message and an exit code."""

from __future__ import annotations

__all__ = [
    "PerfguardError",
    "UsageError",
    "FormatError",
    "ConfigError",
    "ModelingError",
    "CollectionError",
]


class PerfguardError(Exception):
    """Base of every error perfguard raises on purpose."""

    exit_code = 2


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
