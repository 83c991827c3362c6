"""`perfguard --help` / `--version` start without the heavy parts of the package."""

from __future__ import annotations

import subprocess
import sys

from guard import defaults, formats
from guard.modeling import MODELERS


def test_the_light_names_mirror_the_registries():
    assert list(defaults.FORMAT_NAMES) == formats.names()
    assert list(defaults.MODELER_NAMES) == list(MODELERS)


def test_importing_the_cli_loads_no_numerics_network_or_templates():
    code = (
        "import sys, guard.cli; "
        "print(sorted(m for m in ('numpy', 'requests', 'jinja2', 'yaml', 'sqlite3', "
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
