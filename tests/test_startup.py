"""`perfguard --help` / `--version` start without the heavy parts of the package."""

from __future__ import annotations

import subprocess
import sys

from guard import __version__, defaults, formats
from guard.modeling import MODELERS


def test_the_light_names_mirror_the_registries():
    assert list(defaults.FORMAT_NAMES) == formats.names()
    assert list(defaults.MODELER_NAMES) == list(MODELERS)


def test_importing_the_cli_loads_no_numerics_network_or_templates():
    code = (
        "import sys, guard.cli; "
        "print(sorted(m for m in ('numpy', 'requests', 'jinja2', 'yaml', 'sqlite3', 'rich', "
        "'guard.modeling', 'guard.checking', 'guard.formats') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_version_and_help_work_without_them():
    for args in (["--version"], ["check", "--help"]):
        done = subprocess.run(
            [sys.executable, "-m", "guard.cli", *args], capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    assert "--baseline" in done.stdout


def test_help_and_version_load_neither_rich_nor_pydantic():
    """Rich loads with the first table, pydantic never (typer >= 0.28 imported it per start)."""
    code = (
        "import sys; from guard.cli import main\n"
        "for args in (['check', '--help'], ['--version']):\n"
        "    main(args)\n"
        "print(sorted(m for m in ('rich', 'pydantic') if m in sys.modules), file=sys.stderr)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == "[]"
    assert "--baseline" in done.stdout and f"perfguard {__version__}" in done.stdout
