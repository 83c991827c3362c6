"""Score-P experiments: a folder of experiment folders, each holding CUBE profiles (``*.cubex``).

Read as Extra-P's CUBE reader reads them (the facts below are its rules, the code is ours):

* Profiles are the ``*.cubex`` files one level down (``DIR/mm.x1000y1z1.r1/profile.cubex``);
  names starting with a dot are not profiles.
* A folder's name carries the parameters: after the first ``.`` (the whole name without
  one) and before a trailing ``.rN`` (the repetition), names and numbers alternate:
  ``x1000y1z1``, ``p64.n1000``, ``x20,5.y20,5`` (a comma is a decimal point). Every folder
  must name the same parameters in the same order; parameters with one value in every
  folder are dropped.
* Profiles at the same point (``.r1``, ``.r2``, or several files in one folder) are
  repetitions.
* Call paths are the region names from a root of the call tree, joined by ``->``
  (``main->solve->MPI_Allreduce``); every metric at the top of the metric tree becomes a
  kernel (``time``, ``visits``, ``bytes_put``, hardware counters), with its unit.
* Values are exclusive by default (an inclusive metric's children are subtracted) or all
  inclusive; a metric missing from a profile has no values there.
* ``weak`` scaling reads a profile as the mean of its processes' (locations') values, one
  value per profile; ``weak_threaded`` does the same without the locations whose value is
  0 (threads that did not run the call path), unless all are 0; ``strong`` scaling sums
  the processes of a profile.  The processes are not repetitions: how they differ is the
  program's balance, not the noise of a measurement (read as repetitions, a call path run
  by one thread of four, exactly 0.7 f on average, was "O(1), 44% sure", SMAPE 46%).
* A call path that is not measured at every point joins its nearest ancestor that is:
  exclusive values are added to the ancestor's (the time spent there is the ancestor's own
  time at that point); with inclusive values it is dropped, the ancestor already holds it.
"""

from __future__ import annotations

import dataclasses
import re
import warnings
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import FormatError
from ..measurements import Kernel, MeasurementSet, Point
from ..numbers import counted
from ._common import build_set

__all__ = ["SCALINGS", "PROFILES", "folder_parameters", "is_experiment_directory", "load"]

SCALINGS = ("weak", "weak_threaded", "strong")
PROFILES = "*/[!.]*.cubex"
INSTALL_HINT = "reading Score-P/CUBE experiments needs pycubexr: pip install 'perfguard[cube]'"

_REPETITION = re.compile(r"\.r[0-9]+$")
_NUMBER = re.compile(r"([0-9.,]+)")
_UNITS = {"sec": "s"}

Values = dict[tuple[str, str], list[np.ndarray]]


def is_experiment_directory(path: Path) -> bool:
    """A folder with CUBE profiles in its subfolders."""
    return path.is_dir() and any(path.glob(PROFILES))


def folder_parameters(folder: str) -> list[tuple[str, float]]:
    """``mm.x1000y1z1.r1`` -> [("x", 1000.0), ("y", 1.0), ("z", 1.0)]; ValueError if none."""
    body = _REPETITION.sub("", folder)
    _, dot, rest = body.partition(".")
    tokens = _NUMBER.split(rest if dot else body)
    if tokens and tokens[-1] == "":
        tokens.pop()
    if len(tokens) < 2 or len(tokens) % 2 or not tokens[0]:
        raise ValueError(
            f"folder name {folder!r} does not name parameters and values; name the "
            "experiment folders like app.p64n1000.r1"
        )
    pairs = []
    for name, text in zip(tokens[::2], tokens[1::2]):
        try:
            pairs.append((name, float(text.replace(",", ".").rstrip("."))))
        except ValueError:
            raise ValueError(f"folder name {folder!r}: {text!r} is not a number") from None
    return pairs


def load(path: Path, scaling: str = "weak", inclusive: bool = False) -> MeasurementSet:
    """Read a folder of Score-P experiment folders into one measurement set."""
    if scaling not in SCALINGS:
        raise FormatError(f"unknown scaling {scaling!r}; choose {', '.join(SCALINGS)}", str(path))
    profiles = sorted(p for p in path.glob(PROFILES) if p.is_file())
    if not profiles:
        raise FormatError(
            "no Score-P experiment folders with *.cubex profiles in this folder", str(path)
        )
    parameters, points = _points(profiles, path)
    values: dict[tuple[str, str], dict[tuple[float, ...], list[np.ndarray]]] = defaultdict(dict)
    units: dict[tuple[str, str], str | None] = {}
    reader = _Reader(scaling, inclusive)
    for profile, at in zip(profiles, points):
        for key, vals in reader.read(profile).items():
            values[key].setdefault(at, []).extend(vals)
        units.update(reader.units)
    kernels = _common_tree(values, set(points), inclusive)
    mset = build_set(
        parameters,
        tuple(
            Kernel(
                name,
                metric,
                tuple(Point(at, tuple(v)) for at, v in sorted(by_at.items())),
                units.get((name, metric)),
            )
            for (name, metric), by_at in kernels.items()
        ),
        str(path),
    )
    notes = []
    idle = reader.idle & set(kernels)
    if idle and scaling == "weak":
        notes.append(
            f"{path}: locations that recorded 0 (threads or processes that did not run the "
            f"call path) are averaged in under --scaling weak, in {len(idle)} of its kernels; "
            "--scaling weak_threaded leaves them out, as Extra-P's option of that name does"
        )
    unprofiled = _without_profile(path, profiles)
    if unprofiled:
        more = f" and {len(unprofiled) - 5} more" if len(unprofiled) > 5 else ""
        notes.append(
            f"{path}: left out {counted(len(unprofiled), 'experiment folder')} without a "
            f"*.cubex profile ({', '.join(unprofiled[:5])}{more}): a job that failed or is "
            "still running?"
        )
    return dataclasses.replace(mset, notes=(*mset.notes, *notes)) if notes else mset


def _without_profile(path: Path, profiles: list[Path]) -> list[str]:
    """Experiment folders (named like the others, ``mm.x2000y1z1.r1``) that hold no profile."""
    read = {p.parent for p in profiles}
    out = []
    for folder in sorted(path.iterdir()):
        if not folder.is_dir() or folder.name.startswith(".") or folder in read:
            continue
        try:
            folder_parameters(folder.name)
        except ValueError:
            continue  # not an experiment folder (scripts, plots)
        out.append(folder.name)
    return out


def _points(profiles: list[Path], root: Path) -> tuple[list[str], list[tuple[float, ...]]]:
    """The varying parameters and each profile's point, from the folder names."""
    named = []
    for profile in profiles:
        try:
            named.append(folder_parameters(profile.parent.name))
        except ValueError as exc:
            raise FormatError(str(exc), str(profile.parent)) from None
    names = [n for n, _ in named[0]]
    for profile, pairs in zip(profiles, named):
        if [n for n, _ in pairs] != names:
            raise FormatError(
                f"names parameters {', '.join(n for n, _ in pairs)} but "
                f"{profiles[0].parent.name} names {', '.join(names)}; every experiment folder "
                "must name the same parameters in the same order",
                str(profile.parent),
            )
    table = np.array([[v for _, v in pairs] for pairs in named])
    varying = [i for i in range(len(names)) if len(set(table[:, i])) > 1]
    if not varying:
        raise FormatError(
            f"no parameter varies across the experiment folders ({', '.join(names)} are the "
            "same in all); name them like app.p64n1000.r1, app.p128n1000.r1",
            str(root),
        )
    return [names[i] for i in varying], [tuple(row[varying]) for row in table]


class _Reader:
    """Reads one profile at a time into per-(call path, metric) value arrays."""

    def __init__(self, scaling: str, inclusive: bool):
        self.scaling = scaling
        self.inclusive = inclusive
        self.units: dict[tuple[str, str], str | None] = {}
        self.idle: set[tuple[str, str]] = set()  # some locations recorded 0, some did not
        self.cubexr = _pycubexr()

    def read(self, profile: Path) -> Values:
        parser, missing, unsupported = self.cubexr
        out: Values = {}
        try:
            # a damaged archive makes tarfile warn (with pycubexr's source path) before the
            # error this reports in one line
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                with parser(str(profile)) as cube:
                    paths = dict(_callpaths(cube.get_root_cnodes()))
                    for metric in cube.get_metrics():
                        try:
                            data = cube.get_metric_values(metric=metric, cache=False)
                        except missing:
                            continue  # not measured in this profile, as Extra-P skips it
                        except unsupported:
                            raise FormatError(
                                f"metric {metric.name!r} has data type {metric.data_type!r}, "
                                "which is not a number per process",
                                str(profile),
                            ) from None
                        self._metric(cube, metric, data, paths, out)
        except FormatError:
            raise
        except Exception as exc:  # noqa: BLE001 - pycubexr's errors on a broken file vary
            why = " ".join(str(exc).split())  # pycubexr's messages span lines
            raise FormatError(
                f"not a readable CUBE profile ({type(exc).__name__}: {why})", str(profile)
            ) from None
        return out

    def _metric(
        self, cube: Any, metric: Any, data: Any, paths: dict[int, str], out: Values
    ) -> None:
        unit = _UNITS.get(metric.units, metric.units or None)
        for cnode_id in data.cnode_indices:
            cnode = cube.get_cnode(cnode_id)
            per_process = data.cnode_values(
                cnode,
                convert_to_exclusive=not self.inclusive,
                convert_to_inclusive=self.inclusive,
            )
            per_process = np.asarray(per_process.astype(float), dtype=float)
            key = (paths[cnode_id], metric.name)
            self.units[key] = unit
            if per_process.any() and not per_process.all():
                self.idle.add(key)
            if self.scaling == "strong":
                value = per_process.sum()
            elif self.scaling == "weak_threaded" and per_process.any():
                value = per_process[per_process != 0].mean()
            else:
                value = per_process.mean()
            out.setdefault(key, []).append(np.array([value]))


def _callpaths(roots: list[Any], prefix: str = "") -> Iterator[tuple[int, str]]:
    for cnode in roots:
        name = f"{prefix}->{cnode.region.name}" if prefix else cnode.region.name
        yield cnode.id, name
        yield from _callpaths(cnode.get_children(), name)


def _common_tree(
    values: dict[tuple[str, str], dict[tuple[float, ...], list[np.ndarray]]],
    points: set[tuple[float, ...]],
    inclusive: bool,
) -> dict[tuple[str, str], dict[tuple[float, ...], np.ndarray]]:
    """Kernels measured at every point; the others joined to their nearest such ancestor."""
    flat = {
        key: {at: np.concatenate(arrays) for at, arrays in by_at.items()}
        for key, by_at in values.items()
    }
    complete = {key: by_at for key, by_at in flat.items() if set(by_at) == points}
    partial = sorted((key for key in flat if key not in complete), key=lambda k: -k[0].count("->"))
    for name, metric in partial if not inclusive else ():
        parent = name
        while "->" in parent and (parent, metric) not in complete:
            parent = parent.rsplit("->", 1)[0]
        target = complete.get((parent, metric))
        if target is None:
            continue  # no ancestor measured everywhere: Extra-P drops it too
        for at, child in flat[(name, metric)].items():
            own = target[at]
            target[at] = own + (child if child.shape == own.shape else child.mean())
    return complete


def _pycubexr() -> tuple[Any, type[Exception], type[Exception]]:
    try:
        from pycubexr import CubexParser
        from pycubexr.utils.exceptions import MissingMetricError, UnsupportedMetricFormatError
    except ImportError:
        raise FormatError(INSTALL_HINT) from None
    return CubexParser, MissingMetricError, UnsupportedMetricFormatError
