"""Real scalability bugs from public CVE fixes in PyPI packages, each pinned at the buggy
and at the fixed release.

``rounds.py setup`` installs every version with ``pip install --target`` under
``work/site/<package>-<version>`` (never committed); a run puts one of them on
``PYTHONPATH``, and ``cases.py`` refuses to measure if the imported version is not the
one asked for (``REALCODE_VERSION``). The classes are what the advisory or the fix says
and what was measured before the bug was taken in (``python rounds.py probe``).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Bug:
    name: str  # the benchmark in bugs/perfguard.yml
    package: str  # the distribution name on PyPI
    buggy: str
    fixed: str
    advisory: str  # CVE id
    links: tuple[str, ...]
    pattern: str  # the input, in words
    buggy_class: str
    fixed_class: str
    extra: tuple[str, ...] = ()  # pinned dependencies installed beside both versions

    def requirement(self, version: str) -> str:
        return f"{self.package}=={version}"


BUGS: tuple[Bug, ...] = (
    Bug(
        name="sqlparse_string_literal",
        package="sqlparse",
        buggy="0.4.3",
        fixed="0.4.4",
        advisory="CVE-2023-30608",
        links=("https://github.com/andialbrecht/sqlparse/security/advisories/GHSA-rrm6-wvj7-cwh2",),
        pattern="sqlparse.parse of a quote and n pairs of backslashes, never closed: "
        "`'(''|\\\\\\\\|\\\\'|[^'])*'` can read each pair as one escape or two characters",
        buggy_class="exponential (x2.2 per pair)",
        fixed_class="<= n",
    ),
    Bug(
        name="sqlparse_strip_comments",
        package="sqlparse",
        buggy="0.4.1",
        fixed="0.4.2",
        advisory="CVE-2021-32839",
        links=(
            "https://github.com/andialbrecht/sqlparse/security/advisories/GHSA-p5w8-wqhj-9hhf",
            "https://nvd.nist.gov/vuln/detail/CVE-2021-32839",
        ),
        pattern="sqlparse.format(strip_comments=True) of a /* comment */ holding n CRLF pairs: "
        "`((\\r\\n|\\r|\\n)+) *$` can split each CRLF two ways",
        buggy_class="exponential (x2 per CRLF)",
        # The fix still runs re.search(r'((\r|\n)+) *$') at every start: n^2, measured
        # (0.07 s at n=1000, 1.1 s at n=4000), not linear.
        fixed_class="<= n^2",
    ),
    Bug(
        name="multipart_options_header",
        package="python-multipart",
        buggy="0.0.6",
        fixed="0.0.7",
        advisory="CVE-2024-24762",
        links=("https://github.com/advisories/GHSA-2jv5-9r88-3w3p",),
        pattern='parse_options_header of `text/plain; a="` and n backslashes, never closed: '
        '`"(?:\\\\.|[^"])*"` can read each backslash pair two ways',
        buggy_class="exponential (x1.6 per backslash)",
        fixed_class="<= n",
    ),
    Bug(
        name="urllib3_percent_encoding",
        package="urllib3",
        buggy="1.25.7",
        fixed="1.25.8",
        advisory="CVE-2020-7212",
        links=(
            "https://nvd.nist.gov/vuln/detail/CVE-2020-7212",
            "https://github.com/urllib3/urllib3/pull/1787",
        ),
        pattern="parse_url of http://h/ and n lower-case percent escapes `%ab`: each escape "
        "found is upper-cased with str.replace over the whole path",
        buggy_class="n^2",
        fixed_class="<= n",
    ),
    Bug(
        name="urllib3_authority_at",
        package="urllib3",
        buggy="1.26.4",
        fixed="1.26.5",
        advisory="CVE-2021-33503",
        links=("https://github.com/advisories/GHSA-q2q7-5pp4-w6pg",),
        pattern="parse_url of http:// and n `@` then `:x`: `^(?:(.*)@)?(host)(?::port)?$` "
        "tries every `@` as the end of the userinfo and rescans the host after it",
        buggy_class="n^2",
        fixed_class="<= n",
    ),
    Bug(
        name="werkzeug_multipart_cr",
        package="werkzeug",
        buggy="3.0.0",
        fixed="3.0.1",
        advisory="CVE-2023-46136",
        links=(
            "https://github.com/advisories/GHSA-hrfv-mqp8-q5rw",
            "https://github.com/pallets/werkzeug/pull/2801",
        ),
        pattern="MultiPartParser(buffer_size=4096) on a file part that starts with CR and "
        "then n bytes without CR/LF: the whole part stays buffered and every 4 KiB chunk "
        "searches it again for the boundary",
        buggy_class="n^2",
        fixed_class="<= n",
        extra=("markupsafe==2.1.5",),
    ),
)

BY_NAME = {bug.name: bug for bug in BUGS}
