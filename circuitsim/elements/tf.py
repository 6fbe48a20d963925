"""tf — a proper transfer function Y(s)/U(s) = N(s)/D(s), realised in controllable
canonical form.

Ports
    in: input signal u (read, no flow drawn).
    out: output signal y (driven by this block).
Parameters
    num: numerator coefficients b, highest power of s first (a list, or one number).
    den: denominator coefficients, highest power first; its length n + 1 gives the
        order n (at most 6); num has at most n + 1 coefficients (proper).
    y0: initial output, in steady state (default 0): the states start at the
        equilibrium of the constant input u0 = y0/N(0)·D(0), the one whose steady
        output is y0 (x1 = y0/b_0 below, the others 0). The block then starts at rest
        if its input at t = 0 is u0 (a loop started at its operating point); an input
        other than u0 starts a transient. Requires N(0) ≠ 0 unless y0 = 0, and n ≥ 1.
Internal variables
    x1 .. x6: the states of the controllable canonical form (the first n are used,
    differential; the others are held at 0). Initial state: 0, or that of y0.
Equations
    with the denominator made monic, D(s) = s^n + a_{n−1}·s^{n−1} + … + a_0, and the
    numerator padded to N(s) = b_n·s^n + … + b_0:
    (1) dx_j/dt − x_{j+1} = 0,  j = 1 .. n − 1
    (2) dx_n/dt + a_0·x_1 + … + a_{n−1}·x_n − u = 0
    (3) y − Σ_j (b_{j−1} − b_n·a_{j−1})·x_j − b_n·u = 0       row of out
    (4) x_j = 0 for the unused states j > n
Sign convention
    u = value of in, y = value of out (conventions.md §7).
Outputs
    none (the output is the node out; the states are recorded as X.x1 ..).
Example
    ``tf P1 u y num=(100) den=(1, 2, 100)``
"""
import numpy as np

from ..errors import ModelError
from .base import ElementType
from .declarations import Param, State
from .signals import signal_in, signal_out

NMAX = 6


class TransferFunction(ElementType):
    keyword = "tf"
    description = "proper transfer function N(s)/D(s), controllable canonical form"
    ports = (signal_in("in"), signal_out())
    params = (Param("num", "1", description="numerator coefficients, highest power first",
                    kind="vector", size=0),
              Param("den", "1", description="denominator coefficients, highest power "
                    "first", kind="vector", size=0),
              Param("y0", "1", default=0.0, description="initial output (steady state)"))
    # x1's initial value is derived from y0 by ``link`` (the derived parameter "x1_0")
    states = tuple(State(f"x{j + 1}", "1", True, "canonical state",
                         init_param="x1_0" if j == 0 else None) for j in range(NMAX))

    @classmethod
    def check(cls, inst):
        num, den = np.atleast_1d(inst.params["num"]), np.atleast_1d(inst.params["den"])
        if den[0] == 0.0:
            raise ModelError(f"tf {inst.name}: the leading denominator coefficient is 0",
                             inst.loc)
        if len(den) - 1 > NMAX:
            raise ModelError(f"tf {inst.name}: order {len(den) - 1} above {NMAX}", inst.loc)
        if len(num) > len(den):
            raise ModelError(f"tf {inst.name}: improper ({len(num) - 1} zeros, "
                             f"{len(den) - 1} poles): num may not be longer than den",
                             inst.loc)
        if inst.params.get("y0", 0.0) != 0.0 and (len(den) == 1 or num[-1] == 0.0):
            raise ModelError(f"tf {inst.name}: y0 needs a state and a non-zero static gain "
                             f"(order {len(den) - 1}, N(0) = {num[-1]:g})",
                             inst.param_locs.get("y0", inst.loc))

    @classmethod
    def link(cls, inst, frames):
        # steady state of the input u0 with output y0: x2.. = 0, a_0·x1 = u0 and
        # y0 = c_1·x1 + b_n·u0 = b_0·x1, b_0 the constant term of num over den[0]
        den = np.atleast_1d(inst.params["den"]).astype(float)
        num = np.atleast_1d(inst.params["num"]).astype(float)
        b0 = num[-1] / den[0]
        y0 = inst.params.get("y0", 0.0)
        inst.params["x1_0"] = 0.0 if y0 == 0.0 else y0 / b0

    @classmethod
    def group_key(cls, inst):
        return (len(np.atleast_1d(inst.params["den"])) - 1,)

    @classmethod
    def prepare(cls, instances):
        from types import SimpleNamespace
        n = len(np.atleast_1d(instances[0].params["den"])) - 1
        a = np.zeros((len(instances), n)); c = np.zeros((len(instances), n))
        d = np.zeros(len(instances))
        for k, inst in enumerate(instances):
            den = np.atleast_1d(inst.params["den"]).astype(float)
            num = np.atleast_1d(inst.params["num"]).astype(float) / den[0]
            den = den / den[0]
            b = np.zeros(n + 1)
            b[n + 1 - len(num):] = num
            b, den = b[::-1], den[::-1]          # b_0 .. b_n, a_0 .. a_{n-1}, 1
            a[k] = den[:n]
            d[k] = b[n]
            c[k] = b[:n] - b[n] * den[:n]
        return SimpleNamespace(n=n, a=a, c=c, d=d)

    @classmethod
    def _mask(cls, group):
        n = NMAX if group is None else group.n
        return n

    @classmethod
    def local_differential(cls, n_extra=0, group=None):
        mask = np.zeros(cls.nvars(n_extra), dtype=bool)
        mask[2:2 + cls._mask(group)] = True
        return mask

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        n = cls._mask(group)
        mask = np.zeros((cls.nrows(), cls.nvars(n_extra)), dtype=bool)
        mask[1, 0] = mask[1, 1] = True
        mask[1, 2:2 + n] = True
        for j in range(n):
            mask[2 + j, 2 + j] = True
            if j < n - 1:
                mask[2 + j, 3 + j] = True
        if n:
            mask[1 + n, 2:2 + n] = True
            mask[1 + n, 0] = True
        for j in range(n, NMAX):
            mask[2 + j, 2 + j] = True
        return mask

    @classmethod
    def residual(cls, t, x, xp, p):
        n = p.n
        u, y, s, sp = x[:, 0], x[:, 1], x[:, 2:2 + NMAX], xp[:, 2:2 + NMAX]
        out = np.zeros((x.shape[0], 2 + NMAX))
        out[:, 1] = y - (p.c * s[:, :n]).sum(axis=1) - p.d * u             # (3)
        if n:
            out[:, 2:1 + n] = sp[:, :n - 1] - s[:, 1:n]                     # (1)
            out[:, 1 + n] = sp[:, n - 1] + (p.a * s[:, :n]).sum(axis=1) - u  # (2)
        out[:, 2 + n:] = s[:, n:]                                          # (4)
        return out

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n, N = p.n, x.shape[0]
        dfdx = np.zeros((N, 2 + NMAX, x.shape[1])); dfdxp = np.zeros_like(dfdx)
        dfdx[:, 1, 1] = 1.0
        dfdx[:, 1, 0] = -p.d
        dfdx[:, 1, 2:2 + n] = -p.c
        for j in range(n - 1):
            dfdxp[:, 2 + j, 2 + j] = 1.0
            dfdx[:, 2 + j, 3 + j] = -1.0
        if n:
            dfdxp[:, 1 + n, 1 + n] = 1.0
            dfdx[:, 1 + n, 2:2 + n] = p.a
            dfdx[:, 1 + n, 0] = -1.0
        for j in range(n, NMAX):
            dfdx[:, 2 + j, 2 + j] = 1.0
        return dfdx, dfdxp

    @classmethod
    def sample_params(cls, rng):
        return {"num": np.array([0.5, 2.0, 3.0]), "den": np.array([2.0, 1.0, 4.0, 5.0])}

    @classmethod
    def sample_variants(cls):
        return [{}, {"num": np.array([1.0]), "den": np.array([0.1, 1.0])},
                {"num": np.array([2.0]), "den": np.array([4.0])}]
