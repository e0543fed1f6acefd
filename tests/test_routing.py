"""One routing rule: topology.path and netsim's routes are the same paths.

The rule (interconnect.topology.paths): least total latency in integer femtoseconds, then
fewest hops, then a fixed order of the equal-cost set (paths read from b back to a, nodes
ranked by (latency from a, position in g.nodes)). Before the rule lived in one place,
topology.path (networkx Dijkstra with an epsilon hop penalty) and netsim's router chose
different paths for 64 of the 240 GPU pairs of a 4x4 torus (code review, section 7).

Sources: E. W. Dijkstra, Numer. Math. 1 (1959) for the least-cost paths; RFC 2991/2992
for ECMP as a hash over the equal-cost set.
"""

import itertools

import networkx as nx
import numpy as np
import pytest

from interconnect import netsim as ns
from interconnect import topology as T

BUILDERS = {
    "ring8": lambda: T.ring(8),
    "pcie_tree": lambda: T.pcie_tree(),
    "dgx1": lambda: T.dgx1_hybrid_cube_mesh(),
    "dgx1_pcie": lambda: T.dgx1_hybrid_cube_mesh(with_pcie=True),
    "nvswitch": lambda: T.nvswitch(),
    "nvswitch_physical": lambda: T.nvswitch(physical=True),
    "torus4x4": lambda: T.torus((4, 4)),
    "torus2x2x2": lambda: T.torus((2, 2, 2)),
    "fat_tree4": lambda: T.fat_tree(4),
    "cluster": lambda: T.cluster(),
    "cluster_tor": lambda: T.cluster(rail_optimized=False),
}


def _pairs(g):
    ends = T.endpoints(g)
    return [(a, b) for a in ends for b in ends if a != b]


def _single_flow_route(g, a, b, routing="shortest", seed=0):
    return tuple(ns.simulate(g, [ns.Flow(a, b, 1.0)], routing=routing, seed=seed).paths[0])


@pytest.mark.parametrize("name", list(BUILDERS))
def test_path_is_netsims_single_flow_route_for_every_pair(name):
    g = BUILDERS[name]()
    pairs = _pairs(g)
    # one simulation per pair: the route of a flow alone
    for a, b in pairs:
        assert tuple(T.path(g, a, b)) == _single_flow_route(g, a, b), (name, a, b)
    # and the same routes when all the flows run together ("shortest" routes each pair alone)
    sim = ns.simulate(g, [ns.Flow(a, b, 1.0) for a, b in pairs])
    assert [tuple(p) for p in sim.paths] == [tuple(T.path(g, a, b)) for a, b in pairs]


@pytest.mark.parametrize("name", ["torus4x4", "torus2x2x2", "fat_tree4", "cluster_tor", "ring8"])
def test_ecmp_picks_from_the_same_ordered_equal_cost_set(name):
    g = BUILDERS[name]()
    pairs = _pairs(g)
    flows = [ns.Flow(a, b, 1.0) for a, b in pairs] * 4
    sim = ns.simulate(g, flows, routing="ecmp", seed=11)
    sets = {(a, b): [tuple(p) for p in T.all_shortest_paths(g, a, b)] for a, b in pairs}
    for f, p in zip(flows, sim.paths):
        assert tuple(p) in sets[f.src, f.dst]
    for (a, b), s in sets.items():
        assert s[0] == tuple(T.path(g, a, b))
        assert len(set(s)) == len(s)
        lat = {round(T.path_latency(g, list(p)) * 1e15) for p in s}
        assert len(lat) == 1 and len({len(p) for p in s}) == 1
    # each set is exactly the least-(latency in fs, hops) paths, found by brute force
    fs = {(u, v): round(d["latency"] * 1e15) for u, v, d in g.edges(data=True)}
    fs.update({(v, u): w for (u, v), w in fs.items()})
    for a, b in pairs[::7]:
        hops = len(sets[a, b][0]) - 1
        cand = [tuple(q) for q in nx.all_simple_paths(g, a, b, cutoff=hops)]
        cost = {q: (sum(fs[e] for e in itertools.pairwise(q)), len(q) - 1) for q in cand}
        least = min(cost.values())
        assert {q for q in cand if cost[q] == least} == set(sets[a, b])


def _random_graph(seed, n=14, p=0.3):
    rng = np.random.default_rng(seed)
    while True:
        g = nx.gnp_random_graph(n, p, seed=int(rng.integers(1 << 30)))
        if nx.is_connected(g):
            break
    g = nx.relabel_nodes(g, {i: f"v{i}" for i in g})
    # few distinct latencies, so that equal-cost ties are common; 0.1 + 0.2 != 0.3 in floats
    lats = np.array([0.1, 0.2, 0.3, 0.6]) * 1e-6
    for u, v in g.edges:
        g.edges[u, v].update(latency=float(rng.choice(lats)), bandwidth=float(rng.choice([1e9, 5e9])), count=1)
    order = list(g.nodes)
    rng.shuffle(order)  # node order is the last tie-break: do not let it follow the names
    h = nx.Graph()
    h.add_nodes_from(order)
    h.add_edges_from(g.edges(data=True))
    return h


@pytest.mark.parametrize("seed", range(6))
def test_path_matches_netsim_and_is_least_cost_on_non_uniform_graphs(seed):
    g = _random_graph(seed)
    nodes = list(g.nodes)
    pairs = [(a, b) for a in nodes for b in nodes if a != b]
    sim = ns.simulate(g, [ns.Flow(a, b, 1.0) for a, b in pairs])
    fs = {(u, v): round(d["latency"] * 1e15) for u, v, d in g.edges(data=True)}
    fs.update({(v, u): w for (u, v), w in fs.items()})
    # least (latency in fs, hops) as one exact integer weight: latency * 1000 + 1 per hop
    for u, v in g.edges:
        g.edges[u, v]["key"] = fs[u, v] * 1000 + 1
    for (a, b), p in zip(pairs, sim.paths):
        mine = T.path(g, a, b)
        assert tuple(mine) == tuple(p)
        cost = sum(fs[e] for e in itertools.pairwise(mine)) * 1000 + len(mine) - 1
        assert cost == nx.shortest_path_length(g, a, b, weight="key")


def test_float_rounding_ties_and_the_documented_order():
    # a-x-b: 0.1 us + 0.2 us; a-y-b: 0.3 us. In floats 0.1e-6 + 0.2e-6 > 0.3e-6, in fs they tie.
    for order in (["a", "y", "x", "b"], ["a", "x", "y", "b"]):
        g = nx.Graph()
        g.add_nodes_from(order)
        g.add_edge("a", "x", latency=0.1e-6, bandwidth=1e9)
        g.add_edge("x", "b", latency=0.2e-6, bandwidth=1e9)
        g.add_edge("a", "y", latency=0.3e-6, bandwidth=1e9)
        g.add_edge("y", "b", latency=0.0, bandwidth=1e9)
        # equal cost: the predecessor of b nearer to a (x, 0.1 us from a) comes first
        assert T.path(g, "a", "b") == ["a", "x", "b"]
        assert list(T.all_shortest_paths(g, "a", "b")) == [["a", "x", "b"], ["a", "y", "b"]]
        assert _single_flow_route(g, "a", "b") == ("a", "x", "b")
    # a symmetric diamond: the earlier node of g.nodes comes first
    for order, first in ((["a", "y", "x", "b"], "y"), (["a", "x", "y", "b"], "x")):
        g = nx.Graph()
        g.add_nodes_from(order)
        for u, v in (("a", "x"), ("x", "b"), ("a", "y"), ("y", "b")):
            g.add_edge(u, v, latency=1e-6, bandwidth=1e9)
        assert T.path(g, "a", "b") == ["a", first, "b"]
        assert _single_flow_route(g, "a", "b") == ("a", first, "b")


def test_transit_and_weight_options():
    g = T.dgx1_hybrid_cube_mesh(with_pcie=True)
    ok = {"pcie_switch", "cpu"}
    for b in T.gpus(g)[1:]:
        p = T.path(g, "gpu0", b, transit=tuple(ok))
        assert all(g.nodes[n]["kind"] in ok for n in p[1:-1])
        assert p == next(T.all_shortest_paths(g, "gpu0", b, transit=tuple(ok)))
        # the same route as netsim on the graph of the allowed nodes
        h = g.subgraph([n for n in g if n in ("gpu0", b) or g.nodes[n]["kind"] in ok]).copy()
        assert tuple(p) == _single_flow_route(h, "gpu0", b)
        hops = T.path(g, "gpu0", b, weight="hops")
        assert hops == T.path(g, "gpu0", b, weight=None)
        assert len(hops) - 1 == nx.shortest_path_length(g, "gpu0", b)
    with pytest.raises(ValueError, match="not an attribute of every edge"):
        T.path(g, "gpu0", "gpu1", weight="colour")
    with pytest.raises(ValueError, match="no path"):
        T.path(T.dgx1_hybrid_cube_mesh(), "gpu0", "gpu5", transit=("cpu",))
    bad = nx.path_graph(["a", "b", "c"])
    nx.set_edge_attributes(bad, -1.0, "latency")
    with pytest.raises(ValueError, match="finite numbers >= 0"):
        T.path(bad, "a", "c")


@pytest.mark.parametrize("name", [*BUILDERS, "random0", "random1", "random2", "zero_latency"])
def test_compiled_dijkstra_gives_the_python_dijkstras_paths_in_the_same_order(name):
    # netsim routes with scipy's compiled Dijkstra (topology.paths._shortest_paths_many);
    # ShortestPaths, the Python Dijkstra on (latency in fs, hops), is the reference: the same
    # equal-cost sets, in the same order, with the same counts, from every source
    from interconnect.netsim.routing import _Net
    from interconnect.topology.paths import ShortestPaths, _shortest_paths_many

    if name.startswith("random"):
        g = _random_graph(int(name[-1]) + 100, n=18, p=0.25)
    elif name == "zero_latency":  # every path ties on latency: hops, then the node order decide
        g = T.torus((3, 4))
        nx.set_edge_attributes(g, 0.0, "latency")
    else:
        g = BUILDERS[name]()
    net = _Net(g)
    n = len(net.nodes)
    fast = _shortest_paths_many(n, net.res_u, net.res_v, net.lat_fs, np.arange(net.res_u.size), range(n))
    lazy = _shortest_paths_many(n, net.res_u, net.res_v, net.lat_fs, np.arange(net.res_u.size), range(n),
                                few=range(n))  # each node's predecessors when first needed
    assert fast is not None and lazy is not None
    for s in range(n):
        ref = ShortestPaths(net.adj, s)
        for t in range(n):
            assert lazy[s].reaches(t) == ref.reaches(t)
            if t != s and ref.reaches(t):
                assert lazy[s].count(t) == ref.count(t)
                assert [lazy[s].nth(t, i) for i in range(min(ref.count(t), 6))] == \
                    [ref.nth(t, i) for i in range(min(ref.count(t), 6))], (name, s, t)
            assert fast[s].reaches(t) == ref.reaches(t)
            if t == s or not ref.reaches(t):
                continue
            assert fast[s].count(t) == ref.count(t), (name, s, t)
            for i in range(min(ref.count(t), 6)):
                assert fast[s].nth(t, i) == ref.nth(t, i), (name, s, t, i)


def test_compiled_dijkstra_falls_back_where_float64_is_not_exact():
    from interconnect.topology.paths import _shortest_paths_many

    # one edge of 2**52 fs (4.5 s) makes the cost inexact in float64: the caller must use Python
    assert _shortest_paths_many(3, [0, 1], [1, 2], [2**52, 1], [0, 1], [0]) is None
    assert _shortest_paths_many(3, [0, 1], [1, 2], [10, 1], [0, 1], [0])[0].nth(2) == ([0, 1, 2], [0, 1])
    # a slow link still routes (by the Python Dijkstra), as before
    g = nx.Graph()
    g.add_edge("a", "b", bandwidth=1e9, latency=10.0)
    g.add_edge("b", "c", bandwidth=1e9, latency=1e-6)
    g.add_edge("a", "c", bandwidth=1e9, latency=20.0)
    assert _single_flow_route(g, "a", "c") == ("a", "b", "c") == tuple(T.path(g, "a", "c"))
