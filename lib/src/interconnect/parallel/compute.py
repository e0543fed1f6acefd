"""What one training step computes on one GPU, in seconds: the GEMMs by shape, the attention
core, the logits and the memory-bound element-wise work (:func:`compute_parts`), the part of the
step-time model (:mod:`interconnect.parallel.step_time`) that is not communication.

On the machine presets every in-GPU cost comes from a component measurement, none from a
training run: the GEMMs' measured ceiling, shape quantisation and short-reduction loss
(:mod:`interconnect.parallel.gemm`), fused attention at FlashAttention-3's measured forward and
backward rates (:func:`attention_pass_rates`), and the memory-bound work (activations, the FP32
cross-entropy, FP8 casts, the optimizer step: :func:`optimizer_bytes`) at the HBM bandwidth.
"""

from __future__ import annotations

from .. import memory as _memory
from .gemm import layer_gemm_efficiency, layer_gemms, training_gemm_efficiency
from .layout import _check_fit, stage_layers
from .transformer import step_flops

__all__ = ["elementwise_time", "compute_parts", "optimizer_bytes", "CROSS_ENTROPY_BYTES_PER_LOGIT",
           "FP8_CAST_BYTES_PER_ELEMENT", "ADAM_BYTES_PER_PARAM", "GRAD_ZERO_BYTES_PER_PARAM",
           "ATTENTION_TILE", "FA3_SEQ", "FA3_H100", "attention_pass_rates", "CROSS_ENTROPY_HBM_FRACTION",
           "ATTENTION_GRID_HEADS", "ATTENTION_GRID_RATE", "attention_grid_factor"]


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
    casts of the GEMM operands, and once per step the optimizer's update of the GPU's shard
    (``compute.optimizer_bytes``). The calibrated 2021 clusters keep the GPT-block accounting
    above, which their two fitted efficiencies were fitted with.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Cluster, Layout
    >>> gpt, dgx = catalog.models.get("gpt3-175b"), Cluster.dgx_a100()
    >>> round(elementwise_time(gpt, Layout(dp=16, tp=8, pp=8), dgx), 2)   # s per step, HBM-bound
    1.5
    """
    if cluster.memory_bandwidth is None:
        return 0.0
    m = _check_fit(model, layout)
    if cluster.gemm_gpu is not None:
        ce_fraction = CROSS_ENTROPY_HBM_FRACTION if cluster.gemm_gpu in _FA3_GPUS else 1.0
        traffic = m * _bottom_up_elementwise_bytes(model, layout, ce_fraction) + optimizer_bytes(model, layout)
        return traffic / cluster.memory_bandwidth
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

#: Share of the HBM bandwidth the cross-entropy's kernels reach on Hopper, measured: Megatron-Core's
#: ``VocabParallelCrossEntropy`` run op for op on one H200 (``benchmarks/vocab_layer.py``, data in
#: ``benchmarks/data/vocab_layer_h200.json``) takes 1.37-1.49x the time of
#: :data:`CROSS_ENTROPY_BYTES_PER_LOGIT` at the 4.8 TB/s peak for 4,096 tokens and 32,000-131,072
#: logits per rank (0.673-0.731 of the peak; a 2 GiB copy reaches 0.881). The mean of the five shapes;
#: applied on Hopper and Blackwell machine presets (Blackwell keeps Hopper's fraction, as with
#: :func:`attention_pass_rates`), the A100 presets keep the peak.
CROSS_ENTROPY_HBM_FRACTION = 0.705

#: Bytes of HBM traffic per element of a GEMM operand cast to FP8 by Transformer Engine: the
#: 16-bit tensor read (2), the FP8 copy and its transpose for the backward GEMM written (1 + 1);
#: the amax reduction reads the 16-bit tensor once more (2). Micikevicius et al. (2022); NVIDIA
#: Transformer Engine, ``cast_transpose`` kernels.
FP8_CAST_BYTES_PER_ELEMENT = 6.0


#: Bytes of HBM traffic per parameter of one mixed-precision Adam step (Micikevicius et al. 2018;
#: Megatron-Core's optimizer with a fused Adam kernel): the FP32 master weight, its FP32 gradient
#: and the two moments read (4 x 4), the weight and the moments written (3 x 4), and the updated
#: weight cast to the 16-bit copy the layers compute with (read 4, write 2).
ADAM_BYTES_PER_PARAM = 34.0

#: Bytes per parameter of zeroing the FP32 gradient buffer for the next step (one write).
GRAD_ZERO_BYTES_PER_PARAM = 4.0


def optimizer_bytes(model, layout):
    """HBM bytes of the optimizer step on one GPU of the fullest stage, once per iteration.

    :data:`ADAM_BYTES_PER_PARAM` for each parameter of the GPU's optimizer shard (the stage's
    parameters, :func:`~interconnect.parallel.stage_params`, over ``shard_ranks`` with ZeRO >= 1,
    as Megatron's distributed optimizer partitions them) plus :data:`GRAD_ZERO_BYTES_PER_PARAM`
    for each of the stage's parameters: the backward passes of the step's microbatches accumulate
    into a full-size FP32 gradient buffer (Megatron's grad buffer; with gradients sharded after
    the reduce-scatter too, as long as more than one microbatch accumulates), zeroed once per
    step. Memory-bound, counted at the HBM bandwidth like the other element-wise work.

    Examples
    --------
    Korthikanti's 22B on 8 A100 (TP 8, no data parallelism): 2.76B parameters per GPU, 105 GB,
    52 ms at 2,039 GB/s of a 1.10 s iteration:

    >>> from interconnect.parallel import Layout, ModelConfig
    >>> m22 = ModelConfig(48, 6144, 64, 2048, 51200, 4)
    >>> round(optimizer_bytes(m22, Layout(dp=1, tp=8, pp=1)) / 1e9, 1)
    104.9
    """
    from .stage_memory import stage_params

    params = max(stage_params(model, layout, "first"), stage_params(model, layout, "last"))
    shards = layout.shard_ranks if layout.zero_stage >= 1 else 1
    return ADAM_BYTES_PER_PARAM * params / shards + GRAD_ZERO_BYTES_PER_PARAM * params


def _bottom_up_elementwise_bytes(model, layout, ce_fraction=1.0):
    """HBM bytes of the element-wise work of one microbatch on one GPU of the fullest stage,
    counted for the model as it is (see :func:`elementwise_time`).

    * layers: 6x the stored activations of
      :func:`interconnect.memory.layer_activation_bytes` (no recomputation), the MoE layers'
      with their experts; a recomputed forward adds 2x again, of everything (full) or of the
      part selective recomputation drops (nothing with fused attention);
    * the loss, on the last stage: :data:`CROSS_ENTROPY_BYTES_PER_LOGIT` per logit, ``s b V /
      (t cp)`` logits, over ``ce_fraction`` (:data:`CROSS_ENTROPY_HBM_FRACTION` on Hopper and
      Blackwell: the bytes at the bandwidth its kernels reach);
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
    total += CROSS_ENTROPY_BYTES_PER_LOGIT * tokens * model.vocab / layout.tp / ce_fraction
    if layout.fp8:
        # per token, each linear GEMM [m, k] x [k, n] casts its k-wide input in the forward pass and
        # its n-wide output gradient in the backward pass
        per_token = sum(k + n for _, _, n, k in layer_gemms(model, layout))
        total += stage_layers(model, layout) * FP8_CAST_BYTES_PER_ELEMENT * tokens * per_token
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
      kernel computes only the blocks on and below the diagonal (``_causal_fraction``). On a
      Hopper or Blackwell machine preset the forward and the backward pass are priced apart, at
      FlashAttention-3's measured causal rates for the sequence length
      (``compute.attention_pass_rates``);
    * ``logits``: the output layer, ``6 B s V h``, at ``gemm_efficiency`` (not recomputed);
    * ``elementwise``: :func:`elementwise_time`.

    The linear GEMMs, the logits and the attention core are divided by the cluster's
    ``sustained_fraction`` (1 unless set; the machine presets set their GPU generation's fitted
    constant, :data:`interconnect.parallel.machines.SUSTAINED_FRACTION`).

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
    >>> from interconnect.parallel import Cluster, Layout
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
        rate = cluster.peak_flops * cluster.gemm_efficiency * cluster.sustained_fraction
        return {"linear": scale * hw / (n * rate), "attention": 0.0,
                "logits": 0.0, "elementwise": elementwise}
    terms = _flops_by_term(model)
    logits, linear = terms["logits"], terms["matmul"]
    full = layout.recompute == "full"
    if full:
        linear *= 4.0 / 3.0
    if cluster.gemm_gpu is not None:
        shape_eff = layer_gemm_efficiency(model, layout, cluster.gemm_gpu)
        logit_eff = training_gemm_efficiency(model.seq_len * layout.microbatch // layout.cp,
                                             -(-model.vocab // layout.tp), model.hidden, cluster.gemm_gpu)
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
    kept = cluster.sustained_fraction
    return {"linear": scale * linear / (n * lin_rate * kept), "attention": _attention_core_time(model, layout, cluster),
            "logits": logits / (n * cluster.peak_flops * logit_eff * kept), "elementwise": elementwise}


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


#: Sequence lengths of :data:`FA3_H100`.
FA3_SEQ = (512, 1024, 2048, 4096, 8192, 16384)

#: FlashAttention-3 on H100 80GB SXM5, BF16, head dimension 128 (16 heads, batch x sequence = 16k
#: tokens), TFLOP/s by sequence length (:data:`FA3_SEQ`), read from the bar labels of Shah et al.
#: 2024 (``shah2024flashattention3``), Fig. 5 (forward pass, without and with the causal mask) and
#: Fig. 6 (backward pass, without the mask). The FLOPs are FlashAttention's count: ``4 s^2 d`` per
#: head forward, 2.5x that backward, halved with the causal mask.
FA3_H100 = {"fwd": (467.0, 565.0, 625.0, 638.0, 646.0, 648.0),
            "fwd_causal": (292.0, 423.0, 521.0, 579.0, 602.0, 616.0),
            "bwd": (316.0, 424.0, 501.0, 542.0, 559.0, 561.0)}

#: GPUs priced with :data:`FA3_H100`, and the GPU whose peak scales it (Blackwell keeps Hopper's
#: fraction of peak, as :func:`~interconnect.parallel.machines.attention_efficiency_of` does).
_FA3_GPUS = ("H100", "H200", "B200", "GB200")


#: Query heads per GPU in one microbatch (``b a / t``) of :data:`ATTENTION_GRID_RATE`.
ATTENTION_GRID_HEADS = (7, 8, 12, 16, 32, 64)

#: Causal fused attention at 4,096 tokens and head dimension 128 by query heads per microbatch
#: (:data:`ATTENTION_GRID_HEADS`), forward and backward, as a share of the rate at FlashAttention-3's
#: benchmark size (batch 4 x 16 heads = 64), measured on one H200 with PyTorch's cuDNN attention,
#: the backend Transformer Engine prefers on Hopper (``benchmarks/attention_heads.py``, data in
#: ``benchmarks/data/attention_heads_h200.json``): fewer heads launch fewer tiles, and the causal
#: mask's short rows leave more of the GPU idle at the end.
ATTENTION_GRID_RATE = {"fwd": (0.592, 0.616, 0.716, 0.781, 0.911, 1.0),
                       "bwd": (0.682, 0.711, 0.836, 0.897, 0.965, 1.0)}


def attention_grid_factor(heads):
    """Forward and backward fused-attention rate at ``heads`` query heads per GPU and microbatch, as a
    share of the rate at FlashAttention-3's benchmark size (:data:`ATTENTION_GRID_RATE`, linear in
    ``log heads`` between the measured counts, the end values outside them: 1 from 64 heads up).

    Examples
    --------
    >>> attention_grid_factor(16), attention_grid_factor(128)
    ((0.781, 0.897), (1.0, 1.0))
    """
    import numpy as np

    if not heads > 0:
        raise ValueError(f"heads={heads!r} must be > 0")
    x, grid = np.log(heads), np.log(ATTENTION_GRID_HEADS)
    return tuple(round(float(np.interp(x, grid, ATTENTION_GRID_RATE[k])), 12) for k in ("fwd", "bwd"))


def attention_pass_rates(seq_len, gpu="H100"):
    """Measured causal fused-attention rates of ``gpu``, forward and backward, FLOP/s.

    The forward rate is FlashAttention-3's with the causal mask (:data:`FA3_H100`, linear in
    ``log2 s`` between the measured lengths, the end values outside them). The paper measures
    the backward pass only without the mask; the causal backward rate is taken as the causal
    forward rate times the unmasked backward/forward ratio at the same length (an assumption).
    Other GPUs of :data:`_FA3_GPUS` keep H100's fraction of their dense BF16 peak.

    Returns
    -------
    (float, float)
        Forward and backward FLOP/s, FlashAttention's FLOP count (half of ``s^2`` with the mask).

    Examples
    --------
    At 4,096 and 8,192 tokens on H100 the backward pass runs 15 % and 13 % slower than the forward:

    >>> [tuple(round(r / 1e12) for r in attention_pass_rates(s)) for s in (4096, 8192)]
    [(579, 492), (602, 521)]
    """
    import numpy as np

    from .._validate import as_count, choice
    from ..devices import get_gpu

    s = as_count("seq_len", seq_len)
    key = choice("gpu", getattr(gpu, "name", gpu), list(_FA3_GPUS))
    x, grid = np.log2(s), np.log2(FA3_SEQ)
    fwd_c, fwd, bwd = (float(np.interp(x, grid, FA3_H100[k])) for k in ("fwd_causal", "fwd", "bwd"))
    scale = 1e12 * get_gpu(key).peak_flops / get_gpu("H100").peak_flops
    return fwd_c * scale, fwd_c * bwd / fwd * scale


def _measured_attention(layout, cluster):
    """Whether the attention core is priced by pass at :func:`attention_pass_rates`: fused attention
    on a machine preset of a GPU in :data:`_FA3_GPUS` whose ``attention_efficiency`` is the
    preset's own (an ``attention_efficiency`` set by hand is honoured as given)."""
    if not layout.flash_attention or cluster.gemm_gpu not in _FA3_GPUS:
        return False
    from .machines import attention_efficiency_of

    return cluster.attention_efficiency == attention_efficiency_of(cluster.gemm_gpu)


def _attention_core_time(model, layout, cluster):
    """Seconds per iteration of the attention core (``Q K^T``, ``softmax . V``, recomputation
    included) on one GPU of the fullest stage, at the rate :func:`compute_parts` prices it
    (also where the one-term model folds it into ``linear``).

    With :func:`_measured_attention`: the forward pass (twice under full recomputation) at the
    measured causal forward rate and the backward pass (2.5x the forward FLOPs) at the backward
    rate, for half of the model's ``s^2`` FLOPs (FlashAttention's causal count; the rates include
    the diagonal blocks' overhead), the length each rank attends with (``s / cp``), each rate times
    the measured loss of the GPU's smaller grid of heads (:func:`attention_grid_factor` of ``b a / t``)."""
    even = model.layers / layout.pp
    scale = stage_layers(model, layout) / even
    terms = _flops_by_term(model)
    if _measured_attention(layout, cluster):
        fwd_rate, bwd_rate = attention_pass_rates(model.seq_len // layout.cp, cluster.gemm_gpu)
        grid_fwd, grid_bwd = attention_grid_factor(layout.microbatch * model.heads / layout.tp)
        fwd_rate, bwd_rate = fwd_rate * grid_fwd, bwd_rate * grid_bwd
        fwd = 0.5 * terms["attention"] / 3.0
        passes = (2.0 if layout.recompute == "full" else 1.0) / fwd_rate + 2.5 / bwd_rate
        return scale * fwd * passes / (layout.n_gpus * cluster.sustained_fraction)
    attn_rate = cluster.peak_flops * (cluster.attention_efficiency or cluster.gemm_efficiency) * \
        cluster.sustained_fraction
    attn_hw = terms["attention"] * _attention_recompute_factor(layout) * _causal_fraction(model, layout)
    return scale * attn_hw / (layout.n_gpus * attn_rate)


def _hardware_flops(model, layout):
    """Hardware FLOPs of one iteration (what the GPUs execute, recomputation included)."""
    if not layout.flash_attention:
        return step_flops(model, layout.recompute)
    terms = _flops_by_term(model)
    linear = terms["matmul"] * (4.0 / 3.0 if layout.recompute == "full" else 1.0)
    return linear + terms["logits"] + terms["attention"] * _attention_recompute_factor(layout)
