"""Files written whole or not at all: results, comparison tables, animation pages.

A file is written to a temporary file next to it and renamed onto its name when complete,
so that a failure, an interrupt or a second run writing the same path never leaves half a
file or interleaved rows. Only a regular file is replaced: a device, a pipe, a socket or a
directory of that name is refused, its node left as it was.
"""
from __future__ import annotations

import io
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

from ..errors import CircuitsimError


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


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
        fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".part",
                                    dir=path.parent if str(path.parent) else ".")
    except OSError as exc:
        raise CircuitsimError(f"cannot write {path}: {exc.strerror}") from None
    try:
        os.chmod(temp, 0o666 & ~_umask())      # as an ordinary new file, not mkstemp's 0600
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
