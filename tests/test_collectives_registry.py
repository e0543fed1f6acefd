"""The collective-algorithm registry (interconnect.collectives.algorithms) against what it replaced.

* ``_legacy_cost_terms`` below is a frozen copy of the ``elif`` ladder that
  ``collectives.cost_terms`` was before the registry: the table must give the same
  coefficients bit for bit, for p = 1 ... 1024, scalars and arrays.
* Every registry row that has both a cost formula and a schedule must simulate, on an
  uncontended crossbar, to its alpha-beta time.
* The costed and the simulated names agree: no canonical name means two algorithms.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from interconnect import collectives as C  # noqa: E402

# the costed (op, algorithm) pairs exactly as collectives.APPLICABLE listed them before the registry
LEGACY_APPLICABLE = {
    "broadcast": ("tree", "ring", "recursive_doubling", "direct"),
    "reduce": ("tree", "ring", "rabenseifner", "direct"),
    "scatter": ("tree", "direct"),
    "gather": ("tree", "direct"),
    "allgather": ("ring", "recursive_doubling", "direct"),
    "reducescatter": ("ring", "recursive_doubling", "rabenseifner", "direct"),
    "allreduce": ("ring", "tree", "recursive_doubling", "rabenseifner", "direct"),
    "alltoall": ("direct", "bruck"),
}
LEGACY_POW2 = {"recursive_doubling", "rabenseifner", "bruck"}
LEGACY_PAIRS = [(op, alg) for op, algs in LEGACY_APPLICABLE.items() for alg in algs]


def _legacy_cost_terms(op, p, algorithm):
    """Frozen copy of collectives.cost_terms before the registry (validation left out)."""
    p = np.asarray(p) if np.ndim(p) else int(p)
    pf = np.asarray(p, dtype=float)
    lg = np.ceil(np.log2(pf))
    frac = (pf - 1.0) / pf
    one = np.ones_like(pf)
    zero = np.zeros_like(pf)
    key = (op, algorithm)
    if key == ("broadcast", "tree"):
        a, b, c = lg, lg, zero
    elif key == ("broadcast", "ring"):
        a, b, c = lg + pf - 1.0, 2.0 * frac, zero
    elif key == ("broadcast", "recursive_doubling"):
        a, b, c = 2.0 * lg, 2.0 * frac, zero
    elif key == ("broadcast", "direct"):
        a, b, c = pf - 1.0, pf - 1.0, zero
    elif key == ("reduce", "tree"):
        a, b, c = lg, lg, lg
    elif key == ("reduce", "ring"):
        a, b, c = pf - 1.0 + lg, 2.0 * frac, frac
    elif key == ("reduce", "rabenseifner"):
        a, b, c = 2.0 * lg, 2.0 * frac, frac
    elif key == ("reduce", "direct"):
        a, b, c = pf - 1.0, pf - 1.0, pf - 1.0
    elif op in ("scatter", "gather"):
        a, b, c = (lg if algorithm == "tree" else pf - 1.0), frac, zero
    elif key == ("allgather", "recursive_doubling"):
        a, b, c = lg, frac, zero
    elif op == "allgather":
        a, b, c = pf - 1.0, frac, zero
    elif key == ("reducescatter", "recursive_doubling"):
        a, b, c = lg, lg - frac, lg - frac
    elif key == ("reducescatter", "rabenseifner"):
        a, b, c = lg, frac, frac
    elif op == "reducescatter":
        a, b, c = pf - 1.0, frac, frac
    elif key == ("allreduce", "tree"):
        a, b, c = 2.0 * lg, 2.0 * lg, lg
    elif key == ("allreduce", "recursive_doubling"):
        a, b, c = lg, lg, lg
    elif key == ("allreduce", "rabenseifner"):
        a, b, c = 2.0 * lg, 2.0 * frac, frac
    elif op == "allreduce":
        a, b, c = 2.0 * (pf - 1.0), 2.0 * frac, frac
    elif key == ("alltoall", "bruck"):
        a, b, c = lg, lg / 2.0, zero
    else:
        a, b, c = pf - 1.0, frac, zero
    single = pf == 1
    a, b, c = (np.where(single, 0.0, x) * one for x in (a, b, c))
    if np.ndim(p) == 0:
        return float(a), float(b), float(c)
    return a, b, c


def _ps(alg):
    ps = np.arange(1, 1025, dtype=np.int64)
    return ps[(ps & (ps - 1)) == 0] if alg in LEGACY_POW2 else ps


def _bits(x):
    return np.ascontiguousarray(np.asarray(x, dtype=np.float64)).view(np.int64)


@pytest.mark.parametrize("op,alg", LEGACY_PAIRS, ids=[f"{o}-{a}" for o, a in LEGACY_PAIRS])
def test_cost_terms_bit_for_bit_as_before(op, alg):
    """The registry's cost_terms equals the old elif ladder bit for bit (arrays and scalars)."""
    ps = _ps(alg)
    got, want = C.cost_terms(op, ps, alg), _legacy_cost_terms(op, ps, alg)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype == np.float64 and g.shape == w.shape
        assert np.array_equal(_bits(g), _bits(w))
    for p in ps.tolist():
        got, want = C.cost_terms(op, p, alg), _legacy_cost_terms(op, p, alg)
        assert all(type(g) is float for g in got)
        assert np.array_equal(_bits(got), _bits(want)), (p, got, want)
    # 2-D input keeps its shape
    grid = ps[: min(ps.size, 12)].reshape(-1, 1) if ps.size < 12 else ps[:12].reshape(3, 4)
    for g, w in zip(C.cost_terms(op, grid, alg), _legacy_cost_terms(op, grid, alg)):
        assert g.shape == grid.shape and np.array_equal(_bits(g), _bits(w))


def test_applicable_and_descriptions_unchanged():
    """What the book prints (collectives.ipynb tables) is what it printed before."""
    assert {op: tuple(a) for op, a in C.APPLICABLE.items()} == LEGACY_APPLICABLE
    assert list(C.APPLICABLE) == list(LEGACY_APPLICABLE)
    assert set(C.DESCRIPTION) == set(LEGACY_PAIRS)

# collectives.DESCRIPTION before the registry (collectives.ipynb prints the allreduce rows)
LEGACY_DESCRIPTION = {
    ('broadcast', 'tree'): 'binomial tree: ceil(lg p) rounds, whole message each round (Thakur et al. 2005, sec. 4.1)',
    ('broadcast', 'ring'): 'van de Geijn: binomial scatter, then ring allgather (Thakur et al. 2005, sec. 4.1)',
    ('broadcast', 'recursive_doubling'): 'binomial scatter, then recursive-doubling allgather (Thakur et al. 2005,'
                                         ' sec. 4.1)',
    ('broadcast', 'direct'): 'root sends the whole message to each rank in turn',
    ('reduce', 'tree'): 'binomial tree: ceil(lg p) rounds, whole message each round (Thakur et al. 2005, sec. 4.4)',
    ('reduce', 'ring'): 'ring reduce-scatter, then binomial gather to the root',
    ('reduce', 'rabenseifner'): 'recursive-halving reduce-scatter, then binomial gather (Thakur et al. 2005, sec. 4.4)',
    ('reduce', 'direct'): "root receives and reduces each rank's whole message in turn",
    ('scatter', 'tree'): 'binomial tree, halves of the remaining data each round (Thakur et al. 2005)',
    ('scatter', 'direct'): 'root sends each rank its n/p piece in turn',
    ('gather', 'tree'): 'binomial tree, doubling data each round (Thakur et al. 2005)',
    ('gather', 'direct'): 'each rank sends its n/p piece to the root in turn',
    ('allgather', 'ring'): 'ring: p-1 steps, n/p per step (Thakur et al. 2005, sec. 4.2)',
    ('allgather', 'recursive_doubling'): 'recursive doubling: lg p steps, data doubles each step (Thakur et al.'
                                         ' 2005, sec. 4.2)',
    ('allgather', 'direct'): 'pairwise: in step k each rank sends its piece to rank + k (same cost as ring here)',
    ('reducescatter', 'ring'): 'ring / pairwise: p-1 steps, n/p per step (Thakur et al. 2005, sec. 4.5)',
    ('reducescatter', 'recursive_doubling'): 'recursive doubling, for non-commutative ops (Thakur et al. 2005, sec.'
                                             ' 4.5)',
    ('reducescatter', 'rabenseifner'): 'recursive halving (Thakur et al. 2005, sec. 4.5)',
    ('reducescatter', 'direct'): 'pairwise exchange: p-1 steps of n/p (Thakur et al. 2005, sec. 4.5)',
    ('allreduce', 'ring'): 'ring reduce-scatter then ring allgather: 2(p-1) steps of n/p (Patarasuk and Yuan 2009)',
    ('allreduce', 'tree'): 'binomial reduce then binomial broadcast (Thakur et al. 2005, sec. 4.6)',
    ('allreduce', 'recursive_doubling'): 'recursive doubling: lg p steps of the whole message (Thakur et al. 2005,'
                                         ' sec. 4.6)',
    ('allreduce', 'rabenseifner'): 'Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather'
                                   ' (Thakur et al. 2005, sec. 4.6)',
    ('allreduce', 'direct'): 'pairwise reduce-scatter then pairwise allgather (same cost as ring here)',
    ('alltoall', 'direct'): 'pairwise exchange: p-1 steps of n/p (Thakur et al. 2005, sec. 4.7)',
    ('alltoall', 'bruck'): 'Bruck et al.: lg p steps of n/2 (Thakur et al. 2005, sec. 4.7)',
}


def test_descriptions_unchanged():
    assert dict(C.DESCRIPTION) == LEGACY_DESCRIPTION
    assert list(C.DESCRIPTION) == list(LEGACY_DESCRIPTION)


# --------------------------------------------------------------------------- collective_time, bit for bit


def _legacy_time(op, nbytes, p, bandwidth, latency, alg, gamma=0.0):
    a, b, c = _legacy_cost_terms(op, p, alg)
    return a * latency + b * nbytes / bandwidth + c * nbytes * gamma


TIME_CASES = [
    ("allreduce", "ring"), ("allreduce", "rabenseifner"), ("reducescatter", "recursive_doubling"),
    ("broadcast", "ring"), ("reduce", "ring"), ("alltoall", "direct"), ("alltoall", "bruck"), ("gather", "tree"),
]


@pytest.mark.parametrize("op,alg", TIME_CASES, ids=[f"{o}-{a}" for o, a in TIME_CASES])
@pytest.mark.parametrize("n", [1, 7, 300, 5000])
def test_collective_time_bit_for_bit_as_before(op, alg, n):
    """Every path of collective_time (scalars, small arrays, the lookup table for large
    arrays, broadcasting, array latency, gamma) gives the old expression's numbers exactly."""
    rng = np.random.default_rng(n)
    hi = 11 if alg in LEGACY_POW2 else 2000
    ps = 2 ** rng.integers(0, hi, n) if alg in LEGACY_POW2 else rng.integers(1, hi, n)
    sizes = 2.0 ** rng.uniform(0, 34, n)
    cases = [
        (sizes, ps, 450e9, 5e-6, 0.0),
        (sizes, ps, 450e9, 5e-6, 1e-12),
        (sizes, ps, rng.uniform(1e9, 1e12, n), rng.uniform(0, 1e-5, n), 0.0),
        (sizes[:, None], ps[: min(n, 40)], 100e9, 1e-6, 0.0),  # broadcasting to (n, m)
        (float(sizes[0]), ps, 25e9, 0.0, 0.0),
        (float(sizes[0]), int(ps[0]), 25e9, 2e-6, 0.0),
        (float(sizes[0]), int(ps[0]), 25e9, 2e-6, 3e-12),
    ]
    for nb, p, bw, lat, gamma in cases:
        got = C.collective_time(op, nb, p, bw, lat, alg, gamma)
        want = _legacy_time(op, nb, p, bw, lat, alg, gamma)
        assert np.shape(got) == np.shape(want)
        assert np.array_equal(_bits(got), _bits(want)), (op, alg, np.shape(nb), np.shape(p))
        if np.ndim(want) == 0:
            assert type(got) is float


def test_fast_input_checks_still_name_the_parameter():
    """The fast checks fall back to the full ones: the same ValueErrors as before."""
    ps = np.full(1000, 8)
    sizes = np.full(1000, 1e6)
    bad = sizes.copy()
    bad[500] = np.nan
    with pytest.raises(ValueError, match="nbytes=.*NaN"):
        C.collective_time("allreduce", bad, ps, 1e9, 1e-6)
    bad[500] = -1.0
    with pytest.raises(ValueError, match=r"nbytes=.*e.g. .*-1.0.*must be > 0"):
        C.collective_time("allreduce", bad, ps, 1e9, 1e-6)
    with pytest.raises(ValueError, match=r"bandwidth=.*must be > 0"):
        C.collective_time("allreduce", sizes, ps, np.zeros(1000), 1e-6)
    with pytest.raises(ValueError, match=r"latency=.*must be >= 0"):
        C.collective_time("allreduce", sizes, ps, 1e9, np.full(1000, -1e-6))
    bad_p = ps.copy()
    bad_p[3] = 0
    with pytest.raises(ValueError, match="p=.*must be an integer >= 1"):
        C.collective_time("allreduce", sizes, bad_p, 1e9, 1e-6)
    bad_p[3] = 6
    with pytest.raises(ValueError, match="p=6 is not a power of two"):
        C.collective_time("allreduce", sizes, bad_p, 1e9, 1e-6, "rabenseifner")
    with pytest.raises(ValueError, match="p=.*must be an integer"):
        C.collective_time("allreduce", sizes, np.full(1000, 2.5), 1e9, 1e-6)
    with pytest.raises(ValueError, match="p=inf"):
        C.collective_time("allreduce", 1e6, float("inf"), 1e9, 1e-6)
    with pytest.raises(ValueError, match="nbytes=inf"):
        C.collective_time("allreduce", float("inf"), 8, 1e9, 1e-6)
    # p larger than the lookup table and float arrays of whole numbers still work
    big = np.array([3, 70_000] * 200)
    assert np.array_equal(C.collective_time("allgather", 1e6, big, 1e9, 1e-6),
                          C.collective_time("allgather", 1e6, big.astype(float), 1e9, 1e-6))


# --------------------------------------------------------------------------- the registry


import doctest  # noqa: E402
import math  # noqa: E402
import warnings  # noqa: E402

from interconnect import netsim, topology  # noqa: E402
from interconnect.collectives import algorithms as A  # noqa: E402

BOTH = [key for key, row in A.REGISTRY.items() if row.terms is not None and row.schedule is not None]


def test_registry_rows():
    """Every row is frozen, described, and has a cost formula or a schedule (or both)."""
    for (op, name), row in A.REGISTRY.items():
        assert (row.op, row.name) == (op, name) and op in A.OPS
        assert row.terms is not None or row.schedule is not None
        assert row.description and row.text.startswith(row.description)
        assert row.compare_with is None or A.REGISTRY[op, row.compare_with].terms is not None
        with pytest.raises(AttributeError):
            row.pow2 = not row.pow2
    assert {op: C.costed(op) for op in A.OPS} == {op: tuple(A.COST_ALIASES.get((op, a), a) for a in algs)
                                                  for op, algs in LEGACY_APPLICABLE.items()}
    assert set(netsim.APPLICABLE) == set(A.SIMULATED_OPS)
    assert netsim.DESCRIPTION.keys() == {(op, a) for op in netsim.APPLICABLE for a in netsim.APPLICABLE[op]}
    # netsim's names are the registry's objects, not copies
    assert netsim.schedule is C.schedule and netsim.run_collective is C.run_collective
    assert netsim.Schedule is C.Schedule


@pytest.mark.parametrize("op,alg", BOTH, ids=[f"{o}-{a}" for o, a in BOTH])
def test_simulated_on_a_crossbar_equals_the_cost_formula(op, alg):
    """Every row with a cost formula and a schedule: on an NVSwitch crossbar
    (topology.nvswitch) no two flows share a directed link, so the simulated time is the
    alpha-beta time with alpha = the GPU-switch-GPU path latency and B = a GPU's link."""
    n = 64e6
    for p in ((2, 4, 8, 16) if A.REGISTRY[op, alg].pow2 else (2, 3, 5, 8)):
        g = topology.nvswitch(p)
        B = g.edges["gpu0", "nvsw0"]["bandwidth"]
        alpha = topology.path_latency(g, "gpu0", "gpu1")
        r = netsim.simulate_collective(g, op, n, algorithm=alg)
        want = C.collective_time(op, n, p, B, alpha, alg)
        assert r.time == pytest.approx(want, rel=1e-9), (p, r.time, want)
        assert r.algorithm == alg


def _meaning(resolve, op, name):
    try:
        return resolve(op, name)
    except ValueError:
        return None


def test_costed_and_simulated_names_agree():
    """A canonical name means one algorithm for an operation, in the cost model and the
    simulator alike; only the deprecated spellings resolve differently on the two sides."""
    for op in A.OPS:
        for name in set(A.costed(op)) | set(A.simulated(op)):
            meanings = {_meaning(A.cost_algorithm, op, name), _meaning(A.schedule_algorithm, op, name)} - {None}
            if (op, name) not in A.SCHEDULE_ALIASES:
                assert meanings == {A.REGISTRY[op, name]}, (op, name)
    clashes = set()
    for op in A.OPS:
        for name in A.NAMES:
            c, s = _meaning(A.cost_algorithm, op, name), _meaning(A.schedule_algorithm, op, name)
            if c is not None and s is not None and c is not s:
                clashes.add((op, name))
    assert clashes == {("alltoall", "direct"), ("broadcast", "ring")}
    assert clashes <= set(A.COST_ALIASES) | set(A.SCHEDULE_ALIASES)
    # aliases point at rows of the right kind; new names are not aliases
    for (op, old), new in A.COST_ALIASES.items():
        assert A.REGISTRY[op, new].terms is not None and (op, old) not in A.REGISTRY
    for (op, _old), new in A.SCHEDULE_ALIASES.items():
        assert A.REGISTRY[op, new].schedule is not None
    assert ("alltoall", "pairwise") in BOTH


def test_deprecated_spellings_mean_what_each_module_meant_and_do_not_warn():
    """The book still calls collective_time(..., "direct") for alltoall and
    simulate_collective(..., "direct" / "ring"): each resolves to the algorithm the module
    meant before, silently (strict nbval compares cell output)."""
    p, B, alpha, n = 8, 100e9, 1e-6, 8e6
    g = topology.nvswitch(p)
    B = g.edges["gpu0", "nvsw0"]["bandwidth"]
    alpha = topology.path_latency(g, "gpu0", "gpu1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # cost model: alltoall "direct" is the pairwise exchange
        assert C.collective_time("alltoall", n, p, B, alpha, "direct") == \
            C.collective_time("alltoall", n, p, B, alpha, "pairwise") == \
            _legacy_time("alltoall", n, p, B, alpha, "direct")
        assert C.best_algorithm("alltoall", 1e10, 64, 450e9, 5e-6)[0] == "direct"
        assert C.best_algorithm("alltoall", 1e10, 64, 450e9, 5e-6, algorithms=("pairwise", "bruck"))[0] == "pairwise"
        # cost model: broadcast "ring" is still van de Geijn
        assert C.cost_terms("broadcast", 8, "ring") == _legacy_cost_terms("broadcast", 8, "ring")
        # simulator: alltoall "direct" starts every message at once
        r = netsim.simulate_collective(g, "alltoall", n, algorithm="direct")
        assert r.algorithm == "all_at_once" and np.all(r.start == 0.0)
        assert r.time == pytest.approx(alpha + (p - 1) * n / p / B, rel=1e-9)
        # simulator: broadcast "ring" is the pipelined chain
        r = netsim.simulate_collective(g, "broadcast", n, algorithm="ring", chunks=4)
        assert r.algorithm == "chain"
        assert r.time == pytest.approx((p - 2 + 4) * (alpha + n / 4 / B), rel=1e-9)
        out = netsim.run_collective([np.arange(16) + 16 * r for r in range(4)], "alltoall", "direct")
        assert out[1].tolist() == [4, 5, 6, 7, 20, 21, 22, 23, 36, 37, 38, 39, 52, 53, 54, 55]


def test_errors_say_which_side_has_the_algorithm():
    g = topology.nvswitch(4)
    with pytest.raises(ValueError, match="algorithm='tree' for op='allreduce' has a cost formula but no schedule"):
        netsim.simulate_collective(g, "allreduce", 1e6, algorithm="tree")
    with pytest.raises(ValueError, match="algorithm='chain' for op='broadcast' has a schedule but no cost formula"):
        C.collective_time("broadcast", 1e6, 4, 1e9, 1e-6, "chain")
    with pytest.raises(ValueError, match="algorithm='all_at_once' .* allowed for alltoall: pairwise, bruck"):
        C.cost_terms("alltoall", 4, "all_at_once")
    with pytest.raises(ValueError, match="algorithm='nope' is unknown; allowed: "):
        C.cost_terms("allreduce", 4, "nope")
    with pytest.raises(ValueError, match="algorithm='bruck' is not defined for op='allreduce'"):
        C.schedule("allreduce", 4, "bruck")
    with pytest.raises(ValueError, match="op='scatter'"):
        C.schedule("scatter", 4, "tree")
    with pytest.raises(ValueError, match="algorithm=3 is not a string"):
        C.cost_terms("allreduce", 4, 3)
    assert A.closed_form_of("alltoall", "all_at_once") == "pairwise"
    assert A.closed_form_of("allreduce", "ring") == "ring"
    with pytest.raises(ValueError, match="no closed form"):
        A.closed_form_of("broadcast", "chain")


# --------------------------------------------------------------------------- half-performance size


HALF_CASES = [("allreduce", "ring"), ("allreduce", "rabenseifner"), ("allgather", "ring"), ("alltoall", "pairwise"),
              ("broadcast", "tree"), ("reducescatter", "recursive_doubling")]


@pytest.mark.parametrize("op,alg", HALF_CASES, ids=[f"{o}-{a}" for o, a in HALF_CASES])
def test_half_performance_size_closed_form(op, alg):
    """Hockney (1994): n_1/2 = a alpha B / b, where the rate n/T reaches half of r_inf = B/b."""
    B, alpha = 300e9, 3e-6
    for p in (2, 4, 8, 64):
        a, b, _ = _legacy_cost_terms(op, p, alg if alg != "pairwise" else "direct")
        n_half = C.half_performance_size(op, p, B, alpha, alg)
        assert n_half == pytest.approx(a * alpha * B / b, rel=1e-15)
        t = C.collective_time(op, n_half, p, B, alpha, alg)
        assert n_half / t == pytest.approx(0.5 * B / b, rel=1e-12)
        # at n_1/2 the latency terms and the bandwidth term take equal time
        assert a * alpha == pytest.approx(b * n_half / B, rel=1e-12)
    ps = np.array([2, 4, 8, 64])
    got = C.half_performance_size(op, ps, B, alpha, alg)
    assert got.shape == (4,)
    assert got.tolist() == [C.half_performance_size(op, int(p), B, alpha, alg) for p in ps]


def test_half_performance_size_edges_and_errors():
    # ring allreduce on 8 GPUs at 450 GB/s, 5 us: 14 * 5e-6 * 450e9 / 1.75 = 18 MB
    assert C.half_performance_size("allreduce", 8, 450e9, 5e-6) == pytest.approx(18e6, rel=1e-15)
    assert C.half_performance_size("allreduce", 1, 450e9, 5e-6) == 0.0      # nothing is sent
    assert C.half_performance_size("allreduce", 8, 450e9, 0.0) == 0.0      # no latency to amortise
    out = C.half_performance_size("allreduce", [1, 8], 450e9, [5e-6, 1e-6])
    assert out[0] == 0.0 and out[1] == pytest.approx(14 * 1e-6 * 450e9 / 1.75)
    assert math.isclose(C.half_performance_size("alltoall", 8, 1e9, 1e-6, "direct"),
                        C.half_performance_size("alltoall", 8, 1e9, 1e-6, "pairwise"))
    with pytest.raises(ValueError, match="bandwidth"):
        C.half_performance_size("allreduce", 8, 0.0, 1e-6)
    with pytest.raises(ValueError, match="latency"):
        C.half_performance_size("allreduce", 8, 1e9, -1e-6)
    with pytest.raises(ValueError, match="p=6"):
        C.half_performance_size("allreduce", 6, 1e9, 1e-6, "rabenseifner")
    with pytest.raises(ValueError, match="algorithm="):
        C.half_performance_size("allreduce", 8, 1e9, 1e-6, "chain")


# --------------------------------------------------------------------------- doctests


@pytest.mark.parametrize("mod", [A, C.cost, C.schedules, C.in_network], ids=lambda m: m.__name__)
def test_doctests(mod):
    """The package's own testmod finds nothing (the functions live in submodules): run each."""
    res = doctest.testmod(mod, raise_on_error=False)
    assert res.failed == 0
    if mod is not C.in_network:
        assert res.attempted > 0
