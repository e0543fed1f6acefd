"""Reference machines at rack and pod scale: the DGX H100 SuperPOD and the GB200 NVL72 rack.

Both builders return an undirected :class:`networkx.Graph` that follows the graph
contract of :mod:`interconnect.topology`, so :func:`~interconnect.topology.path`,
:func:`~interconnect.topology.path_bandwidth`,
:func:`~interconnect.topology.bisection_bandwidth` and :mod:`interconnect.netsim` work
on them unchanged.
"""

from __future__ import annotations

import math

import networkx as nx

from .._validate import as_count, as_positive
from ..links import get_link
from .build import _edge, nvswitch

__all__ = ["nvl72", "superpod", "inventory", "NVL72_GPUS", "NVL72_SWITCH_CHIPS"]

#: GPUs in one GB200 NVL72 rack (18 compute trays x 4).
NVL72_GPUS = 72
#: NVLink 5 switch chips in one GB200 NVL72 rack (9 switch trays x 2).
NVL72_SWITCH_CHIPS = 18


#: the network tiers, bottom up, in the order :func:`inventory` lists them
_TIERS = ("nic", "leaf", "spine", "core")


def inventory(g):
    """What a network fabric is built from: its switches per tier and its cables per pair of tiers.

    Counts the nodes of :data:`_TIERS` kinds that are switches (``"leaf"``, ``"spine"``,
    ``"core"``) and, for every edge between two network tiers (NIC-leaf, leaf-spine,
    spine-core), its ``count`` of physical links: one cable per port pair, so a bundled
    leaf-spine trunk of four ports is four cables. Ports are two per cable. NVLink, PCIe and
    the NVSwitch crossbar inside a node are not counted (they are board traces or in-node
    cables, not fabric cables).

    Parameters
    ----------
    g : networkx.Graph
        A fabric with ``kind`` on every node, e.g. :func:`superpod` or
        :func:`interconnect.topology.cluster`.

    Returns
    -------
    dict
        ``{"leaf": n, "spine": n, "core": n, "switches": n, "nic-leaf": cables,
        "leaf-spine": cables, "spine-core": cables, "cables": total, "switch_ports": n}``;
        ``switch_ports`` is the number of switch ports in use (each NIC-leaf cable uses one,
        each cable between switches two).

    Examples
    --------
    The RA's 1-SU fabric: 8 leaves and 4 spines, 256 cables from the nodes to the leaves and
    256 from the leaves to the spines (non-blocking), every one of the 12 switches' 64 ports used:

    >>> inv = inventory(superpod(1))
    >>> inv["leaf"], inv["spine"], inv["core"], inv["nic-leaf"], inv["leaf-spine"], inv["switch_ports"]
    (8, 4, 0, 256, 256, 768)
    """
    kinds = nx.get_node_attributes(g, "kind")
    out = {t: sum(1 for k in kinds.values() if k == t) for t in _TIERS[1:]}
    out["switches"] = sum(out.values())
    pairs = {(a, b): f"{a}-{b}" for a, b in zip(_TIERS, _TIERS[1:])}
    for name in pairs.values():
        out[name] = 0
    for u, v, d in g.edges(data=True):
        ku, kv = kinds.get(u), kinds.get(v)
        if ku in _TIERS and kv in _TIERS:
            a, b = sorted((ku, kv), key=_TIERS.index)
            if (a, b) in pairs:
                out[pairs[a, b]] += int(d.get("count", 1))
    out["cables"] = sum(out[n] for n in pairs.values())
    out["switch_ports"] = out["nic-leaf"] + 2 * (out["cables"] - out["nic-leaf"])
    return out


def _smallest_divisor_at_least(n, lo):
    """The least divisor of ``n`` that is >= ``lo`` (``n`` itself at worst; ``lo <= n``)."""
    return next(d for d in range(max(1, lo), n + 1) if n % d == 0)


def _trunk(g, u, v, ports, port_bw, lat, link):
    _edge(g, u, v, ports * port_bw, lat, link, ports)


def superpod(sus=1, nodes_per_su=32, gpus_per_node=8, radix=64, oversubscription=1.0,
             nvlink="nvlink4", nic="ib-ndr", pcie="pcie5x16", ufm=False):
    """An NVIDIA DGX SuperPOD (DGX H100) compute fabric: scalable units on a rail-optimised fat tree.

    What is modelled, after the DGX SuperPOD reference architecture (RA) for DGX H100:

    * **Nodes.** Each DGX H100 has ``gpus_per_node`` = 8 H100 on an NVLink 4 NVSwitch
      fabric (:func:`~interconnect.topology.nvswitch`, one logical crossbar
      ``"n<j>.nvsw0"``) and one ConnectX-7 400 Gb/s NIC per GPU (the 8 compute rails).
      The NIC sits behind the node's PCIe Gen5 switch that also holds its GPU: GPU ``i``
      -- PCIe switch ``"n<j>.sw<i>"`` -- NIC ``"n<j>.nic<i>"``, not the NIC hanging off
      the GPU. Both PCIe edges are ``pcie`` (default PCIe 5.0 x16) at half its latency
      (the switch-chip convention). CPUs, storage and in-band NICs are not in the graph.
    * **Scalable unit (SU).** ``nodes_per_su`` = 32 nodes. Rail-optimised leaves: one
      leaf per rail per SU, ``"leaf<su>.<rail>"``, takes NIC ``rail`` of each node of
      its SU; a leaf is a ``radix``-port switch (QM9700: 64 NDR ports) with
      ``nodes_per_su`` ports down and ``u = nodes_per_su / oversubscription`` ports up.
    * **Two tiers** while the ``L = sus x gpus_per_node`` leaves fit one spine tier
      (``L <= radix``): every leaf joins every spine ``"spine<i>"``; spines = the least
      divisor ``P`` of ``u`` with ``P >= L u / radix`` (enough spine ports), each
      leaf-spine edge bundling ``u / P`` ports.
    * **Three tiers** beyond that (a core tier): the leaves of one rail form a rail
      group with its own spines ``"spine<rail>.<i>"`` (``P`` = least divisor of ``u``
      with ``P >= sus u / (radix/2)``; each spine ``radix/2`` ports down, as many up);
      spine ``i`` of every rail group joins the ``c`` cores of core group ``i``
      (``"core<j>"``), ``c`` = least divisor of the spine's down ports ``d`` with
      ``c >= gpus_per_node d / radix``. Spine and core tiers are 1:1; only the leaf is
      oversubscribed.

    Every network edge is ``nic`` (InfiniBand NDR, 50 GB/s per direction per port),
    ``count`` = ports bundled. Latency: the NIC's catalog latency is end-to-end, GPU to GPU
    through one switch (NCCL's 2.7 us, :data:`interconnect.links.LATENCY_BASIS`); each
    GPU-switch-NIC path keeps the PCIe latency (two half edges), the two NIC-leaf edges share
    the rest (0.35 us each), so two GPUs on one rail and one SU are exactly one network
    latency apart, and every switch-to-switch edge costs the same 0.35 us (no per-switch
    figure on that basis is published; a modelling choice, as in ``cluster``). With the defaults the counts are the RA's
    (see References): 1 SU = 32 nodes, 256 GPUs, 8 leaves, 4 spines; 2 SU: 16 leaves, 8
    spines; 4 SU: 32 leaves, 16 spines; 8 SU: 64 leaves, 32 spines; 16 SU: 128 leaves,
    128 spines, 64 cores; 32 SU: 256, 256, 128. Host-to-host the fabric is non-blocking
    at ``oversubscription=1``: bisection = GPUs/2 x 50 GB/s.

    Parameters
    ----------
    sus : int
        Scalable units, >= 1 (at most ``radix/2``: a rail group's spines reach every SU).
    nodes_per_su : int
        DGX nodes per SU, >= 1 (RA: 32).
    gpus_per_node : int
        GPUs, NICs and rails per node, >= 1 (DGX H100: 8).
    radix : int
        Ports per InfiniBand switch, even, >= 2 (QM9700: 64).
    oversubscription : float
        ``r >= 1`` at the leaf; ``nodes_per_su / r`` must be a whole number of ports.
    nvlink, nic, pcie : str
        Catalog links (:mod:`interconnect.links`): NVLink generation inside a node, the
        network port, the GPU-switch and switch-NIC PCIe links.
    ufm : bool
        Leave the last node position of the last SU empty, as the RA's 4-SU design
        does (127 DGX nodes, not 128; its leaf ports serve the UFM fabric manager
        -- that reading of where the UFM attaches is ours, not stated by NVIDIA).

    Returns
    -------
    networkx.Graph
        GPUs ``"n<j>.gpu<i>"`` (``node=j``, ``index=i``, ``su``), PCIe switches
        ``"n<j>.sw<i>"``, NICs ``"n<j>.nic<i>"``, ``"n<j>.nvsw0"``, leaves, spines,
        cores. ``g.graph`` holds the arguments and the counts ``nodes``, ``leaves``,
        ``spines``, ``cores``, ``tiers``.

    Raises
    ------
    ValueError
        A count out of range (the message names the parameter, its value and the allowed
        range), a radix too small for ``nodes_per_su`` plus the uplinks, or too many SUs.

    References
    ----------
    NVIDIA, *NVIDIA DGX SuperPOD: Next Generation Scalable Infrastructure for AI
    Leadership, Reference Architecture Featuring NVIDIA DGX H100 Systems*, RA-11333-001
    (v11, 2023), "Compute Fabric" and Table 7 (the 4-SU design: 127 DGX H100 nodes);
    https://docs.nvidia.com/dgx-superpod/reference-architecture-scalable-infrastructure-h100/
    (SUs of 32 DGX H100, 8 ConnectX-7 400 Gb/s per node, rail-optimised NDR fabric of
    QM9700 switches). The larger counts (8, 16, 32 SU; leaf, spine and core) are checked
    against Table 3 of the DGX SuperPOD B200 RA, which keeps the same 32-node SU, 8 rails
    and 64-port NDR switches; the H100 RA's own table of larger counts was not read here
    (not checked against a primary source, nor is the 1-SU spine count of 4). GPU and NIC under one PCIe switch:
    NVIDIA DGX H100 User Guide (``nvidia-smi topo -m``: GPU-NIC ``PIX``). The three-tier
    wiring (spine ``i`` of each rail group to core group ``i``) is the fat tree's (Al-Fares
    et al. 2008), which meets the B200 RA's counts; the RA's cabling was not read.

    Examples
    --------
    One SU; a GPU reaches the same rail of another node through one leaf, and GPU 0 of
    another SU through a spine:

    >>> from interconnect.topology import gpus, path
    >>> g = superpod(1)
    >>> len(gpus(g)), g.graph["leaves"], g.graph["spines"], g.graph["tiers"]
    (256, 8, 4, 2)
    >>> path(superpod(2, nodes_per_su=2), "n0.gpu0", "n2.gpu0")
    ['n0.gpu0', 'n0.sw0', 'n0.nic0', 'leaf0.0', 'spine0', 'leaf1.0', 'n2.nic0', 'n2.sw0', 'n2.gpu0']
    """
    S = as_count("sus", sus, 1)
    n = as_count("nodes_per_su", nodes_per_su, 1)
    R = as_count("gpus_per_node", gpus_per_node, 1)
    k = as_count("radix", radix, 2)
    if k % 2:
        raise ValueError(f"radix={radix!r} is not allowed; radix must be an even integer >= 2")
    r = float(as_positive("oversubscription", oversubscription))
    if r < 1:
        raise ValueError(f"oversubscription={oversubscription!r} is not allowed; it must be >= 1")
    u_f = n / r
    if abs(u_f - round(u_f)) > 1e-9 or round(u_f) < 1:
        raise ValueError(f"oversubscription={oversubscription!r} is not allowed with nodes_per_su={n}: "
                         f"nodes_per_su / oversubscription must be a whole number of uplink ports >= 1")
    u = int(round(u_f))
    if n + u > k:
        raise ValueError(f"nodes_per_su={n} is not allowed with radix={k} and oversubscription={r:g}: "
                         f"a leaf needs {n} + {u} ports; nodes_per_su must be <= {int(k * r / (r + 1))}")
    if not isinstance(ufm, bool):
        raise ValueError(f"ufm={ufm!r} is not a bool")
    nic_rec, pcie_rec = get_link(nic), get_link(pcie)
    L = S * R
    tiers = 2 if L <= k else 3
    if tiers == 3:
        if S > k // 2:
            raise ValueError(f"sus={S} is not allowed with radix={k}: a rail group's spines reach at most "
                             f"radix/2 = {k // 2} SUs; sus must be in 1..{k // 2}")
        if R > k:
            raise ValueError(f"gpus_per_node={R} is not allowed with radix={k} and {S} SUs: a core reaches "
                             f"at most radix rail groups; gpus_per_node must be in 1..{k}")
        P = _smallest_divisor_at_least(u, math.ceil(S * u / (k // 2)))
        d = S * u // P  # down (= up) ports of a spine
        c = _smallest_divisor_at_least(d, math.ceil(R * d / k))
        nspine, ncore = R * P, P * c
    else:
        P = _smallest_divisor_at_least(u, math.ceil(L * u / k))
        nspine, ncore = P, 0
    total_nodes = S * n - (1 if ufm else 0)
    if total_nodes < 1:
        raise ValueError("ufm=True leaves no DGX node; give sus * nodes_per_su >= 2")

    inner = nvswitch(R, nvlink) if R >= 2 else None
    g = nx.Graph(name=(f"DGX SuperPOD, {S} SU x {n} nodes ({total_nodes} nodes, {total_nodes * R} GPUs), "
                       f"rail-optimised {nic_rec.label} {tiers}-tier fat tree"
                       + (f", {r:g}:1 at the leaf" if r != 1 else "")),
                 builder="superpod", sus=S, nodes_per_su=n, gpus_per_node=R, radix=k,
                 oversubscription=r, nvlink=nvlink, nic=nic_rec.name, pcie=pcie_rec.name, ufm=ufm,
                 nodes=total_nodes, leaves=L, spines=nspine, cores=ncore, tiers=tiers,
                 switches=(inner.graph["switches"] if inner is not None else 0))
    half_pcie = pcie_rec.latency / 2
    block = R + 1.5
    for j in range(total_nodes):
        su, x0, pre = j // n, j * block, f"n{j}."
        if inner is not None:
            for v, dd in inner.nodes(data=True):
                attrs = {key: val for key, val in dd.items() if key != "pos"}
                pos = (x0 + dd["index"], 4.0) if dd["kind"] == "gpu" else (x0 + (R - 1) / 2, 5.0)
                g.add_node(pre + v, node=j, su=su, pos=pos, **attrs)
            for a, b, dd in inner.edges(data=True):
                g.add_edge(pre + a, pre + b, **dd)
        else:
            g.add_node(pre + "gpu0", kind="gpu", index=0, node=j, su=su, pos=(x0, 4.0))
        for i in range(R):
            g.add_node(f"{pre}sw{i}", kind="pcie_switch", index=i, node=j, su=su, pos=(x0 + i, 3.1))
            g.add_node(f"{pre}nic{i}", kind="nic", index=i, node=j, su=su, pos=(x0 + i, 2.2))
            _edge(g, f"{pre}gpu{i}", f"{pre}sw{i}", pcie_rec.bandwidth, half_pcie, pcie_rec.name)
            _edge(g, f"{pre}sw{i}", f"{pre}nic{i}", pcie_rec.bandwidth, half_pcie, pcie_rec.name)
    width = max(S * n * block - 1.5, 1.0)

    def _row(names, y, kind, **attrs):
        m = len(names)
        for idx, name in enumerate(names):
            g.add_node(name, kind=kind, index=idx, pos=(width * (idx + 0.5) / m - 0.5, y), **attrs)

    # the NIC's latency is end-to-end, GPU to GPU through one switch: what the two GPU-NIC PCIe
    # paths (pcie latency each) leave of it is shared by the two NIC-leaf edges (docstring)
    net_hop = (nic_rec.latency - 2 * min(pcie_rec.latency, nic_rec.latency / 2)) / 2
    bw, lat, link = nic_rec.bandwidth, net_hop, nic_rec.name
    for s in range(S):
        for rail in range(R):
            leaf = f"leaf{s}.{rail}"
            x = (s * n + (n - 1) / 2) * block + rail * block / R
            g.add_node(leaf, kind="leaf", index=s * R + rail, su=s, rail=rail, pos=(x, 1.0))
    for j in range(total_nodes):
        for i in range(R):
            _edge(g, f"n{j}.nic{i}", f"leaf{j // n}.{i}", bw, lat, link)
    if tiers == 2:
        _row([f"spine{p}" for p in range(P)], -0.2, "spine")
        for s in range(S):
            for rail in range(R):
                for p in range(P):
                    _trunk(g, f"leaf{s}.{rail}", f"spine{p}", u // P, bw, lat, link)
    else:
        _row([f"spine{rail}.{p}" for rail in range(R) for p in range(P)], -0.2, "spine")
        _row([f"core{q}" for q in range(ncore)], -1.4, "core")
        for rail in range(R):
            for p in range(P):
                sp = f"spine{rail}.{p}"
                g.nodes[sp].update(rail=rail)
                for s in range(S):
                    _trunk(g, f"leaf{s}.{rail}", sp, u // P, bw, lat, link)
                for q in range(c):
                    _trunk(g, sp, f"core{p * c + q}", d // c, bw, lat, link)
    return g


def nvl72(nics=False, cpus=True, nvlink="nvlink5-link", nic="ib-ndr", pcie="pcie5x16"):
    """A GB200 NVL72 rack: 72 Blackwell GPUs, every one linked to each of 18 NVLink switch chips.

    * 18 compute trays of 2 GB200 superchips: 36 Grace CPUs ``"cpu<c>"`` and 72 GPUs
      ``"gpu<i>"`` (``tray = i // 4``); Grace ``c`` holds GPUs ``2c`` and ``2c+1`` on
      NVLink-C2C (900 GB/s bidirectional, so 450 GB/s per direction; a synthetic edge,
      ``link=""``, whose latency, the NVLink catalog figure, is a placeholder).
    * 9 NVLink switch trays of 2 NVLink 5 switch chips: ``"nvsw0"`` .. ``"nvsw17"``
      (``tray = chip // 2``). Each GPU has 18 NVLink 5 links, one to each chip: 18 x
      50 GB/s per direction = 900 GB/s per direction per GPU (NVIDIA's 1.8 TB/s is
      bidirectional; its "100 GB/s per link" is too), 72 x 1.8 = 130 TB/s for the rack.
      GPU-chip edges carry half the NVLink latency (switch-chip convention). Each chip
      then uses 72 ports, one per GPU.
    * ``nics=True``: one compute-fabric NIC per GPU, ``"nic<i>"`` (ConnectX-7, 400 Gb/s
      InfiniBand NDR by default), on a ``pcie`` edge from its GPU. Where in the tray the
      NIC attaches (a Grace root port or a PCIe switch) is not modelled.

    Every pair of GPUs has 18 equal-cost one-switch routes
    (:func:`~interconnect.topology.ecmp_count`); a single route is one link, 50 GB/s, but
    a GPU spreading an all-to-all over all 18 chips sends at 900 GB/s, and the rack's
    bisection is 36 x 900 GB/s = 32.4 TB/s per direction.

    Parameters
    ----------
    nics : bool
        Add one NIC per GPU.
    cpus : bool
        Add the 36 Grace CPUs and their NVLink-C2C edges.
    nvlink : str
        Catalog link of one GPU-chip link (default one NVLink 5 link).
    nic, pcie : str
        Catalog links of the NIC port (not in the graph: only the NIC) and the GPU-NIC edge.

    Returns
    -------
    networkx.Graph

    References
    ----------
    NVIDIA, "GB200 NVL72" product page and specifications
    (https://www.nvidia.com/en-us/data-center/gb200-nvl72/): 36 Grace CPUs, 72 Blackwell
    GPUs, NVLink domain 130 TB/s, fifth-generation NVLink 1.8 TB/s per GPU; NVIDIA,
    *Multi-Node NVLink Systems tuning guide*, "Understanding Your Grace-Blackwell Systems"
    (https://docs.nvidia.com/multi-node-nvlink-systems/multi-node-tuning-guide/system.html:
    the 72x1 configuration has 18 1RU compute trays of 4 GPUs and 9 NVLink switch trays;
    ConnectX-7 in the compute trays). Two switch chips per switch tray (18 chips, 72 GPU
    ports each) is from third-party descriptions of the rack, not an NVIDIA page read
    here, and one ConnectX-7 per GPU likewise: neither is confirmed by a primary source.

    Examples
    --------
    >>> from interconnect.topology import bisection_bandwidth, ecmp_count, gpus, path_bandwidth
    >>> g = nvl72()
    >>> len(gpus(g)), g.graph["switch_chips"], ecmp_count(g, "gpu0", "gpu71")
    (72, 18, 18)
    >>> path_bandwidth(g, "gpu0", "gpu71") / 1e9, sum(g.edges["gpu0", f"nvsw{s}"]["bandwidth"] for s in range(18)) / 1e9
    (50.0, 900.0)
    """
    for name, val in (("nics", nics), ("cpus", cpus)):
        if not isinstance(val, bool):
            raise ValueError(f"{name}={val!r} is not a bool")
    nv = get_link(nvlink)
    g = nx.Graph(name=f"GB200 NVL72 rack: 72 GPUs, 18 NVLink switch chips ({nv.label})",
                 builder="nvl72", nics=nics, cpus=cpus, nvlink=nv.name, nic=get_link(nic).name,
                 pcie=get_link(pcie).name, switch_chips=NVL72_SWITCH_CHIPS, switch_trays=9,
                 compute_trays=18, links_per_gpu=NVL72_SWITCH_CHIPS)
    for i in range(NVL72_GPUS):
        g.add_node(f"gpu{i}", kind="gpu", index=i, tray=i // 4, pos=(float(i), 1.0))
    for s in range(NVL72_SWITCH_CHIPS):
        g.add_node(f"nvsw{s}", kind="nvswitch", index=s, tray=s // 2,
                   pos=((NVL72_GPUS - 1) * (s + 0.5) / NVL72_SWITCH_CHIPS, 2.5))
        for i in range(NVL72_GPUS):
            _edge(g, f"gpu{i}", f"nvsw{s}", nv.bandwidth, nv.latency / 2, nv.name)
    if cpus:
        c2c = 450e9  # NVLink-C2C: 900 GB/s bidirectional (NVIDIA Grace Hopper / GB200 pages)
        for c in range(NVL72_GPUS // 2):
            g.add_node(f"cpu{c}", kind="cpu", index=c, tray=c // 2, pos=(2.0 * c + 0.5, 0.0))
            for i in (2 * c, 2 * c + 1):
                _edge(g, f"cpu{c}", f"gpu{i}", c2c, nv.latency, "")
    if nics:
        pr = get_link(pcie)
        for i in range(NVL72_GPUS):
            g.add_node(f"nic{i}", kind="nic", index=i, tray=i // 4, pos=(float(i), -1.0))
            _edge(g, f"gpu{i}", f"nic{i}", pr.bandwidth, pr.latency, pr.name)
    return g
