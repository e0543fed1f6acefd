"""Explorer of the chapter "NVLink and NVSwitch" (``book/history/nvlink.ipynb``): one GB200 NVL72
rack against nine DGX B200 servers joined by their NICs.

Presentation only: the times are :func:`interconnect.collectives.collective_time` and
:func:`interconnect.collectives.hierarchical_allreduce_time`, with the bandwidth and latency
of each path read off the library's graphs (:func:`rack_and_servers`): the rack's logical
crossbar :func:`interconnect.topology.nvswitch` ``(72, "nvlink5")`` and the servers' fabric
:func:`interconnect.topology.superpod` ``(1, nodes_per_su=9, nvlink="nvlink5")``. The chapter
simulates the 1 GiB point of each on the same graphs with :mod:`interconnect.netsim`.
"""

from __future__ import annotations

import numpy as np

from ... import collectives as C
from ... import plots
from ... import topology as T
from ...units import GiB, KiB, MiB, fmt_bytes, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["rack_and_servers", "scale_up_times", "nvl72_vs_servers_explorer"]

#: Message sizes on the x axis, bytes: 64 KiB to 16 GiB.
SIZES = tuple(float(s) for s in 2.0 ** np.arange(16, 35))


def rack_and_servers(servers=9, gpus_per_node=8, nic="ib-ndr"):
    """The two machines of the comparison, as graphs, and the paths the closed forms need.

    Returns
    -------
    dict
        ``"rack"``: the 72-GPU logical crossbar (``nvswitch(servers * gpus_per_node,
        "nvlink5")``); ``"servers"``: ``superpod(1, nodes_per_su=servers,
        gpus_per_node=gpus_per_node, nvlink="nvlink5", nic=nic)``; and per-direction
        bandwidth and one-way latency ``(b, a)`` of the rack's GPU pair (``"rack_path"``),
        of an NVLink pair inside one server (``"nvlink_path"``) and of a same-rail pair
        across servers (``"nic_path"``).
    """
    p = servers * gpus_per_node
    rack = T.nvswitch(p, link="nvlink5")
    sv = T.superpod(1, nodes_per_su=servers, gpus_per_node=gpus_per_node, nvlink="nvlink5", nic=nic)

    def bl(g, a, b):
        return T.path_bandwidth(g, a, b), T.path_latency(g, a, b)

    return {"rack": rack, "servers": sv, "gpus": p, "servers_n": servers, "gpus_per_node": gpus_per_node,
            "rack_path": bl(rack, "gpu0", f"gpu{p - 1}"),
            "nvlink_path": bl(sv, "n0.gpu0", "n0.gpu1"),
            "nic_path": bl(sv, "n0.gpu0", "n1.gpu0")}


def scale_up_times(op, nbytes, m=None):
    """Closed-form times of ``op`` on the rack and on the servers (``m`` from :func:`rack_and_servers`).

    ``op`` is ``"allreduce"`` (ring on the rack; flat ring and hierarchical on the servers) or
    ``"alltoall"`` (direct on the rack; on the servers the NIC-bound closed form of the chapter
    "RDMA clusters": each NIC carries an ``N``-rank AllToAll's share, N = servers).

    Returns
    -------
    dict
        ``{"rack": s, "servers": s, "hierarchical": s or None}``.
    """
    m = m or rack_and_servers()
    if op not in ("allreduce", "alltoall"):
        raise ValueError(f"op={op!r} is not allowed; op must be 'allreduce' or 'alltoall'")
    p, N, g = m["gpus"], m["servers_n"], m["gpus_per_node"]
    (br, ar), (bv, av), (bn, an) = m["rack_path"], m["nvlink_path"], m["nic_path"]
    if op == "allreduce":
        return {"rack": C.collective_time("allreduce", nbytes, p, br, ar),
                "servers": C.collective_time("allreduce", nbytes, p, bn, an),
                "hierarchical": C.hierarchical_allreduce_time(nbytes, N, g, bv, av, bn, an)}
    return {"rack": C.collective_time("alltoall", nbytes, p, br, ar, "direct"),
            "servers": C.collective_time("alltoall", nbytes, N, bn, an, "direct"),
            "hierarchical": None}


def nvl72_vs_servers_explorer(sizes=(1 * MiB, 64 * MiB, 1 * GiB, 16 * GiB), default_size=1 * GiB):
    """Time of a 72-GPU AllReduce or AllToAll against the message size: one NVL72 rack against
    nine DGX B200 servers on NDR InfiniBand (chapter "NVLink and NVSwitch").

    Sliders: the collective and the marked message size; a note gives the times at that size
    and the rack's advantage. Curves are closed forms (:func:`scale_up_times`).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    m = rack_and_servers()
    x = np.asarray(SIZES)
    names = {"allreduce": "AllReduce", "alltoall": "AllToAll"}

    def make_figure():
        fig, ax = plots.new_figure("72 GPUs: one NVL72 rack or nine DGX B200 servers",
                                   "message size per GPU (bytes)", "time", figsize=(7, 4.4))
        styles = [("NVL72 rack (NVLink 5 switch)", plots.PALETTE[0], "-"),
                  ("9 x DGX B200, flat over NICs", plots.PALETTE[3], ":"),
                  ("9 x DGX B200, hierarchical", plots.PALETTE[1], "--")]
        lines = [ax.plot(x, x * 0 + 1e-3, color=c, linestyle=s, lw=2, label=n)[0] for n, c, s in styles]
        marks = [ax.plot([x[0]], [1e-3], "o", color=c, ms=6)[0] for _, c, _ in styles]
        ax.set_xscale("log", base=2)
        ticks = [64 * KiB, 1 * MiB, 16 * MiB, 256 * MiB, 4 * GiB]
        ax.set_xticks(ticks, [fmt_bytes(t) for t in ticks])
        ax.minorticks_off()
        plots.time_axis(ax)
        ax.set_ylim(1e-5, 2.0)
        ax.legend(loc="lower right")
        note = ax.text(0.03, 0.96, "", transform=ax.transAxes, fontsize=9, va="top",
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text

        def update(op, nbytes):
            curves = [scale_up_times(op, s, m) for s in x]
            here = scale_up_times(op, nbytes, m)
            for key, ln, mk in zip(("rack", "servers", "hierarchical"), lines, marks):
                vis = here[key] is not None
                ln.set_visible(vis)
                mk.set_visible(vis)
                if vis:
                    ln.set_ydata([c[key] for c in curves])
                    mk.set_data([nbytes], [here[key]])
            best = min(v for k, v in here.items() if k != "rack" and v is not None)
            note.set_text(f"{names[op]} of {fmt_bytes(nbytes)} on 72 GPUs\n"
                          f"NVL72 rack: {fmt_time(here['rack'])}\n"
                          f"9 servers, best: {fmt_time(best)}\n"
                          f"servers / rack: {best / here['rack']:.1f}x")
            return lines + marks + [note]

        return fig, update

    return Explorer(
        "One NVL72 rack or nine servers",
        [Param("op", "collective", ("allreduce", "alltoall"), "allreduce", fmt=names.get),
         Param("nbytes", "message size", tuple(sizes), default_size, fmt=fmt_bytes)],
        make_figure, static=("op", "nbytes"),
        alt=lambda op, nbytes: (
            f"Log-log plot of {names[op]} time on 72 GPUs against the message size, 64 KiB to 16 GiB: "
            f"one GB200 NVL72 rack against nine DGX B200 servers over NDR InfiniBand"
            + (", flat ring and hierarchical" if op == "allreduce" else "")
            + f"; the {fmt_bytes(nbytes)} point is marked."))
