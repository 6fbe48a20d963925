"""The functions of brace expressions on Python floats: the scalar route of a compiled
expression (``expressions.compile_``).

An element that reads an expression usually has one instance (each has its own
expression), and a source's expression of ``time`` is called with one time. Evaluated by
numpy on one-element arrays, every operation costs about a microsecond of dispatch, and
entering numpy's floating-point error state costs several more per call: a valve's flow
law of a dozen operations cost 22 µs and its derivatives 56 µs, against about 1 µs on
Python floats. So a compiled expression called with floats computes on floats first.

Each function here gives the bits its numpy counterpart gives on a one-element array
(``tests/runtime/test_floatmath.py`` checks them), or raises where numpy would return an
infinity or a NaN (a division by zero, an overflow, a value outside a function's
domain: ``FLOAT_ERRORS``); the compiled expression then evaluates the call by numpy, so
the value is the same either way. numpy's tanh is its own implementation (it differs
from the C library's in the last bit for a third of arguments): it is called as it is.
"""
from __future__ import annotations

import math

import numpy as np

# what Python's float arithmetic and the math module raise where numpy returns inf/NaN
FLOAT_ERRORS = (ArithmeticError, ValueError)


def minimum(*a):
    """np.minimum reduced: the first NaN met, else the smallest (of equals, the later:
    numpy's minimum(0.0, -0.0) is -0.0)."""
    best = a[0]
    for x in a[1:]:
        if not (best < x or best != best):      # numpy: best if best < x or isnan(best)
            best = x
    return best


def maximum(*a):
    """np.maximum reduced: the first NaN met, else the largest (of equals, the later)."""
    best = a[0]
    for x in a[1:]:
        if not (best > x or best != best):
            best = x
    return best


def sign(x):
    """np.sign: 1, -1, 0 (a zero of either sign) or NaN."""
    if x > 0.0:
        return 1.0
    if x < 0.0:
        return -1.0
    return 0.0 if x == 0.0 else x


def step(x):
    """np.heaviside(x, 1): 0 for x < 0, 1 from 0 on, NaN for NaN."""
    if x < 0.0:
        return 0.0
    return 1.0 if x >= 0.0 else x


def choose(condition, a, b):
    """if(c, a, b): a where c is not 0 (NaN included), else b."""
    return a if condition != 0.0 else b


def tanh(x):
    return float(np.tanh(x))


# numpy computes x^c for these constant exponents c otherwise than pow(): as a product,
# a square root, a reciprocal (the same bits as the expressions below)
CONSTANT_POWERS = {2.0: "{0} * {0}", 0.5: "_fl_sqrt({0})", -1.0: "1.0 / {0}"}

FUNCTIONS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh,
    "cosh": math.cosh, "tanh": tanh, "sqrt": math.sqrt, "exp": math.exp, "log": math.log,
    "abs": abs, "sign": sign, "step": step, "if": choose, "min": minimum, "max": maximum,
    "lt": lambda a, b: 1.0 if a < b else 0.0, "gt": lambda a, b: 1.0 if a > b else 0.0,
    "le": lambda a, b: 1.0 if a <= b else 0.0, "ge": lambda a, b: 1.0 if a >= b else 0.0,
    "eq": lambda a, b: 1.0 if a == b else 0.0, "ne": lambda a, b: 1.0 if a != b else 0.0,
    "power": math.pow,
}


def table(lookup):
    """A lookup table (runtime.tables) called with floats: its value as a float."""
    def on_floats(*args):
        with np.errstate(all="ignore"):
            return float(lookup(*args))
    return on_floats
