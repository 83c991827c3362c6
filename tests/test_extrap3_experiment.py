"""Extra-P 3's binary experiments, written here record by record (our own writer).

The files hold generators and saved models between the points; the reader must step over
both generator layouts (with and without the newer strategy block, which also gives each
saved model one more number) to reach the points after them.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from guard import formats
from guard.cli import main
from guard.errors import FormatError


class Writer:
    def __init__(self, order: str):
        self.order = order
        self.out = bytearray(struct.pack(order + "h", 1))

    def string(self, text: str) -> Writer:
        raw = text.encode()
        self.out += struct.pack(self.order + "I", len(raw)) + raw
        return self

    def int(self, *values: int) -> Writer:
        for v in values:
            self.out += struct.pack(self.order + "q", v)
        return self

    def number(self, *values: float) -> Writer:
        for v in values:
            self.out += struct.pack(self.order + "d", v)
        return self

    def compound_term(self, coefficient: float, exponent: float) -> Writer:
        self.string("CompoundTerm").number(coefficient).int(1)
        return self.string("SimpleTerm").string("polynomial").number(exponent)

    def function(self) -> Writer:
        self.string("SingleParameterFunction").number(1.5).int(1)
        return self.compound_term(2.0, 1.0)

    def generator(self, newer: bool) -> Writer:
        self.string("SingleParameterSimpleModelGenerator").string("Default")
        self.string("CROSSVALIDATION_NONE").number(0.05).string("GENERATE_MODEL_MEAN")
        if newer:
            self.int(5).string("FIRST_POINTS_FOUND").int(0, 0).string("INCREASING_COST")
        self.int(1).compound_term(1.0, 0.5)  # one building block
        return self.int(3)  # maximum term count

    def model(self, newer: bool) -> Writer:
        self.string("Model").int(0, 1, 0).function()
        for _ in range(6):  # confidence, error cone and noise intervals: two functions each
            self.string("Function")
        self.number(0.1, 0.9, 1.0, *([0.2] if newer else []))
        self.int(1, 7)  # one comment id
        return self.int(1).string("p").int(1).number(1.0, 2.0)


def experiment(path: Path, order: str = "<", newer: bool = True) -> Path:
    w = Writer(order).string("EXTRAP_EXPERIMENT").string("1.0")
    w.string("Parameter").int(0).string("p")
    w.string("Metric").int(0).string("time").string("s")
    w.string("Region").int(0).string("main").string("a.c").int(1)
    w.string("Region").int(1).string("solve").string("a.c").int(9)
    w.string("Region").int(2).string("solve").string("b.c").int(3)  # same name: "solve #1"
    w.string("Callpath").int(0, 0, -1)
    w.string("Callpath").int(1, 1, 0)
    w.string("Callpath").int(2, 2, 0)
    w.string("ModelComment").int(7).string("a comment")
    sizes = [8.0, 16, 32, 64]
    for c, p in enumerate(sizes):
        w.string("Coordinate").int(c, 1).string("p").number(p)
    w.generator(newer)
    w.model(newer)
    for c, p in enumerate(sizes):
        for callpath, value in ((1, 3 * p), (2, p * p)):
            w.string("ExperimentPoint").int(c, 5)
            w.number(value, 0, 0, 0.1, value + 1, 0, 0, value - 1, value + 2).int(0, callpath)
    path.write_bytes(bytes(w.out))
    return path


@pytest.mark.parametrize("order", ["<", ">"])
@pytest.mark.parametrize("newer", [True, False])
def test_points_are_read_past_generators_and_models(
    tmp_path: Path, order: str, newer: bool
) -> None:
    mset = formats.load(experiment(tmp_path / "exp", order, newer))
    assert mset.parameters == ("p",)
    assert [(k.name, k.metric) for k in mset.kernels] == [
        ("main->solve", "time"),
        ("main->solve #1", "time"),
    ]
    solve = {pt.at: pt.values for pt in mset.kernel("main->solve", "time").points}
    assert solve == {(8.0,): (24.0,), (16.0,): (48.0,), (32.0,): (96.0,), (64.0,): (192.0,)}
    other = {pt.at: pt.values for pt in mset.kernel("main->solve #1", "time").points}
    assert other[(64.0,)] == (4096.0,)  # the mean, one value: the file keeps no repetitions


def test_model_reads_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["model", str(experiment(tmp_path / "exp"))]) == 0
    out = capsys.readouterr().out
    assert "main->solve #1" in out and "O(p^2)" in out


def test_a_cut_file_names_the_byte(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    whole = experiment(tmp_path / "exp").read_bytes()
    cut = tmp_path / "cut"
    cut.write_bytes(whole[:-20])
    with pytest.raises(FormatError, match=r"cut: byte \d+: the file ends inside a record"):
        formats.load(cut)
    assert main(["model", str(cut)]) == 2
    err = capsys.readouterr().err
    assert "the file ends inside a record" in err and "Traceback" not in err


def test_an_unknown_record_is_named(tmp_path: Path) -> None:
    path = experiment(tmp_path / "exp")
    path.write_bytes(path.read_bytes() + bytes(Writer("<").string("Gadget").out[2:]))
    with pytest.raises(FormatError, match="unknown record 'Gadget'"):
        formats.load(path)


def test_format_option_is_refused(tmp_path: Path) -> None:
    from guard.errors import UsageError

    with pytest.raises(UsageError, match="is an Extra-P 3 experiment"):
        formats.load(experiment(tmp_path / "exp"), format="text")
