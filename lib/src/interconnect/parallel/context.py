"""Context parallelism: who does how much causal attention, and when a ring step's transfer hides.

Two questions the step-time model (:func:`~interconnect.parallel.step_time`) answers only in
aggregate, asked here per rank and per ring step:

* :func:`causal_work`: with a causal mask, token ``q`` attends to the ``q + 1`` tokens up to
  itself, so the rank holding the end of the sequence has far more attention to do than the
  rank holding its start. Megatron-Core and Llama 3 cut the sequence into ``2 cp`` chunks and
  give rank ``i`` chunks ``i`` and ``2 cp - 1 - i``, which makes the work equal;
* :func:`cp_ring_step` and :func:`cp_min_tokens`: in one ring step a rank computes the
  attention of its queries against the key-value block in hand while the next block travels.
  The compute grows with the square of the block's tokens, the transfer linearly, so there is
  a block length (tokens per GPU, ``s / cp``) above which the transfer hides.

References
----------
H. Liu, M. Zaharia, P. Abbeel, "Ring Attention with Blockwise Transformers for Near-Infinite
Context", arXiv:2310.01889, 2023, sec. 3 (the block must be long enough for its compute to
cover the transfer of the next block).
NVIDIA, Megatron-Core developer guide, "Context parallelism" (2 x CP chunks for causal load
balance; K, V exchanged round a ring, overlapped with attention).
A. Dubey et al., "The Llama 3 Herd of Models", arXiv:2407.21783, 2024, sec. 3.3.2 (rank ``i``
takes chunks ``i`` and ``2 CP - 1 - i``).
T. Dao, "FlashAttention-2", arXiv:2307.08691, 2023, Algorithm 2 (the backward pass: five
GEMM-sized products against the forward pass's two).
"""

from __future__ import annotations

import math

import numpy as np

from .._validate import as_count
from .cluster import _group_link
from .traffic_cp import cp_kv_bytes

__all__ = ["causal_work", "cp_ring_step", "cp_min_tokens"]


def causal_work(seq_len, cp, balanced=True):
    """(query, key) pairs of causal attention each of ``cp`` ranks computes, one head, one sequence.

    Token ``q`` (counted from 0) attends to keys ``0 .. q``: ``q + 1`` pairs, ``s (s + 1) / 2``
    in all. Without balancing rank ``r`` holds the contiguous tokens ``[r c, (r + 1) c)``,
    ``c = s / cp``, and the last rank does about ``2 cp - 1`` times the first one's work. With
    balancing the sequence is cut into ``2 cp`` chunks and rank ``r`` holds chunks ``r`` and
    ``2 cp - 1 - r``: an early and a late chunk, whose work adds up to exactly ``c (s + 1) / 2``
    on every rank.

    Parameters
    ----------
    seq_len : int
        s, a multiple of ``cp`` (of ``2 cp`` when balanced).
    cp : int
        Context-parallel ranks, >= 1.
    balanced : bool
        Megatron-Core's and Llama 3's ``2 cp``-chunk assignment (default) or contiguous blocks.

    Returns
    -------
    ndarray of float
        Pairs per rank, rank 0 first; the attention FLOPs are proportional to them.

    References
    ----------
    NVIDIA Megatron-Core developer guide, "Context parallelism"; Dubey et al. (2024), sec. 3.3.2.

    Examples
    --------
    Eight tokens on two ranks: contiguous halves do 1+2+3+4 and 5+6+7+8 pairs; chunks
    {0, 3} and {1, 2} of two tokens each do (1+2)+(7+8) and (3+4)+(5+6):

    >>> causal_work(8, 2, balanced=False).tolist(), causal_work(8, 2).tolist()
    ([10.0, 26.0], [18.0, 18.0])
    """
    s = as_count("seq_len", seq_len)
    c = as_count("cp", cp)
    n = 2 * c if balanced else c
    if s % n:
        raise ValueError(f"seq_len={s} is not allowed with cp={c}, balanced={balanced}; allowed: a multiple of {n}")
    k = s // n                                  # tokens per chunk
    chunk = np.arange(n, dtype=float)
    # sum of (q + 1) over the tokens q = i k .. (i + 1) k - 1 of chunk i
    per_chunk = k * (k * (2.0 * chunk + 1.0) + 1.0) / 2.0
    if not balanced:
        return per_chunk
    return per_chunk[:c] + per_chunk[::-1][:c]


def _ring_terms(model, layout, cluster, backward, causal):
    """(FLOPs per token squared, seconds per FLOP, bytes per token, bandwidth, latency) of one ring step."""
    if layout.cp == 1:
        raise ValueError("layout.cp=1 is not allowed: without context parallelism there is no ring; allowed: cp >= 2")
    b, t = layout.microbatch, layout.tp
    heads = model.heads / t                     # query heads on one TP rank
    d = model.d_qk + model.d_v
    # Q K^T and P V: 2 FLOPs per multiply-add, (c x c) blocks; the causal half on every step with
    # 2 cp chunks; the backward pass recomputes Q K^T and forms dV, dP, dQ, dK: 5 products for 2
    flops_per_c2 = 2.0 * b * heads * d * (0.5 if causal else 1.0) * (2.5 if backward else 1.0)
    rate = cluster.peak_flops * (cluster.attention_efficiency or cluster.gemm_efficiency)
    # one rank's K, V block (backward: K, V and their gradients dK, dV)
    bytes_per_c = cp_kv_bytes(model, layout) / model.seq_len * (2.0 if backward else 1.0)
    bw, lat = _group_link(layout.cp, t, cluster)
    return flops_per_c2, 1.0 / rate, bytes_per_c, bw, lat


def cp_ring_step(model, layout, cluster, backward=False, causal=True):
    """One ring-attention step of one rank: the K, V block it receives against the attention it computes meanwhile.

    The rank holds ``c = s / cp`` tokens of queries. In each of the ``cp`` steps it computes
    their attention against one rank's ``c`` keys and values, ``2 c^2 b (a / t) (d_qk + d_v)``
    FLOPs for the whole block, half of it under a causal mask (with the ``2 cp``-chunk
    balance every step, the rank's own block included, covers half of the block's pairs), at
    the cluster's attention rate (``peak_flops * attention_efficiency``, else
    ``gemm_efficiency``), as :func:`~interconnect.parallel.compute_parts` prices attention.
    Meanwhile the next block, ``2 c b ceil(g / t) (d_qk + d_v)`` bytes of keys and values
    (:func:`~interconnect.parallel.cp_kv_bytes` over ``cp``), crosses the link the ``cp``
    ranks span (``tp`` apart), one latency plus bytes over bandwidth at the cluster's comm
    efficiency. The backward step moves twice the bytes (K, V and dK, dV) for 2.5 times the
    FLOPs.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        ``cp``, ``tp`` and ``microbatch`` matter.
    cluster : Cluster
    backward : bool
        The backward pass's step instead of the forward pass's (default False).
    causal : bool
        Causal mask (default True): half the block's FLOPs.

    Returns
    -------
    dict
        ``tokens`` (``c``), ``bytes`` (per direction), ``flops``, ``compute`` and ``transfer``
        (seconds), ``ratio`` (``compute / transfer``; above 1 the transfer hides),
        ``bandwidth`` (bytes/s per direction, comm efficiency included).

    Examples
    --------
    Llama 3 405B at 131,072 tokens on DGX H100 with TP = 8 and CP = 16: 8,192 tokens per GPU,
    a 4 MiB K, V block per step over one NDR NIC, and four times as long computing:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> from interconnect.parallel.machines import machine
    >>> from dataclasses import replace
    >>> ll = replace(catalog.models.get("llama3-405b"), seq_len=131072, global_batch=128)
    >>> st = cp_ring_step(ll, Layout(dp=8, tp=8, pp=16, cp=16), machine("dgx-h100"))
    >>> st["tokens"], st["bytes"] / 2**20, round(st["ratio"], 2)
    (8192.0, 4.0, 4.25)
    """
    f, spf, bpc, bw, lat = _ring_terms(model, layout, cluster, backward, causal)
    c = model.seq_len / layout.cp
    flops = f * c * c
    nbytes = bpc * c
    compute, transfer = flops * spf, lat + nbytes / bw
    return {"tokens": c, "bytes": nbytes, "flops": flops, "compute": compute, "transfer": transfer,
            "ratio": compute / transfer, "bandwidth": bw}


def cp_min_tokens(model, layout, cluster, backward=False, causal=True):
    """Tokens per GPU (``s / cp``) at which a ring step's attention just covers its K, V transfer.

    With :func:`cp_ring_step`'s terms the compute is ``A c^2`` and the transfer ``alpha + B c``
    for a block of ``c`` tokens, so they are equal at

    ``c* = (B + sqrt(B^2 + 4 A alpha)) / (2 A)``,

    about ``2 (g / a) F / W`` when the latency is small (causal, forward; ``F`` the attention
    FLOP/s, ``W`` the link's bytes/s): grouped-query attention, with ``g / a`` of the heads
    carrying keys and values, lowers it by ``a / g``. Below ``c*`` context parallelism's
    communication is exposed; the sequence length of the model does not enter.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        ``cp``, ``tp`` and ``microbatch`` matter (``cp`` and ``tp`` choose the link).
    cluster : Cluster
    backward, causal : bool
        As in :func:`cp_ring_step`.

    Returns
    -------
    float
        Tokens per GPU.

    References
    ----------
    Liu et al. (2023), sec. 3: the block size must exceed the ratio of FLOP/s to bandwidth.

    Examples
    --------
    Llama 3 70B on DGX H100: CP inside a node (TP = 1, CP = 8, NVLink 4) and across nodes
    (TP = 8, CP = 2, one NDR NIC per GPU):

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> from interconnect.parallel.machines import machine
    >>> ll, h100 = catalog.models.get("llama3-70b"), machine("dgx-h100")
    >>> [round(cp_min_tokens(ll, Layout(dp=1, tp=t, pp=1, cp=c), h100)) for t, c in ((1, 8), (8, 2))]
    [819, 4170]
    """
    a, spf, bpc, bw, lat = _ring_terms(model, layout, cluster, backward, causal)
    A, B = a * spf, bpc / bw
    return (B + math.sqrt(B * B + 4.0 * A * lat)) / (2.0 * A)
