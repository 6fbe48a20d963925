"""What a body and a joint add to the element contract (base.ElementType).

A body type derives from ``BodyProtocol`` and ElementType, a joint type from
``JointProtocol`` and ElementType (the protocol first, so that its ``is_body`` /
``is_joint`` = True wins over ElementType's False). Code outside elements/ asks a type
``is_body`` or ``is_joint`` first, then only the hooks of that protocol.
"""
from __future__ import annotations

from typing import ClassVar

import numpy as np

from .declarations import AxisJoint, ElementInstance, RigidBody

NO_LABEL, SPEED, SPIN = -1, 0, 1      # the labels of JointProtocol.speed_labels, (8)


class BodyProtocol:
    """A rigid body: it owns a 3D frame that other elements attach to.

    (1) ``is_body`` = True. Local variables 0..12 are the frame's 13 in FRAME_VARS
        order: its six ports vx vy vz wx wy wz (written without ports: the elaborator
        names their nodes <body>.vx ..., each port its own group, its flow to ground),
        then its states x y z q0 q1 q2 q3; further states follow. The assembler's
        ordering, the run report (|q| − 1) and the linearisation (which unknowns are
        poses) read these positions.
    (2) ``initial_state(inst) -> dict``: the initial value of each of its local
        variables by name (the frame's 13 and its further states). Called by the
        elaborator (the frames the elements' ``link`` hooks read) and by the assembler
        (the start values, before ``.ic``). Required.
    (3) ``mass_properties(inst) -> (m, J)``: the mass (kg) and the central principal
        moments (3,) (kg·m²). Called by the elaborator (the joints' default damping) and
        the start-up (the metric of its velocity correction). Required.
    (4) ``rigid_body(inst) -> RigidBody``: mass, inertia tensor, initial pose, gravity,
        for the symbolic equations of motion. Required.
    (5) ``project(states) -> states``: the body's own states (N, len(states)) corrected
        (|q| = 1). Called after each accepted step (solver hook (8)), after each
        position iteration of the start-up, and differenced by the linearisation (so
        it is smooth in the states). Required.
    (6) ``sync_states(x) -> x``: the local variables (N, nvars) with the states that
        mirror other unknowns recomputed from them (ω_b = Aᵀ·ω), called once the
        start-up has moved those. Default: x unchanged.
    (7) ``body_rates``: (proxy, original) slices of local variables, or None: the proxy
        is tested in the original's place in the local error test and takes the speed
        label a joint gives the original (JointProtocol (8)). Default: None.
    (8) Of ElementType's hooks a body answers ``tied_states`` (one relation per body:
        |q| = 1) and, for a mirroring state, ``invariant_rows`` and
        ``constrained_vars`` (the original left out of the error test, (7)).
    """

    is_body: ClassVar[bool] = True
    body_rates: ClassVar[tuple | None] = None                               # (7)

    @classmethod
    def initial_state(cls, inst: ElementInstance) -> dict:                  # (2)
        raise NotImplementedError

    @classmethod
    def mass_properties(cls, inst: ElementInstance) -> tuple:               # (3)
        raise NotImplementedError

    @classmethod
    def rigid_body(cls, inst: ElementInstance) -> RigidBody:                # (4)
        raise NotImplementedError

    @classmethod
    def project(cls, states: np.ndarray) -> np.ndarray:                     # (5)
        raise NotImplementedError

    @classmethod
    def sync_states(cls, x: np.ndarray) -> np.ndarray:                      # (6)
        return x


class JointProtocol:
    """A joint: it constrains the relative motion of its two frames.

    Shapes: N instances of a group, m constraint rows, nf axis flanges, nvars local
    variables; ``p`` is the group's prepared parameters.

    (1) ``is_joint`` = True. Its first two ports are frame ports (local variables
        0..25: frame 1's 13, then frame 2's, FRAME_VARS order), followed by one scalar
        port per axis flange: a node whose potential is the relative velocity about or
        along the axis. Each of the m constraint rows has a reaction state; each
        flange a flow and a joint-coordinate state (its integral).
    (2) ``constraint_names() -> tuple`` (m,): the reaction states' names in row order
        (J.f1 ...). Called by the mobility analysis (its rows, the switched-off ones),
        the start-up's messages and the operating point's table. Required.
    (3) ``is_rigid(p)``: the rows hold exactly (they count in the mobility, the
        start-up assembles onto them). ``is_compliant(p)``: a stiff spring stands in
        for a rigid connection (an elastic joint; solver hook (15)) [False].
        ``positions_drift(p)``: the rows are held at velocity level only, so the
        position-level violation drifts (the run report names such a joint where a
        near-singular configuration is passed) [False]. All per group. ``is_rigid``
        required.
    (4) ``position_constraints(x, p) -> (g, dg)``: g (N, m) the rows at position level,
        whatever the model, and ∂g/∂x (N, m, nvars). Called by the start-up (positions
        onto g = 0) and the linearisation (the invariants of rigid groups). Required.
    (5) ``velocity_rows(x, p) -> R`` (N, m + nf, nvars) of R·x = 0: the m constraint
        rows W·u, then each flange's w − W_f·u. Called by the start-up (velocities onto
        R·x = 0), the mobility analysis and the conditioning of the rigid rows (the
        first m). Required.
    (6) Flanges: ``coordinate_names()`` (nf,) the joint-coordinate states (an ``.ic``
        on one is a position target of the start-up) [()]; ``coordinate_periods()``
        (nf,) 2π for an angle (in (−π, π]: a target is met modulo a turn), 0 for a
        displacement [()]; ``flange_vars()``, ``coordinate_vars()`` the slices of local
        variables of the flange nodes and of the coordinates [empty];
        ``coordinates(x, p) -> (values, grads)`` (N, nf) and (N, nf, nvars), measured
        from the geometry (the start-up starts the coordinates there), required with
        flanges.
    (6b) Position targets: ``target_names()`` the coordinates an ``.ic`` may set as a
        target of the start-up's assembly: the joint-coordinate states of (6), then
        coordinates measured only (a ball joint's angles: outputs, not states)
        [``coordinate_names()``]; ``target_misses(x, p, targets) -> (miss, grads)``:
        targets (N, k) of the k target names, NaN where unset; miss (N, k) zero where
        met (NaN where unset) and ∂miss/∂x (N, k, nvars) [from ``coordinates``, an
        angle's miss taken modulo its period].
    (7) ``active_rows(p)`` (N, m) bool: the rows switched on; ``set_active(p, active)``
        switches rows on (1) or off (0), active (N, m) or a scalar, in place for the
        group (a redundant row of a closed loop: its reaction is 0). The start-up
        switches all on, then off those the mobility analysis finds redundant. Required.
    (8) ``speed_labels(n_extra, group)`` (nvars,): SPEED for a velocity, SPIN for an
        angular velocity measured against the mechanism's speed (the largest such
        value; solver hook (13)), NO_LABEL otherwise: a rigid or elastic joint labels
        its bodies' velocities, which near a singular configuration are determined no
        better than that [NO_LABEL everywhere].
    (9) ``bind_determined(p_init, local_determined, local_rates)``: told once the
        unknowns are classified which local variables (N, nvars) other equations
        determine at t0 (differential unknowns, potential sources' nodes), and
        ``local_rates(t)`` (N, nvars) the time derivative a potential source prescribes
        (NaN elsewhere), for an initialisation form that depends on them [nothing].
    (10) ``axis_joint(inst) -> AxisJoint | None``: a linked one-axis joint (revolute,
        prismatic, fixed) for the symbolic equations; None for other joints [None].
    (11) Of ElementType's hooks a joint answers ``invariant_rows`` (its rigid rows),
        ``tied_states`` (the relations they fix), ``constrained_vars`` (a flange node
        that carries an inertia) and ``has_init_form`` (rows at acceleration level
        while initial values are computed).
    """

    is_joint: ClassVar[bool] = True

    @classmethod
    def constraint_names(cls) -> tuple:                                      # (2)
        raise NotImplementedError

    @classmethod
    def is_rigid(cls, p) -> bool:                                            # (3)
        raise NotImplementedError

    @classmethod
    def is_compliant(cls, p) -> bool:                                        # (3)
        return False

    @classmethod
    def positions_drift(cls, p) -> bool:                                     # (3)
        return False

    @classmethod
    def position_constraints(cls, x: np.ndarray, p) -> tuple:               # (4)
        raise NotImplementedError

    @classmethod
    def velocity_rows(cls, x: np.ndarray, p) -> np.ndarray:                  # (5)
        raise NotImplementedError

    @classmethod
    def coordinate_names(cls) -> tuple:                                      # (6)
        return ()

    @classmethod
    def coordinate_periods(cls) -> tuple:                                    # (6)
        return ()

    @classmethod
    def flange_vars(cls) -> slice:                                           # (6)
        return slice(0, 0)

    @classmethod
    def coordinate_vars(cls) -> slice:                                       # (6)
        return slice(0, 0)

    @classmethod
    def coordinates(cls, x: np.ndarray, p) -> tuple:                         # (6)
        raise NotImplementedError

    @classmethod
    def target_names(cls) -> tuple:                                          # (6b)
        return cls.coordinate_names()

    @classmethod
    def target_misses(cls, x: np.ndarray, p, targets: np.ndarray) -> tuple:  # (6b)
        values, grads = cls.coordinates(x, p)
        miss = values - targets
        periods = np.array(cls.coordinate_periods(), dtype=float)
        # an angle in (−π, π]: the target met modulo a turn
        wrap = np.where(periods > 0, periods, 1.0)
        miss = np.where(periods > 0, miss - wrap * np.round(miss / wrap), miss)
        return miss, grads

    @classmethod
    def active_rows(cls, p) -> np.ndarray:                                   # (7)
        raise NotImplementedError

    @classmethod
    def set_active(cls, p, active) -> None:                                  # (7)
        raise NotImplementedError

    @classmethod
    def speed_labels(cls, n_extra: int = 0, group=None) -> np.ndarray:       # (8)
        return np.full(cls.nvars(n_extra), NO_LABEL)

    @classmethod
    def bind_determined(cls, p_init, local_determined: np.ndarray,
                        local_rates) -> None:                                # (9)
        """Nothing to bind."""

    @classmethod
    def axis_joint(cls, inst: ElementInstance) -> AxisJoint | None:          # (10)
        return None


class DiscreteStateProtocol:
    """An element with discrete states, which change only at its state events (a
    relay's on/off): the memory that a function of the continuous state cannot hold.

    (1) A discrete state is one of the element's own states, declared differential
        with the equation x' = 0: a step keeps it exactly, a restart keeps it.
    (2) ``switch_states(t, x, fired, p) -> x``: called by the solver's event update
        (solver/problem.py item 20) at a restart on an event of the group, and once at
        the start with the switching functions positive there. ``x`` (N, nvars) the
        local variables, ``fired`` (N, m) bool: which of the group's switching functions
        fired, per instance. Returns x with the discrete states set (only the element's
        own states are read back). The element's switching functions must be written
        so that the new state makes the fired ones negative again (they are read afresh
        from it). Required.
    """

    @classmethod
    def switch_states(cls, t: float, x: np.ndarray, fired: np.ndarray, p) -> np.ndarray:  # (2)
        raise NotImplementedError


class BoundResidualProtocol:
    """An element whose run-form residual a compiled twin computes (elements/compiled/),
    and which gives it with its group's parameters bound, for the assembler to call in
    place of ``residual`` (a small mechanism's residual spent about a third of its time
    in the dispatch around the compiled calls).

    (1) ``residual_kernel(p) -> callable or None``: the run form's residual of the group
        ``p`` as one function of (x, x'), when the type's twin runs for the group and
        its answer is settled (``compiled.settled``): the group's parameters bound once
        (``compiled.bound``), the same numbers as ``residual`` bit for bit, without its
        dispatch at every call. None otherwise: the assembler calls ``residual`` and
        asks again at its next call (a twin settles after its warm-up). Required.
    """

    @classmethod
    def residual_kernel(cls, p):                                                  # (1)
        raise NotImplementedError


class SingularityProtocol:
    """An element that evaluates a user's expression, whose switching functions are the
    expression's watched factors (:mod:`circuitsim.runtime.singularities`: denominators,
    bases of negative powers, edges of a function's domain). They are terminal (solver
    item 21): where one changes sign the expression is infinite or undefined, and the
    run stops there, the element named, instead of stepping over the pole. Its
    ``switch_names`` and ``switching_functions`` give those factors and nothing else."""
