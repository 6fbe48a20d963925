"""Measured data from files: ``pwl(file=...)``, ``table(x, file=...)``, ``table2(x, y, file=...)``.

A data file is CSV text: cells separated by commas (or semicolons, or tabs, as the first
line of numbers shows), blank lines and ``#`` comments skipped, an optional header line
naming the columns with their units in brackets (``time [s], pressure [bar]``). Numbers
are converted to SI by the header's units (:mod:`units`); without a unit a column is SI.

* A **series** (``pwl(file=...)``) and a **1-D table** (``table``) read columns: the
  first holds the time (x), ``column=`` (a header name or a number counted from 1;
  default 2) the values.
* A **map** (``table2``) reads a grid: its first row holds the y breakpoints after a
  corner cell (which is not read), each further row an x breakpoint and the values
  z(x, y_j); the optional header line names x, y and z with their units.

What may be read is confined as ``.include`` is (loader.py resolves the path). The file
is read when the netlist is loaded, once per load however many elements and cases use
it (:class:`DataCache`), with numpy's parser (no Python loop over the rows); a file of
more than MAX_BYTES or MAX_ROWS lines is refused before it is parsed. An error in the
data is located at the file's line and column (the hint names the netlist's use); an
error in the netlist's call (a missing file, an unknown keyword) at the call.
"""
from __future__ import annotations

import io
import os
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

from . import ast, units
from ..errors import Loc, NetlistError, did_you_mean
from ..runtime import expressions
from ..runtime.expressions import Func, Name, Num
from ..runtime.tables import EXTRAPOLATIONS, INTERPOLATIONS, Table1D, Table2D

MAX_BYTES = 256 * 2**20         # one data file: ~10 million rows of two numbers
MAX_ROWS = 10_000_000           # lines of one data file (a day sampled at 100 Hz is 8.6e6)
MAX_TOTAL_BYTES = 2**30         # data files read by one load, each counted once

DELIMITERS = (",", ";", "\t")
_NUMBER = re.compile(r"\s*[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)\s*",
                     re.IGNORECASE)
_HEADER_CELL = re.compile(r"\s*(.*?)\s*(?:\[([^\]]*)\])?\s*")
_SKIPPED = re.compile(r"\s*(?:#.*)?")          # a blank or comment line

# the functions of brace expressions that read a file: name -> (arguments, keywords)
TABLE_FUNCTIONS = {"table": (("x",), ("file", "column", "interp", "extrap")),
                   "table2": (("x", "y"), ("file",))}
CHOICES = {"interp": INTERPOLATIONS, "extrap": EXTRAPOLATIONS}


# --- in the netlist: the calls -------------------------------------------------------------
@dataclass(frozen=True)
class Keyword:
    """``key=value`` inside a brace expression's call: ``value`` is a str (a quoted
    string), or an expression tree (a name, a number)."""
    key: str
    value: object
    loc: Loc = field(compare=False)
    quoted: bool = False


@dataclass(frozen=True)
class TableSpec:
    """A ``table``/``table2`` call as written, before its file is read: what the tree's
    Func holds until the loader puts the table in its place (:func:`bind`)."""
    name: str
    file: str
    column: object            # None, a number counted from 1, or a header name
    interp: str
    extrap: str
    loc: Loc = field(compare=False)
    file_loc: Loc = field(compare=False)
    column_loc: Loc | None = field(default=None, compare=False)

    @property
    def text(self) -> str:
        return f'{self.name}[file "{self.file}"]'

    def _unread(self, *_):
        raise NetlistError(f"{self.name}(): its file is read where a netlist is loaded; "
                           "write the call in the netlist (a setting or .step value can "
                           "give its argument)", self.loc)

    __call__ = derivative = partial = _unread


def table_call(name: str, args: list, loc: Loc) -> Func:
    """The tree of ``table(x, file=...)`` or ``table2(x, y, file=...)`` (``args``: the
    trees and Keywords as written). Raises NetlistError at the call or the keyword."""
    names, known = TABLE_FUNCTIONS[name]
    positional = [a for a in args if not isinstance(a, Keyword)]
    given: dict = {}
    for i, a in enumerate(args):
        if not isinstance(a, Keyword):
            if given:
                raise NetlistError(f"{name}(): {' and '.join(names)} "
                                   f"come{'s' if len(names) == 1 else ''} before the "
                                   "keywords", loc)
            continue
        if a.key not in known:
            raise NetlistError(f"{name}(): unknown keyword '{a.key}' (known: "
                               f"{', '.join(known)})", a.loc, did_you_mean(a.key, known))
        if a.key in given:
            raise NetlistError(f"{name}(): {a.key} is given twice", a.loc)
        given[a.key] = a
    if len(positional) != len(names):
        raise NetlistError(f"{name}() takes {len(names)} argument{'s' if len(names) > 1 else ''} "
                           f"({', '.join(names)}) and file=\"...\", got {len(positional)}", loc)
    if "file" not in given:
        raise NetlistError(f"{name}() needs the file it reads: {name}({', '.join(names)}, "
                           'file="data.csv")', loc)
    file = given["file"]
    if not file.quoted:
        raise NetlistError(f'{name}(): file= takes a quoted file name, e.g. file="data.csv"',
                           file.loc)
    choice = {key: _choice(name, given[key], CHOICES[key]) if key in given
              else CHOICES[key][0] for key in CHOICES}
    column = given.get("column")
    spec = TableSpec(name, file.value, _column(name, column) if column else None,
                     choice["interp"], choice["extrap"], loc, file.loc,
                     column.loc if column else None)
    return Func(name, tuple(positional), loc, spec)


def _choice(name: str, kw: Keyword, choices: tuple) -> str:
    value = kw.value if kw.quoted else kw.value.name if isinstance(kw.value, Name) else None
    if value not in choices:
        shown = value if value is not None else expressions.to_text(kw.value)
        raise NetlistError(f"{name}(): {kw.key} is one of {', '.join(choices)}; got "
                           f"'{shown}'", kw.loc, did_you_mean(str(shown), choices))
    return value


def _column(name: str, kw: Keyword):
    """column=: a header name (a name or a quoted string) or a number counted from 1."""
    if kw.quoted:
        return kw.value
    if isinstance(kw.value, Name):
        return kw.value.name
    if isinstance(kw.value, Num) and kw.value.value == int(kw.value.value) >= 1:
        return int(kw.value.value)
    raise NetlistError(f"{name}(): column= takes a column's name in the header or its "
                       "number counted from 1 (column=2 is the first after x)", kw.loc)


def pwl_column(kw: ast.Assign):
    """column= of a ``pwl(file=...)`` call: a header name or a number counted from 1."""
    v = kw.value
    if isinstance(v, ast.String):
        return v.value
    if isinstance(v, ast.Ident):
        return v.name
    if isinstance(v, ast.Number) and not v.suffix and v.mantissa == int(v.mantissa) >= 1:
        return int(v.mantissa)
    raise NetlistError("pwl(): column= takes a column's name in the header or its number "
                       "counted from 1 (column=2 is the first after the time)", v.loc)


# --- the data ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Column:
    """A header cell: the column's name and its unit (None: no unit written, SI)."""
    name: str
    unit: str | None
    quantity: units.Quantity | None
    loc: Loc

    @property
    def label(self) -> str:
        return f"{self.name} [{self.unit}]" if self.unit is not None else self.name

    def to_si(self, values: np.ndarray) -> np.ndarray:
        return values if self.quantity is None else units.scale(values, self.quantity.factor)


@dataclass
class Series:
    """A time series read for ``pwl(file=...)``: times in s, values in SI of the value
    column's unit (``column.quantity``; None: SI numbers of whatever the parameter takes)."""
    times: np.ndarray
    values: np.ndarray
    column: Column | None
    path: str
    loc: Loc                  # the netlist's file= value

    def in_unit(self, unit: str | None) -> np.ndarray:
        """The values in ``unit`` (a parameter's SI unit); NetlistError at the header
        cell if the column's unit is another quantity."""
        if unit is None or self.column is None or self.column.quantity is None:
            return self.values
        target = units.parse_unit(unit)
        if _no_angle(self.column.quantity.dims) != _no_angle(target.dims):  # an angle is a number
            written = _a(units.describe(self.column.unit))
            raise NetlistError(f"pwl(): the column '{self.column.label}' is {written}; here "
                               f"the values are {_a(units.describe(unit))} in {unit}",
                               self.column.loc, f"(the data file of pwl() at {self.loc})")
        return units.scale(self.values, 1.0 / target.factor)


def _no_angle(dims: tuple) -> tuple:
    rad = units.BASE.index("rad")
    return dims[:rad] + dims[rad + 1:]


def _a(noun: str) -> str:
    return ("an " if noun[0] in "aeiou" else "a ") + noun


class DataFile:
    """One data file as read: the header's columns (None: no header), the numbers as
    written (rows x columns; a grid's y breakpoints apart), and where each row is."""

    def __init__(self, path: Path, text: str, grid: bool, what: str, ref: Loc):
        self.path, self.text, self.grid = str(path), text, grid
        self.what, self.ref = what, ref
        lines = _lines(text)
        first = next(lines, None)
        if first is None:
            raise self.error(1, 1, "the file holds no rows of numbers")
        number, start, line = first
        self.delimiter = next((d for d in DELIMITERS if d in _code(line)), None)
        if self.delimiter is None:
            raise self.error(number, 1, "expected values separated by ',' (or ';' or tabs); "
                                        "this line has one")
        cells = _code(line).split(self.delimiter)
        self.columns = None
        if any(not _NUMBER.fullmatch(c) for c in cells[grid:]):
            self.columns = self._header(number, line, cells)
            first = next(lines, None)
            if first is None:
                raise self.error(number, 1, "the file holds no rows of numbers after this "
                                            "header", line)
            number, start, line = first
        self.y = self._grid_row(number, line) if grid else None
        self.y_line = (number, line)
        if grid:
            nxt = next(lines, None)
            if nxt is None:
                raise self.error(number + 1, 1, "a map needs rows of x and values after "
                                                "its first row of y")
            number, start, _ = nxt
        self.body_line, self.body_start = number, start
        self.ncols = (len(self.y) + 1 if grid else len(self.columns) if self.columns
                      else len(cells))
        self.cells = self._numbers(text[start:])

    def used_by(self, what: str, ref: Loc) -> "DataFile":
        """This file, its messages naming the call ``what`` at ``ref`` (the netlist's
        use that the next check is for)."""
        self.what, self.ref = what, ref
        return self

    def error(self, line: int, col: int, message: str, text: str | None = None):
        """A NetlistError at ``line``:``col`` of this file."""
        if text is None:
            text = next((t for n, _, t in _lines(self.text, skip=False) if n == line), "")
        return NetlistError(f"{self.what}: {message}", Loc(self.path, line, col, text),
                            f"(the data file of {self.what} at {self.ref})")

    def _header(self, number: int, line: str, cells: list) -> list:
        columns, col = [], 1
        for cell in cells:
            at = Loc(self.path, number, col + len(cell) - len(cell.lstrip()), line)
            col += len(cell) + 1
            name, unit = _HEADER_CELL.fullmatch(cell.strip().strip('"')).groups()
            quantity = None
            if unit is not None:
                try:
                    quantity = units.parse_unit(unit)
                except units.UnitError as exc:
                    raise NetlistError(f"{self.what}: the column '{cell.strip()}': {exc}", at,
                                       f"(the data file of {self.what} at {self.ref})") from None
            columns.append(Column(name, unit.strip() if unit is not None else None,
                                  quantity, at))
        if self.grid and len(columns) != 3:
            raise self.error(number, 1, f"the header of a map names 3 columns (x, y and the "
                                        f"value, each with its unit); this one names "
                                        f"{len(columns)}", line)
        return columns

    def _grid_row(self, number: int, line: str) -> np.ndarray:
        """The y breakpoints: the first row of a map, after its corner cell."""
        cells = _code(line).split(self.delimiter)
        col = len(cells[0]) + 2
        for cell in cells[1:]:
            if not _NUMBER.fullmatch(cell):
                raise self.error(number, col + len(cell) - len(cell.lstrip()),
                                 _not_a_number(cell), line)
            col += len(cell) + 1
        if len(cells) < 3:
            raise self.error(number, 1, "the first row of a map holds a corner cell and at "
                                        "least two y breakpoints", line)
        return np.array([float(c) for c in cells[1:]])

    def _numbers(self, body: str) -> np.ndarray:
        """The rows of numbers (numpy's parser); a bad row is located by a scan."""
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")          # "input contained no data"
                cells = np.loadtxt(io.StringIO(body), delimiter=self.delimiter,
                                   comments="#", ndmin=2, dtype=float)
        except ValueError as exc:
            raise self._bad_row(str(exc)) from None
        if cells.size == 0:
            raise self.error(self.body_line, 1, "the file holds no rows of numbers")
        if cells.shape[1] != self.ncols:
            raise self._bad_row("")
        bad = np.argwhere(~np.isfinite(cells))
        if len(bad):
            row, col = map(int, bad[0])
            line, at, text = self.where(row, col)
            cell = _code(text).split(self.delimiter)[col].strip()
            raise self.error(line, at, f"'{cell}' is not a finite number", text)
        return cells

    def _bad_row(self, reason: str) -> NetlistError:
        for number, _, line in _lines(self.text[self.body_start:], first=self.body_line):
            cells = _code(line).split(self.delimiter)
            if len(cells) != self.ncols:
                return self.error(number, 1, f"this row has {len(cells)} value"
                                  f"{'s' if len(cells) != 1 else ''}; {self._expected()}",
                                  line)
            col = 1
            for cell in cells:
                if not _NUMBER.fullmatch(cell):
                    return self.error(number, col + len(cell) - len(cell.lstrip()),
                                      _not_a_number(cell), line)
                col += len(cell) + 1
        return self.error(self.body_line, 1, f"cannot read the numbers: {reason}")

    def _expected(self) -> str:
        if self.grid:
            return f"the first row has {self.ncols} (the corner and {self.ncols - 1} y values)"
        if self.columns:
            return f"the header names {self.ncols} columns"
        return f"the first row has {self.ncols}"

    def where(self, row: int, col: int = 0) -> tuple:
        """(line number, column of the cell ``col``, the line) of data row ``row``."""
        lines = _lines(self.text[self.body_start:], first=self.body_line)
        for k, (number, _, line) in enumerate(lines):
            if k == row:
                cells = _code(line).split(self.delimiter)
                at = sum(len(c) + 1 for c in cells[:col]) + 1
                return number, at + len(cells[col]) - len(cells[col].lstrip()), line
        raise IndexError(row)

    def column(self, key, loc: Loc | None) -> int:
        """The index of the column ``key`` (None: the second; a number counted from 1;
        a header name); NetlistError at ``loc`` (the netlist's column=)."""
        if key is None:
            return 1
        name = os.path.basename(self.path)
        if isinstance(key, int):
            if not 2 <= key <= self.ncols:
                raise NetlistError(f"{self.what}: column={key}, but {name} has "
                                   f"{self.ncols} columns (the first holds x or the time; "
                                   f"values are in 2 to {self.ncols})", loc)
            return key - 1
        if not self.columns:
            raise NetlistError(f"{self.what}: {name} has no header line naming its columns; "
                               "give column= the column's number", loc)
        labels = [c.name for c in self.columns]
        for i, c in enumerate(self.columns):
            if key in (c.name, c.label) and i > 0:
                return i
        raise NetlistError(f"{self.what}: {name} has no column '{key}' (its columns: "
                           f"{', '.join(labels[1:])})", loc, did_you_mean(key, labels[1:]))

    def _si(self, values: np.ndarray, index: int) -> np.ndarray:
        return self.columns[index].to_si(values) if self.columns else values

    def series(self, key, key_loc: Loc | None, loc: Loc) -> Series:
        """The time series of column ``key`` for ``pwl(file=...)``."""
        index = self.column(key, key_loc)
        if self.columns and self.columns[0].quantity is not None and \
                self.columns[0].quantity.dims != units.parse_unit("s").dims:
            first = self.columns[0]
            raise NetlistError(f"pwl(): the first column ('{first.label}') is the time; its "
                               f"unit is one of s, ms, us, min, h", first.loc,
                               f"(the data file of {self.what} at {self.ref})")
        raw = self.cells[:, 0]
        self._check_increasing(raw, 0, jumps=True)
        return Series(self._si(raw, 0), self._si(self.cells[:, index], index),
                      self.columns[index] if self.columns else None, self.path, loc)

    def table(self, spec: TableSpec) -> Table1D:
        index = self.column(spec.column, spec.column_loc)
        if len(self.cells) < 2:
            raise self.error(self.body_line, 1, "a table needs at least two rows")
        self._check_increasing(self.cells[:, 0], 0, jumps=False)
        return Table1D(self._si(self.cells[:, 0], 0), self._si(self.cells[:, index], index),
                       spec.interp, spec.extrap, key=(self.path, index),
                       text=f'table["{self.path}" column {index + 1} {spec.interp} '
                            f'{spec.extrap}]')

    def table2(self, spec: TableSpec) -> Table2D:
        if len(self.cells) < 2:
            raise self.error(self.body_line, 1, "a map needs at least two rows of x")
        x = self.cells[:, 0]
        self._check_increasing(x, 0, jumps=False)
        bad = np.flatnonzero(~(self.y[1:] > self.y[:-1]))
        if len(bad):
            number, line = self.y_line
            cells = _code(line).split(self.delimiter)
            j = int(bad[0]) + 2                      # the cell of the offending y
            col = sum(len(c) + 1 for c in cells[:j]) + 1
            col += len(cells[j]) - len(cells[j].lstrip())
            raise self.error(number, col, f"y must increase from column to column; "
                             f"{self.y[j - 1]:g} follows {self.y[j - 2]:g}", line)
        si = (self._si(x, 0), self._si(self.y, 1), self._si(self.cells[:, 1:], 2))
        return Table2D(*si, key=(self.path,), text=f'table2["{self.path}"]')

    def _check_increasing(self, x: np.ndarray, col: int, jumps: bool) -> None:
        """x must increase from row to row; with ``jumps`` (a pwl) two rows may share a
        time, not three. Raises at the first row that breaks the rule."""
        down = np.flatnonzero(~(x[1:] > x[:-1] if not jumps else x[1:] >= x[:-1])) + 1
        third = np.flatnonzero(x[2:] == x[:-2]) + 2 if jumps else np.array([], int)
        if not len(down) and not len(third):
            return
        i = int(min(down[:1].tolist() + third[:1].tolist()))
        line, at, text = self.where(i, col)
        if i in down[:1]:
            what = "times" if jumps else "x"
            unit = " s" if jumps and not (self.columns and self.columns[0].unit) else ""
            raise self.error(line, at, f"{what} must increase from row to row; "
                             f"{x[i]:g}{unit} follows {x[i - 1]:g}{unit}", text)
        raise self.error(line, at, f"three rows at the time {x[i]:g}; a jump is two rows "
                                   "at one time", text)


def _code(line: str) -> str:
    """A line without its '#' comment."""
    return line.split("#", 1)[0]


def _not_a_number(cell: str) -> str:
    cell = cell.strip()
    if not cell:
        return "an empty cell; every cell holds a number"
    if re.fullmatch(r"[+-]?\d+,\d+", cell):
        return f"'{cell}' is not a number (write a decimal point)"
    return f"'{cell[:40]}' is not a number"


def _lines(text: str, first: int = 1, skip: bool = True):
    """(line number, offset, line) of each line of ``text`` (only those holding values,
    with ``skip``), read lazily."""
    pos, number = 0, first
    while pos < len(text) or (not skip and pos == 0):
        end = text.find("\n", pos)
        end = len(text) if end < 0 else end
        line = text[pos:end].rstrip("\r")
        if not skip or not _SKIPPED.fullmatch(line):
            yield number, pos, line
        pos, number = end + 1, number + 1


# --- reading once per load -------------------------------------------------------------------
@dataclass
class DataCache:
    """The data files of one load, each read once, and the tables made from them."""
    files: dict = field(default_factory=dict)
    made: dict = field(default_factory=dict)
    read: int = 0

    def get(self, path: Path, grid: bool, what: str, loc: Loc) -> DataFile:
        key = (os.path.realpath(path), grid)
        if key not in self.files:
            self.files[key] = DataFile(path, self._text(path, what, loc), grid, what, loc)
        return self.files[key]

    def _text(self, path: Path, what: str, loc: Loc) -> str:
        try:
            size = os.path.getsize(path)
            if size > MAX_BYTES:
                raise NetlistError(f"{what}: {path} is {_size(size)}; a data file may hold "
                                   f"at most {_size(MAX_BYTES)}", loc)
            if self.read + size > MAX_TOTAL_BYTES:
                raise NetlistError(f"{what}: reading {path} would take the data files read "
                                   f"to {_size(self.read + size)}; the limit is "
                                   f"{_size(MAX_TOTAL_BYTES)}", loc)
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except OSError as exc:
            raise NetlistError(f"{what}: cannot read {path}: {exc.strerror or exc}",
                               loc) from None
        self.read += len(data)
        lines = data.count(b"\n") + (not data.endswith(b"\n"))
        if lines > MAX_ROWS:
            raise NetlistError(f"{what}: {path} has {lines} lines; a data file may hold at "
                               f"most {MAX_ROWS} rows", loc)
        return _decode(data, str(path), what, loc)


def _size(n: int) -> str:
    """Bytes for a message: '1.7 kB', '300 MB'."""
    for unit, factor in (("GB", 2**30), ("MB", 2**20), ("kB", 2**10)):
        if n >= factor:
            return f"{n / factor:.3g} {unit}"
    return f"{n} bytes"


def _decode(data: bytes, path: str, what: str, loc: Loc) -> str:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        shown = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        col = len(data[start:exc.start].decode("utf-8", "replace")) + 1
        raise NetlistError(f"{what}: byte 0x{data[exc.start]:02x} is not UTF-8 text; data "
                           "files are UTF-8 (or ASCII) text", Loc(path, line, col, shown),
                           f"(the data file of {what} at {loc})") from None
    return text[1:] if text.startswith("\ufeff") else text


# --- binding the calls of a parsed file to their data ----------------------------------------
Resolve = Callable[[str, Loc, str], Path]
MENTIONS_FILE = re.compile(r"\bfile\s*=")     # a text without it has nothing to bind


def bind(statements: list, resolve: Resolve, cache: DataCache) -> None:
    """Read the files the calls in ``statements`` name and give each call its data:
    a ``pwl(file=...)`` Call its Series (``Call.data``), a table's Func its table.
    ``resolve(name, loc, func)`` is the confined path of the file ``name`` that the
    call ``func`` ("pwl()") names at ``loc``."""
    for value in _values(statements):
        if isinstance(value, ast.Call):
            _bind_pwl(value, resolve, cache)
        elif isinstance(value, ast.Expr) and _has_spec(value.tree):
            value.tree = expressions.replace_tables(
                value.tree, lambda spec: _table(spec, resolve, cache))


def _values(statements: list):
    """Every value written in the statements (vectors' items and calls' arguments too)."""
    stack = []
    for st in statements:
        if isinstance(st, ast.Subckt):
            stack += [a.value for a in st.defaults]
            yield from _values(st.body)
        else:
            stack += list(st.positional) + [a.value for a in st.params]
    while stack:
        value = stack.pop()
        yield value
        if isinstance(value, ast.Vector):
            stack += value.items
        elif isinstance(value, ast.Call):
            stack += list(value.args) + [a.value for a in value.keywords]


def _has_spec(tree) -> bool:
    return any(isinstance(t, TableSpec) for t in expressions.tables(tree))


def _bind_pwl(call: ast.Call, resolve: Resolve, cache: DataCache) -> None:
    keywords = {a.key: a for a in call.keywords}
    if call.name.lower() != "pwl" or "file" not in keywords:
        return
    if call.args:
        raise NetlistError("pwl(): give the points or file=, not both", call.args[0].loc)
    file = keywords["file"].value
    if not isinstance(file, ast.String):
        raise NetlistError('pwl(): file= takes a quoted file name, e.g. file="supply.csv"',
                           file.loc)
    column = keywords.get("column")
    key = pwl_column(column) if column is not None else None
    data = cache.get(resolve(file.value, file.loc, "pwl()"), False, "pwl()", file.loc)
    data.used_by("pwl()", file.loc)
    call.data = data.series(key, column.value.loc if column is not None else None, file.loc)


def _table(spec, resolve: Resolve, cache: DataCache):
    if not isinstance(spec, TableSpec):
        return spec
    path = resolve(spec.file, spec.file_loc, f"{spec.name}()")
    data = cache.get(path, spec.name == "table2", f"{spec.name}()", spec.file_loc)
    data.used_by(f"{spec.name}()", spec.file_loc)
    key = (data.path, spec)
    if key not in cache.made:
        cache.made[key] = data.table(spec) if spec.name == "table" else data.table2(spec)
    return cache.made[key]
