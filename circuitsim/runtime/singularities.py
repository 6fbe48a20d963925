"""Where an expression stops being finite: the sub-expressions whose sign change makes it
infinite or undefined (a pole, the edge of a function's domain).

A run must not step over such a point: between two steps 1/(1 − time) goes from +100 to
−100 and a result interpolated across it is meaningless. The elements that evaluate
expressions watch these factors as terminal switching functions: the solver locates the
instant one changes sign and stops the run there (``solver/events.py``).

What is watched, for every node of the tree:

* a / b: each factor of b (b = u·v: u and v; b = u^n with n > 0: u; b = −u: u);
* u^n with a constant n < 0: the factors of u (a pole); with a constant n that is not an
  integer (u^0.5): u (beyond 0 the value is undefined, at 0 its derivative is infinite);
* tan(u): cos(u); log(u), sqrt(u): u; asin(u), acos(u): 1 − u² (edges of the domain).

A factor that cannot change sign (abs(x) + eps, exp(x), a square) is left out, and so is
a constant one: ``x/abs(x)`` is the sign function, defined on both sides.
"""
from __future__ import annotations

from .expressions import Binary, Func, Num, Unary, free_names, mul, sub

_DOMAIN_EDGE = {"log": lambda u: u, "sqrt": lambda u: u,
                "tan": lambda u: Func("cos", (u,)),
                "asin": lambda u: sub(Num(1.0), mul(u, u)),
                "acos": lambda u: sub(Num(1.0), mul(u, u))}


def _factors(tree) -> list:
    """The factors of a denominator whose zero is a zero of the whole."""
    match tree:
        case Binary(op="*", left=l, right=r):
            return _factors(l) + _factors(r)
        case Binary(op="/", left=l):
            return _factors(l)
        case Binary(op="^", left=base, right=Num(value=n)) if n > 0:
            return _factors(base)
        case Unary(arg=a):
            return _factors(a)
    return [tree]


def _own(node) -> list:
    """The watched factors that ``node`` itself brings (not its children's)."""
    match node:
        case Binary(op="/", right=r):
            return _factors(r)
        case Binary(op="^", left=base, right=Num(value=n)) if n < 0:
            return _factors(base)
        case Binary(op="^", left=base, right=Num(value=n)) if n != int(n):
            return [base]
        case Func(name=name, args=(u,), table=None) if name in _DOMAIN_EDGE:
            return [_DOMAIN_EDGE[name](u)]
    return []


_NEVER_NEGATIVE = ("abs", "exp", "cosh", "sqrt")


def _never_negative(tree) -> bool:
    """Provably >= 0 everywhere it is defined, so it cannot change sign: abs(u) + eps,
    exp(u), u^2 (a zero it only touches leaves the value finite on both sides, or is
    watched through u)."""
    match tree:
        case Num(value=v):
            return v >= 0
        case Func(name=name, table=None) if name in _NEVER_NEGATIVE:
            return True
        case Binary(op="^", right=Num(value=n)) if n == int(n) and int(n) % 2 == 0:
            return True
        case Binary(op="+" | "*" | "/", left=l, right=r):
            return _never_negative(l) and _never_negative(r)
    return False


def singular_factors(tree) -> list:
    """The expression's watched factors (see the module's docstring), each once, in the
    order met; those that depend on nothing (constants) left out."""
    found: list = []
    stack = [tree]
    while stack:
        node = stack.pop()
        for f in _own(node):
            if f not in found and free_names(f) and not _never_negative(f):
                found.append(f)
        match node:
            case Unary(arg=a):
                stack.append(a)
            case Binary(left=l, right=r):
                stack += [r, l]
            case Func(args=args):
                stack += reversed(args)
    return found

