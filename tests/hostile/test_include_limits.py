"""Includes that cannot be read, nest too deep or fan out too wide give one located
error, never a traceback."""
import os

import pytest

import circuitsim
from circuitsim.netlist import loader

TAIL = "V V1 a 0 V=1\nR R1 a 0 R=1\n.tran 1\n"


def _error(path):
    with pytest.raises(circuitsim.NetlistError) as exc:
        circuitsim.load(str(path)).prepare()
    return str(exc.value)


@pytest.mark.parametrize("name, expected", [
    ("loopa", "Symlink loop"), ("a\0b", "embedded null byte"),
    ("x" * 5000, "File name too long")])
def test_an_unreadable_include_name_is_located(tmp_path, name, expected):
    os.symlink("loopb", tmp_path / "loopa")
    os.symlink("loopa", tmp_path / "loopb")
    top = tmp_path / "top.cir"
    top.write_text(f'.include "{name}"\n' + TAIL)
    message = _error(top)
    assert expected in message and message.startswith(f"{top}:1:10:")


def test_include_nesting_is_limited(tmp_path):
    depth = loader.MAX_DEPTH + 50
    for i in range(depth):
        (tmp_path / f"c{i}.inc").write_text(f'.include "c{i + 1}.inc"\n')
    (tmp_path / f"c{depth}.inc").write_text("* leaf\n")
    (tmp_path / "top.cir").write_text('.include "c0.inc"\n' + TAIL)
    assert f"nested more than {loader.MAX_DEPTH} deep" in _error(tmp_path / "top.cir")


def test_the_number_of_files_read_is_limited(tmp_path):
    levels = 16                    # each file includes the next twice: 2^16 reads
    for i in range(levels):
        (tmp_path / f"f{i}.inc").write_text(f'.include "f{i + 1}.inc"\n' * 2)
    (tmp_path / f"f{levels}.inc").write_text("* leaf\n")
    (tmp_path / "top.cir").write_text('.include "f0.inc"\n' + TAIL)
    assert f"more than {loader.MAX_FILES} netlist files" in _error(tmp_path / "top.cir")
