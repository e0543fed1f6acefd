"""Published serving measurements: the rows :mod:`interconnect.serving.validation` predicts.

Primary sources only, each row as published (lengths in tokens, throughput in output tokens
per second, latency in seconds). The model is named by its :mod:`interconnect.catalog.models`
key (same architecture: Llama 3.3 70B is Llama 3.1 70B's, ``llama3-70b``; TensorRT-LLM's 2023
"LLaMA 7B/70B" are Llama 2, as its build commands state).

* ``nvidia-trtllm-perf-overview``: NVIDIA TensorRT-LLM, ``docs/source/performance/perf-overview.md``
  (v1.0, PyTorch backend, commit 00f37686aa854010d68bcbd0f4ab000221541ca6), "Throughput
  Measurements": ``trtllm-bench throughput`` fed at an infinite rate (maximum load), "Total
  Output Throughput (tokens/sec)" of the whole TP group, FP8 checkpoints of the NVIDIA Model
  Optimizer collection on DGX H100 and DGX H200, every request of the same input and output
  length, TensorRT-LLM's default capacity scheduler (``GUARANTEED_NO_EVICT``: a request is
  admitted with blocks reserved for its whole input and output, ``admission="reserve"``).
  The KV-cache precision is not stated in the table. The benchmark's ``llm_options.yml`` sets no
  ``kv_cache_config``, so its ``dtype`` is ``"auto"``, which "uses the data type specified in the
  model checkpoint" (``nvidia-trtllm-llama33-recipe``; ``validate_and_set_kv_cache_quant`` of
  ``tensorrt_llm/_torch/pyexecutor/model_engine.py`` leaves the checkpoint's KV quantisation as
  it is for ``"auto"``, ``nvidia-trtllm-kv-auto``): one precision per checkpoint, for all its
  rows. A bound settles it for two checkpoints: a row above
  :func:`~interconnect.serving.reserve_rate_bound` for a BF16 cache (all the memory
  beyond FP8 weights given to the cache, ``GUARANTEED_NO_EVICT`` admission, the peak HBM
  bandwidth) cannot have been measured with one. Ten Llama 3.1 8B rows are above it (22,714
  tokens/s on H100 at 128/2048 against a bound of 18,569), and so are both Llama 3.3 70B rows at
  128/4096 (2,872 tokens/s on H200 against 2,499; 4,199 on H100 against 3,994): the 8B and 70B
  checkpoints store a one-byte cache, and all their rows take ``kv_bytes=1``. No 405B row
  decides it; those rows take BF16 (2 bytes), the default when a checkpoint quantises no KV
  cache (the 405B checkpoint's card: "only the weights and activations of the linear operators
  within transformer blocks are quantized").
* ``nvidia-trtllm-performance-2023``: NVIDIA TensorRT-LLM, ``docs/source/performance.md``
  (commit 138f96d45f90b9667426f7c47297d8c06bafac73): "Peak Throughput" (v0.6.1, static
  batching with ``gptSessionBenchmark``: a batch of ``batch`` prompts prefilled together, then
  decoded together to the end; output tokens per second per GPU) and "Low Latency" (v0.5,
  first-token latency at batch 1). FP8 weights with an FP8 KV cache on H100
  (``--enable_fp8 --fp8_kv_cache``), FP16 on A100. Decode attention in these versions is the
  masked-MHA kernel, one thread block per query head: with GQA (Llama 2 70B, 8 query heads per
  KV head) each KV head is read once per query head, ``kv_reads="per-query-head"``
  (:func:`~interconnect.serving.kv_read_factor`); the XQA kernel that reads it once per group
  came with v0.8 (TensorRT-LLM's XQA blog: 2.4 times the Llama 2 70B throughput at 128/2048).
  The tensor-parallel AllReduce is NCCL's, ``allreduce="nccl"``: the build commands of the
  same page do not pass ``--use_custom_all_reduce``, which ``examples/llama/build.py`` at that
  commit (``nvidia-trtllm-llama-build-2023``) defines as ``store_true`` ("Activates
  latency-optimized algorithm for all-reduce instead of NCCL"), so it is off. The first-token
  rows time the whole ``GptSession::generate`` call of ``gptSessionBenchmark``
  (``nvidia-trtllm-gptsessionbenchmark``) at batch 1 and one output token (``--input_output_len
  "<isl>,1"``, no CUDA graphs): the context phase and the sampling of its token, no queueing,
  no tokenizer, no HTTP. They ran TensorRT-LLM v0.5 (``engine="trtllm-v0.5"``), whose streaming
  kernels NVIDIA measured in the same release: GPT-J 6B at batch 1 decodes 185 tokens/s on H100
  in FP8 and 111 on A100 in FP16 (``nvidia-trtllm-h100-vs-a100``, TensorRT-LLM v0.5.0 and
  TensorRT 9.1), so they are predicted with the HBM fraction those rates imply
  (:func:`~interconnect.serving.v05_stream_efficiency`), not with the DeepGEMM fraction of
  :data:`~interconnect.serving.STREAM_EFFICIENCY`. The static rows ran v0.6.1
  (``engine="trtllm-v0.6.1"``), whose decode attention reads the FP8 cache at the fraction of the
  HBM bandwidth the same table's GPT-J 6B row at 2,048/2,048 implies
  (:func:`~interconnect.serving.v061_attention_efficiency`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PublishedServing", "PUBLISHED", "MODES", "ENGINES"]

#: How a row was measured, and so what the model predicts for it.
MODES = ("max-throughput", "static", "first-token")

#: The engines whose settings change a row's prediction (``PublishedServing.engine``).
ENGINES = ("trtllm-bench", "trtllm-v0.5", "trtllm-v0.6.1")


@dataclass(frozen=True)
class PublishedServing:
    """One published serving measurement.

    Attributes
    ----------
    source : str
        Key of ``book/references.bib``.
    where : str
        Table of the source.
    model : str
        Catalog key (:func:`interconnect.catalog.models.get`).
    model_name : str
        As published.
    machine : str
        Machine preset (:func:`interconnect.parallel.machines.machine`).
    tp : int
        Tensor-parallel degree (GPUs of the replica).
    precision : str
        ``"fp8"`` (weights and GEMMs) or ``"bf16"``/``"fp16"``.
    kv_bytes : float
        Bytes per KV-cache element.
    prompt, output : int
        Input and output tokens per request.
    batch : int or None
        Requests batched together (static and first-token rows); None under maximum load.
    mode : str
        One of :data:`MODES`.
    metric : str
        ``"output_tokens_per_s"`` (whole group), ``"output_tokens_per_s_per_gpu"`` or ``"ttft_s"``.
    value : float
        The published number, in the metric's unit.
    admission : str
        How the engine admits requests against the KV cache, one of
        :data:`~interconnect.serving.ADMISSIONS` (maximum-load rows).
    kv_reads : str
        How its decode attention reads a GQA cache, one of :data:`~interconnect.serving.KV_READS`.
    allreduce : str
        The engine's tensor-parallel AllReduce, an ``algorithm`` of
        :func:`~interconnect.serving.tp_allreduce_time`: ``"auto"`` (custom one-/two-shot kernels
        with an NCCL fallback) or ``"nccl"`` (NCCL only).
    engine : str or None
        One of :data:`ENGINES` or None. ``"trtllm-bench"``: the row was run by ``trtllm-bench throughput`` without
        ``--max_batch_size``/``--max_num_tokens``, so the engine takes the limits of
        :func:`~interconnect.serving.trtllm_bench_limits`, and (``llm_options.yml`` of
        the v1.0 overview: ``cuda_graph_config: enable_padding: true``) pads decode-only batches
        up to the CUDA-graph sizes of :func:`~interconnect.serving.trtllm_graph_batches`; with
        FP8 weights and an FP8 cache its context attention runs in FP8
        (:func:`~interconnect.serving.fp8_context_attention`).
        ``"trtllm-v0.5"``: the row was run by TensorRT-LLM v0.5, whose streaming kernels reach the
        fraction of the HBM bandwidth of :func:`~interconnect.serving.v05_stream_efficiency`.
        ``"trtllm-v0.6.1"``: the row was run by TensorRT-LLM v0.6.1, whose decode attention reads
        the KV cache at :func:`~interconnect.serving.v061_attention_efficiency` of the HBM bandwidth.
        None: neither.
    """

    source: str
    where: str
    model: str
    model_name: str
    machine: str
    tp: int
    precision: str
    kv_bytes: float
    prompt: int
    output: int
    batch: int | None
    mode: str
    metric: str
    value: float
    admission: str = "on-demand"
    kv_reads: str = "per-kv-head"
    allreduce: str = "auto"
    engine: str | None = None


_OV = "Throughput Measurements (H100 SXM and H200 SXM, FP8)"


#: KV-cache bytes per element of the v1.0 rows, by model: the checkpoint's precision, which
#: ``reserve_rate_bound`` settles for the 8B and 70B checkpoints (see the module's notes).
_OV_KV = {"llama3-8b": 1.0, "llama3-70b": 1.0, "llama3-405b": 2.0}


def _ov(model, name, machine, tp, isl, osl, value):
    return PublishedServing("nvidia-trtllm-perf-overview", _OV, model, name, machine, tp, "fp8", _OV_KV[model], isl,
                            osl, None, "max-throughput", "output_tokens_per_s", float(value), admission="reserve",
                            engine="trtllm-bench")


def _static(model, name, tp, batch, isl, osl, value):
    return PublishedServing("nvidia-trtllm-performance-2023", "Peak Throughput, H100 GPUs (FP8), v0.6.1", model, name,
                            "dgx-h100", tp, "fp8", 1.0, isl, osl, batch, "static", "output_tokens_per_s_per_gpu",
                            float(value), kv_reads="per-query-head", allreduce="nccl", engine="trtllm-v0.6.1")


def _first(model, name, machine, tp, isl, ms):
    fp8 = machine == "dgx-h100"
    where = "Low Latency, " + ("H100 GPUs (FP8)" if fp8 else "A100 GPUs (FP16)") + ", v0.5"
    return PublishedServing("nvidia-trtllm-performance-2023", where, model, name, machine, tp, "fp8" if fp8 else "fp16",
                            1.0 if fp8 else 2.0, isl, 1, 1, "first-token", "ttft_s", ms * 1e-3,
                            allreduce="nccl", engine="trtllm-v0.5")


#: Every published row, in source order.
PUBLISHED = (
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 128, 128, 27911),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 128, 128, 28312),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 128, 2048, 26221),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 128, 2048, 22714),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 128, 4096, 18027),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 128, 4096, 14325),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 500, 2000, 20770),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 500, 2000, 17660),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 1000, 1000, 17744),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 1000, 1000, 15220),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 1000, 2000, 16828),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 1000, 2000, 13899),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 2048, 128, 3538),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 2048, 128, 3450),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 2048, 2048, 12194),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 2048, 2048, 9305),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 5000, 500, 3902),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 5000, 500, 3459),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h200", 1, 20000, 2000, 1804),
    _ov("llama3-8b", "Llama 3.1 8B", "dgx-h100", 1, 20000, 2000, 1351),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 128, 128, 3803),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 128, 128, 6378),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 128, 2048, 4336),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 128, 2048, 6651),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 128, 4096, 2872),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 128, 4096, 4199),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 500, 2000, 3666),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 500, 2000, 5222),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 1000, 1000, 2909),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 1000, 1000, 4205),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 1000, 2000, 2994),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 1000, 2000, 4146),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 2048, 128, 442),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 2048, 128, 762),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 2048, 2048, 2003),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 2048, 2048, 3082),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 5000, 500, 566),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 5000, 500, 898),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h200", 1, 20000, 2000, 283),
    _ov("llama3-70b", "Llama 3.3 70B", "dgx-h100", 2, 20000, 2000, 437),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 128, 128, 3814),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 128, 128, 3627),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 128, 2048, 5348),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 128, 2048, 4340),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 128, 4096, 4741),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 128, 4096, 3116),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 500, 2000, 4724),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 500, 2000, 3994),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 1000, 1000, 3330),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 1000, 1000, 2919),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 1000, 2000, 3722),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 1000, 2000, 2895),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 2048, 128, 456),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 2048, 128, 453),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 2048, 2048, 2948),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 2048, 2048, 2296),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 5000, 500, 650),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 5000, 500, 610),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h200", 8, 20000, 2000, 505),
    _ov("llama3-405b", "Llama 3.1 405B", "dgx-h100", 8, 20000, 2000, 345),
    _static("llama2-7b", "LLaMA 7B", 1, 768, 128, 128, 19694),
    _static("llama2-7b", "LLaMA 7B", 1, 112, 128, 2048, 6818),
    _static("llama2-7b", "LLaMA 7B", 1, 80, 2048, 128, 2244),
    _static("llama2-7b", "LLaMA 7B", 1, 48, 2048, 2048, 2740),
    _static("llama2-70b", "LLaMA 70B", 2, 1024, 128, 128, 2657),
    _static("llama2-70b", "LLaMA 70B", 4, 480, 128, 2048, 1486),
    _static("llama2-70b", "LLaMA 70B", 2, 96, 2048, 128, 306),
    _static("llama2-70b", "LLaMA 70B", 2, 64, 2048, 2048, 547),
    _first("llama2-7b", "LLaMA 7B", "dgx-h100", 1, 128, 7),
    _first("llama2-7b", "LLaMA 7B", "dgx-h100", 1, 2048, 36),
    _first("llama2-70b", "LLaMA 70B", "dgx-h100", 4, 128, 26),
    _first("llama2-70b", "LLaMA 70B", "dgx-h100", 4, 2048, 109),
    _first("llama2-7b", "LLaMA 7B", "dgx-a100", 1, 128, 16),
    _first("llama2-7b", "LLaMA 7B", "dgx-a100", 1, 2048, 133),
    _first("llama2-70b", "LLaMA 70B", "dgx-a100", 4, 128, 47),
    _first("llama2-70b", "LLaMA 70B", "dgx-a100", 4, 2048, 377),
)
