"""The serving models against published measurements: every row's prediction and error.

Each row of :data:`~interconnect.serving.published.PUBLISHED` is predicted by the package's
models with the machine presets' component efficiencies (the measured GEMM ceiling, the
measured fused-attention rate, the measured NVLink AllReduce fraction); nothing is fitted to
these rows. How a row is predicted depends on how it was measured:

* ``"max-throughput"`` (in-flight batching fed at an infinite rate): the output throughput of
  :func:`~interconnect.serving.sustainable_rate`, ``rate * output``, the steady state whose
  running batch fills the paged KV cache (10 % of HBM held back) under the engine's
  admission rule (the row's ``admission``). Rows run by ``trtllm-bench`` (``engine``) also take
  the limits it sets, :func:`trtllm_bench_limits`: the running batch is capped at its
  ``max_batch_size``, and decode-only iterations are padded to the CUDA-graph sizes
  :func:`trtllm_graph_batches` derives from the two limits; where the checkpoint stores an FP8 cache
  (the Llama 3.1 8B and 3.3 70B rows) the engine's context attention runs in FP8
  (:func:`fp8_context_attention`), at :data:`FP8_ATTENTION_SPEEDUP` times the measured BF16 rate
  (:func:`engine_machine`). Their engine, TensorRT-LLM v1.0's PyTorch backend, runs every FP8 linear
  layer through cuBLASLt, so on the Hopper presets those layers take the measured curve
  :func:`~interconnect.serving.linear_roofline_fraction`, and decode attention reads the cache at the
  measured :data:`~interconnect.serving.DECODE_ATTENTION_EFFICIENCY`;
* ``"static"`` (a batch prefilled together and decoded together to the end): per GPU,
  ``batch * output / (prefill + sum of the output - 1 decode steps) / tp``, the prefill by
  :func:`~interconnect.serving.prefill_time` and each step by
  :func:`~interconnect.serving.decode_step_time` at its context, its KV read multiplied by
  :func:`~interconnect.serving.kv_read_factor` of the row's decode kernel (``kv_reads``). These rows
  ran TensorRT-LLM v0.6.1 (``engine="trtllm-v0.6.1"``), whose decode attention reads the cache at
  :func:`v061_attention_efficiency` of the HBM bandwidth, the fraction at which the same rule
  reproduces the table's GPT-J 6B row at 2,048 input and output tokens, in place of
  :data:`~interconnect.serving.DECODE_ATTENTION_EFFICIENCY`: one constant for Hopper from a
  held-out row (GPT-J is in none of the validation rows), within 5 % of that measured fraction;
* ``"first-token"``: :func:`~interconnect.serving.prefill_time` of the batch (``gptSessionBenchmark``
  timed the prefill and the sampling of its one token at batch 1: no queue, no server). These rows
  ran TensorRT-LLM v0.5 (``engine="trtllm-v0.5"``), and every HBM stream of their prefill (weights,
  cache writes, element-wise kernels) runs at :func:`v05_stream_efficiency` of the HBM bandwidth, the
  fraction NVIDIA's own batch-1 decode rates of GPT-J 6B on that release imply, in place of
  :data:`~interconnect.serving.STREAM_EFFICIENCY`: one measured constant per GPU generation, taken
  from GPT-J rows that are not in the table, so every Llama row is held out.

The 2023 rows ran TensorRT engines (:data:`TENSORRT_ENGINES`), whose FP8 GEMMs are TensorRT's own
tactics, not the cuBLASLt call that was measured: :func:`engine_machine` gives their machine an
``fp8_gemm_efficiency`` at the measured ceiling, the roofline of every engine before the curve.

Every prediction prices the tensor-parallel AllReduces with the row's ``allreduce``
(:func:`~interconnect.serving.tp_allreduce_time`): ``"auto"`` for engines with custom one- and
two-shot kernels, ``"nccl"`` for the 2023 builds, which left them off.

The error is ``predicted / measured - 1``. :func:`validation_table` lists every row,
:func:`validation_summary` counts them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .published import PUBLISHED, PublishedServing

__all__ = ["ValidationRow", "predict", "validation_table", "validation_summary", "TARGET", "reserve_rate_bound",
           "trtllm_bench_limits", "trtllm_graph_batches", "PERF_OVERVIEW_GRAPH_BATCHES", "V05_GPTJ_BATCH1_RATE",
           "GPTJ_6B", "v05_stream_efficiency", "engine_machine", "V061_GPTJ_STATIC", "v061_attention_efficiency",
           "V061_GPTJ_ROWS", "gptj_static_rate",
           "FP8_ATTENTION_SPEEDUP", "fp8_context_attention", "TENSORRT_ENGINES"]

#: The CUDA-graph batch sizes of the ``llm_options.yml`` that NVIDIA's TensorRT-LLM v1.0 performance
#: overview passes to ``trtllm-bench`` for dense models, with ``enable_padding: true``.
PERF_OVERVIEW_GRAPH_BATCHES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024, 2048, 4096, 8192)

#: The error the issue asks for, as a fraction.
TARGET = 0.15

#: GPT-J 6B decoded at batch 1 after a 128-token prompt by TensorRT-LLM v0.5.0 with TensorRT 9.1:
#: ``(output tokens per second, weight precision)`` on one SXM 80GB GPU of each machine, NVIDIA's
#: "H100 has 4.6x A100 Performance in TensorRT-LLM" (``nvidia-trtllm-h100-vs-a100``, table "Max
#: Throughput & Min Latency", rows of batch size 1): 185 on H100 in FP8, 111 on A100 in FP16.
V05_GPTJ_BATCH1_RATE = {"dgx-h100": (185.0, "fp8"), "dgx-a100": (111.0, "fp16")}

#: GPT-J 6B (``wang2021gptj``): layers, model width, MLP width (GELU, not gated) and vocabulary as
#: padded in the checkpoint; 6,053,381,344 parameters.
GPTJ_6B = {"layers": 28, "hidden": 4096, "d_ff": 16384, "vocab": 50400}

#: GPT-J 6B on one H100 in FP8 with an FP8 KV cache, TensorRT-LLM v0.6.1, static batching with
#: ``gptSessionBenchmark``: ``(batch, input tokens, output tokens, output tokens/s per GPU)``, the
#: row of the "Peak Throughput, H100 GPUs (FP8)" table (``nvidia-trtllm-performance-2023``, the
#: table of the static validation rows) that reads the most KV cache: at 2,048 input and 2,048
#: output tokens the cache reads are 81 % of the time the model gives it (:func:`gptj_static_rate`).
V061_GPTJ_STATIC = (64, 2048, 2048, 3327.0)

#: The GPT-J 6B rows of the same table, :data:`V061_GPTJ_STATIC` last; the other three are checks.
V061_GPTJ_ROWS = ((1024, 128, 128, 26150.0), (120, 128, 2048, 8011.0), (64, 2048, 128, 2551.0), V061_GPTJ_STATIC)

#: GPT-J 6B's attention heads, 16 of 256 (the build command of ``nvidia-trtllm-performance-2023``,
#: ``--n_head 16``): multi-head attention, so its decode kernel reads every KV head once.
GPTJ_HEADS = 16


def v05_stream_efficiency(machine):
    """Fraction of the HBM bandwidth TensorRT-LLM v0.5's kernels stream at on ``machine``'s GPU.

    A decode step at batch 1 reads every weight once and little else (the cache of a few hundred
    tokens is under 1 % of the weights), so the batch-1 rate of :data:`V05_GPTJ_BATCH1_RATE`
    measures the weight stream: ``bytes per token x rate / memory_bandwidth``. The bytes are the
    transformer blocks' linear weights, ``layers (4 h^2 + 2 h f)`` at the rate's precision (1 byte
    in FP8), and the output projection, ``h V`` at 2 bytes (an assumption: TensorRT-LLM's FP8 recipe
    quantises the linear layers inside the transformer blocks; with an FP8 output projection the H100
    fraction would be 3 % lower). Everything else the step does (the element-wise kernels of one
    token, launching its kernels without CUDA graphs, sampling) is counted as part of the stream,
    so the fraction is a lower bound on the bandwidth of the GEMMs alone. The rate is taken over
    the whole generation, its first token included (at most 1.5 % of the time for 20 or more output
    tokens; the source does not give the output length).

    One number per GPU generation, measured on GPT-J, a model of none of the validation rows: it
    replaces :data:`~interconnect.serving.STREAM_EFFICIENCY` (DeepGEMM's 2025 kernels) for the rows
    TensorRT-LLM v0.5 ran (``engine="trtllm-v0.5"``).

    Parameters
    ----------
    machine : str
        A machine of :data:`V05_GPTJ_BATCH1_RATE`.

    Returns
    -------
    float

    Examples
    --------
    A third of an H100's HBM bandwidth in FP8, against 69 % for the streaming kernels of
    :func:`~interconnect.serving.stream_bandwidth`; on A100 in FP16 nearly as much:

    >>> round(v05_stream_efficiency("dgx-h100"), 3), round(v05_stream_efficiency("dgx-a100"), 3)
    (0.334, 0.636)
    """
    from .._validate import choice
    from .steps import as_machine

    machine = choice("machine", machine, list(V05_GPTJ_BATCH1_RATE))
    rate, precision = V05_GPTJ_BATCH1_RATE[machine]
    g = GPTJ_6B
    blocks = g["layers"] * (4 * g["hidden"] ** 2 + 2 * g["hidden"] * g["d_ff"])
    per_token = blocks * (1.0 if precision == "fp8" else 2.0) + 2.0 * g["hidden"] * g["vocab"]
    return per_token * rate / as_machine(machine).memory_bandwidth


#: How much faster FlashAttention-3 runs in FP8 than in BF16 on an H100: "close to 1.2 PFLOPs/s" in FP8
#: against "up to 740 TFLOPs/s" in FP16/BF16, its forward pass's best figures (``shah2024flashattention3``,
#: abstract): 1.62.
FP8_ATTENTION_SPEEDUP = 1.2e15 / 740e12


def fp8_context_attention(row):
    """Whether ``row``'s engine runs its prefill attention in FP8: TensorRT-LLM's PyTorch backend
    (``engine="trtllm-bench"``) with FP8 linear layers and an FP8 KV cache.

    Its attention module hands the FP8 output projection's scale to the attention backend
    (``out_scale = self.o_proj.inv_input_scale`` when ``o_proj.has_fp8_qdq``), which then asks for
    an FP8 output when the cache is FP8 too (``TrtllmAttention.forward``: ``out_dtype =
    torch.float8_e4m3fn`` if ``has_fp8_qdq and has_fp8_kv_cache``), and an FP8 output switches on
    the FP8 context FMHA kernels (``mFP8ContextFMHA = is_fp8_out || ...`` in
    ``cpp/tensorrt_llm/thop/attentionOp.cpp``; ``nvidia-trtllm-fp8-context-fmha``). So the Llama 3.1
    8B and Llama 3.3 70B rows (one-byte cache) prefill in FP8, the 405B rows (BF16 cache) in BF16.

    Parameters
    ----------
    row : PublishedServing

    Returns
    -------
    bool

    Examples
    --------
    >>> from interconnect.serving.published import PUBLISHED
    >>> sorted({(r.model, fp8_context_attention(r)) for r in PUBLISHED if r.engine == "trtllm-bench"})
    [('llama3-405b', False), ('llama3-70b', True), ('llama3-8b', True)]
    """
    if not isinstance(row, PublishedServing):
        raise ValueError(f"row={row!r} is not allowed; allowed: a PublishedServing")
    return row.engine == "trtllm-bench" and row.precision == "fp8" and row.kv_bytes == 1.0


def engine_machine(row):
    """The machine of ``row`` as its engine ran it: for the TensorRT engines (:data:`TENSORRT_ENGINES`) its FP8
    GEMMs on the roofline at the measured ceiling (``fp8_gemm_efficiency``) in place of the measured cuBLASLt
    curve; for ``engine="trtllm-v0.5"`` also its streaming kernels at
    :func:`v05_stream_efficiency` of the HBM bandwidth in place of
    :data:`~interconnect.serving.STREAM_EFFICIENCY` (through ``memory_bandwidth``, which only the
    streaming terms of the step models read); where :func:`fp8_context_attention`, its attention at
    :data:`FP8_ATTENTION_SPEEDUP` times the measured BF16 fused-attention rate (through
    ``peak_flops``, the BF16 peak, which in an FP8 row sets nothing but the attention rate: the GEMMs
    take ``peak_flops_fp8``); the machine preset as it is otherwise.

    Parameters
    ----------
    row : PublishedServing

    Returns
    -------
    Cluster

    Examples
    --------
    >>> from interconnect.serving import stream_bandwidth
    >>> from interconnect.serving.published import PUBLISHED
    >>> r = next(r for r in PUBLISHED if r.mode == "first-token" and r.machine == "dgx-h100")
    >>> round(stream_bandwidth(r.machine) / 1e12, 2), round(stream_bandwidth(engine_machine(r)) / 1e12, 2)
    (2.3, 1.12)
    >>> r = next(r for r in PUBLISHED if r.model == "llama3-8b" and r.machine == "dgx-h100")
    >>> round(engine_machine(r).peak_flops / 1e12, 1), round(engine_machine(r).peak_flops_fp8 / 1e12, 1)
    (1604.4, 1978.9)
    """
    import dataclasses

    from .steps import STREAM_EFFICIENCY, as_machine

    if not isinstance(row, PublishedServing):
        raise ValueError(f"row={row!r} is not allowed; allowed: a PublishedServing")
    cl = as_machine(row.machine)
    if fp8_context_attention(row):
        return dataclasses.replace(cl, peak_flops=cl.peak_flops * FP8_ATTENTION_SPEEDUP)
    if row.engine not in TENSORRT_ENGINES:
        return cl
    cl = _tensorrt_gemms(cl)
    if row.engine != "trtllm-v0.5":
        return cl
    return dataclasses.replace(cl, memory_bandwidth=cl.memory_bandwidth * v05_stream_efficiency(row.machine)
                               / STREAM_EFFICIENCY)


#: The engines of the 2023 rows, TensorRT engines built by TensorRT-LLM v0.5 and v0.6.1: their GEMMs
#: are TensorRT's tactics, not the cuBLASLt call of :data:`~interconnect.serving.FP8_LINEAR_ROOFLINE`.
TENSORRT_ENGINES = ("trtllm-v0.5", "trtllm-v0.6.1")


def _tensorrt_gemms(cl):
    """``cl`` with its FP8 GEMMs on the roofline at the measured ceiling (``fp8_gemm_efficiency`` set to
    :func:`~interconnect.parallel.ceiling_fraction`), as for every engine before the measured curve:
    the TensorRT engines' kernels were not measured."""
    import dataclasses

    from ..parallel.gemm import CEILING_FP8, ceiling_fraction

    if cl.gemm_gpu not in CEILING_FP8:
        return cl
    return dataclasses.replace(cl, fp8_gemm_efficiency=ceiling_fraction(cl.gemm_gpu, "fp8"))


@dataclass(frozen=True)
class ValidationRow:
    """One published row with the model's prediction.

    Attributes
    ----------
    row : PublishedServing
    predicted, measured : float
        In the row's metric.
    error : float
        ``predicted / measured - 1``.
    """

    row: PublishedServing
    predicted: float
    measured: float
    error: float

    @property
    def within_target(self):
        """``abs(error) <= TARGET``."""
        return abs(self.error) <= TARGET


def reserve_rate_bound(model, machine, tp, prompt, output, kv_bytes, weight_bytes=1.0, fraction=1.0):
    """An upper bound on the output tokens per second of a ``tp``-GPU replica that admits requests
    by reserving their whole length in the KV cache (``admission="reserve"``), whatever its kernels.

    Every GPU's memory beyond its share of the weights, times ``fraction``, holds the cache, so
    at most ``B = fraction (M - w N / tp) / (kv (prompt + output))`` requests run at once
    (``kv``: :func:`~interconnect.serving.kv_bytes_per_token`; ``M``: the GPU's memory). A step
    reads at least the weights and the running batch's cache at its mean context
    ``prompt + output / 2``, at the peak HBM bandwidth ``bw``, and yields one token per running
    request, so the rate is at most ``B bw / (w N / tp + B (prompt + output / 2) kv)``, which grows
    with ``B``. Activations, the engine's own buffers and every other kernel only lower it.

    A published maximum-load row above this bound for a given ``kv_bytes`` rules that cache
    precision out for the engine that measured it.

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        Needs its ``memory_bandwidth`` and ``gemm_gpu`` (whose ``memory`` is used).
    tp : int
        Tensor-parallel degree, >= 1.
    prompt, output : int
        Tokens per request, >= 1.
    kv_bytes, weight_bytes : float
        Bytes per cached element and per weight, > 0.
    fraction : float
        Share of the memory beyond the weights given to the cache, in (0, 1].

    Returns
    -------
    float
        Output tokens per second of the replica.

    Examples
    --------
    Llama 3.3 70B in FP8 on one H200, 128 input and 4,096 output tokens: NVIDIA's published
    2,872 tokens/s is above the bound for a BF16 cache and below it for an FP8 cache.

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-70b")
    >>> [round(reserve_rate_bound(m, "dgx-h200", 1, 128, 4096, kv_bytes=b)) for b in (2, 1)]
    [2499, 4997]
    """
    from .._validate import as_count, as_fraction, as_positive
    from ..devices import get_gpu
    from .kv import kv_bytes_per_token
    from .steps import as_machine

    cl = as_machine(machine)
    tp = as_count("tp", tp)
    prompt, output = as_count("prompt", prompt), as_count("output", output)
    fraction = float(as_fraction("fraction", fraction, 0.0, 1.0))
    w = float(as_positive("weight_bytes", weight_bytes, "bytes")) * model.params / tp
    kv = kv_bytes_per_token(model, tp, 1, kv_bytes)
    free = get_gpu(cl.gemm_gpu).memory - w
    if free <= 0:
        raise ValueError(f"tp={tp}: the weights ({w / 2**30:.1f} GiB per GPU) do not fit; allowed: a larger tp")
    batch = fraction * free / (kv * (prompt + output))
    return batch * cl.memory_bandwidth / (w + batch * (prompt + output / 2) * kv)


def trtllm_bench_limits(model, machine, tp, prompt, output, kv_bytes, weight_bytes=1.0, fraction=0.9):
    """The ``(max_batch_size, max_num_tokens)`` that ``trtllm-bench throughput`` gives the engine when
    the command sets neither, as its tuning heuristic computes them.

    ``tensorrt_llm/bench/build/tuning.py`` (``calc_engine_setting``, ``finetune_setting``): the cache
    is ``fraction`` of the group's memory less the weights, at ``2 l max(tp, g) d kv_bytes`` bytes
    per token; ``R = cache / (bytes per token (prompt + output))`` requests fit; the batch
    ``min(R, 4096)`` is rounded up (to a multiple of 32, at least 64, below 256; of 128 below
    1,024; of 256 above) and the tokens ``min(batch (1 + prompt / output), 32768)`` likewise (at
    least 2,048; multiples of 256, 512 or 1,024). Chunked prefill is off by default, so
    ``get_settings`` (``tensorrt_llm/bench/benchmark/utils/general.py``) raises the tokens to at
    least ``prompt + max_batch_size``. ``fraction`` is ``--kv_cache_free_gpu_mem_fraction``, 0.90
    by default. Pipeline parallelism is not covered (``pp = 1``). Source: book/references.bib
    ``nvidia-trtllm-bench-tuning`` (stored versions of the files, not pinned to v1.0's commit).

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        Its ``gemm_gpu``'s ``memory`` stands for the device memory the heuristic reads.
    tp : int
        Tensor-parallel degree, >= 1.
    prompt, output : int
        The dataset's mean input and output tokens, >= 1.
    kv_bytes, weight_bytes : float
        Bytes per cached element and per weight, > 0.
    fraction : float
        In (0, 1].

    Returns
    -------
    tuple of int

    Examples
    --------
    Llama 3.1 405B in FP8 with a BF16 cache on 8 H200, 128 input and 2,048 output tokens:

    >>> from interconnect.catalog import models
    >>> trtllm_bench_limits(models.get("llama3-405b"), "dgx-h200", 8, 128, 2048, kv_bytes=2)
    (768, 2048)
    """
    from .._validate import as_count, as_fraction, as_positive
    from ..devices import get_gpu
    from .steps import as_machine

    cl = as_machine(machine)
    tp = as_count("tp", tp)
    prompt, output = as_count("prompt", prompt), as_count("output", output)
    fraction = float(as_fraction("fraction", fraction, 0.0, 1.0))
    kv_bytes = float(as_positive("kv_bytes", kv_bytes, "bytes"))
    weights = float(as_positive("weight_bytes", weight_bytes, "bytes")) * model.params
    g = 1 if model.is_mla else model.n_kv_heads
    per_token = model.kv_cache_bytes_per_token(kv_bytes) * max(tp, g) / g
    free = get_gpu(cl.gemm_gpu).memory * tp - weights
    if free <= 0:
        raise ValueError(f"tp={tp}: the weights ({weights / 2**30:.1f} GiB) do not fit the group's memory; "
                         "allowed: a larger tp")
    raw = min(fraction * free / (per_token * (prompt + output)), 4096.0)
    batch = _round_up(raw, 64, ((256, 32), (1024, 128), (math.inf, 256)))
    raw_tokens = min(raw * (1.0 + prompt / output), 32768.0)
    tokens = _round_up(raw_tokens, 2048, ((4096, 256), (8192, 512), (math.inf, 1024)))
    return int(batch), int(max(tokens, prompt + batch))


def _round_up(x, floor, bands):
    """``x`` rounded up to a multiple of its band's step, at least ``floor``: ``bands`` is
    ``((upper bound, step), ...)`` in increasing order, as trtllm-bench rounds its limits."""
    step = next(s for bound, s in bands if x < bound)
    return max(floor, step * math.ceil(x / step))


def trtllm_graph_batches(max_batch_size, max_num_tokens, batch_sizes=PERF_OVERVIEW_GRAPH_BATCHES):
    """The batch sizes TensorRT-LLM captures CUDA graphs for, with padding enabled.

    ``_filter_cuda_graph_batch_sizes`` of ``tensorrt_llm/_torch/pyexecutor/model_engine.py``: the
    given sizes up to ``min(max_batch_size, max_num_tokens)`` (the largest decode-only batch), and,
    when a given size exceeds that, the limit itself, so that larger batches are padded to it
    (``nvidia-trtllm-bench-tuning``).

    Parameters
    ----------
    max_batch_size, max_num_tokens : int
        The engine's limits (:func:`trtllm_bench_limits`), >= 1.
    batch_sizes : sequence of int
        The configured sizes, ascending.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> trtllm_graph_batches(768, 2048)[-4:]
    (256, 384, 512, 768)
    """
    from .._validate import as_count

    top = min(as_count("max_batch_size", max_batch_size), as_count("max_num_tokens", max_num_tokens))
    out = []
    for b in batch_sizes:
        b = as_count("batch_sizes", b)
        if b <= top:
            out.append(b)
        else:
            out.append(top)
            break
    return tuple(sorted(set(out)))


def _static_parts(model, cl, tp, batch, prompt, output, fp8, kv_bytes, kv_reads, allreduce):
    """``(prefill, the steps' time but their KV reads, the steps' KV reads, their attention arithmetic)``
    of a static batch, the last two one entry per decode step, seconds: the KV reads at
    :data:`~interconnect.serving.DECODE_ATTENTION_EFFICIENCY`, to be rescaled to another kernel's fraction."""
    from .kv import kv_read_factor
    from .steps import _decode, prefill_time

    p = prefill_time(model, cl, prompt, tp=tp, fp8=fp8, batch=batch, kv_bytes=kv_bytes, algorithm=allreduce).total
    read = kv_bytes * kv_read_factor(model, kv_reads)     # bytes a step reads per cached element
    steps = [_decode(model, cl, tp, float(batch), c, fp8, read, 2.0, allreduce)
             for c in np.arange(prompt + 1, prompt + output, dtype=float)]
    kv = np.array([d.kv for d in steps])
    attention = np.array([d.attention for d in steps])
    rest = sum(d.total - max(d.kv, d.attention) for d in steps)
    return p, rest, kv, attention


def _static_time(parts, kv_efficiency):
    """Seconds of a static batch (:func:`_static_parts`), its cache read at ``kv_efficiency`` of HBM."""
    from .steps import DECODE_ATTENTION_EFFICIENCY

    p, rest, kv, attention = parts
    return p + rest + float(np.sum(np.maximum(kv * (DECODE_ATTENTION_EFFICIENCY / kv_efficiency), attention)))


def _static_rate(parts, batch, output, tp, kv_efficiency):
    return batch * output / _static_time(parts, kv_efficiency) / tp


def _gptj():
    from ..parallel import ModelConfig

    g = GPTJ_6B
    return ModelConfig(layers=g["layers"], hidden=g["hidden"], heads=GPTJ_HEADS, seq_len=2048, vocab=g["vocab"],
                       global_batch=1, ffn_hidden=g["d_ff"], tied_embeddings=False, position_embedding="rope",
                       bias=True, name="GPT-J 6B")


@lru_cache(maxsize=1)
def v061_attention_efficiency():
    """Fraction of the HBM bandwidth at which TensorRT-LLM v0.6.1's decode attention reads an FP8 KV
    cache on an H100.

    The static rows of ``nvidia-trtllm-performance-2023`` spend most of their time in decode
    attention, the masked multi-head attention kernel reading every sequence's cache once per step
    (per query head, :func:`~interconnect.serving.kv_read_factor`). No measurement of that kernel's
    bandwidth is published; :data:`~interconnect.serving.STREAM_EFFICIENCY` is DeepGEMM's 2025
    GEMMs of a few rows, a different kind of kernel. The same table has GPT-J 6B, a model of none
    of the validation rows, with multi-head attention (no repeated reads): this is the fraction at
    which the model's static prediction of its :data:`V061_GPTJ_STATIC` row equals the published
    rate, every other term as for the validation rows. One constant, for Hopper, from one held-out
    row; it carries whatever else the model misses in that row (81 % of whose time is the cache
    read), so it is the effective rate of the kernel, not a clean bandwidth.

    Returns
    -------
    float

    Examples
    --------
    Higher than the 69 % of DeepGEMM's small GEMMs:

    >>> round(v061_attention_efficiency(), 3)
    0.868
    """
    from scipy.optimize import brentq

    from .steps import as_machine

    batch, prompt, output, rate = V061_GPTJ_STATIC
    parts = _static_parts(_gptj(), _tensorrt_gemms(as_machine("dgx-h100")), 1, batch, prompt, output, True, 1.0,
                          "per-kv-head", "nccl")
    # the rate falls as the fraction falls
    return float(brentq(lambda eff: _static_rate(parts, batch, output, 1, eff) - rate, 0.05, 5.0, xtol=1e-12))


def gptj_static_rate(batch, prompt, output, kv_efficiency=None):
    """GPT-J 6B's output tokens per second on one H100 in FP8 with an FP8 cache, static batching, by the
    rule of the static validation rows, and the share of its time that reads the cache.

    Parameters
    ----------
    batch, prompt, output : int
        Sequences, input and output tokens, >= 1 (``output`` >= 2).
    kv_efficiency : float, optional
        Fraction of the HBM bandwidth the cache is read at, in (0, 1]; default
        :func:`v061_attention_efficiency`.

    Returns
    -------
    (float, float)
        Output tokens/s per GPU, and the cache reads' share of the time.

    Examples
    --------
    >>> rate, share = gptj_static_rate(64, 2048, 2048)
    >>> round(rate), round(share, 2)
    (3327, 0.81)
    """
    from .._validate import as_count, as_fraction
    from .steps import DECODE_ATTENTION_EFFICIENCY, as_machine

    batch, prompt, output = as_count("batch", batch), as_count("prompt", prompt), as_count("output", output, 2)
    eff = v061_attention_efficiency() if kv_efficiency is None else float(
        as_fraction("kv_efficiency", kv_efficiency, 0.0, 1.0))
    parts = _static_parts(_gptj(), _tensorrt_gemms(as_machine("dgx-h100")), 1, batch, prompt, output, True, 1.0,
                          "per-kv-head", "nccl")
    read = float(np.sum(parts[2])) * DECODE_ATTENTION_EFFICIENCY / eff
    return float(_static_rate(parts, batch, output, 1, eff)), float(read / _static_time(parts, eff))


def _static(row, cl, model, fp8):
    from .steps import DECODE_ATTENTION_EFFICIENCY

    parts = _static_parts(model, cl, row.tp, row.batch, row.prompt, row.output, fp8, row.kv_bytes, row.kv_reads,
                          row.allreduce)
    eff = v061_attention_efficiency() if row.engine == "trtllm-v0.6.1" else DECODE_ATTENTION_EFFICIENCY
    return _static_rate(parts, row.batch, row.output, row.tp, eff)


def predict(row):
    """The model's value of ``row``'s metric.

    Parameters
    ----------
    row : PublishedServing

    Returns
    -------
    float

    Examples
    --------
    >>> from interconnect.serving.published import PUBLISHED
    >>> r = PUBLISHED[0]
    >>> r.model_name, r.machine, r.tp, r.prompt, r.output, r.value
    ('Llama 3.1 8B', 'dgx-h200', 1, 128, 128, 27911.0)
    >>> round(predict(r))
    30264
    """
    from ..catalog import models
    from .batching import sustainable_rate
    from .steps import prefill_time

    if not isinstance(row, PublishedServing):
        raise ValueError(f"row={row!r} is not allowed; allowed: a PublishedServing")
    model, fp8 = models.get(row.model), row.precision == "fp8"
    if row.mode == "max-throughput":
        graphs = limit = None
        if row.engine == "trtllm-bench":
            limit, tokens = trtllm_bench_limits(model, row.machine, row.tp, row.prompt, row.output, row.kv_bytes,
                                                weight_bytes=1.0 if fp8 else 2.0)
            graphs = trtllm_graph_batches(limit, tokens)
        return sustainable_rate(model, engine_machine(row), row.tp, row.prompt, row.output, fp8=fp8,
                                kv_bytes=row.kv_bytes, admission=row.admission, algorithm=row.allreduce,
                                graph_batches=graphs, batch_limit=limit) * row.output
    if row.mode == "static":
        return _static(row, engine_machine(row), model, fp8)
    return prefill_time(model, engine_machine(row), row.prompt, tp=row.tp, fp8=fp8, batch=row.batch,
                        kv_bytes=row.kv_bytes, algorithm=row.allreduce).total


@lru_cache(maxsize=1)
def validation_table():
    """Every published row with its prediction and error, in :data:`PUBLISHED` order.

    Returns
    -------
    tuple of ValidationRow

    Examples
    --------
    >>> t = validation_table()
    >>> len(t), sum(r.within_target for r in t)
    (76, 71)
    """
    out = []
    for row in PUBLISHED:
        p = float(predict(row))
        out.append(ValidationRow(row=row, predicted=p, measured=row.value, error=p / row.value - 1.0))
    return tuple(out)


def validation_summary(mode=None):
    """Rows, rows within :data:`TARGET`, and the median and largest ``abs(error)``, for one
    measurement mode or all.

    Parameters
    ----------
    mode : str, optional
        One of :data:`~interconnect.serving.published.MODES`; None: every row.

    Returns
    -------
    dict
        ``rows``, ``within``, ``median_abs_error``, ``max_abs_error``, ``mean_error``.

    Examples
    --------
    >>> s = validation_summary("max-throughput")
    >>> s["rows"], s["within"], round(s["median_abs_error"], 2)
    (60, 57, 0.04)
    """
    from .._validate import choice
    from .published import MODES

    rows = validation_table()
    if mode is not None:
        mode = choice("mode", mode, MODES)
        rows = [r for r in rows if r.row.mode == mode]
    err = np.array([r.error for r in rows])
    return {"rows": len(rows), "within": int(np.sum(np.abs(err) <= TARGET)),
            "median_abs_error": float(np.median(np.abs(err))), "max_abs_error": float(np.max(np.abs(err))),
            "mean_error": float(np.mean(err))}
