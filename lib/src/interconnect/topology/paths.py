"""Paths: endpoints, the shortest-path rule, path bandwidth and latency, widest path, diameter."""

from __future__ import annotations

import networkx as nx

from .build import KINDS, _check_node

__all__ = ["diameter", "endpoints", "gpus", "path", "path_bandwidth", "path_latency", "widest_path"]


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
