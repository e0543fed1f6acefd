"""Transfer plans of the multi-node collectives, for the flow simulator.

:func:`hierarchical_plan` and :func:`double_binary_tree_plan` write out, transfer by
transfer, the schedules whose closed forms are in :mod:`~interconnect.collectives.hierarchical`,
so that :mod:`interconnect.netsim` can run them on a topology and the two can be compared.
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_count, as_nonnegative, choice
from .hierarchical import HIERARCHICAL_OPS, INTER_ALGORITHMS, _check_shape, _phases, double_binary_tree
from .schedules import schedule

__all__ = ["Plan", "hierarchical_plan", "double_binary_tree_plan"]


@dataclass(frozen=True, eq=False, repr=False)
class Plan:
    """Transfers between ranks for the flow simulator: ``src``, ``dst``, the share of ``nbytes``
    each moves, the transfers each waits for (``deps``, indices into the plan) and a phase tag."""

    src: tuple
    dst: tuple
    share: tuple
    deps: tuple
    tags: tuple
    chunks: int

    def __len__(self):
        return len(self.src)

    def __repr__(self):
        return f"Plan(transfers={len(self)}, chunks={self.chunks}, phases={sorted(set(self.tags))})"

    def bytes_sent(self, nbytes):
        """Bytes each rank sends, ``{rank: bytes}``."""
        out = {}
        for s, f in zip(self.src, self.share):
            out[s] = out.get(s, 0.0) + f * float(nbytes)
        return out

    def to_flows(self, nbytes, ranks):
        """``(src, dst, nbytes, start, deps, tag)`` tuples for :func:`interconnect.netsim.simulate`,
        with rank ``i`` played by the graph node ``ranks[i]``."""
        nb = float(as_nonnegative("nbytes", nbytes, "bytes"))
        return [(ranks[s], ranks[d], f * nb, 0.0, dp, t)
                for s, d, f, dp, t in zip(self.src, self.dst, self.share, self.deps, self.tags)]


class _PlanBuilder:
    def __init__(self, p):
        self.rows = []
        self.ready = [()] * p  # per rank: the transfers after whose arrival its data is ready

    def add(self, src, dst, share, deps, tag):
        self.rows.append((src, dst, share, tuple(sorted(set(deps))), tag))
        return len(self.rows) - 1

    def plan(self, chunks):
        cols = list(zip(*self.rows)) if self.rows else [()] * 5
        return Plan(*(tuple(c) for c in cols), chunks=chunks)


def hierarchical_plan(op, nodes, gpus_per_node, chunks=1, inter_algorithm="ring"):
    """The transfers of :func:`hierarchical_time`'s pipelined two-level ``op`` (ranks ``j g + i``).

    Chunk ``c`` of a phase starts on a rank when chunk ``c`` of the previous phase has arrived
    there and the rank has finished chunk ``c - 1`` of this phase (a ring phase runs one chunk
    at a time, as successive NCCL calls on one stream; in the tree each edge carries one chunk
    at a time), so the phases overlap as a pipeline.

    Returns
    -------
    Plan
    """
    op = choice("op", op, HIERARCHICAL_OPS)
    N, g = _check_shape(nodes, gpus_per_node)
    k = as_count("chunks", chunks, minimum=1)
    inter_algorithm = choice("inter_algorithm", inter_algorithm, INTER_ALGORITHMS)
    if inter_algorithm == "double_binary_tree" and op != "allreduce":
        raise ValueError(f"inter_algorithm='double_binary_tree' is an AllReduce; op={op!r} allows 'ring'")
    b = _PlanBuilder(N * g)
    node_groups = [[j * g + i for i in range(g)] for j in range(N)]
    rail_groups = [[j * g + i for j in range(N)] for i in range(g)]
    # per-chunk readiness: ready[c][rank]
    ready = [[()] * (N * g) for _ in range(k)]
    for scope, sub, frac in _phases(op, g):
        groups = node_groups if scope == "intra" else rail_groups
        tag = f"{scope} {sub}"
        prev = {}
        new_ready = [list(r) for r in ready]
        for gi, members in enumerate(groups):
            p = len(members)
            if p == 1:
                continue
            if scope == "inter" and inter_algorithm == "double_binary_tree":
                _tree_group(b, members, frac, k, tag, ready, new_ready)
                continue
            sch = schedule(sub, p, "ring", 1)
            share = sch.transfer_bytes(frac / k)
            last_in, last_out = {}, {}
            for t in range(len(sch)):
                last_in[int(sch.dst[t])] = t
                last_out[int(sch.src[t])] = t
            for c in range(k):
                local = []
                for t in range(len(sch)):
                    s, d = int(sch.src[t]), int(sch.dst[t])
                    deps = [local[x] for x in sch.deps(t)] + list(ready[c][members[s]])
                    if c > 0:  # one chunk at a time: the rank has finished chunk c - 1 of this stage
                        deps += [prev[gi, c - 1][last_in[s]], prev[gi, c - 1][last_out[s]]]
                    local.append(b.add(members[s], members[d], float(share[t]), deps, tag))
                prev[gi, c] = local
                for d_local, t in last_in.items():
                    new_ready[c][members[d_local]] = (local[t],)
        ready = new_ready
    return b.plan(k)


def _tree_group(b, members, frac, k, tag, ready, new_ready):
    """Double binary tree AllReduce among ``members`` (one rail), ``k`` chunks per tree."""
    N = len(members)
    parents = double_binary_tree(N)
    share = frac / (2.0 * k)
    prev = {}
    for c in range(k):
        for tree, par in enumerate(parents):
            children = {r: [] for r in range(N)}
            for r, u in enumerate(par):
                if u >= 0:
                    children[u].append(r)
            root = par.index(-1)
            # reduce: post-order from the leaves
            order = []

            def post(r, order=order, children=children):
                for ch in children[r]:
                    post(ch)
                order.append(r)

            post(root)
            up = {}
            for r in order:
                if r == root:
                    continue
                deps = [up[ch] for ch in children[r]] + list(ready[c][members[r]])
                if c > 0:
                    deps.append(prev["up", tree, r])
                up[r] = b.add(members[r], members[par[r]], share, deps, tag + " (up)")
                prev["up", tree, r] = up[r]
            # broadcast: pre-order from the root
            down = {}
            stack = [root]
            root_ready = [up[ch] for ch in children[root]] + list(ready[c][members[root]])
            while stack:
                r = stack.pop()
                for ch in children[r]:
                    deps = root_ready if r == root else [down[r]]
                    if c > 0:
                        deps = list(deps) + [prev["down", tree, ch]]
                    down[ch] = b.add(members[r], members[ch], share, deps, tag + " (down)")
                    prev["down", tree, ch] = down[ch]
                    stack.append(ch)
            for r in range(N):
                arrived = (down[r],) if r != root else tuple(root_ready)
                new_ready[c][members[r]] = tuple(new_ready[c][members[r]]) + arrived \
                    if tree == 1 else arrived


def double_binary_tree_plan(ranks, chunks=1):
    """The transfers of :func:`double_binary_tree_time` (an AllReduce of ``nbytes`` among ``ranks``).

    Examples
    --------
    >>> pl = double_binary_tree_plan(4, chunks=2)
    >>> len(pl), round(sum(pl.share), 6)            # 2 trees x 3 edges x 2 ways x 2 chunks; 24 x 1/4
    (24, 6.0)
    """
    N = as_count("ranks", ranks, minimum=1)
    k = as_count("chunks", chunks, minimum=1)
    b = _PlanBuilder(N)
    if N > 1:
        ready = [[()] * N for _ in range(k)]
        _tree_group(b, list(range(N)), 1.0, k, "tree", ready, [list(r) for r in ready])
    return b.plan(k)

