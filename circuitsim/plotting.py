"""PNG plots of results with matplotlib (headless Agg backend)."""
from __future__ import annotations

from pathlib import Path

from .errors import CircuitsimError, did_you_mean


def check_variables(variables: list, names: list) -> None:
    """A located-enough error for a --plot name that will not be recorded (before a run)."""
    for var in variables:
        if var not in names:
            hint = did_you_mean(var, names)
            raise CircuitsimError(f"--plot: no recorded variable '{var}'"
                                  f"{'; ' + hint if hint else ''}")


def plot(results: dict, variables: list, path) -> Path:
    """Plot ``variables`` against time, one panel per variable, one line per case.

    ``results``: {case name: Result}. Returns the PNG path.
    """
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise CircuitsimError("plotting needs matplotlib: pip install 'circuitsim[plot]'") from None
    first = next(iter(results.values()))
    check_variables(variables, first.names)
    fig, axes = plt.subplots(len(variables), 1, sharex=True, squeeze=False,
                             figsize=(8, 2.6 * len(variables) + 0.6))
    for ax, var in zip(axes[:, 0], variables):
        for case, res in results.items():
            ax.plot(res.t, res[var], label=case or None)
        unit = first.units.get(var)
        ax.set_ylabel(f"{var} [{unit}]" if unit else var)
        ax.grid(True, alpha=0.3)
        if len(results) > 1:
            ax.legend(fontsize="small")
    axes[-1, 0].set_xlabel("time [s]")
    if first.title:
        fig.suptitle(first.title)
    fig.tight_layout()
    path = Path(path)
    try:
        fig.savefig(path, dpi=110)
    except OSError as exc:
        raise CircuitsimError(f"cannot write {path}: {exc.strerror}") from None
    finally:
        plt.close(fig)
    return path
