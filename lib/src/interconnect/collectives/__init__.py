"""Collective communication: one registry of algorithms, their alpha-beta costs and schedules.

* :mod:`~interconnect.collectives.algorithms`: :data:`REGISTRY`, one row per (operation,
  algorithm) with its cost formula, description, source, power-of-two flag and schedule
  builder. Everything that lists algorithms is derived from it.
* :mod:`~interconnect.collectives.cost`: the alpha-beta (Hockney) model,
  :func:`cost_terms`, :func:`collective_time`, :func:`best_algorithm`,
  :func:`crossover_size`, :func:`half_performance_size` and nccl-tests' bus bandwidth.
* :mod:`~interconnect.collectives.schedules`: a collective as transfers between ranks,
  :func:`schedule` and :func:`run_collective` (timed by
  :func:`interconnect.netsim.simulate_collective`).
* :mod:`~interconnect.collectives.in_network`: in-switch reduction (SHARP) and the
  two-level AllReduce.
* :mod:`~interconnect.collectives.hierarchical`: collectives across nodes in closed form,
  two-level with pipelined phases (:func:`hierarchical_time`), one ring per NIC
  (:func:`multi_ring_time`) and NCCL's double binary tree (:func:`double_binary_tree_time`),
  each with a transfer plan (in :mod:`~interconnect.collectives.plans`) the flow simulator checks.
* :mod:`~interconnect.collectives.nccl`: NCCL's own tuning model (``src/graph/tuning.cc``)
  ported: per algorithm and protocol the latency, the bandwidth and the channels, NCCL's
  choice by size, and (:func:`nccl_time`, :func:`nccl_busbw`) the time that choice achieves
  with the channels and the pipeline NCCL launches (``src/enqueue.cc``).

Deprecated spellings, accepted silently for one release: alltoall ``"direct"`` is
``"pairwise"`` in the cost model and ``"all_at_once"`` in the simulator; broadcast
``"ring"`` in the simulator is ``"chain"`` (see :mod:`~interconnect.collectives.algorithms`).
"""

from . import algorithms, cost, hierarchical, in_network, nccl, plans, schedules  # noqa: F401 (the submodules)
from .algorithms import (
    COST_ALIASES,
    OPS,
    REGISTRY,
    SCHEDULE_ALIASES,
    Algorithm,
    closed_form_of,
    cost_algorithm,
    costed,
    schedule_algorithm,
    simulated,
)
from .cost import (  # noqa: F401 (_op_alg, _POW2, ...: private names other modules reached into before)
    _BUS_FACTOR,
    _POW2,
    ALGORITHMS,
    APPLICABLE,
    DESCRIPTION,
    _check_pow2,
    _op_alg,
    algorithm_bandwidth,
    best_algorithm,
    bus_bandwidth,
    bus_factor,
    collective_time,
    cost_terms,
    crossover_size,
    half_performance_size,
)
from .hierarchical import (
    double_binary_tree,
    double_binary_tree_time,
    hierarchical_time,
    multi_ring_time,
)
from .in_network import (
    IN_NETWORK_ALGORITHMS,
    IN_NETWORK_OPS,
    hierarchical_allreduce_time,
    in_network_achieved,
    in_network_gain,
    in_network_time,
)
from .nccl import (
    MACHINES as NCCL_MACHINES,
)
from .nccl import (
    NCCL_COMMIT,
    NcclGraph,
    NcclMachine,
    NcclPrediction,
    nccl_busbw,
    nccl_busbw_curve,
    nccl_choice,
    nccl_graphs,
    nccl_predict,
    nccl_table,
    nccl_time,
)
from .schedules import Schedule, run_collective, schedule

__all__ = [
    "OPS", "ALGORITHMS", "APPLICABLE", "DESCRIPTION", "cost_terms", "collective_time",
    "algorithm_bandwidth", "bus_bandwidth", "bus_factor", "best_algorithm", "crossover_size",
    "half_performance_size", "IN_NETWORK_OPS", "in_network_time", "hierarchical_allreduce_time",
    "REGISTRY", "Algorithm", "COST_ALIASES", "SCHEDULE_ALIASES", "costed", "simulated", "cost_algorithm",
    "schedule_algorithm", "closed_form_of", "Schedule", "schedule", "run_collective",
    "NCCL_COMMIT", "NCCL_MACHINES", "NcclMachine", "NcclGraph", "NcclPrediction", "nccl_graphs", "nccl_table",
    "nccl_time", "nccl_choice", "nccl_busbw", "nccl_busbw_curve", "nccl_predict",
    "hierarchical_time", "multi_ring_time", "double_binary_tree", "double_binary_tree_time",
    "IN_NETWORK_ALGORITHMS", "in_network_achieved", "in_network_gain",
]
