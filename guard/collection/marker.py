"""Counting the instructions of one call, inside a worker that runs under callgrind.

Callgrind runs the worker with collection off; it switches collection on when libffi's
``ffi_call`` is entered and off when it is left, writing one dump as it leaves (see
``counters.callgrind_prefix``). The timed call is made through ctypes -- a C function
pointer to a Python wrapper, which ctypes calls with ``ffi_call`` -- so the import and
the setup that built the input are never counted, only this call and the constant
path through ctypes into it, which is measured on an empty call once and subtracted.
Ctypes calls inside the timed call enter ``ffi_call`` again, which callgrind treats as
a recursion and counts; ctypes calls in the setup make dumps that are thrown away.
Python's collector is off during the call, as for timing.
"""

from __future__ import annotations

import ctypes
import gc
from collections.abc import Callable
from pathlib import Path

from .counters import read_dump_total

__all__ = ["CallCounter"]

_HOOK = ctypes.CFUNCTYPE(None)
_CALIBRATION_CALLS = 3


class CallCounter:
    """Instructions of single calls; callgrind's dumps are ``base.1``, ``base.2``, ..."""

    def __init__(self, dump_base: str):
        self.base = Path(dump_base)
        self.dumps = 0
        # One C entry point for every call: a new ctypes closure per call would vary the
        # path into it (a fresh trampoline, new objects) between calls.
        self._fn: Callable[[], object] = _nothing
        self._failure: list[BaseException] = []
        self._hook = _HOOK(self._call)
        self.overhead = min(self._count(_nothing) for _ in range(_CALIBRATION_CALLS))

    def count(self, fn: Callable[[], object]) -> int:
        """The instructions ``fn()`` executes, without the marker's own constant."""
        return max(0, self._count(fn) - self.overhead)

    def _call(self) -> None:
        try:
            self._fn()
        except BaseException as exc:  # noqa: BLE001 - re-raised by _count, outside ctypes
            self._failure.append(exc)

    def _count(self, fn: Callable[[], object]) -> int:
        # Setup code that calls C through ctypes outside the marker makes dumps of its own
        # (collection toggles on and off around it): they are not the timed call's.
        self._new_dumps()
        self._fn, self._failure = fn, []
        enabled = gc.isenabled()
        gc.disable()
        try:
            self._hook()
        finally:
            self._fn = _nothing
            if enabled:
                gc.enable()
        failure = self._failure
        totals = self._new_dumps()
        if failure:
            raise failure[0]
        if not totals:
            raise RuntimeError(
                "metric instructions: callgrind wrote no count for the timed call; the worker "
                "must run under valgrind and this Python's ctypes must call through libffi"
            )
        if len(totals) > 1:  # ctypes inside the call is a recursion of ffi_call: no dump
            raise RuntimeError(
                f"metric instructions: callgrind wrote {len(totals)} counts for one call; "
                "count this benchmark as a command instead"
            )
        return totals[0]

    def _new_dumps(self) -> list[int]:
        totals: list[int] = []
        while True:
            path = self.base.with_name(f"{self.base.name}.{self.dumps + 1}")
            if not path.exists():
                return totals
            totals.append(read_dump_total(path))
            path.unlink()
            self.dumps += 1


def _nothing() -> None:
    return None
