"""gasspring — a polytropic gas volume on a hydraulic port (a gas spring, the gas of an
oleo-pneumatic strut).

A native element, not a library macro: the law p·Vg^n = const is a nonlinear
capacitance with a state of its own (the gas volume), which no composition of R, C, L
and B sources states exactly.

Ports
    p: hydraulic node, its potential the gauge pressure of the oil on the gas (Pa).
Parameters
    V0: gas volume at which the absolute gas pressure is p0 (m³).
    p0: absolute gas pressure at V0 (Pa; e.g. the pre-charge).
    n: polytropic exponent (default 1.4: adiabatic air or nitrogen, fast strokes; 1 for
       slow, isothermal compression; 1.3 is a usual compromise for struts).
    patm: atmospheric pressure (absolute, Pa, default 101325): gauge = absolute − patm.
    Vg0: initial gas volume (m³, default V0).
Internal variables
    Vg (differential): the gas volume (m³).
Equations
    Q = the oil volume flow into the element from node p.
    (1) dVg/dt = −Q                     (row of p: Q = −dVg/dt)
    (2) p − (p_abs(Vg) − patm) = 0,     p_abs(Vg) = p0·(V0/Vg)^n
        For Vg below VMIN·V0 (gas pressures no oil system reaches, only Newton's iterates)
        p_abs continues linearly with its slope there, so that every iterate has a finite
        residual.
Sign convention
    p ──)gas(── tank     Q > 0 into the element compresses the gas (Vg falls, p rises;
                         conventions.md §1).
Outputs
    G.Vg: the gas volume (the internal variable); G.pabs: the absolute gas pressure (Pa);
    G.E: the stored energy (J), the work of the gauge pressure on the oil taken in since
    the gas stood at V0: E = ∫_{Vg}^{V0} (p_abs(V) − patm) dV
      = p0·V0/(n − 1)·((V0/Vg)^(n−1) − 1) − patm·(V0 − Vg)   (n ≠ 1)
      = p0·V0·ln(V0/Vg) − patm·(V0 − Vg)                      (n = 1).
    dE/dt = p·Q: the run report counts it as stored, not dissipated.
Example
    ``gasspring G1 p V0=0.5L p0=20bar n=1.3``
"""
import numpy as np

from . import compiled
from .base import ElementType
from .declarations import Output, Param, Port, State
from .protocols import BoundResidualProtocol

VMIN = 1e-3   # below VMIN·V0 the gas law continues linearly (a guard for Newton's iterates)
NUMPY_CALL_SECONDS = 3e-5        # a numpy kernel's call on one instance (the warm-up)
PATM = 101325.0


def gas_pressure(Vg, p):
    """p_abs(Vg) of equation (2) and dp_abs/dVg, continued linearly below VMIN·V0."""
    vm = VMIN * p.V0
    v = np.maximum(Vg, vm)
    pabs = p.p0 * (p.V0 / v) ** p.n
    slope = -p.n * pabs / v
    low = Vg < vm
    return np.where(low, pabs + slope * (Vg - vm), pabs), slope


def gas_energy(Vg, p):
    """E of the Outputs: ∫_{Vg}^{V0} (p_abs − patm) dV."""
    nm1 = p.n - 1.0
    iso = np.abs(nm1) < 1e-12
    ratio = p.V0 / Vg
    work = np.where(iso, p.p0 * p.V0 * np.log(ratio),
                    p.p0 * p.V0 * (ratio ** np.where(iso, 1.0, nm1) - 1.0)
                    / np.where(iso, 1.0, nm1))
    return work - p.patm * (p.V0 - Vg)


class GasSpring(BoundResidualProtocol, ElementType):
    keyword = "gasspring"
    description = "polytropic gas volume: p_abs·Vg^n = p0·V0^n, dVg/dt = −Q"
    ports = (Port("p", ("hydraulic",), description="oil port (gauge pressure)"),)
    params = (Param("V0", "m^3", description="gas volume at the absolute pressure p0",
                    positive=True),
              Param("p0", "Pa", description="absolute gas pressure at V0", positive=True),
              Param("n", "1", default=1.4, description="polytropic exponent", positive=True),
              Param("patm", "Pa", default=PATM, description="atmospheric pressure (absolute)",
                    nonnegative=True),
              Param("Vg0", "m^3", default=None, description="initial gas volume (default V0)",
                    positive=True))
    states = (State("Vg", "m^3", True, "gas volume", init_param="Vg0"),)
    outputs = (Output("pabs", "Pa", "absolute gas pressure"),
               Output("E", "J", "stored energy ∫(p_abs − patm) dV from V0", kind="energy"))
    differential_vars = (1,)
    pattern = np.array([[0, 1], [1, 1]], dtype=bool)

    @classmethod
    def link(cls, inst, frames):
        if inst.params.get("Vg0") is None:
            inst.params["Vg0"] = inst.params["V0"]

    @classmethod
    def prepare(cls, instances):
        p = super().prepare(instances)
        p.warmup = compiled.Warmup(NUMPY_CALL_SECONDS)
        return p

    @staticmethod
    def _twin_args(p) -> tuple:
        """The group's arrays as the compiled kernels take them after x and x'."""
        return p.V0, p.p0, p.n, p.patm

    @classmethod
    def residual_kernel(cls, p):
        fast = compiled.settled("gas", p.warmup)
        return None if fast is None else compiled.bound(fast.spring_residual,
                                                        *cls._twin_args(p))

    @classmethod
    def _port_pressure(cls, Vg, p):
        """The gauge pressure the element imposes at Vg, and its derivative."""
        pabs, slope = gas_pressure(Vg, p)
        return pabs - p.patm, slope

    @classmethod
    def residual(cls, t, x, xp, p):
        fast = compiled.twin("gas", p.warmup)
        if fast is not None:
            return fast.spring_residual(x, xp, *cls._twin_args(p))
        pg, _ = cls._port_pressure(x[:, 1], p)
        return np.stack([-xp[:, 1],                                   # (1)
                         x[:, 0] - pg], axis=1)                       # (2)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        fast = compiled.twin("gas", p.warmup)
        if fast is not None:
            return fast.spring_jacobian(x, xp, *cls._twin_args(p))
        n = x.shape[0]
        _, slope = cls._port_pressure(x[:, 1], p)
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdxp[:, 0, 1] = -1.0
        dfdx[:, 1, 0] = 1.0
        dfdx[:, 1, 1] = -slope
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        Vg = x[..., 1]
        pabs, _ = gas_pressure(Vg, p)
        return np.stack([pabs, gas_energy(Vg, p)], axis=-1)

    @classmethod
    def sample_params(cls, rng):
        return {"V0": float(rng.uniform(0.5, 2.0)), "p0": float(rng.uniform(0.5, 2.0)),
                "n": 1.3, "patm": 0.3, "Vg0": 1.0}
