"""The 12-DOF beam element's stiffness and consistent mass matrices, derived with sympy
from its shape functions (docs/beam.md).

Degrees of freedom, element axes: q = (u1, v1, w1, θx1, θy1, θz1, u2, v2, w2, θx2, θy2,
θz2). With ξ = x/l the fields are

    u(x) = (1 − ξ)·u1 + ξ·u2,    φ(x) = (1 − ξ)·θx1 + ξ·θx2       (axial, twist: linear)
    v(x) = H1·v1 + H2·θz1 + H3·v2 + H4·θz2          (θz =  dv/dx: cubic Hermite)
    w(x) = H1·w1 − H2·θy1 + H3·w2 − H4·θy2          (θy = −dw/dx)
    H1 = 1 − 3ξ² + 2ξ³,  H2 = l·(ξ − 2ξ² + ξ³),  H3 = 3ξ² − 2ξ³,  H4 = l·(ξ³ − ξ²)

and the matrices are the Hessians of the strain and kinetic energies

    U = ½∫ EA·u'² + GJ·φ'² + EIz·v''² + EIy·w''² dx            K = ∂²U/∂q²
    T = ½∫ ρA·(u̇² + v̇² + ẇ²) + ρJ·φ̇² + ρIz·v̇'² + ρIy·ẇ'² dx    M = ∂²T/∂q̇²

(ρI·v̇'²: the rotary inertia of the sections). sympy is imported here: this module is
loaded only when the matrices are asked for.
"""
from __future__ import annotations

import sympy as sp

SYMBOLS = "l EA GJ EIy EIz rhoA rhoJ rhoIy rhoIz"


def shape_rows(x, l):
    """The fields u, φ, v, w as rows r (1×12) with field(x) = r·q."""
    xi = x / l
    N1, N2 = 1 - xi, xi
    H = (1 - 3 * xi**2 + 2 * xi**3, l * (xi - 2 * xi**2 + xi**3),
         3 * xi**2 - 2 * xi**3, l * (xi**3 - xi**2))

    def row(entries):
        r = sp.zeros(1, 12)
        for index, value in entries:
            r[index] = value
        return r

    return {"u": row([(0, N1), (6, N2)]),
            "phi": row([(3, N1), (9, N2)]),
            "v": row([(1, H[0]), (5, H[1]), (7, H[2]), (11, H[3])]),
            "w": row([(2, H[0]), (4, -H[1]), (8, H[2]), (10, -H[3])])}


def element_matrices():
    """(K, M, symbols): the 12×12 stiffness and consistent mass matrices as sympy
    matrices in the symbols ``l EA GJ EIy EIz rhoA rhoJ rhoIy rhoIz``."""
    symbols = sp.symbols(SYMBOLS, positive=True)
    l, EA, GJ, EIy, EIz, rhoA, rhoJ, rhoIy, rhoIz = symbols
    x = sp.Symbol("x", nonnegative=True)
    f = shape_rows(x, l)

    def integral(weight, a, b):
        return (weight * a.T * b).applyfunc(lambda e: sp.integrate(sp.expand(e), (x, 0, l)))

    def d(row, order=1):
        return row.applyfunc(lambda e: sp.diff(e, x, order))

    K = (integral(EA, d(f["u"]), d(f["u"])) + integral(GJ, d(f["phi"]), d(f["phi"]))
         + integral(EIz, d(f["v"], 2), d(f["v"], 2))
         + integral(EIy, d(f["w"], 2), d(f["w"], 2)))
    M = (sum((integral(rhoA, f[k], f[k]) for k in ("u", "v", "w")), sp.zeros(12, 12))
         + integral(rhoJ, f["phi"], f["phi"])
         + integral(rhoIz, d(f["v"]), d(f["v"])) + integral(rhoIy, d(f["w"]), d(f["w"])))
    return K.applyfunc(sp.simplify), M.applyfunc(sp.simplify), symbols
