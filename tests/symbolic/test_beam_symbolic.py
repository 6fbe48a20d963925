"""The 12-DOF beam element's matrices derived with sympy (circuitsim/symbolic/
beam_matrices.py) against the textbook matrices written out here (Przemieniecki,
Theory of Matrix Structural Analysis, §5.6 and §11.4: stiffness, consistent mass with
rotary inertia), and the numeric element of circuitsim/elements/beam.py at rest against
both: its stiffness (the Jacobian of its forces) and, with mass=consistent, its mass."""
import numpy as np
import pytest

sp = pytest.importorskip("sympy")

from circuitsim.elements.declarations import ElementInstance  # noqa: E402
from circuitsim.elements.beam import Beam  # noqa: E402
from circuitsim.elements.frames import NV  # noqa: E402
from circuitsim.symbolic.beam_matrices import element_matrices  # noqa: E402

# q = (u1, v1, w1, θx1, θy1, θz1, u2, v2, w2, θx2, θy2, θz2)


def textbook_stiffness(l, EA, GJ, EIy, EIz):
    a, t = EA / l, GJ / l
    y1, y2, y3, y4 = 12 * EIy / l**3, 6 * EIy / l**2, 4 * EIy / l, 2 * EIy / l
    z1, z2, z3, z4 = 12 * EIz / l**3, 6 * EIz / l**2, 4 * EIz / l, 2 * EIz / l
    return sp.Matrix([
        [a, 0, 0, 0, 0, 0, -a, 0, 0, 0, 0, 0],
        [0, z1, 0, 0, 0, z2, 0, -z1, 0, 0, 0, z2],
        [0, 0, y1, 0, -y2, 0, 0, 0, -y1, 0, -y2, 0],
        [0, 0, 0, t, 0, 0, 0, 0, 0, -t, 0, 0],
        [0, 0, -y2, 0, y3, 0, 0, 0, y2, 0, y4, 0],
        [0, z2, 0, 0, 0, z3, 0, -z2, 0, 0, 0, z4],
        [-a, 0, 0, 0, 0, 0, a, 0, 0, 0, 0, 0],
        [0, -z1, 0, 0, 0, -z2, 0, z1, 0, 0, 0, -z2],
        [0, 0, -y1, 0, y2, 0, 0, 0, y1, 0, y2, 0],
        [0, 0, 0, -t, 0, 0, 0, 0, 0, t, 0, 0],
        [0, 0, -y2, 0, y4, 0, 0, 0, y2, 0, y3, 0],
        [0, z2, 0, 0, 0, z4, 0, -z2, 0, 0, 0, z3]])


def textbook_mass(l, rhoA, rhoJ, rhoIy, rhoIz):
    L = l
    translation = rhoA * l / 420 * sp.Matrix([
        [140, 0, 0, 0, 0, 0, 70, 0, 0, 0, 0, 0],
        [0, 156, 0, 0, 0, 22 * L, 0, 54, 0, 0, 0, -13 * L],
        [0, 0, 156, 0, -22 * L, 0, 0, 0, 54, 0, 13 * L, 0],
        [0] * 12,
        [0, 0, -22 * L, 0, 4 * L**2, 0, 0, 0, -13 * L, 0, -3 * L**2, 0],
        [0, 22 * L, 0, 0, 0, 4 * L**2, 0, 13 * L, 0, 0, 0, -3 * L**2],
        [70, 0, 0, 0, 0, 0, 140, 0, 0, 0, 0, 0],
        [0, 54, 0, 0, 0, 13 * L, 0, 156, 0, 0, 0, -22 * L],
        [0, 0, 54, 0, -13 * L, 0, 0, 0, 156, 0, 22 * L, 0],
        [0] * 12,
        [0, 0, 13 * L, 0, -3 * L**2, 0, 0, 0, 22 * L, 0, 4 * L**2, 0],
        [0, -13 * L, 0, 0, 0, -3 * L**2, 0, -22 * L, 0, 0, 0, 4 * L**2]])
    torsion = sp.zeros(12, 12)
    torsion[3, 3] = torsion[9, 9] = rhoJ * l / 3
    torsion[3, 9] = torsion[9, 3] = rhoJ * l / 6
    y, z = rhoIy / (30 * L), rhoIz / (30 * L)
    rotary = sp.Matrix([
        [0] * 12,
        [0, 36 * z, 0, 0, 0, 3 * L * z, 0, -36 * z, 0, 0, 0, 3 * L * z],
        [0, 0, 36 * y, 0, -3 * L * y, 0, 0, 0, -36 * y, 0, -3 * L * y, 0],
        [0] * 12,
        [0, 0, -3 * L * y, 0, 4 * L**2 * y, 0, 0, 0, 3 * L * y, 0, -L**2 * y, 0],
        [0, 3 * L * z, 0, 0, 0, 4 * L**2 * z, 0, -3 * L * z, 0, 0, 0, -L**2 * z],
        [0] * 12,
        [0, -36 * z, 0, 0, 0, -3 * L * z, 0, 36 * z, 0, 0, 0, -3 * L * z],
        [0, 0, -36 * y, 0, 3 * L * y, 0, 0, 0, 36 * y, 0, 3 * L * y, 0],
        [0] * 12,
        [0, 0, -3 * L * y, 0, -L**2 * y, 0, 0, 0, 3 * L * y, 0, 4 * L**2 * y, 0],
        [0, 3 * L * z, 0, 0, 0, -L**2 * z, 0, -3 * L * z, 0, 0, 0, 4 * L**2 * z]])
    return translation + torsion + rotary


@pytest.fixture(scope="module")
def derived():
    return element_matrices()


def test_derived_matrices_are_the_textbook_ones_entry_by_entry(derived):
    K, M, (l, EA, GJ, EIy, EIz, rhoA, rhoJ, rhoIy, rhoIz) = derived
    K_book = textbook_stiffness(l, EA, GJ, EIy, EIz)
    M_book = textbook_mass(l, rhoA, rhoJ, rhoIy, rhoIz)
    for i in range(12):
        for j in range(12):
            assert sp.simplify(K[i, j] - K_book[i, j]) == 0, (i, j)
            assert sp.simplify(M[i, j] - M_book[i, j]) == 0, (i, j)


VALUES = dict(l=0.7, EA=3.0, GJ=5.0, EIy=7.0, EIz=11.0, rhoA=2.0, rhoJ=0.3, rhoIy=0.13,
              rhoIz=0.17)
# the 12 degrees of freedom among the element's 26 local variables: positions r and,
# for the rotations, the quaternion's vector part (φ = 2·q_v at rest); rows V and W
DOF_VARS = [6, 7, 8, 10, 11, 12, NV + 6, NV + 7, NV + 8, NV + 10, NV + 11, NV + 12]
ROWS = [0, 1, 2, 3, 4, 5, NV, NV + 1, NV + 2, NV + 3, NV + 4, NV + 5]


def _element_at_rest(mass):
    v = VALUES
    params = dict(EA=v["EA"], GJ=v["GJ"], EIy=v["EIy"], EIz=v["EIz"], eta=0.0,
                  x1=np.zeros(3), x2=np.zeros(3), rho1=np.eye(3), rho2=np.eye(3),
                  l0=v["l"], mass=mass, rhoA=v["rhoA"], rhoJ=v["rhoJ"], rhoIy=v["rhoIy"],
                  rhoIz=v["rhoIz"], stiffening="on", rref=np.array([1.0, 0.0, 0.0]))
    inst = ElementInstance(Beam, "E", ["a", "b"], params, None, {}, [None, None])
    p = Beam.prepare([inst])
    x = np.zeros((1, 2 * NV))
    x[0, 9] = x[0, NV + 9] = 1.0                      # unit quaternions
    x[0, NV + 6] = v["l"]                             # frame 2 at (l, 0, 0)
    return Beam.jacobian(0.0, x, np.zeros_like(x), p)


def _numeric(matrix):
    subs = {sp.Symbol(k, positive=True): val for k, val in VALUES.items()}
    return np.array(matrix.subs(subs).evalf(), dtype=float)


def test_the_element_at_rest_has_the_derived_stiffness(derived):
    J, _ = _element_at_rest("lumped")
    K = J[0][np.ix_(ROWS, DOF_VARS)]
    K[:, [3, 4, 5, 9, 10, 11]] /= 2                    # ∂/∂φ = ½·∂/∂q_v
    np.testing.assert_allclose(K, _numeric(derived[0]), rtol=0, atol=1e-12 * 120)


def test_the_element_with_consistent_mass_has_the_derived_mass(derived):
    # the element adds M − (the lumped halves its end frames carry): Jp + lumped = M
    _, Jp = _element_at_rest("consistent")
    velocities = [0, 1, 2, 3, 4, 5, NV, NV + 1, NV + 2, NV + 3, NV + 4, NV + 5]
    v = VALUES
    half = np.array([v["rhoA"]] * 3 + [v["rhoJ"], v["rhoIy"], v["rhoIz"]]) * v["l"] / 2
    M = Jp[0][np.ix_(ROWS, velocities)] + np.diag(np.concatenate([half, half]))
    np.testing.assert_allclose(M, _numeric(derived[1]), rtol=0, atol=1e-14)
