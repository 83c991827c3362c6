"""GitHub integration: the Actions environment, the REST API and workflow commands.

Everything that talks to GitHub lives here, behind narrow seams: REST calls go through an
injected :class:`requests.Session` (tests point it at a loopback server), sleeping and the
clock are injected so retries cost no wall time, and the files the runner reads
(``$GITHUB_OUTPUT``, ``$GITHUB_STEP_SUMMARY``) are written by small functions that take the
path. Nothing here prints; the CLI decides what reaches stdout and stderr.

The token is a secret: it is sent only in the Authorization header to the API origin it was
configured for, and is redacted from every message, repr and log line this module builds.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any, NamedTuple, TypeVar
from urllib.parse import urljoin, urlsplit

import requests

from guard import __version__

from .errors import GitHubError

__all__ = [
    "ActionsContext",
    "CommentResult",
    "GitHubClient",
    "GitHubError",
    "MARKER",
    "actions_context",
    "annotation",
    "write_outputs",
    "write_step_summary",
]

log = logging.getLogger(__name__)
T = TypeVar("T")

MARKER = "<!-- perfguard-report -->"
DEFAULT_API_URL = "https://api.github.com"
DEFAULT_SERVER_URL = "https://github.com"
API_VERSION = "2022-11-28"
PR_EVENTS = frozenset({"pull_request", "pull_request_target"})
COMMENT_LIMIT = 65536  # GitHub rejects longer comment bodies with a 422
MAX_WAIT = 60.0  # seconds; a CI job should fail rather than idle through an hour-long limit
ACTIONS_BOT = "github-actions[bot]"  # who comments with a workflow's GITHUB_TOKEN
MAX_PAGES = 100  # 10,000 comments; beyond that something is wrong, so stop rather than loop
REDACTED = "***"
# an Authorization header's value, or a GitHub token by its prefix, wherever text echoes one
_CREDENTIAL = re.compile(
    r"((?:bearer|token|basic)\s+)[\w.=:+/-]{12,}|\b(?:gh[pousr]_|github_pat_)\w+", re.IGNORECASE
)
_LEVELS = ("error", "warning", "notice")
_INTEGRATION_403 = "resource not accessible by integration"


# --------------------------------------------------------------------------- environment


@dataclass(frozen=True)
class ActionsContext:
    """What a GitHub Actions job knows about its repository, event and runner files."""

    repository: str
    event_name: str
    sha: str
    ref: str
    head_ref: str
    base_ref: str
    pr_number: int | None
    is_fork: bool
    api_url: str
    server_url: str
    run_id: str
    workspace: Path | None
    step_summary: Path | None
    output: Path | None
    head_sha: str = ""
    head_repository: str = ""
    event: Mapping[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def run_url(self) -> str:
        """Link to this workflow run's page."""
        return f"{self.server_url}/{self.repository}/actions/runs/{self.run_id}"

    @property
    def restricted_fork_pr(self) -> bool:
        """True for a `pull_request` event from a fork, whose default token cannot write."""
        return self.is_fork and self.event_name == "pull_request"


class _PullFacts(NamedTuple):
    number: int | None = None
    is_fork: bool = False
    head_ref: str = ""
    base_ref: str = ""
    head_sha: str = ""
    head_repository: str = ""


def actions_context(environ: Mapping[str, str]) -> ActionsContext | None:
    """Read the Actions environment and event payload; None when not running in Actions."""
    if environ.get("GITHUB_ACTIONS") != "true":
        return None
    event = _read_event(environ.get("GITHUB_EVENT_PATH", ""))
    event_name = environ.get("GITHUB_EVENT_NAME", "")
    pull = _pull_facts(event_name, event)
    sha = environ.get("GITHUB_SHA", "")
    return ActionsContext(
        repository=environ.get("GITHUB_REPOSITORY")
        or _text(_dig(event, "repository", "full_name")),
        event_name=event_name,
        sha=sha,
        ref=environ.get("GITHUB_REF", ""),
        head_ref=environ.get("GITHUB_HEAD_REF") or pull.head_ref,
        base_ref=environ.get("GITHUB_BASE_REF") or pull.base_ref,
        pr_number=pull.number,
        is_fork=pull.is_fork,
        api_url=(environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/"),
        server_url=(environ.get("GITHUB_SERVER_URL") or DEFAULT_SERVER_URL).rstrip("/"),
        run_id=environ.get("GITHUB_RUN_ID", ""),
        workspace=_path(environ.get("GITHUB_WORKSPACE")),
        step_summary=_path(environ.get("GITHUB_STEP_SUMMARY")),
        output=_path(environ.get("GITHUB_OUTPUT")),
        head_sha=pull.head_sha or sha,
        head_repository=pull.head_repository,
        event=event,
    )


def _read_event(path_text: str) -> dict[str, Any]:
    if not path_text:
        raise GitHubError("GITHUB_EVENT_PATH is not set; cannot read the event payload")
    path = Path(path_text)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise GitHubError(
            f"{path}: cannot read the event payload ({exc.strerror or exc})"
        ) from None
    try:
        event = json.loads(text)
    except json.JSONDecodeError as exc:
        raise GitHubError(f"{path}:{exc.lineno}: event payload is not JSON ({exc.msg})") from None
    except (ValueError, RecursionError) as exc:
        raise GitHubError(f"{path}: event payload is not usable JSON ({exc})") from None
    if not isinstance(event, dict):
        raise GitHubError(f"{path}: event payload is not a JSON object")
    return event


def _pull_facts(event_name: str, event: Mapping[str, Any]) -> _PullFacts:
    if event_name in PR_EVENTS:
        return _from_pull_request(event)
    if event_name == "workflow_run":
        return _from_workflow_run(event)
    return _PullFacts()


def _from_pull_request(event: Mapping[str, Any]) -> _PullFacts:
    pr = event.get("pull_request") or {}
    return _PullFacts(
        number=_as_int(pr.get("number", event.get("number"))),
        is_fork=_is_fork(
            _dig(pr, "head", "repo", "full_name"), _dig(pr, "base", "repo", "full_name")
        ),
        head_ref=_text(_dig(pr, "head", "ref")),
        base_ref=_text(_dig(pr, "base", "ref")),
        head_sha=_text(_dig(pr, "head", "sha")),
        head_repository=_text(_dig(pr, "head", "repo", "full_name")),
    )


def _from_workflow_run(event: Mapping[str, Any]) -> _PullFacts:
    run = event.get("workflow_run") or {}
    # GitHub leaves pull_requests empty when the triggering PR came from a fork.
    pulls = run.get("pull_requests") or [{}]
    first = pulls[0] if isinstance(pulls[0], Mapping) else {}
    return _PullFacts(
        number=_as_int(first.get("number")),
        is_fork=_is_fork(
            _dig(run, "head_repository", "full_name"), _dig(run, "repository", "full_name")
        ),
        head_ref=_text(run.get("head_branch")),
        base_ref=_text(_dig(first, "base", "ref")),
        head_sha=_text(run.get("head_sha")),
        head_repository=_text(_dig(run, "head_repository", "full_name")),
    )


def _is_fork(head_repo: Any, base_repo: Any) -> bool:
    # A deleted fork shows up as a null head repo: still a fork.
    return base_repo is not None and head_repo != base_repo


def _dig(mapping: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(mapping, Mapping):
            return None
        mapping = mapping.get(key)
    return mapping


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _path(value: str | None) -> Path | None:
    return Path(value) if value else None


# --------------------------------------------------------------------------- REST client


@dataclass(frozen=True)
class CommentResult:
    """The outcome of an upsert: what happened to the comment and where it lives."""

    action: str  # "created" | "updated" | "forbidden" | "skipped"
    url: str | None
    id: int | None
    message: str


class _Transient(Exception):
    """A failure worth retrying (5xx, 429, rate limit, connection); internal only."""

    def __init__(self, what: str, reason: str, status: int | None, wait: float | None):
        super().__init__(f"{what}: {reason}")
        self.status = status
        self.wait = wait


class _Forbidden(Exception):
    """The token may not write here (fork PR or missing permission); internal only."""


class GitHubClient:
    """GitHub REST calls through an injected requests.Session, with retries and no leaks."""

    def __init__(
        self,
        session: requests.Session,
        api_url: str,
        token: str,
        *,
        retries: int = 4,
        sleep: Callable[[float], None] = time.sleep,
        timeout: float = 30,
        backoff: float = 1.0,
        clock: Callable[[], float] = time.time,
    ):
        self._token = _checked_token(token)
        self._session = session
        self._api_url = api_url.rstrip("/")
        self._origin = _origin(self._api_url)
        self._retries = max(0, retries)
        self._sleep = sleep
        self._timeout = timeout
        self._backoff = backoff
        self._clock = clock
        self._identity: list[str] = []  # the token's login, asked once, when first needed

    def __repr__(self) -> str:
        return f"GitHubClient(api_url={self._api_url!r}, token={REDACTED!r})"

    def upsert_comment(
        self,
        repository: str,
        pr_number: int | None,
        body: str,
        marker: str = MARKER,
        *,
        fork: bool = False,
        author: str | None = None,
        create: bool = True,
    ) -> CommentResult:
        """Create, or update in place, the one PR comment that carries `marker` (with
        ``create`` false, only update one that exists).

        Only a comment written by ``author`` (default: the token's own identity) is ever
        updated: anybody can paste the marker into a comment of their own.
        """
        if pr_number is None:
            return CommentResult("skipped", None, None, "not a pull request; no comment posted")
        text = body if body.startswith(marker) else f"{marker}\n{body}"
        if len(text) > COMMENT_LIMIT:
            raise GitHubError(
                f"the report is {len(text)} characters; GitHub comments hold at most "
                f"{COMMENT_LIMIT}: shorten it (the job summary holds the full report)"
            )
        upsert = functools.partial(
            self._upsert_once, repository, pr_number, text, marker, fork, author, create
        )
        try:
            return self._retrying(upsert)
        except _Forbidden as exc:
            return CommentResult("forbidden", None, None, str(exc))

    def _upsert_once(
        self,
        repository: str,
        number: int,
        text: str,
        marker: str,
        fork: bool,
        author: str | None,
        create: bool = True,
    ) -> CommentResult:
        comment_id = self._find_comment(repository, number, marker, author)
        if comment_id is None and not create:
            return CommentResult("skipped", None, None, f"no perfguard comment on #{number}")
        if comment_id is None:
            url = f"{self._api_url}/repos/{repository}/issues/{number}/comments"
            # One attempt only: after a failed POST the comment may exist, so the retry
            # loop around this method lists the comments again before trying once more.
            response = self._attempt("POST", url, {"body": text})
            action = "created"
        else:
            url = f"{self._api_url}/repos/{repository}/issues/comments/{comment_id}"
            patch = functools.partial(self._attempt, "PATCH", url, {"body": text})
            response = self._retrying(patch)
            action = "updated"
        comment = self._checked(response, number, fork=fork)
        if not isinstance(comment, Mapping):
            raise GitHubError(f"{_what(response)}: the response is not a comment object")
        message = f"{action} the perfguard comment on #{number}"
        return CommentResult(action, comment.get("html_url"), _as_int(comment.get("id")), message)

    def _find_comment(
        self, repository: str, number: int, marker: str, author: str | None
    ) -> int | None:
        """The first marked comment the token's own identity wrote (asked only if needed)."""
        comments = self._comments(repository, number)
        marked = [c for c in comments if _text(c.get("body")).startswith(marker)]
        if not marked:
            return None
        me = (author or self.identity()).lower()
        for comment in marked:
            if _text(_dig(comment, "user", "login")).lower() == me:
                return _as_int(comment.get("id"))
        return None

    def identity(self) -> str:
        """The login the token comments as: GET /user, or the Actions bot for GITHUB_TOKEN.

        An installation token (what GITHUB_TOKEN is) may not read /user (403); its
        comments are github-actions[bot]'s.
        """
        if not self._identity:
            response = self._retrying(
                functools.partial(self._attempt, "GET", f"{self._api_url}/user", None)
            )
            login = ""
            if response.status_code not in (401, 403, 404):
                user = self._checked(response, 0, fork=False)
                login = _text(user.get("login")) if isinstance(user, Mapping) else ""
            self._identity.append(login or ACTIONS_BOT)
        return self._identity[0]

    def pull_for_commit(self, repository: str, head_sha: str, head_repository: str) -> int | None:
        """The open pull request whose head is ``head_sha`` in ``head_repository``, or None.

        Asked of GitHub (never of an artifact): the commit's pull requests first, then the
        open pull requests; a head SHA matching several is refused as ambiguous.
        """
        url = f"{self._api_url}/repos/{repository}/commits/{head_sha}/pulls?per_page=100"
        found = self._matching_pulls(url, head_sha, head_repository)
        if not found:
            url = f"{self._api_url}/repos/{repository}/pulls?state=open&per_page=100"
            found = self._matching_pulls(url, head_sha, head_repository)
        if len(found) > 1:
            numbers = ", ".join(f"#{n}" for n in sorted(found))
            raise GitHubError(
                f"head commit {head_sha[:12]} heads several pull requests ({numbers})"
            )
        return found.pop() if found else None

    def _matching_pulls(self, url: str | None, head_sha: str, head_repository: str) -> set[int]:
        found: set[int] = set()
        for _ in range(MAX_PAGES):
            if url is None:
                return found
            response = self._retrying(functools.partial(self._attempt, "GET", url, None))
            if response.status_code in (404, 422):  # an unknown commit: no pull request
                return found
            try:
                page = self._checked(response, 0, fork=False)
            except _Forbidden as exc:
                raise GitHubError(f"{_what(response)}: {exc}", response.status_code) from None
            if not isinstance(page, list):
                raise GitHubError(f"{_what(response)}: the response is not a list of pulls")
            for pull in page:
                if not isinstance(pull, Mapping) or pull.get("state", "open") != "open":
                    continue
                same_sha = _dig(pull, "head", "sha") == head_sha
                same_repo = _dig(pull, "head", "repo", "full_name") == head_repository
                number = _as_int(pull.get("number"))
                if same_sha and same_repo and number is not None:
                    found.add(number)
            url = self._next_page(response)
        return found

    def _comments(self, repository: str, number: int) -> Iterator[Mapping[str, Any]]:
        url: str | None = (
            f"{self._api_url}/repos/{repository}/issues/{number}/comments?per_page=100"
        )
        for _ in range(MAX_PAGES):
            if url is None:
                return
            response = self._retrying(functools.partial(self._attempt, "GET", url, None))
            page = self._checked(response, number, fork=False)
            if not isinstance(page, list):
                raise GitHubError(f"{_what(response)}: the response is not a list of comments")
            yield from (comment for comment in page if isinstance(comment, Mapping))
            url = self._next_page(response)
        raise GitHubError(f"more than {MAX_PAGES} pages of comments on #{number}; giving up")

    def _next_page(self, response: requests.Response) -> str | None:
        link = response.links.get("next", {}).get("url")
        if not link:
            return None
        url = urljoin(response.url, link)
        if _origin(url) != self._origin:
            raise GitHubError(
                f"{_what(response)}: the next-page link leaves {self._origin}; "
                "not sending the token there"
            )
        return url

    def _retrying(self, call: Callable[[], T]) -> T:
        attempt = 0
        while True:
            try:
                return call()
            except _Transient as exc:
                reason = self._redact(str(exc))
                if attempt >= self._retries:
                    raise GitHubError(
                        f"{reason} (gave up after {attempt + 1} attempts)", status=exc.status
                    ) from None
                if exc.wait is not None and exc.wait > MAX_WAIT:  # an hour-long rate limit
                    raise GitHubError(
                        f"{reason} (the server asks to wait {exc.wait:.0f} s, more than "
                        f"{MAX_WAIT:g} s a job idles for; giving up)",
                        status=exc.status,
                    ) from None
                wait = self._wait_for(exc, attempt)
                attempt += 1
                log.warning("%s; retry %d of %d in %.1f s", reason, attempt, self._retries, wait)
                self._sleep(wait)

    def _wait_for(self, exc: _Transient, attempt: int) -> float:
        wait = exc.wait if exc.wait is not None else self._backoff * 2**attempt
        return min(MAX_WAIT, max(0.0, wait))

    def _attempt(self, method: str, url: str, payload: Any) -> requests.Response:
        what = f"{method} {urlsplit(url).path}"
        try:
            response = self._session.request(
                method, url, headers=self._headers(), json=payload, timeout=self._timeout
            )
        except (requests.ConnectionError, requests.Timeout) as exc:
            raise _Transient(what, f"{type(exc).__name__}: {exc}", None, None) from None
        except requests.RequestException as exc:
            raise GitHubError(self._redact(f"{what}: {type(exc).__name__}: {exc}")) from None
        if _is_transient(response):
            reason = f"HTTP {response.status_code}: {_github_message(response, self._redact)}"
            raise _Transient(what, reason, response.status_code, self._server_wait(response))
        return response

    def _checked(self, response: requests.Response, number: int, *, fork: bool) -> Any:
        status = response.status_code
        message = _github_message(response, self._redact)
        if _is_forbidden(status, message, fork):
            raise _Forbidden(_forbidden_notice(number, status, message, fork))
        if not 200 <= status < 300:
            raise GitHubError(f"{_what(response)}: HTTP {status}: {message}", status=status)
        try:
            return response.json()
        except ValueError:
            raise GitHubError(f"{_what(response)}: the response is not JSON", status) from None

    def _server_wait(self, response: requests.Response) -> float | None:
        headers = response.headers
        retry_after = _retry_after(headers.get("Retry-After", ""), self._clock())
        if retry_after is not None:
            return retry_after
        reset = headers.get("x-ratelimit-reset", "")
        if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
            return int(reset) - self._clock()
        return None

    def _headers(self) -> dict[str, str]:
        return {
            "Authorization": f"Bearer {self._token}",
            "Accept": "application/vnd.github+json",
            "X-GitHub-Api-Version": API_VERSION,
            "User-Agent": f"perfguard/{__version__}",
        }

    def _redact(self, text: str) -> str:
        """``text`` without the token, in any case, nor anything that looks like a credential
        (``Bearer ...``, ``ghs_...``): an API or proxy that echoes the request's headers
        must not put a part of one into a public log."""
        if self._token:
            text = re.sub(re.escape(self._token), REDACTED, text, flags=re.IGNORECASE)
        return _CREDENTIAL.sub(lambda m: (m.group(1) or "") + REDACTED, text)


def _checked_token(token: str) -> str:
    token = token.strip()
    if not token:
        raise GitHubError("no GitHub token: set GITHUB_TOKEN or the action's `github-token` input")
    if not (token.isascii() and token.isprintable()) or " " in token:
        # Never echo it: requests would put the raw header value in its own error message.
        raise GitHubError(
            "the GitHub token contains spaces or control characters; check the secret"
        )
    return token


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    return parts.scheme.lower(), parts.netloc.lower()


def _what(response: requests.Response) -> str:
    return f"{response.request.method} {urlsplit(response.url).path}"


def _is_transient(response: requests.Response) -> bool:
    status = response.status_code
    if status >= 500 or status == 429:
        return True
    limited = response.headers.get("x-ratelimit-remaining") == "0"
    return status == 403 and (limited or "Retry-After" in response.headers)


def _retry_after(value: str, now: float) -> float | None:
    value = value.strip()
    if not value:
        return None
    if value.isdigit():
        return float(value)
    try:
        return parsedate_to_datetime(value).timestamp() - now
    except (TypeError, ValueError):
        return None


def _github_message(response: requests.Response, redact: Callable[[str], str]) -> str:
    """GitHub's ``message``, else the start of the body: redacted before it is cut, so a
    credential across the cut cannot survive in part."""
    try:
        data = response.json()
    except ValueError:
        return redact(response.text.strip())[:200] or response.reason or "no message"
    if isinstance(data, Mapping) and isinstance(data.get("message"), str):
        return redact(data["message"])[:500]
    return redact(json.dumps(data))[:200]


def _is_forbidden(status: int, message: str, fork: bool) -> bool:
    if status == 403 and _INTEGRATION_403 in message.lower():
        return True
    return fork and status in (403, 404)


def _forbidden_notice(number: int, status: int, message: str, fork: bool) -> str:
    why = (
        "pull requests from forks get a read-only GITHUB_TOKEN"
        if fork
        else "the token may not write comments (fork PR, or the workflow lacks "
        "`permissions: pull-requests: write`)"
    )
    return (
        f"could not comment on #{number} (HTTP {status}: {message}): {why}. The report is in "
        "the job summary. To comment on fork pull requests, upload the report as an artifact "
        "and post it from a workflow triggered by `workflow_run`, which has a write token."
    )


# --------------------------------------------------------------------------- runner files


def write_step_summary(path: Path, markdown: str) -> None:
    """Append markdown to the job summary file ($GITHUB_STEP_SUMMARY)."""
    _append(path, markdown if markdown.endswith("\n") else markdown + "\n")


def write_outputs(path: Path, values: Mapping[str, str], *, delimiter: str | None = None) -> None:
    """Append step outputs to $GITHUB_OUTPUT; multi-line values use a random heredoc delimiter."""
    _append(path, "".join(_output_entry(name, value, delimiter) for name, value in values.items()))


def _output_entry(name: str, value: str, delimiter: str | None) -> str:
    if not name or "=" in name or "<<" in name or not name.isprintable():
        raise GitHubError(f"invalid step output name {name!r}")
    if "\n" not in value and "\r" not in value:
        return f"{name}={value}\n"
    delimiter = delimiter or f"ghadelimiter_{uuid.uuid4()}"
    if delimiter in value:
        raise GitHubError(f"step output {name!r} contains its heredoc delimiter; refusing it")
    return f"{name}<<{delimiter}\n{value}\n{delimiter}\n"


def _append(path: Path, text: str) -> None:
    try:
        with open(path, "a", encoding="utf-8", newline="\n") as handle:
            handle.write(text)
    except OSError as exc:
        raise GitHubError(f"{path}: cannot write ({exc.strerror or exc})") from None


# --------------------------------------------------------------------------- workflow commands


def annotation(
    level: str,
    message: str,
    file: str | Path | None = None,
    line: int | None = None,
    title: str | None = None,
) -> str:
    """A `::error file=…,line=…,title=…::message` workflow command line, escaped."""
    if level not in _LEVELS:
        raise ValueError(f"annotation level must be one of {', '.join(_LEVELS)}, not {level!r}")
    given = (("file", file), ("line", line), ("title", title))
    props = ",".join(f"{key}={_escape_property(str(v))}" for key, v in given if v is not None)
    head = f"::{level} {props}" if props else f"::{level}"
    return f"{head}::{_escape_data(message)}"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")
