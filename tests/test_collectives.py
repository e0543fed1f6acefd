"""Tests for interconnect.collectives: alpha-beta-gamma closed forms, bus bandwidth,
vectorisation, algorithm choice, crossover sizes, validation, and model invariants.

Every expected cost below is written out here, independently of the library, from
Thakur, Rabenseifner & Gropp (2005), IJHPCA 19(1):49-66, and the identical cost
comments in pmodels/mpich src/mpi/coll/*.c, as quoted in shared/REFERENCES.md sec. 2.
Notation: n bytes (nccl-tests "full vector" convention), alpha s/message,
beta = 1/bandwidth s/byte, gamma s/byte reduced, p ranks, lg = log2.
"""

import doctest
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import interconnect.collectives as coll
from interconnect.collectives import (
    ALGORITHMS,
    APPLICABLE,
    DESCRIPTION,
    OPS,
    algorithm_bandwidth,
    best_algorithm,
    bus_bandwidth,
    bus_factor,
    collective_time,
    cost_terms,
    crossover_size,
)

POW2_ONLY = {"recursive_doubling", "rabenseifner", "bruck"}
PAIRS = [(op, alg) for op in OPS for alg in APPLICABLE[op]]
PAIR_IDS = [f"{op}-{alg}" for op, alg in PAIRS]
P_POW2 = (1, 2, 4, 8, 16, 64, 1024)
P_OTHER = (3, 5, 6, 7, 12, 48, 100, 1000)

FAST = settings(max_examples=60, deadline=None, database=None)


def closed_form(op, alg, p, n, alpha, beta, gamma):
    """Expected time, written out from the published cost formulas (not from the library)."""
    lg = math.log2(p)          # exact for powers of two (the only p these forms are used with)
    clg = math.ceil(math.log2(p))  # binomial trees take ceil(lg p) rounds for any p
    f = (p - 1) / p
    forms = {
        # Thakur 2005 sec. 4.1; mpich bcast_intra_binomial.c: "lgp.alpha + n.lgp.beta"
        ("broadcast", "tree"): clg * (alpha + n * beta),
        # Thakur 2005 sec. 4.1 (van de Geijn), bcast_intra_scatter_ring_allgather.c:
        # (lg p + p - 1) alpha + 2 ((p-1)/p) n beta  (binomial scatter: ceil(lg p) for any p)
        ("broadcast", "ring"): (clg + p - 1) * alpha + 2 * f * n * beta,
        # bcast_intra_scatter_recursive_doubling_allgather.c: 2 lg p alpha + 2 ((p-1)/p) n beta
        ("broadcast", "recursive_doubling"): 2 * lg * alpha + 2 * f * n * beta,
        # collectives.py DESCRIPTION: root sends the whole message to each of p-1 ranks in
        # turn, (p-1)(alpha + n beta) -- the naive linear algorithm, not costed by Thakur
        ("broadcast", "direct"): (p - 1) * (alpha + n * beta),
        # Thakur 2005 sec. 4.4; reduce_intra_binomial.c: ceil(lg p)(alpha + n beta + n gamma)
        ("reduce", "tree"): clg * (alpha + n * beta + n * gamma),
        # ring reduce-scatter (p-1) alpha + ((p-1)/p) n (beta + gamma)  [Thakur sec. 4.5]
        # + binomial gather ceil(lg p) alpha + ((p-1)/p) n beta        [gather_intra_binomial.c]
        ("reduce", "ring"): (p - 1 + clg) * alpha + 2 * f * n * beta + f * n * gamma,
        # reduce_intra_reduce_scatter_gather.c: 2 lg p alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma
        ("reduce", "rabenseifner"): 2 * lg * alpha + 2 * f * n * beta + f * n * gamma,
        # linear reduce: root receives and reduces p-1 whole messages, (p-1)(alpha + n beta + n gamma)
        ("reduce", "direct"): (p - 1) * (alpha + n * beta + n * gamma),
        # scatter_intra_binomial.c / gather_intra_binomial.c: lg p alpha + ((p-1)/p) n beta
        ("scatter", "tree"): clg * alpha + f * n * beta,
        ("gather", "tree"): clg * alpha + f * n * beta,
        # linear scatter/gather: p-1 messages of n/p each, (p-1) alpha + ((p-1)/p) n beta
        ("scatter", "direct"): (p - 1) * alpha + f * n * beta,
        ("gather", "direct"): (p - 1) * alpha + f * n * beta,
        # allgather_intra_ring.c: (p-1) alpha + ((p-1)/p) n beta
        ("allgather", "ring"): (p - 1) * alpha + f * n * beta,
        # allgather_intra_recursive_doubling.c: lg p alpha + ((p-1)/p) n beta
        ("allgather", "recursive_doubling"): lg * alpha + f * n * beta,
        # pairwise allgather: p-1 steps of n/p, same cost as the ring
        ("allgather", "direct"): (p - 1) * alpha + f * n * beta,
        # reduce_scatter_intra_pairwise.c: (p-1) alpha + ((p-1)/p) n beta + ((p-1)/p) n gamma
        ("reducescatter", "ring"): (p - 1) * alpha + f * n * beta + f * n * gamma,
        ("reducescatter", "direct"): (p - 1) * alpha + f * n * beta + f * n * gamma,
        # reduce_scatter_intra_recursive_halving.c: lg p alpha + ((p-1)/p) n (beta + gamma)
        ("reducescatter", "rabenseifner"): lg * alpha + f * n * beta + f * n * gamma,
        # reduce_scatter_intra_recursive_doubling.c (non-commutative):
        # lg p alpha + n (lg p - (p-1)/p) beta + n (lg p - (p-1)/p) gamma
        ("reducescatter", "recursive_doubling"): lg * alpha + n * (lg - f) * beta + n * (lg - f) * gamma,
        # ring RS + ring AG (REFERENCES.md sec. 2, Patarasuk & Yuan 2009):
        # 2 (p-1) alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma
        ("allreduce", "ring"): 2 * (p - 1) * alpha + 2 * f * n * beta + f * n * gamma,
        ("allreduce", "direct"): 2 * (p - 1) * alpha + 2 * f * n * beta + f * n * gamma,
        # binomial reduce then binomial broadcast (Thakur sec. 4.6):
        # 2 ceil(lg p) alpha + 2 ceil(lg p) n beta + ceil(lg p) n gamma
        ("allreduce", "tree"): 2 * clg * (alpha + n * beta) + clg * n * gamma,
        # allreduce_intra_recursive_doubling.c: lg p alpha + n lg p beta + n lg p gamma
        ("allreduce", "recursive_doubling"): lg * (alpha + n * beta + n * gamma),
        # Thakur sec. 4.6, allreduce_intra_reduce_scatter_allgather.c:
        # 2 lg p alpha + 2 ((p-1)/p) n beta + ((p-1)/p) n gamma
        ("allreduce", "rabenseifner"): 2 * lg * alpha + 2 * f * n * beta + f * n * gamma,
        # alltoall_intra_pairwise.c / Thakur 2005 give (p-1) alpha + n beta, rounding the
        # (p-1) messages of n/p up to n. collectives.py keeps the exact ((p-1)/p) n beta
        # (the piece a rank keeps for itself is not sent); this tests the library's form.
        ("alltoall", "direct"): (p - 1) * alpha + f * n * beta,
        # alltoall_intra_brucks.c (p a power of two): lg p alpha + (n/2) lg p beta
        ("alltoall", "bruck"): lg * alpha + (n / 2) * lg * beta,
    }
    return forms[(op, alg)]


def lower_bound(op, p, n, alpha, beta, gamma):
    """Chan, Heimlich, Purkayastha & van de Geijn 2007, Table 1 (REFERENCES.md sec. 2)."""
    clg = math.ceil(math.log2(p))
    f = (p - 1) / p
    if p == 1:
        return 0.0
    return {
        "broadcast": clg * alpha + n * beta,
        "reduce": clg * alpha + n * beta + f * n * gamma,
        "scatter": clg * alpha + f * n * beta,
        "gather": clg * alpha + f * n * beta,
        "allgather": clg * alpha + f * n * beta,
        "reducescatter": clg * alpha + f * n * beta + f * n * gamma,
        "allreduce": clg * alpha + 2 * f * n * beta + f * n * gamma,
        # Not in Chan's table; derived the same way: information must spread to all p ranks
        # (>= ceil(lg p) rounds) and each rank must send the (p-1)/p of n it does not keep.
        "alltoall": clg * alpha + f * n * beta,
    }[op]


def _ps(alg):
    return P_POW2 if alg in POW2_ONLY else P_POW2 + P_OTHER


CASES = [(op, alg, p) for op, alg in PAIRS for p in _ps(alg)]


# --------------------------------------------------------------------------- tables
def test_applicable_and_description_cover_the_same_pairs():
    # every costed pair has a one-line description, and nothing else has one
    assert set(DESCRIPTION) == set(PAIRS)
    assert set(APPLICABLE) == set(OPS)
    assert all(set(a) <= set(ALGORITHMS) for a in APPLICABLE.values())


def test_docstring_examples():
    # the collective_time docstring example (1 GB ring allreduce, 8 GPUs, 450 GB/s, 5 us)
    assert doctest.testmod(coll, raise_on_error=False).failed == 0


# --------------------------------------------------------------------------- closed forms
@pytest.mark.parametrize("op, alg, p", CASES, ids=[f"{o}-{a}-p{p}" for o, a, p in CASES])
def test_closed_form(op, alg, p):
    # REFERENCES.md sec. 2 (Thakur et al. 2005 / MPICH cost comments), formula in closed_form()
    n, bw, alpha, gamma = 3.0e8, 2.0e11, 4.0e-6, 1.0e-11
    got = collective_time(op, n, p, bw, alpha, alg, gamma=gamma)
    assert got == pytest.approx(closed_form(op, alg, p, n, alpha, 1 / bw, gamma), rel=1e-12, abs=0)


@pytest.mark.parametrize("op, alg, p", CASES, ids=[f"{o}-{a}-p{p}" for o, a, p in CASES])
def test_cost_terms_separate_alpha_beta_gamma(op, alg, p):
    # each coefficient alone: set two of (alpha, beta, gamma) to zero in the closed form
    a, b, c = cost_terms(op, p, alg)
    assert a == pytest.approx(closed_form(op, alg, p, 1.0, 1.0, 0.0, 0.0), rel=1e-12, abs=1e-15)
    assert b == pytest.approx(closed_form(op, alg, p, 1.0, 0.0, 1.0, 0.0), rel=1e-12, abs=1e-15)
    assert c == pytest.approx(closed_form(op, alg, p, 1.0, 0.0, 0.0, 1.0), rel=1e-12, abs=1e-15)
    assert all(isinstance(x, float) for x in (a, b, c))


@pytest.mark.parametrize("op, alg", PAIRS, ids=PAIR_IDS)
def test_one_rank_costs_nothing(op, alg):
    # p = 1: no message is sent, so every algorithm takes 0 s (all closed forms vanish)
    assert cost_terms(op, 1, alg) == (0.0, 0.0, 0.0)
    assert collective_time(op, 1e9, 1, 1e9, 1e-5, alg, gamma=1e-9) == 0.0


def test_rabenseifner_matches_thakur_written_form():
    # Thakur 2005 sec. 4.6 writes Rabenseifner's allreduce as
    # 2 lg p alpha + 2 n beta + n gamma - (1/p)(2 n beta + n gamma)
    n, bw, alpha, gamma = 1e8, 1e11, 2e-6, 3e-12
    for p in (2, 4, 32, 256):
        beta = 1 / bw
        thakur = 2 * math.log2(p) * alpha + 2 * n * beta + n * gamma - (2 * n * beta + n * gamma) / p
        assert collective_time("allreduce", n, p, bw, alpha, "rabenseifner", gamma) == pytest.approx(thakur, rel=1e-12)


def test_pairwise_alltoall_differs_from_thakur_rounding_by_n_over_p():
    # Thakur 2005 sec. 4.7 rounds pairwise alltoall to (p-1) alpha + n beta; the library
    # keeps ((p-1)/p) n beta. The gap is exactly n beta / p, vanishing as p grows.
    n, bw, alpha = 1e9, 1e11, 1e-6
    for p in (2, 8, 100):
        thakur = (p - 1) * alpha + n / bw
        assert thakur - collective_time("alltoall", n, p, bw, alpha, "direct") == pytest.approx(n / bw / p, rel=1e-9)


def test_docstring_value_by_hand():
    # 1 GB ring allreduce, 8 GPUs, 450 GB/s, 5 us: 14 * 5 us + 2 * 7/8 * 1e9 / 450e9 = 3.959 ms
    expected = 14 * 5e-6 + 2 * 7 / 8 * 1e9 / 450e9
    assert collective_time("allreduce", 1e9, 8, 450e9, 5e-6) == pytest.approx(expected, rel=1e-12)
    assert round(expected * 1e3, 3) == 3.959


# --------------------------------------------------------------------------- bus bandwidth
NCCL_FACTOR = {
    # nccl-tests doc/PERFORMANCE.md (and src/*.cu GetBw for scatter/gather)
    "allreduce": lambda p: 2 * (p - 1) / p,
    "reducescatter": lambda p: (p - 1) / p,
    "allgather": lambda p: (p - 1) / p,
    "alltoall": lambda p: (p - 1) / p,
    "scatter": lambda p: (p - 1) / p,
    "gather": lambda p: (p - 1) / p,
    "broadcast": lambda p: 1.0,
    "reduce": lambda p: 1.0,
}


@pytest.mark.parametrize("op", OPS)
def test_bus_factor(op):
    # nccl-tests doc/PERFORMANCE.md: busbw = algbw * factor
    for p in (1, 2, 3, 8, 72, 1000):
        assert bus_factor(op, p) == pytest.approx(NCCL_FACTOR[op](p), rel=1e-15, abs=0)
    ps = np.array([1, 2, 3, 8, 72])
    np.testing.assert_allclose(bus_factor(op, ps), [NCCL_FACTOR[op](int(p)) for p in ps], rtol=1e-15)
    assert bus_bandwidth(op, 10e9, 8) == pytest.approx(10e9 * NCCL_FACTOR[op](8), rel=1e-15)


def test_algorithm_bandwidth():
    # nccl-tests: algbw = S / t
    assert algorithm_bandwidth(1e9, 0.01) == 1e11
    np.testing.assert_allclose(algorithm_bandwidth(np.array([1e6, 1e9]), 1e-3), [1e9, 1e12])


@pytest.mark.parametrize("p", [2, 3, 5, 7, 8, 12, 64, 100, 1000, 1024])
def test_ring_busbw_equals_link_bandwidth_at_zero_latency(p):
    # nccl-tests PERFORMANCE.md: busbw is defined so that a ring allreduce on an ideal
    # network reports the link bandwidth for any p. With alpha = 0, t = 2(p-1)/p * n / B,
    # algbw = n / t, busbw = algbw * 2(p-1)/p = B exactly (up to one rounding of floats).
    # Same for ring allgather / reducescatter and pairwise alltoall (factor (p-1)/p).
    bw, n = 123.456e9, 7.77e8
    for op, alg in (("allreduce", "ring"), ("allgather", "ring"), ("reducescatter", "ring"),
                    ("alltoall", "direct")):
        t = collective_time(op, n, p, bw, 0.0, alg)
        assert bus_bandwidth(op, algorithm_bandwidth(n, t), p) == pytest.approx(bw, rel=1e-14)


@FAST
@given(p=st.integers(2, 4096), n=st.floats(1.0, 1e12), bw=st.floats(1e6, 1e13))
def test_ring_busbw_property(p, n, bw):
    # same invariant as above over random (p, n, bandwidth)
    t = collective_time("allreduce", n, p, bw, 0.0, "ring")
    assert bus_bandwidth("allreduce", algorithm_bandwidth(n, t), p) == pytest.approx(bw, rel=1e-12)


# --------------------------------------------------------------------------- vectorisation
def _grid_vs_loop(op, alg, n_sizes):
    sizes = np.logspace(0, 11, n_sizes)
    ps = np.array([1, 2, 4, 8, 64, 512]) if alg in POW2_ONLY else np.array([1, 2, 3, 7, 8, 48, 100])
    grid = collective_time(op, sizes[:, None], ps[None, :], 2.5e10, 3e-6, alg, gamma=2e-12)
    assert grid.shape == (n_sizes, len(ps))
    loop = np.array([[collective_time(op, float(s), int(p), 2.5e10, 3e-6, alg, gamma=2e-12) for p in ps]
                     for s in sizes])
    np.testing.assert_allclose(grid, loop, rtol=1e-15, atol=0)


@pytest.mark.parametrize("op, alg", [("allreduce", "ring"), ("allreduce", "rabenseifner"), ("alltoall", "bruck")])
def test_vectorised_1000_sizes_grid_equals_scalar_loop(op, alg):
    # one call over a (1000 sizes x several p) grid gives the same numbers as the scalar loop
    _grid_vs_loop(op, alg, 1000)


@pytest.mark.parametrize("op, alg", PAIRS, ids=PAIR_IDS)
def test_vectorised_grid_equals_scalar_loop_every_pair(op, alg):
    # the same for every (op, algorithm), on a smaller grid to keep the file fast
    _grid_vs_loop(op, alg, 40)


def test_vectorised_bandwidth_and_latency_broadcast():
    # arrays of bandwidth and latency broadcast like numpy operands
    bw = np.array([1e9, 1e10, 1e11])
    lat = np.array([[0.0], [1e-6]])
    t = collective_time("allreduce", 1e8, 8, bw, lat)
    assert t.shape == (2, 3)
    for i in range(2):
        for j in range(3):
            assert t[i, j] == collective_time("allreduce", 1e8, 8, float(bw[j]), float(lat[i, 0]))


def test_scalar_inputs_give_python_float():
    assert type(collective_time("allreduce", 1e6, 8, 1e10, 1e-6)) is float
    assert type(cost_terms("allreduce", 8)[0]) is float


# --------------------------------------------------------------------------- best algorithm
def test_best_algorithm_small_messages_pick_log_p():
    # latency-bound: 8 bytes over 64 ranks. Fewest alpha terms win (Thakur 2005 sec. 4.6:
    # recursive doubling for short allreduce; MPICH: binomial bcast < 12 KB; Bruck alltoall <= 256 B)
    kw = dict(nbytes=8.0, p=64, bandwidth=450e9, latency=5e-6)
    assert best_algorithm("allreduce", **kw)[0] == "recursive_doubling"
    assert best_algorithm("broadcast", **kw)[0] == "tree"
    assert best_algorithm("alltoall", **kw)[0] == "bruck"
    assert best_algorithm("reducescatter", **kw)[0] == "rabenseifner"
    # non-power of two: the binomial tree is the log-p choice
    assert best_algorithm("allreduce", 8.0, 48, 450e9, 5e-6)[0] == "tree"


def test_best_algorithm_large_messages_pick_bandwidth_optimal():
    # bandwidth-bound: 10 GB. The winner has the least bytes on the critical path (b coefficient)
    for op in OPS:
        for p in (48, 64):
            name, t = best_algorithm(op, 1e10, p, 450e9, 5e-6)
            bs = [cost_terms(op, p, a)[1] for a in APPLICABLE[op]
                  if not (a in POW2_ONLY and p & (p - 1))]
            assert cost_terms(op, p, name)[1] == pytest.approx(min(bs), rel=1e-12)
    assert best_algorithm("allreduce", 1e10, 64, 450e9, 5e-6)[0] == "rabenseifner"
    assert best_algorithm("allreduce", 1e10, 48, 450e9, 5e-6)[0] == "ring"
    assert best_algorithm("broadcast", 1e10, 64, 450e9, 5e-6)[0] == "recursive_doubling"
    assert best_algorithm("broadcast", 1e10, 48, 450e9, 5e-6)[0] == "ring"
    assert best_algorithm("alltoall", 1e10, 64, 450e9, 5e-6)[0] == "direct"


def test_best_algorithm_ties_go_to_first_listed():
    # ring and direct allgather have identical cost: the first candidate wins
    assert best_algorithm("allgather", 1e6, 6, 1e10, 1e-6)[0] == "ring"
    assert best_algorithm("allgather", 1e6, 6, 1e10, 1e-6, algorithms=("direct", "ring"))[0] == "direct"


def test_best_algorithm_vectorised():
    # array input gives, per element, what the scalar call gives; pow2-only algorithms are
    # skipped where p is not a power of two
    sizes = np.logspace(0, 10, 50)[:, None]
    ps = np.array([[3, 8, 48, 64]])
    names, times = best_algorithm("allreduce", sizes, ps, 1e11, 2e-6)
    assert names.shape == times.shape == (50, 4)
    for i in range(50):
        for j in range(4):
            n1, t1 = best_algorithm("allreduce", float(sizes[i, 0]), int(ps[0, j]), 1e11, 2e-6)
            assert names[i, j] == n1 and times[i, j] == pytest.approx(t1, rel=1e-15)
            if ps[0, j] in (3, 48):
                assert names[i, j] not in POW2_ONLY


def test_best_algorithm_errors():
    with pytest.raises(ValueError, match="algorithms"):
        best_algorithm("allreduce", 1e6, 8, 1e10, 1e-6, algorithms=())
    with pytest.raises(ValueError, match="algorithm='bruck'"):
        best_algorithm("allreduce", 1e6, 8, 1e10, 1e-6, algorithms=("bruck",))
    with pytest.raises(ValueError, match="p=6"):
        best_algorithm("allreduce", 1e6, 6, 1e10, 1e-6, algorithms=("recursive_doubling",))
    with pytest.raises(ValueError, match="op="):
        best_algorithm("allreduc", 1e6, 8, 1e10, 1e-6)
    with pytest.raises(ValueError, match="nbytes"):
        best_algorithm("allreduce", 0, 8, 1e10, 1e-6)


# --------------------------------------------------------------------------- crossover
@pytest.mark.parametrize("op, a, b, p", [
    ("allreduce", "recursive_doubling", "rabenseifner", 8),
    ("allreduce", "recursive_doubling", "ring", 64),
    ("allreduce", "tree", "ring", 48),
    ("broadcast", "tree", "ring", 48),
    ("broadcast", "tree", "recursive_doubling", 1024),
    ("alltoall", "bruck", "direct", 64),
    ("reduce", "tree", "rabenseifner", 16),
])
def test_crossover_size_is_where_times_are_equal(op, a, b, p):
    # linear times a_A alpha + n k_A = a_B alpha + n k_B meet at n*; check with collective_time
    bw, lat, gamma = 2e10, 3e-6, 1e-11
    n = crossover_size(op, p, bw, lat, a, b, gamma)
    assert 0 < n < math.inf
    ta = collective_time(op, n, p, bw, lat, a, gamma)
    tb = collective_time(op, n, p, bw, lat, b, gamma)
    assert ta == pytest.approx(tb, rel=1e-9)
    # below n* the latency-light algorithm a wins, above it b wins
    assert collective_time(op, n / 2, p, bw, lat, a, gamma) < collective_time(op, n / 2, p, bw, lat, b, gamma)
    assert collective_time(op, n * 2, p, bw, lat, a, gamma) > collective_time(op, n * 2, p, bw, lat, b, gamma)
    # symmetric in the order of the two algorithms
    assert crossover_size(op, p, bw, lat, b, a, gamma) == pytest.approx(n, rel=1e-12)


def test_crossover_by_hand():
    # recursive doubling vs Rabenseifner allreduce (gamma = 0): lg p alpha + n lg p beta =
    # 2 lg p alpha + 2 (p-1)/p n beta  =>  n* = lg p alpha B / (lg p - 2 (p-1)/p)
    p, bw, lat = 8, 1e11, 1e-6
    expected = 3 * lat * bw / (3 - 2 * 7 / 8)
    got = crossover_size("allreduce", p, bw, lat, "recursive_doubling", "rabenseifner")
    assert got == pytest.approx(expected, rel=1e-12)


def test_crossover_inf_where_lines_never_cross():
    bw, lat = 1e11, 1e-6
    # same bytes term, fewer latencies: Rabenseifner always beats the ring for pow2 p
    assert crossover_size("allreduce", 64, bw, lat, "ring", "rabenseifner") == math.inf
    # p = 2: recursive doubling and Rabenseifner both move n beta, RD has fewer alpha
    assert crossover_size("allreduce", 2, bw, lat, "recursive_doubling", "rabenseifner") == math.inf
    # identical algorithms (ring vs direct allgather)
    assert crossover_size("allgather", 6, bw, lat, "ring", "direct") == math.inf
    # one algorithm better in both terms (binomial vs linear broadcast, p = 8: 3 alpha + 3 n beta
    # against 7 alpha + 7 n beta)
    assert crossover_size("broadcast", 8, bw, lat, "tree", "direct") == math.inf
    # zero latency: lines meet at n = 0 only
    assert crossover_size("allreduce", 8, bw, 0.0, "recursive_doubling", "rabenseifner") == math.inf
    # p = 1: all costs are zero
    assert crossover_size("allreduce", 1, bw, lat, "ring", "tree") == math.inf


def test_crossover_vectorised():
    ps = np.array([4, 8, 64])
    out = crossover_size("allreduce", ps, 1e11, 1e-6, "recursive_doubling", "rabenseifner")
    assert out.shape == (3,)
    for i, p in enumerate(ps):
        assert out[i] == crossover_size("allreduce", int(p), 1e11, 1e-6, "recursive_doubling", "rabenseifner")


# --------------------------------------------------------------------------- errors
GOOD = dict(op="allreduce", nbytes=1e6, p=8, bandwidth=1e10, latency=1e-6, algorithm="ring")


@pytest.mark.parametrize("change, match", [
    (dict(op="allreduc"), "op='allreduc'"),
    (dict(op=3), "op=3"),
    (dict(op=None), "op=None"),
    (dict(algorithm="rign"), "algorithm='rign'"),
    (dict(algorithm=1), "algorithm=1"),
    (dict(op="alltoall", algorithm="ring"), "algorithm='ring' is not defined for op='alltoall'"),
    (dict(op="scatter", algorithm="ring"), "algorithm='ring'"),
    (dict(op="allgather", algorithm="bruck"), "algorithm='bruck'"),
    (dict(p=6, algorithm="recursive_doubling"), "p=6 is not a power of two"),
    (dict(p=12, algorithm="rabenseifner"), "p=12 is not a power of two"),
    (dict(op="alltoall", p=3, algorithm="bruck"), "p=3 is not a power of two"),
    (dict(p=np.array([4, 6, 8]), algorithm="rabenseifner"), "p=6"),
    (dict(nbytes=0), "nbytes"),
    (dict(nbytes=-1.0), "nbytes"),
    (dict(nbytes=np.array([1.0, 0.0])), "nbytes"),
    (dict(nbytes=float("nan")), "nbytes"),
    (dict(nbytes=float("inf")), "nbytes"),
    (dict(nbytes="1e6"), "nbytes"),
    (dict(nbytes=None), "nbytes"),
    (dict(bandwidth=0), "bandwidth"),
    (dict(bandwidth=-5e9), "bandwidth"),
    (dict(bandwidth=float("nan")), "bandwidth"),
    (dict(bandwidth="fast"), "bandwidth"),
    (dict(latency=-1e-6), "latency"),
    (dict(latency=float("nan")), "latency"),
    (dict(latency="1us"), "latency"),
    (dict(p=0), "p=0"),
    (dict(p=-4), "p=-4"),
    (dict(p=2.5), "p=2.5"),
    (dict(p=float("nan")), "p=nan"),
    (dict(p="8"), "p='8'"),
    (dict(p=True), "p=True"),
    (dict(p=[]), "p is empty"),
])
def test_collective_time_errors_name_the_parameter(change, match):
    kw = GOOD | change
    with pytest.raises(ValueError, match=match.replace("(", r"\(").replace("[", r"\[")):
        collective_time(**kw)


def test_gamma_negative_or_nan_rejected():
    with pytest.raises(ValueError, match="gamma"):
        collective_time("allreduce", 1e6, 8, 1e10, 1e-6, gamma=-1e-12)
    with pytest.raises(ValueError, match="gamma"):
        collective_time("allreduce", 1e6, 8, 1e10, 1e-6, gamma=float("nan"))


def test_integer_valued_float_p_and_case_insensitive_names_accepted():
    ref = collective_time("allreduce", 1e6, 8, 1e10, 1e-6, "recursive_doubling")
    assert collective_time("AllReduce", 1e6, 8.0, 1e10, 1e-6, "Recursive-Doubling") == ref


def test_other_functions_validate():
    with pytest.raises(ValueError, match="op="):
        bus_factor("allreduc", 8)
    with pytest.raises(ValueError, match="p=0"):
        bus_factor("allreduce", 0)
    with pytest.raises(ValueError, match="algbw"):
        bus_bandwidth("allreduce", 0.0, 8)
    with pytest.raises(ValueError, match="time"):
        algorithm_bandwidth(1e6, 0.0)
    with pytest.raises(ValueError, match="bandwidth"):
        crossover_size("allreduce", 8, 0.0, 1e-6, "ring", "tree")
    with pytest.raises(ValueError, match="latency"):
        crossover_size("allreduce", 8, 1e10, -1.0, "ring", "tree")
    with pytest.raises(ValueError, match="algorithm='bruck'"):
        crossover_size("allreduce", 8, 1e10, 1e-6, "ring", "bruck")
    with pytest.raises(ValueError, match="p=6"):
        cost_terms("allreduce", 6, "rabenseifner")


# --------------------------------------------------------------------------- properties
@st.composite
def scenario(draw):
    op, alg = draw(st.sampled_from(PAIRS))
    if alg in POW2_ONLY:
        p = 2 ** draw(st.integers(0, 12))
    else:
        p = draw(st.integers(1, 5000))
    return dict(
        op=op, algorithm=alg, p=p,
        nbytes=draw(st.floats(1.0, 1e12)),
        bandwidth=draw(st.floats(1e6, 1e13)),
        latency=draw(st.floats(0.0, 1e-3)),
        gamma=draw(st.floats(0.0, 1e-9)),
    )


@FAST
@given(s=scenario(), k=st.floats(1.0, 1e3))
def test_more_bandwidth_never_slower(s, k):
    # beta enters with a non-negative coefficient
    assert collective_time(**(s | dict(bandwidth=s["bandwidth"] * k))) <= collective_time(**s)


@FAST
@given(s=scenario(), extra=st.floats(0.0, 1e-3))
def test_more_latency_never_faster(s, extra):
    # alpha enters with a non-negative coefficient
    assert collective_time(**(s | dict(latency=s["latency"] + extra))) >= collective_time(**s)


@FAST
@given(s=scenario(), k=st.floats(1.0, 1e3))
def test_larger_messages_never_faster(s, k):
    # beta and gamma terms are non-negative multiples of n
    assert collective_time(**(s | dict(nbytes=s["nbytes"] * k))) >= collective_time(**s)


@FAST
@given(s=scenario())
def test_time_at_least_chan_lower_bound(s):
    # Chan et al. 2007, Table 1 (REFERENCES.md sec. 2): no algorithm beats the lower bound
    t = collective_time(**s)
    lb = lower_bound(s["op"], s["p"], s["nbytes"], s["latency"], 1 / s["bandwidth"], s["gamma"])
    assert t >= lb * (1 - 1e-12)


@pytest.mark.parametrize("op, alg", PAIRS, ids=PAIR_IDS)
def test_lower_bound_each_pair_at_fixed_points(op, alg):
    # same bound, deterministically for every (op, algorithm) and p, alpha-only and beta-only
    for p in _ps(alg):
        for alpha, bw, gamma in ((1e-6, 1e30, 0.0), (0.0, 1e9, 0.0), (0.0, 1e30, 1e-9), (1e-6, 1e10, 1e-11)):
            t = collective_time(op, 1e8, p, bw, alpha, alg, gamma)
            assert t >= lower_bound(op, p, 1e8, alpha, 1 / bw, gamma) * (1 - 1e-12)


@FAST
@given(op=st.sampled_from(OPS), p=st.integers(1, 2048), n=st.floats(1.0, 1e12),
       bw=st.floats(1e6, 1e13), lat=st.floats(0.0, 1e-3), gamma=st.floats(0.0, 1e-9))
def test_best_algorithm_is_never_slower_than_any_applicable(op, p, n, bw, lat, gamma):
    name, t = best_algorithm(op, n, p, bw, lat, gamma=gamma)
    assert name in APPLICABLE[op]
    assert t == collective_time(op, n, p, bw, lat, name, gamma)
    for alg in APPLICABLE[op]:
        if alg in POW2_ONLY and p & (p - 1):
            continue
        assert t <= collective_time(op, n, p, bw, lat, alg, gamma)


# --- in-network reduction (NVLink SHARP / InfiniBand SHARP) ------------------------------

@pytest.mark.parametrize("p", [2, 4, 8, 72])
def test_in_network_allreduce_closed_form(p):
    # Graham et al. 2016 (SHArP): each rank sends n once up and receives n once down,
    # full duplex: T = 2 alpha + n beta (+ switch latency)
    n, bw, a = 2**30, 450e9, 2e-6
    t = coll.in_network_time("allreduce", n, p, bw, a, switch_latency=1e-6)
    assert t == pytest.approx(2 * a + 1e-6 + n / bw, rel=1e-12)


@pytest.mark.parametrize("p", [2, 8, 64])
def test_in_network_allreduce_busbw_exceeds_the_link(p):
    # stas00/ml-engineering: NVLS allreduce busbw 480 GB/s on 450 GB/s NVLink 4 (8 x H200);
    # the model's limit is 2 (p-1)/p x B: above B for every p > 2, equal at p = 2
    n, bw = 16 * 2**30, 450e9
    t = coll.in_network_time("allreduce", n, p, bw, 0.0)
    busbw = coll.bus_bandwidth("allreduce", n / t, p)
    assert busbw == pytest.approx(2 * (p - 1) / p * bw, rel=1e-12)
    assert busbw >= bw * (1 - 1e-12)


def test_in_network_allgather_and_broadcast():
    n, p, bw, a = 1e9, 8, 100e9, 1e-6
    assert coll.in_network_time("allgather", n, p, bw, a) == pytest.approx(2 * a + 7 / 8 * n / bw)
    assert coll.in_network_time("broadcast", n, p, bw, a) == pytest.approx(2 * a + n / bw)
    # the in-network allgather has the ring's bandwidth term with 2 latencies instead of p - 1
    ring = coll.collective_time("allgather", n, p, bw, a, "ring")
    assert coll.in_network_time("allgather", n, p, bw, a) < ring
    assert coll.in_network_time("allreduce", n, 1, bw, a) == 0.0


def test_in_network_rejects_ops_without_an_in_network_form():
    with pytest.raises(ValueError, match="op='alltoall'"):
        coll.in_network_time("alltoall", 1e6, 8, 1e9, 1e-6)
    with pytest.raises(ValueError, match="switch_latency"):
        coll.in_network_time("allreduce", 1e6, 8, 1e9, 1e-6, switch_latency=-1)


# --- hierarchical (two-level) AllReduce ----------------------------------------------------

def test_hierarchical_allreduce_is_the_sum_of_its_phases():
    n, N, g = 2**30, 8, 8
    bi, ai, bo, ao = 450e9, 0.6e-6, 50e9, 3e-6
    t = coll.hierarchical_allreduce_time(n, N, g, bi, ai, bo, ao)
    expect = (coll.collective_time("reducescatter", n, g, bi, ai) + coll.collective_time("allreduce", n / g, N, bo, ao)
              + coll.collective_time("allgather", n, g, bi, ai))
    assert t == pytest.approx(expect, rel=1e-12)


def test_hierarchical_allreduce_moves_g_times_fewer_network_bytes():
    # with free intra-node links and no latency, the network phase carries 2 (N-1)/N n/g per GPU,
    # against the flat ring's 2 (Ng-1)/(Ng) n over the network link
    n, N, g, bo = 1e9, 16, 8, 50e9
    t_h = coll.hierarchical_allreduce_time(n, N, g, 1e30, 0.0, bo, 0.0)
    assert t_h == pytest.approx(2 * (N - 1) / N * n / g / bo, rel=1e-9)
    flat = coll.collective_time("allreduce", n, N * g, bo, 0.0)
    assert flat / t_h == pytest.approx(g * (N * g - 1) / (N * g) * N / (N - 1), rel=1e-9)


def test_hierarchical_allreduce_single_node_is_rs_plus_ag():
    t = coll.hierarchical_allreduce_time(1e9, 1, 8, 300e9, 1e-6, 25e9, 5e-6)
    assert t == pytest.approx(coll.collective_time("allreduce", 1e9, 8, 300e9, 1e-6), rel=1e-12)
