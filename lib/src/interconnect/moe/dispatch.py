"""Expert-parallel traffic and time: rank loads, the AllToAll matrix and flows, a simulated
dispatch, one MoE layer's time, and cross-node dispatch bytes.

See :mod:`interconnect.moe` for the model and its references.
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive
from .routing import _as_counts, _check_count, _check_ep, dispatch_counts

__all__ = ["rank_loads", "alltoall_matrix", "alltoall_flows", "simulate_dispatch", "moe_layer_time",
           "cross_node_dispatch"]


def rank_loads(tokens_per_expert, ep):
    """Tokens each EP rank receives: the loads of its ``n_experts / ep`` consecutive experts summed.

    Experts are placed in blocks: rank ``j`` holds experts ``j E/ep ... (j+1) E/ep - 1``.

    Parameters
    ----------
    tokens_per_expert : array of int, shape (n_experts,) or (ep, n_experts)
        Loads per expert (a matrix from :func:`dispatch_counts` is summed over sources).
    ep : int
        EP ranks, dividing n_experts.

    Returns
    -------
    ndarray of int, shape (ep,)

    Examples
    --------
    >>> rank_loads([150, 100, 50, 100], ep=2).tolist()     # experts 0-1 on rank 0, 2-3 on rank 1
    [250, 150]
    """
    t = _as_counts("tokens_per_expert", tokens_per_expert, (1, 2))
    if t.ndim == 2:
        t = t.sum(axis=0)
    r = _check_ep(ep, t.size)
    return t.reshape(r, -1).sum(axis=1)


def alltoall_matrix(tokens_per_expert, ep, hidden, bytes_per_element=2):
    """Bytes each EP rank sends to each other EP rank in the dispatch AllToAll.

    Parameters
    ----------
    tokens_per_expert : array of int, shape (n_experts,) or (ep, n_experts)
        A matrix (from :func:`dispatch_counts`): row ``i`` holds the assignments of rank
        ``i``'s tokens. A vector of global loads: each rank is taken to contribute an equal
        share of every expert's load (split as evenly as whole tokens allow, the remainder
        going to the lowest ranks).
    ep : int
        EP ranks, >= 1, dividing the number of experts; rank ``j`` holds experts
        ``j E/ep ... (j+1) E/ep - 1`` (as :func:`rank_loads`).
    hidden : int
        Hidden size h: elements of one token's activation, >= 1.
    bytes_per_element : float
        Bytes per element, > 0 (2 for BF16/FP16, 1 for FP8 dispatch).

    Returns
    -------
    ndarray of float, shape (ep, ep)
        ``M[i, j]`` = bytes rank ``i`` sends to rank ``j`` = (assignments of rank ``i``'s
        tokens to experts on rank ``j``) x ``hidden`` x ``bytes_per_element``. The diagonal
        is the part that stays on the GPU (it crosses no link). Row ``i`` sums to all bytes
        rank ``i`` dispatches; column ``j`` to all it receives. The combine AllToAll sends
        the expert outputs back: its matrix is ``M.T``. A token routed to two experts on
        the same rank is counted twice (no de-duplication), as in a plain top-k dispatch.

    Notes
    -----
    The sum of a row is the per-rank ``nbytes`` of an AllToAll in the nccl-tests
    convention (:func:`interconnect.collectives.collective_time`), which includes the piece
    a rank keeps.

    Examples
    --------
    Global loads of 4 experts on 2 ranks, each rank holding half of every expert's tokens;
    in units of one token's 1,024 BF16 values (2,048 bytes):

    >>> m = alltoall_matrix([150, 100, 50, 100], ep=2, hidden=1024)
    >>> (m / 2048).tolist()
    [[125.0, 75.0], [125.0, 75.0]]
    """
    t = _as_counts("tokens_per_expert", tokens_per_expert, (1, 2))
    e = t.shape[-1]
    r = _check_ep(ep, e)
    h = _check_count("hidden", hidden)
    if np.ndim(bytes_per_element) != 0:
        raise ValueError(f"bytes_per_element={bytes_per_element!r} must be a single number > 0")
    b = float(as_positive("bytes_per_element", bytes_per_element, "bytes"))
    if t.ndim == 2:
        if t.shape[0] != r:
            raise ValueError(f"tokens_per_expert has {t.shape[0]} rows but ep={ep}; a matrix needs one row per rank")
        src = t
    else:
        base, rem = np.divmod(t, r)
        src = base[None, :] + (np.arange(r)[:, None] < rem[None, :])
    per_rank = src.reshape(r, r, e // r).sum(axis=2)  # [source, destination rank]
    return per_rank.astype(float) * h * b


def alltoall_flows(matrix, gpus, tag="dispatch"):
    """The off-diagonal entries of an AllToAll matrix as :class:`interconnect.netsim.Flow` objects.

    Parameters
    ----------
    matrix : array, shape (p, p)
        Bytes from rank ``i`` to rank ``j`` (:func:`alltoall_matrix`, or its transpose for
        the combine).
    gpus : sequence of p graph nodes
        The GPU that runs each rank (e.g. ``topology.gpus(g)[:p]``).
    tag : hashable
        Label of every flow (for :func:`interconnect.netsim.plot_timeline`).

    Returns
    -------
    list of Flow
        One flow per ordered pair ``i != j`` with bytes > 0, all starting at 0 (every
        rank posts all its sends at once, as NCCL's grouped send/recv AllToAll does).

    Examples
    --------
    Only the off-diagonal bytes cross a link:

    >>> from interconnect import topology
    >>> flows = alltoall_flows([[0, 4e6], [2e6, 0]], topology.gpus(topology.nvswitch(2)))
    >>> [(f.src, f.dst, f.nbytes) for f in flows]
    [('gpu0', 'gpu1', 4000000.0), ('gpu1', 'gpu0', 2000000.0)]
    """
    from ..netsim import Flow

    m = np.asarray(matrix, dtype=float)
    if m.ndim != 2 or m.shape[0] != m.shape[1] or m.size == 0:
        raise ValueError(f"matrix has shape {m.shape}; expected a square (p, p) array of bytes")
    as_nonnegative("matrix", m, "bytes")
    gpus = list(gpus)
    if len(gpus) != m.shape[0]:
        raise ValueError(f"gpus has {len(gpus)} entries but matrix is {m.shape[0]} x {m.shape[0]}; "
                         "give one GPU per rank")
    return [Flow(gpus[i], gpus[j], float(m[i, j]), tag=tag)
            for i in range(m.shape[0]) for j in range(m.shape[0]) if i != j and m[i, j] > 0]


def simulate_dispatch(nodes, skew, tokens_per_gpu, n_experts, top_k, hidden, seed=0, gpus_per_node=8,
                      bytes_per_element=2):
    """Simulate one dispatch AllToAll with EP over every GPU of ``nodes`` nodes.

    The router's counts (:func:`dispatch_counts` of ``tokens_per_gpu`` tokens per rank), their
    bytes (:func:`alltoall_matrix`) and the flows (:func:`alltoall_flows`) run on
    :func:`interconnect.topology.cluster` by :func:`interconnect.netsim.simulate`.

    Parameters
    ----------
    nodes : int
        Nodes, >= 1; EP is ``nodes * gpus_per_node``.
    skew : float
        Zipf exponent of expert popularity, >= 0.
    tokens_per_gpu, n_experts, top_k, hidden : int
        Tokens routed by each rank, experts, experts per token, hidden size.
    seed : int
    gpus_per_node : int
    bytes_per_element : float

    Returns
    -------
    (networkx.DiGraph, ndarray, interconnect.netsim.SimResult)
        The topology, the ``(ep, ep)`` byte matrix and the simulation.

    Examples
    --------
    >>> g, m, res = simulate_dispatch(1, 0.0, 256, 16, 2, 1024, gpus_per_node=4)
    >>> m.shape, res.makespan > 0
    ((4, 4), True)
    """
    from .. import netsim, topology

    nodes = as_count("nodes", nodes)
    gpn = as_count("gpus_per_node", gpus_per_node)
    g = topology.cluster(nodes, gpn)
    ep = gpn * nodes
    counts = dispatch_counts(tokens_per_gpu * ep, n_experts, ep, top_k=top_k, skew=skew, seed=seed)
    m = alltoall_matrix(counts, ep, hidden, bytes_per_element)
    res = netsim.simulate(g, alltoall_flows(m, topology.gpus(g)[:ep]))
    return g, m, res


def moe_layer_time(n_tokens, hidden, ffn_hidden, ep, top_k, peak_flops, bandwidth, latency=0.0, *,
                   gemm_efficiency, imbalance_factor=1.0, bytes_per_element=2, matrices=2):
    """Forward time of one MoE layer on one EP rank: expert FFN compute and the two AllToAlls.

    Each of the ``n_tokens`` tokens a rank holds is sent to ``top_k`` experts; each expert
    is an FFN ``h -> ffn_hidden -> h`` of ``matrices`` weight matrices of ``h x f``:
    ``2 matrices h f`` FLOPs per token assignment (2 FLOPs per multiply-add; 2 matrices
    for a GeLU FFN, 3 for a gated SwiGLU FFN). Balanced, a rank computes ``n_tokens * top_k``
    assignments; the most loaded rank computes ``imbalance_factor`` times as many. The
    dispatch and the combine are AllToAlls of ``n_tokens * top_k * h * bytes_per_element``
    bytes per rank (nccl-tests convention), costed by
    :func:`interconnect.collectives.collective_time` (``"direct"``: pairwise exchange),
    also scaled by ``imbalance_factor`` (the slowest rank receives that much more).

    Parameters
    ----------
    n_tokens : int
        Tokens on one EP rank entering the layer, >= 1.
    hidden, ffn_hidden : int
        h and the expert FFN's inner size f, >= 1.
    ep : int
        EP ranks, >= 1.
    top_k : int
        Experts per token, >= 1.
    peak_flops : float
        GPU peak, FLOP/s.
    bandwidth, latency : float
        Per-direction bandwidth (bytes/s) and per-message latency (s) each rank sees.
    gemm_efficiency : float
        Fraction of ``peak_flops`` the expert GEMMs reach, (0, 1]; keyword-only and required,
        so that every caller names its efficiency: the book passes the GPU's measured GEMM
        ceiling, :func:`interconnect.parallel.ceiling_fraction` (``1.0`` is the peak).
    imbalance_factor : float
        Max/mean load of the ranks, >= 1 (:func:`imbalance` of :func:`rank_loads`).
    bytes_per_element : float
        Bytes per element on the wire, > 0.
    matrices : int
        Weight matrices per expert, >= 1 (2: GeLU FFN; 3: SwiGLU, e.g. DeepSeek-V3).

    Returns
    -------
    dict
        ``compute``, ``dispatch``, ``combine`` (s), ``alltoall_bytes`` (bytes per rank per
        AllToAll, before the imbalance factor) and ``comm_share`` = AllToAll time / total.
        The backward pass repeats both AllToAlls (on the gradients) and doubles the FLOPs.

    Examples
    --------
    4,096 tokens per rank, top-2 of experts with h = 4,096 and f = 16,384, 8 A100s at their
    measured GEMM ceiling, 25 GB/s per GPU: the two AllToAlls take more than a third of the layer:

    >>> from interconnect.parallel import ceiling_fraction
    >>> t = moe_layer_time(4096, 4096, 16384, 8, 2, 312e12, 25e9, gemm_efficiency=ceiling_fraction("A100"))
    >>> round(t["compute"] * 1e3, 1), round(t["dispatch"] * 1e3, 2), round(t["comm_share"], 2)   # ms, ms, share
    (8.1, 2.35, 0.37)
    """
    from ..collectives import collective_time

    n = _check_count("n_tokens", n_tokens)
    h = _check_count("hidden", hidden)
    f = _check_count("ffn_hidden", ffn_hidden)
    r = _check_count("ep", ep)
    k = _check_count("top_k", top_k)
    peak = float(as_positive("peak_flops", peak_flops, "FLOP/s"))
    bw = float(as_positive("bandwidth", bandwidth, "bytes/s"))
    lat = float(as_nonnegative("latency", latency, "seconds"))
    eff = float(as_positive("gemm_efficiency", gemm_efficiency))
    if eff > 1:
        raise ValueError(f"gemm_efficiency={gemm_efficiency!r} is out of range; allowed (0, 1]")
    imb = float(as_positive("imbalance_factor", imbalance_factor))
    if imb < 1:
        raise ValueError(f"imbalance_factor={imbalance_factor!r} is out of range; allowed >= 1 (max/mean)")
    b = float(as_positive("bytes_per_element", bytes_per_element, "bytes"))
    w = _check_count("matrices", matrices)
    compute = imb * n * k * 2.0 * w * h * f / (peak * eff)
    nbytes = n * k * h * b
    a2a = collective_time("alltoall", imb * nbytes, r, bw, lat, "direct") if r > 1 else 0.0
    return {"compute": compute, "dispatch": a2a, "combine": a2a, "alltoall_bytes": nbytes,
            "comm_share": 2 * a2a / (compute + 2 * a2a)}


def cross_node_dispatch(n_experts, top_k, nodes, hidden=1, node_limit=None, bytes_per_element=2, per_node=True):
    """Expected copies (and bytes) of one token that the dispatch sends across the network.

    The experts are spread evenly over ``nodes`` nodes, ``g = n_experts / nodes`` per node,
    and the router is balanced. Two ways to send a token:

    * ``per_node=False`` (a plain AllToAll): one copy per chosen expert, so each of the
      ``k`` copies crosses the network when its expert is on another node, which happens
      with probability ``(N - 1) / N``: ``k (N - 1) / N`` copies. A node limit does not
      change this expectation.
    * ``per_node=True`` (DeepSeek-V3's kernels, DeepEP): one copy per *destination node*,
      sent over the network to the GPU with the same in-node index and forwarded from there
      over NVLink to every GPU of that node that holds a chosen expert. With node-limited
      routing each token picks at most ``M = node_limit`` nodes and then its ``k`` experts
      among the ``M g`` experts on them. Modelling the ``M`` nodes as a uniformly random
      choice and the ``k`` experts as uniformly random among those nodes' experts (what a
      balanced router gives on average), another node receives the token with probability
      ``(M / N) (1 - C((M - 1) g, k) / C(M g, k))``, so the expected copies are

      ``(N - 1) (M / N) (1 - C((M - 1) g, k) / C(M g, k))``,

      never more than ``min(k, M, N - 1)``. Without a limit ``M = N``.

    Parameters
    ----------
    n_experts : int
        Routed experts, >= 1, a multiple of ``nodes``.
    top_k : int
        Experts per token, 1 <= top_k <= the experts on ``node_limit`` nodes.
    nodes : int
        Nodes the experts are spread over (the EP group's span), >= 1.
    hidden : int
        Elements of one token's hidden state, >= 1 (default 1: the result is in copies).
    node_limit : int, optional
        M, the most nodes one token may be sent to, 1 <= M <= nodes; None: no limit.
    bytes_per_element : float
        Bytes per element on the wire, > 0 (1 for FP8 dispatch, 2 for BF16).
    per_node : bool
        True: one network copy per destination node (then NVLink); False: one per expert.

    Returns
    -------
    dict
        ``copies``: expected network copies per token; ``bytes``: ``copies * hidden *
        bytes_per_element``; ``max_copies`` and ``max_bytes``: the most one token can send
        (``min(k, M, N - 1)`` per node, ``min(k, (N - 1) g)`` per expert).

    Notes
    -----
    The copies forwarded inside the destination nodes travel over NVLink and are not
    counted. The real router does not pick the ``M`` nodes uniformly (it ranks the nodes by
    the sum of their highest ``k / M`` affinities), which spreads the experts over more of
    the chosen nodes; the uniform model is then a slight underestimate, and ``max_copies`` a
    bound either way.

    Examples
    --------
    DeepSeek-V3's layout: 256 routed experts, top-8, EP over 8 nodes. A plain AllToAll sends
    7 of the 8 copies over the network; one copy per node, about 4.6; limited to 4 nodes,
    about 3.2, and never more than 4:

    >>> round(cross_node_dispatch(256, 8, 8, per_node=False)["copies"], 2)
    7.0
    >>> round(cross_node_dispatch(256, 8, 8)["copies"], 2)
    4.63
    >>> r = cross_node_dispatch(256, 8, 8, node_limit=4)
    >>> round(r["copies"], 2), r["max_copies"]
    (3.18, 4)
    """
    e = _check_count("n_experts", n_experts)
    n = _check_count("nodes", nodes)
    if e % n:
        raise ValueError(f"n_experts={n_experts!r} is not a multiple of nodes={nodes}; allowed: multiples of {n}")
    g = e // n
    m = n if node_limit is None else _check_count("node_limit", node_limit)
    if m > n:
        raise ValueError(f"node_limit={node_limit!r} is out of range; allowed 1 to nodes={n}")
    k = _check_count("top_k", top_k)
    if k > m * g:
        raise ValueError(f"top_k={top_k!r} is out of range; allowed 1 to the {m * g} experts on node_limit={m} nodes")
    h = _check_count("hidden", hidden)
    if np.ndim(bytes_per_element) != 0:
        raise ValueError(f"bytes_per_element={bytes_per_element!r} must be a single number > 0")
    b = float(as_positive("bytes_per_element", bytes_per_element, "bytes"))
    if not isinstance(per_node, (bool, np.bool_)):
        raise ValueError(f"per_node={per_node!r} must be True or False")
    if per_node:
        reached = 1.0 - math.comb((m - 1) * g, k) / math.comb(m * g, k)
        copies = (n - 1) * (m / n) * reached
        max_copies = min(k, m, n - 1)
    else:
        copies = k * (n - 1) / n
        max_copies = min(k, (n - 1) * g)
    return {"copies": copies, "bytes": copies * h * b, "max_copies": max_copies, "max_bytes": max_copies * h * b}
