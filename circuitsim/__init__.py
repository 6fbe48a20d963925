"""circuitsim — mechanisms and their actuators as equivalent circuits.

Velocities and angular velocities are potentials, forces and torques are flows
(docs/conventions.md). Netlists are parsed, elaborated, assembled into F(t, y, y') = 0 and
integrated by a variable-order BDF solver.

``load``, ``parse``, ``Netlist`` and ``Result`` are imported on first use, so that
importing the package costs nothing until they are needed (the command line sets up its
process before numpy is loaded: circuitsim/cli.py).
"""
import importlib

from .errors import (CircuitsimError, ConvergenceError, InconsistentInitialConditions,
                     ModelError, NetlistError, NoEquilibrium, SolverError,
                     StepSizeTooSmall)

__version__ = "0.1.0"
__all__ = ["load", "parse", "Netlist", "Result", "CircuitsimError", "NetlistError",
           "ModelError", "SolverError", "ConvergenceError", "StepSizeTooSmall",
           "InconsistentInitialConditions", "NoEquilibrium", "__version__"]
_ON_USE = {"load": ".api", "parse": ".api", "Netlist": ".api", "Result": ".output.results"}


def __getattr__(name: str):
    if name in _ON_USE:
        value = getattr(importlib.import_module(_ON_USE[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'circuitsim' has no attribute {name!r}")


def __dir__() -> list:
    return sorted(set(globals()) | set(_ON_USE))
