"""hyperfine's JSON: parameter scans and lists, commands as kernels, errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from readers import (
    DATA,
    FIXTURE_KERNELS,
    all_values,
    assert_cli_names_file_and_line,
    points,
    raw,
    values,
    write,
)

from guard import formats
from guard.errors import FormatError
from guard.measurements import MeasurementSet


def test_hyperfine_parameter_scan() -> None:
    mset = formats.load(DATA / "hyperfine_scan.json")
    assert mset.parameters == ("n",)
    assert points(mset, "sort -n data_{n}.txt") == [(1000.0 * k,) for k in range(1, 7)]
    first = (0.003452129059, 0.00364684049, 0.003899435405, 0.003729887548, 0.003366991594)
    assert values(mset, "sort -n data_{n}.txt", (1000,)) == first
    assert values(mset, "sort -n data_{n}.txt", (6000,))[-1] == 0.02028205003
    assert all_values(mset) == sorted(
        t for r in raw("hyperfine_scan.json")["results"] for t in r["times"]
    )
    assert mset.run.commit is None and dict(mset.run.machine) == {}


def test_hyperfine_parameter_list_with_a_text_parameter() -> None:
    mset = formats.load(DATA / "hyperfine_list.json")
    assert mset.parameters == ("n",)
    sizes = [(1000.0,), (2000.0,), (4000.0,), (8000.0,), (16000.0,)]
    for name, _ in FIXTURE_KERNELS["hyperfine_list.json"]:
        assert points(mset, name) == sizes
    assert values(mset, "./sorter --size {n} [impl=merge]", (1000,)) == (
        0.002064974044,
        0.002193734397,
        0.002063971605,
    )
    assert values(mset, "python3 sorter.py --algo quick --size {n}", (16000,)) == (
        0.6082526392,
        0.5959001328,
        0.6207453957,
    )
    assert all_values(mset) == sorted(
        t for r in raw("hyperfine_list.json")["results"] for t in r["times"]
    )


def hf_text(*rows: str) -> str:
    """A hyperfine file whose results[i] starts on line 3 + (lines before it)."""
    return '{\n "results": [\n' + ",\n".join(rows) + "\n ]\n}\n"


def hf_row(command: str, parameters: object, times: object = (1.0, 1.5), **extra: object) -> str:
    row = {"command": command, "mean": 1.25, "times": times, "parameters": parameters, **extra}
    return "  " + json.dumps(row)


def parse_hyperfine(*rows: str) -> MeasurementSet:
    return formats.parse(hf_text(*rows), "h.json", "hyperfine")


def test_hyperfine_values_that_occur_by_coincidence_stay() -> None:
    mset = parse_hyperfine(
        *(hf_row(f"./bench --size {n} --threads 1", {"n": str(n)}) for n in (1, 2, 10))
    )
    assert [k.name for k in mset.kernels] == ["./bench --size {n} --threads 1"]
    assert points(mset, mset.kernels[0].name) == [(1.0,), (2.0,), (10.0,)]


def test_hyperfine_digits_inside_other_numbers_are_not_parameters() -> None:
    mset = parse_hyperfine(
        hf_row("sleep 0.1; cat f_10.txt | head -1", {"n": "1"}),
        hf_row("sleep 0.1; cat f_10.txt | head -10", {"n": "10"}),
        hf_row("sleep 0.1; cat f_10.txt | head -0.5", {"n": "0.5"}),
    )
    assert [k.name for k in mset.kernels] == ["sleep 0.1; cat f_10.txt | head -{n}"]


def test_hyperfine_a_value_glued_to_other_digits_still_makes_one_kernel() -> None:
    """`-P n 1 3 'python3 q.py {n}00'`: the value stands alone nowhere, and "3" stands alone
    in "python3"; one kernel, whose template every command fills, not three of one size."""
    mset = parse_hyperfine(*(hf_row(f"python3 q.py {n}00", {"n": str(n)}) for n in (1, 2, 3)))
    assert [k.name for k in mset.kernels] == ["python3 q.py {n}00"]
    assert points(mset, "python3 q.py {n}00") == [(1.0,), (2.0,), (3.0,)]
    both = parse_hyperfine(*(hf_row(f"run -n{n}0 --log {n}.txt", {"n": str(n)}) for n in (2, 4, 8)))
    assert [k.name for k in both.kernels] == ["run -n{n}0 --log {n}.txt"]


def test_hyperfine_two_commands_one_with_a_glued_value_are_two_kernels() -> None:
    # -L n 1000,...,16000 'seq {n}' 'seq {n}0': the second command came out as five kernels
    # of one size each ("only 1 distinct point"), exit 2 (a real-tools probe)
    sizes = (1000, 2000, 4000, 8000, 16000)
    rows = [hf_row(f"seq {n}", {"n": str(n)}) for n in sizes]
    rows += [hf_row(f"seq {n}0", {"n": str(n)}) for n in sizes]
    mset = parse_hyperfine(*rows)
    assert [k.name for k in mset.kernels] == ["seq {n}", "seq {n}0"]
    for name in ("seq {n}", "seq {n}0"):
        assert points(mset, name) == [(float(n),) for n in sizes]
    prefixed = parse_hyperfine(*rows[:5], *(hf_row(f"seq 1{n}", {"n": str(n)}) for n in sizes))
    assert [k.name for k in prefixed.kernels] == ["seq {n}", "seq 1{n}"]


def test_hyperfine_a_command_timed_at_0_everywhere_is_left_out_with_a_note() -> None:
    # hyperfine subtracts the shell's start-up: `seq {n}` read 0.0 s at every size and
    # passed "<= 1" as O(1), silently (a real-tools probe)
    zero = [hf_row(f"seq {n}", {"n": str(n)}, times=(0.0, 0.0)) for n in (1, 2, 4, 8, 16)]
    real = [hf_row(f"sort -n {n}", {"n": str(n)}) for n in (1, 2, 4, 8, 16)]
    mset = parse_hyperfine(*zero, *real)
    assert [k.name for k in mset.kernels] == ["sort -n {n}"]
    (note,) = mset.notes
    assert "left out seq {n}, 0 s at every size" in note and "-N (--shell=none)" in note
    with pytest.raises(FormatError, match="holds no kernels: left out seq {n}, 0 s at every"):
        from guard.app.inputs import require_kernels

        require_kernels(parse_hyperfine(*zero), Path("h.json"))


def test_hyperfine_two_numeric_parameters_and_numbers_as_json() -> None:
    mset = parse_hyperfine(
        hf_row("mm 64 8", {"m": "8", "n": "64"}),
        hf_row("mm 64 64", {"m": 64, "n": 64}),
        hf_row("mm 128 8", {"m": "8", "n": "128"}),
    )
    assert mset.parameters == ("m", "n")
    assert [k.name for k in mset.kernels] == ["mm {n} {m}"]
    assert points(mset, "mm {n} {m}") == [(8.0, 64.0), (64.0, 64.0), (8.0, 128.0)]


def test_hyperfine_text_parameters_label_kernels_only_when_needed() -> None:
    rows = [
        hf_row(f"./{impl}-sort {n}", {"impl": impl, "n": str(n)})
        for impl in ("gnu", "busybox")
        for n in (10, 20)
    ]
    assert [k.name for k in parse_hyperfine(*rows).kernels] == [
        "./gnu-sort {n}",
        "./busybox-sort {n}",
    ]
    rows = [
        hf_row(f"./sort {n}", {"impl": impl, "n": str(n), "opt": "O2"})
        for impl in ("gnu", "busybox")
        for n in (10, 20)
    ]
    assert [k.name for k in parse_hyperfine(*rows).kernels] == [
        "./sort {n} [impl=gnu,opt=O2]",
        "./sort {n} [impl=busybox,opt=O2]",
    ]


def test_hyperfine_command_names_without_the_value_share_a_kernel() -> None:
    mset = parse_hyperfine(*(hf_row("sort", {"n": str(n)}) for n in (10, 20, 40)))
    assert [k.name for k in mset.kernels] == ["sort"]
    assert len(mset.kernels[0].points) == 3


def test_hyperfine_without_times_uses_the_mean() -> None:
    mset = parse_hyperfine(
        '  {"command": "sort 10", "mean": 0.25, "parameters": {"n": "10"}}',
        '  {"command": "sort 20", "mean": 0.5, "times": null, "parameters": {"n": "20"}}',
    )
    assert [p.values for p in mset.kernels[0].points] == [(0.25,), (0.5,)]


HYPERFINE_ERRORS = [
    (
        [hf_row("sort 1", {"n": "1"}), '  {"command": "sort", "mean": 1.0, "times": [1.0]}'],
        4,
        'results[1]: no "parameters"; run hyperfine with --parameter-scan or -L',
    ),
    (
        [
            hf_row("sort 1", {"n": "1"}),
            hf_row("sort 2", {"n": "2"}),
            '  {"command": "sort big",\n   "times": [1.0],\n   "parameters": {\n'
            '    "n": "big"\n   }\n  }',
        ],
        8,
        'results[2].parameters.n: expected a number, got "big" (results[0] has a number)',
    ),
    (
        [hf_row("sort 1", {"n": "1"}, [1.0, None])],
        3,
        "results[0].times[1]: expected a number, got null",
    ),
    (
        [hf_row("sort 1", {"n": "1"}), hf_row("sort 2", {"k": "2"})],
        4,
        "results[1].parameters: names k but results[0] names n",
    ),
    (
        [hf_row("sort-a", {"impl": "a"}), hf_row("sort-b", {"impl": "b"})],
        3,
        "results[0].parameters: no parameter is a number",
    ),
    (
        [hf_row("sort 1", {"n": ["1"]})],
        3,
        'results[0].parameters.n: expected a string, got ["1"]',
    ),
    (['  {"mean": 1.0, "parameters": {"n": "1"}}'], 3, 'results[0]: missing "command"'),
    (['  {"command": "s 1", "parameters": {"n": "1"}}'], 3, 'results[0]: missing "mean"'),
    ([], 2, "results: no results"),
]


@pytest.mark.parametrize(("rows", "line", "fragment"), HYPERFINE_ERRORS)
def test_hyperfine_errors_name_file_and_line(
    tmp_path: Path, rows: list[str], line: int, fragment: str
) -> None:
    path = write(tmp_path, hf_text(*rows))
    with pytest.raises(FormatError) as info:
        formats.load(path, "hyperfine")
    assert str(info.value).startswith(f"{path}:{line}: ")
    assert fragment in str(info.value)
    assert info.value.line == line


def test_cli_bad_file_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    assert_cli_names_file_and_line(tmp_path, hf_text(*HYPERFINE_ERRORS[1][0]), 8)


def test_a_scan_from_zero_leaves_the_zero_out_with_a_note() -> None:
    # -P n 0 8: the whole kernel was skipped ("non-positive parameter values")
    mset = parse_hyperfine(*(hf_row(f"./fill {n}", {"n": str(n)}) for n in (0, 4, 8)))
    assert [k.name for k in mset.kernels] == ["./fill {n}"]
    assert [p.at for p in mset.kernels[0].points] == [(4.0,), (8.0,)]
    assert mset.notes == (
        "h.json: left out 1 benchmark at a size of 0 or less (./fill {n} at n=0): the classes "
        "are functions of positive sizes, so those points cannot be modelled",
    )


def test_runs_that_exited_non_zero_are_read_with_a_note() -> None:
    # hyperfine -i keeps failed runs: their times were modelled without a word
    rows = [
        '  {"command": "./grep 1", "times": [0.1, 0.1], "exit_codes": [0, 0], '
        '"parameters": {"n": "1"}}',
        '  {"command": "./grep 2", "times": [0.2, 0.2], "exit_codes": [0, 2], '
        '"parameters": {"n": "2"}}',
        '  {"command": "./grep 4", "times": [0.1, 0.1], "exit_codes": [1, 1], '
        '"parameters": {"n": "4"}}',
    ]
    mset = parse_hyperfine(*rows)
    assert [p.at for p in mset.kernels[0].points] == [(1.0,), (2.0,), (4.0,)]
    assert mset.notes == (
        "h.json: ./grep {n} exited non-zero at n=2 (exit code 2), n=4 (exit code 1); "
        "hyperfine -i timed those runs as they are, so check that they did the work",
    )
    assert parse_hyperfine(rows[0]).notes == ()  # all zero: nothing to say
    # and a run error, so check cannot pass the time of a failure (it read O(1), pass)
    (error,) = mset.run.errors
    assert (error.benchmark, error.kind, dict(error.at or {})) == (
        "./grep {n}",
        "crash",
        {"n": 2.0},
    )
    assert "exit code 2" in error.message
    assert parse_hyperfine(rows[0]).run.errors == ()
    from guard.checking.check import check

    (v,) = check(mset).verdicts
    assert v.verdict == "error" and check(mset).status == "error"
