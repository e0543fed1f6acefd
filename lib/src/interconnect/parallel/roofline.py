"""A roofline for communication: compute per byte moved over a link, against the ridge."""

from __future__ import annotations

import numpy as np

from .._validate import as_count, as_positive

__all__ = ["attainable_flops", "ridge_intensity", "tp_comm_intensity", "dp_comm_intensity"]


def attainable_flops(peak_flops, memory_intensity=None, memory_bandwidth=None,
                     comm_intensity=None, comm_bandwidth=None):
    """Roofline: the compute rate a kernel or a step can reach, FLOP/s.

    ``min(peak, I_mem B_mem, I_comm B_comm)``: the classic memory roof of Williams et al.
    (2009) plus a second roof for the bytes each GPU must *send* over the interconnect.
    A roof whose intensity and bandwidth are both None is left out.

    Parameters
    ----------
    peak_flops : float or array
        Peak (dense) FLOP/s of one GPU, > 0.
    memory_intensity : float or array, optional
        FLOPs per byte read from or written to the GPU's own memory, > 0.
    memory_bandwidth : float or array, optional
        The GPU's memory bandwidth, bytes/s, > 0 (HBM: reads and writes share it).
    comm_intensity : float or array, optional
        FLOPs per byte the GPU sends over the interconnect, > 0.
    comm_bandwidth : float or array, optional
        Per-direction bandwidth of the GPU's link, bytes/s, > 0.

    Returns
    -------
    float or ndarray : FLOP/s.

    References
    ----------
    Williams, Waterman, Patterson (2009), "Roofline: an insightful visual performance
    model for multicore architectures", CACM 52(4).

    Examples
    --------
    >>> attainable_flops(312e12, memory_intensity=100, memory_bandwidth=2039e9) / 1e12   # TFLOP/s, memory-bound
    203.9
    >>> attainable_flops(989e12, comm_intensity=1000, comm_bandwidth=50e9) / 1e12       # TFLOP/s, link-bound
    50.0
    """
    out = as_positive("peak_flops", peak_flops, "FLOP/s")
    for iname, bname, i, b in (("memory_intensity", "memory_bandwidth", memory_intensity, memory_bandwidth),
                               ("comm_intensity", "comm_bandwidth", comm_intensity, comm_bandwidth)):
        if i is None and b is None:
            continue
        if i is None or b is None:
            raise ValueError(f"{iname}={i!r} and {bname}={b!r}: give both or neither")
        out = np.minimum(out, as_positive(iname, i, "FLOP per byte") * as_positive(bname, b, "bytes/s"))
    return float(out) if np.ndim(out) == 0 else out


def ridge_intensity(peak_flops, bandwidth):
    """Intensity (FLOP per byte) at which a roof meets the compute peak: ``peak / B``.

    Below it the bytes bind; above it the compute does.

    Parameters
    ----------
    peak_flops : float or array
        FLOP/s, > 0.
    bandwidth : float or array
        Bytes/s, > 0 (per direction for a link).

    Examples
    --------
    An A100 (312 TFLOP/s) needs 153 FLOPs per byte of HBM (2,039 GB/s) to be compute-bound,
    and 12,480 per byte sent over a 25 GB/s HDR NIC:

    >>> round(ridge_intensity(312e12, 2039e9)), round(ridge_intensity(312e12, 25e9))
    (153, 12480)
    """
    out = as_positive("peak_flops", peak_flops, "FLOP/s") / as_positive("bandwidth", bandwidth, "bytes/s")
    return float(out) if np.ndim(out) == 0 else out


def tp_comm_intensity(hidden, tp):
    """FLOPs per byte sent of a Megatron tensor-parallel transformer layer: ``3h/(t-1)``.

    Per token and layer each of the ``t`` GPUs does ``24 h^2 / t`` FLOPs in the forward
    pass (the ``12 h^2`` weights of attention and MLP, two FLOPs per weight; attention
    scores left out) and takes part in two ring AllReduces of ``2h`` bytes (BF16), each
    sending ``2 (t-1)/t`` of the message per GPU: ``8 h (t-1)/t`` bytes. This is the forward
    pass: the backward pass doubles the FLOPs but adds only two more AllReduces of the same
    size (the ``f`` operators), so a training step without recomputation has 1.5 times this
    intensity (4/3 with full recomputation). It does not depend on the batch:
    bigger batches do not help tensor parallelism's ratio.

    Parameters
    ----------
    hidden : int or array
        Hidden size h, >= 1.
    tp : int or array
        Tensor-parallel degree t, >= 2.

    References
    ----------
    Shoeybi et al. (2019), Megatron-LM, Section 3 (two AllReduces per layer, forward).

    Examples
    --------
    GPT-3 175B (h = 12,288) with 8-way tensor parallelism, ``3h/(t-1)``: above the
    NVLink 3 ridge (312 TFLOP/s / 300 GB/s = 1,040), below the HDR NIC's (12,480), so TP
    stays inside the node:

    >>> round(tp_comm_intensity(12288, 8))    # FLOPs per byte sent
    5266
    """
    h = as_count("hidden", hidden)
    t = as_count("tp", tp, minimum=2)
    out = 3.0 * np.asarray(h, dtype=float) / (np.asarray(t, dtype=float) - 1.0)
    return float(out) if np.ndim(out) == 0 else out


def dp_comm_intensity(tokens_per_gpu, p, grad_bytes=2.0):
    """FLOPs per byte sent of a data-parallel step: ``3 T p / (g (p-1))``.

    A step does ``6 N T`` FLOPs per GPU for ``T`` tokens and a ring AllReduce of the
    ``g N`` gradient bytes sends ``2 (p-1)/p g N`` bytes per GPU; ``N`` cancels.

    Parameters
    ----------
    tokens_per_gpu : float or array
        Tokens each GPU processes per step, > 0.
    p : int or array
        Data-parallel ranks, >= 2.
    grad_bytes : float
        Bytes per gradient value, > 0 (2 for BF16, 4 for FP32).

    Examples
    --------
    >>> round(dp_comm_intensity(8192, 64))    # FLOPs per byte sent, 8,192 tokens per GPU, BF16 gradients
    12483
    """
    tok = as_positive("tokens_per_gpu", tokens_per_gpu, "tokens")
    pp = np.asarray(as_count("p", p, minimum=2), dtype=float)
    g = as_positive("grad_bytes", grad_bytes, "bytes")
    out = 3.0 * tok * pp / (g * (pp - 1.0))
    return float(out) if np.ndim(out) == 0 else out
