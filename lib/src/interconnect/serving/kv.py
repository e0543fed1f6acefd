"""Paged KV cache: how many tokens (and sequences) fit next to the weights.

vLLM (Kwon et al. 2023) keeps the KV cache in fixed-size *blocks* of ``block_tokens`` tokens
(16 by default) allocated on demand, like pages: a sequence wastes at most the unused tail of
its last block, against a whole reserved maximum context in earlier servers. What is left for
blocks is the GPU's memory less what the engine holds back (vLLM's ``gpu_memory_utilization``,
0.9 by default: activations, CUDA graphs, communication buffers) and less the weights.

How the cache splits over a model-parallel group:

* pipeline parallelism (``pp``) splits the layers, so each GPU holds ``1/pp`` of every token;
* tensor parallelism (``tp``) splits the key-value heads: each GPU holds ``1/min(tp, g)`` of a
  token's cache (with ``tp > g`` the ``g`` heads are replicated, as vLLM does for GQA);
* multi-head latent attention (MLA) caches one compressed vector per token and layer, which
  is not split by heads: every TP rank holds all of it.

References
----------
W. Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention", SOSP 2023, sec. 4 (blocks; block size 16, sec. 7.2).
vLLM, ``vllm/config`` (``gpu_memory_utilization=0.9``, ``block_size=16``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import as_count, as_fraction, as_positive, choice

__all__ = ["KVCapacity", "kv_capacity", "kv_shards", "kv_bytes_per_token", "kv_read_factor", "KV_READS"]

#: How a decode attention kernel reads a GQA cache: ``"per-kv-head"`` (each KV head once per step, shared by
#: its group of query heads: FlashAttention, FlashDecoding, TensorRT-LLM's XQA) or ``"per-query-head"`` (one
#: thread block per query head, each reading its group's KV head: the masked-MHA kernel of TensorRT-LLM before
#: XQA).
KV_READS = ("per-kv-head", "per-query-head")


def kv_shards(model, tp):
    """Into how many parts tensor parallelism splits one token's KV cache: ``min(tp, g)``, 1 for MLA.

    Parameters
    ----------
    model : ModelConfig
    tp : int
        Tensor-parallel degree, >= 1.

    Returns
    -------
    int

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> kv_shards(models.get("llama3-70b"), 8), kv_shards(models.get("llama3-70b"), 16)
    (8, 8)
    >>> kv_shards(models.get("deepseek-v3"), 8)
    1
    """
    tp = as_count("tp", tp)
    return 1 if model.is_mla else min(tp, model.n_kv_heads)


def kv_bytes_per_token(model, tp=1, pp=1, kv_bytes=2):
    """Bytes of one token's KV cache on one GPU of a ``tp x pp`` group.

    ``kv_cache_bytes_per_token(kv_bytes) / (pp * kv_shards(model, tp))``
    (:meth:`~interconnect.parallel.ModelConfig.kv_cache_bytes_per_token`: ``2 l g d``
    elements, ``l (d_c + d_rope)`` with MLA).

    Parameters
    ----------
    model : ModelConfig
    tp, pp : int
        Tensor- and pipeline-parallel degrees, >= 1 (``pp`` <= layers).
    kv_bytes : float
        Bytes per cached element, > 0 (1 for an FP8 cache).

    Returns
    -------
    float

    Examples
    --------
    Llama 3 70B, BF16: ``2 x 80 x 8 x 128 x 2`` bytes = 320 KiB per token, 40 KiB per GPU at TP 8:

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-70b")
    >>> kv_bytes_per_token(m) / 2**10, kv_bytes_per_token(m, tp=8) / 2**10
    (320.0, 40.0)
    """
    pp = as_count("pp", pp)
    if pp > model.layers:
        raise ValueError(f"pp={pp} is not allowed; allowed 1 to layers={model.layers}")
    return model.kv_cache_bytes_per_token(as_positive("kv_bytes", kv_bytes, "bytes")) / (pp * kv_shards(model, tp))


def kv_read_factor(model, kv_reads="per-kv-head"):
    """Bytes of KV cache a decode step reads from HBM, per byte cached: 1, or ``heads / g`` when
    the attention kernel reads a KV head once for each of its query heads.

    TensorRT-LLM's generation-phase masked multi-head attention runs "a single CUDA thread-block
    per head" (of the query heads), so with GQA each of the ``heads / g`` query heads of a
    group reads the group's K and V again; its XQA kernel (TensorRT-LLM v0.8, 2024) reads each
    KV head once for the whole group, as FlashAttention's and FlashDecoding's kernels do.

    Parameters
    ----------
    model : ModelConfig
    kv_reads : str
        One of :data:`KV_READS`.

    Returns
    -------
    float

    Examples
    --------
    Llama 2 70B has 64 query heads and 8 KV heads; Llama 2 7B is multi-head (MHA), 32 of each:

    >>> from interconnect.catalog import models
    >>> [kv_read_factor(models.get(m), "per-query-head") for m in ("llama2-70b", "llama2-7b")]
    [8.0, 1.0]
    >>> kv_read_factor(models.get("llama2-70b"))
    1.0

    References
    ----------
    NVIDIA TensorRT-LLM, ``docs/source/advanced/gpt-attention.md`` (generation phase: "a
    single CUDA thread-block per head"; "XQA optimization"), and the XQA blog
    ``docs/source/blogs/XQA-kernel.md`` (2.4 times the Llama 2 70B throughput at 128/2048).
    """
    kv_reads = choice("kv_reads", kv_reads, KV_READS)
    if kv_reads == "per-kv-head" or model.is_mla:
        return 1.0
    return float(model.heads) / float(model.n_kv_heads)


@dataclass(frozen=True)
class KVCapacity:
    """What the paged KV cache of one model replica holds.

    Attributes
    ----------
    tokens : int
        Tokens of context the replica can cache, ``blocks * block_tokens``.
    blocks : int
        Whole KV blocks per GPU (every GPU of the group holds its part of the same blocks).
    sequences : int or None
        Sequences of ``context`` tokens that fit, ``blocks // ceil(context / block_tokens)``;
        None without ``context``.
    bytes_per_token : float
        One token's KV cache on one GPU (:func:`kv_bytes_per_token`).
    weight_bytes : float
        Weights on one GPU, ``weight_bytes * params / (tp pp)``.
    free_bytes : float
        Bytes per GPU left for the cache: ``(1 - reserve) memory - weights``.
    """

    tokens: int
    blocks: int
    sequences: int | None
    bytes_per_token: float
    weight_bytes: float
    free_bytes: float


def kv_capacity(model, gpu="H100", tp=1, pp=1, weight_bytes=2, kv_bytes=2, block_tokens=16, reserve=0.1,
                context=None):
    """Tokens of KV cache that fit on a ``tp x pp`` group after the weights and a reserve.

    ``blocks = floor(((1 - reserve) M - w N / (tp pp)) / (block_tokens kv_gpu))`` with ``M`` the
    GPU's HBM, ``N`` the model's parameters (all experts: an MoE replica holds them all), ``w``
    bytes per weight and ``kv_gpu`` :func:`kv_bytes_per_token`.

    Parameters
    ----------
    model : ModelConfig
        A model of :mod:`interconnect.catalog.models` (or any :class:`~interconnect.parallel.ModelConfig`).
    gpu : str or GPU
        A GPU of :func:`interconnect.devices.get_gpu`: its ``memory`` (binary GiB).
    tp, pp : int
        Tensor- and pipeline-parallel degrees, >= 1 (``pp`` <= layers).
    weight_bytes : float
        Bytes per weight, > 0: 2 for BF16, 1 for FP8.
    kv_bytes : float
        Bytes per cached element, > 0: 2 for BF16, 1 for an FP8 cache.
    block_tokens : int
        Tokens per KV block, >= 1 (vLLM: 16).
    reserve : float
        Fraction of each GPU's memory held back, in [0, 1) (vLLM: ``1 - gpu_memory_utilization``).
    context : int, optional
        Tokens per sequence (prompt and output), >= 1: also count whole sequences.

    Returns
    -------
    KVCapacity

    Raises
    ------
    ValueError
        For arguments out of range, and when the weights leave no room for one block.

    Examples
    --------
    Llama 3 70B in BF16 on 8 H100 (TP 8): 55.6 GiB free per GPU, 1.46 M tokens, 177
    sequences of 8,192:

    >>> from interconnect.catalog import models
    >>> c = kv_capacity(models.get("llama3-70b"), "H100", tp=8, context=8192)
    >>> round(c.free_bytes / 2**30, 1), c.tokens, c.sequences
    (55.6, 1456800, 177)
    """
    from ..devices import GPU, get_gpu

    g = gpu if isinstance(gpu, GPU) else get_gpu(gpu)
    tp, pp, bt = as_count("tp", tp), as_count("pp", pp), as_count("block_tokens", block_tokens)
    reserve = float(as_fraction("reserve", reserve, 0.0, 1.0, low_open=False))
    if reserve >= 1.0:
        raise ValueError(f"reserve={reserve!r} is out of range; allowed [0.0, 1.0)")
    per_token = kv_bytes_per_token(model, tp, pp, kv_bytes)
    weights = float(as_positive("weight_bytes", weight_bytes, "bytes")) * model.params / (tp * pp)
    free = (1.0 - reserve) * g.memory - weights
    blocks = int(free // (bt * per_token)) if free > 0 else 0
    if blocks < 1:
        raise ValueError(f"tp={tp}, pp={pp}: the weights ({weights / 2**30:.1f} GiB per GPU) leave no room for one "
                         f"KV block in {(1.0 - reserve) * g.memory / 2**30:.1f} GiB of {g.name}; allowed: a larger "
                         "tp * pp, fewer weight_bytes or a smaller reserve")
    seqs = None
    if context is not None:
        seqs = blocks // math.ceil(as_count("context", context) / bt)
    return KVCapacity(tokens=blocks * bt, blocks=blocks, sequences=seqs, bytes_per_token=per_token,
                      weight_bytes=weights, free_bytes=free)
