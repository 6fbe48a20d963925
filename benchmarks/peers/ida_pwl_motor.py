"""SUNDIALS IDA on benchmarks/pwl_drive.py's problem: how many steps a reference BDF code
needs for a DC motor driven by a 500-point linear pwl, against the same motor on the sine
the pwl samples, at circuitsim's default tolerances (rtol 1e-6, atol 1e-9).

The motor (netlists/dcmotor.cir): L i' = V - R i - k w, J w' = k i - b w, from rest, for
1 s, V = 12 V + 1 V sin(2π 5 Hz t) or its 500-point linear interpolant (np.interp).
IDA (scikit-sundae, SUNDIALS' variable-order BDF) runs it four ways:

  sine                       the smooth drive
  pwl, stepped over          the interpolant with no word of its corners: error control alone
  pwl, tstop at each corner  IDA lands on every corner but keeps its history across it
  pwl, restart at each corner  IDA is re-initialised at every corner (order 1 again)

Errors are against exact solutions, written here on their own: the motor and its drive
together are a constant linear system, so expm of its matrix carries the state exactly.
For the sine the state is (i, w, 1, sin ωt, cos ωt); over each linear piece of the pwl it
is (i, w, V, V'), carried from corner to corner. Each error is the largest over the
internal steps, relative to the variable's largest value.

    <python with scikit-sundae> benchmarks/peers/ida_pwl_motor.py [rtol atol]
"""
import sys
import time

import numpy as np
from scipy.linalg import expm
from sksundae.ida import IDA

R, L, K, J, B = 1.0, 0.5e-3, 0.05, 1e-4, 1e-5
TSTOP, POINTS = 1.0, 500


def sine(t):
    return 12.0 + np.sin(2 * np.pi * 5.0 * t)


CORNERS = np.linspace(0.0, TSTOP, POINTS)
SAMPLES = sine(CORNERS)


def pwl(t):
    return np.interp(t, CORNERS, SAMPLES)


def exact_sine(t_eval):
    """(i, w) at t_eval for the motor from rest under the sine."""
    omega = 2 * np.pi * 5.0
    m = np.zeros((5, 5))
    m[0] = -R / L, -K / L, 12.0 / L, 1.0 / L, 0.0
    m[1] = K / J, -B / J, 0.0, 0.0, 0.0
    m[3, 4], m[4, 3] = omega, -omega
    return np.array([(expm(m * t) @ [0.0, 0.0, 1.0, 0.0, 1.0])[:2] for t in t_eval])


def exact_pwl(times, values, t_eval):
    """(i, w) at t_eval for the motor from rest under pwl(times, values)."""
    state = np.zeros(4)                      # i, w, V, V' at the start of each piece
    out = np.empty((len(t_eval), 2))
    k = 0
    for j in range(len(times) - 1):
        slope = (values[j + 1] - values[j]) / (times[j + 1] - times[j])
        state[2:] = values[j], slope
        m = np.zeros((4, 4))
        m[0] = -R / L, -K / L, 1.0 / L, 0.0
        m[1] = K / J, -B / J, 0.0, 0.0
        m[2, 3] = 1.0
        while k < len(t_eval) and t_eval[k] <= times[j + 1]:
            out[k] = (expm(m * (t_eval[k] - times[j])) @ state)[:2]
            k += 1
        state = expm(m * (times[j + 1] - times[j])) @ state
    return out


def residual(supply):
    def res(t, y, yp, r):
        r[0] = L * yp[0] - (supply(t) - R * y[0] - K * y[1])
        r[1] = J * yp[1] - (K * y[0] - B * y[1])
    return res


def run(supply, rtol, atol, corners=None, restart=False):
    """Accepted steps' (t, y) and wall time; IDA in one-step mode, optionally stopping at
    (tstop) or re-initialised at each corner."""
    start = time.perf_counter()
    ts, ys = [0.0], [np.zeros(2)]
    pieces = [(0.0, TSTOP)] if corners is None or not restart else list(zip(corners[:-1],
                                                                            corners[1:]))
    y = np.zeros(2)
    for t0, t1 in pieces:
        solver = IDA(residual(supply), rtol=rtol, atol=atol, max_num_steps=10 ** 6)
        yp = np.array([(supply(t0) - R * y[0] - K * y[1]) / L, (K * y[0] - B * y[1]) / J])
        solver.init_step(t0, y, yp)
        t = t0
        stops = iter([c for c in (corners if corners is not None else []) if c > t0])
        stop = next(stops, None)
        while t < t1 * (1 - 1e-15):
            step = solver.step(t1, method="onestep",
                               tstop=t1 if restart or stop is None else min(stop, t1))
            t, y = float(step.t), np.array(step.y, dtype=float).ravel()
            ts.append(t)
            ys.append(y)
            while stop is not None and stop <= t * (1 + 1e-15):
                stop = next(stops, None)
    return np.array(ts), np.array(ys), time.perf_counter() - start


def main(rtol=1e-6, atol=1e-9):
    print(f"IDA (SUNDIALS, scikit-sundae) at rtol {rtol:g}, atol {atol:g}\n")
    print("| drive | steps | wall | current error | speed error |")
    print("|---|---|---|---|---|")
    def pwl_exact(ts):
        return exact_pwl(CORNERS, SAMPLES, ts)

    cases = (("sine", sine, exact_sine, {}),
             ("pwl, stepped over", pwl, pwl_exact, {}),
             ("pwl, tstop at each corner", pwl, pwl_exact, dict(corners=CORNERS)),
             ("pwl, restart at each corner", pwl, pwl_exact,
              dict(corners=CORNERS, restart=True)))
    for label, supply, exact, how in cases:
        ts, ys, wall = run(supply, rtol, atol, **how)
        ref = exact(ts)
        err = np.max(np.abs(ys - ref), axis=0) / np.max(np.abs(ref), axis=0)
        print(f"| {label} | {len(ts) - 1} | {wall:.2f} s | {err[0]:.2e} | {err[1]:.2e} |",
              flush=True)


if __name__ == "__main__":
    main(*(float(a) for a in sys.argv[1:3]))
