"""Explorers of the chapter "The three walls" (``book/why/three_walls.ipynb``).

Presentation only: the AllReduce time is :func:`interconnect.collectives.collective_time`.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import collectives, links, plots
from ...units import fmt_bandwidth, fmt_time, us
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["dp_scaling_explorer"]


def dp_scaling_explorer(n_params=7e9, grad_bytes=2.0,
                        link_names=("pcie3x16", "pcie4x16", "pcie5x16", "nvlink2", "nvlink3", "nvlink4", "nvlink5"),
                        default_link="pcie5x16"):
    """Data-parallel speedup against the number of GPUs, and one step split into compute
    and exposed communication (chapter "The three walls").

    Sliders: compute time per step of one GPU, the link (per-direction bandwidth per
    GPU), the per-message latency, and the number of GPUs marked on the curve. The
    communication is a ring AllReduce of ``grad_bytes * n_params`` bytes
    (:func:`interconnect.collectives.collective_time`), with no overlap.

    Parameters
    ----------
    n_params : float
        Model parameters (the gradient has as many elements).
    grad_bytes : float
        Bytes per gradient element.
    link_names : sequence of str
        Entries of :mod:`interconnect.links` offered on the link slider.
    default_link : str
        One of ``link_names``.
    """
    link_list = [links.get_link(n) for n in link_names]
    default = links.get_link(default_link)
    if default not in link_list:
        raise ValueError(f"default_link={default_link!r} is not in link_names {tuple(link_names)}")
    size = grad_bytes * n_params
    p_all = 2 ** np.arange(0, 11)

    def make_figure():
        _ = plots._
        fig, (ax, bx) = plots.new_figure(_("Data-parallel training of a {size}B-parameter model").format(
                                             size=f"{n_params / 1e9:g}"),
                                         ["GPUs", "share of one step"], ["speedup over one GPU", ""],
                                         ncols=2, figsize=(8.8, 4.2))
        ax.plot(p_all, p_all, color="0.5", lw=1, linestyle="--", label=_("ideal (no communication)"))
        (curve,) = ax.plot(p_all, p_all, color=plots.PALETTE[0], marker="o", ms=3, label=_("with ring AllReduce"))
        (mark,) = ax.plot([8], [8], "o", ms=10, mfc="none", mec=plots.PALETTE[3], mew=2,
                          label=_("chosen number of GPUs"))
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xticks(p_all, [str(p) for p in p_all])
        yt = 2.0 ** np.arange(-4, 11)
        ax.set_yticks(yt, [f"1/{int(1 / y)}" if y < 1 else f"{int(y)}" for y in yt])
        ax.set_xlim(0.8, 1300)
        ax.set_ylim(0.05, 1300)
        ax.minorticks_off()
        ax.legend(loc="upper left")
        # one step as a stacked bar: compute, then exposed communication (fixed axes)
        compute_bar = bx.barh([0.75], [1.0], height=0.45, color=plots.PALETTE[0], label=_("compute"))[0]
        comm_bar = bx.barh([0.75], [0.0], left=[1.0], height=0.45, color=plots.PALETTE[1], hatch="//",
                           edgecolor="white", label=_("AllReduce (exposed)"))[0]
        bx.set_xlim(0, 1)
        bx.set_ylim(0, 1.35)
        bx.set_yticks([])
        bx.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        bx.grid(axis="y", visible=False)
        bx.legend(loc="upper left", ncols=2)
        note = bx.text(0.5, 0.14, "", transform=bx.transAxes, ha="center", va="center", fontsize=10,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        head = bx.set_title("", fontsize=10, fontweight="normal")

        head.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(compute, link, latency, p):
            comm = collectives.collective_time("allreduce", size, p_all, link.bandwidth, latency)
            curve.set_ydata(p_all * compute / (compute + comm))
            c = float(comm[list(p_all).index(p)])
            eff = compute / (compute + c)
            mark.set_data([p], [p * eff])
            compute_bar.set_width(eff)
            comm_bar.set_x(eff)
            comm_bar.set_width(1.0 - eff)
            head.set_text(_("one step on {p} GPUs over {link}").format(p=p, link=_(link.label)))
            note.set_text(_("compute {compute}, AllReduce {comm}\nefficiency {eff}, speedup {speedup}×").format(
                compute=fmt_time(compute), comm=fmt_time(c), eff=f"{eff:.0%}", speedup=f"{p * eff:.1f}"))
            return [curve, mark, compute_bar, comm_bar, head, note]

        return fig, update

    return Explorer(
        "Data-parallel efficiency explorer",
        [
            Param("compute", "compute per step (one GPU)", (0.05, 0.1, 0.2, 0.5, 1.0, 2.0), 0.5, fmt_time),
            Param("link", "link per GPU", tuple(link_list), default,
                  lambda lk: f"{lk.label}: {fmt_bandwidth(lk.bandwidth)}"),
            Param("latency", "latency per message", (1 * us, 2 * us, 5 * us, 10 * us, 20 * us), 5 * us, fmt_time),
            Param("p", "number of GPUs", tuple(int(p) for p in p_all[1:]), 8, str),
        ],
        make_figure,
        static=["compute", "link"],
        alt=lambda compute, link, latency, p: (
            f"Speedup against number of GPUs for a {n_params / 1e9:g}B model with {fmt_time(compute)} of compute per "
            f"step over {link.label} ({fmt_bandwidth(link.bandwidth)}), {fmt_time(latency)} latency; and the split "
            f"of one step on {p} GPUs."),
    )
