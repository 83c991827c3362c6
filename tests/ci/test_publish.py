"""The fork-safe comment step (``perfguard ci --publish``) against malicious artifacts.

A fork's own workflow run writes the artifact, so everything in it is hostile: a ``pr.json``
naming another pull request, a symlink, a 200 MB file, a list where an object belongs,
markdown of the attacker's choosing.  The step asks GitHub (a local HTTP server standing in
for its REST API) which pull request the run's head commit belongs to, renders the comment
again from the validated verdicts, and comments on that pull request only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer
from support import Ran, perfguard
from werkzeug import Request, Response

EVENT = Path(__file__).parents[1] / "data" / "github" / "workflow_run_fork.json"
HEAD = "9" * 40
TOKEN = "ghs_publish-token-never-printed-456"
OWN = "/repos/octo/widget/issues/7/comments"
OTHER = "/repos/octo/widget/issues/42/comments"


def pull(number: int, sha: str, repo: str) -> dict:
    return {"number": number, "state": "open", "head": {"sha": sha, "repo": {"full_name": repo}}}


@pytest.fixture
def verdicts(example_check: Ran) -> dict:
    """A real check's verdicts@1 document, fresh for each test (tests make it hostile)."""
    assert example_check.returncode == 1, example_check.stderr
    return json.loads(example_check.stdout)


def artifact(tmp_path: Path, verdicts: dict, pr: object = None) -> Path:
    folder = tmp_path / "perfguard-report"
    folder.mkdir()
    (folder / "verdicts.json").write_text(json.dumps(verdicts))
    (folder / "report.md").write_text("## perfguard: pass\n\nAll good! [click](https://evil)\n")
    if pr is not None:
        (folder / "pr.json").write_text(json.dumps(pr))
    return folder


def publish(
    folder: Path, server: HTTPServer, event: Path = EVENT, extra: dict[str, str] | None = None
) -> Ran:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": "workflow_run",
        "GITHUB_EVENT_PATH": str(event),
        "GITHUB_REPOSITORY": "octo/widget",
        "GITHUB_SHA": "a" * 40,
        "GITHUB_API_URL": server.url_for("").rstrip("/"),
        "GITHUB_TOKEN": TOKEN,
        **(extra or {}),
    }
    return perfguard("ci", "--publish", folder, cwd=folder.parent, env=env)


def github(server: HTTPServer, posted: dict[str, list[str]]) -> None:
    """Open pulls: #7 from the fork at HEAD (the run's), #42 from elsewhere; comments on both."""
    server.expect_request(f"/repos/octo/widget/commits/{HEAD}/pulls").respond_with_json([])
    server.expect_request("/repos/octo/widget/pulls").respond_with_json(
        [pull(42, "4" * 40, "octo/widget"), pull(7, HEAD, "contributor/widget")]
    )
    for path in (OWN, OTHER):
        server.expect_request(path, method="GET").respond_with_json([])

        def create(request: Request, path: str = path) -> Response:
            posted.setdefault(path, []).append(request.get_json()["body"])
            return Response(json.dumps({"id": 1, "html_url": "u", "body": "b"}), 201)

        server.expect_request(path, method="POST").respond_with_handler(create)


def test_the_fork_case_comments_on_its_own_pull_request(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    posted: dict[str, list[str]] = {}
    github(httpserver, posted)
    done = publish(artifact(tmp_path, verdicts, {"number": 7}), httpserver)
    assert done.returncode == 0, done.stderr
    assert list(posted) == [OWN] and len(posted[OWN]) == 1
    body = posted[OWN][0]
    assert body.startswith("<!-- perfguard-report -->") and "dedupe" in body
    assert "All good" not in body and "evil" not in body  # the artifact's markdown is ignored
    assert TOKEN not in done.stdout + done.stderr
    # whose report it is, above it: a fork's own run can write any verdict (a security
    # probe posted a forged pass); this job re-renders, it cannot re-measure
    assert body.splitlines()[1] == (
        "> Reported by this pull request's own workflow run (a fork, contributor/widget); "
        "re-rendered here from its verdicts, not re-measured: its numbers and verdicts are "
        "that run's report."
    )


def test_an_artifact_naming_another_pull_request_comments_nowhere(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    posted: dict[str, list[str]] = {}
    github(httpserver, posted)
    done = publish(artifact(tmp_path, verdicts, {"number": 42}), httpserver)
    assert done.returncode == 2
    assert "names #42, but the run's head commit belongs to #7" in done.stderr
    assert posted == {}


def test_a_broken_api_is_a_warning_not_a_failed_job(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    # the comment step exited 2 when listing the comments failed: a passing pull request's
    # job went red whenever GitHub's API did
    httpserver.expect_request(f"/repos/octo/widget/commits/{HEAD}/pulls").respond_with_json([])
    httpserver.expect_request("/repos/octo/widget/pulls").respond_with_json(
        [pull(7, HEAD, "contributor/widget")]
    )
    httpserver.expect_request(OWN, method="GET").respond_with_json(
        {"message": "Must have admin rights to Repository."}, status=403
    )
    done = publish(artifact(tmp_path, verdicts, {"number": 7}), httpserver)
    assert done.returncode == 0, done.stderr
    assert "::warning title=perfguard::no pull-request comment" in done.stdout
    assert "HTTP 403" in done.stdout and TOKEN not in done.stdout + done.stderr


def test_no_open_pull_request_for_the_head_commit_is_no_comment(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    httpserver.expect_request(f"/repos/octo/widget/commits/{HEAD}/pulls").respond_with_json([])
    httpserver.expect_request("/repos/octo/widget/pulls").respond_with_json(
        [pull(42, "4" * 40, "octo/widget"), pull(8, HEAD, "octo/widget")]  # same SHA, wrong repo
    )
    done = publish(artifact(tmp_path, verdicts), httpserver)
    assert done.returncode == 0, done.stderr
    assert "no open pull request has head 999999999999" in done.stdout
    assert not any(r.method == "POST" for r, _ in httpserver.log)


def test_a_deleted_forks_run_comments_nowhere(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    # a deleted fork's workflow_run names no head repository; the base repository stood in
    # for it, and the comment went to the base's pull request #8 that shares the commit
    event = json.loads(EVENT.read_text())
    event["workflow_run"]["head_repository"] = None
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event))
    httpserver.expect_request(f"/repos/octo/widget/commits/{HEAD}/pulls").respond_with_json([])
    httpserver.expect_request("/repos/octo/widget/pulls").respond_with_json(
        [pull(8, HEAD, "octo/widget")]
    )
    httpserver.expect_request("/repos/octo/widget/issues/8/comments").respond_with_json([])
    done = publish(artifact(tmp_path, verdicts), httpserver, path)
    assert done.returncode == 2
    assert "names no head repository" in done.stderr
    assert not any(r.method == "POST" for r, _ in httpserver.log)


@pytest.mark.parametrize("attack", ["symlink", "huge", "list", "folder-link", "html-in-verdicts"])
def test_hostile_artifacts_are_refused_with_a_clear_message(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict, attack: str
) -> None:
    posted: dict[str, list[str]] = {}
    github(httpserver, posted)
    folder = artifact(tmp_path, verdicts)
    if attack == "symlink":  # verdicts.json points at a file of the runner
        (folder / "verdicts.json").unlink()
        (folder / "verdicts.json").symlink_to("/etc/passwd")
        expected = "not a regular file"
    elif attack == "huge":  # 200 MB (sparse: no disk is used)
        with open(folder / "verdicts.json", "r+b") as f:
            f.truncate(200_000_000)
        expected = "200,000,000 bytes; at most 32,000,000"
    elif attack == "list":
        (folder / "pr.json").write_text("[42]")
        expected = "pr.json: expected a JSON object"
    elif attack == "folder-link":
        real = tmp_path / "elsewhere"
        folder.rename(real)
        folder.symlink_to(real)
        expected = "not a plain folder"
    else:  # a type error in the verdicts: refused with its key path
        verdicts["kernels"][0]["reasons"] = "<img src=x onerror=alert(1)>"
        (folder / "verdicts.json").write_text(json.dumps(verdicts))
        expected = "kernels[0].reasons: expected a list"
    done = publish(folder, httpserver)
    assert done.returncode == 2, done.stdout + done.stderr
    assert expected in done.stderr
    assert "Traceback" not in done.stderr
    assert posted == {}


def test_an_apps_token_finds_its_own_comment_by_the_login_it_is_given(
    tmp_path: Path, httpserver: HTTPServer, verdicts: dict
) -> None:
    # a GitHub App's installation token cannot read /user: perfguard took its comments for
    # github-actions[bot]'s, edited a workflow's marked comment and never found its own
    httpserver.expect_request(f"/repos/octo/widget/commits/{HEAD}/pulls").respond_with_json(
        [pull(7, HEAD, "contributor/widget")]
    )
    marker = "<!-- perfguard-report -->"
    actions = {"id": 301, "body": f"{marker}\nnot ours", "user": {"login": "github-actions[bot]"}}
    ours = {"id": 302, "body": f"{marker}\nours", "user": {"login": "perfguard-app[bot]"}}
    httpserver.expect_request(OWN, method="GET").respond_with_json([actions, ours])
    httpserver.expect_request("/user").respond_with_json({"message": "no"}, status=403)
    patched: list[str] = []

    def patch(request: Request) -> Response:
        patched.append(request.path)
        return Response(json.dumps({"id": 302, "html_url": "u", "body": "b"}), 200)

    httpserver.expect_request(
        "/repos/octo/widget/issues/comments/302", method="PATCH"
    ).respond_with_handler(patch)
    folder = artifact(tmp_path, verdicts, {"number": 7})
    env_extra = {"PERFGUARD_COMMENT_AUTHOR": "perfguard-app[bot]"}
    done = publish(folder, httpserver, extra=env_extra)
    assert done.returncode == 0, done.stderr
    assert patched == ["/repos/octo/widget/issues/comments/302"]
    assert not any(r.path.endswith("/comments/301") for r, _ in httpserver.log)
