"""action.yml and the workflows perfguard ships or writes: the rules that keep them safe.

The schemas are checked by a real validator, zizmor and actionlint in .ci/run.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from guard.scaffold import render_action_workflows

ROOT = Path(__file__).resolve().parents[2]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
SETUP = yaml.safe_load((ROOT / "setup" / "action.yml").read_text())
SHA = "0123456789abcdef0123456789abcdef01234567"
RENDERED = {
    f.path.name: f.text
    for kind in ("pull-request", "fork-safe")
    for f in render_action_workflows(kind, SHA)
}
WORKFLOWS = sorted(RENDERED) + sorted(
    p.name for p in (ROOT / ".github" / "workflows").glob("*.yml")
)


def workflow(name: str) -> dict:
    text = RENDERED.get(name) or (ROOT / ".github" / "workflows" / name).read_text()
    return yaml.safe_load(text)


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


@pytest.mark.parametrize("name", WORKFLOWS)
def test_workflows_pin_actions_and_ask_for_least_permissions(name: str) -> None:
    doc = workflow(name)
    assert "permissions" in doc, "a workflow must state its permissions"
    assert "write" not in str(doc["permissions"]), "write permissions belong to a job"
    for step in steps_of(doc):
        uses = step.get("uses", "")
        if uses.startswith(("actions/", "perfguard/")):
            ref = uses.partition("@")[2]
            assert len(ref) == 40 and all(c in "0123456789abcdef" for c in ref), uses
        assert "${{ github.event" not in step.get("run", ""), "event data must go through env"
        assert "pip install perfguard" not in step.get("run", ""), "never from a registry"


def test_the_fork_safe_pair_never_runs_pull_request_code_with_a_write_token() -> None:
    comment = workflow("perfguard-comment.yml")
    measure = workflow("perfguard-measure.yml")
    assert measure["permissions"] == {"contents": "read"}
    triggers = comment.get("on", comment.get(True))  # YAML 1.1 reads a bare `on` as true
    assert list(triggers) == ["workflow_run"]
    assert not any("checkout" in s.get("uses", "") for s in steps_of(comment))
    publish = [s for s in steps_of(comment) if s.get("uses", "").startswith("perfguard/")]
    assert publish and publish[0]["with"] == {"publish": "perfguard-report"}
    assert not any("run" in s for s in steps_of(comment)), "no shell next to a write token"


def test_the_benchmarks_step_has_no_token_and_the_comment_step_has_it() -> None:
    steps = {s.get("name", ""): s for s in steps_of(ACTION)}
    measure = steps["Measure and check (no token in this step)"]
    comment = steps["Comment on the pull request (the only step with the token)"]
    assert not any("token" in k.lower() or "token" in str(v) for k, v in measure["env"].items())
    assert "--comment never" in measure["run"]
    assert comment["env"]["GITHUB_TOKEN"] == "${{ inputs.github-token }}"
    assert "perfguard ci --publish .perfguard/report" in comment["run"]
    holders = [s.get("name") for s in steps_of(ACTION) if "github-token" in str(s.get("env"))]
    assert holders == [comment["name"], "Publish a report another workflow run measured"]


def test_every_check_that_wrote_a_report_comments_a_crash_too(tmp_path: Path) -> None:
    # exit 3 (a benchmark crashed, status error) skipped the comment step, so the pull
    # request kept the previous run's "pass" comment
    import os
    import subprocess

    comment = {s.get("name", ""): s for s in steps_of(ACTION)}[
        "Comment on the pull request (the only step with the token)"
    ]
    assert "steps.ci.outputs.code" not in comment["if"]
    calls = tmp_path / "calls.txt"
    stub = tmp_path / "bin" / "perfguard"
    stub.parent.mkdir()
    stub.write_text(f'#!/bin/sh\necho "$@" >> {calls}\n')
    stub.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{stub.parent}:{os.environ['PATH']}",
        "PERFGUARD_COMMENT": "always",
    }
    work = tmp_path / "repo"
    work.mkdir()
    none = subprocess.run(
        ["bash", "-c", comment["run"]], cwd=work, env=env, capture_output=True, text=True
    )
    assert none.returncode == 0 and "no report was written" in none.stdout and not calls.exists()
    (work / ".perfguard" / "report").mkdir(parents=True)
    (work / ".perfguard" / "report" / "verdicts.json").write_text("{}")
    done = subprocess.run(
        ["bash", "-c", comment["run"]], cwd=work, env=env, capture_output=True, text=True
    )
    assert (
        done.returncode == 0
        and calls.read_text() == "ci --publish .perfguard/report --comment always\n"
    )


def test_the_setup_action_installs_perfguard_from_its_own_checkout() -> None:
    (python, install) = steps_of(SETUP)
    assert python["uses"].startswith("actions/setup-python@")
    assert install["env"]["PERFGUARD_ACTION_PATH"] == "${{ github.action_path }}"
    assert '"$PERFGUARD_ACTION_PATH/.."' in install["run"]
