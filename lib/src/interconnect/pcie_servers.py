"""Eight-GPU PCIe servers: the machines of the chapter "PCIe", their AllReduce times and host staging.

A small module of presets on :func:`interconnect.topology.pcie_tree` and of the schedules
the chapter compares on them. (It sits beside :mod:`interconnect.topology` and
:mod:`interconnect.collectives` rather than in them while those are being restructured.)
"""

from __future__ import annotations

from typing import NamedTuple

from . import collectives as C
from . import netsim
from . import topology as T
from . import transfer as X
from .catalog import measurements
from .links import get_link

__all__ = ["INTERLEAVED_RANKS", "eight_gpu_server", "pcie_allreduce_times", "hgx_h100_host",
           "StagedCheck", "staged_copy_check"]

#: Ranks alternating between the two sockets of an 8-GPU server (GPU0, GPU4, GPU1, ...):
#: a careless rank placement, in which every ring hop crosses the socket link.
INTERLEAVED_RANKS = (0, 4, 1, 5, 2, 6, 3, 7)


def eight_gpu_server(gpus_per_switch, gpu_link="pcie3x16", uplink="pcie3x16", socket_links=1):
    """Eight GPUs under two CPU sockets, with ``gpus_per_switch`` GPUs per PCIe switch.

    * ``1``: every GPU on its own CPU root port, four per socket
      (``pcie_tree(4, 0, 2)``);
    * ``2`` or ``4``: two or one switches per socket (``pcie_tree(k, 4 // k, 2)``);
    * ``8``: all eight behind a single switch under one socket (``pcie_tree(8, 1, 1)``).

    The sockets are joined by ``socket_links`` UPI 10.4 GT/s links, by default one: the
    PCIe chapter's machine keeps the narrowest socket link on purpose, so that the socket
    link can be seen to bind, and says so. ``socket_links=None`` gives
    :func:`~interconnect.topology.pcie_tree`'s own default, the real links of the GPU
    link's platform (:data:`interconnect.topology.DEFAULT_SOCKET_LINK`).

    Parameters
    ----------
    gpus_per_switch : {1, 2, 4, 8}
    gpu_link, uplink : str
        Catalog links GPU-to-switch and switch-to-root-complex, as for
        :func:`interconnect.topology.pcie_tree`.
    socket_links : int or None
        UPI 10.4 GT/s links between the sockets (default 1); ``None`` for the platform's.

    Returns
    -------
    networkx.Graph

    Examples
    --------
    >>> from interconnect import topology
    >>> [len(topology.gpus(eight_gpu_server(k))) for k in (1, 2, 4, 8)]
    [8, 8, 8, 8]
    """
    k = gpus_per_switch
    if k not in (1, 2, 4, 8):
        raise ValueError(f"gpus_per_switch={gpus_per_switch!r} must be 1, 2, 4 or 8 (eight GPUs, two sockets)")
    kw = dict(gpu_link=gpu_link, uplink=uplink, socket_links=socket_links)
    if k == 1:
        return T.pcie_tree(4, 0, 2, **kw)
    if k == 8:
        return T.pcie_tree(8, 1, 1, **kw)
    return T.pcie_tree(k, 4 // k, 2, **kw)


def pcie_allreduce_times(g, nbytes=2e9, interleave=INTERLEAVED_RANKS):
    """An AllReduce of ``nbytes`` on a PCIe tree: the closed form and three simulated schedules.

    * ``"closed form, ring"``: :func:`interconnect.collectives.collective_time`, ring, at
      the GPUs' own link (every rank its own link, nothing shared);
    * ``"ring, PCIe order"``: :func:`interconnect.netsim.simulate_collective`, ring with
      the ranks in GPU order;
    * ``"ring, interleaved"``: the same ring with the ranks in the order ``interleave``;
    * ``"Rabenseifner"``: recursive halving then doubling, ranks in GPU order.

    Parameters
    ----------
    g : networkx.Graph
        A PCIe tree, e.g. :func:`eight_gpu_server`.
    nbytes : float
        Bytes reduced per GPU (default 2 GB, the BF16 gradient of a 1e9-parameter model).
    interleave : sequence of int
        Rank order, as indices into the GPUs, for the interleaved ring.

    Returns
    -------
    dict
        ``{schedule: seconds}`` in the order above.
    """
    gp = T.gpus(g)
    lk = get_link(g.edges[gp[0], next(iter(g.neighbors(gp[0])))]["link"])
    return {
        "closed form, ring": C.collective_time("allreduce", nbytes, len(gp), lk.bandwidth, lk.latency, "ring"),
        "ring, PCIe order": netsim.simulate_collective(g, "allreduce", nbytes, ranks=gp, algorithm="ring").time,
        "ring, interleaved": netsim.simulate_collective(g, "allreduce", nbytes, ranks=[gp[i] for i in interleave],
                                                        algorithm="ring").time,
        "Rabenseifner": netsim.simulate_collective(g, "allreduce", nbytes, ranks=gp, algorithm="rabenseifner").time,
    }


def hgx_h100_host(socket_link="upi2-16", socket_links=None):
    """The PCIe side of an 8 x H100 SXM server (HGX/DGX H100): what host staging crosses.

    Two Sapphire Rapids sockets joined by their four UPI 2.0 links (``"upi2-16"``,
    :mod:`interconnect.catalog.socket_links`), four GPUs under each socket, each GPU on its
    own PCIe 5.0 x16 link behind a PCIe switch with an x16 uplink
    (``pcie_tree(1, 4, 2, ...)``; the switch is the one a GPU shares with its NIC, ``PIX``
    in ``nvidia-smi topo -m``; NICs and NVLink are not in this graph).

    Parameters
    ----------
    socket_link : str
        Socket-link record (default ``"upi2-16"``).
    socket_links : int, optional
        Links between the sockets (default the record's count, 4).

    Returns
    -------
    networkx.Graph

    Examples
    --------
    >>> g = hgx_h100_host()
    >>> g.edges["cpu0", "cpu1"]["count"], round(T.path_bandwidth(g, "gpu0", "gpu4") / 1e9, 2)   # GB/s
    (4, 63.02)
    """
    return T.pcie_tree(1, 4, 2, gpu_link="pcie5x16", uplink="pcie5x16", socket_link=socket_link,
                       socket_links=socket_links)


class StagedCheck(NamedTuple):
    """One model of a host-staged copy against a measurement (:func:`staged_copy_check`)."""

    model: str          #: what is modelled, in words
    bandwidth: float    #: modelled effective bandwidth, bytes/s per direction
    measured: float     #: the measurement, bytes/s per direction
    error: float        #: bandwidth / measured - 1


def staged_copy_check(nbytes=1e9):
    """A cross-socket GPU-to-GPU copy on an HGX H100 with peer access off: models against the measurement.

    The measurement is p2pBandwidthLatencyTest's "Unidirectional P2P=Disabled" figure for
    GPU0 to GPU4 on an 8 x H100 SXM server (NVIDIA/nccl issue #1264,
    ``measurements.get("h100-p2p-disabled-uni-cross-socket")``; every pair of that matrix,
    same socket or not, reads 36-38 GB/s). Three models, each
    :func:`interconnect.transfer.host_staged_copy` with DDR5 host memory:

    * one UPI link at 10.4 GT/s, two copies in sequence (``socket_links=1``, the lower bound);
    * the real four UPI 2.0 links (:func:`hgx_h100_host`), two copies in sequence;
    * the real links, the copies pipelined as the driver stages them (``chunks=None``):
      the bytes at the slower leg, one PCIe 5.0 x16 link.

    Nothing is fitted; the errors are reported as they come out. The socket link decides
    only the first row: with the real links the cross-socket copy equals the same-socket one,
    as the measurement's flat matrix has it (GPU0 to GPU1 37.19 GB/s, to GPU4 37.06), and the
    gap between the two closed forms is the driver's staging, which NVIDIA does not document.

    Parameters
    ----------
    nbytes : float
        Bytes copied (> 0); the latencies are negligible from a few MB on.

    Returns
    -------
    list of StagedCheck

    Examples
    --------
    >>> [(round(c.bandwidth / 1e9, 1), round(c.error, 2)) for c in staged_copy_check()]
    [(15.6, -0.58), (31.5, -0.15), (63.0, 0.7)]
    """
    from ._validate import as_positive

    n = float(as_positive("nbytes", nbytes, "bytes"))
    meas = measurements.get("h100-p2p-disabled-uni-cross-socket").value
    mem = X.HOST_MEMORY_BANDWIDTH_DDR5
    one_upi = T.pcie_tree(1, 4, 2, gpu_link="pcie5x16", uplink="pcie5x16", socket_links=1)
    real = hgx_h100_host()
    rows = [("one UPI 10.4 GT/s link, D2H then H2D", one_upi, 1),
            ("four UPI 2.0 links, D2H then H2D", real, 1),
            ("four UPI 2.0 links, pipelined (driver staging)", real, None)]
    out = []
    for label, g, chunks in rows:
        bw = X.host_staged_copy(g, "gpu0", "gpu4", n, host_memory_bandwidth=mem, chunks=chunks).bandwidth
        out.append(StagedCheck(label, bw, meas, bw / meas - 1.0))
    return out
