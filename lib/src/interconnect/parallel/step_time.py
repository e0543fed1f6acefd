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

Each collective is costed by :meth:`Cluster.collective_time` on the GPUs and links its group
really spans: on the machine presets (:mod:`interconnect.parallel.machines`) by NCCL's own
model, at the algorithm, protocol, latency and achieved bandwidth NCCL picks for the size; on
the 2021 calibrated clusters (:meth:`Cluster.dgx_a100`) as a ring at the fitted
``comm_efficiency`` of the link peak (see ``_group_link``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .cluster import Cluster, _group_link  # noqa: F401 - _group_link: read here by tests and chapters
from .compute import (  # noqa: F401 - the constants are re-exported, as the chapters name them here
    CROSS_ENTROPY_BYTES_PER_LOGIT,
    FP8_CAST_BYTES_PER_ELEMENT,
    _attention_core_time,
    _hardware_flops,
    compute_parts,
    elementwise_time,
)
from .efficiency import pipeline_bubble_fraction
from .layout import Layout, _check_fit
from .traffic import (
    _dp_buckets,
    cp_traffic,
    dp_traffic,
    ep_traffic,
    pp_traffic,
    tp_traffic,
    wire_bytes,
)
from .traffic_base import SENDRECV, _phases
from .transformer import ModelConfig

__all__ = ["tp_comm_time", "pp_comm_time", "dp_comm_time", "ep_comm_time", "cp_comm_time", "dp_wire_bytes",
           "StepTime", "step_time", "dp_step_time"]


def _one(t, cluster, stride=None):
    """Seconds of one call of :class:`~interconnect.parallel.traffic.Traffic` ``t``:
    :meth:`Cluster.collective_time` over its group, ``stride`` apart (default the traffic's own).
    The alpha-beta algorithm a traffic names (ring, pairwise) prices the calibrated clusters
    only; NCCL picks its own on the presets."""
    alg = None if cluster.nccl is not None else t.algorithm
    return cluster.collective_time(t.op, t.nbytes, t.group, t.stride if stride is None else stride, alg)


def _price(traffic, cluster, stride):
    """Seconds of a list of :class:`~interconnect.parallel.traffic.Traffic` whose groups all sit
    ``stride`` apart (each phase's calls added, then times its count)."""
    return _phases(traffic, lambda t: _one(t, cluster, stride))


def _price_groups(traffic, cluster):
    """Seconds of a list of :class:`~interconnect.parallel.traffic.Traffic` of collectives, each on
    the GPUs and links its own group spans (``t.stride``)."""
    return _phases(traffic, lambda t: _one(t, cluster))


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
    2.41
    """
    traffic = tp_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, cluster, 1)


def pp_comm_time(model, layout, cluster):
    """Pipeline point-to-point communication per step on one GPU, seconds.

    Prices :func:`~interconnect.parallel.pp_traffic`: each stage sends the activation
    (``2 s b h`` bytes) of every microbatch forward and receives its gradient backward: ``2 m``
    transfers, ``2 m v`` with ``v`` interleaved chunks (Narayanan et al. 2021, sec. 2.2.2).
    Across nodes with the scatter/gather optimisation each TP rank sends ``2 s b h / t`` over
    its own NIC and an NVLink AllGather rebuilds the tensor (sec. 4.1); within a node the
    transfer is on NVLink. A transfer costs one latency plus its bytes over the link
    (:meth:`Cluster.collective_time` of ``"sendrecv"``: on the presets NCCL's one-hop copy).

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
    # the whole pipeline in one node: the send is on NVLink; otherwise over a NIC (a stride of a
    # whole node puts the two ranks in different nodes)
    inside = layout.tp * layout.cp * layout.dp * layout.pp <= cluster.gpus_per_node
    hop = 1 if inside else cluster.gpus_per_node

    def one(t):
        if t.op == SENDRECV:
            return cluster.collective_time(SENDRECV, t.nbytes, 2, hop)
        return _one(t, cluster)

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
    0.736
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
    0.738
    """
    traffic = ep_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, cluster, layout.tp * layout.cp)


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
    0.117
    >>> round(step_time(ll, lay, h100).cp_comm, 3)   # exposed: all of it hides behind the attention
    0.0
    """
    traffic = cp_traffic(model, layout)
    if not traffic:
        return 0.0
    return _price(traffic, cluster, layout.tp)


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
