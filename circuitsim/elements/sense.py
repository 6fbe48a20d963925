"""sense — a signal given by an expression of recorded names: any node potential,
element variable (``K1.x``, ``L1.i``, ``J1.angle``) or signal, and ``time``.

Ports
    out: output signal (driven by this block).
Parameters
    S: {expression} of the value, as a behavioural source's (B): parameters, ``time``,
       node potentials by name or ``v(n)``, ``v(n1, n2)``, element variables by their
       recorded name or ``i(X)``, other signals by their node name. It reads these
       unknowns without drawing flow; derived outputs (computed after the run) cannot
       be read.
Equations
    (1) y − S(t, refs) = 0      row of out
    The Jacobian is analytic: the expression is differentiated symbolically once.
Sign convention
    y = value of out (conventions.md §7).
Outputs
    none (the output is the node out).
Example
    ``sense X1 pos S={K1.x*1000}``  (a spring's stretch in mm)
"""
import numpy as np

from ..runtime import expressions
from ..runtime.expressions import Name, Num, add, func, mul
from . import reads
from .base import ElementType
from .declarations import Param
from .signals import signal_out


class Sense(reads.WatchedExpression, ElementType):
    keyword = "sense"
    description = "signal from an expression of recorded names: y = S(t, refs)"
    ports = (signal_out(),)
    params = (Param("S", "1", description="value as an expression", kind="expr"),)

    @classmethod
    def group_key(cls, inst):
        return (expressions.to_text(inst.params["S"]),)

    @classmethod
    def extra_vars(cls, inst):
        return reads.references(inst.params["S"])

    @classmethod
    def prepare(cls, instances):
        return reads.compiled(instances[0].params["S"])

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        return np.ones((1, 1 + n_extra), dtype=bool)

    @classmethod
    def residual(cls, t, x, xp, p):
        return (x[:, 0] - reads.value(t, x, p))[:, None]          # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 1, x.shape[1]))
        dfdx[:, 0, 0] = 1.0
        for j, slope in reads.slopes(t, x, p):
            dfdx[:, 0, 1 + j] = -slope
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def sample_params(cls, rng):
        x1, x2 = Name("x1"), Name("x2")      # x1*sin(time) + 3*x1*x2
        return {"S": add(mul(x1, func("sin", Name("time"))), mul(mul(Num(3.0), x1), x2))}
