"""Files written whole or not at all: results, comparison tables, animation pages.

A file is written to a temporary file next to it and renamed onto its name when complete,
so that a failure, an interrupt or a second run writing the same path never leaves half a
file or interleaved rows. Only a regular file is replaced: a device, a pipe, a socket or a
directory of that name is refused, its node left as it was. Results that cannot be
written where asked (a full or read-only file system) are written to the temporary
directory or the home directory instead (``kept``), and the caller names the place.
"""
from __future__ import annotations

import io
import itertools
import os
from contextlib import contextmanager
from pathlib import Path

from ..errors import CircuitsimError


def kept(save, target) -> tuple:
    """``save(path)`` onto ``target``; if that fails, onto the same name with the process
    id in the temporary directory, then in the home directory. Returns (the path
    written, None) or (the path written instead or None, why ``target`` failed)."""
    target = Path(target)
    try:
        save(target)
        return target, None
    except CircuitsimError as exc:
        reason = str(exc)
    for folder in _fallback_folders(target):
        place = folder / f"{target.stem}.{os.getpid()}{target.suffix}"
        try:
            save(place)
            return place, reason
        except CircuitsimError:
            continue
    return None, reason


def _fallback_folders(target: Path) -> list:
    """The temporary and the home directory, those that exist and are not the target's."""
    import tempfile                      # ~5 ms: only where a file could not be written
    folders = []
    for folder in map(Path, (tempfile.gettempdir(), os.path.expanduser("~"))):
        try:
            if folder.is_dir() and not folder.samefile(target.parent):
                folders.append(folder)
        except OSError:                    # the target's folder is gone: any other will do
            folders.append(folder)
    return folders


_SERIAL = itertools.count()
NAME_TRIES = 100         # names taken by other files before the write gives up


def _new_file_beside(path: Path) -> tuple:
    """(descriptor, name) of a new file ``.<name>.<pid>.<serial>.part`` next to ``path``,
    opened for writing with O_EXCL (never a file or a link that is there already) and the
    permissions of an ordinary new file (0666 less the umask). tempfile.mkstemp would do
    as well, but importing tempfile costs ~5 ms of every run that writes results."""
    folder = path.parent if str(path.parent) else Path(".")
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    for _ in range(NAME_TRIES):
        temp = str(folder / f".{path.name}.{os.getpid()}.{next(_SERIAL)}.part")
        try:
            return os.open(temp, flags, 0o666), temp
        except FileExistsError:
            continue
    raise FileExistsError(f"{NAME_TRIES} names beside it are taken")


@contextmanager
def replaced(path):
    """Write ``path`` as a whole or not at all: yields (binary file, path) for a temporary
    file next to it, renamed onto ``path`` when the block ends without an error and
    removed otherwise. Two runs writing the same path leave one complete file (the last
    to finish), never interleaved rows."""
    path = Path(path)
    if os.path.exists(path) and not os.path.isfile(path):
        raise CircuitsimError(f"cannot write {path}: not a regular file (a directory, a "
                              "device, a pipe or a socket)")
    try:
        fd, temp = _new_file_beside(path)
    except OSError as exc:
        raise CircuitsimError(f"cannot write {path}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            yield fh, path
        os.replace(temp, path)
    except OSError as exc:
        raise CircuitsimError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        if os.path.exists(temp):
            os.unlink(temp)


@contextmanager
def replaced_text(path):
    """``replaced`` for text (UTF-8, newlines as written): yields (text file, path)."""
    with replaced(path) as (fh, target):
        text = io.TextIOWrapper(fh, newline="", encoding="utf-8")
        yield text, target
        text.flush()
        text.detach()
