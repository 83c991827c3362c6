"""The templates: one folder at the top level, one loader, shipped as guard.templates."""

from __future__ import annotations

import re
from pathlib import Path

import jinja2
import pytest

from guard import templating

ROOT = Path(__file__).resolve().parents[1]
TEMPLATES = sorted(p.name for p in (ROOT / "templates").iterdir() if p.suffix != ".py")
SCAFFOLD = [n for n in TEMPLATES if n.endswith((".tmpl", ".yml"))]
JINJA = [n for n in TEMPLATES if n.endswith(".j2")]
PLACEHOLDER = re.compile(r"@@\{(\w+)\}")


def test_the_templates_are_read_from_the_top_level_folder() -> None:
    assert templating.templates_folder().resolve() == (ROOT / "templates").resolve()
    assert not (ROOT / "guard" / "templates").exists()
    assert len(SCAFFOLD) >= 15 and len(JINJA) >= 5


@pytest.mark.parametrize("name", SCAFFOLD)
def test_scaffold_templates_fill_every_placeholder_and_nothing_else(name: str) -> None:
    source = templating.template_text(name)
    names = set(PLACEHOLDER.findall(source))
    text = templating.fill(name, **{n: f"<{n}>" for n in names})
    assert "@@" not in text
    # GitHub's and the shell's own syntax passes through untouched.
    assert text.count("${{") == source.count("${{")
    assert text == PLACEHOLDER.sub(lambda m: f"<{m[1]}>", source).rstrip("\n")


def test_a_missing_value_is_an_error_not_a_blank() -> None:
    with pytest.raises(jinja2.UndefinedError, match="budget"):
        templating.fill("section-run.tmpl")


@pytest.mark.parametrize("name", JINJA)
def test_report_and_site_templates_parse(name: str) -> None:
    env = templating.environment(autoescape=name.endswith(".html.j2"))
    env.filters.update(md=str, html=str, fence=str, quantity=str)
    assert env.get_template(name).name == name


def test_the_stylesheet_is_read_as_it_is() -> None:
    css = templating.template_text("site.css")
    assert css == (ROOT / "templates" / "site.css").read_text(encoding="utf-8")


def test_every_package_is_listed_for_the_wheel() -> None:
    tomllib = pytest.importorskip("tomllib")
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    folders = {
        ".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "guard").rglob("__init__.py")
    }
    assert set(setuptools["packages"]) == folders | {"guard.templates"}
    assert setuptools["package-dir"] == {"guard.templates": "templates"}
