"""The matrix workflow (`perfguard init --shards N`) run locally as Actions would run it.

Each job's shell steps are taken from the rendered workflow (and the action's step from
action.yml) and run with bash in a workspace of their own: three `measure` jobs at once,
artifacts uploaded and downloaded as folders, then the `gate`, then the site. The project
is the example's counted variant (examples/project/counts.py: the same values on every
machine), with one expectation tightened so the gate has a failure to find.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from guard.errors import UsageError
from guard.formats import load
from guard.scaffold import MAX_SHARDS, render_matrix_workflows

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "project"
SHA = "0123456789abcdef0123456789abcdef01234567"
SHARDS = 3
MATRIX, PAGES = (yaml.safe_load(f.text) for f in render_matrix_workflows(SHARDS, SHA))
ACTION = yaml.safe_load((ROOT / "action.yml").read_text())
PINS = {  # verified against the tags of the actions' repositories
    "actions/upload-pages-artifact": ("7b1f4a764d45c48632c6b24a0339c27f5614fb0b", "v4.0.0"),
    "actions/deploy-pages": ("d6db90164ac5ed86f2b6aed7e0febac5b3c0c03e", "v4.0.5"),
}


def step(steps: list[dict], **where: str) -> dict:
    """The one step whose keys hold these values (``uses`` matched by prefix)."""
    found = [
        s
        for s in steps
        if all(
            str(s.get(k, "")).startswith(v) if k == "uses" else s.get(k) == v
            for k, v in where.items()
        )
    ]
    assert len(found) == 1, (where, found)
    return found[0]


def project(folder: Path) -> Path:
    """The counted example as a repository's root, pairs expected linear (it is n^2)."""
    folder.mkdir(parents=True)
    shutil.copy(EXAMPLE / "counts.py", folder / "counts.py")
    config = (EXAMPLE / "counts.yml").read_text()
    tightened = config.replace(
        'callable: "counts:pairs"\n    metric: custom\n    expect: "<= n^2"',
        'callable: "counts:pairs"\n    metric: custom\n    expect: "<= n"',
    )
    assert tightened != config
    (folder / "perfguard.yml").write_text(tightened)
    return folder


def runner_env(workspace: Path, **extra: str) -> dict[str, str]:
    """What a job's steps see on a runner for a push to main: no token anywhere."""
    env = {k: v for k, v in os.environ.items() if "TOKEN" not in k and not k.startswith("GITHUB_")}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
        GITHUB_ACTIONS="true",
        GITHUB_EVENT_NAME="push",
        GITHUB_EVENT_PATH=str(ROOT / "tests" / "data" / "github" / "push.json"),
        GITHUB_REF="refs/heads/main",
        GITHUB_REF_NAME="main",
        GITHUB_SHA="6" * 40,
        GITHUB_REPOSITORY="octo/widget",
        GITHUB_SERVER_URL="https://github.com",
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_OUTPUT=str(workspace.parent / f"{workspace.name}.output"),
        GITHUB_STEP_SUMMARY=str(workspace.parent / f"{workspace.name}.summary"),
        COLUMNS="200",
    )
    env.update(extra)
    return env


def start(script: str, workspace: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """A `run:` step as Actions runs it: bash --noprofile --norc -eo pipefail."""
    return subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def run_step(script: str, workspace: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    proc = start(script, workspace, env)
    out, err = proc.communicate(timeout=120)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


def run_action(with_: dict[str, str], workspace: Path) -> int:
    """perfguard's action: its measure-and-check step with the inputs, then its exit code."""
    inputs = {name: str(spec.get("default", "")) for name, spec in ACTION["inputs"].items()}
    inputs.update(with_)
    check = step(ACTION["runs"]["steps"], name="Measure and check (no token in this step)")
    expression = re.compile(r"\$\{\{ inputs\.([\w-]+) \}\}")
    env = {k: expression.sub(lambda m: inputs[m[1]], v) for k, v in check["env"].items()}
    done = run_step(check["run"], workspace, runner_env(workspace, **env))
    assert done.returncode == 0, done.stderr
    output = Path(runner_env(workspace)["GITHUB_OUTPUT"]).read_text()
    return int(re.findall(r"^code=(\d+)$", output, re.M)[-1])


def expand(text: str, **values: str) -> str:
    return re.sub(r"\$\{\{ matrix\.(\w+) \}\}", lambda m: values[m[1]], text)


def verdicts(workspace: Path) -> dict[str, str]:
    doc = json.loads((workspace / ".perfguard" / "report" / "verdicts.json").read_text())
    return {k["kernel"]: k["verdict"] for k in doc["kernels"]}


def test_the_matrix_jobs_give_the_kernels_and_verdicts_of_one_unsharded_run(tmp_path: Path) -> None:
    measure, gate = MATRIX["jobs"]["measure"], MATRIX["jobs"]["gate"]
    shards = measure["strategy"]["matrix"]["shard"]
    assert shards == list(range(1, SHARDS + 1))
    measuring = step(
        measure["steps"], name="Measure shard ${{ matrix.shard }} of 3 (no token in this step)"
    )
    upload = step(measure["steps"], uses="actions/upload-artifact@")["with"]
    jobs = {}
    for shard in shards:  # the matrix: one runner (workspace, process) per shard, at once
        workspace = project(tmp_path / f"measure-{shard}")
        env = {k: expand(v, shard=str(shard)) for k, v in measuring["env"].items()}
        jobs[shard] = (workspace, start(measuring["run"], workspace, runner_env(workspace, **env)))
    artifacts = tmp_path / "artifacts"
    for shard, (workspace, proc) in jobs.items():
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        shutil.copytree(
            workspace / upload["path"], artifacts / expand(upload["name"], shard=str(shard))
        )
    assert len(list(artifacts.iterdir())) == SHARDS

    workspace = project(tmp_path / "gate")
    download = step(gate["steps"], uses="actions/download-artifact@")["with"]
    assert download["merge-multiple"] is True
    target = workspace / download["path"]
    target.mkdir(parents=True)
    for artifact in sorted(artifacts.iterdir()):
        if fnmatch.fnmatch(artifact.name, download["pattern"]):
            for f in artifact.iterdir():
                shutil.copy(f, target / f.name)
    merged = run_step(
        step(gate["steps"], name="Merge the shards")["run"], workspace, runner_env(workspace)
    )
    assert merged.returncode == 0, merged.stderr
    assert f"merged {SHARDS} files: 5 kernels" in merged.stderr
    gated = step(gate["steps"], uses="perfguard/perfguard@")["with"]
    assert run_action(gated, workspace) == 1  # pairs is n^2, expected <= n

    single = project(tmp_path / "single")
    assert run_action({"config": "perfguard.yml"}, single) == 1
    assert verdicts(workspace) == verdicts(single)
    assert set(verdicts(single).values()) == {"pass", "fail"}
    assert verdicts(single)["pairs"] == "fail"
    # Counts are machine-independent: the shards hold the very values of the single run.
    sharded = load(workspace / ".perfguard" / "merged.json").kernels
    assert sorted(sharded, key=lambda k: k.name) == sorted(
        load(single / ".perfguard" / "report" / "measurements.json").kernels, key=lambda k: k.name
    )

    # The site job (on pushes to the default branch) from the history the gate stored.
    build = step(PAGES["jobs"]["build"]["steps"], name="Build the site")
    site = run_step(build["run"], workspace, runner_env(workspace, BRANCH="main"))
    assert site.returncode == 0, site.stderr
    assert site.stdout.startswith("perfguard site: 5 kernels, 1 commit,")
    assert (
        "https://github.com/octo/widget/commit/" + "6" * 40
        in (
            workspace
            / "_site"
            / "kernels"
            / next(p.name for p in (workspace / "_site" / "kernels").iterdir())
        ).read_text()
    )


def test_measuring_jobs_hold_no_token_and_only_the_gate_may_comment() -> None:
    jobs = MATRIX["jobs"]
    assert MATRIX["permissions"] == {"contents": "read"}
    assert jobs["measure"]["permissions"] == {"contents": "read"}
    inputs = [[s.get("env"), s.get("with")] for s in jobs["measure"]["steps"]]
    assert "token" not in json.dumps(inputs).lower()
    assert "secrets" not in json.dumps(MATRIX) + json.dumps(PAGES)
    checkout = step(jobs["measure"]["steps"], uses="actions/checkout@")
    assert checkout["with"]["persist-credentials"] is False
    writers = [name for name, job in jobs.items() if "write" in json.dumps(job.get("permissions"))]
    assert writers == ["gate", "site"]
    assert jobs["gate"]["permissions"] == {"contents": "read", "pull-requests": "write"}
    assert jobs["gate"]["needs"] == "measure"
    for job in (jobs["measure"], jobs["gate"]):
        for s in job["steps"]:
            if s.get("uses", "").startswith("actions/upload-artifact@"):
                assert s["with"]["include-hidden-files"] is True


def test_the_site_is_published_only_from_pushes_to_the_default_branch() -> None:
    site = MATRIX["jobs"]["site"]
    assert "github.event_name == 'push'" in site["if"]
    assert "format('refs/heads/{0}', github.event.repository.default_branch)" in site["if"]
    assert site["uses"] == "./.github/workflows/perfguard-pages.yml"
    assert site["permissions"] == {"contents": "read", "pages": "write", "id-token": "write"}
    trigger = PAGES.get("on", PAGES.get(True))  # YAML 1.1 reads a bare `on` as true
    assert list(trigger) == ["workflow_call"]
    assert PAGES["permissions"] == {}
    assert PAGES["jobs"]["build"]["permissions"] == {"contents": "read"}
    assert PAGES["jobs"]["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert not any("run" in s for s in PAGES["jobs"]["deploy"]["steps"])


def test_pages_actions_are_pinned_to_the_verified_commits() -> None:
    text = "".join(f.text for f in render_matrix_workflows(SHARDS, SHA))
    for action, (sha, tag) in PINS.items():
        assert f"uses: {action}@{sha} # {tag}" in text
    for line in re.findall(r"uses: (\S+)", text):
        if not line.startswith("./"):
            assert re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", line), line


@pytest.mark.parametrize("count", [0, 1, MAX_SHARDS + 1])
def test_shard_counts_outside_2_to_256_are_refused(count: int) -> None:
    with pytest.raises(UsageError, match="--shards"):
        render_matrix_workflows(count, SHA)


def test_the_largest_matrix_lists_every_shard() -> None:
    doc = yaml.safe_load(render_matrix_workflows(MAX_SHARDS, SHA)[0].text)
    assert doc["jobs"]["measure"]["strategy"]["matrix"]["shard"] == list(range(1, MAX_SHARDS + 1))


def _normalized(text: str) -> list[str]:
    """A workflow without comment lines and with perfguard's action refs and paths unified."""
    out = []
    for line in text.splitlines():
        if line.lstrip().startswith("#"):
            continue
        line = re.sub(r"uses: (perfguard/perfguard/setup@\S+|\./setup)( #.*)?", "uses: SETUP", line)
        line = re.sub(r"uses: (perfguard/perfguard@\S+|\./)( #.*)?$", "uses: ACTION", line)
        out.append(line.replace("examples/project/perfguard.yml", "perfguard.yml"))
    return out


def test_the_dogfood_copies_are_the_templates() -> None:
    matrix, pages = render_matrix_workflows(SHARDS, SHA)
    ours = ROOT / ".github" / "workflows"
    dogfood = _normalized((ours / "perfguard-matrix.yml").read_text())
    assert dogfood == _normalized(
        matrix.text.replace("name: perfguard\n", "name: perfguard-matrix\n")
    )
    checkout = [
        "      - uses: actions/checkout@11d5960a326750d5838078e36cf38b85af677262 # v4.4.0",
        "        with:",
        "          persist-credentials: false",
    ]
    template = _normalized(pages.text)
    at = template.index("      - uses: SETUP")
    assert (
        _normalized((ours / "perfguard-pages.yml").read_text())
        == template[:at] + checkout + template[at:]
    )


def test_the_readme_workflow_is_the_shipped_pull_request_workflow_shortened() -> None:
    """README's "Use it in GitHub Actions" YAML: the same triggers, permissions and steps."""
    from guard.scaffold import render_action_workflows

    section = (ROOT / "README.md").read_text().split("## Use it in GitHub Actions", 1)[1]
    block = re.search(r"```yaml\n(.*?)```", section, re.S)[1]
    short = yaml.safe_load(block.replace("<owner>/perfguard@<sha>", f"perfguard/perfguard@{SHA}"))
    (shipped,) = render_action_workflows("pull-request", SHA)
    full = yaml.safe_load(shipped.text)
    assert short[True] == full[True] and short["permissions"] == full["permissions"]
    (job,) = short["jobs"].values()
    (full_job,) = full["jobs"].values()
    assert job["permissions"] == full_job["permissions"]
    assert [s["uses"] for s in job["steps"]] == [s["uses"] for s in full_job["steps"]]
    for ours, theirs in zip(job["steps"][:2], full_job["steps"][:2]):
        assert ours["with"] == theirs["with"]


def test_init_shards_writes_both_workflows_and_refuses_a_mix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from guard.cli import main

    assert main(["init", str(tmp_path), "--shards", "3", "--action-ref", SHA]) == 0
    written = tmp_path / ".github" / "workflows"
    assert sorted(p.name for p in written.iterdir()) == ["perfguard-pages.yml", "perfguard.yml"]
    assert (written / "perfguard.yml").read_text() == render_matrix_workflows(3, SHA)[0].text
    other = tmp_path / "other"
    other.mkdir()
    assert main(["init", str(other), "--shards", "3", "--workflow", "fork-safe"]) == 2
    assert main(["init", str(other), "--shards", "1"]) == 2
    err = capsys.readouterr().err
    assert "leave out --workflow" in err and "--shards 1: give 2 to 256" in err
    assert list(other.iterdir()) == []


@pytest.mark.parametrize(
    "flags", [["--shards", "3"], ["--workflow", "pull-request"], ["--workflow", "fork-safe"]]
)
def test_init_refuses_workflows_that_run_perfguard_run_in_a_pytest_benchmark_project(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str]
) -> None:
    # they measured with `perfguard run` and a perfguard.yml whose benchmarks: section is
    # commented out: every run failed with "no parameters: section", after init exited 0
    from guard.cli import main

    (tmp_path / "test_bench.py").write_text(
        "import pytest\n\n@pytest.mark.parametrize('n', [256, 1024, 4096, 16384, 65536])\n"
        "def test_sum(benchmark, n):\n    benchmark(sum, range(n))\n"
    )
    assert main(["init", str(tmp_path), *flags, "--action-ref", SHA]) == 2
    err = capsys.readouterr().err
    assert "pytest-benchmark tests: use the default --workflow check" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["test_bench.py"]
    assert main(["init", str(tmp_path), "--action-ref", SHA]) == 0
