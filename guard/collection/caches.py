"""The data cache sizes of the machine a run measured on: L1d, L2, L3 in bytes.

Stored in ``measurements@1`` as ``run.machine.caches`` (``{"L1d": 32768, "L2": ...}``) so
``check`` can tell where the working set of a ``time`` benchmark leaves a cache level.
Linux's ``/sys/devices/system/cpu/cpu0/cache`` is read first (what this core sees; on
virtual machines ``getconf`` may report the host's socket instead), ``getconf`` where
sysfs has none.  A level nothing reports is omitted, never guessed.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = ["LEVELS", "cache_sizes", "in_order", "recorded_caches", "measured_here"]

LEVELS = ("L1d", "L2", "L3")
SYSFS = Path("/sys/devices/system/cpu/cpu0/cache")
CPUINFO = Path("/proc/cpuinfo")
_GETCONF = {"L1d": "LEVEL1_DCACHE_SIZE", "L2": "LEVEL2_CACHE_SIZE", "L3": "LEVEL3_CACHE_SIZE"}
_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def cache_sizes(
    sysfs: Path = SYSFS, getconf: Callable[[str], str | None] | None = None
) -> dict[str, int]:
    """``{"L1d": bytes, "L2": bytes, "L3": bytes}``, levels nobody reports left out."""
    found = _from_sysfs(sysfs)
    if len(found) < len(LEVELS):
        ask = _getconf if getconf is None else getconf
        for level in LEVELS:
            if level not in found:
                size = _bytes(ask(_GETCONF[level]) or "")
                if size:
                    found[level] = size
    return {level: found[level] for level in LEVELS if level in found}


def measured_here(node: object, cpu: object) -> bool:
    """Whether another tool's file was written on this machine: its host name and its CPU's
    name are this machine's (py-cpuinfo's ``brand_raw`` is /proc/cpuinfo's model name).
    Its cache sizes are then read as ``perfguard run`` reads them, here, rather than as
    the tool reported them (py-cpuinfo has summed L1d and L2 over the cores and put L3
    below L2 on this project's machine)."""
    import platform

    if not isinstance(node, str) or node != platform.node() or not isinstance(cpu, str):
        return False
    try:
        text = CPUINFO.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "model name":
            return value.strip() == cpu.strip()
    return False


def recorded_caches(machine: Mapping[str, Any]) -> dict[str, int]:
    """The cache sizes a measurement file's ``run.machine`` holds (foreign or hand-written
    files: anything but a positive integer per known level is ignored)."""
    caches = machine.get("caches")
    if not isinstance(caches, Mapping):
        return {}
    return {
        level: int(caches[level])
        for level in LEVELS
        if isinstance(caches.get(level), int)
        and not isinstance(caches.get(level), bool)
        and caches[level] > 0
    }


def in_order(found: Mapping[str, object]) -> dict[str, int]:
    """Cache sizes another tool reported, as ``run.machine.caches``: each level a positive
    integer larger than the level below it, or left out (py-cpuinfo, which pytest-benchmark
    records, has put L3 below L2 on this project's machine)."""
    out: dict[str, int] = {}
    below = 0
    for level in LEVELS:
        size = _reported_bytes(found.get(level))
        if size > below:
            out[level] = below = size
    return out


def _reported_bytes(value: object) -> int:
    """An integer count of bytes, or py-cpuinfo's text (``"1 MiB"``, ``"256 KB"``); else 0."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, str):
        return 0
    number, _, unit = value.strip().partition(" ")
    scale = {"": 1, "B": 1, "KB": 1 << 10, "KIB": 1 << 10, "MB": 1 << 20, "MIB": 1 << 20}
    factor = scale.get(unit.strip().upper(), 0)
    return int(number) * factor if number.isdigit() else 0


def _from_sysfs(root: Path) -> dict[str, int]:
    found: dict[str, int] = {}
    try:
        indexes = sorted(root.glob("index*"))
    except OSError:
        return found
    for index in indexes:
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            size = _bytes((index / "size").read_text().strip())
        except OSError:
            continue
        if kind == "Instruction" or not size:
            continue
        name = "L1d" if level == "1" else f"L{level}"
        if name in LEVELS:
            found.setdefault(name, size)
    return found


def _bytes(text: str) -> int:
    """``"32K"`` / ``"1M"`` / ``"1048576"`` in bytes; 0 for anything else."""
    text = text.strip().upper()
    unit = text[-1:] if text[-1:] in _UNITS else ""
    digits = text[: len(text) - len(unit)]
    return int(digits) * _UNITS[unit] if digits.isdigit() else 0


def _getconf(name: str) -> str | None:
    try:
        done = subprocess.run(
            ["getconf", name], capture_output=True, text=True, timeout=5, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout.strip() if done.returncode == 0 else None
