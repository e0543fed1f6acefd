"""Multi-node collectives in closed form (interconnect.collectives.hierarchical) against the
flow-level simulator (interconnect.netsim) on the same topology (interconnect.topology.cluster).

Tolerances
----------
* One chunk (k = 1): the phases run one after another in both, and on the cluster's
  uncontended rails and NVSwitch every transfer of the plan has its port to itself, so the
  simulator must reproduce the closed form to floating-point rounding (rel 1e-9).
* Several chunks: each ring phase runs one chunk at a time (as successive NCCL calls on one
  stream do), and the closed form is the pipeline of those phases: one chunk through every
  phase, then ``k - 1`` periods of the busiest resource, each period charged with all the
  bytes *and all the latencies* of that resource's phases for one chunk, and no overlap of the
  fill with anything. The simulator overlaps some of that (the AllGather of one chunk starts
  on a GPU while the ReduceScatter of the next is finishing elsewhere; the latencies of two
  phases sharing the NVLink port run side by side), so the closed form is an upper bound:
  over 1 MiB to 1 GiB, 2 to 8 nodes, 2 to 8 GPUs and 2 to 16 chunks it lies between the
  simulated time and 20 % above it (the worst seen, 16.5 %, when the NVLink and network
  phases take about equally long and their latencies matter). The parametrised tests below
  check a subset: 1 MiB and 256 MiB on 2 to 5 nodes of 2 to 8 GPUs.
* Double binary tree: exact for one chunk when ``N`` is a power of two (NCCL's tree then
  has two children at every level but the root's), within the same 0 to 20 % for several
  chunks; for other ``N`` the formula counts two children at every level and is an upper
  bound, up to 45 % high for one chunk at ``N = 3``.
* Multi-ring: the rings cross the spine where they wrap from the last node to the first on a
  different rail, which adds latency the closed form takes as the network's worst path; 2 %.
"""

import math

import networkx as nx
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import collectives as C
from interconnect import netsim, topology
from interconnect.collectives import hierarchical as H

PIPE_RTOL = 0.20


def _upper_bound(cf, sim):
    """The pipelined closed form is above the simulation by at most PIPE_RTOL."""
    assert sim * (1 - 1e-9) <= cf <= sim * (1 + PIPE_RTOL), (cf, sim, cf / sim)


def _machine(N, g):
    G = topology.cluster(N, g)
    ranks = topology.gpus(G)
    if g > 1:
        bi, ai = topology.path_bandwidth(G, ranks[0], ranks[1]), topology.path_latency(G, ranks[0], ranks[1])
    else:
        bi, ai = 1e30, 0.0
    if N > 1:
        be, ae = topology.path_bandwidth(G, ranks[0], ranks[g]), topology.path_latency(G, ranks[0], ranks[g])
    else:
        be, ae = 1e30, 0.0
    return G, ranks, (bi, ai, be, ae)


def _sim(G, ranks, plan, n):
    return netsim.simulate(G, plan.to_flows(n, ranks)).makespan


# ----------------------------------------------------------------------------- closed forms


def test_one_chunk_is_the_additive_formula():
    for N, g in ((1, 8), (4, 8), (16, 8), (3, 5)):
        a = (2**30, N, g, 450e9, 1e-6, 50e9, 5e-6)
        assert H.hierarchical_time("allreduce", *a, chunks=1) == pytest.approx(C.hierarchical_allreduce_time(*a),
                                                                                rel=1e-12)


def test_pipelined_tends_to_the_busiest_resource():
    n, N, g, bi, be = 2**34, 16, 8, 450e9, 50e9
    t = H.hierarchical_time("allreduce", n, N, g, bi, 0.0, be, 0.0, chunks=4096)
    intra = 2 * (g - 1) / g * n / bi
    inter = 2 * (N - 1) / N * n / g / be
    assert max(intra, inter) < t < max(intra, inter) * 1.01
    assert t < H.hierarchical_time("allreduce", n, N, g, bi, 0.0, be, 0.0, chunks=1) == pytest.approx(intra + inter)


def test_pipeline_time_by_hand():
    s = [H.Stage("rs", "intra", 2.0, 1.0, 0.5), H.Stage("ar", "inter", 5.0, 4.0, 1.0),
         H.Stage("ag", "intra", 2.0, 1.0, 0.25)]
    assert H.pipeline_time(s, 1) == 9.0
    assert H.pipeline_time(s, 3) == 9.0 + 2 * (4.0 + 1.0)
    s[1] = H.Stage("ar", "inter", 1.0, 0.5, 1.0)  # now the NVLink ports bind: 1 + 1 + the larger latency
    assert H.pipeline_time(s, 2) == 5.0 + 2.5


def test_multi_ring_uses_every_nic():
    n, N, g = 2**34, 64, 8
    t = H.multi_ring_time("allreduce", n, N, g, 450e9, 0.0, 50e9, 0.0)
    busbw = C.bus_bandwidth("allreduce", n / t, N * g)
    assert busbw == pytest.approx(g * 50e9, rel=1e-12)
    t1 = H.multi_ring_time("allreduce", n, N, g, 450e9, 0.0, 50e9, 0.0, rings=1)
    assert t1 == pytest.approx(g * t)  # one ring: one NIC per node
    # NVLink shared by 8 rings at 450/8 = 56 GB/s is still faster than the 50 GB/s NIC
    t_slow_nvl = H.multi_ring_time("allreduce", n, N, g, 300e9, 0.0, 50e9, 0.0)
    assert t_slow_nvl == pytest.approx(t * 50 / (300 / 8))


def test_double_binary_tree_matches_nccl_shape():
    # ncclGetBtree for 13 ranks (0..12), the illustration in trees.cc: 0 - 8, 8 - {4, 12}, 4 - {2, 6}, 12 - 10
    p0, p1 = H.double_binary_tree(13)
    assert p0 == [-1, 2, 4, 2, 8, 6, 4, 6, 0, 10, 12, 10, 8]
    # odd N: tree 1 is tree 0 shifted by one rank: root 1
    assert p1.index(-1) == 1 and p1[9] == 1
    # even N: mirrored, root N - 1; the odd ranks are leaves of tree 0 and inner nodes of tree 1
    p0, p1 = H.double_binary_tree(8)
    assert p1.index(-1) == 7
    inner0 = {u for u in p0 if u >= 0}
    inner1 = {u for u in p1 if u >= 0}
    assert not (inner0 & inner1 - {0, 7})
    for par in (p0, p1):  # each is a tree: every rank reaches the root
        T = nx.DiGraph([(r, u) for r, u in enumerate(par) if u >= 0])
        assert nx.is_arborescence(T.reverse())


def test_double_binary_tree_bandwidth_and_latency_terms():
    M, B = 1e9, 50e9
    for N in (4, 16, 64, 256):
        t = H.double_binary_tree_time(M, N, B, 0.0, chunks=4096)
        assert t == pytest.approx(2 * M / B, rel=0.02)  # W = 4: 2M/B, the ring's for large N
        lat = H.double_binary_tree_time(1.0, N, 1e30, 1e-6, chunks=1)
        assert lat == pytest.approx(2 * math.ceil(math.log2(N)) * 1e-6)  # 2 lg N latencies
    ring_lat = C.collective_time("allreduce", 1.0, 256, 1e30, 1e-6)
    assert ring_lat / H.double_binary_tree_time(1.0, 256, 1e30, 1e-6) == pytest.approx(510 / 16)


@given(N=st.integers(1, 40), g=st.integers(1, 8), logn=st.floats(10, 34), k=st.integers(1, 64),
       lat=st.floats(0, 1e-5))
@settings(max_examples=60, deadline=None)
def test_properties(N, g, logn, k, lat):
    n = 2.0**logn
    a = (n, N, g, 450e9, lat, 50e9, 2 * lat)
    for op in H.HIERARCHICAL_OPS:
        t1 = H.hierarchical_time(op, *a, chunks=1)
        tk = H.hierarchical_time(op, *a, chunks=k)
        ta = H.hierarchical_time(op, *a)
        assert ta <= min(t1, tk) * (1 + 1e-12)  # "auto" is the best k
        # never faster than the busiest resource's bytes
        st1 = H.hierarchical_phases(op, *a, chunks=1)
        for res in ("intra", "inter"):
            assert ta >= sum(s.period for s in st1 if s.resource == res) * (1 - 1e-12)
        # the additive time is the sum of the phases
        assert t1 == pytest.approx(sum(s.fill for s in st1), rel=1e-12)
    # multi-ring: more rings never slower while each ring still has its own NIC
    if g > 1:
        ts = [H.multi_ring_time("allreduce", *a, rings=r) for r in range(1, g + 1)]
        assert all(x >= y * (1 - 1e-12) for x, y in zip(ts, ts[1:])) or 450e9 / g < 50e9


def test_errors_name_the_parameter():
    a = (2**30, 4, 8, 450e9, 1e-6, 50e9, 5e-6)
    with pytest.raises(ValueError, match="op="):
        H.hierarchical_time("alltoall", *a)
    with pytest.raises(ValueError, match="chunks="):
        H.hierarchical_time("allreduce", *a, chunks=0)
    with pytest.raises(ValueError, match="chunks="):
        H.hierarchical_time("allreduce", *a, chunks="many")
    with pytest.raises(ValueError, match="inter_algorithm="):
        H.hierarchical_time("allgather", *a, inter_algorithm="double_binary_tree")
    with pytest.raises(ValueError, match="nodes="):
        H.hierarchical_time("allreduce", 1e9, 0, 8, 1e9, 0, 1e9, 0)
    with pytest.raises(ValueError, match="rings="):
        H.multi_ring_time("allreduce", *a, rings=9)
    with pytest.raises(ValueError, match="intra_bandwidth="):
        H.hierarchical_time("allreduce", 1e9, 2, 8, -1.0, 0, 1e9, 0)


# ----------------------------------------------------------------------------- against netsim


@pytest.mark.parametrize("N,g", [(2, 4), (4, 4), (4, 2), (3, 3), (5, 2)])
@pytest.mark.parametrize("op", H.HIERARCHICAL_OPS)
def test_hierarchical_one_chunk_equals_netsim(N, g, op):
    G, ranks, (bi, ai, be, ae) = _machine(N, g)
    n = 2**28
    sim = _sim(G, ranks, H.hierarchical_plan(op, N, g, 1), n)
    assert sim == pytest.approx(H.hierarchical_time(op, n, N, g, bi, ai, be, ae, chunks=1), rel=1e-9)


@pytest.mark.parametrize("N,g", [(2, 8), (4, 8), (4, 4), (4, 2), (3, 3), (5, 2)])
@pytest.mark.parametrize("op", H.HIERARCHICAL_OPS)
@pytest.mark.parametrize("k", [2, 4, 16])
def test_hierarchical_pipelined_against_netsim(N, g, op, k):
    G, ranks, (bi, ai, be, ae) = _machine(N, g)
    for n in (2**20, 2**28):
        sim = _sim(G, ranks, H.hierarchical_plan(op, N, g, k), n)
        cf = H.hierarchical_time(op, n, N, g, bi, ai, be, ae, chunks=k)
        _upper_bound(cf, sim)
        # and the pipeline beats the phases one after another in the simulator too
        if n == 2**28:
            assert sim < _sim(G, ranks, H.hierarchical_plan(op, N, g, 1), n)


@pytest.mark.parametrize("N,g", [(2, 8), (4, 4), (4, 2), (8, 2), (5, 2)])
@pytest.mark.parametrize("k", [1, 4, 16])
def test_double_binary_tree_against_netsim(N, g, k):
    G, ranks, (bi, ai, be, ae) = _machine(N, g)
    n = 2**28
    sim = _sim(G, ranks, H.hierarchical_plan("allreduce", N, g, k, "double_binary_tree"), n)
    cf = H.hierarchical_time("allreduce", n, N, g, bi, ai, be, ae, chunks=k, inter_algorithm="double_binary_tree")
    if N & (N - 1) == 0 and k == 1:
        assert cf == pytest.approx(sim, rel=1e-9)
    elif N & (N - 1) == 0:
        _upper_bound(cf, sim)
    else:  # the fill counts two children at every level: an upper bound when N is not a power of two
        assert 1 - PIPE_RTOL < cf / sim < 1.45


def test_double_binary_tree_plan_alone_against_netsim():
    G = nx.star_graph(8)  # ranks 1..8 behind one switch 0: one port each
    nx.set_edge_attributes(G, 50e9, "bandwidth")
    nx.set_edge_attributes(G, 1e-6, "latency")
    for k in (1, 8):
        sim = netsim.simulate(G, H.double_binary_tree_plan(8, k).to_flows(1e9, list(range(1, 9)))).makespan
        cf = H.double_binary_tree_time(1e9, 8, 50e9, 2e-6, chunks=k)
        if k == 1:
            assert cf == pytest.approx(sim, rel=1e-9)
        else:
            _upper_bound(cf, sim)


@pytest.mark.parametrize("N,g", [(2, 4), (4, 4), (4, 2), (3, 2)])
@pytest.mark.parametrize("op", H.HIERARCHICAL_OPS)
def test_multi_ring_against_netsim(N, g, op):
    G, ranks, (bi, ai, be, ae) = _machine(N, g)
    n = 2**28
    orders = [[ranks[i] for i in o] for o in H.multi_ring_orders(N, g)]
    sim = netsim.simulate_rings(G, n, orders, op=op).time
    cf = H.multi_ring_time(op, n, N, g, bi, ai, be, ae)
    assert cf == pytest.approx(sim, rel=0.02)


def test_plan_bytes():
    # two-level AllReduce: each GPU sends 2(g-1)/g n inside the node and 2(N-1)/N n/g across it
    N, g, n = 4, 4, 1e9
    sent = H.hierarchical_plan("allreduce", N, g, 3).bytes_sent(n)
    expect = 2 * (g - 1) / g * n + 2 * (N - 1) / N * n / g
    assert all(v == pytest.approx(expect) for v in sent.values())
    assert len(sent) == N * g
    assert np.isclose(sum(H.double_binary_tree_plan(4, 2).share), 6.0)


def test_doctests():
    import doctest

    assert doctest.testmod(H).failed == 0
