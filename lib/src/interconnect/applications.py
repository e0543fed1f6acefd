"""Application models: LLM decoding, stencil halo exchange, job cost.

Three small models the chapter "Applications" needs and the rest of the library does
not have. Each one reuses :mod:`interconnect.collectives` for every collective it
contains, and states its assumptions plainly:

* :func:`decode_step` -- one autoregressive decode step of a dense transformer split
  tensor-parallel over ``tp`` GPUs: reading the weights and the KV cache from HBM (at
  small batch decoding is bound by memory bandwidth, Pope et al. 2022) at the bandwidths the
  serving models read them at: the weights at :data:`interconnect.serving.STREAM_EFFICIENCY` of
  the peak (:func:`interconnect.serving.stream_bandwidth`), the cache at
  :data:`interconnect.serving.DECODE_ATTENTION_EFFICIENCY`, plus ``2 l``
  ring AllReduces of ``2 b h`` bytes (Shoeybi et al. 2019, sec. 3: two per layer, no
  backward pass in inference). The weight GEMMs' arithmetic, ``2 N b`` FLOPs per step,
  overlaps the weight reads (a roofline: they take the longer of the two), then attention
  reads the KV cache: :func:`interconnect.serving.decode_roofline`, the step of the
  serving models (:func:`interconnect.serving.decode_step_time`) with the model reduced to
  ``N``, ``l`` and ``h`` and without its element-wise kernels
  (:func:`interconnect.serving.elementwise_bytes_per_token`, small at small batch). The
  AllReduces do not overlap either, since each layer waits for the one before.
* :func:`halo_step` and :func:`halo_crossover` -- a 3-D stencil on a cubic subdomain of
  ``n^3`` cells per GPU: an update pass over the cells bound by HBM bandwidth, and a
  halo exchange of ``faces`` messages of ``n^2 * halo * bytes_per_cell`` bytes, sent
  one after another through the GPU's one port (full duplex: its receives overlap its
  sends). The surface-to-volume ratio ``faces * halo / n`` is why small subdomains are
  communication-bound.
* :func:`job_cost` -- what a job costs at an hourly price per instance.
* The chapter's serving scenario: :data:`LLAMA2` (the three Llama 2 shapes),
  :func:`llama2_decode` (:func:`decode_step` for one of them on H100s),
  :func:`max_batch` and :func:`group_fits` (does the KV cache fit next to the weights in
  the TP group), :func:`serve` (the largest batch that fits and its decode step). The chapter's training machines
  are :meth:`interconnect.parallel.Cluster.from_links` (:func:`interconnect.scenarios.applications`).

All arguments and results in SI units: bytes, seconds, bytes/s (per direction),
FLOP/s; money in whatever currency the price is in.

References
----------
H. Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models", arXiv:2307.09288,
2023, Table 1 and sec. 2.2 (sizes; grouped-query attention with 8 key-value heads in 70B).
R. Pope et al., "Efficiently Scaling Transformer Inference", MLSys 2023 (arXiv:2211.05102).
M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, sec. 3.
W. Kwon et al., "Efficient Memory Management for Large Language Model Serving with
PagedAttention", SOSP 2023, sec. 3 (the KV cache; :func:`interconnect.memory.kv_cache_bytes`).
R. Thakur, R. Rabenseifner, W. Gropp (2005): the collective costs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validate import as_count, as_fraction, as_nonnegative, as_positive, choice
from .collectives import collective_time
from .serving.steps import DECODE_ATTENTION_EFFICIENCY, STREAM_EFFICIENCY, decode_roofline
from .units import GiB

__all__ = ["DecodeStep", "decode_step", "HaloStep", "halo_step", "halo_crossover", "job_cost",
           "LLAMA2", "LLAMA2_HEAD_DIM", "H100_USABLE_MEMORY", "llama2_decode", "max_batch", "group_fits", "serve"]


def _out(x):
    return float(x) if np.ndim(x) == 0 else np.asarray(x, dtype=float)


@dataclass(frozen=True)
class DecodeStep:
    """One decode step (one new token for each of ``batch`` sequences), seconds.

    Attributes
    ----------
    weights : float or ndarray
        Reading this GPU's share of the weights from HBM, ``bytes_per_param N / (tp e B_mem)``
        (``e`` the ``stream_efficiency``).
    compute : float or ndarray
        The matrix arithmetic, ``2 N b / (tp peak)`` (0 when no ``peak_flops`` is given).
    kv : float or ndarray
        Reading this GPU's share of the KV cache, ``kv_bytes / (tp e_kv B_mem)`` (``e_kv`` the ``kv_efficiency``).
    comm : float or ndarray
        The ``2 l`` tensor-parallel AllReduces, one after another (0 when ``tp = 1``).
    total : float or ndarray
        ``max(weights, compute) + kv + comm``: the time per generated token of one sequence
        (:func:`interconnect.serving.decode_roofline` plus the AllReduces).
    tokens_per_second : float or ndarray
        ``batch / total``: the serving throughput of the whole TP group.
    comm_share : float or ndarray
        ``comm / total``.
    """

    weights: object
    kv: object
    compute: object
    comm: object
    total: object
    tokens_per_second: object
    comm_share: object


def decode_step(n_params, layers, hidden, tp, bandwidth, latency, memory_bandwidth, batch=1,
                kv_bytes=0.0, bytes_per_param=2.0, act_bytes=2.0, algorithm="ring", peak_flops=None,
                stream_efficiency=STREAM_EFFICIENCY, kv_efficiency=DECODE_ATTENTION_EFFICIENCY):
    """Time of one tensor-parallel decode step of a dense transformer.

    Parameters
    ----------
    n_params : float or array
        Parameters N, > 0.
    layers, hidden : int or array
        l and h, >= 1.
    tp : int or array
        Tensor-parallel degree t, >= 1 (1: a single GPU, no communication).
    bandwidth, latency : float or array
        Per-direction link bandwidth of each GPU (bytes/s, > 0) and per-message latency
        (s, >= 0) of the link the TP group runs on.
    memory_bandwidth : float or array
        HBM bandwidth per GPU (the datasheet's peak), bytes/s, > 0.
    batch : int or array
        Sequences decoded together, b >= 1.
    kv_bytes : float or array
        Bytes of the whole batch's KV cache (:func:`interconnect.memory.kv_cache_bytes`),
        >= 0; it is split over the ``tp`` GPUs like the attention heads.
    bytes_per_param : float
        2 for BF16 weights, 1 for 8-bit.
    act_bytes : float
        Bytes per activation element in the AllReduce (2 for BF16).
    algorithm : str
        AllReduce algorithm of :func:`interconnect.collectives.collective_time`.
    peak_flops : float or array, optional
        FLOP/s each GPU reaches on the decode GEMMs (> 0); None (default) takes the
        arithmetic as free, which is right at small batch and optimistic at large.
    stream_efficiency : float
        Fraction of ``memory_bandwidth`` the weight and cache reads reach, (0, 1]; default
        :data:`interconnect.serving.STREAM_EFFICIENCY` (0.686, DeepGEMM's small-M GEMMs on
        Hopper), the value :func:`interconnect.serving.decode_step_time` reads weights at; 1 (with
        ``kv_efficiency=1``) gives the peak-bandwidth roofline.
    kv_efficiency : float
        Fraction of ``memory_bandwidth`` the KV-cache reads reach, (0, 1]; default
        :data:`interconnect.serving.DECODE_ATTENTION_EFFICIENCY` (0.829, a decode attention kernel
        measured on an H200), as :func:`interconnect.serving.decode_step_time` reads the cache.

    Returns
    -------
    DecodeStep

    Notes
    -----
    ``comm = 2 l T_allreduce(act_bytes b h, t)``: two AllReduces per layer, after the
    attention block and after the MLP (Shoeybi et al. 2019, Fig. 3), each waiting for the
    one before. At small ``b`` the message is a few KB to a few hundred KB and the time is
    the latency term ``2 (t - 1) alpha`` of the ring.
    """
    n = as_positive("n_params", n_params)
    l = as_count("layers", layers)
    h = as_count("hidden", hidden)
    t = as_count("tp", tp)
    b = as_count("batch", batch)
    mem = as_positive("memory_bandwidth", memory_bandwidth, "bytes/s")
    eff = as_fraction("stream_efficiency", stream_efficiency, 0.0, 1.0)
    kv_eff = as_fraction("kv_efficiency", kv_efficiency, 0.0, 1.0)
    mem_kv = np.asarray(mem, dtype=float) * kv_eff
    mem = np.asarray(mem, dtype=float) * eff
    kv = as_nonnegative("kv_bytes", kv_bytes, "bytes")
    bpp = as_positive("bytes_per_param", bytes_per_param, "bytes")
    ab = as_positive("act_bytes", act_bytes, "bytes")
    weights = bpp * np.asarray(n, dtype=float) / t / mem
    kv_t = np.asarray(kv, dtype=float) / t / mem_kv
    if peak_flops is None:
        compute = np.zeros(np.broadcast(weights, kv_t, np.asarray(b)).shape)
    else:
        peak = as_positive("peak_flops", peak_flops, "FLOP/s")
        compute = 2.0 * np.asarray(n, dtype=float) * b / t / peak
    one = collective_time("allreduce", ab * np.asarray(b * h, dtype=float), np.maximum(t, 1), bandwidth, latency,
                          algorithm)
    comm = np.where(np.asarray(t) > 1, 2.0 * np.asarray(l) * one, 0.0)
    total = decode_roofline(weights, kv_t, compute) + comm
    return DecodeStep(weights=_out(weights), kv=_out(kv_t), compute=_out(compute), comm=_out(comm),
                      total=_out(total),
                      tokens_per_second=_out(b / total), comm_share=_out(comm / total))


@dataclass(frozen=True)
class HaloStep:
    """One time step of a 3-D stencil on one GPU's subdomain, seconds.

    Attributes
    ----------
    compute : float or ndarray
        The update pass, ``n^3 bytes_per_update / B_mem``.
    comm : float or ndarray
        The halo exchange, ``faces (alpha + n^2 halo bytes_per_cell / B_link)``.
    total : float or ndarray
        ``compute + comm`` (no overlap), or ``max(compute, comm)`` with ``overlap=True``.
    comm_share : float or ndarray
        ``comm / (compute + comm)``: the share of the step the exchange would take unhidden.
    halo_bytes : float or ndarray
        Bytes sent per step, ``faces n^2 halo bytes_per_cell``.
    surface_to_volume : float or ndarray
        Halo cells over interior cells, ``faces halo / n``.
    """

    compute: object
    comm: object
    total: object
    comm_share: object
    halo_bytes: object
    surface_to_volume: object


def _halo_args(n, bandwidth, latency, memory_bandwidth, halo, bytes_per_cell, bytes_per_update, faces):
    return (np.asarray(as_positive("n", n, "cells"), dtype=float),
            as_positive("bandwidth", bandwidth, "bytes/s (per direction)"),
            as_nonnegative("latency", latency, "seconds"),
            as_positive("memory_bandwidth", memory_bandwidth, "bytes/s"),
            as_count("halo", halo), as_positive("bytes_per_cell", bytes_per_cell, "bytes"),
            as_positive("bytes_per_update", bytes_per_update, "bytes"), as_count("faces", faces))


def halo_step(n, bandwidth, latency, memory_bandwidth, halo=1, bytes_per_cell=8.0, bytes_per_update=16.0,
              faces=6, overlap=False):
    """Compute and halo-exchange time of one stencil step on an ``n x n x n`` subdomain.

    Parameters
    ----------
    n : float or array
        Cells along each edge of the GPU's cubic subdomain, > 0.
    bandwidth, latency : float or array
        Per-direction bandwidth (bytes/s) and per-message latency (s) of the link to the
        neighbours (NVLink inside a node, the NIC across nodes).
    memory_bandwidth : float or array
        HBM bandwidth, bytes/s: a low-order stencil does a few FLOPs per byte, so its
        update pass is bound by memory traffic, not arithmetic.
    halo : int
        Ghost-cell layers per face (1 for a 7-point stencil, 2 for a 13-point one).
    bytes_per_cell : float
        Bytes of state per cell that cross a face (8: one FP64 field).
    bytes_per_update : float
        HBM bytes moved per cell update (16: read and write one FP64 value with perfect
        cache reuse of the neighbours; more for several fields or poor reuse).
    faces : int
        Neighbours exchanged with: 6 for a 3-D decomposition (faces only), 2 or 4 for 1-D
        or 2-D decompositions of the domain.
    overlap : bool
        If True, the exchange runs during the update of the interior, so the step takes
        ``max(compute, comm)``.

    Returns
    -------
    HaloStep
    """
    n, bw, lat, mem, hl, bpc, bpu, f = _halo_args(n, bandwidth, latency, memory_bandwidth, halo,
                                                  bytes_per_cell, bytes_per_update, faces)
    if not isinstance(overlap, (bool, np.bool_)):
        raise ValueError(f"overlap={overlap!r} is not a bool; allowed True or False")
    compute = n ** 3 * bpu / mem
    face_bytes = n ** 2 * hl * bpc
    comm = f * (lat + face_bytes / bw)
    total = np.maximum(compute, comm) if overlap else compute + comm
    return HaloStep(compute=_out(compute), comm=_out(comm), total=_out(total),
                    comm_share=_out(comm / (compute + comm)), halo_bytes=_out(f * face_bytes),
                    surface_to_volume=_out(f * hl / n))


def halo_crossover(bandwidth, latency, memory_bandwidth, halo=1, bytes_per_cell=8.0, bytes_per_update=16.0,
                   faces=6):
    """Subdomain edge ``n*`` at which the halo exchange takes as long as the update.

    Solves ``n^3 c = faces (alpha + n^2 halo bytes_per_cell / B_link)`` with
    ``c = bytes_per_update / B_mem``: the one positive real root of a cubic with a single
    sign change (Descartes). Below ``n*`` the interconnect dominates the step. Without
    latency the root is ``faces halo bytes_per_cell B_mem / (bytes_per_update B_link)``:
    the ratio of memory to link bandwidth, times the surface-to-volume constant.

    Parameters
    ----------
    As :func:`halo_step` (scalars or arrays that broadcast together).

    Returns
    -------
    float or ndarray
        Cells along one edge (not rounded).
    """
    _, bw, lat, mem, hl, bpc, bpu, f = _halo_args(1.0, bandwidth, latency, memory_bandwidth, halo,
                                                  bytes_per_cell, bytes_per_update, faces)
    bw, lat, mem, hl, bpc, bpu, f = np.broadcast_arrays(*(np.asarray(x, dtype=float)
                                                         for x in (bw, lat, mem, hl, bpc, bpu, f)))
    c = bpu / mem
    b2 = f * hl * bpc / bw            # coefficient of n^2
    a0 = f * lat                      # constant
    out = np.empty(c.shape)
    for idx in np.ndindex(c.shape):
        if a0[idx] == 0:
            out[idx] = b2[idx] / c[idx]
            continue
        roots = np.roots([c[idx], -b2[idx], 0.0, -a0[idx]])
        real = roots[np.abs(roots.imag) <= 1e-9 * np.abs(roots).max()].real
        out[idx] = real[real > 0].max()
    return _out(out)


def job_cost(wall_time, instances, price_per_instance_hour):
    """Cost of a job: ``instances * price * wall_time / 3600``.

    Parameters
    ----------
    wall_time : float or array
        Seconds the instances are held, >= 0.
    instances : int or array
        Instances (nodes) held, >= 1.
    price_per_instance_hour : float or array
        Price of one instance for one hour, > 0 (an on-demand list price, say).

    Returns
    -------
    float or ndarray
        In the currency of the price.
    """
    t = as_nonnegative("wall_time", wall_time, "seconds")
    k = as_count("instances", instances)
    p = as_positive("price_per_instance_hour", price_per_instance_hour)
    return _out(np.asarray(k) * np.asarray(p) * np.asarray(t) / 3600.0)


# ---------------------------------------------------------------------------------------------
# The chapter's serving scenario: Llama 2 on H100s
# ---------------------------------------------------------------------------------------------

#: Llama 2 shapes (Touvron et al. 2023, Table 1): name -> (parameters N, layers l, hidden h,
#: key-value heads). 7B and 13B use multi-head attention (as many KV heads as query heads);
#: 70B uses grouped-query attention with 8 KV heads.
LLAMA2 = {"7B": (7e9, 32, 4096, 32), "13B": (13e9, 40, 5120, 40), "70B": (70e9, 80, 8192, 8)}

#: Head dimension of every Llama 2 model (h / heads = 128).
LLAMA2_HEAD_DIM = 128

#: Memory of one H100 the chapter lets weights and KV cache use: 80 GiB (the datasheet's "80 GB";
#: HBM capacity is binary) less 4 GiB for the CUDA context, activations and communication buffers
#: (as in the chapter on planning a cluster).
H100_USABLE_MEMORY = 76 * GiB


def _link(link):
    from .links import get_link

    return get_link(link) if isinstance(link, str) else link


def llama2_decode(model, tp, link, batch=1, context=4096, gpu="H100"):
    """:func:`decode_step` of a Llama 2 model on ``tp`` GPUs joined by ``link``.

    The weights are 16-bit, the KV cache holds ``context`` tokens of each of ``batch``
    sequences (:func:`interconnect.memory.kv_cache_bytes` with the model's key-value heads),
    and the GEMMs run at the GPU's measured GEMM ceiling,
    :func:`interconnect.parallel.ceiling_fraction` of its peak.

    Parameters
    ----------
    model : {"7B", "13B", "70B"}
        A key of :data:`LLAMA2`.
    tp : int or array of int
        Tensor-parallel degree, >= 1.
    link : str or interconnect.links.Link
        The link the TP group runs on (a catalog name such as ``"nvlink4"``, or an entry).
    batch : int
        Sequences decoded together, >= 1.
    context : int
        Tokens held in the KV cache per sequence.
    gpu : str
        A GPU of :mod:`interconnect.devices` with a measured GEMM ceiling
        (:data:`interconnect.parallel.gemm.CEILING`): its HBM bandwidth, peak and ceiling.

    Returns
    -------
    DecodeStep

    Examples
    --------
    >>> d = llama2_decode("70B", 8, "nvlink4")
    >>> round(d.total * 1e3, 2)        # ms per token at batch 1, 4,096-token context
    9.03
    """
    from .devices import get_gpu
    from .memory import kv_cache_bytes
    from .parallel import ceiling_fraction

    n, layers, hidden, kv_heads = LLAMA2[choice("model", model, tuple(LLAMA2))]
    g, lk = get_gpu(gpu), _link(link)
    return decode_step(n, layers, hidden, tp, lk.bandwidth, lk.latency, g.memory_bandwidth, batch=batch,
                       kv_bytes=kv_cache_bytes(layers, kv_heads, LLAMA2_HEAD_DIM, context, batch),
                       peak_flops=g.peak_flops * ceiling_fraction(g.name))


def max_batch(tp, memory_per_gpu, weight_bytes, kv_bytes_per_sequence):
    """Largest batch whose KV cache fits next to the weights in a TP group of ``tp`` GPUs.

    ``floor((tp M - W) / kv)``: the group's memory less the weights, in whole sequences.
    Negative when the weights alone do not fit.

    Parameters
    ----------
    tp : int
        GPUs in the group, >= 1.
    memory_per_gpu : float
        Usable bytes per GPU (for example :data:`H100_USABLE_MEMORY`).
    weight_bytes : float
        Bytes of the whole model's weights (split over the group).
    kv_bytes_per_sequence : float
        KV-cache bytes of one sequence at its full context, > 0.

    Returns
    -------
    int

    Examples
    --------
    >>> max_batch(8, 76 * 2**30, 140e9, 327_680 * 4096)   # Llama 2 70B, 4,096-token contexts
    382
    """
    kv = as_positive("kv_bytes_per_sequence", kv_bytes_per_sequence, "bytes")
    return int((as_count("tp", tp) * as_positive("memory_per_gpu", memory_per_gpu, "bytes")
                - as_nonnegative("weight_bytes", weight_bytes, "bytes")) // kv)


def group_fits(tp, memory_per_gpu, weight_bytes, kv_bytes):
    """Whether weights and KV cache fit in a TP group: ``tp M >= W + kv``.

    Parameters
    ----------
    tp : int or array of int
        GPUs in the group, >= 1.
    memory_per_gpu, weight_bytes, kv_bytes : float
        Usable bytes per GPU, bytes of the weights and of the whole batch's KV cache.

    Returns
    -------
    bool or ndarray of bool
    """
    t = as_count("tp", tp)
    out = np.asarray(t) * memory_per_gpu >= weight_bytes + kv_bytes
    return bool(out) if out.ndim == 0 else out


def serve(tp, link, context=4096, batch=None, model="70B", memory_per_gpu=H100_USABLE_MEMORY, gpu="H100"):
    """Serve a Llama 2 model with the largest batch that fits: the batch and its decode step.

    The batch is :func:`max_batch` of the group (16-bit weights, the KV cache of ``context``
    tokens per sequence), or ``batch`` if given; the step is :func:`llama2_decode`.

    Parameters
    ----------
    tp : int
        Tensor-parallel degree, >= 1.
    link : str or interconnect.links.Link
        The link the TP group runs on.
    context : int
        Tokens per sequence held in the KV cache.
    batch : int, optional
        Decode this batch instead of the largest that fits.
    model : {"7B", "13B", "70B"}
        A key of :data:`LLAMA2`.
    memory_per_gpu : float
        Usable bytes per GPU.
    gpu : str
        A GPU of :mod:`interconnect.devices`.

    Returns
    -------
    (int, DecodeStep)

    Raises
    ------
    ValueError
        If the weights leave no room for one sequence.

    Examples
    --------
    >>> b, d = serve(8, "nvlink4")
    >>> b, round(d.tokens_per_second)
    (382, 10400)
    """
    from .memory import kv_cache_bytes

    n, layers, _, kv_heads = LLAMA2[choice("model", model, tuple(LLAMA2))]
    b_max = max_batch(tp, memory_per_gpu, 2 * n, kv_cache_bytes(layers, kv_heads, LLAMA2_HEAD_DIM, 1) * context)
    b = b_max if batch is None else batch
    if b < 1:
        raise ValueError(f"tp={tp!r}: the weights of Llama 2 {model} leave no room for one sequence of {context} "
                         f"tokens in {tp} x {memory_per_gpu:.3g} bytes; use a larger group")
    return b, llama2_decode(model, tp, link, batch=b, context=context, gpu=gpu)
