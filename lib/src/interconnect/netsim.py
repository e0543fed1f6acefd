"""A flow-level network simulator: point-to-point flows and collective schedules on a topology.

The alpha-beta model of :mod:`interconnect.collectives` assumes every rank has its own
uncontended link. Real machines share links: two GPUs behind one PCIe switch, many hosts
behind one oversubscribed leaf. This module moves bytes as *fluid flows* over a
:mod:`networkx` topology (see the graph contract: undirected ``networkx.Graph``, edge
``bandwidth`` in bytes/s per direction, edge ``latency`` in s one way) and lets the
flows that cross the same link share it fairly.

The model
---------
* **Resources.** Each undirected edge ``{u, v}`` is two directed resources ``(u, v)``
  and ``(v, u)``, each with capacity equal to the edge's ``bandwidth`` (full duplex).
* **Routing.** A flow follows one path, fixed when the simulation starts, under the
  library's one routing rule (:mod:`interconnect.topology.paths`): least total edge
  latency (compared in integer femtoseconds, so sums that differ only by floating-point
  rounding tie), then the fewest hops. ``routing="shortest"`` takes the rule's first
  equal-cost path, the one :func:`interconnect.topology.path` returns;
  ``routing="ecmp"`` picks uniformly among *all* equal-cost shortest paths
  (:func:`interconnect.topology.all_shortest_paths`) with a seeded hash of
  (src, dst, flow index, seed), so a run is repeatable for a given ``seed`` (RFC 2992).
  ``paths=`` overrides routing.
* **Sharing.** At every instant the active flows share the directed resources by
  *max-min fairness* (Bertsekas and Gallager 1992, sec. 6.5.2), computed by
  progressive filling: find the resource with the smallest fair share (remaining
  capacity / number of unfrozen flows through it), give each unfrozen flow through it
  that share, freeze those flows, subtract, repeat. A flow's rate therefore never
  exceeds the narrowest link on its path. This is the sharing rule of SimGrid's
  flow-level models (CM02: Casanova and Marchal 2002; validated and refined in Velho,
  Schnorr, Casanova and Legrand 2013), here without the RTT-dependent bandwidth cap.
* **Events.** Time advances from event to event (a flow starts, a flow's last byte
  leaves); rates are recomputed at each event, and are constant in between.
* **Latency rule.** A flow's bytes move as fluid from its start; the flow *arrives*
  at ``finish + sum of the edge latencies on its path``, where ``finish`` is when the
  fluid transfer ends. A flow that depends on others starts at
  ``max(start, arrival of each dependency)``. On a path of equal links of latency
  ``alpha`` and bandwidth ``B`` an ``m``-byte flow alone therefore takes
  ``alpha + m / B``: one step of the alpha-beta model, which is why
  :func:`simulate_collective` reproduces :func:`interconnect.collectives.collective_time`
  on uncontended topologies. (On a crossbar a GPU-to-GPU path has two edges, so each
  edge should carry ``alpha / 2`` to reproduce one ``alpha`` per message.)

Collective schedules
--------------------
What a collective algorithm *does* lives in :mod:`interconnect.collectives.schedules`:
:func:`~interconnect.collectives.schedules.schedule` turns a collective into transfers
between ranks, and the same :class:`~interconnect.collectives.schedules.Schedule` drives
both :func:`simulate_collective` (timing on a graph) and
:func:`~interconnect.collectives.schedules.run_collective` (the arithmetic on numpy
arrays), so the schedule the book times is the schedule shown to be correct. Which
algorithms can be simulated, under which names, is read from the one registry,
:data:`interconnect.collectives.REGISTRY`. ``schedule``, ``run_collective``,
``Schedule``, ``APPLICABLE`` and ``DESCRIPTION`` stay importable from here. ``nbytes``
follows nccl-tests, as in :mod:`interconnect.collectives`.

References
----------
D. Bertsekas and R. Gallager, *Data Networks*, 2nd ed., Prentice Hall, 1992, sec. 6.5.2
(max-min fairness and the progressive-filling algorithm).
H. Casanova and L. Marchal, "A network model for simulation of grid application",
LIP research report RR-2002-40, ENS Lyon, 2002 (the CM02 model of SimGrid).
P. Velho, L. Mello Schnorr, H. Casanova and A. Legrand, "On the validity of flow-level
TCP network models for grid and cloud simulations", ACM TOMACS 23(4), 2013.
C. Hopps, "Analysis of an Equal-Cost Multi-Path Algorithm", RFC 2992, 2000.
R. Thakur, R. Rabenseifner and W. Gropp, "Optimization of Collective Communication
Operations in MPICH", IJHPCA 19(1):49-66, 2005.
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009.
J. Pješivac-Grbović et al., "Performance analysis of MPI collective operations",
Cluster Computing 10(2):127-143, 2007 (pipelined chain broadcast).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field
from functools import cached_property

import networkx as nx
import numpy as np

from ._validate import as_count, as_nonnegative, choice, is_number
from .collectives.algorithms import REGISTRY, SIMULATED_OPS, schedule_algorithm, simulated
from .collectives.schedules import Schedule, _generic_deps, run_collective, schedule  # noqa: F401 (re-exported)
from .topology.paths import ShortestPaths, routing_weight

__all__ = [
    "Flow", "SimResult", "Schedule", "CollectiveResult", "APPLICABLE", "DESCRIPTION",
    "simulate", "simulate_collective", "simulate_rings", "schedule", "run_collective", "max_min_rates",
    "plot_timeline", "plot_link_load",
]

#: Algorithms simulated for each operation (derived from
#: :data:`interconnect.collectives.REGISTRY`). Deprecated spellings, accepted silently for
#: one release: alltoall ``"direct"`` (now ``"all_at_once"``), broadcast ``"ring"`` (now ``"chain"``).
APPLICABLE = {op: simulated(op) for op in SIMULATED_OPS}

#: What each schedule does and where its cost comes from, from the registry.
DESCRIPTION = {(op, a): REGISTRY[op, a].text for op, algs in APPLICABLE.items() for a in algs}



# --------------------------------------------------------------------------- flows


@dataclass(frozen=True)
class Flow:
    """One point-to-point transfer.

    Parameters
    ----------
    src, dst : hashable
        Nodes of the graph.
    nbytes : float
        Bytes to move, >= 0.
    start : float
        Earliest start time, seconds, >= 0.
    deps : tuple of int
        Indices (in the flow list) of flows that must have *arrived* before this one
        starts: it starts at ``max(start, arrival of each dep)``.
    tag : hashable, optional
        A label (e.g. a phase name) used to colour plots.
    """

    src: object
    dst: object
    nbytes: float
    start: float = 0.0
    deps: tuple = ()
    tag: object = None

    def __post_init__(self):
        if not is_number(self.nbytes) or not np.isfinite(self.nbytes) or self.nbytes < 0:
            raise ValueError(f"nbytes={self.nbytes!r} is not allowed; nbytes must be a finite number >= 0 bytes")
        if not is_number(self.start) or not np.isfinite(self.start) or self.start < 0:
            raise ValueError(f"start={self.start!r} is not allowed; start must be a finite number >= 0 seconds")
        deps = self.deps
        if isinstance(deps, (int, np.integer)) and not isinstance(deps, bool):
            deps = (deps,)
        try:
            deps = tuple(deps)
        except TypeError:
            raise ValueError(f"deps={self.deps!r} is not allowed; deps must be a sequence of flow indices") from None
        for d in deps:
            if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
                raise ValueError(f"deps={self.deps!r} contains {d!r}; deps must be integer flow indices")
        object.__setattr__(self, "nbytes", float(self.nbytes))
        object.__setattr__(self, "start", float(self.start))
        object.__setattr__(self, "deps", tuple(sorted({int(d) for d in deps})))


# --------------------------------------------------------------------------- graph


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
                self.adj[a].append((b, lat_fs, r))
                self.edge_res[(a, b)] = r

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
    upair, inv = np.unique(pair, return_inverse=True)
    us, ud = upair // n_nodes, upair % n_nodes
    counts = np.empty(len(upair), dtype=object)
    trees = {}
    for s in np.unique(us):
        sel = np.flatnonzero(us == s)
        tree = ShortestPaths(net.adj, int(s), [int(t) for t in ud[sel]])
        for j in sel:
            t = int(ud[j])
            if not tree.reaches(t):
                raise ValueError(f"flows: no path from {net.nodes[int(s)]!r} to {net.nodes[t]!r} in the graph")
            counts[j] = tree.count(t)
        trees[int(s)] = tree
    if routing == "ecmp":
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


# --------------------------------------------------------------------------- max-min


def _maxmin(rows, cols, cap, n_flows):
    """Progressive filling on incidence entries ``(rows[k], cols[k])``.

    ``cols`` index ``cap``. Flows with no entry get ``inf``.
    """
    rate = np.full(n_flows, np.inf)
    if rows.size == 0:
        return rate
    cap = np.asarray(cap, dtype=float)
    present = np.zeros(cap.size, dtype=bool)
    present[cols] = True
    used = np.flatnonzero(present)  # only the resources some flow crosses
    remap = np.empty(cap.size, dtype=np.int64)
    remap[used] = np.arange(used.size)
    lc = remap[cols]
    rem = cap[used].copy()
    n_res = used.size
    lr = rows
    frozen = np.zeros(n_flows, dtype=bool)
    while lr.size:
        n = np.bincount(lc, minlength=n_res)  # unfrozen flows per resource
        with np.errstate(divide="ignore", invalid="ignore"):
            share = np.where(n > 0, rem / np.maximum(n, 1), np.inf)
        m = share.min()
        bott = share <= m * (1.0 + 1e-9)  # the most constrained resources (ties together)
        newly = np.zeros(n_flows, dtype=bool)
        newly[lr[bott[lc]]] = True
        newly &= ~frozen
        rate[newly] = m
        frozen |= newly
        hit = newly[lr]
        rem -= m * np.bincount(lc[hit], minlength=n_res)
        np.maximum(rem, 0.0, out=rem)
        keep = ~hit
        lr, lc = lr[keep], lc[keep]
    return rate


def max_min_rates(incidence, capacity):
    """Max-min fair rates of flows sharing resources, by progressive filling.

    Parameters
    ----------
    incidence : array_like or scipy.sparse matrix, shape (flows, resources)
        Nonzero where a flow crosses a resource (each flow crosses a resource at most once).
    capacity : array_like, shape (resources,)
        Capacity of each resource, bytes/s, > 0.

    Returns
    -------
    ndarray, shape (flows,)
        Rates in bytes/s; ``inf`` for a flow that crosses no resource.

    Notes
    -----
    Vectorised water-filling: each round computes, with ``numpy.bincount`` over the
    nonzeros, the number of unfrozen flows on every resource and its fair share
    ``remaining / count``; every unfrozen flow through a resource whose share is the
    minimum (to a relative 1e-9) is frozen at that share, and its rate is subtracted
    from every resource it crosses. Each round costs O(nonzeros); the number of rounds
    is the number of distinct bottleneck levels.

    References
    ----------
    Bertsekas and Gallager, *Data Networks*, 2nd ed., 1992, sec. 6.5.2.

    Examples
    --------
    Three links of capacity 1 in a line, one flow across all three and one on each link:
    every flow gets 1/2.

    >>> A = [[1, 1, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1]]
    >>> max_min_rates(A, [1.0, 1.0, 1.0]).tolist()
    [0.5, 0.5, 0.5, 0.5]
    """
    import scipy.sparse as sp

    cap = np.asarray(capacity, dtype=float)
    if cap.ndim != 1 or not np.all(np.isfinite(cap)) or np.any(cap <= 0):
        raise ValueError(f"capacity={capacity!r} is not allowed; capacity must be a 1-D array of finite values > 0 bytes/s")
    a = sp.coo_matrix(incidence) if not sp.issparse(incidence) else incidence.tocoo()
    if a.shape[1] != cap.size:
        raise ValueError(f"incidence has {a.shape[1]} columns but capacity has {cap.size} entries; they must match")
    nz = a.data != 0
    return _maxmin(a.row[nz].astype(np.int64), a.col[nz].astype(np.int64), cap, a.shape[0])


# --------------------------------------------------------------------------- results


_SEG = np.dtype([("t0", "f8"), ("t1", "f8"), ("flow", "i8"), ("rate", "f8")])


@dataclass(frozen=True, eq=False, repr=False)
class SimResult:
    """What :func:`simulate` computed. All times in seconds, bytes in bytes.

    Attributes
    ----------
    start, finish, arrival : ndarray, shape (flows,)
        When each flow started, when its fluid transfer ended, and when it arrived
        (``finish`` + path latency).
    makespan : float
        Latest arrival (0 for no flows).
    nbytes : ndarray
        Bytes of each flow.
    link_bytes : dict
        ``(u, v) -> bytes`` carried in direction u to v, for every directed link.
    link_utilisation : dict
        ``(u, v) -> bytes / (bandwidth * makespan)``, in [0, 1].
    bottleneck : tuple or None
        The directed link with the highest utilisation.
    segments : ndarray
        The trace as a structured array with fields ``t0, t1, flow, rate``.
    paths : list of tuple (property)
        Each flow's path as a tuple of nodes.
    trace : list of tuple (property)
        ``(t0, t1, flow index, rate in bytes/s)`` segments; a flow's rate is constant
        within a segment and the segments of a flow integrate to its ``nbytes``.
    src, dst, tags : list (properties)
        Per flow.
    """

    start: np.ndarray
    finish: np.ndarray
    arrival: np.ndarray
    makespan: float
    nbytes: np.ndarray
    link_bytes: dict
    link_utilisation: dict
    bottleneck: object
    segments: np.ndarray
    name: str = ""
    nodes: tuple = field(default=(), repr=False)
    src_index: np.ndarray = field(default=None, repr=False)
    dst_index: np.ndarray = field(default=None, repr=False)
    path_table: tuple = field(default=(), repr=False)
    path_id: np.ndarray = field(default=None, repr=False)
    tag_table: tuple = field(default=(None,), repr=False)
    tag_id: np.ndarray = field(default=None, repr=False)

    @cached_property
    def paths(self):
        table = [tuple(self.nodes[i] for i in nodes) for nodes, _ in self.path_table]
        return [table[i] for i in self.path_id]

    @cached_property
    def trace(self):
        s = self.segments
        return list(zip(s["t0"].tolist(), s["t1"].tolist(), s["flow"].tolist(), s["rate"].tolist()))

    @property
    def src(self):
        return [self.nodes[i] for i in self.src_index]

    @property
    def dst(self):
        return [self.nodes[i] for i in self.dst_index]

    @property
    def tags(self):
        return [self.tag_table[i] for i in self.tag_id]

    @property
    def n_flows(self):
        return int(self.start.size)

    def __repr__(self):
        return (f"SimResult(flows={self.n_flows}, makespan={self.makespan:.6g} s, "
                f"bottleneck={self.bottleneck!r}, name={self.name!r})")


def _simulate_arrays(net, src, dst, nbytes, start, dep_ptr, dep_idx, routing="shortest", seed=0,
                     explicit=None, tag_table=(None,), tag_id=None):
    """The event loop on flat arrays (internal; inputs already validated)."""
    n_flows = int(src.size)
    table, path_id = _route(net, src, dst, routing, seed, explicit)
    plen = np.array([len(r) for _, r in table], dtype=np.int64)
    pres = np.array([x for _, r in table for x in r], dtype=np.int64)
    pptr = np.concatenate(([0], np.cumsum(plen)))
    plat = np.array([float(net.lat[list(r)].sum()) if r else 0.0 for _, r in table])
    hops = plen[path_id] if n_flows else np.empty(0, dtype=np.int64)
    lat_f = plat[path_id] if n_flows else np.empty(0)
    res_ptr = np.concatenate(([0], np.cumsum(hops)))
    res_idx = pres[_ranges(pptr[path_id], hops)] if n_flows else np.empty(0, dtype=np.int64)

    # dependents (inverse of deps)
    n_deps = np.diff(dep_ptr)
    owner = np.repeat(np.arange(n_flows, dtype=np.int64), n_deps)
    order = np.argsort(dep_idx, kind="stable")
    dependents = owner[order]
    dptr = np.concatenate(([0], np.cumsum(np.bincount(dep_idx, minlength=n_flows)))).astype(np.int64)

    t_start = np.full(n_flows, np.nan)
    t_finish = np.full(n_flows, np.nan)
    t_arrive = np.full(n_flows, np.nan)
    ready = start.astype(float).copy()
    left = n_deps.astype(np.int64).copy()

    free = np.flatnonzero(left == 0)
    free = free[np.argsort(start[free], kind="stable")]
    free_t = start[free]
    fptr = 0
    dyn_i = np.empty(0, dtype=np.int64)
    dyn_t = np.empty(0)

    act = np.empty(0, dtype=np.int64)
    rem = np.empty(0)
    rate = np.empty(0)
    seg0 = np.empty(0)
    segs = []

    def tol(t):
        return 1e-12 * abs(t) + 1e-30

    def complete(done, t_arr):
        nonlocal dyn_i, dyn_t
        cnt = dptr[done + 1] - dptr[done]
        if cnt.sum() == 0:
            return
        fs = dependents[_ranges(dptr[done], cnt)]
        np.maximum.at(ready, fs, np.repeat(t_arr, cnt))
        np.subtract.at(left, fs, 1)
        nw = fs[left[fs] == 0]
        if nw.size > 1:
            nw = np.unique(nw)
        if nw.size:
            dyn_i = np.concatenate((dyn_i, nw))
            dyn_t = np.concatenate((dyn_t, ready[nw]))

    def next_start():
        a = free_t[fptr] if fptr < free.size else np.inf
        b = dyn_t.min() if dyn_t.size else np.inf
        return min(a, b)

    t = 0.0
    while True:
        # start every flow due now; zero-byte or zero-hop flows finish at once
        while True:
            lim = t + tol(t)
            j = int(np.searchsorted(free_t, lim, side="right"))
            new = free[fptr:j] if j > fptr else np.empty(0, dtype=np.int64)
            fptr = max(fptr, j)
            if dyn_t.size:
                due = dyn_t <= lim
                if due.any():
                    new = np.concatenate((new, dyn_i[due]))
                    dyn_i, dyn_t = dyn_i[~due], dyn_t[~due]
            if new.size == 0:
                break
            t_start[new] = t
            inst = (nbytes[new] == 0) | (hops[new] == 0)
            if inst.any():
                ins = new[inst]
                t_finish[ins] = t
                t_arrive[ins] = t + lat_f[ins]
                complete(ins, t_arrive[ins])
                new = new[~inst]
            if new.size:
                act = np.concatenate((act, new))
                rem = np.concatenate((rem, nbytes[new]))
                rate = np.concatenate((rate, np.full(new.size, np.nan)))
                seg0 = np.concatenate((seg0, np.full(new.size, t)))
        if act.size == 0:
            t_next = next_start()
            if not np.isfinite(t_next):
                break
            t = float(t_next)
            continue
        # the active set changed at every event: recompute the max-min rates
        cnt = hops[act]
        rows = np.repeat(np.arange(act.size, dtype=np.int64), cnt)
        cols = res_idx[_ranges(res_ptr[act], cnt)]
        new_rate = _maxmin(rows, cols, net.cap, act.size)
        moved = np.isfinite(rate) & (np.abs(new_rate - rate) > 1e-12 * np.abs(rate))
        if moved.any():  # close the segment of each flow whose rate changed
            segs.append((seg0[moved].copy(), np.full(int(moved.sum()), t), act[moved], rate[moved]))
            seg0[moved] = t
        rate = new_rate
        tf = t + rem / rate
        t_fin = tf.min()
        t_next = min(t_fin, next_start())
        dt = t_next - t
        fin = tf <= t_next + tol(t_next)
        rem = rem - rate * dt
        if fin.any():
            done = act[fin]
            t_finish[done] = t_next
            t_arrive[done] = t_next + lat_f[done]
            segs.append((seg0[fin], np.full(done.size, t_next), done, rate[fin]))
            keep = ~fin
            act, rem, rate, seg0 = act[keep], rem[keep], rate[keep], seg0[keep]
            complete(done, t_arrive[done])
        t = float(t_next)

    if np.isnan(t_finish).any():
        stuck = np.flatnonzero(np.isnan(t_finish))
        raise ValueError(f"flows: deps form a cycle; flows {stuck[:10].tolist()}"
                         f"{' ...' if stuck.size > 10 else ''} can never start")

    seg = np.empty(sum(len(s[0]) for s in segs), dtype=_SEG)
    if segs:
        for name, k in (("t0", 0), ("t1", 1), ("flow", 2), ("rate", 3)):
            seg[name] = np.concatenate([s[k] for s in segs])
        seg = seg[np.argsort(seg["flow"], kind="stable")]  # each flow's segments were closed in time order
    makespan = float(t_arrive.max()) if n_flows else 0.0
    per_res = np.bincount(res_idx, weights=np.repeat(nbytes, hops), minlength=net.cap.size) \
        if res_idx.size else np.zeros(net.cap.size)
    util = per_res / (net.cap * makespan) if makespan > 0 else np.zeros(net.cap.size)
    keys = [(net.nodes[a], net.nodes[b]) for a, b in zip(net.res_u, net.res_v)]
    link_bytes = dict(zip(keys, per_res.tolist()))
    link_util = dict(zip(keys, util.tolist()))
    bottleneck = keys[int(np.argmax(util))] if (keys and makespan > 0 and per_res.max() > 0) else None
    return SimResult(
        start=t_start, finish=t_finish, arrival=t_arrive, makespan=makespan, nbytes=nbytes.astype(float),
        link_bytes=link_bytes, link_utilisation=link_util, bottleneck=bottleneck, segments=seg,
        name=net.name, nodes=tuple(net.nodes), src_index=src, dst_index=dst, path_table=tuple(table),
        path_id=path_id, tag_table=tuple(tag_table),
        tag_id=np.zeros(n_flows, dtype=np.int64) if tag_id is None else tag_id,
    )


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


def simulate(g, flows, routing="shortest", seed=0, paths=None):
    """Simulate point-to-point flows on a topology with max-min fair sharing.

    Parameters
    ----------
    g : networkx.Graph
        A topology following the graph contract (edge ``bandwidth`` bytes/s per
        direction, ``latency`` s one way; a missing latency counts as 0).
    flows : sequence of Flow (or of ``(src, dst, nbytes[, start[, deps[, tag]]])`` tuples)
        The flows; ``deps`` refer to positions in this sequence.
    routing : {"shortest", "ecmp"}
        Least latency then fewest hops (first such path), or a seeded hash choice
        among all equal-cost shortest paths.
    seed : int
        Seed of the ECMP hash; the same seed gives the same paths.
    paths : sequence of (list of nodes or None), optional
        An explicit path per flow (from src to dst along edges), overriding routing.

    Returns
    -------
    SimResult

    Raises
    ------
    ValueError
        For a node not in ``g``, negative bytes or start, deps out of range or forming
        a cycle, a bad path, an unknown routing.

    Examples
    --------
    Two 1 MB flows over one 1 GB/s link take 2 ms each; one alone takes 1 ms.

    >>> g = nx.Graph(); g.add_edge("a", "b", bandwidth=1e9, latency=0.0)
    >>> simulate(g, [Flow("a", "b", 1e6), Flow("a", "b", 1e6)]).finish.tolist()
    [0.002, 0.002]
    """
    net = _Net(g)
    routing, seed = _check_routing(routing, seed)
    fl = []
    for i, f in enumerate(flows):
        if isinstance(f, Flow):
            fl.append(f)
        elif isinstance(f, (tuple, list)):
            fl.append(Flow(*f))
        else:
            raise ValueError(f"flows[{i}]={f!r} is not a Flow; give Flow(src, dst, nbytes, ...) objects")
    n = len(fl)
    src = np.array([net.node_index(f"flows[{i}].src", f.src) for i, f in enumerate(fl)], dtype=np.int64)
    dst = np.array([net.node_index(f"flows[{i}].dst", f.dst) for i, f in enumerate(fl)], dtype=np.int64)
    nbytes = np.array([f.nbytes for f in fl], dtype=float)
    start = np.array([f.start for f in fl], dtype=float)
    for i, f in enumerate(fl):
        for d in f.deps:
            if not 0 <= d < n or d == i:
                raise ValueError(f"flows[{i}].deps={f.deps!r} contains {d}; deps must index other flows, 0..{n - 1}")
    dep_ptr = np.concatenate(([0], np.cumsum([len(f.deps) for f in fl]))).astype(np.int64)
    dep_idx = np.array([d for f in fl for d in f.deps], dtype=np.int64)
    tag_table, tag_id = {}, np.empty(n, dtype=np.int64)
    for i, f in enumerate(fl):
        tag_id[i] = tag_table.setdefault(f.tag, len(tag_table))
    explicit = _check_paths(net, paths, src, dst)
    return _simulate_arrays(net, src, dst, nbytes, start, dep_ptr, dep_idx, routing, seed, explicit,
                            tuple(tag_table) or (None,), tag_id)


# --------------------------------------------------------------------------- collectives


@dataclass(frozen=True, eq=False, repr=False)
class CollectiveResult:
    """:func:`simulate_collective`'s answer: the time, the schedule and the simulation.

    Attributes of the :class:`SimResult` (``finish``, ``link_bytes``, ``trace``, ...)
    are reachable directly on this object.

    Attributes
    ----------
    time : float
        Seconds until the last transfer arrived (the simulation's makespan).
    op, algorithm : str
    nbytes : float
        The collective's size (nccl-tests convention).
    ranks : tuple
        The graph nodes playing ranks 0..p-1.
    schedule : Schedule
    sim : SimResult
    """

    time: float
    op: str
    algorithm: str
    nbytes: float
    ranks: tuple
    chunks: int
    schedule: Schedule
    sim: SimResult

    @property
    def p(self):
        return len(self.ranks)

    @property
    def algbw(self):
        """nccl-tests algorithm bandwidth ``nbytes / time``, bytes/s."""
        return self.nbytes / self.time if self.time > 0 else float("inf")

    @property
    def busbw(self):
        """nccl-tests bus bandwidth ``algbw * factor(op, p)``, bytes/s."""
        from .collectives import bus_factor

        return self.algbw * bus_factor(self.op, self.p)

    def __getattr__(self, name):
        if name in ("sim", "__getstate__", "__setstate__") or name.startswith("__"):
            raise AttributeError(name)
        return getattr(self.sim, name)

    def __repr__(self):
        return (f"CollectiveResult(op={self.op!r}, algorithm={self.algorithm!r}, p={self.p}, "
                f"nbytes={self.nbytes:g}, chunks={self.chunks}, time={self.time:.6g} s)")


def _default_ranks(g):
    gpus = [(d.get("node", 0), d.get("index", i), i, n)
            for i, (n, d) in enumerate(g.nodes(data=True)) if d.get("kind") == "gpu"]
    if gpus:
        return [x[-1] for x in sorted(gpus, key=lambda x: x[:3])]
    hosts = [(d.get("node", 0), d.get("index", i), i, n)
             for i, (n, d) in enumerate(g.nodes(data=True)) if d.get("kind") == "host"]
    if hosts:
        return [x[-1] for x in sorted(hosts, key=lambda x: x[:3])]
    raise ValueError("ranks=None but the graph has no node of kind 'gpu' or 'host'; give ranks explicitly")


def simulate_collective(g, op, nbytes, ranks=None, algorithm="ring", chunks=1, routing="shortest", seed=0,
                        root=0):
    """Simulate one collective on a topology.

    Parameters
    ----------
    g : networkx.Graph
        Topology (graph contract).
    op : str
        ``allreduce``, ``allgather``, ``reducescatter``, ``broadcast``, ``reduce`` or
        ``alltoall``.
    nbytes : float
        Size of the full vector in bytes, >= 0 (nccl-tests: the allgather output, the
        reducescatter input, what one rank sends in an alltoall).
    ranks : sequence of nodes, optional
        The nodes playing ranks 0..p-1. Default: the GPUs (kind ``"gpu"``, sorted by
        ``(node, index)``), else the nodes of kind ``"host"``.
    algorithm : str
        One of ``APPLICABLE[op]`` (the registry's algorithms with a schedule); see
        :data:`DESCRIPTION`. For alltoall ``"all_at_once"`` starts all p(p-1) messages
        at once and ``"pairwise"`` takes p-1 steps (the same name and algorithm as in
        :func:`interconnect.collectives.collective_time`); for broadcast ``"chain"`` is
        the pipelined chain. Deprecated spellings, accepted for one release: alltoall
        ``"direct"`` means ``"all_at_once"``, broadcast ``"ring"`` means ``"chain"``.
    chunks : int
        Pieces each message is cut into, sent one after another (pipelining).
    routing, seed
        As for :func:`simulate`.
    root : int
        Root rank for broadcast and reduce.

    Returns
    -------
    CollectiveResult
        ``time`` (seconds), ``schedule``, ``sim`` (the :class:`SimResult`), and the
        SimResult's attributes.

    Examples
    --------
    A 1 MB ring allreduce on a 4-GPU ring of 100 GB/s, 1 µs links takes
    2(p-1)(alpha + n/(pB)) = 6 x (1 µs + 2.5 µs) = 21 µs:

    >>> g = nx.cycle_graph(4); nx.set_edge_attributes(g, 1e11, "bandwidth"); nx.set_edge_attributes(g, 1e-6, "latency")
    >>> round(simulate_collective(g, "allreduce", 1e6, ranks=[0, 1, 2, 3]).time * 1e6, 6)
    21.0
    """
    row = schedule_algorithm(op, algorithm)  # the registry row: op and algorithm checked first
    net = _Net(g)
    routing, seed = _check_routing(routing, seed)
    nbytes = float(as_nonnegative("nbytes", nbytes, "bytes"))
    ranks = _default_ranks(g) if ranks is None else list(ranks)
    if not ranks:
        raise ValueError("ranks=[] is empty; give at least one node")
    idx = np.array([net.node_index(f"ranks[{i}]", r) for i, r in enumerate(ranks)], dtype=np.int64)
    if len(set(idx.tolist())) != len(idx):
        raise ValueError(f"ranks={ranks!r} repeats a node; each rank needs its own node")
    sch = schedule(row.op, len(ranks), row.name, chunks, root)
    sim = _simulate_arrays(net, idx[sch.src], idx[sch.dst], sch.transfer_bytes(nbytes), np.zeros(len(sch)),
                           sch.dep_ptr, sch.dep_idx, routing, seed, None, sch.phases, sch.phase)
    return CollectiveResult(time=sim.makespan, op=sch.op, algorithm=sch.algorithm, nbytes=nbytes,
                            ranks=tuple(ranks), chunks=sch.chunks, schedule=sch, sim=sim)


def simulate_rings(g, nbytes, rings, weights=None, op="allreduce", chunks=1, routing="shortest", seed=0):
    """Several ring collectives at once on one topology, as NCCL runs several channels.

    The ``nbytes`` are split among the rings (in proportion to ``weights``), each part
    runs the ring schedule of ``op`` on its own ring order, and all flows go into one
    :func:`simulate` run, so rings that cross the same link share it.

    Parameters
    ----------
    g : networkx.Graph
    nbytes : float
        Size of the full vector, bytes (nccl-tests convention).
    rings : sequence of sequence of nodes
        Each a ring order over the same set of ranks (e.g. a ring and its reverse).
    weights : sequence of float, optional
        Share of the bytes per ring; default each ring's bottleneck bandwidth (the
        narrowest edge on the shortest paths between its neighbours), as NCCL sizes
        channels by the bandwidth it finds.
    op : {"allreduce", "allgather", "reducescatter"}
    chunks, routing, seed
        As for :func:`simulate_collective`.

    Returns
    -------
    CollectiveResult
        ``time`` is when the last ring finishes; ``schedule`` is the first ring's.
    """
    from .topology import path_bandwidth

    if op not in ("allreduce", "allgather", "reducescatter"):
        raise ValueError(f"op={op!r} is not a ring collective here; allowed: allreduce, allgather, reducescatter")
    nbytes = float(as_nonnegative("nbytes", nbytes, "bytes"))
    rings = [list(r) for r in rings]
    if not rings:
        raise ValueError("rings=[] is empty; give at least one ring order")
    members = set(rings[0])
    for k, r in enumerate(rings):
        if len(set(r)) != len(r) or set(r) != members:
            raise ValueError(f"rings[{k}]={r!r} must visit the same ranks as rings[0], each once")
    if weights is None:
        weights = [min(path_bandwidth(g, a, b) for a, b in zip(r, r[1:] + r[:1])) for r in rings]
    weights = np.asarray([float(as_nonnegative(f"weights[{k}]", w)) for k, w in enumerate(weights)])
    if len(weights) != len(rings) or weights.sum() <= 0:
        raise ValueError(f"weights={weights.tolist()!r} needs one non-negative weight per ring, not all zero")
    flows = []
    sch0 = None
    for ring, w in zip(rings, weights):
        sch = schedule(op, len(ring), "ring", chunks)
        sch0 = sch0 or sch
        offset = len(flows)
        for f in sch.to_flows(nbytes * w / weights.sum(), ring):
            flows.append(Flow(f.src, f.dst, f.nbytes, f.start, tuple(d + offset for d in f.deps), f.tag))
    sim = simulate(g, flows, routing=routing, seed=seed)
    return CollectiveResult(time=sim.makespan, op=op, algorithm="ring", nbytes=nbytes, ranks=tuple(rings[0]),
                            chunks=sch0.chunks, schedule=sch0, sim=sim)


# --------------------------------------------------------------------------- plots


def _time_scale(t):
    if t < 1e-3:
        return 1e6, "µs"
    if t < 1.0:
        return 1e3, "ms"
    return 1.0, "s"


def plot_timeline(result, ax=None, max_flows=5000):
    """Gantt chart of flows: one row per source node, bars from start to finish.

    A thin line continues each bar to the flow's arrival (the path latency). Bars are
    coloured by tag (phase); flows of one source that overlap in time are stacked in
    lanes within the source's row.

    Parameters
    ----------
    result : SimResult or CollectiveResult
    ax : matplotlib Axes, optional
    max_flows : int
        Plot at most this many flows (the earliest to start).

    Returns
    -------
    matplotlib Axes
    """
    from .plots import PALETTE, new_figure

    sim = getattr(result, "sim", result)
    scale, unit = _time_scale(max(sim.makespan, 1e-12))
    title = "Flow timeline" + (f": {sim.name}" if sim.name else "")
    if ax is None:
        _, ax = new_figure(title, f"time ({unit})", "source")
    else:
        ax.set_title(title)
        ax.set_xlabel(f"time ({unit})")
        ax.set_ylabel("source")
    order = np.argsort(sim.start, kind="stable")[:max_flows]
    srcs = sorted(set(sim.src_index[order].tolist()))
    row = {s: i for i, s in enumerate(srcs)}
    lanes = {}
    lane_of = np.zeros(order.size, dtype=np.int64)
    for j, f in enumerate(order.tolist()):
        ends = lanes.setdefault(int(sim.src_index[f]), [])
        for li, e in enumerate(ends):
            if e <= sim.start[f] + 1e-15:
                ends[li] = sim.arrival[f]
                lane_of[j] = li
                break
        else:
            ends.append(sim.arrival[f])
            lane_of[j] = len(ends) - 1
    n_lanes = {s: max(1, len(v)) for s, v in lanes.items()}
    seen = set()
    for j, f in enumerate(order.tolist()):
        s = int(sim.src_index[f])
        h = 0.8 / n_lanes[s]
        y = row[s] - 0.4 + lane_of[j] * h
        tg = int(sim.tag_id[f])
        col = PALETTE[tg % len(PALETTE)]
        label = None
        if tg not in seen:
            seen.add(tg)
            name = sim.tag_table[tg]
            label = None if name is None else str(name)
        ax.broken_barh([(sim.start[f] * scale, (sim.finish[f] - sim.start[f]) * scale)], (y, h * 0.9),
                       facecolors=col, edgecolor="none", label=label)
        if sim.arrival[f] > sim.finish[f]:
            ax.plot([sim.finish[f] * scale, sim.arrival[f] * scale], [y + h * 0.45] * 2, color=col, lw=0.8)
    ax.set_yticks(range(len(srcs)))
    ax.set_yticklabels([str(sim.nodes[s]) for s in srcs])
    ax.set_ylim(-0.6, len(srcs) - 0.4)
    ax.invert_yaxis()
    if any(sim.tag_table[t] is not None for t in seen):
        ax.legend(loc="lower right")
    return ax


def plot_link_load(g, result, ax=None, top=16):
    """Bar chart of the busiest directed links (utilisation over the makespan).

    Parameters
    ----------
    g : networkx.Graph
        The topology the result was simulated on (its name titles the figure).
    result : SimResult or CollectiveResult
    top : int
        Number of links shown.

    Returns
    -------
    matplotlib Axes
    """
    from .plots import PALETTE, new_figure

    sim = getattr(result, "sim", result)
    top = as_count("top", top, minimum=1)
    name = str(g.graph.get("name", "")) or sim.name
    title = "Busiest links" + (f": {name}" if name else "")
    xlabel = "utilisation over the makespan (% of per-direction bandwidth)"
    if ax is None:
        _, ax = new_figure(title, xlabel, "directed link")
    else:
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("directed link")
    items = sorted(sim.link_utilisation.items(), key=lambda kv: -kv[1])[:top]
    for (u, v), _ in items:
        if not g.has_edge(u, v):
            raise ValueError(f"result has link ({u!r}, {v!r}) that is not an edge of g; pass the graph it was simulated on")
    labels = [f"{u} → {v}" for (u, v), _ in items]
    vals = [100.0 * x for _, x in items]
    ax.barh(range(len(items)), vals, color=PALETTE[0])
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    return ax
