"""The tree route of the netlist parser: Lark's parse tree -> AST nodes, and Lark's
exceptions -> NetlistError.

:func:`~circuitsim.netlist.parser.parse` reads most netlists without Lark (its fast
route); this module, and Lark with it, is imported only when a line or an error needs it.
The grammar (``grammar.lark``, next to this file) is parsed by Lark's LALR parser with
its contextual lexer, whose tables are built once, not in every process
(:mod:`~circuitsim.netlist.parser_tables`); :class:`_Builder` turns the parse tree into
AST nodes, each with its ``file:line:col``. Lark's exceptions become NetlistError in one
place, :func:`syntax_error`, which words the message in terms of the netlist language.

Two parsers are built from the grammar: the tree-building one (:func:`tree_parser`: the
whole text on the tree route, and the braces the fast route does not read itself), and
the fast route's (:func:`fast_parser`), which runs the builder as each rule is reduced.
Lark binds the callbacks when it is constructed, so that parser has one builder, whose
locate/src are set for each run; the caller (parser._FAST_LOCK) keeps it to one parse at
a time.
"""
from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Callable

from lark import Lark, Token, Tree
from lark.visitors import Transformer_NonRecursive
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from ..errors import Loc, NetlistError
from ..runtime import expressions
from . import ast
from .exprbuilder import ExprBuilder, split_number
from .parser_tables import lark_parser

Locate = Callable[[int, int], Loc]


@lru_cache(maxsize=1)
def grammar() -> str:
    return resources.files(__package__).joinpath("grammar.lark").read_text("utf-8")


@lru_cache(maxsize=1)
def tree_parser() -> Lark:
    """The tree-building parser: expressions, and the exact wording of every error."""
    return lark_parser(grammar(), parser="lalr", lexer="contextual",
                       start=["netlist", "expression"], propagate_positions=True,
                       maybe_placeholders=False)


def parse_tree(src: str, locate: Locate) -> list:
    """The statements of the whole netlist text ``src`` (wrapped in newlines), every
    syntax error worded here."""
    try:
        return _Builder(locate, src).transform(tree_parser().parse(src, start="netlist"))
    except (UnexpectedInput, VisitError) as exc:
        raise syntax_error(exc, locate) from None


def parse_expression(text: str, locate: Locate):
    """The expression tree of ``text`` (no braces), bounded; errors worded here."""
    try:
        return _Builder(locate, text).transform(tree_parser().parse(text, start="expression"))
    except (UnexpectedInput, VisitError) as exc:
        raise syntax_error(exc, locate) from None


def brace_template(inner: str):
    """The tree of a brace's text at line 1 and its column (a syntax error raises)."""
    tree = tree_parser().parse(inner, start="expression")
    return _Builder(lambda line, col: Loc("", line, col), inner).transform(tree.children[0])


_FAST_BUILDER = None


@lru_cache(maxsize=1)
def fast_parser() -> Lark:
    global _FAST_BUILDER
    _FAST_BUILDER = _FastBuilder(None, "")
    return lark_parser(grammar(), parser="lalr", lexer="contextual", start="netlist",
                       transformer=_FAST_BUILDER, maybe_placeholders=False)


def parse_run(lines: list, start: int, stop: int, filename: str) -> list:
    """The statements of lines[start:stop] (whole statements), by the fast parser (an
    error raises, unworded: the caller then takes the tree route)."""
    lark = fast_parser()
    src = "\n" + "\n".join(lines[start:stop]) + "\n"

    def locate(line: int, col: int) -> Loc:   # line 2 of src is lines[start]
        line = min(max(line + start - 1, start + 1), stop)
        return Loc(filename, line, col, lines[line - 1])

    _FAST_BUILDER.locate, _FAST_BUILDER.src = locate, src
    try:
        return lark.parse(src)
    finally:
        _FAST_BUILDER.locate, _FAST_BUILDER.src = None, ""


# --- parse tree -> AST ------------------------------------------------------------------
class _Builder(ExprBuilder, Transformer_NonRecursive):
    def __init__(self, locate: Locate, src: str):
        super().__init__(visit_tokens=False)
        self.locate = locate
        self.src = src

    def _loc(self, tok) -> Loc:
        return self.locate(tok.line, tok.column)

    # (not named _value: inside the parser, a method named after a rule is its callback)
    def _as_value(self, item) -> ast.Value:
        if not isinstance(item, Token):
            return item
        loc, text = self._loc(item), str(item)
        if item.type == "NUMBER":
            mantissa, suffix = split_number(text)
            return ast.Number(loc, text, mantissa, suffix)
        if item.type == "STRING":
            return ast.String(loc, text, text[1:-1])
        return ast.Ident(loc, text, text)

    def _split(self, items) -> tuple[list, list, Token | None]:
        """Items of a statement -> (positional values, assigns, the 'params:' token)."""
        positional, params, marker = [], [], None
        for item in items:
            if isinstance(item, ast.Assign):
                params.append(item)
            elif isinstance(item, Token) and item.type == "PARAMS":
                marker = item
            else:
                if marker is not None:
                    raise NetlistError("after 'params:' only key=value pairs may follow",
                                       self._as_value(item).loc)
                positional.append(self._as_value(item))
        return positional, params, marker

    def netlist(self, children):
        return children

    def expression(self, children):
        return expressions.bounded(children[0], self.locate(1, 1))

    def element(self, children):
        kind, name = children[0], children[1]
        positional, params, marker = self._split(children[2:])
        if marker is not None:
            raise NetlistError("'params:' belongs on a .subckt line", self._loc(marker))
        return ast.ElementStmt(str(kind), str(name), positional, params,
                               self._loc(kind), self._loc(name))

    def directive(self, children):
        tok = children[0]
        name = str(tok)[1:].lower()
        positional, params, marker = self._split(children[1:])
        if marker is not None and name != "subckt":
            raise NetlistError("'params:' belongs on a .subckt line", self._loc(marker))
        return ast.Directive(name, positional, params, self._loc(tok))

    def funcdef(self, children):
        """``.func name(arg, ...) = {body}``: the directive with the call and the body as
        its values, as ``.func name(arg, ...) {body}`` (SPICE's form) reads."""
        tok = children[0]
        return ast.Directive(str(tok)[1:].lower(), list(children[1:]), [], self._loc(tok))

    def title(self, children):
        tok = children[0]
        return ast.Directive("title", [], [], self._loc(tok), text=str(tok)[len(".title"):].strip())

    def assign(self, children):
        key, value = children
        return ast.Assign(str(key), self._as_value(value), self._loc(key))

    # vector, call and brace keep their bracket tokens: the text runs from the first
    # to the end of the last.
    def vector(self, children):
        first, last = children[0], children[-1]
        return ast.Vector(self._loc(first), self.src[first.start_pos:last.end_pos],
                          [self._as_value(c) for c in children[1:-1]])

    def call(self, children):
        first, last = children[0], children[-1]
        inside = children[1:-1]
        return ast.Call(self._loc(first), self.src[first.start_pos:last.end_pos],
                        str(first)[:-1],
                        [self._as_value(c) for c in inside if not isinstance(c, ast.Assign)],
                        [c for c in inside if isinstance(c, ast.Assign)])

    def brace(self, children):
        first, last = children[0], children[-1]
        loc = self._loc(first)
        return ast.Expr(loc, self.src[first.start_pos:last.end_pos],
                        expressions.bounded(children[1], loc))


class _FastBuilder(_Builder):
    # Without a __default__, Lark builds the trees of the rules the builder has no
    # method for (lists of items, inlined into their statement) directly.
    __default__ = None



# --- Lark exceptions -> NetlistError (the only place) ----------------------------------------
_WORDS = {
    "NUMBER": "a number", "ENUMBER": "a number", "NAME": "a name", "STRING": "a string",
    "FUNC": "a function call", "DIRECTIVE": "a directive", "TITLE": ".title",
    "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
    "EQUAL": "'='", "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'",
    "_POW": "'^'", "_NL": "the end of the line", "$END": "the end of the input",
}
_VALUE_START = {"NUMBER", "STRING", "FUNC", "LBRACE"}
_OPERATORS = {"PLUS", "MINUS", "STAR", "SLASH", "_POW", "_LT", "_GT", "_LE", "_GE", "_EQ",
              "_NE"}
_OPENERS = {"LBRACE": "{", "LPAR": "(", "FUNC": "("}
_CLOSERS = {"RBRACE": "{", "RPAR": "("}
_CLOSE_OF = {"{": "}", "(": ")"}


def _expected_words(expected) -> str:
    expected = set(expected) - {"PARAMS", "CONT", "WS", "COMMENT"}
    phrases = []
    if {"NAME", "DIRECTIVE"} <= expected:
        phrases.append("an element type or a directive")
        expected -= {"NAME", "DIRECTIVE", "TITLE"}
    if _VALUE_START <= expected:
        phrases.append("a value")
        expected -= _VALUE_START | {"NAME", "LPAR"}
    if "ENUMBER" in expected:
        phrases.append("a number, a name or '('")
        expected -= {"ENUMBER", "NAME", "LPAR", "MINUS", "PLUS"}
    if len(expected & _OPERATORS) >= 2:
        phrases.append("an operator")
        expected -= _OPERATORS
    phrases += sorted({_WORDS.get(t, t.lower()) for t in expected},
                      key=lambda w: (w.startswith("the end"), w))
    if not phrases:
        return "something else"
    return phrases[0] if len(phrases) == 1 else ", ".join(phrases[:-1]) + " or " + phrases[-1]


def _in_context(expected, stack) -> set:
    """LALR merges states, so its expected set may name closers of brackets that are
    not open here; keep what the innermost open bracket (if any) allows."""
    openers = [t.type for t in stack if isinstance(t, Token) and t.type in _OPENERS]
    expected = set(expected)
    if not openers:
        return expected - {"RPAR", "RBRACE", "COMMA"}
    if openers[-1] == "LBRACE":
        return expected - {"RPAR", "COMMA", "_NL", "$END"}
    return expected - {"RBRACE", "_NL", "$END"}


def _stack(exc) -> list:
    state = getattr(exc, "state", None)
    return list(getattr(state, "value_stack", None) or [])


def _describe(tok: Token) -> str:
    if tok.type in ("_NL", "$END"):
        return _WORDS[tok.type][len("the "):]
    return f"'{tok}'"


def _end_of(item) -> tuple | None:
    """(line, column) just after a value-stack item."""
    if isinstance(item, Token):
        return item.end_line, item.end_column
    if isinstance(item, Tree) and not item.meta.empty:
        return item.meta.end_line, item.meta.end_column
    return None


def _opener_loc(tok: Token, locate: Locate) -> Loc:
    # a FUNC token is 'name(': point at its parenthesis
    return locate(tok.line, tok.column + len(tok) - 1)


def syntax_error(exc: Exception, locate: Locate) -> NetlistError:
    if isinstance(exc, VisitError):
        if isinstance(exc.orig_exc, NetlistError):
            return exc.orig_exc
        raise exc.orig_exc
    if isinstance(exc, UnexpectedToken):
        return _unexpected_token(exc, locate)
    if isinstance(exc, UnexpectedCharacters):
        loc = locate(exc.line, exc.column)
        if exc.char == '"':
            return NetlistError("unclosed string: the closing '\"' is missing", loc)
        allowed = _in_context(exc.allowed or (), _stack(exc))
        allowed = f"; expected {_expected_words(allowed)}" if allowed else ""
        return NetlistError(f"unexpected character '{exc.char}'{allowed}", loc)
    if isinstance(exc, UnexpectedEOF):
        return NetlistError(f"unexpected end of the input; expected "
                            f"{_expected_words(exc.expected)}", locate(exc.line, exc.column))
    return NetlistError(f"syntax error: {exc}")


def _unexpected_token(exc: UnexpectedToken, locate: Locate) -> NetlistError:
    tok = exc.token
    stack = _stack(exc)
    openers = [t for t in stack if isinstance(t, Token) and t.type in _OPENERS]
    prev = next((e for e in map(_end_of, reversed(stack)) if e), None)
    here = locate(tok.line, tok.column) if tok.line is not None else None
    expected = _expected_words(_in_context(exc.expected, stack))

    if tok.type in ("_NL", "$END"):
        at_end = locate(*prev) if prev else here
        if openers:
            o = _OPENERS[openers[-1].type]
            return NetlistError(f"unclosed '{o}': expected '{_CLOSE_OF[o]}' before the end "
                                "of the line", _opener_loc(openers[-1], locate))
        if stack and isinstance(stack[-1], Token) and stack[-1].type == "EQUAL":
            return NetlistError("expected a value after '='", at_end)
        return NetlistError(f"unexpected {_describe(tok)}; expected {expected}", at_end)
    if tok.type in _CLOSERS:
        want = _CLOSERS[tok.type]
        if not openers:
            return NetlistError(f"unexpected '{tok}': there is no '{want}' to close", here)
        o = _OPENERS[openers[-1].type]
        if o != want:
            col = _opener_loc(openers[-1], locate).col
            return NetlistError(f"unexpected '{tok}': the '{o}' at column {col} must be "
                                f"closed first with '{_CLOSE_OF[o]}'", here)
    if stack and isinstance(stack[-1], Token) and stack[-1].type == "EQUAL":
        return NetlistError(f"expected a value after '=', got {_describe(tok)}", here)
    hint = None
    if tok.type in _OPERATORS and not any(t.type == "LBRACE" for t in openers):
        hint = "arithmetic is written in braces, e.g. {2*L}"
    return NetlistError(f"unexpected {_describe(tok)}; expected {expected}", here, hint)

