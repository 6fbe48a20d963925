"""The one error hierarchy of circuitsim.

CircuitsimError
 ├── NetlistError   input problems located in the netlist text (file:line:col + caret)
 │    └── ModelError  a bad value or inconsistent model, naming the element
 └── SolverError    the integration failed; carries t, h, order, worst unknowns and
      │             the partial results computed so far (``partial``)
      ├── ConvergenceError
      ├── StepSizeTooSmall
      ├── InconsistentInitialConditions
      └── NoEquilibrium  (operating point: F(t, y, 0) = 0 has no solution)

Library code raises these; only ``cli.py`` prints them and chooses the exit code
(``EXIT_INPUT`` for NetlistError, ``EXIT_SOLVER`` for SolverError).
"""
from __future__ import annotations

import difflib
import re
from dataclasses import dataclass

EXIT_OK = 0
EXIT_DIFFERENT = 1   # a comparison against a golden run found a difference
EXIT_SOLVER = 3   # the run started but the solver failed or was interrupted
EXIT_INPUT = 2    # bad netlist, bad option, unknown name: nothing was run


@dataclass(frozen=True)
class Loc:
    """A position in a netlist file: 1-based line and column, plus the line's text."""
    file: str
    line: int
    col: int
    text: str = ""

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


SHOWN_WIDTH = 100   # characters of a source line shown around the error's column
LONGEST_WORD = 200  # longer words (a 1 MB name) are cut in messages
_LONG_WORD = re.compile(r"[^\s'\"]{%d,}" % (LONGEST_WORD + 1))


def _escaped(text: str) -> str:
    """A tab becomes a blank (the caret stays aligned); other control characters are
    written as escapes (an ESC sequence would otherwise act on the reader's terminal)."""
    return "".join(ch if ch.isprintable() or ch == "\n" else
                   " " if ch == "\t" else ch.encode("unicode_escape").decode("ascii")
                   for ch in text)


def printable(text: str) -> str:
    """A message safe to print: control characters escaped, a word longer than
    LONGEST_WORD (a 1 MB name) cut in the middle."""
    return _LONG_WORD.sub(lambda m: f"{m[0][:40]}...({len(m[0])} characters)...{m[0][-40:]}",
                          _escaped(text))


def shown_source(line: str, col: int) -> tuple[str, int]:
    """The part of a source line shown under an error (at most SHOWN_WIDTH characters
    around ``col``, control characters escaped) and the caret's column in it."""
    start = max(0, min(col - 1 - SHOWN_WIDTH // 2, len(line) - SHOWN_WIDTH))
    end = start + SHOWN_WIDTH
    before = _escaped(line[start:col - 1])
    shown = before + _escaped(line[col - 1:end])
    prefix = "..." if start > 0 else ""
    suffix = "..." if end < len(line) else ""
    return prefix + shown + suffix, len(prefix) + len(before) + 1


class CircuitsimError(Exception):
    """Base of every error circuitsim raises on purpose."""

    code = "E_CIRCUITSIM"


class NetlistError(CircuitsimError):
    """An input error at a place in the netlist.

    Renders as ``file:line:col: message`` followed by the source line and a caret
    under the column, so that the user sees exactly what is wrong and where.
    """

    code = "E_NETLIST"

    def __init__(self, message: str, loc: Loc | None = None, hint: str | None = None):
        self.message = message
        self.loc = loc
        self.hint = hint
        super().__init__(self.render())

    def __reduce__(self):        # pickles (a case run in another process) as it was made
        return type(self), (self.message, self.loc, self.hint)

    def render(self) -> str:
        message = printable(self.message)
        head = f"{self.loc}: {message}" if self.loc else message
        lines = [head]
        if self.loc and self.loc.text:
            src, col = shown_source(self.loc.text.rstrip("\n"), self.loc.col)
            lines.append("    " + src)
            lines.append("    " + " " * max(col - 1, 0) + "^")
        if self.hint:
            lines.append(self.hint)
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.render()


class ModelError(NetlistError):
    """A value or combination the model cannot accept (names the element)."""

    code = "E_MODEL"


class SolverError(CircuitsimError):
    """The integration stopped before t_end.

    ``t``, ``h`` and ``order`` say where; ``worst`` lists (name, weighted error)
    of the unknowns that failed; ``partial`` holds the results computed up to ``t``
    (a :class:`circuitsim.output.results.Result` once the API has wrapped it).
    """

    code = "E_SOLVER"

    def __init__(self, message: str, t: float | None = None, h: float | None = None,
                 order: int | None = None, worst: list[tuple[str, float]] | None = None,
                 partial=None):
        self.message = message
        self.t = t
        self.h = h
        self.order = order
        self.worst = list(worst or [])
        self.partial = partial
        super().__init__(self.render())

    def __reduce__(self):        # pickles without its partial results (sent on their own)
        return type(self), (self.message, self.t, self.h, self.order, self.worst)

    def render(self) -> str:
        parts = [f"{self.code}: {self.message}"]
        where = []
        if self.t is not None:
            where.append(f"t = {self.t:.9g} s")
        if self.h is not None:
            where.append(f"step h = {self.h:.3g} s")
        if self.order is not None:
            where.append(f"order {self.order}")
        if where:
            parts.append("at " + ", ".join(where))
        if self.worst:
            parts.append("unknowns with the largest error: " +
                         ", ".join(f"{name} ({err:.3g})" for name, err in self.worst))
        return "; ".join(parts)

    def __str__(self) -> str:
        return self.render()


class ConvergenceError(SolverError):
    """Newton's method failed repeatedly (or the Newton matrix is singular)."""

    code = "E_NEWTON"


class StepSizeTooSmall(SolverError):
    """The error test kept failing until the step fell below the minimum step."""

    code = "E_STEP_COLLAPSE"


class SingularInput(SolverError):
    """An expression of the model is about to become infinite or undefined (a pole such
    as 1/(1 − time), the edge of a function's domain): the run stops at that instant,
    which the message gives, with the results up to it kept."""

    code = "E_SINGULAR"


class InconsistentInitialConditions(SolverError):
    """No consistent (y, y') could be found at the initial time."""

    code = "E_INIT"


class NoEquilibrium(SolverError):
    """No static equilibrium: F(t, y, 0) = 0 has no solution (a body that nothing holds,
    a source that nothing balances). The message names the equations left unbalanced."""

    code = "E_NO_EQUILIBRIUM"


class Interrupted(SolverError):
    """The run was interrupted (Ctrl-C, SIGTERM, SIGHUP); the results so far are kept."""

    code = "E_INTERRUPTED"


class Terminated(KeyboardInterrupt):
    """Raised in the main thread when SIGTERM or SIGHUP arrives (what ``timeout``,
    ``kill`` and batch schedulers send), so that it stops a run as Ctrl-C does."""

    def __init__(self, signal_name: str):
        super().__init__(signal_name)
        self.signal_name = signal_name


def did_you_mean(name: str, candidates) -> str | None:
    """A ``did you mean 'x'?`` hint for a near-miss name, or None."""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"did you mean '{close[0]}'?" if close else None
