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

import numpy as np

from .layout import _check_fit, stage_layers
from .traffic_base import (
    SENDRECV,
    Traffic,
    _stage_moe_layers,
    activation_bytes,
    collectives_per_layer,
    network_bytes,
    wire_bytes,
)
from .traffic_cp import cp_kv_bytes, cp_traffic, ulysses_traffic

__all__ = ["Traffic", "activation_bytes", "collectives_per_layer", "tp_traffic", "pp_traffic", "dp_traffic",
           "ep_traffic", "cp_traffic", "cp_kv_bytes", "ulysses_traffic", "step_traffic", "wire_bytes",
           "network_bytes"]


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
