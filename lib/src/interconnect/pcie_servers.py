"""Eight-GPU PCIe servers: the machines of the chapter "PCIe" and their AllReduce times.

A small module of presets on :func:`interconnect.topology.pcie_tree` and of the schedules
the chapter compares on them. (It sits beside :mod:`interconnect.topology` and
:mod:`interconnect.collectives` rather than in them while those are being restructured.)
"""

from __future__ import annotations

from . import collectives as C
from . import netsim
from . import topology as T
from .links import get_link

__all__ = ["INTERLEAVED_RANKS", "eight_gpu_server", "pcie_allreduce_times"]

#: Ranks alternating between the two sockets of an 8-GPU server (GPU0, GPU4, GPU1, ...):
#: a careless rank placement, in which every ring hop crosses the socket link.
INTERLEAVED_RANKS = (0, 4, 1, 5, 2, 6, 3, 7)


def eight_gpu_server(gpus_per_switch, gpu_link="pcie3x16", uplink="pcie3x16"):
    """Eight GPUs under two CPU sockets, with ``gpus_per_switch`` GPUs per PCIe switch.

    * ``1``: every GPU on its own CPU root port, four per socket
      (``pcie_tree(4, 0, 2)``);
    * ``2`` or ``4``: two or one switches per socket (``pcie_tree(k, 4 // k, 2)``);
    * ``8``: all eight behind a single switch under one socket (``pcie_tree(8, 1, 1)``).

    Parameters
    ----------
    gpus_per_switch : {1, 2, 4, 8}
    gpu_link, uplink : str
        Catalog links GPU-to-switch and switch-to-root-complex, as for
        :func:`interconnect.topology.pcie_tree`.

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
    if k == 1:
        return T.pcie_tree(4, 0, 2, gpu_link=gpu_link, uplink=uplink)
    if k == 8:
        return T.pcie_tree(8, 1, 1, gpu_link=gpu_link, uplink=uplink)
    return T.pcie_tree(k, 4 // k, 2, gpu_link=gpu_link, uplink=uplink)


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
