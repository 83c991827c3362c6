"""The report never contradicts itself, checked on recorded verdicts (issue 16).

    .venv/bin/python benchmarks/realcode/consistency.py benchmarks/realcode/work/rounds
    .venv/bin/python benchmarks/realcode/consistency.py FILE_OR_FOLDER...

Reads every ``verdicts@1`` file (``perfguard check --json`` output; folders are searched
for ``*.json`` under ``checks/``, other JSON is skipped) and checks, for every kernel:

1. a reason's class is the class the table shows: ``X measured`` (a bound), ``X now``
   (a baseline) is the model's class, ``Y in the baseline`` the baseline model's;
2. ``violates_expectation`` only with verdict ``fail`` and a shown class outside the bound;
3. a shown class outside the declared bound never passes;
4. ``regression`` only with verdict ``fail`` and a shown class above the baseline's;
5. a shown class above the baseline's never passes;
6. the file's ``status`` is ``fail`` exactly when a kernel fails.

``exponential-like`` ranks above every polynomial class.  Prints each contradiction with
its file and kernel, then a count; exit 1 if there is any.  The same property as
``tests/test_consistency.py``, there on generated data, here on this corpus's real runs.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from guard.checking.classes import GrowthClass  # noqa: E402
from guard.checking.expectation import parse_class, parse_expectation  # noqa: E402

EXPONENTIAL = "exponential-like"
SCHEMA = "perfguard/verdicts@1"
_MEASURED = re.compile(r"^(.+?) measured, ")
_PAIR = re.compile(r"^(?:scales better: )?(.+?) now, (.+?) in the baseline")


@dataclass(frozen=True)
class Contradiction:
    where: str
    kernel: str
    problem: str

    def __str__(self) -> str:
        return f"{self.where}: {self.kernel}: {self.problem}"


def _class(complexity: str | None) -> GrowthClass | str | None:
    """The shown class: a GrowthClass, EXPONENTIAL, or None (no model)."""
    if not complexity:
        return None
    text = complexity.strip()
    if text == EXPONENTIAL:
        return EXPONENTIAL
    if text.startswith("O(") and text.endswith(")"):
        text = text[2:-1]
    return parse_class(text, ["n"])


def _shown_text(model: dict | None) -> str | None:
    return None if not model else model.get("complexity")


def _same(a, b) -> bool:
    if EXPONENTIAL in (a, b):
        return a == b
    return a == b or (a.le(b) and b.le(a))


def _above(a, b) -> bool:
    """a grows strictly faster than b."""
    if a == EXPONENTIAL:
        return b != EXPONENTIAL
    if b == EXPONENTIAL:
        return False
    return b.lt(a)


def kernel_contradictions(
    entry: dict, where: str, checked: Counter | None = None
) -> Iterator[Contradiction]:
    """Every way one kernel's verdict contradicts itself; ``checked`` counts what was
    compared (reason classes, bounds, baselines), so a run that compared nothing shows."""
    checked = Counter() if checked is None else checked
    name = entry.get("kernel", "?")
    verdict = entry.get("verdict")
    shown = _class(_shown_text(entry.get("model")))
    base = _class(_shown_text(entry.get("baseline_model")))

    def say(problem: str) -> Contradiction:
        return Contradiction(where, name, problem)

    if shown is None:
        return
    for reason in entry.get("reasons", []):
        kind, message = reason.get("kind"), reason.get("message", "")
        measured = _MEASURED.match(message) if kind in ("expectation", "max_class") else None
        checked["reason classes"] += bool(measured)
        if measured and not _same(_class(measured.group(1)), shown):
            yield say(
                f"reason names {measured.group(1)}, table shows {_shown_text(entry['model'])}"
            )
        pair = _PAIR.match(message) if kind in ("regression", "improvement") else None
        if pair:
            checked["reason classes"] += 1
            now, then = _class(pair.group(1)), _class(pair.group(2))
            if not _same(now, shown):
                yield say(
                    f"reason says {pair.group(1)} now, table shows {entry['model']['complexity']}"
                )
            if base is not None and not _same(then, base):
                yield say(f"reason says {pair.group(2)} in the baseline, baseline model {base}")
    bound_text = entry.get("expectation")
    if bound_text:
        bound = parse_expectation(bound_text, ["n"])
        checked["bounds"] += 1
        outside = shown == EXPONENTIAL or not bound.admits(shown)
        if entry.get("violates_expectation") and not (verdict == "fail" and outside):
            yield say(f"violates {bound_text} with verdict {verdict}, shown class inside it")
        if outside and verdict == "pass":
            yield say(f"shown class outside {bound_text} passes")
    if base is not None:
        checked["baselines"] += 1
        grew = _above(shown, base)
        if entry.get("regression") and not (verdict == "fail" and grew):
            yield say(f"regression with verdict {verdict}, shown class not above the baseline's")
        if grew and verdict == "pass":
            yield say("shown class above the baseline's passes")


def file_contradictions(
    doc: dict, where: str, checked: Counter | None = None
) -> Iterator[Contradiction]:
    kernels = doc.get("kernels", [])
    for entry in kernels:
        yield from kernel_contradictions(entry, where, checked)
    failed = any(k.get("verdict") == "fail" for k in kernels)
    if (doc.get("status") == "fail") != failed:
        yield Contradiction(where, "-", f"status {doc.get('status')} but a kernel fails: {failed}")


def verdict_files(paths: list[Path]) -> Iterator[tuple[Path, dict]]:
    """Every verdicts@1 document under the paths (empty or other JSON skipped)."""
    files: list[Path] = []
    for path in paths:
        files += sorted(path.rglob("*.json")) if path.is_dir() else [path]
    for file in files:
        try:
            doc = json.loads(file.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(doc, dict) and doc.get("schema") == SCHEMA:
            yield file, doc


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    paths = [Path(a) for a in args] or [Path(__file__).resolve().parent / "work" / "rounds"]
    found: list[Contradiction] = []
    checked: Counter = Counter()
    for file, doc in verdict_files(paths):
        checked["verdict files"] += 1
        checked["kernel verdicts"] += len(doc.get("kernels", []))
        found += file_contradictions(doc, str(file), checked)
    for c in found:
        print(c)
    count = checked["verdict files"]
    print(", ".join(f"{v} {k}" for k, v in checked.items()) + f": {len(found)} contradictions")
    return 1 if found or not count else 0


if __name__ == "__main__":
    sys.exit(main())
