"""How a training job is split over GPUs: :class:`Layout` (dp, tp, pp, ep, ZeRO, ...)."""

from __future__ import annotations

from dataclasses import dataclass

from .._validate import as_fraction, as_positive
from ._checks import _check_bool, _scalar_count
from .transformer import RECOMPUTE_MODES

__all__ = ["Layout", "stage_layers"]


@dataclass(frozen=True)
class Layout:
    """How one training job is split over GPUs (Megatron-LM PTD-P, plus EP and ZeRO).

    Parameters
    ----------
    dp, tp, pp : int
        Data-, tensor- and pipeline-parallel sizes, each >= 1; the job uses
        ``dp * tp * pp * cp`` GPUs.
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
    flash_attention : bool
        Fused attention (Dao et al. 2022, FlashAttention; Dao 2023, FlashAttention-2): the
        ``s x s`` scores never reach HBM, so neither the element-wise traffic nor the stored
        activations have the ``5 a s / h`` term, and the backward pass recomputes ``Q K^T``
        itself (so ``"selective"`` recomputation adds nothing more). Default False, the
        2021-22 Megatron-LM of the A100 validation rows.
    tp_overlap : float
        Fraction in [0, 1] of the tensor-parallel communication that runs behind the
        GEMMs next to it (Megatron-Core ``--tp-comm-overlap``, Transformer Engine's
        userbuffers: the AllGather is split into chunks, each overlapped with the GEMM of the
        previous chunk). At most the time of the linear-layer GEMMs can hide it. 0 (default):
        every TP collective on the critical path.
    param_gather_overlap : bool
        With ZeRO 1-3 (Megatron's distributed optimizer), the AllGather of the updated
        parameters runs behind the forward pass of the first microbatch of the next step
        (Megatron-Core ``--overlap-param-gather``). The gradient reduction's overlap is
        ``dp_overlap`` (``--overlap-grad-reduce``).
    fp8 : bool
        Run the linear-layer GEMMs (QKV, attention projection, MLP) in FP8 at the
        cluster's FP8 peak (Transformer Engine; Micikevicius et al. 2022); the attention core
        and the logits stay in 16-bit. Needs ``Cluster.peak_flops_fp8``.
    uneven_stages : bool
        Allow ``pp * chunks`` not to divide ``layers``: stages hold ``ceil(l / (pp v))``
        layers per chunk or fewer, and the fullest sets the pace (Llama 3 405B's 126 layers on
        16 stages, Dubey et al. 2024, sec. 3.3.2). ``pp * chunks`` may then exceed ``layers`` by
        up to 2: Llama 3's first chunk holds only the embedding and its last only the output
        layer and the loss (its 126 layers and those two on 16 x 8 one-layer chunks). False
        (default) requires even stages.
    grad_bytes : float
        Bytes per gradient element in the data-parallel reduction, 2 (BF16, default) or 4:
        Megatron-LM accumulates and reduces BF16 models' gradients in FP32
        (``accumulate_allreduce_grads_in_fp32``, set by ``--bf16``) unless
        ``--grad-reduce-in-bf16``. The parameter AllGather of ZeRO stays 16-bit.
    cp : int
        Context-parallel size, >= 1 (default 1): each sequence is split over ``cp`` GPUs,
        each holding ``s / cp`` tokens of every layer's activations, and attention passes
        the keys and values around the ``cp`` ranks (ring attention; Megatron-Core
        ``--context-parallel-size``). The weights are replicated over ``cp``, so gradients
        are reduced over the ``dp * cp`` ranks. Ranks are numbered TP fastest, then CP,
        then DP, then PP (Megatron-Core's order).
    dp_shard : int or None
        With ZeRO (``zero_stage`` >= 1), how many of the ``dp`` ranks one copy of the
        partitioned model states spans (times ``cp``); ``dp / dp_shard`` such copies are
        replicas (hybrid sharding, HSDP: shard inside a group, AllReduce across groups;
        PyTorch FSDP2 / torchtitan ``data_parallel_shard_degree``). Must divide ``dp``;
        None (default) shards over all ``dp`` ranks.

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
    flash_attention: bool = False
    tp_overlap: float = 0.0
    param_gather_overlap: bool = False
    fp8: bool = False
    uneven_stages: bool = False
    grad_bytes: float = 2.0
    cp: int = 1
    dp_shard: int | None = None

    def __post_init__(self):
        for name in ("dp", "tp", "pp", "ep", "microbatch", "chunks", "cp"):
            object.__setattr__(self, name, _scalar_count(name, getattr(self, name)))
        if self.dp_shard is not None:
            object.__setattr__(self, "dp_shard", _scalar_count("dp_shard", self.dp_shard))
            if self.dp % self.dp_shard:
                raise ValueError(f"dp_shard={self.dp_shard!r} is not allowed; dp_shard must divide dp={self.dp}")
        if self.dp % self.ep:
            raise ValueError(f"ep={self.ep!r} is not allowed; ep must divide dp={self.dp} "
                             "(experts are spread over data-parallel ranks)")
        if self.chunks > 1 and self.pp == 1:
            raise ValueError(f"chunks={self.chunks!r} is not allowed with pp=1; the interleaved schedule needs pp > 1")
        object.__setattr__(self, "sequence_parallel", _check_bool("sequence_parallel", self.sequence_parallel))
        for name in ("scatter_gather", "flash_attention", "param_gather_overlap", "fp8", "uneven_stages"):
            object.__setattr__(self, name, _check_bool(name, getattr(self, name)))
        object.__setattr__(self, "tp_overlap",
                           float(as_fraction("tp_overlap", self.tp_overlap, 0.0, 1.0, low_open=False)))
        if self.recompute not in RECOMPUTE_MODES:
            raise ValueError(f"recompute={self.recompute!r} is unknown; allowed: {', '.join(RECOMPUTE_MODES)}")
        z = _scalar_count("zero_stage", self.zero_stage, minimum=0)
        if z > 3:
            raise ValueError(f"zero_stage={self.zero_stage!r} is not allowed; allowed 0, 1, 2 or 3")
        object.__setattr__(self, "zero_stage", z)
        object.__setattr__(self, "dp_overlap",
                           float(as_fraction("dp_overlap", self.dp_overlap, 0.0, 1.0, low_open=False)))
        object.__setattr__(self, "bucket_bytes", float(as_positive("bucket_bytes", self.bucket_bytes, "bytes")))
        if self.grad_bytes not in (2, 4) or isinstance(self.grad_bytes, bool):
            raise ValueError(f"grad_bytes={self.grad_bytes!r} is not allowed; allowed 2 (BF16) or 4 (FP32)")
        object.__setattr__(self, "grad_bytes", float(self.grad_bytes))

    @property
    def n_gpus(self):
        """GPUs used, ``dp * tp * pp * cp``."""
        return self.dp * self.tp * self.pp * self.cp

    @property
    def shard_ranks(self):
        """Ranks one copy of the ZeRO-partitioned model states spans: ``dp_shard * cp``
        (``dp * cp`` without hybrid sharding)."""
        return (self.dp if self.dp_shard is None else self.dp_shard) * self.cp

    @property
    def replicas(self):
        """Copies of the partitioned model states, ``dp / dp_shard`` (1 without hybrid sharding)."""
        return 1 if self.dp_shard is None else self.dp // self.dp_shard

    def microbatches(self, global_batch):
        """Microbatches per pipeline per step, ``m = B / (b * dp)`` (Narayanan et al. 2021, sec. 3.1)."""
        B = _scalar_count("global_batch", global_batch)
        if B % (self.microbatch * self.dp):
            raise ValueError(f"global_batch={B} is not divisible by microbatch * dp = "
                             f"{self.microbatch} * {self.dp}; allowed: multiples of {self.microbatch * self.dp}")
        return B // (self.microbatch * self.dp)

    def label(self):
        """Short text such as ``dp=4 tp=8 pp=2 b=1``."""
        extra = "".join([f" cp={self.cp}" if self.cp > 1 else "", f" ep={self.ep}" if self.ep > 1 else "",
                         f" v={self.chunks}" if self.chunks > 1 else "",
                         f" shard={self.dp_shard}" if self.dp_shard is not None else "",
                         f" zero={self.zero_stage}" if self.zero_stage else "", " fp8" if self.fp8 else ""])
        return f"dp={self.dp} tp={self.tp} pp={self.pp} b={self.microbatch}{extra}"


def stage_layers(model, layout):
    """Layers on the fullest pipeline stage: ``l / pp`` with even stages; with
    ``uneven_stages``, ``ceil(l / (pp v)) v`` (the fullest stage sets the pace).

    Examples
    --------
    Llama 3 405B's 126 layers on 16 stages: the fullest holds 8 (Dubey et al. 2024 take one
    layer from the first and one from the last stage):

    >>> from interconnect.parallel import ModelConfig
    >>> m = ModelConfig(126, 16384, 128, 8192, 128256, 2048)
    >>> stage_layers(m, Layout(dp=64, tp=8, pp=16, uneven_stages=True))
    8
    >>> stage_layers(m, Layout(dp=64, tp=8, pp=2))
    63.0
    """
    per = layout.pp * layout.chunks
    if model.layers % per == 0:
        return model.layers / layout.pp
    if not layout.uneven_stages:
        raise ValueError(f"pp * chunks = {layout.pp} * {layout.chunks} does not divide layers={model.layers}; "
                         "allowed: a divisor, or uneven_stages=True")
    return -(-model.layers // per) * layout.chunks


def _check_fit(model, layout):
    if model.heads % layout.tp:
        raise ValueError(f"tp={layout.tp} does not divide heads={model.heads}; allowed: divisors of {model.heads}")
    # with uneven stages two chunks may hold no Transformer layer: Llama 3's first chunk holds only the
    # embedding and its last only the output layer and the loss (Dubey et al. 2024, sec. 3.3.2)
    spare = 2 if layout.uneven_stages else 0
    if layout.pp * layout.chunks > model.layers + spare:
        raise ValueError(f"pp * chunks = {layout.pp} * {layout.chunks} is more than layers={model.layers}"
                         + (" + 2 (a chunk for the embedding, one for the output layer)" if spare else ""))
    stage_layers(model, layout)
    if layout.cp > 1 and model.seq_len % (2 * layout.cp):
        raise ValueError(f"cp={layout.cp} does not fit seq_len={model.seq_len}; allowed: seq_len a multiple of "
                         f"2 cp = {2 * layout.cp} (each rank holds 2 of the 2 cp load-balanced chunks)")
    m = layout.microbatches(model.global_batch)
    if layout.chunks > 1 and m % layout.pp:
        raise ValueError(f"microbatches m={m} is not a multiple of pp={layout.pp}, "
                         "which the interleaved schedule (chunks > 1) needs")
    return m
