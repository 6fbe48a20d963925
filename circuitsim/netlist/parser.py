"""Netlist text -> :class:`~circuitsim.netlist.ast.NetlistFile`.

The language is the grammar's (``grammar.lark``, next to this file). parse() first
takes a fast route that builds the statements without a parse tree (see "the fast route"
below); the tree route (:mod:`~circuitsim.netlist.larkroute`: Lark's parse tree -> AST,
Lark's exceptions -> NetlistError) runs only when that fails, so errors are always found
and worded by the tree route. A netlist whose lines the fast route reads whole, braces
included, is parsed without importing Lark at all.
"""
from __future__ import annotations

import re
import threading
from bisect import bisect_right
from functools import lru_cache

from ..errors import Loc, NetlistError
from ..runtime.memory import gc_paused
from ..runtime import expressions
from . import ast, plainexpr
from .exprbuilder import split_number

_END = re.compile(r"^[ \t]*\.end(?![\w.])", re.IGNORECASE | re.MULTILINE)
_BLANK_OR_COMMENT = re.compile(r"^[ \t]*(?:[*;].*)?$")
# bidirectional overrides and isolates reorder what an editor shows ("Trojan Source")
_BIDI_CONTROL = re.compile("[\u202a-\u202e\u2066-\u2069]")
_NON_ASCII_DIGIT = re.compile(r"(?![0-9])\d")   # \d is any Unicode decimal digit
_STEP_LINE = re.compile(r"^[ \t]*\.step\b", re.IGNORECASE)
# values on one .step line (its '+' lines included): more than the cases one netlist may
# run (api.MAX_CASES) is refused before the line is parsed, which costs ~15 us a value
MAX_STEP_VALUES = 10_000
# characters of one brace expression: ~5 000 terms of a fitted polynomial; parsing costs
# ~30 us a term, so this bounds an expression's parse to about a second and a half
MAX_EXPRESSION_CHARS = 100_000


def parse(text: str, filename: str = "<string>") -> ast.NetlistFile:
    """Parse a whole netlist. Raises NetlistError (with file:line:col) on bad syntax."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.isascii():
        _check_characters(text.split("\n"), filename)
    end = _END.search(text)
    if end:                      # .end stops reading: what follows is not parsed at all
        text = text[:end.start()]
    lines = text.split("\n")

    def locate(line: int, col: int) -> Loc:   # the text is parsed after one extra '\n'
        line = min(max(line - 1, 1), len(lines))
        return Loc(filename, line, col, lines[line - 1])

    _check_first_line(lines, filename)
    _check_step_sizes(lines, filename)
    _check_expression_sizes(lines, filename)
    with gc_paused():           # a dozen long-lived objects a line, no cycles
        statements = _parse_fast(lines, filename)
    if statements is None:       # an error (or another thread is parsing): the tree route
        statements = _larkroute().parse_tree("\n" + text + "\n", locate)
    return ast.NetlistFile(filename, _gather_subckts(statements))


# --- the fast route -------------------------------------------------------------------------
# parse() first tries this route, which gives the same statements without a parse tree:
#  * simple element lines (below) are split by two regular expressions;
#  * element and directive lines whose values are names, numbers, calls of those,
#    vectors and plain braces (a long pwl, a body's inertia), over '+' continuation
#    lines too, are read piece by piece by a few more (further below), each plain brace
#    by the recursive descent of :mod:`~circuitsim.netlist.plainexpr`; .title lines by
#    one more;
#  * the other lines go, in runs, through Lark's fast parser (larkroute.parse_run),
#    which runs the builder as each rule is reduced; it has one builder, so _FAST_LOCK
#    keeps it to one parse at a time.
# Any failure (a syntax error, an error raised by the builder) sends parse() down the
# tree route, which reads the whole text again: it checks all the syntax before it builds
# anything, so which error is reported, and its wording, stay exactly as they were.
_FAST_LOCK = threading.Lock()


def _larkroute():
    """The tree route's module, imported (with Lark) on first use."""
    from . import larkroute
    return larkroute


# A simple element line: type, name, then bare names, numbers and key=name/number items,
# ASCII only; each token ends at a blank, at the '=' after a key, at a ';' comment or at
# the end of the line. On such a line Lark's lexer makes exactly these tokens (no other
# terminal can start where they start, and NAME and NUMBER stop where they stop here),
# so the statement built from them is the one the grammar gives. Every piece of a
# line can be matched in one way only (hence \d+(?:\.\d*)? rather than the grammar's
# \d+\.?\d*), so that a long line that fails to match fails in linear time.
_NAME = r"[A-Za-z_]\w*(?:\.\w+)*"
_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?[A-Za-z]*"
_SIMPLE_LINE = re.compile(rf"[ \t]*({_NAME})[ \t]+({_NAME})"
                          rf"((?:[ \t]+(?:{_NAME}[ \t]*=[ \t]*)?(?:{_NAME}|{_NUMBER}))*)"
                          r"[ \t]*(?:;.*)?", re.ASCII)
_SIMPLE_ITEM = re.compile(rf"[ \t]+(?:({_NAME})[ \t]*=[ \t]*)?(?:({_NAME})|({_NUMBER}))",
                          re.ASCII)
_CONTINUATION = re.compile(r"[ \t]*\+")


def _parse_fast(lines: list, filename: str) -> list | None:
    """The statements of the netlist ``lines``, or None: see above."""
    if not _FAST_LOCK.acquire(blocking=False):
        return None
    try:
        statements: list = []
        start = None             # first line of the run of lines for Lark
        i = 0
        while i < len(lines):
            st, stop = _fast_statement(lines, i, filename)
            if st is not None:
                if start is not None:
                    statements += _larkroute().parse_run(lines, start, i, filename)
                    start = None
                statements.append(st)
            elif start is None and not _BLANK_OR_COMMENT.match(lines[i]):
                start = i
            i = stop
        if start is not None:
            statements += _larkroute().parse_run(lines, start, len(lines), filename)
        return statements
    except Exception:            # noqa: BLE001 - the tree route raises the right error
        return None
    finally:
        _FAST_LOCK.release()


def _fast_statement(lines: list, i: int, filename: str) -> tuple:
    """(the statement that starts on line ``i``, the index of the line after it), or
    (None, i + 1) when line ``i`` is left to Lark (or holds no statement)."""
    line = lines[i]
    m = _SIMPLE_LINE.fullmatch(line)
    continued = _continued(lines, i)
    if m is not None and not continued:
        return _simple_element(m, i + 1, line, filename), i + 1
    if (continued or "(" in line or "{" in line) and _HEAD.match(line):
        stop = _statement_stop(lines, i)
        return _listed_element(lines, i, stop, filename), stop
    if _DIRECTIVE.match(line):
        if _TITLE.match(line):      # its own token: the rest of the line (no '+' lines)
            return (None if continued else _title(line, i + 1, filename)), i + 1
        stop = _statement_stop(lines, i)
        return _listed_directive(lines, i, stop, filename), stop
    return None, i + 1


def _continued(lines: list, i: int) -> bool:
    """Does a '+' line (after any blank or comment lines) continue line ``i``?"""
    for j in range(i + 1, len(lines)):
        if not _BLANK_OR_COMMENT.match(lines[j]):
            return _CONTINUATION.match(lines[j]) is not None
    return False


def _simple_element(m: re.Match, number: int, line: str, filename: str) -> ast.ElementStmt | None:
    """The statement of a simple element line (``number`` is its line number)."""
    positional, params = [], []
    pos = m.end(2)
    for item in _SIMPLE_ITEM.finditer(line, pos, m.end(3)):
        if item.start() != pos:  # cannot happen (the items make up group 3): Lark reads
            return None          # the line if it ever did
        pos = item.end()
        key, name, text = item.groups()
        if name is not None:
            value = ast.Ident(Loc(filename, number, item.start(2) + 1, line), name, name)
        else:
            mantissa, suffix = split_number(text)
            value = ast.Number(Loc(filename, number, item.start(3) + 1, line),
                               text, mantissa, suffix)
        if key is None:
            positional.append(value)
        else:
            params.append(ast.Assign(key, value, Loc(filename, number, item.start(1) + 1, line)))
    if pos != m.end(3):
        return None
    return ast.ElementStmt(m.group(1), m.group(2), positional, params,
                           Loc(filename, number, m.start(1) + 1, line),
                           Loc(filename, number, m.start(2) + 1, line))


# An element or directive line of names, numbers, vectors, plain braces and calls of
# those (V=pwl(0, 0, 1m, 12, breakpoints=jumps), step(0, 0, {V})), over '+'
# continuation lines if need be. The statement's lines are joined as Lark reads
# them; _SEP is what Lark skips between two tokens (blanks, a ';' comment to the end of
# its line, the line break and '+' of a continuation, with blank and comment lines
# between). Every name and number must end where a token must end (_WORD_END), so that
# the pieces can be matched in one way only and each is the token Lark's lexer makes
# there (as for _SIMPLE_LINE above).
# Anything else (strings, nested calls, vectors in calls, units with * / ^, braces that
# are not plain) is Lark's.
_SEP = r"(?:[ \t]|;[^\n]*(?![^\n])|\n(?:[ \t]*(?:[*;][^\n]*)?\n)*[ \t]*\+)*"
_WORD_END = r"(?=[ \t;\n=,)]|\Z)"
_KEY = rf"(?:({_NAME}){_SEP}={_SEP})?"
_HEAD = re.compile(rf"[ \t]*({_NAME}){_WORD_END}{_SEP}({_NAME}){_WORD_END}", re.ASCII)
_ITEM = re.compile(rf"{_SEP}{_KEY}(?:([A-Za-z_]\w*)\(|({_NAME}){_WORD_END}"
                   rf"|({_NUMBER}){_WORD_END}|([({{]))", re.ASCII)
# a brace on one line, without strings, keyword arguments, comparisons or comments, of
# at most BRACE_CHARS characters: its tree is then less than ~BRACE_CHARS / 2 deep, well
# within Python's recursion limit for _relocated (longer ones, a fitted polynomial, are
# Lark's, whose tree route balances them)
BRACE_CHARS = 800
_BRACE = re.compile(r"\{([^{}\n;\"=<>!]{0,%d})\}" % BRACE_CHARS)
_VECTOR_WORD = re.compile(rf"{_SEP}(?:({_NAME})|({_NUMBER})){_WORD_END}", re.ASCII)
_DELIMITER = re.compile(rf"{_SEP}([,)])", re.ASCII)
_ARG = re.compile(rf"{_SEP}{_KEY}(?:({_NAME})|({_NUMBER})){_WORD_END}{_SEP}([,)])",
                  re.ASCII)
_NO_ARGS = re.compile(rf"{_SEP}\)", re.ASCII)
_BRACE_ARG = re.compile(rf"{_SEP}{_KEY}(?=\{{)", re.ASCII)
# a directive's head; .title is a token of its own (the grammar's TITLE, tried first)
_DIRECTIVE = re.compile(rf"[ \t]*(\.[A-Za-z_]\w*){_WORD_END}", re.ASCII)
_TITLE = re.compile(r"[ \t]*(\.title(?![\w.])[^\n;]*)", re.IGNORECASE)
_PARAMS = re.compile(rf"{_SEP}params:", re.ASCII | re.IGNORECASE)   # the grammar's PARAMS
_EQUALS = re.compile(rf"{_SEP}={_SEP}(?=\{{)", re.ASCII)
_REST = re.compile(_SEP, re.ASCII)


def _statement_stop(lines: list, i: int) -> int:
    """The index of the line after the statement that starts on line ``i`` (after its
    last '+' continuation line)."""
    stop = i + 1
    for j in range(i + 1, len(lines)):
        if _CONTINUATION.match(lines[j]):
            stop = j + 1
        elif not _BLANK_OR_COMMENT.match(lines[j]):
            break
    return stop


class _Positions:
    """Offsets in the joined lines[start:stop] -> Loc (file:line:col of that line)."""

    def __init__(self, lines: list, start: int, stop: int, filename: str):
        self.lines, self.start, self.filename = lines, start, filename
        self.offsets = [0]
        for line in lines[start:stop - 1]:
            self.offsets.append(self.offsets[-1] + len(line) + 1)

    def loc(self, pos: int) -> Loc:
        k = bisect_right(self.offsets, pos) - 1
        return Loc(self.filename, self.start + k + 1, pos - self.offsets[k] + 1,
                   self.lines[self.start + k])


def _listed_element(lines: list, start: int, stop: int, filename: str) -> ast.ElementStmt | None:
    """The element statement of lines[start:stop] if its values are names, numbers,
    calls of those, vectors and plain braces (each maybe key=...), else None."""
    src = "\n".join(lines[start:stop])
    at = _Positions(lines, start, stop, filename).loc
    head = _HEAD.match(src)
    items = _listed_items(src, head.end(), at)
    if items is None or items[2]:     # 'params:' on an element: the tree route's error
        return None
    return ast.ElementStmt(head.group(1), head.group(2), items[0], items[1],
                           at(head.start(1)), at(head.start(2)))


def _listed_directive(lines: list, start: int, stop: int, filename: str) -> ast.Directive | None:
    """The directive of lines[start:stop], as _listed_element reads an element's values;
    also ``.func name(args) = {body}`` (its values: the call, then the body)."""
    src = "\n".join(lines[start:stop])
    at = _Positions(lines, start, stop, filename).loc
    head = _DIRECTIVE.match(src)
    name, loc = head.group(1)[1:].lower(), at(head.start(1))
    definition = _listed_funcdef(src, head.end(), at)
    if definition is not None:
        return ast.Directive(name, definition, [], loc)
    items = _listed_items(src, head.end(), at)
    if items is None or (items[2] and name != "subckt"):
        return None
    return ast.Directive(name, items[0], items[1], loc)


def _title(line: str, number: int, filename: str) -> ast.Directive:
    """``.title`` keeps the rest of its line, up to a ';' comment, as its text."""
    title = _TITLE.match(line)
    return ast.Directive("title", [], [], Loc(filename, number, title.start(1) + 1, line),
                         text=title.group(1)[len(".title"):].strip())


def _listed_funcdef(src: str, pos: int, at) -> list | None:
    """[the call, the body] of ``name(args) = {body}`` from offset ``pos`` to the end,
    or None."""
    item = _ITEM.match(src, pos)
    if item is None or item.group(2) is None or item.group(1) is not None:
        return None
    call, pos = _listed_call(src, item.start(2), item.end(), at)
    equals = None if call is None else _EQUALS.match(src, pos)
    if equals is None:
        return None
    body, pos = _listed_brace(src, equals.end(), at)
    if body is None or _REST.fullmatch(src, pos) is None:
        return None
    return [call, body]


def _listed_items(src: str, pos: int, at) -> tuple | None:
    """(positional values, assigns, whether 'params:' came) of the statement's values
    from offset ``pos`` to the end, or None if one is not of the kinds read here (or
    a positional value follows 'params:': the tree route's error)."""
    positional, params, marked = [], [], False
    while True:
        marker = _PARAMS.match(src, pos)
        if marker is not None:
            marked, pos = True, marker.end()
            continue
        item = _ITEM.match(src, pos)
        if item is None:
            break
        key, func, name, text, bracket = item.groups()
        if func is not None:
            value, pos = _listed_call(src, item.start(2), item.end(), at)
            if value is None:
                return None
        elif bracket is not None:
            value, pos = (_listed_brace if bracket == "{" else _listed_vector)(
                src, item.start(5), at)
            if value is None:
                return None
        else:
            pos = item.end()
            value = _word(name, item.start(3), text, item.start(4), at)
        if key is None:
            if marked:
                return None
            positional.append(value)
        else:
            params.append(ast.Assign(key, value, at(item.start(1))))
    if _REST.fullmatch(src, pos) is None:
        return None
    return positional, params, marked


def _listed_call(src: str, first: int, pos: int, at) -> tuple:
    """(the ast.Call whose name starts at ``first`` and whose arguments start at ``pos``,
    the offset after its ')'), or (None, pos) if an argument is not a name, a number or
    a plain brace."""
    args, keywords = [], []
    closed = _NO_ARGS.match(src, pos)
    while closed is None:
        arg = _ARG.match(src, pos)
        if arg is not None:
            key, name, text, delimiter = arg.groups()
            value = _word(name, arg.start(2), text, arg.start(3), at)
            pos = arg.end()
        else:                           # a brace: step(0, 0, {V})
            arg = _BRACE_ARG.match(src, pos)
            value, pos = (None, pos) if arg is None else _listed_brace(src, arg.end(), at)
            found = None if value is None else _DELIMITER.match(src, pos)
            if found is None:
                return None, pos
            key, delimiter, pos = arg.group(1), found.group(1), found.end()
        if key is None:
            args.append(value)
        else:
            keywords.append(ast.Assign(key, value, at(arg.start(1))))
        if delimiter == ")":
            break
    end = closed.end() if closed is not None else pos
    return ast.Call(at(first), src[first:end], src[first:src.index("(", first)],
                    args, keywords), end


def _listed_vector(src: str, start: int, at) -> tuple:
    """(the ast.Vector whose '(' is at ``start``, the offset after its ')'), or
    (None, start) if an item is not a name, a number or a brace."""
    items, pos = [], start + 1
    while True:
        brace = _REST.match(src, pos).end()
        if src.startswith("{", brace):
            value, pos = _listed_brace(src, brace, at)
        else:
            word = _VECTOR_WORD.match(src, pos)
            value, pos = ((None, pos) if word is None else
                          (_word(word.group(1), word.start(1), word.group(2),
                                 word.start(2), at), word.end()))
        delimiter = None if value is None else _DELIMITER.match(src, pos)
        if delimiter is None:
            return None, start
        items.append(value)
        pos = delimiter.end()
        if delimiter.group(1) == ")":
            return ast.Vector(at(start), src[start:pos], items), pos


def _listed_brace(src: str, start: int, at) -> tuple:
    """(the ast.Expr of the brace whose '{' is at ``start``, the offset after its '}'),
    or (None, start) if it is not one the fast route reads (``_BRACE``, ``_relocated``)."""
    brace = _BRACE.match(src, start)
    if brace is None:
        return None, start
    loc = at(start)
    try:
        tree = _relocated(_brace_template(brace.group(1)), at, brace.start(1) - 1)
    except _NotPlain:
        return None, start
    return ast.Expr(loc, brace.group(), expressions.bounded(tree, loc)), brace.end()


class _NotPlain(Exception):
    """An expression node the fast route does not move (a table: Lark reads it)."""


@lru_cache(maxsize=4096)
def _brace_template(inner: str):
    """The expression tree of a brace's text, its locations at line 1 and the column in
    ``inner``: the same braces recur on many lines (``{m*L^2/12}``), and each is then
    parsed once and moved to its place (``_relocated``). A syntax error raises (the
    tree route then words it)."""
    plain = plainexpr.parse(inner)
    if plain is not None:
        return plain
    return _larkroute().brace_template(inner)


def _relocated(node, at, base: int):
    """``node`` with each location at column c of the template moved to offset
    ``base`` + c of the statement's text (``at``)."""
    kind = type(node)
    if kind is expressions.Num:
        return node
    if kind is expressions.Name:
        return expressions.Name(node.name, at(base + node.loc.col))
    if kind is expressions.Binary:
        return expressions.Binary(node.op, _relocated(node.left, at, base),
                                  _relocated(node.right, at, base))
    if kind is expressions.Unary:
        return expressions.Unary(node.op, _relocated(node.arg, at, base))
    if kind is expressions.Func and node.table is None:
        return expressions.Func(node.name, tuple(_relocated(a, at, base) for a in node.args),
                                None if node.loc is None else at(base + node.loc.col))
    raise _NotPlain


def _word(name: str | None, name_at: int, text: str, text_at: int, at) -> ast.Value:
    """The Ident ``name`` (at offset ``name_at``) if there is one, else the Number ``text``."""
    if name is not None:
        return ast.Ident(at(name_at), name, name)
    mantissa, suffix = split_number(text)
    return ast.Number(at(text_at), text, mantissa, suffix)


def parse_expression(text: str, loc: Loc | None = None):
    """Parse an expression written without a netlist around it (``--set k={2*a}``).

    Surrounding braces are optional. ``loc`` is where ``text`` starts; node locations
    are offset from it. Raises NetlistError on a syntax error."""
    base = loc or Loc("<expression>", 1, 1, text)
    body = text.strip()
    offset = len(text) - len(text.lstrip())
    if body.startswith("{") and body.endswith("}"):
        body, offset = body[1:-1], offset + 1

    def locate(line: int, col: int) -> Loc:
        return Loc(base.file, base.line, base.col + offset + col - 1, base.text)

    return _larkroute().parse_expression(body, locate)


def _check_characters(lines: list, filename: str) -> None:
    """A bidirectional control character anywhere (comments too: it can make code look
    commented out), and outside comments a non-ASCII digit (float() would read '৪' as 4),
    is refused at its line and column."""
    for number, line in enumerate(lines, start=1):
        if line.isascii():
            continue
        bidi = _BIDI_CONTROL.search(line)
        if bidi:
            raise NetlistError(f"the invisible bidirectional control character "
                               f"U+{ord(bidi.group()):04X} can make the line read other "
                               "than it is parsed; remove it",
                               Loc(filename, number, bidi.start() + 1, line))
        code = "" if _BLANK_OR_COMMENT.match(line) else line.partition(";")[0]
        digit = _NON_ASCII_DIGIT.search(code)
        if digit:
            raise NetlistError(f"'{digit.group()}' (U+{ord(digit.group()):04X}) is not an "
                               "ASCII digit; write numbers with the digits 0-9",
                               Loc(filename, number, digit.start() + 1, line))


def _check_step_sizes(lines: list, filename: str) -> None:
    """A ``.step`` line (with its '+' lines) of more values than MAX_STEP_VALUES is
    refused at its line before it is parsed: its cases could never run."""
    for number, line in enumerate(lines, start=1):
        if not _STEP_LINE.match(line):
            continue
        words = len(line.partition(";")[0].split()) - 2          # '.step', the name
        following = number
        while following < len(lines) and lines[following].lstrip().startswith("+"):
            words += len(lines[following].partition(";")[0].lstrip()[1:].split())
            following += 1
        if words > MAX_STEP_VALUES:
            raise NetlistError(f"this .step line lists {words} values; at most "
                               f"{MAX_STEP_VALUES} cases run from one netlist (sweep in parts, "
                               "or drive the cases from Python with Netlist.simulate)",
                               Loc(filename, number, 1, line))


def _check_expression_sizes(lines: list, filename: str) -> None:
    """A brace expression of more than MAX_EXPRESSION_CHARS characters is refused at its
    '{' before it is parsed."""
    for number, line in enumerate(lines, start=1):
        if len(line) <= MAX_EXPRESSION_CHARS:
            continue
        start = line.find("{")
        while start >= 0:
            stop = line.find("}", start)
            stop = len(line) if stop < 0 else stop
            if stop - start - 1 > MAX_EXPRESSION_CHARS:
                raise NetlistError(f"this expression is {stop - start - 1} characters long; "
                                   f"the limit is {MAX_EXPRESSION_CHARS} (a table of values "
                                   "reads as a pwl(...))",
                                   Loc(filename, number, start + 1, line))
            start = line.find("{", stop)


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
