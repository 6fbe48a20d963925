"""Simulation results: time, named variables, stats; CSV / NPZ / MAT export and reading.

CSV format (language.md): a header row ``time,<names...>`` (``time [s],<name [unit]...>``
when units are asked for) then one row per output time, values in SI units with 17
significant digits (round-trips exactly).
"""
from __future__ import annotations

import csv
import os
import re
import time
from pathlib import Path

import numpy as np

from ..errors import CircuitsimError, did_you_mean
from . import matfile
from .files import replaced, replaced_text


class Result:
    """What a run produced.

    - ``t``: output times (s);
    - ``names``: the recorded variables; ``res["B1.z"]`` is one over ``t``;
    - ``data``: (len(t), len(names)) values in SI units;
    - ``stats``: solver counters (nsteps, nfail_err, njac, nlu, ...);
    - ``status``: 'success', 'failed' or 'interrupted'; ``message`` why it stopped;
    - ``units``: name -> SI unit, where known; ``title``, ``case``: labels;
    - ``warnings``: (message, location or None) of the elaboration and the start-up;
    - ``notes``: what the start-up changed (assembly of the joints, redundant rows);
    - ``mobility``: the mobility analysis at t = 0 (None without bodies and joints);
    - ``diagnostics``: what the study comparison uses (energy over time, largest joint
      gap, joint forces), whatever ``.probe`` keeps;
    - ``report``: the run report (``--report``; None unless asked for);
    - ``measures``: the ``.measure`` values (circuitsim.output.measures.Measures:
      ``res.measures.values["smax"]``; None without ``.measure`` lines);
    - ``study``, ``parameters``: the study and the ``.step`` values (name -> SI) of the
      case, when it was run as part of a sweep (``Netlist.sweep``);
    - ``scene``: what a 3D view draws (circuitsim.output.scene.Scene: bodies' boxes, joints,
      springs), None for a result read from a file;
    - ``unstreamed``: why the CSV streamed while the run went (``stream=``) could not be
      written (a full file system), else None: the Result still holds every point.

    A Result pickles (sweeps send it between processes).
    """

    def __init__(self, t, names, data, stats=None, status="success", message="",
                 units=None, title="", case="", *, warnings=(), notes=(), mobility=None,
                 diagnostics=None, report=None, study=None, parameters=None,
                 scene=None, measures=None):
        self.t = np.asarray(t, dtype=float)
        self.unstreamed: str | None = None
        self.names = list(names)
        self.data = np.asarray(data, dtype=float).reshape(len(self.t), len(self.names))
        self._col = {name: i for i, name in enumerate(self.names)}
        self.stats = dict(stats or {})
        self.status = status
        self.message = message
        self.units = dict(units or {})
        self.title = title
        self.case = case
        self.warnings = list(warnings)
        self.notes = list(notes)
        self.mobility = mobility
        self.diagnostics = dict(diagnostics or {})
        self.report = report
        self.study = study
        self.parameters = dict(parameters or {})
        self.scene = scene
        self.measures = measures

    @property
    def success(self) -> bool:
        """True when the run reached its end time."""
        return self.status == "success"

    def __getitem__(self, name: str) -> np.ndarray:
        if name == "time":
            return self.t
        try:
            return self.data[:, self._col[name]]
        except KeyError:
            hint = did_you_mean(name, self.names)
            raise KeyError(f"no recorded variable '{name}'"
                           f"{'; ' + hint if hint else ''}") from None

    def __contains__(self, name: str) -> bool:
        return name == "time" or name in self._col

    def __len__(self) -> int:
        return len(self.t)

    def __repr__(self) -> str:
        span = f"t = {self.t[0]:g} .. {self.t[-1]:g} s" if len(self.t) else "empty"
        return (f"<Result {self.case or self.title or ''} {self.status}: {span}, "
                f"{len(self.t)} points, {len(self.names)} variables>")

    def _repr_html_(self) -> str:
        """A notebook's view: status, time span, solver counters, the variables with
        their units."""
        from .htmlview import result_html   # a notebook's only: html costs ~1.5 ms
        return result_html(self)

    def plot(self, *variables, ax=None):
        """A matplotlib Figure of ``variables`` against time, one panel per variable with
        its SI unit on the y label: ``res.plot("shaft", "La.i")``. A notebook shows the
        returned figure.

        ``ax``: an Axes (one variable) or a list of Axes (one per variable) to draw into
        instead of a new figure, e.g. to overlay two runs:
        ``res2.plot("x", ax=res1.plot("x").axes)``. The lines are labelled by the case
        name. The figure is not left open in pyplot: a notebook displays it, a script saves
        it with ``fig.savefig("x.png")``. Needs matplotlib (``pip install
        circuitsim[plot]``)."""
        return _plot({self.case: self}, variables, ax, "Result.plot")

    def to_pandas(self):
        """A pandas DataFrame: index ``time`` (s), one column per recorded variable (the
        values of ``data``, not copies of other values), SI units in ``df.attrs["units"]``.
        pandas is optional (``pip install circuitsim[pandas]``); it is imported here."""
        pd = _pandas()
        frame = pd.DataFrame(self.data, index=pd.Index(self.t, name="time"),
                             columns=self.names, copy=True)
        frame.attrs["units"] = {name: self.units[name] for name in self.names
                                if name in self.units}
        return frame

    def animate(self, path=None, max_frames: int | None = None):
        """The motion as one self-contained HTML page (circuitsim.output.animation): written to
        ``path`` if given; in a notebook the returned Animation shows inline. Needs every
        body's pose in the results (``simulate(record_poses=True)`` adds them where
        ``.probe`` leaves them out); at most ``max_frames`` output times are embedded
        (default animation.MAX_FRAMES, evenly spaced)."""
        from .animation import animate
        return animate(self, path, max_frames)

    def to_csv(self, path, units: bool = False) -> Path:
        """Write the CSV (a ``time`` column, then one per variable, SI units, 17
        significant digits) as a whole or not at all; returns the path. ``units``:
        headers ``name [unit]`` (``time [s]``; a name without a known unit stays bare)."""
        with replaced_text(path) as (text, target):
            csv.writer(text).writerow(csv_header(self.names, self.units if units else None))
            text.write(csv_rows(self.t, self.data))
        return target

    def to_npz(self, path) -> Path:
        """Write a NumPy ``.npz`` file (arrays ``time``, ``names``, ``data``, ``status``,
        ``units``: one per name, empty where unknown); returns the path."""
        with replaced(path) as (fh, target):
            np.savez(fh, time=self.t, names=np.array(self.names), data=self.data,
                     status=self.status,
                     units=np.array([self.units.get(n, "") for n in self.names]))
        return target

    def to_mat(self, path, flavour: str = "matlab") -> Path:
        """Write a MAT file: ``flavour`` "matlab" (v5: legal names, the originals and units
        beside) or "modelica" (the v4 result file the Modelica tools open); see
        circuitsim.output.matfile. Returns the path."""
        if flavour not in matfile.FORMATS:
            raise ValueError(f"MAT flavour {flavour!r}: expected one of "
                             f"{', '.join(matfile.FORMATS)}")
        with replaced(path) as (fh, target):
            matfile.write(self, fh, flavour)
        return target

    def save(self, path, *, mat_format: str = "matlab", csv_units: bool = False) -> Path:
        """CSV, NPZ or MAT by the file's suffix (``.csv`` and any other: CSV)."""
        suffix = Path(path).suffix.lower()
        if suffix == ".npz":
            return self.to_npz(path)
        if suffix == ".mat":
            return self.to_mat(path, mat_format)
        return self.to_csv(path, units=csv_units)

    def compare(self, golden, rtol: float | None = None, atol: float | None = None):
        """This result against a golden run's (a Result, or a file ``Result.read``
        reads): every golden variable at the golden's times within ``rtol`` of its range
        plus ``atol`` (circuitsim.output.regression; defaults 1e-3 and 1e-12). Returns a
        Comparison: ``passed``, ``failed``, ``missing``, ``text()``."""
        from . import regression
        if not isinstance(golden, Result):
            golden = Result.read(golden)
        return regression.compare(self, golden,
                                  regression.RTOL if rtol is None else rtol,
                                  regression.ATOL if atol is None else atol)

    @classmethod
    def read(cls, path) -> "Result":
        """A Result read back from a file that ``save`` writes (CSV with or without
        units in its header, NPZ, either MAT flavour), a Modelica tool's MAT result
        file, or a MATLAB file holding ``time`` and column vectors of its length.
        Raises CircuitsimError naming the file when it cannot be read."""
        path = Path(path)
        suffix = path.suffix.lower()
        try:
            if suffix == ".npz":
                return cls._from_npz(path)
            if suffix == ".mat":
                t, names, data, units, labels = matfile.read(path)
                return cls(t, names, data, units=units, case=labels.get("case", ""),
                           title=labels.get("title", ""),
                           status=labels.get("status") or "success")
            return cls.from_csv(path)
        except CircuitsimError:
            raise
        except OSError as exc:
            raise CircuitsimError(f"cannot read {path}: {exc.strerror}") from None
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            raise CircuitsimError(f"cannot read {path} as results: {exc}") from None

    @classmethod
    def _from_npz(cls, path) -> "Result":
        with np.load(path, allow_pickle=False) as npz:
            names = [str(n) for n in npz["names"]]
            units = ({n: str(u) for n, u in zip(names, npz["units"]) if str(u)}
                     if "units" in npz else {})
            return cls(npz["time"], names, npz["data"], units=units,
                       status=str(npz["status"]) if "status" in npz else "success")

    @classmethod
    def from_csv(cls, path) -> "Result":
        """A Result read back from a CSV written by ``to_csv`` (times, names, values and,
        from a header written with units, the units)."""
        with Path(path).open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), None)
        if not header:
            raise CircuitsimError(f"cannot read {path} as results: it is empty")
        data = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
        if data.shape[1] != len(header):
            raise CircuitsimError(f"cannot read {path} as results: {len(header)} names in "
                                  f"the header, {data.shape[1]} values in a row")
        names, units = [], {}
        for column in header[1:]:
            name, unit = split_unit(column)
            names.append(name)
            if unit:
                units[name] = unit
        return cls(data[:, 0], names, data[:, 1:], units=units)


def csv_header(names, units=None) -> list:
    """The CSV header: ``time`` and the names, or with ``units`` (name -> unit)
    ``name [unit]`` where the unit is known."""
    if units is None:
        return ["time"] + list(names)
    return ["time [s]"] + [f"{n} [{units[n]}]" if units.get(n) else n for n in names]


_UNIT = re.compile(r"^(.*\S)\s+\[([^\]]*)\]$")


def split_unit(column: str) -> tuple:
    """(name, unit or "") of a CSV header cell ``name [unit]`` or ``name``."""
    match = _UNIT.match(column.strip())
    return (match.group(1), match.group(2)) if match else (column.strip(), "")


def csv_rows(t, data) -> str:
    """The CSV rows of times ``t`` and values ``data`` (one row per time): the shortest
    repr that reads back to the same float, comma separated, CRLF ended as the csv
    module writes them."""
    table = np.column_stack([np.asarray(t, dtype=float), np.asarray(data, dtype=float)])
    return "".join(",".join(map(repr, row)) + "\r\n" for row in table.tolist())


def _plot(results: dict, variables, ax, what: str):
    """The figure of ``results`` {case name: Result}; ``ax`` one Axes or a list of them."""
    from .plotting import figure
    axes = None if ax is None else list(ax) if isinstance(ax, (list, tuple, np.ndarray)) \
        else [ax]
    return figure(results, variables, axes, what=what)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise CircuitsimError("results as tables need pandas: python -m pip install "
                              "pandas (or circuitsim[pandas])") from None
    return pandas


class Sweep(dict):
    """The results of a sweep or a set of studies: {case name: Result}, in the cases'
    order (``Netlist.sweep``)."""

    def plot(self, *variables, ax=None):
        """As ``Result.plot``, with every case on the same panels: one line per case,
        labelled by its name (as the command line's ``--plot`` of a sweep)."""
        return _plot(self, variables, ax, "Sweep.plot")

    def measures(self) -> dict:
        """The ``.measure`` values of every case as columns: ``case``, the swept
        parameters (SI), then each measure: {column: list} (``pandas.DataFrame(...)``
        makes it a table)."""
        from .measures import by_case
        return by_case(self)

    def to_pandas(self):
        """One long table: the columns ``case``, ``study`` (when studies were run), one
        per swept parameter (SI), ``time``, then the variables (the union over the
        cases; a variable a case does not record is NaN there). Units in
        ``df.attrs["units"]``."""
        pd = _pandas()
        studies = any(res.study for res in self.values())
        swept = list(dict.fromkeys(p for res in self.values() for p in res.parameters))
        parts, units = [], {}
        for name, res in self.items():
            frame = res.to_pandas().reset_index()
            units.update(frame.attrs.pop("units"))
            labels = {"case": name, **({"study": res.study or ""} if studies else {}),
                      **{p: res.parameters.get(p, np.nan) for p in swept}}
            for i, (key, value) in enumerate(labels.items()):
                frame.insert(i, key, value)
            parts.append(frame)
        table = pd.concat(parts, ignore_index=True)
        table.attrs["units"] = units
        return table


class StreamWriter:
    """Writes a run's CSV while it runs (``--stream``): rows are buffered and flushed
    every FLUSH_POINTS points or FLUSH_SECONDS to ``<path>.<pid>.part``, renamed onto
    ``path`` by ``close`` (also after a failure or interrupt), so that a long run leaves a
    readable file up to its last point and two runs never interleave their rows.

    A write that fails (a full or read-only file system) stops the stream, not the run:
    the truncated ``.part`` file is removed, nothing is renamed onto ``path``, and
    ``error`` says why (the run's Result, which holds every point, is then kept
    elsewhere by the caller).

    ``rows(T, Y, YP)`` turns a chunk of solver points into the recorded columns;
    ``units`` (name -> unit), when given, go in the header as ``name [unit]``."""

    FLUSH_POINTS = 500
    FLUSH_SECONDS = 1.0

    def __init__(self, path, names: list, rows, units: dict | None = None):
        self.path = Path(path)
        self.part = self.path.with_name(f"{self.path.name}.{os.getpid()}.part")
        self.rows = rows
        self.buffer: list = []
        self.count = 0
        self.error: str | None = None
        self.last = time.monotonic()
        try:
            self.fh = self.part.open("w", newline="", encoding="utf-8")
            csv.writer(self.fh).writerow(csv_header(names, units))
            self.fh.flush()
        except OSError as exc:
            raise CircuitsimError(f"cannot write {self.part}: {exc.strerror}") from None

    def __call__(self, t: float, y, yp) -> None:
        if self.error is not None:
            return
        self.buffer.append((t, y, yp))
        if (len(self.buffer) >= self.FLUSH_POINTS
                or time.monotonic() - self.last >= self.FLUSH_SECONDS):
            self.flush()

    def flush(self) -> None:
        # The chunk stays in the buffer until its rows are written, in one call: a Ctrl-C
        # while they are formatted (the long part) leaves it for close() to write. (It
        # was taken out first, and a Ctrl-C then lost a chunk of rows: seen under load.)
        if self.error is not None:
            return
        n = len(self.buffer)
        try:
            if n:
                chunk = self.buffer[:n]
                T = np.array([b[0] for b in chunk])
                data = self.rows(T, np.array([b[1] for b in chunk]),
                                 np.array([b[2] for b in chunk]))
                self.fh.write(csv_rows(T, data))
                del self.buffer[:n]
                self.count += n
            self.fh.flush()
        except OSError as exc:
            self.error = f"cannot write {self.part}: {exc.strerror}"
            self.buffer.clear()
        self.last = time.monotonic()

    def close(self) -> Path | None:
        """The complete file's path, or None if the stream failed (``error``)."""
        try:
            self.flush()
        finally:
            try:
                self.fh.close()
            except OSError as exc:             # the last buffered bytes did not fit
                self.error = self.error or f"cannot write {self.part}: {exc.strerror}"
            if self.error is not None:
                self.part.unlink(missing_ok=True)
                return None
            try:
                os.replace(self.part, self.path)
            except OSError as exc:
                raise CircuitsimError(f"cannot rename {self.part} to {self.path}: "
                                      f"{exc.strerror}") from None
        return self.path
