"""B — behavioural source: a flow or a potential given by an expression (SPICE's B source).

Ports
    a, b: same domain (any).
Parameters
    Exactly one of I and V:
    I: {expression} for the flow from a through the source to b.
    V: {expression} for the potential difference p_a − p_b, e.g. a proportional speed
       controller ``V={Kp*(wref - v(shaft))}``.
    The expression may use parameters, ``time`` (s), node potentials by name or as
    ``v(n)`` / ``v(n1, n2)`` (= v(n1) − v(n2)), element variables by their recorded
    name (``K1.x``, ``L1.i``) or ``i(X)`` (= ``X.i``), and the functions of brace
    expressions. Its value is taken in SI units of the flow (or potential).
    domain: the domain of a and b where no other element fixes it (default electrical).
    power: what the power it absorbs is, for the run report's power balance: ``source``
       (default: it comes from or goes outside the circuit, an input) or ``loss`` (it is
       dissipated: an orifice, a valve, a nonlinear damper written as a B source).
Internal variables
    i (algebraic): the flow from a through the source to b.
Equations
    (1) flow form:      i − I(t, refs) = 0
    (1') potential form: p_a − p_b − V(t, refs) = 0
    rows: a: +i, b: −i
    The Jacobian is analytic: the expression is differentiated symbolically once, at
    set-up.
    (2) where the expression stops being finite the run stops: each denominator's
    factor, the base of a negative or fractional power, the argument of log and sqrt,
    cos(u) under tan(u) and 1 − u² under asin/acos is watched as a switching function,
    and the instant one changes sign is located and ends the run (E_SINGULAR, the
    element and the factor named, the results up to the last step kept) instead of
    being stepped over. A factor that cannot change sign (abs(x) + eps, exp(x), a
    square) is not watched.
Sign convention
    a ──(→)── b      i > 0 from a through the source to b (as ``I``); in the potential
                     form p_a − p_b = V (as ``V``; conventions.md §1)
Outputs
    B1.i: the flow i (the internal variable).
Example
    ``B Fspring v 0 I={k*K0.x + k3*K0.x^3}``  (a cubic spring force from a state)
"""
import numpy as np

from ..errors import ModelError
from ..runtime import expressions
from ..runtime.expressions import Name, Num, add, func, mul, power, sub
from . import reads
from .base import ElementType
from .protocols import SingularityProtocol
from .declarations import Param, Port, State, domain_param
from .capacitor import _P_UNITS
from .resistor import _FLOW

FLOW, POTENTIAL = "I", "V"
SOURCE, LOSS = "source", "loss"


class Behavioural(SingularityProtocol, ElementType):
    keyword = "B"
    description = "behavioural source: flow I = {expr} or potential V = {expr}"
    ports = (Port("a"), Port("b"))
    params = (Param("I", _FLOW, default=None, kind="expr",
                    description="flow from a to b as an expression"),
              Param("V", _P_UNITS, default=None, kind="expr",
                    description="potential difference p_a − p_b as an expression"),
              domain_param(),
              Param("power", "1", default=SOURCE, kind="choice", choices=(SOURCE, LOSS),
                    description="its power in the run report: source (an input) or loss "
                    "(dissipated)"))
    states = (State("i", _FLOW, False, "flow from a through the source to b"),)

    @staticmethod
    def _mode_tree(inst):
        given = [m for m in (FLOW, POTENTIAL) if inst.params.get(m) is not None]
        return given[0], inst.params[given[0]]

    @classmethod
    def check(cls, inst):
        given = [m for m in (FLOW, POTENTIAL) if inst.params.get(m) is not None]
        if len(given) != 1:
            raise ModelError(f"B {inst.name} needs exactly one of I={{...}} (a flow) or "
                             f"V={{...}} (a potential)", inst.loc)

    @classmethod
    def supplies_power(cls, p) -> bool:
        return not p.loss

    @classmethod
    def group_key(cls, inst):
        mode, tree = cls._mode_tree(inst)
        return (mode, expressions.to_text(tree), inst.params.get("power", SOURCE))

    @classmethod
    def extra_vars(cls, inst):
        _, tree = cls._mode_tree(inst)
        return sorted(expressions.free_names(tree) - {"time"})

    @classmethod
    def prepare(cls, instances):
        from types import SimpleNamespace
        mode, tree = cls._mode_tree(instances[0])
        refs = cls.extra_vars(instances[0])
        args = ["time"] + refs
        poles, pole_values = reads.watched(tree, args)
        return SimpleNamespace(
            mode=mode, nrefs=len(refs), loss=instances[0].params.get("power") == LOSS,
            f=expressions.compile_(tree, args),
            df=expressions.compile_group([expressions.diff(tree, r) for r in refs], args),
            poles=poles, pole_values=pole_values)

    @classmethod
    def switch_names(cls, group):
        return group.poles

    @classmethod
    def switching_functions(cls, t, x, xp, p):
        return reads.watched_values(p, reads.arguments(t, x, 3, p.nrefs), x.shape[0])

    @classmethod
    def local_pattern(cls, n_extra=0, group=None):
        mask = np.zeros((3, 3 + n_extra), dtype=bool)
        mask[0, 2] = mask[1, 2] = True
        if group is None or group.mode == FLOW:
            mask[2, 2] = True
        if group is None or group.mode == POTENTIAL:
            mask[2, 0] = mask[2, 1] = True
        mask[2, 3:] = True
        return mask

    @classmethod
    def residual(cls, t, x, xp, p):
        n = x.shape[0]
        value = p.f(*reads.arguments(t, x, 3, p.nrefs))
        if value.__class__ is float:             # one instance: on floats throughout
            pa, pb, i = x[0, :3].tolist()
            eq = i - value if p.mode == FLOW else pa - pb - value      # (1), (1')
            return np.array([[i, -i, eq]])
        value = np.broadcast_to(value, (n,))
        i = x[:, 2]
        if p.mode == FLOW:
            eq = i - value                                       # (1)
        else:
            eq = x[:, 0] - x[:, 1] - value                       # (1')
        return np.stack([i, -i, eq], axis=1)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        dfdx = np.zeros((n, 3, x.shape[1]))
        dfdx[:, 0, 2] = 1.0
        dfdx[:, 1, 2] = -1.0
        if p.mode == FLOW:
            dfdx[:, 2, 2] = 1.0
        else:
            dfdx[:, 2, 0] = 1.0
            dfdx[:, 2, 1] = -1.0
        for j, dfj in enumerate(p.df(*reads.arguments(t, x, 3, p.nrefs))):
            dfdx[:, 2, 3 + j] = -np.broadcast_to(dfj, (n,))
        return dfdx, np.zeros_like(dfdx)

    @classmethod
    def sample_params(cls, rng):
        x1, x2 = Name("x1"), Name("x2")      # 2*x1*sin(time) + x2^2 - 0.5*x1*x2
        tree = sub(add(mul(mul(Num(2.0), x1), func("sin", Name("time"))), power(x2, Num(2.0))),
                   mul(mul(Num(0.5), x1), x2))
        return {"I": tree, "V": None}
