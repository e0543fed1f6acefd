"""Topology: graphs of GPUs, switches, NICs and CPUs, and what can be read off them.

Layer 2 of the stack. Every builder returns an undirected :class:`networkx.Graph`
that follows the library's graph contract (shared with :mod:`interconnect.transfer`
and :mod:`interconnect.netsim`):

* ``g.graph["name"]`` is a human-readable name; ``g.graph["builder"]`` names the
  builder and the builder's arguments are stored next to it.
* Node attribute ``kind`` is one of :data:`KINDS`. GPUs carry ``index`` (0..n-1 within
  their machine) and, in clusters, ``node``. Every builder also stores a drawing
  position ``pos`` (used by ``draw``, which lives in :mod:`interconnect.viz.topology`).
* Edge attributes: ``bandwidth`` (bytes/s **per direction**, for the whole edge: two
  physical links between a pair make one edge with ``count=2`` and twice the
  bandwidth), ``latency`` (s, one way), ``link`` (a name for
  :func:`interconnect.links.get_link`, or ``""`` for a synthetic link) and ``count``
  (physical links, >= 1). Every edge is full duplex: each direction is an
  independent resource of ``bandwidth``.

Node names
----------
Single machines: ``"gpu0"``, ``"cpu0"`` (a CPU socket = its PCIe root complex),
``"sw0"`` (a PCIe switch; ``"swtop0"`` for an upper-level switch), ``"nvsw0"``.
Clusters prefix the machine: ``"n3.gpu5"``, ``"n3.nic5"``, ``"n3.nvsw0"``; network
switches are ``"leaf0"``, ``"spine0"``. Fat trees: hosts ``"h12"``, edge switches
``"edge<pod>.<i>"``, aggregation ``"agg<pod>.<i>"``, core ``"core<j>"``.

Latency convention
------------------
Every catalog latency is on one basis (:data:`interconnect.links.LATENCY_BASIS`): the
end-to-end latency of one small message over one hop, software included (NCCL's per-step
values: 0.6 us NVLink, 1.0 us PCIe, 2.7 us network). An edge carries its link's latency,
except that an edge between a device and a *switch chip* (PCIe switch, NVSwitch) carries
half of it, so a device-switch-device hop costs what one direct link costs and a switch
adds no latency of its own (PCIe switches and NVSwitch are cut-through; their
port-to-port latency is a small part of an end-to-end latency). Networks follow the same
rule: the network figure is GPU to GPU, so :func:`cluster` splits it over the path (the
GPU-NIC edges keep the PCIe latency, the two NIC-switch edges share the rest) and GPU to
GPU through one switch costs exactly one network latency; a switch-to-switch edge costs
as much as a NIC-switch edge. In :func:`fat_tree` every edge carries half the link's
latency, so two hosts under one switch are one latency apart.
The socket link's latency is a placeholder (:data:`SOCKET_LINK_LATENCY`).

References
----------
NVIDIA, *NVIDIA DGX-1 With Tesla V100 System Architecture* (white paper WP-08437-002,
2017), section "DGX-1 NVLink Network Topology for Efficient Application Scaling".
NVIDIA, ``nvidia-smi topo -m`` legend (reproduced e.g. in Microway, "nvidia-smi:
Control Your GPUs", https://www.microway.com/hpc-tech-tips/nvidia-smi_control-your-gpus/,
with a DGX-1 V100 matrix).
M. Al-Fares, A. Loukissas, A. Vahdat, "A Scalable, Commodity Data Center Network
Architecture", SIGCOMM 2008.
NVIDIA DGX H100 / DGX A100 user guides; NVIDIA HGX AI Factory reference architecture,
"Network Logical Architecture" (rail-optimised leaf-spine compute fabric).
NVIDIA DGX SuperPOD reference architecture, DGX H100 (RA-11333-001), and the GB200 NVL72
specifications (:mod:`interconnect.topology.superpod`).
Beyond NVIDIA (:mod:`interconnect.topology.other_fabrics`): AMD's xGMI full mesh, Intel Gaudi's
on-die RoCE box, TPU slices joined by optical circuit switches (Jouppi et al., ISCA 2023) and
the dragonfly (Kim, Dally, Scott, Abts, ISCA 2008).
"""

from __future__ import annotations

from .bisection import bisection_bandwidth
from .build import (
    DEFAULT_SOCKET_LINK,
    DGX1_NVLINKS,
    KINDS,
    NETWORK_KINDS,
    NVSWITCHES_PER_BOARD,
    QPI_BANDWIDTH,
    SOCKET_LINK_LATENCY,
    UPI_BANDWIDTH,
    dgx1_hybrid_cube_mesh,
    nvswitch,
    pcie_tree,
    ring,
    torus,
)
from .build import _is_nvlink as _is_nvlink  # used by interconnect.transfer
from .ecmp import ecmp_count
from .fabrics import cluster, cluster_paths, fat_tree
from .other_fabrics import (
    ASSUMED_LATENCY,
    TPU_CUBE,
    EightWay,
    dragonfly,
    eight_way_systems,
    full_mesh,
    gaudi_node,
    mesh_rings,
    torus_ring,
    tpu_slice,
    xgmi_mesh,
)
from .paths import (
    ShortestPaths,
    all_shortest_paths,
    diameter,
    endpoints,
    gpus,
    path,
    path_bandwidth,
    path_latency,
    routing_weight,
    widest_path,
)
from .superpod import NVL72_GPUS, NVL72_SWITCH_CHIPS, inventory, nvl72, superpod
from .topo_matrix import TOPO_LEGEND, TopoMatrix, topo_matrix
from .topo_matrix import _pcie_class as _pcie_class  # used by interconnect.transfer

__all__ = [
    "KINDS", "NETWORK_KINDS", "UPI_BANDWIDTH", "QPI_BANDWIDTH", "SOCKET_LINK_LATENCY", "DEFAULT_SOCKET_LINK",
    "DGX1_NVLINKS", "NVSWITCHES_PER_BOARD", "TOPO_LEGEND", "NVL72_GPUS", "NVL72_SWITCH_CHIPS",
    "ring", "pcie_tree", "dgx1_hybrid_cube_mesh", "nvswitch", "torus", "fat_tree", "cluster", "cluster_paths",
    "superpod", "nvl72", "inventory",
    "ASSUMED_LATENCY", "TPU_CUBE", "full_mesh", "xgmi_mesh", "mesh_rings", "gaudi_node", "tpu_slice", "torus_ring",
    "dragonfly", "EightWay", "eight_way_systems",
    "gpus", "endpoints", "path", "all_shortest_paths", "ecmp_count", "path_bandwidth", "path_latency", "widest_path",
    "ShortestPaths", "routing_weight",
    "diameter", "bisection_bandwidth", "TopoMatrix", "topo_matrix", "draw",
]


def __getattr__(name):
    """``topology.draw`` is :func:`interconnect.viz.topology.draw`, imported on first use so that
    ``import interconnect.topology`` does not import matplotlib."""
    if name == "draw":
        from ..viz.topology import draw

        return draw
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
