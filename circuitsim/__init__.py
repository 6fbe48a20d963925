"""circuitsim — mechanisms and their actuators as equivalent circuits.

Velocities and angular velocities are potentials, forces and torques are flows
(docs/conventions.md). Netlists are parsed, elaborated, assembled into F(t, y, y') = 0 and
integrated by a variable-order BDF solver.
"""
from .api import Netlist, load, parse
from .errors import (CircuitsimError, ConvergenceError, InconsistentInitialConditions,
                     ModelError, NetlistError, NoEquilibrium, SolverError,
                     StepSizeTooSmall)
from .output.results import Result

__version__ = "0.1.0"
__all__ = ["load", "parse", "Netlist", "Result", "CircuitsimError", "NetlistError",
           "ModelError", "SolverError", "ConvergenceError", "StepSizeTooSmall",
           "InconsistentInitialConditions", "NoEquilibrium", "__version__"]
