"""Counting the instructions of one call, inside a worker that runs under callgrind.

Callgrind runs the worker with collection off; it switches collection on when libffi's
``ffi_call`` is entered and off when it is left, writing one dump as it leaves (see
``counters.callgrind_prefix``). The timed call is made through ctypes -- a C function
pointer to a Python wrapper, which ctypes calls with ``ffi_call`` -- so the import, the
setup that built the input and the warm-up calls are never counted, only this call
and the constant path through ctypes into it, which is measured on an empty call once
and subtracted. Python's collector is off during the call, as for timing.
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
        self.overhead = min(self._count(_nothing) for _ in range(_CALIBRATION_CALLS))

    def count(self, fn: Callable[[], object]) -> int:
        """The instructions ``fn()`` executes, without the marker's own constant."""
        return max(0, self._count(fn) - self.overhead)

    def _count(self, fn: Callable[[], object]) -> int:
        failure: list[BaseException] = []

        def call() -> None:
            try:
                fn()
            except BaseException as exc:  # noqa: BLE001 - re-raised below, outside ctypes
                failure.append(exc)

        hook = _HOOK(call)
        enabled = gc.isenabled()
        gc.disable()
        try:
            hook()
        finally:
            if enabled:
                gc.enable()
        totals = self._new_dumps()
        if failure:
            raise failure[0]
        if not totals:
            raise RuntimeError(
                "metric instructions: callgrind wrote no count for the timed call; the worker "
                "must run under valgrind and this Python's ctypes must call through libffi"
            )
        if len(totals) > 1:
            raise RuntimeError(
                "metric instructions: the timed call itself calls C through libffi (ctypes or "
                "cffi), which is how perfguard marks the call for valgrind; count it as a "
                "command benchmark instead"
            )
        return totals[0]

    def _new_dumps(self) -> list[int]:
        totals = []
        while True:
            path = self.base.with_name(f"{self.base.name}.{self.dumps + 1}")
            if not path.exists():
                return totals
            totals.append(read_dump_total(path))
            path.unlink()
            self.dumps += 1


def _nothing() -> None:
    return None
