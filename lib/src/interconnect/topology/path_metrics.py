"""What a path costs and how far apart nodes are: a path's bottleneck bandwidth and latency, the
widest path, the network diameter. All follow the one routing rule of
:mod:`interconnect.topology.paths`.
"""

from __future__ import annotations

import networkx as nx

from .build import _check_node
from .paths import _view, endpoints, path

__all__ = ["path_bandwidth", "path_latency", "widest_path", "diameter"]


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

    Examples
    --------
    >>> from interconnect.topology import nvswitch, pcie_tree
    >>> path_bandwidth(nvswitch(), "gpu0", "gpu5") / 1e9                 # GB/s: all 18 NVLink 4 links
    450.0
    >>> round(path_bandwidth(pcie_tree(4, 1, 2), "gpu0", "gpu4") / 1e9, 2)   # GB/s: one PCIe 3.0 x16
    15.75
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

    Examples
    --------
    >>> from interconnect.topology import pcie_tree, ring
    >>> round(path_latency(ring(8), "gpu0", "gpu3") * 1e6, 2)              # us: 3 NVLink hops of 0.6
    1.8
    >>> round(path_latency(pcie_tree(4, 1, 2), "gpu0", "gpu4") * 1e6, 2)   # us: across both sockets
    2.1
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

    Examples
    --------
    On the DGX-1 the shortest route from GPU 0 to GPU 6 has a single NVLink (25 GB/s); a
    hop longer, every pair on the way has two:

    >>> from interconnect.topology import dgx1_hybrid_cube_mesh
    >>> p, bw = widest_path(dgx1_hybrid_cube_mesh(), "gpu0", "gpu6")
    >>> p, bw / 1e9                                         # GB/s per direction
    (['gpu0', 'gpu4', 'gpu7', 'gpu6'], 50.0)
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

    Examples
    --------
    >>> from interconnect.topology import fat_tree, ring, torus
    >>> diameter(ring(8)), diameter(torus((4, 4))), diameter(fat_tree(4))   # floor(8/2), 2 + 2, 6
    (4, 4, 6)
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
