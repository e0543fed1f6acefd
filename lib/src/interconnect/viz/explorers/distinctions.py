"""Explorers of the chapter "Confusable concepts" (book/practice/distinctions)."""

from __future__ import annotations

import numpy as np

from ... import devices, links, plots
from ... import parallel as P
from ...units import fmt_bandwidth, fmt_flops
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["roofline_explorer"]

#: The link slider's choices: a label and how to find the link of a GPU (its own NVLink or
#: PCIe entry in :mod:`interconnect.devices`, or a fixed catalog entry).
LINK_CHOICES = {"GPU's NVLink": lambda g: g.nvlink, "GPU's PCIe x16": lambda g: g.pcie,
                "InfiniBand NDR": lambda g: "ib-ndr", "100 GbE": lambda g: "eth-100g"}


def roofline_explorer(gpus=("V100", "A100", "H100"), default_gpu="H100", hidden=8192, tps=(2, 4, 8, 16, 32),
                      default_tp=8):
    """Roofline of one GPU with its memory roof and the roof of one of its links.

    The roofs are :func:`interconnect.parallel.attainable_flops` with the GPU's HBM and with
    the chosen link (per direction); the dotted line is the communication intensity of a
    ``t``-way Megatron tensor-parallel layer (:func:`interconnect.parallel.tp_comm_intensity`,
    ``3h/(t-1)`` FLOP per byte sent) and the dot what that layer can reach. Fixed axes and
    the same artists in every frame (drawn by blitting).

    Sliders: the GPU, the link (:data:`LINK_CHOICES`) and the tensor-parallel degree. The
    static book varies the GPU and the link.

    Parameters
    ----------
    gpus : sequence of str
        GPUs of :mod:`interconnect.devices` offered.
    default_gpu : str
        One of ``gpus``.
    hidden : int
        Hidden size h of the tensor-parallel layer.
    tps : sequence of int
        Tensor-parallel degrees offered, each >= 2.
    default_tp : int
        One of ``tps``.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    x = np.logspace(0, 5, 200)

    def roof(gpu, link_name, tp):
        g = devices.get_gpu(gpu)
        lk = links.get_link(LINK_CHOICES[link_name](g))
        i = P.tp_comm_intensity(hidden, tp)
        return g, lk, i, P.attainable_flops(g.peak_flops, comm_intensity=i, comm_bandwidth=lk.bandwidth)

    def make_figure():
        fig, ax = plots.new_figure("Roofline: memory and link roofs", "intensity (FLOP per byte moved)",
                                   "attainable compute (TFLOP/s)", figsize=(7.0, 4.3))
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(x[0], x[-1])
        ax.set_ylim(0.5, 2000)
        mem, = ax.plot(x, x, color=plots.PALETTE[0], linestyle="--", label="memory roof (HBM)")
        link, = ax.plot(x, x, color=plots.PALETTE[1], label="link roof, per direction")
        tp_line = ax.axvline(100, color="0.3", linestyle=":", linewidth=1.5, label=f"TP layer, h = {hidden:,}")
        dot, = ax.plot([100], [1], "o", color=plots.PALETTE[3], ms=7, label="attainable for the TP layer")
        note = ax.text(0.02, 0.97, "", transform=ax.transAxes, ha="left", va="top", fontsize=9,
                       bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        ax.legend(loc="lower right", fontsize=8)

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(gpu, link_name, tp):
            g, lk, i, att = roof(gpu, link_name, tp)
            mem.set_ydata(P.attainable_flops(g.peak_flops, memory_intensity=x,
                                             memory_bandwidth=g.memory_bandwidth) / 1e12)
            link.set_ydata(P.attainable_flops(g.peak_flops, comm_intensity=x, comm_bandwidth=lk.bandwidth) / 1e12)
            tp_line.set_xdata([i, i])
            dot.set_data([i], [att / 1e12])
            note.set_text(f"{gpu}: peak {fmt_flops(g.peak_flops)}\n{lk.name}: {fmt_bandwidth(lk.bandwidth)}\n"
                          f"ridge {P.ridge_intensity(g.peak_flops, lk.bandwidth):,.0f} FLOP/B\n"
                          f"TP-{tp}: {i:,.0f} FLOP/B, {100 * att / g.peak_flops:.0f} % of peak")
            return [mem, link, tp_line, dot, note]

        return fig, update

    def alt(gpu, link_name, tp):
        g, lk, i, att = roof(gpu, link_name, tp)
        return (f"Roofline of the {gpu} with its memory roof and the roof of {lk.name} at "
                f"{fmt_bandwidth(lk.bandwidth)}; a {tp}-way tensor-parallel layer at {i:,.0f} FLOP per byte reaches "
                f"{100 * att / g.peak_flops:.0f} % of peak.")

    params = [
        Param("gpu", "GPU", tuple(gpus), default_gpu),
        Param("link_name", "link", tuple(LINK_CHOICES), "GPU's NVLink"),
        Param("tp", "tensor-parallel degree", tuple(tps), default_tp),
    ]
    return Explorer("Roofline with an interconnect roof", params, make_figure,
                    static=("gpu", "link_name"), alt=alt, dpi=86, colors=32)
