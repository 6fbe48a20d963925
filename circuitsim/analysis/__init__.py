"""Analyses of the assembled equations besides the transient: the static operating point
(``operating_point.py``) and the linearisation in minimal coordinates with its modes
(``linearize.py``). Both use the System's residual and Jacobian only; what they add to
the equations (the invariants of the motion) is in ``invariants.py``."""
