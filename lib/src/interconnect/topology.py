"""Topology: graphs of GPUs, switches, NICs and CPUs, and what can be read off them.

Layer 2 of the stack. Every builder returns an undirected :class:`networkx.Graph`
that follows the library's graph contract (shared with :mod:`interconnect.transfer`
and :mod:`interconnect.netsim`):

* ``g.graph["name"]`` is a human-readable name; ``g.graph["builder"]`` names the
  builder and the builder's arguments are stored next to it.
* Node attribute ``kind`` is one of :data:`KINDS`. GPUs carry ``index`` (0..n-1 within
  their machine) and, in clusters, ``node``. Every builder also stores a drawing
  position ``pos`` (used by :func:`draw`).
* Edge attributes: ``bandwidth`` (bytes/s **per direction**, for the whole edge: two
  physical links between a pair make one edge with ``count=2`` and twice the
  bandwidth), ``latency`` (s, one way), ``link`` (a name for
  :func:`interconnect.links.get_link`, or ``""`` for a synthetic link) and ``count``
  (physical links, >= 1). Every edge is full duplex: each direction is an
  independent resource of ``bandwidth``.

Node names
----------
Single machines: ``"gpu0"``, ``"cpu0"`` (a CPU socket = its PCIe root complex),
``"sw0"`` (a PCIe switch; ``"swtop0"`` for an upper-level switch), ``"nvsw0"``.
Clusters prefix the machine: ``"n3.gpu5"``, ``"n3.nic5"``, ``"n3.nvsw0"``; network
switches are ``"leaf0"``, ``"spine0"``. Fat trees: hosts ``"h12"``, edge switches
``"edge<pod>.<i>"``, aggregation ``"agg<pod>.<i>"``, core ``"core<j>"``.

Latency convention
------------------
An edge carries its link's catalog latency (:mod:`interconnect.links`: NCCL's
per-step model values, 0.6 us NVLink, 1.0 us PCIe), except that an edge between a
device and a *switch chip* (PCIe switch, NVSwitch) carries half of it, so a
device-switch-device hop costs what one direct link costs and a switch adds no
latency of its own (PCIe switches and NVSwitch are cut-through; their port-to-port
latency is a small part of an end-to-end P2P latency). Network switch tiers (leaf,
spine, ...) are not halved: the InfiniBand catalog latency is a per-port/switch
figure. All latencies are orders of magnitude for teaching, not measurements.

References
----------
NVIDIA, *NVIDIA DGX-1 With Tesla V100 System Architecture* (white paper WP-08437-002,
2017), section "DGX-1 NVLink Network Topology for Efficient Application Scaling".
NVIDIA, ``nvidia-smi topo -m`` legend (reproduced e.g. in Microway, "nvidia-smi:
Control Your GPUs", https://www.microway.com/hpc-tech-tips/nvidia-smi_control-your-gpus/,
with a DGX-1 V100 matrix).
M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center Network
Architecture", SIGCOMM 2008.
NVIDIA DGX H100 / DGX A100 user guides; NVIDIA HGX AI Factory reference architecture,
"Network Logical Architecture" (rail-optimised leaf-spine compute fabric).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from ._validate import as_count, as_positive, choice
from .links import get_link
from .units import GB, us

__all__ = [
    "KINDS", "NETWORK_KINDS", "UPI_BANDWIDTH", "QPI_BANDWIDTH", "SOCKET_LINK_LATENCY",
    "ring", "pcie_tree", "dgx1_hybrid_cube_mesh", "nvswitch", "torus", "fat_tree", "cluster",
    "gpus", "endpoints", "path", "path_bandwidth", "path_latency", "widest_path",
    "diameter", "bisection_bandwidth", "TopoMatrix", "topo_matrix", "draw",
]

#: Node kinds of the graph contract.
KINDS = ("gpu", "cpu", "pcie_switch", "nvswitch", "nic", "host",
         "leaf", "spine", "core", "aggregation", "edge")
#: Kinds that are network switches (a packet network, not a machine's internals).
NETWORK_KINDS = ("leaf", "spine", "core", "aggregation", "edge")
_SWITCH_CHIPS = ("pcie_switch", "nvswitch")

#: One Intel UPI link at 10.4 GT/s, bytes/s per direction: 10.4 GT/s x 2 bytes of
#: payload per transfer = 20.8 GB/s (Intel Xeon Scalable, Skylake-SP and later).
UPI_BANDWIDTH = 20.8 * GB
#: One Intel QPI link at 9.6 GT/s, bytes/s per direction: 9.6 GT/s x 2 bytes = 19.2 GB/s
#: (Xeon E5 v3/v4, e.g. the DGX-1's E5-2698 v4). Intel counts 64 data bits per 80-bit
#: flit on 20 lanes, i.e. 2 bytes per transfer per direction (QPI 6.4 GT/s is quoted as
#: "12.8 GB/s in each direction, 25.6 GB/s total").
QPI_BANDWIDTH = 19.2 * GB
#: Socket-interconnect hop latency, s. NO authoritative figure was found: 0.1 us is an
#: order-of-magnitude placeholder (a remote-socket access adds tens of ns to a load;
#: a PCIe transaction crossing UPI adds more). Do not quote it.
SOCKET_LINK_LATENCY = 0.1 * us

_QPI_SOURCE = ("Intel QuickPath/UltraPath per-link figures: 20 lanes, 64 data bits per "
               "80-bit flit, 2 bytes per transfer per direction (HP 'Intel QuickPath "
               "architecture' technology brief: 6.4 GT/s = 12.8 GB/s each direction); "
               "QPI 9.6 GT/s = 19.2 GB/s, UPI 10.4 GT/s = 20.8 GB/s per direction")


# ----------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------
def _resolve(link, bandwidth, latency):
    """(link name or "", bandwidth, latency) from a catalog name and/or overrides."""
    if link is None:
        if bandwidth is None or latency is None:
            raise ValueError("link=None needs both bandwidth (bytes/s per direction) and "
                             "latency (s); or give a catalog link name such as 'nvlink2-link'")
        name = ""
        bw, lat = bandwidth, latency
    else:
        rec = get_link(link)
        name = rec.name
        bw = rec.bandwidth if bandwidth is None else bandwidth
        lat = rec.latency if latency is None else latency
    bw = as_positive("bandwidth", bw, "bytes/s")
    from ._validate import as_nonnegative
    lat = as_nonnegative("latency", lat, "s")
    if np.ndim(bw) or np.ndim(lat):
        raise ValueError(f"bandwidth={bandwidth!r} and latency={latency!r} must be scalars")
    return name, float(bw), float(lat)


def _edge(g, u, v, bandwidth, latency, link="", count=1):
    g.add_edge(u, v, bandwidth=float(bandwidth), latency=float(latency),
               link=str(link), count=int(count))


def _label(name):
    return get_link(name).label if name else "synthetic link"


def _is_nvlink(d):
    return str(d.get("link", "")).startswith("nvlink")


def _check_node(g, name, value):
    if value not in g:
        sample = ", ".join(map(str, list(g.nodes)[:6]))
        raise ValueError(f"{name}={value!r} is not a node of this graph; nodes include {sample}")
    return value


# ----------------------------------------------------------------------------------
# builders
# ----------------------------------------------------------------------------------
def ring(n, link="nvlink2-link", bandwidth=None, latency=None):
    """``n`` GPUs in a ring, each joined to its two neighbours by one link.

    Parameters
    ----------
    n : int
        Number of GPUs, >= 2. For ``n = 2`` the ring is a single edge (one link, not
        two parallel ones).
    link : str or None
        Catalog link (:func:`interconnect.links.get_link`) of every edge; default one
        NVLink 2 link (25 GB/s per direction). ``None`` for a synthetic link, then
        ``bandwidth`` and ``latency`` are required.
    bandwidth : float, optional
        Per-direction bandwidth of each edge, bytes/s (overrides the catalog's; the
        edge keeps the catalog name in ``link``).
    latency : float, optional
        One-way latency of each edge, s (overrides the catalog's).

    Returns
    -------
    networkx.Graph
        Nodes ``"gpu0"`` .. ``"gpu{n-1}"`` on a circle (``pos``), edges
        ``gpu{i}``--``gpu{i+1 mod n}``.

    References
    ----------
    P. Patarasuk, X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
    workstations", JPDC 69(2), 2009 (the logical ring of ring all-reduce).
    """
    n = as_count("n", n, 2)
    name, bw, lat = _resolve(link, bandwidth, latency)
    g = nx.Graph(name=f"Ring of {n} GPUs ({_label(name)})", builder="ring", n=n)
    for i in range(n):
        ang = math.pi / 2 - 2 * math.pi * i / n
        g.add_node(f"gpu{i}", kind="gpu", index=i, pos=(math.cos(ang), math.sin(ang)))
    for i in range(n if n > 2 else 1):
        _edge(g, f"gpu{i}", f"gpu{(i + 1) % n}", bw, lat, name)
    return g


def pcie_tree(gpus_per_switch=4, switches_per_socket=1, sockets=2, gpu_link="pcie3x16",
              uplink="pcie3x16", socket_link_bandwidth=UPI_BANDWIDTH,
              socket_link_latency=SOCKET_LINK_LATENCY, socket_links=1, switch_levels=1):
    """GPUs under PCIe switches under CPU sockets: the classic PCIe GPU server.

    Each socket is one CPU with its PCIe root complex (kind ``"cpu"``, attribute
    ``numa`` = socket number). Under it hang ``switches_per_socket`` PCIe switches, each
    with ``gpus_per_switch`` GPUs. Sockets are joined pairwise by the socket
    interconnect (Intel QPI/UPI). The classic 8-GPU PCIe server is
    ``pcie_tree(4, 1, 2)`` or ``pcie_tree(2, 2, 2)``.

    Parameters
    ----------
    gpus_per_switch : int
        GPUs per PCIe switch, >= 1. With ``switches_per_socket=0`` it is the number of
        GPUs attached directly to each socket's root ports.
    switches_per_socket : int
        PCIe switches per socket, >= 0.
    sockets : int
        CPU sockets, >= 1; more than two are joined all-to-all.
    gpu_link, uplink : str
        Catalog links GPU-to-switch and switch-to-root-complex (default PCIe 3.0 x16,
        15.75 GB/s per direction).
    socket_link_bandwidth : float
        Per-direction bandwidth of one socket link, bytes/s; default one Intel UPI link
        at 10.4 GT/s = 20.8 GB/s (:data:`UPI_BANDWIDTH`). Real two-socket Xeons have
        2-3 such links: set ``socket_links``.
    socket_link_latency : float
        One-way latency of the socket hop, s (default :data:`SOCKET_LINK_LATENCY`, a
        placeholder).
    socket_links : int
        Physical socket links between each pair of sockets (the edge's ``count``).
    switch_levels : int
        1 (switches directly under the root complex) or 2 (each socket's switches
        under one upper-level switch, ``"swtop<s>"``; GPUs on different lower
        switches then see ``PXB`` in :func:`topo_matrix`).

    Returns
    -------
    networkx.Graph
        GPUs ``"gpu0"``.. numbered socket by socket, switch by switch; switches
        ``"sw0"``..; CPUs ``"cpu0"``... The socket edge has ``link=""`` (QPI/UPI is not
        in the link catalog).

    References
    ----------
    PCI-SIG, *PCI Express Base Specification* (root complex, switches);
    Intel QPI/UPI per-link bandwidth: 2 bytes per transfer per direction (see
    :data:`UPI_BANDWIDTH`); NVIDIA ``nvidia-smi topo -m`` legend (PIX/PXB/PHB/SYS).
    """
    gps = as_count("gpus_per_switch", gpus_per_switch, 1)
    sps = as_count("switches_per_socket", switches_per_socket, 0)
    ns = as_count("sockets", sockets, 1)
    nlinks = as_count("socket_links", socket_links, 1)
    levels = as_count("switch_levels", switch_levels, 1)
    if levels > 2:
        raise ValueError(f"switch_levels={switch_levels!r} is not allowed; use 1 or 2")
    if levels == 2 and sps == 0:
        raise ValueError("switch_levels=2 needs switches_per_socket >= 1")
    gname, gbw, glat = _resolve(gpu_link, None, None)
    uname, ubw, ulat = _resolve(uplink, None, None)
    sbw = float(as_positive("socket_link_bandwidth", socket_link_bandwidth, "bytes/s"))
    from ._validate import as_nonnegative
    slat = float(as_nonnegative("socket_link_latency", socket_link_latency, "s"))

    per_socket = gps * max(sps, 1)
    total = per_socket * ns
    g = nx.Graph(name=(f"PCIe tree: {ns} socket(s) x {sps} switch(es) x {gps} GPU(s) "
                       f"({_label(gname)})"),
                 builder="pcie_tree", gpus_per_switch=gps, switches_per_socket=sps,
                 sockets=ns, switch_levels=levels,
                 socket_link=f"QPI/UPI ({sbw / GB:.3g} GB/s per direction per link)")
    gap = 1.0
    gpu_i = sw_i = 0
    for s in range(ns):
        x0 = s * (per_socket + gap)
        cpu = f"cpu{s}"
        g.add_node(cpu, kind="cpu", index=s, numa=s, pos=(x0 + (per_socket - 1) / 2, 3.0))
        top = cpu
        if levels == 2:
            top = f"swtop{s}"
            g.add_node(top, kind="pcie_switch", index=s, pos=(x0 + (per_socket - 1) / 2, 2.35))
            _edge(g, top, cpu, ubw, ulat / 2, uname)
        if sps == 0:
            for _ in range(gps):
                gn = f"gpu{gpu_i}"
                g.add_node(gn, kind="gpu", index=gpu_i, pos=(x0 + gpu_i - s * per_socket, 1.0))
                _edge(g, gn, cpu, gbw, glat, gname)
                gpu_i += 1
            continue
        for j in range(sps):
            sw = f"sw{sw_i}"
            xs = x0 + j * gps + (gps - 1) / 2
            g.add_node(sw, kind="pcie_switch", index=sw_i, pos=(xs, 1.7 if levels == 2 else 2.0))
            _edge(g, sw, top, ubw, ulat / 2, uname)
            for k in range(gps):
                gn = f"gpu{gpu_i}"
                g.add_node(gn, kind="gpu", index=gpu_i, pos=(x0 + j * gps + k, 1.0 if levels == 1 else 0.8))
                _edge(g, gn, sw, gbw, glat / 2, gname)
                gpu_i += 1
            sw_i += 1
    for a, b in itertools.combinations(range(ns), 2):
        _edge(g, f"cpu{a}", f"cpu{b}", sbw * nlinks, slat, "", nlinks)
    assert gpu_i == total
    return g


#: DGX-1 (V100) NVLink pairs and link counts, from the white paper's Figure and the
#: DGX-1 ``nvidia-smi topo -m`` matrix (NV2 = two bonded NVLinks, NV1 = one).
DGX1_NVLINKS = {
    (0, 1): 1, (0, 2): 1, (0, 3): 2, (0, 4): 2,
    (1, 2): 2, (1, 3): 1, (1, 5): 2,
    (2, 3): 2, (2, 6): 1,
    (3, 7): 1,
    (4, 5): 1, (4, 6): 1, (4, 7): 2,
    (5, 6): 2, (5, 7): 1,
    (6, 7): 2,
}


def dgx1_hybrid_cube_mesh(with_pcie=False, link="nvlink2-link"):
    """The 8 x V100 NVIDIA DGX-1: NVLink hybrid cube mesh, optionally with its PCIe tree.

    Eight V100 GPUs, each using all 6 of its NVLinks: 24 links over 16 GPU pairs (8
    pairs with 2 bonded links, 8 with 1); 12 pairs have no NVLink. In NVIDIA's words,
    "a cube with GPUs at its corners and with all twelve edges connected through
    NVLink (some edges have two NVLink connections), and with two of the six faces
    having their diagonals connected as well": GPUs 0-3 and 4-7 are each fully
    connected, and GPU i links to GPU i+4.

    Parameters
    ----------
    with_pcie : bool
        Add the PCIe tree: 4 PCIe switches (``"sw0"``..``"sw3"``) with 2 GPUs each
        (GPU0/1, 2/3, 4/5, 6/7), two under each of the two Xeon E5-2698 v4 sockets,
        PCIe 3.0 x16 throughout, and two QPI 9.6 GT/s links between the sockets
        (``count=2``, 2 x 19.2 GB/s per direction). The four InfiniBand NICs that share
        the PCIe switches in the real machine are not modelled.
    link : str
        Catalog name of one NVLink (default ``"nvlink2-link"``, 25 GB/s per direction).

    Returns
    -------
    networkx.Graph
        GPU edges carry ``count`` 1 or 2 and ``bandwidth = count x 25 GB/s``. ``pos``
        draws the cube: GPUs 0-3 on the front face, 4-7 on the back face.

    References
    ----------
    NVIDIA, *NVIDIA DGX-1 With Tesla V100 System Architecture*, WP-08437-002 (2017),
    sec. "DGX-1 NVLink Network Topology" (quoted at https://www.iitr.ac.in/dgx);
    DGX-1 ``nvidia-smi topo -m`` output in Microway, "nvidia-smi: Control Your GPUs"
    (NV1/NV2 pairs; GPU0/1 and GPU2/3 share PCIe switches with mlx5_0/mlx5_1, all on
    CPU affinity 0-19); Alibaba Cloud ACK topology-aware GPU scheduling docs (GPU0-GPU3,
    GPU0-GPU4 2 NVLinks; GPU0-GPU1/2 one; GPU0-GPU6 PCIe only).
    """
    if not isinstance(with_pcie, (bool, np.bool_)):
        raise ValueError(f"with_pcie={with_pcie!r} is not a bool")
    name, bw, lat = _resolve(link, None, None)
    g = nx.Graph(name="DGX-1 hybrid cube mesh (8x V100)" + (" with PCIe" if with_pcie else ""),
                 builder="dgx1_hybrid_cube_mesh", with_pcie=bool(with_pcie))
    # Two fully connected quads side by side (GPUs 0-3 left, 4-7 right, mirrored so
    # that GPU1-GPU5 and GPU3-GPU7 are short); GPU0-GPU4 and GPU2-GPU6 are drawn as arcs.
    sp = 1.4
    xy = {0: (0, 1), 1: (1, 1), 2: (0, 0), 3: (1, 0), 5: (2, 1), 4: (3, 1), 7: (2, 0), 6: (3, 0)}
    for i in range(8):
        x, y = xy[i]
        g.add_node(f"gpu{i}", kind="gpu", index=i, pos=(x * sp, y * sp))
    g.graph["draw_arcs"] = {("gpu0", "gpu4"): -0.22, ("gpu2", "gpu6"): 0.22}
    for (a, b), c in DGX1_NVLINKS.items():
        _edge(g, f"gpu{a}", f"gpu{b}", c * bw, lat, name, c)
    if with_pcie:
        pname, pbw, plat = _resolve("pcie3x16", None, None)
        for s in range(2):
            g.add_node(f"cpu{s}", kind="cpu", index=s, numa=s, pos=(-1.0 * sp + 5.0 * sp * s, 0.5 * sp))
        sw_pos = {0: (0.5, 1.85), 1: (0.5, -0.65), 2: (2.5, 1.85), 3: (2.5, -0.65)}
        for j in range(4):
            x, y = sw_pos[j]
            g.add_node(f"sw{j}", kind="pcie_switch", index=j, pos=(x * sp, y * sp))
            _edge(g, f"sw{j}", f"cpu{j // 2}", pbw, plat / 2, pname)
            for k in (2 * j, 2 * j + 1):
                _edge(g, f"gpu{k}", f"sw{j}", pbw, plat / 2, pname)
        g.graph["draw_arcs"][("cpu0", "cpu1")] = 0.75
        _edge(g, "cpu0", "cpu1", 2 * QPI_BANDWIDTH, SOCKET_LINK_LATENCY, "", 2)
        g.graph["socket_link"] = "2x QPI 9.6 GT/s (19.2 GB/s per direction each)"
    return g


def _spread(total, parts):
    """``total`` links over ``parts`` switches as evenly as possible, extras on the
    outer switches first (18 over 4 -> 5, 4, 4, 5 as in DGX H100)."""
    base, extra = divmod(total, parts)
    out = [base] * parts
    order = []
    lo, hi = 0, parts - 1
    while lo <= hi:
        order.append(lo)
        if hi != lo:
            order.append(hi)
        lo, hi = lo + 1, hi - 1
    for i in order[:extra]:
        out[i] += 1
    return out


#: Physical NVSwitch chips of the 8-GPU DGX/HGX board of each NVLink generation.
NVSWITCHES_PER_BOARD = {"nvlink2": 6, "nvlink3": 6, "nvlink4": 4, "nvlink5": 2}


def nvswitch(n=8, link="nvlink4", switches=None, links_per_gpu=None, physical=False):
    """``n`` GPUs on an NVSwitch fabric (DGX A100 / DGX H100 style).

    Each GPU spreads its NVLinks over all NVSwitch chips (DGX A100: 12 links over 6
    NVSwitches, 2 each; DGX H100: 18 links over 4 NVSwitch chips, 5/4/4/5). The chips
    together act as one non-blocking crossbar, so any GPU pair gets the GPU's full
    per-direction NVLink bandwidth.

    Modelling choice: by default (``physical=False``) the fabric is ONE logical
    node ``"nvsw0"`` (kind ``"nvswitch"``, a non-blocking crossbar) and each GPU's
    edge to it carries all its links (``count = links_per_gpu``, bandwidth = the
    GPU's full NVLink bandwidth). The physical chip count is kept in
    ``g.graph["switches"]``. This makes single-path analyses (:func:`path_bandwidth`)
    give the right answer. ``physical=True`` builds one node per chip with the links
    spread as evenly as possible (extras on the outer chips: 5/4/4/5 for 18 over 4);
    then one path only uses one chip's share, so use it with a multi-path simulator.

    Parameters
    ----------
    n : int
        GPUs, >= 2 (8 in DGX A100/H100; 16 in DGX-2 with ``link="nvlink2"``).
    link : str
        A per-GPU NVLink catalog entry (``"nvlink2"``..``"nvlink5"``), or a one-link
        entry (``"nvlink4-link"``) together with ``links_per_gpu``.
    switches : int, optional
        Physical NVSwitch chips; default :data:`NVSWITCHES_PER_BOARD` for the NVLink
        generation (6 for NVLink 2 and 3, 4 for NVLink 4, 2 for NVLink 5).
    links_per_gpu : int, optional
        NVLinks per GPU; default the catalog's (6, 12, 18, 18).
    physical : bool
        One node per NVSwitch chip instead of one logical crossbar.

    Returns
    -------
    networkx.Graph
        Edges have ``link`` = the one-link catalog entry (e.g. ``"nvlink4-link"``),
        ``count`` links and ``bandwidth = count x`` one link's bandwidth; latency is
        half the link's, so GPU-switch-GPU costs one NVLink latency.

    References
    ----------
    NVIDIA DGX A100 User Guide (6 NVSwitches, 12 NVLinks per A100); NVIDIA DGX H100
    User Guide and H100 architecture white paper (4 third-generation NVSwitch chips,
    18 NVLinks per GPU, 900 GB/s bidirectional); ``nvidia-smi topo -m`` on DGX H100
    shows NV18 for every pair.
    """
    n = as_count("n", n, 2)
    rec = get_link(link)
    if not rec.name.startswith("nvlink") or rec.name.startswith("nvlink-bridge"):
        raise ValueError(f"link={link!r} is not allowed; use an NVLink generation such as "
                         "'nvlink3', 'nvlink4' or 'nvlink4-link'")
    if rec.links_per_gpu is not None:
        one = rec.name + "-link"
        per_link = rec.per_link_bandwidth
        default_links = rec.links_per_gpu
        gen = rec.name
    else:
        one = rec.name
        per_link = rec.bandwidth
        default_links = None
        gen = rec.name[:-len("-link")]
    if links_per_gpu is None:
        if default_links is None:
            raise ValueError(f"link={link!r} is a single link; give links_per_gpu as well "
                             "(or use the per-GPU entry, e.g. 'nvlink4')")
        nl = default_links
    else:
        nl = as_count("links_per_gpu", links_per_gpu, 1)
    if switches is None:
        ns = NVSWITCHES_PER_BOARD.get(gen, 1)
    else:
        ns = as_count("switches", switches, 1)
    if physical and ns > nl:
        raise ValueError(f"switches={ns} is more than links_per_gpu={nl}; with physical=True "
                         "every GPU needs at least one link to every switch")
    lat = rec.latency
    g = nx.Graph(name=f"NVSwitch fabric, {n} GPUs x {nl} NVLinks ({get_link(one).label if one else gen})",
                 builder="nvswitch", n=n, switches=ns, links_per_gpu=nl,
                 physical=bool(physical),
                 nvswitch_model=("one node per NVSwitch chip" if physical else
                                 "one logical non-blocking crossbar for all chips"))
    top = (n + 1) // 2
    for i in range(n):
        row, col = (0, i) if i < top else (1, i - top)
        width = top if row == 0 else n - top
        x = col - (width - 1) / 2
        g.add_node(f"gpu{i}", kind="gpu", index=i, pos=(x, 1.0 if row == 0 else -1.0))
    share = _spread(nl, ns) if physical else [nl]
    for s, c in enumerate(share):
        x = (s - (len(share) - 1) / 2) * (1.2 if physical else 1.0)
        g.add_node(f"nvsw{s}", kind="nvswitch", index=s, pos=(x, 0.0))
        for i in range(n):
            _edge(g, f"gpu{i}", f"nvsw{s}", c * per_link, lat / 2, one, c)
    return g


def torus(dims=(4, 4), link="nvlink2-link", bandwidth=None, latency=None):
    """A k-ary n-dimensional torus of GPUs (wrap-around mesh).

    GPU at coordinates ``c`` joins ``c +/- 1`` (mod ``k``) along each dimension of
    size ``k``; a dimension of size 2 gives a single edge (not two), a dimension of
    size 1 gives none.

    Parameters
    ----------
    dims : int or sequence of int
        Size of each dimension, each >= 1, at least two GPUs in total.
    link, bandwidth, latency
        As in :func:`ring`.

    Returns
    -------
    networkx.Graph
        Nodes ``"gpu<i>"`` numbered row-major (last dimension fastest), with ``coords``.

    References
    ----------
    W. J. Dally, B. Towles, *Principles and Practices of Interconnection Networks*
    (2004), ch. 5 (tori: bisection 2 k^(n-1) channels for even k, diameter
    sum floor(k_i / 2)).
    """
    if isinstance(dims, (int, np.integer)) and not isinstance(dims, bool):
        dims = (dims,)
    try:
        dims = tuple(dims)
    except TypeError:
        raise ValueError(f"dims={dims!r} is not a sequence of integers") from None
    if not dims:
        raise ValueError("dims=() is empty; give at least one dimension size")
    dims = tuple(as_count("dims", d, 1) for d in dims)
    total = int(np.prod(dims))
    if total < 2:
        raise ValueError(f"dims={dims!r} has {total} GPU; a torus needs at least 2")
    name, bw, lat = _resolve(link, bandwidth, latency)
    shape = "x".join(map(str, dims))
    g = nx.Graph(name=f"{shape} torus ({_label(name)})", builder="torus", dims=dims)
    coords = list(itertools.product(*[range(k) for k in dims]))
    index = {c: i for i, c in enumerate(coords)}
    for i, c in enumerate(coords):
        g.add_node(f"gpu{i}", kind="gpu", index=i, coords=c, pos=_torus_pos(c, dims))
    for c in coords:
        for d, k in enumerate(dims):
            if k == 1:
                continue
            nb = list(c)
            nb[d] = (c[d] + 1) % k
            nb = tuple(nb)
            if k == 2 and c[d] == 1:
                continue  # already added from the other end: one edge, not two
            _edge(g, f"gpu{index[c]}", f"gpu{index[nb]}", bw, lat, name)
    return g


def _torus_pos(c, dims):
    if len(dims) == 1:
        k = dims[0]
        ang = math.pi / 2 - 2 * math.pi * c[0] / k
        return (math.cos(ang) * k / 4, math.sin(ang) * k / 4)
    if len(dims) == 2:
        return (float(c[1]), -float(c[0]))
    x = c[-1] + 0.35 * c[-2]
    y = -c[-2] * 0.6
    off = 0
    for d, k in zip(c[:-2], dims[:-2]):
        off = off * k + d
    return (x + off * (dims[-1] + 1.5), y)


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
    """
    k = as_count("k", k, 2)
    if k % 2:
        raise ValueError(f"k={k!r} is not allowed; k must be an even integer >= 2")
    r = float(as_positive("oversubscription", oversubscription))
    if r < 1:
        raise ValueError(f"oversubscription={oversubscription!r} is not allowed; it must be >= 1")
    name, bw, lat = _resolve(link, bandwidth, latency)
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
      GB/s): 50 GB/s by default. ``link`` names the PCIe link; latency is the PCIe
      latency. CPUs and host memory are not in the graph (see
      :func:`interconnect.transfer.bounce_buffer` for host staging).
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
            _edge(g, f"{pre}gpu{i}", f"{pre}nic{i}", gn_bw, pcie_rec.latency, pcie_rec.name)
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
            _edge(g, f"n{j}.nic{i}", leaf, nic_bw, nic_rec.latency, nic_rec.name)
    for l_ in range(nleaves):
        for s in range(nsp):
            _edge(g, f"leaf{l_}", f"spine{s}", trunk_bw, nic_rec.latency, t_link, t_count)
    return g


# ----------------------------------------------------------------------------------
# analysis
# ----------------------------------------------------------------------------------
def _sort_key(g, n):
    d = g.nodes[n]
    return (d.get("node", 0), d.get("index", 0), str(n))


def gpus(g):
    """The GPU nodes of ``g`` in index order (sorted by ``(node, index)``).

    Parameters
    ----------
    g : networkx.Graph
        A topology following the graph contract.

    Returns
    -------
    list
        Node names of kind ``"gpu"``.
    """
    return sorted((n for n, d in g.nodes(data=True) if d.get("kind") == "gpu"),
                  key=lambda n: _sort_key(g, n))


def endpoints(g):
    """The traffic endpoints of ``g``: its GPUs, or its hosts if it has no GPUs.

    Returns
    -------
    list
        GPU nodes (:func:`gpus`) or ``"host"`` nodes in index order.
    """
    out = gpus(g)
    if out:
        return out
    return sorted((n for n, d in g.nodes(data=True) if d.get("kind") == "host"),
                  key=lambda n: _sort_key(g, n))


def _view(g, a, b, transit):
    if transit is None:
        return g
    if isinstance(transit, str):
        transit = (transit,)
    kinds = set(transit)
    bad = kinds - set(KINDS)
    if bad:
        raise ValueError(f"transit={sorted(bad)!r} contains unknown kinds; allowed: {', '.join(KINDS)}")
    return nx.subgraph_view(g, filter_node=lambda n: n == a or n == b or g.nodes[n].get("kind") in kinds)


def path(g, a, b, weight="latency", transit=None):
    """Shortest path from ``a`` to ``b``: least total latency, ties broken by fewer hops.

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
        Distinct nodes of ``g``.
    weight : str or None
        Edge attribute to minimise (default ``"latency"``, s); ``None`` or ``"hops"``
        for the fewest hops.
    transit : str or iterable of str, optional
        Node kinds a path may pass *through* (``a`` and ``b`` are always allowed);
        e.g. ``("nvswitch",)`` for NVLink-only routes, or ``("pcie_switch", "cpu")``
        for PCIe routes. Default: any node. (NVLink does not forward through a GPU in
        hardware; NCCL can, in software, so a ring or torus path through GPUs is fine.)

    Returns
    -------
    list
        Nodes from ``a`` to ``b``.

    Raises
    ------
    ValueError
        Unknown node, ``a == b``, or no path.

    References
    ----------
    E. W. Dijkstra, "A note on two problems in connexion with graphs", Numer. Math. 1, 1959.
    """
    _check_node(g, "a", a)
    _check_node(g, "b", b)
    if a == b:
        raise ValueError(f"a={a!r} and b={b!r} are the same node; give two different nodes")
    h = _view(g, a, b, transit)
    try:
        if weight is None or weight == "hops":
            return nx.shortest_path(h, a, b)
        ws = [d.get(weight) for _, _, d in g.edges(data=True)]
        if any(w is None for w in ws):
            raise ValueError(f"weight={weight!r} is not an attribute of every edge")
        pos = [w for w in ws if w > 0]
        eps = (min(pos) if pos else 1.0) * 1e-9
        return nx.dijkstra_path(h, a, b, weight=lambda u, v, d: d[weight] + eps)
    except nx.NetworkXNoPath:
        via = "" if transit is None else f" through nodes of kind {sorted(set([transit] if isinstance(transit, str) else transit))}"
        raise ValueError(f"there is no path from a={a!r} to b={b!r}{via}") from None


def _as_path(g, a, b, transit):
    if b is None:
        if not isinstance(a, (list, tuple)) or len(a) < 2:
            raise ValueError(f"a={a!r}: give two nodes (a, b) or a path (a list of >= 2 nodes)")
        p = list(a)
        for u, v in zip(p, p[1:]):
            if not g.has_edge(u, v):
                raise ValueError(f"path {p!r} uses {u!r}-{v!r}, which is not an edge of the graph")
        return p
    return path(g, a, b, transit=transit)


def path_bandwidth(g, a, b=None, transit=None):
    """Bottleneck bandwidth of the shortest path from ``a`` to ``b``, bytes/s per direction.

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
        Endpoints; or pass a path (list of nodes) as ``a`` and leave ``b`` out.
    transit : optional
        As in :func:`path`.

    Returns
    -------
    float
        ``min`` of the edges' ``bandwidth`` along :func:`path` (what one flow alone
        can get; sharing with other flows is :mod:`interconnect.netsim`'s job).

    References
    ----------
    Bottleneck (minimum) link of a path, e.g. Dally and Towles (2004), sec. 3.3.
    """
    p = _as_path(g, a, b, transit)
    return float(min(g.edges[u, v]["bandwidth"] for u, v in zip(p, p[1:])))


def path_latency(g, a, b=None, transit=None):
    """Sum of one-way edge latencies along the shortest path (or a given path), s.

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
        Endpoints; or pass a path (list of nodes) as ``a`` and leave ``b`` out.
    transit : optional
        As in :func:`path`.

    Returns
    -------
    float
        Seconds.

    References
    ----------
    Latency of a store-and-forward-free (cut-through) path = sum of hop latencies;
    Dally and Towles (2004), sec. 3.3.
    """
    p = _as_path(g, a, b, transit)
    return float(sum(g.edges[u, v]["latency"] for u, v in zip(p, p[1:])))


def widest_path(g, a, b, transit=None):
    """The path from ``a`` to ``b`` with the largest bottleneck bandwidth.

    Among paths with the same bottleneck, the one with least latency (then fewest
    hops) is returned.

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
    transit : optional
        As in :func:`path`.

    Returns
    -------
    (list, float)
        The path and its bottleneck bandwidth, bytes/s per direction. Always >=
        :func:`path_bandwidth` of the shortest path.

    References
    ----------
    Maximum-capacity (widest) path problem, M. Pollack, "The maximum capacity through
    a network", Operations Research 8(5), 1960.
    """
    path(g, a, b, weight=None, transit=transit)  # validates and checks reachability
    h = _view(g, a, b, transit)
    levels = sorted({d["bandwidth"] for _, _, d in h.edges(data=True)}, reverse=True)
    lo, hi = 0, len(levels) - 1  # find the first (largest) level that connects a and b
    while lo < hi:
        mid = (lo + hi) // 2
        t = levels[mid]
        sub = nx.subgraph_view(h, filter_edge=lambda u, v, t=t: h.edges[u, v]["bandwidth"] >= t)
        if nx.has_path(sub, a, b):
            hi = mid
        else:
            lo = mid + 1
    t = levels[lo]
    sub = nx.subgraph_view(h, filter_edge=lambda u, v: h.edges[u, v]["bandwidth"] >= t)
    p = path(sub, a, b)
    return p, path_bandwidth(g, p)


def diameter(g, nodes=None):
    """Largest hop count between two endpoints, over shortest (fewest-hop) paths.

    Parameters
    ----------
    g : networkx.Graph
    nodes : iterable, optional
        Endpoints to consider; default :func:`endpoints` (GPUs, or hosts).

    Returns
    -------
    int
        Hops. Ring of ``n``: ``floor(n/2)``; torus: ``sum floor(k_i/2)``; k-ary fat tree
        (k >= 4): 6.

    References
    ----------
    Dally and Towles (2004), sec. 3.3 (diameter) and ch. 5 (tori).
    """
    ends = list(endpoints(g) if nodes is None else nodes)
    if len(ends) < 2:
        raise ValueError(f"nodes has {len(ends)} endpoint(s); need at least 2")
    for n in ends:
        _check_node(g, "nodes", n)
    best = 0
    es = set(ends)
    for s in ends:
        dist = nx.single_source_shortest_path_length(g, s)
        missing = es - dist.keys()
        if missing:
            raise ValueError(f"the graph is disconnected: {s!r} cannot reach {sorted(map(str, missing))[:3]}")
        best = max(best, max(dist[t] for t in ends))
    return int(best)


class _CutEvaluator:
    """Minimum edge cut (per-direction bandwidth) separating two endpoint sets."""

    def __init__(self, g, ends):
        self.g = g
        self.ends = list(ends)
        nodes = list(g.nodes)
        self.idx = {n: i for i, n in enumerate(nodes)}
        self.only_endpoints = set(nodes) == set(self.ends)
        bws = [d["bandwidth"] for _, _, d in g.edges(data=True)]
        if self.only_endpoints:
            m = len(self.ends)
            pos = {n: i for i, n in enumerate(self.ends)}
            w = np.zeros((m, m))
            for u, v, d in g.edges(data=True):
                w[pos[u], pos[v]] += d["bandwidth"]
                w[pos[v], pos[u]] += d["bandwidth"]
            self.w = w
            return
        from scipy.sparse import csr_matrix
        unit = min(bws) / 1024.0
        caps = {}
        for u, v, d in g.edges(data=True):
            c = max(1, int(round(d["bandwidth"] / unit)))
            caps[(self.idx[u], self.idx[v])] = c
            caps[(self.idx[v], self.idx[u])] = c
        total = sum(caps.values())
        while total > 2 ** 30:  # keep int32 sums safe: coarser unit
            unit *= 2
            caps = {k: max(1, int(round(c / 2))) for k, c in caps.items()}
            total = sum(caps.values())
        self.unit = unit
        n = len(nodes)
        self.s, self.t = n, n + 1
        self.big = total + 1
        rows, cols, data = [], [], []
        for (i, j), c in caps.items():
            rows.append(i); cols.append(j); data.append(c)
        self.term_slots = []
        for e in self.ends:
            i = self.idx[e]
            rows += [self.s, i]
            cols += [i, self.t]
            data += [1, 1]
        self.n = n + 2
        mat = csr_matrix((np.array(data, dtype=np.int32), (rows, cols)), shape=(self.n, self.n))
        mat.sort_indices()
        self.mat = mat
        # locate the data slots of s->e and e->t for each endpoint
        self.src_slot, self.dst_slot = [], []
        for e in self.ends:
            i = self.idx[e]
            self.src_slot.append(self._slot(self.s, i))
            self.dst_slot.append(self._slot(i, self.t))

    def _slot(self, i, j):
        start, stop = self.mat.indptr[i], self.mat.indptr[i + 1]
        k = np.searchsorted(self.mat.indices[start:stop], j)
        return start + k

    def cut(self, side):
        """Cut value (bytes/s) for endpoints mask ``side`` (True = source side)."""
        side = np.asarray(side, dtype=bool)
        if self.only_endpoints:
            x = side.astype(float)
            return float(x @ self.w @ (1 - x))
        from scipy.sparse.csgraph import maximum_flow
        data = self.mat.data
        for k, on in enumerate(side):
            data[self.src_slot[k]] = self.big if on else 0
            data[self.dst_slot[k]] = 0 if on else self.big
        return maximum_flow(self.mat, self.s, self.t).flow_value * self.unit

    def exact(self, side):
        """Exact float cut value of the partition (networkx minimum cut, float capacities)."""
        side = np.asarray(side, dtype=bool)
        if self.only_endpoints:
            return self.cut(side)
        h = nx.DiGraph()
        for u, v, d in self.g.edges(data=True):
            h.add_edge(u, v, capacity=d["bandwidth"])
            h.add_edge(v, u, capacity=d["bandwidth"])
        for e, on in zip(self.ends, side):
            if on:
                h.add_edge("__s__", e)  # no capacity attribute = infinite
            else:
                h.add_edge(e, "__t__")
        return float(nx.minimum_cut_value(h, "__s__", "__t__"))


def bisection_bandwidth(g, nodes=None, method="auto", return_partition=False):
    """Bisection bandwidth: the least bandwidth of a cut that splits the endpoints in half.

    The minimum, over all balanced bipartitions (sizes ``floor(m/2)`` and
    ``ceil(m/2)``) of the ``m`` endpoints, of the minimum edge cut separating the two
    halves, counted per direction (each cut edge contributes its ``bandwidth``).
    Switches, NICs and CPUs may fall on either side, whichever gives the smaller cut.

    Method
    ------
    * ``"exact"`` (default for ``m <= 16``): every balanced bipartition is tried. When
      the graph has only endpoints the cut is a sum of edge weights; otherwise it is a
      max-flow / min-cut per bipartition (scipy's ``maximum_flow`` on integer
      capacities in units of 1/1024 of the smallest bandwidth; the winning partition
      is re-evaluated with float capacities).
    * ``"heuristic"`` (default for ``m > 16``): the best of a few candidate
      bipartitions, each with an exact min cut: endpoints split in index order (which
      cuts a torus across its first dimension and a fat tree or cluster by pods or
      nodes), split along each torus dimension, and Kernighan-Lin bisections of the
      whole graph (four seeds) rebalanced to equal endpoint halves. This is an
      *upper bound* on the true bisection bandwidth; it meets the closed forms for
      tori (``2 k^(n-1)`` links, k even), rings (2 links) and fat trees
      (``(k^3/8) b / r``), which the tests check.

    Parameters
    ----------
    g : networkx.Graph
    nodes : iterable, optional
        Endpoints; default :func:`endpoints` (GPUs, or hosts).
    method : {"auto", "exact", "heuristic"}
    return_partition : bool
        Also return the two endpoint halves.

    Returns
    -------
    float or (float, (list, list))
        Bytes/s, per direction.

    References
    ----------
    Dally and Towles (2004), sec. 3.3 (bisection); B. W. Kernighan, S. Lin, "An
    efficient heuristic procedure for partitioning graphs", Bell Syst. Tech. J. 49,
    1970; Al-Fares et al. (2008) (fat tree full bisection).
    """
    ends = list(endpoints(g) if nodes is None else nodes)
    for n in ends:
        _check_node(g, "nodes", n)
    m = len(ends)
    if m < 2:
        raise ValueError(f"nodes has {m} endpoint(s); need at least 2")
    method = choice("method", method, ("auto", "exact", "heuristic"))
    if method == "auto":
        method = "exact" if m <= 16 else "heuristic"
    if not nx.is_connected(g):
        raise ValueError("the graph is disconnected; its bisection bandwidth is 0")
    ev = _CutEvaluator(g, ends)
    half = m // 2
    best_val, best_side = math.inf, None

    def consider(side):
        nonlocal best_val, best_side
        val = ev.cut(side)
        if val < best_val - 1e-9 * max(1.0, abs(val)):
            best_val, best_side = val, np.array(side, dtype=bool)

    if method == "exact":
        if m > 24:
            raise ValueError(f"method='exact' with {m} endpoints is too slow; use 'heuristic'")
        rest = range(1, m) if m % 2 == 0 else range(m)
        k = half - 1 if m % 2 == 0 else half
        for combo in itertools.combinations(rest, k):
            side = np.zeros(m, dtype=bool)
            side[list(combo)] = True
            if m % 2 == 0:
                side[0] = True
            consider(side)
    else:
        for side in _candidates(g, ends, half):
            consider(side)
    value = ev.exact(best_side)
    if return_partition:
        s = [e for e, on in zip(ends, best_side) if on]
        t = [e for e, on in zip(ends, best_side) if not on]
        return value, (s, t)
    return value


def _candidates(g, ends, half):
    m = len(ends)
    pos = {e: i for i, e in enumerate(ends)}
    first = np.zeros(m, dtype=bool)
    first[:half] = True
    yield first
    coords = [g.nodes[e].get("coords") for e in ends]
    if all(c is not None for c in coords):
        arr = np.array(coords)
        for d in range(arr.shape[1]):
            order = np.argsort(arr[:, d], kind="stable")
            side = np.zeros(m, dtype=bool)
            side[order[:half]] = True
            yield side
    for seed in range(4):
        a, _ = nx.community.kernighan_lin_bisection(g, weight="bandwidth", seed=seed)
        side = np.array([e in a for e in ends], dtype=bool)
        # rebalance to exactly `half` endpoints on the True side, moving endpoints in
        # index order (deterministic)
        idx_true = [pos[e] for e in ends if side[pos[e]]]
        idx_false = [pos[e] for e in ends if not side[pos[e]]]
        while len(idx_true) > half:
            side[idx_true.pop()] = False
        while len(idx_true) < half:
            j = idx_false.pop(0)
            side[j] = True
            idx_true.append(j)
        yield side


# ----------------------------------------------------------------------------------
# nvidia-smi topo -m
# ----------------------------------------------------------------------------------
#: ``nvidia-smi topo -m`` legend (driver 4xx and later).
TOPO_LEGEND = (
    ("X", "Self"),
    ("SYS", "Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)"),
    ("NODE", "Connection traversing PCIe as well as the interconnect between PCIe Host Bridges within a NUMA node"),
    ("PHB", "Connection traversing PCIe as well as a PCIe Host Bridge (typically the CPU)"),
    ("PXB", "Connection traversing multiple PCIe bridges (without traversing the PCIe Host Bridge)"),
    ("PIX", "Connection traversing at most a single PCIe bridge"),
    ("NV#", "Connection traversing a bonded set of # NVLinks"),
)

_HTML_COLOURS = {"X": "#eeeeee", "NV": "#cdeee3", "PIX": "#d6e9f8", "PXB": "#e4eef8",
                 "PHB": "#fbe8c8", "NODE": "#fadcc0", "SYS": "#f6cbb5", "-": "#ffffff"}


@dataclass(frozen=True)
class TopoMatrix:
    """A GPU-to-GPU connection matrix as ``nvidia-smi topo -m`` prints it.

    Attributes
    ----------
    gpus : list
        GPU node names, in order.
    labels : list of list of str
        ``labels[i][j]``: ``"X"``, ``"NV<k>"``, ``"PIX"``, ``"PXB"``, ``"PHB"``,
        ``"NODE"``, ``"SYS"``, or ``"-"`` where the graph has no NVLink or PCIe route.
    numa : list
        NUMA node (CPU socket) of each GPU, or ``None`` where the graph has no CPUs.
    """

    gpus: list
    labels: list
    numa: list = field(default_factory=list)

    @property
    def names(self):
        return [f"GPU{i}" for i in range(len(self.gpus))]

    def label(self, a, b):
        """Label between GPU nodes ``a`` and ``b``."""
        return self.labels[self.gpus.index(a)][self.gpus.index(b)]

    def __str__(self):
        names = self.names
        w = max(6, max(len(x) for row in self.labels for x in row) + 2, max(map(len, names)) + 2)
        show_numa = any(x is not None for x in self.numa)
        head = " " * w + "".join(n.ljust(w) for n in names) + ("NUMA Affinity" if show_numa else "")
        lines = [head.rstrip()]
        for i, row in enumerate(self.labels):
            cells = "".join((" X" if x == "X" else x).ljust(w) for x in row)
            tail = str(self.numa[i]) if show_numa and self.numa[i] is not None else ""
            lines.append((names[i].ljust(w) + cells + tail).rstrip())
        lines.append("")
        lines.append("Legend:")
        lines.append("")
        for k, text in TOPO_LEGEND:
            lines.append(f"  {k:<4} = {text}")
        return "\n".join(lines)

    def _repr_html_(self):
        names = self.names
        show_numa = any(x is not None for x in self.numa)
        th = "padding:2px 8px;text-align:center;font-family:monospace"
        out = ['<table style="border-collapse:collapse">', "<tr><th></th>"]
        out += [f'<th style="{th}">{n}</th>' for n in names]
        if show_numa:
            out.append(f'<th style="{th}">NUMA</th>')
        out.append("</tr>")
        for i, row in enumerate(self.labels):
            out.append(f'<tr><th style="{th}">{names[i]}</th>')
            for x in row:
                key = "NV" if x.startswith("NV") else x
                bg = _HTML_COLOURS.get(key, "#ffffff")
                out.append(f'<td style="{th};background:{bg};color:#000;border:1px solid #ccc">{x}</td>')
            if show_numa:
                out.append(f'<td style="{th}">{"" if self.numa[i] is None else self.numa[i]}</td>')
            out.append("</tr>")
        out.append("</table>")
        return "".join(out)


def _nvlinks_between(g, a, b):
    n = 0
    if g.has_edge(a, b) and _is_nvlink(g.edges[a, b]):
        n += g.edges[a, b]["count"]
    sa = {s: g.edges[a, s]["count"] for s in g.neighbors(a)
          if g.nodes[s].get("kind") == "nvswitch" and _is_nvlink(g.edges[a, s])}
    for s, c in sa.items():
        if g.has_edge(b, s) and _is_nvlink(g.edges[b, s]):
            n += min(c, g.edges[b, s]["count"])
    return n


def _pcie_view(g, a, b):
    return nx.subgraph_view(
        g, filter_node=lambda n: n == a or n == b or g.nodes[n].get("kind") in ("pcie_switch", "cpu"),
        filter_edge=lambda u, v: not _is_nvlink(g.edges[u, v]))


def _pcie_path(g, a, b):
    h = _pcie_view(g, a, b)
    try:
        return nx.shortest_path(h, a, b)
    except (nx.NetworkXNoPath, nx.NodeNotFound):
        return None


def _pcie_class(g, p):
    inner = p[1:-1]
    cpus = [n for n in inner if g.nodes[n].get("kind") == "cpu"]
    if len(cpus) >= 2:
        numas = {g.nodes[c].get("numa", c) for c in cpus}
        return "NODE" if len(numas) == 1 else "SYS"
    if len(cpus) == 1:
        return "PHB"
    sws = [n for n in inner if g.nodes[n].get("kind") == "pcie_switch"]
    return "PIX" if len(sws) <= 1 else "PXB"


def _numa_of(g, gpu):
    h = nx.subgraph_view(
        g, filter_node=lambda n: n == gpu or g.nodes[n].get("kind") in ("pcie_switch", "cpu"),
        filter_edge=lambda u, v: not _is_nvlink(g.edges[u, v]))
    dist = nx.single_source_shortest_path_length(h, gpu)
    cpus = sorted((d, str(n), n) for n, d in dist.items() if g.nodes[n].get("kind") == "cpu")
    if not cpus:
        return None
    c = cpus[0][2]
    return g.nodes[c].get("numa", g.nodes[c].get("index"))


def topo_matrix(g, node=None):
    """The GPU-to-GPU matrix of ``nvidia-smi topo -m`` for one machine of ``g``.

    Rules (after the ``nvidia-smi topo -m`` legend, :data:`TOPO_LEGEND`):

    * ``"X"`` on the diagonal.
    * ``"NV<k>"`` if the pair has NVLinks: ``k`` = direct NVLinks between them plus,
      through NVSwitch nodes they share, the smaller of the two GPUs' link counts to
      each switch. With :func:`nvswitch` this is the GPU's full link count: NV12 on
      DGX A100, NV18 on DGX H100, as nvidia-smi shows.
    * Otherwise by the fewest-hop PCIe route (through PCIe switches and CPUs only):
      ``"SYS"`` if it crosses two CPUs of different NUMA nodes (the socket
      interconnect), ``"NODE"`` if two host bridges of one NUMA node, ``"PHB"`` if one
      host bridge (CPU root complex), ``"PXB"`` if two or more PCIe switches and no
      host bridge, ``"PIX"`` if at most one PCIe switch.
    * ``"-"`` where the graph models neither (e.g. a DGX-1 built without its PCIe
      tree).

    Parameters
    ----------
    g : networkx.Graph
    node : int, optional
        In a cluster, the machine to show (nvidia-smi runs on one machine); default the
        machine of the first GPU.

    Returns
    -------
    TopoMatrix
        ``.labels``, ``.gpus``, ``.numa``; ``print()`` it for the text table, or let a
        notebook render its HTML.

    References
    ----------
    ``nvidia-smi topo -m`` legend, NVIDIA System Management Interface (nvidia-smi)
    documentation; DGX-1 and DGX H100 matrices as reproduced in Microway, "nvidia-smi:
    Control Your GPUs", and NVIDIA DGX H100 user guide.
    """
    all_g = gpus(g)
    if not all_g:
        raise ValueError("the graph has no GPU nodes (kind 'gpu')")
    if node is None:
        node = g.nodes[all_g[0]].get("node")
    else:
        node = as_count("node", node, 0)
        if not any(g.nodes[x].get("node") == node for x in all_g):
            raise ValueError(f"node={node!r} has no GPUs in this graph")
    sel = [x for x in all_g if g.nodes[x].get("node") == node]
    labels = []
    for a in sel:
        row = []
        for b in sel:
            if a == b:
                row.append("X")
                continue
            nv = _nvlinks_between(g, a, b)
            if nv:
                row.append(f"NV{nv}")
                continue
            p = _pcie_path(g, a, b)
            row.append("-" if p is None else _pcie_class(g, p))
        labels.append(row)
    return TopoMatrix(gpus=sel, labels=labels, numa=[_numa_of(g, x) for x in sel])


# ----------------------------------------------------------------------------------
# drawing
# ----------------------------------------------------------------------------------
_KIND_STYLE = {
    # kind: (colour, marker, size, legend label)
    "gpu": ("#009E73", "s", 420, "GPU"),
    "host": ("#009E73", "s", 260, "host"),
    "cpu": ("#0072B2", "D", 480, "CPU socket (root complex)"),
    "pcie_switch": ("#56B4E9", "o", 300, "PCIe switch"),
    "nvswitch": ("#E69F00", "h", 700, "NVSwitch"),
    "nic": ("#CC79A7", "v", 200, "NIC"),
    "leaf": ("#D55E00", "^", 320, "leaf switch"),
    "edge": ("#D55E00", "^", 260, "edge switch"),
    "aggregation": ("#CC79A7", "^", 260, "aggregation switch"),
    "spine": ("#0072B2", "^", 360, "spine switch"),
    "core": ("#000000", "^", 300, "core switch"),
}


def _edge_family(d):
    link = str(d.get("link", ""))
    if link.startswith("nvlink"):
        return "NVLink"
    if link.startswith("pcie"):
        return "PCIe"
    if link.startswith("ib-") or link.startswith("eth-"):
        return "network"
    return "other"


_FAMILY_STYLE = {"NVLink": ("#009E73", "-"), "PCIe": ("#0072B2", "-"),
                 "network": ("#555555", "-"), "other": ("#000000", "--")}


def draw(g, ax=None, title=None, labels=True):
    """Draw a topology: nodes by kind, edge width by bandwidth (log), a legend.

    Parameters
    ----------
    g : networkx.Graph
        A graph from one of the builders (uses their ``pos`` node attribute; other
        graphs get a seeded spring layout).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; a new figure is made if omitted.
    title : str, optional
        Default ``g.graph["name"]``.
    labels : bool
        Label GPUs (and CPUs / switches in small graphs).

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Colours follow the Okabe-Ito palette of :mod:`interconnect.plots`; node kinds also
    differ by marker shape and edge families (NVLink, PCIe, network, other) by colour
    and style, so the figure reads without colour. Edge width grows with the log of the
    per-direction bandwidth; the legend states the range. Torus wrap-around edges are
    drawn as arcs.

    References
    ----------
    M. Okabe, K. Ito, "Color Universal Design (CUD)", 2008.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    from .plots import use_style
    from .units import fmt_bandwidth

    use_style()
    pos = {n: d.get("pos") for n, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        pos = nx.spring_layout(g, seed=1)
    xs = np.array([p[0] for p in pos.values()])
    ys = np.array([p[1] for p in pos.values()])
    xr = max(xs.max() - xs.min(), 1.0)
    yr = max(ys.max() - ys.min(), 1.0)
    if ax is None:
        wid = min(13.0, max(6.0, 1.0 + xr * 0.75))
        hei = min(8.0, max(3.6, wid * yr / xr * 0.9 + 1.4))
        _, ax = plt.subplots(figsize=(wid, hei))
    n_nodes = g.number_of_nodes()
    scale = 1.0 if n_nodes <= 24 else max(0.25, (24 / n_nodes) ** 0.5)

    bws = [d["bandwidth"] for _, _, d in g.edges(data=True)]
    lo, hi = (min(bws), max(bws)) if bws else (1.0, 1.0)

    def width(bw):
        if hi <= lo * 1.0001:
            return 2.2
        return 0.8 + 4.7 * (math.log(bw) - math.log(lo)) / (math.log(hi) - math.log(lo))

    families = set()
    extra = []
    coords = nx.get_node_attributes(g, "coords")
    dims = g.graph.get("dims")
    for u, v, d in g.edges(data=True):
        fam = _edge_family(d)
        families.add(fam)
        col, ls = _FAMILY_STYLE[fam]
        lw = width(d["bandwidth"]) * (0.6 + 0.4 * scale)
        rad = 0.0
        arcs = g.graph.get("draw_arcs", {})
        if (u, v) in arcs:
            rad = arcs[(u, v)]
        elif (v, u) in arcs:
            rad = -arcs[(v, u)]
        elif coords and dims and u in coords and v in coords:
            if any(abs(a - b) > 1 for a, b in zip(coords[u], coords[v])):
                rad = 0.28
        if rad:
            (x1, y1), (x2, y2) = pos[u], pos[v]
            cx, cy = (x1 + x2) / 2 + rad * (y2 - y1), (y1 + y2) / 2 - rad * (x2 - x1)
            extra.append((0.25 * x1 + 0.5 * cx + 0.25 * x2, 0.25 * y1 + 0.5 * cy + 0.25 * y2))
            patch = FancyArrowPatch(pos[u], pos[v], arrowstyle="-", connectionstyle=f"arc3,rad={rad}",
                                    color=col, lw=lw, ls=ls, alpha=0.75, zorder=1)
            ax.add_patch(patch)
        else:
            ax.plot([pos[u][0], pos[v][0]], [pos[u][1], pos[v][1]], color=col, lw=lw, ls=ls,
                    alpha=0.8, solid_capstyle="round", zorder=1)

    kinds_present = [k for k in KINDS if any(d.get("kind") == k for _, d in g.nodes(data=True))]
    for kind in kinds_present:
        col, marker, size, _ = _KIND_STYLE[kind]
        ns = [n for n, d in g.nodes(data=True) if d.get("kind") == kind]
        ax.scatter([pos[n][0] for n in ns], [pos[n][1] for n in ns], s=size * scale, c=col,
                   marker=marker, edgecolors="white", linewidths=1.2, zorder=3)
    if labels:
        small = n_nodes <= 40
        for n, d in g.nodes(data=True):
            kind = d.get("kind")
            if kind == "gpu":
                text = str(d.get("index", n))
                fs = 9 if scale >= 0.8 else 7
                ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                        fontsize=fs, fontweight="bold", zorder=4)
            elif small and kind in ("cpu", "pcie_switch", "nvswitch", "host"):
                text = {"cpu": f"CPU{d.get('index', '')}", "pcie_switch": "SW",
                        "nvswitch": "NVS", "host": str(d.get("index", ""))}[kind]
                if kind == "cpu" or kind == "nvswitch":
                    ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                            fontsize=7, fontweight="bold", zorder=4)
                elif kind == "host":
                    ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                            fontsize=7, zorder=4)
        if g.graph.get("builder") == "cluster":
            for j in range(g.graph["nodes"]):
                gs = [pos[n] for n, d in g.nodes(data=True) if d.get("node") == j and d.get("kind") == "gpu"]
                if gs:
                    ax.text(np.mean([p[0] for p in gs]), max(p[1] for p in gs) + 1.45, f"node {j}",
                            ha="center", va="bottom", fontsize=9, color="#333333")

    handles = []
    for kind in kinds_present:
        col, marker, _, lab = _KIND_STYLE[kind]
        handles.append(Line2D([], [], ls="", marker=marker, color=col, markersize=9, label=lab))
    for fam in ("NVLink", "PCIe", "network", "other"):
        if fam in families:
            col, ls = _FAMILY_STYLE[fam]
            lab = {"NVLink": "NVLink", "PCIe": "PCIe", "network": "network link",
                   "other": "socket link (QPI/UPI)" if any(
                       g.nodes[u].get("kind") == "cpu" and g.nodes[v].get("kind") == "cpu"
                       for u, v in g.edges) else "other link"}[fam]
            handles.append(Line2D([], [], color=col, ls=ls, lw=2.5, label=lab))
    if bws and hi > lo * 1.0001:
        handles.append(Line2D([], [], color="none",
                              label=f"width: {fmt_bandwidth(lo)} .. {fmt_bandwidth(hi)}"))
    elif bws:
        handles.append(Line2D([], [], color="none", label=f"every edge {fmt_bandwidth(lo)}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
              fontsize=8.5, borderaxespad=0.2)
    ax.set_title(g.graph.get("name", "topology") if title is None else title)
    pad = 0.5
    if extra:
        xs = np.concatenate([xs, [p[0] for p in extra]])
        ys = np.concatenate([ys, [p[1] for p in extra]])
    ax.set_xlim(xs.min() - pad, xs.max() + pad)
    ax.set_ylim(ys.min() - pad, ys.max() + pad + (0.8 if g.graph.get("builder") == "cluster" else 0))
    # equal scales by shrinking the box (limits are fixed, so "datalim" would be ignored with a warning)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    return ax
