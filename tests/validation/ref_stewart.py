#!/usr/bin/env python
"""Independent reference: 6-SPS Stewart platform, prescribed motion, inverse kinematics and
inverse dynamics with massless legs (written from the problem statement only).

Equations:
  P_i = p + R B_i,  d_i = P_i - A_i,  L_i = |d_i|,  u_i = d_i / L_i
  P_i' = p' + w x r_i,  P_i'' = p'' + a x r_i + w x (w x r_i),  r_i = R B_i
  L_i' = u_i . P_i',  L_i'' = (P_i'.P_i' + d_i.P_i'' - L_i'^2) / L_i
  R = Rz(psi) Ry(theta) Rx(phi);  [w]x = R' R^T (sympy, exact), alpha = dw/dt (sympy)
  Leg force on platform = -f_i u_i  (f_i tension)
  Newton: sum_i -f_i u_i = m (p'' - g_vec),  g_vec = (0,0,-9.81)
  Euler:  sum_i r_i x (-f_i u_i) = I a + w x (I w),  I = R diag(.2,.2,.3) R^T
  -> 6x6 linear system J f = rhs, solved with numpy; cond(J) stored.
Checks: omega/alpha vs central finite differences of R(t); t=0 tensions by an
independent hand-built statics+inertia evaluation; max |force/moment residual|.
Run: python ref_stewart.py -> writes ref_stewart.json
"""
import json, os
import numpy as np
import sympy as sp

Rb, Rp, m, g = 0.5, 0.3, 10.0, 9.81
Ibody = np.diag([0.2, 0.2, 0.3])
beta = np.radians([-15, 15, 105, 135, 225, 255])
gam = np.radians([-45, 45, 75, 165, 195, 285])
A = np.array([[Rb*np.cos(b), Rb*np.sin(b), 0.0] for b in beta])
B = np.array([[Rp*np.cos(c), Rp*np.sin(c), 0.0] for c in gam])
gvec = np.array([0, 0, -g])
TS = [round(0.1*k, 10) for k in range(21)]

t = sp.symbols('t')
ps = sp.Matrix([0.03*sp.sin(sp.pi*t), 0.02*sp.sin(2*sp.pi*t), 0.6 + 0.03*sp.sin(sp.Rational(7, 5)*sp.pi*t)])
phi = sp.Rational(8, 100)*sp.sin(sp.Rational(8, 5)*sp.pi*t)
th = sp.Rational(6, 100)*sp.sin(sp.Rational(6, 5)*sp.pi*t)
psi = sp.Rational(5, 100)*(1 - sp.cos(sp.pi*t))
def Rx(a): return sp.Matrix([[1, 0, 0], [0, sp.cos(a), -sp.sin(a)], [0, sp.sin(a), sp.cos(a)]])
def Ry(a): return sp.Matrix([[sp.cos(a), 0, sp.sin(a)], [0, 1, 0], [-sp.sin(a), 0, sp.cos(a)]])
def Rz(a): return sp.Matrix([[sp.cos(a), -sp.sin(a), 0], [sp.sin(a), sp.cos(a), 0], [0, 0, 1]])
Rs = Rz(psi)*Ry(th)*Rx(phi)
W = Rs.diff(t)*Rs.T
ws = sp.Matrix([W[2, 1], W[0, 2], W[1, 0]])
als = ws.diff(t)
f_p = sp.lambdify(t, ps); f_pd = sp.lambdify(t, ps.diff(t)); f_pdd = sp.lambdify(t, ps.diff(t, 2))
f_R = sp.lambdify(t, Rs); f_w = sp.lambdify(t, ws); f_a = sp.lambdify(t, als)
f_ang = sp.lambdify(t, sp.Matrix([phi, th, psi]))
f_W = sp.lambdify(t, W)
skewsym = max(float(np.abs(np.array(f_W(x), float) + np.array(f_W(x), float).T).max()) for x in np.linspace(0, 2, 201))

def vec(f, tt): return np.array(f(tt), dtype=float).reshape(-1)

def solve_at(tt):
    p, pd, pdd = vec(f_p, tt), vec(f_pd, tt), vec(f_pdd, tt)
    R = np.array(f_R(tt), dtype=float); w = vec(f_w, tt); a = vec(f_a, tt)
    r = B @ R.T; P = p + r; d = P - A
    L = np.linalg.norm(d, axis=1); u = d / L[:, None]
    Pd = pd + np.cross(w, r); Pdd = pdd + np.cross(a, r) + np.cross(w, np.cross(w, r))
    Ld = np.einsum('ij,ij->i', u, Pd)
    Ldd = (np.einsum('ij,ij->i', Pd, Pd) + np.einsum('ij,ij->i', d, Pdd) - Ld**2) / L
    I = R @ Ibody @ R.T
    J = np.zeros((6, 6)); J[:3] = -u.T; J[3:] = -np.cross(r, u).T
    rhs = np.concatenate([m*(pdd - gvec), I @ a + np.cross(w, I @ w)])
    f = np.linalg.solve(J, rhs)
    Fres = m*(pdd - gvec) - (-(f[:, None]*u)).sum(0)
    Mres = I @ a + np.cross(w, I @ w) - np.cross(r, -(f[:, None]*u)).sum(0)
    # finite-difference check of omega, alpha from R(t)
    h = 1e-4
    Rp_, Rm_ = np.array(f_R(tt+h), float), np.array(f_R(tt-h), float)
    Wfd = (Rp_ - Rm_)/(2*h) @ R.T; wfd = np.array([Wfd[2, 1], Wfd[0, 2], Wfd[1, 0]])
    def wfun(s):
        Rs_ = np.array(f_R(s), float); Wm = (np.array(f_R(s+1e-5), float)-np.array(f_R(s-1e-5), float))/2e-5 @ Rs_.T
        return np.array([Wm[2, 1], Wm[0, 2], Wm[1, 0]])
    afd = (wfun(tt+1e-3) - wfun(tt-1e-3))/2e-3
    return dict(L=L, Ld=Ld, Ldd=Ldd, w=w, a=a, f=f, cond=np.linalg.cond(J),
                res_F=np.abs(Fres).max(), res_M=np.abs(Mres).max(),
                w_fd_err=np.abs(w - wfd).max(), a_fd_err=np.abs(a - afd).max(),
                angles=vec(f_ang, tt), p=p)

def tensions_t0_by_hand():
    """t=0: R=I, p=(0,0,0.6). By hand: p''(0) = 0 (all sines), angles: phi''=theta''=0,
    psi''(0)=0.05 pi^2; phi'(0)=0.08*1.6pi, theta'(0)=0.06*1.2pi, psi'(0)=0.
    Euler-angle rates at R=I: w = (phi', theta', psi') ; alpha = d/dt[Rz Ry e_x phi' + Rz e_y theta' + e_z psi']
      = (phi'', theta'', psi'') + (e_z psi') x (...) + ... at t=0 with psi'=0: alpha = (0,0,psi'') +
      (Ry' e_x) phi' = theta' * (e_y x e_x) phi' = (0,0,-theta' phi')."""
    phid, thd, psidd = 0.08*1.6*np.pi, 0.06*1.2*np.pi, 0.05*np.pi**2
    w = np.array([phid, thd, 0.0]); a = np.array([0.0, 0.0, psidd - thd*phid])
    p = np.array([0, 0, 0.6]); r = B.copy(); d = p + r - A
    u = d/np.linalg.norm(d, axis=1)[:, None]
    # least squares on the stacked wrench equations (different solver path)
    M = np.vstack([-u.T, -np.cross(r, u).T])
    rhs = np.concatenate([m*np.array([0, 0, g]), Ibody @ a + np.cross(w, Ibody @ w)])
    f, *_ = np.linalg.lstsq(M, rhs, rcond=None)
    return f, w, a

if __name__ == "__main__":
    out = {}; mx = dict(res_F=0, res_M=0, w_fd_err=0, a_fd_err=0)
    for tt in TS:
        s = solve_at(tt)
        for k in mx: mx[k] = max(mx[k], float(s[k]))
        out[f"{tt:g}"] = {k: (v.tolist() if isinstance(v, np.ndarray) else float(v)) for k, v in s.items()
                          if k not in ('res_F', 'res_M', 'w_fd_err', 'a_fd_err')}
        out[f"{tt:g}"]["fd_check"] = {"omega_err": float(s['w_fd_err']), "alpha_err": float(s['a_fd_err'])}
    f0h, w0h, a0h = tensions_t0_by_hand()
    f0 = np.array(out["0"]["f"])
    res = {
        "problem": {"Rb": Rb, "Rp": Rp, "m": m, "g": g, "I_body_diag": [0.2, 0.2, 0.3],
                    "beta_deg": [-15, 15, 105, 135, 225, 255], "gamma_deg": [-45, 45, 75, 165, 195, 285],
                    "A": A.tolist(), "B_platform": B.tolist(),
                    "p(t)": "(0.03 sin(pi t), 0.02 sin(2 pi t), 0.6 + 0.03 sin(1.4 pi t))",
                    "R(t)": "Rz(psi) Ry(theta) Rx(phi); phi=0.08 sin(1.6 pi t), theta=0.06 sin(1.2 pi t), psi=0.05(1-cos(pi t))",
                    "tension_sign": "force on platform = -f_i (P_i - A_i)/L_i",
                    "sample_times": TS},
        "equations": {
            "kinematics": "P_i = p + R B_i; L_i=|P_i-A_i|; L_i' = u_i.P_i'; L_i'' = (|P_i'|^2 + d_i.P_i'' - L_i'^2)/L_i",
            "omega": "[w]x = R' R^T (sympy symbolic); alpha = d w/dt (sympy)",
            "omega_symbolic": str(list(ws)),
            "newton": "sum -f_i u_i = m (p'' - g_vec)",
            "euler": "sum r_i x (-f_i u_i) = I a + w x (I w), I = R diag(.2,.2,.3) R^T, r_i = R B_i",
        },
        "method": "closed-form kinematics from sympy derivatives, numpy.linalg.solve for 6x6 wrench system",
        "outputs": out,
        "checks": {
            "max_force_residual_N": mx["res_F"], "max_moment_residual_Nm": mx["res_M"],
            "max_omega_fd_err (central diff h=1e-4)": mx["w_fd_err"],
            "max_alpha_fd_err (nested central diff)": mx["a_fd_err"],
            "max |R'R^T + (R'R^T)^T| on 201 points (must be ~0)": skewsym,
            "t0_by_hand": {"omega": w0h.tolist(), "alpha": a0h.tolist(), "f": f0h.tolist(),
                           "max_abs_diff_vs_main_f": float(np.abs(f0h - f0).max()),
                           "max_abs_diff_omega": float(np.abs(w0h - np.array(out["0"]["w"])).max()),
                           "max_abs_diff_alpha": float(np.abs(a0h - np.array(out["0"]["a"])).max())},
            "max_cond": max(out[k]["cond"] for k in out),
        },
    }
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ref_stewart.json")
    with open(path, "w") as fh: json.dump(res, fh, indent=1)
    print(json.dumps(res["checks"], indent=1))
    for k in ("0", "1"): print(k, "f =", out[k]["f"], "L =", out[k]["L"], "cond", out[k]["cond"])
