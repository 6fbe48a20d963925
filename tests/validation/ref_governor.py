#!/usr/bin/env python
"""Independent reference solution: free, symmetric flyball (Watt) governor.

Problem statement (as given to its author, who saw no simulator code): z up, g = 9.81
along -z.  Spindle turns about global z (angle phi, rate w), Isz = 0.02.  Two arms
k = 1, 2 hinged (axis y') at H_k = (s_k a, 0, h) in the co-rotating frame, s = +-1,
a = 0.05, h = 0.5; uniform rods L = 0.3, ma = 0.4, axial moment 1e-4, transverse
ma L^2/12; end at (s_k (a + L sin th), 0, h - L cos th); point ball mb = 5 at the end.
Links: uniform rods e = 0.15, ml = 0.2, axial 1e-5, transverse ml e^2/12, hinged (y')
to arm k at Q_k (distance b = 0.15 from H_k) and to the sleeve at R_k = (s_k c, 0, zs),
c = 0.05, zs = h - 2 b cos th.  Sleeve: mass mc = 1, Icz = 2e-3, slides on the spindle
and turns with it.  No friction, no drive.  th(0) = 30 deg, th'(0) = 0, phi(0) = 0,
w(0) = 6 rad/s (case A) and 9 rad/s (case B); 0 .. 3 s.
Outputs at t = 0, 0.25, ..., 3: theta, dtheta/dt, w, phi, zs, dzs/dt, E, Lz.

Derivation (sympy, done at run time): every body gets its full 3-D world pose
R = Rz(phi) Ry(gamma) (body axis e3 = rod axis, gamma = pi -+ s theta), its
centre of mass in world coordinates; the angular velocity is taken from
skew^{-1}(R^T dR/dt) (body components) and
T = sum 1/2 m |v|^2 + 1/2 Omega^T I_body Omega,  V = g sum m z.
Lagrange's equations in q = (phi, theta) give M(q) q'' = f(q, q').
The result is checked symbolically against the hand-derived closed form

  T = 1/2 Mth(th) th'^2 + 1/2 Jz(th) w^2
  Mth = 2[ ma L^2/4 + Ita + mb L^2 + ml b^2 (cos^2 + 9 sin^2)/4 + Itl ]
        + 4 mc b^2 sin^2 th
  Jz  = Isz + Icz + 2[ ma (a + L/2 sin)^2 + Ita sin^2 + Iaa cos^2
                      + mb (a + L sin)^2
                      + ml (a + b/2 sin)^2 + Itl sin^2 + Ial cos^2 ]
  V   = g[ 2 ma (h - L/2 cos) + 2 mb (h - L cos) + 2 ml (h - 3b/2 cos)
           + mc (h - 2b cos) ]
  => d/dt (Jz w) = 0 (Lz = Jz w),
     Mth th'' + 1/2 Mth' th'^2 - 1/2 Jz' w^2 + V' = 0.

The integrated ODE is the general sympy one (w' from the phi equation, not from
conservation), so energy and Lz drifts are genuine checks.

Run: python ref_governor.py  -> prints results, writes ref_governor.json (~10-20 s)
"""
import json
import os
import time

import numpy as np
import sympy as sp
from scipy.integrate import solve_ivp

# ---------------- parameters ----------------
g = 9.81
Isz = 0.02
a = 0.05; h = 0.5
L = 0.3; ma = 0.4; Iaa = 1e-4; Ita = ma * L**2 / 12
mb = 5.0
e = 0.15; ml = 0.2; Ial = 1e-5; Itl = ml * e**2 / 12
b = 0.15; c = 0.05
mc = 1.0; Icz = 2e-3
TH0 = np.deg2rad(30.0)
CASES = {"w0=6": 6.0, "w0=9": 9.0}
TEND = 3.0
TOUT = [0.25 * j for j in range(13)]
RTOL, ATOL = 1e-12, 1e-14
METHODS = ["DOP853", "Radau", "LSODA"]      # first one = stored values

# ---------------- symbolic derivation ----------------
t = sp.symbols("t")
phi = sp.Function("phi")(t)
th = sp.Function("theta")(t)


def Rz(q):
    return sp.Matrix([[sp.cos(q), -sp.sin(q), 0], [sp.sin(q), sp.cos(q), 0], [0, 0, 1]])


def Ry(q):
    return sp.Matrix([[sp.cos(q), 0, sp.sin(q)], [0, 1, 0], [-sp.sin(q), 0, sp.cos(q)]])


def body_T(R, rc, m, Iax, Itr):
    """kinetic energy of an axisymmetric body (axis = body e3), pose R, com rc (world)."""
    v = rc.diff(t)
    W = sp.simplify(R.T * R.diff(t))           # skew(Omega_body)
    Om = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
    Ib = sp.diag(Itr, Itr, Iax)
    return sp.Rational(1, 2) * m * (v.T * v)[0] + sp.Rational(1, 2) * (Om.T * Ib * Om)[0]


def derive():
    S = sp.nsimplify
    Tsum = 0
    Vsum = 0
    Rs = Rz(phi)
    # spindle and sleeve: pure rotation about z (sleeve also translates along z)
    Tsum += sp.Rational(1, 2) * S(Isz) * phi.diff(t)**2
    zs = S(h) - 2 * S(b) * sp.cos(th)
    Tsum += sp.Rational(1, 2) * S(mc) * zs.diff(t)**2 + sp.Rational(1, 2) * S(Icz) * phi.diff(t)**2
    Vsum += S(mc) * S(g) * zs
    for s in (1, -1):
        # arm: body e3 from hinge to ball, direction (s sin th, 0, -cos th) in rotating frame
        Ra = Rs * Ry(sp.pi - s * th)
        ua = Ra * sp.Matrix([0, 0, 1])
        H = Rs * sp.Matrix([s * S(a), 0, S(h)])
        rca = H + S(L) / 2 * ua
        Tsum += body_T(Ra, rca, S(ma), S(Iaa), S(Ita))
        Vsum += S(ma) * S(g) * rca[2]
        rb = H + S(L) * ua
        vb = rb.diff(t)
        Tsum += sp.Rational(1, 2) * S(mb) * (vb.T * vb)[0]
        Vsum += S(mb) * S(g) * rb[2]
        # link: from Q (on arm) to R (on sleeve); direction (-s sin th, 0, -cos th)
        Q = H + S(b) * ua
        Rl = Rs * Ry(sp.pi + s * th)
        ul = Rl * sp.Matrix([0, 0, 1])
        Rpin = Rs * sp.Matrix([s * S(c), 0, zs])
        # closure check: Q + e*ul must equal the sleeve pin R_k
        assert sp.simplify(Q + S(e) * ul - Rpin) == sp.zeros(3, 1)
        rcl = Q + S(e) / 2 * ul
        Tsum += body_T(Rl, rcl, S(ml), S(Ial), S(Itl))
        Vsum += S(ml) * S(g) * rcl[2]
    Tsum = sp.simplify(sp.expand(Tsum))
    Vsum = sp.simplify(Vsum)

    # hand-derived closed form (see docstring)
    x, w, thd = sp.symbols("x w thd")
    sx, cx = sp.sin(x), sp.cos(x)
    Mth = 2 * (S(ma) * S(L)**2 / 4 + S(Ita) + S(mb) * S(L)**2
               + S(ml) * S(b)**2 * (cx**2 + 9 * sx**2) / 4 + S(Itl)) + 4 * S(mc) * S(b)**2 * sx**2
    Jz = S(Isz) + S(Icz) + 2 * (S(ma) * (S(a) + S(L) / 2 * sx)**2 + S(Ita) * sx**2 + S(Iaa) * cx**2
                                + S(mb) * (S(a) + S(L) * sx)**2
                                + S(ml) * (S(a) + S(b) / 2 * sx)**2 + S(Itl) * sx**2 + S(Ial) * cx**2)
    Vh = S(g) * (2 * S(ma) * (S(h) - S(L) / 2 * cx) + 2 * S(mb) * (S(h) - S(L) * cx)
                 + 2 * S(ml) * (S(h) - 3 * S(b) / 2 * cx) + S(mc) * (S(h) - 2 * S(b) * cx))
    subs = {phi.diff(t): w, th.diff(t): thd}
    Tn = Tsum.subs(subs).subs(th, x)
    Vn = Vsum.subs(th, x)
    dT = sp.simplify(sp.expand_trig(Tn - (Mth * thd**2 + Jz * w**2) / 2))
    dV = sp.simplify(Vn - Vh)
    assert dT == 0, dT
    assert dV == 0, dV

    # Lagrange equations (general form from the 3-D expression)
    Lg = Tsum - Vsum
    q = [phi, th]
    qd = [qq.diff(t) for qq in q]
    qdd = [qq.diff(t, 2) for qq in q]
    eqs = [sp.expand(sp.diff(sp.diff(Lg, qdi), t) - sp.diff(Lg, qi)) for qi, qdi in zip(q, qd)]
    A, B = sp.linear_eq_to_matrix(eqs, qdd)
    P, TH, W_, THD = sp.symbols("P TH W THD")
    rep = {phi.diff(t): W_, th.diff(t): THD}
    A = A.subs(rep).subs({th: TH, phi: P})
    B = B.subs(rep).subs({th: TH, phi: P})
    fA = sp.lambdify((TH,), A, "numpy")
    fB = sp.lambdify((TH, W_, THD), B, "numpy")
    fT = sp.lambdify((TH, W_, THD), Tsum.subs(rep).subs({th: TH, phi: P}), "numpy")
    fV = sp.lambdify((TH,), Vsum.subs({th: TH}), "numpy")
    fJ = sp.lambdify((TH,), Jz.subs(x, TH), "numpy")
    strs = {"Mth(theta)": str(sp.nsimplify(sp.expand(Mth))), "Jz(theta)": str(sp.expand(Jz)),
            "V(theta)": str(sp.expand(Vh)),
            "phi_eq": "d/dt(Jz(theta) w) = 0",
            "theta_eq": "Mth th'' + 1/2 Mth'(th) th'^2 - 1/2 Jz'(th) w^2 + V'(th) = 0"}
    return fA, fB, fT, fV, fJ, strs


def make_rhs(fA, fB):
    def rhs(tt, y):
        ph, th_, w, thd = y
        A = np.array(fA(th_), dtype=float)
        B = np.array(fB(th_, w, thd), dtype=float).ravel()
        acc = np.linalg.solve(A, B)
        return np.array([w, thd, acc[0], acc[1]])
    return rhs


def run_case(rhs, fT, fV, fJ, w0, method):
    y0 = np.array([0.0, TH0, w0, 0.0])
    sol = solve_ivp(rhs, (0.0, TEND), y0, method=method, rtol=RTOL, atol=ATOL,
                    t_eval=TOUT, dense_output=False)
    if sol.status != 0:
        raise RuntimeError(sol.message)
    # also check conservation at all accepted steps: second run w/o t_eval
    sol2 = solve_ivp(rhs, (0.0, TEND), y0, method=method, rtol=RTOL, atol=ATOL)
    out = {}
    for j, tt in enumerate(sol.t):
        ph, th_, w, thd = sol.y[:, j]
        out[f"{TOUT[j]:g}"] = {
            "theta": th_, "dtheta_dt": thd, "w": w, "phi": ph,
            "zs": h - 2 * b * np.cos(th_), "dzs_dt": 2 * b * np.sin(th_) * thd,
            "E": float(fT(th_, w, thd) + fV(th_)), "Lz": float(fJ(th_) * w)}
    E = np.array([fT(*sol2.y[[1, 2, 3], j]) + fV(sol2.y[1, j]) for j in range(sol2.t.size)])
    Lz = fJ(sol2.y[1]) * sol2.y[2]
    T0 = fT(TH0, w0, 0.0)
    diag = {"nfev": int(sol.nfev + sol2.nfev),
            "E_drift_rel_to_E0": float(np.max(np.abs(E - E[0])) / abs(E[0])),
            "E_drift_rel_to_T0": float(np.max(np.abs(E - E[0])) / T0),
            "Lz_drift_rel": float(np.max(np.abs(Lz - Lz[0])) / abs(Lz[0])),
            "theta_min_steps": float(sol2.y[1].min()), "theta_max_steps": float(sol2.y[1].max())}
    return out, diag


def disagreement(o1, o2):
    keys = list(next(iter(o1.values())).keys())
    res = {}
    for kk in keys:
        v1 = np.array([o1[tt][kk] for tt in o1])
        v2 = np.array([o2[tt][kk] for tt in o2])
        rng = v1.max() - v1.min()
        if kk in ("E", "Lz"):          # conserved: range ~ 0, use magnitude
            rng = np.max(np.abs(v1))
        res[kk] = float(np.max(np.abs(v1 - v2)) / rng)
    return res


if __name__ == "__main__":
    t0 = time.time()
    fA, fB, fT, fV, fJ, strs = derive()
    print(f"derivation + symbolic checks: {time.time() - t0:.1f} s", flush=True)
    rhs = make_rhs(fA, fB)
    result = {"problem": {
        "g": g, "Isz": Isz, "a": a, "h": h, "L": L, "ma": ma, "arm_axial_I": Iaa,
        "arm_transverse_I": Ita, "mb": mb, "e": e, "ml": ml, "link_axial_I": Ial,
        "link_transverse_I": Itl, "b": b, "c": c, "mc": mc, "Icz": Icz,
        "theta0_rad": TH0, "dtheta0": 0.0, "phi0": 0.0, "w0_cases": CASES, "t_end": TEND,
        "sample_times": TOUT},
        "equations": strs, "cases": {}}
    for name, w0 in CASES.items():
        runs = {}
        for m in METHODS:
            t1 = time.time()
            runs[m] = run_case(rhs, fT, fV, fJ, w0, m)
            print(f"{name} {m}: {time.time() - t1:.1f} s, nfev={runs[m][1]['nfev']}, "
                  f"E drift/E0 {runs[m][1]['E_drift_rel_to_E0']:.2e}, "
                  f"Lz drift {runs[m][1]['Lz_drift_rel']:.2e}", flush=True)
        out, diag = runs[METHODS[0]]
        dis = {m: disagreement(out, runs[m][0]) for m in METHODS[1:]}
        worst = max(max(d.values()) for d in dis.values())
        print(f"  worst method disagreement (rel. to range): {worst:.2e}")
        assert worst < 1e-9
        result["cases"][name] = {
            "w0": w0, "outputs": out,
            "checks": {"energy_and_Lz_drift_" + m: runs[m][1] for m in METHODS},
            "method_disagreement_rel_to_range": dis,
            "max_method_disagreement": worst}
        print("    t      theta          dtheta/dt         w               phi             zs              dzs/dt          E               Lz")
        for tt, v in out.items():
            print(f"{tt:>5s} " + " ".join(f"{v[kk]: .12e}" for kk in
                                          ("theta", "dtheta_dt", "w", "phi", "zs", "dzs_dt", "E", "Lz")))
    result["method"] = (f"sympy Lagrange from 3-D body poses (checked against closed form), "
                        f"scipy solve_ivp {METHODS[0]} rtol={RTOL:g} atol={ATOL:g} (values); "
                        f"cross-checked with {', '.join(METHODS[1:])} at the same tolerances")
    fn = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref_governor.json")
    with open(fn, "w") as f:
        json.dump(result, f, indent=1, default=float)
    print(f"wrote {fn}  ({time.time() - t0:.1f} s total)")
