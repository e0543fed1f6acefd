"""Transfers inside one machine: the records, P2P copies and host-staged copies.

Part of :mod:`interconnect.transfer`, which documents the mechanisms.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import networkx as nx
import numpy as np

from .. import topology as topo
from .._validate import as_count, as_nonnegative, as_positive
from ..units import GB, fmt_bandwidth, fmt_bytes, fmt_time

#: Host memory bandwidth of one socket, bytes/s: 4 channels of DDR4-2400 x 8 bytes =
#: 76.8 GB/s, Intel's figure for the Xeon E5-2698 v4 of the DGX-1 (Intel ARK "Max
#: Memory Bandwidth"). Rarely the bottleneck of a single PCIe copy.
HOST_MEMORY_BANDWIDTH = 76.8 * GB
#: Host memory bandwidth of one DGX H100 socket, bytes/s: 8 channels of DDR5-4800 x 8
#: bytes = 307.2 GB/s (Xeon Platinum 8480C; derived from the channel count and rate,
#: not checked against Intel ARK here). Default of :func:`bounce_buffer`, whose default
#: graph is a DGX H100-like cluster.
HOST_MEMORY_BANDWIDTH_DDR5 = 307.2 * GB


#: What a :class:`Step` of a transfer is: a latency, streaming the bytes at the route's
#: bottleneck, a device-to-host copy, a host-to-device copy, an RDMA from host memory to host
#: memory, or the further chunks of a pipelined copy (paced by its slowest stage).
STEP_KINDS = ("latency", "stream", "d2h", "h2d", "rdma", "chunks")


@dataclass(frozen=True)
class Step:
    """One part of a :class:`Transfer`'s time.

    Attributes
    ----------
    kind : str
        One of :data:`STEP_KINDS`.
    description : str
        What happens, in words (e.g. ``"D2H copy gpu0 -> pinned buffer on cpu0: ..."``).
    seconds : float
        How long it takes, s.
    """

    kind: str
    description: str
    seconds: float


@dataclass(frozen=True)
class Transfer:
    """Result of a transfer model.

    Attributes
    ----------
    time : float
        Total time, s.
    path : list
        Nodes of the topology crossed, source to destination (host-memory legs are
        described in ``steps``).
    bandwidth : float
        Effective bandwidth ``nbytes / time``, bytes/s (what a benchmark would report;
        0 for an empty transfer).
    steps : list of Step
        What the time is made of (:class:`Step`: kind, description, seconds); the seconds
        sum to ``time``.
    mechanism : str
        ``"NVLink P2P"``, ``"PCIe P2P"``, ``"host staged"``, ``"GPUDirect RDMA"``,
        ``"bounce buffer"``.

    Examples
    --------
    >>> from interconnect import topology
    >>> print(p2p_copy(topology.nvswitch(), "gpu0", "gpu5", 1e9))     # 1 GB over NVLink 4
    NVLink P2P: 2.22 ms (effective 450 GB/s per direction)
      path: gpu0 -> nvsw0 -> gpu5
          600 ns  NVLink P2P (NVSwitch, 18 link(s)): latency over 2 hop(s)
         2.22 ms  stream 1 GB at the bottleneck 450 GB/s per direction
    """

    time: float
    path: list
    bandwidth: float
    steps: list = field(default_factory=list)
    mechanism: str = ""

    def __str__(self):
        lines = [f"{self.mechanism}: {fmt_time(self.time)} "
                 f"(effective {fmt_bandwidth(self.bandwidth) if self.bandwidth > 0 else '0 B/s'})",
                 "  path: " + " -> ".join(map(str, self.path))]
        for step in self.steps:
            lines.append(f"  {fmt_time(step.seconds):>10}  {step.description}")
        return "\n".join(lines)


# ----------------------------------------------------------------------------------
# helpers
# ----------------------------------------------------------------------------------
def _nbytes(nbytes):
    if np.ndim(nbytes) != 0:
        raise ValueError(f"nbytes={nbytes!r} must be a single number of bytes (call once per size)")
    return float(as_nonnegative("nbytes", nbytes, "bytes"))


def _gpu(g, name, value):
    if not isinstance(g, nx.Graph):
        raise ValueError(f"g={type(g).__name__} is not a networkx graph; build one with "
                         "interconnect.topology (e.g. topology.dgx1_hybrid_cube_mesh())")
    if value not in g:
        raise ValueError(f"{name}={value!r} is not a node of the graph; GPUs: "
                         f"{', '.join(map(str, topo.gpus(g)[:8]))}")
    if g.nodes[value].get("kind") != "gpu":
        raise ValueError(f"{name}={value!r} is a {g.nodes[value].get('kind')!r} node, not a GPU")
    return value


def _pair(g, src, dst):
    _gpu(g, "src_gpu", src)
    _gpu(g, "dst_gpu", dst)
    if src == dst:
        raise ValueError(f"src_gpu and dst_gpu are both {src!r}; give two different GPUs")


def _route(g, a, b, kinds, edge_ok):
    h = nx.subgraph_view(
        g, filter_node=lambda n: n == a or n == b or g.nodes[n].get("kind") in kinds,
        filter_edge=lambda u, v: edge_ok(g.edges[u, v]))
    try:
        return topo.path(h, a, b)
    except ValueError:
        return None


def _nvlink_route(g, a, b):
    return _route(g, a, b, ("nvswitch",), topo._is_nvlink)


def _pcie_route(g, a, b):
    return _route(g, a, b, ("pcie_switch", "cpu"), lambda d: not topo._is_nvlink(d))


def _crosses_sockets(g, p):
    return sum(1 for n in p[1:-1] if g.nodes[n].get("kind") == "cpu") >= 2


def _stage(g, p):
    return topo.path_latency(g, p), topo.path_bandwidth(g, p)


def _pipeline(stages, nbytes, chunks):
    """Time and steps of ``stages`` [(kind, desc, latency, bandwidth)] in sequence (chunks=1)
    or as a pipeline of ``chunks`` equal chunks: T = sum(t_i) + (chunks-1) max(t_i),
    t_i = latency_i + (nbytes/chunks) / bandwidth_i."""
    part = nbytes / chunks
    ts = [lat + part / bw for _, _, lat, bw in stages]
    steps = []
    for (kind, desc, _lat, bw), t in zip(stages, ts):
        what = f"{desc}: {fmt_bytes(part, binary=False)} at {fmt_bandwidth(bw)}"
        if chunks > 1:
            what += " (first chunk)" if not steps else " (one chunk)"
        steps.append(Step(kind, what, t))
    if chunks > 1:
        slow = int(np.argmax(ts))
        steps.append(Step("chunks", f"{chunks - 1} more chunks, paced by the slowest stage "
                          f"({stages[slow][1]})", (chunks - 1) * ts[slow]))
    total = float(sum(step.seconds for step in steps))
    return total, steps


def _result(total, p, nbytes, steps, mechanism):
    bw = nbytes / total if total > 0 and nbytes > 0 else 0.0
    return Transfer(time=float(total), path=list(p), bandwidth=float(bw), steps=steps,
                    mechanism=mechanism)


# ----------------------------------------------------------------------------------
# within a machine
# ----------------------------------------------------------------------------------
def p2p_supported(g, src_gpu, dst_gpu):
    """Whether CUDA peer-to-peer between two GPUs is possible in this model.

    True if the pair has an NVLink route (direct or through NVSwitch only), or a PCIe
    route that does not cross the socket interconnect (stays under one root complex).

    Parameters
    ----------
    g : networkx.Graph
    src_gpu, dst_gpu : node
        GPU nodes.

    Returns
    -------
    bool

    References
    ----------
    NVIDIA GPUDirect RDMA docs, sec. 1.1 ("the two devices must share the same
    upstream PCI Express root complex"); CUDA Runtime API, cudaDeviceCanAccessPeer.

    Examples
    --------
    >>> from interconnect import topology
    >>> g = topology.pcie_tree(4, 1, 2)
    >>> p2p_supported(g, "gpu0", "gpu1"), p2p_supported(g, "gpu0", "gpu4")   # same switch; across sockets
    (True, False)
    """
    _pair(g, src_gpu, dst_gpu)
    if _nvlink_route(g, src_gpu, dst_gpu):
        return True
    p = _pcie_route(g, src_gpu, dst_gpu)
    return p is not None and not _crosses_sockets(g, p)


def p2p_copy(g, src_gpu, dst_gpu, nbytes):
    """GPU-to-GPU copy with CUDA peer-to-peer (``cudaMemcpyPeer``), over NVLink or PCIe.

    Route: NVLink if the GPUs are joined directly or through NVSwitch nodes only
    (never forwarded through a third GPU: NVLink P2P is single-hop in hardware);
    otherwise the fewest-latency PCIe route through PCIe switches and CPU root
    complexes. A PCIe route that crosses the socket interconnect (QPI/UPI, ``SYS``)
    is refused: P2P across sockets is unsupported or slow on many platforms, and
    NVIDIA's rule for GPUDirect RDMA is the same root complex.

    ``time = path latency + nbytes / bottleneck bandwidth`` (one copy, alpha-beta).

    Parameters
    ----------
    g : networkx.Graph
        A topology (e.g. ``topology.dgx1_hybrid_cube_mesh(with_pcie=True)``,
        ``topology.pcie_tree()``, ``topology.nvswitch()``).
    src_gpu, dst_gpu : node
        Distinct GPU nodes.
    nbytes : float
        Bytes to copy, >= 0.

    Returns
    -------
    Transfer
        ``mechanism`` ``"NVLink P2P"`` or ``"PCIe P2P"``.

    Raises
    ------
    ValueError
        Bad arguments, no route, or a PCIe route across sockets (use
        :func:`host_staged_copy`).

    References
    ----------
    NVIDIA CUDA Runtime API, "Peer Device Memory Access"; T. Schroeder, "Peer-to-Peer
    & Unified Virtual Addressing" (NVIDIA, 2011); NVIDIA GPUDirect RDMA docs sec. 1.1.

    Examples
    --------
    1 GB on the DGX-1: GPU 0 and GPU 3 share two NVLinks (50 GB/s), GPU 0 and GPU 1 one:

    >>> from interconnect import topology
    >>> g = topology.dgx1_hybrid_cube_mesh(with_pcie=True)
    >>> t = p2p_copy(g, "gpu0", "gpu3", 1e9)
    >>> t.mechanism, round(t.time * 1e3, 1), round(p2p_copy(g, "gpu0", "gpu1", 1e9).time * 1e3, 1)   # ms
    ('NVLink P2P', 20.0, 40.0)
    """
    _pair(g, src_gpu, dst_gpu)
    n = _nbytes(nbytes)
    p = _nvlink_route(g, src_gpu, dst_gpu)
    if p is not None:
        via = "NVSwitch" if len(p) > 2 else "direct NVLink"
        mech, desc = "NVLink P2P", f"NVLink P2P ({via}, {g.edges[p[0], p[1]]['count']} link(s))"
    else:
        p = _pcie_route(g, src_gpu, dst_gpu)
        if p is None:
            raise ValueError(f"no NVLink or PCIe route from {src_gpu!r} to {dst_gpu!r} in this "
                             "graph (a ring or torus has no PCIe tree; build one with PCIe)")
        if _crosses_sockets(g, p):
            raise ValueError(f"P2P from {src_gpu!r} to {dst_gpu!r} would cross the socket "
                             "interconnect (QPI/UPI, 'SYS'): unsupported in this model, as on many "
                             "platforms; use host_staged_copy")
        mech, desc = "PCIe P2P", f"PCIe P2P ({topo._pcie_class(g, p)})"
    lat, bw = _stage(g, p)
    steps = [Step("latency", f"{desc}: latency over {len(p) - 1} hop(s)", lat),
             Step("stream", f"stream {fmt_bytes(n, binary=False)} at the bottleneck {fmt_bandwidth(bw)}", n / bw)]
    return _result(lat + n / bw, p, n, steps, mech)


def _host_of(g, gpu):
    """(cpu node, PCIe path gpu -> cpu) for the root complex above ``gpu``."""
    h = nx.subgraph_view(
        g, filter_node=lambda n: n == gpu or g.nodes[n].get("kind") in ("pcie_switch", "cpu"),
        filter_edge=lambda u, v: not topo._is_nvlink(g.edges[u, v]))
    best = None
    for c in (n for n in h if g.nodes[n].get("kind") == "cpu"):
        try:
            p = nx.shortest_path(h, gpu, c)
        except nx.NetworkXNoPath:
            continue
        # the local root complex: no other CPU on the way
        if any(g.nodes[x].get("kind") == "cpu" for x in p[1:-1]):
            continue
        if best is None or len(p) < len(best):
            best = p
    if best is None:
        raise ValueError(f"{gpu!r} has no PCIe route to a CPU in this graph; host staging needs "
                         "a PCIe tree (topology.pcie_tree(), or dgx1_hybrid_cube_mesh(with_pcie=True))")
    return best[-1], best


def host_of(g, gpu):
    """The CPU (root complex) that ``gpu`` hangs under: the nearest ``"cpu"`` node over
    PCIe, with no other CPU on the way.

    Parameters
    ----------
    g : networkx.Graph
        A topology with a PCIe tree (:func:`interconnect.topology.pcie_tree`, or
        :func:`interconnect.topology.dgx1_hybrid_cube_mesh` with ``with_pcie=True``).
    gpu : str
        A GPU node.

    Returns
    -------
    str
        The CPU node; its memory is the GPU's local host memory.

    Examples
    --------
    >>> from interconnect import topology
    >>> g = topology.pcie_tree(4, 1, 2)
    >>> host_of(g, "gpu1"), host_of(g, "gpu6")
    ('cpu0', 'cpu1')
    """
    _gpu(g, "gpu", gpu)
    return _host_of(g, gpu)[0]


def concurrent_host_reads(g, nbytes=1 * GB, gpus=None):
    """Per-GPU bandwidth when every GPU copies ``nbytes`` from its own socket's memory at
    the same time (a batch load), simulated with :func:`interconnect.netsim.simulate`.

    One flow per GPU, from :func:`host_of` to the GPU, all starting at once; links are
    shared by max-min fairness, so GPUs behind one switch split its uplink. Host memory
    bandwidth is not modelled (one socket's DDR4 is several times an x16 link).

    Parameters
    ----------
    g : networkx.Graph
        A topology with a PCIe tree (see :func:`host_of`).
    nbytes : float
        Bytes each GPU reads, > 0.
    gpus : sequence of str, optional
        The GPUs that read; default all of them (:func:`interconnect.topology.gpus`).

    Returns
    -------
    float
        ``nbytes`` over the time the last copy finishes, bytes/s per GPU.

    Examples
    --------
    >>> from interconnect import topology
    >>> g = topology.pcie_tree(4, 1, 2)            # 4 GPUs share each switch's x16 uplink
    >>> round(concurrent_host_reads(g) / topology.path_bandwidth(g, "sw0", "cpu0"), 6)
    0.25
    """
    from .. import netsim

    nbytes = float(as_positive("nbytes", nbytes, "bytes"))
    gpus = topo.gpus(g) if gpus is None else list(gpus)
    flows = [netsim.Flow(host_of(g, x), x, nbytes) for x in gpus]
    return float(nbytes / netsim.simulate(g, flows).finish.max())


def host_staged_copy(g, src_gpu, dst_gpu, nbytes, host_memory_bandwidth=HOST_MEMORY_BANDWIDTH,
                     chunks=1):
    """GPU-to-GPU copy staged through a pinned host buffer (no P2P).

    Two copies through the root complex: device-to-host from ``src_gpu`` into a pinned
    buffer in the memory of ``src_gpu``'s own socket, then host-to-device into
    ``dst_gpu`` (which crosses the socket interconnect if ``dst_gpu`` hangs under the
    other socket). Each copy runs at the lower of its PCIe path's bottleneck and
    ``host_memory_bandwidth``.

    * ``chunks=1``: the two copies run one after the other (what a plain
      ``cudaMemcpy`` D2H then H2D does): ``T = L1 + n/B1 + L2 + n/B2``.
    * ``chunks=c > 1``: pipelined (double buffering with ``cudaMemcpyAsync`` on two
      streams): ``T = t1 + t2 + (c-1) max(t1, t2)``, ``t_i = L_i + (n/c)/B_i``. While
      both copies run, host memory serves a write and a read at once, so each gets at
      most half of ``host_memory_bandwidth``. More chunks hide one copy behind the
      other but pay the latency per chunk: there is a best ``c``.
    * ``chunks=None``: the pipeline in steady state, as the CUDA driver runs it when
      ``cudaMemcpyPeer`` finds no peer access and stages through its own pinned buffers
      (what p2pBandwidthLatencyTest's "P2P=Disabled" rows measure): each leg's latency
      once, and the bytes at the *slower* of the two legs, not the sum of both,
      ``T = L1 + L2 + n / min(B1, B2)`` (each ``B_i`` at most half of
      ``host_memory_bandwidth``). The limit of the chunked form for many chunks when the
      per-chunk latency is hidden.

    Parameters
    ----------
    g : networkx.Graph
        A topology with a PCIe tree (CPU nodes).
    src_gpu, dst_gpu : node
        Distinct GPU nodes.
    nbytes : float
        Bytes, >= 0.
    host_memory_bandwidth : float
        Bytes/s of the socket's memory (default :data:`HOST_MEMORY_BANDWIDTH`).
    chunks : int or None
        Pipeline chunks, >= 1; ``None`` for the steady-state pipeline (see above).

    Returns
    -------
    Transfer
        ``mechanism="host staged"``; ``path`` = src GPU up to its CPU, then down to
        the destination GPU.

    References
    ----------
    NVIDIA CUDA C++ Best Practices Guide, "Pinned Memory" and "Asynchronous and
    Overlapping Transfers with Computation" (staged, chunked copies); Hockney (1994).

    Examples
    --------
    1 GB between the two sockets of a PCIe 3.0 server: two copies in sequence take twice
    the time of one; 8 chunks overlap them:

    >>> from interconnect import topology
    >>> g = topology.pcie_tree(4, 1, 2)
    >>> round(host_staged_copy(g, "gpu0", "gpu4", 1e9).time * 1e3, 1)             # ms
    127.0
    >>> round(host_staged_copy(g, "gpu0", "gpu4", 1e9, chunks=8).time * 1e3, 1)   # ms
    71.4
    >>> round(host_staged_copy(g, "gpu0", "gpu4", 1e9, chunks=None).bandwidth / 1e9, 2)   # GB/s: one leg
    15.75
    """
    _pair(g, src_gpu, dst_gpu)
    n = _nbytes(nbytes)
    hmb = float(as_positive("host_memory_bandwidth", host_memory_bandwidth, "bytes/s"))
    c = None if chunks is None else as_count("chunks", chunks, 1)
    cpu, up = _host_of(g, src_gpu)
    down = _pcie_route(g, cpu, dst_gpu)
    if down is None:
        raise ValueError(f"no PCIe route from {cpu!r} to {dst_gpu!r}")
    mem = hmb if c == 1 else hmb / 2   # a pipeline reads and writes host memory at once
    l1, b1 = _stage(g, up)
    l2, b2 = _stage(g, down)
    stages = [("d2h", f"D2H copy {src_gpu} -> pinned buffer on {cpu}", l1, min(b1, mem)),
              ("h2d", f"H2D copy {cpu} -> {dst_gpu}"
               + (" (crosses the socket link)" if _crosses_sockets(g, [None] + down) else ""), l2, min(b2, mem))]
    if c is None:
        lat = l1 + l2
        slow = min(stages, key=lambda st: st[3])
        steps = [Step("latency", "latency of both copies (D2H, then H2D), once", lat),
                 Step("stream", f"stream {fmt_bytes(n, binary=False)} through the pipeline at its slower "
                      f"leg ({slow[1]}): {fmt_bandwidth(slow[3])}", n / slow[3])]
        return _result(lat + n / slow[3], up + down[1:], n, steps, "host staged")
    total, steps = _pipeline(stages, n, c)
    return _result(total, up + down[1:], n, steps, "host staged")


# ----------------------------------------------------------------------------------
# across machines
# ----------------------------------------------------------------------------------
