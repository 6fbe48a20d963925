"""The graph helpers that stand in for networkx on the run path agree with networkx."""
import networkx as nx
import numpy as np
import pytest

from circuitsim.runtime.graphs import (biconnected_components, connected_components,
                                      forest_path, has_cycle)


@pytest.mark.parametrize("seed", range(20))
def test_components_cycles_and_paths_agree_with_networkx(seed):
    rng = np.random.default_rng(seed)
    nodes = [f"n{i}" for i in range(int(rng.integers(1, 12)))]
    edges = [tuple(rng.choice(nodes, 2)) for _ in range(int(rng.integers(0, 12)))]
    g = nx.Graph()
    g.add_nodes_from(nodes)
    g.add_edges_from(edges)
    assert connected_components(nodes, edges) == list(nx.connected_components(g))
    if not any(a == b for a, b in edges) and len(set(map(frozenset, edges))) == len(
            set(edges)):
        assert has_cycle(edges) == (len(nx.cycle_basis(g)) > 0)
    forest = nx.minimum_spanning_tree(g)
    adjacency = {n: set(forest.neighbors(n)) for n in forest}
    for a in nodes:
        for b in nodes:
            if nx.has_path(forest, a, b):
                assert forest_path(adjacency, a, b) == nx.shortest_path(forest, a, b)


@pytest.mark.parametrize("seed", range(40))
def test_biconnected_blocks_agree_with_networkx_in_order(seed):
    """The mobility analysis's loop blocks: the same node sets in the same order (the
    report lists loops in it)."""
    rng = np.random.default_rng(seed)
    nodes = [f"n{i}" for i in range(int(rng.integers(2, 14)))]
    edges = [tuple(rng.choice(nodes, 2, replace=False)) for _ in range(int(rng.integers(1, 25)))]
    edges += [edges[0][::-1]]                     # a pair written both ways is one edge
    assert biconnected_components(edges) == list(nx.biconnected_components(nx.Graph(edges)))
