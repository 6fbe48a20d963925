"""Whether the twins' disk cache is warm, and starting the warm-up when it is not. The
warm-up itself (``python -m circuitsim.warmup``) runs small mechanisms that call every
twin with ``CIRCUITSIM_KERNELS=numba``, so that numba writes their machine code to its
disk cache, and then leaves the marker below.

1. ``ready()``: whether the marker for the present sources, numba and Python is there
   (checked once per process: a run keeps the path it started on).
2. ``start_in_background()``: when it is not, the first run that would use a twin starts
   this module in a detached process at low priority (one at a time, a lock file) and
   goes on in numpy; the runs after it load the cached code.
3. The marker sits where numba writes the cache: ``NUMBA_CACHE_DIR`` when set, else the
   ``__pycache__`` beside the twins when it is writable, else numba's per-user cache
   directory; deleting that cache deletes the marker with it.
"""
import functools
import hashlib
import importlib.util
import os
import platform
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PACKAGE_HOME = HERE.parents[2]           # the directory that holds the circuitsim package
# a lock older than this is left over from a warm-up that was killed (the cold compile
# of every twin takes 1-3 minutes on a loaded 2-core machine)
LOCK_SECONDS = 900.0
WARM_UP = "circuitsim.warmup"     # the module that compiles every twin and calls write_marker

@functools.cache
def available() -> bool:
    """Whether numba can be imported (without importing it)."""
    return importlib.util.find_spec("numba") is not None


def _numba_version() -> bytes:
    """numba's version file (versioneer's, with the release and its revision), read
    without importing numba or importlib.metadata (17 ms of every run's start)."""
    spec = importlib.util.find_spec("numba")
    if spec is None or spec.origin is None:
        return b"none"
    package = Path(spec.origin).parent
    for name in ("_version.py", "__init__.py"):
        if (package / name).exists():
            return (package / name).read_bytes()
    return b"unknown"


def cache_key() -> str:
    """A digest of what the cached machine code depends on: the twins' sources, numba's
    version, Python's and the machine's."""
    digest = hashlib.sha256()
    for path in sorted(HERE.glob("*.py")):
        digest.update(path.name.encode() + path.read_bytes())
    digest.update(_numba_version())
    digest.update(f"{sys.version} {platform.machine()}".encode())
    return digest.hexdigest()[:16]


def cache_dir() -> Path:
    """Where numba writes the twins' cache (contract item 3)."""
    if os.environ.get("NUMBA_CACHE_DIR"):
        return Path(os.environ["NUMBA_CACHE_DIR"])
    in_tree = HERE / "__pycache__"
    if os.access(in_tree if in_tree.exists() else HERE, os.W_OK):
        return in_tree
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "numba"


def marker() -> Path:
    return cache_dir() / f"circuitsim-warm-{cache_key()}"


_ready: list = []


def ready() -> bool:
    """Whether the twins' cache is warm (contract item 1)."""
    if not _ready:
        _ready.append(marker().exists())
    return _ready[0]


_started: list = []


def start_in_background() -> None:
    """Start the warm-up in a detached process unless one runs already (contract
    item 2); never raises: without it the run simply stays in numpy."""
    if _started:
        return
    _started.append(True)
    try:
        lock = marker().with_suffix(".lock")
        lock.parent.mkdir(parents=True, exist_ok=True)
        if lock.exists() and time.time() - lock.stat().st_mtime < LOCK_SECONDS:
            return
        lock.unlink(missing_ok=True)
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
        import subprocess                  # here only: a warm run does not pay its ~3 ms
        env = {**os.environ, "CIRCUITSIM_KERNELS": "numba"}
        # run from the directory that holds this circuitsim: ``-m`` puts the working
        # directory first on the path, and a checkout there would be compiled instead
        subprocess.Popen([sys.executable, "-m", WARM_UP, str(lock)], env=env, cwd=PACKAGE_HOME,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL, start_new_session=True)
    except OSError:
        return


def write_marker() -> None:
    """Say that the twins' cache is warm for the present sources (after a warm-up)."""
    path = marker()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"twins compiled {time.strftime('%Y-%m-%d %H:%M:%S')}\n")
