"""Prefill and decode step times of one tensor-parallel model replica.

* **Prefill** (the prompt, all its tokens at once) is compute-bound: the linear layers'
  ``2 N_active`` FLOPs per token at the GPU's measured GEMM ceiling
  (:func:`~interconnect.parallel.ceiling_fraction`; the FP8 ceiling with ``fp8=True``), plus
  causal attention with FlashAttention at the measured fused-attention fraction of the BF16
  peak (:func:`~interconnect.parallel.machines.attention_efficiency_of`): half of the
  ``s x s`` scores, ``l a (d_qk + d_v) s^2`` FLOPs for a prompt of ``s`` (Megatron's count,
  :meth:`~interconnect.parallel.ModelConfig.forward_flops_per_token`, takes the full square).
  Logits only for the prompt's last token.
* **Decode** (one token for each of ``b`` sequences) is bound by memory at small batch
  (Pope et al. 2022): each step reads the weights and the batch's KV cache from HBM. The
  step is a roofline *per kind of kernel*: the weight GEMMs take
  ``max(weights over HBM bandwidth, their FLOPs at the GEMM ceiling)``, the attention kernels
  ``max(KV cache over HBM bandwidth, their FLOPs at the fused-attention rate)``, one after the
  other (they are separate kernels and each waits for the one before, so a GEMM bound by
  its FLOPs does not hide an attention bound by its HBM reads). At batch 1 both are memory
  bound and the step is ``(weights + KV) / bandwidth``, the roofline of
  :func:`interconnect.applications.decode_step` (which leaves out the element-wise kernels
  below, a few per cent of a small batch's step). The weights are those an MoE step actually
  reads (the experts its ``b`` tokens touch), FP8 weights and peak where asked, and the KV
  cache split as :func:`~interconnect.serving.kv_shards`.
* **Bandwidth** that those reads reach is not the HBM peak. The weight GEMMs of a few rows
  stream their operands at :func:`stream_bandwidth`: the best published FP8 GEMMs of 64 and 128
  rows reach a median 69 % of an H800's HBM bandwidth (DeepGEMM's table,
  :data:`DEEPGEMM_SMALL_M_BANDWIDTH`), and cuBLASLt's reach the same on an H200
  (``benchmarks/decode_streaming.py``); the prefill's weight and cache-write traffic is read at
  the same rate. Decode attention reads the cache at :data:`DECODE_ATTENTION_EFFICIENCY` (83 %,
  cuDNN's kernel measured on an H200).
* **FP8 linear layers on Hopper** (a machine whose ``gemm_gpu`` is in :data:`FP8_CURVE_GPUS` and
  which names no ``fp8_gemm_efficiency``) take the time measured for cuBLASLt's FP8 GEMM, the
  kernel TensorRT-LLM's PyTorch backend calls: both bounds of the roofline, the weights at the
  HBM peak and the FLOPs at the FP8 peak, divided by the share :func:`linear_roofline_fraction`
  of the roofline such a layer reaches (0.69-0.72 with few rows, 0.57-0.61 near the ridge, 0.64
  with many). Elsewhere, or where the machine names ``fp8_gemm_efficiency`` (the 2023 TensorRT
  engines of :mod:`~interconnect.serving.validation`), the roofline at the measured ceiling.

**Element-wise kernels** (norms, residual adds, RoPE, the SwiGLU product, the FP8 casts of the
GEMM inputs) are bound by HBM traffic, not FLOPs, in both phases: each token writes every
activation tensor of a layer once and the next kernel reads it, twice the bytes the training
model stores per token (:func:`interconnect.memory.layer_activation_bytes`, Korthikanti et al.
2022, with fused attention and no dropout: the accounting of the training step's
``interconnect.parallel.compute.elementwise_time``), plus with FP8
:data:`FP8_CAST_BYTES` per element of each linear layer's input, all read at
:func:`stream_bandwidth` (:func:`elementwise_bytes_per_token`). Counted as separate kernels, as
Megatron-Core runs them; an engine that fuses a norm or a cast into its neighbour moves fewer
bytes, so this term is an upper estimate.

Both add ``2 l`` tensor-parallel AllReduces of ``tokens * hidden * act_bytes`` bytes (two per
layer, Shoeybi et al. 2019, not overlapped: each layer waits for the one before), costed by
:func:`~interconnect.serving.tp_allreduce_time`: the fastest of the custom one-shot and
two-shot kernels (closed forms at the NVLink's measured large-message fraction
``comm_efficiency`` and its per-step latency ``intra_latency``, 0.6 us for NVLink 4: a lower
bound for a kernel's flag barrier; price another with
``dataclasses.replace(machine("dgx-h100"), intra_latency=...)``) and NCCL as the machine runs
it (:meth:`~interconnect.parallel.Cluster.collective_time`: on the presets NCCL's own model,
its algorithm and protocol by size). TP stays inside one NVLink domain.

**Pipeline parallelism** (``pp`` stages of ``l / pp`` layers, each a TP group of ``tp`` GPUs)
splits the weights and the KV cache over more GPUs without shortening a token's path: every
token still goes through all layers, one stage after another, and between two stages its
activations (``tokens * hidden * act_bytes`` bytes) are sent by
:func:`interconnect.transfer.p2p_copy` over NVLink when the ``tp * pp`` GPUs fit in one NVLink
domain, by :func:`interconnect.transfer.gpudirect_rdma` otherwise. A prefill's latency is the
sum of its stages plus ``pp - 1`` sends (the pipeline raises prefill *throughput* ``pp``-fold
when prompts follow one another, not latency). Decode splits the batch into ``microbatches``
``m`` (default ``pp``, as vLLM's pipeline-parallel engine keeps ``pp`` batches in flight): a
stage processes the ``m`` microbatches in turn, each re-reading the stage's weights, and a
sequence's next token waits for its microbatch to come round, so
``TPOT = max(m, pp) x (stage time of b / m sequences + one send)``. Stages are taken as
balanced (the embedding and logits spread like the layers).

Assumptions: weights in BF16 (``fp8=False``) or FP8 (``fp8=True``, 1 byte each and the FP8
GEMM ceiling); attention always in BF16; routing of MoE tokens uniform and independent (so
``b`` tokens touch ``E (1 - (1 - k/E)^b)`` of ``E`` routed experts); no expert parallelism
(all experts on every TP rank, split like the dense MLP); element-wise kernels unfused (above);
sampling free; MLA decode counted as standard attention over the decompressed heads.

References
----------
R. Pope et al., "Efficiently Scaling Transformer Inference", MLSys 2023 (arXiv:2211.05102).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
arXiv:2205.05198, sec. 4.1 (the activations of a layer, element by element).
T. Dao, "FlashAttention-2", ICLR 2024; J. Shah et al., "FlashAttention-3", NeurIPS 2024
(the causal mask halves the work).
M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, sec. 3.
C. Zhao, L. Zhao, J. Li, Z. Xu, DeepGEMM, github.com/deepseek-ai/DeepGEMM, README "Performance" (initial
commit a6d97a1, 2025): FP8 GEMMs on H800, TFLOPS and memory bandwidth per shape.
W. Kwon et al., vLLM, ``vllm/v1/engine`` (pipeline parallelism with ``pp`` batches in flight).
"""

from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from .._validate import as_count, as_positive, choice
from .allreduce import TP_ALGORITHMS, tp_allreduce_time
from .kv import kv_bytes_per_token

__all__ = ["PrefillTime", "DecodeTime", "prefill_time", "decode_step_time", "weights_read", "as_machine",
           "decode_roofline", "stream_bandwidth", "STREAM_EFFICIENCY", "DEEPGEMM_SMALL_M_BANDWIDTH",
           "elementwise_bytes_per_token", "FP8_CAST_BYTES", "FP8_LINEAR_ROOFLINE", "FP8_CURVE_GPUS",
           "DECODE_ATTENTION_EFFICIENCY", "linear_roofline_fraction"]


def as_machine(machine):
    """A :class:`~interconnect.parallel.Cluster`: a machine name of
    :func:`~interconnect.parallel.machines.machine_names`, or a Cluster as it is.

    Parameters
    ----------
    machine : str or Cluster
        Needs its ``memory_bandwidth``.

    Returns
    -------
    Cluster

    Examples
    --------
    >>> as_machine("dgx-h100").memory_bandwidth / 1e12
    3.35
    """
    from ..parallel import Cluster
    from ..parallel.machines import machine as preset

    if isinstance(machine, str):
        machine = preset(machine)
    if not isinstance(machine, Cluster):
        raise ValueError(f"machine={machine!r} is not allowed; allowed: a name such as 'dgx-h100' "
                         "(interconnect.parallel.machines.machine_names()) or a Cluster")
    if machine.memory_bandwidth is None:
        raise ValueError("machine has memory_bandwidth=None; allowed: a Cluster with its HBM bandwidth in bytes/s")
    return machine


#: Memory bandwidth DeepGEMM's FP8 GEMMs of 64 and 128 rows (the row counts of a decode batch)
#: reach on an H800 SXM5, bytes/s: the twelve rows with ``M`` = 64 and 128 of the first table of
#: its README ("Normal GEMMs for dense models", initial commit a6d97a1, February 2025; NVCC
#: 12.8), in the table's order. Bytes are the GEMM's operands and output, most of them the
#: ``N x K`` weight matrix a decode step streams.
DEEPGEMM_SMALL_M_BANDWIDTH = (1688e9, 2455e9, 2143e9, 2668e9, 2320e9, 2470e9,
                              1509e9, 2448e9, 2103e9, 2604e9, 2221e9, 2277e9)

#: HBM bandwidth of the H800 SXM5 the table was measured on, bytes/s, taken as the H100 SXM5's
#: 3.35 TB/s of HBM3: the H800 is the H100 SXM5 with a narrower NVLink (an assumption; the
#: bibliography holds no H800 datasheet).
H800_MEMORY_BANDWIDTH = 3.35e12

#: Fraction of the HBM bandwidth a streaming kernel reaches: the median of
#: :data:`DEEPGEMM_SMALL_M_BANDWIDTH` over :data:`H800_MEMORY_BANDWIDTH` (0.686), one constant
#: taken from that one component measurement, none of the validation rows. It is Hopper's; the
#: library holds no such measurement of another GPU, so every GPU takes it (an assumption, as
#: :func:`~interconnect.serving.pcie_h100` takes the SXM's fractions), and it is applied to the
#: attention kernels' KV-cache reads as well as the weight GEMMs (an assumption too: no
#: measurement of a decode attention kernel's bandwidth).
STREAM_EFFICIENCY = float(np.median(DEEPGEMM_SMALL_M_BANDWIDTH)) / H800_MEMORY_BANDWIDTH


#: FP8 linear layers on Hopper, measured: ``(M, x, f)`` for ``M`` rows, with ``x`` the layer's
#: FLOPs at the dense FP8 peak over its bytes (weights, input and output) at the HBM peak, and
#: ``f`` the roofline time ``max(bytes / HBM peak, FLOPs / FP8 peak)`` over the measured time:
#: medians over the 16 linear layers of Llama 3.1 8B and 70B at TP 1, 70B at TP 2 and 405B at TP 8,
#: timed on one H200 (``benchmarks/decode_streaming.py``, data in
#: ``benchmarks/data/decode_streaming_h200.json``, PyTorch 2.11, 2026-12-04). The kernel is
#: cuBLASLt's FP8 GEMM as ``torch._scaled_mm`` calls it with fast accumulation: TensorRT-LLM's
#: PyTorch backend runs an FP8 per-tensor linear layer of more than 8 rows through
#: ``torch.ops.trtllm.cublas_scaled_mm``, which its own test checks equal to that call
#: (``nvidia-trtllm-scaled-mm``). A kernel of a few rows streams its weights at 0.69-0.72 of the
#: peak (DeepGEMM's FP8 kernels on an H800 reach a median 0.686, :data:`STREAM_EFFICIENCY`); near
#: the ridge (``x`` about 1, ``M`` = 192-384 on an H200) it is neither, at 0.57-0.61; many rows
#: reach 0.64 of the FP8 peak, below the best shape of a sweep (Bekman's 0.734,
#: :func:`~interconnect.parallel.ceiling_fraction`).
FP8_LINEAR_ROOFLINE = ((16, 0.077, 0.715), (32, 0.153, 0.715), (64, 0.303, 0.687), (96, 0.45, 0.688),
                       (128, 0.593, 0.695), (160, 0.732, 0.645), (192, 0.869, 0.606), (256, 1.133, 0.565),
                       (320, 1.386, 0.584), (384, 1.628, 0.603), (512, 2.084, 0.638), (768, 2.893, 0.642),
                       (1024, 3.59, 0.64), (1536, 4.729, 0.635), (2048, 5.62, 0.644), (4096, 7.838, 0.639),
                       (8192, 9.764, 0.64))

#: GPUs whose FP8 linear layers take :data:`FP8_LINEAR_ROOFLINE` (``gemm_gpu`` of the machine):
#: Hopper, where it was measured (an H200, the H100's die with faster HBM: ``x`` carries the
#: difference). Other GPUs keep the roofline at the measured ceiling and :data:`STREAM_EFFICIENCY`.
FP8_CURVE_GPUS = ("H100", "H200")

#: Fraction of the HBM bandwidth a decode attention kernel reads the KV cache at: the median of ten
#: measurements of cuDNN's fused attention (PyTorch's ``scaled_dot_product_attention``) for one
#: query token per sequence, grouped query heads packed as rows, over 64 or 256 sequences of 1,024
#: to 16,384 cached BF16 tokens, on one H200 (``benchmarks/decode_streaming.py``; range 0.74-0.89).
#: PyTorch's FlashAttention-2 reaches 0.48 on the same cases, a kernel not written for one query.
#: TensorRT-LLM's own decode kernels are not in PyTorch; the fraction its 2023 masked-attention
#: kernel read an FP8 cache at in the GPT-J rows of the same release, 0.868
#: (:func:`~interconnect.serving.v061_attention_efficiency`), agrees within 5 %. Taken for every
#: GPU, as :data:`STREAM_EFFICIENCY` is.
DECODE_ATTENTION_EFFICIENCY = 0.829


def linear_roofline_fraction(x):
    """Share of its roofline an FP8 linear layer reaches on Hopper, interpolated in :data:`FP8_LINEAR_ROOFLINE`.

    Parameters
    ----------
    x : float
        The layer's FLOPs at the dense FP8 peak over its bytes at the HBM peak, > 0; it is
        ``M / M*``, the rows over the ridge's rows, within a few per cent. Beyond the measured
        range (0.077 to 9.8) the end values hold.

    Returns
    -------
    float
        In (0, 1].

    Examples
    --------
    A decode batch of 64 rows streams its weights at 0.69 of the peak; near the ridge the
    kernel loses more; a prompt's many rows run at 0.64 of the FP8 peak:

    >>> [round(linear_roofline_fraction(x), 3) for x in (0.3, 1.133, 50.0)]
    [0.687, 0.565, 0.64]
    """
    return _share(float(as_positive("x", x, "")))


_LOG_X = tuple(math.log(p[1]) for p in FP8_LINEAR_ROOFLINE)
_SHARE = tuple(p[2] for p in FP8_LINEAR_ROOFLINE)


def _share(x):
    """:func:`linear_roofline_fraction` of a validated ``x > 0``: linear in ``log x`` between the points."""
    lx = math.log(x)
    if lx <= _LOG_X[0]:
        return _SHARE[0]
    if lx >= _LOG_X[-1]:
        return _SHARE[-1]
    i = bisect.bisect_right(_LOG_X, lx)
    x0, x1 = _LOG_X[i - 1], _LOG_X[i]
    return _SHARE[i - 1] + (_SHARE[i] - _SHARE[i - 1]) * (lx - x0) / (x1 - x0)


def _linear_terms(cl, fp8, wbytes, flops, gemm):
    """``(weights, linear)`` seconds of the weight GEMMs: ``wbytes`` over the streaming bandwidth
    and ``flops`` at ``gemm`` FLOP/s, the two bounds of a roofline; for FP8 on a machine of
    :data:`FP8_CURVE_GPUS` that names no ``fp8_gemm_efficiency``, the two bounds at the peaks
    divided by the measured share :func:`linear_roofline_fraction` of their ratio, so that
    ``max(weights, linear)`` is the measured time."""
    if fp8 and cl.fp8_gemm_efficiency is None and cl.gemm_gpu in FP8_CURVE_GPUS and wbytes > 0.0 and flops > 0.0:
        w, f = wbytes / cl.memory_bandwidth, flops / cl.peak_flops_fp8
        share = _share(f / w)
        return w / share, f / share
    return wbytes / _stream(cl), flops / gemm


def _kv_read(cl, nbytes):
    """Seconds to read ``nbytes`` of KV cache in decode attention: at
    :data:`DECODE_ATTENTION_EFFICIENCY` of the HBM bandwidth."""
    return nbytes / (cl.memory_bandwidth * DECODE_ATTENTION_EFFICIENCY)


def stream_bandwidth(machine):
    """HBM bandwidth a decode step's streaming kernels reach on one GPU of ``machine``, bytes/s:
    ``memory_bandwidth x`` :data:`STREAM_EFFICIENCY`.

    A GEMM of a few rows (a decode batch) is bound by reading its weights, and even the best such
    kernels leave part of the HBM bandwidth unused: DeepGEMM's FP8 GEMMs of 64 and 128 rows
    reach 1.5 to 2.7 TB/s of an H800's 3.35 TB/s, a median of 69 %.

    Parameters
    ----------
    machine : str or Cluster

    Returns
    -------
    float

    Examples
    --------
    >>> round(stream_bandwidth("dgx-h100") / 1e12, 2), round(stream_bandwidth("dgx-a100") / 1e12, 2)
    (2.3, 1.4)
    """
    return as_machine(machine).memory_bandwidth * STREAM_EFFICIENCY


def _fp8(fp8):
    if not isinstance(fp8, bool):
        raise ValueError(f"fp8={fp8!r} is not a bool; allowed True or False")
    return fp8


@lru_cache(maxsize=64)
def _stream(cl):
    return stream_bandwidth(cl)


@lru_cache(maxsize=64)
def _rates(cl, fp8):
    """(GEMM FLOP/s, attention FLOP/s) of one GPU."""
    from ..parallel.gemm import CEILING_FP8, ceiling_fraction

    if fp8:
        if cl.peak_flops_fp8 is None:
            raise ValueError("fp8=True is not allowed on this machine: its GPU has no FP8 peak "
                             "(peak_flops_fp8=None); allowed: fp8=False")
        if cl.fp8_gemm_efficiency is not None:
            eff = cl.fp8_gemm_efficiency
        elif cl.gemm_gpu is not None and cl.gemm_gpu in CEILING_FP8:
            eff = ceiling_fraction(cl.gemm_gpu, "fp8")
        else:
            eff = cl.gemm_efficiency
        gemm = cl.peak_flops_fp8 * eff
    else:
        gemm = cl.peak_flops * (ceiling_fraction(cl.gemm_gpu) if cl.gemm_gpu is not None else cl.gemm_efficiency)
    return gemm, cl.peak_flops * (cl.attention_efficiency or cl.gemm_efficiency)


def _check_tp(model, cl, tp):
    tp = as_count("tp", tp)
    if tp > cl.gpus_per_node:
        raise ValueError(f"tp={tp} is not allowed; allowed 1 to gpus_per_node={cl.gpus_per_node} (TP stays in one "
                         "NVLink domain)")
    if model.heads % tp:
        divisors = [d for d in range(1, cl.gpus_per_node + 1) if model.heads % d == 0]
        raise ValueError(f"tp={tp} is not allowed; heads={model.heads} must be divisible by tp "
                         f"(allowed: {', '.join(map(str, divisors))})")
    return tp


def _check_pp(model, cl, tp, pp):
    pp = as_count("pp", pp)
    if pp > model.layers:
        raise ValueError(f"pp={pp} is not allowed; allowed 1 to layers={model.layers}")
    return pp


def _send(cl_or_name, tp, pp, nbytes):
    """One activation send between pipeline stages (0 without pipeline parallelism)."""
    if pp == 1:
        return 0.0
    from ._paths import send_time

    return send_time(cl_or_name, nbytes, tp * pp > as_machine(cl_or_name).gpus_per_node)


def weights_read(model, tokens):
    """Parameters a forward pass over ``tokens`` tokens reads: all of a dense model's; of an MoE
    model's routed experts only those the tokens touch, ``E (1 - (1 - k/E)^tokens)`` per layer.

    Parameters
    ----------
    model : ModelConfig
    tokens : float
        Tokens in the pass (the decode batch), > 0.

    Returns
    -------
    float

    Examples
    --------
    Mixtral 8x7B: one token reads 2 of 8 experts (12.9 B of 46.7 B parameters), 64 tokens
    nearly all:

    >>> from interconnect.catalog import models
    >>> m = models.get("mixtral-8x7b")
    >>> [round(weights_read(m, t) / 1e9, 1) for t in (1, 64)]
    [12.9, 46.7]
    """
    return _weights_read(model, float(as_positive("tokens", tokens)))


@lru_cache(maxsize=64)
def _moe_terms(model):
    """(params, E, k, MoE layers, parameters of one routed expert)."""
    e = model.num_experts
    return float(model.params), e, model.top_k, model.moe_layers, \
        (model.mlp_params(moe=True) - model.hidden * e) / (e + model.shared_experts)


def _weights_read(model, t):
    if model.num_experts is None:
        return float(model.params)
    n, e, k, layers, one = _moe_terms(model)
    touched = e * (1.0 - (1.0 - k / e) ** t)
    return float(n - layers * (e - touched) * one)


def _comm(model, cl, tp, tokens, act_bytes, algorithm):
    if tp == 1:
        return 0.0
    # the one decision between the custom kernels and NCCL (on the presets NCCL's own model)
    return 2.0 * model.layers * tp_allreduce_time(cl, tokens * model.hidden * act_bytes, tp, algorithm)


@lru_cache(maxsize=64)
def _flops(model):
    return model.forward_flops_per_token()


@lru_cache(maxsize=256)
def _kv_per_token(model, tp, kv_bytes):
    return kv_bytes_per_token(model, tp, 1, kv_bytes)


def _attention_per_context(model):
    """``2 l a (d_qk + d_v)``: attention FLOPs per token per token of context."""
    return 2.0 * model.layers * model.heads * (model.d_qk + model.d_v)


#: HBM bytes per element of an inference FP8 cast of a GEMM input: the 16-bit tensor read (2) and
#: its FP8 copy written (1). Inference quantises with static scales (no amax pass) and needs no
#: transposed copy for a backward pass, unlike the training cast
#: (:data:`~interconnect.parallel.compute.FP8_CAST_BYTES_PER_ELEMENT`, 6).
FP8_CAST_BYTES = 3.0


def elementwise_bytes_per_token(model, tp=1, fp8=False):
    """HBM bytes the element-wise kernels of a forward pass move per token on one GPU of a TP group.

    ``layers x (2 A + c K)``: ``A`` the bytes of activations one layer stores per token
    (:func:`interconnect.memory.layer_activation_bytes` for one token, fused attention, no
    dropout; MoE layers with their ``top_k`` experts), each written once and read once by the
    next kernel, as the training step counts its forward pass
    (``interconnect.parallel.compute.elementwise_time``); with ``fp8``, ``c`` =
    :data:`FP8_CAST_BYTES` per element of the ``K`` inputs of the layer's linear GEMMs
    (:func:`~interconnect.parallel.gemm.layer_gemms`). Unfused kernels: an upper estimate.

    Parameters
    ----------
    model : ModelConfig
    tp : int
        Tensor-parallel degree, >= 1 (the replicated norms and block inputs are not split).
    fp8 : bool
        FP8 GEMMs: add the casts of their inputs.

    Returns
    -------
    float

    Examples
    --------
    Llama 3 8B on one GPU: 8.9 MB per token in BF16, 11.5 MB with the FP8 casts; a decode step
    of 256 sequences moves 2.9 GB, 1.3 ms at the 2.3 TB/s of an H100's streaming kernels:

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-8b")
    >>> [round(elementwise_bytes_per_token(m, fp8=f) / 1e6, 1) for f in (False, True)]
    [8.9, 11.5]
    >>> round(256 * elementwise_bytes_per_token(m, fp8=True) / stream_bandwidth("dgx-h100") * 1e3, 1)
    1.3
    """
    return _elementwise(model, as_count("tp", tp), _fp8(fp8))


@lru_cache(maxsize=256)
def _elementwise(model, tp, fp8):
    import dataclasses

    from ..memory import layer_activation_bytes
    from ..parallel import Layout
    from ..parallel.gemm import layer_gemms

    one = dataclasses.replace(model, seq_len=1)
    kw = dict(tp=tp, flash_attention=True, dropout=False)
    dense = layer_activation_bytes(one, **kw)
    if model.num_experts is not None and model.moe_layers:
        moe = layer_activation_bytes(one, moe=True, **kw)
        stored = (model.layers - model.moe_layers) * dense + model.moe_layers * moe
    else:
        stored = model.layers * dense
    casts = 0.0
    if fp8:
        casts = model.layers * FP8_CAST_BYTES * sum(k for _, _, _, k in layer_gemms(one, Layout(dp=1, tp=tp, pp=1)))
    return float(2.0 * stored + casts)


def decode_roofline(weights, kv, linear=0.0, attention=0.0):
    """A decode step's time without communication, roofline per kind of kernel:
    ``max(weights, linear) + max(kv, attention)``, seconds.

    The weight GEMMs take the longer of reading the weights from HBM and their arithmetic;
    then the attention kernels the longer of reading the KV cache and theirs. They are
    separate kernels, one after the other, so a GEMM bound by its FLOPs does not hide an
    attention bound by its HBM reads. :func:`decode_step_time` and
    :func:`interconnect.applications.decode_step` both end in it.

    Parameters
    ----------
    weights, kv : float or array
        Reading the weights and the KV cache over HBM bandwidth, seconds, >= 0.
    linear, attention : float or array
        The weight GEMMs and the attention arithmetic at their rates, seconds, >= 0 (0: free).

    Returns
    -------
    float or ndarray

    Examples
    --------
    At small batch both kernels are memory-bound and the step is the HBM read of weights and
    cache; at large batch the GEMMs' arithmetic takes over, not hiding the cache read:

    >>> round(decode_roofline(5e-3, 1e-3), 6), round(decode_roofline(5e-3, 1e-3, linear=8e-3), 6)
    (0.006, 0.009)
    """
    if all(isinstance(x, float) for x in (weights, kv, linear, attention)):
        return max(weights, linear) + max(kv, attention)      # the scalar path of the batching fixed point
    out = np.maximum(weights, linear) + np.maximum(kv, attention)
    return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True)
class PrefillTime:
    """One prefill of ``batch`` prompts of ``tokens`` tokens, seconds.

    Attributes
    ----------
    linear : float
        The weight GEMMs (and last-token logits) at the GEMM ceiling, per GPU.
    attention : float
        Causal FlashAttention, ``l a (d_qk + d_v) s^2`` FLOPs per prompt, at the fused-attention fraction.
    memory : float
        Reading the weights once and writing the prompts' KV cache, over HBM bandwidth.
    comm : float
        The ``2 l`` TP AllReduces of ``batch tokens h act_bytes`` bytes.
    total : float
        ``max(linear + attention, memory) + elementwise + comm + send``: the prefill's latency.
    tokens_per_second : float
        Prompt tokens per second of the replica, ``batch tokens / total`` (``pp`` times more
        with prompts following each other through the pipeline).
    send : float
        The ``pp - 1`` activation sends between pipeline stages (0 at ``pp = 1``).
    elementwise : float
        The element-wise kernels, ``batch tokens`` :func:`elementwise_bytes_per_token` over
        :func:`stream_bandwidth`.
    """

    linear: float
    attention: float
    memory: float
    comm: float
    total: float
    tokens_per_second: float
    send: float = 0.0
    elementwise: float = 0.0


def prefill_time(model, machine, tokens, tp=1, fp8=False, batch=1, kv_bytes=2, act_bytes=2, algorithm="auto",
                 pp=1):
    """Time to prefill ``batch`` prompts of ``tokens`` tokens on a TP group of ``tp`` GPUs.

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        A machine preset (``"dgx-h100"``, ...) or a :class:`~interconnect.parallel.Cluster`.
    tokens : int
        Prompt length s, >= 1.
    tp : int
        Tensor-parallel degree, 1 to the machine's ``gpus_per_node``, dividing ``heads``.
    fp8 : bool
        FP8 weights and GEMMs.
    batch : int
        Prompts prefilled together, >= 1.
    kv_bytes, act_bytes : float
        Bytes per KV element and per activation element of the AllReduce, > 0.
    algorithm : str
        Of :func:`~interconnect.serving.tp_allreduce_time` ("auto": the fastest of one-shot,
        two-shot and NCCL's choice).
    pp : int
        Pipeline stages, 1 to ``layers``: adds ``pp - 1`` sends of ``batch tokens h act_bytes``
        bytes.

    Returns
    -------
    PrefillTime

    Examples
    --------
    Llama 3 70B, an 8,192-token prompt on 8 H100: 0.34 s, 27 % of it the 160 AllReduces of
    134 MB (NCCL runs them with NVLS); causal attention is 9 % of the compute:

    >>> from interconnect.catalog import models
    >>> p = prefill_time(models.get("llama3-70b"), "dgx-h100", 8192, tp=8)
    >>> round(p.total, 3), round(p.attention / (p.linear + p.attention), 2)
    (0.338, 0.09)
    """
    cl = as_machine(machine)
    tp = _check_tp(model, cl, tp)
    s, b = as_count("tokens", tokens), as_count("batch", batch)
    ab = float(as_positive("act_bytes", act_bytes, "bytes"))
    algorithm = choice("algorithm", algorithm, TP_ALGORITHMS)
    gemm, attn = _rates(cl, _fp8(fp8))
    terms = model.forward_flops_per_token()
    attention = b * _attention_per_context(model) * s * s / 2.0 / (tp * attn)
    kv_bytes = float(as_positive("kv_bytes", kv_bytes, "bytes"))
    wbytes = (1.0 if fp8 else 2.0) * weights_read(model, b * s) / tp
    weights, linear = _linear_terms(cl, fp8, wbytes, b * (s * terms["matmul"] + terms["logits"]) / tp, gemm)
    memory = weights + b * s * kv_bytes_per_token(model, tp, 1, kv_bytes) / _stream(cl)
    elementwise = b * s * _elementwise(model, tp, fp8) / _stream(cl)
    comm = _comm(model, cl, tp, b * s, ab, algorithm)
    pp = _check_pp(model, cl, tp, pp)
    send = (pp - 1) * _send(machine, tp, pp, b * s * model.hidden * ab)
    total = max(linear + attention, memory) + elementwise + comm + send
    return PrefillTime(linear=linear, attention=attention, memory=memory, comm=comm, total=total,
                       tokens_per_second=b * s / total, send=send, elementwise=elementwise)


@dataclass(frozen=True)
class DecodeTime:
    """One decode step (a token for each of ``batch`` sequences), seconds.

    Attributes
    ----------
    weights : float
        Reading this GPU's share of the weights the step uses, over HBM bandwidth.
    kv : float
        Reading this GPU's share of the batch's KV cache.
    compute : float
        ``linear + attention``.
    comm : float
        The ``2 l`` TP AllReduces of ``batch h act_bytes`` bytes (0 at ``tp = 1``).
    total : float
        ``max(weights, linear) + max(kv, attention) + elementwise + comm + send``: the time per
        output token (TPOT) of every sequence.
    tokens_per_second : float
        ``batch / total``, the replica's output tokens per second.
    memory_bound : bool
        ``weights + kv >= compute``.
    linear : float
        Weight GEMMs and logits at the GEMM ceiling.
    attention : float
        Attention over the context at the fused-attention rate.
    send : float
        Activation sends between pipeline stages on a token's way, ``max(m, pp)`` of them
        (0 at ``pp = 1``).
    elementwise : float
        The element-wise kernels of the batch's tokens, :func:`elementwise_bytes_per_token`
        over :func:`stream_bandwidth`.

    With ``pp`` stages and ``m`` microbatches, ``weights``, ``kv``, ``compute`` and ``comm`` are
    what a token waits for: ``max(m, pp)`` stage times of ``b / m`` sequences.
    """

    weights: float
    kv: float
    compute: float
    comm: float
    total: float
    tokens_per_second: float
    memory_bound: bool
    send: float = 0.0
    linear: float = 0.0
    attention: float = 0.0
    elementwise: float = 0.0


def _decode(model, cl, tp, batch, context, fp8, kv_bytes, act_bytes, algorithm, pp=1, microbatches=1, send=(0.0, 0.0)):
    """:func:`decode_step_time` for validated arguments; ``batch`` and ``context`` may be fractional.

    ``send`` is the (latency, seconds per byte) of one stage-to-stage send.
    """
    gemm, attn = _rates(cl, fp8)
    terms = _flops(model)
    b = batch / microbatches
    rounds = max(microbatches, pp) / pp     # stage passes per token, in units of a whole model's layers
    bw = _stream(cl)
    weights, linear = _linear_terms(cl, fp8, rounds * (1.0 if fp8 else 2.0) * _weights_read(model, max(b, 1e-12)) / tp,
                                    rounds * b * (terms["matmul"] + terms["logits"]) / tp, gemm)
    kv = _kv_read(cl, rounds * b * context * _kv_per_token(model, tp, kv_bytes))
    attention = rounds * b * context * _attention_per_context(model) / (tp * attn)
    elementwise = rounds * b * _elementwise(model, tp, fp8) / bw
    comm = rounds * _comm(model, cl, tp, max(b, 1e-12), act_bytes, algorithm)
    sends = 0.0 if pp == 1 else max(microbatches, pp) * (send[0] + b * model.hidden * act_bytes * send[1])
    total = decode_roofline(weights, kv, linear, attention) + elementwise + comm + sends
    return DecodeTime(weights=weights, kv=kv, compute=linear + attention, comm=comm, total=total,
                      tokens_per_second=batch / total, memory_bound=weights + kv >= linear + attention, send=sends,
                      linear=linear, attention=attention, elementwise=elementwise)


def _mixed(model, cl, tp, batch, context, prompts, prompt, fp8, kv_bytes, act_bytes, algorithm):
    """One iteration of continuous batching at ``pp = 1`` (Orca's selective batching): the decode
    tokens of ``batch`` sequences and the ``prompts`` prompts of ``prompt`` tokens that join in it
    go through the linear layers together, one GEMM of ``batch + prompts prompt`` rows per weight
    matrix that reads the weights once; the prompts' causal attention and cache writes go with
    them, as in :func:`prefill_time` (``max(linear + prompt attention, weights + cache writes)``);
    the decodes' attention over their cache is its own roofline, as in :func:`_decode`; the
    element-wise kernels and the AllReduces see every token. ``prompts = 0`` is the decode step
    of :func:`_decode` and ``batch = 0, prompts = 1`` the prefill of :func:`prefill_time`.
    """
    gemm, attn = _rates(cl, fp8)
    terms = _flops(model)
    bw = _stream(cl)
    tokens = batch + prompts * prompt
    kvt = _kv_per_token(model, tp, kv_bytes)
    weights, linear = _linear_terms(cl, fp8, (1.0 if fp8 else 2.0) * _weights_read(model, max(tokens, 1e-12)) / tp,
                                    (tokens * terms["matmul"] + (batch + prompts) * terms["logits"]) / tp, gemm)
    kv = _kv_read(cl, batch * context * kvt)
    attention = batch * context * _attention_per_context(model) / (tp * attn)
    prefill_attention = prompts * _attention_per_context(model) * prompt * prompt / 2.0 / (tp * attn)
    kv_write = prompts * prompt * kvt / bw
    elementwise = tokens * _elementwise(model, tp, fp8) / bw
    comm = _comm(model, cl, tp, max(tokens, 1e-12), act_bytes, algorithm)
    return max(linear + prefill_attention, weights + kv_write) + max(kv, attention) + elementwise + comm


def _send_terms(machine, tp, pp):
    """(latency, seconds per byte) of a stage-to-stage send; (0, 0) at ``pp = 1``."""
    if pp == 1:
        return 0.0, 0.0
    t0 = _send(machine, tp, pp, 0.0)
    return t0, (_send(machine, tp, pp, 1e9) - t0) / 1e9


def decode_step_time(model, machine, batch, context, tp=1, fp8=False, kv_bytes=2, act_bytes=2, algorithm="auto",
                     pp=1, microbatches=None):
    """Time of one decode step of ``batch`` sequences with ``context`` tokens cached each.

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
        A machine preset (``"dgx-h100"``, ...) or a :class:`~interconnect.parallel.Cluster`
        with ``memory_bandwidth``.
    batch : int
        Sequences decoded together, >= 1.
    context : int
        Tokens in each sequence's KV cache, >= 0.
    tp : int
        Tensor-parallel degree, 1 to ``gpus_per_node``, dividing ``heads``.
    fp8 : bool
        FP8 weights (1 byte each) and the FP8 GEMM ceiling.
    kv_bytes, act_bytes : float
        Bytes per KV element (1: an FP8 cache) and per AllReduce element, > 0.
    algorithm : str
        Of :func:`~interconnect.serving.tp_allreduce_time`.
    pp : int
        Pipeline stages, 1 to ``layers``.
    microbatches : int, optional
        Microbatches the batch is split into with ``pp > 1``, 1 to ``batch``; default
        ``min(pp, batch)``.

    Returns
    -------
    DecodeTime

    Examples
    --------
    Llama 3 70B on 8 H100, batch 1, 4,096 tokens of context: the weights' 17.6 GB per GPU
    over the 2.3 TB/s a decode kernel reaches (:func:`stream_bandwidth`), and 160 one-shot
    AllReduces of 16 KB at the machine's 0.6 us NVLink latency:

    >>> from interconnect.catalog import models
    >>> d = decode_step_time(models.get("llama3-70b"), "dgx-h100", 1, 4096, tp=8)
    >>> round(d.total * 1e3, 2), round(d.weights * 1e3, 2), round(d.comm * 1e6), d.memory_bound
    (7.89, 7.67, 146, True)
    """
    cl = as_machine(machine)
    tp = _check_tp(model, cl, tp)
    b = as_count("batch", batch)
    c = as_count("context", context, minimum=0)
    kvb = float(as_positive("kv_bytes", kv_bytes, "bytes"))
    ab = float(as_positive("act_bytes", act_bytes, "bytes"))
    algorithm = choice("algorithm", algorithm, TP_ALGORITHMS)
    pp = _check_pp(model, cl, tp, pp)
    m = min(pp, b) if microbatches is None else as_count("microbatches", microbatches)
    if m > b:
        raise ValueError(f"microbatches={m} is not allowed; allowed 1 to batch={b}")
    return _decode(model, cl, tp, float(b), float(c), _fp8(fp8), kvb, ab, algorithm, pp, m,
                   _send_terms(machine, tp, pp))
