"""Shared test setup. The plain helpers live in helpers.py (``from helpers import
REPO, NETLISTS, load_netlist, zero_crossings, tolerance_units, ...``); this file makes
that module importable whatever the working directory and import mode, and provides
the fixtures."""
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:               # pytest's default 'prepend' mode does this already
    sys.path.insert(0, _HERE)

from helpers import REPO  # noqa: E402
from circuitsim.elements.compiled.warm import available  # noqa: E402

# The parse tables' cache (netlist/parser_tables.py) goes to a directory of this test
# process, not the user's ~/.cache; the command-line runs the tests start inherit it.
_CACHE = tempfile.mkdtemp(prefix="circuitsim-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
# The suite runs the compiled twins from every kernel's first call where numba is installed
# (the test extra has it; without it, the numpy reference kernels): with the default
# (auto) a test's numbers would depend on whether an earlier run had warmed the twins'
# cache. The numpy kernels are the reference the twins are checked against, element by
# element, in every form (tests/elements/test_contract.py, test_compiled.py: they set
# the choice themselves); CIRCUITSIM_KERNELS=numpy runs the whole suite on them.
os.environ.setdefault("CIRCUITSIM_KERNELS", "numba" if available() else "numpy")
# The warm-up netlists (circuitsim/warmup.py) in two processes at once, before any test:
# a cold cache compiles every twin in about a minute of one core, and each worker and
# each command-line run a test starts would compile them itself meanwhile.
WARM_UP_SHARES = ((0, 2, 3), (1,))


def pytest_sessionstart(session):
    """Warm the twins' cache once, in the process that starts the workers (or runs the
    tests), before they start. The suite leaves its own marker: the warm-up's
    (``python -m circuitsim.warmup``) also builds the extension a user's runs load."""
    if hasattr(session.config, "workerinput") or os.environ["CIRCUITSIM_KERNELS"] != "numba":
        return
    from circuitsim.elements.compiled import warm
    compiled = warm.cache_dir() / f"circuitsim-tests-compiled-{warm.cache_key()}"
    if warm.ready() or compiled.exists():
        return
    code = ("import os, sys\n"
            "os.environ['CIRCUITSIM_KERNELS'] = 'numba'\n"
            "from circuitsim import api, warmup\n"
            "for number in map(int, sys.argv[1:]):\n"
            "    api.parse(warmup.WARM_NETLISTS[number]).simulate()\n")
    runs = [subprocess.Popen([sys.executable, "-c", code, *map(str, share)], cwd=REPO,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            for share in WARM_UP_SHARES]
    for run in runs:
        _, err = run.communicate()
        if run.returncode != 0:
            raise pytest.UsageError(f"the compiled kernels' warm-up failed:\n{err}")
    compiled.parent.mkdir(parents=True, exist_ok=True)
    compiled.touch()


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE, ignore_errors=True)


LONG = "CIRCUITSIM_LONG_TESTS"


def pytest_collection_modifyitems(config, items):
    """The modules that hold a test marked ``slow`` run first (each module's tests stay
    together, so that its shared runs are made once per worker): the workers then end
    on short tests, together, instead of one waiting for the other's long validation.
    Validations marked ``long`` (a minute or more of one core, covered in a shorter
    form by the suite and in full by a benchmark) run only with CIRCUITSIM_LONG_TESTS=1:
    they kept the whole suite near its 10-minute budget on 2 cores."""
    slow_modules = {item.path for item in items if item.get_closest_marker("slow")}
    items.sort(key=lambda item: item.path not in slow_modules)      # a stable sort
    if os.environ.get(LONG):
        return
    skip = pytest.mark.skip(reason=f"long validation: {LONG}=1 runs it")
    for item in items:
        if "long" in item.keywords:
            item.add_marker(skip)


@pytest.fixture
def in_repo(monkeypatch):
    """Run the test with the repository root as working directory (restored after), for
    tests that pass repo-relative paths such as ``netlists/fourbar.cir`` on purpose
    because a message must show the path as the user typed it."""
    monkeypatch.chdir(REPO)
    return REPO
