"""Disaggregated prefill and decode: the KV cache sent between machines, and when it pays.

A colocated replica (:func:`colocated`) runs prefill and decode on the same GPUs with
continuous batching: every prompt that arrives stalls the running batch's next iteration
(:func:`~interconnect.serving.continuous_batching`), so prefill inflates the time per output
token and decode steps delay the first token. DistServe (Zhong et al. 2024), Splitwise
(Patel et al. 2024) and Mooncake (Qin et al. 2025) put the two phases on different GPUs
(:func:`disaggregated`): *prefill instances* compute prompts and send each prompt's KV cache
to a *decode instance*, which only decodes. The price is the KV transfer
(:func:`kv_transfer_time`) and GPUs that each serve one phase.

The KV transfer is costed by :mod:`interconnect.transfer` on the paths of
:mod:`interconnect.topology`:

* ``"nvlink"``: CUDA peer-to-peer through the machine's NVSwitch
  (:func:`~interconnect.transfer.p2p_copy` on :func:`~interconnect.topology.nvswitch`):
  prefill and decode instances in one NVLink domain (an NVL72 rack, or halves of a DGX);
* ``"pcie"``: peer-to-peer through a PCIe switch (:func:`~interconnect.transfer.p2p_copy` on
  :func:`~interconnect.topology.pcie_tree`, PCIe 5.0 x16 by default);
* ``"rdma"``: GPUDirect RDMA between machines, each GPU through its own NIC
  (:func:`~interconnect.transfer.gpudirect_rdma` on :func:`~interconnect.topology.cluster`,
  the machine's NIC: NDR 400 Gb/s on a DGX H100);
* a ``(bandwidth, latency)`` pair (bytes/s per direction, s): any other link, as an
  alpha-beta transfer (:func:`~interconnect.transfer.p2p_copy` on a two-GPU
  :func:`~interconnect.topology.ring` of that link).

The transfer model uses the links' peak bandwidths (measured copies reach 80-90 % of them,
:mod:`interconnect.transfer`). Every GPU of the prefill group sends its own shard of the cache
at the same time over its own path, so one transfer moves the cache divided by the
number of distinct shards, ``min(kv_shards(tp_prefill), kv_shards(tp_decode))``
(:func:`~interconnect.serving.kv_shards`; an MLA latent, which every TP rank holds, is split
over the ``min(tp_prefill, tp_decode)`` senders).

*Layer-wise* transfer (DistServe, Mooncake, and vLLM's KV connectors send each layer's cache as
soon as the layer is computed) overlaps the transfer with the prefill. With ``l`` layers,
prefill ``P`` (``c = P / l`` per layer) and ``s`` the transfer of one layer's cache (its own
latency included), the two-stage pipeline ends ``s + (l - 1) max(0, s - c)`` after the
prefill: the transfer is hidden, except for its last layer, while one layer's cache moves
faster than one layer computes.

The serving model, in steady state (as :func:`~interconnect.serving.continuous_batching`):

* a prefill instance of ``tp_p`` GPUs takes prompts one at a time, each ``P``
  (:func:`~interconnect.serving.prefill_time`); with Poisson arrivals at ``lambda_p`` per
  instance it is an M/D/1 queue (DistServe, sec. 3.1): the mean wait is
  ``rho P / (2 (1 - rho))``, ``rho = lambda_p P``;
* TTFT = wait + ``P`` + the exposed KV transfer (the first token reaches the user with the
  decode instance's first step; that step is not counted, as in DistServe);
* a decode instance of ``tp_d`` GPUs decodes continuously, TPOT ``T = D(B)`` with
  ``B = lambda_d output T`` (Little's law): continuous batching without prefill;
* goodput is the largest rate served within both latency objectives (SLOs); per GPU,
  with fractions of instances allowed, a disaggregated system reaches
  ``1 / (tp_p / g_p + tp_d / g_d)`` for instance goodputs ``g_p`` (prefill, TTFT SLO) and
  ``g_d`` (decode, TPOT SLO), a colocated one ``g_c / tp`` (:func:`disagg_pays`).

Not modelled: batching of prompts in prefill instances (DistServe batches short prompts),
chunked prefill in colocated replicas (Sarathi-Serve), prefix caching, the randomness of the
decode batch, contention of KV transfers with each other on one link.

References
----------
Y. Zhong et al., "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large
Language Model Serving", OSDI 2024, sec. 2-4 (goodput per GPU; the M/D/1 prefill queue, eq. 1).
P. Patel et al., "Splitwise: Efficient Generative LLM Inference Using Phase Splitting",
ISCA 2024 (layer-wise KV transfer over InfiniBand).
R. Qin et al., "Mooncake: Trading More Storage for Less Computation", FAST 2025 (layer-wise
KV transfer over RDMA).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .._validate import as_count, as_positive, choice
from ._paths import KV_PATHS, _path, _transfer
from .allreduce import TP_ALGORITHMS
from .batching import _Setup
from .kv import kv_bytes_per_token
from .steps import _check_tp, _fp8, as_machine, prefill_time

__all__ = ["KV_PATHS", "KVTransfer", "kv_transfer_time", "ServingLayout", "colocated", "disaggregated",
           "DisaggVerdict", "disagg_pays", "prefill_goodput", "decode_goodput", "colocated_goodput"]



@dataclass(frozen=True)
class KVTransfer:
    """The KV cache of a prefill sent to a decode instance.

    Attributes
    ----------
    bytes : float
        Bytes one GPU sends (its shard).
    total_bytes : float
        Bytes of the whole cache of the request(s), all layers, all heads.
    time : float
        Seconds to send the shard in one piece after the prefill.
    exposed : float
        Seconds the transfer adds after the prefill ends: ``time``, or with ``layerwise`` the
        pipeline's tail ``s + (l - 1) max(0, s - c)``.
    bandwidth : float
        ``bytes / time``, bytes/s per GPU.
    mechanism : str
        The transfer mechanism (:class:`~interconnect.transfer.Transfer`'s).
    layerwise : bool
        Layer by layer, overlapped with the prefill.
    """

    bytes: float
    total_bytes: float
    time: float
    exposed: float
    bandwidth: float
    mechanism: str
    layerwise: bool


def _kv_split(model, tp, decode_tp):
    """Distinct shards the cache is sent in: ``min(kv_shards(tp), kv_shards(decode_tp))``
    (MLA: ``min(tp, decode_tp)``)."""
    n = min(tp, decode_tp)
    return n if model.is_mla else min(n, model.n_kv_heads)


def kv_transfer_time(model, tokens, link="rdma", machine="dgx-h100", tp=1, decode_tp=None, pp=1, batch=1,
                     kv_bytes=2, layerwise=False, prefill=None, pcie="pcie5x16"):
    """Time to send the KV cache of ``batch`` prompts of ``tokens`` tokens to a decode instance.

    Parameters
    ----------
    model : ModelConfig
        A model of :mod:`interconnect.catalog.models`.
    tokens : int
        Prompt tokens whose cache moves, >= 1.
    link : {"nvlink", "pcie", "rdma"} or (float, float)
        The path (see the module text), or a (per-direction bandwidth in bytes/s, latency in s)
        pair.
    machine : str or Cluster
        Its NVLink and NIC (a Cluster without names: its intra/inter bandwidth and latency).
    tp, decode_tp : int
        Tensor-parallel degrees of the prefill and the decode instance, >= 1 (``decode_tp``
        defaults to ``tp``).
    pp : int
        Pipeline stages of the prefill instance, >= 1: each stage's GPUs send their layers.
    batch : int
        Prompts sent together, >= 1.
    kv_bytes : float
        Bytes per cached element (1: an FP8 cache), > 0.
    layerwise : bool
        Send each layer's cache as soon as it is computed, overlapping the prefill.
    prefill : float, optional
        Seconds of the prefill to overlap with (default :func:`~interconnect.serving.prefill_time`
        of the prompt on ``tp`` GPUs of the machine); used only with ``layerwise``.
    pcie : str
        The PCIe link of the ``"pcie"`` path, a catalog name.

    Returns
    -------
    KVTransfer

    Examples
    --------
    Llama 3 70B, an 8,192-token prompt from 8 to 8 H100 over NDR InfiniBand: 2.7 GB, 336 MB per
    GPU, 6.7 ms at 50 GB/s; layer by layer all but the last layer's 87 us hides under the 0.3 s prefill:

    >>> from interconnect.catalog import models
    >>> m = models.get("llama3-70b")
    >>> x = kv_transfer_time(m, 8192, "rdma", tp=8)
    >>> round(x.total_bytes / 1e9, 2), round(x.bytes / 1e6), round(x.time * 1e3, 2)
    (2.68, 336, 6.71)
    >>> round(kv_transfer_time(m, 8192, "rdma", tp=8, layerwise=True).exposed * 1e6)
    87
    """
    s, b = as_count("tokens", tokens), as_count("batch", batch)
    tp = as_count("tp", tp)
    dtp = tp if decode_tp is None else as_count("decode_tp", decode_tp)
    pp = as_count("pp", pp)
    if pp > model.layers:
        raise ValueError(f"pp={pp} is not allowed; allowed 1 to layers={model.layers}")
    if not isinstance(layerwise, bool):
        raise ValueError(f"layerwise={layerwise!r} is not a bool; allowed True or False")
    kind, a, c = _path(link, machine, pcie)
    total = b * s * kv_bytes_per_token(model, 1, 1, kv_bytes)
    per_gpu = total / (pp * _kv_split(model, tp, dtp))
    time, mech = _transfer(kind, a, c, per_gpu)
    exposed = time
    if layerwise:
        if prefill is None:
            prefill = prefill_time(model, machine, s, tp=tp, batch=b, kv_bytes=kv_bytes).total
        p = float(as_positive("prefill", prefill, "seconds"))
        layers = math.ceil(model.layers / pp)
        one, _ = _transfer(kind, a, c, per_gpu / layers)
        exposed = one + (layers - 1) * max(0.0, one - p / layers)
    return KVTransfer(bytes=per_gpu, total_bytes=total, time=time, exposed=exposed, bandwidth=per_gpu / time,
                      mechanism=mech, layerwise=layerwise)


# ---------------------------------------------------------------------------------------------
# Colocated and disaggregated serving
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ServingLayout:
    """The steady state of a serving system at ``rate`` requests per second.

    Attributes
    ----------
    kind : str
        ``"colocated"`` or ``"disaggregated"``.
    rate : float
        Requests per second into the whole system.
    ttft, tpot : float
        Mean time to first token and time per output token, seconds.
    gpus : int
        GPUs of the system.
    prefill_tp, decode_tp : int
        TP degree of the prefill and of the decode instances (both the replica's for colocated).
    prefill_replicas, decode_replicas : int
        Instances of each (colocated: both the number of replicas).
    batch : float
        Mean running decode batch of one decode instance.
    kv_transfer : float
        Exposed KV transfer per request, seconds (0 colocated).
    throughput : float
        Output tokens per second, ``rate * output``.
    throughput_per_gpu : float
        ``throughput / gpus``.
    decode_pp : int
        Pipeline stages of a decode instance (colocated: of a replica).
    """

    kind: str
    rate: float
    ttft: float
    tpot: float
    gpus: int
    prefill_tp: int
    decode_tp: int
    prefill_replicas: int
    decode_replicas: int
    batch: float
    kv_transfer: float
    throughput: float
    throughput_per_gpu: float
    decode_pp: int = 1

    def label(self):
        """``'colocated 2 x tp=8'`` or ``'disaggregated 1 x tp=8 prefill + 3 x tp=8 decode'``
        (`` pp=...`` added for pipelines)."""
        pp = f" pp={self.decode_pp}" if self.decode_pp > 1 else ""
        if self.kind == "colocated":
            return f"colocated {self.decode_replicas} x tp={self.decode_tp}{pp}"
        return (f"disaggregated {self.prefill_replicas} x tp={self.prefill_tp} prefill + "
                f"{self.decode_replicas} x tp={self.decode_tp}{pp} decode")


def _setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu):
    return _Setup(model, machine, tp, prompt, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu)


def _decode_point(st, rate):
    """(TPOT, batch) of a decode-only instance (no prefill stalls), or None if not sustainable."""
    saved = st.prefills
    st.prefills = False
    try:
        return st.solve(rate)
    finally:
        st.prefills = saved


def _md1_wait(rate, p):
    """Mean wait of an M/D/1 queue with service ``p`` (Pollaczek-Khinchine), or None if ``rate p >= 1``."""
    rho = rate * p
    return None if rho >= 1.0 else rho * p / (2.0 * (1.0 - rho))


def colocated(model, machine, rate, prompt, output, tp=8, replicas=1, fp8=False, kv_bytes=2, block_tokens=16,
              reserve=0.1, algorithm="auto", gpu=None, pp=1):
    """``replicas`` identical TP replicas, each prefilling and decoding with continuous batching.

    Each replica takes ``rate / replicas`` (:func:`~interconnect.serving.continuous_batching`).

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
    rate : float
        Requests per second into the system, > 0.
    prompt, output : int
        Tokens per prompt and per answer, >= 1.
    tp, replicas : int
        TP degree of a replica and number of replicas, >= 1.
    fp8, kv_bytes, block_tokens, reserve, algorithm, gpu, pp
        As for :func:`~interconnect.serving.continuous_batching` (a replica is ``tp x pp`` GPUs).

    Returns
    -------
    ServingLayout

    Raises
    ------
    ValueError
        When the rate per replica is not sustainable.

    Examples
    --------
    >>> from interconnect.catalog import models
    >>> c = colocated(models.get("llama3-70b"), "dgx-h100", 4.0, 1024, 256, tp=8)
    >>> c.label(), round(c.ttft * 1e3), round(c.tpot * 1e3, 1)
    ('colocated 1 x tp=8', 47, 9.5)
    """
    from .batching import continuous_batching

    n = as_count("replicas", replicas)
    lam = float(as_positive("rate", rate, "requests/s"))
    s = continuous_batching(model, machine, tp, lam / n, prompt, output, fp8=fp8, kv_bytes=kv_bytes,
                            block_tokens=block_tokens, reserve=reserve, algorithm=algorithm, gpu=gpu, pp=pp)
    gpus = n * tp * pp
    thr = lam * output
    return ServingLayout(kind="colocated", rate=lam, ttft=s.ttft, tpot=s.tpot, gpus=gpus, prefill_tp=tp,
                         decode_tp=tp, prefill_replicas=n, decode_replicas=n, batch=s.batch, kv_transfer=0.0,
                         throughput=thr, throughput_per_gpu=thr / gpus, decode_pp=pp)


def disaggregated(model, machine, rate, prompt, output, prefill_tp=8, decode_tp=8, prefill_replicas=1,
                  decode_replicas=1, link="rdma", layerwise=True, fp8=False, kv_bytes=2, block_tokens=16,
                  reserve=0.1, algorithm="auto", gpu=None, decode_pp=1):
    """Prefill instances and decode instances on separate GPUs, the KV cache sent between them.

    TTFT = M/D/1 wait + prefill + exposed KV transfer; TPOT = the decode-only continuous
    batching fixed point (see the module text).

    Parameters
    ----------
    model : ModelConfig
    machine : str or Cluster
    rate : float
        Requests per second into the system, > 0.
    prompt, output : int
        Tokens per prompt and per answer, >= 1.
    prefill_tp, decode_tp : int
        TP degrees of a prefill and a decode instance.
    prefill_replicas, decode_replicas : int
        Instances of each, >= 1.
    link : {"nvlink", "pcie", "rdma"} or (float, float)
        The KV path, :func:`kv_transfer_time`.
    layerwise : bool
        Layer-wise KV transfer overlapped with the prefill.
    fp8, kv_bytes, block_tokens, reserve, algorithm, gpu
        As for :func:`~interconnect.serving.continuous_batching`.
    decode_pp : int
        Pipeline stages of a decode instance (``decode_tp x decode_pp`` GPUs).

    Returns
    -------
    ServingLayout

    Raises
    ------
    ValueError
        When the prefill or the decode instances cannot sustain their share of the rate.

    Examples
    --------
    The colocated example's load on one prefill and one decode instance of 8 H100 each: the
    first token comes 1 ms sooner and each next token 1.4 ms sooner, on twice the GPUs:

    >>> from interconnect.catalog import models
    >>> d = disaggregated(models.get("llama3-70b"), "dgx-h100", 4.0, 1024, 256)
    >>> d.gpus, round(d.ttft * 1e3), round(d.tpot * 1e3, 1), round(d.kv_transfer * 1e6)
    (16, 46, 8.2, 13)
    """
    lam = float(as_positive("rate", rate, "requests/s"))
    np_, nd = as_count("prefill_replicas", prefill_replicas), as_count("decode_replicas", decode_replicas)
    cl = as_machine(machine)
    ptp, dtp = _check_tp(model, cl, prefill_tp), _check_tp(model, cl, decode_tp)
    s = as_count("prompt", prompt)
    p = prefill_time(model, cl, s, ptp, _fp8(fp8), kv_bytes=kv_bytes,
                     algorithm=choice("algorithm", algorithm, TP_ALGORITHMS)).total
    wait = _md1_wait(lam / np_, p)
    if wait is None:
        raise ValueError(f"rate={lam:g} is not sustainable by {np_} prefill instance(s); allowed 0 < rate < "
                         f"{np_ / p:.4g} requests/s (prefill {p * 1e3:.3g} ms)")
    kv = kv_transfer_time(model, s, link, machine, tp=ptp, decode_tp=dtp, kv_bytes=kv_bytes, layerwise=layerwise,
                          prefill=p)
    st = _Setup(model, machine, dtp, s, output, fp8, kv_bytes, block_tokens, reserve, algorithm, gpu, decode_pp)
    sol = _decode_point(st, lam / nd)
    if sol is None:
        top = _decode_goodput(st, math.inf)
        raise ValueError(f"rate={lam:g} is not sustainable by {nd} decode instance(s); allowed 0 < rate < "
                         f"{nd * top:.4g} requests/s (KV capacity {st.capacity} tokens per instance)")
    t, b = sol
    gpus = np_ * ptp + nd * dtp * st.pp
    thr = lam * st.output
    return ServingLayout(kind="disaggregated", rate=lam, ttft=wait + p + kv.exposed, tpot=t, gpus=gpus,
                         prefill_tp=ptp, decode_tp=dtp, prefill_replicas=np_, decode_replicas=nd, batch=b,
                         kv_transfer=kv.exposed, throughput=thr, throughput_per_gpu=thr / gpus, decode_pp=st.pp)


# Goodput and the verdict live in .goodput (it imports this module); re-exported for the old names
# (``disaggregated`` calls ``_decode_goodput`` at run time).
from .goodput import (  # noqa: E402
    DisaggVerdict,
    _decode_goodput,
    colocated_goodput,
    decode_goodput,
    disagg_pays,
    prefill_goodput,
)
