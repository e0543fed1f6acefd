"""Collectives across nodes in closed form: two-level phases that overlap, rings over every NIC,
and NCCL's double binary tree.

A cluster node holds ``g`` GPUs on a fast switch (NVLink) and gives each GPU its own NIC
(a *rail*); ``N`` nodes are joined by the network. Three ways to run a collective over
the ``N g`` GPUs are costed here, each with the alpha-beta terms of
:mod:`~interconnect.collectives.cost`:

* **Two-level (hierarchical)**, :func:`hierarchical_time`: AllReduce as a ReduceScatter
  inside each node, an AllReduce across the nodes on every rail (``n/g`` bytes each), an
  AllGather inside each node. :func:`~interconnect.collectives.hierarchical_allreduce_time`
  *adds* the three phases. Real implementations cut the vector into ``k`` chunks and
  pipeline them: while chunk ``c`` crosses the network, chunk ``c+1`` is reduce-scattered
  and chunk ``c-1`` gathered inside the node. With stage times ``s_i`` of one chunk
  (``n/k`` bytes) the pipeline takes

  ``T(k) = sum_i s_i + (k - 1) max_R (max_{i on R} a_i alpha_i + sum_{i on R} b_i)``,

  the time of one chunk through every stage (the *fill*) plus ``k - 1`` periods of the
  busiest resource ``R`` (the node's NVLink ports carry both intra-node stages, the NICs
  the inter-node one). A stage handles one chunk at a time, so a period holds the bytes of
  one chunk through ``R`` (``b_i``, the stages' bandwidth terms) and its latencies (the
  stages on one resource run side by side, so the larger of their latency terms).
  ``k = 1`` is the additive formula; for large ``k`` the time tends
  to the larger of the two resources' bandwidth terms. AllGather and ReduceScatter have
  two phases (across the rails, then inside the node; and the reverse).
* **Multi-ring (flat)**, :func:`multi_ring_time`: one ring over all ``N g`` GPUs per NIC,
  as NCCL's ring channels: ring ``c`` leaves each node through a different NIC, so the
  ``r`` rings together use all of a node's NICs, and each ring carries ``n / r``. Inside
  the node every GPU belongs to all ``r`` rings and shares its NVLink bandwidth among them.
* **Double binary tree**, :func:`double_binary_tree_time`: NCCL's AllReduce tree across
  nodes (Sanders, Speck and Träff 2009; NCCL 2.4). Two binary trees each carry half of
  the data; a rank that is an inner node of one tree is a leaf of the other, so every
  rank sends and receives about ``2 M`` bytes for ``M`` reduced (the ring's
  ``2 (N-1)/N M``), and the latency is ``2 ceil(lg N)`` hops instead of the ring's
  ``2 (N - 1)``.

Each time has a matching transfer plan (:func:`hierarchical_plan`, :func:`multi_ring_orders`,
:func:`double_binary_tree_plan`) that :func:`interconnect.netsim.simulate` times on a
topology (``plan.to_flows(nbytes, ranks)``), so the closed forms are checked against the
flow-level simulator on :func:`interconnect.topology.cluster` (``tests/test_hierarchical.py``).

References
----------
P. Sanders, J. Speck and J. L. Träff, "Two-tree algorithms for full bandwidth broadcast,
reduction and scan", Parallel Computing 35(12):581-594, 2009.
NVIDIA NCCL ``src/graph/trees.cc`` (``ncclGetBtree``, ``ncclGetDtree``).
A. Sergeev and M. Del Balso, "Horovod", arXiv:1802.05799, 2018 (two-level AllReduce).
R. Thakur, R. Rabenseifner and W. Gropp, IJHPCA 19(1):49-66, 2005 (each phase's cost).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive, choice
from .cost import collective_time, cost_terms


def cluster_link_parameters(nic="ib-ndr", gpus_per_node=8, nvlink="nvlink4"):
    """``(B_intra, alpha_intra, B_inter, alpha_inter)`` of :func:`interconnect.topology.cluster`.

    The bandwidth (bytes/s per direction) and latency (s) of the path from GPU 0 to GPU 1 of
    a node (through its NVSwitch) and from GPU 0 of node 0 to GPU 0 of node 1 (its rail:
    PCIe, NIC, leaf, NIC, PCIe), so that the closed forms here price the machine the flow
    simulator runs.

    Examples
    --------
    >>> bi, ai, be, ae = cluster_link_parameters()
    >>> bi / 1e9, be / 1e9, round(ae * 1e6, 2)
    (450.0, 50.0, 2.7)
    """
    from ..topology import cluster, path_bandwidth, path_latency

    g = cluster(2, as_count("gpus_per_node", gpus_per_node, minimum=2), nvlink=nvlink, nic=nic)
    a, b, c = "n0.gpu0", "n0.gpu1", "n1.gpu0"
    return path_bandwidth(g, a, b), path_latency(g, a, b), path_bandwidth(g, a, c), path_latency(g, a, c)

__all__ = [
    "HIERARCHICAL_OPS", "INTER_ALGORITHMS", "Plan", "Stage", "hierarchical_phases", "hierarchical_time",
    "optimal_chunks",
    "multi_ring_time", "multi_ring_orders", "double_binary_tree", "double_binary_tree_time",
    "double_binary_tree_plan", "hierarchical_plan", "pipeline_time", "cluster_link_parameters",
]

#: Operations with a two-level form.
HIERARCHICAL_OPS = ("allreduce", "allgather", "reducescatter")
#: Algorithms across the nodes (on each rail) for :func:`hierarchical_time`.
INTER_ALGORITHMS = ("ring", "double_binary_tree")

_MAX_CHUNKS = 4096


def _phases(op, g):
    """``[(scope, op, fraction of n)]``: the phases of the two-level ``op`` (scope intra or inter)."""
    if op == "allreduce":
        return [("intra", "reducescatter", 1.0), ("inter", "allreduce", 1.0 / g), ("intra", "allgather", 1.0)]
    if op == "allgather":
        return [("inter", "allgather", 1.0 / g), ("intra", "allgather", 1.0)]
    return [("intra", "reducescatter", 1.0), ("inter", "reducescatter", 1.0 / g)]


def _check_shape(nodes, gpus_per_node):
    return as_count("nodes", nodes, minimum=1), as_count("gpus_per_node", gpus_per_node, minimum=1)


def _check_chunks(chunks):
    if isinstance(chunks, str):
        if chunks != "auto":
            raise ValueError(f"chunks={chunks!r} is not allowed; give an integer 1..{_MAX_CHUNKS} or 'auto'")
        return chunks
    k = as_count("chunks", chunks, minimum=1)
    if k > _MAX_CHUNKS:
        raise ValueError(f"chunks={chunks!r} is not allowed; it must be 1..{_MAX_CHUNKS} or 'auto'")
    return k


@dataclass(frozen=True)
class Stage:
    """One stage of a pipelined collective, for one chunk.

    Attributes
    ----------
    name, resource : str
        What the stage does and what it occupies (``"intra"``: the node's NVLink ports;
        ``"inter"``: the NICs). Stages on one resource share it.
    fill : float
        Seconds one chunk takes through the stage alone (latencies and bytes).
    period : float
        Seconds of the resource's bandwidth one chunk uses (the bytes through the busiest
        port divided by its bandwidth).
    latency : float
        Seconds each further chunk adds besides its bytes: a ring stage's ``a alpha`` (it
        handles one chunk at a time), a tree's one ``alpha`` (each edge pipelines chunks).
    """

    name: str
    resource: str
    fill: float
    period: float
    latency: float


def pipeline_time(stages, chunks):
    """Time of ``k`` equal chunks through a pipeline of :class:`Stage` (per-chunk times).

    ``T = sum_i fill_i + (k - 1) max_R (max_{i on R} latency_i + sum_{i on R} period_i)``:
    one chunk through every stage, then ``k - 1`` periods of the busiest resource.

    Parameters
    ----------
    stages : sequence of Stage
    chunks : int
        ``k >= 1``.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    Two stages on different resources, 1 s and 3 s per chunk (no latency), four chunks: 4 + 3 x 3 = 13 s.

    >>> pipeline_time([Stage("a", "x", 1.0, 1.0, 0.0), Stage("b", "y", 3.0, 3.0, 0.0)], 4)
    13.0
    """
    k = as_count("chunks", chunks, minimum=1)
    per, lat = {}, {}
    for s in stages:
        per[s.resource] = per.get(s.resource, 0.0) + s.period
        lat[s.resource] = max(lat.get(s.resource, 0.0), s.latency)
    fill = sum(s.fill for s in stages)
    return fill + (k - 1) * max((per[r] + lat[r] for r in per), default=0.0)


@lru_cache(maxsize=256)
def _tree_shape(N):
    """Depth ``D`` of the double binary tree and the busiest port's bytes per chunk in units of ``m``."""
    parents = double_binary_tree(N)
    depth, load = 0, 0
    tx, rx = [0] * N, [0] * N
    for par in parents:
        for r in range(N):
            d, u = 0, r
            while par[u] != -1:
                u, d = par[u], d + 1
            depth = max(depth, d)
            if par[r] != -1:  # up to the parent, down from it
                tx[r] += 1
                rx[r] += 1
                rx[par[r]] += 1
                tx[par[r]] += 1
    load = max(max(tx), max(rx))
    return depth, load


def _tree_stage(name, resource, M, N, B, a, k):
    """:class:`Stage` of a double-binary-tree AllReduce of ``M`` bytes over ``N`` ports, ``k`` chunks per tree."""
    if N == 1:
        return Stage(name, resource, 0.0, 0.0, 0.0)
    D, W = _tree_shape(N)
    m = M / (2.0 * k)
    return Stage(name, resource, 2 * D * a + 2 * (2 * D - 1) * m / B, W * m / B, a)


def double_binary_tree_time(nbytes, ranks, bandwidth, latency, chunks=1):
    """AllReduce time of NCCL's double binary tree over ``ranks`` ranks (one port each), pipelined.

    Each of the two trees (:func:`double_binary_tree`) reduces half of the ``M = nbytes``
    bytes up to its root and broadcasts it back down, in ``k`` chunks of ``m = M / (2k)``
    bytes per tree. The first chunk climbs ``D`` levels and comes back down: ``2 D``
    latencies, and ``2 D - 1`` times ``m / B`` each way (a parent receives from its two
    children through one port, ``2m``, except the root, which has one child). After it, one
    chunk per period ``alpha + W m / B``, where ``W m`` is the busiest port's
    bytes per chunk: a rank that is an inner node of one tree and a leaf of the other
    sends and receives ``4 m`` (``W = 4``). Hence

    ``T = 2 D alpha + 2 (2D - 1) m / B + (k - 1) (alpha + W m / B)``,

    whose bandwidth term tends to ``W M / (2B) = 2 M / B`` for many chunks: the ring's
    ``2 (N-1)/N M / B`` for large ``N``, with ``2 D = 2 ceil(lg N)`` latencies instead of
    the ring's ``2 (N - 1)``.

    Parameters
    ----------
    nbytes : float
        ``M``, the vector reduced, bytes (> 0).
    ranks : int
        ``N >= 1`` (e.g. one GPU per node on one rail).
    bandwidth, latency : float
        Per-direction bandwidth (bytes/s) and latency (s) of a rank's port.
    chunks : int or "auto"
        Chunks per tree, ``1..4096``; ``"auto"`` takes the ``k`` with the least time.

    Returns
    -------
    float
        Seconds; 0 for one rank.

    Examples
    --------
    Two ranks: each is the root of one tree and the leaf of the other, 1 hop up and 1 down:

    >>> round(double_binary_tree_time(1e9, 2, 50e9, 0.0) * 1e3, 3)
    20.0
    >>> t = double_binary_tree_time(1e9, 64, 50e9, 5e-6, chunks="auto")
    >>> round(t * 1e3, 2), round(2e9 / 50e9 * 1e3, 2)           # tends to 2M/B
    (41.95, 40.0)
    """
    M = float(as_positive("nbytes", nbytes, "bytes"))
    N = as_count("ranks", ranks, minimum=1)
    B = float(as_positive("bandwidth", bandwidth, "bytes/s (per direction)"))
    a = float(as_nonnegative("latency", latency, "seconds"))
    k = _check_chunks(chunks)
    if N == 1:
        return 0.0
    if k != "auto":
        return pipeline_time([_tree_stage("tree", "inter", M, N, B, a, k)], k)
    D, W = _tree_shape(N)
    ks = np.arange(1, _MAX_CHUNKS + 1, dtype=float)
    m = M / (2.0 * ks)  # the same expression as _tree_stage and pipeline_time, for every k at once
    return float(np.min(2 * D * a + 2 * (2 * D - 1) * m / B + (ks - 1) * (W * m / B + a)))


def _ring_stage(name, resource, sub, m, p, B, a, gamma, k=1):
    """:class:`Stage` of a ring ``sub`` of ``m`` bytes (one chunk) over ``p`` ports.

    A stage runs one chunk at a time (as successive NCCL calls on one stream do), so a chunk
    takes the ring's own time ``a alpha + b m / B`` (``fill``); its ``a`` latencies are part
    of every period (``latency``). ``m`` may be an array (one entry per chunk count).
    """
    if p == 1:
        z = np.zeros(np.shape(m)) if np.ndim(m) else 0.0
        return Stage(name, resource, z, z, 0.0)
    steps, b, c = (float(x) for x in cost_terms(sub, p, "ring"))
    bw = b * m / B + c * m * gamma
    fill = collective_time(sub, m, p, B, a, "ring", gamma)
    return Stage(name, resource, fill, bw, steps * a)


def hierarchical_phases(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth,
                        inter_latency, chunks=1, inter_algorithm="ring", gamma=0.0):
    """The stages (:class:`Stage`) of the two-level ``op`` for one chunk of ``nbytes / chunks``.

    See :func:`hierarchical_time` for the parameters. Ring stages: ``fill`` is
    :func:`~interconnect.collectives.collective_time` of the chunk, ``period`` its
    bandwidth term ``b m / B`` (plus ``c m gamma``), ``latency`` one ``alpha``.

    Examples
    --------
    >>> [s.name for s in hierarchical_phases("allreduce", 2**30, 4, 8, 450e9, 1e-6, 50e9, 5e-6)]
    ['intra reducescatter', 'inter allreduce', 'intra allgather']
    """
    op = choice("op", op, HIERARCHICAL_OPS)
    N, g = _check_shape(nodes, gpus_per_node)
    n = float(as_positive("nbytes", nbytes, "bytes"))
    inter_algorithm = choice("inter_algorithm", inter_algorithm, INTER_ALGORITHMS)
    if inter_algorithm == "double_binary_tree" and op != "allreduce":
        raise ValueError(f"inter_algorithm='double_binary_tree' is an AllReduce; op={op!r} allows 'ring'")
    k = as_count("chunks", chunks, minimum=1)
    bw = {"intra": float(as_positive("intra_bandwidth", intra_bandwidth, "bytes/s (per direction)")),
          "inter": float(as_positive("inter_bandwidth", inter_bandwidth, "bytes/s (per direction)"))}
    lat = {"intra": float(as_nonnegative("intra_latency", intra_latency, "seconds")),
           "inter": float(as_nonnegative("inter_latency", inter_latency, "seconds"))}
    gamma = float(as_nonnegative("gamma", gamma, "s/byte"))
    return _stages(op, n, N, g, bw, lat, k, inter_algorithm, gamma)


def _stages(op, n, N, g, bw, lat, k, inter_algorithm, gamma):
    """The stages for ``k`` chunks (an int, or an array of chunk counts giving arrays)."""
    size = {"intra": g, "inter": N}
    out = []
    for scope, sub, frac in _phases(op, g):
        m = frac * n / (k if np.ndim(k) == 0 else np.asarray(k, dtype=float))
        name = f"{scope} {sub}"
        if scope == "inter" and inter_algorithm == "double_binary_tree":
            out.append(_tree_stage(name, scope, m, N, bw[scope], lat[scope], 1))
        else:
            out.append(_ring_stage(name, scope, sub, m, size[scope], bw[scope], lat[scope],
                                   gamma if sub != "allgather" else 0.0, k))
    return out


def hierarchical_time(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth,
                      inter_latency, chunks="auto", inter_algorithm="ring", gamma=0.0):
    """Two-level collective with pipelined (overlapped) phases, seconds.

    The phases (``n`` the full vector, ``g`` GPUs per node, ``N`` nodes):

    * allreduce: ReduceScatter inside the node (``n``), AllReduce across the nodes on each
      rail (``n/g``), AllGather inside the node (``n``);
    * allgather: AllGather across the nodes on each rail (output ``n/g``), then inside
      the node (output ``n``);
    * reducescatter: ReduceScatter inside the node (input ``n``), then across the nodes
      on each rail (input ``n/g``).

    Each phase is a ring (alpha-beta, :func:`~interconnect.collectives.collective_time`);
    with ``inter_algorithm="double_binary_tree"`` the AllReduce across the nodes is
    NCCL's double binary tree (:func:`double_binary_tree_time`). The vector is cut into
    ``k`` chunks that flow through the phases as a pipeline (``hierarchical.pipeline_time``): the
    two intra-node phases share the node's NVLink ports, the inter-node phase the NICs.
    With ``k = 1`` and rings this is exactly
    :func:`~interconnect.collectives.hierarchical_allreduce_time`'s sum of the phases.

    Parameters
    ----------
    op : {"allreduce", "allgather", "reducescatter"}
    nbytes : float
        Full vector, bytes (nccl-tests convention), > 0.
    nodes, gpus_per_node : int
        ``N >= 1`` and ``g >= 1``.
    intra_bandwidth, intra_latency : float
        Per-direction bandwidth (bytes/s) and latency (s) of a GPU's port inside the node.
    inter_bandwidth, inter_latency : float
        The same for a GPU's NIC.
    chunks : int or "auto"
        ``k`` in ``1..4096``; ``"auto"`` (default) the ``k`` with the least time
        (``hierarchical.optimal_chunks``).
    inter_algorithm : {"ring", "double_binary_tree"}
    gamma : float
        Reduction time per byte, s/byte.

    Returns
    -------
    float
        Seconds.

    Examples
    --------
    Four DGX H100-like nodes, 1 GiB: NVLink 450 GB/s, NIC 50 GB/s. Additive against
    pipelined:

    >>> args = ("allreduce", 2**30, 4, 8, 450e9, 1e-6, 50e9, 5e-6)
    >>> round(hierarchical_time(*args, chunks=1) * 1e3, 2), round(hierarchical_time(*args) * 1e3, 2)
    (8.25, 4.75)
    """
    k = _check_chunks(chunks)
    if k == "auto":
        k = optimal_chunks(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth,
                           inter_latency, inter_algorithm, gamma)
    st = hierarchical_phases(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth,
                             inter_latency, k, inter_algorithm, gamma)
    return pipeline_time(st, k)


def optimal_chunks(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth, inter_latency,
                   inter_algorithm="ring", gamma=0.0):
    """The chunk count ``k`` in ``1..4096`` that minimises :func:`hierarchical_time`.

    ``T(k)`` grows with ``k`` through the latencies of the periods and shrinks through the
    fill; every ``k`` is evaluated (as arrays), the smallest wins a tie.

    Examples
    --------
    >>> optimal_chunks("allreduce", 2**30, 4, 8, 450e9, 1e-6, 50e9, 5e-6) > 1
    True
    """
    op = choice("op", op, HIERARCHICAL_OPS)
    N, g = _check_shape(nodes, gpus_per_node)
    n = float(as_positive("nbytes", nbytes, "bytes"))
    inter_algorithm = choice("inter_algorithm", inter_algorithm, INTER_ALGORITHMS)
    if inter_algorithm == "double_binary_tree" and op != "allreduce":
        raise ValueError(f"inter_algorithm='double_binary_tree' is an AllReduce; op={op!r} allows 'ring'")
    bw = {"intra": float(as_positive("intra_bandwidth", intra_bandwidth, "bytes/s (per direction)")),
          "inter": float(as_positive("inter_bandwidth", inter_bandwidth, "bytes/s (per direction)"))}
    lat = {"intra": float(as_nonnegative("intra_latency", intra_latency, "seconds")),
           "inter": float(as_nonnegative("inter_latency", inter_latency, "seconds"))}
    gamma = float(as_nonnegative("gamma", gamma, "s/byte"))
    ks = np.arange(1, _MAX_CHUNKS + 1, dtype=float)
    st = _stages(op, n, N, g, bw, lat, ks, inter_algorithm, gamma)
    fill = sum(np.broadcast_to(s.fill, ks.shape) for s in st)
    per, lt = {}, {}
    for s in st:
        per[s.resource] = per.get(s.resource, 0.0) + s.period
        lt[s.resource] = np.maximum(lt.get(s.resource, 0.0), s.latency)
    busiest = np.max(np.stack([np.broadcast_to(per[r] + lt[r], ks.shape) for r in per]), axis=0)
    return int(ks[int(np.argmin(fill + (ks - 1) * busiest))])


def multi_ring_time(op, nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth,
                    inter_latency, rings=None):
    """A flat ring collective over all ``N g`` GPUs, run as ``r`` rings that leave each node
    through ``r`` different NICs (NCCL's ring channels across nodes), seconds.

    Each ring carries ``n / r`` over ``p = N g`` ranks. Its intra-node hops get ``B_intra / r``
    (every GPU is on all ``r`` rings and shares its NVLink port), its inter-node hop a
    NIC of its own (``B_inter``, when ``r <= g``), so a ring runs at
    ``B = min(B_intra / r, B_inter)`` with ``alpha = max(alpha_intra, alpha_inter)``:

    ``T = collective_time(op, n / r, N g, B, alpha)``.

    With ``r = g`` and a slow network the bus bandwidth is ``g B_inter``: all of a node's
    NICs. A single ring (``r = 1``) crosses the network through one NIC per node.

    Parameters
    ----------
    op : {"allreduce", "allgather", "reducescatter"}
    nbytes, nodes, gpus_per_node, intra_bandwidth, intra_latency, inter_bandwidth, inter_latency
        As for :func:`hierarchical_time`.
    rings : int, optional
        ``1 <= r <= g``; default ``g`` (one ring per NIC).

    Examples
    --------
    >>> t = multi_ring_time("allreduce", 2**30, 4, 8, 450e9, 1e-6, 50e9, 5e-6)
    >>> round(2 * 31 / 32 * 2**30 / t / 1e9)                    # busbw: near 8 NICs x 50 GB/s
    377
    """
    op = choice("op", op, HIERARCHICAL_OPS)
    N, g = _check_shape(nodes, gpus_per_node)
    r = g if rings is None else as_count("rings", rings, minimum=1)
    if r > g:
        raise ValueError(f"rings={rings!r} is not allowed; it must be 1..gpus_per_node={g} (one NIC per ring)")
    nb = float(as_positive("nbytes", nbytes, "bytes"))
    bi = float(as_positive("intra_bandwidth", intra_bandwidth, "bytes/s (per direction)"))
    be = float(as_positive("inter_bandwidth", inter_bandwidth, "bytes/s (per direction)"))
    ai = float(as_nonnegative("intra_latency", intra_latency, "seconds"))
    ae = float(as_nonnegative("inter_latency", inter_latency, "seconds"))
    if N == 1:
        return collective_time(op, nb / r, g, bi / r, ai, "ring")
    bw = min(bi / r, be) if g > 1 else be
    return collective_time(op, nb / r, N * g, bw, max(ai, ae) if g > 1 else ae, "ring")


def multi_ring_orders(nodes, gpus_per_node, rings=None):
    """Ring orders (global ranks ``j g + i``) of :func:`multi_ring_time`'s ``r`` rings.

    Ring ``c`` enters node ``j`` at GPU ``(c - j) mod g``, visits the node's GPUs in
    increasing index (mod ``g``) and leaves from the GPU before its entry, whose rail
    leads to the next node's entry GPU: between consecutive nodes ring ``c`` uses the NIC
    pair of one rail, and different rings use different rails. For
    :func:`interconnect.netsim.simulate_rings`.

    Examples
    --------
    >>> multi_ring_orders(2, 2)
    [[0, 1, 3, 2], [1, 0, 2, 3]]
    """
    N, g = _check_shape(nodes, gpus_per_node)
    r = g if rings is None else as_count("rings", rings, minimum=1)
    if r > g:
        raise ValueError(f"rings={rings!r} is not allowed; it must be 1..gpus_per_node={g}")
    out = []
    for c in range(r):
        order = []
        for j in range(N):
            s = (c - j) % g
            order += [j * g + (s + t) % g for t in range(g)]
        out.append(order)
    return out


def double_binary_tree(ranks):
    """Parents of every rank in NCCL's two trees: ``(parent0, parent1)``, ``-1`` at a root.

    Tree 0 is NCCL's binary tree rooted at rank 0 (``ncclGetBtree``: a rank's parent is found
    from its lowest set bit); tree 1 is tree 0 mirrored (``r -> N - 1 - r``) when ``N`` is
    even and shifted by one rank when ``N`` is odd (``ncclGetDtree``), so the leaves of
    one tree (the odd ranks) are inner nodes of the other.

    Examples
    --------
    >>> double_binary_tree(4)
    ([-1, 2, 0, 2], [1, 3, 1, -1])
    """
    N = as_count("ranks", ranks, minimum=1)

    def btree_parent(r):
        if r == 0:
            return -1
        bit = 1
        while bit < N and not (bit & r):
            bit <<= 1
        up = (r ^ bit) | (bit << 1)
        return r ^ bit if up >= N else up

    p0 = [btree_parent(r) for r in range(N)]
    if N % 2 == 1:
        p1 = [-1 if (u := btree_parent((r - 1) % N)) == -1 else (u + 1) % N for r in range(N)]
    else:
        p1 = [-1 if (u := btree_parent(N - 1 - r)) == -1 else N - 1 - u for r in range(N)]
    return p0, p1


# The transfer plans live in .plans (they import this module); re-exported for the old names.
from .plans import Plan, double_binary_tree_plan, hierarchical_plan  # noqa: E402
