"""How a training job is split over GPUs: :class:`Layout` (dp, tp, pp, ep, ZeRO, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_fraction, as_positive
from ._checks import _check_bool, _scalar_count
from .transformer import RECOMPUTE_MODES

__all__ = ["Layout"]


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
