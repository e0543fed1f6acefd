"""NCCL's constants and the channels its topology search finds: the tables
:mod:`interconnect.collectives.nccl` computes its predictions from.

:data:`CONSTANTS` holds NCCL's constants, copied once from commit :data:`NCCL_COMMIT`;
:func:`nccl_graphs` gives the channel count and per-channel bandwidth NCCL's search finds
for ring, tree and NVLS on a machine (:class:`NcclMachine`, presets in :data:`MACHINES`).
See :mod:`interconnect.collectives.nccl` for what is ported and what is not.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, field

from .._validate import as_count, as_positive, choice

__all__ = ["NCCL_COMMIT", "CONSTANTS", "NCCL_ALGORITHMS", "NCCL_PROTOCOLS", "NCCL_OPS", "NcclMachine", "NcclGraph",
           "MACHINES", "nccl_graphs"]

#: The NVIDIA/nccl commit every constant below is copied from (master, 2026-06-11).
NCCL_COMMIT = "5067397c2676d5aed50042fc39e5c8ee96eb0027"

#: NCCL's algorithms, in NCCL's order (``NCCL_ALGO_TREE`` = 0 ... ``NCCL_ALGO_PAT`` = 6);
#: ties in the choice go to the first.
NCCL_ALGORITHMS = ("tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat")
#: NCCL's protocols, in NCCL's order (``NCCL_PROTO_LL`` = 0, ``LL128`` = 1, ``SIMPLE`` = 2).
NCCL_PROTOCOLS = ("LL", "LL128", "Simple")
#: The collectives the model covers (NCCL's ``ncclFunc_t`` without send/recv).
NCCL_OPS = ("broadcast", "reduce", "allgather", "reducescatter", "allreduce")

_ARCHES = ("volta", "ampere", "hopper", "blackwell")  # NCCL's compCapIndex 0..3
_HW = ("nvlink", "pci", "net")  # NCCL_HW_NVLINK, NCCL_HW_PCI, NCCL_HW_NET
_CPUS = ("intel", "amd", "arm")

# One table of NCCL's constants; rows are per algorithm in NCCL_ALGORITHMS order, each a
# (LL, LL128, Simple) triple. Latencies in microseconds, bandwidths in GB/s, as in NCCL.
CONSTANTS = {
    "commit": NCCL_COMMIT,
    # src/graph/tuning.cc, ncclTunerConstantsDefaults.baseLatencies (us)
    "base_latency_us": ((6.8, 14.0, 8.4), (6.6, 14.0, 8.4), (0, 0, 0), (0, 0, 0), (0, 0, 0), (0, 0, 0),
                        (8.0, 8.0, 8.0)),
    # ... .hwLatencies[NVLINK | PCI | NET] (us)
    "hw_latency_us": {
        "nvlink": ((0.6, 1.25, 4.0), (0.6, 1.9, 3.4), (0, 0, 3.7), (0, 0, 2.8), (0, 0, 25), (0, 0, 25), (0, 0, 4.0)),
        "pci": ((1.0, 1.9, 4.0), (1.0, 2.5, 5.7), (0, 0, 3.7), (0, 0, 2.8), (0, 0, 0), (0, 0, 0), (0, 0, 4.0)),
        "net": ((5.0, 8.5, 14), (2.7, 4.0, 14.0), (0, 0, 31), (0, 0, 30), (0, 0, 18), (0, 0, 20.9), (0, 0, 14)),
    },
    # ... .llMaxBws[index1][index2] (GB/s): index1 = arch on one node, CPU (Intel 0, AMD 1)
    # across nodes; index2 = 1 node, 2 nodes, more
    "ll_max_bw": ((39.0, 39.0, 20.4), (87.7, 22.5, 19.0), (141.0, 45.0, 35.0), (282.0, 90.0, 70.0)),
    # ... .perChMaxRingLL128Bws / perChMaxTreeLL128Bws / perChMaxTreeBws / perChMaxNVLSTreeBws
    # [arch][index2] (GB/s per channel)
    "per_ch_max_ring_ll128_bw": ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 36.7), (40.0, 40.0, 40.0)),
    "per_ch_max_tree_ll128_bw": ((20.0, 20.0, 20.0), (20.0, 20.0, 20.0), (36.7, 36.7, 29.0), (55.6, 31.67, 20.0)),
    "per_ch_max_tree_bw": ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (38.7, 41.4, 36.0), (70.0, 42.8, 24.0)),
    "per_ch_max_nvls_tree_bw": ((26.5, 18.5, 10.0), (24.0, 23.6, 17.8), (0.0, 57.7, 45.5), (0.0, 96.0, 80.0)),
    # ... nvlsEfficiency[arch]
    "nvls_efficiency": (0.0, 0.0, 0.85, 0.74),
    # ... getNetOverhead (us): Intel 1.0, AMD 2.0, otherwise 1.0; x3 for Simple
    "net_overhead_us": {"intel": 1.0, "amd": 2.0, "arm": 1.0},
    # ... treeCorrectionFactor[proto][log2(nBytes / 64)], 64 B to 256 MiB
    "tree_correction": (
        (1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0),
        (1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0),
        (.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9),
    ),
    # src/graph/topo.h: SM80_NVLINK_BW, SM90_NVLINK_BW, SM100_NVLINK_BW (GB/s per NVLink, per direction)
    "nvlink_bw_per_link": {"volta": 20.0, "ampere": 20.0, "hopper": 20.6, "blackwell": 40.1},
    # src/graph/search.cc: speedArrayIntra/Inter, sm90SpeedArray*, sm100SpeedArray* (GB/s per channel)
    "speeds_intra": {
        "volta": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
        "ampere": (40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0),
        "hopper": (60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0),
        "blackwell": (90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0),
    },
    "speeds_inter": {
        "volta": (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2,
                  0.24, 0.12),
        "ampere": (48.0, 30.0, 28.0, 24.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0, 2.4, 1.2,
                   0.24, 0.12),
        "hopper": (48.0, 45.0, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0, 2.4, 1.2, 0.24, 0.12),
        "blackwell": (96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0, 20.0, 17.5, 15.0, 12.0, 6.0, 3.0,
                      2.4, 1.2, 0.24, 0.12),
    },
    # src/init.cc: ring graph maxChannels = MAXCHANNELS / 2; device.h: NCCL_MAX_NVLS_ARITY
    "max_ring_channels": 32,
    "max_nvls_arity": 32,
    # --- what NCCL launches (the achieved-time model of interconnect.collectives.nccl) ---
    # src/include/comm.h: NCCL_{LL,LL128,SIMPLE}_THREAD_THRESHOLD (bytes per thread; ring LL
    # x nRanks, tuning.cc), in NCCL_PROTOCOLS order
    "thread_threshold": (8, 8, 64),
    # src/include/device.h: NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS, NCCL_SIMPLE_MAX_NTHREADS
    # (ring Simple drops to 256 when the ring is no faster than PCI_BW = 12 GB/s, tuning.cc)
    "max_threads": (512, 640, 512),
    "pci_bw": 12.0,
    # src/transport/nvls.cc: NVLS_NCHANNELS_SM90 / _SM100_NVL (one node) / _SM100 (nodes),
    # NCCL_NVLS_CHUNKSIZE default
    "nvls_channels": {"hopper": (16, 16), "blackwell": (24, 32)},
    "nvls_chunk": 128 * 1024,
    # src/device/all_reduce.h, RunWorkColl<AllReduce, NVLS, SIMPLE> on one node: three warp
    # groups (scatter into the NVLS buffer, multimem reduce + multicast, gather out of it)
    # pass each loop of nHeads chunks down a pipeline of three stages
    "nvls_stages": 3,
}

_TREE, _RING, _CD, _CC, _NVLS, _NVLS_TREE, _PAT = range(7)
_LL, _LL128, _SIMPLE = range(3)
_US = 1e-6
_GB = 1e9


@dataclass(frozen=True)
class NcclGraph:
    """What NCCL's topology search found for one algorithm (``struct ncclTopoGraph``).

    Attributes
    ----------
    n_channels : int
        ``graph->nChannels``.
    bw_intra, bw_inter : float
        ``graph->bwIntra``, ``graph->bwInter``: bandwidth per channel inside a node and
        across nodes, bytes/s per direction.
    latency_inter : float
        ``graph->latencyInter``, seconds (0 unless the network plugin reports one).
    same_channels : bool
        ``graph->sameChannels`` (rings use the same channels for every GPU).
    """

    n_channels: int
    bw_intra: float
    bw_inter: float
    latency_inter: float = 0.0
    same_channels: bool = True


@dataclass(frozen=True)
class NcclMachine:
    """A node as NCCL's tuning model sees it.

    Attributes
    ----------
    name : str
        Label.
    arch : str
        ``"volta"``, ``"ampere"``, ``"hopper"`` or ``"blackwell"`` (NCCL's compute
        capability index).
    gpus_per_node : int
        GPUs in a node.
    intra : str
        ``"nvlink"`` (all GPUs through NVSwitch) or ``"pci"``.
    nvlinks : int
        NVLinks per GPU (``intra="nvlink"``); each counts NCCL's per-link figure
        (``CONSTANTS["nvlink_bw_per_link"]``, 20 GB/s on A100, 20.6 on H100).
    pci_bw : float
        Per-GPU PCIe bandwidth NCCL counts (``intra="pci"``), bytes/s.
    nvswitch : bool
        Whether the GPUs sit on NVSwitch (NVLS needs it and Hopper or later).
    nics_per_node, nic_bw : int, float
        NICs per node and the bandwidth of one, bytes/s per direction.
    cpu : str
        ``"intel"``, ``"amd"`` or ``"arm"`` (the LL cap and the net overhead across nodes).
    collnet : bool
        Whether CollNet (SHARP in the switches) is enabled; off by default as in NCCL.
    graphs : dict or None
        Optional ``{"ring": NcclGraph, "tree": ..., "nvls": ...}`` replacing
        :func:`nccl_graphs`' search (e.g. copied from an ``NCCL_DEBUG_SUBSYS=GRAPH`` log).
    """

    name: str
    arch: str
    gpus_per_node: int = 8
    intra: str = "nvlink"
    nvlinks: int = 12
    pci_bw: float = 24e9
    nvswitch: bool = True
    nics_per_node: int = 8
    nic_bw: float = 25e9
    cpu: str = "intel"
    collnet: bool = False
    graphs: dict | None = field(default=None, compare=False)

    def __post_init__(self):
        choice("arch", self.arch, _ARCHES)
        choice("intra", self.intra, ("nvlink", "pci"))
        choice("cpu", self.cpu, _CPUS)
        as_count("gpus_per_node", self.gpus_per_node)
        as_count("nvlinks", self.nvlinks, minimum=0)
        as_count("nics_per_node", self.nics_per_node, minimum=0)
        as_positive("pci_bw", self.pci_bw, "bytes/s")
        as_positive("nic_bw", self.nic_bw, "bytes/s")
        if self.intra == "nvlink" and self.nvlinks == 0:
            raise ValueError(f"nvlinks=0 with intra='nvlink' (machine {self.name!r}); expected nvlinks >= 1")

    @property
    def intra_bw(self) -> float:
        """Per-GPU bandwidth NCCL counts inside the node, bytes/s per direction."""
        if self.intra == "nvlink":
            return self.nvlinks * CONSTANTS["nvlink_bw_per_link"][self.arch] * _GB
        return self.pci_bw


#: Presets: DGX-class 8-GPU nodes with one NIC per GPU. H200 is H100's NVLink 4 node
#: (NCCL models both alike); the NICs are 200 Gb/s HDR (A100) and 400 Gb/s NDR.
MACHINES = {
    "dgx-a100": NcclMachine("dgx-a100", "ampere", nvlinks=12, nic_bw=25e9, cpu="amd"),
    "dgx-h100": NcclMachine("dgx-h100", "hopper", nvlinks=18, nic_bw=50e9, cpu="intel"),
    "dgx-h200": NcclMachine("dgx-h200", "hopper", nvlinks=18, nic_bw=50e9, cpu="intel"),
    "dgx-b200": NcclMachine("dgx-b200", "blackwell", nvlinks=18, nic_bw=50e9, cpu="intel"),
}


def _machine(machine):
    if isinstance(machine, NcclMachine):
        return machine
    return MACHINES[choice("machine", machine, tuple(MACHINES))]


def _log2i(n):
    """NCCL's ``log2i``: floor(log2(n)), -1 for 0."""
    return int(n).bit_length() - 1


# --- the topology search, for one switched node ------------------------------------------
def _dup(n, bw, arch, max_channels):
    """``ncclTopoDupChannels`` for a ring or tree graph (GB/s)."""
    if bw < 25.0:
        return n, bw
    if _ARCHES.index(arch) >= 2 and bw < 50.0 and n > 4:  # ccMin > 80
        return n, bw
    dup = min(2 * n, max_channels)
    return dup, bw / math.ceil(dup / n)


def _search(total, speeds, min_ch, max_ch, per_channel=1.0):
    """Pass 1 of ``ncclTopoCompute`` on a switched node: (nChannels, speed) or None.

    Each channel takes ``per_channel * speed`` of every GPU's switch link (1 for rings and
    chains, ``(n + 1) / n`` on average for NVLS, whose head GPU counts twice).
    """
    i = 0
    while i < len(speeds) - 1 and speeds[i] * min_ch > total:
        i += 1
    best = None
    while True:
        s = speeds[i]
        n = min(int(total / (per_channel * s) + 1e-9), max_ch)
        if n >= min_ch and (best is None or n * s > best[0] * best[1]):
            best = (n, s)
        if best and (best[0] == max_ch or best[0] * best[1] >= total):
            return best
        if i < len(speeds) - 1 and (best is None or speeds[i + 1] / best[1] > .49):
            i += 1
            continue
        return best


def _nvls_graph(m, ppn, nnodes):
    """The NVLS graph: min = max = ppn channels on one node; heads are GPUs pulling from the switch."""
    if not (m.nvswitch and m.intra == "nvlink" and _ARCHES.index(m.arch) >= 2 and ppn >= 2):
        return NcclGraph(0, 0.0, 0.0)
    n = min(ppn, CONSTANTS["max_nvls_arity"])
    total = m.intra_bw / _GB
    speeds = CONSTANTS["speeds_intra"][m.arch]
    # one channel per head GPU: every GPU's link carries bw for each channel, twice for its own
    found = _search(total, speeds, n, n, per_channel=(n + 1) / n)
    if found is None:
        return NcclGraph(0, 0.0, 0.0)
    bw_intra = found[1]
    if nnodes == 1:
        # pass 2 raises bwInter while it is below 2 x bwIntra (nothing on a node limits it)
        i = speeds.index(bw_intra)
        bw_inter = bw_intra
        while bw_inter < 2 * bw_intra and i > 0:
            i -= 1
            bw_inter = speeds[i]
        return NcclGraph(n, bw_intra * _GB, bw_inter * _GB, same_channels=False)
    nic = _nic_speed(m)
    heads = min(n, max(m.nics_per_node, 1))
    return NcclGraph(heads, bw_intra * _GB, nic * _GB, same_channels=False)


def _nic_speed(m):
    speeds = CONSTANTS["speeds_inter"][m.arch]
    return next((s for s in speeds if s <= m.nic_bw / _GB + 1e-9), speeds[-1])


def _intra_graphs(m, ppn):
    total = m.intra_bw / _GB
    speeds = CONSTANTS["speeds_intra"][m.arch]
    found = _search(total, speeds, 1, CONSTANTS["max_ring_channels"])
    n, s = _dup(*found, m.arch, CONSTANTS["max_ring_channels"])
    # pass 2: try higher speeds with the channels found
    faster = [x for x in speeds if x > s and n * x <= total + 1e-9]
    s = max(faster, default=s)
    ring = NcclGraph(n, s * _GB, s * _GB)
    # the tree is searched with min = max = the ring's channels
    t = _search(total, speeds, n, n)
    tn, ts = (n, s) if t is None else _dup(*t, m.arch, n)
    tree = NcclGraph(tn, ts * _GB, ts * _GB)
    return ring, tree


def _inter_graphs(m):
    total = m.intra_bw / _GB
    s = _nic_speed(m)
    n = max(m.nics_per_node, 1)
    n, s = _dup(n, s, m.arch, CONSTANTS["max_ring_channels"])
    ring = NcclGraph(n, s * _GB, s * _GB)
    # trees (2 nodes): pass 2 raises bwIntra while below 2 x bwInter and the node carries it
    speeds = CONSTANTS["speeds_inter"][m.arch]
    bi = s
    for x in reversed(speeds):
        if x > bi and bi < 2 * s and n * x <= total + 1e-9:
            bi = x
    tree = NcclGraph(n, bi * _GB, s * _GB)
    return ring, tree


def nccl_graphs(machine="dgx-h100", nranks=8, nnodes=1):
    """The channels NCCL's topology search finds: ``{"ring", "tree", "nvls"}`` -> :class:`NcclGraph`.

    Parameters
    ----------
    machine : str or NcclMachine
        A key of :data:`MACHINES` or a machine.
    nranks, nnodes : int
        GPUs in the communicator and nodes they span (``nranks`` a multiple of ``nnodes``,
        at most ``gpus_per_node`` per node).

    Examples
    --------
    >>> g = nccl_graphs("dgx-a100")
    >>> g["ring"].n_channels, g["ring"].bw_intra / 1e9
    (12, 20.0)
    >>> g = nccl_graphs("dgx-h100")
    >>> g["ring"].n_channels, g["ring"].bw_intra / 1e9
    (12, 30.0)
    >>> g["nvls"].n_channels, g["nvls"].bw_intra / 1e9, g["nvls"].bw_inter / 1e9
    (8, 40.0, 60.0)
    """
    m = _machine(machine)
    nranks, nnodes, ppn = _shape(m, nranks, nnodes)
    if m.graphs is not None:
        return {k: m.graphs.get(k, NcclGraph(0, 0.0, 0.0)) for k in ("ring", "tree", "nvls")}
    return dict(_search_graphs(m, ppn, nnodes))


def _graphs(m, nranks, nnodes):
    """:func:`nccl_graphs` for a machine and a shape already checked (read-only, possibly shared)."""
    if m.graphs is not None:
        return {k: m.graphs.get(k, NcclGraph(0, 0.0, 0.0)) for k in ("ring", "tree", "nvls")}
    return _search_graphs(m, nranks // nnodes, nnodes)


@functools.lru_cache(maxsize=512)
def _search_graphs(m, ppn, nnodes):
    # cached per machine and shape (machines without their own graphs only: NcclMachine's
    # hash and equality leave ``graphs`` out)
    ring, tree = _intra_graphs(m, ppn) if nnodes == 1 else _inter_graphs(m)
    return {"ring": ring, "tree": tree, "nvls": _nvls_graph(m, ppn, nnodes)}


def _shape(m, nranks, nnodes):
    nranks = as_count("nranks", nranks, minimum=2)
    nnodes = as_count("nnodes", nnodes)
    if nranks % nnodes:
        raise ValueError(f"nranks={nranks} is not a multiple of nnodes={nnodes}; NCCL's model assumes "
                         "the same number of GPUs on every node")
    ppn = nranks // nnodes
    if ppn > m.gpus_per_node:
        raise ValueError(f"nranks={nranks} over nnodes={nnodes} puts {ppn} GPUs on a node; "
                         f"machine {m.name!r} has gpus_per_node={m.gpus_per_node} (allowed 1..{m.gpus_per_node})")
    return nranks, nnodes, ppn
