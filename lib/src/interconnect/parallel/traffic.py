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
  (Rajbhandari et al. 2020, sec. 7);
* expert parallelism (:func:`ep_traffic`): 2 AllToAlls forward and 2 backward per MoE layer
  (Lepikhin et al. 2021; Fedus et al. 2022).

Ranks are numbered TP fastest, then DP, then PP (Megatron-LM's order); ``stride`` is the
rank distance between a group's members, which decides what links the group spans.
"""

from __future__ import annotations

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
           "ep_traffic", "step_traffic", "wire_bytes"]

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
        Rank distance between the group's members (TP fastest, then DP, then PP), >= 1.
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


def activation_bytes(model, layout):
    """Bytes of one microbatch's hidden states, ``2 s b h`` (16-bit): the TP message size.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``microbatch`` matters.

    Returns
    -------
    float

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> activation_bytes(catalog.models.get("gpt3-175b"), Layout(dp=1, tp=8, pp=1)) / 2**20   # 2 * 2048 * 12288
    48.0
    """
    return 2.0 * model.seq_len * layout.microbatch * model.hidden


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

    Each stage sends the activation (``2 s b h`` bytes) of every microbatch forward and
    receives its gradient backward: ``2 m v`` transfers with ``v`` interleaved chunks. Across
    nodes with the scatter/gather optimisation each TP rank sends ``2 s b h / t`` and an
    AllGather over the ``t`` ranks rebuilds the tensor.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
    gpus_per_node : int, optional
        If given and the whole pipeline fits in one node (``tp dp pp <= gpus_per_node``),
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
    stride = layout.tp * layout.dp
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

    Each GPU holds ``P / (tp pp)`` parameters and reduces ``G = 2 P / (tp pp)`` bytes of BF16
    gradients over the ``dp`` ranks in buckets of ``layout.bucket_bytes``, one collective per
    bucket:

    * ZeRO 0: AllReduce of ``G`` (``2 G (dp-1)/dp`` bytes on the wire with a ring);
    * ZeRO 1 and 2: ReduceScatter of the gradients + AllGather of the updated parameters,
      the same ``2 G (dp-1)/dp``;
    * ZeRO 3: also an AllGather of the parameters before use, ``3 G (dp-1)/dp``, 1.5x.
      Counted once per step as in the paper; with gradient accumulation a real ZeRO-3
      regathers per microbatch, so this is a lower bound.

    Parameters
    ----------
    model : ModelConfig
    layout : Layout
        Only ``dp``, ``tp``, ``pp``, ``zero_stage``, ``bucket_bytes`` and ``grad_bytes`` matter
        (FP32 gradients, ``grad_bytes = 4``, double the reduction; the parameter AllGather
        stays 16-bit).

    Returns
    -------
    list of Traffic
        Empty for ``dp = 1``.

    References
    ----------
    Rajbhandari et al. (2020), "ZeRO", sec. 7.2 and 7.2.2.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> gpt = catalog.models.get("gpt3-6.7b")
    >>> [t.op for t in dp_traffic(gpt, Layout(dp=8, tp=1, pp=1, zero_stage=3))]
    ['reducescatter', 'allgather', 'allgather']
    """
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


def ep_traffic(model, layout):
    """Expert-parallel traffic of one GPU per step.

    Each MoE layer dispatches its tokens' hidden states to the experts and combines them back:
    ``collectives_per_layer`` AllToAlls (pairwise) of the ``2 s b h`` bytes (``/ tp`` with
    sequence parallelism) a GPU holds, over the ``ep`` ranks, for ``moe_layers / pp`` layers
    and ``m`` microbatches.

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
    return [Traffic("alltoall", nbytes, e, count, layout.tp, "pairwise", what="EP dispatch/combine AllToAll")]


def step_traffic(model, layout, gpus_per_node=None):
    """All the traffic of one GPU per step, by strategy: ``{"tp": [...], "pp": [...], "dp": [...], "ep": [...]}``.

    Examples
    --------
    >>> from interconnect import catalog
    >>> from interconnect.parallel import Layout
    >>> tr = step_traffic(catalog.models.get("gpt3-175b"), Layout(dp=2, tp=8, pp=8, zero_stage=1))
    >>> {k: round(wire_bytes(v) / 1e9, 1) for k, v in tr.items()}
    {'tp': 3247.0, 'pp': 77.3, 'dp': 5.5, 'ep': 0.0}
    """
    return {"tp": tp_traffic(model, layout), "pp": pp_traffic(model, layout, gpus_per_node),
            "dp": dp_traffic(model, layout), "ep": ep_traffic(model, layout)}
