"""Tests of interconnect.moe: token routing, capacity, dropped tokens and AllToAll traffic."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from interconnect import collectives, moe, netsim, topology


# ----------------------------------------------------------------------------- routing
@pytest.mark.parametrize("n,e,k,skew", [(0, 4, 1, 0.0), (1000, 8, 1, 0.0), (1000, 8, 2, 1.0), (777, 16, 4, 2.0),
                                        (50, 3, 3, 0.5)])
def test_route_tokens_conserves_assignments(n, e, k, skew):
    # every token makes exactly top_k assignments
    t = moe.route_tokens(n, e, top_k=k, skew=skew, seed=3)
    assert t.shape == (e,) and t.dtype.kind == "i"
    assert t.sum() == n * k
    assert np.all(t >= 0)


def test_top_k_distinct_experts():
    # an expert is chosen at most once per token: no expert can exceed n_tokens
    t = moe.route_tokens(500, 4, top_k=3, skew=3.0, seed=0)
    assert t.max() <= 500


def test_route_tokens_deterministic():
    a = moe.route_tokens(10_000, 32, top_k=2, skew=0.7, seed=11)
    b = moe.route_tokens(10_000, 32, top_k=2, skew=0.7, seed=11)
    c = moe.route_tokens(10_000, 32, top_k=2, skew=0.7, seed=12)
    assert np.array_equal(a, b) and not np.array_equal(a, c)


def test_uniform_routing_is_balanced_for_large_n():
    # skew 0, top-1: loads are multinomial(n, 1/E); each load's std is sqrt(n (1/E)(1-1/E)).
    # A union bound over E experts at 6 sigma gives max/mean < 1 + 6 sqrt(E/n) with
    # probability > 1 - E * 1e-9; the seed makes the check repeatable.
    n, e = 1_000_000, 64
    for seed in range(3):
        imb = moe.imbalance(moe.route_tokens(n, e, skew=0.0, seed=seed))
        assert 1.0 <= imb < 1.0 + 6.0 * math.sqrt(e / n)


def test_uniform_topk_is_balanced():
    n, e, k = 200_000, 16, 2
    imb = moe.imbalance(moe.route_tokens(n, e, top_k=k, skew=0.0, seed=5))
    assert imb < 1.0 + 6.0 * math.sqrt(e / (n * k))


def test_popularity_is_a_distribution_and_zipf():
    p = moe.expert_popularity(10, skew=1.0, seed=4)
    assert p.sum() == pytest.approx(1.0)
    # Zipf: sorted weights proportional to 1/r
    s = np.sort(p)[::-1]
    assert np.allclose(s / s[0], 1.0 / np.arange(1, 11))
    assert np.allclose(moe.expert_popularity(10, 0.0), 0.1)


@settings(max_examples=60, deadline=None)
@given(e=st.integers(1, 256), s1=st.floats(0, 4), ds=st.floats(0, 4), seed=st.integers(0, 1000))
def test_more_skew_never_lowers_expected_max_load(e, s1, ds, seed):
    # robust formulation: the *expected* top-1 max load is n * max(p), with p the popularity;
    # max(p) = 1 / sum_r r^-s is non-decreasing in s (each term r^-s falls with s). No sampling noise.
    p1 = moe.expert_popularity(e, s1, seed)
    p2 = moe.expert_popularity(e, s1 + ds, seed)
    assert p2.max() >= p1.max() - 1e-12


@settings(max_examples=25, deadline=None)
@given(s1=st.floats(0, 2), seed=st.integers(0, 100))
def test_more_skew_raises_sampled_max_load_beyond_noise(s1, seed):
    # sampled version: a step of +1 in skew raises the expected max share by a margin that
    # exceeds 6 standard deviations of the sampled max at n = 200,000 tokens.
    n, e = 200_000, 32
    lo = moe.route_tokens(n, e, skew=s1, seed=seed).max()
    hi = moe.route_tokens(n, e, skew=s1 + 1.0, seed=seed).max()
    assert hi >= lo - 6.0 * math.sqrt(n)


def test_dispatch_counts_rows():
    d = moe.dispatch_counts(8000, 16, ep=4, top_k=2, skew=0.5, seed=1)
    assert d.shape == (4, 16)
    assert np.all(d.sum(axis=1) == 8000 // 4 * 2)
    assert d.sum() == 8000 * 2


# ----------------------------------------------------------------------------- capacity
def test_capacity_formula():
    # Fedus et al. 2022 eq. (3): (tokens / experts) x capacity factor
    assert moe.capacity(1024, 8, 1, 1.0) == 128
    assert moe.capacity(1024, 8, 1, 1.25) == 160
    # top-2 doubles the average load (GShard: 2N/E)
    assert moe.capacity(1024, 8, 2, 1.0) == 256
    # rounded up to a whole token
    assert moe.capacity(10, 3, 1, 1.0) == 4


def test_dropped_tokens_zero_when_capacity_covers_max():
    t = moe.route_tokens(5000, 8, top_k=2, skew=1.0, seed=2)
    assert moe.dropped_tokens(t, int(t.max())) == 0
    assert moe.dropped_tokens(t, int(t.max()) + 10) == 0
    assert moe.dropped_tokens(t, int(t.max()) - 1) >= 1
    assert moe.dropped_tokens([5, 1, 9], 4) == 1 + 5


@settings(max_examples=40, deadline=None)
@given(loads=st.lists(st.integers(0, 10_000), min_size=1, max_size=64), c1=st.integers(0, 10_000),
       dc=st.integers(0, 10_000))
def test_dropped_tokens_monotone_in_capacity(loads, c1, dc):
    assert moe.dropped_tokens(loads, c1 + dc) <= moe.dropped_tokens(loads, c1) <= sum(loads)


def test_imbalance():
    assert moe.imbalance([4, 4, 4, 4]) == 1.0
    assert moe.imbalance([8, 0, 0, 0]) == 4.0
    assert moe.imbalance(np.array([1, 2, 3])) == pytest.approx(1.5)


def test_rank_loads_blocks():
    assert moe.rank_loads([1, 2, 3, 4, 5, 6], 3).tolist() == [3, 7, 11]
    assert moe.rank_loads(np.ones((2, 4), int), 2).tolist() == [4, 4]


# ----------------------------------------------------------------------------- AllToAll traffic
def test_alltoall_matrix_row_sums_are_bytes_sent():
    d = moe.dispatch_counts(4096, 16, ep=8, top_k=2, skew=1.0, seed=0)
    h, b = 1024, 2
    m = moe.alltoall_matrix(d, 8, h, b)
    assert m.shape == (8, 8)
    np.testing.assert_allclose(m.sum(axis=1), d.sum(axis=1) * h * b)
    # column sums are what each rank receives: its experts' loads
    np.testing.assert_allclose(m.sum(axis=0), moe.rank_loads(d, 8) * h * b)


def test_alltoall_matrix_from_vector_splits_evenly():
    m = moe.alltoall_matrix(np.array([10, 3, 0, 7]), 2, hidden=1, bytes_per_element=1)
    assert m.tolist() == [[7.0, 4.0], [6.0, 3.0]]
    assert m.sum() == 20


def test_uniform_matrix_matches_collectives_nbytes():
    # balanced traffic: each rank sends nbytes/ep to every rank (nccl-tests: nbytes per rank)
    ep, h = 4, 8
    t = np.full(8, 100)  # 800 assignments over 4 ranks: 200 per rank
    m = moe.alltoall_matrix(t, ep, h, 2)
    assert np.allclose(m, m[0, 0])
    per_rank = m.sum(axis=1)[0]
    assert per_rank == 800 // ep * h * 2


def test_alltoall_flows_on_nvswitch_match_closed_form():
    # balanced AllToAll on a crossbar: simulated time = (p-1)/p * n / B + path latency
    g = topology.nvswitch(8, "nvlink4")
    m = moe.alltoall_matrix(np.full(8, 8 * 1024), 8, 4096, 2)
    flows = moe.alltoall_flows(m, topology.gpus(g))
    assert len(flows) == 56
    res = netsim.simulate(g, flows)
    bw = g.edges["gpu0", next(iter(g["gpu0"]))]["bandwidth"]
    n = m.sum(axis=1)[0]
    lat = topology.path_latency(g, "gpu0", "gpu1")
    assert res.makespan == pytest.approx(7 / 8 * n / bw + lat, rel=1e-6)


def test_moe_layer_time():
    r = moe.moe_layer_time(4096, 4096, 16384, ep=8, top_k=2, peak_flops=1e15, bandwidth=50e9, latency=0.0,
                           gemm_efficiency=1.0)
    assert r["compute"] == pytest.approx(4096 * 2 * 4 * 4096 * 16384 / 1e15)
    nbytes = 4096 * 2 * 4096 * 2
    assert r["alltoall_bytes"] == nbytes
    assert r["dispatch"] == pytest.approx(collectives.collective_time("alltoall", nbytes, 8, 50e9, 0.0, "direct"))
    assert 0 < r["comm_share"] < 1
    assert moe.moe_layer_time(16, 8, 8, 1, 1, 1e12, 1e9, gemm_efficiency=1.0)["dispatch"] == 0.0


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call,match", [
    (lambda: moe.route_tokens(-1, 4), "n_tokens"),
    (lambda: moe.route_tokens(10, 0), "n_experts"),
    (lambda: moe.route_tokens(10, 4, top_k=5), "top_k"),
    (lambda: moe.route_tokens(10, 4, skew=-0.5), "skew"),
    (lambda: moe.route_tokens(10, 4, seed=-1), "seed"),
    (lambda: moe.route_tokens(10.5, 4), "n_tokens"),
    (lambda: moe.capacity(10, 4, 1, 0.0), "capacity_factor"),
    (lambda: moe.capacity(10, 4, 0, 1.0), "top_k"),
    (lambda: moe.dropped_tokens([1, -2], 3), "tokens_per_expert"),
    (lambda: moe.dropped_tokens([1, 2], -3), "capacity"),
    (lambda: moe.imbalance([0, 0]), "tokens_per_expert"),
    (lambda: moe.alltoall_matrix([1, 2, 3], 2, 8), "ep"),
    (lambda: moe.alltoall_matrix([1, 2], 2, 0), "hidden"),
    (lambda: moe.alltoall_matrix([1, 2], 2, 8, bytes_per_element=0), "bytes_per_element"),
    (lambda: moe.alltoall_matrix(np.ones((3, 4), int), 2, 8), "rows"),
    (lambda: moe.dispatch_counts(10, 4, 4), "n_tokens"),
    (lambda: moe.alltoall_flows(np.ones((2, 3)), ["a", "b"]), "matrix"),
    (lambda: moe.alltoall_flows(np.ones((2, 2)), ["a"]), "gpus"),
    (lambda: moe.moe_layer_time(1, 1, 1, 2, 1, 1e12, 1e9, gemm_efficiency=1.0, imbalance_factor=0.5),
     "imbalance_factor"),
    (lambda: moe.moe_layer_time(1, 1, 1, 2, 1, 1e12, 1e9, gemm_efficiency=1.5), "gemm_efficiency"),
])
def test_errors_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_moe_layer_time_needs_a_named_gemm_efficiency():
    # no default: a forgotten efficiency would silently price the experts at the dense peak
    with pytest.raises(TypeError, match="gemm_efficiency"):
        moe.moe_layer_time(1024, 512, 1024, 4, 2, 1e15, 1e11)


def test_moe_layer_time_gated_ffn():
    # SwiGLU experts have 3 matrices: 1.5x the FLOPs of a 2-matrix FFN
    a = moe.moe_layer_time(1024, 512, 1024, 4, 2, 1e15, 1e11, gemm_efficiency=0.8)
    b = moe.moe_layer_time(1024, 512, 1024, 4, 2, 1e15, 1e11, gemm_efficiency=0.8, matrices=3)
    assert b["compute"] == pytest.approx(1.5 * a["compute"])
    assert b["dispatch"] == a["dispatch"]


# ----------------------------------------------------------------- cross_node_dispatch
def _sample_node_copies(e, k, n, m, tokens=40000, seed=0):
    """Monte Carlo of the model cross_node_dispatch states: the token sits on node 0, picks m
    of the n nodes uniformly at random, then k distinct experts uniformly among their m g
    experts; count the distinct other nodes that receive it."""
    rng = np.random.default_rng(seed)
    g = e // n
    total = 0
    for _ in range(tokens):
        chosen = rng.choice(n, size=m, replace=False)
        experts = rng.choice(m * g, size=k, replace=False)
        dest = set(chosen[experts // g].tolist())
        total += len(dest - {0})
    return total / tokens


@pytest.mark.parametrize("e, k, n, m", [(256, 8, 8, 4), (256, 8, 8, 8), (64, 2, 4, 2), (32, 6, 4, 3)])
def test_cross_node_dispatch_matches_its_sampling_model(e, k, n, m):
    # the closed form is the expectation of the process its docstring describes
    r = moe.cross_node_dispatch(e, k, n, node_limit=m)
    assert r["copies"] == pytest.approx(_sample_node_copies(e, k, n, m), rel=0.02)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(1, 6), st.data())
def test_cross_node_dispatch_bounds_and_monotone_in_the_limit(n, g, k, data):
    e = n * g
    m_min = -(-k // g)                       # the fewest nodes that hold k experts
    if m_min > n:
        return
    m = data.draw(st.integers(m_min, n))
    r = moe.cross_node_dispatch(e, k, n, node_limit=m)
    plain = moe.cross_node_dispatch(e, k, n, node_limit=m, per_node=False)
    assert r["max_copies"] == min(k, m, n - 1)
    assert 0 <= r["copies"] <= r["max_copies"] + 1e-12
    # one copy per node never sends more than one copy per expert
    assert r["copies"] <= plain["copies"] + 1e-12
    # a looser limit never sends fewer copies; no limit is the loosest
    if m < n:
        assert moe.cross_node_dispatch(e, k, n, node_limit=m + 1)["copies"] >= r["copies"] - 1e-12
    assert moe.cross_node_dispatch(e, k, n)["copies"] == pytest.approx(
        moe.cross_node_dispatch(e, k, n, node_limit=n)["copies"])


def test_cross_node_dispatch_closed_forms():
    # plain AllToAll: k (N - 1)/N copies, whatever the limit
    for m in (None, 2):
        assert moe.cross_node_dispatch(256, 8, 8, node_limit=m, per_node=False)["copies"] == pytest.approx(7.0)
    # no limit, one copy per node: (N - 1)(1 - C(E - g, k)/C(E, k))
    expected = 7 * (1 - math.comb(224, 8) / math.comb(256, 8))
    assert moe.cross_node_dispatch(256, 8, 8)["copies"] == pytest.approx(expected)
    # one node: nothing crosses the network; M = 1: the one chosen node is another with probability (N-1)/N
    assert moe.cross_node_dispatch(16, 4, 1)["copies"] == 0
    assert moe.cross_node_dispatch(256, 8, 8, node_limit=1)["copies"] == pytest.approx(7 / 8)
    # bytes are copies x hidden x bytes per element (DeepSeek-V3: h = 7168, FP8 dispatch)
    r = moe.cross_node_dispatch(256, 8, 8, hidden=7168, node_limit=4, bytes_per_element=1)
    assert r["bytes"] == pytest.approx(r["copies"] * 7168) and r["max_bytes"] == 4 * 7168


@pytest.mark.parametrize("call, match", [
    (lambda: moe.cross_node_dispatch(10, 2, 4), "n_experts"),
    (lambda: moe.cross_node_dispatch(16, 2, 4, node_limit=5), "node_limit"),
    (lambda: moe.cross_node_dispatch(16, 9, 4, node_limit=2), "top_k"),
    (lambda: moe.cross_node_dispatch(16, 2, 4, hidden=0), "hidden"),
    (lambda: moe.cross_node_dispatch(16, 2, 4, bytes_per_element=0), "bytes_per_element"),
    (lambda: moe.cross_node_dispatch(16, 2, 4, per_node="yes"), "per_node"),
])
def test_cross_node_dispatch_errors_name_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_moe_doctests():
    import doctest
    assert doctest.testmod(moe, optionflags=doctest.ELLIPSIS).failed == 0
