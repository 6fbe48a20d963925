"""Results as MAT files: MATLAB's v5 and the Modelica tools' v4 result layout.

MATLAB (``--mat-format matlab``, the default): ``time`` and one column vector per
recorded variable under a legal MATLAB name (``La.i`` -> ``La_i``), and a struct
``circuitsim`` with the cell arrays ``names`` (the legal names, in column order),
``original`` (the names as circuitsim writes them) and ``units`` (SI), and the run's
``status``, ``case`` and ``title``.

Modelica (``--mat-format modelica``): the "binTrans" result file of OpenModelica and
Dymola (version 1.1), which OMEdit, Dymola, DyMat and ModelicaRes open: ``Aclass``
(``Atrajectory``, ``1.1``, ``""``, ``binTrans``); ``name`` and ``description`` (character
matrices, one variable per column; the unit in brackets at the end of a description);
``dataInfo`` (int32, 4 x n: data block, signed 1-based column, interpolation 0,
extrapolation -1); ``data_1`` (the constant block: start and end time only) and ``data_2``
(the trajectories, one variable per row, time first). Names keep their dots: Modelica
names are hierarchical too.

scipy.io writes and reads both. Non-ASCII text (``N·m``) is stored as its UTF-8 bytes,
which is what the Modelica tools write.
"""
from __future__ import annotations

import keyword
import re

import numpy as np

MATLAB_NAME_MAX = 63                 # namelengthmax
MATLAB_RESERVED = {"time", "circuitsim"}
FORMATS = ("matlab", "modelica")
_ILLEGAL = re.compile(r"[^A-Za-z0-9_]")


def write(res, fh, flavour: str = "matlab") -> None:
    """Write ``res`` (a Result) to the binary file ``fh`` in ``flavour``."""
    from scipy.io import savemat
    if flavour == "modelica":
        savemat(fh, modelica_arrays(res), format="4")
    else:
        savemat(fh, matlab_arrays(res), format="5", oned_as="column",
                long_field_names=True)


def matlab_names(names) -> list:
    """Legal, distinct MATLAB variable names for ``names`` in order: other characters as
    ``_``, a leading ``x`` where a name does not start with a letter, at most 63
    characters, ``_2``, ``_3`` .. where two come out equal, never ``time`` or
    ``circuitsim``."""
    taken = set(MATLAB_RESERVED)
    legal = []
    for name in names:
        base = _ILLEGAL.sub("_", name)
        if not base[:1].isalpha() or keyword.iskeyword(base):
            base = "x" + base
        base = base[:MATLAB_NAME_MAX]
        candidate, count = base, 1
        while candidate.lower() in taken:
            count += 1
            suffix = f"_{count}"
            candidate = base[:MATLAB_NAME_MAX - len(suffix)] + suffix
        taken.add(candidate.lower())
        legal.append(candidate)
    return legal


def matlab_arrays(res) -> dict:
    """The variables of the MATLAB v5 file."""
    legal = matlab_names(res.names)
    arrays = {"time": np.asarray(res.t, dtype=float)}
    for j, name in enumerate(legal):
        arrays[name] = np.ascontiguousarray(res.data[:, j])
    arrays["circuitsim"] = {
        "names": _cell(legal), "original": _cell(res.names),
        "units": _cell([res.units.get(n, "") for n in res.names]),
        "status": res.status, "case": res.case or "", "title": res.title or ""}
    return arrays


def modelica_arrays(res) -> dict:
    """The variables of the Modelica v4 result file (binTrans)."""
    names = ["time"] + list(res.names)
    descriptions = ["Simulation time [s]"] + [
        f"[{res.units[n]}]" if res.units.get(n) else "" for n in res.names]
    n = len(names)
    info = np.zeros((4, n), dtype=np.int32)
    info[0, 1:] = 2                                   # block: data_2 (time: 0)
    info[1, :] = np.arange(1, n + 1)                  # 1-based row of data_2
    info[3, :] = -1                                   # not defined outside the run
    t = np.asarray(res.t, dtype=float)
    span = [t[0], t[-1]] if len(t) else [0.0, 0.0]
    return {"Aclass": _char_rows(["Atrajectory", "1.1", "", "binTrans"]),
            "name": _char_rows(names).T.copy(), "description": _char_rows(descriptions).T.copy(),
            "dataInfo": info, "data_1": np.array([span], dtype=float),
            "data_2": np.ascontiguousarray(np.vstack([t, np.asarray(res.data, float).T]))}


def read(path):
    """(t, names, data, units, labels) from a MAT file written by either flavour, or a
    MATLAB file with a ``time`` vector and column vectors of its length (names as
    stored). Raises ValueError for a MAT file that is neither."""
    from scipy.io import loadmat
    mat = loadmat(path, chars_as_strings=False, squeeze_me=False)
    if "Aclass" in mat:
        return _read_modelica(mat)
    return _read_matlab(mat)


def _read_modelica(mat):
    aclass = _char_strings(mat["Aclass"])
    if len(aclass) < 4 or aclass[0] != "Atrajectory" or aclass[1] != "1.1":
        raise ValueError(f"a Modelica result file of a kind not read here: {aclass[:2]}")
    transposed = aclass[3] == "binTrans"
    names = _char_strings(mat["name"].T if transposed else mat["name"])
    descriptions = _char_strings(mat["description"].T if transposed else mat["description"])
    info = mat["dataInfo"] if transposed else mat["dataInfo"].T
    blocks = {b: (mat[f"data_{b}"] if transposed else mat[f"data_{b}"].T)
              for b in set(int(x) for x in info[0]) if b > 0}
    trajectories = blocks.get(2, blocks.get(1))
    t = trajectories[0]
    out_names, columns, units = [], [], {}
    for name, description, block, signed in zip(names, descriptions, info[0], info[1]):
        column = abs(int(signed)) - 1
        if block == 0 or column == 0:
            continue                                  # the time
        values = blocks[int(block)][column]
        values = np.full(len(t), values[0]) if len(values) != len(t) else values
        columns.append(-values if signed < 0 else values)
        out_names.append(name)
        unit = re.search(r"\[([^\]|]*)(?:\|[^\]]*)?\]\s*$", description)
        if unit and unit.group(1):
            units[name] = unit.group(1)
    data = np.column_stack(columns) if columns else np.zeros((len(t), 0))
    return np.asarray(t, float), out_names, data, units, {}


def _read_matlab(mat):
    if "time" not in mat:
        raise ValueError("no 'time' vector (and no Modelica result layout)")
    t = np.asarray(mat["time"], dtype=float).ravel()
    meta = mat.get("circuitsim")
    if meta is not None:
        meta = meta[0, 0]
        legal = [_text(x) for x in meta["names"].ravel()]
        original = [_text(x) for x in meta["original"].ravel()]
        units = {o: _text(u) for o, u in zip(original, meta["units"].ravel()) if _text(u)}
        data = np.column_stack([np.asarray(mat[n], float).ravel() for n in legal]) \
            if legal else np.zeros((len(t), 0))
        labels = {k: _text(meta[k]) for k in ("status", "case", "title")
                  if k in meta.dtype.names}
        return t, original, data, units, labels
    names = [k for k, v in mat.items() if not k.startswith("__") and k != "time"
             and isinstance(v, np.ndarray) and v.dtype.kind in "fiu" and v.size == len(t)]
    data = np.column_stack([np.asarray(mat[n], float).ravel() for n in names]) \
        if names else np.zeros((len(t), 0))
    return t, names, data, {}, {}


def _cell(strings) -> np.ndarray:
    """A MATLAB cell array (a column) of strings."""
    cell = np.empty((len(strings), 1), dtype=object)
    for i, s in enumerate(strings):
        cell[i, 0] = s
    return cell


def _char_rows(strings) -> np.ndarray:
    """A character matrix, one string per row padded with blanks, each stored as its
    UTF-8 bytes (one character per byte, as the Modelica tools write them)."""
    encoded = [s.encode("utf-8").decode("latin-1") for s in strings]
    width = max(1, max(map(len, encoded), default=1))
    return np.ascontiguousarray(np.array([list(s.ljust(width)) for s in encoded],
                                         dtype="U1").reshape(len(encoded), width))


def _char_strings(chars) -> list:
    """The rows of a character matrix, blanks and NULs stripped at the end, decoded
    from UTF-8."""
    rows = np.atleast_2d(chars)
    out = []
    for row in rows:
        text = "".join(str(c) for c in row).rstrip(" \0")
        try:
            text = text.encode("latin-1").decode("utf-8")
        except (UnicodeEncodeError, UnicodeDecodeError):
            pass
        out.append(text)
    return out


def _text(value) -> str:
    """A string stored by savemat as a char array or a cell, read back."""
    arr = np.asarray(value)
    if arr.dtype == object:
        return _text(arr.ravel()[0]) if arr.size else ""
    if arr.dtype.kind == "U":
        return "".join(arr.ravel().tolist()).rstrip()
    return str(arr)
