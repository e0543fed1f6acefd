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
``schedule`` (:mod:`interconnect.collectives.schedules`) turns a collective into transfers
between ranks, and the same :class:`~interconnect.collectives.schedules.Schedule` drives
both :func:`simulate_collective` (timing on a graph) and
``run_collective`` (the arithmetic on numpy
arrays), so the schedule the book times is the schedule shown to be correct. Which
algorithms can be simulated, under which names, is read from the one registry,
:data:`interconnect.collectives.REGISTRY`. ``schedule``, ``run_collective``,
``Schedule``, ``APPLICABLE`` and ``DESCRIPTION`` stay importable from here. ``nbytes``
follows nccl-tests, as in :mod:`interconnect.collectives`.

Layout
------
* :mod:`~interconnect.netsim.routing`: directed resources and one path per flow
  (the rule of :mod:`interconnect.topology.paths`, ECMP hashing).
* :mod:`~interconnect.netsim.fairness`: :func:`max_min_rates`, progressive filling.
* :mod:`~interconnect.netsim.engine`: :class:`Flow`, :class:`SimResult`, :func:`simulate`.
* :mod:`~interconnect.netsim.collective`: :func:`simulate_collective`,
  :func:`simulate_rings`, :func:`effective_bandwidth`.
* :mod:`~interconnect.netsim.closed_form`: a collective's simulated time against the
  alpha-beta closed form on the same topology (``neighbour_closed_form``,
  ``simulated_and_closed_form``).
* :mod:`~interconnect.netsim.resilience`: what a failed link or chip costs a collective
  (``after_failure``).
* :mod:`~interconnect.netsim.simgrid`: past one machine: a topology and a simulation
  exported to SimGrid (platform XML with ``netsim``'s routes, and an s4u replay script),
  run there and compared (``export``, ``run_simgrid``, ``compare``).
* The figures :func:`plot_timeline` and :func:`plot_link_load` live in the presentation
  layer, :mod:`interconnect.viz.timelines`; they stay reachable here, imported on first
  use, so importing this package does not import matplotlib.

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

from ..collectives.algorithms import REGISTRY, SIMULATED_OPS, simulated
from ..collectives.schedules import Schedule, _generic_deps, run_collective, schedule  # noqa: F401 (re-exported)
from . import simgrid  # noqa: F401 (the SimGrid export, reached as netsim.simgrid)
from .collective import (
    DOMAIN_ALLREDUCE,
    CollectiveResult,
    domain_allreduce_time,
    effective_bandwidth,
    simulate_collective,
    simulate_rings,
)
from .engine import Flow, SimResult, _simulate_arrays, _simulate_reference, simulate  # noqa: F401 (re-exported)
from .fairness import _maxmin, max_min_rates  # noqa: F401 (re-exported)
from .routing import _Net, _route  # noqa: F401 (re-exported)

__all__ = [
    "Flow", "SimResult", "Schedule", "CollectiveResult", "APPLICABLE", "DESCRIPTION",
    "simulate", "simulate_collective", "simulate_rings", "effective_bandwidth", "schedule", "run_collective",
    "DOMAIN_ALLREDUCE", "domain_allreduce_time",
    "max_min_rates", "plot_timeline", "plot_link_load",
]

#: Algorithms simulated for each operation (derived from
#: :data:`interconnect.collectives.REGISTRY`). Deprecated spellings, accepted silently for
#: one release: alltoall ``"direct"`` (now ``"all_at_once"``), broadcast ``"ring"`` (now ``"chain"``).
APPLICABLE = {op: simulated(op) for op in SIMULATED_OPS}

#: What each schedule does and where its cost comes from, from the registry.
DESCRIPTION = {(op, a): REGISTRY[op, a].text for op, algs in APPLICABLE.items() for a in algs}

_PLOTS = ("plot_timeline", "plot_link_load")


def __getattr__(name):
    """``plot_timeline`` and ``plot_link_load``, imported from :mod:`interconnect.viz.timelines` on first use."""
    if name in _PLOTS:
        from ..viz import timelines

        value = getattr(timelines, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_PLOTS))
