"""heat — heat flow into a thermal node given by an expression of the circuit's unknowns:
the losses of other elements turned into heat (an orifice's throttling, a damper's or a
friction contact's power, a winding's copper losses).

Ports
    th: thermal; the heat flows from outside the thermal network (ground) into it.
Parameters
    P: {expression} of the heat flow (W), as a behavioural source's (B): parameters,
       ``time``, node potentials by name or ``v(n)``, ``v(n1, n2)``, element variables
       by their recorded name or ``i(X)``. Written as the power an element dissipates,
       the heat equals that power exactly at every instant:
       ``P={v(a,b)*i(Q1)}`` (a B source Q1 between a and b: an orifice),
       ``P={b*v(a,b)^2}`` (a damper of coefficient b between a and b).
       It reads these unknowns without drawing flow from them.
Equations
    (1) Q = P(t, refs)
    rows: th: −Q    (Q > 0 enters the node; the element returns it to ground)
    The Jacobian is analytic: the expression is differentiated symbolically once.
Sign convention
    0 ──(→)── th      Q > 0 heats th (as ``I Q1 0 th``; conventions.md §1)
Outputs
    H1.Q: the heat flow Q (W).
Example
    ``heat H1 tw P={v(p1,p2)*i(O1.Q)}``  (the throttling loss of orifice O1 into tw)
"""
import numpy as np

from ..runtime import expressions
from ..runtime.expressions import Name, Num, add, func, mul
from . import reads
from .base import ElementType
from .declarations import THERMAL, Output, Param, Port


class Heat(reads.WatchedExpression, ElementType):
    keyword = "heat"
    description = "heat flow Q = {expr} into a thermal node (losses turned into heat)"
    ports = (Port("th", (THERMAL,), group="th", description="the heated thermal node"),)
    params = (Param("P", "W", description="heat flow into th as an expression", kind="expr"),)
    outputs = (Output("Q", "W", "heat flow into th"),)
    positional_param = "P"

    @classmethod
    def group_key(cls, inst):
        return (expressions.to_text(inst.params["P"]),)

    @classmethod
    def extra_vars(cls, inst):
        return reads.references(inst.params["P"])

    @classmethod
    def prepare(cls, instances):
        return reads.compiled(instances[0].params["P"])

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((1, 1 + n_extra), dtype=bool)
        mask[0, 1:] = True
        return mask

    @classmethod
    def residual(cls, t, x, xp, p):
        return -reads.value(t, x, p)[:, None]                      # (1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 1, x.shape[1]))
        for j, slope in reads.slopes(t, x, p):
            dfdx[:, 0, 1 + j] = -slope
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        return reads.value(t, x, p)[..., None].copy()

    @classmethod
    def sample_params(cls, rng):
        x1, x2 = Name("x1"), Name("x2")      # x1^2*cos(time) + 3*x1*x2
        return {"P": add(mul(mul(x1, x1), func("cos", Name("time"))),
                         mul(mul(Num(3.0), x1), x2))}
