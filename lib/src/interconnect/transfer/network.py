"""Transfers between machines: GPUDirect RDMA, bounce buffers, and every mechanism side by side.

Part of :mod:`interconnect.transfer`, which documents the mechanisms.
"""

from __future__ import annotations

from .. import topology as topo
from .._validate import as_count, as_positive
from ..links import get_link
from ..units import fmt_bandwidth, fmt_bytes
from .base import (
    HOST_MEMORY_BANDWIDTH_DDR5,
    Step,
    _nbytes,
    _pair,
    _pipeline,
    _result,
    _route,
    _stage,
    host_staged_copy,
    p2p_copy,
    p2p_supported,
)


def _nic_of(g, gpu):
    nics = sorted((v for v in g.neighbors(gpu) if g.nodes[v].get("kind") == "nic"),
                  key=lambda v: (g.nodes[v].get("index") != g.nodes[gpu].get("index"), str(v)))
    if not nics:
        raise ValueError(f"{gpu!r} has no NIC attached; GPUDirect RDMA and bounce buffers need "
                         "a cluster graph (topology.cluster())")
    return nics[0]


def _net_route(g, a_nic, b_nic):
    p = _route(g, a_nic, b_nic, topo.NETWORK_KINDS, lambda d: True)
    if p is None:
        raise ValueError(f"no network route from {a_nic!r} to {b_nic!r}")
    return p


def _cross_node(g, src, dst):
    _pair(g, src, dst)
    a, b = g.nodes[src].get("node"), g.nodes[dst].get("node")
    if a is None or b is None or a == b:
        raise ValueError(f"src_gpu={src!r} and dst_gpu={dst!r} are not on different machines "
                         "(node attribute); within a machine use p2p_copy")


def gpudirect_rdma(g, src_gpu, dst_gpu, nbytes):
    """GPU-to-GPU across machines with GPUDirect RDMA: GPU -> NIC -> network -> NIC -> GPU.

    The source NIC reads GPU memory directly over PCIe (peer-to-peer through the PCIe
    switch they share) and the destination NIC writes straight into the destination
    GPU's memory: one transfer, no host memory. Each GPU uses its own NIC (the NIC of
    the same index in :func:`interconnect.topology.cluster`), so GPU and NIC share the
    upstream root complex as GPUDirect RDMA requires; the network route between the
    NICs is the least-latency one through leaf/spine switches.

    ``time = path latency + nbytes / bottleneck`` (GPU-NIC PCIe edges, NIC ports and
    leaf-spine trunks).

    Parameters
    ----------
    g : networkx.Graph
        A cluster graph (``topology.cluster(...)``).
    src_gpu, dst_gpu : node
        GPUs on different machines, e.g. ``"n0.gpu0"``, ``"n1.gpu0"``.
    nbytes : float
        Bytes, >= 0.

    Returns
    -------
    Transfer
        ``mechanism="GPUDirect RDMA"``.

    References
    ----------
    NVIDIA GPUDirect RDMA docs, sec. 1 ("introduced in Kepler-class GPUs and CUDA 5.0";
    "a direct path for data exchange between the GPU and a third-party peer device
    using standard features of PCI Express") and 1.1 ("the two devices must share the
    same upstream PCI Express root complex").

    Examples
    --------
    >>> from interconnect import topology
    >>> t = gpudirect_rdma(topology.cluster(2), "n0.gpu0", "n1.gpu0", 1e9)
    >>> t.path, round(t.time * 1e3, 1), round(t.bandwidth / 1e9, 1)   # ms; GB/s: the 400 Gb/s NIC
    (['n0.gpu0', 'n0.nic0', 'leaf0', 'n1.nic0', 'n1.gpu0'], 20.0, 50.0)
    """
    _cross_node(g, src_gpu, dst_gpu)
    n = _nbytes(nbytes)
    a_nic, b_nic = _nic_of(g, src_gpu), _nic_of(g, dst_gpu)
    net = _net_route(g, a_nic, b_nic)
    p = [src_gpu] + net + [dst_gpu]
    lat, bw = _stage(g, p)
    e1, e2 = g.edges[src_gpu, a_nic], g.edges[b_nic, dst_gpu]
    net_lat = topo.path_latency(g, net)
    steps = [Step("latency", f"{a_nic} DMA-reads {src_gpu} memory over PCIe (GPUDirect RDMA)", e1["latency"]),
             Step("latency", f"network: {len(net) - 1} hop(s) {net[0]} -> {net[-1]}", net_lat),
             Step("latency", f"{b_nic} DMA-writes into {dst_gpu} memory", e2["latency"]),
             Step("stream", f"stream {fmt_bytes(n, binary=False)} at the bottleneck {fmt_bandwidth(bw)}", n / bw)]
    return _result(lat + n / bw, p, n, steps, "GPUDirect RDMA")


def bounce_buffer(g, src_gpu, dst_gpu, nbytes, pcie=None,
                  host_memory_bandwidth=HOST_MEMORY_BANDWIDTH_DDR5, chunks=1):
    """GPU-to-GPU across machines without GPUDirect RDMA: staged through host memory.

    Three stages: ``cudaMemcpy`` device-to-host into a pinned (registered) buffer on
    the source machine; RDMA from that host buffer to a host buffer on the
    destination machine (the NICs read/write host memory over PCIe); host-to-device
    on the destination. Stage bandwidths: D2H/H2D = min(GPU's PCIe link, host memory);
    RDMA = min(network bottleneck between the NICs, the NICs' PCIe link, host
    memory). ``chunks=1`` runs them in sequence; ``chunks > 1`` pipelines them
    (``T = sum t_i + (c-1) max t_i``), each host memory then serving a read and a write
    at once (half of ``host_memory_bandwidth`` each).

    The GPU's and NIC's PCIe link is ``pcie`` (default: the ``link`` of the GPU-NIC
    edge in the cluster graph, PCIe 5.0 x16 for the defaults); CPUs are not nodes of
    the cluster graph, so ``path`` lists the GPUs, NICs and switches and the host legs
    appear in ``steps``.

    Parameters
    ----------
    g : networkx.Graph
        A cluster graph.
    src_gpu, dst_gpu : node
        GPUs on different machines.
    nbytes : float
        Bytes, >= 0.
    pcie : str or float, optional
        Catalog PCIe link name or a bandwidth in bytes/s (latency then the catalog
        PCIe latency, 1 us).
    host_memory_bandwidth : float
        Bytes/s per host (default :data:`HOST_MEMORY_BANDWIDTH_DDR5`).
    chunks : int
        Pipeline chunks, >= 1.

    Returns
    -------
    Transfer
        ``mechanism="bounce buffer"``.

    References
    ----------
    NVIDIA GPUDirect RDMA docs, sec. 1 (what GPUDirect RDMA removes: the copy through
    host memory); NVIDIA CUDA C++ Best Practices Guide, "Pinned Memory".

    Examples
    --------
    Without GPUDirect RDMA the same 1 GB as in :func:`gpudirect_rdma` (20 ms) takes three
    copies; pipelining them in 8 chunks recovers most of the loss:

    >>> from interconnect import topology
    >>> g = topology.cluster(2)
    >>> round(bounce_buffer(g, "n0.gpu0", "n1.gpu0", 1e9).time * 1e3, 1)             # ms
    51.7
    >>> round(bounce_buffer(g, "n0.gpu0", "n1.gpu0", 1e9, chunks=8).time * 1e3, 1)   # ms
    24.0
    """
    _cross_node(g, src_gpu, dst_gpu)
    n = _nbytes(nbytes)
    hmb = float(as_positive("host_memory_bandwidth", host_memory_bandwidth, "bytes/s"))
    c = as_count("chunks", chunks, 1)
    a_nic, b_nic = _nic_of(g, src_gpu), _nic_of(g, dst_gpu)
    if pcie is None:
        name = g.edges[src_gpu, a_nic].get("link", "")
        if not name.startswith("pcie"):
            raise ValueError(f"the {src_gpu}-{a_nic} edge has link={name!r}, not a PCIe link; "
                             "give pcie= (a link name such as 'pcie5x16' or a bandwidth)")
        rec = get_link(name)
        pbw, plat = rec.bandwidth, rec.latency
    elif isinstance(pcie, str):
        rec = get_link(pcie)
        pbw, plat = rec.bandwidth, rec.latency
    else:
        pbw = float(as_positive("pcie", pcie, "bytes/s"))
        plat = get_link("pcie5x16").latency
    net = _net_route(g, a_nic, b_nic)
    nlat, nbw = _stage(g, net)
    mem = hmb if c == 1 else hmb / 2
    stages = [("d2h", f"D2H copy {src_gpu} -> host memory", plat, min(pbw, mem)),
              ("rdma", f"RDMA host -> host via {a_nic} ... {b_nic}", 2 * plat + nlat, min(nbw, pbw, mem)),
              ("h2d", f"H2D copy host memory -> {dst_gpu}", plat, min(pbw, mem))]
    total, steps = _pipeline(stages, n, c)
    return _result(total, [src_gpu] + net + [dst_gpu], n, steps, "bounce buffer")


def mechanisms(g, src_gpu, dst_gpu, nbytes, chunks=8):
    """The ways to move ``nbytes`` from ``src_gpu`` to ``dst_gpu``: direct, staged, staged in chunks.

    Within a machine: :func:`p2p_copy` (``None`` where :func:`p2p_supported` says no) and
    :func:`host_staged_copy` in one piece and in ``chunks``. Across the machines of a
    cluster (``g.graph["builder"] == "cluster"``): :func:`gpudirect_rdma` and
    :func:`bounce_buffer` in one piece and in ``chunks``.

    Parameters
    ----------
    g : networkx.Graph
    src_gpu, dst_gpu : str
    nbytes : float
        Bytes.
    chunks : int
        Chunks of the pipelined staged copy.

    Returns
    -------
    list
        ``[direct Transfer or None, staged Transfer, staged pipelined Transfer]``.

    Examples
    --------
    Across the sockets of a PCIe server there is no P2P (``None``), only host staging:

    >>> from interconnect import topology
    >>> ts = mechanisms(topology.pcie_tree(4, 1, 2), "gpu0", "gpu4", 1e9)
    >>> [None if t is None else (t.mechanism, round(t.time * 1e3, 1)) for t in ts]   # ms
    [None, ('host staged', 127.0), ('host staged', 71.4)]
    """
    if g.graph.get("builder") == "cluster":
        return [gpudirect_rdma(g, src_gpu, dst_gpu, nbytes), bounce_buffer(g, src_gpu, dst_gpu, nbytes),
                bounce_buffer(g, src_gpu, dst_gpu, nbytes, chunks=chunks)]
    direct = p2p_copy(g, src_gpu, dst_gpu, nbytes) if p2p_supported(g, src_gpu, dst_gpu) else None
    return [direct, host_staged_copy(g, src_gpu, dst_gpu, nbytes),
            host_staged_copy(g, src_gpu, dst_gpu, nbytes, chunks=chunks)]
