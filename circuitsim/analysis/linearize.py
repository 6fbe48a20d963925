"""Linearisation in minimal coordinates: ẋ = A·x + B·u, y = C·x + D·u, and the modes.

At a point (t, y, y') — the operating point, or a time of a run — the equations
F(t, y, y', u) = 0 are linearised (u: the inputs, sources' values):

    E·δy' + J·δy + F_u·δu = 0,       E = ∂F/∂y',  J = ∂F/∂y

with y = (d, z): d the differential unknowns (their y' appears), z the algebraic ones
(joint forces, multipliers, currents of sources, axis velocities). The differential
unknowns are redundant: they must stay on the invariants of the motion,

    Φ·δd = 0,   Φ = [ Lᵀ·J_d                hidden constraints: L spans the left null
                                            space of [E_d  J_z], the combinations of
                                            equations with neither a derivative nor an
                                            algebraic unknown (W·u = 0, g = 0, a
                                            potential source on a capacitor ...)
                      ∂g/∂d                 rigid joints' position constraints
                      e_θ − ∂θ/∂d           joint coordinates = geometry
                      e_s − e_a             integrators of the same potential
                      n_proj ]              what the projection restores (|q| = 1)

so δd = N·ξ with N a basis of the null space of Φ (k = dim ξ: twice the degrees of
freedom of a mechanism, plus the other states). The unknowns (δd', δz) then solve

    [E_d  J_z] · (δd', δz) = −J_d·N·ξ − F_u·δu,     Φ·δd' = −Φ̇·N·ξ

(the invariants turn with a moving point; Φ̇ = 0 at an equilibrium), an overdetermined
but consistent system whose least-squares solution gives δd' and δz per unit of ξ, u.

Minimal coordinates: k unknowns chosen greedily, in order of preference (joint
coordinates, joint axis velocities, other states, bodies' velocities, bodies' poses),
whose rows of the map ξ -> δy are independent (coordinate partitioning). With S those
rows, x = S·ξ and A = [δd']_sel·S⁻¹, B = [δd'/δu]_sel. At an equilibrium the eigenvalues do not
depend on this choice; at a moving point a joint angle and its rate make the linearised
equations those of the joint coordinates (a spinning rotor's quaternion would not).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError, NetlistError, did_you_mean
from ..output.files import replaced
from ..runtime.timefunctions import TimeFunctionArray, TimeVectorArray
from . import invariants as inv

ROUNDING_TOL = 1e-14     # an entry this small relative to its whole equation is rounding
RANK_TOL = 1e-9          # relative singular value: a constraint row (or a direction) counts
SELECT_TOL = 1e-6        # relative part of a candidate row outside the chosen ones
INPUT_STEP = 1e-6        # relative difference step of an input (the equations are linear
#                          in sources' values: the central difference is exact to rounding)
RATE_STEP = 1e-4         # relative move along y' over which Φ̇ is differenced (Φ holds
#                          joint angles' gradients differenced at 1e-7: ~1e-9 of noise)
OUTPUT_STEP = 1e-6       # relative difference step along a direction, for element outputs
CONSISTENCY_TOL = 1e-6   # relative residual of the reduced least-squares system
SHOWN = 3                # coordinates shown per mode shape
NEUTRAL = 1e-6           # |λ| relative to the largest below which a mode is neutral (a
#                          free coordinate: its eigenvalue is rounding)
MAX_DENSE = 3000         # unknowns: the reduction is dense
AXES = "xyz"


@dataclass
class Mode:
    """One eigenvalue λ of A (a complex pair listed once, Im λ > 0): natural frequency
    |λ|/2π (Hz), damping ratio −Re λ/|λ|, damped frequency Im λ/2π (Hz), time constant
    −1/Re λ (s, real modes), and the shape: (minimal coordinate, complex amplitude) of
    the largest components, the first 1."""
    eigenvalue: complex
    shape: list = field(default_factory=list)
    neutral: bool = False        # |λ| at the rounding level of the largest: a free coordinate

    @property
    def frequency(self) -> float:
        return abs(self.eigenvalue) / (2 * np.pi)

    @property
    def damped_frequency(self) -> float:
        return abs(self.eigenvalue.imag) / (2 * np.pi)

    @property
    def damping_ratio(self) -> float:
        size = abs(self.eigenvalue)
        return float(-self.eigenvalue.real / size) if size > 0 else 0.0

    @property
    def time_constant(self) -> float:
        return float(-1.0 / self.eigenvalue.real) if self.eigenvalue.real != 0 else np.inf

    @property
    def oscillatory(self) -> bool:
        return abs(self.eigenvalue.imag) > 1e-12 * max(abs(self.eigenvalue), 1e-300)


@dataclass
class Linearization:
    """ẋ = A·x + B·u, y = C·x + D·u in minimal coordinates ``states`` (names of
    unknowns), inputs ``inputs`` (sources' values), outputs ``outputs``; ``units``
    their SI units; ``t`` the point's time, ``at`` 'equilibrium' or 'run'; ``modes``
    the eigenvalues with their shapes, slowest first."""
    A: np.ndarray
    B: np.ndarray
    C: np.ndarray
    D: np.ndarray
    states: list
    inputs: list
    outputs: list
    units: dict
    t: float = 0.0
    at: str = "equilibrium"
    modes: list = field(default_factory=list)
    title: str = ""
    case: str = ""

    @property
    def eigenvalues(self) -> np.ndarray:
        return np.linalg.eigvals(self.A) if self.A.size else np.zeros(0, complex)

    def text(self) -> str:
        """What ``circuitsim linearize`` prints: the states, inputs, outputs and modes."""
        where = ("at the operating point" if self.at == "equilibrium"
                 else f"at t = {self.t:g} s of a run")
        lines = [f"linearisation{' of ' + self.title if self.title else ''}"
                 f"{' [' + self.case + ']' if self.case else ''} {where}: "
                 f"{len(self.states)} states, {len(self.inputs)} inputs, "
                 f"{len(self.outputs)} outputs",
                 "  states:  " + ", ".join(f"{s} ({self.units.get(s, '-')})"
                                          for s in self.states)]
        if self.inputs:
            lines.append("  inputs:  " + ", ".join(self.inputs))
        lines.append("  outputs: " + ", ".join(self.outputs))
        lines.append("  modes:")
        lines.append(f"    {'#':>3}  {'eigenvalue (1/s)':>24}  {'f_n (Hz)':>10}  {'zeta':>8}  "
                     f"{'f_d (Hz)':>10}  {'tau (s)':>9}  dominant coordinates")
        for i, m in enumerate(self.modes, 1):
            lam = m.eigenvalue
            ev = (f"{lam.real:.4g} ± {abs(lam.imag):.4g}j" if m.oscillatory
                  else f"{lam.real:.4g}")
            if m.neutral:
                numbers = f"{'0':>10}  {'-':>8}  {'-':>10}  {'inf':>9}"
            elif m.oscillatory:
                numbers = (f"{m.frequency:10.4g}  {m.damping_ratio:8.3g}  "
                           f"{m.damped_frequency:10.4g}  {'-':>9}")
            else:
                numbers = (f"{m.frequency:10.4g}  {m.damping_ratio:8.3g}  {'-':>10}  "
                           f"{m.time_constant:9.4g}")
            shape = ", ".join(_component(name, a, self.units.get(name, ""))
                              for name, a in m.shape)
            lines.append(f"    {i:>3}  {ev:>24}  {numbers}  {shape}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.text()

    def save(self, path) -> Path:
        """A, B, C, D and the names as an .npz file (written whole or not at all)."""
        with replaced(path) as (fh, target):
            np.savez(fh, A=self.A, B=self.B, C=self.C, D=self.D,
                     states=np.array(self.states), inputs=np.array(self.inputs),
                     outputs=np.array(self.outputs), eigenvalues=self.eigenvalues)
        return Path(target)


def _component(name: str, a: complex, unit: str) -> str:
    phase = np.degrees(np.angle(a))
    text = f"{name} {abs(a):.3g}"
    if abs(phase) > 0.5:
        text += f"∠{phase:.0f}°"
    return text


# --- inputs ------------------------------------------------------------------------------------

@dataclass
class _Input:
    name: str
    group: object
    param: str
    row: int
    component: int | None


class _Offset:
    """A time-function parameter with δ added to one instance (and component)."""

    def __init__(self, base, row, component, delta):
        self.base, self.row, self.component, self.delta = base, row, component, delta

    def __call__(self, t):
        out = np.array(self.base(t), dtype=float)
        if self.component is None:
            out[self.row] += self.delta
        else:
            out[self.row, self.component] += self.delta
        return out

    def __getattr__(self, name):
        return getattr(self.base, name)


def inputs_of(system, names) -> list:
    """The inputs named ``names``: an element (``Vsup``: its time-function value; a
    vector value gives one input per component, ``F1.Fx``, ``F1.Fy``, ``F1.Fz``), or an
    element's parameter (``F1.F``, ``F1.Fz``)."""
    by_name = {inst.name: (g, row) for g in system.groups
               for row, inst in enumerate(g.instances)}
    out = []
    for text in names:
        base, _, rest = text.partition(".")
        if text in by_name:
            base, rest = text, ""
        if base not in by_name:
            raise NetlistError(f"--inputs: no element '{base}'", None,
                               did_you_mean(base, by_name))
        g, row = by_name[base]
        timed = [p for p in g.etype.params if p.kind in ("time", "timevector")]
        if not timed:
            raise NetlistError(f"--inputs: {g.etype.keyword} {base} has no value that varies "
                               "in time (a source, a force or a torque does)", None)
        chosen = None
        for par in timed:
            if rest in ("", par.name) or (par.kind == "timevector" and len(rest) == len(par.name) + 1
                                          and rest[:-1] == par.name and rest[-1] in AXES):
                chosen = par
                break
        if chosen is None or (rest == "" and len(timed) > 1):
            raise NetlistError(f"--inputs: name one of {base}'s values: "
                               + ", ".join(f"{base}.{p.name}" for p in timed), None)
        if chosen.kind == "time":
            out.append(_Input(f"{base}.{chosen.name}" if rest else base, g, chosen.name, row,
                              None))
        elif rest and rest != chosen.name:
            out.append(_Input(f"{base}.{rest}", g, chosen.name, row, AXES.index(rest[-1])))
        else:
            out += [_Input(f"{base}.{chosen.name}{a}", g, chosen.name, row, k)
                    for k, a in enumerate(AXES)]
    return out


def _input_columns(system, t, y, yp, inputs) -> np.ndarray:
    """∂F/∂u (n, m) by central differences of the residual in each input's value."""
    cols = []
    for u in inputs:
        g = u.group
        base = getattr(g.p, u.param)
        value = np.asarray(base(t), dtype=float)
        value = value[u.row] if u.component is None else value[u.row, u.component]
        h = INPUT_STEP * max(abs(float(value)), 1.0)
        res = []
        for delta in (h, -h):
            wrapped = _Offset(base, u.row, u.component, delta)
            targets = [g.p] + ([g.p_init] if g.p_init is not g.p else [])
            try:
                for p in targets:
                    setattr(p, u.param, wrapped)
                res.append(system.residual(t, y, yp))
            finally:
                for p in targets:
                    setattr(p, u.param, base)
        cols.append((res[0] - res[1]) / (2 * h))
    return np.array(cols).T.reshape(system.n, len(inputs))


# --- the reduction ----------------------------------------------------------------------------

def _null_space(M: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """Basis of {x : M·x = 0}, rows of M normalised and columns scaled by ``scale``."""
    if M.shape[0] == 0:
        return np.eye(M.shape[1])
    norms = np.linalg.norm(M * scale[None, :], axis=1)
    keep = norms > 0
    Ms = (M[keep] * scale[None, :]) / norms[keep, None]
    if not len(Ms):
        return np.eye(M.shape[1])
    _, s, Vh = np.linalg.svd(Ms)
    rank = int(np.sum(s > RANK_TOL * max(s.max(initial=0.0), 1e-300)))
    return scale[:, None] * Vh[rank:].T


def _solved_part(E, J0, d, z, nominal) -> np.ndarray:
    """[E_d  J0_z]: the equations' parts in the derivatives and the algebraic unknowns,
    without the entries that are rounding of their whole equation (a joint's velocity
    row along which a body's ω has no lever arm); a small but real coefficient (a thin
    beam's rotary inertia) is kept."""
    whole = np.abs(np.hstack([E, J0])) @ np.concatenate([nominal, nominal])
    part = np.hstack([E[:, d], J0[:, z]])
    scaled = np.abs(part) * np.concatenate([nominal[d], nominal[z]])
    return np.where(scaled > ROUNDING_TOL * whole[:, None], part, 0.0)


def _hidden_combinations(system, t, y, yp, d, z, nominal, like=None) -> tuple:
    """L (n, m): the combinations lᵀ of the equations in which neither a derivative nor
    an algebraic unknown appears (lᵀ·[E_d  J_z] = 0), and the orthonormal basis U they
    come from (:func:`_solved_part`, rows normalised). ``like``: the U of a nearby
    point; the basis is then its projection onto this point's null space, so that L
    changes smoothly along a motion (its combinations turn with the bodies when they
    eliminate ω = A·ω_b)."""
    J0s = system.jacobian(t, y, yp, 0.0)
    J0, E = J0s.toarray(), (system.jacobian(t, y, yp, 1.0) - J0s).toarray()
    M = _solved_part(E, J0, d, z, nominal) * np.concatenate([nominal[d], nominal[z]])
    norms = np.linalg.norm(M, axis=1)
    norms = np.where(norms > 0, norms, 1.0)
    U, s, _ = np.linalg.svd(M / norms[:, None])
    rank = int(np.sum(s > RANK_TOL * max(s.max(initial=0.0), 1e-300)))
    U = U[:, rank:]
    if like is not None:
        U = U @ (U.T @ like)
    return U / norms[:, None], U


def _constraints(system, t, y, yp, L, pairs, d) -> np.ndarray:
    """Φ (m, n_d) at y: the hidden constraints Lᵀ·∂F/∂d, the rigid joints' position
    constraints, the coordinates, the linked integrators and the projection's rows."""
    J0 = system.jacobian(t, y, yp, 0.0).toarray()
    rows = (inv.position_rows(system, y) + inv.coordinate_rows(system, y)
            + inv.linked_rows(pairs, y, y))
    _, G = inv.scatter(rows, system.n)
    return np.vstack([L.T @ J0[:, d], G[:, d], inv.projection_normals(system, y)[:, d]])


def reduce(system, t, y, yp, inputs) -> dict:
    """The reduction of the linearised equations at (t, y, y') (module docstring). At a
    moving point the invariants turn with the motion: d/dt(Φ·δd) = 0 gives
    Φ·δd' = −Φ̇·δd, with Φ̇ the difference quotient of Φ along y'."""
    n = system.n
    if n > MAX_DENSE:
        raise ModelError(f"the linearisation is dense; {n} unknowns is above its limit of "
                         f"{MAX_DENSE}")
    J0s = system.jacobian(t, y, yp, 0.0)
    Es = system.jacobian(t, y, yp, 1.0) - J0s
    J0, E = J0s.toarray(), Es.toarray()
    Fu = _input_columns(system, t, y, yp, inputs)
    diff = np.asarray(system.id) != 0
    d, z = np.flatnonzero(diff), np.flatnonzero(~diff)
    nominal = np.maximum(np.abs(y), np.asarray(system.atol_scale, dtype=float))
    L, U = _hidden_combinations(system, t, y, yp, d, z, nominal)
    hidden, hidden_u = L.T @ J0[:, d], L.T @ Fu
    size = np.abs(hidden) @ nominal[d] + 1e-300
    for k, u in enumerate(inputs):
        if np.any(np.abs(hidden_u[:, k]) > 1e-8 * size):
            raise ModelError(f"--inputs: {u.name} prescribes a potential that states depend "
                             "on (a source driving a capacitor, a mass or a joint axis): the "
                             "response would need its derivative. Use a flow input (a "
                             "current source, a force or a torque) there", None)
    pairs = inv.linked_integrators(system, J0s, Es)
    Phi = _constraints(system, t, y, yp, L, pairs, d)
    N = _null_space(Phi, nominal[d])
    k = N.shape[1]
    if k == 0 and not inputs:
        raise ModelError("nothing to linearise: the system has no free state here (every "
                         "motion is prescribed or held: 0 degrees of freedom and no other "
                         "state) and no input was named", None)
    moving = np.abs(yp[d] / nominal[d]).max(initial=0.0) > 0
    Phi_dot = np.zeros_like(Phi)
    if moving:
        h = RATE_STEP / np.abs(yp[d] / nominal[d]).max()
        # every unknown moves along the motion: the invariants' gradients also depend on
        # algebraic ones (a body's ω = A·ω_b in its joints' velocity rows)
        shift = yp * h
        Phi_dot = (_constraints(system, t, y + shift, yp, _hidden_combinations(
                        system, t, y + shift, yp, d, z, nominal, like=U)[0], pairs, d)
                   - _constraints(system, t, y - shift, yp, _hidden_combinations(
                        system, t, y - shift, yp, d, z, nominal, like=U)[0], pairs, d)) / (2 * h)
    # unknowns (δd', δz); rows: the linearised equations, then Φ·δd' = −Φ̇·N·ξ
    nd = len(d)
    K = np.vstack([_solved_part(E, J0, d, z, nominal),
                   np.hstack([Phi, np.zeros((len(Phi), len(z)))])])
    rhs = -np.vstack([np.hstack([J0[:, d] @ N, Fu]),
                      np.hstack([Phi_dot @ N, np.zeros((len(Phi), len(inputs)))])])
    colscale = np.concatenate([nominal[d], nominal[z]])
    rowscale = np.abs(K) @ colscale
    rowscale[rowscale == 0] = 1.0
    import scipy.linalg   # on use: ~60 ms of import
    X, *_ = scipy.linalg.lstsq(K * colscale[None, :] / rowscale[:, None],
                               rhs / rowscale[:, None], cond=RANK_TOL * 1e-3,
                               lapack_driver="gelsd")
    X = colscale[:, None] * X
    misfit = (np.abs(K @ X - rhs) / rowscale[:, None]).max(initial=0.0)
    size = max((np.abs(rhs) / rowscale[:, None]).max(initial=0.0), 1e-300)
    if misfit > CONSISTENCY_TOL * size:
        raise ModelError(f"the linearised equations are not consistent on the invariants "
                         f"found (misfit {misfit / size:.2g} of their size): a constraint of "
                         "the states is missing; linearise at another point", None)
    Xd = X[:nd]                                  # δd' per unit of (ξ, u)
    Yx = np.zeros((n, k))
    Yu = np.zeros((n, len(inputs)))
    Yx[d], Yx[z], Yu[z] = N, X[nd:, :k], X[nd:, k:]
    return {"Xd": Xd, "Yx": Yx, "Yu": Yu, "N": N, "d": d, "nominal": nominal,
            "moving": moving}


def select_coordinates(system, Yx, Yu, nominal, moving=False) -> np.ndarray:
    """k unknowns whose rows of the map ξ -> δy are independent, in order of preference
    (invariants.preference). Candidates: the differential unknowns and the joints' axis
    nodes (a hinge's angular velocity, algebraic unless an inertia sits on it), not the
    algebraic rest (reactions, multipliers, source currents), nor an unknown that an
    input moves directly. At a moving point only differential unknowns: an algebraic
    one's rate would need the rate of its relation to the states."""
    k = Yx.shape[1]
    tier = inv.preference(system)
    candidate = (np.asarray(system.id) != 0) | ((tier == inv.JOINT_AXIS) & (not moving))
    order = [j for j in np.lexsort((np.arange(system.n), tier)) if candidate[j]]
    chosen, basis = [], np.zeros((0, k))
    moved_by_input = (np.abs(Yu).max(axis=1, initial=0.0) > 0) if Yu.size else \
        np.zeros(system.n, dtype=bool)
    rows = Yx / nominal[:, None]
    largest = np.linalg.norm(rows, axis=1).max(initial=0.0)
    for j in order:
        if len(chosen) == k:
            break
        r = rows[j]
        size = np.linalg.norm(r)
        # a row at the rounding level of the largest (a hanging body's vertical
        # velocity) is no coordinate, however independent its noise looks
        if size <= SELECT_TOL * largest or (
                moved_by_input[j] and np.abs(Yu[j]).max() > 1e-9 * size * nominal[j]):
            continue
        rest = r - basis.T @ (basis @ r)
        if np.linalg.norm(rest) > SELECT_TOL * max(size, 1e-3 * largest):
            chosen.append(int(j))
            basis = np.vstack([basis, rest / np.linalg.norm(rest)])
    if len(chosen) < k:
        raise ModelError(f"no set of {k} unknowns parametrises the motion here (found "
                         f"{len(chosen)})", None)
    return np.array(chosen, dtype=int)


def linearize(system, t, y, yp, inputs, outputs, output_fn, units) -> Linearization:
    """The linearisation at (t, y, y'): ``inputs`` from ``inputs_of``; ``outputs`` names
    of unknowns or element outputs (``output_fn(T, Y, YP)``: the element outputs of
    rows of unknowns); None: the states themselves."""
    red = reduce(system, t, y, yp, inputs)
    sel = select_coordinates(system, red["Yx"], red["Yu"], red["nominal"], red["moving"])
    S = red["Yx"][sel]
    T = np.linalg.inv(S)
    # rates per unit of (ξ, u): δd' solved; an algebraic coordinate (a hinge's axis
    # velocity, only at an equilibrium, where its relation to ξ is constant) through
    # ξ' = N⁺·δd'
    Yp = red["Yx"] @ np.linalg.pinv(red["N"]) @ red["Xd"]
    Yp[red["d"]] = red["Xd"]
    k = len(sel)
    A = Yp[sel, :k] @ T
    B = Yp[sel, k:]
    red["Yp"] = Yp
    states = [system.names[j] for j in sel]
    outputs = list(states if outputs is None else outputs)
    C, D = _outputs(system, t, y, yp, red, T, outputs, output_fn)
    modes = _modes(A, states, units, red["nominal"][sel])
    return Linearization(A, B, C, D, states, [u.name for u in inputs], outputs, units,
                         modes=modes)


def _outputs(system, t, y, yp, red, T, outputs, output_fn):
    """C, D: an unknown's rows of the maps; an element output by central differences
    along the state and input directions (with the differential unknowns' rates δd')."""
    index = {name: i for i, name in enumerate(system.names)}
    Yx, Yu = red["Yx"] @ T, red["Yu"]
    k, m = Yx.shape[1], Yu.shape[1]
    C, D = np.zeros((len(outputs), k)), np.zeros((len(outputs), m))
    derived = [o for o in outputs if o not in index]
    if derived:
        dirs_y = np.hstack([Yx, Yu])                     # δy per unit of (x, u)
        dirs_yp = np.zeros_like(dirs_y)                  # δd' per unit of (ξ, u), then x
        dirs_yp[red["d"]] = red["Xd"]
        dirs_yp[:, :k] = dirs_yp[:, :k] @ T
        scale = np.maximum(np.abs(dirs_y / red["nominal"][:, None]).max(axis=0),
                           np.abs(dirs_yp / red["nominal"][:, None]).max(axis=0))
        scale[scale == 0] = 1.0
        h = OUTPUT_STEP / scale
        Yrows = np.concatenate([y + (dirs_y * h).T, y - (dirs_y * h).T])
        YProws = np.concatenate([yp + (dirs_yp * h).T, yp - (dirs_yp * h).T])
        out = output_fn(np.full(len(Yrows), t), Yrows, YProws)
        half = len(h)
        slope = (out[:half] - out[half:]) / (2 * h[:, None])     # (k + m, outputs)
        names = output_fn.names
        for o in derived:
            if o not in names:
                raise NetlistError(f"--outputs: no variable '{o}'", None,
                                   did_you_mean(o, list(index) + list(names)))
    for r, o in enumerate(outputs):
        if o in index:
            C[r], D[r] = Yx[index[o]], Yu[index[o]]
        else:
            col = output_fn.names.index(o)
            C[r], D[r] = slope[:k, col], slope[k:, col]
    return C, D


def _modes(A, states, units, nominal) -> list:
    """Eigenvalues (a pair once), slowest first, with the largest components of their
    eigenvectors; a rate's component (unit X/s beside a state of unit X) counted as
    displacement, divided by |λ|, and every component by its nominal magnitude."""
    if not A.size:
        return []
    lam, V = np.linalg.eig(A)
    rate = np.array([units.get(s, "").endswith("/s") and
                     units.get(s, "")[:-2] in {units.get(o, "") for o in states}
                     for s in states])
    out = []
    floor = NEUTRAL * np.abs(lam).max()
    for i in np.argsort(np.abs(lam), kind="stable"):
        if lam[i].imag < -1e-12 * max(abs(lam[i]), 1e-300):
            continue
        v = V[:, i] / nominal
        weight = np.abs(v) / np.where(rate & (abs(lam[i]) > floor), abs(lam[i]), 1.0)
        order = np.argsort(-weight, kind="stable")
        shape = []
        for j in order[:SHOWN]:
            if weight[j] < 0.05 * weight[order[0]]:
                break
            shape.append((states[j], complex(V[j, i] / V[order[0], i])))
        lam_i = complex(lam[i].real, abs(lam[i].imag))
        out.append(Mode(lam_i, shape, bool(abs(lam[i]) <= floor)))
    return out
