"""Explorers of the chapter "PCIe" (``book/history/pcie.ipynb``).

Presentation only: the machines are :func:`interconnect.pcie_servers.eight_gpu_server`,
the host bandwidth :func:`interconnect.transfer.concurrent_host_reads`, the AllReduce
times :func:`interconnect.pcie_servers.pcie_allreduce_times`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt

from ... import plots
from ... import topology as T
from ... import transfer as X
from ...pcie_servers import eight_gpu_server, pcie_allreduce_times
from ...units import GB, fmt_bandwidth, fmt_time
from ...widgets import Explorer, Param

__all__ = ["pcie_tree_explorer"]


def _machine(gen, k, lanes):
    return eight_gpu_server(k, gpu_link=f"pcie{gen}x{lanes}", uplink=f"pcie{gen}x16")


def pcie_tree_explorer(generations=(1, 2, 3, 4, 5, 6), default_generation=3, gpus_per_switch=(1, 2, 4, 8),
                       default_gpus_per_switch=4, lanes=(4, 8, 16), default_lanes=16, nbytes=2e9):
    """Per-GPU host bandwidth and AllReduce time on an 8-GPU PCIe tree (chapter "PCIe").

    Sliders: the PCIe generation, the GPUs per switch and the width of the GPUs' links
    (the uplinks stay x16). The machine is :func:`interconnect.pcie_servers.eight_gpu_server`.
    Left: what one GPU gets from its host memory alone
    (:func:`interconnect.topology.path_bandwidth` from :func:`interconnect.transfer.host_of`)
    and when all eight read at once (:func:`interconnect.transfer.concurrent_host_reads`).
    Right: the AllReduce of ``nbytes``, closed form and three simulated schedules
    (:func:`interconnect.pcie_servers.pcie_allreduce_times`).

    Parameters
    ----------
    generations : sequence of int
        PCIe generations offered (1-6).
    default_generation : int
        One of ``generations``.
    gpus_per_switch : sequence of int
        Layouts offered (1, 2, 4, 8).
    default_gpus_per_switch : int
        One of ``gpus_per_switch``.
    lanes : sequence of int
        Widths of the GPU links offered.
    default_lanes : int
        One of ``lanes``.
    nbytes : float
        AllReduce size, bytes (2 GB: the BF16 gradient of a 1e9-parameter model).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    labels_l = ["one GPU\nalone", "all 8 GPUs\nat once"]
    labels_r = ["closed\nform", "ring,\nPCIe order", "ring,\ninterleaved", "Raben-\nseifner"]

    def values(gen, k, lanes):
        g = _machine(gen, k, lanes)
        alone = T.path_bandwidth(g, X.host_of(g, "gpu0"), "gpu0")
        return [alone, X.concurrent_host_reads(g)], list(pcie_allreduce_times(g, nbytes).values())

    def make_figure():
        # Linear axes, rescaled to each frame: the point of a frame is the ratio of its bars
        # (eight GPUs sharing an uplink get a quarter of one alone), which a log axis hides.
        fig, (ax, bx) = plots.new_figure("8 GPUs on a PCIe tree",
                                         ["", ""], ["bandwidth per GPU, per direction (GB/s)",
                                                    f"AllReduce of {nbytes / 1e9:g} GB"],
                                         ncols=2, figsize=(8.8, 4.4))
        bars_l = ax.bar(range(2), [1, 1], color=[plots.PALETTE[0], plots.PALETTE[3]], width=0.6)
        bars_r = bx.bar(range(4), [1, 1, 1, 1], width=0.6,
                        color=["#999999", plots.PALETTE[0], plots.PALETTE[1], plots.PALETTE[2]])
        bx.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: fmt_time(v) if v > 0 else "0"))
        ax.set_xticks(range(2), labels_l)
        bx.set_xticks(range(4), labels_r)
        ax.set_xlim(-0.6, 1.6)
        bx.set_xlim(-0.6, 3.6)
        txt_l = [ax.text(i, 1, "", ha="center", va="bottom", fontsize=10) for i in range(2)]
        txt_r = [bx.text(i, 1, "", ha="center", va="bottom", fontsize=10) for i in range(4)]
        head = fig.suptitle(" ", fontsize=12, fontweight="bold")

        def update(gen, k, lanes):
            vals_l, vals_r = values(gen, k, lanes)
            for b, tx, v in zip(bars_l, txt_l, vals_l):
                b.set_height(v / GB)
                tx.set_position((tx.get_position()[0], v / GB))
                tx.set_text(f"{v / GB:.3g} GB/s")
            for b, tx, v in zip(bars_r, txt_r, vals_r):
                b.set_height(v)
                tx.set_position((tx.get_position()[0], v))
                tx.set_text(fmt_time(v))
            ax.set_ylim(0, 1.2 * max(vals_l) / GB)
            bx.set_ylim(0, 1.2 * max(vals_r))
            head.set_text(f"8 GPUs, PCIe {gen}.0 x{lanes} per GPU, x16 uplinks, {k} GPU(s) per switch")
            # no list of changed artists: the axes rescale, so every frame is drawn whole

        return fig, update

    def readout(gen, k, lanes):
        (alone, shared), times = values(gen, k, lanes)
        t = ", ".join(f"{name} {fmt_time(v)}" for name, v in zip(("closed form", "ring in PCIe order",
                                                                   "interleaved ring", "Rabenseifner"), times))
        return (f"PCIe {gen}.0 x{lanes}, {k} GPU(s) per switch: one GPU alone reads {fmt_bandwidth(alone)} from "
                f"the host, {fmt_bandwidth(shared)} each when all 8 read at once ({alone / shared:.1f}x less); "
                f"AllReduce of {nbytes / 1e9:g} GB: {t}.")

    def alt(gen, k, lanes):
        g = _machine(gen, k, lanes)
        t = pcie_allreduce_times(g, nbytes)
        return (f"Two bar charts for 8 GPUs on PCIe {gen}.0 x{lanes} with {k} GPUs per switch: "
                f"host bandwidth per GPU {fmt_bandwidth(X.concurrent_host_reads(g))} when all read at once; "
                f"{nbytes / 1e9:g} GB AllReduce {fmt_time(t['closed form, ring'])} in closed form, "
                f"{fmt_time(t['ring, interleaved'])} for the interleaved ring.")

    return Explorer(
        "PCIe tree explorer",
        [Param("gen", "PCIe generation", tuple(generations), default_generation, lambda v: f"PCIe {v}.0"),
         Param("k", "GPUs per switch", tuple(gpus_per_switch), default_gpus_per_switch, str),
         Param("lanes", "lanes per GPU", tuple(lanes), default_lanes, lambda v: f"x{v}")],
        make_figure, static=["gen", "k"], alt=alt, readout=readout)
