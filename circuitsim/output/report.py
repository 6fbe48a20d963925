"""Run report (``--report``, ``Result.report``): is the solution physically consistent?

- solver statistics;
- joints: the largest position-level violation (``gap`` m, ``twist`` rad) over the run;
  bodies: the largest quaternion-norm error ||q| − 1|;
- Kirchhoff: the flow balance of every node at the end of the run (the Newton residual
  the solver left; in the node's flow unit);
- power balance of the whole circuit. Every element's absorbed power is the sum over its
  port nodes of potential × the flow it draws from the node (its contribution to the
  node's flow balance). Elements are inputs (potential and flow sources, behavioural
  sources but those declared ``power=loss``, applied forces and torques:
  ``supplies_power``), stores (those reporting a
  stored energy: capacitances, inductances, masses, inertias, springs, bodies, 3D
  springs) or the rest (dissipation and ideal transfer: resistors, dampers, friction,
  stops, transformers, joints); a store that also dissipates (a 3D spring with damping:
  ``dissipating_store``) counts its absorbed work minus the change of its own energy as
  dissipation. Integrated over the run (Simpson's rule over the solver's steps,
  StepQuadrature): W_in = W_dissipated + ΔE, where ΔE is the change of the stored
  energies computed from the states (not from the powers). Its error measures the
  energy consistency of the solution and of the quadrature (within the run's
  tolerance); an element storing energy without reporting it (an elastic joint) shows
  up as "dissipation".
- heat balance of the thermal network (when there is one). Temperature × heat flow is
  no power, so thermal nodes are left out of the power balance (as signal nodes are);
  an element with a thermal port (rtherm, heat) turns the power it absorbs in the other
  domains into heat and so counts as dissipation there, named. Here, integrated over the
  run the same way: the heat each element puts into the thermal nodes (in: losses turned
  into heat, heat sources; out: to fixed temperatures, to ground) and the change of the
  heat content C·T of the heat capacities, from their states: Q_in − Q_out = ΔH.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..assembly.mobility import conditioning
from ..elements.declarations import FLOW_UNIT, FRAME_VARS, NO_POWER, SIGNAL, THERMAL

QUATERNION = slice(FRAME_VARS.index("q0"), FRAME_VARS.index("q3") + 1)

REPORT_WORST = 5
LOSS_SHOWN = 1e-6         # an element's dissipated work named when above this share of
                          # the energy scale (ideal transfers absorb rounding only)
SINGULAR_SAMPLES = 2000   # recorded points examined for singular configurations, at most
SINGULAR_MAX_ROWS = 600   # larger mechanisms are not examined (a dense SVD per point)
SINGULAR_DIP = 0.25       # a local minimum of the conditioning below this share of its
#                           median over the run marks a (near-)singular configuration


@dataclass
class RunReport:
    stats: dict
    joints: list = field(default_factory=list)        # (name, [(output, max |value|, unit)])
    bodies: list = field(default_factory=list)        # (name, max ||q| - 1|)
    kirchhoff: list = field(default_factory=list)     # (node, residual, unit), worst first
    energy: dict = field(default_factory=dict)        # W_in, W_diss, dE, W_store, error
    heat: dict = field(default_factory=dict)          # Q_in, Q_out, dH, error, by element
    warnings: list = field(default_factory=list)
    singular: list = field(default_factory=list)      # (t, σ_min/σ_max, [joints])
    drifting: list = field(default_factory=list)      # velocity-model joints among those

    def text(self) -> str:
        s = self.stats
        lines = ["run report",
                 f"  solver: {s.get('nsteps', 0)} steps ({s.get('nfail_err', 0)} rejected by the "
                 f"error test, {s.get('nfail_conv', 0)} by Newton), {s.get('njac', 0)} Jacobians, "
                 f"{s.get('nlu', 0)} LU, {s.get('nres', 0)} residuals, order ≤ "
                 f"{s.get('max_order_used', 0)}, h {s.get('hmin_used', 0):.3g} .. "
                 f"{s.get('hmax_used', 0):.3g} s"]
        if self.joints:
            lines.append("  joints (largest position-level violation over the run):")
            lines += [f"    {name:<12} " + ", ".join(f"{out} {value:.3g} {unit}"
                                                    for out, value, unit in items)
                      for name, items in self.joints]
        if self.bodies:
            worst = max(self.bodies, key=lambda b: b[1])
            lines.append(f"  quaternion norm: largest ||q| - 1| = {worst[1]:.3g} ({worst[0]}) "
                         f"over {len(self.bodies)} bodies, at the recorded points "
                         "(interpolated between steps)")
        if self.singular:
            lines.append(f"  near-singular configurations passed: {len(self.singular)} (the "
                         "rigid constraints' σ_min/σ_max dips at the recorded points)")
            lines += [f"    t ≈ {t:.4g} s: σ_min/σ_max {ratio:.2g}, weakest rows in "
                      f"{', '.join(joints)}" for t, ratio, joints in self.singular]
            if self.drifting:
                lines.append(f"    {', '.join(self.drifting)}: velocity model, which holds "
                             "only the velocities; at a rank change its position drift "
                             "decides the assembly branch the mechanism leaves on "
                             "(model=position holds the branch)")
        if self.kirchhoff:
            items = ", ".join(f"{node} {res:.3g} {unit}" for node, res, unit in
                              self.kirchhoff[:REPORT_WORST])
            lines.append(f"  Kirchhoff flow balance at the end, largest: {items}")
        e = self.energy
        if e:
            lines.append(f"  power balance over the run: input {e['W_in']:.6g} J = "
                         f"dissipated {e['W_diss']:.6g} J + stored {e['dE']:.6g} J "
                         f"(error {e['error']:.3g} J, {e['relative']:.2e} of the energy "
                         f"scale {e['scale']:.3g} J)")
            lines.append(f"    stored energy from the ports' power {e['W_store']:.6g} J vs from "
                         f"the states {e['dE']:.6g} J")
            if e.get("losses"):
                shown = e["losses"][:REPORT_WORST]
                more = len(e["losses"]) - len(shown)
                lines.append("    dissipated by: " + ", ".join(
                    f"{name} {work:.4g} J" for name, work in shown)
                    + (f" and {more} more" if more > 0 else ""))
        h = self.heat
        if h:
            lines.append(f"  heat balance over the run: into the thermal network "
                         f"{h['Q_in']:.6g} J = out of it {h['Q_out']:.6g} J + stored in heat "
                         f"capacities {h['dH']:.6g} J (error {h['error']:.3g} J)")
            for word, items in (("in", h["into"]), ("out", h["out_of"])):
                if items:
                    lines.append(f"    heat {word}: " + ", ".join(
                        f"{name} {q:.4g} J" for name, q in items[:REPORT_WORST])
                        + (f" and {len(items) - REPORT_WORST} more"
                           if len(items) > REPORT_WORST else ""))
        if self.warnings:
            lines.append(f"  warnings: {len(self.warnings)}")
        return "\n".join(lines)


def build(system, t: np.ndarray, Y: np.ndarray, all_names: list, data: np.ndarray,
          stats: dict, warnings: list, quad: StepQuadrature) -> RunReport:
    """The report of a run: ``t``, ``Y`` and ``data`` at the recorded points, ``quad``
    the work over the solver's steps (StepQuadrature, fed during the run)."""
    rep = RunReport(dict(stats), warnings=list(warnings))
    col = {name: i for i, name in enumerate(all_names)}
    if not len(t):
        return rep
    for g in system.groups:
        violations = [o for o in g.etype.outputs if o.kind == "violation"]
        if violations:
            for inst in g.instances:
                rep.joints.append((inst.name, [
                    (o.name, float(np.max(np.abs(data[:, col[f"{inst.name}.{o.name}"]]))),
                     system.units.get(f"{inst.name}.{o.name}", o.unit))   # a unit by domain
                    for o in violations]))
        if g.etype.is_body:                      # a body: FRAME_VARS, q last
            q = Y[:, g.var_idx[:, QUATERNION]]          # (T, N, 4)
            error = np.max(np.abs(np.sqrt(np.sum(q * q, axis=2)) - 1.0), axis=0)
            rep.bodies += [(inst.name, float(e)) for inst, e in zip(g.instances, error)]
    rep.singular = _singular_configurations(system, t, Y)
    weak = {name for _, _, joints in rep.singular for name in joints}
    rep.drifting = [inst.name for g in system.groups
                    if g.etype.is_joint and g.etype.positions_drift(g.p)
                    for inst in g.instances if inst.name in weak]
    rep.kirchhoff = _kirchhoff(system, *quad.last)
    if quad.first is not None:
        rep.energy = _power_balance(system, quad, col, data)
        rep.heat = _heat_balance(system, quad, col)
    return rep


def _singular_configurations(system, t, Y) -> list:
    """Where the rigid constraints came near a rank change: local minima of their
    conditioning (mobility.conditioning) far below its median over the run."""
    every = max(1, -(-len(t) // SINGULAR_SAMPLES))
    idx = np.arange(0, len(t), every)
    if len(idx) < 3:
        return []
    first = conditioning(system, np.concatenate([Y[0], (0.0, 1.0)]), SINGULAR_MAX_ROWS)
    if first is None:
        return []
    found = [first] + [conditioning(system, np.concatenate([Y[i], (0.0, 1.0)]))
                       for i in idx[1:]]
    ratio = np.array([f[0] for f in found])
    limit = SINGULAR_DIP * np.median(ratio)
    return [(float(t[idx[j]]), float(ratio[j]), found[j][1])
            for j in range(1, len(idx) - 1)
            if ratio[j] < limit and ratio[j] < ratio[j - 1] and ratio[j] <= ratio[j + 1]]


def _node_rows(system, leave_out=(SIGNAL,)) -> dict:
    """The rows of the physical nodes' flow balances (a signal node's row is its block's
    output equation: no flow, no power); ``leave_out=NO_POWER`` leaves the thermal
    nodes out too (temperature × heat flow is no power: the power balance's rows)."""
    return {system.numbering.index[name]: node for name, node in system.circuit.nodes.items()
            if name in system.numbering.index and node.domain not in leave_out}


def _kirchhoff(system, t, y, yp) -> list:
    res = system.residual(t, y, yp)
    out = []
    for i, node in _node_rows(system).items():
        unit = FLOW_UNIT.get(node.domain, "")
        out.append((node.name, float(abs(res[i])), unit))
    out.sort(key=lambda item: -item[1])
    return out


def _category(g) -> str:
    if g.etype.supplies_power(g.p):
        return "source"
    if any(o.kind == "energy" for o in g.etype.outputs):
        return "store"
    return "other"


class StepQuadrature:
    """The work each element absorbs and the heat it puts into the thermal nodes over
    the run, by Simpson's rule over the solver's own steps, each cut at the output points
    inside it: a piece from t0 to t1 contributes (t1 − t0)/6·(P(t0) + 4·P(t_mid) + P(t1)),
    with the state at the midpoint interpolated within the step. The recorded points
    alone would miss what happens between them (an end stop's impact inside an output
    interval); the steps alone, what an algebraic unknown does within a long step (a
    chamber's pressure near its cavitation floor). Fed by the solver's ``on_step``
    (solver/recording.py): one point starts (t0, or the right limit at a restart), pairs
    of points (midpoint, end) are the pieces of a step."""

    def __init__(self, system):
        self.system = system
        self.power_rows = np.zeros(system.n + 2, dtype=bool)
        self.power_rows[list(_node_rows(system, NO_POWER))] = True
        self.thermal_rows = np.zeros(system.n + 2, dtype=bool)
        self.thermal_rows[[i for i, node in _node_rows(system).items()
                           if node.domain == THERMAL]] = True
        # every group's residual entries in one vector (each group's (instances, rows)
        # raveled, in the groups' order): the row each entry is on, whether that row is
        # a power or a thermal node's, and the instance it belongs to (numbered over
        # all groups), so that the rates of all elements are two weighted counts
        rows = [g.row_idx.ravel() for g in system.groups]
        sizes = [len(g.instances) for g in system.groups]
        self._ends = np.cumsum(sizes)[:-1]
        self._entry_rows = np.concatenate(rows) if rows else np.zeros(0, dtype=int)
        self._on_power = self.power_rows[self._entry_rows]
        self._on_thermal = self.thermal_rows[self._entry_rows]
        self._instance = np.concatenate(
            [start + np.repeat(np.arange(n), g.row_idx.shape[1])
             for start, n, g in zip(np.cumsum([0] + sizes), sizes, system.groups)]) \
            if rows else np.zeros(0, dtype=int)
        self._count = sum(sizes)
        # (2, all instances): the work absorbed and the heat delivered
        self.total = np.zeros((2, self._count))
        self.first = self.last = None          # (t, y, yp) at the ends of the quadrature
        self._p_last = None                    # the rates at the last point

    @property
    def work(self) -> list:
        """Per group, the work each instance absorbed over the run."""
        return np.split(self.total[0], self._ends)

    @property
    def heat(self) -> list:
        """Per group, the heat each instance put into the thermal nodes over the run."""
        return np.split(self.total[1], self._ends)

    def _rates(self, t, y, yp) -> np.ndarray:
        """(2, all instances): the power each element absorbs at (t, y, y'), the sum over
        its port nodes of potential × the flow it draws (its share of the node's flow
        balance), and the heat flow it puts into the thermal nodes."""
        system = self.system
        ye, ype = system._extend(y), system._extend(yp, constants=False)
        F = np.concatenate([g.etype.residual(t, ye[g.var_idx], ype[g.var_idx], g.p).ravel()
                            for g in system.groups])
        potential = np.where(self._on_power, ye[self._entry_rows], 0.0)
        work = np.bincount(self._instance, potential * F, minlength=self._count)
        heat = -np.bincount(self._instance, np.where(self._on_thermal, F, 0.0),
                            minlength=self._count)
        return np.stack([work, heat])

    def __call__(self, T, Y, YP, at_switch: bool = False) -> None:
        if len(T) == 1:                        # a start: no work up to here
            self._p_last = self._rates(T[0], Y[0], YP[0])
            if self.first is None:
                self.first = (T[0], Y[0], YP[0])
            self.last = (T[0], Y[0], YP[0])
            return
        for k in range(0, len(T), 2):          # (midpoint, end) of each piece
            t0 = self.last[0]
            h = T[k + 1] - t0
            p_mid = self._rates(T[k], Y[k], YP[k])
            if at_switch and k + 2 == len(T):
                # the piece ends on a switch (a stop's contact: its state there is on
                # either side of it, its force 0 or c·v): the midpoint rule, which does
                # not read the end; the run restarts from the switch's right limit
                self.total += h * p_mid
            else:
                p_end = self._rates(T[k + 1], Y[k + 1], YP[k + 1])
                self.total += h / 6.0 * (self._p_last + 4.0 * p_mid + p_end)
                self._p_last = p_end
            self.last = (T[k + 1], Y[k + 1], YP[k + 1])


def _energies(system, point, col, names) -> float:
    """The sum of the stored-energy outputs ``names`` at one point (t, y, y')."""
    if not names:
        return 0.0
    t, y, yp = point
    outputs = system.compute_outputs(np.array([t]), y[None], yp[None])[0]
    full = np.concatenate([y, outputs])
    return float(sum(full[col[n]] for n in names))


def _power_balance(system, quad: StepQuadrature, col, data) -> dict:
    """Input, dissipated and stored work over the run. A store that also dissipates (a
    spring-damper) absorbs work of which only the change of its own stored energy is
    stored: the rest is counted as dissipation."""
    work = {"source": 0.0, "store": 0.0, "other": 0.0}
    store_losses = 0.0
    losses = []            # (element, work it dissipated): the "other" kind, lossy stores
    for g, each in zip(system.groups, quad.work):
        kind = _category(g)
        work[kind] += float(each.sum())
        if kind == "other":
            losses += [(inst.name, float(w)) for inst, w in zip(g.instances, each)]
        if kind == "store" and g.etype.dissipating_store:
            for inst, absorbed in zip(g.instances, each):     # named as losses too
                own = [f"{inst.name}.{o.name}" for o in g.etype.outputs if o.kind == "energy"]
                lost = float(absorbed) - (_energies(system, quad.last, col, own)
                                          - _energies(system, quad.first, col, own))
                store_losses += lost
                losses.append((inst.name, lost))
    energy_names = system.output_names("energy")
    W_in = 0.0 - work["source"]                                # 0.0 -: no "-0"
    W_diss = work["other"] + store_losses
    W_store = work["store"] - store_losses
    dE = (_energies(system, quad.last, col, energy_names)
          - _energies(system, quad.first, col, energy_names))
    error = W_in - W_diss - dE
    energy_cols = [col[n] for n in energy_names]
    scale = max(abs(W_in), abs(W_diss), abs(dE),
                float(np.max(np.abs(data[:, energy_cols]).sum(axis=1))) if energy_cols else 0.0,
                1e-300)
    named = sorted((item for item in losses if abs(item[1]) > LOSS_SHOWN * scale),
                   key=lambda item: -abs(item[1]))
    return {"W_in": W_in, "W_diss": W_diss, "dE": dE, "W_store": W_store, "error": error,
            "scale": scale, "relative": abs(error) / scale, "losses": named}


def _heat_balance(system, quad: StepQuadrature, col) -> dict:
    """The heat each element put into the thermal nodes over the run (``quad``), against
    the change of the heat capacities' heat content, from their states."""
    if not quad.thermal_rows.any():
        return {}
    stores = sorted(system.heat_names())
    into, out_of = [], []
    for g, heat in zip(system.groups, quad.heat):
        if not quad.thermal_rows[g.row_idx].any():
            continue
        for inst, q in zip(g.instances, heat):
            if any(f"{inst.name}.{o.name}" in stores for o in g.etype.outputs):
                continue                          # a heat capacity: counted from its state
            (into if q > 0 else out_of).append((inst.name, abs(float(q))))
    Q_in, Q_out = sum(q for _, q in into), sum(q for _, q in out_of)
    dH = _energies(system, quad.last, col, stores) - _energies(system, quad.first, col, stores)
    scale = max(Q_in, Q_out, abs(dH), 1e-300)
    return {"Q_in": Q_in, "Q_out": Q_out, "dH": dH, "error": Q_in - Q_out - dH,
            "into": sorted((i for i in into if i[1] > LOSS_SHOWN * scale), key=lambda i: -i[1]),
            "out_of": sorted((i for i in out_of if i[1] > LOSS_SHOWN * scale),
                             key=lambda i: -i[1])}
