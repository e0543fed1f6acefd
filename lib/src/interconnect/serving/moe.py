"""Expert-parallel decode of a mixture-of-experts model: wide EP inside an NVLink domain or over RDMA.

DeepSeek serves V3/R1 (DeepSeek-AI 2024, sec. 3.4; the Day-6 inference-system note 2025) with
*data-parallel attention* and *expert parallelism*: each of the ``ep`` GPUs of a decode
instance holds the attention, the dense layers and the shared expert (replicated) and
``E / ep`` of the routed experts of every MoE layer, and runs its own ``batch`` sequences'
attention. In each MoE layer the tokens go to the GPUs of their ``k`` experts (*dispatch*)
and their outputs come back (*combine*): two AllToAlls per MoE layer per step.

One step on one GPU (:func:`moe_decode_step_time`), as the roofline of
:func:`~interconnect.serving.decode_step_time`:

* **weights**: the replicated part read whole, plus of its ``E / ep`` routed experts those the
  step's ``ep * batch`` tokens touch, ``1 - (1 - k/E)^(ep batch)`` of them (uniform routing),
  read at :func:`~interconnect.serving.stream_bandwidth`, the HBM bandwidth a decode step's GEMMs
  reach (:data:`~interconnect.serving.STREAM_EFFICIENCY` of the peak; in FP8 on Hopper the
  measured share of the roofline, :func:`~interconnect.serving.linear_roofline_fraction`, of the
  step's matmuls as one), as in :func:`~interconnect.serving.decode_step_time`;
* **kv**: its own sequences' cache (MLA latent: not split), read at
  :data:`~interconnect.serving.DECODE_ATTENTION_EFFICIENCY` of the peak, as in
  :func:`~interconnect.serving.decode_step_time`;
* **compute**: ``batch`` tokens' matmuls (each token's ``k`` experts run somewhere; balanced,
  every GPU computes ``batch k`` expert assignments) and attention over the context;
* **dispatch and combine** of each of the ``L_moe`` MoE layers, each an AllToAll priced by
  :meth:`~interconnect.parallel.Cluster.collective_time` (on the machine presets NCCL's model:
  its latency and achieved bandwidth for the size): inside one NVLink domain (``ep <=
  gpus_per_node``, e.g. 72 GPUs of a GB200 NVL72 rack) the AllToAll of the ``batch k h``
  bytes a GPU's tokens send (as :func:`interconnect.moe.moe_layer_time` counts them) over
  NVLink; across ``N = ep / gpus_per_node`` nodes, what one token sends over the network with
  one copy per destination node (DeepEP; :func:`interconnect.moe.cross_node_dispatch`,
  node-limited with ``node_limit``) as an AllToAll among the ``N`` same-index GPUs, one NIC
  each, its NVLink forward inside the node overlapped (the longer of the two counts).

``total = max(weights, linear) + max(kv, attention) + elementwise + L_moe (dispatch + combine)``
(the per-kernel roofline of :func:`~interconnect.serving.decode_step_time`, with its element-wise
kernels); with ``overlap=True`` (DeepSeek's two micro-batches, one computing while the other
communicates) the AllToAlls overlap the rest: ``max(body, L_moe (dispatch + combine))``.

Not modelled: load imbalance beyond ``imbalance`` (the max/mean of the ranks' loads, which
scales the AllToAlls), redundant experts, the MTP module, prefill.

References
----------
DeepSeek-AI, "DeepSeek-V3 Technical Report", arXiv:2412.19437, 2024, sec. 3.4.2 (decoding:
EP320, DP attention, IBGDA all-to-all) and sec. 2.1.2 (node-limited routing).
DeepSeek-AI, DeepEP, ``README.md`` (normal and low-latency kernels; one copy per node over
RDMA, NVLink forwarding).
"""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_count, as_positive
from .kv import kv_bytes_per_token
from .steps import (
    _attention_per_context,
    _elementwise,
    _flops,
    _fp8,
    _kv_read,
    _linear_terms,
    _rates,
    as_machine,
    decode_roofline,
    stream_bandwidth,
)

__all__ = ["MoEDecodeTime", "moe_decode_step_time"]


@dataclass(frozen=True)
class MoEDecodeTime:
    """One expert-parallel decode step on one GPU of an EP group, seconds.

    Attributes
    ----------
    weights, kv, compute : float
        HBM reads of the weights the step uses and of the GPU's sequences' cache (at
        :func:`~interconnect.serving.stream_bandwidth`); the matmuls and attention at the
        GPU's measured rates.
    dispatch, combine : float
        One MoE layer's dispatch and combine AllToAll.
    comm : float
        ``moe_layers * (dispatch + combine)``.
    total : float
        The step: the time per output token of every sequence.
    tokens_per_second : float
        Output tokens per second of the whole EP group, ``ep batch / total``.
    tokens_per_second_per_gpu : float
        ``batch / total``.
    memory_bound : bool
        ``weights + kv >= compute``.
    network : bool
        The EP group spans more than one NVLink domain.
    experts_per_gpu : int
        Routed experts per GPU per MoE layer, ``E / ep``.
    elementwise : float
        The element-wise kernels of its ``batch`` tokens
        (:func:`~interconnect.serving.elementwise_bytes_per_token`, ``tp = 1``).
    """

    weights: float
    kv: float
    compute: float
    dispatch: float
    combine: float
    comm: float
    total: float
    tokens_per_second: float
    tokens_per_second_per_gpu: float
    memory_bound: bool
    network: bool
    experts_per_gpu: int
    elementwise: float = 0.0


def _expert_params(model):
    """Parameters of one routed expert."""
    e = model.num_experts
    return (model.mlp_params(moe=True) - model.hidden * e) / (e + model.shared_experts)


def moe_decode_step_time(model, machine, batch, context, ep, fp8=False, kv_bytes=2, dispatch_bytes=None,
                         combine_bytes=2, node_limit=None, imbalance=1.0, overlap=False):
    """One decode step of an MoE model with data-parallel attention and ``ep``-way expert parallelism.

    Parameters
    ----------
    model : ModelConfig
        An MoE model (``num_experts`` set), e.g. ``models.get("deepseek-v3")``.
    machine : str or Cluster
        ``"dgx-h100"`` (8-GPU NVLink domains, NDR NICs), ``"gb200-nvl72"`` (72), ...
    batch : int
        Sequences per GPU, >= 1.
    context : int
        Tokens cached per sequence, >= 0.
    ep : int
        GPUs of the EP group, >= 1, dividing ``num_experts``; across nodes, a multiple of the
        machine's ``gpus_per_node``.
    fp8 : bool
        FP8 weights and GEMMs.
    kv_bytes : float
        Bytes per cached element.
    dispatch_bytes, combine_bytes : float
        Bytes per hidden element sent in the dispatch (default 1 with ``fp8``, else 2, as
        DeepEP dispatches FP8) and in the combine (2: BF16).
    node_limit : int, optional
        Most nodes one token's experts may sit on (DeepSeek-V3: 4); None: no limit.
    imbalance : float
        Max/mean load of the EP ranks, >= 1 (:func:`interconnect.moe.imbalance`): scales the
        AllToAlls.
    overlap : bool
        Hide the AllToAlls under the computation of another micro-batch.

    Returns
    -------
    MoEDecodeTime

    Examples
    --------
    DeepSeek-V3 in FP8, 128 sequences of 4,096 tokens per GPU: 64 GPUs as 8 DGX H100 over
    NDR InfiniBand against 64 of one GB200 NVL72 rack, where the AllToAlls stay on NVLink and
    take a smaller share of a shorter step:

    >>> from interconnect.catalog import models
    >>> m = models.get("deepseek-v3")
    >>> ib = moe_decode_step_time(m, "dgx-h100", 128, 4096, 64, fp8=True, node_limit=4)
    >>> nvl = moe_decode_step_time(m, "gb200-nvl72", 128, 4096, 64, fp8=True)
    >>> ib.network, round(ib.total * 1e3, 1), round(ib.comm / ib.total, 2)
    (True, 41.8, 0.31)
    >>> nvl.network, round(nvl.total * 1e3, 1), round(nvl.comm / nvl.total, 2)
    (False, 15.2, 0.21)
    """
    from .. import moe as _moe

    if model.num_experts is None:
        raise ValueError(f"model={model.name!r} is not allowed; allowed: an MoE model (num_experts set)")
    cl = as_machine(machine)
    b = as_count("batch", batch)
    c = as_count("context", context, minimum=0)
    ep = as_count("ep", ep)
    e, k = model.num_experts, model.top_k
    if e % ep:
        divs = [d for d in (1, 2, 4, 8, 16, 32, 64, 128, 256) if d <= e and e % d == 0]
        raise ValueError(f"ep={ep} is not allowed; ep must divide num_experts={e} (e.g. {', '.join(map(str, divs))})")
    fp8 = _fp8(fp8)
    kvb = float(as_positive("kv_bytes", kv_bytes, "bytes"))
    db = float(as_positive("dispatch_bytes", (1.0 if fp8 else 2.0) if dispatch_bytes is None else dispatch_bytes,
                           "bytes"))
    cb = float(as_positive("combine_bytes", combine_bytes, "bytes"))
    imb = float(as_positive("imbalance", imbalance))
    if imb < 1:
        raise ValueError(f"imbalance={imbalance!r} is out of range; allowed >= 1 (max/mean)")
    if not isinstance(overlap, bool):
        raise ValueError(f"overlap={overlap!r} is not a bool; allowed True or False")
    network = ep > cl.gpus_per_node
    nodes = 1
    if network:
        if ep % cl.gpus_per_node:
            raise ValueError(f"ep={ep} is not allowed; across NVLink domains ep must be a multiple of "
                             f"gpus_per_node={cl.gpus_per_node}")
        nodes = ep // cl.gpus_per_node
        if node_limit is not None and not 1 <= node_limit <= nodes:
            raise ValueError(f"node_limit={node_limit!r} is out of range; allowed 1 to nodes={nodes}")

    wbytes = 1.0 if fp8 else 2.0
    one = _expert_params(model)
    routed = model.moe_layers * e * one
    touched = 1.0 - (1.0 - k / e) ** (b * ep)
    bw = stream_bandwidth(cl)      # the HBM bandwidth a decode step's kernels reach, as in decode_step_time
    gemm, attn = _rates(cl, fp8)
    terms = _flops(model)
    weights, linear = _linear_terms(cl, fp8, wbytes * ((model.params - routed) + model.moe_layers * (e / ep) * touched
                                                       * one), b * (terms["matmul"] + terms["logits"]), gemm)
    kv = _kv_read(cl, b * c * kv_bytes_per_token(model, 1, 1, kvb))
    attention = b * c * _attention_per_context(model) / attn
    compute = linear + attention

    h = model.hidden
    domain = min(ep, cl.gpus_per_node)

    # the AllToAlls as the machine runs them (Cluster.collective_time: NCCL's model on the presets)
    def nvlink(nbytes):
        if domain == 1:
            return 0.0
        return cl.collective_time("alltoall", imb * b * k * h * nbytes, domain)

    def net(nbytes):
        per_token = _moe.cross_node_dispatch(e, k, nodes, h, node_limit, nbytes, per_node=True)["bytes"]
        out = imb * b * per_token          # bytes this GPU sends over its NIC
        return cl.collective_time("alltoall", out * nodes / (nodes - 1), nodes, cl.gpus_per_node)

    dispatch, combine = nvlink(db), nvlink(cb)
    if network:
        dispatch, combine = max(dispatch, net(db)), max(combine, net(cb))
    comm = model.moe_layers * (dispatch + combine)
    elementwise = b * _elementwise(model, 1, fp8) / bw     # its own tokens' norms, casts, ... as decode_step_time
    body = decode_roofline(weights, kv, linear, attention) + elementwise
    total = max(body, comm) if overlap else body + comm
    return MoEDecodeTime(weights=weights, kv=kv, compute=compute, dispatch=dispatch, combine=combine, comm=comm,
                         total=total, tokens_per_second=ep * b / total, tokens_per_second_per_gpu=b / total,
                         memory_bound=weights + kv >= compute, network=network, experts_per_gpu=e // ep,
                         elementwise=elementwise)
