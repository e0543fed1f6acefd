"""Training memory per GPU of a layout: the parameters of the fullest pipeline stage, their
model states under ZeRO/FSDP, the activations in flight, and the memory a GPU leaves for them.

:func:`interconnect.parallel.plan` filters layouts with :func:`layout_memory`; the chapters
show :func:`layout_memory_breakdown`.

References
----------
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
MLSys 2023 (arXiv:2205.05198).
S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC20 (arXiv:1910.02054), Table 1.
Y. Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel",
VLDB 2023 (arXiv:2304.11277), sec. 3.2 (hybrid sharding).
"""

from __future__ import annotations

from functools import lru_cache

from .. import memory as _memory
from .._validate import as_count, as_nonnegative, as_positive
from .layout import _check_fit, stage_layers
from .transformer import transformer_params

__all__ = ["stage_params", "layout_memory", "layout_memory_breakdown", "inference_memory", "memory_limit_of",
           "GiB", "MEMORY_MARGIN"]

#: Bytes per GiB; GPU memory (HBM) is sold in binary units: an "80 GB" H100 holds 80 GiB.
GiB = 2**30


#: What :func:`plan` leaves free of a GPU's memory by default (the CUDA context, NCCL and
#: allocator buffers, fragmentation): 4 GiB, so 76 GiB of an 80 GiB H100, as the chapters use.
MEMORY_MARGIN = 4 * GiB


def _legacy(model, layout):
    """The GPT block on even stages without context parallelism: the published closed forms as printed."""
    return model.is_gpt_block and layout.cp == 1 and model.layers % (layout.pp * layout.chunks) == 0


def _stage_layer_counts(model, layout):
    """Layers on (the first, a middle, the last) stage.

    Even stages: ``l / pp`` each. Uneven stages: the middle stages hold :func:`stage_layers`
    ``n``; the shortfall ``d = pp n - l`` is taken from the first (``ceil(d / 2)``) and the
    last stage (``floor(d / 2)``), at least one layer each, as Llama 3 405B takes one layer
    from each to make room for the embedding and the output layer (Dubey et al. 2024,
    sec. 3.3.2).
    """
    L, p = model.layers, layout.pp
    n = int(stage_layers(model, layout))
    if p == 1:
        return L, L, L
    d = p * n - L
    return max(1, n - (d + 1) // 2), n, max(1, n - d // 2)


def _moe_in(model, lo, hi):
    """MoE layers among layers ``lo .. hi - 1``: the dense layers come first (DeepSeek-V3's
    first three; Mixtral's are all MoE)."""
    L = model.layers
    return max(0, min(hi, L) - max(lo, L - model.moe_layers))


def _layer_params(model, layout, moe):
    """(dense, expert) parameters of one layer on one GPU."""
    t = layout.tp
    dense = model.attention_params + model.norm_params
    if not moe or model.num_experts is None:
        return (dense + model.mlp_params()) / t, 0.0
    fe = model._mlp(model.d_expert_ff)
    dense += model.hidden * model.num_experts + model.shared_experts * fe
    return dense / t, model.num_experts * fe / (layout.ep * t)


def _stages(model, layout):
    """Per candidate stage: (index, layers, MoE layers, dense params, expert params)."""
    L, p = model.layers, layout.pp
    first, mid, last = _stage_layer_counts(model, layout)
    t, h, V = layout.tp, model.hidden, model.vocab
    emb_in = V * h + (model.seq_len * h if model.position_embedding == "learned" else 0)
    emb_out = V * h + model.final_norm_params      # untied head, or Megatron's copy of the tied table
    if p == 1:
        emb = emb_in + (V * h if not model.tied_embeddings else 0) + model.final_norm_params
        spans = [(0, 0, L, emb)]
    else:
        spans = [(0, 0, first, emb_in)]
        if p > 2:
            spans.append((1, first, first + mid, 0))
        spans.append((p - 1, L - last, L, emb_out))
    out = []
    for i, lo, hi, emb in spans:
        n, k = hi - lo, _moe_in(model, lo, hi)
        d0, _ = _layer_params(model, layout, False)
        d1, e1 = _layer_params(model, layout, True)
        out.append((i, n, k, (n - k) * d0 + k * d1 + emb / t, k * e1))
    return out


def stage_params(model, layout, stage="first"):
    """Parameters one GPU of a pipeline stage holds (``tp`` ranks of a stage split them).

    The GPT block on even stages: ``(12 h^2 + 13 h) l / pp`` transformer weights plus the
    token and position embeddings ``(V + s) h``, all over ``tp`` (Narayanan et al. 2021,
    eq. 2, split by stage and tensor rank); the last stage holds Megatron's copy of the
    tied word embedding, ``V h``, instead of both tables.

    Any other :class:`~interconnect.parallel.ModelConfig`: the stage's layers, each
    ``attention_params + norm_params + mlp_params`` of the model (grouped-query or latent
    attention, SwiGLU, RMSNorm without biases), plus the input embedding (first stage) or
    the output layer and the final norm (last stage; both on a single stage). An MoE
    layer's ``E`` routed experts are split over ``ep`` *and* ``tp`` (Megatron-Core's expert
    tensor parallelism, taken equal to ``tp``); its router and shared experts count as dense.
    The dense layers come first (DeepSeek-V3). With ``uneven_stages``, the first and the
    last stage give up the shortfall of layers (:func:`layout_memory`).

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
    stage : {"first", "last"}

    Returns
    -------
    float
        Parameters, dense and expert together.

    References
    ----------
    Narayanan et al. (2021), eq. (2); Dubey et al. (2024), sec. 3.3.2 (uneven stages).

    Examples
    --------
    GPT-3 175B over 8 pipeline stages and 8 tensor ranks: 2.8B parameters per GPU:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> round(stage_params(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8)) / 1e9, 2)
    2.8

    Llama 3 405B on TP8 PP16 (Dubey et al. 2024, Table 4): the first stage holds 7 layers
    of 3.19B and the 2.1B-parameter embedding, a middle one 8 layers:

    >>> llama = catalog.models.get("llama3-405b")
    >>> round(stage_params(llama, Layout(dp=64, tp=8, pp=16, uneven_stages=True)) / 1e9, 2)
    3.05
    """
    if stage not in ("first", "last"):
        raise ValueError(f"stage={stage!r} is unknown; allowed: first, last")
    if _legacy(model, layout):
        h, L = model.hidden, model.layers
        emb = (model.vocab + model.seq_len) * h if stage == "first" or layout.pp == 1 else model.vocab * h
        return ((12.0 * h * h + 13.0 * h) * L / layout.pp + emb) / layout.tp
    st = _stages(model, layout)
    _, _, _, dense, expert = st[0] if stage == "first" else st[-1]
    return float(dense + expert)


@lru_cache(maxsize=8192)
def _layer_acts(model, tp, sp, recompute, flash, cp, b, moe):
    return _memory.layer_activation_bytes(model, tp, sp, recompute, flash, cp, b, moe)


def _in_flight(layout, stage, m):
    """Microbatches' worth of the stage's layers held at once: ``min(pp - i, m)`` under 1F1B;
    interleaved, Megatron-Core's warm-up ``2 (pp - i - 1) + (v - 1) pp`` chunks plus the one
    at work, each ``1 / v`` of the stage (for stage 0 the factor ``pp (1 + (pp - 1) / (pp v))``
    of Korthikanti et al. 2022, sec. 4.2.3)."""
    p, v = layout.pp, layout.chunks
    if v == 1:
        return min(p - stage, m)
    return min(2 * (p - stage - 1) + (v - 1) * p + 1, m * v) / v


def _legacy_parts(model, layout, m):
    h, L = model.hidden, model.layers
    params = stage_params(model, layout)
    states = _memory.training_memory(params, layout.shard_ranks, layout.zero_stage, grad_bytes=layout.grad_bytes)
    in_flight = min(layout.pp, m) * L // layout.pp
    acts = _memory.activation_memory(model.seq_len, layout.microbatch, h, model.heads, layers=max(1, in_flight),
                                     tp=layout.tp, sequence_parallel=layout.sequence_parallel,
                                     recompute=layout.recompute, pipeline_stages=layout.pp,
                                     microbatches=m, chunks=layout.chunks, flash_attention=layout.flash_attention)
    total = states["total"] + acts
    return {"params": states["params"], "grads": states["grads"], "optimizer": states["optimizer"],
            "activations": total - states["total"], "total": total, "stage_params": params}


def _zero_states(psi, n, z, grad_bytes):
    """:func:`interconnect.memory.training_memory` (ZeRO Table 1) for checked scalars, without
    its input checks (the planner calls it 10^3 times)."""
    params = 2.0 * psi / (n if z >= 3 else 1)
    grads = grad_bytes * psi / (n if z >= 2 else 1)
    optimizer = 12.0 * psi / (n if z >= 1 else 1)
    return {"params": params, "grads": grads, "optimizer": optimizer, "total": params + grads + optimizer}


def _general_parts(model, layout, m):
    lay = layout
    kw = (lay.tp, lay.sequence_parallel, lay.recompute, lay.flash_attention, lay.cp, lay.microbatch)
    a_dense, a_moe = _layer_acts(model, *kw, False), _layer_acts(model, *kw, True)
    S, b, t = model.seq_len // lay.cp, lay.microbatch, lay.tp
    # the last stage's final norm, output layer input and FP32 logits of the cross entropy, one microbatch
    head = S * b * (4.0 * model.hidden / (t if lay.sequence_parallel else 1) + 4.0 * model.vocab / t)
    z, gb = lay.zero_stage, lay.grad_bytes
    best = None
    for i, n, k, dense, expert in _stages(model, lay):
        st = _zero_states(dense, lay.shard_ranks, z, gb)
        if expert > 0:
            ex = _zero_states(expert, max(1, lay.shard_ranks // lay.ep), z, gb)
            st = {key: st[key] + ex[key] for key in st}
        if z == 3:   # FSDP gathers a layer's parameters to compute it, and prefetches the next
            d1, e1 = _layer_params(model, lay, k > 0)
            st["params"] += 2 * 2.0 * (d1 + e1)
            st["total"] += 2 * 2.0 * (d1 + e1)
        acts = _in_flight(lay, i, m) * ((n - k) * a_dense + k * a_moe)
        if i == lay.pp - 1:
            acts += head
        total = st["total"] + acts
        if best is None or total > best["total"]:
            best = {"params": st["params"], "grads": st["grads"], "optimizer": st["optimizer"],
                    "activations": acts, "total": total, "stage_params": float(dense + expert), "stage": i}
    return best


def _parts(model, layout):
    m = _check_fit(model, layout)
    if _legacy(model, layout):
        return _legacy_parts(model, layout, m)
    return _general_parts(model, layout, m)


def layout_memory(model, layout):
    """Bytes per GPU on the fullest pipeline stage in training: model states plus activations.

    *Model states* (ZeRO, Rajbhandari et al. 2020, Table 1, through
    :func:`interconnect.memory.training_memory`): the stage's parameters
    (:func:`stage_params`) take 2 bytes each, their gradients ``grad_bytes`` (4: Megatron's
    FP32 ``main_grad`` buffers), the FP32 master copy and Adam's two moments 12; ZeRO stage
    1, 2, 3 partitions the optimizer states, the gradients, the parameters over the
    ``shard_ranks`` (``dp * cp``, or ``dp_shard * cp`` with hybrid sharding, HSDP: Zhao et
    al. 2023), expert parameters over their expert-data-parallel group
    ``shard_ranks / ep``. ZeRO-3 (FSDP) also holds the gathered parameters of two layers
    (the one at work and the one prefetched).

    *Activations*: :func:`interconnect.memory.layer_activation_bytes` per layer and
    microbatch (``s / cp`` tokens per GPU, MoE layers' experts ``top_k`` times), times the
    microbatches a stage holds under 1F1B, ``min(pp - i, m)`` on stage ``i`` (interleaved:
    Megatron-Core's warm-up, the factor ``1 + (pp - 1) / (pp v)`` on stage 0, Korthikanti
    et al. 2022, sec. 4.2.3); the last stage adds its output layer's input and the FP32
    logits of the cross entropy, ``4 s b V / (cp t)``, for one microbatch.

    Which stage is fullest is computed: the first (the embedding, the most microbatches),
    the second (a full stage when the first gave up a layer, ``uneven_stages``) and the last
    (the output layer and the logits); the largest total is returned.

    The GPT block on even stages without context parallelism (:attr:`ModelConfig.is_gpt_block`,
    the chapters' models) keeps the published closed forms as printed: the first stage,
    ``min(pp, m) l / pp`` layers of :func:`interconnect.memory.activation_memory`
    (Korthikanti et al. 2022, Table 2 and eq. 5, full recomputation ``2 s b h`` per layer),
    no log-sum-exp, logits or ZeRO-3 gather buffer.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> round(layout_memory(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8)) / 1e9, 1)   # GB per GPU
    55.1

    Llama 3 405B on 8,192 H100 as Dubey et al. (2024, Table 4) ran it: TP8 PP16 DP64, 8K
    tokens, no recomputation, FlashAttention, FSDP sharding gradients and optimizer states
    (ZeRO-2) with FP32 gradients: 66 GiB of the 80, on the second stage (8 layers, 15
    microbatches in flight; the first gave up a layer for the embedding):

    >>> from interconnect.parallel import machines
    >>> lay = machines.stack("megatron-core-2024").layout(dp=64, tp=8, pp=16, uneven_stages=True, zero_stage=2)
    >>> round(layout_memory(catalog.models.get("llama3-405b"), lay) / GiB, 1)
    66.3
    """
    return _parts(model, layout)["total"]


def memory_limit_of(gpu, margin=MEMORY_MARGIN):
    """Bytes a training job may use on one GPU: its HBM (binary: an 80 GB H100 holds 80 GiB)
    less ``margin`` (default 4 GiB for the CUDA context, NCCL buffers and fragmentation).

    Parameters
    ----------
    gpu : str
        A name of :func:`interconnect.devices.get_gpu`.
    margin : float
        Bytes kept free, >= 0 and less than the GPU's memory.

    Returns
    -------
    float

    Examples
    --------
    >>> memory_limit_of("H100") / GiB
    76.0
    """
    from ..devices import get_gpu

    cap = get_gpu(gpu).memory
    mg = float(as_nonnegative("margin", margin, "bytes"))
    if mg >= cap:
        raise ValueError(f"margin={margin!r} is not allowed; allowed 0 <= margin < {cap:.0f} bytes (the memory "
                         f"of {gpu})")
    return cap - mg


def layout_memory_breakdown(model, layout):
    """Bytes per GPU of the fullest pipeline stage in training, by part.

    The parts :func:`interconnect.parallel.layout_memory` adds up: the model states of the
    stage's parameters with ZeRO over the ``shard_ranks`` (and, for experts, the
    expert-data-parallel ranks; :func:`interconnect.memory.training_memory`), and the
    activations.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    layout : interconnect.parallel.Layout

    Returns
    -------
    dict of float
        ``params``, ``grads``, ``optimizer``, ``activations`` and ``total`` (their sum,
        :func:`interconnect.parallel.layout_memory`), bytes per GPU; ``stage_params``,
        the parameters one GPU of that stage holds; ``stage``, its index (0: the first).

    References
    ----------
    Rajbhandari et al. (2020), Table 1 (the model states); Korthikanti et al. (2022),
    eq. 5 (the activations, through :func:`interconnect.memory.activation_memory` for the
    GPT block, :func:`interconnect.memory.layer_activation_bytes` otherwise).

    Examples
    --------
    GPT-3 175B on ``dp=16 tp=8 pp=8``: the 2.8B parameters of a GPU take 16 bytes each
    (2 + 2 + 12, ZeRO Table 1 without partitioning), activations 10 GB:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> b = layout_memory_breakdown(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8))
    >>> {k: round(v / 1e9, 1) for k, v in b.items() if k != "stage"}
    {'params': 5.6, 'grads': 5.6, 'optimizer': 33.6, 'activations': 10.3, 'total': 55.1, 'stage_params': 2.8}
    """
    parts = dict(_parts(model, layout))
    parts.setdefault("stage", 0)
    return parts


def inference_memory(model, kv_heads, head_dim, tp=1, pp=1, batch=1, context=None, bytes_per_element=2.0):
    """Bytes per GPU in inference: the weights and the KV cache.

    Weights: ``bytes_per_element`` bytes per parameter of
    :func:`interconnect.parallel.transformer_params`, split over ``tp * pp`` GPUs. KV cache:
    :func:`interconnect.memory.kv_cache_bytes` of ``layers // pp`` layers and ``kv_heads // tp`` key-value heads
    (at least one of each: heads are replicated when ``tp > kv_heads``) for ``batch``
    sequences of ``context`` tokens.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    kv_heads : int
        Key-value heads of the attention (fewer than the query heads with grouped-query
        attention).
    head_dim : int
        Size of one head.
    tp, pp : int
        Tensor- and pipeline-parallel sizes, >= 1.
    batch : int
        Sequences served at once, >= 1.
    context : int, optional
        Tokens per sequence; default ``model.seq_len``.
    bytes_per_element : float
        2 for FP16/BF16 weights and cache.

    Returns
    -------
    dict of float
        ``weights``, ``kv_cache`` and ``total``, bytes per GPU.

    References
    ----------
    Kwon et al. (2023), section 3 (KV cache size).

    Examples
    --------
    One GPU, one 4,096-token sequence of a 32-layer model with 32 KV heads of 128: the
    cache is ``2 * 32 * 32 * 128 * 2`` bytes = 512 KiB per token, 2 GiB in all:

    >>> from interconnect.parallel import ModelConfig
    >>> m = ModelConfig(layers=32, hidden=4096, heads=32, seq_len=4096, vocab=32000, global_batch=1)
    >>> inference_memory(m, kv_heads=32, head_dim=128)["kv_cache"] / 2**30
    2.0
    """
    tp = as_count("tp", tp, minimum=1)
    pp = as_count("pp", pp, minimum=1)
    context = model.seq_len if context is None else context
    bpe = as_positive("bytes_per_element", bytes_per_element, "bytes")
    weights = bpe * transformer_params(model.layers, model.hidden, model.vocab, model.seq_len) / (tp * pp)
    kv = _memory.kv_cache_bytes(max(1, model.layers // pp), max(1, kv_heads // tp), head_dim, context, batch,
                        bytes_per_element=bpe)
    return {"weights": weights, "kv_cache": kv, "total": weights + kv}
