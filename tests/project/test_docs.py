"""The generated element reference is current, and the docs the README links exist."""
import pytest

from circuitsim.output import docgen

from helpers import REPO as ROOT


def test_element_and_command_line_references_are_current():
    assert docgen.main(["--check"]) == 0, (
        "docs/elements.md or docs/cli.md is stale: run  python -m circuitsim.output.docgen")


def test_command_line_reference_lists_every_option():
    text = (ROOT / "docs" / "cli.md").read_text()
    for option in ("--out", "--study", "--all-studies", "--set", "--include-path",
                   "--max-elements", "--plot", "--plot-file", "--stream", "--report",
                   "--quiet", "--version"):
        assert f"`{option}`" in text


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


@pytest.mark.slow
def test_the_tutorials_figures_are_current():
    """docs/tutorial.md's landing-gear figures (steps, power balance, the final angle)
    are those of a run of the example now, within 10 % (docs/tutorial_figures.py)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("tutorial_figures",
                                                  ROOT / "docs" / "tutorial_figures.py")
    figures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(figures)
    assert figures.main(["--check"]) == 0, "run: python docs/tutorial_figures.py"
