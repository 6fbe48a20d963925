"""Netlist text -> :class:`~circuitsim.netlist.ast.NetlistFile`.

The grammar (``grammar.lark``, next to this file) is parsed by Lark's LALR parser with
its contextual lexer; :class:`_Builder` turns the parse tree into AST nodes, each with
its ``file:line:col``. Lark's exceptions become NetlistError in one place,
:func:`_syntax_error`, which words the message in terms of the netlist language.
"""
from __future__ import annotations

import re
import threading
from functools import lru_cache
from importlib import resources
from typing import Callable

from lark import Lark, Token, Transformer, Tree
from lark.exceptions import (UnexpectedCharacters, UnexpectedEOF, UnexpectedInput,
                             UnexpectedToken, VisitError)

from ..errors import Loc, NetlistError
from . import ast
from .expressions import ExprBuilder, split_number

Locate = Callable[[int, int], Loc]

_END = re.compile(r"^[ \t]*\.end(?![\w.])", re.IGNORECASE | re.MULTILINE)
_BLANK_OR_COMMENT = re.compile(r"^[ \t]*(?:[*;].*)?$")


@lru_cache(maxsize=1)
def _grammar() -> str:
    return resources.files(__package__).joinpath("grammar.lark").read_text("utf-8")


@lru_cache(maxsize=1)
def _lark() -> Lark:
    """The tree-building parser: expressions, and the exact wording of every error."""
    return Lark(_grammar(), parser="lalr", lexer="contextual", start=["netlist", "expression"],
                propagate_positions=True, maybe_placeholders=False)


# The fast route: the builder runs inside the LALR parser as each rule is reduced, so no
# parse tree is built. Lark binds its callbacks when it is constructed, so one builder
# serves every parse; its locate/src are set for the parse that holds _FAST_LOCK.
_FAST_BUILDER = None
_FAST_LOCK = threading.Lock()


@lru_cache(maxsize=1)
def _fast_lark() -> Lark:
    global _FAST_BUILDER
    _FAST_BUILDER = _FastBuilder(None, "")
    return Lark(_grammar(), parser="lalr", lexer="contextual", start="netlist",
                transformer=_FAST_BUILDER, maybe_placeholders=False)


def _parse_fast(src: str, locate: Locate) -> list | None:
    """The statements of ``src``, or None if the fast route cannot give them: it is busy
    (another thread), or the text has an error, which the tree route then reports, so
    that the error is exactly the one the tree route finds (it checks all the syntax
    before building anything)."""
    if not _FAST_LOCK.acquire(blocking=False):
        return None
    try:
        lark = _fast_lark()
        _FAST_BUILDER.locate, _FAST_BUILDER.src = locate, src
        try:
            return lark.parse(src)
        except Exception:        # noqa: BLE001 - the tree route raises the right error
            return None
    finally:
        if _FAST_BUILDER is not None:
            _FAST_BUILDER.locate, _FAST_BUILDER.src = None, ""
        _FAST_LOCK.release()


def parse(text: str, filename: str = "<string>") -> ast.NetlistFile:
    """Parse a whole netlist. Raises NetlistError (with file:line:col) on bad syntax."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    end = _END.search(text)
    if end:                      # .end stops reading: what follows is not parsed at all
        text = text[:end.start()]
    lines = text.split("\n")

    last = len(lines)

    def locate(line: int, col: int) -> Loc:   # the text is parsed after one extra '\n'
        line = 1 if line <= 2 else last if line > last else line - 1
        return Loc(filename, line, col, lines[line - 1])

    _check_first_line(lines, filename)
    src = "\n" + text + "\n"
    statements = _parse_fast(src, locate)
    if statements is None:
        try:
            tree = _lark().parse(src, start="netlist")
            statements = _Builder(locate, src).transform(tree)
        except (UnexpectedInput, VisitError) as exc:
            raise _syntax_error(exc, locate) from None
    return ast.NetlistFile(filename, _gather_subckts(statements))


def parse_expression_text(text: str, loc: Loc | None = None):
    """The expression tree of ``text`` (optionally in braces); see expressions.parse_expression."""
    base = loc or Loc("<expression>", 1, 1, text)
    body = text.strip()
    offset = len(text) - len(text.lstrip())
    if body.startswith("{") and body.endswith("}"):
        body, offset = body[1:-1], offset + 1

    def locate(line: int, col: int) -> Loc:
        return Loc(base.file, base.line, base.col + offset + col - 1, base.text)

    try:
        tree = _lark().parse(body, start="expression")
        return _Builder(locate, body).transform(tree)
    except (UnexpectedInput, VisitError) as exc:
        raise _syntax_error(exc, locate) from None


def _check_first_line(lines: list, filename: str) -> None:
    """A '+' line before any statement has nothing to continue."""
    for number, line in enumerate(lines, start=1):
        if _BLANK_OR_COMMENT.match(line):
            continue
        if line.lstrip().startswith("+"):
            col = len(line) - len(line.lstrip()) + 1
            raise NetlistError("a continuation line ('+') needs a statement before it",
                               Loc(filename, number, col, line))
        return


# --- parse tree -> AST ------------------------------------------------------------------
class _Builder(ExprBuilder, Transformer):
    def __init__(self, locate: Locate, src: str):
        super().__init__(visit_tokens=False)
        self.locate = locate
        self.src = src

    def _loc(self, tok) -> Loc:
        return self.locate(tok.line, tok.column)

    def _as_value(self, item) -> ast.Value:
        if not isinstance(item, Token):
            return item
        loc, text, kind = self.locate(item.line, item.column), str(item), item.type
        if kind == "NUMBER":
            mantissa, suffix = split_number(text)
            return ast.Number(loc, text, mantissa, suffix)
        if kind == "STRING":
            return ast.String(loc, text, text[1:-1])
        return ast.Ident(loc, text, text)

    def _split(self, items) -> tuple[list, list, Token | None]:
        """Items of a statement -> (positional values, assigns, the 'params:' token)."""
        positional, params, marker = [], [], None
        for item in items:
            if isinstance(item, Token):
                if item.type == "PARAMS":
                    marker = item
                    continue
            elif isinstance(item, ast.Assign):
                params.append(item)
                continue
            if marker is not None:
                raise NetlistError("after 'params:' only key=value pairs may follow",
                                   self._as_value(item).loc)
            positional.append(self._as_value(item))
        return positional, params, marker

    def netlist(self, children):
        return children

    def expression(self, children):
        return children[0]

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
        return ast.Call(self._loc(first), self.src[first.start_pos:last.end_pos],
                        str(first)[:-1], [self._as_value(c) for c in children[1:-1]])

    def brace(self, children):
        first, last = children[0], children[-1]
        return ast.Expr(self._loc(first), self.src[first.start_pos:last.end_pos], children[1])


class _FastBuilder(_Builder):
    # Without a __default__, Lark builds the trees of the rules the builder has no
    # method for (lists of items, inlined into their statement) directly.
    __default__ = None


# --- .subckt ... .ends --------------------------------------------------------------------
def _gather_subckts(statements: list) -> list:
    """Move the statements between ``.subckt`` and ``.ends`` into ast.Subckt bodies."""
    top: list = []
    stack: list = []
    for st in statements:
        body = stack[-1].body if stack else top
        if isinstance(st, ast.Directive) and st.name == "subckt":
            sub = _open_subckt(st)
            body.append(sub)
            stack.append(sub)
        elif isinstance(st, ast.Directive) and st.name == "ends":
            if not stack:
                raise NetlistError(".ends without a matching .subckt", st.loc)
            sub = stack.pop()
            _check_ends(st, sub)
        else:
            body.append(st)
    if stack:
        sub = stack[-1]
        raise NetlistError(f".subckt {sub.name} is not closed: '.ends {sub.name}' is missing",
                           sub.loc)
    return top


def _open_subckt(st: ast.Directive) -> ast.Subckt:
    if not st.positional or not isinstance(st.positional[0], ast.Ident):
        where = st.positional[0].loc if st.positional else st.loc
        raise NetlistError("expected a subcircuit name after .subckt", where)
    ports = []
    for v in st.positional[1:]:
        if isinstance(v, ast.Ident) or (isinstance(v, ast.Number) and v.text.isalnum()):
            ports.append(ast.Ident(v.loc, v.text, v.text))
        else:
            raise NetlistError(f"expected a port name, got '{v.text}'", v.loc)
    return ast.Subckt(st.positional[0].name, ports, list(st.params), [], st.loc)


def _check_ends(st: ast.Directive, sub: ast.Subckt) -> None:
    if st.params or len(st.positional) > 1:
        extra = st.params[0] if st.params else st.positional[1]
        raise NetlistError(".ends takes at most the subcircuit's name", extra.loc)
    if st.positional:
        name = st.positional[0]
        if name.text.lower() != sub.name.lower():
            raise NetlistError(f".ends {name.text} does not match .subckt {sub.name} "
                               f"(line {sub.loc.line})", name.loc)


# --- Lark exceptions -> NetlistError (the only place) ----------------------------------------
_WORDS = {
    "NUMBER": "a number", "ENUMBER": "a number", "NAME": "a name", "STRING": "a string",
    "FUNC": "a function call", "DIRECTIVE": "a directive", "TITLE": ".title",
    "LPAR": "'('", "RPAR": "')'", "LBRACE": "'{'", "RBRACE": "'}'", "COMMA": "','",
    "EQUAL": "'='", "PLUS": "'+'", "MINUS": "'-'", "STAR": "'*'", "SLASH": "'/'",
    "_POW": "'^'", "_NL": "the end of the line", "$END": "the end of the input",
}
_VALUE_START = {"NUMBER", "STRING", "FUNC", "LBRACE"}
_OPERATORS = {"PLUS", "MINUS", "STAR", "SLASH", "_POW"}
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


def _syntax_error(exc: Exception, locate: Locate) -> NetlistError:
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
