"""Today's training machines and software stacks, with component-measured efficiencies.

Two catalogs the step-time model (:func:`~interconnect.parallel.step_time`) is run with:

* :func:`machine` builds a :class:`~interconnect.parallel.Cluster` for a named machine (DGX
  A100, DGX H100, DGX H200, DGX B200, a GB200 NVL72 rack) from the GPU and link catalogs.
  Its efficiencies are **component measurements**, and one constant per GPU generation is fitted
  to one named training run (the last item):

  - GEMMs: the GPU's measured matmul ceiling times the tile and wave quantisation of each
    GEMM's shape (:mod:`interconnect.parallel.gemm`);
  - collectives: NCCL's own model (:mod:`interconnect.collectives.nccl`, a port of its
    ``tuning.cc``, checked against published nccl-tests figures by
    ``interconnect.collectives.nccl.nccl_validation()``) on the machine's
    :class:`~interconnect.collectives.NcclMachine` (GPU generation, NVLinks, NICs, CPU): every
    collective at the algorithm, protocol, latency and achieved bandwidth NCCL picks for its
    size (:meth:`~interconnect.parallel.Cluster.collective_time`). The cluster's
    ``comm_efficiency`` is kept as the measured large-message fraction the model tends to, the
    nccl-tests ring AllReduce bus
    bandwidth over the NVLink peak (:func:`comm_efficiency_of`: 234.89 / 300 on 8 A100,
    367.2 / 450 on 8 H200; Blackwell machines take the Hopper fraction): it prices nothing
    in the step model, only closed forms that take a bandwidth;
  - attention: the measured fused-attention throughput of the generation
    (:func:`attention_efficiency_of`: FlashAttention-2 on A100, FlashAttention-3 on H100);
  - FP8 GEMMs: the measured FP8 matmul ceiling (:mod:`interconnect.parallel.gemm`);
  - one fitted constant per GPU generation, :data:`SUSTAINED_FRACTION`: the share of those
    measured compute rates a whole training step keeps, fitted on one named published run
    (:data:`interconnect.parallel.validation.SUSTAINED_FIT_ROWS`), every other run held out.

* :data:`STACKS` and :func:`stack` say which mechanisms a training framework of a given year
  switches on (FlashAttention, sequence parallelism, overlap of TP communication, of the
  gradient reduce-scatter and of the parameter all-gather, the distributed optimizer,
  recomputation, FP32 gradient reduction), each with the flag that turns it on;
  ``stack(name).layout(dp=..., tp=..., pp=...)`` gives a :class:`~interconnect.parallel.Layout`
  with those switches.

References
----------
T. Dao, "FlashAttention-2: Faster Attention with Better Parallelism and Work Partitioning",
ICLR 2024 (arXiv:2307.08691), Fig. 4 and sec. 4.
NVIDIA Megatron-LM / Megatron-Core, ``megatron/training/arguments.py`` (flags
``--tp-comm-overlap``, ``--overlap-grad-reduce``, ``--overlap-param-gather``,
``--use-distributed-optimizer``, ``--use-flash-attn``, ``--recompute-granularity``).
NVIDIA DGX A100, DGX H100/H200, DGX B200 and DGX GB200 user guides (one 200 or 400 Gb/s
InfiniBand NIC per GPU on the compute fabric).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from .._validate import choice, lookup
from ..collectives.nccl import MACHINES as _NCCL_MACHINES
from ..collectives.nccl import NcclMachine
from .cluster import Cluster
from .layout import Layout

__all__ = ["Machine", "MACHINES", "machine", "machine_names", "comm_efficiency_of", "nccl_machine_of",
           "SoftwareStack", "STACKS", "stack", "stack_names", "attention_efficiency_of", "SUSTAINED_FRACTION",
           "generation_of"]

#: nccl-tests ring AllReduce busbw measurement per NVLink generation (catalog name, link name).
_NVLINK_BUSBW = {"nvlink3": ("a100-nvlink3-allreduce-busbw", "nvlink3"),
                 "nvlink4": ("h200-nvlink4-allreduce-ring-busbw", "nvlink4"),
                 "nvlink5": ("h200-nvlink4-allreduce-ring-busbw", "nvlink4")}


def comm_efficiency_of(nvlink):
    """Measured ring AllReduce bus bandwidth over the link peak, for an NVLink generation.

    Examples
    --------
    >>> round(comm_efficiency_of("nvlink3"), 3), round(comm_efficiency_of("nvlink4"), 3)
    (0.783, 0.816)
    """
    from ..catalog import measurements
    from ..links import get_link

    name, link = lookup(nvlink, _NVLINK_BUSBW, "nvlink", "nvlink4", "allowed: nvlink3, nvlink4, nvlink5")
    return measurements.get(name).value / get_link(link).bandwidth


#: NCCL's compute-capability class of each GPU (``ncclTopoTuneModel``'s ``compCapIndex``) and the
#: NVLinks per GPU of each NVLink generation (12 on A100, 18 on Hopper and Blackwell; NCCL counts
#: each at its ``topo.h`` figure).
_NCCL_ARCH = {"A100": "ampere", "H100": "hopper", "H200": "hopper", "B200": "blackwell", "GB200": "blackwell"}
_NVLINKS = {"nvlink3": 12, "nvlink4": 18, "nvlink5": 18}


#: The one **fitted** constant per GPU generation: the share of the measured compute rates (the
#: GEMM ceiling, shape and depth losses of :mod:`~interconnect.parallel.gemm`, fused attention)
#: that a whole training step keeps (``Cluster.sustained_fraction``). The measured rates come
#: from short benchmarks of one kernel at a time (mamf-finder, FlashAttention-3's); a training
#: step also has gaps between kernels, CPU launch overhead and SMs shared with overlapped
#: communication, none of which the model prices one by one. Each value is fitted
#: (``interconnect.parallel.validation.fit_sustained_fraction``, rounded to 3 digits) on the
#: one published run of its generation whose bottom-up step is the most nearly pure compute
#: (:data:`interconnect.parallel.validation.SUSTAINED_FIT_ROWS`: Narayanan et al. 2021's 1.7B on
#: A100, NeMo 24.07's Llama 2 7B on 8 H100, Megatron-Bridge 25.09's Llama 3 8B on 8 B200); every
#: other row is held out. A GPU of no generation here (V100, the AMD parts) keeps 1.
SUSTAINED_FRACTION = {"ampere": 0.917, "hopper": 0.792, "blackwell": 0.749}


def generation_of(gpu):
    """The GPU generation of :data:`SUSTAINED_FRACTION` a GPU belongs to, or None.

    Examples
    --------
    >>> generation_of("H200"), generation_of("GB200"), generation_of("MI300X")
    ('hopper', 'blackwell', None)
    """
    return _NCCL_ARCH.get(getattr(gpu, "name", gpu))


def nccl_machine_of(m):
    """The :class:`~interconnect.collectives.NcclMachine` of a :class:`Machine`: NCCL's view of it.

    The DGX presets are :data:`interconnect.collectives.NCCL_MACHINES`' (``dgx-h200`` is
    NCCL's H100 node) with the NIC bandwidth of the machine's ``nic``; another machine is
    built from its GPU generation, NVLinks, one NIC per GPU and its ``cpu``. ``None`` for a
    machine NCCL's model does not describe (no NVLink switch domain of a known generation);
    its cluster then prices collectives with ``comm_efficiency``.

    Examples
    --------
    >>> n = nccl_machine_of(MACHINES["gb200-nvl72"])
    >>> n.arch, n.gpus_per_node, n.nvlinks, n.nics_per_node, n.cpu
    ('blackwell', 72, 18, 72, 'arm')
    >>> nccl_machine_of(MACHINES["dgx-a100"]).cpu       # DGX A100's EPYC: NCCL's AMD figures
    'amd'
    """
    from dataclasses import replace as _replace

    from ..links import get_link

    if m.gpu not in _NCCL_ARCH or m.nvlink not in _NVLINKS:
        return None
    nic_bw = get_link(m.nic).bandwidth
    if m.key in _NCCL_MACHINES and _NCCL_MACHINES[m.key].gpus_per_node == m.gpus_per_domain:
        return _replace(_NCCL_MACHINES[m.key], nic_bw=nic_bw, cpu=m.cpu)
    return NcclMachine(m.key, _NCCL_ARCH[m.gpu], gpus_per_node=m.gpus_per_domain, nvlinks=_NVLINKS[m.nvlink],
                       nics_per_node=m.gpus_per_domain, nic_bw=nic_bw, cpu=m.cpu)


#: Fused-attention measurement per GPU and the GPU it was measured on (its dense BF16 peak is
#: the denominator), from the catalog's measurements: FlashAttention-2 forward + backward on A100, 230 of 312 TFLOP/s
#: (Dao 2023); FlashAttention-3 forward on H100, 661 of 989.4 TFLOP/s at sequence 8,448 (Shah et al.
#: 2024; its backward is taken to run at the same fraction, an assumption). Blackwell: no
#: measurement in the catalog, the Hopper fraction is used.
_ATTENTION = {"A100": ("a100-flashattention2-fwdbwd", "A100"), "H100": ("h100-flashattention3-fwd", "H100"),
              "H200": ("h100-flashattention3-fwd", "H100"), "B200": ("h100-flashattention3-fwd", "H100"),
              "GB200": ("h100-flashattention3-fwd", "H100")}


def attention_efficiency_of(gpu):
    """Measured fused-attention throughput over the dense BF16 peak of the GPU it was measured on
    (a GPU without its own measurement takes that fraction).

    Examples
    --------
    >>> round(attention_efficiency_of("A100"), 3), round(attention_efficiency_of("H100"), 3)
    (0.737, 0.668)
    """
    from ..catalog import measurements
    from ..devices import get_gpu

    name, measured_on = lookup(gpu, {k.lower(): v for k, v in _ATTENTION.items()}, "gpu", "H100",
                               "allowed: " + ", ".join(_ATTENTION))
    return measurements.get(name).value / get_gpu(measured_on).peak_flops


@dataclass(frozen=True)
class Machine:
    """A training machine: GPU, NVLink domain and NIC per GPU.

    Attributes
    ----------
    key : str
    gpu : str
        A name of :func:`interconnect.devices.get_gpu`.
    gpus_per_domain : int
        GPUs in one NVLink domain (8 in a DGX, 72 in a GB200 NVL72 rack).
    nvlink : str
        The per-GPU NVLink entry of :mod:`interconnect.links`.
    nic : str
        The per-GPU network link (one NIC per GPU, rail-optimised).
    source : str
    cpu : str
        The host CPU as NCCL's model classes it (``"intel"``, ``"amd"``, ``"arm"``): it sets the
        LL bandwidth cap and the network overhead across nodes.
    """

    key: str
    gpu: str
    gpus_per_domain: int
    nvlink: str
    nic: str
    source: str
    cpu: str = "intel"

    def __post_init__(self):
        choice("cpu", self.cpu, ("intel", "amd", "arm"))

    def cluster(self, **overrides):
        """The :class:`Cluster` of this machine, with component-measured efficiencies.

        Its collectives are priced by NCCL's model (``Cluster.nccl``, :func:`nccl_machine_of`);
        overriding ``comm_efficiency`` prices them at that fraction of the link peak instead
        (``nccl=None``), as does ``nccl=None``. Its ``sustained_fraction`` is the generation's
        fitted :data:`SUSTAINED_FRACTION`; ``sustained_fraction=1.0`` gives the pure bottom-up model.
        """
        from ..devices import get_gpu

        g = get_gpu(self.gpu)
        kw = dict(gemm_efficiency=None, comm_efficiency=comm_efficiency_of(self.nvlink))
        kw.update({k: v for k, v in overrides.items() if k in ("gemm_efficiency", "comm_efficiency")})
        base = Cluster.from_links(g, self.nvlink, self.nic, gpus_per_node=self.gpus_per_domain, **kw)
        fp8 = getattr(g, "peak_flops_fp8", None)
        extra = dict(peak_flops_fp8=fp8, attention_efficiency=attention_efficiency_of(self.gpu), gemm_gpu=self.gpu,
                     nccl=None if "comm_efficiency" in overrides else nccl_machine_of(self),
                     sustained_fraction=SUSTAINED_FRACTION.get(generation_of(self.gpu), 1.0))
        extra.update({k: v for k, v in overrides.items() if k in extra})
        unknown = set(overrides) - {"gemm_efficiency", "comm_efficiency"} - set(extra)
        if unknown:
            raise ValueError(f"overrides={sorted(unknown)} are not allowed; allowed: gemm_efficiency, "
                             "comm_efficiency, peak_flops_fp8, attention_efficiency, gemm_gpu, nccl, "
                             "sustained_fraction")
        if extra["nccl"] is not None:
            extra["nccl_links"] = (base.intra_bandwidth, base.inter_bandwidth, base.comm_efficiency)
        return replace(base, **extra)


_DGX = "one ConnectX NIC per GPU on the compute fabric, rail-optimised"
MACHINES = {m.key: m for m in (
    Machine("dgx-a100", "A100", 8, "nvlink3", "ib-hdr",
            "NVIDIA DGX A100 user guide: 8 A100 80GB SXM, NVLink 3 through 6 NVSwitches, 8 x ConnectX-6 HDR "
            "200 Gb/s (" + _DGX + "); two AMD EPYC 7742 CPUs", cpu="amd"),
    Machine("dgx-h100", "H100", 8, "nvlink4", "ib-ndr",
            "NVIDIA DGX H100 user guide: 8 H100 SXM5, NVLink 4 through 4 NVSwitches, 8 x ConnectX-7 NDR 400 Gb/s "
            "(" + _DGX + ")"),
    Machine("dgx-h200", "H200", 8, "nvlink4", "ib-ndr",
            "NVIDIA DGX H200 datasheet: 8 H200 SXM, NVLink 4, 8 x ConnectX-7 NDR 400 Gb/s (" + _DGX + ")"),
    Machine("dgx-b200", "B200", 8, "nvlink5", "ib-ndr",
            "NVIDIA DGX B200 datasheet: 8 B200, NVLink 5 (1.8 TB/s per GPU bidirectional) through 2 NVSwitch "
            "chips, 8 x ConnectX-7 400 Gb/s (" + _DGX + "); collective efficiency: the Hopper busbw fraction, "
            "no NVLink 5 nccl-tests figure in the catalog"),
    Machine("gb200-nvl72", "GB200", 72, "nvlink5", "ib-ndr",
            "NVIDIA GB200 NVL72: 72 Blackwell GPUs in one NVLink 5 domain (18 NVLink switch trays), one "
            "ConnectX-7 400 Gb/s per GPU on the compute fabric (DGX GB200 user guide); collective efficiency: the "
            "Hopper busbw fraction, no NVLink 5 nccl-tests figure in the catalog; Grace (Arm) CPUs", cpu="arm"),
)}


def machine_names():
    """Every machine :func:`machine` builds.

    Examples
    --------
    >>> machine_names()
    ('dgx-a100', 'dgx-h100', 'dgx-h200', 'dgx-b200', 'gb200-nvl72')
    """
    return tuple(MACHINES)


def machine(name, **overrides):
    """A :class:`Cluster` for a named machine, efficiencies from component measurements.

    Parameters
    ----------
    name : str
        One of :func:`machine_names`.
    **overrides
        ``gemm_efficiency``, ``comm_efficiency``, ``peak_flops_fp8``,
        ``attention_efficiency``, ``gemm_gpu``, ``nccl`` or ``sustained_fraction`` to replace the
        preset's (a ``comm_efficiency`` override prices the collectives at that constant, without
        NCCL's model; ``sustained_fraction=1.0`` drops the generation's fitted constant).

    Returns
    -------
    Cluster

    Examples
    --------
    >>> h100 = machine("dgx-h100")
    >>> h100.gpus_per_node, h100.peak_flops / 1e12, h100.inter_bandwidth / 1e9, round(h100.comm_efficiency, 3)
    (8, 989.4, 50.0, 0.816)
    >>> machine("gb200-nvl72").gpus_per_node
    72
    """
    m = lookup(name, MACHINES, "machine", "dgx-h100", "list all names with machine_names()")
    return m.cluster(**overrides)


@dataclass(frozen=True)
class SoftwareStack:
    """What a training framework of a given year switches on.

    Attributes
    ----------
    key, name : str
    flash_attention : bool
    sequence_parallel : bool
    tp_overlap : float
        ``Layout.tp_overlap``.
    dp_overlap : float
        ``Layout.dp_overlap`` (overlap of the gradient reduction with the last backward).
    param_gather_overlap : bool
    zero_stage : int
        1 for Megatron's distributed optimizer.
    recompute : str
    grad_bytes : float
        4 where gradients are reduced in FP32.
    source : str
        The flags and documents behind each switch.
    ddp_bucket : (float, float) or None
        ``(floor, per_rank)``: the stack's default gradient bucket, ``max(floor, per_rank * dp)``
        parameters of ``grad_bytes`` each (Megatron-Core's ``DistributedDataParallelConfig.bucket_size``
        default, ``max(40000000, 1000000 * dp_size)`` parameters, "larger DP sizes need larger buckets
        to ensure collectives do not become latency-bound"; ``megatron/core/distributed/
        distributed_data_parallel.py`` at Megatron-LM commit f2e5db40, the README table's). None:
        :class:`~interconnect.parallel.Layout`'s 25 MB (PyTorch DDP's ``bucket_cap_mb``).
    """

    key: str
    name: str
    flash_attention: bool
    sequence_parallel: bool
    tp_overlap: float
    dp_overlap: float
    param_gather_overlap: bool
    zero_stage: int
    recompute: str
    grad_bytes: float
    source: str
    ddp_bucket: tuple | None = None

    def layout(self, dp, tp, pp, **kw):
        """A :class:`Layout` with this stack's switches; ``kw`` sets the rest or overrides.

        Examples
        --------
        >>> lay = stack("megatron-core-2024").layout(dp=64, tp=8, pp=16, chunks=8)
        >>> lay.flash_attention, lay.tp_overlap, lay.param_gather_overlap, lay.zero_stage
        (True, 1.0, True, 1)
        >>> lay.bucket_bytes / 1e6     # Megatron-Core's default bucket: max(40M, 1M x 64) FP32 gradients
        256.0
        """
        base = dict(flash_attention=self.flash_attention, sequence_parallel=self.sequence_parallel,
                    tp_overlap=self.tp_overlap, dp_overlap=self.dp_overlap,
                    param_gather_overlap=self.param_gather_overlap, zero_stage=self.zero_stage,
                    recompute=self.recompute, grad_bytes=self.grad_bytes)
        base.update(kw)
        if self.ddp_bucket is not None and "bucket_bytes" not in kw:
            floor, per_rank = self.ddp_bucket
            base["bucket_bytes"] = base["grad_bytes"] * max(floor, per_rank * dp)
        return Layout(dp=dp, tp=tp, pp=pp, **base)


STACKS = {s.key: s for s in (
    SoftwareStack("megatron-lm-2021", "Megatron-LM (2021)", False, False, 0.0, 0.0, False, 0, "full", 2.0,
                  "Narayanan et al. 2021 (SC21), sec. 4-5: full recomputation, gradients all-reduced after the "
                  "backward pass, no sequence parallelism, no fused attention; the A100 validation rows"),
    SoftwareStack("megatron-lm-2022", "Megatron-LM (2022)", False, True, 0.0, 0.0, False, 0, "selective", 2.0,
                  "Korthikanti et al. 2022, sec. 4-5: sequence parallelism and selective recomputation"),
    SoftwareStack("megatron-core-2024", "Megatron-Core (2024-26)", True, True, 1.0, 1.0, True, 1, "none", 4.0,
                  "Megatron-Core with Transformer Engine, as NVIDIA's recipes run it: --use-flash-attn (TE fused "
                  "attention), --sequence-parallel, --tp-comm-overlap, --overlap-grad-reduce, "
                  "--overlap-param-gather, --use-distributed-optimizer (ZeRO-1), no recomputation; --bf16 sets "
                  "accumulate_allreduce_grads_in_fp32 (gradients reduced in FP32); gradient buckets of "
                  "max(40M, 1M x dp) parameters (DistributedDataParallelConfig.bucket_size's default)",
                  ddp_bucket=(40e6, 1e6)),
    SoftwareStack("deepspeed-megatron-2022", "Megatron-DeepSpeed (2022)", False, False, 0.0, 1.0, False, 1,
                  "full", 4.0,
                  "Megatron-DeepSpeed as BLOOM was trained (Le Scao et al. 2022, sec. 3.4): ZeRO stage 1, "
                  "overlap_comm (gradient reduction during backward), full activation checkpointing, FP32 "
                  "gradient reduction, no fused attention"),
)}


def stack_names():
    """Every software stack :func:`stack` knows.

    Examples
    --------
    >>> stack_names()
    ('megatron-lm-2021', 'megatron-lm-2022', 'megatron-core-2024', 'deepspeed-megatron-2022')
    """
    return tuple(STACKS)


def stack(name):
    """A :class:`SoftwareStack` by name (case-insensitive)."""
    return lookup(name, STACKS, "stack", "megatron-core-2024", "list all names with stack_names()")
