"""Shared test setup. The plain helpers live in helpers.py (``from helpers import
REPO, NETLISTS, load_netlist, zero_crossings, tolerance_units, ...``); this file makes
that module importable whatever the working directory and import mode, and provides
the fixtures."""
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:               # pytest's default 'prepend' mode does this already
    sys.path.insert(0, _HERE)

from helpers import REPO  # noqa: E402

# The parse tables' cache (netlist/parser_tables.py) goes to a directory of this test
# process, not the user's ~/.cache; the command-line runs the tests start inherit it.
_CACHE = tempfile.mkdtemp(prefix="circuitsim-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE
# The suite runs the numpy reference kernels unless told otherwise (CIRCUITSIM_KERNELS=numba
# runs it on the compiled twins): with the default (auto) a test's numbers would depend
# on whether an earlier run had warmed the twins' cache. The twins' own tests set it.
os.environ.setdefault("CIRCUITSIM_KERNELS", "numpy")


def pytest_unconfigure(config):
    shutil.rmtree(_CACHE, ignore_errors=True)


LONG = "CIRCUITSIM_LONG_TESTS"


def pytest_collection_modifyitems(config, items):
    """Validations marked ``long`` (a minute or more of one core, covered in a shorter
    form by the suite and in full by a benchmark) run only with CIRCUITSIM_LONG_TESTS=1:
    they kept the whole suite near its 10-minute budget on 2 cores."""
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
