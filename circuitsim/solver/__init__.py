"""The DAE solver: variable-order BDF for F(t, y, y') = 0 with consistent initial values.

    from circuitsim.solver import solve, SimpleProblem
    out = solve(problem, 0.0, 1.0, y0, rtol=1e-6, atol=1e-9)
    out.t, out.y, out.yp, out.stats, out.status

See docs/solver.md. Imports nothing from ``elements/`` or ``netlist/``.
"""
from .bdf import fixed_step_bdf, solve
from .initial import consistent_initial_conditions
from .problem import DAEProblem, SimpleProblem
from .recording import SolverOutput

__all__ = ["solve", "SolverOutput", "consistent_initial_conditions", "DAEProblem",
           "SimpleProblem", "fixed_step_bdf"]
