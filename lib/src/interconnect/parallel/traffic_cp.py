"""What context parallelism sends: ring attention's keys and values (:func:`cp_traffic`,
:func:`cp_kv_bytes`) and DeepSpeed-Ulysses' AllToAlls (:func:`ulysses_traffic`).

See :mod:`interconnect.parallel.traffic` for the rank order and the other strategies.
"""

from __future__ import annotations

import math

from .layout import _check_fit, stage_layers
from .traffic_base import Traffic

__all__ = ["cp_kv_bytes", "cp_traffic", "ulysses_traffic"]


def cp_kv_bytes(model, layout):
    """Bytes of one layer's keys and values of one whole microbatch on one TP rank, 16-bit:
    ``2 s b (g / t) (d_qk + d_v)``, the message size (full vector) of the context-parallel
    AllGather.

    ``g`` KV heads (grouped-query attention; all ``a`` heads for multi-head and latent
    attention, whose keys and values are decompressed per head), split over the ``t`` TP
    ranks (Megatron splits the heads with or without sequence parallelism); where ``t > g``
    each rank keeps a copy of one KV head (``ceil(g / t)``).

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``microbatch`` and ``tp`` matter.

    Returns
    -------
    float

    Examples
    --------
    Llama 3 405B (8 KV heads of 128) at 8-way TP: one KV head per rank, 8,192 tokens:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> cp_kv_bytes(catalog.models.get("llama3-405b"), Layout(dp=1, tp=8, pp=1, cp=2)) / 2**20   # 2 * 8192 * 256
    4.0
    """
    kv = -(-model.n_kv_heads // layout.tp)
    return 2.0 * model.seq_len * layout.microbatch * kv * (model.d_qk + model.d_v)


def cp_traffic(model, layout):
    """Context-parallel traffic of one GPU per step (ring attention).

    Each of the ``cp`` ranks holds ``s / cp`` tokens of a microbatch (two of ``2 cp`` chunks,
    so that causal attention's work is balanced). Its queries need every rank's keys and
    values, so per layer and microbatch:

    * forward: the K and V chunks travel round the ring of ``cp`` ranks: an AllGather of
      :func:`cp_kv_bytes` (each rank sends ``(cp - 1) / cp`` of it);
    * backward: K and V travel round again, and the gradients dK, dV travel back to their
      owners, accumulating: an AllGather and a ReduceScatter of the same bytes;
    * a recomputed attention forward (``"full"``, or ``"selective"`` without
      ``flash_attention``, which recomputes the attention core) gathers K and V once more.

    The groups are ``cp`` ranks ``tp`` apart. Llama 3 all-gathers K and V instead of passing
    them round a ring: the same bytes, in one collective per layer.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout

    Returns
    -------
    list of Traffic
        Empty for ``cp = 1``.

    References
    ----------
    H. Liu, M. Zaharia, P. Abbeel, "Ring Attention with Blockwise Transformers for
    Near-Infinite Context", arXiv:2310.01889, 2023; NVIDIA, Megatron-Core developer guide,
    "Context parallelism" (docs.nvidia.com/megatron-core/developer-guide/latest/api-guide/
    context_parallel.html); Dubey et al. (2024), "The Llama 3 Herd of Models", sec. 3.3.2.

    Examples
    --------
    Llama 3 405B, 8-way TP, 2-way CP, 16 stages (the fullest of 8 layers), 64 microbatches:
    per layer and microbatch 2 AllGathers and 1 ReduceScatter of 4 MiB, each sending 2 MiB:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout, wire_bytes
    >>> ll = catalog.models.get("llama3-405b")
    >>> lay = Layout(dp=32, tp=8, pp=16, cp=2, flash_attention=True, uneven_stages=True)
    >>> [(t.op, t.nbytes / 2**20, t.group, t.stride, t.count) for t in cp_traffic(ll, lay)]
    [('allgather', 4.0, 2, 8, 1024), ('reducescatter', 4.0, 2, 8, 512)]
    >>> wire_bytes(cp_traffic(ll, lay)) / 2**30      # GiB per GPU per step
    3.0
    """
    c = layout.cp
    if c == 1:
        return []
    m = _check_fit(model, layout)
    nbytes = cp_kv_bytes(model, layout)
    per_mb = m * stage_layers(model, layout)
    recomputed = layout.recompute == "full" or (layout.recompute == "selective" and not layout.flash_attention)
    gathers = 3 if recomputed else 2
    return [Traffic("allgather", nbytes, c, gathers * per_mb, layout.tp, what="CP K,V AllGather (ring attention)"),
            Traffic("reducescatter", nbytes, c, per_mb, layout.tp, what="CP dK,dV ReduceScatter (ring attention)")]


def ulysses_traffic(model, layout):
    """Sequence-parallel traffic of one GPU per step with DeepSpeed-Ulysses instead of a ring (``cp`` ranks).

    Each of the ``cp`` ranks holds ``s / cp`` tokens of every head. Before attention an
    AllToAll re-partitions the queries, keys and values from tokens to heads, so that each
    rank holds all ``s`` tokens of ``1 / cp`` of the heads and runs ordinary attention on
    them; a second AllToAll sends the attention output back to the token partition. Per
    layer and microbatch, forward:

    * Q, K, V: ``2 (s / cp) b ((a / t) d_qk + (g / t) (d_qk + d_v))`` bytes (16-bit) a rank
      holds, of which it sends ``(cp - 1) / cp``;
    * the output: ``2 (s / cp) b (a / t) d_v`` bytes.

    The backward pass runs the two in reverse (the output's gradient, then dQ, dK, dV): the
    same bytes again, and a recomputed attention forward (as in :func:`cp_traffic`) once more.
    For multi-head attention without TP (``g = a``, ``a d = h``) the forward pass moves
    ``3 s b h + s b h = 4 s b h`` elements in all, ``4 N h / P`` per rank in the paper's
    notation (sequence ``N``, ``P`` ranks), which does not grow with ``N`` when ``P`` grows
    with it. The ranks split the heads, so ``cp`` must divide both the query heads and the
    KV heads of a TP rank: with grouped-query attention ``cp <= g / t``.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        ``cp`` is the Ulysses degree; ``tp``, ``microbatch``, ``recompute``,
        ``flash_attention`` and the pipeline split matter as in :func:`cp_traffic`.

    Returns
    -------
    list of Traffic
        Two AllToAlls (pairwise), over the ``cp`` ranks ``tp`` apart; empty for ``cp = 1``.

    Raises
    ------
    ValueError
        If ``cp`` does not divide the query heads and the KV heads a TP rank holds.

    References
    ----------
    S. A. Jacobs et al., "DeepSpeed Ulysses: System Optimizations for Enabling Training of
    Extreme Long Sequence Transformer Models", arXiv:2309.14509, 2023, sec. 3.1 (the two
    AllToAlls) and sec. 3.2 (communication analysis: aggregate messages of ``3 N h`` and
    ``N h`` per layer, ``4 N h / P`` per link).

    Examples
    --------
    Llama 3 70B (64 query heads, 8 KV heads of 128) at 8,192 tokens, Ulysses over 8 ranks:
    1,024 tokens per rank, Q, K, V of ``2 x 1024 x (64 + 16) x 128`` bytes and an output of
    ``2 x 1024 x 64 x 128``:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> ll = catalog.models.get("llama3-70b")
    >>> lay = Layout(dp=1, tp=1, pp=1, cp=8, flash_attention=True)
    >>> [(t.op, t.nbytes / 2**20, t.group, t.count) for t in ulysses_traffic(ll, lay)]
    [('alltoall', 20.0, 8, 327680.0), ('alltoall', 16.0, 8, 327680.0)]
    >>> try:
    ...     ulysses_traffic(ll, Layout(dp=1, tp=1, pp=1, cp=16))
    ... except ValueError as err:
    ...     print(err)
    cp=16 is not allowed for Ulysses (64 query, 8 KV heads per TP rank, tp=1); allowed: a common divisor, at most 8
    """
    c = layout.cp
    if c == 1:
        return []
    t = layout.tp
    q_heads = model.heads // t
    kv_heads = -(-model.n_kv_heads // t)
    if q_heads % c or kv_heads % c or model.heads % t:
        raise ValueError(f"cp={c} is not allowed for Ulysses ({q_heads} query, {kv_heads} KV heads per TP rank, "
                         f"tp={t}); allowed: a common divisor, at most {math.gcd(q_heads, kv_heads)}")
    m = _check_fit(model, layout)
    tokens = model.seq_len * layout.microbatch / c
    qkv = 2.0 * tokens * (q_heads * model.d_qk + kv_heads * (model.d_qk + model.d_v))
    out = 2.0 * tokens * q_heads * model.d_v
    per_mb = m * stage_layers(model, layout)
    recomputed = layout.recompute == "full" or (layout.recompute == "selective" and not layout.flash_attention)
    count = (3 if recomputed else 2) * per_mb
    return [Traffic("alltoall", qkv, c, count, t, "pairwise", what="Ulysses Q,K,V AllToAll (sequence to heads)"),
            Traffic("alltoall", out, c, count, t, "pairwise", what="Ulysses output AllToAll (heads to sequence)")]
