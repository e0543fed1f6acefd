"""The machine of the step-time model: :class:`Cluster`, and the links its groups run on."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from .._validate import as_count, as_fraction, as_nonnegative, as_positive, choice
from ..collectives.nccl import NcclMachine, nccl_time
from ._checks import _scalar_count

__all__ = ["Cluster", "CALIBRATED_GEMM_EFFICIENCY", "CALIBRATED_COMM_EFFICIENCY", "effective_bandwidth",
           "COMM_OPS"]

#: The operations :meth:`Cluster.collective_time` prices: NCCL's collectives, the AllToAll and a
#: point-to-point send/receive between two ranks.
COMM_OPS = ("allreduce", "allgather", "reducescatter", "broadcast", "reduce", "alltoall", "sendrecv")

#: Fraction of the dense peak the GEMMs reach, fitted once (least squares on log error) over
#: all 18 rows of :data:`VALIDATION_ROWS` by :func:`calibrate` (fit: 0.7153; rms log error
#: 4.7 %, worst row 9.3 %). With the HBM-bound element-wise time costed separately.
CALIBRATED_GEMM_EFFICIENCY = 0.715
#: Fraction of the per-direction link peak the collectives reach, fitted together with the
#: above (fit: 0.5705 with the links' latencies on the catalog's one basis, NCCL's end-to-end
#: per-step values; it was 0.5682 with the old per-port InfiniBand figure). For comparison
#: nccl-tests all-reduce busbw on 8xA100 is 78 % of 300 GB/s (REFERENCES.md sec. 4); the fit also
#: absorbs what the model leaves out
#: (kernel launch gaps, contention of TP and PP traffic, imperfect overlap). A *fitted*
#: constant: it prices the collectives of the 2021 calibrated clusters only
#: (:meth:`Cluster.dgx_a100`, :meth:`Cluster.from_links` without ``nccl``), which reproduce the
#: 2021-22 fit; the machine presets of :mod:`interconnect.parallel.machines` price every
#: collective with NCCL's own model instead (:meth:`Cluster.collective_time`).
CALIBRATED_COMM_EFFICIENCY = 0.570


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
        Fraction of the link peak bandwidth the collectives reach, (0, 1]. It prices the
        collectives only where ``nccl`` is None (the 2021 calibrated clusters, at the fitted
        :data:`CALIBRATED_COMM_EFFICIENCY`); with ``nccl`` it is the large-message fraction
        the machine's collectives tend to, kept for reference and for the closed forms that
        take a bandwidth (one-shot and two-shot kernels, textbook exercises).
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
    nccl : NcclMachine, optional
        The node as NCCL's tuning model sees it (:class:`~interconnect.collectives.NcclMachine`:
        GPU generation, NVLinks, NICs, CPU). If given, every collective is priced by NCCL's model
        (:meth:`collective_time`): its choice of algorithm and protocol by size, their latencies
        and achieved bandwidths, on the GPUs and NICs the group spans. None (the default and
        the 2021 calibrated clusters): a ring at ``comm_efficiency`` of the link peak.
    nccl_links : tuple, optional
        ``(intra_bandwidth, inter_bandwidth, comm_efficiency)`` the ``nccl`` machine was built
        with (the presets set it). A copy whose links differ (``dataclasses.replace(machine(
        "dgx-h100"), intra_bandwidth=...)``, e.g. the same GPUs on PCIe) is no longer the machine
        NCCL's model describes, and one given another ``comm_efficiency`` asks for that constant:
        either drops ``nccl`` and prices its collectives at ``comm_efficiency`` of its links.
    sustained_fraction : float
        Share of the measured compute rates (the GEMM ceiling and fused attention) that a whole
        training step keeps, (0, 1]: it divides the linear layers', the logits' and the
        attention core's time, not the HBM-bound element-wise work. 1 (default) is the pure
        bottom-up model; the machine presets set the one constant fitted per GPU generation
        (:data:`interconnect.parallel.machines.SUSTAINED_FRACTION`).
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
    nccl: NcclMachine | None = None
    nccl_links: tuple | None = field(default=None, repr=False, compare=False)
    sustained_fraction: float = 1.0

    def __post_init__(self):
        if self.memory_bandwidth is not None:
            object.__setattr__(self, "memory_bandwidth",
                               float(as_positive("memory_bandwidth", self.memory_bandwidth, "bytes/s")))
        object.__setattr__(self, "gpus_per_node", _scalar_count("gpus_per_node", self.gpus_per_node))
        for n, unit in (("peak_flops", "FLOP/s"), ("intra_bandwidth", "bytes/s"), ("inter_bandwidth", "bytes/s")):
            object.__setattr__(self, n, float(as_positive(n, getattr(self, n), unit)))
        for n in ("intra_latency", "inter_latency"):
            object.__setattr__(self, n, float(as_nonnegative(n, getattr(self, n), "seconds")))
        for n in ("gemm_efficiency", "comm_efficiency", "sustained_fraction"):
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
        if self.nccl is not None and self.nccl_links is not None and \
                tuple(self.nccl_links) != (self.intra_bandwidth, self.inter_bandwidth, self.comm_efficiency):
            object.__setattr__(self, "nccl", None)
            object.__setattr__(self, "nccl_links", None)
        if self.nccl is not None:
            if not isinstance(self.nccl, NcclMachine):
                raise ValueError(f"nccl={self.nccl!r} is not allowed; allowed: None or an "
                                 "interconnect.collectives.NcclMachine")
            if self.nccl.gpus_per_node < self.gpus_per_node:
                raise ValueError(f"nccl.gpus_per_node={self.nccl.gpus_per_node} is out of range; allowed >= "
                                 f"gpus_per_node={self.gpus_per_node}")

    def collective_time(self, op, nbytes, group, stride=1, algorithm=None):
        """Seconds of one collective over ``group`` ranks ``stride`` apart, as this machine runs it.

        The one place the library prices a collective on a :class:`Cluster`: the step model
        (:mod:`interconnect.parallel.step_time`), the serving model and the exercise checkers
        call it.

        * With :attr:`nccl` (the machine presets): NCCL's own model
          (:func:`interconnect.collectives.nccl_time`, a port of its ``tuning.cc``): for this
          size NCCL's choice of algorithm (ring, tree, NVLS) and protocol (LL, LL128, Simple),
          its latency and its achieved bandwidth, so small messages pay NCCL's latencies and
          large ones tend to nccl-tests' bus bandwidth. A group that fits in one NVLink domain
          (``group * stride <= gpus_per_node``) is one NCCL node; otherwise it has ``k``
          members in each of ``group / k`` nodes (``k`` from the stride, as in Megatron's rank
          order) and NCCL's rings run over those members' ``k`` NICs. A ``sendrecv``
          (``group`` 2) is NCCL's two-rank broadcast, its one-hop copy. An AllToAll, which NCCL
          runs as concurrent sends to every peer outside its tuning model, is priced as those
          one-hop copies side by side: ``(k - 1) / p`` of the buffer over NVLink to the
          members in the same node and ``(p - k) / p`` over the GPU's NIC to the others, the
          longer of the two (one latency, not ``p - 1``: the sends are independent).
        * Without (the 2021 calibrated clusters): ``algorithm`` (default ring) of
          :func:`interconnect.collectives.collective_time` at ``comm_efficiency`` (fitted) of
          the link the group spans, with that link's latency.

        Parameters
        ----------
        op : str
            One of :data:`COMM_OPS`.
        nbytes : float
            Bytes of the full buffer (nccl-tests convention; for ``sendrecv`` the message), >= 0.
        group : int
            Ranks, >= 1 (1: no communication, 0 s; ``sendrecv`` needs 2).
        stride : int
            Distance between consecutive members in the global rank order, >= 1.
        algorithm : str, optional
            With :attr:`nccl`: pin one of NCCL's algorithms (``"ring"``, ``"tree"``, ``"nvls"``);
            default NCCL's choice. Without: an algorithm of
            :func:`~interconnect.collectives.collective_time`, default ``"ring"``.

        Returns
        -------
        float
            Seconds.

        Raises
        ------
        ValueError
            For an unknown ``op``, a size or count out of range, or an algorithm NCCL does not
            enable for the call.

        Examples
        --------
        A 16 KiB AllReduce (a decode step's) and a 1 GiB one on the 8 GPUs of a DGX H100: NCCL
        runs the first with the LL protocol in about 17 us, latency-bound; the second with
        NVLS at about 460 GB/s of bus bandwidth. The calibrated DGX A100 prices both with its
        fitted constant:

        >>> from interconnect.parallel.machines import machine
        >>> h100 = machine("dgx-h100")
        >>> round(h100.collective_time("allreduce", 2**14, 8) * 1e6, 1)
        16.9
        >>> round(2 * 7 / 8 * 2**30 / h100.collective_time("allreduce", 2**30, 8) / 1e9)
        459
        >>> a100 = Cluster.dgx_a100()
        >>> round(2 * 7 / 8 * 2**30 / a100.collective_time("allreduce", 2**30, 8) / 1e9)
        171

        Across nodes: 8 ranks 8 apart (data parallelism beside 8-way TP) have one member per
        node, so each node's share rides on one 400 Gb/s NIC:

        >>> round(2 * 7 / 8 * 2**30 / h100.collective_time("allreduce", 2**30, 8, stride=8) / 1e9, 1)
        47.7
        """
        # plain Python numbers skip the general checks: this runs inside the serving model's searches
        op = op if op in COMM_OPS else choice("op", op, COMM_OPS)
        nbytes = float(nbytes) if type(nbytes) in (int, float) and nbytes >= 0 else \
            float(as_nonnegative("nbytes", nbytes, "bytes"))
        group = group if type(group) is int and group >= 1 else as_count("group", group)
        stride = stride if type(stride) is int and stride >= 1 else as_count("stride", stride)
        if op == "sendrecv" and group != 2:
            raise ValueError(f"group={group} is not allowed for op='sendrecv'; allowed: 2")
        if group == 1:
            return 0.0
        if self.nccl is None:
            from ..collectives import collective_time

            if op == "sendrecv":   # one hop: over NVLink inside a node, else over the NIC
                inside = 2 * stride <= self.gpus_per_node
                bw, lat = (self.intra_bandwidth, self.intra_latency) if inside else \
                    (self.inter_bandwidth, self.inter_latency)
                return lat + nbytes / (bw * self.comm_efficiency)
            alg = algorithm or ("pairwise" if op == "alltoall" else "ring")
            return float(collective_time(op, max(nbytes, 1e-300), group, *_group_link(group, stride, self), alg))
        return _nccl_group_time(self.nccl, self.gpus_per_node, op, nbytes, group, stride, algorithm)

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
    """(bandwidth, latency) a ring over a group sees: the terms of closed forms that take a link.

    Ranks are numbered TP fastest, then CP, then DP, then PP (Megatron-Core's order); a group of
    ``group_size`` ranks ``stride`` apart fits in one node when ``group_size * stride <=
    gpus_per_node`` and then runs on NVLink. Otherwise it has ``k`` members per node and
    NCCL runs one ring channel per NIC, so each member crosses the network at
    ``k * inter_bandwidth`` (capped by NVLink) -- the per-GPU NICs of a node work in parallel.

    On a calibrated cluster (no ``nccl``) that bandwidth times ``comm_efficiency``, and the
    link's latency. On a machine preset the same two numbers from NCCL's model
    (:meth:`Cluster.collective_time`): the bus bandwidth of a 1 GiB ring AllReduce over the
    group, and the time of an empty one-hop send on the link, so closed forms agree with the
    collectives the step model prices.
    """
    if cluster.nccl is not None:
        return _nccl_link_terms(cluster, group_size, stride)
    eff = cluster.comm_efficiency
    k = _members_per_node(group_size, stride, cluster.gpus_per_node)
    if k == 0:
        return cluster.intra_bandwidth * eff, cluster.intra_latency
    return min(cluster.intra_bandwidth, k * cluster.inter_bandwidth) * eff, cluster.inter_latency


_BIG = float(2**30)


def _nccl_link_terms(cluster, group_size, stride):
    if group_size < 2:
        group_size, stride = 2, 1
    inside = group_size * stride <= cluster.gpus_per_node
    t = _nccl_group_time(cluster.nccl, cluster.gpus_per_node, "allreduce", _BIG, group_size, stride, "ring")
    bw = 2.0 * (group_size - 1) / group_size * _BIG / t
    lat = _nccl_group_time(cluster.nccl, cluster.gpus_per_node, "sendrecv", 0.0, 2,
                           1 if inside else cluster.gpus_per_node, None)
    return bw, lat


def _nccl_group_time(m, gpus_per_node, op, nbytes, group, stride, algorithm):
    """NCCL's time of ``op`` over ``group`` ranks ``stride`` apart on machine ``m`` (seconds)."""
    from dataclasses import replace

    k = _members_per_node(group, stride, gpus_per_node)
    if k == 0:
        nnodes, ppn, node = 1, group, m
    else:
        ppn = max(d for d in range(1, k + 1) if group % d == 0)  # members per node, dividing the group
        nnodes = group // ppn
        node = replace(m, nics_per_node=min(ppn, m.nics_per_node) if m.nics_per_node else ppn)
    if op == "alltoall":
        inner = ppn if k else group
        near = (inner - 1) / group * nbytes
        far = (group - inner) / group * nbytes
        t_near = _nccl_time_cached("broadcast", round(near), 2, 1, m, None) if inner > 1 else 0.0
        t_far = _nccl_time_cached("broadcast", round(far), 2, 2, _one_nic(m), None) if group > inner else 0.0
        return max(t_near, t_far)
    if op == "sendrecv":
        if k == 0:
            return _nccl_time_cached("broadcast", round(nbytes), 2, 1, m, None)
        return _nccl_time_cached("broadcast", round(nbytes), 2, 2, _one_nic(m), None)
    return _nccl_time_cached(op, round(nbytes), group, nnodes, node, algorithm)


def _one_nic(m):
    """The machine as a send across nodes sees it: one GPU's own NIC."""
    from dataclasses import replace

    return replace(m, nics_per_node=1)


def _nccl_time_cached(op, nbytes, nranks, nnodes, machine, algorithm):
    if machine.graphs is not None:   # graphs do not enter NcclMachine's hash: no cache
        return nccl_time(op, nbytes, nranks, nnodes, machine=machine, algorithm=algorithm)
    return _nccl_time_lru(op, nbytes, nranks, nnodes, machine, algorithm)


@lru_cache(maxsize=8192)
def _nccl_time_lru(op, nbytes, nranks, nnodes, machine, algorithm):
    return nccl_time(op, nbytes, nranks, nnodes, machine=machine, algorithm=algorithm)


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
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16", socket_links=1)
    >>> round(effective_bandwidth(box, 13.4e9) / 1e9, 1)    # one UPI link between the sockets binds
    20.8
    >>> box = topology.pcie_tree(4, 1, 2, gpu_link="pcie4x16", uplink="pcie4x16")   # EPYC 7002's 3 links
    >>> round(effective_bandwidth(box, 13.4e9) / 1e9, 1)    # now the PCIe 4.0 x16 links bind
    31.5
    """
    from ..netsim import effective_bandwidth as _effective_bandwidth

    return _effective_bandwidth(g, op, nbytes, ranks=ranks, **kw)
