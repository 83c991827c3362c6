"""Benchmarks are the pull request's code: they never see a token.

A command benchmark and a callable benchmark both write their whole environment to a file;
``perfguard run``, ``perfguard check`` (collecting first) and ``perfguard ci`` (outside
Actions) run them as real subprocesses with every kind of credential set, and none of the
secret values may appear in what the benchmarks saw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from guard.collection.executors import benchmark_environment

SECRETS = {
    "GITHUB_TOKEN": "ghs_secret_github_token",
    "GH_TOKEN": "gho_secret_gh_token",
    "PERFGUARD_TOKEN": "secret_perfguard_token",
    "INPUT_GITHUB-TOKEN": "ghs_secret_action_input",
    "ACTIONS_RUNTIME_TOKEN": "secret_runtime_token",
    "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "secret_oidc_token",
    "ACTIONS_ID_TOKEN_REQUEST_URL": "https://oidc.example/secret_oidc_url",
    "ACTIONS_CACHE_URL": "https://cache.example/secret_cache_url",
    "NPM_AUTH_SECRET": "secret_npm",
}
DUMP = textwrap.dedent(
    """
    import json, os, sys
    n = int(sys.argv[1])
    with open(f"env-command-{n}.json", "w") as f:
        json.dump(dict(os.environ), f)
    print(n)
    """
)
KERNELS = textwrap.dedent(
    """
    import json, os

    def dump(n):
        with open(f"env-callable-{n}.json", "w") as f:
            json.dump(dict(os.environ), f)
        return lambda: sum(range(n))
    """
)


def project(tmp_path: Path) -> Path:
    (tmp_path / "dump.py").write_text(DUMP)
    (tmp_path / "kernels.py").write_text(KERNELS)
    config = tmp_path / "perfguard.yml"
    config.write_text(
        textwrap.dedent(
            f"""\
            version: 1
            parameters:
              n: [8, 16, 32, 64, 128]
            run:
              budget: 30
              repetitions: 2
              min_time: 0.001
            benchmarks:
              command:
                command: ["{sys.executable}", "dump.py", "{{n}}"]
                metric: custom
              callable:
                callable: "kernels:dump"
            """
        )
    )
    return config


def run_with_secrets(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "GITHUB_ACTIONS"}
    env.update(SECRETS)
    return subprocess.run(
        [sys.executable, "-m", "guard.cli", *args],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=180,
        env=env,
    )


def seen_by_benchmarks(tmp_path: Path) -> list[dict[str, str]]:
    dumps = sorted(tmp_path.glob("env-*.json"))
    assert {p.name.split("-")[1] for p in dumps} == {"command", "callable"}
    return [json.loads(p.read_text()) for p in dumps]


@pytest.mark.parametrize(
    "verb",
    [
        ["run", "-c", "perfguard.yml", "-o", "m.json"],
        ["check", "-c", "perfguard.yml"],
        ["ci", "-c", "perfguard.yml", "--comment", "never", "--db", "h.sqlite"],
    ],
    ids=["run", "check", "ci"],
)
def test_benchmarks_see_no_credentials(tmp_path: Path, verb: list[str]) -> None:
    project(tmp_path)
    done = run_with_secrets(tmp_path, *verb)
    assert done.returncode in (0, 1), done.stderr
    for env in seen_by_benchmarks(tmp_path):
        assert not set(SECRETS) & set(env)
        leaked = [v for v in SECRETS.values() if any(v in value for value in env.values())]
        assert leaked == []
        assert env.get("PATH") == os.environ.get("PATH")  # the rest is passed on


def test_the_scrubbed_environment_keeps_everything_else() -> None:
    environ = {**SECRETS, "HOME": "/home/u", "LANG": "C", "GITHUB_SHA": "abc", "CI": "true"}
    assert benchmark_environment(environ) == {
        "HOME": "/home/u",
        "LANG": "C",
        "GITHUB_SHA": "abc",
        "CI": "true",
    }


def test_benchmarks_cannot_set_the_next_steps_environment() -> None:
    # GITHUB_ENV passed through: a benchmark writing BASH_ENV=evil.sh there would run it in
    # the comment step, the one that holds the token
    files = {n: f"/runner/{n.lower()}" for n in ("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT")}
    files |= {"GITHUB_STATE": "/runner/s", "GITHUB_STEP_SUMMARY": "/runner/summary"}
    assert benchmark_environment({**files, "GITHUB_SHA": "abc"}) == {"GITHUB_SHA": "abc"}
