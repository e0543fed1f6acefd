"""Collectives on a topology: a schedule from :mod:`interconnect.collectives` run by the engine.

:func:`simulate_collective` turns one collective into the transfers of its
:class:`~interconnect.collectives.schedules.Schedule` and times them with the flow
engine; :func:`simulate_rings` runs several ring channels at once, as NCCL does;
:func:`effective_bandwidth` is the nccl-tests bus bandwidth one collective reaches, the
number that can stand in for a link's bandwidth in the alpha-beta model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_nonnegative
from ..collectives.algorithms import schedule_algorithm
from ..collectives.cost import bus_factor
from ..collectives.schedules import Schedule, schedule
from ..topology.other_fabrics import mesh_rings
from ..topology.paths import endpoints, gpus, path_bandwidth
from .engine import Flow, SimResult, _simulate_arrays, simulate
from .routing import _check_routing, _Net

__all__ = ["CollectiveResult", "simulate_collective", "simulate_rings", "effective_bandwidth", "DOMAIN_ALLREDUCE",
           "domain_allreduce_time"]


def _from_sim(name):
    """A read-only property returning ``self.sim.<name>`` (a :class:`SimResult` attribute)."""

    def get(self):
        return getattr(self.sim, name)

    return property(get, doc=f"``sim.{name}``: see :class:`~interconnect.netsim.SimResult`.")


@dataclass(frozen=True, eq=False, repr=False)
class CollectiveResult:
    """:func:`simulate_collective`'s answer: the time, the schedule and the simulation.

    The per-flow and per-link answers of the simulation (``start``, ``finish``,
    ``arrival``, ``makespan``, ``link_bytes``, ``link_utilisation``, ``bottleneck``,
    ``segments``, ``paths``, ``trace``, ``src``, ``dst``, ``tags``, ``n_flows``) are
    read-only properties that return the :class:`SimResult`'s (``self.sim``) attribute
    of the same name; ``nbytes`` here is the collective's size, ``sim.nbytes`` the
    bytes of each flow.

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
        return self.algbw * bus_factor(self.op, self.p)

    # the simulation's answers, read through from self.sim
    start = _from_sim("start")
    finish = _from_sim("finish")
    arrival = _from_sim("arrival")
    makespan = _from_sim("makespan")
    link_bytes = _from_sim("link_bytes")
    link_utilisation = _from_sim("link_utilisation")
    bottleneck = _from_sim("bottleneck")
    segments = _from_sim("segments")
    paths = _from_sim("paths")
    trace = _from_sim("trace")
    src = _from_sim("src")
    dst = _from_sim("dst")
    tags = _from_sim("tags")
    n_flows = _from_sim("n_flows")

    def __repr__(self):
        return (f"CollectiveResult(op={self.op!r}, algorithm={self.algorithm!r}, p={self.p}, "
                f"nbytes={self.nbytes:g}, chunks={self.chunks}, time={self.time:.6g} s)")


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
        The nodes playing ranks 0..p-1. Default: :func:`interconnect.topology.endpoints`,
        the GPUs (kind ``"gpu"``, sorted by ``(node, index)``), else the nodes of kind ``"host"``.
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

    >>> import networkx as nx
    >>> g = nx.cycle_graph(4); nx.set_edge_attributes(g, 1e11, "bandwidth"); nx.set_edge_attributes(g, 1e-6, "latency")
    >>> round(simulate_collective(g, "allreduce", 1e6, ranks=[0, 1, 2, 3]).time * 1e6, 6)
    21.0
    """
    row = schedule_algorithm(op, algorithm)  # the registry row: op and algorithm checked first
    net = _Net(g)
    routing, seed = _check_routing(routing, seed)
    nbytes = float(as_nonnegative("nbytes", nbytes, "bytes"))
    if ranks is None:
        ranks = endpoints(g)
        if not ranks:
            raise ValueError("ranks=None but the graph has no node of kind 'gpu' or 'host'; give ranks explicitly")
    ranks = list(ranks)
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



def effective_bandwidth(g, op, nbytes, ranks=None, **kw):
    """Bus bandwidth one collective reaches on a topology, bytes/s per direction.

    The nccl-tests ``busbw`` of :func:`simulate_collective`: the algorithm bandwidth
    ``nbytes / time`` times the bus factor of ``op`` on ``p`` ranks (``2(p-1)/p`` for an
    allreduce). On an uncontended ring it is close to the link bandwidth (less the latency
    terms); where links are shared it is what each GPU really gets, so it can stand in for
    ``bandwidth`` in :func:`interconnect.collectives.collective_time` and in
    :class:`interconnect.parallel.Cluster`.

    Parameters
    ----------
    g : networkx.Graph
        Topology (graph contract).
    op : str
        The collective, as for :func:`simulate_collective`.
    nbytes : float
        Size in bytes, >= 0 (nccl-tests convention).
    ranks : sequence of nodes, optional
        Default: the GPUs of ``g`` (:func:`interconnect.topology.endpoints`).
    **kw
        Passed to :func:`simulate_collective` (``algorithm``, ``chunks``, ``routing``...).

    Returns
    -------
    float
        bytes/s.

    See Also
    --------
    simulate_collective, interconnect.collectives.bus_bandwidth, interconnect.topology.path_bandwidth

    Examples
    --------
    >>> from interconnect import topology
    >>> round(effective_bandwidth(topology.nvswitch(8, link="nvlink3"), "allreduce", 13.4e9) / 1e9)
    300
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16", socket_links=1)
    >>> round(effective_bandwidth(box, "allreduce", 13.4e9) / 1e9, 1)    # one UPI link binds
    20.8
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16")   # EPYC 7002: 3 links
    >>> round(effective_bandwidth(box, "allreduce", 13.4e9) / 1e9, 1)    # the PCIe 4.0 x16 links bind
    31.5
    """
    return simulate_collective(g, op, nbytes, ranks=ranks, **kw).busbw


#: How an AllReduce is run on one scale-up domain (:func:`domain_allreduce_time`, all simulated).
DOMAIN_ALLREDUCE = {
    "ring": "one ring in index order",
    "rings": "edge-disjoint rings, both directions",
    "direct": "each device sends to all peers at once",
}


def domain_allreduce_time(g, nbytes, algorithm="ring"):
    """Time of an AllReduce of ``nbytes`` on one scale-up domain (the chapter "Other fabrics"'s
    8-device boxes, :func:`interconnect.topology.eight_way_systems`), simulated.

    * ``"ring"``: :func:`interconnect.netsim.simulate_collective`, one ring in index order.
    * ``"rings"``: :func:`interconnect.netsim.simulate_rings` over the edge-disjoint rings of
      :func:`interconnect.topology.mesh_rings`, each in both directions (6 rings on 8
      devices). On a switch (one edge per GPU) the rings share it, so this equals one ring.
    * ``"direct"``: a reduce-scatter in which every device sends each peer its ``n/p`` piece
      at once, then the allgather that sends the sums back the same way. Each half moves
      exactly the bytes of an all-at-once AllToAll of ``n`` (the registry's ``all_at_once``
      schedule), so its time is simulated as two of them, one after the other; the local
      additions are not timed (``gamma = 0``, as in the rest of the chapter).

    Parameters
    ----------
    g : networkx.Graph
        The domain's topology (e.g. ``eight_way_systems()[name].graph``).
    nbytes : float
        Size of the vector, bytes (nccl-tests convention).
    algorithm : {"ring", "rings", "direct"}

    Returns
    -------
    float
        Seconds.
    """
    if algorithm not in DOMAIN_ALLREDUCE:
        raise ValueError(f"algorithm={algorithm!r} is not one of {', '.join(DOMAIN_ALLREDUCE)}")
    if algorithm == "ring":
        return simulate_collective(g, "allreduce", nbytes).time
    if algorithm == "rings":
        rings = mesh_rings(len(gpus(g)))
        return simulate_rings(g, nbytes, rings + [r[::-1] for r in rings]).time
    return 2.0 * simulate_collective(g, "alltoall", nbytes, algorithm="all_at_once").time
