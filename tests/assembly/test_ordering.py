"""The elimination order along the joint tree (assembly/ordering.py) and its use by the
Newton solver (solver/newton.py EliminationOrder)."""
import sys

import numpy as np

import circuitsim
from helpers import NETLISTS, netlist_path

sys.path.insert(0, str(NETLISTS))
from chain import chain_netlist  # noqa: E402


def _blocks(system, order):
    """The element or body name of each unknown, in elimination order."""
    return [system.names[i].split(".")[0] for i in order]


def test_a_chain_is_numbered_leaf_first_body_then_its_joint():
    system = circuitsim.parse(chain_netlist(4, "position"), "<chain>").prepare().system
    order = system.elimination_order
    assert sorted(order) == list(range(system.n))
    names = _blocks(system, order)
    blocks = [n for i, n in enumerate(names) if i == 0 or n != names[i - 1]]
    assert blocks == ["B4", "J4", "B3", "J3", "B2", "J2", "B1", "J1"]


def test_a_closed_loop_puts_its_closing_joint_after_the_tree():
    """The four-bar: the tree from the ground is JA-crank-JB-coupler and JD-rocker; JC
    closes the loop and comes last, after every body and its tree joint (leaf first:
    the coupler, two joints from the ground, before the crank and the rocker)."""
    system = circuitsim.load(netlist_path("fourbar")).prepare().system
    order = system.elimination_order
    assert sorted(order) == list(range(system.n))
    names = _blocks(system, order)
    blocks = [n for i, n in enumerate(names) if i == 0 or n != names[i - 1]]
    assert blocks == ["coupler", "JB", "rocker", "JD", "crank", "JA", "JC"]


def test_a_circuit_without_bodies_has_no_tree_order():
    res = circuitsim.load(netlist_path("rlc")).simulate()
    assert "ordering" not in res.stats


def test_the_tree_order_gives_the_same_motion_as_the_general_one():
    """The order changes how the Newton matrix is factorised, not what is solved: the
    chain's tip agrees with a run in SuperLU's own order to well inside the tolerance."""
    net = circuitsim.parse(chain_netlist(8, "position", t_end=0.5), "<chain>")
    tree = net.prepare()
    general = net.prepare()
    general.system.elimination_order = None
    a, b = tree.run(), general.run()
    assert a.stats["ordering"] == "tree" and "ordering" not in b.stats
    assert np.max(np.abs(a["B8.z"] - b["B8.z"])) < 1e-6


def test_an_order_that_fills_in_is_replaced_by_the_general_one():
    """A chain's tridiagonal matrix with its unknowns shuffled: eliminated in the
    shuffled numbering it fills in, so that offered order loses to COLAMD at the first
    factorisation; the order that restores the chain is kept. Every solve, then and
    later, solves J x = b."""
    import scipy.sparse as sp
    from circuitsim.solver.newton import EliminationOrder
    n = 300
    chain = sp.diags([np.full(n - 1, -1.0), 3.0 + np.arange(n) / n, np.full(n - 1, -1.5)],
                     [-1, 0, 1], format="csc")
    shuffle = np.random.default_rng(7).permutation(n)
    J = chain[shuffle][:, shuffle].tocsc()
    b = np.linspace(1.0, 2.0, n)
    stats = {"nlu": 0}
    for offered, expected in ((np.arange(n), "general"), (np.argsort(shuffle), "tree")):
        ordering = EliminationOrder(offered)
        for _ in range(2):                               # the choice is made once, kept
            lu = ordering.factorise(J, stats)
            assert ordering.choice == expected and stats["ordering"] == expected
            assert np.allclose(J @ lu.solve(b), b, rtol=1e-12, atol=1e-12)
