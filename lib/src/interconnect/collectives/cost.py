"""Collective communication under the alpha-beta (Hockney) cost model.

A message of ``n`` bytes between two ranks costs ``alpha + n * beta``: ``alpha`` is the
fixed per-message latency in seconds and ``beta = 1 / bandwidth`` the time per byte,
with ``bandwidth`` the **per-direction** bandwidth of one rank's link in bytes/s. Each
collective algorithm is a sequence of such steps; its total time is

``T = a(p) * alpha + b(p) * n * beta + c(p) * n * gamma``

where ``a``, ``b`` and ``c`` depend only on the number of ranks ``p``, and ``gamma`` is
the time per byte of the local reduction (zero by default: on GPUs it is usually
hidden behind the transfer). :func:`cost_terms` returns ``(a, b, c)`` so a reader can
see each formula; :func:`collective_time` evaluates it.

Conventions
-----------
* ``nbytes`` follows nccl-tests (``doc/PERFORMANCE.md``): the size of the *full*
  vector. For allreduce, broadcast and reduce it is the buffer; for allgather it is the
  output (``p`` pieces of ``nbytes / p``); for reducescatter the input; for scatter and
  gather the root's full buffer; for alltoall what one rank sends in total (including
  the piece it keeps). This is also the ``n`` of Thakur, Rabenseifner and Gropp (2005).
* The model is the one of Thakur et al.: every rank can send one message and receive
  one message at the same time (full duplex, one port), all links equal, no
  contention. Where links are shared, use :mod:`interconnect.netsim` instead.
* Algorithms that need ``p`` to be a power of two (recursive doubling, Rabenseifner's
  halving-doubling, Bruck's alltoall as costed here) raise ``ValueError`` otherwise.

References
----------
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective Communication
Operations in MPICH", Int. J. High Perform. Comput. Appl. 19(1):49-66, 2005.
NVIDIA nccl-tests, ``doc/PERFORMANCE.md`` (algorithm and bus bandwidth).
R. W. Hockney, "The communication challenge for MPP", Parallel Computing 20(3), 1994.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive, choice
from .algorithms import COST_ALIASES, NAMES, OPS, REGISTRY, _norm, cost_algorithm, costed

__all__ = [
    "OPS", "ALGORITHMS", "APPLICABLE", "DESCRIPTION", "cost_terms", "collective_time",
    "algorithm_bandwidth", "bus_bandwidth", "bus_factor", "best_algorithm", "crossover_size",
    "half_performance_size",
]

#: Every algorithm name the library accepts (canonical or deprecated), from the registry.
ALGORITHMS = NAMES

_LISTED_AS = {(op, new): old for (op, old), new in COST_ALIASES.items()}

#: Algorithms costed for each operation, in the order :func:`best_algorithm` breaks ties
#: (derived from :data:`~interconnect.collectives.algorithms.REGISTRY`). In this release
#: the pairwise AllToAll is still *listed* under its deprecated name ``"direct"`` (the
#: book's tables print this); ``"pairwise"`` is accepted everywhere.
APPLICABLE = {op: tuple(_LISTED_AS.get((op, a), a) for a in costed(op)) for op in OPS}

#: One line per costed (op, algorithm): what the schedule is and where its cost comes from.
DESCRIPTION = {(op, a): cost_algorithm(op, a).text for op in OPS for a in APPLICABLE[op]}

#: Names of the costed algorithms that need p a power of two (kept for callers of the
#: old module; read ``Algorithm.pow2`` instead).
_POW2 = frozenset(r.name for r in REGISTRY.values() if r.pow2 and r.terms is not None)

# nccl-tests doc/PERFORMANCE.md: busbw = algbw * factor(p)
_BUS_FACTOR = {
    "allreduce": lambda p: 2.0 * (p - 1) / p,
    "reducescatter": lambda p: (p - 1) / p,
    "allgather": lambda p: (p - 1) / p,
    "alltoall": lambda p: (p - 1) / p,
    "scatter": lambda p: (p - 1) / p,
    "gather": lambda p: (p - 1) / p,
    "broadcast": lambda p: np.ones_like(p, dtype=float),
    "reduce": lambda p: np.ones_like(p, dtype=float),
}

_INF = float("inf")


def _op_alg(op, algorithm):
    """``(op, algorithm)`` checked against the costed rows; the canonical algorithm name."""
    row = cost_algorithm(op, algorithm)
    return row.op, row.name


# ----------------------------------------------------------------------------- fast input checks
# The common inputs (Python numbers, float64 / integer arrays) are checked with one or two
# reductions and no temporaries; anything else, and anything that fails, goes through
# interconnect._validate, which converts it and raises the ValueError naming the parameter.


def _positive(name, value, unit):
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        if 0 < value < _INF:
            return float(value)
    elif type(value) is np.ndarray and value.dtype == np.float64 and value.ndim and value.size:
        if value.min() > 0 and value.max() < _INF:  # NaN fails both
            return value
    return as_positive(name, value, unit)


def _nonnegative(name, value, unit):
    if isinstance(value, (float, int)) and not isinstance(value, bool):
        if 0 <= value < _INF:
            return float(value)
    elif type(value) is np.ndarray and value.dtype == np.float64 and value.ndim and value.size:
        if value.min() >= 0 and value.max() < _INF:
            return value
    return as_nonnegative(name, value, unit)


def _count(value):
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if value >= 1:
            return int(value)
    elif type(value) is np.ndarray and value.dtype.kind in "iu" and value.ndim and value.size:
        if value.min() >= 1:
            return value.astype(np.int64, copy=False)
    return as_count("p", value, minimum=1)


def _check_pow2(p, algorithm):
    p_arr = np.asarray(p)
    if np.any(p_arr & (p_arr - 1)):
        bad = p_arr[(p_arr & (p_arr - 1)) != 0].flat[0] if p_arr.ndim else int(p_arr)
        raise ValueError(f"p={bad} is not a power of two; algorithm={algorithm!r} as costed here needs "
                         "p = 1, 2, 4, 8, ...")


# ----------------------------------------------------------------------------- evaluating a row


def _terms_of_array(row, pf):
    """The row's coefficients at the float array ``pf``, computed as the cost model always has."""
    lg = np.ceil(np.log2(pf))  # exact for powers of two, ceil(lg p) otherwise
    frac = (pf - 1.0) / pf  # (p-1)/p
    one = np.ones_like(pf)
    single = pf == 1  # one rank: nothing to communicate
    return tuple(np.where(single, 0.0, x) * one for x in row.terms(pf, lg, frac))


_TABLE_MAX = 1 << 16
_TABLES = {}


def _table(row, hi):
    """``(a, b, c)`` for p = 0..m (m >= hi, a power of two), cached per row: large arrays of
    p take their coefficients by lookup instead of recomputing log2 for every element."""
    tab = _TABLES.get((row.op, row.name))
    if tab is None or tab[0].size <= hi:
        m = 1024
        while m < hi:
            m *= 2
        pf = np.arange(m + 1, dtype=float)
        pf[0] = 1.0  # p = 0 is never looked up
        tab = _terms_of_array(row, pf)
        for x in tab:
            x.flags.writeable = False
        _TABLES[row.op, row.name] = tab
    return tab


def _terms(row, p):
    """``(a, b, c)`` of ``row`` at the validated rank count ``p`` (int or int64 array)."""
    if isinstance(p, int):
        if p == 1:
            return 0.0, 0.0, 0.0
        pf = float(p)
        a, b, c = row.terms(pf, float((p - 1).bit_length()), (pf - 1.0) / pf)  # bit_length: ceil(lg p), exactly
        return float(a), float(b), float(c)
    if p.size >= 256:
        hi = int(p.max())
        if hi <= _TABLE_MAX:
            return tuple(np.take(x, p) for x in _table(row, hi))
    return _terms_of_array(row, p.astype(float))


def _resolved_terms(op, p, algorithm):
    row = cost_algorithm(op, algorithm)
    p = _count(p)
    if row.pow2:
        _check_pow2(p, algorithm)
    return _terms(row, p)


# ----------------------------------------------------------------------------- public


def cost_terms(op, p, algorithm="ring"):
    """Coefficients ``(a, b, c)`` of ``T = a*alpha + b*n*beta + c*n*gamma``.

    The formula is the registry row's (:data:`interconnect.collectives.REGISTRY`).

    Parameters
    ----------
    op : str
        One of :data:`OPS`.
    p : int or array of int
        Number of ranks, >= 1.
    algorithm : str
        One of :data:`APPLICABLE` ``[op]``; ``"pairwise"`` for alltoall (``"direct"``
        is its deprecated spelling, kept for one release).

    Returns
    -------
    tuple of (float or ndarray)
        ``a``: number of message latencies on the critical path; ``b``: bytes sent
        on the critical path as a multiple of ``n``; ``c``: bytes reduced on the
        critical path as a multiple of ``n``.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``algorithm``, one without a cost formula for ``op``,
        ``p`` not an integer >= 1, or not a power of two where the algorithm needs it.

    See Also
    --------
    collective_time, interconnect.netsim.simulate_collective

    References
    ----------
    Thakur, Rabenseifner and Gropp (2005), sections 4.1 to 4.7; for the ring
    allreduce, P. Patarasuk and X. Yuan, J. Parallel Distrib. Comput. 69(2), 2009.

    Examples
    --------
    Ring allreduce on 8 ranks: 2(p-1) latencies, 2(p-1)/p n sent, (p-1)/p n reduced.

    >>> cost_terms("allreduce", 8)
    (14.0, 1.75, 0.875)
    >>> cost_terms("allreduce", [2, 8], "rabenseifner")[0]
    array([2., 6.])
    >>> cost_terms("alltoall", 8, "pairwise") == cost_terms("alltoall", 8, "direct")
    True
    """
    a, b, c = _resolved_terms(op, p, algorithm)
    return a, b, c


def collective_time(op, nbytes, p, bandwidth, latency, algorithm="ring", gamma=0.0):
    """Time of one collective under the alpha-beta (Hockney) model.

    Parameters
    ----------
    op : str
        ``broadcast``, ``reduce``, ``scatter``, ``gather``, ``allgather``,
        ``reducescatter``, ``allreduce`` or ``alltoall``.
    nbytes : float or array
        Size of the full vector in bytes (nccl-tests convention, see module notes), > 0.
    p : int or array of int
        Number of ranks, >= 1.
    bandwidth : float or array
        Per-direction bandwidth of each rank's link, bytes/s, > 0.
    latency : float or array
        Per-message latency alpha, seconds, >= 0.
    algorithm : str
        ``ring``, ``tree``, ``recursive_doubling``, ``rabenseifner``, ``bruck``,
        ``direct`` or ``pairwise``, where it applies to ``op`` (see :data:`APPLICABLE`).
        For alltoall ``"direct"`` is the deprecated spelling of ``"pairwise"``.
    gamma : float or array
        Local reduction time per byte, s/byte, >= 0 (default 0: reduction is free).

    Returns
    -------
    float or ndarray
        Seconds; arrays broadcast against each other like numpy operands.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``algorithm``, an algorithm that does not apply to
        ``op`` or needs ``p`` a power of two, and for sizes, bandwidths or counts out
        of range.

    See Also
    --------
    cost_terms, best_algorithm, interconnect.netsim.simulate_collective

    References
    ----------
    Thakur, Rabenseifner and Gropp (2005), sec. 4; nccl-tests ``doc/PERFORMANCE.md``.

    Examples
    --------
    A 1 GB ring allreduce over 8 GPUs with 450 GB/s per direction and 5 µs latency:

    >>> round(collective_time("allreduce", 1e9, 8, 450e9, 5e-6) * 1e3, 3)
    3.959

    Arrays broadcast; here three sizes against two rank counts:

    >>> collective_time("allgather", [[1e3], [1e6], [1e9]], [8, 64], 100e9, 0.0).shape
    (3, 2)
    """
    nbytes = _positive("nbytes", nbytes, "bytes")
    bandwidth = _positive("bandwidth", bandwidth, "bytes/s (per direction)")
    latency = _nonnegative("latency", latency, "seconds")
    gamma = _nonnegative("gamma", gamma, "s/byte")
    row = cost_algorithm(op, algorithm)
    p = _count(p)
    if row.pow2:
        _check_pow2(p, algorithm)
    # T = a*latency + b*nbytes/bandwidth + c*nbytes*gamma, with the same floating-point
    # operations as that plain expression (so the numbers are bit for bit the same).
    if (type(p) is np.ndarray and p.size >= 256 and np.ndim(latency) == 0
            and np.broadcast_shapes(p.shape, np.shape(nbytes), np.shape(bandwidth)) == p.shape):
        hi = int(p.max())
        if hi <= _TABLE_MAX:  # large array of p: look the terms up, work in place
            ta, tb, tc = _table(row, hi)
            t = np.take(tb, p)
            t *= nbytes
            t /= bandwidth
            t += np.take(ta * latency, p)  # a*latency per p, then looked up: the same products
            if np.ndim(gamma) or gamma != 0.0:
                t = t + np.take(tc, p) * nbytes * gamma
            return t
    a, b, c = _terms(row, p)
    t = b * nbytes
    if type(t) is np.ndarray and np.ndim(bandwidth) == 0:
        t /= bandwidth
    else:
        t = t / bandwidth
    lat = a * latency
    if type(t) is np.ndarray and np.shape(lat) == t.shape:
        t += lat  # x + y == y + x exactly in IEEE arithmetic
    else:
        t = lat + t
    if np.ndim(gamma) or gamma != 0.0:  # with gamma = 0 the term adds exactly +0.0
        t = t + c * nbytes * gamma
    return float(t) if np.ndim(t) == 0 else t


def algorithm_bandwidth(nbytes, time):
    """nccl-tests' algorithm bandwidth, ``algbw = nbytes / time``, in bytes/s.

    Parameters
    ----------
    nbytes : float or array
        Full vector size in bytes (nccl-tests convention).
    time : float or array
        Seconds, > 0.
    """
    return as_positive("nbytes", nbytes, "bytes") / as_positive("time", time, "seconds")


def bus_factor(op, p):
    """The nccl-tests factor with ``busbw = algbw * factor``.

    ``2(p-1)/p`` for allreduce; ``(p-1)/p`` for reducescatter, allgather, alltoall,
    scatter and gather; ``1`` for broadcast and reduce.

    References
    ----------
    NVIDIA nccl-tests, ``doc/PERFORMANCE.md`` and ``src/*.cu`` (``GetBw``).
    """
    op = choice("op", op, OPS)
    p = as_count("p", p, minimum=1)
    f = _BUS_FACTOR[op](np.asarray(p, dtype=float))
    return float(f) if np.ndim(p) == 0 else f


def bus_bandwidth(op, algbw, p):
    """Bus bandwidth as nccl-tests reports it, in bytes/s.

    ``busbw`` rescales the algorithm bandwidth so that it can be compared with the
    per-direction link bandwidth: for a ring algorithm on an uncontended network it
    approaches that bandwidth whatever ``p`` is.

    Parameters
    ----------
    op : str
        One of :data:`OPS`.
    algbw : float or array
        Algorithm bandwidth ``nbytes / time``, bytes/s, > 0.
    p : int or array
        Ranks, >= 1.

    Returns
    -------
    float or ndarray
        bytes/s.

    References
    ----------
    NVIDIA nccl-tests, ``doc/PERFORMANCE.md``.
    """
    algbw = as_positive("algbw", algbw, "bytes/s")
    return algbw * bus_factor(op, p)


def best_algorithm(op, nbytes, p, bandwidth, latency, algorithms=None, gamma=0.0):
    """The fastest applicable algorithm for each (size, p), and its time.

    Algorithms that need a power of two are skipped where ``p`` is not one.

    Parameters
    ----------
    op, nbytes, p, bandwidth, latency, gamma
        As for :func:`collective_time`; arrays broadcast.
    algorithms : sequence of str, optional
        Candidates; default all of :data:`APPLICABLE` ``[op]``.

    Returns
    -------
    (str or ndarray of str, float or ndarray)
        The winning algorithm's name (as listed in ``algorithms``, or in
        :data:`APPLICABLE`) and its time in seconds. Ties go to the candidate listed first.

    Examples
    --------
    Small messages favour few latencies, large ones few bytes:

    >>> best_algorithm("allreduce", 1e3, 8, 450e9, 5e-6)[0]
    'recursive_doubling'
    >>> best_algorithm("allreduce", [1e3, 1e9], 8, 450e9, 5e-6)[0].tolist()
    ['recursive_doubling', 'rabenseifner']
    """
    op = choice("op", op, OPS)
    if algorithms is None:
        cands = APPLICABLE[op]
    else:
        algorithms = tuple(algorithms)
        for a in algorithms:
            cost_algorithm(op, a)  # raises for a name that is not costed for op
        cands = tuple(_norm(a) for a in algorithms)
    if not cands:
        raise ValueError("algorithms=() is empty; give at least one algorithm")
    rows = [cost_algorithm(op, a) for a in cands]
    p_arr = _count(p)
    nb = _positive("nbytes", nbytes, "bytes")
    bw = _positive("bandwidth", bandwidth, "bytes/s (per direction)")
    lat = _nonnegative("latency", latency, "seconds")
    shape = np.broadcast(np.asarray(nb), np.asarray(p_arr), np.asarray(bw), np.asarray(lat)).shape
    pa = np.broadcast_to(np.asarray(p_arr), shape)
    is_pow2 = (pa & (pa - 1)) == 0
    times = []
    for alg, row in zip(cands, rows):
        pp = np.where(is_pow2, pa, 1) if row.pow2 else pa
        t = np.broadcast_to(np.asarray(collective_time(op, nb, pp, bw, lat, alg, gamma)), shape)
        if row.pow2:
            t = np.where(is_pow2, t, np.inf)
        times.append(t)
    times = np.stack(times)
    if np.all(np.isinf(times).all(axis=0) if times.ndim > 1 else np.isinf(times)):
        raise ValueError(f"p={p!r}: none of {cands} applies (they need p a power of two)")
    idx = np.argmin(times, axis=0)
    best_t = np.take_along_axis(times, idx[None, ...], axis=0)[0]
    names = np.asarray(cands, dtype=object)[idx]
    if np.isinf(best_t).any():
        raise ValueError(f"p={p!r}: for some p none of {cands} applies (they need p a power of two)")
    if shape == ():
        return str(names), float(best_t)
    return names, best_t


def crossover_size(op, p, bandwidth, latency, algorithm_a, algorithm_b, gamma=0.0):
    """Message size in bytes at which two algorithms take equal time.

    Because each algorithm's time is linear in ``n``, ``a_A alpha + n k_A =
    a_B alpha + n k_B`` (with ``k = b beta + c gamma``) gives
    ``n* = (a_B - a_A) alpha / (k_A - k_B)``. Below ``n*`` the algorithm with fewer
    latency terms wins; above it the one that moves fewer bytes.

    Returns
    -------
    float or ndarray
        Bytes; ``inf`` where the two lines never cross (one is never slower), ``nan``
        never (a ``ValueError`` is raised for bad input instead).
    """
    bw = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    lat = as_nonnegative("latency", latency, "seconds")
    gamma = as_nonnegative("gamma", gamma, "s/byte")
    aa, ba, ca = cost_terms(op, p, algorithm_a)
    ab, bb, cb = cost_terms(op, p, algorithm_b)
    ka = ba / bw + ca * gamma
    kb = bb / bw + cb * gamma
    num = (np.asarray(ab) - aa) * lat
    den = np.asarray(ka - kb, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(den != 0, num / np.where(den == 0, 1.0, den), np.inf)
    n = np.where(n > 0, n, np.inf)
    return float(n) if np.ndim(n) == 0 else n


def half_performance_size(op, p, bandwidth, latency, algorithm="ring"):
    """Hockney's half-performance length ``n_1/2``: the message size at which a collective
    reaches half of its asymptotic bandwidth.

    With ``T(n) = a alpha + b n / B`` (:func:`cost_terms`, no reduction cost) the rate
    ``n / T`` tends to ``r_inf = B / b`` for large messages and equals ``r_inf / 2`` at

    ``n_1/2 = a alpha B / b``,

    the size at which the latency terms and the bandwidth term take equal time. Below it
    a collective is latency-bound, above it bandwidth-bound.

    Parameters
    ----------
    op, p, bandwidth, latency, algorithm
        As for :func:`collective_time`; arrays broadcast.

    Returns
    -------
    float or ndarray
        Bytes (nccl-tests convention for ``n``); 0 where ``p = 1`` (nothing is sent, so
        there is no latency to amortise) or ``latency = 0``.

    References
    ----------
    R. W. Hockney, "The communication challenge for MPP: Intel Paragon and Meiko CS-2",
    Parallel Computing 20(3):389-398, 1994 (``r_inf`` and ``n_1/2``).

    Examples
    --------
    Ring allreduce on 8 GPUs at 450 GB/s and 5 µs: 14 x 5 µs x 450 GB/s / 1.75 = 18 MB.

    >>> round(half_performance_size("allreduce", 8, 450e9, 5e-6) / 1e6, 6)
    18.0
    >>> t = collective_time("allreduce", 18e6, 8, 450e9, 5e-6)
    >>> round(18e6 / t / (450e9 / 1.75), 6)                # half of r_inf = B / b
    0.5
    """
    bw = _positive("bandwidth", bandwidth, "bytes/s (per direction)")
    lat = _nonnegative("latency", latency, "seconds")
    a, b, _ = _resolved_terms(op, p, algorithm)
    b_arr = np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        n = np.where(b_arr > 0, a * lat * bw / np.where(b_arr > 0, b_arr, 1.0), 0.0)
    return float(n) if np.ndim(n) == 0 else n
