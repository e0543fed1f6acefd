"""Topologies of the fabrics beyond NVIDIA: the xGMI full mesh, Gaudi's on-die RoCE box,
TPU slices (tori and meshes, joined by optical circuit switches) and the dragonfly.

Every builder returns an undirected :class:`networkx.Graph` that follows the graph contract of
:mod:`interconnect.topology` (``kind``, ``index``, ``pos`` on nodes; ``bandwidth`` per
direction, ``latency``, ``link``, ``count`` on edges), so that
:func:`~interconnect.topology.bisection_bandwidth`, :func:`~interconnect.topology.ecmp_count`
and :func:`interconnect.netsim.simulate_collective` work on them unchanged. Bandwidths come
from :mod:`interconnect.catalog.fabrics` (the record's name is stored in each edge's
``link``), per direction as everywhere in the library.

Latency
-------
AMD, Intel and Google publish no link latency for xGMI, Gaudi's scale-up ports or ICI
(:mod:`interconnect.catalog.fabrics` records none). The builders therefore put
:data:`ASSUMED_LATENCY` on every scale-up edge: the per-step NVLink latency of NCCL's model
(:func:`interconnect.links.get_link` ``("nvlink4-link").latency``), so that the latency terms
of a collective are the same on every fabric and only the bandwidths and the wiring differ.
It is a modelling choice, not a measurement of these fabrics; pass ``latency=`` to change it.

References
----------
AMD Instinct MI300X data sheet and ROCm MI300 documentation (seven Infinity Fabric links per
GPU, a fully connected 8-GPU platform); AMD CDNA 3 white paper. Intel Gaudi documentation,
"Network Configuration" (21 scale-up ports, 3 to each of 7 peers; 3 scale-out ports). N. P.
Jouppi et al., "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with
Hardware Support for Embeddings", ISCA 2023 (4x4x4 cubes, optical circuit switches, slices as
tori). J. Kim, W. J. Dally, S. Scott, D. Abts, "Technology-Driven, Highly-Scalable Dragonfly
Topology", ISCA 2008. W. J. Dally, B. Towles, *Principles and Practices of Interconnection
Networks* (2004), ch. 5 (tori and meshes).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import networkx as nx

from .._validate import as_count, as_nonnegative, as_positive
from ..catalog.fabrics import get_fabric
from ..links import get_link
from .build import _edge, _resolve, nvswitch, torus

__all__ = ["ASSUMED_LATENCY", "TPU_CUBE", "full_mesh", "xgmi_mesh", "mesh_rings", "gaudi_node", "tpu_slice",
           "torus_ring", "dragonfly", "EightWay", "eight_way_systems"]

#: One-way latency put on scale-up edges whose vendor publishes none, s: NCCL's per-step
#: NVLink value (``links.get_link("nvlink4-link").latency``, basis "model"). A modelling
#: choice that makes latency terms equal across fabrics, not a measurement.
ASSUMED_LATENCY = get_link("nvlink4-link").latency
#: Chips per side of the TPU v4 building block: a 4x4x4 cube of 64 chips, wired
#: electrically inside, whose face links go to the optical circuit switches (Jouppi et al. 2023).
TPU_CUBE = 4


def _fabric_link(fabric, per_link=True):
    """(record name, per-direction bandwidth of one link) from a catalog.fabrics record."""
    rec = get_fabric(fabric)
    bw = rec.per_link_bandwidth if per_link else rec.bandwidth
    if bw is None:
        raise ValueError(f"fabric={fabric!r} has no published per-link bandwidth per direction "
                         f"(catalog.fabrics records none); pass bandwidth= explicitly")
    return rec.name, float(bw)


def _circle(n, radius=1.0):
    return [(radius * math.cos(math.pi / 2 - 2 * math.pi * i / n), radius * math.sin(math.pi / 2 - 2 * math.pi * i / n))
            for i in range(n)]


def full_mesh(n=8, bandwidth=None, latency=ASSUMED_LATENCY, links_per_pair=1, fabric="xgmi-mi300x-link"):
    """``n`` GPUs, every pair joined by its own direct link(s): a full mesh (全互连).

    Unlike a switched crossbar (:func:`interconnect.topology.nvswitch`), each GPU's bandwidth
    is split among ``n - 1`` separate links, one set per peer: one peer gets
    ``links_per_pair`` links' worth, and only traffic to all peers at once uses all of them.

    Parameters
    ----------
    n : int
        GPUs, >= 2.
    bandwidth : float, optional
        Per-direction bandwidth of one link, bytes/s; default the ``per_link_bandwidth`` of
        ``fabric`` in :mod:`interconnect.catalog.fabrics`.
    latency : float
        One-way latency of each edge, s (default :data:`ASSUMED_LATENCY`).
    links_per_pair : int
        Physical links between each pair, >= 1 (an edge carries ``count`` of them and
        ``links_per_pair`` times the bandwidth).
    fabric : str
        The catalog.fabrics record the edges are named after.

    Returns
    -------
    networkx.Graph
        Nodes ``"gpu0"`` .. on a circle; ``n (n - 1) / 2`` edges.

    Examples
    --------
    >>> g = full_mesh(8)
    >>> g.number_of_edges(), g.edges["gpu0", "gpu5"]["bandwidth"] / 1e9   # 64 GB/s per direction
    (28, 64.0)
    """
    n = as_count("n", n, 2)
    links_per_pair = as_count("links_per_pair", links_per_pair, 1)
    name, per_link = _fabric_link(fabric)
    if bandwidth is not None:
        per_link = float(as_positive("bandwidth", bandwidth, "bytes/s"))
    latency = float(as_nonnegative("latency", latency, "s"))
    label = get_fabric(fabric).label
    g = nx.Graph(name=f"Full mesh of {n} GPUs ({label})", builder="full_mesh", n=n, fabric=name,
                 links_per_pair=links_per_pair)
    for i, p in enumerate(_circle(n)):
        g.add_node(f"gpu{i}", kind="gpu", index=i, pos=p)
    for i in range(n):
        for j in range(i + 1, n):
            _edge(g, f"gpu{i}", f"gpu{j}", links_per_pair * per_link, latency, name, links_per_pair)
    return g


def xgmi_mesh(fabric="xgmi-mi300x-link", latency=ASSUMED_LATENCY):
    """AMD's 8-GPU MI300X platform: seven Infinity Fabric (xGMI) links per GPU, one to each peer.

    Parameters
    ----------
    fabric : str
        The per-link record (default ``"xgmi-mi300x-link"``, 64 GB/s per direction); the
        per-GPU record ``"xgmi-mi300x"`` holds the 7-link sum.
    latency : float
        One-way latency of a link, s (AMD publishes none: :data:`ASSUMED_LATENCY`).

    Returns
    -------
    networkx.Graph
        :func:`full_mesh` of 8 GPUs, named after the platform.

    Examples
    --------
    >>> from interconnect.topology import bisection_bandwidth
    >>> g = xgmi_mesh()
    >>> sum(d["bandwidth"] for _, _, d in g.edges("gpu0", data=True)) / 1e9   # = catalog 448 GB/s
    448.0
    >>> bisection_bandwidth(g) / 1e9          # 4 x 4 = 16 links cross a balanced cut
    1024.0
    """
    per_gpu = get_fabric("xgmi-mi300x")
    g = full_mesh(per_gpu.domain, latency=latency, fabric=fabric)
    g.graph.update(name="AMD MI300X platform: 8 GPUs, xGMI full mesh", builder="xgmi_mesh")
    return g


def mesh_rings(n):
    """Edge-disjoint rings through all ``n`` GPUs of a full mesh (Walecki's construction).

    A complete graph on ``n`` vertices splits into ``(n - 1) // 2`` Hamiltonian cycles that
    share no edge (plus, for even ``n``, one perfect matching left over). Run as rings in
    both directions, they are ``2 ((n - 1) // 2)`` rings that each use one direction of
    their links, so a multi-ring AllReduce on the 8-GPU mesh keeps 6 of each GPU's 7
    links busy in each direction.

    Parameters
    ----------
    n : int
        GPUs, >= 3.

    Returns
    -------
    list of list of str
        Each ring as node names ``"gpu<i>"``, starting at the highest index.

    References
    ----------
    E. Lucas, *Récréations mathématiques* II (1892), Walecki's construction; B. Alspach, "The
    wonderful Walecki construction", Bull. ICA 52 (2008).

    Examples
    --------
    >>> mesh_rings(8)[0]
    ['gpu7', 'gpu0', 'gpu1', 'gpu6', 'gpu2', 'gpu5', 'gpu3', 'gpu4']
    >>> len(mesh_rings(8)), len(mesh_rings(9))
    (3, 4)
    """
    n = as_count("n", n, 3)
    odd = n % 2 == 1
    m = (n - 1) // 2 if odd else n // 2
    q = 2 * m if odd else n - 1              # the cyclic group the zigzag runs in
    count = m if odd else m - 1
    out = []
    for i in range(count):
        seq = [i]
        for k in range(1, m + 1 if odd else m):
            seq.append((i + k) % q)
            if len(seq) < q:
                seq.append((i - k) % q)
        out.append([f"gpu{v}" for v in [n - 1] + seq])
    return out


def gaudi_node(generation=3, scale_out=False, latency=ASSUMED_LATENCY):
    """One Intel Gaudi box (HLS-2 / HLS-3): 8 accelerators, all-to-all over on-die RoCE ports.

    Each accelerator has 24 Ethernet ports on its die; 21 are scale-up ports, 3 to each of
    the 7 others (one edge with ``count=3`` per pair), and 3 are scale-out ports. With
    ``scale_out=True`` those go to one node ``"leaf0"`` that stands for the Ethernet network
    outside the box (Intel bundles them into OSFP cages to leaf switches; which leaf each
    port reaches is the data-centre's design, not modelled).

    Parameters
    ----------
    generation : {2, 3}
        Gaudi 2 (100 GbE ports, 12.5 GB/s per direction) or Gaudi 3 (200 GbE, 25 GB/s).
    scale_out : bool
        Add the scale-out ports and the ``"leaf0"`` node.
    latency : float
        One-way latency of a scale-up edge, s (Intel publishes none: :data:`ASSUMED_LATENCY`);
        scale-out edges carry the Ethernet catalog latency of the port speed.

    Returns
    -------
    networkx.Graph

    Examples
    --------
    >>> g = gaudi_node(3)
    >>> g.edges["gpu0", "gpu1"]["count"], g.edges["gpu0", "gpu1"]["bandwidth"] / 1e9   # 3 ports
    (3, 75.0)
    >>> sum(d["count"] for _, _, d in gaudi_node(3, scale_out=True).edges("gpu0", data=True))  # 24 ports
    24
    """
    if generation not in (2, 3) or isinstance(generation, bool):
        raise ValueError(f"generation={generation!r} is not a Gaudi generation with a catalog record; allowed: 2, 3")
    up = get_fabric(f"gaudi{generation}-scale-up")
    out = get_fabric(f"gaudi{generation}-scale-out")
    n = up.domain
    per_peer = up.links // (n - 1)
    g = full_mesh(n, latency=latency, links_per_pair=per_peer, fabric=up.name)
    g.graph.update(name=f"Intel Gaudi {generation} box: {n} accelerators, {per_peer} RoCE ports per pair",
                   builder="gaudi_node", generation=generation, scale_out=bool(scale_out))
    if scale_out:
        eth = get_link("eth-200g" if generation == 3 else "eth-100g")
        g.add_node("leaf0", kind="leaf", index=0, pos=(0.0, 1.6))
        for i in range(n):
            _edge(g, f"gpu{i}", "leaf0", out.bandwidth, eth.latency, out.name, out.links)
    return g


def tpu_slice(dims, fabric="tpu-v5p-ici", bandwidth=None, latency=ASSUMED_LATENCY, wrap=None):
    """A TPU slice: a 3D block of chips on the inter-chip interconnect (ICI).

    TPU v4 and v5p pods are built of 4x4x4 cubes (:data:`TPU_CUBE`) wired electrically inside;
    the links on each cube's faces go to optical circuit switches (OCS, 光路交换) that join
    cubes into a job's slice and close each dimension into a ring. So a slice whose every
    dimension is a multiple of 4 is a torus (环面), ``ocs=True``; a slice that fits inside
    one cube, with some dimension smaller than 4, has no wrap-around in that dimension (a
    mesh, 网格), ``ocs=False``. Reconfiguring the OCS builds the next job's torus from any
    free cubes, wherever they sit in the pod (Jouppi et al. 2023).

    Parameters
    ----------
    dims : sequence of int
        Chips along x, y and z, each >= 1. Each is a multiple of 4, or
        every one is at most 4 (a slice inside one cube).
    fabric : str
        The catalog.fabrics record of the chip's ICI (default ``"tpu-v5p-ici"``).
    bandwidth : float, optional
        Per-direction bandwidth of one ICI link, bytes/s. Default: the record's per-chip
        bandwidth divided evenly over its links (``links`` = 6, so 600 / 6 = 100 GB/s for
        v5p). Google gives no per-link figure; this even split is the model's assumption
        and is stored as ``g.graph["per_link_derived"] = True``.
    latency : float
        One-way latency of an ICI link, s (:data:`ASSUMED_LATENCY`).
    wrap : bool or sequence of bool, optional
        Override the rule above (e.g. ``False`` for a multi-cube slice without OCS loops).

    Returns
    -------
    networkx.Graph
        :func:`interconnect.topology.torus` with ``g.graph`` also holding ``ocs``,
        ``cubes`` (cubes the slice occupies) and ``per_link_derived``.

    Examples
    --------
    >>> g = tpu_slice((4, 4, 4))
    >>> g.number_of_edges(), g.graph["ocs"], g.graph["cubes"]     # 64 chips x 6 links / 2
    (192, True, 1)
    >>> tpu_slice((2, 2, 4)).graph["wrap"]                          # inside one cube
    (False, False, True)
    """
    try:
        dims = tuple(as_count("dims", d, 1) for d in dims)
    except TypeError:
        raise ValueError(f"dims={dims!r} is not a sequence of chip counts") from None
    if len(dims) != 3:
        raise ValueError(f"dims={dims!r} must have 3 dimensions (chips along x, y, z)")
    rec = get_fabric(fabric)
    derived = bandwidth is None
    if derived:
        if rec.bandwidth is None or rec.links is None:
            raise ValueError(f"fabric={fabric!r} has no published per-chip bandwidth per direction; pass bandwidth=")
        bandwidth = rec.bandwidth / rec.links
    multiple = all(d % TPU_CUBE == 0 for d in dims)
    inside = all(d <= TPU_CUBE for d in dims)
    if wrap is None:
        if not (multiple or inside):
            raise ValueError(f"dims={dims!r}: a slice is whole {TPU_CUBE}x{TPU_CUBE}x{TPU_CUBE} cubes (every "
                             f"dimension a multiple of {TPU_CUBE}) or fits in one cube (every dimension <= {TPU_CUBE})")
        wrap = tuple(d % TPU_CUBE == 0 for d in dims)
    g = torus(dims, link=None, bandwidth=bandwidth, latency=latency, wrap=wrap)
    wraps = g.graph.get("wrap", (True,) * len(dims))
    for _, _, d in g.edges(data=True):
        d["link"] = rec.name
    cubes = math.prod(math.ceil(d / TPU_CUBE) for d in dims)
    g.graph.update(name=f"TPU slice {'x'.join(map(str, dims))} ({rec.label}, "
                        f"{'torus' if all(wraps) else 'mesh' if not any(wraps) else 'partial torus'})",
                   builder="tpu_slice", fabric=rec.name, ocs=bool(multiple and any(wraps)), cubes=cubes,
                   per_link_derived=derived, wrap=tuple(wraps))
    return g


def torus_ring(g, order=None):
    """A ring through every GPU of a torus in which each hop is one link (a snake).

    The GPUs are visited layer by layer along ``order[0]``, row by row along ``order[1]``
    and back and forth along the last axis, each layer run in the opposite direction of the
    one before, so that consecutive GPUs are neighbours; the ring closes from the last
    layer back to the first over the wrap-around link of ``order[0]``.

    Parameters
    ----------
    g : networkx.Graph
        Built by :func:`interconnect.topology.torus` or :func:`tpu_slice` (nodes carry ``coords``).
    order : sequence of int, optional
        The axes from slowest to fastest (a permutation of ``range(len(dims))``); default
        ``(0, 1, ..., n-1)``. Three orders of a 3D torus give three different rings.

    Returns
    -------
    list of str
        Node names in ring order.

    Raises
    ------
    ValueError
        Unless the two slowest axes have even sizes and the slowest has a wrap-around
        link (or size <= 2): otherwise no such snake closes.

    Examples
    --------
    >>> from interconnect.topology import torus
    >>> torus_ring(torus((2, 4)))
    ['gpu0', 'gpu1', 'gpu2', 'gpu3', 'gpu7', 'gpu6', 'gpu5', 'gpu4']
    """
    dims = tuple(g.graph.get("dims", ()))
    if g.graph.get("builder") not in ("torus", "tpu_slice") or not dims:
        raise ValueError("g must be built by topology.torus or topology.tpu_slice")
    n = len(dims)
    order = tuple(range(n)) if order is None else tuple(order)
    if sorted(order) != list(range(n)):
        raise ValueError(f"order={order!r} is not a permutation of the axes 0..{n - 1}")
    wraps = tuple(g.graph.get("wrap", (True,) * n))
    shape = [dims[a] for a in order]
    if len(shape) < 2 or shape[0] % 2 or shape[1] % 2 or not (wraps[order[0]] or shape[0] <= 2):
        raise ValueError(f"no closed snake for dims={dims!r}, order={order!r}: the two slowest axes need even "
                         f"sizes and the slowest a wrap-around link")
    index = {d["coords"]: name for name, d in g.nodes(data=True)}
    seq = []

    def layer(prefix, axes, forward):
        # boustrophedon over the remaining axes, reversed when forward is False
        cells = [()]
        for k in axes:
            nxt = []
            for i, c in enumerate(cells):
                rng = range(k) if i % 2 == 0 else range(k - 1, -1, -1)
                nxt.extend(c + (j,) for j in rng)
            cells = nxt
        return [prefix + c for c in (cells if forward else cells[::-1])]

    for a in range(shape[0]):
        seq.extend(layer((a,), shape[1:], a % 2 == 0))
    ring = []
    for c in seq:
        coords = [0] * n
        for axis, v in zip(order, c):
            coords[axis] = v
        ring.append(index[tuple(coords)])
    return ring


def dragonfly(groups=9, routers=4, hosts=2, global_links=2, link="ib-ndr", bandwidth=None, latency=None):
    """A dragonfly: groups of routers wired all-to-all, groups joined all-to-all by global links.

    Each of ``groups`` groups has ``routers`` routers (kind ``"leaf"``: hosts hang off them),
    fully connected inside the group; each router has ``hosts`` hosts and ``global_links``
    links to other groups. The ``routers * global_links`` global links of a group are spread
    evenly over the other ``groups - 1`` groups, ``(routers * global_links) / (groups - 1)``
    per pair of groups, taken from the routers in turn. Kim et al. (2008) balance it with
    ``routers = 2 hosts = 2 global_links`` and at most ``routers * global_links + 1`` groups
    (one global link per pair of groups).

    Parameters
    ----------
    groups, routers, hosts, global_links : int
        ``groups >= 2``, ``routers >= 1``, ``hosts >= 1``, ``global_links >= 1``, with
        ``routers * global_links`` a multiple of ``groups - 1``.
    link, bandwidth, latency
        As in :func:`interconnect.topology.ring`: every link (host, local, global) the same.

    Returns
    -------
    networkx.Graph
        Hosts ``"h<i>"`` (kind ``"host"``, ``index``, ``group``), routers ``"g<G>.r<R>"``;
        edges carry ``tier`` in ``{"host", "local", "global"}``.

    References
    ----------
    Kim, Dally, Scott and Abts, ISCA 2008, sec. 3.

    Examples
    --------
    >>> g = dragonfly(groups=9, routers=4, hosts=2, global_links=2)
    >>> sum(1 for *_, d in g.edges(data=True) if d["tier"] == "global")   # one per pair of groups
    36
    >>> from interconnect.topology import ecmp_count
    >>> ecmp_count(g, "h0", "h8")    # minimal route: local hop, the one global link, local hop
    1
    """
    groups = as_count("groups", groups, 2)
    routers = as_count("routers", routers, 1)
    hosts = as_count("hosts", hosts, 1)
    global_links = as_count("global_links", global_links, 1)
    ports = routers * global_links
    if ports % (groups - 1):
        raise ValueError(f"routers * global_links = {ports} must be a multiple of groups - 1 = {groups - 1} "
                         f"(each pair of groups gets the same number of global links); at most "
                         f"{ports + 1} groups give one link per pair")
    per_pair = ports // (groups - 1)
    name, bw, lat = _resolve(link, bandwidth, latency)
    g = nx.Graph(name=f"Dragonfly: {groups} groups x {routers} routers x {hosts} hosts", builder="dragonfly",
                 groups=groups, routers=routers, hosts=hosts, global_links=global_links, links_per_group_pair=per_pair)
    ang = [2 * math.pi * k / groups for k in range(groups)]
    for gi in range(groups):
        cx, cy = 3.0 * math.cos(ang[gi]), 3.0 * math.sin(ang[gi])
        for r in range(routers):
            rx = cx + 0.6 * math.cos(ang[gi] + (r - (routers - 1) / 2) * 0.5)
            ry = cy + 0.6 * math.sin(ang[gi] + (r - (routers - 1) / 2) * 0.5)
            rname = f"g{gi}.r{r}"
            g.add_node(rname, kind="leaf", index=gi * routers + r, group=gi, pos=(rx, ry))
            for h in range(hosts):
                i = (gi * routers + r) * hosts + h
                g.add_node(f"h{i}", kind="host", index=i, group=gi,
                           pos=(rx * 1.25 + 0.15 * (h - (hosts - 1) / 2), ry * 1.25))
                _edge(g, f"h{i}", rname, bw, lat, name)
                g.edges[f"h{i}", rname]["tier"] = "host"
        for a in range(routers):
            for b in range(a + 1, routers):
                _edge(g, f"g{gi}.r{a}", f"g{gi}.r{b}", bw, lat, name)
                g.edges[f"g{gi}.r{a}", f"g{gi}.r{b}"]["tier"] = "local"
    used = [0] * groups                      # global ports taken so far in each group
    for a in range(groups):
        for b in range(a + 1, groups):
            for _ in range(per_pair):
                ra, rb = used[a] // global_links, used[b] // global_links
                used[a] += 1
                used[b] += 1
                u, v = f"g{a}.r{ra}", f"g{b}.r{rb}"
                if g.has_edge(u, v):          # two global links between the same routers: one edge, count 2
                    d = g.edges[u, v]
                    d["count"] += 1
                    d["bandwidth"] += bw
                else:
                    _edge(g, u, v, bw, lat, name)
                    g.edges[u, v]["tier"] = "global"
    return g


@dataclass(frozen=True)
class EightWay:
    """One 8-device scale-up domain, as a graph and its catalog records.

    Attributes
    ----------
    label : str
    graph : networkx.Graph
        Its topology (``interconnect.topology``).
    per_device : float
        Scale-up bandwidth of one device, bytes/s per direction (all its links).
    per_peer : float
        What one pair of devices gets, bytes/s per direction.
    source : str
        The record it comes from (``links`` or ``catalog.fabrics`` name).
    switched : bool
        True where a switch gives any pair the whole per-device bandwidth.
    """

    label: str
    graph: object
    per_device: float
    per_peer: float
    source: str
    switched: bool


def eight_way_systems():
    """The 8-device domains the chapter compares: DGX H100 (NVSwitch), AMD MI300X (xGMI mesh),
    Intel Gaudi 3 and Gaudi 2 boxes (RoCE all-to-all).

    Returns
    -------
    dict of str -> EightWay
    """
    h100 = get_link("nvlink4")
    mi = get_fabric("xgmi-mi300x")
    out = {"DGX H100 (NVSwitch)": EightWay("DGX H100 (NVSwitch)", nvswitch(8, "nvlink4"), h100.bandwidth,
                                           h100.bandwidth, h100.name, True),
           "MI300X (xGMI mesh)": EightWay("MI300X (xGMI mesh)", xgmi_mesh(), mi.bandwidth, mi.per_link_bandwidth,
                                          mi.name, False)}
    for gen in (3, 2):
        up = get_fabric(f"gaudi{gen}-scale-up")
        g = gaudi_node(gen)
        out[f"Gaudi {gen} (RoCE all-to-all)"] = EightWay(f"Gaudi {gen} (RoCE all-to-all)", g, up.bandwidth,
                                                         g.edges["gpu0", "gpu1"]["bandwidth"], up.name, False)
    return out
