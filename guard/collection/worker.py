"""The worker process behind a ``callable:`` benchmark: ``python -m guard.collection.worker DIR``.

It imports ``module:function`` from DIR, calls it with the point's parameters to get
the zero-argument callable to time, and answers one JSON request per line with one
repetition. The protocol uses a private copy of the original stdout; the benchmark's
own prints go to stderr, so they cannot corrupt a reply. Per point the loop count is
calibrated once and kept, so every repetition at that point times the same work.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable
from typing import Any, TextIO

from .counters import DUMP_ENV
from .timing import calibrate_loops, measure_once

__all__ = ["main"]


class _Session:
    def __init__(self) -> None:
        self.loops: dict[tuple[str, str, str], int] = {}
        self.current: tuple[tuple[str, str], Callable[[], object]] | None = None
        self.counter: Any = None  # a marker.CallCounter, made on the first instructions request

    def answer(self, request: dict[str, Any]) -> dict[str, Any]:
        target, metric = request["target"], request["metric"]
        kwargs = request["kwargs"]
        key = (target, json.dumps(kwargs, sort_keys=True))
        fn = self._callable(key, target, kwargs)
        loops_key = (*key, metric)
        if loops_key not in self.loops:
            for _ in range(int(request.get("warmup", 0))):
                if metric == "instructions":
                    self._instructions(fn)  # through the marker too, so it is warm as well
                else:
                    measure_once(fn, metric)
            self.loops[loops_key] = calibrate_loops(fn, metric, float(request["min_time"]))
        loops = self.loops[loops_key]
        if metric == "instructions":
            return {"value": self._instructions(fn), "loops": 1}
        return {"value": measure_once(fn, metric, loops), "loops": loops}

    def _instructions(self, fn: Callable[[], object]) -> int:
        if self.counter is None:
            from .marker import CallCounter  # ctypes: imported only by workers that count

            dumps = os.environ.get(DUMP_ENV)
            if not dumps:
                raise RuntimeError("metric instructions: this worker does not run under valgrind")
            self.counter = CallCounter(dumps)
        return self.counter.count(fn)

    def _callable(
        self, key: tuple[str, str], target: str, kwargs: dict[str, Any]
    ) -> Callable[[], object]:
        # Only the latest point's callable is kept: its setup may hold a lot of memory.
        if self.current is not None and self.current[0] == key:
            return self.current[1]
        self.current = None
        module_name, _, attr = target.partition(":")
        obj: Any = importlib.import_module(module_name)
        for part in attr.split("."):
            obj = getattr(obj, part)
        fn = obj(**kwargs)
        if not callable(fn):
            raise TypeError(
                f"{target} must return the zero-argument callable to time, got {type(fn).__name__}"
            )
        self.current = (key, fn)
        return fn


def _reply(out: TextIO, doc: dict[str, Any]) -> None:
    out.write(json.dumps(doc) + "\n")
    out.flush()


def main(folder: str) -> None:
    """Serve requests from stdin until it closes."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    sys.path.insert(0, folder)
    session = _Session()
    for line in sys.stdin:
        if not line.strip():
            continue
        try:
            reply = session.answer(json.loads(line))
        except Exception as exc:  # noqa: BLE001 - the benchmark's own error, reported upward
            traceback.print_exc()
            reply = {"error": f"{type(exc).__name__}: {exc}", "kind": "crash"}
        except SystemExit as exc:  # sys.exit() in the benchmark (an argparse error): not ours
            why = f"SystemExit({exc.code!r}): the benchmark called sys.exit (argparse does)"
            reply = {"error": why, "kind": "crash"}
        _reply(out, reply)


if __name__ == "__main__":
    main(sys.argv[1])
