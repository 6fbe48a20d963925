"""A plain brace expression read without Lark: the parse tree's rules, by recursive descent.

The fast route of :mod:`~circuitsim.netlist.parser` reads the braces of a netlist's
element and directive lines (``{m*L^2/12}``) with :func:`parse`, so that a netlist of such
lines is parsed without importing Lark or loading its tables (~50 ms of a small run's
start). The expression rules are the grammar's (``grammar.lark``)::

    sum     := product (('+' | '-') product)*          left-associative
    product := unary (('*' | '/') unary)*              left-associative
    unary   := '-' unary | '+' unary | power           -2^2 = -(2^2)
    power   := atom [('^' | '**') unary]               right-associative, 2^-1
    atom    := ENUMBER | NAME | NAME '(' [sum (',' sum)*] ')' | '(' sum ')'

and the tokens are the grammar's terminals (the same regular expressions), blanks
between them skipped. Each node is built by the same callbacks as the tree route's
(:class:`~circuitsim.netlist.exprbuilder.ExprBuilder`), so the tree is the same, node for
node and location for location.

Only what the fast route admits reaches here (``parser._BRACE``: one line, ASCII, no
strings, comparisons, keyword arguments or comments); anything else, a syntax error
included, gives None, and the caller leaves the brace to Lark, which reads it or words
the error. An error of a callback (a number's unit, a function's count of arguments)
raises as it does on the tree route. Nesting deeper than ``MAX_DEPTH`` also gives None (the recursion stays far
below Python's limit; Lark reads such a brace without recursion).
"""
from __future__ import annotations

import re

from ..errors import Loc
from .exprbuilder import ExprBuilder

MAX_DEPTH = 60                  # nested brackets and signs the descent takes on itself

# the grammar's terminals inside braces: NAME, ENUMBER, and the operators and brackets
# ('**' before '*', as Lark's lexer tries the longer literal first); WS between them
_TOKEN = re.compile(r"([A-Za-z_]\w*(?:\.\w+)*)"
                    r"|((?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*)"
                    r"|(\*\*|[-+*/^(),])", re.ASCII)
_BLANKS = re.compile(r"[ \t\f]*")


class _Token(str):
    """A token's text and its column (1-based) in the brace's text."""
    __slots__ = ("col",)


class _Declined(Exception):
    """Not a plain expression (or not a valid one): Lark reads it."""


class _Builder(ExprBuilder):
    """The tree route's callbacks, each token located at line 1, its column."""

    def _loc(self, token: _Token) -> Loc:
        return Loc("", 1, token.col)


_BUILD = _Builder()
_BINARY = {"+": _BUILD.add, "-": _BUILD.sub, "*": _BUILD.mul, "/": _BUILD.div}


def parse(text: str):
    """The expression tree of ``text`` (a brace's inside), its locations at line 1 and
    the column in ``text``; None if the fast route leaves it to Lark (see above)."""
    if not text.isascii():
        return None
    try:
        tokens = _tokens(text)
        reader = _Reader(tokens)
        tree = reader.sum(0)
        if reader.peek() is not None:
            return None
        return tree
    except _Declined:
        return None


def _tokens(text: str) -> list:
    """[(kind, token)]: kind 'name', 'number' or the operator or bracket itself."""
    out, pos = [], _BLANKS.match(text).end()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:
            raise _Declined
        name, number, operator = m.groups()
        token = _Token(name or number or operator)
        token.col = m.start(m.lastindex) + 1
        out.append(("name" if name else "number" if number else operator, token))
        pos = _BLANKS.match(text, m.end()).end()
    return out


class _Reader:
    """Recursive descent over the tokens; ``depth`` counts the nesting taken so far."""

    def __init__(self, tokens: list):
        self.tokens, self.at = tokens, 0

    def peek(self) -> str | None:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else None

    def take(self) -> _Token:
        if self.at >= len(self.tokens):
            raise _Declined
        self.at += 1
        return self.tokens[self.at - 1][1]

    def expect(self, kind: str) -> None:
        if self.peek() != kind:
            raise _Declined
        self.at += 1

    def sum(self, depth: int):
        if depth > MAX_DEPTH:
            raise _Declined
        tree = self.product(depth)
        while self.peek() in ("+", "-"):
            op = self.take()
            tree = _BINARY[op]([tree, self.product(depth)])
        return tree

    def product(self, depth: int):
        tree = self.unary(depth)
        while self.peek() in ("*", "/"):
            op = self.take()
            tree = _BINARY[op]([tree, self.unary(depth)])
        return tree

    def unary(self, depth: int):
        if depth > MAX_DEPTH:
            raise _Declined
        kind = self.peek()
        if kind == "-":
            self.at += 1
            return _BUILD.neg([self.unary(depth + 1)])
        if kind == "+":
            self.at += 1
            return self.unary(depth + 1)
        base = self.atom(depth)
        if self.peek() in ("^", "**"):
            self.at += 1
            return _BUILD.pow([base, self.unary(depth + 1)])
        return base

    def atom(self, depth: int):
        kind = self.peek()
        if kind == "number":
            return _BUILD.num([self.take()])
        if kind == "name":
            name = self.take()
            if self.peek() != "(":
                return _BUILD.name([name])
            self.at += 1
            args = []
            if self.peek() != ")":
                args.append(self.sum(depth + 1))
                while self.peek() == ",":
                    self.at += 1
                    args.append(self.sum(depth + 1))
            self.expect(")")
            return _BUILD.func([name, *args])
        if kind == "(":
            self.at += 1
            tree = self.sum(depth + 1)
            self.expect(")")
            return tree
        raise _Declined
