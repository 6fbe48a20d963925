"""Compiled twins of element kernels whose cost is arithmetic (numba, the optional
``fast`` extra), and the one switch that chooses between them and the numpy reference:
the body's, the ball joint's (rigid models), the joint framework's (the run form of
every model, for the joint types without added terms of their own), the beam's
(mass=lumped), the point mass's, the end stop's, friction's, the PID controller's, the
integrator's, the heating resistor's, the gas spring's and the accumulator's.

1. The numpy kernel in the element's module is the reference; its twin here computes
   the same equations, equal to it to rounding, in one loop over the instances.
2. ``CIRCUITSIM_KERNELS=auto`` (the default, also when unset) runs a system's kernels in
   numpy until their calls have cost ``LOAD_SECONDS`` (``Warmup``, one budget shared by
   the system's groups), then in the twins when numba is installed and the twins' cache
   is warm (warm.py). A case that is one of several (studies, ``.step`` cases) has no
   budget: the load is paid once for all of them, so every case runs its twins from its
   first call, serially or on worker processes alike. ``numpy`` runs the numpy
   kernels only; ``numba`` runs the twins
   from the first call (an ImportError without numba). The switch is counted per
   system, so a case switches at the same call in every process (a sweep gives the same
   numbers serially and in parallel); the two paths differ by rounding, a run's results
   by less than its tolerance.
3. Without numba every kernel runs in numpy, exactly as without this package; numba is
   imported only when a twin is first needed.
4. The compiled functions are cached on disk (numba's ``cache=True``). A twin's first
   compile takes tens of seconds, so ``auto`` never compiles in a run: with a cold
   cache the run stays in numpy and starts the compile in a detached background
   process (warm.py, circuitsim/warmup.py); the runs after it load the cached code.
5. The warm-up also compiles the twins ahead of time into one extension module, where a
   C compiler is at hand (ahead.py). ``auto`` then runs that from each group's first
   call, with no budget and without importing numba (about 10 ms to load, against about
   0.45 s for numba and its cache); ``numba`` still runs numba's twins.
"""
import importlib
import math
import os
import sys

from .warm import available           # whether numba can be imported (without importing it)

ENVIRONMENT = "CIRCUITSIM_KERNELS"
CHOICES = ("auto", "numpy", "numba")
# numpy seconds (estimated from each group's per-call cost) before the switch. Importing
# numba (0.16 s) and loading a module of cached twins (0.1-0.2 s) cost more, but a run
# that gets that far mostly goes on: at 0.3 s whole P4 runs of a second (N = 4) cost 12 %
# more than numpy, at 0.1 s the same as numpy (N = 4, 16, 64, the double pendulum)
LOAD_SECONDS = 0.1

# keywords of the element types with a twin here: body.py, spherical.py, beam.py,
# stop.py, friction.py, pid.py, integ.py, rtherm.py, pointmass.py, gas.py (the gas spring
# and the accumulator), and joint.py for every joint type built from the joint framework
# without added terms
FRAMEWORK_JOINTS = ("revolute", "prismatic", "cylindrical", "universal", "fixed",
                    "norotation", "pointplane")
TWINNED = ("body", "spherical", "beam", "stop", "friction", "pid", "integ", "rtherm",
           "pointmass", "gasspring", "accumulator") + FRAMEWORK_JOINTS
# the twin modules here (each with its EXPORTS for the extension built ahead of time)
MODULES = ("body", "joint", "spherical", "beam", "stop", "friction", "pid", "integ",
           "rtherm", "pointmass", "gas")

_twins: dict = {}
_UNSETTLED = object()


class _Budget:
    """Seconds of numpy kernel calls left before the twins take over."""

    def __init__(self, seconds: float):
        self.seconds = seconds


class Warmup:
    """A group's count towards its twin (contract item 2): each numpy call is taken as
    ``seconds_per_call`` out of a budget of ``LOAD_SECONDS``, so that a short run never
    loads the twins. The groups of one system share one budget (``share``): the load is
    paid once, not once per group."""

    def __init__(self, seconds_per_call: float):
        self.per_call = seconds_per_call
        self.budget = _Budget(LOAD_SECONDS)
        # {module: the twin's answer} once final (a ball joint's group asks for its own
        # module and for the framework's)
        self.settled: dict = {}

    @property
    def left(self) -> int:
        """Numpy calls of this group left before the switch."""
        if math.isinf(self.budget.seconds):
            return sys.maxsize
        return max(0, round(self.budget.seconds / self.per_call))

    @left.setter
    def left(self, calls: int) -> None:
        self.budget.seconds = calls * self.per_call
        self.settled = {}


def share(group_params, seconds: float | None = None) -> None:
    """One budget of ``seconds`` (default LOAD_SECONDS) for the warm-ups of a system's
    groups (their prepared parameters; the groups without a twin have none), their
    answers made afresh."""
    budget = _Budget(LOAD_SECONDS if seconds is None else seconds)
    for p in group_params:
        warmup = getattr(p, "warmup", None)
        if isinstance(warmup, Warmup):
            warmup.budget = budget
            warmup.settled = {}


def choice() -> str:
    """The kernels asked for by ``CIRCUITSIM_KERNELS`` (``auto`` when unset)."""
    value = os.environ.get(ENVIRONMENT, "auto").strip().lower() or "auto"
    if value not in CHOICES:
        raise ValueError(f"{ENVIRONMENT}={value!r}: expected one of {', '.join(CHOICES)}")
    return value


def twin(module: str, warmup: Warmup):
    """The compiled module ``circuitsim.elements.compiled.<module>`` when its kernels
    should run for the group counted by ``warmup``, else None (the caller runs its numpy
    reference). Once settled for a group (counting over), the answer is kept until the
    system is built again or its warm-up reset (``share``, ``Warmup.left``): the setting
    is read when an answer is made, not at every call (a look at the environment cost
    1 % of a small mechanism's run)."""
    answer = warmup.settled.get(module, _UNSETTLED)
    if answer is not _UNSETTLED:
        return answer
    answer, settled = _decide(module, warmup)
    if settled:
        warmup.settled[module] = answer
    return answer


def settled(module: str, warmup: Warmup):
    """The answer ``twin`` has settled on for the group counted by ``warmup`` (None while
    it is still counting, or when it is numpy's), without counting a call."""
    return warmup.settled.get(module)


def bound(kernel, *params):
    """A twin's ``kernel`` with a group's parameters bound: a function of the arguments
    made at every call alone (x, x'), the same numbers as ``kernel`` with all of them.
    The extension built ahead checks the parameters' types here, once, and the made
    arguments not at all: the caller makes them as the kernel takes them (the
    assembler's float64 gathers). The binding costs nothing per call but the call."""
    bind = getattr(kernel, "bind_parameters", None)      # the extension's (ahead.py)
    if bind is not None:
        return bind(*params)
    return lambda *arrays: kernel(*arrays, *params)


def _decide(module: str, warmup: Warmup) -> tuple:
    """(the module or None, whether that stays so for the group under this setting)."""
    wanted = choice()
    if wanted == "numpy":
        return None, True
    if wanted == "auto":
        from . import ahead                # the extension built ahead: no budget to spend
        if (built := ahead.twin(module)) is not None:
            return built, True
        if warmup.budget.seconds > 0.5 * warmup.per_call:     # (a rounding left over is 0)
            warmup.budget.seconds -= warmup.per_call
            return None, False
        if not available():
            return None, True
        from . import warm                 # only here: hashing the sources costs ms
        if not warm.ready():
            warm.start_in_background()
            warmup.budget.seconds = math.inf    # the rest of this run stays in numpy
            return None, True
    elif not available():
        raise ImportError(f"{ENVIRONMENT}=numba needs numba: pip install circuitsim[fast]")
    if module not in _twins:
        _twins[module] = importlib.import_module(f"{__name__}.{module}")
    return _twins[module], True
