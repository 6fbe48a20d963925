"""The gas spring's and the accumulator's residuals and Jacobians (elements/gasspring.py
and accumulator.py, equations (1)-(2)) as compiled loops over the instances: the same
equations entry by entry, equal to the numpy reference to rounding. Imported only when
the compiled kernels are in use (it imports numba)."""
import numpy as np
from numba import njit

from ..gasspring import VMIN

# the kernels' types for the extension built ahead of time (ahead.py): x, x', V0, p0, n,
# patm (the accumulator's also beta/Vd) -> F or (dF/dx, dF/dx')
_GAS = ("f2*", "f2*", "f1", "f1", "f1", "f1")
EXPORTS = {"spring_residual": ("f2", _GAS), "spring_jacobian": (("f3", "f3"), _GAS),
           "accumulator_residual": ("f2", _GAS + ("f1",)),
           "accumulator_jacobian": (("f3", "f3"), _GAS + ("f1",))}


@njit(cache=True)
def _gas_pressure(Vg, V0, p0, n):
    """p_abs(Vg) and dp_abs/dVg, continued linearly below VMIN·V0 (gasspring.gas_pressure)."""
    vm = VMIN * V0
    v = max(Vg, vm)
    pabs = p0 * (V0 / v) ** n
    slope = -n * pabs / v
    if Vg < vm:
        return pabs + slope * (Vg - vm), slope
    return pabs, slope


@njit(cache=True)
def spring_residual(x, xp, V0, p0, n, patm):
    m = x.shape[0]
    F = np.empty((m, 2))
    for i in range(m):
        pabs, _ = _gas_pressure(x[i, 1], V0[i], p0[i], n[i])
        F[i, 0] = -xp[i, 1]                                                # (1)
        F[i, 1] = x[i, 0] - (pabs - patm[i])                               # (2)
    return F


@njit(cache=True)
def spring_jacobian(x, xp, V0, p0, n, patm):
    m = x.shape[0]
    dfdx, dfdxp = np.zeros((m, 2, 2)), np.zeros((m, 2, 2))
    for i in range(m):
        _, slope = _gas_pressure(x[i, 1], V0[i], p0[i], n[i])
        dfdxp[i, 0, 1] = -1.0
        dfdx[i, 1, 0], dfdx[i, 1, 1] = 1.0, -slope
    return dfdx, dfdxp


@njit(cache=True)
def _accumulator_law(voil, V0, p0, n, patm, kc):
    """The port's gauge pressure (accumulator (2)) and its derivative by Voil; kc = beta/Vd."""
    pabs, slope = _gas_pressure(V0 - voil, V0, p0, n)
    if voil < 0:                                           # empty: δ = −Voil
        return pabs - patm + kc * voil, -slope + kc
    return pabs - patm, -slope


@njit(cache=True)
def accumulator_residual(x, xp, V0, p0, n, patm, kc):
    m = x.shape[0]
    F = np.empty((m, 2))
    for i in range(m):
        pg, _ = _accumulator_law(x[i, 1], V0[i], p0[i], n[i], patm[i], kc[i])
        F[i, 0] = xp[i, 1]                                                 # (1)
        F[i, 1] = x[i, 0] - pg                                             # (2)
    return F


@njit(cache=True)
def accumulator_jacobian(x, xp, V0, p0, n, patm, kc):
    m = x.shape[0]
    dfdx, dfdxp = np.zeros((m, 2, 2)), np.zeros((m, 2, 2))
    for i in range(m):
        _, dpg = _accumulator_law(x[i, 1], V0[i], p0[i], n[i], patm[i], kc[i])
        dfdxp[i, 0, 1] = 1.0
        dfdx[i, 1, 0], dfdx[i, 1, 1] = 1.0, -dpg
    return dfdx, dfdxp
