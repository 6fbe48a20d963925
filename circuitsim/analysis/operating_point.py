"""Static equilibrium (the operating point): F(t, y, 0) = 0, SPICE's .op for a mechanism.

Every derivative is zero: bodies and joints at rest, capacitors carry no current,
inductors no voltage, springs hold their loads. Two stages, from the start-up's
consistent initial state y0:

1. Pseudo-transient continuation. Backward-Euler steps of the equations themselves in a
   pseudo-time with the inputs frozen at t, F(t, y_k, (y_k − y_{k−1})/h_k) = 0, the step
   growing at least twofold per step (and by the drop of the static residual, at most
   tenfold). Backward Euler damps every motion it cannot resolve, so the state slides
   into a *stable* equilibrium the way the physics would (a pendulum released horizontal
   ends hanging, not balanced upside down), and its Newton matrix ∂F/∂y + ∂F/∂y'/h is
   regular where the static one is not (a pendulum exactly horizontal: no static
   Newton step leads down).
2. Static Newton. Gauss–Newton on F(t, y, 0) = 0 together with the invariants of the
   motion (invariants.py: the rigid joints' position constraints, joint coordinates
   equal to the geometry, integrators of the same potential keeping their difference from
   y0), each correction the minimum-norm least-squares solution in nominal units: what
   the equations leave free (a quaternion's length, the charge of a floating capacitor)
   keeps its value. A line search halves the step until the residual drops; accepted
   points are projected (|q| = 1).

When the least-squares minimum leaves a residual, there is no equilibrium: NoEquilibrium
names the equations that no value of the unknowns balances (a free body's momentum
balance under gravity: m·g).
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..elements.declarations import FLOW_UNIT
from ..errors import ModelError, NoEquilibrium, did_you_mean
from ..output.files import replaced_text
from ..solver.lazy import sparse as sp   # scipy.sparse, imported on first use
from ..solver.superlu import splu
from . import invariants as inv

PTC_H0 = 1e-3            # s: first pseudo-time step (Newton's reach from the start point)
PTC_GROWTH = (2.0, 10.0) # per accepted pseudo step: at least doubling (a swing does not
#                          lower the residual every step), at most tenfold
PTC_MAX_STEPS = 200
PTC_H_MAX = 1e9          # s: a pseudo step this long is the static problem itself
PTC_TOL = 1e-6           # scaled static residual at which the static Newton takes over
PTC_NEWTON_ITERS = 8
PTC_RTOL, PTC_ATOL = 1e-8, 1e-10   # weights of the pseudo steps' Newton test
PTC_H_MIN = 1e-10        # s: a pseudo step cut below this ends stage 1
NEWTON_ITERS = 60
STEP_TOL = 1e-12         # scaled static correction that ends the iteration
OP_TOL = 1e-8            # scaled residual below which the point is an equilibrium
LINE_SEARCH = 12         # halvings of a static Newton step
RCOND = 1e-13            # relative singular value below which a direction is left free
MAX_DENSE = 4000         # unknowns: the static corrections are dense least-squares solves
REPORT = 3               # unbalanced equations named
ROUNDING = 1e-12         # a value this small beside the largest of its unit is shown as 0


@dataclass
class OperatingPoint:
    """The static equilibrium of a case: ``op["J1.Fz"]`` is a value (SI); ``names``
    every unknown and element output, ``units`` their SI units, ``y`` the unknowns
    (with y' = 0), ``recorded`` what a table shows (the ``.probe`` list, else all),
    ``t`` the time at which the inputs were taken, ``residual`` the largest equation
    residual in units of its terms, ``stats`` the work (pseudo steps, Newton
    iterations), ``notes`` what the start-up changed."""
    t: float
    names: list
    values: np.ndarray
    units: dict
    y: np.ndarray = field(repr=False)
    recorded: list = field(default_factory=list, repr=False)
    residual: float = 0.0
    stats: dict = field(default_factory=dict)
    notes: list = field(default_factory=list, repr=False)
    title: str = ""
    case: str = ""
    detail: set = field(default_factory=set, repr=False)   # left out of the table

    def __post_init__(self):
        self._col = {name: i for i, name in enumerate(self.names)}

    def __getitem__(self, name: str) -> float:
        try:
            return float(self.values[self._col[name]])
        except KeyError:
            hint = did_you_mean(name, self.names)
            raise KeyError(f"no variable '{name}'{'; ' + hint if hint else ''}") from None

    def __contains__(self, name: str) -> bool:
        return name in self._col

    def to_dict(self) -> dict:
        return {name: float(v) for name, v in zip(self.names, self.values)}

    def rows(self, everything: bool = False) -> list:
        """(group, name, value, unit) of what an engineer reads, grouped: positions and
        angles, forces and torques, pressures and flows, electrical, velocities (only
        those not zero), other. Unless ``everything`` (or a ``.probe`` list names them),
        dimensionless unknowns (quaternions, multipliers), ``detail`` (reactions along a
        joint's own normals, violations, energies) and other units are left out."""
        names = self.names if everything else (self.recorded or self.names)
        out = []
        for name in names:
            unit = self.units.get(name)
            value = self[name]
            group = _GROUPS.get(unit, "other")
            if not everything and not self.recorded and (
                    unit in (None, "1") or name in self.detail or group == "other"):
                continue
            if group == "velocities" and abs(value) < 1e-9 and not everything:
                continue
            out.append((group, name, value, unit or ""))
        order = list(dict.fromkeys(list(_GROUPS.values()) + ["other"]))
        return sorted(out, key=lambda r: order.index(r[0]))

    def text(self, everything: bool = False) -> str:
        """The printed table (``circuitsim op``)."""
        head = (f"operating point{' of ' + self.title if self.title else ''}"
                f"{' [' + self.case + ']' if self.case else ''} (inputs at t = {self.t:g} s): "
                f"largest residual {self.residual:.2g} of its equation's terms, "
                f"{self.stats.get('pseudo_steps', 0)} pseudo-time steps, "
                f"{self.stats.get('newton', 0)} static Newton iterations")
        lines = [head]
        rows = self.rows(everything)
        width = max((len(r[1]) for r in rows), default=4)
        group = None
        moving = [r for r in rows if r[0] == "velocities"]
        largest: dict = {}
        for _, _, value, unit in rows:
            largest[unit] = max(largest.get(unit, 0.0), abs(value))
        for g, name, value, unit in rows:
            if g != group:
                lines.append(f"  {g}:")
                group = g
            # rounding noise (1e-20 N beside 1e4 N) is shown as the zero it is
            value = 0.0 if abs(value) <= ROUNDING * largest[unit] else value
            lines.append(f"    {name:<{width}}  {_shown(value, unit)}")
        if not moving and not everything:
            lines.append("  velocities: all zero")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def save(self, path) -> Path:
        """name,value,unit for every variable (CSV, written whole or not at all)."""
        with replaced_text(path) as (f, target):
            w = csv.writer(f)
            w.writerow(["name", "value", "unit"])
            for name, value in zip(self.names, self.values):
                w.writerow([name, repr(float(value)), self.units.get(name, "")])
        return Path(target)


_GROUPS = {"m": "positions and angles", "rad": "positions and angles",
           "N": "forces and torques", "N*m": "forces and torques",
           "Pa": "pressures and flows", "m^3/s": "pressures and flows",
           "V": "electrical", "A": "electrical",
           "m/s": "velocities", "rad/s": "velocities"}


def _shown(value: float, unit: str) -> str:
    text = f"{value:.6g} {unit}".rstrip()
    if unit == "rad":
        text += f"  ({np.degrees(value):.5g}°)"
    elif unit == "Pa":
        text += f"  ({value / 1e5:.5g} bar)"
    return text


# --- the computation ------------------------------------------------------------------------

def solve(system, y0: np.ndarray, t: float = 0.0) -> tuple:
    """(y, stats) with F(t, y, 0) = 0 from the start-up state y0 (redundant loop rows
    already switched off). Raises NoEquilibrium when there is none."""
    n = system.n
    if n > MAX_DENSE:
        raise ModelError(f"the operating point solves dense least-squares problems of the "
                         f"size of the system; {n} unknowns is above its limit of {MAX_DENSE}")
    stats = {"pseudo_steps": 0, "newton": 0}
    J0 = system.jacobian(t, y0, np.zeros(n), 0.0)
    E = system.jacobian(t, y0, np.zeros(n), 1.0) - J0
    pairs = inv.linked_integrators(system, J0, E)
    y = _pseudo_transient(system, t, y0, stats, PTC_TOL)
    try:
        return _static_newton(system, t, y, y0, pairs, stats), stats
    except NoEquilibrium:
        # a slow motion (a creep) looks static to the residual: continue the
        # pseudo-transient to its longest step, then try again
        y = _pseudo_transient(system, t, y, stats, 0.0)
        return _static_newton(system, t, y, y0, pairs, stats), stats


def _nominal(system, y):
    return np.maximum(np.abs(y), np.asarray(system.atol_scale, dtype=float))


def _static(system, t, y):
    """F(t, y, 0) and its row scales: Σ_j (|∂F/∂y_ij| + |∂F/∂y'_ij|)·max(|y_j|, nominal_j),
    the size of the equation's terms (1 for an empty row)."""
    n = system.n
    zero = np.zeros(n)
    F = system.residual(t, y, zero)
    J0 = system.jacobian(t, y, zero, 0.0)
    E = system.jacobian(t, y, zero, 1.0) - J0
    D = _nominal(system, y)
    scale = abs(J0) @ D + abs(E) @ D
    scale[scale == 0] = 1.0
    return F, scale, J0, E


def _static_norm(system, t, y) -> float:
    try:
        F, scale, _, _ = _static(system, t, y)
    except (ArithmeticError, ValueError):
        return np.inf
    r = F / scale
    return float(np.sqrt(np.mean(r ** 2))) if np.all(np.isfinite(r)) else np.inf


def _pseudo_transient(system, t, y0, stats, tol):
    """Stage 1: backward-Euler steps in pseudo-time until the static residual is below
    ``tol``; the point of smallest static residual (the start itself when nothing falls
    into equilibrium: a free body)."""
    r_prev = _static_norm(system, t, y0)
    best = (r_prev, y0)
    if r_prev <= tol:
        return y0
    h, y_prev = PTC_H0, y0
    mask = (np.ones(system.n) if system.newton_mask is None
            else np.asarray(system.newton_mask, dtype=float))
    damped = (inv.preference(system) == inv.BODY_VELOCITY).astype(float)
    for _ in range(PTC_MAX_STEPS):
        y = _backward_euler(system, t, y_prev, h, mask, damped)
        if y is None:
            h /= 4.0
            if h < PTC_H_MIN:
                break
            continue
        stats["pseudo_steps"] += 1
        r = _static_norm(system, t, y)
        if r < best[0]:
            best = (r, y)
        if r <= tol or h >= PTC_H_MAX:
            break
        h *= float(np.clip(r_prev / max(r, 1e-300), *PTC_GROWTH))
        y_prev, r_prev = y, r
    return best[1]


def _backward_euler(system, t, y_prev, h, mask, damped):
    """One pseudo step by Newton; None when it fails. The bodies' velocities (``damped``)
    are also relaxed: their derivative is taken as (2·u − u_prev)/h, a damping m·u/h
    that halves them per step whatever h. A body is at rest at every static solution
    (dr/dt = V, dq/dt = ½·q⊗ω), so this changes no equilibrium; without it a motion
    that nothing resists (a pendulum's spin about the vertical, its angular momentum
    conserved) would never die out in pseudo-time."""
    y = y_prev.copy()
    ewt = mask / (PTC_RTOL * np.abs(y_prev) + PTC_ATOL * np.asarray(system.atol_scale))
    for _ in range(PTC_NEWTON_ITERS):
        yp = (y - y_prev) / h + damped * y / h
        try:
            res = system.residual(t, y, yp)
            J = system.jacobian(t, y, yp, 1.0 / h)
            if damped.any():
                J = J + (system.jacobian(t, y, yp, 2.0 / h) - J) @ sp.diags(damped)
            if not (np.all(np.isfinite(res)) and np.all(np.isfinite(J.data))):
                return None
            delta = splu(sp.csc_matrix(J)).solve(-res)
        except (ArithmeticError, ValueError, RuntimeError):
            return None
        if not np.all(np.isfinite(delta)):
            return None
        y = y + delta
        if np.sqrt(np.mean((delta * ewt) ** 2)) <= 1.0:
            return system.project(t, y) if system.project is not None else y
    return None


def _extra_rows(system, y, y_ref, pairs):
    rows = (inv.position_rows(system, y) + inv.coordinate_rows(system, y)
            + inv.linked_rows(pairs, y, y_ref))
    return inv.scatter(rows, system.n)


def _merit(system, t, y, y_ref, pairs, scale):
    try:
        F = system.residual(t, y, np.zeros(system.n))
        g, _ = _extra_rows(system, y, y_ref, pairs)
    except (ArithmeticError, ValueError):
        return np.inf
    r = np.concatenate([F, g]) / scale
    return float(r @ r) if np.all(np.isfinite(r)) else np.inf


def _static_newton(system, t, y, y_ref, pairs, stats):
    """Stage 2: minimum-norm Gauss–Newton on F(t, y, 0) = 0 and the invariants."""
    n = system.n
    for _ in range(NEWTON_ITERS):
        F, scale_F, J0, E = _static(system, t, y)
        g, G = _extra_rows(system, y, y_ref, pairs)
        D = _nominal(system, y)
        A = np.vstack([J0.toarray(), G])
        scale_g = np.abs(G) @ D
        scale_g[scale_g == 0] = 1.0
        scale = np.concatenate([scale_F, scale_g])
        b = -np.concatenate([F, g]) / scale
        As = A * D[None, :] / scale[:, None]
        import scipy.linalg   # on use: ~60 ms of import
        z = scipy.linalg.lstsq(As, b, cond=RCOND, lapack_driver="gelsd")[0]
        stats["newton"] += 1
        if np.abs(z).max(initial=0.0) <= STEP_TOL:
            break
        delta = D * z
        merit0 = float(b @ b)
        alpha, accepted = 1.0, False
        for _ in range(LINE_SEARCH):
            y_try = y + alpha * delta
            if system.project is not None:
                y_try = system.project(t, y_try)
            if _merit(system, t, y_try, y_ref, pairs, scale) < merit0:
                y, accepted = y_try, True
                break
            alpha /= 2.0
        if not accepted:
            break                                  # the least-squares minimum
    F, scale_F, _, _ = _static(system, t, y)
    r = np.abs(F) / scale_F
    worst = float(r.max(initial=0.0))
    stats["residual"] = worst
    if worst > OP_TOL or not np.isfinite(worst):
        raise NoEquilibrium(_unbalanced(system, t, F, r), t=t)
    return y


def _unbalanced(system, t, F, r) -> str:
    idx = np.argsort(-r, kind="stable")[:REPORT]
    parts = []
    for i in idx:
        if not r[i] > OP_TOL:
            continue
        node = system.circuit.nodes.get(system.names[i])
        unit = FLOW_UNIT.get(node.domain, "") if node is not None and node.domain else ""
        loc = node.loc if node is not None else getattr(
            system.numbering.state_owner.get(system.names[i]), "loc", None)
        where = f" ({loc})" if loc else ""
        parts.append(f"{system.equation_names[i]}{where}: {abs(F[i]):.4g} {unit}".rstrip())
    return (f"no static equilibrium with the inputs at t = {t:g} s: no value of the "
            f"unknowns balances {'; '.join(parts)}. Something moves for ever here (a body "
            "or node that nothing holds, a source that nothing balances); linearise at a "
            "time of a run instead (--at T)")
