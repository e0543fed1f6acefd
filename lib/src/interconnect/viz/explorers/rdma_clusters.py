"""Explorers of the chapter "RDMA clusters" (``book/history/rdma_clusters.ipynb``).

Presentation only: the times are the closed forms
:func:`interconnect.collectives.hierarchical_allreduce_time` and
:func:`interconnect.collectives.collective_time`, with each GPU's NVLink and network
path read off :func:`interconnect.topology.cluster`.
"""

from __future__ import annotations

import numpy as np

from ... import collectives as C
from ... import links, plots
from ...topology import cluster_paths
from ...units import GB, GiB, MiB, fmt_bandwidth, fmt_bytes
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["cluster_paths", "cluster_allreduce_explorer"]

#: Server counts on the x axis: 2 to 1024.
NODE_COUNTS = tuple(int(n) for n in 2 ** np.arange(1, 11))


def cluster_allreduce_explorer(nic_names=("ib-hdr", "ib-ndr", "ib-xdr", "eth-200g", "eth-400g", "eth-800g"),
                               default_nic="ib-ndr", oversubscriptions=(1.0, 2.0, 4.0),
                               sizes=(1 * MiB, 64 * MiB, 1 * GiB, 16 * GiB), default_size=1 * GiB,
                               nodes=NODE_COUNTS, gpus_per_node=8, nvlink="nvlink4",
                               gpu_nic_link="pcie6x16"):
    """AllReduce time and bus bandwidth against the number of servers: flat ring against
    the hierarchical AllReduce on rail-optimised and on top-of-rack leaves (chapter "RDMA
    clusters").

    Sliders: the NIC per GPU, the leaf-spine oversubscription ``r`` and the message size.
    Three curves against the number of ``gpus_per_node``-GPU servers, all closed forms:

    * hierarchical, rail-optimised: :func:`interconnect.collectives.hierarchical_allreduce_time`
      with the NIC's full bandwidth (per-rail traffic stays on the leaves);
    * hierarchical, top-of-rack ``r``:1: the same with ``B_NIC / r`` (all rails of a server
      share the uplinks);
    * flat ring: :func:`interconnect.collectives.collective_time` over all GPUs at the NIC's
      bandwidth.

    The NVLink and network paths come from :func:`cluster_paths` (the NVLink path of a
    default :func:`interconnect.topology.cluster` node, the network path with the NIC on
    ``gpu_nic_link`` and one spine).

    Parameters
    ----------
    nic_names : sequence of str
        NICs offered (entries of :mod:`interconnect.links`).
    default_nic : str
        One of ``nic_names``.
    oversubscriptions : sequence of float
        Leaf-spine oversubscriptions offered (the first is the default).
    sizes : sequence of float
        Message sizes offered, bytes.
    default_size : float
        One of ``sizes``.
    nodes : sequence of int
        Server counts on the x axis.
    gpus_per_node : int
        GPUs (and NICs) per server.
    nvlink : str
        The servers' NVLink generation.
    gpu_nic_link : str
        The PCIe link between a GPU and its NIC (PCIe 6.0 x16 by default, so that PCIe does
        not cap the 800 Gb/s NICs).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    nodes = np.asarray(nodes)
    nic_net = {}
    for nic in nic_names:
        *_, b, a = cluster_paths(nic, gpus_per_node, gpu_nic_link=gpu_nic_link, spines=1)
        nic_net[nic] = (b, a)
    b_nv, a_nv, *_ = cluster_paths(gpus_per_node=gpus_per_node, nvlink=nvlink)

    def make_figure():
        fig, (ax, bx) = plots.new_figure(f"AllReduce on {gpus_per_node}-GPU H100 servers",
                                         [f"servers ({gpus_per_node} GPUs each)"] * 2,
                                         ["time", "bus bandwidth (GB/s, per direction)"], ncols=2, figsize=(8.4, 4.4))
        styles = [("hierarchical, rail-optimised", plots.PALETTE[0], "-"),
                  ("hierarchical, top-of-rack r:1", plots.PALETTE[1], "--"),
                  ("flat ring", plots.PALETTE[3], ":")]
        lines_t = [ax.plot(nodes, nodes * 1e-3, color=c, linestyle=s, marker="o", ms=3, label=n)[0]
                   for n, c, s in styles]
        lines_b = [bx.plot(nodes, nodes * 0 + 1, color=c, linestyle=s, marker="o", ms=3, label=n)[0]
                   for n, c, s in styles]
        for a in (ax, bx):
            a.set_xscale("log", base=2)
            a.set_xticks(nodes, [str(n) for n in nodes])
            a.minorticks_off()
        plots.time_axis(ax)
        ax.set_ylim(3e-5, 3.0)
        bx.set_ylim(0, 500)
        bx.legend(loc="upper right")
        note = ax.text(0.03, 0.96, "", transform=ax.transAxes, fontsize=9, va="top",
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text

        def update(nic, oversub, nbytes):
            b, a = nic_net[nic]
            t_rail = np.array([C.hierarchical_allreduce_time(nbytes, int(N), gpus_per_node, b_nv, a_nv, b, a)
                               for N in nodes])
            t_tor = np.array([C.hierarchical_allreduce_time(nbytes, int(N), gpus_per_node, b_nv, a_nv, b / oversub, a)
                              for N in nodes])
            t_flat = C.collective_time("allreduce", nbytes, gpus_per_node * nodes, b, a)
            for lt, lb, t in zip(lines_t, lines_b, (t_rail, t_tor, t_flat)):
                lt.set_ydata(t)
                lb.set_ydata(C.bus_bandwidth("allreduce", nbytes / t, gpus_per_node * nodes) / GB)
            note.set_text(f"{links.get_link(nic).label}: {fmt_bandwidth(b)} per GPU\n"
                          f"uplinks {oversub:g}:1, message {fmt_bytes(nbytes)}")
            return lines_t + lines_b + [note]

        return fig, update

    return Explorer(
        "AllReduce across a cluster",
        [Param("nic", "NIC per GPU", tuple(nic_names), default_nic, fmt=lambda n: links.get_link(n).label),
         Param("oversub", "leaf-spine oversubscription", tuple(oversubscriptions), oversubscriptions[0],
               fmt=lambda r: f"{r:g}:1"),
         Param("nbytes", "message size", tuple(sizes), default_size, fmt=fmt_bytes)],
        make_figure, static=("nic", "oversub"),
        alt=lambda nic, oversub, nbytes: (
            f"Two panels against {nodes[0]} to {nodes[-1]} servers: AllReduce time and bus bandwidth "
            f"for {links.get_link(nic).label} NICs and {oversub:g}:1 uplinks, "
            f"hierarchical on rails, hierarchical on top-of-rack leaves, and flat ring."))
