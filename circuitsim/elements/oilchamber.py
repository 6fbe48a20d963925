"""oilchamber — a hydraulic chamber of aerated oil whose pressure cannot fall below a
vapour (cavitation) floor.

A native element, not a library macro: its capacitance V/beta_e(p) depends on the
pressure (the entrained air) and grows without bound at the floor, a nonlinear
capacitance written exactly through its own state, the volume taken in.

Ports
    p: hydraulic node, the chamber's gauge pressure (Pa).
Parameters
    V: chamber volume (m³, default 1e-4).
    beta: bulk modulus of the air-free oil (Pa, default 1.5e9).
    alpha: volume fraction of entrained (undissolved) air at atmospheric pressure
        (default 0.005; 0 = no air).
    nair: polytropic exponent of the air bubbles (default 1.4: fast, adiabatic; 1 for
        slow, isothermal changes).
    patm: atmospheric pressure (absolute, Pa, default 101325).
    pvap: absolute floor pressure (Pa, default 2000): vapour / cavitation pressure.
    pw: width of the floor's transition (Pa, default 100).
    ic: initial gauge pressure (Pa, default 0).
Internal variables
    Vs (differential): the oil volume taken in since t = 0 (m³), ∫ Q dt.
Equations
    Q = the volume flow into the chamber from node p; pa = p + patm (absolute).
    The mixture: a unit volume of oil + air at patm occupies at pa
        v(pa) = (1 − alpha)·exp(−(pa − patm)/beta) + alpha·(patm/pa)^(1/nair)
    (the oil at constant bulk modulus, the air polytropic), so the chamber's stored
    volume is ψ(pa) = ∫ dpa/beta_e = −ln v(pa), with the effective bulk modulus
        beta_e(pa) = −v/(dv/dpa) = v / [(1 − alpha)/beta·exp(−(pa − patm)/beta)
                                        + alpha/(nair·pa)·(patm/pa)^(1/nair)]
    (the Merritt / IFP form of an oil with entrained air: beta_e ≈ beta at high
    pressure, far lower near atmospheric).
    The floor adds a voided volume (a share of V)
        φ(pa) = 1/(exp(z) − 1),   z = (pa − pvap)/pw
    ≈ exp(−z) far above the floor (1e-13 at 30·pw), ≈ pw/(pa − pvap) near it and
    unbounded there: the chamber's capacitance grows without bound at pvap, so that
    draining it voids it while its absolute pressure stays above pvap (within pw once
    φ = 0.58, over half of V, is voided; about pvap + pw/φ beyond).
    (1) Q = dVs/dt                                          (row of p)
    (2) p − (pa(Vs) − patm) = 0, where pa(Vs) solves
    (3) V·(ψ(pa) − ψ(patm + ic)) = Vs,   ψ = −ln v − φ
    ψ rises monotonically from −∞ at pvap to +∞, so (3) has one root for every Vs; the
    element finds it itself (Newton in ln z, bracketed) to rounding, and gives the
    solver the explicit law (2) with dpa/dVs = 1/(V·dψ/dpa): the oil volume is exact
    (Vs is the integral of Q) and the solver's Newton never meets the floor's steep
    slope.
Sign convention
    p ──[V]── tank       Q > 0 into the chamber raises p (conventions.md §1).
Outputs
    O.Vs: the volume taken in (the internal variable); O.pabs: absolute pressure (Pa);
    O.betae: the effective bulk modulus 1/(dψ/dpa) (Pa, with the floor's term);
    O.void: the voided share φ of V; O.E: the stored energy (J), the work of the
    gauge pressure on the oil taken in, E = ∫ p dVs = V·∫ (q − patm)·dψ/dq dq from
    patm + ic to pa: the liquid and air part by 48-point Gauss-Legendre in ln q, the
    floor's part in closed form, −[(q − patm)·φ] + pw·[ln(1 − exp(−z))].
Example
    ``oilchamber O1 p V=0.2L alpha=0.01 pvap=3kPa``
"""
import numpy as np

from ..errors import ModelError
from .base import ElementType
from .declarations import Output, Param, Port, State

PATM = 101325.0
ITERS = 100          # the inner solve's cap (Newton in ln z, bisection where it leaves
#                      its bracket; 5..15 iterations from atmospheric pressure)
YTOL = 1e-14         # ... stopped once every ln z moved less than this
YLO, YHI = -60.0, 60.0   # the bracket of ln z: a void of e^60·V, a pressure of e^60·pw
# Gauss-Legendre nodes of the stored energy's quadrature in ln pa (its integrand is
# smooth there from the floor to the liquid's range: 1e-14 relative with 48 against
# adaptive quadrature, 2 kPa .. 300 bar)
GL_X, GL_W = np.polynomial.legendre.leggauss(48)


def psi(pa, p):
    """ψ(pa) = −ln v(pa) − φ(pa) of equation (2), dψ/dpa and φ (pa > pvap)."""
    # ln v as a log-sum of the liquid's and the air's shares (no underflow at high
    # pressure, alpha = 0 allowed); wl, wa: their shares of v
    with np.errstate(divide="ignore", over="ignore"):
        ll = np.log1p(-p.alpha) - (pa - p.patm) / p.beta
        la = np.log(p.alpha) + np.log(p.patm / pa) / p.nair
        lv = np.logaddexp(ll, la)
        wl, wa = np.exp(ll - lv), np.exp(la - lv)
        z = (pa - p.pvap) / p.pw
        phi = 1.0 / np.expm1(z)
        dphi = -0.25 / np.sinh(0.5 * z) ** 2 / p.pw
    return -lv - phi, wl / p.beta + wa / (p.nair * pa) - dphi, phi


def _mixture_slope(q, prm):
    """−d(ln v)/dq: the liquid's and the air's compliance per unit volume."""
    with np.errstate(divide="ignore", over="ignore"):
        ll = np.log1p(-prm["alpha"]) - (q - prm["patm"]) / prm["beta"]
        la = np.log(prm["alpha"]) + np.log(prm["patm"] / q) / prm["nair"]
        lv = np.logaddexp(ll, la)
        return np.exp(ll - lv) / prm["beta"] + np.exp(la - lv) / (prm["nair"] * q)


def pressure(s, p):
    """The absolute pressure pa with ψ(pa) = s (equation (3)) and dψ/dpa there, solved
    in y = ln z, z = (pa − pvap)/pw, bracketed, always from atmospheric pressure: pa is
    then a function of s alone (started from the node's value, its last bits would move
    with that value, noise the solver's Newton sees at atol 1e-12)."""
    lo = np.full_like(s, YLO); hi = np.full_like(s, YHI)
    y = np.log(np.clip((p.patm - p.pvap) / p.pw, np.exp(YLO + 1), np.exp(YHI - 1))
               + np.zeros_like(s))
    for _ in range(ITERS):
        z = np.exp(y)
        f, df, _ = psi(p.pvap + p.pw * z, p)
        r = f - s
        lo = np.where(r < 0, y, lo); hi = np.where(r > 0, y, hi)
        with np.errstate(all="ignore"):
            new = y - r / (df * p.pw * z)                 # dψ/dy = dψ/dpa · pw·z
        new = np.where((new > lo) & (new < hi), new, 0.5 * (lo + hi))   # nan too
        done = np.abs(new - y) < YTOL
        y = new
        if done.all():
            break
    pa = p.pvap + p.pw * np.exp(y)
    return pa, psi(pa, p)[1]


class OilChamber(ElementType):
    keyword = "oilchamber"
    description = "aerated oil chamber with a cavitation floor: Q = V·dψ(p)/dt"
    ports = (Port("p", ("hydraulic",), description="the chamber (gauge pressure)"),)
    params = (Param("V", "m^3", default=1e-4, description="chamber volume", positive=True),
              Param("beta", "Pa", default=1.5e9, description="bulk modulus of air-free oil",
                    positive=True),
              Param("alpha", "1", default=0.005, description="entrained air volume fraction "
                    "at patm", nonnegative=True),
              Param("nair", "1", default=1.4, description="polytropic exponent of the air",
                    positive=True),
              Param("patm", "Pa", default=PATM, description="atmospheric pressure (absolute)",
                    positive=True),
              Param("pvap", "Pa", default=2000.0, description="absolute floor (vapour) "
                    "pressure", nonnegative=True),
              Param("pw", "Pa", default=100.0, description="width of the floor's transition",
                    positive=True),
              Param("ic", "Pa", default=0.0, description="initial gauge pressure"))
    states = (State("Vs", "m^3", True, "oil volume taken in since t = 0"),)
    outputs = (Output("pabs", "Pa", "absolute pressure"),
               Output("betae", "Pa", "effective bulk modulus"),
               Output("void", "1", "voided share of V"),
               Output("E", "J", "stored energy ∫p dVs", kind="energy"))
    differential_vars = (1,)
    pattern = np.array([[0, 1], [1, 1]], dtype=bool)

    @classmethod
    def check(cls, inst):
        prm = inst.params
        if prm["alpha"] >= 1:
            raise ModelError(f"oilchamber {inst.name}: alpha ({prm['alpha']:g}) is the air's "
                             "share of the volume, below 1", inst.loc)
        if prm["ic"] + prm["patm"] <= prm["pvap"]:
            raise ModelError(f"oilchamber {inst.name}: the initial absolute pressure "
                             f"ic + patm ({prm['ic'] + prm['patm']:g} Pa) must lie above the "
                             f"floor pvap ({prm['pvap']:g} Pa)", inst.loc)

    @classmethod
    def initial_potentials(cls, inst):
        return [(0, float(inst.params["ic"]), None)]

    @classmethod
    def _law(cls, x, p):
        """pa(Vs) of (3) and dpa/dVs."""
        s0, _, _ = psi(p.ic + p.patm, p)
        pa, dpsi = pressure(x[..., 1] / p.V + s0, p)
        return pa, 1.0 / (p.V * dpsi)

    @classmethod
    def residual(cls, t, x, xp, p):
        pa, _ = cls._law(x, p)
        return np.stack([xp[:, 1],                                    # (1)
                         x[:, 0] - (pa - p.patm)], axis=1)            # (2)

    @classmethod
    def jacobian(cls, t, x, xp, p):
        n = x.shape[0]
        _, slope = cls._law(x, p)
        dfdx = np.zeros((n, 2, 2)); dfdxp = np.zeros((n, 2, 2))
        dfdxp[:, 0, 1] = 1.0
        dfdx[:, 1, 0] = 1.0
        dfdx[:, 1, 1] = -slope
        return dfdx, dfdxp

    @classmethod
    def compute_outputs(cls, t, x, xp, p):
        pa, _ = cls._law(x, p)
        _, ds, phi = psi(pa, p)
        return np.stack([pa, 1.0 / ds, phi, cls._energy(pa, p)], axis=-1)

    @classmethod
    def _energy(cls, pa, p):
        """E of the Outputs at the absolute pressures pa (any shape ending in N)."""
        pa0 = p.ic + p.patm
        lo, hi = np.log(pa0), np.log(pa)
        q = np.exp(lo + (hi - lo)[..., None] * (GL_X + 1.0) / 2.0)   # (..., N, K)
        prm = {k: getattr(p, k)[..., None] for k in ("alpha", "beta", "nair", "patm",
                                                     "pvap", "pw")}
        liquid_air = (q - prm["patm"]) * _mixture_slope(q, prm) * q @ GL_W * (hi - lo) / 2

        def floor(x):       # −(q − patm)·φ + pw·ln(1 − exp(−z))
            z = (x - p.pvap) / p.pw
            with np.errstate(over="ignore", divide="ignore"):
                return -(x - p.patm) / np.expm1(z) + p.pw * np.log(-np.expm1(-z))
        return p.V * (liquid_air + floor(pa) - floor(pa0))

    @classmethod
    def sample_params(cls, rng):
        # the sampled states (-1..1) span the floor, the air and the liquid's ranges
        return {"V": float(rng.uniform(0.5, 2.0)), "beta": 3.0, "alpha": 0.2, "nair": 1.3,
                "patm": 1.0, "pvap": 0.3, "pw": 0.05, "ic": 0.0}
