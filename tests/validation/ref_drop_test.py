#!/usr/bin/env python
"""Independent reference solution: two-mass drop test of an oleo-pneumatic strut.

Problem statement (as given to its author, who saw no simulator code): sprung mass
M = 5000 kg and unsprung mass m = 150 kg fall at v0 = 3.05 m/s, the tyre h0 = 0.05 m above
the ground; wing lift lam*M*g (lam = 1 and 0.75) on the sprung mass. Strut force Fs
(compression > 0, stroke s = z1 - z2) = gas Aa*(p0*(V0/(V0 - Aa*s))^n - patm) (Aa = 0.01
m^2, V0 = 0.005 m^3, p0 = 2e6 Pa absolute, patm = 101325 Pa, n = 1.3) + orifice Aa*dp with
Aa*ds/dt = Cd*Ao*sqrt(2/rho)*dp/(dp^2 + ptr^2)^(1/4) (Cd 0.7, Ao 3.3e-4 m^2, rho 850,
ptr 1e4 Pa) + seal friction Fc*tanh((ds/dt)/veps) (Fc 2000 N, veps 1e-3 m/s) + top-out
stop -max(ktop*(-s) - ctop*ds/dt, 0) for s < 0 (ktop 1e8 N/m, ctop 2e5 N*s/m). Tyre:
max(kt*d + ct*dd/dt, 0) for d = z2 - h0 > 0 (kt 1.2e6 N/m, ct 3000 N*s/m). M*z1'' =
M*g - lam*M*g - Fs; m*z2'' = m*g + Fs - Ft; s(0) = -Aa*(p0 - patm)/ktop, z1(0) = 0,
z2(0) = -s(0). Outputs: touchdown, peak load factor Ft_max/((M + m)*g), largest stroke,
the efficiency of the compression stroke. Run: python ref_drop_test.py (about a minute)
-> ref_drop_test.json.

Written from the problem statement only (numpy + scipy).  Coordinates positive
DOWNWARD.  State y = [z1, z2, v1, v2, W] where W = int Fs * (ds/dt) dt (strut work,
carried along as a quadrature state so that the efficiency integral is obtained
with integrator accuracy).

Piecewise-smooth RHS handled by "sign-vector" modes: four switching functions
  e0 = d                         (tyre geometric contact)
  e1 = kt*d + ct*dd              (tyre force expression)
  e2 = -s                        (top-out region s < 0)
  e3 = ktop*(-s) - ctop*ds/dt    (top-out force expression)
tyre active  <=> e0 > 0 and e1 > 0 ;  top-out active <=> e2 > 0 and e3 > 0.
Inside a segment the sign vector is frozen, the RHS is smooth (the active branch
formula is used without max/heaviside), and every e_j is a terminal event that
fires only when it leaves its current sign.  At an event the event time is
refined by Newton iteration on states obtained by *re-integrating* from the last
accepted step (not from the dense interpolant), the sign of the fired function
is flipped and the integration restarts.  Output times are forced step ends.
Extrema (max s, max Ft, max Fs) are located as zeros of the analytic time
derivative on the dense output and their values are re-computed by exact
re-integration to the located time.
"""
import json
import sys
import time
import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

# ---------------------------------------------------------------- parameters
M, m, g = 5000.0, 150.0, 9.81
v0, h0 = 3.05, 0.05
Aa, V0, p0, patm, ngas = 0.01, 0.005, 2.0e6, 101325.0, 1.3
Cd, Ao, rho, ptr = 0.7, 3.3e-4, 850.0, 1.0e4
Fc, veps = 2000.0, 1e-3
ktop, ctop = 1e8, 2e5
kt, ct = 1.2e6, 3000.0
T_END = 0.8
T_OUT = [0.05, 0.1, 0.2, 0.3, 0.5, 0.8]
KQ = Cd * Ao * np.sqrt(2.0 / rho)           # Q = KQ * dp / (dp^2+ptr^2)^(1/4)
s0 = -Aa * (p0 - patm) / ktop


def orifice_dp(Q):
    """Exact inverse of Q = KQ*dp/(dp^2+ptr^2)^(1/4).
    Squaring twice: KQ^4 x^2 - Q^4 x - Q^4 ptr^2 = 0, x = dp^2.  With a = (Q/KQ)^2:
    x = a*(a + sqrt(a^2 + 4 ptr^2))/2, dp = (Q/KQ)*sqrt((a+sqrt(a^2+4ptr^2))/2)
    (written so it is analytic in Q and carries the sign of Q)."""
    r = Q / KQ
    a = r * r
    return r * np.sqrt(0.5 * (a + np.sqrt(a * a + 4.0 * ptr * ptr)))


def ddp_dQ(dp):
    # dQ/ddp = KQ*(dp^2+ptr^2)^(-5/4)*(dp^2/2+ptr^2)
    q = dp * dp + ptr * ptr
    return q ** 1.25 / (KQ * (0.5 * dp * dp + ptr * ptr))


def gas(s):
    return Aa * (p0 * (V0 / (V0 - Aa * s)) ** ngas - patm)


def modes(sig):
    return (sig[0] > 0 and sig[1] > 0), (sig[2] > 0 and sig[3] > 0)


def forces(y, sig):
    tyre_on, top_on = modes(sig)
    z1, z2, v1, v2 = y[0], y[1], y[2], y[3]
    s = z1 - z2
    sd = v1 - v2
    Fg = gas(s)
    Fh = Aa * orifice_dp(Aa * sd)
    Ff = Fc * np.tanh(sd / veps)
    Ftop = (ktop * s + ctop * sd) if top_on else 0.0
    Fs = Fg + Fh + Ff + Ftop
    d = z2 - h0
    Ft = (kt * d + ct * v2) if tyre_on else 0.0
    return Fs, Ft


def make_rhs(sig, lam):
    def rhs(t, y):
        Fs, Ft = forces(y, sig)
        a1 = g - lam * g - Fs / M
        a2 = g + (Fs - Ft) / m
        return np.array([y[2], y[3], a1, a2, Fs * (y[2] - y[3])])
    return rhs


def accel(y, sig, lam):
    Fs, Ft = forces(y, sig)
    return g - lam * g - Fs / M, g + (Fs - Ft) / m


def ev_values(y):
    z1, z2, v1, v2 = y[0], y[1], y[2], y[3]
    s = z1 - z2
    sd = v1 - v2
    d = z2 - h0
    return np.array([d, kt * d + ct * v2, -s, ktop * (-s) - ctop * sd])


def ev_derivs(y, sig, lam):
    a1, a2 = accel(y, sig, lam)
    sd = y[2] - y[3]
    sdd = a1 - a2
    return np.array([y[3], kt * y[3] + ct * a2, -sd, -ktop * sd - ctop * sdd])


def dFs_dt(y, sig, lam):
    _, top_on = modes(sig)
    a1, a2 = accel(y, sig, lam)
    s = y[0] - y[1]
    sd = y[2] - y[3]
    sdd = a1 - a2
    Vg = V0 - Aa * s
    dFg = Aa * p0 * ngas * (V0 / Vg) ** ngas * Aa / Vg
    dp = orifice_dp(Aa * sd)
    dFh = Aa * Aa * ddp_dQ(dp)
    ex = np.exp(-2.0 * abs(sd) / veps)
    dFf = Fc / veps * 4.0 * ex / (1.0 + ex) ** 2      # Fc/veps * sech^2(sd/veps)
    r = dFg * sd + (dFh + dFf) * sdd
    if top_on:
        r += ktop * sd + ctop * sdd
    return r


def dFt_dt(y, sig, lam):
    tyre_on, _ = modes(sig)
    if not tyre_on:
        return 0.0
    _, a2 = accel(y, sig, lam)
    return kt * y[3] + ct * a2


class Run:
    def __init__(self, lam, method, rtol, atol):
        self.lam, self.method, self.rtol, self.atol = lam, method, rtol, atol
        self.segs = []      # dicts: t0,t1,sig,res
        self.events = []    # (t, j, newsign, y)
        self.out = {}

    def integrate_exact(self, sig, ta, ya, tb):
        """State at tb obtained as an integrator step end (no interpolation)."""
        if tb == ta:
            return ya.copy()
        r = solve_ivp(make_rhs(sig, self.lam), (ta, tb), ya, method=self.method,
                      rtol=self.rtol, atol=self.atol)
        assert r.success, r.message
        return r.y[:, -1]

    def precise(self, seg, t):
        res = seg['res']
        k = np.searchsorted(res.t, t, side='right') - 1
        k = max(0, min(k, len(res.t) - 1))
        if seg['evrefined'] and k == len(res.t) - 1:
            k -= 1           # last stored point is an interpolated event point
        return self.integrate_exact(seg['sig'], res.t[k], res.y[:, k], t)

    def run(self):
        lam = self.lam
        y = np.array([0.0, -s0, v0, v0, 0.0])
        t = 0.0
        sig = np.sign(ev_values(y)).astype(int)
        assert np.all(sig != 0)
        outs = list(T_OUT)
        nseg = 0
        while t < T_END:
            tb = outs[0]
            evs = []
            for j in range(4):
                def e(tt, yy, j=j):
                    return ev_values(yy)[j]
                e.terminal = True
                e.direction = -sig[j]
                evs.append(e)
            res = solve_ivp(make_rhs(sig, lam), (t, tb), y, method=self.method,
                            rtol=self.rtol, atol=self.atol, events=evs,
                            dense_output=True)
            assert res.success, res.message
            nseg += 1
            seg = {'t0': t, 'sig': sig.copy(), 'res': res, 'evrefined': False}
            if res.status == 1:
                fired = [j for j in range(4) if len(res.t_events[j]) > 0]
                j = fired[0]
                te = res.t_events[j][0]
                ta, ya = res.t[-2], res.y[:, -2]
                # Newton refinement on exactly integrated states
                for it in range(8):
                    ye = self.integrate_exact(sig, ta, ya, te)
                    G = ev_values(ye)[j]
                    dG = ev_derivs(ye, sig, lam)[j]
                    dt = -G / dG
                    te += dt
                    if abs(dt) < 1e-15 * max(1.0, abs(te)):
                        break
                ye = self.integrate_exact(sig, ta, ya, te)
                seg['evrefined'] = True
                seg['t1'] = te
                self.segs.append(seg)
                newsig = sig.copy()
                newsig[j] = -sig[j]
                self.events.append((te, j, int(newsig[j]), ye.copy()))
                t, y, sig = te, ye, newsig
                # sanity: other switching functions keep their sign
                vals = ev_values(y)
                for k in range(4):
                    if k != j and np.sign(vals[k]) != sig[k]:
                        print('WARNING simultaneous event', k, vals[k], file=sys.stderr)
            else:
                seg['t1'] = tb
                self.segs.append(seg)
                t, y = tb, res.y[:, -1].copy()
                self.out[tb] = (y.copy(), sig.copy())
                outs.pop(0)
        self.nseg = nseg
        return self

    # --------------------------------------------------------- post-processing
    def seg_at(self, t):
        for sg in self.segs:
            if sg['t0'] <= t <= sg['t1']:
                return sg
        raise ValueError(t)

    def find_extrema(self, hfun, tlo=0.0, thi=T_END, nsub=4):
        """Zeros of hfun(y, sig) crossing + -> - (maxima of the primitive).
        Returns list of (t, seg)."""
        found = []
        for sg in self.segs:
            a, b = max(sg['t0'], tlo), min(sg['t1'], thi)
            if b <= a:
                continue
            sol = sg['res'].sol
            ts = sg['res'].t
            grid = np.unique(np.concatenate(
                [[a, b], ts[(ts > a) & (ts < b)]]))
            fine = [grid[0]]
            for i in range(len(grid) - 1):
                fine.extend(list(np.linspace(grid[i], grid[i + 1], nsub + 1)[1:]))
            fine = np.array(fine)
            h = np.array([hfun(sol(tt), sg['sig']) for tt in fine])
            for i in range(len(fine) - 1):
                if h[i] > 0 and h[i + 1] <= 0:
                    tr = brentq(lambda tt: hfun(sol(tt), sg['sig']), fine[i], fine[i + 1],
                                xtol=1e-16, rtol=8.9e-16, maxiter=200)
                    # Newton polish on exactly-integrated states (derivative of h by FD)
                    found.append((tr, sg))
        return found

    def analyse(self):
        lam = self.lam
        R = {}
        # touchdown = first e0 event with new sign +1
        td = [e for e in self.events if e[1] == 0 and e[2] > 0]
        tc, yc = td[0][0], td[0][3]
        R['tc'] = tc
        R['s_tc'] = yc[0] - yc[1]
        # tyre release events
        rel = [e for e in self.events if e[1] == 1 and e[2] < 0 and e[3][1] - h0 > 0]
        R['tyre_release_times'] = [e[0] for e in rel]
        R['d_at_release'] = [e[3][1] - h0 for e in rel]
        R['event_log'] = [(e[0], ['d', 'kt*d+ct*dd', '-s', 'ktop*(-s)-ctop*sd'][e[1]], e[2])
                          for e in self.events]
        # max stroke: zeros of sd (+ -> -)
        cand = []
        for tr, sg in self.find_extrema(lambda y, sig: y[2] - y[3]):
            yy = self.precise(sg, tr)
            cand.append((yy[0] - yy[1], tr, yy))
        # endpoints too
        yend = self.out[T_END][0]
        cand.append((yend[0] - yend[1], T_END, yend))
        smax, tsmax, ysm = max(cand, key=lambda c: c[0])
        R['s_max'], R['t_s_max'] = smax, tsmax
        R['s_local_maxima'] = [(c[1], c[0]) for c in cand]
        first_comp = [c for c in cand if c[1] > tc]
        R['first_local_s_max_after_tc'] = (first_comp[0][0], first_comp[0][1])
        # peak tyre force
        cand = []
        for tr, sg in self.find_extrema(lambda y, sig: dFt_dt(y, sig, lam)):
            yy = self.precise(sg, tr)
            cand.append((forces(yy, sg['sig'])[1], tr))
        R['Ft_interior_local_maxima'] = [(c[1], c[0]) for c in cand]
        for sg in self.segs:   # right limits at segment starts / ends
            r = sg['res']
            cand.append((forces(r.y[:, 0], sg['sig'])[1], sg['t0']))
            cand.append((forces(r.y[:, -1] if not sg['evrefined'] else
                                self.precise(sg, sg['t1']), sg['sig'])[1], sg['t1']))
        Ftmax, tFt = max(cand, key=lambda c: c[0])
        R['Ft_max'], R['t_Ft_max'] = Ftmax, tFt
        R['n_max'] = Ftmax / ((M + m) * g)
        # peak strut force over compression stroke [tc, tsmax]
        cand = []
        for tr, sg in self.find_extrema(lambda y, sig: dFs_dt(y, sig, lam), tc, tsmax):
            yy = self.precise(sg, tr)
            cand.append((forces(yy, sg['sig'])[0], tr))
        for sg in self.segs:
            if sg['t1'] < tc or sg['t0'] > tsmax:
                continue
            for tt in (max(sg['t0'], tc), min(sg['t1'], tsmax)):
                yy = self.precise(sg, tt)
                cand.append((forces(yy, sg['sig'])[0], tt))
        Fsmax, tFs = max(cand, key=lambda c: c[0])
        R['Fs_max'], R['t_Fs_max'] = Fsmax, tFs
        Wc = yc[4]
        Wm = ysm[4]
        R['strut_work'] = Wm - Wc
        R['eta'] = (Wm - Wc) / (Fsmax * (smax - R['s_tc']))
        # outputs at fixed times
        R['samples'] = {}
        for tt in T_OUT:
            yy, sg = self.out[tt]
            Fs, Ft = forces(yy, sg)
            R['samples'][f'{tt:g}'] = {'z1': yy[0], 'z2': yy[1], 's': yy[0] - yy[1],
                                        'sdot': yy[2] - yy[3], 'Ft': Ft, 'Fs': Fs,
                                        'v1': yy[2], 'v2': yy[3]}
        R['n_segments'] = self.nseg
        R['n_steps'] = int(sum(len(sg['res'].t) - 1 for sg in self.segs))
        return R


def solve(lam, method, rtol, atol):
    t0 = time.time()
    r = Run(lam, method, rtol, atol).run()
    R = r.analyse()
    R['cpu_s'] = time.time() - t0
    R['method'], R['rtol'], R['atol'] = method, rtol, atol
    return R


KEYS = ['tc', 'Ft_max', 'n_max', 't_Ft_max', 's_max', 't_s_max', 'Fs_max', 't_Fs_max',
        'eta', 's_tc']


def flat(R):
    f = {k: R[k] for k in KEYS}
    for tt, d in R['samples'].items():
        for q in ('z1', 'z2', 's', 'sdot', 'Ft'):
            f[f'{q}@{tt}'] = d[q]
    return f


def reldiff(a, b):
    fa, fb = flat(a), flat(b)
    out = {}
    for k in fa:
        den = max(abs(fa[k]), abs(fb[k]))
        out[k] = 0.0 if den == 0 else abs(fa[k] - fb[k]) / den
    return out


def absdiff(a, b):
    fa, fb = flat(a), flat(b)
    return {k: abs(fa[k] - fb[k]) for k in fa}


def selftest():
    # orifice inversion residual
    worst = 0.0
    for Q in np.concatenate([-np.logspace(-9, -1, 60), [0.0], np.logspace(-9, -1, 60)]):
        dp = orifice_dp(Q)
        Qb = KQ * dp / (dp * dp + ptr * ptr) ** 0.25
        worst = max(worst, abs(Qb - Q) / max(abs(Q), 1e-300))
    # derivative of dp(Q) vs finite difference
    Q = 0.013
    h = 1e-7
    fd = (orifice_dp(Q + h) - orifice_dp(Q - h)) / (2 * h)
    return {'orifice_inverse_max_rel_residual': worst,
            'ddp_dQ_rel_err_vs_FD': abs(fd - ddp_dQ(orifice_dp(Q))) / abs(fd)}


def main():
    configs = [('Radau', 1e-12, 1e-14), ('DOP853', 1e-12, 1e-14), ('LSODA', 1e-12, 1e-14),
               ('Radau', 1e-10, 1e-12), ('DOP853', 1e-10, 1e-12), ('DOP853', 1e-13, 1e-15)]
    if len(sys.argv) > 1 and sys.argv[1] == 'quick':
        configs = configs[:2]
    results = {}
    for lam in (1.0, 0.75):
        runs = {}
        for meth, rt, at in configs:
            key = f'{meth}@{rt:g}'
            runs[key] = solve(lam, meth, rt, at)
            print(f'lam={lam} {key}: steps={runs[key]["n_steps"]} segs={runs[key]["n_segments"]}'
                  f' cpu={runs[key]["cpu_s"]:.1f}s', flush=True)
        ref = runs['Radau@1e-12']
        comps = {}
        abscomps = {}
        for a, b in [('Radau@1e-12', 'DOP853@1e-12'), ('Radau@1e-12', 'LSODA@1e-12'),
                     ('Radau@1e-12', 'Radau@1e-10'), ('DOP853@1e-12', 'DOP853@1e-10'),
                     ('DOP853@1e-12', 'DOP853@1e-13'), ('Radau@1e-12', 'DOP853@1e-13')]:
            if a in runs and b in runs:
                comps[f'{a} vs {b}'] = reldiff(runs[a], runs[b])
                abscomps[f'{a} vs {b}'] = absdiff(runs[a], runs[b])
        results[f'lam={lam:g}'] = {
            'reference': {k: v for k, v in ref.items()},
            'all_runs': {k: flat(v) for k, v in runs.items()},
            'relative_differences': comps,
            'absolute_differences': abscomps,
            'max_rel_diff_per_comparison': {k: max(v.values()) for k, v in comps.items()},
        }
    out = {
        'problem': 'two-mass oleo-pneumatic drop test, z positive down',
        'reference_run': 'Radau rtol=1e-12 atol=1e-14, piecewise with event restarts',
        's0': s0,
        'selftest': selftest(),
        'results': results,
    }

    def conv(o):
        if isinstance(o, dict):
            return {k: conv(v) for k, v in o.items()}
        if isinstance(o, (list, tuple)):
            return [conv(v) for v in o]
        if isinstance(o, (np.floating, float)):
            return float(f'{float(o):.15g}')
        if isinstance(o, (np.integer,)):
            return int(o)
        return o
    with open(__file__.rsplit('/', 1)[0] + '/ref_drop_test.json', 'w') as fh:
        json.dump(conv(out), fh, indent=1)
    for lamk, rr in results.items():
        R = rr['reference']
        print(f'\n===== {lamk}  (reference: Radau rtol 1e-12) =====')
        for k in KEYS + ['strut_work']:
            print(f'  {k:12s} = {R[k]:.15g}')
        print('  tyre release times:', R['tyre_release_times'], ' d at release:', R['d_at_release'])
        for tt, d in R['samples'].items():
            print(f'  t={tt:>4s}: z1={d["z1"]:.15g} z2={d["z2"]:.15g} s={d["s"]:.15g} '
                  f'sdot={d["sdot"]:.15g} Ft={d["Ft"]:.15g}')
        print('  events:')
        for e in R['event_log']:
            print(f'     t={e[0]:.15g}  {e[1]:>20s} -> sign {e[2]:+d}')
        print('  agreement (max rel diff over all outputs):')
        for k, v in rr['max_rel_diff_per_comparison'].items():
            worst = max(rr['relative_differences'][k].items(), key=lambda kv: kv[1])
            rd = rr['relative_differences'][k]
            ad = rr['absolute_differences'][k]
            print(f'     {k:32s}: max rel {v:.2e} (worst {worst[0]}, abs {ad[worst[0]]:.1e});'
                  f' n_max {rd["n_max"]:.1e} s_max {rd["s_max"]:.1e} tc {rd["tc"]:.1e}'
                  f' Fs_max {rd["Fs_max"]:.1e} eta {rd["eta"]:.1e};'
                  f' max abs diff of z1,z2,s samples {max(ad[q] for q in ad if q[0] in "zs" and "@" in q):.1e} m')
        print('  s local maxima (t, s):', R['s_local_maxima'])
        print('  Ft interior local maxima (t, Ft):', R['Ft_interior_local_maxima'])
    print('selftest:', out['selftest'])


if __name__ == '__main__':
    main()
