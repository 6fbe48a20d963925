"""Sphinx configuration of the documentation site: the Markdown pages of this folder
(MyST, so that they stay readable on GitHub), the example notebooks (myst-nb), the
Python API from the docstrings (autodoc), the furo theme.

    python -m pip install -e ".[docs]"
    sphinx-build -W --keep-going -b html docs docs/_build/html
"""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))             # autodoc imports the package from this tree

from circuitsim import __version__  # noqa: E402

project = "circuitsim"
author = "circuitsim contributors"
copyright = "circuitsim contributors"
release = version = __version__

extensions = ["myst_nb", "sphinx.ext.autodoc"]
exclude_patterns = ["_build", "**/.ipynb_checkpoints"]

# Markdown: $...$ math in the notebooks; GitHub-style anchors for the pages' links to
# sections (elements.md#r--linear-resistance...), as GitHub renders them.
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

# The notebooks are committed without outputs and executed by every build, so that the
# site shows the plots and tables the current code computes (a cache keyed on the
# notebooks' text would keep outputs of an older circuitsim). Measured on 2 cores: the
# build takes ~37 s with execution (the landing gear's runs and sweep most of it), ~6 s
# without. tests/examples/test_notebooks.py executes the notebooks already, so the docs test
# builds with -D nb_execution_mode=off rather than run them twice.
nb_execution_mode = "force"
nb_execution_timeout = 300                # s per cell
nb_execution_raise_on_error = True        # a failing cell fails the build
nb_merge_streams = True

autodoc_member_order = "bysource"

html_theme = "furo"
html_title = f"circuitsim {version}"
