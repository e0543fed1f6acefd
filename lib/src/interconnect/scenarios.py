"""The chapters' setups: the models and machines a chapter and its exercise checker share.

A chapter's tables and its exercises compute with the same models and machines. Before this
module each chapter built them in a setup cell and its checker (``interconnect.exercises``)
rebuilt them, so a changed chapter left its checker silently checking the old setup. Now
both call one function here, which returns a frozen dataclass:

>>> from interconnect import scenarios
>>> dp = scenarios.data_parallel()
>>> list(dp.machines)[:2]
['PCIe 4.0 tree', 'NVSwitch (NVLink 3)']
>>> round(dp.machines["PCIe 4.0 tree"].intra_bandwidth / 1e9, 1)   # the simulated ring, not the link rate
20.8

Models come from :mod:`interconnect.catalog.models`, machines from
:meth:`interconnect.parallel.Cluster.from_links` (by name) or, where a topology shares its
links, from a simulated :func:`interconnect.netsim.effective_bandwidth`. The functions are
cached (the results are immutable), so a chapter and its checker pay for the simulations once.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from . import links, topology
from .catalog import models as _models
from .netsim import effective_bandwidth
from .parallel import Cluster, Layout, ModelConfig, ceiling_fraction
from .parallel.machines import comm_efficiency_of
from .units import GiB

__all__ = ["Applications", "DataParallel", "Operations", "Planning", "Planning2024", "TensorParallel",
           "TensorParallelFP8", "TensorParallelOverlap", "applications", "data_parallel", "operations", "planning",
           "planning_2024", "single_gpu_nodes", "tensor_parallel", "tensor_parallel_fp8", "tensor_parallel_overlap"]


def _frozen(d):
    return MappingProxyType(dict(d))


# ----------------------------------------------------------------------------- data parallelism
@dataclass(frozen=True)
class DataParallel:
    """The setup of the chapter "Data parallelism" (book/parallel/data_parallel).

    Attributes
    ----------
    models : Mapping[str, ModelConfig]
        ``"1.3B"``, ``"6.7B"``, ``"13B"``: the GPT-3 presets at a global batch of 64 sequences
        (8 microbatches of 1 on each of 8 data-parallel GPUs).
    machines : Mapping[str, Cluster]
        Eight A100s, four ways: ``"PCIe 4.0 tree"`` and ``"NVSwitch (NVLink 3)"`` (one box,
        the ring's simulated bus bandwidth per GPU), and ``"8 nodes × 1 GPU, InfiniBand HDR 4x"``
        and ``"... NDR 4x"`` (one GPU per node: every ring crosses the network).
    pcie_box : networkx.DiGraph
        The two-socket PCIe 4.0 tree (4 GPUs per switch, one switch per socket).
    gradient_bytes : float
        The 6.7B model's BF16 gradient, ``2 P`` bytes: the message the rings are simulated with.
    """

    models: Mapping[str, ModelConfig]
    machines: Mapping[str, Cluster]
    pcie_box: Any
    gradient_bytes: float

    @property
    def bw_pcie(self):
        """Bus bandwidth per GPU of the ring AllReduce on the PCIe tree, bytes/s."""
        return self.machines["PCIe 4.0 tree"].intra_bandwidth

    @property
    def bw_nvs(self):
        """Bus bandwidth per GPU of the ring AllReduce through the NVSwitch, bytes/s."""
        return self.machines["NVSwitch (NVLink 3)"].intra_bandwidth


def single_gpu_nodes(nic, nodes=8):
    """``nodes`` nodes of one A100 each behind ``nic`` (a topology) and their GPUs' names."""
    g = topology.cluster(nodes=nodes, gpus_per_node=1, nvlink="nvlink3", nic=nic, gpu_nic_link="pcie4x16")
    return g, [f"n{j}.gpu0" for j in range(nodes)]


@functools.cache
def data_parallel():
    """The models and machines of the data-parallel chapter and its checker (:class:`DataParallel`)."""
    models = {key: replace(_models.get(name), global_batch=64, name=key)
              for key, name in (("1.3B", "gpt3-1.3b"), ("6.7B", "gpt3-6.7b"), ("13B", "gpt3-13b"))}
    grad = 2 * models["6.7B"].params
    # one UPI 10.4 GT/s link between the sockets, pinned: the chapter's numbers were computed
    # with it. pcie_tree's default for PCIe 4.0 is now AMD EPYC 7002's three Infinity Fabric
    # links (topology.DEFAULT_SOCKET_LINK), under which this ring reaches the PCIe 4.0 x16 rate
    box = topology.pcie_tree(gpus_per_switch=4, switches_per_socket=1, sockets=2,
                             gpu_link="pcie4x16", uplink="pcie4x16", socket_links=1)
    nvs = topology.nvswitch(8, link="nvlink3")
    machines = {
        "PCIe 4.0 tree": Cluster.from_links("A100", effective_bandwidth(box, "allreduce", grad), "ib-hdr",
                                            intra_latency=links.get_link("pcie4x16").latency),
        "NVSwitch (NVLink 3)": Cluster.from_links("A100", effective_bandwidth(nvs, "allreduce", grad), "ib-hdr",
                                                  intra_latency=links.get_link("nvlink3").latency),
    }
    for nic in ("ib-hdr", "ib-ndr"):
        g, ranks = single_gpu_nodes(nic)
        machines[f"8 nodes × 1 GPU, {links.get_link(nic).label.split(' (')[0]}"] = Cluster.from_links(
            "A100", "nvlink3", effective_bandwidth(g, "allreduce", grad, ranks), gpus_per_node=1,
            inter_latency=topology.path_latency(g, ranks[0], ranks[1]))
    return DataParallel(models=_frozen(models), machines=_frozen(machines), pcie_box=box, gradient_bytes=grad)


# --------------------------------------------------------------------------- tensor parallelism
@dataclass(frozen=True)
class TensorParallel:
    """The setup of the chapter "Tensor parallelism" (book/parallel/tensor_parallel).

    Attributes
    ----------
    model : ModelConfig
        GPT-3 175B (``catalog.models.get("gpt3-175b")``) at a global batch of 64 sequences,
        as in Korthikanti et al. (2022), Table 3.
    layout : Layout
        t = 8, p = 8, b = 1, sequence parallelism and selective recomputation (dp = 1: 64 GPUs).
    machines : Mapping[str, Cluster]
        The TP group of 8 on seven machines: DGX A100 (NVLink 3), HGX H100 (NVLink 4), eight
        H100 on PCIe 5.0 or 4.0, and H100 nodes of 4, 2 and 1 GPUs joined by IB NDR.
    """

    model: ModelConfig
    layout: Layout
    machines: Mapping[str, Cluster]


@functools.cache
def tensor_parallel():
    """The model, layout and machines of the tensor-parallel chapter and its checker (:class:`TensorParallel`)."""
    gpt3 = replace(_models.get("gpt3-175b"), global_batch=64)
    layout = Layout(dp=1, tp=8, pp=8, microbatch=1, sequence_parallel=True, recompute="selective")
    machines = {
        "DGX A100, NVLink 3": Cluster.dgx_a100(),
        "HGX H100, NVLink 4": Cluster.from_links("H100", "nvlink4", "ib-ndr"),
        "8 H100 on PCIe 5.0": Cluster.from_links("H100", "pcie5x16", "ib-ndr"),
        "8 H100 on PCIe 4.0": Cluster.from_links("H100", "pcie4x16", "ib-ndr"),
        "TP over 2 nodes (4 GPUs each), NDR": Cluster.from_links("H100", "nvlink4", "ib-ndr", gpus_per_node=4),
        "TP over 4 nodes (2 GPUs each), NDR": Cluster.from_links("H100", "nvlink4", "ib-ndr", gpus_per_node=2),
        "TP over 8 nodes (1 GPU each), NDR": Cluster.from_links("H100", "nvlink4", "ib-ndr", gpus_per_node=1),
    }
    return TensorParallel(model=gpt3, layout=layout, machines=_frozen(machines))


@dataclass(frozen=True)
class TensorParallelOverlap:
    """The setup of the section "Overlapping tensor-parallel communication" of the chapter
    "Tensor parallelism" (book/parallel/tensor_parallel) and of its exercise ``tp-ex-overlap``.

    Attributes
    ----------
    model : ModelConfig
        Llama 3 70B (``catalog.models.get("llama3-70b")``: 80 layers, h = 8,192, 64 heads,
        sequence 8,192, global batch 2,048 sequences).
    layout : Layout
        t = 8, p = 4, d = 8 (256 GPUs), b = 1, FlashAttention, sequence parallelism, selective
        recomputation (which adds nothing with FlashAttention), ``tp_overlap = 0``; the other
        overlaps (gradient reduction, parameter gather) off, so that only the TP overlap varies.
    machines : Mapping[str, Cluster]
        ``"DGX A100"`` and ``"DGX H100"``: :func:`interconnect.parallel.machines.machine`,
        whose efficiencies are component measurements (nccl-tests bus bandwidth, GEMM and
        fused-attention throughput), not the calibrated ``Cluster.dgx_a100()``.
    """

    model: ModelConfig
    layout: Layout
    machines: Mapping[str, Cluster]


@functools.cache
def tensor_parallel_overlap():
    """Model, layout and machines of the TP-overlap section and its checker (:class:`TensorParallelOverlap`)."""
    from .parallel.machines import machine

    layout = Layout(dp=8, tp=8, pp=4, microbatch=1, flash_attention=True, sequence_parallel=True,
                    recompute="selective", tp_overlap=0.0)
    machines = {"DGX A100": machine("dgx-a100"), "DGX H100": machine("dgx-h100")}
    return TensorParallelOverlap(model=_models.get("llama3-70b"), layout=layout, machines=_frozen(machines))


@dataclass(frozen=True)
class TensorParallelFP8:
    """The setup of the section "FP8: faster arithmetic, the same bytes" of the chapter
    "Tensor parallelism" (book/parallel/tensor_parallel) and of its exercise ``tp-ex-fp8``.

    Attributes
    ----------
    model : ModelConfig
        Llama 3 70B (``catalog.models.get("llama3-70b")``).
    layout : Layout
        ``stack("megatron-core-2024").layout(dp=8, tp=8, pp=4, microbatch=1)`` (FlashAttention,
        sequence parallelism, gradient-reduction and parameter-gather overlap, ZeRO-1, no
        recomputation, FP32 gradient reduction) with ``tp_overlap = 0`` and ``fp8 = False``;
        the section varies ``tp_overlap`` (0, 1) and ``fp8``.
    machines : Mapping[str, Cluster]
        ``"DGX H100"`` and ``"DGX B200"``: :func:`interconnect.parallel.machines.machine`
        (component-measured efficiencies; FP8 GEMMs at the measured FP8 ceiling).
    """

    model: ModelConfig
    layout: Layout
    machines: Mapping[str, Cluster]


@functools.cache
def tensor_parallel_fp8():
    """Model, layout and machines of the FP8 section and its checker (:class:`TensorParallelFP8`)."""
    from .parallel.machines import machine, stack

    layout = stack("megatron-core-2024").layout(dp=8, tp=8, pp=4, microbatch=1, tp_overlap=0.0, fp8=False)
    machines = {"DGX H100": machine("dgx-h100"), "DGX B200": machine("dgx-b200")}
    return TensorParallelFP8(model=_models.get("llama3-70b"), layout=layout, machines=_frozen(machines))


# ------------------------------------------------------------------------------------ planning
@dataclass(frozen=True)
class Planning:
    """The setup of the chapter "Putting it together: planning a cluster" (book/parallel/planning).

    Attributes
    ----------
    model : ModelConfig
        GPT-3 175B at its published global batch of 1,536 sequences (``catalog.models.get("gpt3-175b")``).
    clusters : Mapping[str, Cluster]
        ``"8×A100 PCIe + HDR"``, ``"DGX A100 + HDR"`` and ``"DGX H100 + NDR"``: 8 GPUs per node,
        calibrated efficiencies (:meth:`interconnect.parallel.Cluster.from_links`).
    memory_limit : float
        76 GiB per GPU the planner may use: 80 GiB GPUs (the datasheets' "80 GB"; HBM capacity
        is binary) less 4 GiB kept for the CUDA context, NCCL buffers and fragmentation.
    """

    model: ModelConfig
    clusters: Mapping[str, Cluster]
    memory_limit: float


@functools.cache
def planning():
    """The model, clusters and memory limit of the planning chapter and its checker (:class:`Planning`)."""
    clusters = {
        "8×A100 PCIe + HDR": Cluster.from_links("A100", "pcie4x16", "ib-hdr"),
        "DGX A100 + HDR": Cluster.from_links("A100", "nvlink3", "ib-hdr"),
        "DGX H100 + NDR": Cluster.from_links("H100", "nvlink4", "ib-ndr"),
    }
    return Planning(model=_models.get("gpt3-175b"), clusters=_frozen(clusters), memory_limit=76 * GiB)


@dataclass(frozen=True)
class Planning2024:
    """The 2024-26 worked examples of the planning chapter (book/parallel/planning) and their checkers.

    Attributes
    ----------
    model : ModelConfig
        Llama 3 405B at Meta's 8,192 tokens and 2,048 sequences (16M tokens) per step
        (``catalog.models.get("llama3-405b")``; Dubey et al. 2024, Table 4).
    machines : Mapping[str, Cluster]
        ``"DGX H100"``, ``"DGX B200"`` (8 GPUs per NVLink domain) and ``"GB200 NVL72"`` (72):
        :func:`interconnect.parallel.machines.machine` presets with component-measured
        efficiencies; their memory limit is the GPU's HBM less 4 GiB.
    stack : SoftwareStack
        ``machines.stack("megatron-core-2024")``: fused attention, overlapped TP, gradient and
        parameter communication, FP32 gradients.
    options : Mapping[str, Any]
        The keyword arguments of every :func:`interconnect.parallel.plan` call: recompute
        none, selective or full; ZeRO-1 (Megatron's distributed optimizer) or ZeRO-2 (Meta's
        FSDP without resharding); microbatches of 1 and 2; uneven stages; the stack.
    machine_batch : int
        Sequences per step of the machine comparison (512, as NVIDIA's Llama 3.1 405B recipe
        on 1,024 H100: 4M tokens).
    """

    model: ModelConfig
    machines: Mapping[str, Cluster]
    stack: Any
    options: Mapping[str, Any]
    machine_batch: int

    def plan(self, n_gpus, machine="DGX H100", model=None, **overrides):
        """:func:`interconnect.parallel.plan` of ``model`` (default :attr:`model`) on ``n_gpus``
        of a machine, with :attr:`options` updated by ``overrides``."""
        from .parallel import plan

        return plan(self.model if model is None else model, self.machines[machine], n_gpus, None,
                    **(dict(self.options) | overrides))


@functools.cache
def planning_2024():
    """The 2024-26 setup of the planning chapter and its checkers (:class:`Planning2024`)."""
    from .parallel import machines as _machines

    core = _machines.stack("megatron-core-2024")
    clusters = {"DGX H100": _machines.machine("dgx-h100"), "DGX B200": _machines.machine("dgx-b200"),
                "GB200 NVL72": _machines.machine("gb200-nvl72")}
    options = dict(recompute=("none", "selective", "full"), zero_stages=(1, 2), microbatches=(1, 2),
                   uneven_stages=True, stack=core)
    return Planning2024(model=_models.get("llama3-405b"), machines=_frozen(clusters), stack=core,
                        options=_frozen(options), machine_batch=512)


# ------------------------------------------------------------------------ selection and operations
@dataclass(frozen=True)
class Operations:
    """The setup of the chapter "Selection and operations" (book/practice/operations).

    Attributes
    ----------
    model : ModelConfig
        GPT-3 13B (``catalog.models.get("gpt3-13b")``) at a global batch of 256, labelled ``"13B"``.
    workloads : Mapping[str, tuple[ModelConfig, Layout]]
        ``"DP-heavy"`` (GPT-3 1.3B at B = 64, dp = 16), ``"TP-heavy"`` (13B, dp = 2, t = 8) and
        ``"PP-heavy"`` (13B, dp = 2, p = 8), the last two overlapping DP with the backward pass.
    clusters : Mapping[str, Cluster]
        8-H100 nodes: ``"PCIe + 100 GbE"``, ``"NVLink + 100 GbE"``, ``"NVLink + NDR IB"``, at the
        H100's measured GEMM ceiling (:func:`interconnect.parallel.ceiling_fraction`) and NVLink 4's
        measured ring efficiency (:func:`interconnect.parallel.machines.comm_efficiency_of`) on every link.
    """

    model: ModelConfig
    workloads: Mapping[str, tuple]
    clusters: Mapping[str, Cluster]


@functools.cache
def operations():
    """The model, workloads and clusters of the operations chapter and its checker (:class:`Operations`)."""
    m13 = replace(_models.get("gpt3-13b"), global_batch=256, name="13B")
    workloads = {
        "DP-heavy": (replace(_models.get("gpt3-1.3b"), global_batch=64, name="1.3B"), Layout(dp=16, tp=1, pp=1)),
        "TP-heavy": (m13, Layout(dp=2, tp=8, pp=1, dp_overlap=1.0)),
        "PP-heavy": (m13, Layout(dp=2, tp=1, pp=8, dp_overlap=1.0)),
    }
    # measured efficiencies of an H100 machine, as the dgx-h100 preset: the H100's GEMM ceiling (MAMF over the
    # dense peak) and NVLink 4's nccl-tests ring busbw over its peak, for every link of the cluster
    eff = dict(gemm_efficiency=ceiling_fraction("H100"), comm_efficiency=comm_efficiency_of("nvlink4"))
    clusters = {"PCIe + 100 GbE": Cluster.from_links("H100", "pcie5x16", "eth-100g", **eff),
                "NVLink + 100 GbE": Cluster.from_links("H100", "nvlink4", "eth-100g", **eff),
                "NVLink + NDR IB": Cluster.from_links("H100", "nvlink4", "ib-ndr", **eff)}
    return Operations(model=m13, workloads=_frozen(workloads), clusters=_frozen(clusters))


# -------------------------------------------------------------------------------- applications
@dataclass(frozen=True)
class Applications:
    """The training-cost setup of the chapter "Applications" (book/practice/applications).

    Attributes
    ----------
    model : ModelConfig
        The Llama-class 70B (``catalog.models.get("llama-class-70b")``), global batch 1,024 of 4,096 tokens.
    nodes : Mapping[str, Cluster]
        8-H100 nodes: ``"NVLink nodes, 8 NICs"``, ``"PCIe nodes, 8 NICs"`` (NDR, one NIC per GPU)
        and ``"NVLink nodes, 1 NIC"`` (one NDR NIC shared by the node's 8 GPUs: 1/8 of it each).
    memory_limit : float
        76 GiB usable per 80 GiB H100 (4 GiB for context and buffers, as in the planning chapter).
    price : Mapping[str, float]
        USD per instance-hour, on-demand, us-east-1, Linux, compiled 2025-12-21 (tsaol/aws-gpu,
        from instances.vantage.sh): ``p5.4xlarge`` (1 H100) and ``p5.48xlarge`` (8 H100). Prices
        change often: treat them as parameters, not constants.
    """

    model: ModelConfig
    nodes: Mapping[str, Cluster]
    memory_limit: float
    price: Mapping[str, float]


@functools.cache
def applications():
    """The model, nodes, memory limit and prices of the applications chapter and its checker."""
    ndr = links.get_link("ib-ndr")
    nodes = {"NVLink nodes, 8 NICs": Cluster.from_links("H100", "nvlink4", ndr),
             "PCIe nodes, 8 NICs": Cluster.from_links("H100", "pcie5x16", ndr),
             "NVLink nodes, 1 NIC": Cluster.from_links("H100", "nvlink4", ndr.bandwidth / 8, inter_latency=ndr.latency)}
    return Applications(model=_models.get("llama-class-70b"), nodes=_frozen(nodes), memory_limit=76 * GiB,
                        price=_frozen({"p5.4xlarge": 6.88, "p5.48xlarge": 55.04}))
