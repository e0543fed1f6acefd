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

from ._validate import as_count, as_nonnegative, as_positive, choice

OPS = ("broadcast", "reduce", "scatter", "gather", "allgather", "reducescatter", "allreduce", "alltoall")
ALGORITHMS = ("ring", "tree", "recursive_doubling", "rabenseifner", "bruck", "direct")

#: Algorithms costed for each operation, in the order :func:`best_algorithm` breaks ties.
APPLICABLE = {
    "broadcast": ("tree", "ring", "recursive_doubling", "direct"),
    "reduce": ("tree", "ring", "rabenseifner", "direct"),
    "scatter": ("tree", "direct"),
    "gather": ("tree", "direct"),
    "allgather": ("ring", "recursive_doubling", "direct"),
    "reducescatter": ("ring", "recursive_doubling", "rabenseifner", "direct"),
    "allreduce": ("ring", "tree", "recursive_doubling", "rabenseifner", "direct"),
    "alltoall": ("direct", "bruck"),
}

#: One line per (op, algorithm): what the schedule is and where its cost comes from.
DESCRIPTION = {
    ("broadcast", "tree"): "binomial tree: ceil(lg p) rounds, whole message each round (Thakur et al. 2005, sec. 4.1)",
    ("broadcast", "ring"): "van de Geijn: binomial scatter, then ring allgather (Thakur et al. 2005, sec. 4.1)",
    ("broadcast", "recursive_doubling"): "binomial scatter, then recursive-doubling allgather (Thakur et al. 2005, sec. 4.1)",
    ("broadcast", "direct"): "root sends the whole message to each rank in turn",
    ("reduce", "tree"): "binomial tree: ceil(lg p) rounds, whole message each round (Thakur et al. 2005, sec. 4.4)",
    ("reduce", "ring"): "ring reduce-scatter, then binomial gather to the root",
    ("reduce", "rabenseifner"): "recursive-halving reduce-scatter, then binomial gather (Thakur et al. 2005, sec. 4.4)",
    ("reduce", "direct"): "root receives and reduces each rank's whole message in turn",
    ("scatter", "tree"): "binomial tree, halves of the remaining data each round (Thakur et al. 2005)",
    ("scatter", "direct"): "root sends each rank its n/p piece in turn",
    ("gather", "tree"): "binomial tree, doubling data each round (Thakur et al. 2005)",
    ("gather", "direct"): "each rank sends its n/p piece to the root in turn",
    ("allgather", "ring"): "ring: p-1 steps, n/p per step (Thakur et al. 2005, sec. 4.2)",
    ("allgather", "recursive_doubling"): "recursive doubling: lg p steps, data doubles each step (Thakur et al. 2005, sec. 4.2)",
    ("allgather", "direct"): "pairwise: in step k each rank sends its piece to rank + k (same cost as ring here)",
    ("reducescatter", "ring"): "ring / pairwise: p-1 steps, n/p per step (Thakur et al. 2005, sec. 4.5)",
    ("reducescatter", "recursive_doubling"): "recursive doubling, for non-commutative ops (Thakur et al. 2005, sec. 4.5)",
    ("reducescatter", "rabenseifner"): "recursive halving (Thakur et al. 2005, sec. 4.5)",
    ("reducescatter", "direct"): "pairwise exchange: p-1 steps of n/p (Thakur et al. 2005, sec. 4.5)",
    ("allreduce", "ring"): "ring reduce-scatter then ring allgather: 2(p-1) steps of n/p (Patarasuk and Yuan 2009)",
    ("allreduce", "tree"): "binomial reduce then binomial broadcast (Thakur et al. 2005, sec. 4.6)",
    ("allreduce", "recursive_doubling"): "recursive doubling: lg p steps of the whole message (Thakur et al. 2005, sec. 4.6)",
    ("allreduce", "rabenseifner"): "Rabenseifner: recursive-halving reduce-scatter, recursive-doubling allgather (Thakur et al. 2005, sec. 4.6)",
    ("allreduce", "direct"): "pairwise reduce-scatter then pairwise allgather (same cost as ring here)",
    ("alltoall", "direct"): "pairwise exchange: p-1 steps of n/p (Thakur et al. 2005, sec. 4.7)",
    ("alltoall", "bruck"): "Bruck et al.: lg p steps of n/2 (Thakur et al. 2005, sec. 4.7)",
}

_POW2 = {"recursive_doubling", "rabenseifner", "bruck"}

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

__all__ = [
    "OPS", "ALGORITHMS", "APPLICABLE", "DESCRIPTION", "cost_terms", "collective_time",
    "algorithm_bandwidth", "bus_bandwidth", "bus_factor", "best_algorithm", "crossover_size",
    "IN_NETWORK_OPS", "in_network_time", "hierarchical_allreduce_time",
]


def _op_alg(op, algorithm):
    op = choice("op", op, OPS)
    algorithm = choice("algorithm", algorithm, ALGORITHMS)
    if algorithm not in APPLICABLE[op]:
        raise ValueError(
            f"algorithm={algorithm!r} is not defined for op={op!r}; allowed for {op}: {', '.join(APPLICABLE[op])}"
        )
    return op, algorithm


def _check_pow2(p, algorithm):
    p_arr = np.asarray(p)
    if np.any(p_arr & (p_arr - 1)):
        bad = p_arr[(p_arr & (p_arr - 1)) != 0].flat[0] if p_arr.ndim else int(p_arr)
        raise ValueError(f"p={bad} is not a power of two; algorithm={algorithm!r} as costed here needs p = 1, 2, 4, 8, ...")


def cost_terms(op, p, algorithm="ring"):
    """Coefficients ``(a, b, c)`` of ``T = a*alpha + b*n*beta + c*n*gamma``.

    Parameters
    ----------
    op : str
        One of :data:`OPS`.
    p : int or array of int
        Number of ranks, >= 1.
    algorithm : str
        One of :data:`APPLICABLE` ``[op]``.

    Returns
    -------
    tuple of (float or ndarray)
        ``a``: number of message latencies on the critical path; ``b``: bytes sent
        on the critical path as a multiple of ``n``; ``c``: bytes reduced on the
        critical path as a multiple of ``n``.

    References
    ----------
    Thakur, Rabenseifner and Gropp (2005), sections 4.1 to 4.7; for the ring
    allreduce, P. Patarasuk and X. Yuan, J. Parallel Distrib. Comput. 69(2), 2009.
    """
    op, algorithm = _op_alg(op, algorithm)
    p = as_count("p", p, minimum=1)
    if algorithm in _POW2:
        _check_pow2(p, algorithm)
    pf = np.asarray(p, dtype=float)
    lg = np.ceil(np.log2(pf))  # exact for powers of two, ceil(lg p) otherwise
    frac = (pf - 1.0) / pf  # (p-1)/p
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
    elif op == "allgather":  # ring, direct
        a, b, c = pf - 1.0, frac, zero
    elif key == ("reducescatter", "recursive_doubling"):
        a, b, c = lg, lg - frac, lg - frac
    elif key == ("reducescatter", "rabenseifner"):
        a, b, c = lg, frac, frac
    elif op == "reducescatter":  # ring, direct
        a, b, c = pf - 1.0, frac, frac
    elif key == ("allreduce", "tree"):
        a, b, c = 2.0 * lg, 2.0 * lg, lg
    elif key == ("allreduce", "recursive_doubling"):
        a, b, c = lg, lg, lg
    elif key == ("allreduce", "rabenseifner"):
        a, b, c = 2.0 * lg, 2.0 * frac, frac
    elif op == "allreduce":  # ring, direct
        a, b, c = 2.0 * (pf - 1.0), 2.0 * frac, frac
    elif key == ("alltoall", "bruck"):
        a, b, c = lg, lg / 2.0, zero
    else:  # alltoall direct (pairwise exchange)
        a, b, c = pf - 1.0, frac, zero
    # one rank: nothing to communicate
    single = pf == 1
    a, b, c = (np.where(single, 0.0, x) * one for x in (a, b, c))
    if np.ndim(p) == 0:
        return float(a), float(b), float(c)
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
        ``ring``, ``tree``, ``recursive_doubling``, ``rabenseifner``, ``bruck`` or
        ``direct``, where it applies to ``op`` (see :data:`APPLICABLE`).
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

    Examples
    --------
    A 1 GB ring allreduce over 8 GPUs with 450 GB/s per direction and 5 µs latency:

    >>> round(collective_time("allreduce", 1e9, 8, 450e9, 5e-6) * 1e3, 3)
    3.959

    References
    ----------
    Thakur, Rabenseifner and Gropp (2005), sec. 4; nccl-tests ``doc/PERFORMANCE.md``.
    """
    nbytes = as_positive("nbytes", nbytes, "bytes")
    bandwidth = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    latency = as_nonnegative("latency", latency, "seconds")
    gamma = as_nonnegative("gamma", gamma, "s/byte")
    a, b, c = cost_terms(op, p, algorithm)
    t = a * latency + b * nbytes / bandwidth + c * nbytes * gamma
    if np.ndim(t) == 0:
        return float(t)
    return t


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
        The winning algorithm's name and its time in seconds. Ties go to the
        candidate listed first.
    """
    op = choice("op", op, OPS)
    cands = APPLICABLE[op] if algorithms is None else tuple(_op_alg(op, a)[1] for a in algorithms)
    if not cands:
        raise ValueError("algorithms=() is empty; give at least one algorithm")
    p_arr = as_count("p", p, minimum=1)
    nb = as_positive("nbytes", nbytes, "bytes")
    bw = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    lat = as_nonnegative("latency", latency, "seconds")
    shape = np.broadcast(np.asarray(nb), np.asarray(p_arr), np.asarray(bw), np.asarray(lat)).shape
    pa = np.broadcast_to(np.asarray(p_arr), shape)
    is_pow2 = (pa & (pa - 1)) == 0
    times = []
    for alg in cands:
        pp = np.where(is_pow2, pa, 1) if alg in _POW2 else pa
        t = np.broadcast_to(np.asarray(collective_time(op, nb, pp, bw, lat, alg, gamma)), shape)
        if alg in _POW2:
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


#: Operations a switch with in-network reduction and multicast can carry out.
IN_NETWORK_OPS = ("allreduce", "reduce", "broadcast", "allgather")


def in_network_time(op, nbytes, p, bandwidth, latency, switch_latency=0.0):
    """Time of a collective reduced or multicast inside the switch (NVLink SHARP, InfiniBand SHARP).

    With in-network reduction each GPU sends its data *once* to the switch, the switch
    adds the contributions and multicasts the result; no GPU forwards anyone else's
    data. Each rank's link is full duplex, so sending and receiving overlap:

    * allreduce: every rank sends ``n`` and receives ``n``: ``T = 2 alpha + n beta``
      (against ``2 (p-1)/p n beta`` for the best host-based algorithms: about half
      the bytes on every link);
    * reduce: ``2 alpha + n beta`` (the root receives the reduced ``n``);
    * broadcast: the root sends ``n`` once, the switch replicates it: ``2 alpha + n beta``;
    * allgather: each rank sends its ``n/p`` once and receives the other
      ``(p-1)/p n``: ``2 alpha + (p-1)/p n beta``, the ring's bandwidth with two latencies.

    ``2 alpha`` counts the hop up to the switch and the hop down; ``switch_latency`` is
    added once for the reduction or replication in the switch. Because the switch does
    work no host-based algorithm can, these times beat the lower bounds of Chan et al.
    (2007), which is why nccl-tests' bus bandwidth for an NVLS allreduce exceeds the link
    bandwidth (the busbw formula assumes ``2 (p-1)/p`` bytes per byte reduced).

    Parameters
    ----------
    op : {"allreduce", "reduce", "broadcast", "allgather"}
    nbytes, p, bandwidth, latency
        As for :func:`collective_time` (bandwidth per direction per rank).
    switch_latency : float or array
        Seconds added for the in-switch reduction or replication, >= 0.

    Returns
    -------
    float or ndarray
        Seconds.

    References
    ----------
    R. L. Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP): A Hardware
    Architecture for Efficient Data Reduction", COMHPC 2016.
    NVIDIA, "NVIDIA DGX H100 / H100 Tensor Core GPU Architecture" (NVLink SHARP), 2022.
    """
    op = choice("op", op, OPS)
    if op not in IN_NETWORK_OPS:
        raise ValueError(f"op={op!r} has no in-network form here; allowed: {', '.join(IN_NETWORK_OPS)}")
    nbytes = as_positive("nbytes", nbytes, "bytes")
    p = as_count("p", p, minimum=1)
    bandwidth = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    latency = as_nonnegative("latency", latency, "seconds")
    switch_latency = as_nonnegative("switch_latency", switch_latency, "seconds")
    pf = np.asarray(p, dtype=float)
    b = (pf - 1.0) / pf if op == "allgather" else np.ones_like(pf)
    t = 2.0 * latency + switch_latency + b * nbytes / bandwidth
    t = np.where(pf == 1, 0.0, t)
    return float(t) if np.ndim(t) == 0 else t


def hierarchical_allreduce_time(nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency,
                                inter_bandwidth, inter_latency, gamma=0.0):
    """Two-level AllReduce: ReduceScatter inside each node, AllReduce across nodes on every
    rail, AllGather inside each node (ring algorithms at both levels).

    With ``g`` GPUs per node and ``N`` nodes, each GPU first reduce-scatters the
    ``n``-byte vector over its node's fast links (keeping ``n/g`` summed bytes), the
    ``g`` rails (GPU ``i`` of every node, each with its own NIC) then allreduce their
    ``n/g`` bytes across the ``N`` nodes in parallel, and a final AllGather inside the
    node restores the full vector:

    ``T = T_RS(n, g, B_intra) + T_AR(n/g, N, B_inter) + T_AG(n, g, B_intra)``.

    The network carries ``2 (N-1)/N n/g`` bytes per GPU instead of a flat ring's
    ``2 (Ng-1)/(Ng) n`` through the slowest link: ``g`` times less.

    Parameters
    ----------
    nbytes : float or array
        Full vector size, bytes.
    nodes, gpus_per_node : int
        N >= 1 and g >= 1.
    intra_bandwidth, intra_latency : float
        Per-direction bandwidth (bytes/s) and latency (s) of a GPU's link inside a node.
    inter_bandwidth, inter_latency : float
        The same for a GPU's share of the network (its NIC).
    gamma : float
        Reduction time per byte, s/byte.

    Returns
    -------
    float or ndarray
        Seconds.

    References
    ----------
    Thakur et al. (2005) for each phase; the two-level scheme is NCCL's and Horovod's
    hierarchical AllReduce (A. Sergeev and M. Del Balso, arXiv:1802.05799, 2018).
    """
    N = as_count("nodes", nodes, minimum=1)
    g = as_count("gpus_per_node", gpus_per_node, minimum=1)
    nbytes = as_positive("nbytes", nbytes, "bytes")
    rs = collective_time("reducescatter", nbytes, g, intra_bandwidth, intra_latency, "ring", gamma)
    ar = collective_time("allreduce", nbytes / np.asarray(g, dtype=float), N, inter_bandwidth, inter_latency, "ring", gamma)
    ag = collective_time("allgather", nbytes, g, intra_bandwidth, intra_latency, "ring")
    out = rs + ar + ag
    return float(out) if np.ndim(out) == 0 else out
