"""The installed package holds every subpackage: pyproject lists them by hand, and an
editable install (the one the tests run on) does not notice one missing (a wheel
without circuitsim.analysis failed at import)."""

import pytest

from helpers import REPO

tomllib = pytest.importorskip("tomllib")


def test_every_subpackage_is_listed_in_pyproject():
    listed = set(tomllib.loads((REPO / "pyproject.toml").read_text())
                 ["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(REPO).parts)
             for p in (REPO / "circuitsim").rglob("__init__.py")}
    assert found <= listed, f"not in pyproject's packages: {sorted(found - listed)}"
