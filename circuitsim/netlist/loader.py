"""Reading netlist files: ``.include`` (textual, relative to the including file) and
``.lib NAME`` (``NAME.lib`` from ``CIRCUITSIM_PATH`` or the built-in library).

What may be read is confined: an ``.include`` must lie in the directory tree of the
netlist being loaded (for text given directly: the working directory), in a library
directory, or in a directory allowed explicitly (``include_path`` / ``--include-path``, or
``CIRCUITSIM_INCLUDE_PATH``). A path outside is refused before the file is opened, so no
line of it is ever echoed. The bytes read in all (includes counted each time) are
bounded, so that files including each other many times cannot exhaust memory.

The data files a netlist's calls name (``pwl(file=...)``, ``table(x, file=...)``) are
confined the same way (:func:`confined`) and read as each file is parsed, once per load
(:mod:`~circuitsim.netlist.datafiles`).
"""
from __future__ import annotations

import importlib.util
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import Loc, NetlistError
from . import ast, datafiles
from .parser import parse

MAX_BYTES = 64 * 2**20          # netlist text read in all, includes counted each time
MAX_FILES = 10_000              # files read in all (a fan-out of includes reads few bytes)
MAX_DEPTH = 100                 # includes nested in each other (Python's recursion: ~400)
BOM = "\ufeff"


def library_dirs() -> list[Path]:
    """Where ``.lib`` looks: CIRCUITSIM_PATH entries first, then the built-in library."""
    dirs = _env_dirs("CIRCUITSIM_PATH")
    # a source checkout's library/ first (the checkout holds pyproject.toml): the
    # library beside the code that runs, not that of an editable install pointing at
    # another checkout; an installed package has no checkout around it
    checkout = Path(__file__).resolve().parents[2]
    if (checkout / "pyproject.toml").is_file():
        dirs.append(checkout / "library")
    try:   # installed package: library/ is shipped as circuitsim.library (its folder,
        # found as importlib.resources.files finds it, without importing that: ~8 ms)
        dirs += map(Path, importlib.util.find_spec("circuitsim.library")
                    .submodule_search_locations)
    except (ImportError, AttributeError, TypeError):
        pass
    dirs.append(checkout / "library")      # a source tree without pyproject.toml
    unique = []
    for d in dirs:
        if d.is_dir() and d not in unique:
            unique.append(d)
    return unique


def _env_dirs(variable: str) -> list[Path]:
    return [Path(p) for p in os.environ.get(variable, "").split(os.pathsep) if p]


@dataclass
class Reader:
    """One load: the directories files may come from, and the bytes read so far."""
    allowed: list = field(default_factory=list)
    read: int = 0
    files: int = 0
    data: datafiles.DataCache = field(default_factory=datafiles.DataCache)

    @classmethod
    def for_netlist(cls, filename: str, include_path=()) -> "Reader":
        top = Path.cwd() if filename.startswith("<") else Path(filename).parent
        dirs = [top, *map(Path, include_path), *_env_dirs("CIRCUITSIM_INCLUDE_PATH"),
                *library_dirs()]
        return cls([d.resolve() for d in dirs])

    def permits(self, path: Path, loc: Loc | None = None) -> bool:
        try:
            real = path.resolve()
        except (OSError, RuntimeError, ValueError) as exc:   # a symlink loop, a NUL byte
            raise NetlistError(f"cannot read {str(path)[:200]}: {exc}", loc) from None
        return any(real.is_relative_to(d) for d in self.allowed)

    def text(self, path, loc: Loc | None = None) -> str:
        """The file's text (UTF-8, a leading byte-order mark dropped)."""
        if self.files >= MAX_FILES:
            raise NetlistError(f"reading {path} would make more than {MAX_FILES} netlist "
                               "files read (includes counted each time they are read)", loc)
        self.files += 1
        try:
            size = os.path.getsize(path)
            if self.read + size > MAX_BYTES:
                raise NetlistError(f"reading {path} would take the netlist text read to "
                                   f"{(self.read + size) / 2**20:.0f} MB (includes counted "
                                   f"each time they are read); the limit is "
                                   f"{MAX_BYTES // 2**20} MB", loc)
            with open(path, "rb") as fh:
                data = fh.read(MAX_BYTES + 1)
        except FileNotFoundError:
            raise NetlistError(f"file not found: {path}", loc) from None
        except OSError as exc:
            raise NetlistError(f"cannot read {path}: {exc.strerror or exc}", loc) from None
        self.read += len(data)
        return decode(data, str(path))


# a line `.end` (any case, blanks and a ';' comment around it): the netlist stops there
END_LINE = re.compile(rb"(?im)^[ \t]*\.end[ \t]*(;[^\n]*)?\r?$")


def decode(data: bytes, filename: str) -> str:
    """UTF-8 text of a netlist file; a byte that is not UTF-8 is an error at its line and
    column, unless it comes after the `.end` line, which ends the netlist (the text up to
    that line is returned)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        end = END_LINE.search(data, 0, exc.start)
        if end is not None and end.end() < exc.start:       # a whole line before it
            return decode(data[:end.end()], filename)
        line = data.count(b"\n", 0, exc.start) + 1
        start = data.rfind(b"\n", 0, exc.start) + 1
        end = data.find(b"\n", exc.start)
        shown = data[start:end if end >= 0 else len(data)].decode("utf-8", "replace")
        col = len(data[start:exc.start].decode("utf-8", "replace")) + 1
        raise NetlistError(f"byte 0x{data[exc.start]:02x} is not UTF-8 text; netlists are "
                           "UTF-8 (save the file as UTF-8, or write the character in ASCII)",
                           Loc(filename, line, col, shown)) from None
    return text[1:] if text.startswith(BOM) else text


def read_file(path: str | Path, loc: Loc | None = None) -> str:
    """The text of one netlist file (no confinement: the file the user named)."""
    return Reader().text(path, loc)


def load_statements(text: str, filename: str, include_path=(), _reader=None,
                    _stack: tuple = ()) -> list:
    """Parse ``text`` and splice in included files; returns the statement list.
    ``include_path``: further directories ``.include`` may read from."""
    reader = _reader or Reader.for_netlist(filename, include_path)
    if text.startswith(BOM):
        text = text[1:]
    tree = parse(text, filename)
    if datafiles.MENTIONS_FILE.search(text):          # pwl(file=...), table(..., file=...)
        datafiles.bind(tree.statements,
                       lambda name, loc, func: confined(name, filename, reader, loc,
                                                        f"{func}: file",
                                                        f"{func}: data file not found"),
                       reader.data)
    return _expand(tree.statements, filename, reader, _stack + (os.path.abspath(filename),))


def _expand(statements: list, filename: str, reader: Reader, stack: tuple) -> list:
    out = []
    for st in statements:
        if isinstance(st, ast.Directive) and st.name in ("include", "lib"):
            path = _resolve(st, filename, reader)
            key = os.path.abspath(path)
            if key in stack:
                if st.name == "lib":
                    continue   # already loaded
                raise NetlistError(f"'{path}' includes itself (include cycle)", st.loc)
            if len(stack) > MAX_DEPTH:
                raise NetlistError(f"includes are nested more than {MAX_DEPTH} deep",
                                   st.loc)
            out += load_statements(reader.text(path, st.loc), str(path), _reader=reader,
                                   _stack=stack)
        elif isinstance(st, ast.Subckt):
            st.body = _expand(st.body, filename, reader, stack)
            out.append(st)
        else:
            out.append(st)
    return out


def confined(name: str, filename: str, reader: Reader, loc: Loc, what: str,
             missing: str) -> Path:
    """The path of the file ``name`` written in ``filename`` (relative to its directory),
    if ``reader`` permits it and it exists: what ``.include`` and a data file's
    ``file=`` may read. ``what`` and ``missing`` word the errors (at ``loc``)."""
    base = Path(filename).parent if not filename.startswith("<") else Path.cwd()
    path = base / name
    if not reader.permits(path, loc):
        raise NetlistError(
            f"{what} \"{name}\" is outside the netlist's directory and the library; "
            "allow its directory with --include-path DIR (Python: include_path=[DIR]) "
            "or the environment variable CIRCUITSIM_INCLUDE_PATH", loc)
    try:
        found = path.is_file()
    except OSError as exc:                       # a name too long
        raise NetlistError(f"cannot read {str(path)[:200]}: {exc.strerror}", loc) from None
    if not found:
        raise NetlistError(f"{missing}: {path}", loc)
    return path


def _resolve(st: ast.Directive, filename: str, reader: Reader) -> Path:
    if len(st.positional) != 1:
        raise NetlistError(f".{st.name} takes exactly one argument", st.loc)
    arg = st.positional[0]
    name = arg.value if isinstance(arg, ast.String) else arg.text
    if st.name == "include":
        return confined(name, filename, reader, arg.loc, ".include",
                        "included file not found")
    fname = name if name.endswith(".lib") else name + ".lib"
    if Path(fname).name != fname:
        raise NetlistError(f".lib takes a library name, not a path: got '{name}'; put the "
                           "file in a directory of CIRCUITSIM_PATH, or use .include", arg.loc)
    searched = library_dirs()
    for d in searched:
        if (d / fname).is_file():
            return d / fname
    available = sorted({p.stem for d in searched for p in d.glob("*.lib")})
    raise NetlistError(f"library '{name}' not found (looked for {fname} in "
                       f"{', '.join(str(d) for d in searched) or 'no directory'}; "
                       f"available: {', '.join(available) or 'none'})", arg.loc)
