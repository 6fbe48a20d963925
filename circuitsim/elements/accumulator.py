"""accumulator — a gas-charged hydraulic accumulator (piston or bladder): the gas spring
of ``gasspring`` in a shell of volume V0, pre-charged at p0, that empties.

A native element: it is the gas law of ``gasspring`` (its own state, a nonlinear
capacitance) plus the empty limit, a switch of the law located as a state event.

Ports
    p: hydraulic node, the gauge oil pressure at the accumulator's port (Pa).
Parameters
    V0: shell volume = the gas volume when empty (m³).
    p0: absolute pre-charge pressure of the gas at V0 (Pa).
    n: polytropic exponent (default 1.4, adiabatic; 1 isothermal).
    patm: atmospheric pressure (absolute, Pa, default 101325).
    Vg0: initial gas volume (m³, default V0: empty, the port at the pre-charge; at most
        V0).
    Vd: dead oil volume at the port, behind the closed poppet of an empty accumulator
        (m³, default V0/1000).
    beta: bulk modulus of that oil (Pa, default 1.5e9).
Internal variables
    Voil (differential): the oil held, V0 − Vg (m³; −δ when empty).
Equations
    Q = the oil volume flow into the element from node p; Vg = V0 − Voil the gas
    volume; δ = max(−Voil, 0).
    (1) dVoil/dt = Q   (dVg/dt = −Q)
    (2) p − (p_abs(Vg) − patm − (beta/Vd)·δ) = 0,   p_abs(Vg) = p0·(V0/Vg)^n
        Charged (Vg < V0): the gas law of ``gasspring``. Empty: with the oil below the
        pre-charge the piston rests on the shell and the gas stays at V0 (to δ); the
        port is then a closed oil volume Vd of bulk modulus beta, from which a further
        outflow δ lowers the pressure by beta·δ/Vd (no flow leaves the gas).
    (3) switching function Voil (state event "empty"): the kink of (2) at Vg = V0 is
        located by the solver, not stepped over.
    The unknown is the oil held rather than the gas volume: empty, the pressure hangs on
    δ ≈ 1e-9·V0, which an error test relative to the gas volume would not resolve.
Sign convention
    p ──)gas(── tank     Q > 0 into the element charges it (Vg falls, p rises;
                         conventions.md §1).
Outputs
    A.Voil: the oil held (the internal variable); A.Vg: the gas volume V0 − Voil (m³);
    A.pabs: absolute gas pressure (Pa); A.E: stored energy (J): that of ``gasspring``,
    ∫_{Vg}^{V0} (p_abs − patm) dV, plus the dead volume's ½·(beta/Vd)·δ².
Example
    ``accumulator A1 p V0=1L p0=50bar n=1.4``
"""
import numpy as np

from ..errors import ModelError
from . import compiled
from .declarations import Output, Param, State
from .gasspring import GasSpring, gas_energy, gas_pressure


class Accumulator(GasSpring):
    keyword = "accumulator"
    description = "gas-charged accumulator: gasspring in a shell V0 pre-charged at p0, empties"
    params = GasSpring.params + (
        Param("Vd", "m^3", default=None, description="dead oil volume when empty "
              "(default V0/1000)", positive=True),
        Param("beta", "Pa", default=1.5e9, description="bulk modulus of the dead oil",
              positive=True))
    # the state is the oil held, not the gas volume: empty, its penetration δ ~ 1e-9 of
    # V0 sets the pressure, and only an unknown of its own size gets an error test that
    # resolves it (the gas volume's rtol·V0 would allow the whole of δ)
    states = (State("Voil", "m^3", True, "oil held, V0 − Vg", init_param="Voil0"),)
    outputs = (Output("Vg", "m^3", "gas volume"),
               Output("pabs", "Pa", "absolute gas pressure"),
               Output("E", "J", "stored energy (gas from V0, dead oil volume)",
                      kind="energy"))

    @classmethod
    def check(cls, inst):
        vg0, v0 = inst.params.get("Vg0"), inst.params["V0"]
        if vg0 is not None and vg0 > v0:
            raise ModelError(f"accumulator {inst.name}: the initial gas volume Vg0 ({vg0:g} "
                             f"m^3) cannot exceed the shell's V0 ({v0:g} m^3)", inst.loc)

    @classmethod
    def link(cls, inst, frames):
        super().link(inst, frames)
        if inst.params.get("Vd") is None:
            inst.params["Vd"] = inst.params["V0"] / 1000.0
        inst.params["Voil0"] = inst.params["V0"] - inst.params["Vg0"]   # the state's start

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.V0, p.p0, p.n, p.patm, p.beta / p.Vd

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("gas", p.warmup)
        return None if fast is None else compiled.bound(fast.accumulator_residual,
                                                        *cls._twin_args(p))

    @classmethod
    def _law(cls, voil, p):
        """The port's gauge pressure of (2) and its derivative by Voil = V0 − Vg."""
        pabs, slope = gas_pressure(p.V0 - voil, p)
        kc = p.beta / p.Vd
        empty = voil < 0
        return (pabs - p.patm + kc * np.where(empty, voil, 0.0),         # δ = −Voil
                -slope + np.where(empty, kc, 0.0))

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("gas", p.warmup)
        if fast is not None:
            return fast.accumulator_residual(x, xp, *cls._twin_args(p))
        pg, _ = cls._law(x[:, 1], p)
        return np.stack([xp[:, 1],                                    # (1): Q = dVoil/dt
                         x[:, 0] - pg], axis=1)                       # (2)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("gas", p.warmup)
        if fast is not None:
            return fast.accumulator_jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        _, dpg = cls._law(x[:, 1], p)
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdxp[:, 0, 1] = 1.0
        dfdx[:, 1, 0] = 1.0
        dfdx[:, 1, 1] = -dpg
        return dfdx, dfdxp

    @classmethod
    def switch_names(cls, group):
        return ("empty",)

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        return x[:, 1:2].copy()                                           # (3)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        Vg = p.V0 - x[..., 1]
        pabs, _ = gas_pressure(Vg, p)
        delta = np.maximum(Vg - p.V0, 0.0)
        E = gas_energy(Vg, p) + 0.5 * p.beta / p.Vd * delta ** 2
        return np.stack([Vg, pabs, E], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        return {**super().sample_params(rng), "Vd": 0.01, "beta": 0.5, "Voil0": 0.0}
