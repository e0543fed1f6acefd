"""What each parallelism strategy *sends* in one training step: messages, not seconds.

Each function returns a list of :class:`Traffic`: one kind of collective (or point-to-point
transfer) one GPU takes part in, its message size, the group it runs over and how many
times per step. The step-time model (:mod:`interconnect.parallel.step_time`) prices these
lists on a :class:`~interconnect.parallel.Cluster`; :func:`wire_bytes` counts them in
bytes. So the byte counts of the strategies live here and only here.

* tensor parallelism (:func:`tp_traffic`): per layer and microbatch 2 AllReduces forward and
  2 backward of the ``2 s b h`` bytes of hidden states (Shoeybi et al. 2019, sec. 3;
  Narayanan et al. 2021, sec. 2.3), a ReduceScatter + AllGather pair each with sequence
  parallelism (Korthikanti et al. 2022, sec. 4.2.2), 6 with full recomputation;
* pipeline parallelism (:func:`pp_traffic`): the activation of every microbatch forward and
  its gradient backward, ``2 m v`` transfers (Narayanan et al. 2021, sec. 2.2, 4.1);
* data parallelism (:func:`dp_traffic`): the BF16 gradients in buckets, AllReduce (ZeRO 0),
  ReduceScatter + AllGather (ZeRO 1, 2) or one AllGather more (ZeRO 3)
  (Rajbhandari et al. 2020, sec. 7); with hybrid sharding (``dp_shard``) inside a shard
  group plus an AllReduce across the replicas (HSDP), and for ZeRO 3 per microbatch (FSDP;
  Zhao et al. 2023);
* expert parallelism (:func:`ep_traffic`): 2 AllToAlls forward and 2 backward per MoE layer
  (Lepikhin et al. 2021; Fedus et al. 2022);
* context parallelism (:func:`cp_traffic`): ring attention passes each layer's keys and
  values around the ``cp`` ranks, forward and backward, and reduces their gradients
  (Liu et al. 2023; Megatron-Core context parallelism).

Ranks are numbered TP fastest, then CP, then DP, then PP (Megatron-Core's order
tp-cp-ep-dp-pp; with ``cp = 1`` Megatron-LM's TP, DP, PP); ``stride`` is the rank distance
between a group's members, which decides what links the group spans: TP 1, CP ``tp``, DP
(and EP) ``tp cp``, PP ``tp cp dp``. With context parallelism each GPU holds ``s / cp`` tokens
of every microbatch, so the messages made of activations (TP, PP, EP) shrink by ``cp``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..collectives import OPS, cost_terms
from .layout import _check_fit, stage_layers


def _stage_moe_layers(model, layout):
    """MoE layers on the fullest stage: ``moe_layers / pp``, scaled up with uneven stages."""
    even = model.layers / layout.pp
    full = stage_layers(model, layout)
    return model.moe_layers / layout.pp if full == even else model.moe_layers / layout.pp * full / even

__all__ = ["Traffic", "activation_bytes", "collectives_per_layer", "tp_traffic", "pp_traffic", "dp_traffic",
           "ep_traffic", "cp_traffic", "cp_kv_bytes", "ulysses_traffic", "step_traffic", "wire_bytes",
           "network_bytes"]

#: The point-to-point transfer between neighbouring pipeline stages, besides the collectives.
SENDRECV = "sendrecv"


@dataclass(frozen=True)
class Traffic:
    """One kind of message a GPU takes part in, and how often per step.

    Parameters
    ----------
    op : str
        A collective of :data:`interconnect.collectives.OPS`, or ``"sendrecv"`` for a
        point-to-point transfer.
    nbytes : float
        Message size of one call, bytes >= 0, in the convention of
        :func:`interconnect.collectives.collective_time` (the full vector); for
        ``"sendrecv"`` the bytes sent.
    group : int
        Ranks taking part, >= 1 (2 for a send/recv pair).
    count : float
        Calls per step on one GPU, >= 0.
    stride : int
        Rank distance between the group's members (TP fastest, then CP, then DP, then PP), >= 1.
    algorithm : str
        Collective algorithm the call is priced with (default ``"ring"``).
    what : str
        What it is, for tables.

    Examples
    --------
    >>> t = Traffic("allreduce", 1e9, 8, 2)
    >>> t.bytes_per_call / 1e9, t.wire_bytes / 1e9      # ring: 2 (p-1)/p n per call
    (1.75, 3.5)
    """

    op: str
    nbytes: float
    group: int
    count: float
    stride: int = 1
    algorithm: str = "ring"
    what: str = ""

    def __post_init__(self):
        if self.op != SENDRECV and self.op not in OPS:
            raise ValueError(f"op={self.op!r} is unknown; allowed: {', '.join(OPS)} or {SENDRECV!r}")
        for name, low in (("nbytes", 0.0), ("count", 0.0)):
            v = getattr(self, name)
            if not np.isfinite(v) or v < low:
                raise ValueError(f"{name}={v!r} is out of range; allowed a finite number >= {low:g}")
        for name in ("group", "stride"):
            v = getattr(self, name)
            if int(v) != v or v < 1:
                raise ValueError(f"{name}={v!r} is out of range; allowed an integer >= 1")

    @property
    def bytes_per_call(self):
        """Bytes one GPU sends per call: ``b * nbytes`` with ``b`` from
        :func:`~interconnect.collectives.cost_terms` (``nbytes`` for ``"sendrecv"``)."""
        if self.op == SENDRECV:
            return self.nbytes
        return cost_terms(self.op, self.group, self.algorithm)[1] * self.nbytes

    @property
    def wire_bytes(self):
        """Bytes one GPU sends per step for this traffic, ``count * bytes_per_call``."""
        return self.count * self.bytes_per_call


def _phases(traffic, per_call):
    """``sum over phases of count * sum(per_call(t))``: consecutive items with the same count
    are one phase (the collectives of one layer, one bucket, one transfer), added before they
    are multiplied by how often the phase runs."""
    total, i = 0.0, 0
    while i < len(traffic):
        j, one = i, 0.0
        while j < len(traffic) and traffic[j].count == traffic[i].count:
            one += per_call(traffic[j])
            j += 1
        total += traffic[i].count * one
        i = j
    return total


def wire_bytes(traffic):
    """Bytes one GPU sends per step (per direction) for a list of :class:`Traffic`.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-6.7b")
    >>> [round(wire_bytes(dp_traffic(gpt, Layout(dp=8, tp=1, pp=1, zero_stage=z))) / 1e9, 1) for z in (0, 3)]
    [23.3, 35.0]
    """
    return _phases(list(traffic), lambda t: t.bytes_per_call)


def network_bytes(traffic, gpus_per_node=8):
    """Bytes one GPU's NIC sends per step (per direction) for a list of :class:`Traffic`.

    A collective whose group fits in one node (``group * stride <= gpus_per_node``) runs on
    NVLink and sends nothing over the network. A group that spans nodes with ``k`` members
    per node runs one ring channel through each of their ``k`` NICs (NCCL's rings over
    rail-optimised nodes), so each NIC carries ``1 / k`` of a member's ring bytes: the rule
    :class:`~interconnect.parallel.Cluster` prices such a group by (``k`` NICs in parallel).

    Parameters
    ----------
    traffic : list of Traffic
    gpus_per_node : int
        GPUs in one NVLink domain (default 8).

    Returns
    -------
    float
        Bytes.

    Examples
    --------
    Llama 3 8B on 64 GPUs (8 nodes of 8), ZeRO-1 over all 64 against hybrid sharding inside
    each node: the same bytes per NIC, give or take the ring's ``(p - 1) / p``; HSDP keeps
    its ReduceScatter and AllGather on NVLink and sends only the replicas' AllReduce of the
    1/8 shard:

    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> ll = catalog.models.get("llama3-8b")
    >>> z1 = dp_traffic(ll, Layout(dp=64, tp=1, pp=1, zero_stage=1))
    >>> hsdp = dp_traffic(ll, Layout(dp=64, tp=1, pp=1, zero_stage=1, dp_shard=8))
    >>> [round(network_bytes(t) / 1e9, 2) for t in (z1, hsdp)]      # GB per NIC per step
    [3.95, 3.51]
    """
    from .cluster import _members_per_node

    def per_nic(t):
        k = _members_per_node(t.group, t.stride, gpus_per_node)
        return 0.0 if k == 0 else t.bytes_per_call / k

    return _phases(list(traffic), per_nic)


def activation_bytes(model, layout):
    """Bytes of one microbatch's hidden states on one GPU, ``2 s b h / cp`` (16-bit): the TP message size.

    With context parallelism each of the ``cp`` ranks holds ``s / cp`` of the tokens
    (Megatron-Core splits the sequence into ``2 cp`` chunks, two per rank), so its TP, PP and
    EP messages are ``1 / cp`` of the sequence's.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``microbatch`` and ``cp`` matter.

    Returns
    -------
    float

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> activation_bytes(catalog.models.get("gpt3-175b"), Layout(dp=1, tp=8, pp=1)) / 2**20   # 2 * 2048 * 12288
    48.0
    >>> activation_bytes(catalog.models.get("gpt3-175b"), Layout(dp=1, tp=8, pp=1, cp=2)) / 2**20
    24.0
    """
    return 2.0 * model.seq_len * layout.microbatch * model.hidden / layout.cp


def collectives_per_layer(layout):
    """TP collectives (or AllToAlls of an MoE layer) per layer and microbatch: 4, or 6 with full
    recomputation (2 forward, 2 backward, 2 more in the recomputed forward).

    Examples
    --------
    >>> from interconnect.parallel import Layout
    >>> collectives_per_layer(Layout(dp=1, tp=8, pp=1)), collectives_per_layer(Layout(1, 8, 1, recompute="full"))
    (4, 6)
    """
    return 6 if layout.recompute == "full" else 4


def tp_traffic(model, layout):
    """Tensor-parallel traffic of one GPU per step.

    ``collectives_per_layer`` AllReduces of ``2 s b h`` bytes over the ``tp`` ranks per layer
    and microbatch, for ``l / pp`` layers and ``m`` microbatches; with sequence parallelism
    each AllReduce is a ReduceScatter + AllGather pair of the same bytes.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout

    Returns
    -------
    list of Traffic
        Empty for ``tp = 1``.

    References
    ----------
    Shoeybi et al. (2019), sec. 3, Fig. 4; Narayanan et al. (2021), sec. 2.3;
    Korthikanti et al. (2022), sec. 4.2.2.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-175b")
    >>> [(t.op, t.nbytes / 2**20, t.group, t.count) for t in tp_traffic(gpt, Layout(dp=1, tp=8, pp=8,
    ...                                                                   sequence_parallel=False))]
    [('allreduce', 48.0, 8, 73728.0)]
    """
    t = layout.tp
    if t == 1:
        return []
    m = _check_fit(model, layout)
    nbytes = activation_bytes(model, layout)
    count = m * stage_layers(model, layout) * collectives_per_layer(layout)
    if layout.sequence_parallel:
        return [Traffic("reducescatter", nbytes, t, count, what="TP ReduceScatter (sequence parallel)"),
                Traffic("allgather", nbytes, t, count, what="TP AllGather (sequence parallel)")]
    return [Traffic("allreduce", nbytes, t, count, what="TP AllReduce")]


def pp_traffic(model, layout, gpus_per_node=None):
    """Pipeline-parallel traffic of one GPU per step.

    Each stage sends the activation (``2 s b h / cp`` bytes, :func:`activation_bytes`) of
    every microbatch forward and receives its gradient backward: ``2 m v`` transfers with
    ``v`` interleaved chunks, to the rank ``tp cp dp`` away. Across nodes with the
    scatter/gather optimisation each TP rank sends ``1/t`` of it and an AllGather over the
    ``t`` ranks rebuilds the tensor.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
    gpus_per_node : int, optional
        If given and the whole pipeline fits in one node (``tp cp dp pp <= gpus_per_node``),
        the transfers stay on the node's links and scatter/gather does not apply. Default:
        the stages are on different nodes.

    Returns
    -------
    list of Traffic
        Empty for ``pp = 1``.

    References
    ----------
    Narayanan et al. (2021), sec. 2.2.2 and 4.1.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-175b")
    >>> [(t.op, t.nbytes / 2**20, t.count) for t in pp_traffic(gpt, Layout(dp=1, tp=8, pp=8))]
    [('sendrecv', 6.0, 3072.0), ('allgather', 48.0, 3072.0)]
    """
    p = layout.pp
    if p == 1:
        return []
    m = _check_fit(model, layout)
    stride = layout.tp * layout.cp * layout.dp
    nbytes = activation_bytes(model, layout)
    count = 2.0 * m * layout.chunks
    in_node = gpus_per_node is not None and stride * p <= gpus_per_node
    if not in_node and layout.scatter_gather and layout.tp > 1:
        return [Traffic(SENDRECV, nbytes / layout.tp, 2, count, stride, what="PP activation/gradient (scattered)"),
                Traffic("allgather", nbytes, layout.tp, count, what="PP AllGather over TP ranks (gather)")]
    return [Traffic(SENDRECV, nbytes, 2, count, stride, what="PP activation/gradient")]


def _dp_buckets(model, layout):
    """Number of gradient buckets per GPU: BF16 gradients of its shard in ``bucket_bytes`` pieces."""
    total = layout.grad_bytes * model.params / (layout.tp * layout.pp)
    return max(1, int(np.ceil(total / layout.bucket_bytes)))


def dp_traffic(model, layout):
    """Data-parallel (gradient and ZeRO parameter) traffic of one GPU per step.

    Each GPU holds ``P / (tp pp)`` parameters and reduces ``G = g P / (tp pp)`` bytes of
    gradients (``g = grad_bytes``, 2 for BF16) over its data-parallel ranks in buckets of
    ``layout.bucket_bytes``, one collective per bucket. The plain case, ``cp = 1`` without
    hybrid sharding (``_flat_dp_traffic``), over the ``dp`` ranks ``tp`` apart:

    * ZeRO 0: AllReduce of ``G`` (``2 G (dp-1)/dp`` bytes on the wire with a ring);
    * ZeRO 1 and 2: ReduceScatter of the gradients + AllGather of the updated parameters,
      the same ``2 G (dp-1)/dp``;
    * ZeRO 3: also an AllGather of the parameters before use, ``3 G (dp-1)/dp``, 1.5x.
      Counted once per step as in the paper; with gradient accumulation a real ZeRO-3
      regathers per microbatch, so this is a lower bound (FSDP below counts it).

    Context parallelism and hybrid sharding (``_sharded_dp_traffic``):

    * with ``cp > 1`` the weights are replicated over the ``cp`` ranks too, so every
      collective above runs over the ``dp cp`` ranks (``tp`` apart);
    * with ``dp_shard`` set and ZeRO >= 1 (HSDP, hybrid sharding) the ReduceScatter and
      AllGather run inside the ``shard_ranks = dp_shard cp`` ranks of one copy (``tp``
      apart), and the ``replicas`` copies AllReduce their ``1 / shard_ranks`` gradient
      shard (``tp cp dp_shard`` apart), once per step. ZeRO 1 and 2: ReduceScatter +
      AllReduce + AllGather per bucket and step;
    * ZeRO 3 with ``dp_shard`` set is PyTorch FSDP with ``reshard_after_forward=True``:
      per microbatch the parameters are gathered in the forward pass and again in the
      backward pass and the gradients are reduce-scattered, ``3 m`` collectives per bucket
      (the once-per-step count of the plain ZeRO-3 above at ``m = 1``), then the replicas'
      AllReduce once per step; ``dp_shard = dp`` is plain FSDP. ``dp_shard`` does nothing
      with ZeRO 0.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``dp``, ``tp``, ``pp``, ``cp``, ``dp_shard`` (and for FSDP ``microbatch``),
        ``zero_stage``, ``bucket_bytes`` and ``grad_bytes`` matter (FP32 gradients,
        ``grad_bytes = 4``, double the reduction; the parameter AllGathers stay 16-bit).

    Returns
    -------
    list of Traffic
        Empty for ``dp cp = 1``.

    References
    ----------
    Rajbhandari et al. (2020), "ZeRO", sec. 7.2 and 7.2.2; Zhao et al. (2023), "PyTorch
    FSDP: Experiences on Scaling Fully Sharded Data Parallel", sec. 3 (hybrid sharding,
    resharding after forward).

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-6.7b")
    >>> [t.op for t in dp_traffic(gpt, Layout(dp=8, tp=1, pp=1, zero_stage=3))]
    ['reducescatter', 'allgather', 'allgather']

    Llama 3 405B on 8-way TP, 2-way CP, 8 data-parallel ranks in 4 replicas of 2 (HSDP,
    ZeRO-3): ReduceScatter and two AllGathers per microbatch in the group of 2 x 2 ranks,
    the replicas' AllReduce once per step:

    >>> ll = catalog.models.get("llama3-405b")
    >>> lay = Layout(dp=8, tp=8, pp=16, cp=2, zero_stage=3, dp_shard=2, uneven_stages=True)
    >>> [(t.op, t.group, t.stride, t.count) for t in dp_traffic(ll, lay)][::3]
    [('reducescatter', 4, 8, 65024), ('allreduce', 4, 32, 254)]
    """
    if layout.cp == 1 and layout.dp_shard is None:
        return _flat_dp_traffic(model, layout)
    return _sharded_dp_traffic(model, layout)


def _flat_dp_traffic(model, layout):
    """:func:`dp_traffic` of a layout with ``cp = 1`` and no hybrid sharding.

    The ``dp`` ranks, ``tp`` apart, reduce the gradients of one GPU's ``P / (tp pp)``
    parameters bucket by bucket: an AllReduce (ZeRO 0), or a ReduceScatter of the gradients
    and an AllGather of the updated 16-bit parameters (ZeRO 1, 2), and for ZeRO 3 one more
    AllGather of the parameters before use, counted once per step."""
    d = layout.dp
    if d == 1:
        return []
    n_buckets = _dp_buckets(model, layout)
    bucket = layout.grad_bytes * model.params / (layout.tp * layout.pp) / n_buckets
    pbucket = bucket * 2.0 / layout.grad_bytes          # the parameters stay 16-bit
    if layout.zero_stage == 0:
        return [Traffic("allreduce", bucket, d, n_buckets, layout.tp, what="DP gradient AllReduce")]
    out = [Traffic("reducescatter", bucket, d, n_buckets, layout.tp, what="ZeRO gradient ReduceScatter"),
           Traffic("allgather", pbucket, d, n_buckets, layout.tp, what="ZeRO updated-parameter AllGather")]
    if layout.zero_stage == 3:
        out.append(Traffic("allgather", pbucket, d, n_buckets, layout.tp, what="ZeRO-3 parameter AllGather before use"))
    return out


def _sharded_dp_traffic(model, layout):
    """:func:`dp_traffic` of a layout with context parallelism or hybrid sharding.

    The gradients are reduced over the ``dp cp`` ranks; with ``dp_shard`` set (ZeRO >= 1)
    inside the shard group of ``shard_ranks``, then across the ``replicas`` (HSDP), and with
    ZeRO 3 per microbatch (FSDP). For a plain layout it returns what :func:`_flat_dp_traffic`
    does (tests check that)."""
    d = layout.dp * layout.cp
    if d == 1:
        return []
    n_buckets = _dp_buckets(model, layout)
    bucket = layout.grad_bytes * model.params / (layout.tp * layout.pp) / n_buckets
    pbucket = bucket * 2.0 / layout.grad_bytes          # the parameters stay 16-bit
    t = layout.tp
    if layout.zero_stage == 0:
        return [Traffic("allreduce", bucket, d, n_buckets, t, what="DP gradient AllReduce")]
    if layout.dp_shard is None:
        out = [Traffic("reducescatter", bucket, d, n_buckets, t, what="ZeRO gradient ReduceScatter"),
               Traffic("allgather", pbucket, d, n_buckets, t, what="ZeRO updated-parameter AllGather")]
        if layout.zero_stage == 3:
            out.append(Traffic("allgather", pbucket, d, n_buckets, t, what="ZeRO-3 parameter AllGather before use"))
        return out
    s, r = layout.shard_ranks, layout.replicas
    replica = ([Traffic("allreduce", bucket / s, r, n_buckets, t * s, what="HSDP replicas' gradient-shard AllReduce")]
               if r > 1 else [])
    if s == 1:                  # nothing to shard: the replicas reduce the whole gradient
        return replica
    if layout.zero_stage < 3:
        return [Traffic("reducescatter", bucket, s, n_buckets, t, what="HSDP gradient ReduceScatter (shard group)"),
                *replica,
                Traffic("allgather", pbucket, s, n_buckets, t, what="HSDP updated-parameter AllGather (shard group)")]
    per_mb = layout.microbatches(model.global_batch) * n_buckets
    return [Traffic("reducescatter", bucket, s, per_mb, t, what="FSDP gradient ReduceScatter per microbatch"),
            Traffic("allgather", pbucket, s, per_mb, t, what="FSDP parameter AllGather, forward"),
            Traffic("allgather", pbucket, s, per_mb, t, what="FSDP parameter AllGather, backward (resharded)"),
            *replica]


def ep_traffic(model, layout):
    """Expert-parallel traffic of one GPU per step.

    Each MoE layer dispatches its tokens' hidden states to the experts and combines them back:
    ``collectives_per_layer`` AllToAlls (pairwise) of the ``2 s b h / cp`` bytes (``/ tp`` with
    sequence parallelism) a GPU holds, over the ``ep`` ranks (``tp cp`` apart, Megatron-Core's
    tp-cp-ep-dp-pp order), for ``moe_layers / pp`` layers and ``m`` microbatches.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout

    Returns
    -------
    list of Traffic
        Empty for ``ep = 1`` or a dense model.

    References
    ----------
    Lepikhin et al. (2021), GShard; Fedus et al. (2022), Switch Transformer.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> moe = catalog.models.get("gpt3-6.7b-moe")
    >>> [(t.op, t.nbytes / 2**20, t.group, t.count) for t in ep_traffic(moe, Layout(dp=8, tp=2, pp=2, ep=4))]
    [('alltoall', 8.0, 4, 4096.0)]
    """
    e = layout.ep
    if e == 1 or model.moe_layers == 0:
        return []
    m = _check_fit(model, layout)
    nbytes = activation_bytes(model, layout) / (layout.tp if layout.sequence_parallel else 1)
    count = m * _stage_moe_layers(model, layout) * collectives_per_layer(layout)
    return [Traffic("alltoall", nbytes, e, count, layout.tp * layout.cp, "pairwise",
                    what="EP dispatch/combine AllToAll")]


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
    >>> from interconnect.parallel import Layout
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


def step_traffic(model, layout, gpus_per_node=None):
    """All the traffic of one GPU per step, by strategy: ``{"tp": [...], "pp": [...], "dp": [...], "ep": [...]}``,
    and ``"cp"`` (:func:`cp_traffic`) for layouts with ``cp > 1`` only (so the dicts of
    layouts without context parallelism are what they were).

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> tr = step_traffic(catalog.models.get("gpt3-175b"), Layout(dp=2, tp=8, pp=8, zero_stage=1))
    >>> {k: round(wire_bytes(v) / 1e9, 1) for k, v in tr.items()}
    {'tp': 3247.0, 'pp': 77.3, 'dp': 5.5, 'ep': 0.0}
    >>> tr = step_traffic(catalog.models.get("gpt3-175b"), Layout(dp=2, tp=8, pp=8, cp=2, zero_stage=1))
    >>> {k: round(wire_bytes(v) / 1e9, 1) for k, v in tr.items()}
    {'tp': 1623.5, 'pp': 38.7, 'dp': 8.2, 'ep': 0.0, 'cp': 231.9}
    """
    out = {"tp": tp_traffic(model, layout), "pp": pp_traffic(model, layout, gpus_per_node),
           "dp": dp_traffic(model, layout), "ep": ep_traffic(model, layout)}
    if layout.cp > 1:
        out["cp"] = cp_traffic(model, layout)
    return out
