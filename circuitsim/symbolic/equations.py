"""The equations of motion of one netlist's tree, P = M(q) q'' + c(q, q') + g(q), and
what can be done with them (text in three formats, operation counts)."""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import sympy as sp

from ..errors import CircuitsimError
from ..output.files import replaced_text
from . import codegen, connected_graphs, lagrange, newton_euler
from .kinematics import Kinematics
from .opcount import cse_ops, tree_ops
from .tree import tree_of

FORMATS = ("python", "latex", "c")
SUFFIXES = {".py": "python", ".tex": "latex", ".c": "c"}
METHODS = {"lagrange": lagrange.drive_forces, "newton_euler": newton_euler.drive_forces}


def format_of(path) -> str:
    """The format a file name asks for by its suffix (python when none matches)."""
    return SUFFIXES.get(Path(str(path)).suffix.lower(), "python")


@dataclass
class Equations:
    """``mass`` M(q) (n×n), ``velocity`` c(q, q') (n×1; centrifugal and Coriolis terms),
    ``gravity`` g(q) (n×1) and ``drive`` the list of P_j(q, q', q'') as the method of
    connected graphs builds them (M q'' + c + g, grouped as in the method); q, qd, qdd
    the symbols, in the order of ``joints`` (their recorded ``coordinates``)."""
    source: str
    title: str
    joints: tuple
    coordinates: tuple
    q: tuple
    qd: tuple
    qdd: tuple
    mass: sp.Matrix
    velocity: sp.Matrix
    gravity: sp.Matrix
    drive: list
    tally: connected_graphs.Tally
    tally_rotation: connected_graphs.Tally
    kinematics: Kinematics = field(repr=False)

    @classmethod
    def derive(cls, circuit) -> "Equations":
        kin = Kinematics(tree_of(circuit))
        d = connected_graphs.derive(kin)
        return cls(circuit.source, circuit.title or "", kin.tree.joints,
                   kin.tree.coordinates, kin.q, kin.qd, kin.qdd, d["mass"], d["velocity"],
                   d["gravity"], d["drive"], d["tally"], d["tally_rotation"], kin)

    def __repr__(self) -> str:
        return (f"<Equations of {self.source}: {len(self.joints)} joints "
                f"({', '.join(self.coordinates)})>")

    def python(self) -> str:
        """A Python module: ``mass_matrix(q)``, ``inverse_dynamics(q, qd, qdd)``,
        ``JOINTS`` and ``COORDINATES`` (numpy only)."""
        return codegen.python_module(self)

    def c(self, prefix: str = "") -> str:
        """A C file: ``mass_matrix(q, M)`` and ``inverse_dynamics(q, qd, qdd, P)``."""
        return codegen.c_source(self, prefix)

    def latex(self) -> str:
        """A LaTeX document of M(q), c(q, q') and g(q)."""
        return codegen.latex_document(self)

    def text(self, fmt: str = "python") -> str:
        """The equations in ``fmt``: 'python', 'latex' or 'c'."""
        if fmt not in FORMATS:
            raise CircuitsimError(f"unknown format '{fmt}' (formats: {', '.join(FORMATS)})")
        return {"python": self.python, "c": self.c, "latex": self.latex}[fmt]()

    def save(self, path, fmt: str | None = None) -> str:
        """Write the equations to ``path`` (whole or not at all) in ``fmt``, by default
        the one of its suffix (.py, .tex, .c; else python). Returns the format."""
        fmt = fmt or format_of(path)
        text = self.text(fmt)
        with replaced_text(path) as (fh, _):
            fh.write(text)
        return fmt

    def counts(self) -> dict:
        """Operations (opcount.Ops) to evaluate P(q, q', q''), as built ('tree') and after
        sympy.cse ('cse'), for this method ('graphs') and for Lagrange's equations with
        homogeneous matrices and recursive Newton–Euler built on the same kinematics;
        'tally', 'tally_rotation': the operations and differentiations of this method's
        derivation, (10)–(12) and the rotational terms (connected_graphs.Tally)."""
        out = {"graphs": {"tree": tree_ops(self.drive), "cse": cse_ops(self.drive)}}
        for name, build in METHODS.items():
            exprs = build(self.kinematics)
            out[name] = {"tree": tree_ops(exprs), "cse": cse_ops(exprs)}
        out["tally"], out["tally_rotation"] = self.tally, self.tally_rotation
        return out
