"""Operation counts of sympy expressions, by our own visitor (not sympy.count_ops):

* an addition per ``+`` or ``−`` between terms: a sum of k terms costs k − 1;
* a multiplication per ``×`` or ``/`` between factors: a product of k factors costs
  k − 1, a coefficient −1 costs nothing (it turns the addition it enters into a
  subtraction), another numeric coefficient one; x**e with integer e costs |e| − 1
  multiplications (one more for e < 0: the division);
* a function evaluation (sin, cos, sqrt) per call, counted apart.

"Before CSE" counts every expression as a tree (a subexpression used twice costs twice),
"after CSE" counts the expressions and temporaries of ``sympy.cse``.
"""
from __future__ import annotations

from dataclasses import dataclass

import sympy as sp


@dataclass(frozen=True)
class Ops:
    adds: int = 0
    mults: int = 0
    funcs: int = 0

    def __add__(self, other: "Ops") -> "Ops":
        return Ops(self.adds + other.adds, self.mults + other.mults,
                   self.funcs + other.funcs)

    @property
    def total(self) -> int:
        """Additions and multiplications (function evaluations apart)."""
        return self.adds + self.mults


def _own(e) -> Ops:
    """The operations of the node itself (not of its arguments)."""
    if e.is_Add:
        return Ops(adds=len(e.args) - 1)
    if e.is_Mul:
        factors = [a for a in e.args if a != -1]
        return Ops(mults=max(len(factors) - 1, 0))
    if e.is_Pow:
        x = e.exp
        if x.is_Integer:
            return Ops(mults=abs(int(x)) - 1 + (1 if x < 0 else 0))
        return Ops(funcs=1)
    if isinstance(e, sp.Function):
        return Ops(funcs=1)
    return Ops()


def tree_ops(exprs) -> Ops:
    """Operations of the expressions as trees (memoised per distinct subexpression, so
    that the count of a shared DAG costs time linear in its size)."""
    memo: dict = {}

    def count(e) -> Ops:
        if e in memo:
            return memo[e]
        out = _own(e)
        for a in e.args:
            out = out + count(a)
        memo[e] = out
        return out
    total = Ops()
    for e in exprs:
        total = total + count(sp.sympify(e))
    return total


def cse_ops(exprs) -> Ops:
    """Operations after common-subexpression elimination (sympy.cse)."""
    temps, reduced = sp.cse([sp.sympify(e) for e in exprs], order="none")
    return tree_ops([e for _, e in temps] + list(reduced))
