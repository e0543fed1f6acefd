"""Routing for the flow simulator: directed resources, one path per flow, ECMP hashing.

:class:`_Net` turns a contract graph (undirected ``networkx.Graph``, edge ``bandwidth``
in bytes/s per direction, ``latency`` in s one way) into directed resources, two per
edge (full duplex). :func:`_route` gives every flow one path under the library's one
routing rule, :class:`interconnect.topology.paths.ShortestPaths` (least total latency in
integer femtoseconds, then fewest hops): ``"shortest"`` takes the rule's first equal-cost
path, ``"ecmp"`` picks among all equal-cost paths with a seeded SplitMix64 hash of
(src, dst, flow index, seed) (RFC 2992).

References
----------
C. Hopps, "Analysis of an Equal-Cost Multi-Path Algorithm", RFC 2992, 2000.
G. Steele, D. Lea and C. Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014 (SplitMix64).
"""

from __future__ import annotations

import zlib

import networkx as nx
import numpy as np

from .._validate import choice, is_number
from ..topology.paths import ShortestPaths, _shortest_paths_many, routing_weight


class _Net:
    """Directed resources and adjacency of a contract graph (internal)."""

    def __init__(self, g):
        if not isinstance(g, nx.Graph) or g.is_directed() or g.is_multigraph():
            raise ValueError(f"g={g!r} is not allowed; g must be an undirected networkx.Graph (see the graph contract)")
        self.g = g
        self.name = str(g.graph.get("name", ""))
        self.nodes = list(g.nodes)
        self.index = {n: i for i, n in enumerate(self.nodes)}
        n_edges = g.number_of_edges()
        self.cap = np.empty(2 * n_edges)
        self.lat = np.empty(2 * n_edges)
        self.res_u = np.empty(2 * n_edges, dtype=np.int64)
        self.res_v = np.empty(2 * n_edges, dtype=np.int64)
        self.adj = [[] for _ in self.nodes]
        self.edge_res = {}
        self.lat_fs = [0] * (2 * n_edges)
        for e, (u, v, d) in enumerate(g.edges(data=True)):
            bw = d.get("bandwidth")
            if not is_number(bw) or not np.isfinite(bw) or bw <= 0:
                raise ValueError(f"g: edge ({u!r}, {v!r}) has bandwidth={bw!r}; every edge needs bandwidth > 0 bytes/s")
            lat = d.get("latency", 0.0)
            if not is_number(lat) or not np.isfinite(lat) or lat < 0:
                raise ValueError(f"g: edge ({u!r}, {v!r}) has latency={lat!r}; latency must be >= 0 seconds")
            iu, iv = self.index[u], self.index[v]
            lat_fs = routing_weight(lat)
            for r, (a, b) in ((2 * e, (iu, iv)), (2 * e + 1, (iv, iu))):
                self.cap[r] = float(bw)
                self.lat[r] = float(lat)
                self.res_u[r], self.res_v[r] = a, b
                self.lat_fs[r] = lat_fs
                self.adj[a].append((b, lat_fs, r))
                self.edge_res[(a, b)] = r

    def trees(self, sources, us, ud):
        """``{source: ShortestPaths}`` for the pairs ``us[j] -> ud[j]``: scipy's compiled
        Dijkstra where the costs are exact in float64, else the Python one per source."""
        per_source = np.bincount(us, minlength=len(self.nodes))
        out = _shortest_paths_many(len(self.nodes), self.res_u, self.res_v, self.lat_fs,
                                   np.arange(self.res_u.size), sources, np.flatnonzero(per_source <= 8).tolist())
        if out is None:
            out = {}
            for s in sources:
                out[s] = ShortestPaths(self.adj, s, ud[us == s].tolist())
        return out

    def node_index(self, name, node):
        try:
            return self.index[node]
        except (KeyError, TypeError):
            raise ValueError(f"{name}={node!r} is not a node of the graph {self.name!r}") from None


_M64 = np.uint64(0xFFFFFFFFFFFFFFFF)


def _splitmix64(x):
    """SplitMix64 finaliser on a uint64 array (Steele, Lea and Flood 2014)."""
    with np.errstate(over="ignore"):
        x = (x + np.uint64(0x9E3779B97F4A7C15)) & _M64
        x = ((x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)) & _M64
        x = ((x ^ (x >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)) & _M64
        return x ^ (x >> np.uint64(31))


def _node_hash(node):
    return zlib.crc32(repr(node).encode("utf-8"))


def _route(net, src, dst, routing, seed, explicit=None):
    """Paths for flows ``src[i] -> dst[i]`` (node indices).

    Returns ``(table, path_id)``: ``table`` is a list of ``(nodes, resources)`` tuples,
    ``path_id[i]`` the row of flow ``i``.
    """
    n_flows = len(src)
    path_id = np.full(n_flows, -1, dtype=np.int64)
    table, table_key = [], {}
    todo = np.arange(n_flows)
    if explicit is not None:
        has = np.array([p is not None for p in explicit], dtype=bool)
        for i in np.flatnonzero(has):
            nodes, res = explicit[i]
            key = ("x", tuple(nodes))
            if key not in table_key:
                table_key[key] = len(table)
                table.append((tuple(nodes), tuple(res)))
            path_id[i] = table_key[key]
        todo = np.flatnonzero(~has)
    if todo.size == 0:
        return table, path_id
    n_nodes = len(net.nodes)
    pair = src[todo].astype(np.int64) * n_nodes + dst[todo]
    if n_nodes * n_nodes <= 2**24 and pair.size * 4 >= n_nodes * n_nodes:
        # np.unique by marking: the same sorted pairs and inverse, without a sort
        seen = np.zeros(n_nodes * n_nodes, dtype=bool)
        seen[pair] = True
        upair = np.flatnonzero(seen)
        inv = (np.cumsum(seen) - 1)[pair]
    else:
        upair, inv = np.unique(pair, return_inverse=True)
    us, ud = upair // n_nodes, upair % n_nodes
    trees = net.trees(np.unique(us).tolist(), us, ud)
    for s, t in zip(us.tolist(), ud.tolist()):
        if not trees[s].reaches(t):
            raise ValueError(f"flows: no path from {net.nodes[s]!r} to {net.nodes[t]!r} in the graph")
    if routing == "ecmp":
        counts = np.empty(len(upair), dtype=object)
        for j, (s, t) in enumerate(zip(us.tolist(), ud.tolist())):
            counts[j] = trees[s].count(t)
        flow_ids = todo.astype(np.uint64)
        hs = np.array([_node_hash(n) for n in net.nodes], dtype=np.uint64)
        with np.errstate(over="ignore"):
            key = _splitmix64(hs[src[todo]] ^ (hs[dst[todo]] << np.uint64(32)))
            key = _splitmix64(key ^ flow_ids)
            key = _splitmix64(key ^ np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF))
        big = np.array([x >= 2**62 for x in counts], dtype=bool)
        cnt = np.where(big, 1, counts).astype(np.int64)
        ch = (key % cnt[inv].astype(np.uint64)).astype(np.int64)
        if big.any():  # astronomically many equal paths (a large torus): use the raw 62-bit hash
            ch = np.where(big[inv], (key >> np.uint64(2)).astype(np.int64), ch)
    else:
        ch = np.zeros(len(todo), dtype=np.int64)
    if not ch.any():  # one path per (src, dst) pair
        combos, cinv = [(j, 0) for j in range(len(upair))], inv
    else:
        width = int(ch.max()) + 1
        if width < 2**62 // max(len(upair), 1):
            ukey, cinv = np.unique(inv * width + ch, return_inverse=True)
            combos = list(zip((ukey // width).tolist(), (ukey % width).tolist()))
        else:
            pairs = list(zip(inv.tolist(), ch.tolist()))
            uniq = {k: None for k in pairs}
            pos = {k: n for n, k in enumerate(uniq)}
            combos, cinv = list(uniq), np.array([pos[k] for k in pairs], dtype=np.int64)
    rows = np.empty(len(combos), dtype=np.int64)
    for c, (j, i) in enumerate(combos):
        s, t = int(us[j]), int(ud[j])
        nodes, res = trees[s].nth(t, i)
        rows[c] = len(table)
        table.append((tuple(nodes), tuple(res)))
    path_id[todo] = rows[cinv.ravel()]
    return table, path_id


def _ranges(starts, counts):
    """Concatenation of ``arange(s, s + c)`` for each pair, vectorised."""
    counts = np.asarray(counts, dtype=np.int64)
    total = int(counts.sum())
    if total == 0:
        return np.empty(0, dtype=np.int64)
    ends = np.cumsum(counts)
    offs = np.repeat(np.asarray(starts, dtype=np.int64) - (ends - counts), counts)
    return offs + np.arange(total, dtype=np.int64)


def _check_routing(routing, seed):
    routing = choice("routing", routing, ("shortest", "ecmp"))
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"seed={seed!r} is not allowed; seed must be an integer")
    return routing, int(seed)


def _check_paths(net, paths, src, dst):
    if paths is None:
        return None
    paths = list(paths)
    if len(paths) != len(src):
        raise ValueError(f"paths has {len(paths)} entries for {len(src)} flows; give one path (or None) per flow")
    out = []
    for i, p in enumerate(paths):
        if p is None:
            out.append(None)
            continue
        nodes = [net.node_index(f"paths[{i}]", n) for n in p]
        if not nodes or nodes[0] != src[i] or nodes[-1] != dst[i]:
            raise ValueError(f"paths[{i}]={p!r} must start at the flow's src {net.nodes[src[i]]!r} "
                             f"and end at its dst {net.nodes[dst[i]]!r}")
        if len(set(nodes)) != len(nodes):
            raise ValueError(f"paths[{i}]={p!r} visits a node twice; give a simple path")
        res = []
        for a, b in zip(nodes, nodes[1:]):
            r = net.edge_res.get((a, b))
            if r is None:
                raise ValueError(f"paths[{i}]: ({net.nodes[a]!r}, {net.nodes[b]!r}) is not an edge of the graph")
            res.append(r)
        out.append((nodes, res))
    return out

