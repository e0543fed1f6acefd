"""FLOPs, MFU and the efficiency model of parallel training.

The efficiency model of the book's first chapter: a step of parallel work is compute
plus the part of communication that is *not* hidden behind compute,

``efficiency = T_compute / (T_compute + T_exposed)``,   ``speedup = p * efficiency``

(weak scaling: each of ``p`` GPUs does the same work per step as one GPU alone).

References
----------
J. Kaplan et al., "Scaling Laws for Neural Language Models", arXiv:2001.08361, 2020
(C = 6N FLOPs per training token).
A. Chowdhery et al., "PaLM: Scaling Language Modeling with Pathways", arXiv:2204.02311,
2022, Appendix B (MFU; 6N + 12 L H Q T FLOPs per token).
M. Shoeybi et al., "Megatron-LM", arXiv:1909.08053, 2019 (scaling efficiency).
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_fraction, as_nonnegative, as_positive
from ..collectives import collective_time

__all__ = ["model_flops_per_token", "mfu", "exposed_communication", "efficiency", "dp_step", "dp_break_even_tokens",
           "pipeline_bubble_fraction"]


def model_flops_per_token(n_params, n_layers=None, d_model=None, seq_len=None, training=True):
    """Model FLOPs per token: ``6N`` for training (``2N`` forward only), plus attention.

    Parameters
    ----------
    n_params : float or array
        Non-embedding parameter count N, > 0.
    n_layers, d_model, seq_len : int, optional
        If all given, add the attention-score term ``12 * L * d_model * T`` for
        training (``4 L d T`` forward only), PaLM Appendix B with H * Q = d_model.
    training : bool
        Forward and backward (3x the forward) if True.

    Returns
    -------
    float or ndarray
        FLOP per token.

    References
    ----------
    Kaplan et al. (2020), sec. 2.1; Chowdhery et al. (2022), Appendix B.

    Examples
    --------
    GPT-3 175B: ``6N`` = 1.05 TFLOP per training token (Kaplan et al. 2020), a little more
    with the attention scores:

    >>> model_flops_per_token(175e9) / 1e12
    1.05
    >>> round(model_flops_per_token(175e9, 96, 12288, 2048) / 1e12, 3)
    1.079
    """
    n = as_positive("n_params", n_params)
    mult = 3.0 if training else 1.0
    flops = 2.0 * n * mult
    given = [v is not None for v in (n_layers, d_model, seq_len)]
    if any(given) and not all(given):
        raise ValueError("n_layers, d_model and seq_len: give all three (attention term) or none")
    if all(given):
        L = as_count("n_layers", n_layers)
        d = as_count("d_model", d_model)
        t = as_count("seq_len", seq_len)
        flops = flops + 4.0 * L * d * t * mult
    return flops


def mfu(tokens_per_second, flops_per_token, n_gpus, peak_flops):
    """Model FLOPs utilisation: achieved model FLOP/s over the cluster's peak.

    Parameters
    ----------
    tokens_per_second : float or array
        Training throughput of the whole job, tokens/s.
    flops_per_token : float or array
        From :func:`model_flops_per_token` (recomputation is *not* counted: that is HFU).
    n_gpus : int
    peak_flops : float
        Dense peak per GPU, FLOP/s.

    Returns
    -------
    float or ndarray
        A fraction in (0, 1] for a physically possible measurement.

    References
    ----------
    Chowdhery et al. (2022), sec. 4.1 and Appendix B.

    Examples
    --------
    PaLM 540B trained at 238.3k tokens/s on 6,144 TPU v4 chips of 275 TFLOP/s; its
    attention has ``H Q = 48 x 256``. This reproduces the 46.2 % MFU of Chowdhery et al.
    (2022), Table 3 and Appendix B:

    >>> fpt = model_flops_per_token(540.35e9, 118, 48 * 256, 2048)
    >>> round(mfu(238.3e3, fpt, 6144, 275e12), 3)
    0.462
    """
    tps = as_positive("tokens_per_second", tokens_per_second, "tokens/s")
    fpt = as_positive("flops_per_token", flops_per_token, "FLOP")
    n = as_count("n_gpus", n_gpus)
    peak = as_positive("peak_flops", peak_flops, "FLOP/s")
    return tps * fpt / (n * peak)


def exposed_communication(comm_time, compute_time, overlap=0.0):
    """Communication time left on the critical path after overlap with compute.

    ``exposed = comm - min(comm, overlap * compute)``: during a fraction ``overlap`` of
    the compute the network can work in the background (e.g. gradient buckets sent
    while the backward pass goes on); the rest waits.

    Parameters
    ----------
    comm_time, compute_time : float or array
        Seconds, >= 0 and > 0.
    overlap : float or array
        In [0, 1]: 0 no overlap, 1 communication may run during all of the compute.

    Examples
    --------
    0.3 s of communication against 1 s of compute, 20 % of which it may overlap:

    >>> round(exposed_communication(0.3, 1.0, overlap=0.2), 6)     # s
    0.1
    """
    comm = as_nonnegative("comm_time", comm_time, "seconds")
    comp = as_positive("compute_time", compute_time, "seconds")
    ov = as_fraction("overlap", overlap, 0.0, 1.0, low_open=False)
    out = comm - np.minimum(comm, ov * comp)
    return float(out) if np.ndim(out) == 0 else out


def efficiency(compute_time, comm_time, overlap=0.0):
    """Parallel efficiency ``T_compute / (T_compute + T_exposed)``, in (0, 1].

    References
    ----------
    The seed article's model, section 5: effective speed-up ~ compute / (compute + waiting
    for communication); Shoeybi et al. (2019) report scaling efficiency the same way.

    Examples
    --------
    >>> efficiency(1.0, 0.25)                  # 1 s compute, 0.25 s communication, none hidden
    0.8
    >>> efficiency(1.0, 0.25, overlap=1.0)     # all of it hidden behind the compute
    1.0
    """
    comp = as_positive("compute_time", compute_time, "seconds")
    out = comp / (comp + exposed_communication(comm_time, comp, overlap))
    return float(out) if np.ndim(out) == 0 else out


def _gemm_efficiency(gemm_efficiency, achieved_fraction):
    """The fraction of peak, validated under the name the caller used (the older name too).

    There is no default: a fraction of peak is a claim about a GPU and its kernels, and each
    caller says which one it makes.
    """
    if gemm_efficiency is None and achieved_fraction is None:
        raise TypeError("gemm_efficiency is required: the fraction of peak the GEMMs reach, e.g. "
                        "interconnect.parallel.ceiling_fraction(gpu) (the GPU's measured GEMM ceiling) or "
                        "interconnect.parallel.CALIBRATED_GEMM_EFFICIENCY (fitted on the 2021 DGX A100 runs)")
    if achieved_fraction is None:
        return as_fraction("gemm_efficiency", gemm_efficiency)
    return as_fraction("achieved_fraction", achieved_fraction)


def dp_step(n_params, p, tokens_per_gpu, peak_flops, bandwidth, latency, gemm_efficiency=None,
            grad_bytes=2.0, overlap=0.0, algorithm="ring", *, achieved_fraction=None):
    """One data-parallel training step: compute, gradient allreduce, efficiency, MFU.

    Each of ``p`` GPUs holds the whole model, processes ``tokens_per_gpu`` tokens
    (``6 N`` FLOP each at ``gemm_efficiency`` of peak), then all GPUs allreduce the
    gradients (``grad_bytes * N`` bytes) over links of ``bandwidth`` per direction.

    Parameters
    ----------
    n_params : float
        Parameters N.
    p : int or array
        GPUs, >= 1.
    tokens_per_gpu : float
        Tokens per GPU per step.
    peak_flops : float
        Dense peak per GPU, FLOP/s.
    bandwidth : float or array
        Per-direction bandwidth per GPU, bytes/s.
    latency : float or array
        Per-message latency, s.
    gemm_efficiency : float
        Fraction of peak that the compute kernels reach, (0, 1]; required (no default). The
        GPU's measured GEMM ceiling is :func:`~interconnect.parallel.gemm.ceiling_fraction`.
    grad_bytes : float
        Bytes per gradient element (2 for BF16).
    overlap : float
        Fraction of compute the allreduce may overlap with, [0, 1].
    algorithm : str
        Allreduce algorithm for :func:`interconnect.collectives.collective_time`.
    achieved_fraction : float, optional
        The older name of ``gemm_efficiency``, accepted for one release.

    Returns
    -------
    dict
        ``compute``, ``comm``, ``exposed``, ``step`` (s), ``efficiency``, ``speedup``
        (over one GPU doing the same per-GPU work), ``mfu``.

    Examples
    --------
    A 6.7B model on 8 A100s (312 TFLOP/s, half of it reached) with 8,192 tokens per GPU:
    over NVLink 3 (300 GB/s) the allreduce is cheap; over one HDR NIC per GPU (25 GB/s) on
    64 GPUs it costs a third of the step:

    >>> nvl = dp_step(6.7e9, 8, 8192, 312e12, 300e9, 1e-6, gemm_efficiency=0.5)
    >>> ib = dp_step(6.7e9, 64, 8192, 312e12, 25e9, 5e-6, gemm_efficiency=0.5)
    >>> round(nvl["compute"], 2), round(nvl["efficiency"], 3), round(ib["efficiency"], 3)   # s; fractions
    (2.11, 0.964, 0.667)
    """
    n = as_positive("n_params", n_params)
    p = as_count("p", p)
    tok = as_positive("tokens_per_gpu", tokens_per_gpu, "tokens")
    peak = as_positive("peak_flops", peak_flops, "FLOP/s")
    frac = _gemm_efficiency(gemm_efficiency, achieved_fraction)
    gb = as_positive("grad_bytes", grad_bytes, "bytes")
    compute = 6.0 * n * tok / (peak * frac)
    comm = collective_time("allreduce", gb * n, p, bandwidth, latency, algorithm)
    exposed = exposed_communication(comm, compute, overlap)
    step = compute + exposed
    eff = compute / step
    return {
        "compute": compute, "comm": comm, "exposed": exposed, "step": step,
        "efficiency": eff, "speedup": p * eff, "mfu": frac * eff,
    }


def dp_break_even_tokens(peak_flops, bandwidth, p, gemm_efficiency=None, grad_bytes=2.0, *, achieved_fraction=None):
    """Tokens per GPU per step at which a ring allreduce of the gradients takes as long
    as the compute (bandwidth terms only, no overlap).

    Compute is ``6 N t / (F f)`` for ``t`` tokens; the ring allreduce moves
    ``2 (p-1)/p * g N`` bytes per GPU at ``B`` bytes/s. Setting them equal, ``N``
    cancels:

    ``t* = 2 (p-1)/p * g * F f / (6 B) = (p-1)/p * g F f / (3 B)``.

    Below ``t*`` tokens per GPU the step is communication-bound; the model's size does
    not matter, only the ratio of compute speed to link bandwidth.

    Parameters
    ----------
    peak_flops : float or array
        Dense peak per GPU F, FLOP/s.
    bandwidth : float or array
        Per-direction bandwidth per GPU B, bytes/s.
    p : int or array
        GPUs, >= 2.
    gemm_efficiency : float
        f, fraction of peak the compute reaches, (0, 1]; required (no default). The GPU's
        measured GEMM ceiling is :func:`~interconnect.parallel.gemm.ceiling_fraction`.
    grad_bytes : float
        g, bytes per gradient element.
    achieved_fraction : float, optional
        The older name of ``gemm_efficiency``, accepted for one release.

    Returns
    -------
    float or ndarray
        Tokens per GPU per step.

    Examples
    --------
    H100 (989.4 TFLOP/s) at its measured GEMM ceiling with one 50 GB/s NDR NIC per GPU, 64
    ranks, BF16 gradients: below about 10,400 tokens per GPU per step the gradient allreduce
    outlasts the compute, whatever the model's size:

    >>> from interconnect.parallel.gemm import ceiling_fraction
    >>> round(ceiling_fraction("H100"), 3)
    0.803
    >>> round(dp_break_even_tokens(989.4e12, 50e9, 64, ceiling_fraction("H100")))
    10428
    """
    peak = as_positive("peak_flops", peak_flops, "FLOP/s")
    bw = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    p = as_count("p", p, minimum=2)
    frac = _gemm_efficiency(gemm_efficiency, achieved_fraction)
    g = as_positive("grad_bytes", grad_bytes, "bytes")
    out = (np.asarray(p) - 1) / np.asarray(p) * g * peak * frac / (3.0 * bw)
    return float(out) if np.ndim(out) == 0 else out


def pipeline_bubble_fraction(stages, microbatches, chunks=1):
    """Pipeline bubble time over ideal compute time: ``(p - 1) / (v m)``.

    For GPipe and for 1F1B (PipeDream-Flush) schedules with ``p`` stages and ``m``
    microbatches the bubble is ``(p - 1)(t_f + t_b)`` against ``m (t_f + t_b)`` of
    useful work; the interleaved 1F1B schedule with ``v`` model chunks per stage
    divides it by ``v`` (and needs ``m`` a multiple of ``p``).

    Parameters
    ----------
    stages : int or array
        Pipeline stages p, >= 1.
    microbatches : int or array
        Microbatches per step m, >= 1.
    chunks : int or array
        Model chunks per stage v (1: not interleaved), >= 1.

    Returns
    -------
    float or ndarray
        The bubble as a fraction of the ideal compute time (not of the step).

    References
    ----------
    D. Narayanan et al., "Efficient Large-Scale Language Model Training on GPU Clusters
    Using Megatron-LM", SC21 (arXiv:2104.04473), sec. 2.2.1 and 2.2.2.

    Examples
    --------
    4 stages and 16 microbatches: ``3/16``; two interleaved chunks halve it (Narayanan et
    al. 2021, sec. 2.2):

    >>> pipeline_bubble_fraction(4, 16), pipeline_bubble_fraction(4, 16, chunks=2)
    (0.1875, 0.09375)
    """
    p = as_count("stages", stages, minimum=1)
    m = as_count("microbatches", microbatches, minimum=1)
    v = as_count("chunks", chunks, minimum=1)
    if np.any((np.asarray(v) > 1) & (np.asarray(m) % np.asarray(p) != 0)):
        raise ValueError(f"microbatches={microbatches!r} must be a multiple of stages={stages!r} "
                         "for the interleaved schedule (chunks > 1)")
    out = (np.asarray(p) - 1) / (np.asarray(v) * np.asarray(m))
    return float(out) if np.ndim(out) == 0 else out.astype(float)
