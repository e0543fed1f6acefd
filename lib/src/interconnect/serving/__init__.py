"""Serving: LLM inference on the machine and model catalogs.

* :mod:`~interconnect.serving.kv`: the paged KV cache (vLLM): :func:`kv_capacity`, what one
  token's cache takes per GPU (:func:`kv_bytes_per_token`, :func:`kv_shards`).
* :mod:`~interconnect.serving.steps`: :func:`prefill_time` (compute-bound, causal
  FlashAttention) and :func:`decode_step_time` (bound by HBM at small batch, the weights read at
  the bandwidth a streaming kernel reaches, :func:`stream_bandwidth`, the cache at the measured
  decode-attention fraction, :data:`DECODE_ATTENTION_EFFICIENCY`; FP8 linear layers on Hopper on
  the measured cuBLASLt curve, :func:`linear_roofline_fraction`), with GQA/MLA, MoE and FP8, and
  the tensor-parallel AllReduces.
* :mod:`~interconnect.serving.allreduce`: the small-message AllReduces inference engines use,
  one-shot, two-shot, NVLS and ring (:func:`allreduce_small`, :func:`allreduce_crossover`).
* :mod:`~interconnect.serving.batching`: continuous batching in steady state
  (:func:`continuous_batching`, :func:`sustainable_rate`): throughput against TTFT and TPOT.
* :mod:`~interconnect.serving.disagg`: disaggregated prefill and decode (DistServe,
  Splitwise, Mooncake): :func:`kv_transfer_time` over NVLink, PCIe or RDMA (layer-wise or
  not), :func:`colocated` against :func:`disaggregated`, goodput per GPU and
  :func:`disagg_pays`.
* :mod:`~interconnect.serving.moe`: expert-parallel MoE decode with data-parallel attention
  (:func:`moe_decode_step_time`): the dispatch and combine AllToAlls of
  :mod:`interconnect.moe` over NVLink (an NVL72 rack) or RDMA between 8-GPU nodes.

* :mod:`~interconnect.serving.planner`: :func:`plan_serving`, how many GPUs in what layout
  (colocated or disaggregated; TP, PP, EP; replicas) serve a model at a rate within TTFT and
  TPOT objectives.

* :mod:`~interconnect.serving.published` and :mod:`~interconnect.serving.validation`:
  published serving measurements (TensorRT-LLM's performance tables) and every row's
  prediction and error (:func:`validation_table`, :func:`validation_summary`).

Pipeline parallelism (``pp``) is an argument of :func:`prefill_time`,
:func:`decode_step_time`, :func:`continuous_batching` and :func:`sustainable_rate`.

The one-request decode model of the chapter "Applications"
(:func:`interconnect.applications.decode_step`) is the special case of a dense model with
16-bit weights and a ring AllReduce, and ends in this package's step,
:func:`decode_roofline`; this package takes its model from the catalog
(:mod:`interconnect.catalog.models`) and its machine from
:func:`interconnect.parallel.machines.machine`. SI units throughout: bytes, seconds, bytes/s.
"""

from .allreduce import (
    SMALL_ALGORITHMS,
    TP_ALGORITHMS,
    allreduce_coefficients,
    allreduce_crossover,
    allreduce_small,
    tp_allreduce_time,
)
from .batching import ADMISSIONS, ServingPoint, continuous_batching, sustainable_rate
from .disagg import (
    KV_PATHS,
    DisaggVerdict,
    KVTransfer,
    ServingLayout,
    colocated,
    colocated_goodput,
    decode_goodput,
    disagg_pays,
    disaggregated,
    kv_transfer_time,
    prefill_goodput,
)
from .kv import KV_READS, KVCapacity, kv_bytes_per_token, kv_capacity, kv_read_factor, kv_shards
from .machines import H100_PCIE, pcie_h100
from .moe import MoEDecodeTime, moe_decode_step_time
from .planner import ServingOption, ServingPlan, plan_serving
from .published import PublishedServing
from .steps import (
    DECODE_ATTENTION_EFFICIENCY,
    FP8_CURVE_GPUS,
    FP8_LINEAR_ROOFLINE,
    STREAM_EFFICIENCY,
    DecodeTime,
    PrefillTime,
    as_machine,
    decode_roofline,
    decode_step_time,
    elementwise_bytes_per_token,
    linear_roofline_fraction,
    prefill_time,
    stream_bandwidth,
    weights_read,
)
from .validation import (
    FP8_ATTENTION_SPEEDUP,
    GPTJ_6B,
    PERF_OVERVIEW_GRAPH_BATCHES,
    TARGET,
    TENSORRT_ENGINES,
    V05_GPTJ_BATCH1_RATE,
    V061_GPTJ_ROWS,
    V061_GPTJ_STATIC,
    ValidationRow,
    engine_machine,
    fp8_context_attention,
    gptj_static_rate,
    predict,
    reserve_rate_bound,
    trtllm_bench_limits,
    trtllm_graph_batches,
    v05_stream_efficiency,
    v061_attention_efficiency,
    validation_summary,
    validation_table,
)

__all__ = ["SMALL_ALGORITHMS", "TP_ALGORITHMS", "allreduce_small", "allreduce_coefficients", "allreduce_crossover",
           "tp_allreduce_time", "STREAM_EFFICIENCY", "elementwise_bytes_per_token",
           "KVCapacity",
           "kv_capacity", "kv_bytes_per_token", "kv_shards", "PrefillTime", "DecodeTime", "prefill_time",
           "stream_bandwidth", "decode_step_time", "weights_read", "as_machine", "ServingPoint", "continuous_batching",
           "sustainable_rate", "KV_PATHS", "KVTransfer", "kv_transfer_time", "ServingLayout", "colocated",
           "disaggregated", "DisaggVerdict", "disagg_pays", "prefill_goodput", "decode_goodput", "colocated_goodput",
           "MoEDecodeTime", "moe_decode_step_time", "ServingOption", "ServingPlan", "plan_serving",
           "PublishedServing", "TARGET", "ValidationRow", "predict", "validation_table", "reserve_rate_bound",
           "trtllm_bench_limits", "trtllm_graph_batches", "PERF_OVERVIEW_GRAPH_BATCHES", "V05_GPTJ_BATCH1_RATE",
           "GPTJ_6B", "v05_stream_efficiency", "V061_GPTJ_STATIC", "v061_attention_efficiency", "V061_GPTJ_ROWS",
           "gptj_static_rate", "FP8_ATTENTION_SPEEDUP", "fp8_context_attention", "engine_machine",
           "validation_summary", "ADMISSIONS", "KV_READS", "kv_read_factor", "decode_roofline", "pcie_h100",
           "H100_PCIE", "DECODE_ATTENTION_EFFICIENCY", "FP8_LINEAR_ROOFLINE", "FP8_CURVE_GPUS",
           "linear_roofline_fraction", "TENSORRT_ENGINES"]
