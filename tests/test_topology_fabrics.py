"""Tests for interconnect.topology.other_fabrics (the xGMI full mesh, Gaudi box, TPU slices,
dragonfly) and the wrap-around option of topology.torus.

Expected values are closed forms:

* Full mesh K_n: n(n-1)/2 edges; a balanced cut crosses (n/2)^2 links (n even); one
  shortest path per pair. MI300X: 7 links x 64 GB/s = 448 GB/s per direction (catalog.fabrics,
  AMD data sheet).
* Walecki (Lucas 1892): K_n splits into floor((n-1)/2) edge-disjoint Hamiltonian cycles.
* k-ary n-cube (Dally and Towles 2004, ch. 5): N n edges for k > 2 with wrap-around, N n (k-1)/k
  without; bisection 2 N / k links with wrap-around (k even), N / k without; shortest paths
  between offsets (a, b) on a mesh: C(a+b, a), on a torus with a = k/2 twice as many per such
  dimension.
* Dragonfly (Kim et al. 2008): g a(a-1)/2 local, g(g-1)/2 x (a h)/(g-1) global, g a p host links;
  splitting the groups in halves cuts (g/2)^2 global links when there is one per pair.
* Ring AllReduce (Patarasuk and Yuan 2009): 2(p-1)(alpha + n/(p B)); on the full mesh the
  simulation (netsim) gives exactly that on one link, and 2k rings on k edge-disjoint cycles
  give it with B = 2k x 64 GB/s.
"""

import itertools
import math

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import collectives as C
from interconnect import netsim
from interconnect import topology as T
from interconnect.catalog.fabrics import get_fabric

GB = 1e9

BUILDERS = [
    lambda: T.xgmi_mesh(), lambda: T.full_mesh(5, bandwidth=1e9, links_per_pair=2), lambda: T.gaudi_node(2),
    lambda: T.gaudi_node(3, scale_out=True), lambda: T.tpu_slice((4, 4, 4)), lambda: T.tpu_slice((2, 2, 1)),
    lambda: T.tpu_slice((4, 4, 8), wrap=False), lambda: T.torus((4, 4), wrap=(True, False)),
    lambda: T.dragonfly(), lambda: T.dragonfly(groups=4, routers=3, hosts=1, global_links=2),
]


@pytest.mark.parametrize("build", BUILDERS)
def test_every_builder_follows_the_graph_contract(build):
    # the contract of interconnect.topology: kinds, GPU index, pos, edge attributes
    g = build()
    assert isinstance(g, nx.Graph) and not g.is_multigraph() and g.graph["name"] and g.graph["builder"]
    for n, d in g.nodes(data=True):
        assert d["kind"] in T.KINDS and "pos" in d and isinstance(d["index"], int), n
    for *_, d in g.edges(data=True):
        assert {"bandwidth", "latency", "link", "count"} <= set(d)
        assert d["bandwidth"] > 0 and d["latency"] >= 0 and d["count"] >= 1 and isinstance(d["link"], str)
    assert nx.is_connected(g)
    assert T.endpoints(g)


def test_bad_input_names_the_parameter():
    with pytest.raises(ValueError, match="n="):
        T.full_mesh(1)
    with pytest.raises(ValueError, match="links_per_pair"):
        T.full_mesh(4, links_per_pair=0)
    with pytest.raises(ValueError, match="dims"):
        T.tpu_slice((4, 4))
    with pytest.raises(ValueError, match="order"):
        T.torus_ring(T.torus((4, 4)), order=(0, 0))
    with pytest.raises(ValueError, match="no closed snake"):
        T.torus_ring(T.torus((3, 4)))
    with pytest.raises(ValueError, match="torus"):
        T.torus_ring(T.ring(4))
    with pytest.raises(ValueError, match="groups"):
        T.dragonfly(groups=1)


@pytest.mark.parametrize("dims, order", [((4, 4, 4), (0, 1, 2)), ((4, 4, 4), (2, 0, 1)), ((4, 6), (0, 1)),
                                         ((2, 4, 3), (0, 1, 2)), ((4, 4, 8), (1, 2, 0))])
def test_torus_ring_visits_every_gpu_over_single_links(dims, order):
    g = T.torus(dims)
    r = T.torus_ring(g, order)
    assert sorted(r) == sorted(g.nodes)
    assert all(g.has_edge(a, b) for a, b in zip(r, r[1:] + r[:1]))


def test_ring_on_a_torus_snake_is_the_closed_form():
    g = T.tpu_slice((4, 4, 4))
    r = T.torus_ring(g)
    n, link = 2.0 ** 28, get_fabric("tpu-v5p-ici").bandwidth / 6
    sim = netsim.simulate_collective(g, "allreduce", n, ranks=r)
    assert sim.time == pytest.approx(C.collective_time("allreduce", n, 64, link, T.ASSUMED_LATENCY), rel=1e-9)


# ----------------------------------------------------------------- full mesh (xGMI)
def test_xgmi_mesh_links_and_bandwidths_from_the_catalog():
    g = T.xgmi_mesh()
    per_gpu, link = get_fabric("xgmi-mi300x"), get_fabric("xgmi-mi300x-link")
    assert g.number_of_nodes() == 8 and g.number_of_edges() == 8 * 7 // 2
    for gpu in T.gpus(g):
        assert g.degree(gpu) == per_gpu.links == 7
        assert sum(d["bandwidth"] for *_, d in g.edges(gpu, data=True)) == pytest.approx(per_gpu.bandwidth)
    assert all(d["bandwidth"] == link.per_link_bandwidth == 64 * GB for *_, d in g.edges(data=True))
    assert all(d["link"] == "xgmi-mi300x-link" for *_, d in g.edges(data=True))


@pytest.mark.parametrize("n", [2, 4, 6, 8])
def test_full_mesh_bisection_is_n_squared_over_4_links(n):
    g = T.full_mesh(n, bandwidth=1.0)
    assert T.bisection_bandwidth(g) == pytest.approx((n // 2) ** 2)


def test_full_mesh_one_path_per_pair_and_path_bandwidth_one_link():
    g = T.xgmi_mesh()
    for a, b in itertools.combinations(T.gpus(g), 2):
        assert T.ecmp_count(g, a, b) == 1
    assert T.path_bandwidth(g, "gpu0", "gpu7") == 64 * GB


@given(st.integers(3, 40))
@settings(max_examples=25, deadline=None)
def test_mesh_rings_are_edge_disjoint_hamiltonian_cycles(n):
    rings = T.mesh_rings(n)
    assert len(rings) == (n - 1) // 2
    seen = set()
    for r in rings:
        assert sorted(r) == sorted(f"gpu{i}" for i in range(n))
        for a, b in zip(r, r[1:] + r[:1]):
            e = frozenset((a, b))
            assert e not in seen
            seen.add(e)
    # n odd: every edge of K_n is used; n even: a perfect matching is left over
    assert len(seen) == n * (n - 1) // 2 - (0 if n % 2 else n // 2)


def test_ring_allreduce_on_the_mesh_is_the_closed_form():
    g = T.xgmi_mesh()
    n, alpha, p = 2.0 ** 30, T.ASSUMED_LATENCY, 8
    sim = netsim.simulate_collective(g, "allreduce", n)
    closed = 2 * (p - 1) * (alpha + n / (p * 64 * GB))
    assert sim.time == pytest.approx(closed, rel=1e-9)
    assert sim.time == pytest.approx(C.collective_time("allreduce", n, p, 64 * GB, alpha), rel=1e-9)


def test_six_rings_on_the_mesh_use_six_of_seven_links():
    g = T.xgmi_mesh()
    rings = T.mesh_rings(8)
    both = rings + [r[::-1] for r in rings]
    n, alpha = 2.0 ** 30, T.ASSUMED_LATENCY
    sim = netsim.simulate_rings(g, n, both)
    assert sim.time == pytest.approx(C.collective_time("allreduce", n, 8, 6 * 64 * GB, alpha), rel=1e-9)
    # every link that a ring uses carries the same bytes in each direction; the leftover matching none
    used = {frozenset(e) for r in rings for e in zip(r, r[1:] + r[:1])}
    assert len(used) == 24 and g.number_of_edges() - len(used) == 4


def test_alltoall_on_the_mesh_uses_all_seven_links_at_once():
    g = T.xgmi_mesh()
    n, alpha = 2.0 ** 30, T.ASSUMED_LATENCY
    sim = netsim.simulate_collective(g, "alltoall", n, algorithm="all_at_once")
    assert sim.time == pytest.approx(alpha + n / 8 / (64 * GB), rel=1e-9)
    # the same bandwidth term as the one-port model at the 7-link sum (448 GB/s)
    t = C.collective_time("alltoall", n, 8, get_fabric("xgmi-mi300x").bandwidth, 0.0, "pairwise")
    assert sim.time - alpha == pytest.approx(t, rel=1e-9)


# ----------------------------------------------------------------- Gaudi
@pytest.mark.parametrize("gen, port", [(2, 12.5), (3, 25.0)])
def test_gaudi_node_ports(gen, port):
    g = T.gaudi_node(gen)
    up = get_fabric(f"gaudi{gen}-scale-up")
    assert g.number_of_edges() == 28
    for gpu in T.gpus(g):
        assert sum(d["count"] for *_, d in g.edges(gpu, data=True)) == 21
        assert sum(d["bandwidth"] for *_, d in g.edges(gpu, data=True)) == pytest.approx(up.bandwidth)
    assert g.edges["gpu0", "gpu3"]["bandwidth"] == pytest.approx(3 * port * GB)
    h = T.gaudi_node(gen, scale_out=True)
    assert sum(d["count"] for *_, d in h.edges("gpu0", data=True)) == 24
    assert h.edges["gpu0", "leaf0"]["bandwidth"] == pytest.approx(get_fabric(f"gaudi{gen}-scale-out").bandwidth)
    with pytest.raises(ValueError, match="generation=4"):
        T.gaudi_node(4)


def test_gaudi_bisection_and_ring():
    g = T.gaudi_node(3)
    assert T.bisection_bandwidth(g) == pytest.approx(16 * 75 * GB)
    n = 2.0 ** 28
    sim = netsim.simulate_collective(g, "allreduce", n)
    assert sim.time == pytest.approx(C.collective_time("allreduce", n, 8, 75 * GB, T.ASSUMED_LATENCY), rel=1e-9)


# ----------------------------------------------------------------- tori and meshes
def _edges_closed_form(dims, wraps):
    total = math.prod(dims)
    return sum(total // k * (k if (w and k > 2) else k - 1) for k, w in zip(dims, wraps))


@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.data())
@settings(max_examples=40, deadline=None)
def test_torus_edge_count_with_and_without_wrap(dims, data):
    if math.prod(dims) < 2:
        return
    wraps = tuple(data.draw(st.lists(st.booleans(), min_size=len(dims), max_size=len(dims))))
    g = T.torus(dims, link=None, bandwidth=1.0, latency=1e-6, wrap=wraps)
    assert g.number_of_edges() == _edges_closed_form(dims, wraps)
    assert nx.is_connected(g)


def test_torus_default_is_unchanged():
    g = T.torus((4, 4))
    assert "wrap" not in g.graph and g.graph["name"].startswith("4x4 torus")
    assert nx.utils.graphs_equal(g, T.torus((4, 4), wrap=True))
    assert T.torus((4, 4), wrap=False).graph["wrap"] == (False, False)
    with pytest.raises(ValueError, match="wrap"):
        T.torus((4, 4), wrap=(True,))


@pytest.mark.parametrize("dims, wrap, links", [
    ((4, 4), True, 8), ((4, 4), False, 4), ((8, 8), True, 16), ((4, 4, 4), True, 32),
    ((4, 4, 4), False, 16), ((4, 8), True, 8), ((4, 4, 8), True, 32),
])
def test_torus_bisection_closed_form(dims, wrap, links):
    # cut across the longest even dimension: 2 N / k links with wrap-around, N / k without
    g = T.torus(dims, link=None, bandwidth=1.0, latency=1e-6, wrap=wrap)
    k = max(dims)
    assert links == (2 if wrap else 1) * math.prod(dims) // k
    assert T.bisection_bandwidth(g) == pytest.approx(links)


def test_torus_and_mesh_ecmp_counts():
    # 4x4 torus, offset (2, 2): C(4, 2) orders x 2 ways round in each dimension = 24
    assert T.ecmp_count(T.torus((4, 4)), "gpu0", "gpu10") == math.comb(4, 2) * 2 * 2
    # 4x4 mesh corner to corner: C(6, 3) = 20
    assert T.ecmp_count(T.torus((4, 4), wrap=False), "gpu0", "gpu15") == math.comb(6, 3)
    # 4x4x4 torus, offset (2, 2, 2): 6! / (2! 2! 2!) x 2^3
    assert T.ecmp_count(T.torus((4, 4, 4)), "gpu0", "gpu42") == 90 * 8


def test_tpu_slice_rules():
    v5p = get_fabric("tpu-v5p-ici")
    g = T.tpu_slice((4, 4, 8))
    assert g.graph["ocs"] and g.graph["cubes"] == 2 and g.graph["per_link_derived"]
    assert g.number_of_edges() == 128 * 3
    assert all(d["bandwidth"] == pytest.approx(v5p.bandwidth / 6) for *_, d in g.edges(data=True))
    assert T.bisection_bandwidth(g) == pytest.approx(2 * 16 * v5p.bandwidth / 6)
    small = T.tpu_slice((2, 2, 1))
    assert not small.graph["ocs"] and small.graph["wrap"] == (False, False, False)
    assert small.number_of_edges() == 4
    assert T.tpu_slice((4, 4, 4), bandwidth=50 * GB).graph["per_link_derived"] is False
    with pytest.raises(ValueError, match="dims"):
        T.tpu_slice((4, 6, 4))
    with pytest.raises(ValueError, match="no published"):
        T.tpu_slice((4, 4, 4), fabric="tpu-v4-ici")


def test_wraparound_halves_the_ring_distance():
    # OCS wrap-around: the farthest chip of a 4x4x4 slice is 2+2+2 hops away, not 3+3+3
    assert nx.diameter(T.tpu_slice((4, 4, 4))) == 6
    assert nx.diameter(T.tpu_slice((4, 4, 4), wrap=False)) == 9


# ----------------------------------------------------------------- dragonfly
@pytest.mark.parametrize("g_, a, p, h", [(9, 4, 2, 2), (5, 2, 1, 2), (4, 3, 1, 1), (3, 4, 2, 1)])
def test_dragonfly_link_counts(g_, a, p, h):
    g = T.dragonfly(groups=g_, routers=a, hosts=p, global_links=h)
    tiers = {"host": 0, "local": 0, "global": 0}
    for *_, d in g.edges(data=True):
        tiers[d["tier"]] += d["count"]
    assert tiers == {"host": g_ * a * p, "local": g_ * a * (a - 1) // 2,
                     "global": g_ * (g_ - 1) // 2 * (a * h) // (g_ - 1)}
    for gi in range(g_):
        for r in range(a):
            glob = sum(d["count"] for *_, d in g.edges(f"g{gi}.r{r}", data=True) if d["tier"] == "global")
            assert glob == h


def test_dragonfly_bisection_and_paths():
    g = T.dragonfly(groups=4, routers=3, hosts=1, global_links=1, link=None, bandwidth=1.0, latency=1e-6)
    assert T.bisection_bandwidth(g, method="exact") == pytest.approx((4 // 2) ** 2)
    # minimal routes: within a router 1 path; between groups at most local-global-local
    assert T.ecmp_count(g, "h0", "h1") == 1
    assert all(len(T.path(g, "h0", f"h{j}")) <= 6 for j in range(1, 12))


def test_dragonfly_rejects_uneven_global_links():
    with pytest.raises(ValueError, match="multiple of groups - 1"):
        T.dragonfly(groups=10, routers=4, hosts=2, global_links=2)
