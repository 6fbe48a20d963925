#!/usr/bin/env python
"""Independent reference: DC-motor position servo (PID outer loop with current
limit + clamping anti-windup, PI current loop with voltage limit + clamping,
winding heating R(T)).  numpy + scipy only.

Method: piecewise integration with solve_ivp.  The right-hand side is smooth
inside a "mode" (outer saturation s1 in {-1,0,+1}, outer integrator frozen c1,
inner saturation s2, inner integrator frozen c2) and on each interval of
constant reference.  Every switching surface is a terminal event; each event
time is refined by Newton iteration on a fresh integration from the last
accepted step (so the restart state is an integrator step end, not a dense
interpolant); the new mode is chosen from the state, and on the switching
surface itself from the direction of the vector field on both sides
(a Filippov sliding mode is detected and would abort).

Problem statement (as given to its author, who saw no simulator code): the parameters
below; L di/dt = u - R(T) i - k w, J dw/dt = k i - b w, dtheta/dt = w; R(T) = R0 (1 +
alpha (T - T0)); C_th dT/dt = R(T) i^2 - (T - Tamb)/R_th; a position PID (filtered
derivative tf dxf/dt = e - xf, output clipped to +-Imax, integral clamped while the output
is limited and k_i e pushes it further) gives the current reference; a current PI
(clipped to +-Umax, clamped the same way) gives u; theta_ref steps between 0 and 2 rad at
0.05, 0.55, ..., 2.55 s.

Run:  python ref_position_loop.py  -> prints results, writes ref_position_loop.json (about 45 s)
"""
import json
import math
import sys
import time

import numpy as np
from scipy.integrate import solve_ivp

# ---------------- parameters ----------------
L = 0.5e-3; R0 = 1.0; T0 = 293.15; alpha = 3.93e-3; k = 0.05
J = 1e-4; b = 1e-5
Cth = 0.5; Rth = 5.0; Tamb = 293.15
kp = 5.0; ki = 20.0; kd = 0.1; tf = 2e-3; Imax = 2.0
kpi = 1.0; kii = 2000.0; Umax = 24.0

STEPS = [0.05, 0.55, 1.05, 1.55, 2.05, 2.55]      # reference switching times
TOUT = [0.1, 0.2, 0.3, 0.5, 0.6, 1.0, 1.2, 2.0, 2.6, 3.0]
TEND = 3.0


def ref_at(t):
    """theta_ref, right-continuous: 2 on [0.05,0.55), [1.05,1.55), [2.05,2.55)."""
    n = sum(1 for s in STEPS if t >= s)
    return 2.0 if n % 2 == 1 else 0.0


# state y = [theta, w, i, dT=T-Tamb, xf, xi, xi2, q=int i^2 dt]
NAMES = ["theta", "w", "i", "dT", "xf", "xi", "xi2", "q"]


def Rw(dT):
    return R0 * (1.0 + alpha * (Tamb + dT - T0))


def signals(y, r, mode):
    th, w, i, dT, xf, xi, xi2, q = y
    s1, c1, s2, c2 = mode
    e = r - th
    d = (e - xf) / tf
    v = kp * e + xi + kd * d
    iref = s1 * Imax if s1 != 0 else v
    ei = iref - i
    v2 = kpi * ei + xi2
    u = s2 * Umax if s2 != 0 else v2
    return e, d, v, iref, ei, v2, u


def rhs(t, y, r, mode):
    th, w, i, dT, xf, xi, xi2, q = y
    s1, c1, s2, c2 = mode
    e, d, v, iref, ei, v2, u = signals(y, r, mode)
    R = Rw(dT)
    return np.array([
        w,
        (k * i - b * w) / J,
        (u - R * i - k * w) / L,
        (R * i * i - dT / Rth) / Cth,
        d,
        0.0 if c1 else ki * e,
        0.0 if c2 else kii * ei,
        i * i,
    ])


def sigdots(y, r, mode):
    """Time derivatives of the switching signals along the flow of `mode`."""
    f = rhs(0.0, y, r, mode)
    s1 = mode[0]
    w = y[1]
    de = -w
    dv = kp * de + f[5] + kd * (de - f[4]) / tf
    diref = dv if s1 == 0 else 0.0
    dei = diref - f[2]
    dv2 = kpi * dei + f[6]
    return {"e": de, "v": dv, "ei": dei, "v2": dv2, "w": f[1]}


def sigvals(y, r, mode):
    e, d, v, iref, ei, v2, u = signals(y, r, mode)
    return {"e": e, "v": v, "ei": ei, "v2": v2, "w": y[1]}


def mode_events(mode):
    """Terminal switching surfaces of `mode`: list of (signal, offset, direction, tag)."""
    s1, c1, s2, c2 = mode
    ev = []
    if s1 == 0:
        ev += [("v", Imax, +1, "outer_sat"), ("v", -Imax, -1, "outer_sat")]
    else:
        ev.append(("v", s1 * Imax, -s1, "outer_sat"))
        side = s1 if c1 else -s1          # sign of e in this clamp region (ki>0)
        ev.append(("e", 0.0, -side, "outer_clamp"))
    if s2 == 0:
        ev += [("v2", Umax, +1, "inner_sat"), ("v2", -Umax, -1, "inner_sat")]
    else:
        ev.append(("v2", s2 * Umax, -s2, "inner_sat"))
        side = s2 if c2 else -s2          # sign of ei (kii>0)
        ev.append(("ei", 0.0, -side, "inner_clamp"))
    return ev


def sgn(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


def choose_mode(y, r, old, fired=None):
    """Mode from the state.  `fired` = (signal, offset) of the surface the state
    sits on (after an event); there the side is chosen from the vector fields."""
    s1o, c1o, s2o, c2o = old
    # ---- outer saturation ----
    e, d, v, *_ = signals(y, r, (0, False, 0, False))
    if fired is not None and fired[0] == "v":
        c = fired[1]; sig = sgn(c)
        cl = (sig * ki * e > 0)
        m_in = (0, False, s2o, c2o)
        m_out = (sig, cl, s2o, c2o)
        dv_in = sigdots(y, r, m_in)["v"] * sig
        dv_out = sigdots(y, r, m_out)["v"] * sig
        if dv_in > 0 and dv_out > 0:
            s1 = sig
        elif dv_in < 0 and dv_out < 0:
            s1 = 0
        else:
            raise RuntimeError(f"outer: sliding/repelling at v={c}: {dv_in} {dv_out}")
    else:
        s1 = 1 if v > Imax else (-1 if v < -Imax else 0)
    # ---- outer clamp ----
    if s1 == 0:
        c1 = False
    else:
        if fired is not None and fired[0] == "e":
            side = sgn(-y[1])            # de/dt = -w
            if side == 0:
                raise RuntimeError("outer clamp: tangential")
        else:
            side = sgn(e)
        c1 = (s1 * ki * side > 0)
    # ---- inner saturation ----
    mo = (s1, c1, 0, False)
    _, _, _, iref, ei, v2, _ = signals(y, r, mo)
    if fired is not None and fired[0] == "v2":
        c = fired[1]; sig = sgn(c)
        cl = (sig * kii * ei > 0)
        d_in = sigdots(y, r, (s1, c1, 0, False))["v2"] * sig
        d_out = sigdots(y, r, (s1, c1, sig, cl))["v2"] * sig
        if d_in > 0 and d_out > 0:
            s2 = sig
        elif d_in < 0 and d_out < 0:
            s2 = 0
        else:
            raise RuntimeError(f"inner: sliding/repelling at v2={c}: {d_in} {d_out}")
    else:
        s2 = 1 if v2 > Umax else (-1 if v2 < -Umax else 0)
    if s2 == 0:
        c2 = False
    else:
        if fired is not None and fired[0] == "ei":
            side = sgn(sigdots(y, r, (s1, c1, s2, False))["ei"])
            if side == 0:
                raise RuntimeError("inner clamp: tangential")
        else:
            side = sgn(ei)
        c2 = (s2 * kii * side > 0)
    return (s1, c1, s2, c2)


class Sim:
    def __init__(self, method="Radau", rtol=1e-12, atol=1e-14, refine=True):
        self.method, self.rtol, self.atol, self.refine = method, rtol, atol, refine
        self.nfev = 0

    def integ(self, t0, t1, y0, r, mode, events=None):
        sol = solve_ivp(rhs, (t0, t1), y0, method=self.method, rtol=self.rtol,
                        atol=self.atol, args=(r, mode), events=events)
        self.nfev += sol.nfev
        if sol.status < 0:
            raise RuntimeError(sol.message)
        return sol

    def newton(self, tk, yk, tg, sig, off, r, mode, t_hi):
        """Refine the root of signal(t)-off by Newton, integrating from the
        accepted step (tk, yk) with the smooth RHS of `mode`."""
        t = tg
        for _ in range(10):
            y = yk.copy() if t <= tk else self.integ(tk, t, yk, r, mode).y[:, -1]
            g = sigvals(y, r, mode)[sig] - off
            gd = sigdots(y, r, mode)[sig]
            dt = -g / gd
            if abs(dt) < 1e-14 or not self.refine:
                break
            t = min(max(t + dt, tk), t_hi)
        return t, y

    def run(self):
        t = 0.0
        y = np.zeros(8)
        mode = (0, False, 0, False)
        bps = sorted(set(STEPS + TOUT + [TEND]))
        self.log, self.out, self.wmax, self.at = [], {}, [], {}
        self.maxv2 = 0.0
        for tb in bps:
            r = ref_at(t)
            while t < tb:
                evs = mode_events(mode)
                funcs = []
                for (sg, off, dr, tag) in evs:
                    def fn(tt, yy, r_, m_, sg=sg, off=off):
                        return sigvals(yy, r_, m_)[sg] - off
                    fn.terminal = True; fn.direction = dr
                    funcs.append(fn)
                def fw(tt, yy, r_, m_):
                    return yy[1]
                fw.terminal = False; fw.direction = -1     # local maxima of theta
                if 0.05 <= t < 0.55:       # only needed in the first pulse window
                    funcs.append(fw)
                sol = self.integ(t, tb, y, r, mode, funcs)
                for jj in range(sol.t.size):     # diagnostics at accepted steps
                    self.maxv2 = max(self.maxv2, abs(signals(sol.y[:, jj], r, mode)[5]))
                # theta maxima (non-terminal) -> refine separately
                for tw in (sol.t_events[-1] if len(funcs) > len(evs) else []):
                    j = np.searchsorted(sol.t, tw) - 1
                    j = max(j, 0)
                    if sol.t[j] >= tw and j > 0:
                        j -= 1
                    tw2, yw = self.newton(sol.t[j], sol.y[:, j], tw, "w", 0.0, r, mode, tb)
                    self.wmax.append((tw2, yw[0]))
                if sol.status == 1:
                    jev = [n for n in range(len(evs)) if len(sol.t_events[n])]
                    jev = min(jev, key=lambda n: sol.t_events[n][0])
                    sg, off, dr, tag = evs[jev]
                    te = sol.t_events[jev][0]
                    tk, yk = sol.t[-2], sol.y[:, -2]
                    te, ye = self.newton(tk, yk, te, sg, off, r, mode, tb)
                    new = choose_mode(ye, r, mode, fired=(sg, off))
                    self.log.append((te, tag, sg, off, mode, new))
                    t, y, mode = te, ye, new
                else:
                    t, y = tb, sol.y[:, -1]
            # at breakpoint tb
            if tb in TOUT:
                self.out[tb] = self.record(y, ref_at(tb - 1e-9) if tb in STEPS else r, mode)
            if tb in STEPS:
                self.at[("pre", tb)] = y.copy()
                old = mode
                mode = choose_mode(y, ref_at(tb), mode)
                self.log.append((tb, "ref_step", "-", "-", old, mode))
        self.yend = y
        return self

    @staticmethod
    def record(y, r, mode):
        e, d, v, iref, ei, v2, u = signals(y, r, mode)
        return {"theta": y[0], "w": y[1], "i": y[2], "u": u, "i_ref": iref,
                "T": Tamb + y[3], "xi": y[5],
                # extra states for cross-checking
                "xf": y[4], "xi2": y[6], "v": v, "v2": v2}

    def summary(self):
        # max theta over [0.05, 0.55): interior local maxima + window end values
        cands = [(tw, th) for (tw, th) in self.wmax if 0.05 <= tw < 0.55]
        cands.append((0.05, self.at[("pre", 0.05)][0]))
        cands.append((0.55, self.at[("pre", 0.55)][0]))   # left limit (sup)
        tmax, thmax = max(cands, key=lambda c: c[1])
        leave = [te for (te, tag, sg, off, old, new) in self.log
                 if tag == "outer_sat" and te > 0.05 and old[0] == 1 and new[0] == 0]
        T3 = Tamb + self.yend[3]
        return {
            "outputs": {f"{t:g}": v for t, v in self.out.items()},
            "theta_max_0.05_0.55": thmax, "t_theta_max": tmax,
            "theta_local_maxima_in_window": cands[:-2],
            "t_iref_leaves_plus_limit": leave[0],
            "T_3": T3, "R_T_3": R0 * (1 + alpha * (T3 - T0)),
            "i_rms_0_3": math.sqrt(self.yend[7] / TEND),
            "max_abs_v2_at_steps": self.maxv2,
        }


def flat(s):
    d = {}
    for t, v in s["outputs"].items():
        for kk, vv in v.items():
            d[f"{kk}@{t}"] = vv
    for kk in ("theta_max_0.05_0.55", "t_theta_max", "t_iref_leaves_plus_limit",
               "T_3", "R_T_3", "i_rms_0_3"):
        d[kk] = s[kk]
    return d


def compare(a, b):
    """max relative difference (scaled by max(|a|, floor)) between flat dicts."""
    worst = (0.0, None)
    for kk in a:
        scale = max(abs(a[kk]), 1e-6)
        rel = abs(a[kk] - b[kk]) / scale
        if rel > worst[0]:
            worst = (rel, kk)
    return worst


if __name__ == "__main__":
    runs = {}
    cfgs = [("Radau", 1e-12, 1e-14), ("Radau", 1e-10, 1e-12),
            ("LSODA", 1e-12, 1e-14), ("DOP853", 1e-12, 1e-14)]
    if len(sys.argv) > 1 and sys.argv[1] == "quick":
        cfgs = cfgs[:1]
    for m, rt, at in cfgs:
        t0 = time.time()
        sim = Sim(m, rt, at).run()
        s = sim.summary()
        runs[(m, rt)] = (sim, s)
        print(f"{m} rtol={rt:g}: {time.time()-t0:.1f} s, nfev={sim.nfev}, "
              f"{len(sim.log)} switch events", flush=True)
    sim, s = runs[("Radau", 1e-12)]
    print("\nswitch log (t, surface, old mode -> new mode; mode=(s1,c1,s2,c2)):")
    for (te, tag, sg, off, old, new) in sim.log:
        print(f"  t={te:.15f}  {tag:12s} {sg}={off}  {old} -> {new}")
    print("\nOutputs (Radau rtol 1e-12, atol 1e-14):")
    keys = ["theta", "w", "i", "u", "i_ref", "T", "xi"]
    print("   t   " + "".join(f"{kk:>21s}" for kk in keys))
    for t, v in s["outputs"].items():
        print(f"{t:>5s} " + "".join(f"{v[kk]:21.12e}" for kk in keys))
    for kk in ("theta_max_0.05_0.55", "t_theta_max", "t_iref_leaves_plus_limit",
               "T_3", "R_T_3", "i_rms_0_3"):
        print(f"{kk:28s} {s[kk]:.13g}")
    print("theta local maxima in [0.05,0.55):", s["theta_local_maxima_in_window"])
    print("max |v2| over accepted steps (inner limit Umax=24 never reached):", s["max_abs_v2_at_steps"])
    base = flat(s)
    agreement = {}
    print("\nAgreement (max relative diff over all reported numbers, scale max(|x|,1e-6)):")
    for key, (sm, ss) in runs.items():
        if key == ("Radau", 1e-12):
            continue
        rel, which = compare(base, flat(ss))
        agreement[f"{key[0]} rtol={key[1]:g}"] = {"max_rel_diff": rel, "worst": which}
        print(f"  vs {key[0]} rtol={key[1]:g}: {rel:.3e}  (worst: {which})")
    res = dict(s)
    res["method"] = "scipy solve_ivp Radau rtol=1e-12 atol=1e-14, piecewise between switching events (Newton-refined)"
    res["switch_log"] = [{"t": te, "surface": tag, "signal": sg, "level": off,
                          "mode_before": list(map(int, old)), "mode_after": list(map(int, new))}
                         for (te, tag, sg, off, old, new) in sim.log]
    res["agreement_vs_other_runs"] = agreement
    with open(__file__.rsplit("/", 1)[0] + "/ref_position_loop.json" if "/" in __file__ else "ref_position_loop.json", "w") as f:
        json.dump(res, f, indent=1, default=lambda o: float(o))
    print("wrote ref_position_loop.json")
