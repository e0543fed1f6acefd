"""The memory wall: how many bytes one GPU must hold.

Training with mixed-precision Adam keeps, per parameter, 2 bytes of 16-bit weights,
2 bytes of 16-bit gradients and ``K = 12`` bytes of optimizer state (an FP32 master
copy, momentum and variance): 16 bytes per parameter before a single activation is
stored. ZeRO (Rajbhandari et al. 2020) partitions these states over the ``dp``
data-parallel ranks: stage 1 the optimizer states, stage 2 also the gradients, stage 3
also the parameters.

References
----------
S. Rajbhandari, J. Rasley, O. Ruwase, Y. He, "ZeRO: Memory Optimizations Toward Training
Trillion Parameter Models", SC20 (arXiv:1910.02054), sections 3.1 and 5, Table 1.
W. Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention", SOSP 2023 (arXiv:2309.06180), section 3 (KV cache size).
V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer Models",
MLSys 2023 (arXiv:2205.05198), sec. 4 and Table 2 (stored activations per layer).
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_nonnegative, as_positive

__all__ = ["training_memory", "kv_cache_bytes", "activation_memory", "layer_activation_bytes", "RECOMPUTE"]


def training_memory(n_params, dp=1, zero_stage=0, optimizer_bytes_per_param=12.0,
                    param_bytes=2.0, grad_bytes=2.0):
    """Bytes per GPU for model states (weights, gradients, optimizer) in training.

    Parameters
    ----------
    n_params : float or array
        Number of parameters (Psi in the ZeRO paper), > 0.
    dp : int or array
        Data-parallel degree (N_d), >= 1.
    zero_stage : {0, 1, 2, 3}
        0: nothing partitioned; 1: optimizer states (P_os); 2: + gradients (P_os+g);
        3: + parameters (P_os+g+p).
    optimizer_bytes_per_param : float
        K in the paper: 12 for mixed-precision Adam.
    param_bytes, grad_bytes : float
        Bytes per parameter of the working weights and gradients (2 for FP16/BF16).

    Returns
    -------
    dict of float or ndarray
        ``params``, ``grads``, ``optimizer`` and ``total``, bytes per GPU. Activations
        and buffers are not included.

    References
    ----------
    Rajbhandari et al. (2020), sec. 5.1-5.3 and Table 1: baseline (2 + 2 + K) Psi;
    P_os 4 Psi + K Psi / N_d; P_os+g 2 Psi + 14 Psi / N_d; P_os+g+p 16 Psi / N_d.

    Examples
    --------
    ZeRO's Table 1 (Rajbhandari et al. 2020): a 7.5B model on 64 data-parallel GPUs needs
    120, 31.4, 16.6 and 1.88 GB per GPU for stages 0 to 3:

    >>> [round(training_memory(7.5e9, dp=64, zero_stage=z)["total"] / 1e9, 2) for z in range(4)]
    [120.0, 31.41, 16.64, 1.88]
    """
    psi = as_positive("n_params", n_params)
    dp = as_count("dp", dp, minimum=1)
    stage = as_count("zero_stage", zero_stage, minimum=0)
    if stage > 3:
        raise ValueError(f"zero_stage={zero_stage!r} is not allowed; allowed 0, 1, 2 or 3")
    k = as_nonnegative("optimizer_bytes_per_param", optimizer_bytes_per_param, "bytes")
    pb = as_positive("param_bytes", param_bytes, "bytes")
    gb = as_positive("grad_bytes", grad_bytes, "bytes")
    params = pb * psi / (dp if stage >= 3 else 1)
    grads = gb * psi / (dp if stage >= 2 else 1)
    optimizer = k * psi / (dp if stage >= 1 else 1)
    total = params + grads + optimizer
    if np.ndim(total) == 0 and np.ndim(dp) == 0:
        return {"params": float(params), "grads": float(grads), "optimizer": float(optimizer), "total": float(total)}
    # every part has the shape of (n_params, dp) broadcast together, whatever the stage
    shape = np.broadcast(np.asarray(psi), np.asarray(dp)).shape
    parts = {"params": params, "grads": grads, "optimizer": optimizer, "total": total}
    return {k_: np.broadcast_to(np.asarray(v, dtype=float), shape).copy() for k_, v in parts.items()}


def kv_cache_bytes(layers, kv_heads, head_dim, seq_len, batch=1, bytes_per_element=2.0):
    """Bytes of the key-value cache of a transformer in inference.

    ``2 * layers * kv_heads * head_dim * seq_len * batch * bytes_per_element``: one key
    and one value vector per layer, per KV head, per token. With grouped-query or
    multi-query attention, ``kv_heads`` is the number of *key-value* heads, not of
    query heads.

    Parameters
    ----------
    layers, kv_heads, head_dim, seq_len, batch : int or array
        All >= 1.
    bytes_per_element : float
        2 for FP16/BF16.

    Returns
    -------
    float or ndarray
        Bytes.

    Examples
    --------
    OPT-13B (40 layers, 40 heads of 128): 800 KiB per token, as in Kwon et al. (2023):

    >>> kv_cache_bytes(40, 40, 128, 1)
    819200.0
    """
    f = 2.0 * as_positive("bytes_per_element", bytes_per_element, "bytes")
    for name, v in (("layers", layers), ("kv_heads", kv_heads), ("head_dim", head_dim),
                    ("seq_len", seq_len), ("batch", batch)):
        f = f * as_count(name, v, minimum=1)
    return float(f) if not hasattr(f, "shape") or f.shape == () else f.astype(float)


RECOMPUTE = ("none", "selective", "full")


def activation_memory(seq_len, microbatch, hidden, heads, layers=1, tp=1, sequence_parallel=False,
                      recompute="none", pipeline_stages=1, microbatches=None, chunks=1, flash_attention=False):
    """Bytes of stored activations of a transformer in 16-bit training, per GPU.

    Per layer (Korthikanti et al. 2022, Table 2; ``s`` sequence, ``b`` microbatch,
    ``h`` hidden, ``a`` heads, ``t`` tensor-parallel size):

    * no parallelism: ``s b h (34 + 5 a s / h)``
    * tensor parallel: ``s b h (10 + 24 / t + 5 a s / (h t))``
    * tensor + sequence parallel: ``s b h (34 / t + 5 a s / (h t))``
    * selective recomputation drops the ``5 a s / h`` attention term (the softmax and
      dropout of the attention scores are recomputed): ``s b h (10 + 24 / t)``, or
      ``s b h 34 / t`` with sequence parallelism;
    * full recomputation keeps only each layer's input: ``2 s b h``;
    * fused attention (FlashAttention, Dao et al. 2022) never stores the scores, their
      softmax or dropout: the ``5 a s / h`` term is gone, as with selective recomputation
      (the kernel keeps only the output and a log-sum-exp per row, ``4 a s b`` bytes, left out).

    With 1F1B pipelining the first stage holds ``p`` microbatches of ``L / p`` layers,
    i.e. ``L`` layers' worth (eq. 5), so pass the model's total ``layers``; the
    interleaved schedule multiplies by ``1 + (p - 1) / (p m)`` where ``m`` is the number
    of interleaving stages, i.e. ``chunks`` (sec. 4.2.3; :mod:`interconnect.pipeline`'s
    simulated schedule holds ``p + (p - 1)/v`` microbatches on stage 0, the same factor).

    Parameters
    ----------
    seq_len, microbatch, hidden, heads, layers, tp : int
        >= 1.
    sequence_parallel : bool
    recompute : {"none", "selective", "full"}
    pipeline_stages : int
        p, >= 1.
    microbatches : int, optional
        Microbatches per step; accepted for symmetry with the schedules but not used:
        the interleaving factor depends on ``chunks`` only.
    chunks : int
        Model chunks per stage of the interleaved schedule, the paper's ``m`` (1: not
        interleaved).
    flash_attention : bool
        Fused attention: drop the ``5 a s / h`` term (default False).

    Returns
    -------
    float
        Bytes.

    References
    ----------
    V. Korthikanti et al., "Reducing Activation Recomputation in Large Transformer
    Models", MLSys 2023 (arXiv:2205.05198), Table 2 and eqs. (1)-(6).

    Examples
    --------
    One layer of GPT-3 175B, one 2,048-token sequence (Korthikanti et al. 2022, Table 2), in
    MiB: no parallelism, 8-way TP with sequence parallelism and selective recomputation, and
    full recomputation:

    >>> [activation_memory(2048, 1, 12288, 96, **kw) / 2**20 for kw in
    ...  ({}, dict(tp=8, sequence_parallel=True, recompute="selective"), dict(recompute="full"))]
    [2736.0, 102.0, 48.0]
    """
    s = as_count("seq_len", seq_len)
    b = as_count("microbatch", microbatch)
    h = as_count("hidden", hidden)
    a = as_count("heads", heads)
    L = as_count("layers", layers)
    t = as_count("tp", tp)
    p = as_count("pipeline_stages", pipeline_stages)
    v = as_count("chunks", chunks)
    if recompute not in RECOMPUTE:
        raise ValueError(f"recompute={recompute!r} is unknown; allowed: {', '.join(RECOMPUTE)}")
    for name, flag in (("sequence_parallel", sequence_parallel), ("flash_attention", flash_attention)):
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name}={flag!r} is not a bool; allowed True or False")
    sbh = float(s) * b * h
    attn = 0.0 if flash_attention else 5.0 * a * s / (h * t)
    if recompute == "full":
        per_layer = 2.0 * sbh
    elif sequence_parallel:
        per_layer = sbh * (34.0 / t + (attn if recompute == "none" else 0.0))
    else:
        per_layer = sbh * (10.0 + 24.0 / t + (attn if recompute == "none" else 0.0))
    total = per_layer * L
    if microbatches is not None:
        as_count("microbatches", microbatches)
    if v > 1:
        total *= 1.0 + (p - 1) / (p * v)
    return float(total)


def layer_activation_bytes(model, tp=1, sequence_parallel=False, recompute="none", flash_attention=False, cp=1,
                           microbatch=1, moe=False, dropout=None):
    """Bytes of activations one transformer layer stores for its backward pass, per GPU, per microbatch.

    Korthikanti et al.'s (2022, sec. 4.1) accounting, element by element, for any
    :class:`~interconnect.parallel.ModelConfig` (16-bit activations, 1-byte dropout masks).
    With ``S = s / cp`` tokens of the sequence on this GPU, ``b`` the microbatch, ``t``
    the tensor-parallel size, ``a`` query heads, ``g`` key-value heads, ``d_qk``, ``d_v``
    the head sizes, ``f`` the MLP's inner size and ``δ`` 1 with dropout, 0 without:

    * attention block: ``S b [2 h + 2 a d_qk + 2 g d_qk + 2 g d_v + 2 a d_v + δ h]``: the
      QKV projection's input, Q, K, V (after RoPE), the context (the output projection's
      input) and the dropout mask after it; plus the scores, their softmax and dropout
      ``(2 + 3 δ) a S s b`` (each GPU's ``S`` queries against all ``s`` keys). Fused
      attention (FlashAttention) never stores the ``S x s`` scores: it keeps the output,
      already counted as the context, and an FP32 log-sum-exp per row and head, ``4 a S b``;
    * MLP block: ``S b [2 h + 4 f + δ h]`` (input, the GeLU's input and output, the dropout
      mask), or ``6 f`` for a gated (SwiGLU) MLP: Megatron-Core's fused SwiGLU keeps its
      input, the gate and up projections (``4 f``), and the down projection keeps the
      product (``2 f``);
    * an MoE layer (``moe=True`` and ``model.num_experts`` set): each token goes to
      ``top_k`` experts (capacity factor 1, balanced routing), so the experts store
      ``top_k`` times an expert MLP, ``k (2 h + (4 or 6) f_e)``, plus ``shared_experts``
      MLPs of ``f_e`` and the router's FP32 scores ``4 E``. The experts' input is
      gathered over the tensor-parallel ranks (Megatron-Core's expert tensor parallelism,
      here equal to ``t``), so its ``2 k h`` is not divided by ``t``;
    * two norms ``4 S b h`` (their inputs; the per-row statistics are left out);
    * multi-head latent attention (MLA) also keeps the compressed query ``4 r_q`` (the
      RMSNorm's and the up-projection's input) and key-value ``2 (r_kv + d_rope) + 2 r_kv``
      per token, and its K has ``a`` heads.

    Tensor parallelism divides the heads' and the MLP's inner terms by ``t``; the norms,
    the two block inputs, the dropout masks and the MLA latents are replicated unless
    ``sequence_parallel`` splits them too. Recomputation: ``"selective"`` drops the
    scores term (or the log-sum-exp); ``"full"`` keeps only the layer's input, ``2 S b h``
    (``/ t`` with sequence parallelism, whose layer input is already split; Korthikanti
    et al.'s Table 2 prints ``2 s b h`` for the configuration without it).

    For the GPT block (multi-head attention, ``f = 4 h``, dropout) this is Table 2:
    ``s b h (34 + 5 a s / h)``, ``s b h (10 + 24 / t + 5 a s / (h t))``,
    ``s b h (34 / t + 5 a s / (h t))`` and the selective rows without the ``5 a s`` term,
    the same numbers as :func:`activation_memory` for one layer.

    Parameters
    ----------
    model : interconnect.parallel.ModelConfig
    tp, cp, microbatch : int
        Tensor- and context-parallel sizes and the microbatch in sequences, >= 1; ``cp``
        must divide ``model.seq_len``.
    sequence_parallel, flash_attention : bool
    recompute : {"none", "selective", "full"}
    moe : bool
        The layer's MLP is a mixture of experts (counted as a dense MLP without
        ``model.num_experts``, as :class:`~interconnect.parallel.ModelConfig` does).
    dropout : bool, optional
        Default ``model.bias``: the GPT block (GPT-2/3, Megatron-LM's GPT recipes) trains
        with dropout 0.1; Llama, Mixtral and DeepSeek train without (their Megatron-Core
        recipes set attention and hidden dropout to 0).

    Returns
    -------
    float
        Bytes.

    References
    ----------
    Korthikanti et al. (2022), sec. 4.1 and Table 2; Dao et al. (2022), FlashAttention,
    sec. 3.1 (the backward pass needs only the output and the softmax statistics).

    Examples
    --------
    GPT-3 175B, one 2,048-token sequence: Table 2's 2,736 MiB without parallelism and 102
    MiB with ``t = 8``, sequence parallelism and selective recomputation:

    >>> from interconnect import catalog
    >>> gpt3 = catalog.models.get("gpt3-175b")
    >>> layer_activation_bytes(gpt3) / 2**20, layer_activation_bytes(gpt3, 8, True, "selective") / 2**20
    (2736.0, 102.0)

    Llama 3 8B at 8,192 tokens with FlashAttention: 136 KiB per token (``8 h`` of norms and
    block inputs, ``20 h / 4`` of Q, K, V and context with 8 KV heads, ``6 f`` of SwiGLU)
    plus 1 MiB of log-sum-exp:

    >>> layer_activation_bytes(catalog.models.get("llama3-8b"), flash_attention=True) / 2**20
    1089.0
    """
    t = as_count("tp", tp)
    c = as_count("cp", cp)
    b = as_count("microbatch", microbatch)
    if recompute not in RECOMPUTE:
        raise ValueError(f"recompute={recompute!r} is unknown; allowed: {', '.join(RECOMPUTE)}")
    flags = {"sequence_parallel": sequence_parallel, "flash_attention": flash_attention, "moe": moe}
    if dropout is not None:
        flags["dropout"] = dropout
    for name, flag in flags.items():
        if not isinstance(flag, (bool, np.bool_)):
            raise ValueError(f"{name}={flag!r} is not a bool; allowed True or False")
    try:
        s, h, a, g = model.seq_len, model.hidden, model.heads, model.n_kv_heads
        d_qk, d_v = model.d_qk, model.d_v
    except AttributeError:
        raise ValueError(f"model={model!r} is not a ModelConfig; allowed: an interconnect.parallel.ModelConfig") \
            from None
    if s % c:
        raise ValueError(f"cp={c} is not allowed; cp must divide seq_len={s}")
    delta = float(model.bias if dropout is None else dropout)
    S = s // c
    sp = bool(sequence_parallel)
    if recompute == "full":
        return 2.0 * S * b * h / (t if sp else 1)
    act = 6.0 if model.gated_mlp else 4.0
    # replicated over the tensor-parallel ranks unless sequence parallel: norms, block inputs, masks
    rep = 4.0 * h + 2.0 * h + 2.0 * h + 2.0 * delta * h
    if model.is_mla:
        rep += 4.0 * (model.q_lora_rank or 0) + 2.0 * (model.kv_lora_rank + model.qk_rope_head_dim) \
            + 2.0 * model.kv_lora_rank
    split = 2.0 * a * d_qk + 2.0 * g * d_qk + 2.0 * g * d_v + 2.0 * a * d_v
    gathered = 0.0   # gathered over tp (the experts' input), whatever sequence_parallel says
    if moe and model.num_experts is not None:
        fe, k = model.d_expert_ff, model.top_k
        rep += 4.0 * model.num_experts
        gathered = 2.0 * k * h
        split += act * fe * (k + model.shared_experts)
    else:
        split += act * model.d_ff
    per_token = (rep / t if sp else rep) + split / t + gathered
    total = float(S) * b * per_token
    if recompute == "none":
        if flash_attention:
            total += 4.0 * a * S * b / t
        else:
            total += (2.0 + 3.0 * delta) * a * float(S) * s * b / t
    return total
