"""guard.github against a real loopback HTTP server standing in for the GitHub REST API."""

from __future__ import annotations

import json
import logging
import re
import socket
import traceback
from pathlib import Path

import pytest
import requests
from werkzeug import Request, Response

from guard import __version__
from guard.github import (
    MARKER,
    GitHubClient,
    GitHubError,
    actions_context,
    annotation,
    write_outputs,
    write_step_summary,
)

DATA = Path(__file__).parents[1] / "data" / "github"
TOKEN = "ghs_s3cretT0kenThatMustNeverLeak0123456789"
REPO, PR = "octo/widget", 7
LIST_PATH = f"/repos/{REPO}/issues/{PR}/comments"
# GitHub's next-page links point at /repositories/<id>/..., not the path we asked for.
LIST_URI = re.compile(rf"/(repos/{REPO}|repositories/99)/issues/{PR}/comments")


class FakeGitHub:
    """A stateful issue-comments API that serves two comments per page, like a tiny GitHub."""

    def __init__(self, server, comments=(), per_page: int = 2):
        self.server = server
        self.per_page = per_page
        self.comments = [dict(c) for c in comments]
        self.next_id = 1000
        server.expect_request(LIST_URI, method="GET").respond_with_handler(self.list)
        # GITHUB_TOKEN is an installation token: /user is forbidden, it comments as the bot
        server.expect_request("/user", method="GET").respond_with_json(
            {"message": "Resource not accessible by integration"}, status=403
        )
        server.expect_request(LIST_PATH, method="POST").respond_with_handler(self.create)
        comment_uri = re.compile(rf"/repos/{REPO}/issues/comments/\d+")
        server.expect_request(comment_uri, method="PATCH").respond_with_handler(self.update)

    def list(self, request: Request) -> Response:
        page = int(request.args.get("page", "1"))
        start = (page - 1) * self.per_page
        headers = {}
        if start + self.per_page < len(self.comments):
            nxt = self.server.url_for(f"/repositories/99/issues/{PR}/comments")
            headers["Link"] = f'<{nxt}?per_page=100&page={page + 1}>; rel="next"'
        return _json(self.comments[start : start + self.per_page], headers=headers)

    def create(self, request: Request) -> Response:
        self.next_id += 1
        comment = {"id": self.next_id, "body": request.json["body"], "user": BOT}
        comment["html_url"] = f"https://github.com/{REPO}/pull/{PR}#issuecomment-{self.next_id}"
        self.comments.append(comment)
        return _json(comment, status=201)

    def update(self, request: Request) -> Response:
        comment_id = int(request.path.rsplit("/", 1)[1])
        comment = next(c for c in self.comments if c["id"] == comment_id)
        comment["body"] = request.json["body"]
        return _json(comment)

    def marked(self) -> list[dict]:
        return [c for c in self.comments if MARKER in c["body"]]


def _json(data, status: int = 200, headers=None) -> Response:
    return Response(json.dumps(data), status=status, headers=headers, mimetype="application/json")


def _methods(server) -> list[str]:
    return [f"{request.method} {request.path}" for request, _ in server.log]


BOT = {"login": "github-actions[bot]", "type": "Bot"}
HUMAN = {"login": "someone", "type": "User"}
HUMANS = [
    {"id": 1, "body": "looks good", "user": HUMAN},
    {"id": 2, "body": "please add a test", "user": HUMAN},
]


@pytest.fixture
def session():
    with requests.Session() as s:
        yield s


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def client(httpserver, session, sleeps) -> GitHubClient:
    return GitHubClient(
        session,
        httpserver.url_for("/"),
        TOKEN,
        retries=2,
        sleep=sleeps.append,
        clock=lambda: 1000.0,
    )


# --------------------------------------------------------------------------- upsert


def test_first_upsert_creates_then_second_updates_in_place(httpserver, client):
    fake = FakeGitHub(httpserver, HUMANS)

    first = client.upsert_comment(REPO, PR, "## perfguard: pass")
    assert first.action == "created" and first.id == 1001
    assert first.url.endswith("#issuecomment-1001")
    post, _ = next((r, s) for r, s in httpserver.log if r.method == "POST")
    assert post.json["body"].startswith(MARKER) and "## perfguard: pass" in post.json["body"]
    assert post.headers["Authorization"] == f"Bearer {TOKEN}"
    assert post.headers["Accept"] == "application/vnd.github+json"
    assert post.headers["X-GitHub-Api-Version"] == "2022-11-28"
    assert post.headers["User-Agent"] == f"perfguard/{__version__}"

    httpserver.clear_log()
    second = client.upsert_comment(REPO, PR, "## perfguard: fail")
    assert second.action == "updated" and second.id == first.id
    assert _methods(httpserver) == [
        f"GET {LIST_PATH}",
        f"GET /repositories/99/issues/{PR}/comments",  # the marker comment is on page 2
        "GET /user",  # whose is it? (a marked comment exists: the token's identity decides)
        f"PATCH /repos/{REPO}/issues/comments/1001",
    ]
    assert [c["body"] for c in fake.marked()] == [f"{MARKER}\n## perfguard: fail"]
    assert len(fake.comments) == 3


def test_marker_already_in_body_is_not_repeated(httpserver, client):
    fake = FakeGitHub(httpserver)
    client.upsert_comment(REPO, PR, f"{MARKER}\nreport")
    assert fake.comments[0]["body"] == f"{MARKER}\nreport"


def test_prefers_the_bot_comment_over_a_human_quoting_the_marker(httpserver, client):
    quote = {"id": 5, "body": f"> {MARKER}\n> old report", "user": HUMAN}
    bot = {"id": 6, "body": f"{MARKER}\nold", "user": BOT}
    FakeGitHub(httpserver, [*HUMANS, quote, bot])
    assert client.upsert_comment(REPO, PR, "new").id == 6


def test_a_marked_comment_by_anyone_else_is_never_edited(httpserver, client):
    """Someone pastes the marker (or another bot posts it): a new comment, theirs untouched."""
    planted = {"id": 7, "body": f"{MARKER}\nplanted", "user": HUMAN}
    other_bot = {"id": 8, "body": f"{MARKER}\nother", "user": {"login": "x[bot]", "type": "Bot"}}
    fake = FakeGitHub(httpserver, [planted, other_bot])
    result = client.upsert_comment(REPO, PR, "report")
    assert result.action == "created"
    assert [c["body"] for c in fake.comments[:2]] == [f"{MARKER}\nplanted", f"{MARKER}\nother"]
    assert not any(r.method == "PATCH" for r, _ in httpserver.log)


def test_the_same_bots_comment_that_only_quotes_the_marker_is_not_edited(httpserver, client):
    # every workflow comments as github-actions[bot]: a welcome bot quoting a description
    # that holds the marker mid-body was overwritten with the report
    quoting = {"id": 5, "body": f"Welcome! You wrote:\n> {MARKER}", "user": BOT}
    fake = FakeGitHub(httpserver, [quoting])
    assert client.upsert_comment(REPO, PR, "report").action == "created"
    assert fake.comments[0]["body"] == f"Welcome! You wrote:\n> {MARKER}"
    assert not any(r.method == "PATCH" for r, _ in httpserver.log)


def test_a_personal_token_comments_as_its_user(httpserver, client):
    mine = {"id": 9, "body": f"{MARKER}\nold", "user": {"login": "perf-bot", "type": "User"}}
    FakeGitHub(httpserver, [{"id": 6, "body": f"{MARKER}\nx", "user": BOT}, mine])
    assert client.upsert_comment(REPO, PR, "new", author="perf-bot").id == 9


def test_no_pull_request_is_skipped_without_a_request(httpserver, client):
    result = client.upsert_comment(REPO, None, "report")
    assert result.action == "skipped" and httpserver.log == []


def test_a_body_over_githubs_limit_fails_before_sending(httpserver, client):
    with pytest.raises(GitHubError, match="65536"):
        client.upsert_comment(REPO, PR, "x" * 70000)
    assert httpserver.log == []


def test_a_next_link_to_another_host_is_not_followed(httpserver, client):
    link = '<https://evil.example/steal?page=2>; rel="next"'
    httpserver.expect_request(LIST_PATH).respond_with_json([], headers={"Link": link})
    with pytest.raises(GitHubError, match="not sending the token"):
        client.upsert_comment(REPO, PR, "report")


# --------------------------------------------------------------------------- retries


def test_a_502_on_create_is_retried_after_listing_again(httpserver, client, sleeps):
    fake = FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="POST").respond_with_data(
        "bad gateway", status=502
    )
    result = client.upsert_comment(REPO, PR, "report")
    assert result.action == "created" and sleeps == [1.0]
    assert [m.split()[0] for m in _methods(httpserver)] == ["GET", "POST", "GET", "POST"]
    assert len(fake.marked()) == 1


def test_a_429_honours_retry_after(httpserver, client, sleeps):
    FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="GET").respond_with_json(
        {"message": "slow down"}, status=429, headers={"Retry-After": "2"}
    )
    assert client.upsert_comment(REPO, PR, "report").action == "created"
    assert sleeps == [2.0]


def test_an_exhausted_rate_limit_waits_until_the_reset(httpserver, client, sleeps):
    FakeGitHub(httpserver)
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1005"}
    httpserver.expect_oneshot_request(LIST_PATH, method="GET").respond_with_json(
        {"message": "API rate limit exceeded"}, status=403, headers=limited
    )
    assert client.upsert_comment(REPO, PR, "report").action == "created"
    assert sleeps == [5.0]


def test_a_rate_limit_reset_an_hour_away_gives_up_at_once(httpserver, client, sleeps):
    """It retried four times a minute apart (four minutes of a job) before giving up."""
    limited = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": "4600"}
    httpserver.expect_request(LIST_PATH, method="GET").respond_with_json(
        {"message": "API rate limit exceeded"}, status=403, headers=limited
    )
    with pytest.raises(GitHubError, match="asks to wait 3600 s, more than 60 s") as caught:
        client.upsert_comment(REPO, PR, "report")
    assert caught.value.status == 403 and sleeps == [] and len(httpserver.log) == 1


def test_gives_up_after_the_retries_with_the_status(httpserver, client, sleeps):
    httpserver.expect_request(LIST_PATH).respond_with_json({"message": "unavailable"}, status=503)
    with pytest.raises(GitHubError, match="HTTP 503: unavailable") as caught:
        client.upsert_comment(REPO, PR, "report")
    assert caught.value.status == 503
    assert sleeps == [1.0, 2.0] and len(httpserver.log) == 3


def test_connection_errors_are_retried_then_reported(session, sleeps):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    client = GitHubClient(
        session, f"http://127.0.0.1:{port}", TOKEN, retries=1, sleep=sleeps.append
    )
    with pytest.raises(GitHubError, match="ConnectionError"):
        client.upsert_comment(REPO, PR, "report")
    assert sleeps == [1.0]


def test_other_client_errors_raise_with_githubs_message(httpserver, client, sleeps):
    FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="POST").respond_with_json(
        {"message": "Validation Failed"}, status=422
    )
    with pytest.raises(GitHubError, match=r"POST .*: HTTP 422: Validation Failed") as caught:
        client.upsert_comment(REPO, PR, "report")
    assert caught.value.status == 422 and sleeps == []


# --------------------------------------------------------------------------- forks


@pytest.mark.parametrize(
    ("fork", "message"),
    [
        (True, "Must have admin rights to Repository."),
        (False, "Resource not accessible by integration"),
    ],
)
def test_a_403_on_create_from_a_fork_is_a_notice(httpserver, client, fork, message):
    FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="POST").respond_with_json(
        {"message": message}, status=403
    )
    result = client.upsert_comment(REPO, PR, "report", fork=fork)
    assert result.action == "forbidden" and result.id is None
    assert "fork" in result.message and "workflow_run" in result.message
    assert "403" in result.message


def test_a_404_on_update_from_a_fork_is_a_notice(httpserver, client):
    FakeGitHub(httpserver, [{"id": 3, "body": MARKER, "user": BOT}])
    uri = f"/repos/{REPO}/issues/comments/3"
    httpserver.expect_oneshot_request(uri, method="PATCH").respond_with_json(
        {"message": "Not Found"}, status=404
    )
    assert client.upsert_comment(REPO, PR, "report", fork=True).action == "forbidden"


def test_a_plain_403_outside_a_fork_is_an_error(httpserver, client):
    FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="POST").respond_with_json(
        {"message": "Must have admin rights to Repository."}, status=403
    )
    with pytest.raises(GitHubError, match="HTTP 403"):
        client.upsert_comment(REPO, PR, "report")


# --------------------------------------------------------------------------- the token


def _echo_authorization(status: int):
    def handler(request: Request) -> Response:
        return _json({"message": f"bad credentials: {request.headers['Authorization']}"}, status)

    return handler


@pytest.mark.parametrize("status", [401, 500])
def test_the_token_never_leaks(httpserver, client, caplog, status):
    caplog.set_level(logging.DEBUG)
    httpserver.expect_request(LIST_PATH).respond_with_handler(_echo_authorization(status))
    with pytest.raises(GitHubError) as caught:
        client.upsert_comment(REPO, PR, "report")
    assert "bad credentials: Bearer ***" in str(caught.value)
    assert str(status) in str(caught.value)
    rendered = "".join(traceback.format_exception(caught.type, caught.value, caught.tb))
    for text in (str(caught.value), rendered, repr(client), str(client), caplog.text):
        assert TOKEN not in text
    if status == 500:
        assert "retry 1 of 2" in caplog.text


@pytest.mark.parametrize(
    "body",
    [
        "x" * 150 + " Authorization: Bearer {token}",  # the cut at 200 falls inside the token
        '{{"error": "' + "y" * 160 + ' bearer {lower}"}}',  # JSON without a message
        "echo: authorization: BEARER {lower}",  # another case
    ],
)
def test_no_part_of_the_token_survives_a_body_cut_short(httpserver, client, body):
    # a 502 echoing the request's headers: 39 of the token's 40 characters reached the log,
    # redaction ran after the body was cut at 200 characters
    def handler(request: Request) -> Response:
        text = body.format(token=TOKEN, lower=TOKEN.lower())
        return Response(text, status=502, content_type="text/plain")

    httpserver.expect_request(LIST_PATH).respond_with_handler(handler)
    with pytest.raises(GitHubError) as caught:
        client.upsert_comment(REPO, PR, "report")
    text = str(caught.value)
    assert "HTTP 502" in text
    for n in range(8, len(TOKEN) + 1):
        assert TOKEN[:n].lower() not in text.lower()


def test_the_forbidden_notice_redacts_the_token(httpserver, client):
    FakeGitHub(httpserver)
    httpserver.expect_oneshot_request(LIST_PATH, method="POST").respond_with_handler(
        _echo_authorization(403)
    )
    result = client.upsert_comment(REPO, PR, "report", fork=True)
    assert result.action == "forbidden" and TOKEN not in result.message


@pytest.mark.parametrize("token", ["", "   ", f"{TOKEN}\nX-Evil: 1", f"{TOKEN} extra"])
def test_unusable_tokens_are_refused_without_echoing_them(session, token):
    with pytest.raises(GitHubError, match="token") as caught:
        GitHubClient(session, "https://api.github.com", token)
    assert not token.strip() or TOKEN not in str(caught.value)


# --------------------------------------------------------------------------- environment


def _environ(event_name: str, payload: str | Path, **extra: str) -> dict[str, str]:
    env = {
        "GITHUB_ACTIONS": "true",
        "GITHUB_EVENT_NAME": event_name,
        "GITHUB_EVENT_PATH": str(DATA / payload if isinstance(payload, str) else payload),
        "GITHUB_REPOSITORY": REPO,
        "GITHUB_SHA": "abcdef0123456789abcdef0123456789abcdef01",
        "GITHUB_REF": "refs/pull/42/merge",
        "GITHUB_RUN_ID": "555",
        "GITHUB_WORKSPACE": "/home/runner/work/widget/widget",
        "GITHUB_STEP_SUMMARY": "/home/runner/_temp/summary.md",
        "GITHUB_OUTPUT": "/home/runner/_temp/output.txt",
    }
    return {**env, **extra}


def test_pull_request_from_a_fork():
    env = _environ("pull_request", "pull_request_fork.json", GITHUB_HEAD_REF="faster-sort")
    ctx = actions_context(env)
    assert ctx is not None
    assert (ctx.repository, ctx.pr_number, ctx.is_fork) == (REPO, 42, True)
    assert (ctx.head_ref, ctx.base_ref) == ("faster-sort", "main")
    assert ctx.head_sha == "1" * 40 and ctx.sha == env["GITHUB_SHA"]
    assert ctx.restricted_fork_pr
    assert ctx.api_url == "https://api.github.com" and ctx.server_url == "https://github.com"
    assert ctx.run_url == f"https://github.com/{REPO}/actions/runs/555"
    assert ctx.step_summary == Path("/home/runner/_temp/summary.md")
    assert ctx.output == Path("/home/runner/_temp/output.txt")
    assert ctx.workspace == Path("/home/runner/work/widget/widget")
    assert ctx.event["action"] == "synchronize"


def test_pull_request_from_the_same_repository():
    env = _environ(
        "pull_request", "pull_request_same_repo.json", GITHUB_API_URL="https://ghe.example/api/v3/"
    )
    ctx = actions_context(env)
    assert (ctx.pr_number, ctx.is_fork, ctx.restricted_fork_pr) == (7, False, False)
    assert ctx.head_ref == "feature/cache" and ctx.api_url == "https://ghe.example/api/v3"


def test_pull_request_target_from_a_fork_has_a_write_token():
    ctx = actions_context(_environ("pull_request_target", "pull_request_fork.json"))
    assert ctx.is_fork and not ctx.restricted_fork_pr


def test_push():
    env = _environ("push", "push.json", GITHUB_REF="refs/heads/main", GITHUB_STEP_SUMMARY="")
    ctx = actions_context(env)
    assert (ctx.pr_number, ctx.is_fork, ctx.head_ref) == (None, False, "")
    assert ctx.head_sha == ctx.sha and ctx.step_summary is None


def test_workflow_run_takes_the_pull_request_from_the_payload():
    ctx = actions_context(_environ("workflow_run", "workflow_run.json"))
    assert (ctx.pr_number, ctx.is_fork) == (13, False)
    assert (ctx.head_ref, ctx.base_ref, ctx.head_sha) == ("faster-sort", "main", "7" * 40)


def test_workflow_run_from_a_fork_has_no_pull_request_number():
    ctx = actions_context(_environ("workflow_run", "workflow_run_fork.json"))
    assert (ctx.pr_number, ctx.is_fork) == (None, True)


@pytest.mark.parametrize("value", [None, "false", "1"])
def test_outside_actions_is_none(value):
    env = {} if value is None else {"GITHUB_ACTIONS": value, "GITHUB_EVENT_PATH": "/nope"}
    assert actions_context(env) is None


def test_a_missing_event_file_is_named(tmp_path):
    missing = tmp_path / "event.json"
    with pytest.raises(GitHubError, match=re.escape(str(missing))):
        actions_context(_environ("push", missing))


@pytest.mark.parametrize(
    ("text", "why"), [('{"ref": ', "not JSON"), ("[1, 2]", "not a JSON object")]
)
def test_a_bad_event_file_is_named(tmp_path, text, why):
    bad = tmp_path / "event.json"
    bad.write_text(text)
    with pytest.raises(GitHubError, match=f"{re.escape(str(bad))}.*{why}"):
        actions_context(_environ("push", bad))


def test_an_unset_event_path_is_an_error():
    env = _environ("push", "push.json")
    del env["GITHUB_EVENT_PATH"]
    with pytest.raises(GitHubError, match="GITHUB_EVENT_PATH"):
        actions_context(env)


# --------------------------------------------------------------------------- runner files


def parse_runner_file(text: str) -> dict[str, str]:
    """Read $GITHUB_OUTPUT the way actions/runner's file commands do (Linux newlines)."""
    values, lines, i = {}, text.split("\n"), 0
    while i < len(lines):
        line = lines[i]
        i += 1
        if not line:
            continue
        eq, heredoc = line.find("="), line.find("<<")
        if eq >= 0 and (heredoc < 0 or eq < heredoc):
            name, value = line.split("=", 1)
        else:
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i)  # ValueError: matching delimiter not found
            value, i = "\n".join(lines[i:end]), end + 1
        values[name] = value
    return values


def test_outputs_round_trip_through_the_runners_parser(tmp_path):
    out = tmp_path / "output.txt"
    out.write_text("earlier=1\n")
    values = {
        "status": "fail",
        "equation": "a=b<<c",
        "report": "## perfguard\n\n| kernel | verdict |\n|---|---|\n| sort | ❌ fail |\n",
        "crlf": "one\r\ntwo",
        "empty": "",
    }
    write_outputs(out, values)
    text = out.read_bytes().decode("utf-8")  # keep \r as the runner sees it
    assert "report<<ghadelimiter_" in text and "status=fail\n" in text
    assert parse_runner_file(text) == {"earlier": "1", **values}


def test_outputs_use_a_fresh_delimiter_each_time(tmp_path):
    out = tmp_path / "output.txt"
    write_outputs(out, {"a": "1\n2"})
    write_outputs(out, {"a": "1\n2"})
    delimiters = re.findall(r"a<<(\S+)", out.read_text())
    assert len(set(delimiters)) == 2


def test_outputs_refuse_a_value_containing_the_delimiter(tmp_path):
    out = tmp_path / "output.txt"
    with pytest.raises(GitHubError, match="delimiter"):
        write_outputs(out, {"report": "line\nEOF\nrest"}, delimiter="EOF")
    assert not out.exists()


@pytest.mark.parametrize("name", ["", "a=b", "a<<b", "a\nb"])
def test_outputs_refuse_bad_names(tmp_path, name):
    with pytest.raises(GitHubError, match="output name"):
        write_outputs(tmp_path / "output.txt", {name: "x"})


def test_step_summary_appends(tmp_path):
    summary = tmp_path / "summary.md"
    write_step_summary(summary, "## first")
    write_step_summary(summary, "## second\n")
    assert summary.read_text() == "## first\n## second\n"


def test_an_unwritable_runner_file_is_named(tmp_path):
    target = tmp_path / "missing-dir" / "summary.md"
    with pytest.raises(GitHubError, match=re.escape(str(target))):
        write_step_summary(target, "x")


# --------------------------------------------------------------------------- annotations


def test_annotation_escapes_message_and_properties():
    line = annotation(
        "error", "100% worse\r\nsee: report", file="src/a,b.py", line=12, title="sort: O(n^2)"
    )
    assert line == (
        "::error file=src/a%2Cb.py,line=12,title=sort%3A O(n^2)::100%25 worse%0D%0Asee: report"
    )


def test_annotation_without_properties():
    assert annotation("warning", "noisy") == "::warning::noisy"
    assert annotation("notice", "x", file=Path("a.py")) == "::notice file=a.py::x"


def test_annotation_rejects_unknown_levels():
    with pytest.raises(ValueError, match="level"):
        annotation("fatal", "x")
