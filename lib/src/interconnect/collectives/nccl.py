"""NCCL's own performance model: a port of its tuning tables and its choice of algorithm.

The alpha-beta model in :mod:`~interconnect.collectives.cost` runs a collective at the
link's peak. NCCL does not: a ring moves data through a *protocol* (``Simple``, ``LL``,
``LL128``) whose flags and synchronisation cost bandwidth, over a number of *channels*
(CUDA blocks, each with its own share of the links), and it picks, for every call, the
algorithm and protocol its model predicts to be fastest. That model is public, in
``src/graph/tuning.cc`` (``ncclTopoTuneModel``, ``ncclTopoGetAlgoTime``) and
``src/enqueue.cc`` (``topoGetAlgoInfo``), and this module ports it:

* :data:`CONSTANTS`: NCCL's constants (base and hardware latencies, LL and LL128
  bandwidth caps, NVLS efficiency, the tree correction factors, the per-link NVLink
  figure of ``topo.h``, the speed ladders of ``search.cc``), copied once from commit
  :data:`NCCL_COMMIT`.
* :func:`nccl_graphs`: the channels NCCL's topology search finds on a machine
  (:class:`NcclMachine`, presets in :data:`MACHINES`): channel count and per-channel
  bandwidth for ring, tree and NVLS.
* :func:`nccl_table`: NCCL's ``latencies[coll][algo][proto]`` (seconds) and
  ``bandwidths[coll][algo][proto]`` (algorithm bandwidth, bytes/s) for one communicator.
* :func:`nccl_time`, :func:`nccl_choice`, :func:`nccl_busbw`, :func:`nccl_busbw_curve`,
  :func:`nccl_predict`: the predicted time ``latency + nbytes / bandwidth`` of
  ``ncclTopoGetAlgoTime``, the fastest (algorithm, protocol) as ``topoGetAlgoInfo`` picks
  it, and nccl-tests' bus bandwidth of that time.

Units are SI, as everywhere in :mod:`interconnect`: bytes, seconds, bytes/s per direction
(NCCL itself works in GB/s and microseconds; the conversion is at the boundary).

What is ported and what is not
------------------------------
``ncclTopoTuneModel`` and ``ncclTopoGetAlgoTime`` are ported line by line (one pipelined
operation, ``numPipeOps = 1``; no tuner plugin; no ``NCCL_ALGO``/``NCCL_PROTO``
overrides, pass ``algorithm``/``protocol`` instead). The topology search
(``ncclTopoCompute``) is not ported in general: :func:`nccl_graphs` reproduces what it
finds on a node whose GPUs all hang off NVSwitch (or off one PCIe switch) with one NIC
per GPU, following its speed ladder, its "decrease bandwidth" and "increase bandwidth"
passes and ``ncclTopoDupChannels``; machines it cannot describe can pass their own
:class:`NcclGraph` values. Inter-node graphs are an approximation (one ring channel per
NIC at the fastest ladder speed the NIC carries); trees are taken as balanced trees (no
``.85`` penalty of the simple-tree fallback).

NCCL's model is a *tuning heuristic*: it exists to rank algorithms, not to promise a
throughput. It leaves out the kernel launch, the channel count NCCL actually launches for
small messages, and the pipeline fill at medium sizes, so it is most faithful for large
messages and optimistic in the middle of the range; ``tests/test_nccl_model.py`` reports
the error of every published point.

Examples
--------
>>> from interconnect.units import GiB, KiB
>>> nccl_choice("allreduce", 4 * GiB, 8, machine="dgx-a100")
('ring', 'Simple')
>>> nccl_choice("allreduce", 4 * GiB, 8, machine="dgx-h100")
('nvls', 'Simple')
>>> nccl_choice("allreduce", 32 * KiB, 8, machine="dgx-h100")
('ring', 'LL')
>>> round(nccl_busbw("allreduce", 16 * GiB, 8, machine="dgx-a100") / 1e9, 1)
239.9
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .._validate import as_count, as_nonnegative, as_positive, choice

__all__ = [
    "NCCL_COMMIT", "CONSTANTS", "NCCL_ALGORITHMS", "NCCL_PROTOCOLS", "NCCL_OPS", "NcclMachine", "NcclGraph",
    "NcclPrediction", "MACHINES", "nccl_graphs", "nccl_table", "nccl_time", "nccl_choice", "nccl_busbw",
    "nccl_busbw_curve", "nccl_predict",
]

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


# --- ncclTopoTuneModel -------------------------------------------------------------------
def _tune(m, op, nranks, nnodes):
    """``ncclTopoTuneModel`` for one function: {(a, p): (latency us, algBw GB/s)}, enabled entries."""
    _, _, ppn_int = _shape(m, nranks, nnodes)
    g = nccl_graphs(m, nranks, nnodes)
    graphs = {_TREE: g["tree"], _RING: g["ring"], _CD: g["nvls"], _CC: g["ring"], _NVLS: g["nvls"],
              _NVLS_TREE: g["nvls"], _PAT: g["ring"]}
    C = CONSTANTS
    cc = _ARCHES.index(m.arch)
    index2 = nnodes - 1 if nnodes <= 2 else 2
    index1 = cc if nnodes == 1 else (1 if m.cpu == "amd" else 0)
    ll_max = C["ll_max_bw"][index1][index2]
    tree_max = C["per_ch_max_tree_bw"][cc][index2]
    ring_ll128_max = C["per_ch_max_ring_ll128_bw"][cc][index2]
    tree_ll128_max = C["per_ch_max_tree_ll128_bw"][cc][index2]
    nvls_tree_max = C["per_ch_max_nvls_tree_bw"][cc][index2]
    ppn = nranks / nnodes
    intra_hw = "nvlink" if m.intra == "nvlink" else "pci"
    hw = intra_hw if nnodes == 1 else "net"
    ar, ag_rs = op == "allreduce", op in ("allgather", "reducescatter")
    nsteps = 2 * (nranks - 1) if ar else nranks - 1 if ag_rs else nranks
    pat_enabled = nnodes == nranks and cc >= 1
    out = {}
    for a in range(7):
        if op in ("broadcast", "reduce") and a != _RING:
            continue
        if ag_rs and a not in (_PAT, _RING, _NVLS, _CD):
            continue
        if ar and a == _PAT:
            continue
        gr = graphs[a]
        for p in range(3):
            if a in (_NVLS, _NVLS_TREE) and p != _SIMPLE:
                continue
            if ag_rs and a == _PAT and (p != _SIMPLE or not pat_enabled):
                continue
            collnet = a in (_CD, _CC)
            bw = (gr.bw_intra if nnodes <= 2 or collnet else gr.bw_inter) / _GB
            if a in (_NVLS, _NVLS_TREE):
                if gr.n_channels < 2:
                    continue
                intra_bw = gr.bw_intra / _GB * C["nvls_efficiency"][cc] * (gr.n_channels - 1) / gr.n_channels
                intra_bw *= 2.0 if ar else (ppn - 1) / ppn
                inter_bw = gr.bw_inter / _GB * (2 if nnodes <= 2 and a == _NVLS_TREE else 1)
                bw = min(intra_bw, inter_bw, nvls_tree_max if a == _NVLS_TREE else math.inf)
            bus = gr.n_channels * bw
            if a == _RING and p == _LL:
                bus = min(ll_max, bus * .5)
            if a == _RING and p == _LL128:
                bus = min(bus * .92, gr.n_channels * ring_ll128_max)
            if a == _TREE and ar:
                bus = min(bus * .92, gr.n_channels * tree_max)
            if a == _TREE and p == _LL:
                bus = min(bus / 3.8, ll_max)
            if a == _TREE and p == _LL128:
                bus = min(bus * (7.0 / 9.0 if nnodes == 1 else 120.0 / 128.0), gr.n_channels * tree_ll128_max)
            if a == _PAT:
                bus *= .75
            if collnet and p != _SIMPLE:
                bus = 0.0
            if a == _CD and p == _SIMPLE:
                if ag_rs:
                    bus = ppn * min(gr.bw_intra, gr.bw_inter * 0.9) / _GB
                else:
                    factor = ppn / gr.n_channels if gr.n_channels else math.inf
                    factor -= (factor - 1) / 2
                    bus /= factor
                    if cc >= 2:
                        bus *= .85
            if a in (_NVLS, _CD) and p == _SIMPLE and ag_rs and nnodes > 1:
                bus = 0.0  # needs a CollNet plugin with iallgather/ireducescatter
            if not (a != _RING and ag_rs):
                bus *= nranks / nsteps if a in (_RING, _NVLS, _NVLS_TREE) else .5
            # latencies
            lat = C["base_latency_us"][a][p]
            intra_lat = C["hw_latency_us"][intra_hw][a][p]
            inter_lat = C["hw_latency_us"]["net"][_TREE if ppn == 1 else a][p] + gr.latency_inter / _US
            if p == _SIMPLE:
                inter_lat += gr.latency_inter / _US
            if a == _RING:
                hw_lat = C["hw_latency_us"][hw][a][p]
                if op in ("broadcast", "reduce"):
                    if gr.same_channels:
                        lat += hw_lat
                    else:
                        if p == _SIMPLE:
                            hw_lat = C["hw_latency_us"][hw][_TREE][p]
                        lat += nsteps * hw_lat
                else:
                    overhead = 0.0
                    if nnodes > 1:
                        overhead = C["net_overhead_us"][m.cpu] * (3 if p == _SIMPLE else 1)
                    intra_lat = max(intra_lat, overhead)
                    inter_steps = 0 if nnodes == 1 else 2 * (nnodes - 1) if ar else nnodes - 1
                    lat += (nsteps - inter_steps) * intra_lat + inter_steps * inter_lat
            elif a == _TREE:
                if ar:
                    lat += 2 * ((ppn_int - 1) * intra_lat + _log2i(nnodes) * inter_lat)
            elif a == _CD:
                lat += 2 * (min(1, ppn_int - 1) * intra_lat + (ppn_int - 1) * 0.4) + inter_lat
            elif a == _CC:
                lat += 2 * (ppn_int - 1) * intra_lat + inter_lat
            elif a == _NVLS:
                lat = intra_lat + (inter_lat if nnodes > 1 else 0.0)
            elif a == _NVLS_TREE:
                lat += intra_lat + 2 * _log2i(nnodes) * inter_lat
            elif a == _PAT and ag_rs:
                lat += _log2i(nnodes) * (inter_lat / 3.5) + nranks * 2.8
            # enable/disable (tuning.cc after the loop, and getAlgoInfo's support checks)
            if p == _LL128 and not (m.intra == "nvlink" or ppn_int == 1):
                bus = 0.0  # LL128 only up to NVB inside the node
            if a == _NVLS_TREE and nnodes == 1:
                bus = 0.0
            if not m.collnet and (collnet or (a == _NVLS and nnodes > 1)):
                bus = 0.0
            if a == _CD and not m.nvswitch:
                bus = 0.0
            if bus > 0:
                out[a, p] = (lat, bus)
    return out


def nccl_table(op, nranks, nnodes=1, machine="dgx-h100"):
    """NCCL's model for one communicator: ``{(algorithm, protocol): (latency, bandwidth)}``.

    ``latency`` in seconds, ``bandwidth`` the *algorithm* bandwidth in bytes/s
    (``comm->bandwidths``: the bus bandwidth already divided by the collective's bus
    factor, so that ``time = latency + nbytes / bandwidth``). Only the pairs NCCL enables
    are listed, in NCCL's order.

    Parameters
    ----------
    op : str
        One of :data:`NCCL_OPS`.
    nranks, nnodes : int
        GPUs and nodes.
    machine : str or NcclMachine
        A key of :data:`MACHINES` or a machine.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``machine``, ``nranks < 2``, or a shape the machine cannot hold.

    Examples
    --------
    >>> t = nccl_table("allreduce", 8, machine="dgx-a100")
    >>> lat, bw = t["ring", "Simple"]
    >>> round(lat * 1e6, 1), round(bw / 1e9, 1)        # 8.4 + 14 x 3.4 us; 240 x 8/14 GB/s
    (56.0, 137.1)
    >>> sorted({a for a, _ in t})
    ['ring', 'tree']
    """
    op = choice("op", op, NCCL_OPS)
    m = _machine(machine)
    raw = _tune(m, op, nranks, nnodes)
    return {(NCCL_ALGORITHMS[a], NCCL_PROTOCOLS[p]): (lat * _US, bw * _GB) for (a, p), (lat, bw) in raw.items()}


def _time_us(m, raw, op, a, p, nbytes, nranks, nnodes):
    """``ncclTopoGetAlgoTime`` (numPipeOps = 1), microseconds."""
    lat, bw = raw[a, p]
    log_size = _log2i(int(nbytes) >> 6)
    if a == _TREE and op == "allreduce" and 0 <= log_size < 23:
        bw *= CONSTANTS["tree_correction"][p][log_size]
    # NVLS_TREE correction: Blackwell on x86 only
    if a == _NVLS_TREE and op == "allreduce" and 0 <= log_size < 24 and m.arch == "blackwell" and m.cpu != "arm":
        bw *= CONSTANTS["tree_correction"][p][log_size]
    if a == _RING and p == _SIMPLE and nnodes > 1 and op == "allreduce":
        n_channels = nccl_graphs(m, nranks, nnodes)["ring"].n_channels
        if nbytes / (n_channels * nranks) >= 64:
            lat *= 1.4 if _ARCHES.index(m.arch) >= 1 else 1.9  # plateau effect of ring
    return lat + nbytes / (1000 * bw)


def _resolve(op, nbytes, nranks, nnodes, machine, algorithm, protocol):
    op = choice("op", op, NCCL_OPS)
    m = _machine(machine)
    nbytes = as_nonnegative("nbytes", nbytes, "bytes")
    raw = _tune(m, op, nranks, nnodes)
    allowed_a = None if algorithm is None else NCCL_ALGORITHMS.index(choice("algorithm", algorithm, NCCL_ALGORITHMS))
    allowed_p = None if protocol is None else NCCL_PROTOCOLS.index(choice("protocol", protocol, NCCL_PROTOCOLS))
    keys = [k for k in raw if (allowed_a is None or k[0] == allowed_a) and (allowed_p is None or k[1] == allowed_p)]
    if not keys:
        enabled = ", ".join(f"{NCCL_ALGORITHMS[a]}/{NCCL_PROTOCOLS[p]}" for a, p in raw)
        raise ValueError(f"algorithm={algorithm!r}, protocol={protocol!r} is not enabled for op={op!r} on "
                         f"{nranks} GPUs in {nnodes} node(s) of {m.name!r}; enabled: {enabled}")
    return op, m, raw, keys, nbytes


def _best(m, raw, keys, op, nbytes, nranks, nnodes):
    best, best_t = None, math.inf
    for k in keys:  # NCCL's order; strict < keeps the first on a tie
        t = _time_us(m, raw, op, *k, nbytes, nranks, nnodes)
        if t < best_t:
            best, best_t = k, t
    return best, best_t


_BUS = {"allreduce": lambda n: 2 * (n - 1) / n, "allgather": lambda n: (n - 1) / n,
        "reducescatter": lambda n: (n - 1) / n, "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0}


@dataclass(frozen=True)
class NcclPrediction:
    """NCCL's prediction for one call.

    Attributes
    ----------
    algorithm, protocol : str
        The pair (NCCL's choice unless both were given).
    time : float
        Predicted time, seconds.
    algbw, busbw : float
        ``nbytes / time`` and nccl-tests' bus bandwidth, bytes/s.
    latency, bandwidth : float
        The pair's latency (s) and algorithm bandwidth (bytes/s) in NCCL's table.
    n_channels : int
        Channels of the pair's graph.
    """

    algorithm: str
    protocol: str
    time: float
    algbw: float
    busbw: float
    latency: float
    bandwidth: float
    n_channels: int


def nccl_predict(op, nbytes, nranks, nnodes=1, machine="dgx-h100", algorithm=None, protocol=None):
    """NCCL's predicted time, bandwidths and choice for one call (a :class:`NcclPrediction`).

    Parameters
    ----------
    op : str
        One of :data:`NCCL_OPS`.
    nbytes : float
        Message size in bytes as nccl-tests prints it (for allgather and reducescatter the
        whole gathered buffer, which is also what NCCL's model is given).
    nranks, nnodes : int
        GPUs and nodes.
    machine : str or NcclMachine
        A key of :data:`MACHINES` or a machine.
    algorithm, protocol : str or None
        Pin one (as ``NCCL_ALGO``/``NCCL_PROTO`` would); ``None`` lets NCCL choose.

    Raises
    ------
    ValueError
        For unknown names, ``nbytes < 0``, ``nranks < 2``, an impossible shape, or a pair
        NCCL does not enable for this call.

    Examples
    --------
    >>> p = nccl_predict("allreduce", 2**30, 8, machine="dgx-h200")
    >>> p.algorithm, p.protocol, p.n_channels
    ('nvls', 'Simple', 8)
    >>> round(p.busbw / 1e9)
    473
    >>> p = nccl_predict("allreduce", 2**30, 8, machine="dgx-h200", algorithm="ring")
    >>> p.protocol, round(p.busbw / 1e9)
    ('Simple', 356)
    """
    op, m, raw, keys, nbytes = _resolve(op, nbytes, nranks, nnodes, machine, algorithm, protocol)
    nbytes = float(nbytes)
    (a, p), t_us = _best(m, raw, keys, op, nbytes, nranks, nnodes)
    t = t_us * _US
    algbw = nbytes / t
    graphs = nccl_graphs(m, nranks, nnodes)
    graph = {_TREE: "tree", _RING: "ring", _CC: "ring", _PAT: "ring"}.get(a, "nvls")
    lat, bw = raw[a, p]
    return NcclPrediction(NCCL_ALGORITHMS[a], NCCL_PROTOCOLS[p], t, algbw, algbw * _BUS[op](nranks), lat * _US,
                          bw * _GB, graphs[graph].n_channels)


def nccl_time(op, nbytes, nranks, nnodes=1, machine="dgx-h100", algorithm=None, protocol=None):
    """NCCL's predicted time of one collective, seconds (``ncclTopoGetAlgoTime`` of its choice).

    Parameters are those of :func:`nccl_predict`.

    Examples
    --------
    >>> t = nccl_time("allreduce", 0, 8, machine="dgx-h100")    # ring/LL: 6.6 + 14 x 0.6 us
    >>> round(t * 1e6, 2)
    15.0
    >>> try:
    ...     nccl_time("allreduce", 1e6, 8, machine="dgx-h100", algorithm="nvls", protocol="LL")
    ... except ValueError as e:
    ...     print(str(e).split(";")[1].strip())
    enabled: tree/LL, tree/LL128, tree/Simple, ring/LL, ring/LL128, ring/Simple, nvls/Simple
    """
    return nccl_predict(op, nbytes, nranks, nnodes, machine, algorithm, protocol).time


def nccl_choice(op, nbytes, nranks, nnodes=1, machine="dgx-h100"):
    """NCCL's (algorithm, protocol) for one call: the smallest predicted time, as ``topoGetAlgoInfo``.

    Examples
    --------
    >>> [nccl_choice("allreduce", s, 8, machine="dgx-a100")[1] for s in (2**10, 2**22, 2**30)]
    ['LL', 'LL128', 'Simple']
    """
    p = nccl_predict(op, nbytes, nranks, nnodes, machine)
    return p.algorithm, p.protocol


def nccl_busbw(op, nbytes, nranks, nnodes=1, machine="dgx-h100", algorithm=None, protocol=None):
    """nccl-tests' bus bandwidth of NCCL's predicted time, bytes/s.

    ``busbw = nbytes / time x factor``, the factor ``2(n-1)/n`` for allreduce,
    ``(n-1)/n`` for allgather and reducescatter, 1 for broadcast and reduce.

    Examples
    --------
    >>> round(nccl_busbw("allreduce", 16 * 2**30, 8, machine="dgx-h200") / 1e9, 1)
    475.8
    """
    return nccl_predict(op, nbytes, nranks, nnodes, machine, algorithm, protocol).busbw


def nccl_busbw_curve(op, sizes, nranks, nnodes=1, machine="dgx-h100", algorithm=None, protocol=None):
    """NCCL's predicted bus bandwidth at each size, bytes/s, as a numpy array.

    Examples
    --------
    >>> import numpy as np
    >>> bw = nccl_busbw_curve("allreduce", 2.0 ** np.arange(10, 35, 4), 8, machine="dgx-a100")
    >>> bool(np.all(np.diff(bw) > 0)), round(bw[-1] / 1e9)
    (True, 240)
    """
    sizes = as_nonnegative("sizes", sizes, "bytes")
    flat = np.atleast_1d(np.asarray(sizes, dtype=float))
    out = np.array([nccl_busbw(op, s, nranks, nnodes, machine, algorithm, protocol) for s in flat])
    return out.reshape(np.shape(sizes))
