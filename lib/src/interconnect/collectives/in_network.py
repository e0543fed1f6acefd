"""Collectives that the network helps with: in-switch reduction and two-level AllReduce.

References
----------
R. L. Graham et al., "Scalable Hierarchical Aggregation Protocol (SHArP)", COMHPC 2016.
A. Sergeev and M. Del Balso, "Horovod", arXiv:1802.05799, 2018.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive, choice
from .algorithms import OPS
from .cost import collective_time

__all__ = ["IN_NETWORK_OPS", "IN_NETWORK_ALGORITHMS", "in_network_time", "hierarchical_allreduce_time",
           "in_network_achieved", "in_network_gain"]


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

    This is the *peak* (line-rate) model. NCCL's NVLS and SHARP kernels do not reach it:
    on 8 H100 the model gives 787 GB/s of bus bandwidth where nccl-tests measures about
    480, and at 4 GPUs NVLS is slower than the ring; :func:`in_network_achieved` gives what
    NCCL's own model predicts, :func:`in_network_gain` where it helps.

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

    The phases here run one after another. Real implementations pipeline them in chunks,
    so the network phase overlaps the two NVLink phases:
    :func:`interconnect.collectives.hierarchical_time` (``chunks=1`` gives this sum exactly).

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
    ar = collective_time("allreduce", nbytes / np.asarray(g, dtype=float), N, inter_bandwidth, inter_latency, "ring",
                         gamma)
    ag = collective_time("allgather", nbytes, g, intra_bandwidth, intra_latency, "ring")
    out = rs + ar + ag
    return float(out) if np.ndim(out) == 0 else out


# ----------------------------------------------------------------------------- as NCCL achieves it

#: NCCL's algorithms that reduce in the network, and what each is.
IN_NETWORK_ALGORITHMS = {
    "nvls": "NVLink SHARP: the NVSwitch reduces and multicasts inside the node (Hopper and later); "
            "across nodes only with IB SHARP (CollNet)",
    "nvls_tree": "NVLink SHARP inside each node, NCCL's tree across the nodes",
    "collnet_direct": "InfiniBand SHARP (CollNet): the switches reduce across the nodes, each GPU to its NIC",
    "collnet_chain": "InfiniBand SHARP (CollNet): the switches reduce across the nodes, a chain inside the node",
}
_HOST_ALGORITHMS = ("ring", "tree", "pat")


def _predictions(op, nbytes, nranks, nnodes, machine, algorithms):
    from .nccl import nccl_predict

    out = []
    for a in algorithms:
        try:
            out.append(nccl_predict(op, nbytes, nranks, nnodes, machine, algorithm=a))
        except ValueError as e:
            if "is not enabled" not in str(e):
                raise
    return out


def in_network_achieved(op, nbytes, nranks, nnodes=1, machine="dgx-h100", sharp=False):
    """What NCCL achieves with in-network reduction against without it, from its own tuning model.

    :func:`in_network_time` is the *peak* model: each GPU sends ``n`` once at line rate and
    the switch does the rest, so the bus bandwidth of an NVLS AllReduce would be
    ``2 (p-1)/p`` times the link (787 GB/s on 8 H100). NCCL does not get there: its
    NVLS kernels reach a fraction of the NVLink bandwidth (``nvls_efficiency``) over
    ``channels - 1`` of its channels, and across nodes CollNet (InfiniBand SHARP) divides
    its bandwidth among the GPUs of a node. This function asks the port of NCCL's model
    (:func:`interconnect.collectives.nccl_predict`) for the fastest in-network algorithm
    (:data:`IN_NETWORK_ALGORITHMS`) and for the fastest host-based one (ring, tree, PAT),
    each with its best protocol.

    Parameters
    ----------
    op : str
        One of NCCL's operations (``"allreduce"``, ``"allgather"``, ``"reducescatter"``...).
    nbytes : float
        Message size, bytes (nccl-tests convention).
    nranks, nnodes : int
        GPUs and nodes.
    machine : str or NcclMachine
        A preset of :data:`interconnect.collectives.NCCL_MACHINES` or a machine.
    sharp : bool
        Enable CollNet (InfiniBand SHARP switches), off by default as in NCCL.

    Returns
    -------
    (NcclPrediction or None, NcclPrediction)
        The in-network prediction (``None`` where NCCL enables none: fewer than two NVLS
        channels, no NVSwitch, a pre-Hopper GPU, several nodes without SHARP for
        ``"nvls"``...) and the host-based one.

    Examples
    --------
    8 H100 in one node, 8 GiB: NVLS reaches about 474 GB/s of bus bandwidth, not 787, and
    beats the ring's 360; on 4 GPUs it has 4 channels where the ring has 12 and loses.

    >>> net, host = in_network_achieved("allreduce", 2**33, 8)
    >>> net.algorithm, round(net.busbw / 1e9), host.algorithm, round(host.busbw / 1e9)
    ('nvls', 474, 'ring', 360)
    >>> net, host = in_network_achieved("allreduce", 2**33, 4)
    >>> round(net.busbw / 1e9), round(host.busbw / 1e9)
    (239, 360)
    """
    from dataclasses import replace

    from .nccl import _machine

    m = _machine(machine)
    if not isinstance(sharp, (bool, np.bool_)):
        raise ValueError(f"sharp={sharp!r} is not a bool")
    if bool(sharp) != m.collnet:
        m = replace(m, collnet=bool(sharp))
    host = _predictions(op, nbytes, nranks, nnodes, m, _HOST_ALGORITHMS)
    net = _predictions(op, nbytes, nranks, nnodes, m, tuple(IN_NETWORK_ALGORITHMS))
    best_host = min(host, key=lambda x: x.time)
    best_net = min(net, key=lambda x: x.time) if net else None
    return best_net, best_host


def in_network_gain(op, nbytes, nranks, nnodes=1, machine="dgx-h100", sharp=False):
    """Host-based time over in-network time in NCCL's model: above 1 where in-network reduction
    helps, below 1 where it hurts, 0 where NCCL cannot use it (see :func:`in_network_achieved`).

    Examples
    --------
    >>> [round(in_network_gain("allreduce", 2**33, p), 2) for p in (2, 4, 8)]
    [0.28, 0.67, 1.32]
    >>> in_network_gain("allreduce", 2**33, 8, machine="dgx-a100")      # no NVLS before Hopper
    0.0
    """
    net, host = in_network_achieved(op, nbytes, nranks, nnodes, machine, sharp)
    return 0.0 if net is None else host.time / net.time
