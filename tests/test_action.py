"""action.yml and the workflow templates: structure and the rules that keep them safe.

The schema itself is checked by a real validator in .ci/run (@action-validator/cli).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
WORKFLOWS = sorted((ROOT / "guard" / "templates").glob("workflow-*.yml")) + sorted(
    (ROOT / ".github" / "workflows").glob("*.yml")
)


def steps_of(doc: dict) -> list[dict]:
    if "runs" in doc:
        return doc["runs"]["steps"]
    return [step for job in doc["jobs"].values() for step in job.get("steps", [])]


def test_inputs_reach_the_shell_only_as_environment_variables() -> None:
    for step in steps_of(ACTION):
        assert "${{" not in step.get("run", ""), step
    env_values = " ".join(str(v) for s in steps_of(ACTION) for v in s.get("env", {}).values())
    for name in ACTION["inputs"]:
        if name not in ("python-version", "working-directory"):  # used in `with:` only
            assert f"inputs.{name}" in env_values, name


def test_the_action_installs_perfguard_from_its_own_path() -> None:
    install = [s for s in steps_of(ACTION) if "pip install" in s.get("run", "")]
    assert install and install[0]["env"]["PERFGUARD_ACTION_PATH"] == "${{ github.action_path }}"
    assert ACTION["runs"]["using"] == "composite"
    assert set(ACTION["inputs"]) >= {
        "config",
        "github-token",
        "comment",
        "fail-on",
        "baseline",
        "python-version",
        "working-directory",
    }


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_workflows_pin_actions_and_ask_for_least_permissions(path: Path) -> None:
    doc = yaml.safe_load(path.read_text())
    assert "permissions" in doc, "a workflow must state its permissions"
    assert doc["permissions"].get("contents") == "read"
    for step in steps_of(doc):
        uses = step.get("uses", "")
        if uses.startswith("actions/"):
            ref = uses.partition("@")[2]
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), uses
        assert "${{ github.event" not in step.get("run", ""), "event data must go through env"


def test_the_fork_safe_pair_never_runs_pull_request_code_with_a_write_token() -> None:
    comment = yaml.safe_load((ROOT / "guard/templates/workflow-fork-comment.yml").read_text())
    measure = yaml.safe_load((ROOT / "guard/templates/workflow-fork-measure.yml").read_text())
    assert measure["permissions"] == {"contents": "read"}
    triggers = comment.get("on", comment.get(True))  # YAML 1.1 reads a bare `on` as true
    assert list(triggers) == ["workflow_run"]
    assert not any("checkout" in s.get("uses", "") for s in steps_of(comment))
