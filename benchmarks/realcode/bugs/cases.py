"""Benchmark factories for the bugs of catalog.py; the package comes from PYTHONPATH.

Each factory builds the crafted input of size ``n`` (setup, not timed) and returns the
call to time. ``REALCODE_VERSION`` (``package==version``), when set, must match the
version imported, so a run can never measure a different release than it names.
"""

from __future__ import annotations

import importlib.metadata
import io
import os


def _check_version(package: str) -> None:
    wanted = os.environ.get("REALCODE_VERSION")
    if not wanted:
        return
    name, _, version = wanted.partition("==")
    if name != package:
        return
    found = importlib.metadata.version(package)
    if found != version:
        raise RuntimeError(f"{package} {found} imported, {version} asked for (check PYTHONPATH)")


def sqlparse_string_literal(n: int):
    """CVE-2023-30608: an unclosed string literal of n backslash pairs."""
    _check_version("sqlparse")
    import sqlparse

    text = "'" + "\\\\" * n
    return lambda: sqlparse.parse(text)


def sqlparse_strip_comments(n: int):
    """CVE-2021-32839: a block comment of n CRLF pairs, comments stripped."""
    _check_version("sqlparse")
    import sqlparse

    text = "SELECT 1 /*" + "\r\n" * n + "x*/ FROM t"
    return lambda: sqlparse.format(text, strip_comments=True)


def multipart_options_header(n: int):
    """CVE-2024-24762: a Content-Type option with an unclosed quote and n backslashes."""
    _check_version("python-multipart")
    from multipart.multipart import parse_options_header

    header = 'text/plain; a="' + "\\" * n
    return lambda: parse_options_header(header)


def _parse_url_or_error(url: str):
    from urllib3.exceptions import LocationParseError
    from urllib3.util import parse_url

    def run() -> None:
        try:
            parse_url(url)
        except LocationParseError:
            pass  # the fixed release refuses some of these inputs: that is its answer

    return run


def urllib3_percent_encoding(n: int):
    """CVE-2020-7212: a path of n lower-case percent escapes."""
    _check_version("urllib3")
    return _parse_url_or_error("http://h/" + "%ab" * n)


def urllib3_authority_at(n: int):
    """CVE-2021-33503: an authority of n '@' and a port that is not a number."""
    _check_version("urllib3")
    return _parse_url_or_error("http://" + "@" * n + ":x")


def werkzeug_multipart_cr(n: int):
    """CVE-2023-46136: a file part starting with CR, then n bytes without CR or LF."""
    _check_version("werkzeug")
    from werkzeug.formparser import MultiPartParser

    body = (
        b'--b\r\nContent-Disposition: form-data; name="f"; filename="a"\r\n\r\n\r'
        + b"a" * n
        + b"\r\n--b--\r\n"
    )

    def run() -> None:
        MultiPartParser(buffer_size=4096).parse(io.BytesIO(body), b"b", len(body))

    return run
