"""Topology builders for machines: rings, PCIe trees, the DGX-1 mesh, NVSwitch boards, tori.

Every builder returns an undirected :class:`networkx.Graph` that follows the graph
contract described in :mod:`interconnect.topology` (networks of machines are in
:mod:`interconnect.topology.fabrics`). Also here: the node kinds of the
contract, the socket-interconnect (QPI/UPI) constants and the small helpers the other
topology modules share (:func:`_check_node`, :func:`_is_nvlink`).
"""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np

from .._validate import as_count, as_positive
from ..catalog.socket_links import get_socket_link
from ..links import get_link
from ..units import GB, us

__all__ = [
    "DGX1_NVLINKS", "KINDS", "NETWORK_KINDS", "NVSWITCHES_PER_BOARD", "QPI_BANDWIDTH",
    "SOCKET_LINK_LATENCY", "UPI_BANDWIDTH", "dgx1_hybrid_cube_mesh", "nvswitch", "pcie_tree",
    "ring", "torus",
]

#: Node kinds of the graph contract.
KINDS = ("gpu", "cpu", "pcie_switch", "nvswitch", "nic", "host",
         "leaf", "spine", "core", "aggregation", "edge")
#: Kinds that are network switches (a packet network, not a machine's internals).
NETWORK_KINDS = ("leaf", "spine", "core", "aggregation", "edge")
_SWITCH_CHIPS = ("pcie_switch", "nvswitch")

#: One Intel UPI link at 10.4 GT/s, bytes/s per direction: 10.4 GT/s x 2 bytes of
#: payload per transfer = 20.8 GB/s (Intel Xeon Scalable, Skylake-SP;
#: :mod:`interconnect.catalog.socket_links` ``"upi-10.4"``, whose servers have 3 such links).
UPI_BANDWIDTH = get_socket_link("upi-10.4").bandwidth
#: One Intel QPI link at 9.6 GT/s, bytes/s per direction: 9.6 GT/s x 2 bytes = 19.2 GB/s
#: (Xeon E5 v3/v4, e.g. the DGX-1's E5-2698 v4; ``"qpi-9.6"``). Intel counts 64 data bits
#: per 80-bit flit on 20 lanes, i.e. 2 bytes per transfer per direction (QPI 6.4 GT/s is
#: quoted as "12.8 GB/s in each direction, 25.6 GB/s total").
QPI_BANDWIDTH = get_socket_link("qpi-9.6").bandwidth
#: Socket-interconnect hop latency, s. NO authoritative figure was found: 0.1 us is an
#: order-of-magnitude placeholder (a remote-socket access adds tens of ns to a load;
#: a PCIe transaction crossing UPI adds more). Do not quote it.
SOCKET_LINK_LATENCY = 0.1 * us
#: The socket link :func:`pcie_tree` uses when none is named: the two-socket platform that
#: shipped with the GPU link's PCIe generation, with its real number of links
#: (:mod:`interconnect.catalog.socket_links`, each record cited): PCIe 3.0 with Skylake-SP
#: (3 UPI links at 10.4 GT/s, Intel ARK Xeon Platinum 8168), PCIe 4.0 with AMD EPYC 7002
#: (3 Infinity Fabric links at 18 GT/s, as in the DGX A100; AMD's MI100 documentation),
#: PCIe 5.0 with Sapphire Rapids (4 UPI 2.0 links at 16 GT/s, as in the DGX/HGX H100;
#: Intel ARK Xeon Platinum 8480+). Any other GPU link keeps one UPI 10.4 GT/s link, the
#: minimal socket interconnect of a two-socket Xeon.
DEFAULT_SOCKET_LINK = {"pcie3": "upi-10.4", "pcie4": "xgmi-rome", "pcie5": "upi2-16"}

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
    from .._validate import as_nonnegative
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

    Examples
    --------
    >>> from interconnect.topology import path_bandwidth
    >>> g = ring(8)
    >>> g.number_of_nodes(), g.number_of_edges(), path_bandwidth(g, "gpu0", "gpu1") / 1e9   # GB/s
    (8, 8, 25.0)
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
              uplink="pcie3x16", socket_link_bandwidth=None,
              socket_link_latency=SOCKET_LINK_LATENCY, socket_links=None, switch_levels=1,
              socket_link=None):
    """GPUs under PCIe switches under CPU sockets: the classic PCIe GPU server.

    Each socket is one CPU with its PCIe root complex (kind ``"cpu"``, attribute
    ``numa`` = socket number). Under it hang ``switches_per_socket`` PCIe switches, each
    with ``gpus_per_switch`` GPUs. Sockets are joined pairwise by the socket
    interconnect (Intel QPI/UPI, AMD Infinity Fabric). The classic 8-GPU PCIe server is
    ``pcie_tree(4, 1, 2)`` or ``pcie_tree(2, 2, 2)``.

    The socket interconnect is ``socket_links`` parallel links of ``socket_link_bandwidth``
    each (one edge, ``count = socket_links``). Name a CPU's real links with ``socket_link``
    (a record of :mod:`interconnect.catalog.socket_links`): ``"qpi-9.6"`` (2 links, DGX-1),
    ``"upi-10.4"`` (3, Skylake-SP), ``"upi2-16"`` (4, Sapphire Rapids as in DGX/HGX H100),
    ``"xgmi-rome"`` (3, AMD EPYC 7002). Without it (and without ``socket_links`` and
    ``socket_link_bandwidth``) the tree takes the platform of its GPU link's PCIe generation,
    :data:`DEFAULT_SOCKET_LINK`: PCIe 3.0 with Skylake-SP's three UPI links (3 x 20.8 GB/s),
    PCIe 4.0 with EPYC 7002's three Infinity Fabric links (3 x 36 GB/s), PCIe 5.0 with
    Sapphire Rapids' four UPI 2.0 links (4 x 32 GB/s); any other GPU link gets one UPI
    10.4 GT/s link (20.8 GB/s per direction), a lower bound narrower than any real
    two-socket Xeon. ``socket_links=1`` alone also gives that one link.

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
    socket_link_bandwidth : float, optional
        Per-direction bandwidth of one socket link, bytes/s; default the ``socket_link``
        record's (named or the platform default), else one Intel UPI link at 10.4 GT/s =
        20.8 GB/s (:data:`UPI_BANDWIDTH`).
    socket_link_latency : float
        One-way latency of the socket hop, s (default :data:`SOCKET_LINK_LATENCY`, a
        placeholder).
    socket_links : int, optional
        Physical socket links between each pair of sockets (the edge's ``count``), >= 1;
        default the ``socket_link`` record's count, else 1.
    socket_link : str, optional
        A socket-link record (``interconnect.catalog.socket_links.get_socket_link``)
        giving the bandwidth per link and the number of links; default the GPU link's
        platform (:data:`DEFAULT_SOCKET_LINK`), see above.
    switch_levels : int
        1 (switches directly under the root complex) or 2 (each socket's switches
        under one upper-level switch, ``"swtop<s>"``; GPUs on different lower
        switches then see ``PXB`` in :func:`topo_matrix`).

    Returns
    -------
    networkx.Graph
        GPUs ``"gpu0"``.. numbered socket by socket, switch by switch; switches
        ``"sw0"``..; CPUs ``"cpu0"``... The socket edge has ``link=""`` (socket links are
        not in the link catalog of GPU links) and ``socket_link`` (the record's name, or
        ``""``); ``g.graph["socket_link"]`` describes it in words.

    References
    ----------
    PCI-SIG, *PCI Express Base Specification* (root complex, switches);
    Intel QPI/UPI per-link bandwidth: 2 bytes per transfer per direction (see
    :data:`UPI_BANDWIDTH`); NVIDIA ``nvidia-smi topo -m`` legend (PIX/PXB/PHB/SYS).

    Examples
    --------
    The classic 8-GPU PCIe server: GPUs 0 and 4 hang under different sockets, so their
    route climbs to ``cpu0`` and crosses the socket link:

    >>> from interconnect.topology import gpus, path
    >>> g = pcie_tree(4, 1, 2)
    >>> len(gpus(g)), path(g, "gpu0", "gpu4")
    (8, ['gpu0', 'sw0', 'cpu0', 'cpu1', 'sw1', 'gpu4'])
    >>> g.graph["socket_link"]                   # PCIe 3.0: Skylake-SP's three UPI links
    '3 x Intel UPI 10.4 GT/s (20.8 GB/s per direction per link)'

    Sapphire Rapids' four UPI 2.0 links, as in an HGX H100 server:

    >>> h = pcie_tree(2, 2, 2, gpu_link="pcie5x16", uplink="pcie5x16", socket_link="upi2-16")
    >>> h.edges["cpu0", "cpu1"]["count"], h.edges["cpu0", "cpu1"]["bandwidth"] / 1e9   # GB/s
    (4, 128.0)
    """
    gps = as_count("gpus_per_switch", gpus_per_switch, 1)
    sps = as_count("switches_per_socket", switches_per_socket, 0)
    ns = as_count("sockets", sockets, 1)
    gname, gbw, glat = _resolve(gpu_link, None, None)
    if socket_link is None and socket_links is None and socket_link_bandwidth is None:
        socket_link = DEFAULT_SOCKET_LINK.get(str(gname).split("x")[0])
    rec = get_socket_link(socket_link) if socket_link is not None else None
    if socket_links is None:
        socket_links = rec.links if rec is not None else 1
    nlinks = as_count("socket_links", socket_links, 1)
    if socket_link_bandwidth is None:
        socket_link_bandwidth = rec.bandwidth if rec is not None else UPI_BANDWIDTH
    levels = as_count("switch_levels", switch_levels, 1)
    if levels > 2:
        raise ValueError(f"switch_levels={switch_levels!r} is not allowed; use 1 or 2")
    if levels == 2 and sps == 0:
        raise ValueError("switch_levels=2 needs switches_per_socket >= 1")
    uname, ubw, ulat = _resolve(uplink, None, None)
    sbw = float(as_positive("socket_link_bandwidth", socket_link_bandwidth, "bytes/s"))
    from .._validate import as_nonnegative
    slat = float(as_nonnegative("socket_link_latency", socket_link_latency, "s"))

    per_socket = gps * max(sps, 1)
    total = per_socket * ns
    g = nx.Graph(name=(f"PCIe tree: {ns} socket(s) x {sps} switch(es) x {gps} GPU(s) "
                       f"({_label(gname)})"),
                 builder="pcie_tree", gpus_per_switch=gps, switches_per_socket=sps,
                 sockets=ns, switch_levels=levels,
                 socket_link=(f"{nlinks} x {rec.label if rec is not None else 'QPI/UPI'} "
                              f"({sbw / GB:.3g} GB/s per direction per link)"))
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
        g.edges[f"cpu{a}", f"cpu{b}"]["socket_link"] = rec.name if rec is not None else ""
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

    Examples
    --------
    16 NVLinked pairs holding 24 links (6 per GPU), and 12 pairs with none:

    >>> g = dgx1_hybrid_cube_mesh()
    >>> g.number_of_edges(), sum(c for _, _, c in g.edges(data="count"))
    (16, 24)
    >>> g.edges["gpu0", "gpu3"]["count"], g.has_edge("gpu0", "gpu6")     # NV2, and no NVLink
    (2, False)
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

    Examples
    --------
    DGX H100: any pair of GPUs gets a GPU's full 450 GB/s per direction (900 GB/s
    bidirectional) through the one logical crossbar; with ``physical=True`` a single path
    only uses one chip's share of the 18 links:

    >>> from interconnect.topology import path, path_bandwidth
    >>> g = nvswitch()
    >>> path(g, "gpu0", "gpu5"), path_bandwidth(g, "gpu0", "gpu5") / 1e9, g.graph["switches"]
    (['gpu0', 'nvsw0', 'gpu5'], 450.0, 4)
    >>> h = nvswitch(physical=True)
    >>> [h.edges["gpu0", f"nvsw{s}"]["count"] for s in range(4)], path_bandwidth(h, "gpu0", "gpu5") / 1e9
    ([5, 4, 4, 5], 125.0)
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


def torus(dims=(4, 4), link="nvlink2-link", bandwidth=None, latency=None, wrap=True):
    """A k-ary n-dimensional torus of GPUs (wrap-around mesh), or the mesh without wrap-around.

    GPU at coordinates ``c`` joins ``c +/- 1`` (mod ``k``) along each dimension of
    size ``k``; a dimension of size 2 gives a single edge (not two), a dimension of
    size 1 gives none. With ``wrap=False`` (or False for some dimensions) the link from
    the last GPU of a dimension back to the first is left out: a k-ary n-mesh
    (网格), as in a TPU slice smaller than one 4x4x4 cube.

    Parameters
    ----------
    dims : int or sequence of int
        Size of each dimension, each >= 1, at least two GPUs in total.
    link, bandwidth, latency
        As in :func:`ring`.
    wrap : bool or sequence of bool
        Wrap-around links in every dimension (default, a torus), in none (``False``, a
        mesh), or per dimension (one bool per entry of ``dims``). Where some dimension
        has none, ``g.graph["wrap"]`` holds one bool per dimension (a full torus has no
        such attribute, as before). In a dimension of size 2 the wrap-around link would
        be the same pair again, so it makes no difference there.

    Returns
    -------
    networkx.Graph
        Nodes ``"gpu<i>"`` numbered row-major (last dimension fastest), with ``coords``.

    References
    ----------
    W. J. Dally, B. Towles, *Principles and Practices of Interconnection Networks*
    (2004), ch. 5 (tori: bisection 2 k^(n-1) channels for even k, diameter
    sum floor(k_i / 2)).

    Examples
    --------
    >>> g = torus((4, 4))
    >>> g.number_of_nodes(), g.number_of_edges(), g.nodes["gpu5"]["coords"]   # 4 links per GPU
    (16, 32, (1, 1))
    >>> torus((4, 4), wrap=False).number_of_edges()     # 2 x 4 x 3: no wrap-around links
    24
    >>> torus((4, 4), wrap=(True, False)).number_of_edges()
    28
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
    if isinstance(wrap, (bool, np.bool_)):
        wraps = (bool(wrap),) * len(dims)
    else:
        try:
            wraps = tuple(wrap)
        except TypeError:
            raise ValueError(f"wrap={wrap!r} must be a bool or one bool per dimension") from None
        if len(wraps) != len(dims) or not all(isinstance(w, (bool, np.bool_)) for w in wraps):
            raise ValueError(f"wrap={wrap!r} must be a bool or {len(dims)} bools, one per dimension of dims={dims!r}")
        wraps = tuple(bool(w) for w in wraps)
    name, bw, lat = _resolve(link, bandwidth, latency)
    shape = "x".join(map(str, dims))
    kind = "torus" if all(wraps) else ("mesh" if not any(wraps) else "partial torus")
    g = nx.Graph(name=f"{shape} {kind} ({_label(name)})", builder="torus", dims=dims)
    if not all(wraps):
        g.graph["wrap"] = wraps   # only where it differs, so stored torus graphs keep their attributes
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
            if c[d] == k - 1 and not wraps[d]:
                continue  # no wrap-around link in this dimension
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

