"""The netlist grammar's Lark parsers, their LALR tables built once rather than in every process.

Building the tables of ``grammar.lark`` takes ~40 ms, most of a small netlist's parse;
reading them back takes ~4 ms. :func:`lark_parser` keeps them in a file in the per-user
cache directory (:func:`cache_dir`):

1. The file is named by a hash of everything the tables depend on: the grammar, the
   parser's options, Lark's version and Python's. Two grammars or two versions never
   share a file, so a file is never stale. Its first line repeats the whole hash.
2. It is written whole or not at all (a temporary file renamed onto its name when
   complete), so processes starting together never read half a file.
3. A file that does not load (damaged, or not this hash's) is built again and replaced;
   the parse is the same either way.
4. A cache directory that cannot be made or written costs time, not the parse: the
   tables are then built in memory, as without a cache.

The file holds Lark's own serialisation of the parser (``Lark.save``), read back by the
loader of Lark's ``cache=`` option, ``Lark._load``, which binds the transformer the fast
route runs while it parses (``Lark.load`` cannot). ``cache=`` itself is not used: it
writes its file in place, and the hash it checks includes the file's path, so a file
written under a temporary name and renamed would never match.
"""
from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import lark
from lark import Lark

from ..errors import CircuitsimError
from ..output.files import replaced

APP_DIR = "circuitsim"
KEY_LENGTH = 20          # hex digits of the hash in a file name: collisions out of reach
BOUND_ON_LOAD = ("transformer",)    # options that are objects, not part of the tables


def cache_dir() -> Path | None:
    """The per-user cache directory: %LOCALAPPDATA%\\circuitsim on Windows, else
    $XDG_CACHE_HOME/circuitsim or ~/.cache/circuitsim; None without a home directory."""
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / APP_DIR
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"]) / APP_DIR
    try:
        return Path.home() / ".cache" / APP_DIR
    except RuntimeError:         # no home directory (a bare service account)
        return None


def tables_key(grammar: str, options: dict) -> str:
    """The hash of what the tables of ``grammar`` under ``options`` depend on (item 1)."""
    tables_options = sorted((k, v) for k, v in options.items() if k not in BOUND_ON_LOAD)
    text = "\n".join([grammar, repr(tables_options), lark.__version__,
                      "%d.%d" % sys.version_info[:2]])
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def tables_path(key: str) -> Path | None:
    """The cache file of the tables of hash ``key``; None without a cache directory."""
    directory = cache_dir()
    return None if directory is None else directory / f"grammar-{key[:KEY_LENGTH]}.lark-tables"


def lark_parser(grammar: str, **options) -> Lark:
    """``Lark(grammar, **options)`` (an LALR parser), its tables read from the cache or
    built and written there (items 1-4)."""
    key = tables_key(grammar, options)
    path = tables_path(key)
    bound = {name: value for name, value in options.items() if name in BOUND_ON_LOAD}
    loaded = None if path is None else _read(path, key, bound)
    if loaded is not None:
        return loaded
    parser = Lark(grammar, **options)
    if path is not None:
        _write(path, key, parser)
    return parser


def _read(path: Path, key: str, bound: dict) -> Lark | None:
    """The parser of the tables in ``path``; None if there are none, or not these (item 3)."""
    try:
        with open(path, "rb") as file:
            if file.readline() != key.encode("ascii") + b"\n":
                return None
            return Lark.__new__(Lark)._load(file, **bound)
    except FileNotFoundError:
        return None
    except Exception:            # noqa: BLE001 - a damaged file is built again (item 3)
        return None


def _write(path: Path, key: str, parser: Lark) -> None:
    """Write the tables of ``parser`` to ``path``, whole (item 2), or nothing (item 4)."""
    try:
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with replaced(path) as (file, _):
            file.write(key.encode("ascii") + b"\n")
            parser.save(file, exclude_options=BOUND_ON_LOAD)
    except (OSError, CircuitsimError):
        pass
