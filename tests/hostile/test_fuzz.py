"""Fuzzing: random and mutated netlists end in a Result or a located CircuitsimError —
never another exception, never a hang (issue 5). The examples are mutated token by
token (deleted, repeated, replaced by a token of the language, lines swapped or cut) and
random netlists are drawn from the element keywords; every case runs to a short t_end.
The element keywords, their parameter names (``name=``) and choice values come from the
element registry, so a new element type is fuzzed without editing this file.

CI runs a bounded number of examples (FUZZ_EXAMPLES, default 150); set the environment
variable higher for a longer hunt, and FUZZ_RANDOM=1 for a fresh seed:
``FUZZ_RANDOM=1 FUZZ_EXAMPLES=5000 pytest tests/hostile/test_fuzz.py``.
"""
import os
import re
import time

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import circuitsim
from circuitsim.elements import element_types
from circuitsim.errors import CircuitsimError, NetlistError

from helpers import netlist_text

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "150"))
# small examples: each fuzz case runs its netlist (to a short end time)
SEEDS = ("rlc.cir", "msd.cir", "stickslip.cir", "dcmotor.cir", "dcmotor_lib.cir",
         "pendulum.cir", "fourbar.cir", "slider_crank.cir")
SEED_TEXT = [netlist_text(name) for name in SEEDS]
T_END = 0.02              # s: long enough to start the solver, short enough for CI
WALL_LIMIT = 60.0         # s: a case taking longer is a hang

TOKEN = re.compile(r"\s+|[^\s(){}=,]+|[(){}=,]")


def element_vocabulary() -> list:
    """Every registered element's keyword (as declared, e.g. ``R``, ``revolute``), each
    parameter as ``name=`` and each value of a choice parameter, sorted."""
    words = set()
    for etype in element_types().values():
        words.add(etype.keyword)
        for par in etype.params:
            words.add(f"{par.name}=")
            words.update(str(choice) for choice in par.choices)
    return sorted(words)


# the element words, then nodes, punctuation, awkward numbers, directives, whole values
VOCABULARY = element_vocabulary() + [
    "0", "a", "b", "B1", "J1",
    "=", "(", ")", "{", "}", ",", "1", "-1", "0", "1e300", "1e-300", "nan", "inf",
    "2bar", "5kg", "90deg", "1m", "time", "v(a)", "sqrt(-1)", "1/0", ".tran",
    ".param", ".ic", ".probe", ".subckt", ".ends", ".lib", ".study", ".step",
    ".gravity", ".options", "model=elastic", "axis=(0, 0, 0)", "at=(0, 0)",
    "step(0, 1, 2)", "sin(0, 1, 50)", "pwl(0, 0, 1)", '"', "*", ";", "+", "\n",
    # overflowing and subnormal literals, huge counts, deep nesting, hostile bytes
    "1e999", "-1e999", "1e-320", "4.9e-324", "1e308", "{1e200*1e200}", "1e9", "1e-9",
    "{" + "-" * 400 + "1}", "{" + "(" * 300 + "1" + ")" * 300 + "}",
    "{" + "+".join(["1"] * 2000) + "}", "\x1b[2J", "\ufeff", "time=", ".tran 1 1e-12"]


def outcome(text: str):
    """Run ``text``; return 'result' or the error; anything else propagates (a bug)."""
    start = time.monotonic()
    try:
        net = circuitsim.parse(text, "fuzz.cir")
        res = net.simulate(t_end=T_END)
        assert res.t[-1] <= T_END * (1 + 1e-9)
        return "result"
    except NetlistError as exc:
        assert exc.loc is not None, f"unlocated input error: {exc}"
        assert str(exc).startswith(str(exc.loc)), str(exc)
        return exc
    except CircuitsimError as exc:
        return exc
    finally:
        assert time.monotonic() - start < WALL_LIMIT, "a fuzz case took too long (hang?)"


@st.composite
def mutated(draw):
    tokens = TOKEN.findall(draw(st.sampled_from(SEED_TEXT)))
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(tokens) - 1))
        kind = draw(st.sampled_from(["delete", "repeat", "replace", "insert"]))
        if kind == "delete":
            del tokens[i]
        elif kind == "repeat":
            tokens.insert(i, tokens[i])
        elif kind == "replace":
            tokens[i] = draw(st.sampled_from(VOCABULARY))
        else:
            tokens.insert(i, " " + draw(st.sampled_from(VOCABULARY)) + " ")
    lines = "".join(tokens).splitlines()
    if draw(st.booleans()) and len(lines) > 2:
        i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
        lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


@st.composite
def random_netlist(draw):
    words = st.sampled_from(VOCABULARY)
    lines = []
    for k in range(draw(st.integers(1, 6))):
        head = draw(words)
        body = draw(st.lists(words, min_size=0, max_size=8))
        lines.append(" ".join([head, f"X{k}"] + body))
    if draw(st.booleans()):
        lines.append(".tran 1")
    return "\n".join(lines) + "\n"


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_mutated_examples_give_a_result_or_a_located_error(text):
    outcome(text)


@settings(max_examples=EXAMPLES, deadline=None, derandomize=not os.environ.get("FUZZ_RANDOM"),
          suppress_health_check=[HealthCheck.too_slow])
@given(random_netlist())
def test_random_netlists_give_a_result_or_a_located_error(text):
    outcome(text)


def test_the_unmutated_seeds_run():
    for text in SEED_TEXT:
        assert outcome(text) == "result"


def test_the_vocabulary_covers_every_registered_element():
    """Each registered keyword, parameter (``name=``) and choice value can be drawn."""
    for etype in element_types().values():
        assert etype.keyword in VOCABULARY
        for par in etype.params:
            assert f"{par.name}=" in VOCABULARY and set(map(str, par.choices)) <= set(VOCABULARY)
