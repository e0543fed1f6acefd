"""Topology builders for networks: the k-ary fat tree and clusters of NVSwitch machines.

Every builder returns an undirected :class:`networkx.Graph` that follows the graph
contract described in :mod:`interconnect.topology`.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from .._validate import as_count, as_positive
from ..links import get_link
from .build import _edge, _label, _resolve, nvswitch
from .paths import path_bandwidth, path_latency

__all__ = ["cluster", "fat_tree", "cluster_paths"]


def fat_tree(k=4, link="ib-ndr", bandwidth=None, latency=None, oversubscription=1.0):
    """The k-ary three-tier fat tree of Al-Fares et al. (SIGCOMM 2008).

    ``k`` pods, each with ``k/2`` edge and ``k/2`` aggregation switches; ``(k/2)^2``
    core switches; every edge switch has ``k/2`` hosts and links to every aggregation
    switch of its pod; aggregation switch ``j`` of every pod links to core switches
    ``j*k/2 .. (j+1)*k/2 - 1``. That is ``k^3/4`` hosts and ``5k^2/4`` switches of ``k``
    ports each.

    Oversubscription ``r``: the edge-to-aggregation and aggregation-to-core edges
    carry ``bandwidth / r``; host-to-edge edges carry the full ``bandwidth``. So the
    edge tier is oversubscribed ``r:1`` (k/2 hosts at b below, k/2 uplinks at b/r
    above) and the aggregation tier stays 1:1; host-to-host bisection is
    ``(k^3/8) b / r``.

    Every edge carries half the link's latency (the switch-chip convention of
    :mod:`interconnect.topology`): the catalog's network latency is end-to-end over one hop
    through the fabric (host, NIC, one switch, NIC, host; NCCL's 2.7 us), so two hosts under
    one edge switch are one latency apart, and each further switch-to-switch link adds half
    of one (no per-switch figure on that basis is published; this charges a switch
    traversal like a host link, an upper bound).

    Parameters
    ----------
    k : int
        Switch radix, even, >= 2.
    link : str or None
        Catalog link of every edge (default InfiniBand NDR 4x, 50 GB/s per direction).
    bandwidth, latency : float, optional
        Overrides of the catalog link (bytes/s per direction, s).
    oversubscription : float
        ``r >= 1``.

    Returns
    -------
    networkx.Graph
        Hosts ``"h<i>"`` (kind ``"host"``), ``"edge<pod>.<i>"``, ``"agg<pod>.<i>"``,
        ``"core<j>"``. Upper-tier edges keep ``link`` and ``count=1`` but have
        ``bandwidth = link bandwidth / r``.

    References
    ----------
    M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center Network
    Architecture", SIGCOMM 2008, sec. 3.2-3.3.

    Examples
    --------
    ``k = 4``: ``k^3/4 = 16`` hosts, ``5k^2/4 = 20`` switches, and full bisection,
    ``(k^3/8) b = 8 x 50 GB/s`` (Al-Fares et al. 2008):

    >>> from interconnect.topology import bisection_bandwidth, endpoints
    >>> g = fat_tree(4)
    >>> len(endpoints(g)), g.number_of_nodes() - 16, bisection_bandwidth(g) / 1e9   # GB/s
    (16, 20, 400.0)
    """
    k = as_count("k", k, 2)
    if k % 2:
        raise ValueError(f"k={k!r} is not allowed; k must be an even integer >= 2")
    r = float(as_positive("oversubscription", oversubscription))
    if r < 1:
        raise ValueError(f"oversubscription={oversubscription!r} is not allowed; it must be >= 1")
    name, bw, lat = _resolve(link, bandwidth, latency)
    lat = lat / 2
    h = k // 2
    g = nx.Graph(name=f"{k}-ary fat tree ({k ** 3 // 4} hosts, {_label(name)}"
                      + (f", {r:g}:1 oversubscribed)" if r != 1 else ")"),
                 builder="fat_tree", k=k, oversubscription=r)
    nhost = k ** 3 // 4
    width = float(nhost - 1)
    host_i = 0
    for p in range(k):
        for e in range(h):
            en = f"edge{p}.{e}"
            xs = []
            for _ in range(h):
                hn = f"h{host_i}"
                g.add_node(hn, kind="host", index=host_i, pod=p, pos=(float(host_i), 0.0))
                _edge(g, hn, en, bw, lat, name)
                xs.append(float(host_i))
                host_i += 1
            g.add_node(en, kind="edge", index=p * h + e, pod=p, pos=(float(np.mean(xs)), 1.0))
        for a in range(h):
            an = f"agg{p}.{a}"
            g.add_node(an, kind="aggregation", index=p * h + a, pod=p,
                       pos=(g.nodes[f"edge{p}.{a}"]["pos"][0], 2.0))
            for e in range(h):
                _edge(g, f"edge{p}.{e}", an, bw / r, lat, name)
    ncore = h * h
    for j in range(ncore):
        cn = f"core{j}"
        x = width * (j + 0.5) / ncore if ncore > 1 else width / 2
        g.add_node(cn, kind="core", index=j, pos=(x, 3.2))
        for p in range(k):
            _edge(g, f"agg{p}.{j // h}", cn, bw / r, lat, name)
    return g


def cluster(nodes=2, gpus_per_node=8, nvlink="nvlink4", nic="ib-ndr", rail_optimized=True,
            spines=None, leaf_spine_oversubscription=1.0, gpu_nic_link="pcie5x16"):
    """GPU machines with NVSwitch inside, one NIC per GPU, and a leaf-spine network.

    The defaults model a DGX H100 SuperPOD-like scalable unit: 8 H100 per node on an
    NVLink 4 NVSwitch fabric (:func:`nvswitch`, one logical crossbar per node), 8
    ConnectX-7 400 Gb/s InfiniBand NDR NICs per node (3.2 Tb/s), a rail-optimised leaf
    layer and a spine layer.

    * **GPU-NIC edge.** Each GPU ``i`` has its own NIC ``i`` on a PCIe edge (GPU and NIC
      under one PCIe switch, as in DGX H100, so GPUDirect RDMA's same-root-complex
      condition holds). Its bandwidth is the lower of the PCIe link
      (``gpu_nic_link``, default PCIe 5.0 x16, 63.0 GB/s) and the NIC rate (NDR, 50
      GB/s): 50 GB/s by default. ``link`` names the PCIe link. CPUs and host memory are
      not in the graph (see :func:`interconnect.transfer.bounce_buffer` for host staging).
    * **Latency.** The NIC's catalog latency is end-to-end over one hop through the
      fabric, GPU to GPU through both NICs and one switch (NCCL's network value, 2.7 us;
      :data:`interconnect.links.LATENCY_BASIS`). It is split over the path so that a
      same-rail path ``gpu-nic-leaf-nic-gpu`` sums to exactly one network latency: each
      GPU-NIC edge keeps the PCIe latency (1.0 us), and the rest (0.7 us) is shared by
      the two NIC-leaf edges (0.35 us each). A leaf-spine edge carries the same 0.35 us:
      no per-switch figure on the catalog's basis is published, so a switch-to-switch
      hop is charged like a NIC-switch one, a modelling choice.
    * **Rails.** ``rail_optimized=True``: leaf ``i`` (``"leaf<i>"``) connects NIC ``i``
      of every node, so same-index GPUs of different nodes are one leaf apart.
      ``False``: one top-of-rack leaf per node connects all its NICs.
    * **Spines.** Every leaf connects to every spine. A leaf with ``d`` NIC ports has
      ``d x nic / r`` of uplink bandwidth (``r = leaf_spine_oversubscription``), split
      evenly over the spines: each leaf-spine edge carries ``d x nic / (r x spines)``
      with ``count`` = that many NIC-rate ports when it is a whole number (else
      ``count=1`` and ``link=""``). Default ``spines = ceil(d / r)``: one port per
      leaf-spine pair.

    Parameters
    ----------
    nodes : int
        Machines, >= 1.
    gpus_per_node : int
        GPUs (and NICs) per machine, >= 1.
    nvlink : str
        Per-GPU NVLink generation inside a node (see :func:`nvswitch`).
    nic : str
        Catalog link of each NIC port (default ``"ib-ndr"``, 400 Gb/s = 50 GB/s).
    rail_optimized : bool
        Rail-optimised leaves (default) or one leaf per node.
    spines : int, optional
        Spine switches, >= 1.
    leaf_spine_oversubscription : float
        ``r >= 1`` at the leaf tier.
    gpu_nic_link : str
        Catalog PCIe link between a GPU and its NIC.

    Returns
    -------
    networkx.Graph
        Node names ``"n<j>.gpu<i>"``, ``"n<j>.nic<i>"``, ``"n<j>.nvsw0"``,
        ``"leaf<l>"``, ``"spine<s>"``; GPUs, NICs and NVSwitches carry ``node=j``.

    References
    ----------
    DGX H100: 8x ConnectX-7 400 Gb/s per node (S. Bekman, *Machine Learning
    Engineering*, network/README.md; NVIDIA DGX H100 User Guide, "Network
    Connections": one ConnectX-7 per GPU); rail-optimised fabric: NVIDIA HGX AI Factory
    reference architecture, "Network Logical Architecture"; Juniper AI data-centre
    JVD, "Rail Optimized Fabric" ("rail N connects GPUs in position N in all the
    servers across leaf switch N").

    Examples
    --------
    Rail-optimised: GPU 0 of node 0 reaches GPU 0 of node 1 through one leaf, at the NIC's
    50 GB/s (400 Gb/s NDR):

    >>> from interconnect.topology import gpus, path, path_bandwidth
    >>> g = cluster(2)
    >>> len(gpus(g)), path(g, "n0.gpu0", "n1.gpu0")
    (16, ['n0.gpu0', 'n0.nic0', 'leaf0', 'n1.nic0', 'n1.gpu0'])
    >>> path_bandwidth(g, "n0.gpu0", "n1.gpu0") / 1e9, path_bandwidth(g, "n0.gpu0", "n0.gpu1") / 1e9   # GB/s
    (50.0, 450.0)
    """
    nn = as_count("nodes", nodes, 1)
    gpn = as_count("gpus_per_node", gpus_per_node, 1)
    if not isinstance(rail_optimized, (bool, np.bool_)):
        raise ValueError(f"rail_optimized={rail_optimized!r} is not a bool")
    r = float(as_positive("leaf_spine_oversubscription", leaf_spine_oversubscription))
    if r < 1:
        raise ValueError(f"leaf_spine_oversubscription={leaf_spine_oversubscription!r} "
                         "is not allowed; it must be >= 1")
    nic_rec = get_link(nic)
    pcie_rec = get_link(gpu_nic_link)
    nic_bw = nic_rec.bandwidth
    gn_bw = min(pcie_rec.bandwidth, nic_bw)
    # the end-to-end network latency split over gpu-nic-leaf-nic-gpu (see Latency above)
    gn_lat = min(pcie_rec.latency, nic_rec.latency / 2)
    hop_lat = (nic_rec.latency - 2 * gn_lat) / 2
    down = nn if rail_optimized else gpn
    nleaves = gpn if rail_optimized else nn
    if spines is None:
        nsp = max(1, math.ceil(down / r - 1e-9))
    else:
        nsp = as_count("spines", spines, 1)
    trunk = down / (r * nsp)
    trunk_bw = down * nic_bw / (r * nsp)
    if abs(trunk - round(trunk)) < 1e-9 and round(trunk) >= 1:
        t_count, t_link = int(round(trunk)), nic_rec.name
    else:
        t_count, t_link = 1, ""

    inner = nvswitch(gpn, nvlink) if gpn >= 2 else None
    g = nx.Graph(name=(f"{nn}-node cluster, {gpn} GPUs/node on NVSwitch, "
                       f"{'rail-optimised' if rail_optimized else 'top-of-rack'} "
                       f"{nic_rec.label} leaf-spine"),
                 builder="cluster", nodes=nn, gpus_per_node=gpn, rail_optimized=bool(rail_optimized),
                 spines=nsp, leaf_spine_oversubscription=r, nic=nic_rec.name,
                 gpu_nic_link=pcie_rec.name,
                 switches=(inner.graph["switches"] if inner is not None else 0))
    block = gpn + 1.5
    for j in range(nn):
        x0 = j * block
        pre = f"n{j}."
        if inner is not None:
            for u, d in inner.nodes(data=True):
                dd = {k: v for k, v in d.items() if k != "pos"}
                if d["kind"] == "gpu":
                    pos = (x0 + d["index"], 3.0)
                else:
                    pos = (x0 + (gpn - 1) / 2, 4.0)
                g.add_node(pre + u, node=j, pos=pos, **dd)
            for u, v, d in inner.edges(data=True):
                g.add_edge(pre + u, pre + v, **d)
        else:
            g.add_node(pre + "gpu0", kind="gpu", index=0, node=j, pos=(x0, 3.0))
        for i in range(gpn):
            g.add_node(f"{pre}nic{i}", kind="nic", index=i, node=j, pos=(x0 + i, 2.2))
            _edge(g, f"{pre}gpu{i}", f"{pre}nic{i}", gn_bw, gn_lat, pcie_rec.name)
    total_w = nn * block - 1.5

    def _row(count, y, prefix, kind):
        for i in range(count):
            x = total_w * (i + 0.5) / count - 0.5 if count > 1 else (total_w - 1) / 2
            g.add_node(f"{prefix}{i}", kind=kind, index=i, pos=(x, y))

    _row(nleaves, 1.0, "leaf", "leaf")
    _row(nsp, -0.2, "spine", "spine")
    for j in range(nn):
        for i in range(gpn):
            leaf = f"leaf{i}" if rail_optimized else f"leaf{j}"
            _edge(g, f"n{j}.nic{i}", leaf, nic_bw, hop_lat, nic_rec.name)
    for l_ in range(nleaves):
        for s in range(nsp):
            _edge(g, f"leaf{l_}", f"spine{s}", trunk_bw, hop_lat, t_link, t_count)
    return g


def cluster_paths(nic="ib-ndr", gpus_per_node=8, nvlink="nvlink4", gpu_nic_link="pcie5x16", spines=None):
    """Per-direction bandwidth and latency of a GPU's two paths in a :func:`cluster`.

    The inputs of the two-level AllReduce: the NVLink path between two GPUs of one node
    (``n0.gpu0`` to ``n0.gpu1``) and the network path between same-rail GPUs of two nodes
    (``n0.gpu0`` to ``n1.gpu0``: GPU-NIC PCIe edge, NIC, leaf), from
    :func:`interconnect.topology.path_bandwidth` and
    :func:`interconnect.topology.path_latency` on a two-node cluster.

    Parameters
    ----------
    nic, nvlink, gpu_nic_link : str
        Link names (:mod:`interconnect.links`), as for :func:`interconnect.topology.cluster`.
    gpus_per_node : int
        GPUs (and NICs) per node.
    spines : int or None
        Spine switches, as for :func:`interconnect.topology.cluster`.

    Returns
    -------
    (float, float, float, float)
        ``(intra_bandwidth, intra_latency, inter_bandwidth, inter_latency)``: bytes/s and s.
    """
    g = cluster(2, gpus_per_node, nvlink=nvlink, nic=nic, gpu_nic_link=gpu_nic_link, spines=spines)
    return (path_bandwidth(g, "n0.gpu0", "n0.gpu1"), path_latency(g, "n0.gpu0", "n0.gpu1"),
            path_bandwidth(g, "n0.gpu0", "n1.gpu0"), path_latency(g, "n0.gpu0", "n1.gpu0"))
