"""Reading netlist files: ``.include`` (textual, relative to the including file) and
``.lib NAME`` (``NAME.lib`` from the built-in library or ``CIRCUITSIM_PATH``)."""
from __future__ import annotations

import os
from pathlib import Path

from ..errors import Loc, NetlistError
from . import ast
from .parser import parse


def library_dirs() -> list[Path]:
    """Where ``.lib`` looks: CIRCUITSIM_PATH entries first, then the built-in library."""
    dirs = [Path(p) for p in os.environ.get("CIRCUITSIM_PATH", "").split(os.pathsep) if p]
    try:   # installed package: library/ is shipped as circuitsim.library
        from importlib.resources import files
        dirs.append(Path(str(files("circuitsim.library"))))
    except (ImportError, ModuleNotFoundError, TypeError):
        pass
    source_tree = Path(__file__).resolve().parents[2] / "library"   # source checkout
    dirs.append(source_tree)
    unique = []
    for d in dirs:
        if d.is_dir() and d not in unique:
            unique.append(d)
    return unique


def read_file(path: str | Path, loc: Loc | None = None) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise NetlistError(f"file not found: {path}", loc) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise NetlistError(f"cannot read {path}: {exc}", loc) from None


def load_statements(text: str, filename: str, _stack: tuple = ()) -> list:
    """Parse ``text`` and splice in included files; returns the statement list."""
    tree = parse(text, filename)
    return _expand(tree.statements, filename, _stack + (os.path.abspath(filename),))


def _expand(statements: list, filename: str, stack: tuple) -> list:
    out = []
    for st in statements:
        if isinstance(st, ast.Directive) and st.name in ("include", "lib"):
            path = _resolve(st, filename)
            key = os.path.abspath(path)
            if key in stack:
                if st.name == "lib":
                    continue   # already loaded
                raise NetlistError(f"'{path}' includes itself (include cycle)", st.loc)
            out += load_statements(read_file(path, st.loc), str(path), stack)
        elif isinstance(st, ast.Subckt):
            st.body = _expand(st.body, filename, stack)
            out.append(st)
        else:
            out.append(st)
    return out


def _resolve(st: ast.Directive, filename: str) -> Path:
    if len(st.positional) != 1:
        raise NetlistError(f".{st.name} takes exactly one argument", st.loc)
    arg = st.positional[0]
    name = arg.value if isinstance(arg, ast.String) else arg.text
    if st.name == "include":
        base = Path(filename).parent if not filename.startswith("<") else Path.cwd()
        path = (base / name)
        if not path.is_file():
            raise NetlistError(f"included file not found: {path}", arg.loc)
        return path
    fname = name if name.endswith(".lib") else name + ".lib"
    searched = library_dirs()
    for d in searched:
        if (d / fname).is_file():
            return d / fname
    available = sorted({p.stem for d in searched for p in d.glob("*.lib")})
    raise NetlistError(f"library '{name}' not found (looked for {fname} in "
                       f"{', '.join(str(d) for d in searched) or 'no directory'}; "
                       f"available: {', '.join(available) or 'none'})", arg.loc)
