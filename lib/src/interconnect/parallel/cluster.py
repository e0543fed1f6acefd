"""The machine of the step-time model: :class:`Cluster`, and the links its groups run on."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .._validate import as_fraction, as_nonnegative, as_positive, choice
from ._checks import _scalar_count

__all__ = ["Cluster", "CALIBRATED_GEMM_EFFICIENCY", "CALIBRATED_COMM_EFFICIENCY", "effective_bandwidth"]

#: Fraction of the dense peak the GEMMs reach, fitted once (least squares on log error) over
#: all 18 rows of :data:`VALIDATION_ROWS` by :func:`calibrate` (fit: 0.7153; rms log error
#: 4.7 %, worst row 9.3 %). With the HBM-bound element-wise time costed separately.
CALIBRATED_GEMM_EFFICIENCY = 0.715
#: Fraction of the per-direction link peak the collectives reach, fitted together with the
#: above (fit: 0.5682). For comparison nccl-tests all-reduce busbw on 8xA100 is 78 % of
#: 300 GB/s (REFERENCES.md sec. 4); the fit also absorbs what the model leaves out
#: (kernel launch gaps, contention of TP and PP traffic, imperfect overlap).
CALIBRATED_COMM_EFFICIENCY = 0.568


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
    peak_flops_fp8 : float, optional
        Dense FP8 peak per GPU, FLOP/s; needed by layouts with ``fp8=True``.
    fp8_gemm_efficiency : float, optional
        Fraction of ``peak_flops_fp8`` the FP8 GEMMs reach, (0, 1]; default ``gemm_efficiency``.
    attention_efficiency : float, optional
        Fraction of ``peak_flops`` a fused attention kernel (FlashAttention) reaches,
        (0, 1]; it prices the attention core (``Q K^T`` and ``softmax . V``) of layouts with
        ``flash_attention=True``. Default ``gemm_efficiency``.
    gemm_gpu : str, optional
        A GPU of :data:`interconnect.parallel.gemm.CEILING`. If given, the linear layers'
        and the logits' GEMMs run at :func:`~interconnect.parallel.gemm.layer_gemm_efficiency` of their
        shapes (a measured ceiling times tile and wave quantisation) instead of the one
        number ``gemm_efficiency``. The machine presets of :mod:`interconnect.parallel.machines`
        set it.
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
    peak_flops_fp8: float | None = None
    fp8_gemm_efficiency: float | None = None
    attention_efficiency: float | None = None
    gemm_gpu: str | None = None

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
        if self.peak_flops_fp8 is not None:
            fp8 = float(as_positive("peak_flops_fp8", self.peak_flops_fp8, "FLOP/s"))
            object.__setattr__(self, "peak_flops_fp8", fp8)
        if self.gemm_gpu is not None:
            from .gemm import CEILING

            object.__setattr__(self, "gemm_gpu", choice("gemm_gpu", self.gemm_gpu, list(CEILING)))
        for n in ("fp8_gemm_efficiency", "attention_efficiency"):
            if getattr(self, n) is not None:
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
        from ..devices import GPU, get_gpu

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
    from ..links import Link, get_link

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


def _group_link(group_size, stride, cluster):
    """(bandwidth, latency) a ring over a group sees, at the cluster's comm efficiency.

    Ranks are numbered TP fastest, then CP, then DP, then PP (Megatron-Core's order); a group of
    ``group_size`` ranks ``stride`` apart fits in one node when ``group_size * stride <=
    gpus_per_node`` and then runs on NVLink. Otherwise it has ``k`` members per node and
    NCCL runs one ring channel per NIC, so each member crosses the network at
    ``k * inter_bandwidth`` (capped by NVLink) -- the per-GPU NICs of a node work in parallel.
    """
    eff = cluster.comm_efficiency
    k = _members_per_node(group_size, stride, cluster.gpus_per_node)
    if k == 0:
        return cluster.intra_bandwidth * eff, cluster.intra_latency
    return min(cluster.intra_bandwidth, k * cluster.inter_bandwidth) * eff, cluster.inter_latency


def _members_per_node(group_size, stride, gpus_per_node):
    """Members ``k`` of a group of ``group_size`` ranks ``stride`` apart in one node, whose NICs
    carry the group's ring channels in parallel; 0 when the whole group fits in one node."""
    g = gpus_per_node
    if group_size * stride <= g:
        return 0
    return max(1, min(group_size, g // stride)) if stride < g else 1


def effective_bandwidth(g, nbytes, ranks=None, op="allreduce", **kw):
    """:func:`interconnect.netsim.effective_bandwidth` with ``op`` last (kept for one release).

    The bus bandwidth one collective reaches on a topology, bytes/s per direction; it can
    stand in for a link's bandwidth in :meth:`Cluster.from_links`.

    Examples
    --------
    >>> from interconnect import topology
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16")
    >>> round(effective_bandwidth(box, 13.4e9) / 1e9, 1)    # the socket link binds
    20.8
    """
    from ..netsim import effective_bandwidth as _effective_bandwidth

    return _effective_bandwidth(g, op, nbytes, ranks=ranks, **kw)
