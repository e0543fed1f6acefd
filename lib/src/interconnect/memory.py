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
"""

from __future__ import annotations

import numpy as np

from ._validate import as_count, as_nonnegative, as_positive

__all__ = ["training_memory", "kv_cache_bytes", "activation_memory", "RECOMPUTE"]


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
