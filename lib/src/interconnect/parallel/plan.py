"""The layout planner: training memory per GPU, and enumerate, filter by memory and rank layouts.

References
----------
D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters Using
Megatron-LM", SC21 (arXiv:2104.04473).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
MLSys 2023 (arXiv:2205.05198).
S. Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion Parameter
Models", SC20 (arXiv:1910.02054), Table 1.
Y. Zhao et al., "PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel",
VLDB 2023 (arXiv:2304.11277), sec. 3.2 (hybrid sharding).
A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, sec. 3.3 and Table 4.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from functools import lru_cache

from .. import memory as _memory
from .._validate import as_count, as_nonnegative, as_positive
from ._checks import _check_bool, _scalar_count
from .layout import Layout, _check_fit, stage_layers
from .step_time import step_time
from .transformer import RECOMPUTE_MODES, transformer_params

__all__ = ["Plan", "plan", "stage_params", "layout_memory", "layout_memory_breakdown", "inference_memory",
           "memory_limit_of", "GiB", "MEMORY_MARGIN", "CP_MIN_SEQ"]


@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan`.

    Attributes
    ----------
    ranked : list of (Layout, StepTime, float)
        Feasible layouts, fastest first, with their memory per GPU in bytes.
    rejected : list of (Layout, str)
        Layouts that were enumerated but rejected, with the reason.
    explanation : str
        What the winner's step is made of and how much slower the runner-up is (or why
        nothing fits); :attr:`why` says what the runner-up loses on.
    """

    ranked: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    explanation: str = ""

    @property
    def best(self):
        """The fastest feasible (Layout, StepTime, memory), or None.

        Examples
        --------
        >>> from interconnect import catalog
        >>> from interconnect.parallel import Cluster
        >>> lay, st, mem = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80 * GiB).best
        >>> lay.label(), round(mem / 1e9, 1)      # fastest layout; GB per GPU
        ('dp=8 tp=1 pp=1 b=1 zero=1', 45.8)
        """
        return self.ranked[0] if self.ranked else None

    @property
    def why(self):
        """Why the winner won: the part of the step the runner-up spends longer on, and the
        part it saves (empty with fewer than two feasible layouts).

        Examples
        --------
        >>> from interconnect import catalog
        >>> from interconnect.parallel import Cluster
        >>> import textwrap
        >>> print(textwrap.fill(plan(catalog.models.get("gpt3-175b"), Cluster.dgx_a100(), 1024, 76 * GiB).why, 80))
        Runner-up dp=32 tp=4 pp=8 b=1 zero=1 loses 0.105 s per step: its dp_comm_exposed
        is 0.397 s longer, which its shorter bubble (0.185 s) does not make up.
        """
        return _why(self.ranked)


def _divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


#: Bytes per GiB; GPU memory (HBM) is sold in binary units: an "80 GB" H100 holds 80 GiB.
GiB = 2**30
#: What :func:`plan` leaves free of a GPU's memory by default (the CUDA context, NCCL and
#: allocator buffers, fragmentation): 4 GiB, so 76 GiB of an 80 GiB H100, as the chapters use.
MEMORY_MARGIN = 4 * GiB
#: Context parallelism is tried (``cp_sizes=None``) only from this sequence length on, and
#: only while each rank keeps at least ``_CP_MIN_TOKENS`` tokens of a sequence.
CP_MIN_SEQ = 8192
_CP_MIN_TOKENS = 4096


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


def _variant(template, **fields_):
    """A copy of a validated Layout with fields the planner has already checked replaced:
    ``dataclasses.replace`` re-runs every check (about 0.15 ms), too slow for 10^4 layouts."""
    lay = copy.copy(template)
    for k, v in fields_.items():
        object.__setattr__(lay, k, v)
    return lay


def _as_tuple(name, value, check):
    vals = (value,) if isinstance(value, (str, int)) or value is None else tuple(value)
    if not vals:
        raise ValueError(f"{name} is empty; expected at least one value")
    return tuple(check(v) for v in vals)


def _rc(v):
    if v not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={v!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
    return v


def _zs(v):
    z = _scalar_count("zero_stages", v, minimum=0)
    if z > 3:
        raise ValueError(f"zero_stages={v!r} is not allowed; allowed 0, 1, 2 or 3")
    return z


def _shard(v):
    return v if v is None or v == "node" else _scalar_count("dp_shards", v)


def _auto_cp(model, n):
    s = model.seq_len
    if s < CP_MIN_SEQ:
        return (1,)
    return tuple(c for c in (2**k for k in range(0, 20)) if c == 1 or (n % c == 0 and s // c >= _CP_MIN_TOKENS))


def plan(model, cluster, n_gpus, memory_limit=None, recompute="selective", sequence_parallel=True, zero_stage=1,
         microbatches=(1, 2, 4, 8), ep_sizes=None, *, cp_sizes=None, zero_stages=None, dp_shards=(None,),
         chunks=(1,), uneven_stages=False, stack=None):
    """Enumerate, filter and rank (dp, tp, pp, cp, ep, microbatch, ...) layouts for ``model`` on ``n_gpus``.

    A layout is *valid* when ``tp`` divides ``heads`` (and ``kv_heads``: Megatron-Core splits
    the key-value groups over ``tp``) and is at most ``gpus_per_node``, ``pp`` divides
    ``layers`` (unless ``uneven_stages``), ``dp tp pp cp = n_gpus`` and ``microbatch * dp``
    divides the global batch; invalid combinations are listed in ``rejected`` with the rule
    they break. Valid layouts whose memory on the fullest stage (:func:`layout_memory`)
    exceeds ``memory_limit`` are rejected too (the memory check comes before, and saves,
    the step-time model); the rest are ranked by :func:`step_time`.

    Parameters
    ----------
    model : ModelConfig
    cluster : Cluster
    n_gpus : int
        GPUs to use, >= 1.
    memory_limit : float or str, optional
        Bytes per GPU, > 0 (e.g. ``76 * 2**30``: an 80 GiB H100 or A100 less 4 GiB), or a GPU
        name for :func:`memory_limit_of` (its HBM less 4 GiB). None: the GPU of a machine
        preset's cluster (``cluster.gemm_gpu``).
    recompute : str or sequence of str
        Recomputation mode(s) to try: "none", "selective", "full".
    sequence_parallel : bool
    zero_stage : int
        ZeRO stage of every layout, unless ``zero_stages`` is given.
    microbatches : sequence of int
        Microbatch sizes to try.
    ep_sizes : sequence of int, optional
        Expert-parallel degrees to try (each must divide ``dp``); default every divisor
        of ``dp`` for a model with MoE layers, ``(1,)`` for a dense one.
    cp_sizes : sequence of int, optional
        Context-parallel degrees to try. Default: 1 below ``CP_MIN_SEQ`` = 8,192 tokens (no
        one splits a 2K or 4K sequence); from there on the powers of two that leave each rank
        at least 4,096 tokens (8K: 1 and 2, as NVIDIA's Llama 3 recipes; 128K: up to 32, Llama
        3's 16). ``cp * tp`` may leave the node: Llama 3 405B ran TP8 inside the node and CP16
        across nodes (Dubey et al. 2024, sec. 3.3.2). ``seq_len`` must be divisible by
        ``2 cp`` (Megatron-Core's load-balanced chunks).
    zero_stages : sequence of int, optional
        ZeRO stages to try (default ``(zero_stage,)``): 1 is Megatron's distributed optimizer,
        2 FSDP without resharding parameters after the forward pass (Llama 3), 3 FSDP.
    dp_shards : sequence of (int, "node" or None)
        Hybrid sharding (HSDP) groups to try with ZeRO >= 1: None shards over all ``dp * cp``
        ranks; an int ``k`` over ``k * cp`` (if ``k`` divides ``dp``); ``"node"`` over the
        data-parallel ranks of one node (``gpus_per_node / (tp cp)``).
    chunks : sequence of int
        Interleaved model chunks ``v`` to try; ``v > 1`` only with ``pp > 1`` and a number of
        microbatches divisible by ``pp``.
    uneven_stages : bool
        Allow ``pp`` not to divide ``layers`` (:attr:`Layout.uneven_stages`).
    stack : SoftwareStack or str, optional
        A :mod:`~interconnect.parallel.machines` software stack whose switches (fused
        attention, overlaps, FP32 gradients) every layout takes; ``recompute``,
        ``sequence_parallel`` and the ZeRO stages are this function's.

    Returns
    -------
    Plan

    Examples
    --------
    GPT-3 6.7B on one DGX A100 (80 GiB per GPU): plain data parallelism with ZeRO-1 wins:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Cluster
    >>> p = plan(catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100(), 8, 80 * GiB)
    >>> p.best[0].label(), len(p.ranked), len(p.rejected)
    ('dp=8 tp=1 pp=1 b=1 zero=1', 36, 4)
    """
    n = _scalar_count("n_gpus", n_gpus)
    if memory_limit is None:
        if getattr(cluster, "gemm_gpu", None) is None:
            raise ValueError("memory_limit=None needs a cluster with a GPU (a machines.machine(...) preset); "
                             "allowed: bytes > 0 or a GPU name")
        limit = memory_limit_of(cluster.gemm_gpu)
    elif isinstance(memory_limit, str):
        limit = memory_limit_of(memory_limit)
    else:
        limit = float(as_positive("memory_limit", memory_limit, "bytes"))
    bs = [_scalar_count("microbatches", b) for b in microbatches]
    if not bs:
        raise ValueError("microbatches is empty; expected at least one microbatch size")
    rcs = _as_tuple("recompute", recompute, _rc)
    zs = _as_tuple("zero_stages", zero_stage if zero_stages is None else zero_stages, _zs)
    shards = _as_tuple("dp_shards", dp_shards, _shard)
    vs = _as_tuple("chunks", chunks, lambda v: _scalar_count("chunks", v))
    cps = _auto_cp(model, n) if cp_sizes is None else _as_tuple("cp_sizes", cp_sizes,
                                                                  lambda v: _scalar_count("cp_sizes", v))
    uneven = _check_bool("uneven_stages", uneven_stages)
    if ep_sizes is not None:
        eps_given = [_scalar_count("ep_sizes", e) for e in ep_sizes]
        if not eps_given:
            raise ValueError("ep_sizes is empty; expected at least one expert-parallel degree")
    if stack is None:
        template = Layout(dp=1, tp=1, pp=1, recompute=rcs[0], sequence_parallel=sequence_parallel,
                          zero_stage=zs[0], uneven_stages=uneven)
    else:
        from .machines import stack as _stack

        sw = _stack(stack) if isinstance(stack, str) else stack
        template = sw.layout(1, 1, 1, recompute=rcs[0], sequence_parallel=sequence_parallel, zero_stage=zs[0],
                             uneven_stages=uneven)
    kv = model.n_kv_heads
    ranked, rejected = [], []
    for tp in _divisors(n):
        for cp in cps:
            if (n // tp) % cp:
                continue
            for pp in _divisors(n // (tp * cp)):
                dp = n // (tp * pp * cp)
                if ep_sizes is not None:
                    eps = [e for e in eps_given if dp % e == 0]
                else:
                    eps = _divisors(dp) if getattr(model, "moe_layers", 0) else [1]
                for ep, b in ((e, b_) for e in eps for b_ in bs):
                    for rc, z, sh, v in ((r, z_, s_, v_) for r in rcs for z_ in zs for s_ in shards for v_ in vs):
                        if v > 1 and pp == 1:
                            continue
                        if sh == "node":
                            sh = cluster.gpus_per_node // (tp * cp)
                            if sh < 1:
                                continue
                        if sh is not None and (z == 0 or dp % sh or sh == dp):
                            continue   # HSDP only with ZeRO, a divisor of dp, and not plain sharding
                        lay = _variant(template, dp=dp, tp=tp, pp=pp, ep=ep, microbatch=b, recompute=rc,
                                       zero_stage=z, dp_shard=sh, chunks=v, cp=cp)
                        reason = _invalid(model, cluster, lay, kv, uneven)
                        if reason:
                            rejected.append((lay, reason))
                            continue
                        mem = layout_memory(model, lay)
                        if mem > limit:
                            rejected.append((lay, f"memory {mem / 1e9:.1f} GB > limit {limit / 1e9:.1f} GB"))
                        else:
                            ranked.append((lay, step_time(model, lay, cluster), mem))
    ranked.sort(key=lambda r: r[1].total)
    return Plan(ranked=ranked, rejected=rejected, explanation=_explain(ranked, rejected, n, limit))


def _invalid(model, cluster, lay, kv, uneven):
    tp, pp, dp, b, v = lay.tp, lay.pp, lay.dp, lay.microbatch, lay.chunks
    if model.heads % tp:
        return f"tp={tp} does not divide heads={model.heads}"
    if not model.is_mla and kv % tp:
        return f"tp={tp} does not divide kv_heads={kv}"
    if tp > cluster.gpus_per_node:
        return f"tp={tp} > gpus_per_node={cluster.gpus_per_node}: TP would leave NVLink"
    if not uneven and model.layers % pp:
        return f"pp={pp} does not divide layers={model.layers}"
    if pp * v > model.layers:
        return f"pp * chunks = {pp * v} > layers={model.layers}"
    if not uneven and model.layers % (pp * v):
        return f"pp * chunks = {pp * v} does not divide layers={model.layers}"
    if model.global_batch % (dp * b):
        return f"global_batch={model.global_batch} not divisible by dp*b={dp * b}"
    if lay.cp > 1 and model.seq_len % (2 * lay.cp):
        return f"seq_len={model.seq_len} not divisible by 2*cp={2 * lay.cp}"
    if v > 1 and (model.global_batch // (dp * b)) % pp:
        return f"microbatches m={model.global_batch // (dp * b)} not a multiple of pp={pp} (interleaving)"
    return ""


def _explain(ranked, rejected, n, limit):
    if not ranked:
        return f"No layout of {n} GPUs fits in {limit / 1e9:.1f} GB per GPU ({len(rejected)} rejected)."
    lay, st, mem = ranked[0]
    sh = st.shares()
    parts = ", ".join(f"{k} {100 * v:.0f} %" for k, v in sorted(sh.items(), key=lambda kv: -kv[1]) if v >= 0.005)
    text = (f"Best of {len(ranked)} feasible layouts ({len(rejected)} rejected): {lay.label()}, "
            f"{st.total:.3g} s per step, MFU {100 * st.mfu:.1f} %, {mem / 1e9:.1f} GB per GPU. "
            f"The step is {parts}; the largest overhead is {st.dominant_overhead()}.")
    if len(ranked) > 1:
        lay2, st2, _ = ranked[1]
        text += f" Runner-up {lay2.label()} is {100 * (st2.total / st.total - 1):.1f} % slower."
    return text


def _why(ranked):
    if len(ranked) < 2:
        return ""
    (_, st, _), (lay2, st2, _) = ranked[0], ranked[1]
    if st2.total <= st.total:
        return (f"Runner-up {lay2.label()} ties with the winner ({st.total:.3g} s per step); ties keep the "
                "order of enumeration (smaller tp, then pp, then microbatch first).")
    diffs = {k: getattr(st2, k) - getattr(st, k) for k in st.PARTS}
    worst = max(diffs, key=diffs.get)
    gains = [k for k, d in sorted(diffs.items(), key=lambda kv: kv[1]) if d < 0]
    text = (f"Runner-up {lay2.label()} loses {st2.total - st.total:.3g} s per step: its {worst} is "
            f"{diffs[worst]:.3g} s longer")
    if gains:
        text += f", which its shorter {gains[0]} ({-diffs[gains[0]]:.3g} s) does not make up"
    return text + "."


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
