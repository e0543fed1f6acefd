"""The book's explorers, built on the models, so notebooks and benchmarks share them.

Each function returns an :class:`interconnect.widgets.Explorer`: displayed in Jupyter
it is a live ipywidgets app, in the HTML book a set of precomputed frames.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from . import collectives, links, plots
from .units import fmt_bandwidth, fmt_time, us
from .widgets import Explorer, Param

__all__ = ["dp_scaling_explorer", "allreduce_explorer"]


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
        fig, (ax, bx) = plots.new_figure(f"Data-parallel training of a {n_params / 1e9:g}B-parameter model",
                                         ["GPUs", "share of one step"], ["speedup over one GPU", ""],
                                         ncols=2, figsize=(10, 4))
        ax.plot(p_all, p_all, color="0.5", lw=1, linestyle="--", label="ideal (no communication)")
        (curve,) = ax.plot(p_all, p_all, color=plots.PALETTE[0], marker="o", ms=3, label="with ring AllReduce")
        (mark,) = ax.plot([8], [8], "o", ms=10, mfc="none", mec=plots.PALETTE[3], mew=2, label="chosen number of GPUs")
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
        compute_bar = bx.barh([0.75], [1.0], height=0.45, color=plots.PALETTE[0], label="compute")[0]
        comm_bar = bx.barh([0.75], [0.0], left=[1.0], height=0.45, color=plots.PALETTE[1], hatch="//",
                           edgecolor="white", label="AllReduce (exposed)")[0]
        bx.set_xlim(0, 1)
        bx.set_ylim(0, 1.35)
        bx.set_yticks([])
        bx.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        bx.grid(axis="y", visible=False)
        bx.legend(loc="upper left", ncols=2)
        note = bx.text(0.5, 0.14, "", transform=bx.transAxes, ha="center", va="center", fontsize=10,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        head = bx.set_title("", fontsize=10, fontweight="normal")

        def update(compute, link, latency, p):
            comm = collectives.collective_time("allreduce", size, p_all, link.bandwidth, latency)
            curve.set_ydata(p_all * compute / (compute + comm))
            c = float(comm[list(p_all).index(p)])
            eff = compute / (compute + c)
            mark.set_data([p], [p * eff])
            compute_bar.set_width(eff)
            comm_bar.set_x(eff)
            comm_bar.set_width(1.0 - eff)
            head.set_text(f"one step on {p} GPUs over {link.label}")
            note.set_text(f"compute {fmt_time(compute)}, AllReduce {fmt_time(c)}\n"
                          f"efficiency {eff:.0%}, speedup {p * eff:.1f}×")
            return [curve, mark, compute_bar, comm_bar, head, note]

        return fig, update

    return Explorer(
        "Data-parallel efficiency explorer",
        [
            Param("compute", "compute per step (one GPU)", (0.05, 0.1, 0.2, 0.5, 1.0, 2.0), 0.5, fmt_time),
            Param("link", "link per GPU", tuple(link_list), default, lambda l: f"{l.label}: {fmt_bandwidth(l.bandwidth)}"),
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


def allreduce_explorer(link_names=("pcie3x16", "pcie4x16", "pcie5x16", "nvlink2", "nvlink3", "nvlink4", "nvlink5"),
                       default_link="nvlink3", algorithms=("ring", "tree", "recursive_doubling")):
    """AllReduce time against message size for several algorithms and the fastest one
    (chapter "Collective communication").

    Sliders: the link (per-direction bandwidth per GPU), the latency per step and the
    number of GPUs ``p``. Algorithms that need ``p`` a power of two are left out where
    it is not one. Times from :func:`interconnect.collectives.collective_time` and
    :func:`interconnect.collectives.best_algorithm`.
    """
    from .units import GiB

    link_list = [links.get_link(n) for n in link_names]
    default = links.get_link(default_link)
    if default not in link_list:
        raise ValueError(f"default_link={default_link!r} is not in link_names {tuple(link_names)}")
    algs = tuple(collectives._op_alg("allreduce", a)[1] for a in algorithms)
    label = {l.bandwidth: f"{l.label}: {fmt_bandwidth(l.bandwidth)}" for l in link_list}
    sizes = np.logspace(0, np.log2(4 * GiB), 160, base=2)

    def make_figure():
        fig, ax = plots.new_figure("AllReduce time", "message size n", "time", figsize=(6.4, 3.9))
        lines = {}
        for i, alg in enumerate(algs):
            (lines[alg],) = ax.plot(sizes, sizes, color=plots.PALETTE[i], linestyle=plots.LINESTYLES[i],
                                    label=alg.replace("_", " "))
        (lines["best"],) = ax.plot(sizes, sizes, color="#888888", linewidth=7, alpha=0.35, zorder=0,
                                   solid_capstyle="butt", label="fastest in library")
        plots.bytes_axis(ax)
        plots.time_axis(ax)
        ax.set_ylim(2e-7, 30)
        ax.legend(loc="upper left")
        title = ax.set_title(" ")

        def update(bandwidth, latency, p):
            for alg in algs:
                if alg in collectives._POW2 and p & (p - 1):
                    lines[alg].set_ydata(np.full_like(sizes, np.nan))  # needs p a power of two
                else:
                    lines[alg].set_ydata(collectives.collective_time("allreduce", sizes, p, bandwidth, latency, alg))
            lines["best"].set_ydata(collectives.best_algorithm("allreduce", sizes, p, bandwidth, latency)[1])
            title.set_text(f"AllReduce, p = {p}, {label[bandwidth].split(':')[0]}, α = {fmt_time(latency)}")
            return [lines["best"], *(lines[a] for a in algs), title]

        return fig, update

    def alt(bandwidth, latency, p):
        name, _ = collectives.best_algorithm("allreduce", [1.0, 4 * GiB], p, bandwidth, latency)
        return (f"Log-log plot of AllReduce time against message size from 1 byte to 4 GiB for p = {p} GPUs "
                f"on {label[bandwidth]} with latency {fmt_time(latency)}: the fastest algorithm is "
                f"{name[0].replace('_', ' ')} at 1 byte and {name[1].replace('_', ' ')} at 4 GiB.")

    return Explorer(
        "AllReduce time against message size",
        [Param("bandwidth", "link (bandwidth per direction)", tuple(l.bandwidth for l in link_list),
               default.bandwidth, fmt=lambda b: label[b]),
         Param("latency", "latency α per step", tuple(x * us for x in (0.5, 1, 2, 5, 10, 20)), 1 * us, fmt=fmt_time),
         Param("p", "GPUs p", (2, 4, 8, 16, 32, 64), 8)],
        make_figure, static=["bandwidth", "p"], alt=alt)
