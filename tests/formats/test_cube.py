"""Score-P experiments as CUBE profiles: folder names, call paths, metrics, scaling, the CLI.

The profiles are written by ``cube_writer`` (our own writer of the CUBE 4 layout) and read
through pycubexr, the reader the ``cube`` extra installs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from cube_writer import CubeMetric, write_cubex
from support import COLUMNS, perfguard, perfguard_process

from guard import formats
from guard.errors import FormatError, UsageError
from guard.formats.cube import folder_parameters

pytest.importorskip("pycubexr")

TREE = {"main": {"init": {}, "solve": {"MPI_Allreduce": {}}}}
METRICS = [
    CubeMetric("time", "INCLUSIVE"),
    CubeMetric("visits", "EXCLUSIVE", "UINT64", "occ"),
]
PROCESSES = (2, 4, 8, 16, 32)
KERNELS = ["main", "main->init", "main->solve", "main->solve->MPI_Allreduce"]


def exclusive_time(p: int, repetition: int) -> dict[str, np.ndarray]:
    """Each process's own time: init constant, solve 1/p, the collective log p (skewed)."""
    ranks = np.arange(p)
    return {
        "main": np.full(p, 0.1),
        "main->init": np.full(p, 0.2),
        "main->solve": 1.0 / p + 0.01 * repetition + 0.001 * ranks,
        "main->solve->MPI_Allreduce": 1e-3 * np.log2(p) * (1 + 0.01 * ranks),
    }


def inclusive(excl: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    incl = dict(excl)
    incl["main->solve"] = excl["main->solve"] + excl["main->solve->MPI_Allreduce"]
    incl["main"] = excl["main"] + excl["main->init"] + incl["main->solve"]
    return incl


def experiment(root: Path, processes=PROCESSES, repetitions=(1, 2), tree=TREE) -> Path:
    """app.p{p}n100.r{r}/profile.cubex: p varies, n is the same everywhere."""
    for p in processes:
        for r in repetitions:
            excl = exclusive_time(p, r)
            values = {
                "time": {k: list(v) for k, v in inclusive(excl).items()},
                "visits": {
                    "main": [1] * p,
                    "main->init": [1] * p,
                    "main->solve": [10] * p,
                    "main->solve->MPI_Allreduce": [10 * p] * p,
                },
            }
            write_cubex(root / f"app.p{p}n100.r{r}" / "profile.cubex", tree, METRICS, values, p)
    return root


@pytest.mark.parametrize(
    ("folder", "expected"),
    [
        ("mm.x1000y1z1.r1", [("x", 1000), ("y", 1), ("z", 1)]),
        ("mm.x1000y1z1.r12", [("x", 1000), ("y", 1), ("z", 1)]),
        ("x10y1z1", [("x", 10), ("y", 1), ("z", 1)]),
        ("mm.x1.1y1.1z1.1", [("x", 1.1), ("y", 1.1), ("z", 1.1)]),
        ("mm.x20,5.y20,5.z1,5.r1", [("x", 20.5), ("y", 20.5), ("z", 1.5)]),
        ("mm.x21.5,y21,5,z1.15.r1", [("x", 21.5), ("y", 21.5), ("z", 1.15)]),
        ("lulesh.p64.size30.r3", [("p", 64), ("size", 30)]),
    ],
)
def test_folder_names_carry_the_parameters(folder: str, expected: list) -> None:
    assert folder_parameters(folder) == [(n, float(v)) for n, v in expected]


@pytest.mark.parametrize("folder", ["scorep-", "mm.64x", "mm.x1y", "mm.x1.2.3.r1", "mm.r1"])
def test_folder_names_without_parameters_are_refused(folder: str) -> None:
    with pytest.raises(ValueError, match=repr(folder)):
        folder_parameters(folder)


def test_weak_scaling_reads_a_profile_as_the_mean_of_its_processes(tmp_path: Path) -> None:
    mset = formats.load(experiment(tmp_path))
    assert mset.parameters == ("p",)  # n is 100 in every folder: dropped
    assert [k.key for k in mset.kernels] == [(k, "time") for k in KERNELS] + [
        (k, "visits") for k in KERNELS
    ]
    solve = mset.kernel("main->solve", "time")
    assert [p.at for p in solve.points] == [(float(p),) for p in PROCESSES]
    at4 = solve.points[1]
    # exclusive: the collective's time is not in solve's; .r1 then .r2, 4 processes each,
    # one value a profile (as Extra-P's weak scaling: the processes are not repetitions)
    expected = [exclusive_time(4, r)["main->solve"].mean() for r in (1, 2)]
    np.testing.assert_allclose(sorted(at4.values), sorted(expected), rtol=1e-12)
    assert solve.unit == "s" and mset.kernel("main", "visits").unit == "occ"
    visits = mset.kernel("main->solve->MPI_Allreduce", "visits")
    assert [p.values[0] for p in visits.points] == [10.0 * p for p in PROCESSES]


def test_strong_scaling_sums_the_processes_of_each_profile(tmp_path: Path) -> None:
    mset = formats.load(experiment(tmp_path), scaling="strong")
    collective = mset.kernel("main->solve->MPI_Allreduce", "time")
    for point, p in zip(collective.points, PROCESSES):
        total = exclusive_time(p, 1)["main->solve->MPI_Allreduce"].sum()
        np.testing.assert_allclose(point.values, [total, total], rtol=1e-12)


def test_weak_threaded_leaves_out_locations_that_recorded_zero(tmp_path: Path) -> None:
    """As Extra-P's weak_threaded: threads that never ran a call path are left out of the
    mean; weak averages them in."""
    for p in PROCESSES:
        per_thread = [float(p), 0.0, float(p) * 1.01, 0.0]
        values = {"time": {"main": per_thread}, "visits": {"main": [0, 0, 0, 0]}}
        write_cubex(tmp_path / f"omp.t{p}.r1" / "profile.cubex", {"main": {}}, METRICS, values, 4)
    weak = formats.load(tmp_path).kernel("main", "time").points[0].values
    threaded = formats.load(tmp_path, scaling="weak_threaded")
    assert weak == pytest.approx((1.005,))
    assert threaded.kernel("main", "time").points[0].values == pytest.approx((2.01,))
    assert threaded.kernel("main", "visits").points[0].values == (0.0,)  # all 0: kept


def test_model_points_a_threaded_folder_at_weak_threaded(tmp_path: Path) -> None:
    """Threads that never ran a call path record 0; read weak they are averaged in, and
    model says which option leaves them out."""
    from guard.app.model import ModelRequest, model

    for p in PROCESSES:
        per_thread = [float(p), 0.0, float(p) * 1.01, 0.0]
        values = {"time": {"main": per_thread}, "visits": {"main": [1, 1, 1, 1]}}
        write_cubex(tmp_path / f"omp.t{p}.r1" / "profile.cubex", {"main": {}}, METRICS, values, 4)
    (note,) = model(ModelRequest((tmp_path,))).notes
    assert "are averaged in under --scaling weak, in 1 of its kernels" in note
    assert "--scaling weak_threaded leaves them out" in note
    assert model(ModelRequest((tmp_path,), scaling="weak_threaded")).notes == ()


def test_inclusive_values_when_asked(tmp_path: Path) -> None:
    from guard.formats import cube

    mset = cube.load(experiment(tmp_path), inclusive=True)
    main = mset.kernel("main", "time").points[0]  # p = 2
    expected = [inclusive(exclusive_time(2, r))["main"].mean() for r in (1, 2)]
    np.testing.assert_allclose(main.values, expected, rtol=1e-12)


def test_a_call_path_missing_at_some_points_joins_its_parent(tmp_path: Path) -> None:
    """Exclusive: the missing path's time is added to its parent's; inclusive: dropped."""
    from guard.formats import cube

    experiment(tmp_path, processes=(2, 4, 8, 16))
    tree = {"main": {"init": {}, "solve": {"MPI_Allreduce": {}, "MPI_Wait": {}}}}
    p = 32
    excl = exclusive_time(p, 1)
    excl["main->solve->MPI_Wait"] = np.full(p, 0.5)
    incl = inclusive(excl)
    incl["main->solve"] = incl["main->solve"] + 0.5
    incl["main"] = incl["main"] + 0.5
    values = {"time": {k: list(v) for k, v in incl.items()}}
    write_cubex(tmp_path / "app.p32n100.r1" / "profile.cubex", tree, METRICS, values, p)

    mset = cube.load(tmp_path)
    names = {k.name for k in mset.kernels}
    assert "main->solve->MPI_Wait" not in names
    solve_at_32 = mset.kernel("main->solve", "time").points[-1]
    np.testing.assert_allclose(solve_at_32.values, [(excl["main->solve"] + 0.5).mean()], rtol=1e-12)
    # visits were not recorded at p = 32 (the metric has no data there): no kernel has them
    assert all(k.metric == "time" for k in mset.kernels)
    inclusive_set = cube.load(tmp_path, inclusive=True)
    assert {k.name for k in inclusive_set.kernels} == names


def test_folders_naming_other_parameters_are_refused(tmp_path: Path) -> None:
    experiment(tmp_path, processes=(2, 4))
    write_cubex(tmp_path / "app.q8n100.r1" / "profile.cubex", TREE, METRICS, {}, 8)
    with pytest.raises(FormatError, match=r"app\.q8n100\.r1: names parameters q, n but"):
        formats.load(tmp_path)


def test_a_broken_profile_is_named(tmp_path: Path) -> None:
    experiment(tmp_path, processes=(2, 4))
    broken = tmp_path / "app.p8n100.r1" / "profile.cubex"
    broken.parent.mkdir()
    broken.write_bytes(b"not a tar archive")
    with pytest.raises(FormatError, match=r"profile\.cubex: not a readable CUBE profile"):
        formats.load(tmp_path)


def test_a_folder_without_profiles_and_scaling_on_a_file(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="is a directory"):
        formats.load(tmp_path)
    text = tmp_path / "m.txt"
    text.write_text("PARAMETER n\nPOINTS 1 2 3 4 5\nDATA 1\nDATA 2\nDATA 3\nDATA 4\nDATA 5\n")
    with pytest.raises(UsageError, match="--scaling weak_threaded applies to folders"):
        formats.load(text, scaling="weak_threaded")  # a file takes strong only (a conversion)
    with pytest.raises(UsageError, match="write --scaling strong"):
        experiment(tmp_path, processes=(2, 4))
        formats.load(tmp_path, scaling="strong=p")  # a folder sums its processes already


def perfguard_without(module: str, *args: str | Path) -> subprocess.CompletedProcess[str]:
    """perfguard in a fresh interpreter where ``import module`` fails."""
    code = (
        f"import sys; sys.modules[{module!r}] = None; "
        "from guard.cli import main; sys.exit(main(sys.argv[1:]))"
    )
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "COLUMNS": COLUMNS},
    )


def test_model_and_check_read_the_folder(tmp_path: Path) -> None:
    root = experiment(tmp_path / "exp")
    done = perfguard("model", root, "--json")
    assert done.returncode == 0, done.stderr
    models = {(m["kernel"], m["metric"]): m for m in json.loads(done.stdout)["models"]}
    assert set(models) >= {(k, "time") for k in KERNELS}
    # per process, the collective grows like log p and solve shrinks (not a growing class)
    assert "log" in models[("main->solve->MPI_Allreduce", "time")]["complexity"]
    assert models[("main->solve", "time")]["complexity"] == "O(1)"
    strong = perfguard("model", root, "--json", "--scaling", "strong")
    assert strong.returncode == 0, strong.stderr
    summed = {(m["kernel"], m["metric"]): m for m in json.loads(strong.stdout)["models"]}
    assert summed[("main->init", "time")]["complexity"] == "O(p)"
    check = perfguard("check", root, "--expect", "main->solve->MPI_Allreduce=<= p")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "main->solve->MPI_Allreduce" in check.stdout


def test_without_pycubexr_the_error_says_what_to_install(tmp_path: Path) -> None:
    root = experiment(tmp_path / "exp", processes=(2, 4))
    done = perfguard_without("pycubexr", "model", root)
    assert done.returncode == 2
    assert "pip install 'perfguard[cube]'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_folder_at_process_count_zero_is_left_out_with_a_note(tmp_path: Path) -> None:
    # one experiment folder renamed to p0: every kernel was skipped ("non-positive parameter
    # values at (0)", one line each) and the folder failed whole
    root = experiment(tmp_path / "exp")
    (root / "app.p8n100.r1").rename(root / "app.p0n100.r1")
    done = perfguard("model", root)
    assert done.returncode == 0, done.stderr
    assert "at a parameter value of 0 or less, or not finite (main at p=0" in done.stderr


def test_a_profile_with_bytes_before_its_archive_is_one_line(tmp_path: Path) -> None:
    # three bytes (a BOM) before the tar: pycubexr's tarfile warned in two lines, with the
    # library's source path, before perfguard's error
    root = experiment(tmp_path / "exp")
    profile = root / "app.p8n100.r1" / "profile.cubex"
    profile.write_bytes(b"\xef\xbb\xbf" + profile.read_bytes())
    done = perfguard_process("model", root)  # a real process: warnings reach its stderr
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "not a readable CUBE profile" in done.stderr


def test_an_experiment_folder_without_a_profile_is_left_out_with_a_note(tmp_path: Path) -> None:
    # a job that failed left its folder empty: the set was modelled on the others, silently
    root = experiment(tmp_path / "exp")
    (root / "app.p8n100.r1" / "profile.cubex").unlink()
    (root / "plots").mkdir()  # not an experiment folder: no note
    mset = formats.load(root)
    counts = {p.at[0]: len(p.values) for p in mset.kernel("main", "time").points}
    assert counts[8.0] == 1 and counts[16.0] == 2  # one repetition (.r2) at p=8, not two
    (note,) = mset.notes
    assert "left out 1 experiment folder without a *.cubex profile (app.p8n100.r1)" in note


def test_a_broken_profiles_message_is_one_line_of_words(tmp_path: Path) -> None:
    experiment(tmp_path, processes=(2, 4))
    broken = tmp_path / "app.p8n100.r1" / "profile.cubex"
    broken.parent.mkdir()
    broken.write_bytes(b"not a tar archive")
    with pytest.raises(FormatError) as info:
        formats.load(tmp_path)
    assert "\n" not in str(info.value) and "\\n" not in str(info.value)
