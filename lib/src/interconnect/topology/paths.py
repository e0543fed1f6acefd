"""Paths: endpoints, the routing rule, path bandwidth and latency, widest path, diameter.

The routing rule
----------------
This module holds the library's one shortest-path rule. :func:`path` follows it, and so
do :func:`interconnect.netsim.simulate` and every netsim collective, through
:class:`ShortestPaths`:

1. **Least total latency.** Edge latencies (s) are rounded to integer femtoseconds
   (:func:`routing_weight`) and summed exactly, so two routes whose latencies differ
   only by floating-point rounding tie.
2. **Then fewest hops.** The cost of a path is the pair (latency, hops), compared in
   that order. All the paths of least cost (the *equal-cost set*) have the same hops.
3. **Then a fixed order of the equal-cost set.** Read each path backwards, from ``b``
   to ``a``, and compare the paths node by node, where a node ranks by (its latency
   from ``a``, its position in ``g.nodes``). :func:`path` returns the first path of
   this order; netsim's ``routing="shortest"`` takes the same first path, and
   ``routing="ecmp"`` hashes each flow to one member of the same ordered set.

Why backwards: one Dijkstra run from a source settles the nodes in (latency, hops,
position) order and keeps, for every node, its equal-cost predecessors in that order.
That predecessor DAG serves every destination at once; with the number of equal-cost
paths to each node it yields the ``i``-th path of the order in O(hops), which is how
netsim routes millions of flows (each source once).

References
----------
E. W. Dijkstra, "A note on two problems in connexion with graphs", Numer. Math. 1, 1959.
D. Thaler, C. Hopps, "Multipath Issues in Unicast and Multicast Next-Hop Selection",
RFC 2991, 2000 (ECMP: hashing flows over the equal-cost set).
"""

from __future__ import annotations

import heapq
import math

import networkx as nx
import numpy as np

from .._validate import is_number
from .build import KINDS, _check_node

__all__ = ["ShortestPaths", "all_shortest_paths", "diameter", "endpoints", "gpus", "path",
           "path_bandwidth", "path_latency", "routing_weight", "widest_path"]

_FS = 1e15  # femtoseconds per second: the integer unit in which routing compares latencies


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

    Examples
    --------
    >>> from interconnect.topology import gpus, pcie_tree
    >>> gpus(pcie_tree(2, 1, 2))                  # the GPUs only, not the switches and CPUs
    ['gpu0', 'gpu1', 'gpu2', 'gpu3']
    """
    return sorted((n for n, d in g.nodes(data=True) if d.get("kind") == "gpu"),
                  key=lambda n: _sort_key(g, n))


def endpoints(g):
    """The traffic endpoints of ``g``: its GPUs, or its hosts if it has no GPUs.

    Returns
    -------
    list
        GPU nodes (:func:`gpus`) or ``"host"`` nodes in index order.

    Examples
    --------
    >>> from interconnect.topology import endpoints, fat_tree
    >>> endpoints(fat_tree(2))                    # a fat tree has hosts, no GPUs
    ['h0', 'h1']
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


# ----------------------------------------------------------------------------------
# the routing rule
# ----------------------------------------------------------------------------------
def routing_weight(value):
    """A latency in s as the integer the routing rule compares: femtoseconds, rounded.

    Parameters
    ----------
    value : float
        Seconds (or, for :func:`path`'s ``weight=``, any non-negative edge attribute,
        then rounded to 1e-15 of its unit).

    Returns
    -------
    int

    Examples
    --------
    >>> routing_weight(0.6e-6)                    # one NVLink hop, 0.6 us, in femtoseconds
    600000000
    """
    return round(float(value) * _FS)


class ShortestPaths:
    """The equal-cost shortest paths from one source, in the order of the routing rule.

    One Dijkstra run on (latency, hops), keeping every equal-cost predecessor; see the
    module docstring for the rule. Built on an adjacency list so that
    :mod:`interconnect.netsim` can use it on its integer-indexed resources; use
    :func:`path` and :func:`all_shortest_paths` on graphs.

    Parameters
    ----------
    adj : list of list of (int, int, object)
        ``adj[u]`` lists ``(v, weight, tag)`` for each edge ``u -> v``: ``v`` a node
        index, ``weight`` a non-negative integer (:func:`routing_weight`), ``tag``
        anything (netsim's resource id; :func:`path` uses ``None``). Node indices are
        positions in ``g.nodes``: they break ties.
    source : int
    targets : iterable of int, optional
        Stop once these are settled (their predecessors are complete then); default:
        settle every reachable node.

    Attributes
    ----------
    dist : dict
        ``dist[v] = (weight sum, hops)`` for the nodes reached (not all settled).
    preds : dict
        ``preds[v]``: the equal-cost predecessors ``(u, tag)`` of ``v``, in rule order.

    Examples
    --------
    Four nodes on a square, all edges of weight 1: two equal-cost paths from 0 to 3.

    >>> adj = [[(1, 1, None), (2, 1, None)], [(0, 1, None), (3, 1, None)],
    ...        [(0, 1, None), (3, 1, None)], [(1, 1, None), (2, 1, None)]]
    >>> sp = ShortestPaths(adj, 0)
    >>> sp.count(3), sp.nth(3, 0)[0], sp.nth(3, 1)[0]
    (2, [0, 1, 3], [0, 2, 3])
    """

    __slots__ = ("_memo", "dist", "preds", "settled", "source")

    def __init__(self, adj, source, targets=None):
        self.source = s = source
        self.dist = dist = {s: (0, 0)}
        self.preds = preds = {s: []}
        self.settled = settled = set()
        self._memo = {}
        left = None if targets is None else set(targets) - {s}
        heap = [((0, 0), s)]
        while heap and (left is None or left):
            d, u = heapq.heappop(heap)
            if u in settled or d != dist[u]:
                continue
            settled.add(u)
            if left is not None:
                left.discard(u)
                if not left:
                    break
            for v, w, r in adj[u]:
                nd = (d[0] + w, d[1] + 1)
                old = dist.get(v)
                if old is None or nd < old:
                    dist[v] = nd
                    preds[v] = [(u, r)]
                    heapq.heappush(heap, (nd, v))
                elif nd == old and v not in settled:
                    preds[v].append((u, r))

    def reaches(self, t):
        """Whether ``t`` is reachable from the source (``t`` a target, or ``targets=None``)."""
        return t == self.source or t in self.settled

    def count(self, t):
        """Number of equal-cost shortest paths to ``t`` (an exact Python int)."""
        memo, preds = self._memo, self.preds
        stack = [t]
        while stack:
            v = stack[-1]
            if v in memo:
                stack.pop()
                continue
            missing = [u for u, _ in preds[v] if u not in memo]
            if missing:
                stack.extend(missing)
                continue
            memo[v] = 1 if not preds[v] else sum(memo[u] for u, _ in preds[v])
            stack.pop()
        return memo[t]

    def nth(self, t, i=0):
        """The ``i``-th equal-cost path to ``t`` in rule order (``0 <= i < count(t)``).

        Returns
        -------
        (list, list)
            The node indices from the source to ``t`` and the tags of its edges.
        """
        memo, preds = self._memo, self.preds
        if t not in memo:
            self.count(t)
        nodes, tags = [t], []
        v = t
        while preds[v]:
            for u, r in preds[v]:  # noqa: B007 (u and r are the chosen edge, used after the loop)
                if i < memo[u]:
                    break
                i -= memo[u]
            nodes.append(u)
            tags.append(r)
            v = u
        return nodes[::-1], tags[::-1]


class _Reached:
    """``t in reached``: whether node ``t`` has a finite distance (a set without building one)."""

    __slots__ = ("_d",)

    def __init__(self, d):
        self._d = d

    def __contains__(self, t):
        return bool(np.isfinite(self._d[t]))


class _Preds(dict):
    """``preds[v]`` of one source, cut on first use from the arrays of its tight edges."""

    __slots__ = ("_head", "_tail", "_tag", "_ptr")

    def __init__(self, head, tail, tag, ptr):
        super().__init__()
        self._head, self._tail, self._tag, self._ptr = head, tail, tag, ptr

    def __missing__(self, v):
        lo, hi = self._ptr[v], self._ptr[v + 1]
        out = list(zip(self._tail[lo:hi].tolist(), self._tag[lo:hi].tolist()))
        self[v] = out
        return out


class _LazyPreds(dict):
    """``preds[v]`` of one source, found on first use among the in-edges of ``v`` (few targets)."""

    __slots__ = ("_d", "_g")

    def __init__(self, d, graph):
        super().__init__()
        self._d, self._g = d, graph

    def __missing__(self, v):
        ptr, tail, cost, tag = self._g
        lo, hi = ptr[v], ptr[v + 1]
        u = tail[lo:hi]
        du = self._d[u]
        ok = du + cost[lo:hi] == self._d[v]
        u, r, du = u[ok], tag[lo:hi][ok], du[ok]
        if u.size > 1:  # tails ascend: a stable sort by distance gives (d[u], u)
            o = np.argsort(du, kind="stable")
            u, r = u[o], r[o]
        out = list(zip(u.tolist(), r.tolist()))
        self[v] = out
        return out


def _shortest_paths_many(n, tail, head, weight, tag, sources, few=()):
    """:class:`ShortestPaths` from each of ``sources`` with scipy's compiled Dijkstra.

    The directed edges are ``tail[e] -> head[e]`` with integer ``weight[e]``
    (:func:`routing_weight`) and integer ``tag[e]``. The cost (latency, hops) becomes the
    single integer ``latency * n + hops`` (hops < n); while every edge cost and every
    distance stays below 2**52, float64 adds them exactly, so one
    :func:`scipy.sparse.csgraph.dijkstra` call gives the exact distances. The equal-cost
    predecessors of ``v`` are its in-edges ``u -> v`` with ``d[u] + w == d[v]``, ordered
    by ``(d[u], u)``: the order in which the heap of :class:`ShortestPaths` settles them,
    so the paths, their order and their counts are the same.

    Sources in ``few`` (those routing to a few targets) find each node's predecessors
    when a path first needs them; the others find all at once.

    Returns ``{source: ShortestPaths}``, or ``None`` where a cost or a distance reaches
    2**52 (the caller then runs :class:`ShortestPaths` itself).
    """
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    tail = np.asarray(tail, dtype=np.int64)
    head = np.asarray(head, dtype=np.int64)
    tag = np.asarray(tag, dtype=np.int64)
    keep = tail != head  # a self-loop is never on a shortest path (and csr_matrix would sum it in)
    tail, head, tag = tail[keep], head[keep], tag[keep]
    weight = [w for w, k in zip(weight, keep.tolist()) if k]
    if weight and max(weight) * n + 1 >= 2**52:
        return None
    cost = np.array(weight, dtype=np.int64) * n + 1
    order = np.lexsort((tail, head))  # in-edges grouped by head, tails ascending
    tail, head, tag, cost = tail[order], head[order], tag[order], cost[order].astype(float)
    sources = [int(s) for s in sources]
    if not sources:
        return {}
    dist = dijkstra(csr_matrix((cost, (tail, head)), shape=(n, n)), directed=True, indices=sources)
    # Dijkstra only adds a cost (< 2**52) to a distance it found; if every distance found
    # is < 2**52 too, every sum was < 2**53, so exact, and the run was exact.
    if dist.size and dist[np.isfinite(dist)].max(initial=0.0) >= 2**52:
        return None
    out = {}
    few = set(few)
    graph = (np.searchsorted(head, np.arange(n + 1)), tail, cost, tag)
    for s, d in zip(sources, dist):
        if s in few:
            sp = ShortestPaths.__new__(ShortestPaths)
            sp.source, sp.dist, sp._memo = s, None, {}
            sp.preds = _LazyPreds(d, graph)
            sp.preds[s] = []
            sp.settled = _Reached(d)
            out[s] = sp
            continue
        tight = np.flatnonzero(d[tail] + cost == d[head])  # exact: integers below 2**53
        h, t = head[tight], tail[tight]
        o = np.lexsort((d[t], h))  # stable: equal (head, distance) keep tails ascending
        h, t, r = h[o], t[o], tag[tight][o]
        ptr = np.searchsorted(h, np.arange(n + 1))
        sp = ShortestPaths.__new__(ShortestPaths)
        sp.source, sp.dist, sp._memo = s, None, {}
        sp.preds = _Preds(h, t, r, ptr)
        sp.preds[s] = []
        sp.settled = _Reached(d)
        out[s] = sp
    return out


def _adjacency(h, weight):
    """(nodes, index, adj) of graph ``h`` for :class:`ShortestPaths`; ``weight`` an edge
    attribute or None (0 for every edge: fewest hops)."""
    nodes = list(h.nodes)
    index = {n: k for k, n in enumerate(nodes)}
    adj = [[] for _ in nodes]
    for u, v, d in h.edges(data=True):
        w = 0 if weight is None else routing_weight(d[weight])
        iu, iv = index[u], index[v]
        adj[iu].append((iv, w, None))
        adj[iv].append((iu, w, None))
    return nodes, index, adj


def _routes(g, a, b, weight, transit):
    """Validated (nodes, ShortestPaths from a, index of b) under the routing rule."""
    _check_node(g, "a", a)
    _check_node(g, "b", b)
    if a == b:
        raise ValueError(f"a={a!r} and b={b!r} are the same node; give two different nodes")
    if weight == "hops":
        weight = None
    if weight is not None:
        for u, v, d in g.edges(data=True):
            w = d.get(weight)
            if w is None:
                raise ValueError(f"weight={weight!r} is not an attribute of every edge")
            if not (is_number(w) and math.isfinite(w) and w >= 0):
                raise ValueError(f"weight={weight!r}: edge ({u!r}, {v!r}) has {w!r}; "
                                 "weights must be finite numbers >= 0")
    h = _view(g, a, b, transit)
    nodes, index, adj = _adjacency(h, weight)
    ia, ib = index[a], index[b]
    sp = ShortestPaths(adj, ia, (ib,))
    if not sp.reaches(ib):
        via = ("" if transit is None
               else f" through nodes of kind {sorted(set([transit] if isinstance(transit, str) else transit))}")
        raise ValueError(f"there is no path from a={a!r} to b={b!r}{via}")
    return nodes, sp, ib


def path(g, a, b, weight="latency", transit=None):
    """Shortest path from ``a`` to ``b`` under the routing rule (see the module docstring).

    Least total latency, ties broken by fewer hops, then by the rule's fixed order: the
    path netsim's ``routing="shortest"`` takes for a flow from ``a`` to ``b``.

    Parameters
    ----------
    g : networkx.Graph
    a, b : node
        Distinct nodes of ``g``.
    weight : str or None
        Edge attribute to minimise (default ``"latency"``, s, compared in integer
        femtoseconds); ``None`` or ``"hops"`` for the fewest hops.
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
        Unknown node, ``a == b``, a bad weight, or no path.

    References
    ----------
    E. W. Dijkstra, "A note on two problems in connexion with graphs", Numer. Math. 1, 1959.

    Examples
    --------
    >>> from interconnect.topology import dgx1_hybrid_cube_mesh, ring
    >>> path(ring(8), "gpu0", "gpu3")                       # the short way round
    ['gpu0', 'gpu1', 'gpu2', 'gpu3']
    >>> path(dgx1_hybrid_cube_mesh(), "gpu0", "gpu6")       # no direct NVLink: one GPU between
    ['gpu0', 'gpu2', 'gpu6']
    """
    nodes, sp, ib = _routes(g, a, b, weight, transit)
    return [nodes[k] for k in sp.nth(ib, 0)[0]]


def all_shortest_paths(g, a, b, weight="latency", transit=None):
    """Every equal-cost shortest path from ``a`` to ``b``, in the routing rule's order.

    The first is :func:`path`; netsim's ``routing="ecmp"`` picks among exactly these.
    Parameters as in :func:`path`.

    Yields
    ------
    list
        Nodes from ``a`` to ``b``. (A large torus has astronomically many; take what
        you need.)

    Examples
    --------
    >>> from interconnect.topology import ring
    >>> list(all_shortest_paths(ring(4), "gpu0", "gpu2"))   # both ways round the ring
    [['gpu0', 'gpu1', 'gpu2'], ['gpu0', 'gpu3', 'gpu2']]
    """
    nodes, sp, ib = _routes(g, a, b, weight, transit)
    for i in range(sp.count(ib)):
        yield [nodes[k] for k in sp.nth(ib, i)[0]]


# A path's bandwidth and latency, the widest path and the diameter live in path_metrics; they
# are re-exported here, where the routing rule they follow is defined.
from .path_metrics import diameter, path_bandwidth, path_latency, widest_path  # noqa: E402
