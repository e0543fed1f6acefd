"""The event engine of the flow simulator: flows, their timing, and the result.

Time advances from event to event (a flow starts, a flow's last byte leaves); at each
event the active flows' rates are recomputed by max-min fairness
(:mod:`interconnect.netsim.fairness`) over the paths :mod:`interconnect.netsim.routing`
gave them, and are constant in between. A flow *arrives* at ``finish`` plus the summed
edge latencies of its path; a flow with ``deps`` starts at ``max(start, arrival of each
dep)``. :func:`simulate` is the vectorised loop; :func:`_simulate_reference` is the same
model written plainly, one event at a time, to test it against.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from .._validate import is_number
from .fairness import _maxmin_active
from .routing import _check_paths, _check_routing, _Net, _ranges, _route

__all__ = ["Flow", "SimResult", "simulate"]

_min, _max = np.minimum.reduce, np.maximum.reduce


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



def _exclusive_rates(c):
    """Max-min rates of flows that share no resource, from each flow's narrowest capacity ``c``.

    With every resource crossed by one flow, progressive filling (:func:`_maxmin_active`)
    gives each round's minimum share ``m`` (the smallest ``c`` of the unfrozen flows) to
    every unfrozen flow whose ``c`` is within a relative 1e-9 of it; this is that, bit for
    bit, in a few numpy calls per level.
    """
    m = _min(c)
    top = _max(c)
    thr = m * (1.0 + 1e-9)
    rate = np.empty(c.size)
    rate.fill(m)
    if top <= thr:
        return rate
    hi = c > thr
    while True:
        m = _min(c[hi])
        thr = m * (1.0 + 1e-9)
        rate[hi] = m
        if top <= thr:
            return rate
        hi &= c > thr


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
    release, dep_ptr, dep_idx : ndarray
        What the flows were given: each flow's earliest start, and its deps as
        ``dep_idx[dep_ptr[i]:dep_ptr[i + 1]]`` (so that :mod:`interconnect.netsim.simgrid`
        can replay them).
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
    release: np.ndarray = field(default=None, repr=False)
    dep_ptr: np.ndarray = field(default=None, repr=False)
    dep_idx: np.ndarray = field(default=None, repr=False)

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
    """The event loop on flat arrays (internal; inputs already validated).

    Numpy's cost per call, not per element, bounds this loop (a 1,024-GPU ring AllReduce
    has about 28,600 events of about 190 active flows), so the state is kept in few
    arrays: the active flows' remaining bytes, segment start and narrowest capacity as
    the rows of one 2-D array, a count of active flows per resource (while no resource
    has two, max-min fairness reduces to :func:`_exclusive_rates`), and the released
    flows sorted by the time they may start.
    """
    n_flows = int(src.size)
    table, path_id = _route(net, src, dst, routing, seed, explicit)
    plen = np.array([len(r) for _, r in table], dtype=np.int64)
    pres = np.array([x for _, r in table for x in r], dtype=np.int64)
    pptr = np.concatenate(([0], np.cumsum(plen)))
    plat = np.array([float(net.lat[list(r)].sum()) if r else 0.0 for _, r in table])
    hops = plen[path_id] if n_flows else np.empty(0, dtype=np.int64)
    lat_f = plat[path_id] if n_flows else np.empty(0)
    cap = net.cap
    n_cap = cap.size
    # the paths' resources padded with -1 to the longest path; -1 is the scratch slot
    # n_cap of the counters below, and a capacity of inf for each path's narrowest link
    maxh = max(int(plen.max()) if plen.size else 0, 1)
    ptab = np.full((plen.size, maxh), -1, dtype=np.int64)
    ptab[np.repeat(np.arange(plen.size), plen), _ranges(np.zeros_like(plen), plen)] = pres
    pmin = np.append(cap, np.inf)[ptab].min(axis=1) if plen.size else np.empty(0)
    # per flow, what it brings to the active state: [bytes left, segment start, narrowest capacity]
    static = np.empty((n_flows, 3))
    static[:, 0] = nbytes
    static[:, 1] = 0.0
    static[:, 2] = pmin[path_id] if n_flows else 0.0

    # dependents (inverse of deps)
    n_deps = np.diff(dep_ptr)
    owner = np.repeat(np.arange(n_flows, dtype=np.int64), n_deps)
    if dep_idx.size > 4096:  # group by dep keeping owner order: scipy's counting sort (coo -> csr)
        import scipy.sparse as sp

        by_dep = sp.coo_matrix((owner + 1, (dep_idx, np.arange(dep_idx.size))),
                               shape=(n_flows, dep_idx.size)).tocsr()
        dependents = by_dep.data - 1
    else:
        dependents = owner[np.argsort(dep_idx, kind="stable")]
    n_dependents = np.bincount(dep_idx, minlength=n_flows)
    dptr = np.concatenate(([0], np.cumsum(n_dependents))).astype(np.int64)
    # ... padded to the most dependents of one flow (where that stays small), so that the
    # dependents of the flows that just arrived are one gather and one mask
    maxd = int(n_dependents.max()) if n_flows else 0
    dtab = None
    if 0 < maxd and n_flows * maxd <= 4 * dep_idx.size + 4096:
        dtab = np.full((n_flows, maxd), -1, dtype=np.int64)
        for k in range(maxd):
            has = np.flatnonzero(n_dependents > k)
            dtab[has, k] = dependents[dptr[has] + k]

    t_start = np.full(n_flows, np.nan)
    t_finish = np.full(n_flows, np.nan)
    ready = start.astype(float).copy()
    left = n_deps.astype(np.int64).copy()
    instant = (nbytes == 0) | (hops == 0)  # zero-byte or zero-hop flows finish as they start
    any_instant = bool(instant.any())

    free = np.flatnonzero(left == 0)
    free = free[np.argsort(start[free], kind="stable")]
    free_t = start[free]
    n_free = free.size
    fptr = 0
    dyn_i = np.empty(0, dtype=np.int64)  # flows released by their deps, sorted by when they may start
    dyn_t = np.empty(0)

    act = np.empty(0, dtype=np.int64)  # the active flows
    state = np.empty((0, 3))  # their rows of `static`, bytes left updated at every event
    rate = np.empty(0)
    use = np.zeros(n_cap + 1, dtype=np.int64)  # active flows per resource (slot n_cap: padding)
    present = np.zeros(n_cap, dtype=bool)
    remap = np.empty(n_cap, dtype=np.int64)
    arange = np.arange(n_flows + 1, dtype=np.int64)
    segs = []  # (t0, t1, flow, rate) of segments closed by a change of rate; t1 one number each
    last_t0 = np.empty(n_flows)  # each flow's last segment: start and rate (it ends at finish)
    last_rate = np.empty(n_flows)
    add_at, sub_at, umax = np.add.at, np.subtract.at, np.maximum

    def complete(done, t_arr):
        nonlocal dyn_i, dyn_t
        if done.size == 1:  # one flow: its dependents are distinct, plain indexing will do
            d = int(done[0])
            fs = dependents[dptr[d]:dptr[d + 1]]
            if fs.size == 0:
                return
            ready[fs] = umax(ready[fs], t_arr[0])
            left[fs] -= 1
            nw = fs[left[fs] == 0]
        else:
            if dtab is not None:
                rows = dtab[done]
                has = rows >= 0
                fs = rows[has]
                if fs.size == 0:
                    return
                ta = np.repeat(t_arr, maxd)[has.ravel()]
            else:
                cnt = dptr[done + 1] - dptr[done]
                if cnt.sum() == 0:
                    return
                fs = dependents[_ranges(dptr[done], cnt)]
                ta = np.repeat(t_arr, cnt)
            umax.at(ready, fs, ta)
            sub_at(left, fs, 1)
            nw = fs[left[fs] == 0]
            if nw.size > 1:  # a flow whose last deps finished together appears once per dep
                nw.sort()
                nw = nw[np.concatenate(([True], nw[1:] != nw[:-1]))]
        if nw.size:
            nt = ready[nw]
            if nw.size == 1 and (dyn_t.size == 0 or nt[0] >= dyn_t[-1]):
                dyn_i = np.concatenate((dyn_i, nw))
                dyn_t = np.concatenate((dyn_t, nt))
            else:
                dyn_t = np.concatenate((dyn_t, nt))
                order = dyn_t.argsort(kind="stable")
                dyn_t = dyn_t[order]
                dyn_i = np.concatenate((dyn_i, nw))[order]

    t = 0.0
    while True:
        # start every flow due now; zero-byte or zero-hop flows finish at once
        while True:
            lim = t + (1e-12 * abs(t) + 1e-30)
            j = int(free_t.searchsorted(lim, side="right")) if fptr < n_free else fptr
            new = free[fptr:j] if j > fptr else None
            fptr = max(fptr, j)
            if dyn_t.size and dyn_t[0] <= lim:
                k = int(dyn_t.searchsorted(lim, side="right"))
                new = dyn_i[:k] if new is None else np.concatenate((new, dyn_i[:k]))
                dyn_i, dyn_t = dyn_i[k:], dyn_t[k:]
            if new is None:
                break
            t_start[new] = t
            released = False
            if any_instant:
                inst = instant[new]
                if inst.any():
                    ins = new[inst]
                    t_finish[ins] = t
                    complete(ins, t + lat_f[ins])
                    new = new[~inst]
                    released = True
            if new.size:
                rows = static[new]
                rows[:, 1] = t
                state = np.concatenate((state, rows))
                act = np.concatenate((act, new))
                add_at(use, ptab[path_id[new]], 1)
            if not released:  # nothing finished, so nothing new is due at t
                break
        n_act = act.size
        if n_act == 0:
            a = free_t[fptr] if fptr < n_free else np.inf
            t_next = min(a, dyn_t[0] if dyn_t.size else np.inf)
            if not np.isfinite(t_next):
                break
            t = float(t_next)
            continue
        # the active set changed at every event: recompute the max-min rates
        if _max(use[:n_cap]) <= 1:  # no resource carries two active flows
            new_rate = _exclusive_rates(state[:, 2])
        else:
            pa = path_id[act]
            on = ptab[pa]
            new_rate = _maxmin_active(arange, np.repeat(arange[:n_act], plen[pa]), on[on >= 0], n_act, cap,
                                      present, remap)
        n_old = rate.size
        if n_old and not (new_rate[:n_old] == rate).all():
            # close the segment of each flow whose rate changed (flows just started have none)
            moved = np.abs(new_rate[:n_old] - rate) > rate * 1e-12
            if moved.any():
                s0 = state[:n_old, 1]
                segs.append((s0[moved], t, act[:n_old][moved], rate[moved]))
                s0[moved] = t
        rate = new_rate
        rem = state[:, 0]
        tf = t + rem / rate
        t_next = min(_min(tf), free_t[fptr] if fptr < n_free else np.inf, dyn_t[0] if dyn_t.size else np.inf)
        dt = t_next - t
        fin = tf <= t_next + (1e-12 * abs(t_next) + 1e-30)
        rem -= rate * dt
        done = act[fin]
        if done.size:
            t_finish[done] = t_next
            t_arr = t_next + lat_f[done]
            last_t0[done] = state[fin, 1]
            last_rate[done] = rate[fin]
            keep = ~fin
            act, state, rate = act[keep], state[keep], rate[keep]
            sub_at(use, ptab[path_id[done]], 1)
            complete(done, t_arr)
        t = float(t_next)

    if np.isnan(t_finish).any():
        stuck = np.flatnonzero(np.isnan(t_finish))
        raise ValueError(f"flows: deps form a cycle; flows {stuck[:10].tolist()}"
                         f"{' ...' if stuck.size > 10 else ''} can never start")

    ran = np.flatnonzero(~instant) if any_instant else arange[:n_flows]  # each flow that was active ...
    last = (last_t0[ran], t_finish[ran], last_rate[ran]) if any_instant else (last_t0, t_finish, last_rate)
    if not segs:  # ... has one last segment; if no rate changed, that is all, already in flow order
        seg = np.empty(ran.size, dtype=_SEG)
        seg["t0"], seg["t1"], seg["flow"], seg["rate"] = last[0], last[1], ran, last[2]
    else:
        sizes = [len(s[0]) for s in segs]
        cols = {"t0": np.concatenate([s[0] for s in segs] + [last[0]]),
                "t1": np.concatenate((np.repeat(np.array([s[1] for s in segs], dtype=float), sizes), last[1])),
                "flow": np.concatenate([s[2] for s in segs] + [ran]),
                "rate": np.concatenate([s[3] for s in segs] + [last[2]])}
        # each flow's segments were closed in time order, its last one last: sort by flow, stably
        order = np.argsort(cols["flow"], kind="stable")
        seg = np.empty(order.size, dtype=_SEG)
        for name, x in cols.items():
            seg[name] = x[order]
    t_arrive = t_finish + lat_f  # each flow's arrival, as complete() was told it
    makespan = float(t_arrive.max()) if n_flows else 0.0
    if n_flows and nbytes.sum() < 2.0**53 and (nbytes == np.floor(nbytes)).all():
        # whole bytes: every partial sum is exact, so summing path by path gives the same bits
        per_path = np.bincount(path_id, weights=nbytes, minlength=plen.size)
        per_res = np.bincount(pres, weights=np.repeat(per_path, plen), minlength=net.cap.size)
    elif n_flows:
        res_idx = pres[_ranges(pptr[path_id], hops)]
        per_res = np.bincount(res_idx, weights=np.repeat(nbytes, hops), minlength=net.cap.size)
    else:
        per_res = np.zeros(net.cap.size)
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
        release=start.astype(float), dep_ptr=dep_ptr, dep_idx=dep_idx,
    )


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

    >>> import networkx as nx
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



def _simulate_reference(g, flows):
    """:func:`simulate`'s model written plainly, one event at a time (for tests).

    Shortest-path routing only. Returns the arrays ``(start, finish, arrival)``.
    """
    net = _Net(g)
    fl = [f if isinstance(f, Flow) else Flow(*f) for f in flows]
    n = len(fl)
    src = np.array([net.node_index("src", f.src) for f in fl], dtype=np.int64)
    dst = np.array([net.node_index("dst", f.dst) for f in fl], dtype=np.int64)
    table, path_id = _route(net, src, dst, "shortest", 0)
    res = [list(table[path_id[i]][1]) for i in range(n)]
    lat = [float(sum(net.lat[r] for r in res[i])) for i in range(n)]
    start, finish, arrival = (np.full(n, np.nan) for _ in range(3))
    left = [f.nbytes for f in fl]
    active, t = [], 0.0
    while True:
        # the flows whose deps have all arrived, and when each may start
        due = {i: max([fl[i].start] + [arrival[d] for d in fl[i].deps]) for i in range(n)
               if np.isnan(start[i]) and all(not np.isnan(arrival[d]) for d in fl[i].deps)}
        for i, ti in due.items():
            if ti <= t * (1 + 1e-12):
                start[i] = t
                if left[i] == 0 or not res[i]:
                    finish[i], arrival[i] = t, t + lat[i]
                else:
                    active.append(i)
        if any(ti <= t * (1 + 1e-12) for ti in due.values()):
            continue  # a flow that finished at once may have released others
        if not active:
            if not due:
                break
            t = min(due.values())
            continue
        # max-min rates by progressive filling, one bottleneck at a time
        rate, cap, todo = {}, {}, set(active)
        while todo:
            users = {}
            for i in todo:
                for r in res[i]:
                    users.setdefault(r, []).append(i)
            share = {r: (net.cap[r] - cap.get(r, 0.0)) / len(u) for r, u in users.items()}
            r_min = min(share, key=share.get)
            for i in users[r_min]:
                rate[i] = share[r_min]
                todo.discard(i)
                for r in res[i]:
                    cap[r] = cap.get(r, 0.0) + rate[i]
        # the next event: a flow finishes or a waiting flow may start
        t_next = min([t + left[i] / rate[i] for i in active] + list(due.values()))
        for i in list(active):
            t_done = t + left[i] / rate[i]
            left[i] -= rate[i] * (t_next - t)
            if t_done <= t_next * (1 + 1e-12):
                finish[i], arrival[i] = t_next, t_next + lat[i]
                active.remove(i)
        t = t_next
    return start, finish, arrival
