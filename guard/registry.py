"""Named plug-ins registered on import: file formats, project kinds."""

from __future__ import annotations

from typing import TypeVar

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(dict[str, T]):
    """Entries by unique name in registration order: a dict that refuses a second entry."""

    def __init__(self, what: str) -> None:
        super().__init__()
        self.what = what

    def add(self, name: str, entry: T) -> T:
        """Register ``entry`` under ``name``; ValueError if the name is taken."""
        if name in self:
            raise ValueError(f"{self.what} {name!r} registered twice")
        self[name] = entry
        return entry
