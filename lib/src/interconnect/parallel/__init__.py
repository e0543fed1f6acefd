"""Parallel training meets the interconnect: FLOPs, MFU, the efficiency model and the step-time model.

The efficiency model of the book's first chapter: a step of parallel work is compute
plus the part of communication that is *not* hidden behind compute,

``efficiency = T_compute / (T_compute + T_exposed)``,   ``speedup = p * efficiency``

(weak scaling: each of ``p`` GPUs does the same work per step as one GPU alone).

The package, one topic per module (every public name is re-exported here):

* :mod:`~interconnect.parallel.efficiency`: FLOPs per token, MFU, exposed communication,
  ``dp_step``, the DP break-even and the pipeline bubble;
* :mod:`~interconnect.parallel.gemm`: measured GEMM ceilings (``ceiling_fraction``, the one named
  fraction of peak large GEMMs reach) and the tile and wave quantisation of a GEMM's shape;
* :mod:`~interconnect.parallel.transformer`: :class:`ModelConfig`, parameters and FLOPs per
  iteration of a GPT-style transformer;
* :mod:`~interconnect.parallel.layout`: :class:`Layout`, how a job is split over GPUs;
* :mod:`~interconnect.parallel.cluster`: :class:`Cluster`, the machine, and the links a group spans;
* :mod:`~interconnect.parallel.traffic`: what each strategy sends (:class:`Traffic`), in bytes;
* :mod:`~interconnect.parallel.context`: context parallelism per rank and per ring step
  (causal load balance, when a ring step's transfer hides);
* :mod:`~interconnect.parallel.compute`: what a step computes on one GPU (GEMMs by shape,
  attention core, logits, element-wise work);
* :mod:`~interconnect.parallel.step_time`: the step-time model of a PTD-P + EP + CP + ZeRO/FSDP step;
* :mod:`~interconnect.parallel.validation`: published measurements and the calibration;
* :mod:`~interconnect.parallel.plan`: the layout planner;
* :mod:`~interconnect.parallel.roofline`: a roofline for communication.

References
----------
J. Kaplan et al., "Scaling Laws for Neural Language Models", arXiv:2001.08361, 2020
(C = 6N FLOPs per training token).
A. Chowdhery et al., "PaLM: Scaling Language Modeling with Pathways", arXiv:2204.02311,
2022, Appendix B (MFU; 6N + 12 L H Q T FLOPs per token).
M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, 2019 (scaling efficiency).
"""

from __future__ import annotations

from .cluster import CALIBRATED_COMM_EFFICIENCY, CALIBRATED_GEMM_EFFICIENCY, Cluster, _group_link, effective_bandwidth
from .compute import compute_parts, elementwise_time
from .context import causal_work, cp_min_tokens, cp_ring_step
from .efficiency import (
    dp_break_even_tokens,
    dp_step,
    efficiency,
    exposed_communication,
    mfu,
    model_flops_per_token,
    pipeline_bubble_fraction,
)
from .gemm import ceiling_fraction
from .layout import Layout, _check_fit, stage_layers
from .plan import (
    MEMORY_MARGIN,
    Plan,
    inference_memory,
    layout_memory,
    layout_memory_breakdown,
    memory_limit_of,
    plan,
    stage_params,
)
from .roofline import attainable_flops, dp_comm_intensity, ridge_intensity, tp_comm_intensity
from .step_time import (
    StepTime,
    cp_comm_time,
    dp_comm_time,
    dp_step_time,
    dp_wire_bytes,
    ep_comm_time,
    pp_comm_time,
    step_time,
    tp_comm_time,
)
from .traffic import (
    Traffic,
    _dp_buckets,
    activation_bytes,
    collectives_per_layer,
    cp_kv_bytes,
    cp_traffic,
    dp_traffic,
    ep_traffic,
    network_bytes,
    pp_traffic,
    step_traffic,
    tp_traffic,
    ulysses_traffic,
    wire_bytes,
)
from .transformer import (
    RECOMPUTE_MODES,
    ModelConfig,
    gelu,
    iteration_flops,
    selective_recompute_overhead,
    step_flops,
    transformer_params,
)
from .validation import VALIDATION_ROWS, ValidationRow, calibrate, predict_row, validation_layout, validation_table

__all__ = ["model_flops_per_token", "mfu", "exposed_communication", "efficiency", "dp_step", "dp_break_even_tokens",
           "pipeline_bubble_fraction", "ceiling_fraction", "transformer_params", "iteration_flops",
           "Layout", "ModelConfig", "Cluster", "StepTime", "Plan", "RECOMPUTE_MODES",
           "CALIBRATED_GEMM_EFFICIENCY", "CALIBRATED_COMM_EFFICIENCY", "selective_recompute_overhead",
           "step_flops", "gelu", "stage_params", "elementwise_time", "tp_comm_time", "pp_comm_time", "dp_comm_time",
           "ep_comm_time", "step_time", "dp_step_time", "dp_wire_bytes", "effective_bandwidth",
           "plan", "layout_memory", "layout_memory_breakdown", "inference_memory", "memory_limit_of", "MEMORY_MARGIN",
           "ValidationRow", "VALIDATION_ROWS", "validation_layout", "predict_row",
           "calibrate", "validation_table",
           "attainable_flops", "ridge_intensity", "tp_comm_intensity", "dp_comm_intensity",
           "Traffic", "activation_bytes", "collectives_per_layer", "tp_traffic", "pp_traffic", "dp_traffic",
           "ep_traffic", "step_traffic", "wire_bytes", "network_bytes", "stage_layers", "compute_parts",
           "cp_traffic", "cp_kv_bytes", "cp_comm_time", "ulysses_traffic",
           "causal_work", "cp_ring_step", "cp_min_tokens"]

# private names other modules and chapters use (planning.ipynb calls _group_link)
_PRIVATE = (_group_link, _check_fit, _dp_buckets)
