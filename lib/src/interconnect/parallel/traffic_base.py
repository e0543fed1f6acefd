"""The record of one kind of message a GPU sends per step (:class:`Traffic`), how to count
its bytes (:func:`wire_bytes`, :func:`network_bytes`), and the activation message size
the strategies share.

See :mod:`interconnect.parallel.traffic` for what each strategy sends.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..collectives import OPS, cost_terms
from .layout import stage_layers

__all__ = ["Traffic", "SENDRECV", "wire_bytes", "network_bytes", "activation_bytes", "collectives_per_layer"]


def _stage_moe_layers(model, layout):
    """MoE layers on the fullest stage: ``moe_layers / pp``, scaled up with uneven stages."""
    even = model.layers / layout.pp
    full = stage_layers(model, layout)
    return model.moe_layers / layout.pp if full == even else model.moe_layers / layout.pp * full / even


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
    >>> from interconnect.parallel import Layout, dp_traffic
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
    >>> from interconnect.parallel import Layout, dp_traffic
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
