"""relay — a relay with hysteresis: the output switches to yon when the input rises
above uon and back to yoff when it falls below uoff (uoff < uon); in between it keeps
its state.

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block).
Parameters
    uon: the input above which the relay switches on.
    uoff: the input below which it switches off (below uon).
    yon, yoff: the output on and off (default 1 and 0).
    s0: the state at t = 0, 0 (off, default) or 1 (on). An input already beyond the
        other state's threshold at t = 0 switches it there (u(0) > uon: on; u(0) < uoff:
        off).
Internal variables
    s (differential, discrete): 1 on, 0 off. It changes only at the relay's events;
    between them s' = 0 holds it exactly.
Equations
    (1) y − yoff − (yon − yoff)·s = 0          row of out; the row of in is 0
    (2) ds/dt = 0                               row of s
    (3) switching function (located event): g = u − uon while off, uoff − u while on:
        negative while the relay holds, it crosses 0 where the input crosses the present
        state's threshold.
    (4) at the event of (3) the state toggles, s ← 1 − s, and the solver restarts
        from it (the output jumps; the new state's g is negative again).
    The switching instants are those located by the solver's event search (to a few
    ulps of t or 1e-12 of the step). The input must not follow the output without
    dynamics in between (u = −y would switch endlessly at one instant).
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out; the state is recorded as R.s).
Example
    ``relay H1 e heat uon=0.5 uoff=-0.5 yon=2000 yoff=0``
"""
import numpy as np

from ..errors import ModelError
from .base import ElementType
from .declarations import Param, State
from .protocols import DiscreteStateProtocol
from .signals import signal_in, signal_out


class Relay(DiscreteStateProtocol, ElementType):
    keyword = "relay"
    description = "relay with hysteresis: on above uon, off below uoff"
    ports = (signal_in("in"), signal_out())
    params = (Param("uon", "1", description="input above which it switches on"),
              Param("uoff", "1", description="input below which it switches off"),
              Param("yon", "1", default=1.0, description="output when on"),
              Param("yoff", "1", default=0.0, description="output when off"),
              Param("s0", "1", default=0.0, description="initial state: 0 off, 1 on"))
    states = (State("s", "1", True, "state: 1 on, 0 off", init_param="s0"),)
    differential_vars = (2,)
    pattern = np.array([[0, 0, 0], [0, 1, 1], [0, 0, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        prm = inst.params
        if not prm["uoff"] < prm["uon"]:
            raise ModelError(f"relay {inst.name}: uoff ({prm['uoff']:g}) must be below uon "
                             f"({prm['uon']:g})", inst.loc)
        if prm["s0"] not in (0.0, 1.0):
            raise ModelError(f"relay {inst.name}: s0 is 0 (off) or 1 (on), got "
                             f"{prm['s0']:g}", inst.param_locs.get("s0", inst.loc))

    @classmethod
    def residual(cls, t, x, xp, p):
        out = np.zeros((x.shape[0], 3))
        out[:, 1] = x[:, 1] - p.yoff - (p.yon - p.yoff) * x[:, 2]     # (1)
        out[:, 2] = xp[:, 2]                                         # (2)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 3, 3)); dfdxp = np.zeros((n, 3, 3))
        dfdx[:, 1, 1], dfdx[:, 1, 2] = 1.0, -(p.yon - p.yoff)
        dfdxp[:, 2, 2] = 1.0
        return dfdx, dfdxp

    @classmethod
    def switch_names(cls, group):
        return ("switch",)

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        u, on = x[:, 0], x[:, 2] > 0.5
        return np.where(on, p.uoff - u, u - p.uon)[:, None]          # (3)

    @classmethod
    def switch_states(cls, t, x, fired, p):
        x = x.copy()
        x[:, 2] = np.where(fired[:, 0], 1.0 - np.round(x[:, 2]), x[:, 2])   # (4)
        return x

    @classmethod
    def sample_params(cls, rng):
        return {"uon": 0.5, "uoff": -0.5, "yon": 2.0, "yoff": -1.0, "s0": 0.0}
