"""Parallel training meets the interconnect: FLOPs, MFU, and the efficiency model.

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

from ._validate import as_count, as_fraction, as_nonnegative, as_positive
from .collectives import collective_time

__all__ = ["model_flops_per_token", "mfu", "exposed_communication", "efficiency", "dp_step", "dp_break_even_tokens",
           "pipeline_bubble_fraction", "transformer_params", "iteration_flops"]


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
    """
    comp = as_positive("compute_time", compute_time, "seconds")
    out = comp / (comp + exposed_communication(comm_time, comp, overlap))
    return float(out) if np.ndim(out) == 0 else out


def dp_step(n_params, p, tokens_per_gpu, peak_flops, bandwidth, latency, achieved_fraction=0.5,
            grad_bytes=2.0, overlap=0.0, algorithm="ring"):
    """One data-parallel training step: compute, gradient allreduce, efficiency, MFU.

    Each of ``p`` GPUs holds the whole model, processes ``tokens_per_gpu`` tokens
    (``6 N`` FLOP each at ``achieved_fraction`` of peak), then all GPUs allreduce the
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
    achieved_fraction : float
        Fraction of peak that the compute kernels reach (0, 1].
    grad_bytes : float
        Bytes per gradient element (2 for BF16).
    overlap : float
        Fraction of compute the allreduce may overlap with, [0, 1].
    algorithm : str
        Allreduce algorithm for :func:`interconnect.collectives.collective_time`.

    Returns
    -------
    dict
        ``compute``, ``comm``, ``exposed``, ``step`` (s), ``efficiency``, ``speedup``
        (over one GPU doing the same per-GPU work), ``mfu``.
    """
    n = as_positive("n_params", n_params)
    p = as_count("p", p)
    tok = as_positive("tokens_per_gpu", tokens_per_gpu, "tokens")
    peak = as_positive("peak_flops", peak_flops, "FLOP/s")
    frac = as_fraction("achieved_fraction", achieved_fraction)
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


def dp_break_even_tokens(peak_flops, bandwidth, p, achieved_fraction=0.5, grad_bytes=2.0):
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
    achieved_fraction : float
        f, fraction of peak the compute reaches.
    grad_bytes : float
        g, bytes per gradient element.

    Returns
    -------
    float or ndarray
        Tokens per GPU per step.
    """
    peak = as_positive("peak_flops", peak_flops, "FLOP/s")
    bw = as_positive("bandwidth", bandwidth, "bytes/s (per direction)")
    p = as_count("p", p, minimum=2)
    frac = as_fraction("achieved_fraction", achieved_fraction)
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
    """
    p = as_count("stages", stages, minimum=1)
    m = as_count("microbatches", microbatches, minimum=1)
    v = as_count("chunks", chunks, minimum=1)
    if np.any((np.asarray(v) > 1) & (np.asarray(m) % np.asarray(p) != 0)):
        raise ValueError(f"microbatches={microbatches!r} must be a multiple of stages={stages!r} "
                         "for the interleaved schedule (chunks > 1)")
    out = (np.asarray(p) - 1) / (np.asarray(v) * np.asarray(m))
    return float(out) if np.ndim(out) == 0 else out.astype(float)


def transformer_params(layers, hidden, vocab, seq_len):
    """Parameters of a GPT-style transformer: ``12 l h^2 (1 + 13/(12 h) + (V + s)/(12 l h))``.

    Attention and MLP weights and biases (``12 h^2 + 13 h`` per layer), the token
    embedding ``V h`` and the learned position embedding ``s h``.

    Parameters
    ----------
    layers, hidden, vocab, seq_len : int
        l, h, V, s; all >= 1.

    References
    ----------
    Narayanan et al. (2021), eq. (2) and Table 1.
    """
    L = as_count("layers", layers)
    h = as_count("hidden", hidden)
    V = as_count("vocab", vocab)
    s = as_count("seq_len", seq_len)
    out = 12.0 * np.asarray(L) * np.asarray(h, dtype=float) ** 2 * (
        1.0 + 13.0 / (12.0 * np.asarray(h)) + (np.asarray(V) + np.asarray(s)) / (12.0 * np.asarray(L) * np.asarray(h)))
    return float(out) if np.ndim(out) == 0 else out


def iteration_flops(batch, seq_len, layers, hidden, vocab, recompute=True):
    """FLOPs of one training iteration of a GPT-style transformer (matrix multiplies only).

    ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))`` with full activation recomputation
    (an extra forward pass, so 4 passes' worth); without recomputation the factor is
    72 instead of 96 and the logit term ``V/(12 l h)`` (Korthikanti et al. 2022, App. A).

    Parameters
    ----------
    batch : int
        Global batch size B, in sequences.
    seq_len, layers, hidden, vocab : int
    recompute : bool
        Count the recomputed forward pass (hardware FLOPs, Narayanan's eq. 3) if True;
        model FLOPs otherwise.

    References
    ----------
    Narayanan et al. (2021), eq. (3); Korthikanti et al. (2022), Appendix A.
    """
    B = as_count("batch", batch)
    s = as_count("seq_len", seq_len)
    L = as_count("layers", layers)
    h = as_count("hidden", hidden)
    V = as_count("vocab", vocab)
    hf = np.asarray(h, dtype=float)
    if recompute:
        out = 96.0 * B * s * L * hf**2 * (1.0 + s / (6.0 * hf) + V / (16.0 * L * hf))
    else:
        out = 72.0 * B * s * L * hf**2 * (1.0 + s / (6.0 * hf) + V / (12.0 * L * hf))
    return float(out) if np.ndim(out) == 0 else out


# =========================================================================================
# The step-time model of a 3D/4D-parallel (PTD-P + EP + ZeRO) transformer training step
# =========================================================================================
#
# One training iteration on ``n = dp * tp * pp`` GPUs is costed as
#
#     total = compute + tp_comm + bubble + pp_comm + ep_comm + dp_comm_exposed
#
# * compute: iteration FLOPs (with the recomputation of the layout) over
#   ``n * peak_flops * gemm_efficiency``;
# * tp_comm: the tensor-parallel AllReduces (or ReduceScatter + AllGather pairs with sequence
#   parallelism) inside every layer, on the critical path (Megatron does not overlap them);
# * bubble: ``pipeline_bubble_fraction(pp, m, chunks) * (compute + tp_comm)`` (the bubble is
#   idle time measured in units of the per-microbatch stage time, which includes TP comm;
#   Narayanan et al. 2021, eq. 1);
# * pp_comm: point-to-point activations and gradients between stages;
# * ep_comm: expert-parallel AllToAlls of MoE layers;
# * dp_comm_exposed: the gradient AllReduce (ZeRO: ReduceScatter/AllGather) left after the
#   part that overlaps with the backward pass of the last microbatch.
#
# Each collective is costed with :func:`interconnect.collectives.collective_time` (ring) on
# the link the group really spans (see ``_group_link``), at ``comm_efficiency`` of the link
# peak.

from dataclasses import dataclass, field, replace  # noqa: E402

from . import memory as _memory  # noqa: E402

__all__ += ["Layout", "ModelConfig", "Cluster", "StepTime", "Plan", "RECOMPUTE_MODES",
            "CALIBRATED_GEMM_EFFICIENCY", "CALIBRATED_COMM_EFFICIENCY", "selective_recompute_overhead",
            "step_flops", "stage_params", "elementwise_time", "tp_comm_time", "pp_comm_time", "dp_comm_time", "ep_comm_time", "step_time",
            "dp_wire_bytes", "effective_bandwidth",
            "plan", "layout_memory", "ValidationRow", "VALIDATION_ROWS", "validation_layout", "predict_row",
            "calibrate", "validation_table"]

RECOMPUTE_MODES = ("none", "selective", "full")

#: Fraction of the dense peak the GEMMs reach, fitted once (least squares on log error) over
#: all 18 rows of :data:`VALIDATION_ROWS` by :func:`calibrate` (fit: 0.7153; rms log error
#: 4.7 %, worst row 9.3 %). With the HBM-bound element-wise time costed separately.
CALIBRATED_GEMM_EFFICIENCY = 0.715
#: Fraction of the per-direction link peak the collectives reach, fitted together with the
#: above (fit: 0.5682). For comparison nccl-tests all-reduce busbw on 8xA100 is 78 % of
#: 300 GB/s (REFERENCES.md sec. 4); the fit also absorbs what the model leaves out
#: (kernel launch gaps, contention of TP and PP traffic, imperfect overlap).
CALIBRATED_COMM_EFFICIENCY = 0.568


def _check_bool(name, value):
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"{name}={value!r} is not a bool; allowed True or False")
    return bool(value)


def _scalar_count(name, value, minimum=1):
    if np.ndim(value) != 0:
        raise ValueError(f"{name}={value!r} must be a single integer >= {minimum}, not an array")
    return as_count(name, value, minimum)


@dataclass(frozen=True)
class Layout:
    """How one training job is split over GPUs (Megatron-LM PTD-P, plus EP and ZeRO).

    Parameters
    ----------
    dp, tp, pp : int
        Data-, tensor- and pipeline-parallel sizes, each >= 1; the job uses
        ``dp * tp * pp`` GPUs.
    ep : int
        Expert-parallel size, >= 1 and a divisor of ``dp`` (experts are spread over
        data-parallel ranks, as in Megatron-Core / DeepSpeed-MoE).
    microbatch : int
        Microbatch size b, in sequences, >= 1.
    chunks : int
        Model chunks per pipeline stage v of the interleaved 1F1B schedule (1: plain
        1F1B); > 1 needs ``pp > 1``.
    sequence_parallel : bool
        Megatron sequence parallelism (Korthikanti et al. 2022): the TP AllReduces become
        ReduceScatter + AllGather pairs of the same bytes.
    recompute : {"none", "selective", "full"}
        Activation recomputation.
    zero_stage : {0, 1, 2, 3}
        ZeRO partitioning over the ``dp`` ranks (Rajbhandari et al. 2020).
    dp_overlap : float
        Fraction in [0, 1] of the backward pass of the *last* microbatch during which
        the gradient reduction can run in the background (bucketed DDP); 0 (default) is
        Megatron-LM as of Narayanan et al. (2021), which reduced after the backward pass.
    bucket_bytes : float
        Gradient bucket size, bytes > 0 (default 25 MB, PyTorch DDP ``bucket_cap_mb``);
        each bucket is one collective, so it sets how many latencies are paid.
    scatter_gather : bool
        The scatter/gather optimisation of Narayanan et al. (2021, sec. 4.1): across nodes
        each of the ``tp`` ranks sends ``1/tp`` of the activation, then an NVLink AllGather.

    Raises
    ------
    ValueError
        Naming the parameter, its value and the allowed range.
    """

    dp: int
    tp: int
    pp: int
    ep: int = 1
    microbatch: int = 1
    chunks: int = 1
    sequence_parallel: bool = True
    recompute: str = "selective"
    zero_stage: int = 0
    dp_overlap: float = 0.0
    bucket_bytes: float = 25e6
    scatter_gather: bool = True

    def __post_init__(self):
        for name in ("dp", "tp", "pp", "ep", "microbatch", "chunks"):
            object.__setattr__(self, name, _scalar_count(name, getattr(self, name)))
        if self.dp % self.ep:
            raise ValueError(f"ep={self.ep!r} is not allowed; ep must divide dp={self.dp} "
                             "(experts are spread over data-parallel ranks)")
        if self.chunks > 1 and self.pp == 1:
            raise ValueError(f"chunks={self.chunks!r} is not allowed with pp=1; the interleaved schedule needs pp > 1")
        object.__setattr__(self, "sequence_parallel", _check_bool("sequence_parallel", self.sequence_parallel))
        object.__setattr__(self, "scatter_gather", _check_bool("scatter_gather", self.scatter_gather))
        if self.recompute not in RECOMPUTE_MODES:
            raise ValueError(f"recompute={self.recompute!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
        z = _scalar_count("zero_stage", self.zero_stage, minimum=0)
        if z > 3:
            raise ValueError(f"zero_stage={self.zero_stage!r} is not allowed; allowed 0, 1, 2 or 3")
        object.__setattr__(self, "zero_stage", z)
        object.__setattr__(self, "dp_overlap",
                           float(as_fraction("dp_overlap", self.dp_overlap, 0.0, 1.0, low_open=False)))
        object.__setattr__(self, "bucket_bytes", float(as_positive("bucket_bytes", self.bucket_bytes, "bytes")))

    @property
    def n_gpus(self):
        """GPUs used, ``dp * tp * pp``."""
        return self.dp * self.tp * self.pp

    def microbatches(self, global_batch):
        """Microbatches per pipeline per step, ``m = B / (b * dp)`` (Narayanan et al. 2021, sec. 3.1)."""
        B = _scalar_count("global_batch", global_batch)
        if B % (self.microbatch * self.dp):
            raise ValueError(f"global_batch={B} is not divisible by microbatch * dp = "
                             f"{self.microbatch} * {self.dp}; allowed: multiples of {self.microbatch * self.dp}")
        return B // (self.microbatch * self.dp)

    def label(self):
        """Short text such as ``dp=4 tp=8 pp=2 b=1``."""
        extra = "".join([f" ep={self.ep}" if self.ep > 1 else "", f" v={self.chunks}" if self.chunks > 1 else "",
                         f" zero={self.zero_stage}" if self.zero_stage else ""])
        return f"dp={self.dp} tp={self.tp} pp={self.pp} b={self.microbatch}{extra}"


@dataclass(frozen=True)
class ModelConfig:
    """A GPT-style dense transformer (optionally with MoE layers) and its global batch.

    Parameters
    ----------
    layers, hidden, heads, seq_len, vocab : int
        l, h, a, s, V; all >= 1; ``hidden`` must be divisible by ``heads``.
    global_batch : int
        B, sequences per iteration, >= 1.
    moe_layers : int
        Layers whose MLP is a mixture of experts (their tokens cross the EP group by
        AllToAll), 0 <= moe_layers <= layers. FLOPs are counted as for a dense model
        (top-1 routing, one expert of the dense MLP's size per token).
    name : str
        For tables.
    """

    layers: int
    hidden: int
    heads: int
    seq_len: int
    vocab: int
    global_batch: int
    moe_layers: int = 0
    name: str = ""

    def __post_init__(self):
        for n in ("layers", "hidden", "heads", "seq_len", "vocab", "global_batch"):
            object.__setattr__(self, n, _scalar_count(n, getattr(self, n)))
        object.__setattr__(self, "moe_layers", _scalar_count("moe_layers", self.moe_layers, minimum=0))
        if self.moe_layers > self.layers:
            raise ValueError(f"moe_layers={self.moe_layers} is not allowed; allowed 0 to layers={self.layers}")
        if self.hidden % self.heads:
            raise ValueError(f"hidden={self.hidden} is not divisible by heads={self.heads}")

    @property
    def params(self):
        """Parameters, Narayanan et al. (2021) eq. (2): :func:`transformer_params`."""
        return transformer_params(self.layers, self.hidden, self.vocab, self.seq_len)

    def model_flops(self):
        """Model FLOPs of one iteration (no recomputation): ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))``."""
        return iteration_flops(self.global_batch, self.seq_len, self.layers, self.hidden, self.vocab, recompute=False)


@dataclass(frozen=True)
class Cluster:
    """The machine: GPUs per node, their peak, the two levels of links and the efficiencies.

    Parameters
    ----------
    gpus_per_node : int
        GPUs sharing the fast intra-node domain (NVLink/NVSwitch), >= 1.
    peak_flops : float
        Dense 16-bit peak per GPU, FLOP/s.
    intra_bandwidth, intra_latency : float
        Per-GPU per-direction NVLink bandwidth (bytes/s) and per-message latency (s).
    inter_bandwidth, inter_latency : float
        Per-GPU per-direction network bandwidth (one NIC per GPU, bytes/s) and latency (s).
    gemm_efficiency : float
        Fraction of ``peak_flops`` the training FLOPs run at, (0, 1].
    comm_efficiency : float
        Fraction of the link peak bandwidth the collectives reach, (0, 1].
    memory_bandwidth : float, optional
        HBM bandwidth per GPU, bytes/s. If given, the memory-bound element-wise work
        (layer norms, GeLU, dropout, softmax) is costed as well: see
        :func:`elementwise_time`. None (default) leaves it out.
    """

    gpus_per_node: int
    peak_flops: float
    intra_bandwidth: float
    intra_latency: float
    inter_bandwidth: float
    inter_latency: float
    gemm_efficiency: float
    comm_efficiency: float
    memory_bandwidth: float | None = None

    def __post_init__(self):
        if self.memory_bandwidth is not None:
            object.__setattr__(self, "memory_bandwidth",
                               float(as_positive("memory_bandwidth", self.memory_bandwidth, "bytes/s")))
        object.__setattr__(self, "gpus_per_node", _scalar_count("gpus_per_node", self.gpus_per_node))
        for n, unit in (("peak_flops", "FLOP/s"), ("intra_bandwidth", "bytes/s"), ("inter_bandwidth", "bytes/s")):
            object.__setattr__(self, n, float(as_positive(n, getattr(self, n), unit)))
        for n in ("intra_latency", "inter_latency"):
            object.__setattr__(self, n, float(as_nonnegative(n, getattr(self, n), "seconds")))
        for n in ("gemm_efficiency", "comm_efficiency"):
            object.__setattr__(self, n, float(as_fraction(n, getattr(self, n))))

    @classmethod
    def from_links(cls, gpu, intra, inter, gpus_per_node=8, gemm_efficiency=None, comm_efficiency=None,
                   intra_latency=None, inter_latency=None, memory_bandwidth="gpu"):
        """A machine described by names: a GPU from :mod:`interconnect.devices` and two links from
        :mod:`interconnect.links`.

        Parameters
        ----------
        gpu : str or GPU
            ``"A100"``, ``"H100"``, ... (:func:`interconnect.devices.get_gpu`); gives
            ``peak_flops`` and ``memory_bandwidth``.
        intra, inter : str, Link or float
            The link inside a node (per GPU, e.g. ``"nvlink3"``) and between nodes (one NIC per
            GPU, e.g. ``"ib-hdr"``): a catalog name (:func:`interconnect.links.get_link`), a
            :class:`~interconnect.links.Link`, or a number, an effective bandwidth in bytes/s per
            direction (such as a simulated ring's bus bandwidth); a number needs its latency.
        gpus_per_node : int
            GPUs in the fast intra-node domain, >= 1 (default 8).
        gemm_efficiency, comm_efficiency : float, optional
            Default: the calibrated :data:`CALIBRATED_GEMM_EFFICIENCY` and
            :data:`CALIBRATED_COMM_EFFICIENCY` (fitted on DGX A100).
        intra_latency, inter_latency : float, optional
            Seconds; default the link's ``latency``. Required where the link is a number.
        memory_bandwidth : float or None, optional
            HBM bytes/s; default the GPU's, None leaves the element-wise time out.

        Returns
        -------
        Cluster

        Raises
        ------
        ValueError
            For an unknown GPU or link name, or a bandwidth number without its latency.

        Examples
        --------
        >>> hgx = Cluster.from_links("H100", "nvlink4", "ib-ndr")
        >>> hgx.gpus_per_node, hgx.peak_flops / 1e12, hgx.intra_bandwidth / 1e9, hgx.inter_bandwidth / 1e9
        (8, 989.4, 450.0, 50.0)
        >>> Cluster.from_links("A100", "nvlink3", "ib-hdr") == Cluster.dgx_a100()
        True
        >>> Cluster.from_links("A100", 20.8e9, "ib-hdr", intra_latency=1e-6).intra_bandwidth / 1e9
        20.8
        """
        from .devices import GPU, get_gpu

        g = gpu if isinstance(gpu, GPU) else get_gpu(gpu)
        intra_bw, intra_lat = _link_terms("intra", intra, intra_latency)
        inter_bw, inter_lat = _link_terms("inter", inter, inter_latency)
        return cls(gpus_per_node, g.peak_flops, intra_bw, intra_lat, inter_bw, inter_lat,
                   CALIBRATED_GEMM_EFFICIENCY if gemm_efficiency is None else gemm_efficiency,
                   CALIBRATED_COMM_EFFICIENCY if comm_efficiency is None else comm_efficiency,
                   g.memory_bandwidth if isinstance(memory_bandwidth, str) and memory_bandwidth == "gpu"
                   else memory_bandwidth)

    @classmethod
    def dgx_a100(cls, gemm_efficiency=None, comm_efficiency=None, nodes_link="ib-hdr"):
        """DGX A100 nodes as on Selene (Narayanan et al. 2021, sec. 5; Korthikanti et al. 2022):
        8 A100 (312 TFLOP/s dense BF16, :mod:`interconnect.devices`), NVLink 3 through NVSwitch
        (300 GB/s per direction per GPU, ``links.nvlink3``) and one HDR InfiniBand NIC per GPU
        (25 GB/s per direction, ``links.ib-hdr``), 2,039 GB/s HBM2e. Efficiencies default to the
        calibrated ones. The same as ``Cluster.from_links("A100", "nvlink3", nodes_link)``."""
        return cls.from_links("A100", "nvlink3", nodes_link, gpus_per_node=8, gemm_efficiency=gemm_efficiency,
                              comm_efficiency=comm_efficiency)


def _link_terms(which, link, latency):
    """(bandwidth, latency) of a link given by name, as a Link, or as a bandwidth number."""
    from .links import Link, get_link

    if isinstance(link, str):
        link = get_link(link)
    if isinstance(link, Link):
        return link.bandwidth, link.latency if latency is None else latency
    if isinstance(link, (bool, np.bool_)) or not isinstance(link, (int, float, np.integer, np.floating)):
        raise ValueError(f"{which}={link!r} is not a link; allowed a name from interconnect.links "
                         "(e.g. 'nvlink3'), a Link, or a bandwidth in bytes/s")
    if latency is None:
        raise ValueError(f"{which}={link!r} is a bandwidth number without a latency; pass {which}_latency= (seconds)")
    return float(link), latency


def selective_recompute_overhead(seq_len, hidden):
    """Extra FLOPs of selective recomputation, as a fraction of the model FLOPs: ``s / (6 h + s)``.

    The recomputed attention core (``Q K^T`` and ``softmax . V``, ``4 b s^2 h`` FLOPs per
    layer) over one forward pass of a layer (``24 b s h^2 + 4 b s^2 h``). This is the
    accounting of Korthikanti et al. (2022): it gives their 2.7 % for GPT-3 175B and
    1.6 % for MT-NLG 530B (sec. 5), and their Table 5 HFU/MFU ratios of all four models
    (1.053, 1.027, 1.016, 1.013) to the printed digits. (Counted against the full
    forward + backward it would be a third of that; the difference is < 2 % of the step.)

    Parameters
    ----------
    seq_len, hidden : int
        s and h, >= 1.

    Returns
    -------
    float
    """
    s = as_count("seq_len", seq_len)
    h = as_count("hidden", hidden)
    return s / (6.0 * h + s)


def step_flops(model, recompute):
    """Hardware FLOPs of one iteration under a recomputation mode.

    * ``"none"``: model FLOPs, 3 passes: ``72 B s l h^2 (1 + s/(6h) + V/(12 l h))``
      (Korthikanti et al. 2022, App. A);
    * ``"selective"``: model FLOPs ``x (1 + s/(6h + s))`` (:func:`selective_recompute_overhead`);
    * ``"full"``: Narayanan et al. (2021) eq. (3), 4 passes: ``96 B s l h^2 (1 + s/(6h) + V/(16 l h))``.

    Parameters
    ----------
    model : ModelConfig
    recompute : {"none", "selective", "full"}

    Returns
    -------
    float
        FLOPs per iteration, whole job.
    """
    if recompute not in RECOMPUTE_MODES:
        raise ValueError(f"recompute={recompute!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
    m = model
    if recompute == "full":
        return iteration_flops(m.global_batch, m.seq_len, m.layers, m.hidden, m.vocab, recompute=True)
    mf = m.model_flops()
    if recompute == "selective":
        return mf * (1.0 + selective_recompute_overhead(m.seq_len, m.hidden))
    return mf


def _group_link(group_size, stride, cluster):
    """(bandwidth, latency) a ring over a group sees, at the cluster's comm efficiency.

    Ranks are numbered TP fastest, then DP, then PP (Megatron-LM's order); a group of
    ``group_size`` ranks ``stride`` apart fits in one node when ``group_size * stride <=
    gpus_per_node`` and then runs on NVLink. Otherwise it has ``k`` members per node and
    NCCL runs one ring channel per NIC, so each member crosses the network at
    ``k * inter_bandwidth`` (capped by NVLink) -- the per-GPU NICs of a node work in parallel.
    """
    g = cluster.gpus_per_node
    eff = cluster.comm_efficiency
    if group_size * stride <= g:
        return cluster.intra_bandwidth * eff, cluster.intra_latency
    k = max(1, min(group_size, g // stride)) if stride < g else 1
    return min(cluster.intra_bandwidth, k * cluster.inter_bandwidth) * eff, cluster.inter_latency


def _check_fit(model, layout):
    if model.heads % layout.tp:
        raise ValueError(f"tp={layout.tp} does not divide heads={model.heads}; allowed: divisors of {model.heads}")
    if model.layers % (layout.pp * layout.chunks):
        raise ValueError(f"pp * chunks = {layout.pp} * {layout.chunks} does not divide layers={model.layers}")
    m = layout.microbatches(model.global_batch)
    if layout.chunks > 1 and m % layout.pp:
        raise ValueError(f"microbatches m={m} is not a multiple of pp={layout.pp}, "
                         "which the interleaved schedule (chunks > 1) needs")
    return m


def _act_bytes(model, layout):
    """Bytes of one microbatch's hidden states: ``s b h * 2`` (16-bit)."""
    return 2.0 * model.seq_len * layout.microbatch * model.hidden


def tp_comm_time(model, layout, cluster):
    """Tensor-parallel communication per step on one GPU, seconds (all on the critical path).

    Per layer and microbatch, 2 AllReduces in the forward and 2 in the backward pass of
    ``2 s b h`` bytes (Shoeybi et al. 2019, sec. 3, Fig. 4); with sequence parallelism each
    AllReduce is a ReduceScatter + AllGather pair of the same bytes (Korthikanti et al.
    2022, sec. 4.2.2), which costs the same under the ring model. Full recomputation
    repeats the forward pass and its 2 AllReduces (6 per layer). Each GPU runs ``l / pp``
    layers for ``m`` microbatches.
    """
    t = layout.tp
    if t == 1:
        return 0.0
    m = _check_fit(model, layout)
    bw, lat = _group_link(t, 1, cluster)
    nbytes = _act_bytes(model, layout)
    if layout.sequence_parallel:
        one = (collective_time("reducescatter", nbytes, t, bw, lat)
               + collective_time("allgather", nbytes, t, bw, lat))
    else:
        one = collective_time("allreduce", nbytes, t, bw, lat)
    per_layer = 6 if layout.recompute == "full" else 4
    return m * (model.layers / layout.pp) * per_layer * one


def pp_comm_time(model, layout, cluster):
    """Pipeline point-to-point communication per step on one GPU, seconds.

    Each stage sends the activation (``2 s b h`` bytes) of every microbatch forward and
    receives its gradient backward: ``2 m`` transfers, ``2 m v`` with ``v`` interleaved
    chunks (Narayanan et al. 2021, sec. 2.2.2). Across nodes with the scatter/gather
    optimisation each TP rank sends ``2 s b h / t`` over its own NIC and an NVLink
    AllGather rebuilds the tensor (sec. 4.1); within a node the transfer is on NVLink.
    """
    p = layout.pp
    if p == 1:
        return 0.0
    m = _check_fit(model, layout)
    stride = layout.tp * layout.dp
    nbytes = _act_bytes(model, layout)
    eff = cluster.comm_efficiency
    if stride * p <= cluster.gpus_per_node:  # the whole pipeline in one node
        one = cluster.intra_latency + nbytes / (cluster.intra_bandwidth * eff)
    elif layout.scatter_gather and layout.tp > 1:
        one = cluster.inter_latency + nbytes / layout.tp / (cluster.inter_bandwidth * eff)
        bw, lat = _group_link(layout.tp, 1, cluster)
        one += collective_time("allgather", nbytes, layout.tp, bw, lat)
    else:
        one = cluster.inter_latency + nbytes / (cluster.inter_bandwidth * eff)
    return 2.0 * m * layout.chunks * one


def _dp_buckets(model, layout):
    """Number of gradient buckets per GPU: BF16 gradients of its shard in ``bucket_bytes`` pieces."""
    total = 2.0 * model.params / (layout.tp * layout.pp)
    return max(1, int(np.ceil(total / layout.bucket_bytes)))


def dp_comm_time(model, layout, cluster):
    """Data-parallel gradient (and ZeRO parameter) communication per step on one GPU, seconds.

    Each GPU holds ``P / (tp pp)`` parameters and reduces ``G = 2 P / (tp pp)`` bytes of
    BF16 gradients over the ``dp`` ranks, in buckets of ``layout.bucket_bytes`` (one
    collective and its latencies per bucket):

    * ZeRO 0: AllReduce of ``G`` (``2 G (dp-1)/dp`` bytes on the wire);
    * ZeRO 1 and 2: ReduceScatter of the gradients + AllGather of the updated parameters,
      the same ``2 G (dp-1)/dp`` (Rajbhandari et al. 2020, sec. 7.2);
    * ZeRO 3: also an AllGather of the parameters before use: ``3 G (dp-1)/dp``, 1.5x
      (sec. 7.2.2). Counted once per step as in the paper; with gradient accumulation a
      real ZeRO-3 regathers per microbatch, so this is a lower bound.
    """
    d = layout.dp
    if d == 1:
        return 0.0
    total = 2.0 * model.params / (layout.tp * layout.pp)
    n_buckets = _dp_buckets(model, layout)
    bucket = total / n_buckets
    bw, lat = _group_link(d, layout.tp, cluster)
    if layout.zero_stage == 0:
        one = collective_time("allreduce", bucket, d, bw, lat)
    else:
        one = (collective_time("reducescatter", bucket, d, bw, lat)
               + collective_time("allgather", bucket, d, bw, lat) * (2 if layout.zero_stage == 3 else 1))
    return n_buckets * one


def dp_wire_bytes(model, layout):
    """Bytes one GPU sends per step (per direction) for its gradient and ZeRO traffic.

    The bandwidth term of :func:`dp_comm_time` counted in bytes rather than seconds: the same
    buckets and the same ring collectives over the ``dp`` ranks, each sending
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
    from .collectives import cost_terms

    d = layout.dp
    if d == 1:
        return 0.0
    total = 2.0 * model.params / (layout.tp * layout.pp)
    n_buckets = _dp_buckets(model, layout)
    bucket = total / n_buckets
    if layout.zero_stage == 0:
        one = cost_terms("allreduce", d, "ring")[1] * bucket
    else:
        one = (cost_terms("reducescatter", d, "ring")[1] * bucket
               + cost_terms("allgather", d, "ring")[1] * bucket * (2 if layout.zero_stage == 3 else 1))
    return n_buckets * one


def effective_bandwidth(g, nbytes, ranks=None, op="allreduce", **kw):
    """Bus bandwidth one collective reaches on a topology, bytes/s per direction (simulated).

    The nccl-tests ``busbw`` of :func:`interconnect.netsim.simulate_collective` (ring by
    default): the algorithm bandwidth ``nbytes / time`` times the bus factor of ``op`` over
    the ``p`` ranks. On an uncontended ring it equals the link bandwidth; where links are
    shared (a PCIe tree's socket link) it is what each GPU really gets, so it can stand in
    for a link's bandwidth in :meth:`Cluster.from_links`.

    Parameters
    ----------
    g : networkx.DiGraph
        A topology (:mod:`interconnect.topology`).
    nbytes : float
        Message size, bytes.
    ranks : sequence of str, optional
        The GPUs taking part; default every GPU of ``g``.
    op : str
        Collective, default ``"allreduce"``.
    **kw
        Passed to :func:`~interconnect.netsim.simulate_collective` (``algorithm``, ``chunks``...).

    Returns
    -------
    float
        bytes/s.

    See Also
    --------
    interconnect.netsim.simulate_collective, interconnect.collectives.bus_bandwidth

    Examples
    --------
    >>> from interconnect import topology
    >>> round(effective_bandwidth(topology.nvswitch(8, link="nvlink3"), 13.4e9) / 1e9)
    300
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16")
    >>> round(effective_bandwidth(box, 13.4e9) / 1e9, 1)    # the socket link binds
    20.8
    """
    from .netsim import simulate_collective

    return simulate_collective(g, op, nbytes, ranks=ranks, **kw).busbw


def ep_comm_time(model, layout, cluster):
    """Expert-parallel AllToAll time per step on one GPU, seconds.

    Each MoE layer dispatches its tokens' hidden states to the experts and combines them
    back: 2 AllToAlls forward and 2 backward (3 forward with full recomputation) of the
    ``2 s b h`` bytes (``/ tp`` with sequence parallelism) a GPU holds (Lepikhin et al.
    2021, GShard; Fedus et al. 2022, Switch Transformer), for ``moe_layers / pp`` layers
    and ``m`` microbatches.
    """
    e = layout.ep
    if e == 1 or model.moe_layers == 0:
        return 0.0
    m = _check_fit(model, layout)
    nbytes = _act_bytes(model, layout) / (layout.tp if layout.sequence_parallel else 1)
    bw, lat = _group_link(e, layout.tp, cluster)
    per_layer = 6 if layout.recompute == "full" else 4
    return m * (model.moe_layers / layout.pp) * per_layer * collective_time("alltoall", nbytes, e, bw, lat, "direct")


def elementwise_time(model, layout, cluster):
    """Memory-bound element-wise work per step on one GPU, seconds (0 without ``memory_bandwidth``).

    The GEMMs are costed by FLOPs; the layer norms, bias-GeLU, dropouts, residual adds and
    the attention softmax and its dropout are bound by HBM traffic instead. Their traffic
    is taken from the activation bytes they produce, Korthikanti et al. (2022) Table 2
    (``s b h (10 + 24/t + 5 a s/(h t))``, or ``s b h (34/t + 5 a s/(h t))`` with sequence
    parallelism, :func:`interconnect.memory.activation_memory` with no recomputation): the
    forward pass writes each once and the next operator reads it (2x), the backward pass
    reads it and writes and reads its gradient (4x). A recomputed forward adds 2x again:
    of everything (full) or of the attention-score part ``5 a s^2 b / t`` (selective).
    No coefficient is fitted; the per-element counts above are the whole model.
    """
    if cluster.memory_bandwidth is None:
        return 0.0
    m = _check_fit(model, layout)
    args = dict(seq_len=model.seq_len, microbatch=layout.microbatch, hidden=model.hidden, heads=model.heads,
                layers=1, tp=layout.tp, sequence_parallel=layout.sequence_parallel)
    stored = _memory.activation_memory(recompute="none", **args)
    traffic = 6.0 * stored
    if layout.recompute == "full":
        traffic += 2.0 * stored
    elif layout.recompute == "selective":
        traffic += 2.0 * (stored - _memory.activation_memory(recompute="selective", **args))
    return m * (model.layers / layout.pp) * traffic / cluster.memory_bandwidth


@dataclass(frozen=True)
class StepTime:
    """The pieces of one training iteration, seconds, and the resulting utilisation.

    Attributes
    ----------
    compute : float
        Hardware FLOPs per GPU over ``peak * gemm_efficiency``, plus the memory-bound
        element-wise time (:func:`elementwise_time`, also reported alone as ``elementwise``).
    bubble : float
        Pipeline idle time, ``pipeline_bubble_fraction * (compute + tp_comm)``.
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

    PARTS = ("compute", "bubble", "tp_comm", "pp_comm", "ep_comm", "dp_comm_exposed")

    def as_dict(self):
        """All fields as a plain dict."""
        return {k: getattr(self, k) for k in self.__dataclass_fields__}

    def __getitem__(self, key):
        return getattr(self, key)

    def shares(self):
        """Each part of :attr:`PARTS` as a fraction of :attr:`total`."""
        return {k: getattr(self, k) / self.total for k in self.PARTS}

    def dominant_overhead(self):
        """The largest non-compute part, by name."""
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
        ``total = compute + bubble + tp_comm + pp_comm + ep_comm + dp_comm_exposed``.

    Notes
    -----
    ``compute = step_flops(model, recompute) / (n * peak * gemm_efficiency)``. The gradient
    reduction can only start when the last microbatch's backward pass produces the
    gradients, so the compute it may hide behind is that backward pass (2/3 of a
    microbatch's compute; 3/4 with full recomputation, whose extra forward runs then), times
    ``layout.dp_overlap``; the last bucket (the first layers' gradients, produced last)
    is always exposed.

    References
    ----------
    Narayanan et al. (2021), sec. 2-4 and eqs. (1), (3); Korthikanti et al. (2022), sec. 4-5;
    Shoeybi et al. (2019); Rajbhandari et al. (2020), sec. 7.
    """
    if not isinstance(model, ModelConfig):
        raise ValueError(f"model={model!r} is not a ModelConfig")
    if not isinstance(layout, Layout):
        raise ValueError(f"layout={layout!r} is not a Layout")
    if not isinstance(cluster, Cluster):
        raise ValueError(f"cluster={cluster!r} is not a Cluster")
    m = _check_fit(model, layout)
    n = layout.n_gpus
    hw = step_flops(model, layout.recompute)
    elementwise = elementwise_time(model, layout, cluster)
    compute = hw / (n * cluster.peak_flops * cluster.gemm_efficiency) + elementwise
    tp = tp_comm_time(model, layout, cluster)
    pp = pp_comm_time(model, layout, cluster)
    ep = ep_comm_time(model, layout, cluster)
    bf = pipeline_bubble_fraction(layout.pp, m, layout.chunks)
    bubble = bf * (compute + tp + ep)
    dp = dp_comm_time(model, layout, cluster)
    # the backward phase: 2 of 3 passes, or recompute + backward = 3 of 4 with full recomputation
    backward_share = 0.75 if layout.recompute == "full" else 2.0 / 3.0
    window = backward_share * compute / m
    # the last bucket holds the first layers' gradients, computed last: its reduction can only
    # start when the backward pass ends, so at most (n_buckets - 1) buckets hide behind it
    last_bucket = dp / _dp_buckets(model, layout) if dp > 0 else 0.0
    dp_exposed = dp - min(dp - last_bucket, layout.dp_overlap * window) if dp > 0 else 0.0
    total = compute + bubble + tp + pp + ep + dp_exposed
    peak_total = n * cluster.peak_flops * total
    return StepTime(compute=compute, bubble=bubble, tp_comm=tp, pp_comm=pp, ep_comm=ep, dp_comm=dp,
                    dp_comm_exposed=dp_exposed, total=total, mfu=model.model_flops() / peak_total,
                    hfu=hw / peak_total, tflops_per_gpu=hw / (n * total) / 1e12, bubble_fraction=bf,
                    elementwise=elementwise)


# ----------------------------------------------------------------------------- validation
@dataclass(frozen=True)
class ValidationRow:
    """One published measurement the step-time model is checked against.

    Attributes
    ----------
    source : str
        Paper and table.
    name : str
        Configuration label.
    model : ModelConfig
    layout : Layout
    quantity : {"iteration_s", "tflops_per_gpu"}
        What the paper printed: seconds per iteration or hardware TFLOP/s per GPU.
    measured : float
    """

    source: str
    name: str
    model: ModelConfig
    layout: Layout
    quantity: str
    measured: float


def _korthikanti_rows():
    # Korthikanti et al. 2022, Table 3 (configurations) and Table 5 (iteration time, s):
    # t = 8, s = 2048, V = 51200, no data parallelism; (name, layers, hidden, heads, pp, GPUs,
    # global batch, microbatch, full-recompute s, present (selective + SP) s).
    # Table 3's batch/GPU columns are confirmed by Table 5's MFU and HFU columns, which they
    # reproduce to the printed 3 digits with 312 TFLOP/s (e.g. 22B: B = 4 on 8 GPUs in 1.10 s
    # gives MFU 41.6 % vs 41.5 % printed).
    cfg = [("22B", 48, 6144, 64, 1, 8, 4, 4, 1.42, 1.10),
           ("175B", 96, 12288, 96, 8, 64, 64, 1, 18.13, 13.75),
           ("530B", 105, 20480, 128, 35, 280, 280, 1, 49.05, 37.83),
           ("1T", 128, 25600, 160, 64, 512, 512, 1, 94.42, 71.49)]
    rows = []
    for name, L, h, a, p, n, B, b, t_full, t_sel in cfg:
        model = ModelConfig(L, h, a, 2048, 51200, B, name=name)
        dp = n // (8 * p)
        for mode, sp, t in (("full", False, t_full), ("selective", True, t_sel)):
            lay = Layout(dp=dp, tp=8, pp=p, microbatch=b, sequence_parallel=sp, recompute=mode)
            rows.append(ValidationRow("Korthikanti et al. 2022, Table 5", f"{name} {mode}", model, lay,
                                      "iteration_s", t))
    return rows


def _narayanan_rows():
    # Narayanan et al. 2021, Table 1 (weak scaling, every row): (params B, heads, hidden,
    # layers, t, p, GPUs, batch, TFLOP/s per GPU). s = 2048, V = 51200; d = GPUs / (t p).
    # The table does not give the microbatch size or the schedule: modelled as b = 1,
    # plain 1F1B (chunks = 1), full recomputation (eq. 3 is how the TFLOP/s are counted),
    # no sequence parallelism (it came in 2022), no DP overlap (Megatron-LM of 2021 reduced
    # gradients after the backward pass), scatter/gather on (sec. 4.1).
    cfg = [(1.7, 24, 2304, 24, 1, 1, 32, 512, 137), (3.6, 32, 3072, 30, 2, 1, 64, 512, 138),
           (7.5, 32, 4096, 36, 4, 1, 128, 512, 142), (18.4, 48, 6144, 40, 8, 1, 256, 1024, 135),
           (39.1, 64, 8192, 48, 8, 2, 512, 1536, 138), (76.1, 80, 10240, 60, 8, 4, 1024, 1792, 140),
           (145.6, 96, 12288, 80, 8, 8, 1536, 2304, 148), (310.1, 128, 16384, 96, 8, 16, 1920, 2160, 155),
           (529.6, 128, 20480, 105, 8, 35, 2520, 2520, 163), (1008.0, 160, 25600, 128, 8, 64, 3072, 3072, 163)]
    rows = []
    for billions, a, h, L, t, p, n, B, tf in cfg:
        name = f"{billions:g}B"
        model = ModelConfig(L, h, a, 2048, 51200, B, name=name)
        lay = Layout(dp=n // (t * p), tp=t, pp=p, microbatch=1, sequence_parallel=False, recompute="full")
        rows.append(ValidationRow("Narayanan et al. 2021, Table 1", f"{name} t={t} p={p} n={n}", model, lay,
                                  "tflops_per_gpu", float(tf)))
    return rows


#: Every validation row: Korthikanti et al. (2022) Table 5 (8 rows) and Narayanan et al.
#: (2021) Table 1 (10 rows), all on DGX A100 (Selene).
VALIDATION_ROWS = tuple(_korthikanti_rows() + _narayanan_rows())


def validation_layout(row):
    """The :class:`Layout` of a :class:`ValidationRow` (kept for symmetry with ``row.model``)."""
    return row.layout


def predict_row(row, cluster):
    """The model's prediction of ``row.quantity`` for a :class:`ValidationRow` on ``cluster``."""
    st = step_time(row.model, row.layout, cluster)
    return st.total if row.quantity == "iteration_s" else st.tflops_per_gpu


def _log_errors(rows, g, c):
    cl = Cluster.dgx_a100(gemm_efficiency=g, comm_efficiency=c)
    return np.array([np.log(predict_row(r, cl) / r.measured) for r in rows])


def calibrate(rows=None):
    """Fit ``gemm_efficiency`` and ``comm_efficiency`` once, over all rows, on DGX A100.

    Minimises ``sum(log(predicted / measured)^2)`` (for TFLOP/s rows the log error is that
    of the iteration time, sign flipped), with both efficiencies bounded to (0.05, 1].
    No row has a parameter of its own.

    Parameters
    ----------
    rows : sequence of ValidationRow, optional
        Default :data:`VALIDATION_ROWS`.

    Returns
    -------
    dict
        ``gemm_efficiency``, ``comm_efficiency``, ``rms_log_error``, ``max_abs_error``
        (relative, fraction).
    """
    from scipy.optimize import least_squares

    rows = VALIDATION_ROWS if rows is None else tuple(rows)
    if not rows:
        raise ValueError("rows is empty; expected at least one ValidationRow")
    res = least_squares(lambda x: _log_errors(rows, x[0], x[1]), x0=[0.6, 0.7],
                        bounds=([0.05, 0.05], [1.0, 1.0]), xtol=1e-12, ftol=1e-12)
    e = _log_errors(rows, *res.x)
    return {"gemm_efficiency": float(res.x[0]), "comm_efficiency": float(res.x[1]),
            "rms_log_error": float(np.sqrt(np.mean(e**2))), "max_abs_error": float(np.max(np.abs(np.expm1(e))))}


def validation_table(cluster=None, rows=None):
    """Rows of (source, name, quantity, measured, predicted, error %) for the validation set."""
    cluster = Cluster.dgx_a100() if cluster is None else cluster
    rows = VALIDATION_ROWS if rows is None else rows
    out = []
    for r in rows:
        pred = predict_row(r, cluster)
        out.append({"source": r.source, "name": r.name, "quantity": r.quantity, "measured": r.measured,
                    "predicted": pred, "error_pct": 100.0 * (pred / r.measured - 1.0)})
    return out


# ----------------------------------------------------------------------------- planner
@dataclass(frozen=True)
class Plan:
    """Result of :func:`plan`.

    Attributes
    ----------
    ranked : list of (Layout, StepTime, float)
        Feasible layouts, fastest first, with their memory per GPU in bytes.
    rejected : list of (Layout, str)
        Layouts that were enumerated but rejected, with the reason.
    explanation : str
        What the winner's step is made of (empty if nothing fits).
    """

    ranked: list = field(default_factory=list)
    rejected: list = field(default_factory=list)
    explanation: str = ""

    @property
    def best(self):
        """The fastest feasible (Layout, StepTime, memory), or None."""
        return self.ranked[0] if self.ranked else None


def _divisors(n):
    return [k for k in range(1, n + 1) if n % k == 0]


def stage_params(model, layout):
    """Parameters one GPU of the first pipeline stage holds: ``(12 h^2 + 13 h) l / pp``
    transformer weights plus the token and position embeddings ``(V + s) h``, all over ``tp``.

    References
    ----------
    Narayanan et al. (2021), eq. (2), split by stage and tensor rank.
    """
    h, L = model.hidden, model.layers
    return ((12.0 * h * h + 13.0 * h) * L / layout.pp + (model.vocab + model.seq_len) * h) / layout.tp


def layout_memory(model, layout):
    """Bytes per GPU on the first pipeline stage (the fullest one).

    Model states of the stage's parameters (``(12 h^2 + 13 h) l / pp`` plus the token and
    position embeddings ``(V + s) h``, all over ``tp``) with ZeRO over ``dp``
    (:func:`interconnect.memory.training_memory`), plus the activations the first stage
    keeps in flight under 1F1B, ``min(pp, m)`` microbatches of ``l / pp`` layers
    (:func:`interconnect.memory.activation_memory`; Korthikanti et al. 2022, eq. 5).
    """
    m = _check_fit(model, layout)
    h, L = model.hidden, model.layers
    states = _memory.training_memory(stage_params(model, layout), layout.dp, layout.zero_stage)["total"]
    in_flight = min(layout.pp, m) * L // layout.pp
    acts = _memory.activation_memory(model.seq_len, layout.microbatch, h, model.heads, layers=max(1, in_flight),
                                     tp=layout.tp, sequence_parallel=layout.sequence_parallel,
                                     recompute=layout.recompute, pipeline_stages=layout.pp,
                                     microbatches=m, chunks=layout.chunks)
    return states + acts


def plan(model, cluster, n_gpus, memory_limit, recompute="selective", sequence_parallel=True, zero_stage=1,
         microbatches=(1, 2, 4, 8), ep_sizes=None):
    """Enumerate, filter and rank (dp, tp, pp, ep, microbatch) layouts for ``model`` on ``n_gpus``.

    A layout is *valid* when ``tp`` divides ``heads`` and is at most ``gpus_per_node``,
    ``pp`` divides ``layers``, ``dp tp pp = n_gpus`` and ``microbatch * dp`` divides the
    global batch; invalid combinations are listed in ``rejected`` with the rule they break.
    Valid layouts whose first-stage memory (:func:`layout_memory`) exceeds
    ``memory_limit`` are rejected too; the rest are ranked by :func:`step_time`.

    Parameters
    ----------
    model : ModelConfig
    cluster : Cluster
    n_gpus : int
        GPUs to use, >= 1.
    memory_limit : float
        Bytes per GPU, > 0 (e.g. 80e9 for an A100 80GB, less a margin for buffers).
    recompute, sequence_parallel, zero_stage :
        Passed to every :class:`Layout`.
    microbatches : sequence of int
        Microbatch sizes to try.
    ep_sizes : sequence of int, optional
        Expert-parallel degrees to try (each must divide ``dp``); default every divisor
        of ``dp`` for a model with MoE layers, ``(1,)`` for a dense one. Expert weights
        are counted as dense parameters in the memory check.

    Returns
    -------
    Plan
    """
    n = _scalar_count("n_gpus", n_gpus)
    limit = float(as_positive("memory_limit", memory_limit, "bytes"))
    bs = [_scalar_count("microbatches", b) for b in microbatches]
    if not bs:
        raise ValueError("microbatches is empty; expected at least one microbatch size")
    ranked, rejected = [], []
    if ep_sizes is not None:
        eps_given = [_scalar_count("ep_sizes", e) for e in ep_sizes]
        if not eps_given:
            raise ValueError("ep_sizes is empty; expected at least one expert-parallel degree")
    for tp in _divisors(n):
        for pp in _divisors(n // tp):
            dp = n // (tp * pp)
            if ep_sizes is not None:
                eps = [e for e in eps_given if dp % e == 0]
            else:
                eps = _divisors(dp) if getattr(model, "moe_layers", 0) else [1]
            for ep, b in ((e, b_) for e in eps for b_ in bs):
                lay = Layout(dp=dp, tp=tp, pp=pp, ep=ep, microbatch=b, sequence_parallel=sequence_parallel,
                             recompute=recompute, zero_stage=zero_stage)
                if model.heads % tp:
                    rejected.append((lay, f"tp={tp} does not divide heads={model.heads}"))
                elif tp > cluster.gpus_per_node:
                    rejected.append((lay, f"tp={tp} > gpus_per_node={cluster.gpus_per_node}: TP would leave NVLink"))
                elif model.layers % pp:
                    rejected.append((lay, f"pp={pp} does not divide layers={model.layers}"))
                elif model.global_batch % (dp * b):
                    rejected.append((lay, f"global_batch={model.global_batch} not divisible by dp*b={dp * b}"))
                else:
                    mem = layout_memory(model, lay)
                    if mem > limit:
                        rejected.append((lay, f"memory {mem / 1e9:.1f} GB > limit {limit / 1e9:.1f} GB"))
                    else:
                        ranked.append((lay, step_time(model, lay, cluster), mem))
    ranked.sort(key=lambda r: r[1].total)
    text = ""
    if ranked:
        lay, st, mem = ranked[0]
        sh = st.shares()
        parts = ", ".join(f"{k} {100 * v:.0f} %" for k, v in sorted(sh.items(), key=lambda kv: -kv[1]) if v >= 0.005)
        text = (f"Best of {len(ranked)} feasible layouts ({len(rejected)} rejected): {lay.label()}, "
                f"{st.total:.3g} s per step, MFU {100 * st.mfu:.1f} %, {mem / 1e9:.1f} GB per GPU. "
                f"The step is {parts}; the largest overhead is {st.dominant_overhead()}.")
        if len(ranked) > 1:
            lay2, st2, _ = ranked[1]
            text += f" Runner-up {lay2.label()} is {100 * (st2.total / st.total - 1):.1f} % slower."
    else:
        text = f"No layout of {n} GPUs fits in {limit / 1e9:.1f} GB per GPU ({len(rejected)} rejected)."
    return Plan(ranked=ranked, rejected=rejected, explanation=text)


# --------------------------------------------------------------------------------------
# A roofline for communication
# --------------------------------------------------------------------------------------

__all__ += ["attainable_flops", "ridge_intensity", "tp_comm_intensity", "dp_comm_intensity"]


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
    """
    out = as_positive("peak_flops", peak_flops, "FLOP/s") / as_positive("bandwidth", bandwidth, "bytes/s")
    return float(out) if np.ndim(out) == 0 else out


def tp_comm_intensity(hidden, tp):
    """FLOPs per byte sent of a Megatron tensor-parallel transformer layer: ``3h/(t-1)``.

    Per token and layer each of the ``t`` GPUs does ``24 h^2 / t`` FLOPs in the forward
    pass (the ``12 h^2`` weights of attention and MLP, two FLOPs per weight; attention
    scores left out) and takes part in two ring AllReduces of ``2h`` bytes (BF16), each
    sending ``2 (t-1)/t`` of the message per GPU: ``8 h (t-1)/t`` bytes. The backward pass
    doubles both, so the ratio holds for training too. It does not depend on the batch:
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
    """
    tok = as_positive("tokens_per_gpu", tokens_per_gpu, "tokens")
    pp = np.asarray(as_count("p", p, minimum=2), dtype=float)
    g = as_positive("grad_bytes", grad_bytes, "bytes")
    out = 3.0 * tok * pp / (g * (pp - 1.0))
    return float(out) if np.ndim(out) == 0 else out
