"""The generated element reference is current, and the docs the README links exist."""
from circuitsim import docgen

from helpers import REPO as ROOT


def test_element_reference_is_current():
    assert docgen.main(["--check"]) == 0, (
        "docs/elements.md is stale: run  python -m circuitsim.docgen")


def test_every_element_is_in_the_reference():
    text = (ROOT / "docs" / "elements.md").read_text()
    from circuitsim.elements import element_types
    for keyword, etype in element_types().items():
        assert f"## `{etype.keyword}`" in text
        for par in etype.params:
            assert f"| `{par.name}` |" in text


def test_readme_links_exist():
    for name in ("language.md", "elements.md", "solver.md"):
        assert (ROOT / "docs" / name).is_file()
