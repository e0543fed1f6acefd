"""Tests for interconnect.netsim: the flow-level simulator and its collective schedules.

Where expected values come from:
* alpha-beta closed forms: :func:`interconnect.collectives.collective_time` (Thakur,
  Rabenseifner and Gropp 2005; Patarasuk and Yuan 2009), which the simulator must
  reproduce on topologies where no link is shared;
* max-min fair rates: computed by hand here with progressive filling (Bertsekas and
  Gallager, Data Networks, 2nd ed., sec. 6.5.2), and the textbook characterisation
  "every flow crosses a saturated link on which it has the largest rate" (ibid.);
* functional results: numpy (``np.sum`` over ranks, concatenation, transposes).

Graphs are built here by small helpers that follow the graph contract
(/tmp/graph_contract.md: undirected nx.Graph, edge ``bandwidth`` bytes/s per direction,
``latency`` s); tests against ``interconnect.topology`` are skipped when it is missing.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import doctest  # noqa: E402
import math  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import interconnect.netsim as ns  # noqa: E402
from interconnect.collectives import REGISTRY, bus_factor, collective_time  # noqa: E402
from interconnect.netsim import Flow, max_min_rates, run_collective, simulate, simulate_collective  # noqa: E402

FAST = settings(max_examples=40, deadline=None, database=None)
GB, US = 1e9, 1e-6


# --------------------------------------------------------------------------- graph helpers


def ring_graph(p, bandwidth=100 * GB, latency=1 * US):
    """p GPUs "gpu0".."gpu{p-1}" in a ring, one equal edge between neighbours."""
    g = nx.Graph(name=f"test ring of {p}")
    for i in range(p):
        g.add_node(f"gpu{i}", kind="gpu", index=i)
    for i in range(p):
        g.add_edge(f"gpu{i}", f"gpu{(i + 1) % p}", bandwidth=bandwidth, latency=latency, link="", count=1)
    return g


def crossbar(p, bandwidth=100 * GB, latency=1 * US):
    """p GPUs on one NVSwitch node; each GPU-switch edge has latency alpha/2, so a
    GPU-switch-GPU path costs one alpha."""
    g = nx.Graph(name=f"test crossbar of {p}")
    g.add_node("nvsw0", kind="nvswitch", index=0)
    for i in range(p):
        g.add_node(f"gpu{i}", kind="gpu", index=i)
        g.add_edge(f"gpu{i}", "nvsw0", bandwidth=bandwidth, latency=latency / 2, link="", count=1)
    return g


def line(caps, latency=0.0):
    """Nodes 0..len(caps) in a line; edge i joins i and i+1 with bandwidth caps[i]."""
    g = nx.Graph(name="test line")
    for i, c in enumerate(caps):
        g.add_edge(i, i + 1, bandwidth=float(c), latency=latency)
    return g


def fat_tree(k=4, bandwidth=50 * GB, latency=0.5 * US):
    """The k-ary fat tree of Al-Fares et al. (SIGCOMM 2008), contract node names:
    hosts "h<i>", "edge<pod>.<i>", "agg<pod>.<i>", "core<j>"."""
    h = k // 2
    g = nx.Graph(name=f"test {k}-ary fat tree")
    hi = 0
    for pod in range(k):
        for e in range(h):
            en = f"edge{pod}.{e}"
            g.add_node(en, kind="edge")
            for _ in range(h):
                g.add_node(f"h{hi}", kind="host", index=hi)
                g.add_edge(f"h{hi}", en, bandwidth=bandwidth, latency=latency)
                hi += 1
        for a in range(h):
            g.add_node(f"agg{pod}.{a}", kind="aggregation")
            for e in range(h):
                g.add_edge(f"edge{pod}.{e}", f"agg{pod}.{a}", bandwidth=bandwidth, latency=latency)
    for j in range(h * h):
        g.add_node(f"core{j}", kind="core")
        for pod in range(k):
            g.add_edge(f"agg{pod}.{j // h}", f"core{j}", bandwidth=bandwidth, latency=latency)
    return g


def gpus(p):
    return [f"gpu{i}" for i in range(p)]


def seg_integral(res):
    """Bytes moved per flow: the integral of its rate over its trace segments."""
    s = res.segments
    return np.bincount(s["flow"], weights=s["rate"] * (s["t1"] - s["t0"]), minlength=res.n_flows)


# --------------------------------------------------------------------------- alpha-beta agreement


@pytest.mark.parametrize("op", ["allreduce", "allgather", "reducescatter"])
@pytest.mark.parametrize("p", [3, 4, 5, 8, 16])
@pytest.mark.parametrize("nbytes", [1e3, 1e6, 3.3e8])
def test_ring_on_ring_matches_alpha_beta(op, p, nbytes):
    """Ring algorithms on a ring of equal links: each step uses each directed link once,
    so there is no sharing and the time is collectives.collective_time (Thakur et al. 2005;
    Patarasuk and Yuan 2009 for allreduce)."""
    B, alpha = 100 * GB, 1 * US
    r = simulate_collective(ring_graph(p, B, alpha), op, nbytes, gpus(p), "ring")
    assert r.time == pytest.approx(collective_time(op, nbytes, p, B, alpha, "ring"), rel=1e-3)
    # every directed link in the ring direction is used, none against it
    used = [k for k, v in r.link_bytes.items() if v > 0]
    assert len(used) == p


# every registry row that has both a cost formula and a schedule, under the one name both use
CROSSBAR_CASES = [(op, alg, (2, 4, 8, 16) if row.pow2 else (2, 3, 5, 8, 13))
                  for (op, alg), row in REGISTRY.items() if row.terms is not None and row.schedule is not None]


@pytest.mark.parametrize("op,alg,ps", CROSSBAR_CASES, ids=[f"{c[0]}-{c[1]}" for c in CROSSBAR_CASES])
def test_crossbar_matches_alpha_beta(op, alg, ps):
    """On one NVSwitch crossbar each GPU's edge carries one outgoing and one incoming
    flow per step (full duplex), so no flow shares a resource, and each message costs
    alpha/2 + alpha/2 + m/B: the simulator reproduces the alpha-beta model."""
    B, alpha, n = 300 * GB, 2 * US, 64e6
    for p in ps:
        r = simulate_collective(crossbar(p, B, alpha), op, n, gpus(p), alg)
        want = collective_time(op, n, p, B, alpha, alg)
        assert r.time == pytest.approx(want, rel=1e-3), (p, r.time, want)


@pytest.mark.parametrize("p,chunks", [(2, 1), (4, 1), (4, 4), (8, 3), (8, 16), (5, 7)])
def test_pipelined_chain_broadcast(p, chunks):
    """Pipelined chain broadcast: with C chunks each of n/C bytes, the last chunk leaves
    the root after C steps and needs p-2 more hops: (p - 2 + C)(alpha + n/(C B))
    (Pjesivac-Grbovic et al. 2007)."""
    B, alpha, n = 100 * GB, 1 * US, 8e6
    r = simulate_collective(crossbar(p, B, alpha), "broadcast", n, gpus(p), "ring", chunks=chunks)
    assert r.time == pytest.approx((p - 2 + chunks) * (alpha + n / chunks / B), rel=1e-9)


def test_chunking_trades_latency_for_pipelining():
    """For the chain, the best chunk count balances latency against pipelining: the
    continuous optimum of (p-2+C)(alpha + n/(CB)) is C* = sqrt((p-2) n / (alpha B))."""
    p, B, alpha, n = 8, 100 * GB, 1 * US, 1e8
    g = crossbar(p, B, alpha)
    times = {c: simulate_collective(g, "broadcast", n, gpus(p), "ring", chunks=c).time
             for c in (1, 4, 16, 77, 256, 1024)}
    best = min(times, key=times.get)
    assert best == 77  # sqrt(6 * 1e8 / (1e-6 * 1e11)) = 77.5
    assert times[1] > 5 * times[77]


def test_alltoall_direct_shares_links():
    """alltoall "direct" starts all p(p-1) flows at once: each GPU's uplink carries p-1
    flows of n/p fairly, so on a crossbar it takes alpha + (p-1) n/(p B): one latency
    instead of p-1 (the pairwise schedule)."""
    p, B, alpha, n = 8, 100 * GB, 1 * US, 8e6
    r = simulate_collective(crossbar(p, B, alpha), "alltoall", n, gpus(p), "direct")
    assert len(r.schedule) == p * (p - 1)
    assert np.all(r.start == 0.0)
    assert r.time == pytest.approx(alpha + (p - 1) * n / p / B, rel=1e-9)
    pw = simulate_collective(crossbar(p, B, alpha), "alltoall", n, gpus(p), "pairwise")
    assert pw.time == pytest.approx((p - 1) * (alpha + n / p / B), rel=1e-9)


def test_busbw_equals_link_bandwidth_for_ring_allreduce():
    """nccl-tests doc/PERFORMANCE.md: busbw = algbw * 2(p-1)/p, which for a ring allreduce
    with no latency equals the per-direction link bandwidth."""
    p, B = 8, 100 * GB
    r = simulate_collective(ring_graph(p, B, 0.0), "allreduce", 1e9, gpus(p))
    assert r.busbw == pytest.approx(B, rel=1e-9)
    assert r.algbw * bus_factor("allreduce", p) == pytest.approx(r.busbw)


def test_ring_allreduce_on_a_line_uses_the_reverse_direction():
    """A "ring" on a line (no wrap-around edge): the message from the last rank to rank 0
    crosses all p-1 links, but *against* the direction the other messages use, and links
    are full duplex: no resource is shared, so with zero latency the time is still
    2(p-1) n/(pB), and every one of the 2(p-1) directed links carries 2(p-1)/p n bytes."""
    p, B, n = 4, 100 * GB, 4e6
    g = nx.path_graph(p)
    nx.set_edge_attributes(g, B, "bandwidth")
    nx.set_edge_attributes(g, 0.0, "latency")
    r = simulate_collective(g, "allreduce", n, list(range(p)), "ring")
    assert r.time == pytest.approx(2 * (p - 1) * n / p / B, rel=1e-9)
    assert sorted(r.link_bytes.values()) == pytest.approx([2 * (p - 1) * n / p] * 2 * (p - 1))
    # give the line's links to the ring in one direction only and they are shared
    r2 = simulate(g, [Flow(3, 0, n), Flow(1, 2, n)], paths=[[3, 2, 1, 0], [1, 2]])
    r3 = simulate(g, [Flow(0, 3, n), Flow(1, 2, n)])
    assert r2.makespan == pytest.approx(n / B) and r3.makespan == pytest.approx(2 * n / B)


# --------------------------------------------------------------------------- sharing


def test_two_flows_on_one_link_take_twice_as_long():
    """Max-min fairness on one link: two equal flows get B/2 each (Bertsekas and Gallager 6.5.2)."""
    g = line([1 * GB])
    one = simulate(g, [Flow(0, 1, 1e6)])
    two = simulate(g, [Flow(0, 1, 1e6), Flow(0, 1, 1e6)])
    assert one.finish[0] == pytest.approx(1e-3)
    assert two.finish.tolist() == pytest.approx([2e-3, 2e-3])
    # opposite directions are independent resources (full duplex)
    duplex = simulate(g, [Flow(0, 1, 1e6), Flow(1, 0, 1e6)])
    assert duplex.finish.tolist() == pytest.approx([1e-3, 1e-3])


def test_bertsekas_gallager_line_network():
    """B&G sec. 6.5.2: a line of 3 equal links, one long session across all of them and one
    short session per link. Every link is shared by two sessions, so all get C/2."""
    g = line([1 * GB] * 3)
    flows = [Flow(0, 3, 1e9), Flow(0, 1, 1e9), Flow(1, 2, 1e9), Flow(2, 3, 1e9)]
    r = simulate(g, flows)
    first = {f: rate for t0, _, f, rate in r.trace if t0 == 0.0}
    assert [first[i] for i in range(4)] == pytest.approx([0.5 * GB] * 4)


def test_max_min_unequal_links_by_hand():
    """Progressive filling by hand. Links A=1, B=2, C=3 (GB/s) in a line. Flow 0 crosses
    all three; flow 1 only A; flow 2 only B; flows 3 and 4 only C.
    Round 1: fair shares A 1/2, B 2/2, C 3/3 -> A is the bottleneck: flows 0, 1 get 0.5.
    Round 2: B has 2 - 0.5 = 1.5 for flow 2; C has 3 - 0.5 = 2.5 for 2 flows (1.25):
    the smaller is C: flows 3, 4 get 1.25. Round 3: flow 2 gets 1.5."""
    want = [0.5, 0.5, 1.5, 1.25, 1.25]
    A = [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 0, 1]]
    assert max_min_rates(A, [1.0, 2.0, 3.0]).tolist() == pytest.approx(want)
    g = line([1 * GB, 2 * GB, 3 * GB])
    r = simulate(g, [Flow(0, 3, 1e9), Flow(0, 1, 1e9), Flow(1, 2, 1e9), Flow(2, 3, 1e9), Flow(2, 3, 1e9)])
    first = {f: rate for t0, _, f, rate in r.trace if t0 == 0.0}
    assert [first[i] / GB for i in range(5)] == pytest.approx(want)


def test_late_flow_takes_half_the_link():
    """A 2 MB flow alone on a 1 GB/s link for 1 ms moves 1 MB; then a 1 MB flow joins and
    both get 0.5 GB/s, so both finish at 3 ms (worked by hand). The first flow's trace
    has two segments: 1 GB/s then 0.5 GB/s."""
    r = simulate(line([1 * GB]), [Flow(0, 1, 2e6), Flow(0, 1, 1e6, start=1e-3)])
    assert r.finish.tolist() == pytest.approx([3e-3, 3e-3])
    segs0 = [x for t0, t1, f, rate in r.trace if f == 0 for x in (t0, t1, rate)]
    assert segs0 == pytest.approx([0.0, 1e-3, 1 * GB, 1e-3, 3e-3, 0.5 * GB])


def test_latency_rule_and_dependencies():
    """Arrival = fluid finish + sum of edge latencies on the path; a dependent starts at
    the arrival. 1 MB over two 1 GB/s links of 1 and 2 µs: finish 1 ms, arrival 1.003 ms."""
    g = line([1 * GB, 1 * GB])
    g.edges[0, 1]["latency"] = 1 * US
    g.edges[1, 2]["latency"] = 2 * US
    r = simulate(g, [Flow(0, 2, 1e6), Flow(2, 0, 1e6, deps=(0,)), Flow(0, 1, 0.0, deps=[1])])
    assert r.finish[0] == pytest.approx(1e-3)
    assert r.arrival[0] == pytest.approx(1e-3 + 3 * US)
    assert r.start[1] == pytest.approx(r.arrival[0])
    assert r.arrival[1] == pytest.approx(2 * (1e-3 + 3 * US))
    # a zero-byte flow costs only its path latency
    assert r.finish[2] == pytest.approx(r.start[2])
    assert r.arrival[2] - r.start[2] == pytest.approx(1 * US)
    assert r.makespan == pytest.approx(r.arrival[1] + 1 * US)
    # start = max(start, arrivals of deps)
    late = simulate(g, [Flow(0, 2, 1e6), Flow(2, 0, 1e6, start=5e-3, deps=(0,))])
    assert late.start[1] == 5e-3


def test_explicit_paths_override_routing():
    """paths= forces a route: on a triangle the long way round carries the bytes."""
    g = nx.Graph()
    for u, v in [("a", "b"), ("b", "c"), ("a", "c")]:
        g.add_edge(u, v, bandwidth=GB, latency=0.0)
    r = simulate(g, [Flow("a", "c", 1e6)], paths=[["a", "b", "c"]])
    assert r.paths == [("a", "b", "c")]
    assert r.link_bytes[("a", "b")] == 1e6 and r.link_bytes[("a", "c")] == 0.0
    d = simulate(g, [Flow("a", "c", 1e6)])
    assert d.paths == [("a", "c")]


def test_shortest_route_is_least_latency_then_fewest_hops():
    """Routing minimises total latency, then hops: a 2-hop path of 1+1 µs beats a direct
    edge of 3 µs; between equal-latency routes the shorter in hops wins."""
    g = nx.Graph()
    g.add_edge("a", "b", bandwidth=GB, latency=1 * US)
    g.add_edge("b", "c", bandwidth=GB, latency=1 * US)
    g.add_edge("a", "c", bandwidth=GB, latency=3 * US)
    assert simulate(g, [Flow("a", "c", 1.0)]).paths[0] == ("a", "b", "c")
    g.edges["a", "c"]["latency"] = 2 * US
    assert simulate(g, [Flow("a", "c", 1.0)]).paths[0] == ("a", "c")


@st.composite
def random_network(draw):
    """A connected random graph with random bandwidths and latencies, and random flows
    (some staggered, some with dependencies on earlier flows)."""
    n = draw(st.integers(2, 7))
    g = nx.Graph()
    caps = st.sampled_from([1.0, 2.0, 3.0, 5.0, 8.0])
    lats = st.sampled_from([0.0, 1e-6, 3e-6])
    for v in range(1, n):
        g.add_edge(draw(st.integers(0, v - 1)), v, bandwidth=draw(caps) * GB, latency=draw(lats))
    for _ in range(draw(st.integers(0, n))):
        u, v = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if u != v and not g.has_edge(u, v):
            g.add_edge(u, v, bandwidth=draw(caps) * GB, latency=draw(lats))
    flows = []
    for i in range(draw(st.integers(1, 9))):
        s = draw(st.integers(0, n - 1))
        d = draw(st.integers(0, n - 1))
        nb = draw(st.sampled_from([0.0, 1e3, 1e5, 1e6, 3.7e6]))
        start = draw(st.sampled_from([0.0, 0.0, 1e-4, 7e-4]))
        deps = draw(st.lists(st.integers(0, i - 1), max_size=2)) if i else []
        flows.append(Flow(s, d, nb, start, tuple(deps), tag=i % 2))
    return g, flows


def _path_caps(g, path):
    return [g.edges[a, b]["bandwidth"] for a, b in zip(path, path[1:])]


@FAST
@given(random_network(), st.sampled_from(["shortest", "ecmp"]))
def test_random_networks_invariants(net, routing):
    """On random graphs and flows: (1) no flow's rate exceeds the narrowest link on its
    path; (2) at every instant each directed link carries at most its bandwidth;
    (3) nothing is lost: each flow's rate integrates to its nbytes; (4) per-link bytes
    are the sum of nbytes of the flows crossing it, so total link bytes = sum nbytes x
    hops; (5) starts respect start times and dependency arrivals."""
    g, flows = net
    r = simulate(g, flows, routing=routing, seed=3)
    s = r.segments
    for t0, t1, f, rate in r.trace:
        caps = _path_caps(g, r.paths[f])
        assert caps, "segments only exist for flows that cross a link"
        assert rate <= min(caps) * (1 + 1e-9)
        assert t1 >= t0
    # (2) feasibility at the midpoint of every interval between breakpoints
    cuts = np.unique(np.concatenate((s["t0"], s["t1"])))
    for a, b in zip(cuts[:-1], cuts[1:]):
        mid = 0.5 * (a + b)
        load = {}
        for k in np.flatnonzero((s["t0"] <= mid) & (s["t1"] > mid)):
            path = r.paths[s["flow"][k]]
            for e in zip(path, path[1:]):
                load[e] = load.get(e, 0.0) + s["rate"][k]
        for (u, v), x in load.items():
            assert x <= g.edges[u, v]["bandwidth"] * (1 + 1e-9)
    # (3)
    moved = seg_integral(r)
    for i, f in enumerate(flows):
        if len(r.paths[i]) > 1:
            assert moved[i] == pytest.approx(f.nbytes, rel=1e-9, abs=1e-6)
    # (4)
    want = {}
    for f, path in zip(flows, r.paths):
        for e in zip(path, path[1:]):
            want[e] = want.get(e, 0.0) + f.nbytes
    for e, x in r.link_bytes.items():
        assert x == pytest.approx(want.get(e, 0.0), rel=1e-12, abs=1e-9)
    assert sum(r.link_bytes.values()) == pytest.approx(sum(f.nbytes * (len(p) - 1) for f, p in zip(flows, r.paths)))
    # (5) to the engine's tolerance: events within a relative 1e-12 of each other are one
    # event, so a flow may start at a finish time that rounds to a hair before its start
    for i, f in enumerate(flows):
        assert r.start[i] >= f.start * (1 - 1e-12)
        for d in f.deps:
            assert r.start[i] >= r.arrival[d] * (1 - 1e-12)
        assert r.start[i] <= r.finish[i] <= r.arrival[i] <= r.makespan
    if r.makespan > 0 and max(r.link_bytes.values()) > 0:
        assert r.link_utilisation[r.bottleneck] == max(r.link_utilisation.values())
        assert all(0 <= u <= 1 + 1e-9 for u in r.link_utilisation.values())


@settings(max_examples=150, deadline=None, database=None)
@given(random_network())
def test_vectorised_engine_agrees_with_the_reference_loop(net):
    """simulate (vectorised, many flows per event) and _simulate_reference (plain Python,
    one event at a time, progressive filling by hand) give the same start, finish and
    arrival of every flow on random graphs with staggered and dependent flows."""
    g, flows = net
    r = simulate(g, flows)
    start, finish, arrival = ns.engine._simulate_reference(g, flows)
    np.testing.assert_allclose(r.start, start, rtol=1e-9, atol=1e-18)
    np.testing.assert_allclose(r.finish, finish, rtol=1e-9, atol=1e-18)
    np.testing.assert_allclose(r.arrival, arrival, rtol=1e-9, atol=1e-18)


def test_reference_loop_by_hand():
    """Two 1 MB flows share a 1 GB/s link (2 ms each); a third starts when the first
    arrives and then has the link alone (1 ms more)."""
    g = line([1 * GB], latency=0.0)
    flows = [Flow(0, 1, 1e6), Flow(0, 1, 1e6), Flow(0, 1, 1e6, deps=(0,))]
    start, finish, arrival = ns.engine._simulate_reference(g, flows)
    assert finish.tolist() == pytest.approx([2e-3, 2e-3, 3e-3], rel=1e-12)
    assert start.tolist() == pytest.approx([0.0, 0.0, 2e-3], rel=1e-12)


@FAST
@given(st.integers(1, 12), st.integers(1, 6), st.data())
def test_max_min_bottleneck_characterisation(n_flows, n_res, data):
    """B&G sec. 6.5.2: a feasible allocation is max-min fair iff every flow has a
    bottleneck link: one that is saturated and on which no flow has a larger rate."""
    cap = np.array(data.draw(st.lists(st.sampled_from([1.0, 2.0, 3.0, 7.0]), min_size=n_res, max_size=n_res)))
    rows = [data.draw(st.lists(st.booleans(), min_size=n_res, max_size=n_res)) for _ in range(n_flows)]
    A = np.array(rows, dtype=float)
    x = max_min_rates(A, cap)
    for i in range(n_flows):
        if not A[i].any():
            assert x[i] == np.inf
    fin = np.isfinite(x)
    load = A[fin].T @ x[fin]
    assert np.all(load <= cap * (1 + 1e-9))
    for i in np.flatnonzero(fin):
        ok = False
        for j in np.flatnonzero(A[i]):
            on = fin & (A[:, j] > 0)
            if load[j] >= cap[j] * (1 - 1e-9) and x[i] >= x[on].max() * (1 - 1e-9):
                ok = True
        assert ok, (i, x, A, cap)



@FAST
@given(st.lists(st.lists(st.sampled_from([1.0, 1.0 + 4e-10, 1.0 + 2e-9, 2.0, 2.0 * (1 + 9e-10), 3.0, 7.5]),
                         min_size=1, max_size=4), min_size=1, max_size=12))
def test_exclusive_rates_equal_progressive_filling_bit_for_bit(paths):
    """Where no resource carries two flows, the engine's shortcut (each flow's narrowest
    capacity, levels within a relative 1e-9 merged) gives exactly the rates of progressive
    filling, including the ties that the 1e-9 tolerance joins."""
    caps = [c for p in paths for c in p]
    rows = np.repeat(np.arange(len(paths)), [len(p) for p in paths])
    cols = np.arange(len(caps))  # every resource on one path only
    want = ns.fairness._maxmin(rows, cols, np.array(caps), len(paths))
    got = ns.engine._exclusive_rates(np.array([min(p) for p in paths]))
    assert got.tolist() == want.tolist()
    active = ns.fairness._maxmin_active(np.arange(len(caps) + 1), rows, cols, len(paths), np.array(caps),
                                        np.zeros(len(caps), dtype=bool), np.empty(len(caps), dtype=np.int64))
    assert active.tolist() == want.tolist()


@pytest.mark.parametrize("op,alg,chunks", [("allreduce", "ring", 1), ("allreduce", "ring", 3),
                                           ("alltoall", "pairwise", 1), ("broadcast", "chain", 4)])
def test_exclusive_shortcut_changes_no_bit_of_a_simulation(monkeypatch, op, alg, chunks):
    """The engine takes the shortcut while no link carries two active flows; forcing the
    general progressive filling at every event gives the same simulation, bit for bit."""
    from interconnect import topology

    g = topology.cluster(nodes=2, gpus_per_node=8)
    fast = simulate_collective(g, op, 3e7 + 123, algorithm=alg, chunks=chunks)
    monkeypatch.setattr(ns.engine, "_max", lambda x: 2)  # "a link carries two flows": always solve in full
    slow = simulate_collective(g, op, 3e7 + 123, algorithm=alg, chunks=chunks)
    for name in ("start", "finish", "arrival"):
        assert getattr(fast, name).tolist() == getattr(slow, name).tolist()
    assert fast.segments.tolist() == slow.segments.tolist()


def test_simulation_is_the_same_with_and_without_shared_links():
    """The same flows, once on their own links (the exclusive shortcut) and once with a
    shared link added for part of the time (the general solver), agree where they should:
    a flow alone on its path runs at its narrowest link; two on one link halve it."""
    g = nx.Graph()
    g.add_edge("a", "s", bandwidth=4 * GB, latency=0.0)
    g.add_edge("s", "b", bandwidth=2 * GB, latency=0.0)
    g.add_edge("c", "s", bandwidth=1 * GB, latency=0.0)
    alone = simulate(g, [Flow("a", "b", 2e9), Flow("c", "s", 1e9)])
    assert alone.finish.tolist() == [1.0, 1.0]
    shared = simulate(g, [Flow("a", "b", 2e9), Flow("c", "b", 1e9)])
    # both cross s->b (2 GB/s): max-min gives c 1 GB/s (its own link) and a the other 1 GB/s
    # until c is done at 1 s; then a has 2 GB/s for its last 1 GB: 1.5 s
    assert shared.finish.tolist() == pytest.approx([1.5, 1.0], rel=1e-12)


# --------------------------------------------------------------------------- conservation on collectives


@pytest.mark.parametrize("op,alg", [(op, a) for op, algs in ns.APPLICABLE.items() for a in algs])
def test_collective_bytes_are_conserved(op, alg):
    """Every collective schedule, on a fat tree where flows share links: each flow's rate
    integrates to its bytes, and the link bytes are the flows' bytes times their hops."""
    g = fat_tree(4)
    p = 8
    ranks = [f"h{i}" for i in (0, 3, 4, 7, 8, 11, 12, 15)]
    r = simulate_collective(g, op, 8e6, ranks, alg, chunks=2)
    nb = r.schedule.transfer_bytes(8e6)
    assert np.allclose(r.sim.nbytes, nb)  # r.nbytes is the collective size
    assert np.allclose(seg_integral(r), nb, rtol=1e-9)
    hops = np.array([len(pth) - 1 for pth in r.paths])
    assert sum(r.link_bytes.values()) == pytest.approx(float(nb @ hops))
    assert r.time > 0 and r.p == p


# --------------------------------------------------------------------------- functional


def _inputs(p, length, dtype, seed):
    rng = np.random.default_rng(seed)
    if np.issubdtype(dtype, np.integer):
        return [rng.integers(-1000, 1000, size=length).astype(dtype) for _ in range(p)]
    return [rng.standard_normal(length).astype(dtype) for _ in range(p)]


def _expected(op, arrs, root=0):
    p = len(arrs)
    total = np.sum(arrs, axis=0)
    if op == "allreduce":
        return [total] * p
    if op == "reducescatter":
        return np.array_split(total, p)
    if op == "allgather":
        return [np.concatenate(arrs)] * p
    if op == "broadcast":
        return [arrs[root]] * p
    if op == "reduce":
        return [total if r == root else None for r in range(p)]
    if op == "alltoall":
        m = len(arrs[0]) // p
        x = np.stack(arrs).reshape(p, p, m).transpose(1, 0, 2).reshape(p, p * m)
        return list(x)
    raise AssertionError(op)


FUNC_CASES = [(op, a) for op, algs in ns.APPLICABLE.items() for a in algs]


@pytest.mark.parametrize("op,alg", FUNC_CASES, ids=[f"{o}-{a}" for o, a in FUNC_CASES])
@pytest.mark.parametrize("chunks", [1, 2, 3])
def test_run_collective_matches_numpy(op, alg, chunks):
    """run_collective executes the simulated schedule on data; compare with numpy:
    integers exactly, floats to rounding, for p = 2..8 (powers of two where needed)."""
    pow2 = alg in ("recursive_doubling", "rabenseifner")
    for p in ([2, 4, 8] if pow2 else range(2, 9)):
        for dtype in (np.int64, np.float64):
            length = p * 5 if op == "alltoall" else 23  # 23: pieces of unequal length
            arrs = _inputs(p, length, dtype, seed=p * 7 + chunks)
            roots = [0, p - 1] if op in ("broadcast", "reduce") else [0]
            for root in roots:
                got = run_collective(arrs, op, alg, chunks=chunks, root=root)
                want = _expected(op, arrs, root)
                assert len(got) == p
                for g_, w in zip(got, want):
                    if w is None:
                        assert g_ is None
                    elif np.issubdtype(dtype, np.integer):
                        assert g_.dtype == w.dtype and np.array_equal(g_, w), (op, alg, p, chunks)
                    else:
                        np.testing.assert_allclose(g_, w, rtol=1e-12, atol=1e-12)


def test_run_collective_single_rank_and_inputs_untouched():
    """p = 1 is a no-op; the caller's arrays are never modified."""
    a = [np.arange(6)]
    assert run_collective(a, "allreduce")[0].tolist() == list(range(6))
    arrs = [np.arange(8) + r for r in range(4)]
    keep = [x.copy() for x in arrs]
    run_collective(arrs, "allreduce", "recursive_doubling")
    assert all(np.array_equal(x, y) for x, y in zip(arrs, keep))


@pytest.mark.parametrize("op", ["allreduce", "allgather", "reducescatter"])
@pytest.mark.parametrize("p,chunks", [(2, 1), (3, 2), (4, 3), (5, 1), (6, 4)])
def test_fast_ring_deps_follow_the_generic_rule(op, p, chunks):
    """The numpy-built ring schedule has exactly the dependencies the generic rule (data,
    port and channel dependencies of the module docstring) gives for the same transfers."""
    s = ns.schedule(op, p, "ring", chunks)
    arrays = {k: getattr(s, k) for k in ("round", "src", "dst", "lo", "hi", "dst_lo", "chunk")}
    ptr, idx = ns._generic_deps(arrays, False, p)
    for i in range(len(s)):
        assert sorted(s.deps(i)) == sorted(idx[ptr[i]:ptr[i + 1]].tolist()), i


@pytest.mark.parametrize("op,alg", FUNC_CASES, ids=[f"{o}-{a}" for o, a in FUNC_CASES])
def test_schedule_structure(op, alg):
    """Dependencies point to earlier transfers (a DAG in schedule order); rounds are sorted;
    each round a rank sends at most one message per destination; bytes per rank match the
    algorithm's volume (ring allreduce: 2(p-1)/p n per rank, Patarasuk and Yuan 2009)."""
    p = 8
    s = ns.schedule(op, p, alg, chunks=2)
    assert np.all(np.diff(s.round) >= 0)
    for i in range(len(s)):
        assert all(d < i for d in s.deps(i))
    assert np.all(s.src != s.dst)
    if (op, alg) == ("allreduce", "ring"):
        sent = np.bincount(s.src, weights=s.transfer_bytes(1.0))
        assert np.allclose(sent, 2 * (p - 1) / p)


def test_schedule_to_flows_round_trip():
    """Schedule.to_flows gives Flow objects that simulate() times exactly like
    simulate_collective (one code path for the schedule)."""
    p, n = 4, 4e6
    g = ring_graph(p)
    s = ns.schedule("allreduce", p, "ring", chunks=2)
    a = simulate(g, s.to_flows(n, gpus(p)))
    b = simulate_collective(g, "allreduce", n, gpus(p), chunks=2)
    assert np.allclose(a.arrival, b.arrival) and a.makespan == pytest.approx(b.time)
    assert set(a.tags) == {"reduce-scatter", "allgather"}


def test_default_ranks_are_gpus_in_index_order():
    """ranks=None takes the GPUs sorted by (node, index), whatever the insertion order;
    graphs without GPUs use their hosts."""
    g = nx.Graph(name="shuffled")
    g.add_node("nvsw0", kind="nvswitch")
    for i in (3, 1, 0, 2):
        g.add_node(f"gpu{i}", kind="gpu", index=i)
        g.add_edge(f"gpu{i}", "nvsw0", bandwidth=GB, latency=0.0)
    r = simulate_collective(g, "allgather", 4e3)
    assert r.ranks == ("gpu0", "gpu1", "gpu2", "gpu3")
    f = simulate_collective(fat_tree(4), "allreduce", 1e3)
    assert f.p == 16 and f.ranks[0] == "h0" and f.ranks[-1] == "h15"


# --------------------------------------------------------------------------- ECMP


def test_ecmp_is_deterministic_and_seeded():
    """ECMP picks among equal-cost shortest paths by a seeded hash: the same seed gives the
    same paths; different seeds give different ones; every pick is a shortest path."""
    g = fat_tree(4)
    flows = [Flow(f"h{i}", f"h{(i + 8) % 16}", 1e6) for i in range(16)] * 2
    a = simulate(g, flows, routing="ecmp", seed=1)
    b = simulate(g, flows, routing="ecmp", seed=1)
    assert a.paths == b.paths and np.array_equal(a.arrival, b.arrival)
    seen = {tuple(simulate(g, flows, routing="ecmp", seed=s).paths) for s in range(6)}
    assert len(seen) > 1
    # inter-pod host pairs have (k/2)^2 = 4 equal-cost 6-hop paths (Al-Fares et al. 2008)
    every = {p for s in range(30) for p in simulate(g, flows[:1], routing="ecmp", seed=s).paths}
    assert len(every) == 4 and all(len(p) == 7 for p in every)
    # the shortest routing picks one of them, always the same
    sp = simulate(g, flows, routing="shortest").paths
    assert len(set(sp[:1] + sp[16:17])) == 1 and sp[0] in every


def test_ecmp_spreads_load_unlike_shortest():
    """16 inter-pod flows: single-path routing piles them on one core switch, ECMP spreads
    them, so the busiest link carries less and the makespan is shorter."""
    g = fat_tree(4)
    flows = [Flow(f"h{i}", f"h{(i + 8) % 16}", 1e7) for i in range(16)]
    sp = simulate(g, flows, routing="shortest")
    ec = simulate(g, flows, routing="ecmp", seed=0)
    assert max(ec.link_bytes.values()) < max(sp.link_bytes.values())
    assert ec.makespan < sp.makespan


# --------------------------------------------------------------------------- errors


def test_errors_name_the_parameter():
    g = crossbar(4)
    with pytest.raises(ValueError, match="op="):
        simulate_collective(g, "scatter", 1e6, gpus(4))
    with pytest.raises(ValueError, match="op="):
        run_collective([np.ones(4)] * 2, "allsum")
    with pytest.raises(ValueError, match="algorithm="):
        simulate_collective(g, "allreduce", 1e6, gpus(4), algorithm="bruck")
    with pytest.raises(ValueError, match="algorithm="):
        run_collective([np.ones(4)] * 2, "broadcast", "recursive_doubling")
    with pytest.raises(ValueError, match="nbytes"):
        simulate_collective(g, "allreduce", -1.0, gpus(4))
    with pytest.raises(ValueError, match="nbytes"):
        Flow("gpu0", "gpu1", -5)
    with pytest.raises(ValueError, match="start"):
        Flow("gpu0", "gpu1", 5, start=-1)
    with pytest.raises(ValueError, match="deps"):
        Flow("gpu0", "gpu1", 5, deps=("a",))
    with pytest.raises(ValueError, match=r"ranks\[2\]"):
        simulate_collective(g, "allreduce", 1e6, ["gpu0", "gpu1", "gpu9"])
    with pytest.raises(ValueError, match="ranks"):
        simulate_collective(g, "allreduce", 1e6, ["gpu0", "gpu0"])
    with pytest.raises(ValueError, match=r"flows\[1\].dst"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0), Flow("gpu0", "nope", 1.0)])
    with pytest.raises(ValueError, match=r"flows\[0\].deps"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0, deps=(3,))])
    with pytest.raises(ValueError, match=r"flows\[0\].deps"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0, deps=(0,))])
    with pytest.raises(ValueError, match="cycle"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0, deps=(1,)), Flow("gpu1", "gpu2", 1.0, deps=(0,)),
                     Flow("gpu2", "gpu3", 1.0)])
    with pytest.raises(ValueError, match="power of two"):
        simulate_collective(crossbar(6), "allreduce", 1e6, gpus(6), "recursive_doubling")
    with pytest.raises(ValueError, match="chunks"):
        simulate_collective(g, "allreduce", 1e6, gpus(4), chunks=0)
    with pytest.raises(ValueError, match="root"):
        run_collective([np.ones(4)] * 3, "broadcast", "tree", root=3)
    with pytest.raises(ValueError, match="routing"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0)], routing="random")
    with pytest.raises(ValueError, match="seed"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0)], seed=1.5)
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0)], paths=[["gpu0", "gpu1"]])  # not an edge
    with pytest.raises(ValueError, match=r"paths\[0\]"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0)], paths=[["gpu1", "nvsw0", "gpu0"]])
    with pytest.raises(ValueError, match="paths"):
        simulate(g, [Flow("gpu0", "gpu1", 1.0)], paths=[None, None])
    with pytest.raises(ValueError, match="arrays"):
        run_collective([np.ones(4), np.ones(5)], "allreduce")
    with pytest.raises(ValueError, match="arrays"):
        run_collective([np.ones(5)] * 2, "alltoall", "direct")
    bad = nx.Graph()
    bad.add_edge(0, 1, latency=0.0)
    with pytest.raises(ValueError, match="bandwidth"):
        simulate(bad, [Flow(0, 1, 1.0)])
    two = nx.Graph()
    two.add_edge(0, 1, bandwidth=1.0)
    two.add_edge(2, 3, bandwidth=1.0)
    with pytest.raises(ValueError, match="no path"):
        simulate(two, [Flow(0, 3, 1.0)])
    with pytest.raises(ValueError, match="g="):
        simulate(nx.DiGraph([(0, 1)]), [])
    with pytest.raises(ValueError, match="capacity"):
        max_min_rates([[1]], [0.0])


def test_empty_and_trivial():
    """No flows: makespan 0, no bottleneck. One rank: no transfers, time 0. A flow to
    itself crosses no link and arrives at once."""
    g = crossbar(2)
    r = simulate(g, [])
    assert r.makespan == 0.0 and r.bottleneck is None and r.trace == []
    c = simulate_collective(g, "allreduce", 1e6, ["gpu0"])
    assert c.time == 0.0 and len(c.schedule) == 0
    s = simulate(g, [Flow("gpu0", "gpu0", 1e6, start=1e-3)])
    assert s.arrival[0] == 1e-3 and s.paths == [("gpu0",)]


# --------------------------------------------------------------------------- plots


def test_plots_have_titles_and_labelled_axes():
    import matplotlib.pyplot as plt

    g = fat_tree(4)
    r = simulate_collective(g, "allreduce", 8e6, [f"h{i}" for i in range(0, 16, 2)], chunks=2)
    ax = ns.plot_timeline(r)
    assert ax.get_title() and "time (" in ax.get_xlabel() and ax.get_ylabel() == "source"
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == ["reduce-scatter", "allgather"]
    ax2 = ns.plot_link_load(g, r, top=5)
    assert "Busiest links" in ax2.get_title() and "%" in ax2.get_xlabel()
    assert len(ax2.patches) == 5
    fig, axes = plt.subplots(1, 2)
    ns.plot_timeline(simulate(line([GB]), [Flow(0, 1, 1e6)]), ax=axes[0])
    ns.plot_link_load(g, r, ax=axes[1])
    plt.close("all")


def test_import_does_not_import_matplotlib():
    """The model layer draws nothing: importing interconnect and interconnect.netsim leaves
    matplotlib unimported; netsim.plot_timeline is the viz.timelines function, loaded on use."""
    code = ("import sys, interconnect, interconnect.netsim as ns; assert 'matplotlib' not in sys.modules, 'import'; "
            "from interconnect.viz import timelines; "
            "assert ns.plot_timeline is timelines.plot_timeline and ns.plot_link_load is timelines.plot_link_load")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    with pytest.raises(AttributeError, match="no attribute 'plot_nothing'"):
        ns.plot_nothing  # noqa: B018


def test_repr_is_short():
    r = simulate_collective(ring_graph(64), "allreduce", 1e6)
    assert len(repr(r)) < 200 and len(repr(r.sim)) < 300
    assert r.makespan == r.time and r.sim.n_flows == len(r.schedule)


def test_collective_result_reads_the_simulation_through_explicit_properties():
    """CollectiveResult has explicit read-only properties for the SimResult's answers (no
    __getattr__ delegation): each is the sim's attribute; other names are AttributeErrors."""
    r = simulate_collective(ring_graph(4), "allreduce", 1e6)
    for name in ("start", "finish", "arrival", "makespan", "link_bytes", "link_utilisation", "bottleneck",
                 "segments", "paths", "trace", "src", "dst", "tags", "n_flows"):
        mine, sims = getattr(r, name), getattr(r.sim, name)
        assert mine is sims or mine == sims  # src, dst and tags are new lists on each read
    assert r.nbytes == 1e6 and r.sim.nbytes.size == r.n_flows
    assert not hasattr(r, "path_table") and not hasattr(r, "__array__")
    with pytest.raises(AttributeError):
        r.makespan = 0.0


def test_doctests():
    failed = attempted = 0
    for mod in (ns, ns.routing, ns.fairness, ns.engine, ns.collective):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        failed, attempted = failed + res.failed, attempted + res.attempted
    assert failed == 0 and attempted >= 5


# --------------------------------------------------------------------------- interconnect.topology


def test_with_topology_builders():
    """Against the real builders (skipped until interconnect.topology exists): ring and
    NVSwitch reproduce alpha-beta with the graph's own link numbers; a fat tree runs."""
    topo = pytest.importorskip("interconnect.topology")
    for build, p in (("ring", 8), ("nvswitch", 8)):
        if not hasattr(topo, build):
            continue
        g = getattr(topo, build)(p)
        ranks = topo.gpus(g) if hasattr(topo, "gpus") else None
        edges = list(g.edges(data=True))
        bws = {d["bandwidth"] for *_, d in edges}
        lats = {d["latency"] for *_, d in edges}
        if len(bws) != 1 or len(lats) != 1:
            continue
        B, lat = bws.pop(), lats.pop()
        hops = 1 if build == "ring" else 2
        if build == "nvswitch" and sum(1 for _, d in g.nodes(data=True) if d.get("kind") == "nvswitch") != 1:
            continue
        r = simulate_collective(g, "allreduce", 1e8, ranks)
        assert r.time == pytest.approx(collective_time("allreduce", 1e8, p, B, hops * lat), rel=1e-3)
    if hasattr(topo, "fat_tree"):
        g = topo.fat_tree(4)
        r = simulate_collective(g, "alltoall", 1.6e7, algorithm="direct", routing="ecmp", seed=0)
        assert r.p == 16 and r.time > 0


# --------------------------------------------------------------------------- speed (measured, not asserted)


def _bench(repeat=5):
    """Timings for the lead author: one max-min solve of 4,000 flows on 64 hosts of a k=8
    fat tree (128 hosts), the full simulation of those flows, and a 1024-rank ring
    allreduce on a 1024-GPU ring. Returns a dict of seconds (best of ``repeat``)."""
    out = {}
    g = fat_tree(8)
    rng = np.random.default_rng(0)
    hosts = [f"h{i}" for i in range(0, 128, 2)]
    pairs = []
    while len(pairs) < 4000:
        a, b = rng.integers(0, 64, 2)
        if a != b:
            pairs.append((hosts[a], hosts[b]))
    flows = [Flow(a, b, 1e6) for a, b in pairs]
    r = simulate(g, flows, routing="ecmp", seed=0)
    net = ns._Net(g)
    hops = np.array([len(p) - 1 for p in r.paths])
    rows = np.repeat(np.arange(len(flows)), hops)
    cols = np.array([net.edge_res[(net.index[u], net.index[v])] for p in r.paths for u, v in zip(p, p[1:])])
    best = math.inf
    for _ in range(repeat):
        t = time.perf_counter()
        rates = ns._maxmin(rows, cols, net.cap, len(flows))
        best = min(best, time.perf_counter() - t)
    out["maxmin_4000_flows_fat_tree_k8"] = best
    import scipy.sparse as sp

    A = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(len(flows), net.cap.size))
    t = time.perf_counter()
    assert np.allclose(max_min_rates(A, net.cap), rates)
    out["max_min_rates_public_api"] = time.perf_counter() - t
    t = time.perf_counter()
    simulate(g, flows, routing="ecmp", seed=0)
    out["simulate_4000_flows_ecmp"] = time.perf_counter() - t
    ring = ring_graph(1024)
    t = time.perf_counter()
    rr = simulate_collective(ring, "allreduce", 1e9)
    out["ring_allreduce_1024_ranks"] = time.perf_counter() - t
    out["ring_allreduce_1024_flows"] = len(rr.schedule)
    out["ring_allreduce_1024_rel_err"] = abs(rr.time / collective_time("allreduce", 1e9, 1024, 100 * GB, US) - 1)
    return out


if __name__ == "__main__":
    for k, v in _bench().items():
        print(f"{k:34s} {v:.6g}")


# --- several rings at once (NCCL channels) ------------------------------------------------

def test_simulate_rings_one_ring_equals_simulate_collective():
    from interconnect import topology

    g = topology.dgx1_hybrid_cube_mesh()
    order = [f"gpu{i}" for i in (0, 3, 2, 1, 5, 6, 7, 4)]
    one = ns.simulate_rings(g, 2**28, [order])
    ref = ns.simulate_collective(g, "allreduce", 2**28, ranks=order)
    assert one.time == pytest.approx(ref.time, rel=1e-12)


def test_simulate_rings_split_bytes_and_conserve_them():
    # a ring and its reverse on an 8-GPU ring graph use opposite directions of every link:
    # no sharing, so two rings each carrying half the bytes finish in about half the bandwidth time
    n = 8
    g = nx.cycle_graph([f"g{i}" for i in range(n)])
    nx.set_edge_attributes(g, 1e10, "bandwidth")
    nx.set_edge_attributes(g, 0.0, "latency")
    nx.set_edge_attributes(g, 1, "count")
    order = [f"g{i}" for i in range(n)]
    one = ns.simulate_rings(g, 1e9, [order])
    two = ns.simulate_rings(g, 1e9, [order, order[::-1]])
    assert two.time == pytest.approx(one.time / 2, rel=1e-9)
    assert sum(two.sim.nbytes) == pytest.approx(sum(one.sim.nbytes), rel=1e-12)


def test_simulate_rings_rejects_rings_over_different_ranks():
    g = nx.cycle_graph(4)
    nx.set_edge_attributes(g, 1e9, "bandwidth")
    nx.set_edge_attributes(g, 1e-6, "latency")
    with pytest.raises(ValueError, match="rings\\[1\\]"):
        ns.simulate_rings(g, 1e6, [[0, 1, 2, 3], [0, 1, 2]])
    with pytest.raises(ValueError, match="op="):
        ns.simulate_rings(g, 1e6, [[0, 1, 2, 3]], op="alltoall")
