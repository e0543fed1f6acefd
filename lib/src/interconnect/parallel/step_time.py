"""The step-time model of a 3D/4D-parallel (PTD-P + EP + ZeRO) transformer training step.

One training iteration on ``n = dp * tp * pp * cp`` GPUs is costed as

    total = compute + tp_comm + bubble + pp_comm + ep_comm + dp_comm_exposed + cp_comm

* compute: iteration FLOPs (with the recomputation of the layout) over
  ``n * peak_flops * gemm_efficiency`` (the calibrated 2021 clusters), or by part -- linear
  GEMMs by shape, the attention core, the logits, the element-wise work -- on the machine
  presets (:func:`compute_parts`);
* tp_comm: the tensor-parallel AllReduces (or ReduceScatter + AllGather pairs with sequence
  parallelism) inside every layer, less the share ``Layout.tp_overlap`` hides behind the
  linear GEMMs (Megatron-Core ``--tp-comm-overlap``; 0, all exposed, as in Megatron-LM of
  2021-22);
* bubble: ``pipeline_bubble_fraction(pp, m, chunks) * (compute + tp_comm + ep_comm + cp_comm)``
  (the bubble is idle time measured in units of the per-microbatch stage time, which includes
  the communication inside the layers;
  Narayanan et al. 2021, eq. 1);
* pp_comm: point-to-point activations and gradients between stages;
* ep_comm: expert-parallel AllToAlls of MoE layers;
* dp_comm_exposed: the gradient AllReduce (ZeRO: ReduceScatter/AllGather) left after the
  part that overlaps with the backward pass of the last microbatch;
* cp_comm: the context-parallel (ring attention) K, V traffic left after the part hidden
  behind the attention core it feeds (0 without context parallelism).

Each collective is costed with :func:`interconnect.collectives.collective_time` (ring) on
the link the group really spans (see ``_group_link``), at ``comm_efficiency`` of the link
peak.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .. import memory as _memory
from ..collectives import collective_time
from .cluster import Cluster, _group_link
from .efficiency import pipeline_bubble_fraction
from .gemm import gemm_efficiency, layer_gemm_efficiency
from .layout import Layout, _check_fit, stage_layers
from .traffic import (
    SENDRECV,
    _dp_buckets,
    _phases,
    cp_traffic,
    dp_traffic,
    ep_traffic,
    pp_traffic,
    tp_traffic,
    wire_bytes,
)
from .transformer import ModelConfig, step_flops

__all__ = ["tp_comm_time", "pp_comm_time", "dp_comm_time", "ep_comm_time", "cp_comm_time", "dp_wire_bytes",
           "elementwise_time", "compute_parts", "StepTime", "step_time", "dp_step_time"]


def _price(traffic, bandwidth, latency):
    """Seconds of a list of :class:`~interconnect.parallel.traffic.Traffic` whose collectives all run
    at ``bandwidth`` and ``latency`` (each phase's calls added, then times its count)."""
    return _phases(traffic, lambda t: collective_time(t.op, t.nbytes, t.group, bandwidth, latency, t.algorithm))


def _price_groups(traffic, cluster):
    """Seconds of a list of :class:`~interconnect.parallel.traffic.Traffic` of collectives, each on
    the link its own group spans (``_group_link(t.group, t.stride)``)."""
    return _phases(traffic, lambda t: collective_time(t.op, t.nbytes, t.group,
                                                      *_group_link(t.group, t.stride, cluster), t.algorithm))


def tp_comm_time(model, layout, cluster):
    """Tensor-parallel communication per step on one GPU, seconds, before any overlap (the share
    ``Layout.tp_overlap`` hides is taken off in :func:`step_time`).

    Prices :func:`~interconnect.parallel.tp_traffic`: per layer and microbatch, 2
    AllReduces in the forward and 2 in the backward pass of ``2 s b h`` bytes (Shoeybi et al.
    2019, sec. 3, Fig. 4); with sequence parallelism each AllReduce is a ReduceScatter +
    AllGather pair of the same bytes (Korthikanti et al. 2022, sec. 4.2.2), which costs the
    same under the ring model. Full recomputation repeats the forward pass and its 2
    AllReduces (6 per layer). Each GPU runs ``l / pp`` layers for ``m`` microbatches. The
    group is ``tp`` adjacent ranks (``_group_link``).

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> round(tp_comm_time(gpt, Layout(dp=16, tp=8, pp=8), dgx), 2)   # s per step, on NVLink
    2.42
    """
    traffic = tp_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, *_group_link(layout.tp, 1, cluster))


def pp_comm_time(model, layout, cluster):
    """Pipeline point-to-point communication per step on one GPU, seconds.

    Prices :func:`~interconnect.parallel.pp_traffic`: each stage sends the activation
    (``2 s b h`` bytes) of every microbatch forward and receives its gradient backward: ``2 m``
    transfers, ``2 m v`` with ``v`` interleaved chunks (Narayanan et al. 2021, sec. 2.2.2).
    Across nodes with the scatter/gather optimisation each TP rank sends ``2 s b h / t`` over
    its own NIC and an NVLink AllGather rebuilds the tensor (sec. 4.1); within a node the
    transfer is on NVLink. A transfer costs one latency plus its bytes over the link.

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> round(pp_comm_time(gpt, Layout(dp=16, tp=8, pp=8), dgx), 3)   # s per step, across nodes
    0.136
    """
    traffic = pp_traffic(model, layout, cluster.gpus_per_node)
    if not traffic:
        return 0.0
    eff = cluster.comm_efficiency
    if layout.tp * layout.cp * layout.dp * layout.pp <= cluster.gpus_per_node:  # the whole pipeline in one node
        p2p_bw, p2p_lat = cluster.intra_bandwidth, cluster.intra_latency
    else:
        p2p_bw, p2p_lat = cluster.inter_bandwidth, cluster.inter_latency

    def one(t):
        if t.op == SENDRECV:
            return p2p_lat + t.nbytes / (p2p_bw * eff)
        return collective_time(t.op, t.nbytes, t.group, *_group_link(t.group, t.stride, cluster), t.algorithm)

    return _phases(traffic, one)


def dp_comm_time(model, layout, cluster):
    """Data-parallel gradient (and ZeRO parameter) communication per step on one GPU, seconds.

    Prices :func:`~interconnect.parallel.dp_traffic`, each collective on the link its group
    spans: the ``dp`` ranks ``tp`` apart (``dp cp`` ranks with context parallelism; with hybrid
    sharding the shard group and, ``tp cp dp_shard`` apart, the replicas). Each GPU reduces
    ``G = 2 P / (tp pp)`` bytes of BF16 gradients over the ``dp`` ranks in buckets of
    ``layout.bucket_bytes``, one collective and its latencies per bucket:

    * ZeRO 0: AllReduce of ``G`` (``2 G (dp-1)/dp`` bytes on the wire);
    * ZeRO 1 and 2: ReduceScatter of the gradients + AllGather of the updated parameters,
      the same ``2 G (dp-1)/dp`` (Rajbhandari et al. 2020, sec. 7.2);
    * ZeRO 3: also an AllGather of the parameters before use: ``3 G (dp-1)/dp``, 1.5x
      (sec. 7.2.2). Counted once per step as in the paper; with gradient accumulation a
      real ZeRO-3 regathers per microbatch, so this is a lower bound.

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> round(dp_comm_time(gpt, Layout(dp=16, tp=8, pp=8), dgx), 3)   # s per step, over the HDR NICs
    0.724
    """
    traffic = dp_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price_groups(traffic, cluster)


def dp_wire_bytes(model, layout):
    """Bytes one GPU sends per step (per direction) for its gradient and ZeRO traffic.

    :func:`~interconnect.parallel.wire_bytes` of
    :func:`~interconnect.parallel.dp_traffic`: the buckets and ring collectives
    :func:`dp_comm_time` prices, counted in bytes rather than seconds, each sending
    ``b * bucket`` bytes with ``b`` from :func:`interconnect.collectives.cost_terms`. So
    ``2 G (dp-1)/dp`` for ZeRO 0-2 and ``3 G (dp-1)/dp`` for ZeRO 3, with
    ``G = 2 P / (tp pp)`` the BF16 gradient bytes of one GPU's shard. It does not depend on
    the machine.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``dp``, ``tp``, ``pp``, ``zero_stage`` and ``bucket_bytes`` matter.

    Returns
    -------
    float
        Bytes; 0 for ``dp = 1``.

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt = catalog.models.get("gpt3-6.7b")
    >>> [round(dp_wire_bytes(gpt, Layout(dp=8, tp=1, pp=1, zero_stage=z)) / 1e9, 1) for z in (0, 3)]
    [23.3, 35.0]
    """
    return wire_bytes(dp_traffic(model, layout))


def ep_comm_time(model, layout, cluster):
    """Expert-parallel AllToAll time per step on one GPU, seconds.

    Prices :func:`~interconnect.parallel.ep_traffic`: each MoE layer dispatches its
    tokens' hidden states to the experts and combines them back: 2 AllToAlls forward and 2
    backward (3 forward with full recomputation) of the ``2 s b h`` bytes (``/ tp`` with
    sequence parallelism) a GPU holds (Lepikhin et al. 2021, GShard; Fedus et al. 2022, Switch
    Transformer), for ``moe_layers / pp`` layers and ``m`` microbatches, over the ``ep`` ranks
    (``tp cp`` apart).

    Examples
    --------
    The book's MoE example (GPT-3 6.7B with every other MLP a mixture of experts) with 8-way
    expert parallelism on one DGX A100:

    >>> from interconnect import catalog
    >>> moe = catalog.models.get("gpt3-6.7b-moe")
    >>> round(ep_comm_time(moe, Layout(dp=8, tp=1, pp=1, ep=8), Cluster.dgx_a100()), 3)   # s per step
    0.74
    """
    traffic = ep_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, *_group_link(layout.ep, layout.tp * layout.cp, cluster))


def cp_comm_time(model, layout, cluster):
    """Context-parallel (ring attention) communication per step on one GPU, seconds, before overlap.

    Prices :func:`~interconnect.parallel.cp_traffic` on the link the ``cp`` ranks (``tp``
    apart) span: per layer and microbatch an AllGather of the keys and values forward, an
    AllGather and a ReduceScatter (their gradients) backward, and one AllGather more where
    the attention forward is recomputed. :func:`step_time` hides most of it behind the
    attention core (``StepTime.cp_comm`` is what is left).

    Examples
    --------
    Llama 3 405B, 8-way TP and 2-way CP on H100 nodes (NVLink 4, NDR InfiniBand): the two
    CP ranks are 8 apart, in different nodes:

    >>> from interconnect import catalog
    >>> ll, h100 = catalog.models.get("llama3-405b"), Cluster.from_links("H100", "nvlink4", "ib-ndr")
    >>> lay = Layout(dp=32, tp=8, pp=16, cp=2, flash_attention=True, uneven_stages=True)
    >>> round(cp_comm_time(ll, lay, h100), 3)      # s per step
    0.114
    >>> round(step_time(ll, lay, h100).cp_comm, 3)   # exposed: all of it hides behind the attention
    0.0
    """
    traffic = cp_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, *_group_link(layout.cp, layout.tp, cluster))


def elementwise_time(model, layout, cluster):
    """Memory-bound element-wise work per step on one GPU, seconds (0 without ``memory_bandwidth``).

    The GEMMs are costed by FLOPs; the layer norms, bias-GeLU, dropouts, residual adds and
    the attention softmax and its dropout are bound by HBM traffic instead. Their traffic
    is taken from the activation bytes they produce, Korthikanti et al. (2022) Table 2
    (``s b h (10 + 24/t + 5 a s/(h t))``, or ``s b h (34/t + 5 a s/(h t))`` with sequence
    parallelism, :func:`interconnect.memory.activation_memory` with no recomputation): the
    forward pass writes each once and the next operator reads it (2x), the backward pass
    reads it and writes and reads its gradient (4x). A recomputed forward adds 2x again:
    of everything (full) or of the attention-score part ``5 a s^2 b / t`` (selective).
    With ``flash_attention`` the scores never reach HBM: the ``5 a s / h`` term is gone
    from the traffic and selective recomputation adds none. With context parallelism each
    GPU holds ``s / cp`` of the tokens (their scores against all ``s`` keys), so ``1 / cp``
    of the traffic.
    No coefficient is fitted; the per-element counts above are the whole model.

    On a cluster priced bottom-up (one that names a ``gemm_gpu``, as the presets of
    :mod:`~interconnect.parallel.machines` do) the traffic is counted for the model as it is
    (``_bottom_up_elementwise_bytes``): the stored activations of
    :func:`interconnect.memory.layer_activation_bytes` (GQA, SwiGLU, MoE, no dropout in
    Llama-style models), the FP32 cross-entropy over the vocabulary and, with ``fp8``, the
    casts of the GEMM operands. The calibrated 2021 clusters keep the GPT-block accounting
    above, which their two fitted efficiencies were fitted with.

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> round(elementwise_time(gpt, Layout(dp=16, tp=8, pp=8), dgx), 2)   # s per step, HBM-bound
    1.5
    """
    if cluster.memory_bandwidth is None:
        return 0.0
    m = _check_fit(model, layout)
    if cluster.gemm_gpu is not None:
        return m * _bottom_up_elementwise_bytes(model, layout) / cluster.memory_bandwidth
    args = dict(seq_len=model.seq_len, microbatch=layout.microbatch, hidden=model.hidden, heads=model.heads,
                layers=1, tp=layout.tp, sequence_parallel=layout.sequence_parallel,
                flash_attention=layout.flash_attention)
    stored = _memory.activation_memory(recompute="none", **args)
    traffic = 6.0 * stored
    if layout.recompute == "full":
        traffic += 2.0 * stored
    elif layout.recompute == "selective":
        traffic += 2.0 * (stored - _memory.activation_memory(recompute="selective", **args))
    return m * stage_layers(model, layout) * traffic / layout.cp / cluster.memory_bandwidth


#: Bytes of HBM traffic per logit in the vocabulary-parallel cross-entropy of Megatron-Core
#: (``megatron/core/tensor_parallel/cross_entropy.py``, ``VocabParallelCrossEntropy``): the 16-bit
#: logits read and cast to FP32 (2 + 4), the max and its subtraction (4 + 4 + 4), the exponential
#: (4 + 4), its sum (4) and the division that keeps the softmax for the backward pass (4 + 4);
#: backward, the softmax read, the one-hot subtracted and scaled (4 + 4) and the gradient cast
#: back to 16 bits (4 + 2).
CROSS_ENTROPY_BYTES_PER_LOGIT = 58.0

#: Bytes of HBM traffic per element of a GEMM operand cast to FP8 by Transformer Engine: the
#: 16-bit tensor read (2), the FP8 copy and its transpose for the backward GEMM written (1 + 1);
#: the amax reduction reads the 16-bit tensor once more (2). Micikevicius et al. (2022); NVIDIA
#: Transformer Engine, ``cast_transpose`` kernels.
FP8_CAST_BYTES_PER_ELEMENT = 6.0


def _bottom_up_elementwise_bytes(model, layout):
    """HBM bytes of the element-wise work of one microbatch on one GPU of the fullest stage,
    counted for the model as it is (see :func:`elementwise_time`).

    * layers: 6x the stored activations of
      :func:`interconnect.memory.layer_activation_bytes` (no recomputation), the MoE layers'
      with their experts; a recomputed forward adds 2x again, of everything (full) or of the
      part selective recomputation drops (nothing with fused attention);
    * the loss, on the last stage: :data:`CROSS_ENTROPY_BYTES_PER_LOGIT` per logit, ``s b V /
      (t cp)`` logits;
    * with ``fp8``: :data:`FP8_CAST_BYTES_PER_ELEMENT` per element of every linear layer's
      input in the forward pass (the QKV, projection, MLP-in and MLP-out GEMMs) and of its
      output gradient in the backward pass.
    """
    kw = dict(tp=layout.tp, sequence_parallel=layout.sequence_parallel, flash_attention=layout.flash_attention,
              cp=layout.cp, microbatch=layout.microbatch)

    def per_layer(recompute):
        dense = _memory.layer_activation_bytes(model, recompute=recompute, **kw)
        if not model.moe_layers:
            return dense
        moe = _memory.layer_activation_bytes(model, recompute=recompute, moe=True, **kw)
        return ((model.layers - model.moe_layers) * dense + model.moe_layers * moe) / model.layers

    stored = per_layer("none")
    traffic = 6.0 * stored
    if layout.recompute == "full":
        traffic += 2.0 * stored
    elif layout.recompute == "selective" and not layout.flash_attention:
        # with fused attention the kernel's backward recomputes the scores itself: nothing more
        traffic += 2.0 * (stored - per_layer("selective"))
    tokens = model.seq_len * layout.microbatch / layout.cp
    total = stage_layers(model, layout) * traffic
    total += CROSS_ENTROPY_BYTES_PER_LOGIT * tokens * model.vocab / layout.tp
    if layout.fp8:
        h, t = model.hidden, layout.tp
        # inputs of QKV and MLP-in (h each, gathered over tp with sequence parallelism), of the
        # projection (a d_v / t) and of MLP-out (f / t); their output gradients in the backward pass
        d_ff = model.d_ff
        inputs = 2.0 * h + model.heads * model.d_v / t + d_ff / t
        grads = (model.heads * (model.d_qk + model.d_v) + 2 * model.n_kv_heads * model.d_qk) / t \
            + h + (2.0 if model.gated_mlp else 1.0) * d_ff / t + h
        total += stage_layers(model, layout) * FP8_CAST_BYTES_PER_ELEMENT * tokens * (inputs + grads)
    return total


def _flops_by_term(model):
    """Model FLOPs of one iteration by term, 3 passes: :meth:`ModelConfig.forward_flops_per_token`
    (``matmul``, ``attention``: ``Q K^T`` and ``softmax . V`` over the full ``s x s`` as Megatron
    counts, ``logits``) times ``3 B s``."""
    tokens = 3.0 * model.global_batch * model.seq_len
    return {k: tokens * v for k, v in model.forward_flops_per_token().items()}


def compute_parts(model, layout, cluster):
    """The compute of one iteration on one GPU of the fullest stage, seconds, by kind.

    * ``linear``: the linear layers' GEMMs (QKV, projection, MLP), at ``gemm_efficiency`` of
      ``peak_flops`` or, with ``layout.fp8``, at ``fp8_gemm_efficiency`` of ``peak_flops_fp8``;
      full recomputation repeats their forward (x 4/3);
    * ``attention``: the attention core, ``12 B s^2 l a d`` model FLOPs. Without
      FlashAttention at ``gemm_efficiency``, plus its forward again under full (x 4/3) or
      selective (+ 1/3) recomputation; with it at ``attention_efficiency``, and the
      kernel's backward recomputes ``Q K^T`` (7 GEMM-sized passes instead of 6, x 7/6;
      Dao 2023, Algorithm 2), plus the forward again under full recomputation; a causal
      kernel computes only the blocks on and below the diagonal (``_causal_fraction``);
    * ``logits``: the output layer, ``6 B s V h``, at ``gemm_efficiency`` (not recomputed);
    * ``elementwise``: :func:`elementwise_time`.

    Linear GEMMs and logits run at the cluster's ``gemm_efficiency``, or, where the cluster
    names a ``gemm_gpu``, at the efficiency of their shapes
    (:func:`~interconnect.parallel.gemm.layer_gemm_efficiency`; with context parallelism
    their ``M`` is the ``s b / cp`` tokens of one rank).

    Every FLOP term is the iteration's total over ``n = dp tp pp cp`` GPUs: with context
    parallelism the attention core too, as Megatron-Core balances causal attention by
    giving each rank two of ``2 cp`` chunks.

    Without ``fp8``, ``flash_attention``, an ``attention_efficiency`` or a ``gemm_gpu`` the first three are
    the one term of Narayanan et al. (2021) and Korthikanti et al. (2022),
    ``step_flops / (n peak gemm_efficiency)``, returned as ``linear`` (the others 0).

    Returns
    -------
    dict
        Seconds per iteration: ``linear``, ``attention``, ``logits``, ``elementwise``.

    Examples
    --------
    GPT-3 175B on DGX A100: the one-term model, then with FlashAttention (the attention core
    now priced on its own):

    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> {k: round(v, 2) for k, v in compute_parts(gpt, Layout(dp=16, tp=8, pp=8), dgx).items()}
    {'linear': 15.22, 'attention': 0.0, 'logits': 0.0, 'elementwise': 1.5}
    >>> {k: round(v, 2) for k, v in compute_parts(gpt, Layout(dp=16, tp=8, pp=8, flash_attention=True),
    ...                                           dgx).items()}
    {'linear': 14.37, 'attention': 0.25, 'logits': 0.05, 'elementwise': 0.36}
    """
    n = layout.n_gpus
    elementwise = elementwise_time(model, layout, cluster)
    even = model.layers / layout.pp
    scale = 1.0 if stage_layers(model, layout) == even else stage_layers(model, layout) / even
    if not (layout.fp8 or layout.flash_attention or cluster.attention_efficiency is not None
            or cluster.gemm_gpu is not None):
        hw = step_flops(model, layout.recompute)
        return {"linear": scale * hw / (n * cluster.peak_flops * cluster.gemm_efficiency), "attention": 0.0,
                "logits": 0.0, "elementwise": elementwise}
    terms = _flops_by_term(model)
    attn, logits, linear = terms["attention"], terms["logits"], terms["matmul"]
    full = layout.recompute == "full"
    if full:
        linear *= 4.0 / 3.0
    if cluster.gemm_gpu is not None:
        shape_eff = layer_gemm_efficiency(model, layout, cluster.gemm_gpu)
        logit_eff = gemm_efficiency(model.seq_len * layout.microbatch // layout.cp, -(-model.vocab // layout.tp),
                                    model.hidden, cluster.gemm_gpu)
    else:
        shape_eff = logit_eff = cluster.gemm_efficiency
    if layout.fp8:
        if cluster.peak_flops_fp8 is None:
            raise ValueError("layout.fp8=True needs a cluster with peak_flops_fp8; allowed: a Cluster whose GPU "
                             "has an FP8 peak (e.g. Cluster.from_links('H100', ...))")
        if cluster.fp8_gemm_efficiency is not None:
            fp8_eff = cluster.fp8_gemm_efficiency
        elif cluster.gemm_gpu is not None:
            fp8_eff = layer_gemm_efficiency(model, layout, cluster.gemm_gpu, dtype="fp8")
        else:
            fp8_eff = shape_eff
        lin_rate = cluster.peak_flops_fp8 * fp8_eff
    else:
        lin_rate = cluster.peak_flops * shape_eff
    attn_rate = cluster.peak_flops * (cluster.attention_efficiency or cluster.gemm_efficiency)
    attn_hw = attn * _attention_recompute_factor(layout) * _causal_fraction(model, layout)
    return {"linear": scale * linear / (n * lin_rate), "attention": scale * attn_hw / (n * attn_rate),
            "logits": logits / (n * cluster.peak_flops * logit_eff), "elementwise": elementwise}


#: Query and key rows per tile of a fused-attention kernel (FlashAttention-2/3 on A100 and H100 use
#: 128 x 128 or 128 x 64 blocks; Dao 2023, sec. 3.1.1).
ATTENTION_TILE = 128


def _causal_fraction(model, layout):
    """Share of the ``s x s`` score blocks a fused causal-attention kernel computes: it skips the
    blocks above the diagonal and computes the ``n`` diagonal ones in full, ``(n + 1) / (2 n)``
    with ``n = ceil(s / ATTENTION_TILE)`` (Dao 2023, FlashAttention-2, sec. 3.1.1: "about 1.7-1.8x
    speedup" from skipping them). Megatron's and NeMo's model FLOPs count the full ``s x s``; so
    does the measured kernel rate, taken on the full (non-causal) problem. 1 without FlashAttention:
    the unfused softmax of Megatron-LM 2021-22 computes every score and masks it."""
    if not layout.flash_attention:
        return 1.0
    n = -(-model.seq_len // ATTENTION_TILE)
    return (n + 1) / (2.0 * n)


def _attention_recompute_factor(layout):
    """Attention-core FLOPs executed per model FLOP: 7/6 with FlashAttention (its backward
    recomputes ``Q K^T``), 4/3 for a second forward pass (full, or selective without fused
    attention), plus 1/3 for full recomputation with FlashAttention."""
    full = layout.recompute == "full"
    if layout.flash_attention:
        return 7.0 / 6.0 + (1.0 / 3.0 if full else 0.0)
    return 4.0 / 3.0 if full or layout.recompute == "selective" else 1.0


def _attention_core_time(model, layout, cluster):
    """Seconds per iteration of the attention core (``Q K^T``, ``softmax . V``, recomputation
    included) on one GPU of the fullest stage, at the rate :func:`compute_parts` prices it
    (also where the one-term model folds it into ``linear``)."""
    even = model.layers / layout.pp
    scale = stage_layers(model, layout) / even
    attn_rate = cluster.peak_flops * (cluster.attention_efficiency or cluster.gemm_efficiency)
    attn_hw = _flops_by_term(model)["attention"] * _attention_recompute_factor(layout) * _causal_fraction(model, layout)
    return scale * attn_hw / (layout.n_gpus * attn_rate)


def _cp_exposed(model, layout, cluster):
    """Context-parallel communication left on the critical path, seconds per step.

    Ring attention computes the attention of the chunk in hand while the next chunk's keys
    and values travel: of the ``cp`` chunk steps of each attention pass, ``cp - 1`` have a
    transfer behind them (the last chunk's compute has none). So the ring traffic hides
    behind ``(cp - 1) / cp`` of the attention core's time, summed over the step:
    ``max(0, cp_comm_time - (cp - 1) / cp * attention)``. Summed over the step rather than
    per ring step, it is a lower bound where the chunks' transfers and computes differ."""
    comm = cp_comm_time(model, layout, cluster)
    if comm == 0.0:
        return 0.0
    hide = (layout.cp - 1) / layout.cp * _attention_core_time(model, layout, cluster)
    return max(0.0, comm - hide)


def _fsdp_exposed(model, layout, cluster, compute, m, backward_share):
    """Exposed FSDP (ZeRO-3 with ``dp_shard``) traffic, seconds per step.

    Per microbatch of forward compute ``c_f`` and backward compute ``c_b`` (recomputation
    included), with ``k`` buckets (FSDP units):

    * the forward AllGathers prefetch the next unit's parameters behind the current unit's
      compute: with ``param_gather_overlap`` all but the first unit's gather hide, up to
      ``c_f``; without it all are exposed;
    * in the backward pass the re-gathers likewise hide up to ``c_b`` (with
      ``param_gather_overlap``), and the gradient ReduceScatters hide behind what of
      ``dp_overlap c_b`` the re-gathers left, all but the last unit's;
    * the replicas' AllReduce (HSDP), once per step after the last microbatch's
      ReduceScatters, hides behind what is left of that window, all but the last bucket's.
    """
    traffic = dp_traffic(model, layout)
    k = _dp_buckets(model, layout)
    rs, ag_f, ag_b = (_price_groups([t], cluster) / m for t in traffic[:3])
    ar = _price_groups(traffic[3:], cluster)
    c_f = (1.0 - backward_share) * compute / m
    c_b = backward_share * compute / m
    tail = 1.0 - 1.0 / k
    hid_f = min(ag_f * tail, c_f) if layout.param_gather_overlap else 0.0
    hid_b = min(ag_b * tail, c_b) if layout.param_gather_overlap else 0.0
    room = min(layout.dp_overlap * c_b, c_b - hid_b)
    hid_rs = min(rs * tail, room)
    hid_ar = min(ar * tail, room - hid_rs)
    return m * (ag_f - hid_f + ag_b - hid_b + rs - hid_rs) + ar - hid_ar


def _hardware_flops(model, layout):
    """Hardware FLOPs of one iteration (what the GPUs execute, recomputation included)."""
    if not layout.flash_attention:
        return step_flops(model, layout.recompute)
    terms = _flops_by_term(model)
    linear = terms["matmul"] * (4.0 / 3.0 if layout.recompute == "full" else 1.0)
    return linear + terms["logits"] + terms["attention"] * _attention_recompute_factor(layout)


@dataclass(frozen=True)
class StepTime:
    """The pieces of one training iteration, seconds, and the resulting utilisation.

    Attributes
    ----------
    compute : float
        Hardware FLOPs per GPU over ``peak * gemm_efficiency``, plus the memory-bound
        element-wise time (:func:`elementwise_time`, also reported alone as ``elementwise``).
    bubble : float
        Pipeline idle time, ``pipeline_bubble_fraction * (compute + tp_comm + ep_comm + cp_comm)``.
    tp_comm, pp_comm, ep_comm : float
        Tensor-, pipeline- and expert-parallel communication on the critical path.
    dp_comm : float
        Whole data-parallel (ZeRO) communication; ``dp_comm_exposed`` is the part not hidden.
    total : float
        Iteration time.
    mfu, hfu : float
        Model and hardware FLOPs utilisation (Chowdhery et al. 2022; HFU counts recomputation).
    tflops_per_gpu : float
        Hardware TFLOP/s per GPU achieved (Narayanan et al. 2021 report this, eq. 3).
    bubble_fraction : float
        ``(p - 1) / (v m)``.
    elementwise : float
        The memory-bound part of ``compute``.
    tp_comm_hidden : float
        Tensor-parallel communication run behind the GEMMs (``Layout.tp_overlap``); not in
        ``total``.
    model_tflops_per_gpu : float
        Model TFLOP/s per GPU (no recomputation counted): what Megatron-Core's log and most
        2023-26 papers report, where Narayanan et al. (2021) reported hardware FLOP/s.
    cp_comm : float
        Context-parallel (ring attention) communication left after the part hidden behind
        the attention core (:func:`cp_comm_time` is all of it); 0 without context parallelism.
        Last of the fields, so that positional construction of the others is unchanged.
    """

    compute: float
    bubble: float
    tp_comm: float
    pp_comm: float
    ep_comm: float
    dp_comm: float
    dp_comm_exposed: float
    total: float
    mfu: float
    hfu: float
    tflops_per_gpu: float
    bubble_fraction: float
    elementwise: float = 0.0
    tp_comm_hidden: float = 0.0
    model_tflops_per_gpu: float = 0.0
    cp_comm: float = 0.0

    PARTS = ("compute", "bubble", "tp_comm", "pp_comm", "ep_comm", "dp_comm_exposed", "cp_comm")

    def as_dict(self):
        """All fields as a plain dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def __getitem__(self, key):
        return getattr(self, key)

    @property
    def efficiency(self):
        """Share of the iteration spent computing, ``compute / total`` (1 with no overhead).

        Examples
        --------
        >>> from interconnect import catalog
        >>> st = step_time(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8), Cluster.dgx_a100())
        >>> st.efficiency == st.compute / st.total
        True
        """
        return self.compute / self.total

    def shares(self):
        """Each part of :attr:`PARTS` as a fraction of :attr:`total`.

        Examples
        --------
        >>> from interconnect import catalog
        >>> st = step_time(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8), Cluster.dgx_a100())
        >>> round(sum(st.shares().values()), 6), round(st.shares()["tp_comm"], 3)
        (1.0, 0.113)
        """
        return {k: getattr(self, k) / self.total for k in self.PARTS}

    def dominant_overhead(self):
        """The largest non-compute part, by name.

        Examples
        --------
        >>> from interconnect import catalog
        >>> st = step_time(catalog.models.get("gpt3-175b"), Layout(dp=16, tp=8, pp=8), Cluster.dgx_a100())
        >>> st.dominant_overhead()
        'tp_comm'
        """
        return max(self.PARTS[1:], key=lambda k: getattr(self, k))


def step_time(model, layout, cluster):
    """Time of one training iteration of ``model`` split as ``layout`` on ``cluster``.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Must fit the model: ``tp`` divides ``heads``, ``pp * chunks`` divides ``layers``,
        ``microbatch * dp`` divides ``global_batch``.
    cluster : Cluster

    Returns
    -------
    StepTime
        ``total = compute + bubble + tp_comm + pp_comm + ep_comm + dp_comm_exposed + cp_comm``.

    Notes
    -----
    ``compute = step_flops(model, recompute) / (n * peak * gemm_efficiency)``. The gradient
    reduction can only start when the last microbatch's backward pass produces the
    gradients, so the compute it may hide behind is that backward pass (2/3 of a
    microbatch's compute; 3/4 with full recomputation, whose extra forward runs then), times
    ``layout.dp_overlap``; the last bucket (the first layers' gradients, produced last)
    is always exposed.

    Context parallelism (``cp > 1``): the ring attention's K, V traffic hides behind the
    attention core it feeds, all but one chunk's worth (``_cp_exposed``); what is left,
    ``cp_comm``, is on the critical path of every microbatch like ``tp_comm`` and so also
    enters the bubble. FSDP / HSDP (ZeRO-3 with ``dp_shard``): the per-microbatch
    parameter gathers prefetch behind the compute of the microbatch's forward and backward
    passes when ``param_gather_overlap`` is set (``_fsdp_exposed``); ZeRO 1-2 with
    ``dp_shard`` use the rules above, the replicas' AllReduce counted with the gradient
    reduction.

    References
    ----------
    Narayanan et al. (2021), sec. 2-4 and eqs. (1), (3); Korthikanti et al. (2022), sec. 4-5;
    Shoeybi et al. (2019); Rajbhandari et al. (2020), sec. 7.

    Examples
    --------
    The 145.6B row of Narayanan et al. (2021), Table 1, on 1,536 A100s (t = 8, p = 8, batch
    2,304, full recomputation): the paper measured 148 TFLOP/s per GPU, the model predicts
    153 (3 % high):

    >>> m = ModelConfig(80, 12288, 96, 2048, 51200, global_batch=2304)
    >>> lay = Layout(dp=24, tp=8, pp=8, sequence_parallel=False, recompute="full")
    >>> round(step_time(m, lay, Cluster.dgx_a100()).tflops_per_gpu)
    153
    """
    if not isinstance(model, ModelConfig):
        raise ValueError(f"model={model!r} is not a ModelConfig")
    if not isinstance(layout, Layout):
        raise ValueError(f"layout={layout!r} is not a Layout")
    if not isinstance(cluster, Cluster):
        raise ValueError(f"cluster={cluster!r} is not a Cluster")
    m = _check_fit(model, layout)
    n = layout.n_gpus
    hw = _hardware_flops(model, layout)
    parts = compute_parts(model, layout, cluster)
    elementwise = parts["elementwise"]
    compute = parts["linear"] + parts["attention"] + parts["logits"] + elementwise
    tp_all = tp_comm_time(model, layout, cluster)
    # TP collectives hide behind the GEMMs next to them, never behind more than those GEMMs
    tp_hidden = min(layout.tp_overlap * tp_all, parts["linear"]) if layout.tp_overlap > 0 else 0.0
    tp = tp_all - tp_hidden
    pp = pp_comm_time(model, layout, cluster)
    ep = ep_comm_time(model, layout, cluster)
    bf = pipeline_bubble_fraction(layout.pp, m, layout.chunks)
    cp = _cp_exposed(model, layout, cluster)
    bubble = bf * (compute + tp + ep + cp)          # cp = 0.0 leaves the sum's bits alone
    dp = dp_comm_time(model, layout, cluster)
    # the backward phase: 2 of 3 passes, or recompute + backward = 3 of 4 with full recomputation
    backward_share = 0.75 if layout.recompute == "full" else 2.0 / 3.0
    window = backward_share * compute / m
    n_buckets = _dp_buckets(model, layout)
    if layout.zero_stage == 3 and layout.dp_shard is not None and layout.shard_ranks > 1 and dp > 0:
        dp_exposed = _fsdp_exposed(model, layout, cluster, compute, m, backward_share)
    elif layout.param_gather_overlap and layout.zero_stage > 0 and dp > 0:
        # Megatron-Core --overlap-param-gather: the updated parameters' AllGather runs behind
        # the next step's first forward pass; the gradients' ReduceScatter (and HSDP's AllReduce
        # of the replicas) behind the last backward
        traffic = dp_traffic(model, layout)
        grad = _price_groups([t for t in traffic if t.op != "allgather"], cluster)
        gather = dp - grad
        fwd_window = (1.0 - backward_share) * compute / m
        grad_exposed = grad - min(grad - grad / n_buckets, layout.dp_overlap * window)
        gather_exposed = gather - min(gather - gather / n_buckets, fwd_window)
        dp_exposed = grad_exposed + gather_exposed
    else:
        # the last bucket holds the first layers' gradients, computed last: its reduction can only
        # start when the backward pass ends, so at most (n_buckets - 1) buckets hide behind it
        last_bucket = dp / n_buckets if dp > 0 else 0.0
        dp_exposed = dp - min(dp - last_bucket, layout.dp_overlap * window) if dp > 0 else 0.0
    total = compute + bubble + tp + pp + ep + dp_exposed + cp
    peak_total = n * cluster.peak_flops * total
    mf = model.model_flops()
    return StepTime(compute=compute, bubble=bubble, tp_comm=tp, pp_comm=pp, ep_comm=ep, dp_comm=dp,
                    dp_comm_exposed=dp_exposed, total=total, mfu=mf / peak_total,
                    hfu=hw / peak_total, tflops_per_gpu=hw / (n * total) / 1e12, bubble_fraction=bf,
                    elementwise=elementwise, tp_comm_hidden=tp_hidden,
                    model_tflops_per_gpu=mf / (n * total) / 1e12, cp_comm=cp)


def dp_step_time(model, cluster, dp=8, zero_stage=2, dp_overlap=0.0, bucket_bytes=25e6, microbatch=1,
                 tokens_per_gpu=None):
    """One iteration of pure data parallelism (``tp = pp = 1``): :func:`step_time` of that layout.

    Parameters
    ----------
    model : ModelConfig
    cluster : Cluster
    dp : int
        Data-parallel ranks, >= 1 (default 8, one node).
    zero_stage, dp_overlap, bucket_bytes, microbatch :
        As in :class:`Layout` (defaults: ZeRO-2, no overlap, 25 MB buckets, b = 1).
    tokens_per_gpu : int, optional
        Tokens each GPU processes per step; sets the global batch to
        ``dp * tokens_per_gpu / seq_len`` sequences. Default: the model's ``global_batch``.

    Returns
    -------
    StepTime

    Examples
    --------
    >>> from interconnect import catalog
    >>> gpt, dgx = catalog.models.get("gpt3-6.7b"), Cluster.dgx_a100()
    >>> st = dp_step_time(gpt, dgx, tokens_per_gpu=8192, dp_overlap=1.0)
    >>> st == step_time(ModelConfig(32, 4096, 32, 2048, 51200, 32, name="GPT-3 6.7B"),
    ...                 Layout(dp=8, tp=1, pp=1, zero_stage=2, dp_overlap=1.0), dgx)
    True
    """
    if tokens_per_gpu is not None:
        model = replace(model, global_batch=dp * tokens_per_gpu // model.seq_len)
    lay = Layout(dp=dp, tp=1, pp=1, microbatch=microbatch, zero_stage=zero_stage, dp_overlap=dp_overlap,
                 bucket_bytes=bucket_bytes)
    return step_time(model, lay, cluster)
