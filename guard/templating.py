"""Every template perfguard renders, read through one place and rendered by jinja2.

The templates live in the repository's top-level ``templates/`` folder, shipped inside the
wheel as the package ``guard.templates``. The report and the site use jinja2's own syntax;
the files ``perfguard init`` writes -- YAML full of GitHub's ``${{ ... }}`` and shell's
``${#...}`` -- use ``@@{name}`` placeholders and no blocks, so nothing in them needs escaping.
"""

from __future__ import annotations

import functools
from importlib import resources
from pathlib import Path
from typing import Any

import jinja2

__all__ = ["PACKAGE", "environment", "fill", "template_text", "templates_folder"]

PACKAGE = "guard.templates"

# jinja2 delimiters for the files ``perfguard init`` writes: only ``@@{name}`` is special.
_SCAFFOLD_SYNTAX = {
    "variable_start_string": "@@{",
    "variable_end_string": "}",
    "block_start_string": "@@%{",
    "block_end_string": "}%@@",
    "comment_start_string": "@@#{",
    "comment_end_string": "}#@@",
}


def template_text(name: str) -> str:
    """A template file's text as shipped (the site's stylesheet is copied as it is)."""
    return (resources.files(PACKAGE) / name).read_text(encoding="utf-8")


def templates_folder() -> Path:
    """Where the templates are read from: ``templates/`` in a checkout, inside the wheel else."""
    return Path(str(resources.files(PACKAGE)))


def environment(**options: Any) -> jinja2.Environment:
    """A jinja2 environment over the templates: undefined names are errors; ``options`` as
    jinja2's (autoescape, trim_blocks, ...)."""
    return jinja2.Environment(
        loader=jinja2.PackageLoader(PACKAGE, "."), undefined=jinja2.StrictUndefined, **options
    )


@functools.lru_cache(maxsize=1)
def _scaffold_environment() -> jinja2.Environment:
    return environment(autoescape=False, keep_trailing_newline=True, **_SCAFFOLD_SYNTAX)


def fill(name: str, /, **values: object) -> str:
    """A scaffold template with every ``@@{name}`` filled, without its final newlines.

    A placeholder without a value is an error (jinja2.UndefinedError), never left blank.
    """
    return _scaffold_environment().get_template(name).render(values).rstrip("\n")
