"""Plots of results against time with matplotlib: one figure builder, used by
``Result.plot`` (a notebook shows the Figure it returns) and by the command line's
``--plot`` (which saves it as a PNG).

matplotlib is optional: it is imported when a plot is asked for. The backend is left as
the user has it (a notebook's inline display), except by the command line, which needs
no display and chooses Agg.
"""
from __future__ import annotations

from pathlib import Path

from ..errors import CircuitsimError, Loc, NetlistError, did_you_mean

PANEL_HEIGHT = 2.6      # inches per variable
FIGURE_WIDTH = 8.0      # inches
PNG_DPI = 110


def check_variables(variables: list, names: list, what: str = "--plot") -> None:
    """A clear error for a variable that is not (or will not be) recorded; ``what``
    names the caller in the message. An option of the command line (``--plot``,
    checked before the run) is the error's location."""
    for var in variables:
        if var not in names:
            hint = did_you_mean(var, names)
            if what.startswith("--"):
                raise NetlistError(f"{what} {var}: no recorded variable '{var}' (`.probe` "
                                   "chooses what is recorded)",
                                   Loc("<command line>", 1, 1, f"{what} {var}"), hint)
            raise CircuitsimError(f"{what}: no recorded variable '{var}'"
                                  f"{'; ' + hint if hint else ''}")


def _pyplot(headless: bool = False):
    try:
        import matplotlib
        if headless:
            matplotlib.use("Agg")      # a command line run needs no display
        import matplotlib.pyplot as plt
    except ImportError:
        raise CircuitsimError("plotting needs matplotlib: pip install 'circuitsim[plot]'") from None
    return plt


def _new_figure(height: float):
    """A figure made through pyplot, so that a notebook's inline backend is loaded and
    displays it, then closed in pyplot, so that it is displayed once (where it is
    returned) and not kept alive by pyplot. Save it with ``fig.savefig``."""
    plt = _pyplot()
    fig = plt.figure(figsize=(FIGURE_WIDTH, height))
    plt.close(fig)
    return fig


def figure(results: dict, variables: list, axes=None, what: str = "--plot"):
    """A matplotlib Figure of ``variables`` against time: one panel per variable (the
    unit on its y label), one line per case, labelled by the case name when there are
    several. ``results``: {case name: Result}; the first one's names and units count.

    ``axes``: one Axes per variable to draw into (an overlay on an existing figure)
    instead of a new figure; the Figure they belong to is returned. A panel with
    several labelled lines gets a legend."""
    variables = list(variables)
    if not variables:
        raise CircuitsimError(f"{what}: name at least one variable to plot")
    first = next(iter(results.values()))
    check_variables(variables, first.names, what)
    if axes is None:
        fig = _new_figure(PANEL_HEIGHT * len(variables) + 0.6)
        panels = fig.subplots(len(variables), 1, sharex=True, squeeze=False)[:, 0]
    else:
        panels = list(axes)
        if len(panels) != len(variables):
            raise CircuitsimError(f"{what}: {len(variables)} variables need as many axes, "
                                  f"got {len(panels)}")
        fig = panels[0].figure
    for panel, var in zip(panels, variables):
        for case, res in results.items():
            panel.plot(res.t, res[var], label=case or None)
        unit = first.units.get(var)
        panel.set_ylabel(f"{var} [{unit}]" if unit else var)
        panel.grid(True, alpha=0.3)
        if len(panel.lines) > 1 and panel.get_legend_handles_labels()[1]:
            panel.legend(fontsize="small")
    panels[-1].set_xlabel("time [s]")
    if axes is None:
        if first.title:
            fig.suptitle(first.title)
        fig.tight_layout()
    return fig


def plot(results: dict, variables: list, path) -> Path:
    """Save the figure of ``variables`` (one panel each, one line per case of
    ``results`` {case name: Result}) as a PNG at ``path``; returns the path."""
    _pyplot(headless=True)
    fig = figure(results, variables)
    path = Path(path)
    try:
        fig.savefig(path, dpi=PNG_DPI)
    except OSError as exc:
        raise CircuitsimError(f"cannot write {path}: {exc.strerror}") from None
    return path
