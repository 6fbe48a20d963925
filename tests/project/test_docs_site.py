"""The documentation site builds with Sphinx without a single warning (-W): every page in
the table of contents, every link and anchor resolved, the API docstrings valid
reStructuredText, the example notebooks included."""
import re
import subprocess
import sys

import pytest

from helpers import REPO

pytest.importorskip("sphinx")

DOCS = REPO / "docs"


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    out = tmp_path_factory.mktemp("site") / "html"
    # the notebooks are executed by tests/examples/test_notebooks.py; not a second time here
    build = subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-D", "nb_execution_mode=off", str(DOCS), str(out)],
        capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stdout + build.stderr
    return out


@pytest.mark.slow
def test_every_page_is_built(site):
    pages = {p.relative_to(site).as_posix() for p in site.rglob("*.html")}
    expected = {f"{p.stem}.html" for p in DOCS.glob("*.md")} | {
        "examples/dcmotor.html", "examples/landing_gear.html"}
    assert expected <= pages
    index = (site / "index.html").read_text()
    for page in ("tutorial", "elements", "cli", "api", "examples/dcmotor"):
        assert f'href="{page}.html"' in index


def test_the_api_page_documents_the_public_api(site):
    api = (site / "api.html").read_text()
    for name in ("load", "parse", "Netlist.simulate", "Netlist.sweep", "Netlist.check",
                 "Result.plot", "Result.to_pandas", "output.results.Sweep.to_pandas",
                 "NetlistError", "SolverError", "StepSizeTooSmall"):
        assert f'id="circuitsim.{name}"' in api, name
    assert "Netlist.simulate" in api


def test_the_notebooks_are_pages_with_their_text_and_code(site):
    dcmotor = (site / "examples" / "dcmotor.html").read_text()
    assert "DC motor spinning up a flywheel" in dcmotor and "omega_ss" in dcmotor
    gear = (site / "examples" / "landing_gear.html").read_text()
    assert "Landing gear retraction" in gear and "jobs" in gear
    assert 'href="../tutorial.html"' in gear


def test_the_element_index_links_reach_their_sections(site):
    page = (site / "elements.html").read_text()
    ids = set(re.findall(r'id="([^"]+)"', page))
    links = re.findall(r'href="#([^"]+)"', page)
    assert len(links) > 20
    assert [link for link in links if link not in ids] == []


def test_the_build_writes_nothing_into_the_sources(site):
    assert not (DOCS / "jupyter_execute").exists() and not (DOCS / "_build").exists()
