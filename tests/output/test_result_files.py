"""Result files the neighbouring tools read: MATLAB v5, the Modelica tools' MAT v4 result
layout, CSV with units in the header; each read back exactly, by circuitsim and by a
reader written here from the formats' definitions (not from circuitsim's writer)."""
import struct

import numpy as np
import pytest
import scipy.io

from circuitsim import cli
from circuitsim.output import matfile
from circuitsim.output.results import Result

from helpers import netlist_path


@pytest.fixture(scope="module")
def dcmotor(tmp_path_factory):
    """The DC motor's results (the CSV written by the command line, read back)."""
    folder = tmp_path_factory.mktemp("dcmotor")
    assert cli.main(["run", str(netlist_path("dcmotor")), "--out", str(folder / "r.csv"), "--csv-units",
                     "--quiet"]) == 0
    return Result.read(folder / "r.csv"), folder


def mat_v4(path) -> dict:
    """The matrices of a MAT v4 file, read from its bytes: per matrix a header of five
    int32 (type MOPT, rows, columns, imaginary flag, name length), the name, then the
    values column by column (P: 0 float64, 1 float32, 2 int32, 3 int16, 4 uint16,
    5 uint8; T = 1 marks text)."""
    kinds = {0: "<f8", 1: "<f4", 2: "<i4", 3: "<i2", 4: "<u2", 5: "<u1"}
    data = path.read_bytes()
    at, out = 0, {}
    while at < len(data):
        mopt, rows, cols, imag, namelen = struct.unpack_from("<5i", data, at)
        at += 20
        assert mopt // 1000 == 0 and imag == 0          # little endian, real
        name = data[at:at + namelen - 1].decode()
        at += namelen
        dtype = np.dtype(kinds[(mopt // 10) % 10])
        count = rows * cols
        values = np.frombuffer(data, dtype, count, at).reshape(cols, rows).T
        at += count * dtype.itemsize
        if mopt % 10 == 1:                                # text: a grid of characters
            values = np.vectorize(lambda c: chr(int(c)))(values)
        out[name] = values
    return out


def test_modelica_result_file_reads_back_exactly_through_a_v4_reader(dcmotor, capsys):
    res, folder = dcmotor
    path = folder / "r_modelica.mat"
    assert cli.main(["run", str(netlist_path("dcmotor")), "--out", str(path),
                     "--mat-format", "modelica", "--quiet"]) == 0
    mats = mat_v4(path)
    # Aclass holds one string per row; name and description one per column (binTrans)
    assert strings(mats["Aclass"]) == ["Atrajectory", "1.1", "", "binTrans"]
    names = strings(mats["name"].T)
    descriptions = strings(mats["description"].T)
    assert names == ["time"] + res.names
    info = mats["dataInfo"]
    assert info.shape == (4, len(names)) and info.dtype == np.int32
    assert list(info[0]) == [0] + [2] * len(res.names)
    data_2 = mats["data_2"]
    assert data_2.shape == (len(names), len(res.t))
    np.testing.assert_array_equal(data_2[0], res.t)                # exactly
    for j, name in enumerate(res.names):
        row = data_2[info[1, j + 1] - 1]
        np.testing.assert_array_equal(row, res[name])
        if name in res.units:
            assert descriptions[j + 1].endswith(f"[{res.units[name]}]")
    np.testing.assert_array_equal(mats["data_1"], [[res.t[0], res.t[-1]]])
    back = Result.read(path)                                        # and circuitsim's own
    assert back.names == res.names and back.units == res.units
    np.testing.assert_array_equal(back.data, res.data)


def strings(grid) -> list:
    """The rows of a character grid, blanks and NULs stripped at their ends."""
    return ["".join(row).rstrip(" \0") for row in grid]


def test_matlab_file_has_legal_names_with_the_originals_and_units_beside(dcmotor):
    res, folder = dcmotor
    path = folder / "r.mat"
    res.to_mat(path)
    mat = scipy.io.loadmat(path)
    meta = mat["circuitsim"][0, 0]
    legal = [str(x[0]) for x in meta["names"].ravel()]
    original = [str(x[0]) for x in meta["original"].ravel()]
    units = [str(x[0]) if x.size else "" for x in meta["units"].ravel()]
    assert original == res.names
    assert legal == [n.replace(".", "_") for n in res.names]        # La.i -> La_i
    assert units == [res.units.get(n, "") for n in res.names]
    np.testing.assert_array_equal(mat["time"].ravel(), res.t)
    for name, column in zip(legal, res.data.T):
        assert mat[name].shape == (len(res.t), 1)                   # column vectors
        np.testing.assert_array_equal(mat[name].ravel(), column)
    back = Result.read(path)
    assert back.names == res.names and back.units == res.units
    np.testing.assert_array_equal(back.data, res.data)


def test_matlab_names_are_legal_distinct_and_never_the_reserved_ones():
    names = ["La.i", "La_i", "1st", "time", "J1.mu2", "x" * 80, "x" * 80 + "y", "for",
             "circuitsim"]
    legal = matfile.matlab_names(names)
    assert len(set(n.lower() for n in legal)) == len(names)
    for name in legal:
        assert name[0].isalpha() and len(name) <= 63
        assert all(c.isalnum() or c == "_" for c in name)
        assert name.lower() not in ("time", "circuitsim", "for")
    assert legal[:2] == ["La_i", "La_i_2"] and legal[2] == "x1st"


def test_csv_units_header_reads_back_with_units(dcmotor, tmp_path):
    res, _ = dcmotor
    plain, units = tmp_path / "plain.csv", tmp_path / "units.csv"
    res.to_csv(plain)
    res.to_csv(units, units=True)
    header = units.read_text().splitlines()[0].split(",")
    assert header[0] == "time [s]"
    assert "shaft [rad/s]" in header and "La.i [A]" in header
    assert plain.read_text().splitlines()[0] == ",".join(["time"] + res.names)
    # the rows are the same bytes either way
    assert plain.read_text().splitlines()[1:] == units.read_text().splitlines()[1:]
    back = Result.read(units)
    assert back.names == res.names and back.units == res.units
    np.testing.assert_array_equal(back.data, res.data)


def test_streamed_csv_has_units_when_asked(tmp_path):
    out = tmp_path / "s.csv"
    assert cli.main(["run", str(netlist_path("dcmotor")), "--out", str(out), "--stream",
                     "--csv-units", "--quiet"]) == 0
    header = out.read_text().splitlines()[0]
    assert header.startswith("time [s],") and "shaft [rad/s]" in header


def test_npz_keeps_units(dcmotor, tmp_path):
    res, _ = dcmotor
    res.to_npz(tmp_path / "r.npz")
    back = Result.read(tmp_path / "r.npz")
    assert back.units == res.units and back.names == res.names
    np.testing.assert_array_equal(back.data, res.data)


def test_a_foreign_matlab_file_with_time_and_vectors_is_read(tmp_path):
    t = np.linspace(0.0, 1.0, 11)
    scipy.io.savemat(tmp_path / "m.mat", {"time": t, "speed": np.sin(t), "label": "x"})
    back = Result.read(tmp_path / "m.mat")
    assert back.names == ["speed"]
    np.testing.assert_array_equal(back["speed"], np.sin(t))
