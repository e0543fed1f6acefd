"""Figures and explorers of the chapter "Protocols: moving bytes between GPUs"
(``book/stack/protocols.ipynb``).

Presentation only: the transfers are :mod:`interconnect.transfer` (their structured
:class:`interconnect.transfer.Step` s), the mechanisms of a route
:func:`interconnect.transfer.mechanisms`.
"""

from __future__ import annotations

import numpy as np

from ... import plots
from ... import topology as topo
from ... import transfer as T
from ...units import GB, GiB, KiB, fmt_bytes, fmt_si, fmt_time, ms
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["STEP_STYLE", "step_bars", "mechanism_explorer"]

#: :data:`interconnect.transfer.STEP_KINDS` -> (legend label, colour, hatch) of :func:`step_bars`.
STEP_STYLE = {
    "d2h": ("device → host copy", plots.PALETTE[0], ""),
    "h2d": ("host → device copy", plots.PALETTE[5], "//"),
    "rdma": ("RDMA host → host", plots.PALETTE[4], ".."),
    "chunks": ("further chunks (slowest stage)", plots.PALETTE[1], "xx"),
    "stream": ("stream at the bottleneck", plots.PALETTE[2], ""),
    "latency": ("latency", plots.PALETTE[7], ""),
}


def step_bars(ax, transfers, labels):
    """Horizontal stacked bars of each transfer's steps, in ms, one bar per transfer.

    Each :class:`interconnect.transfer.Step` is coloured by its kind (:data:`STEP_STYLE`;
    latencies are not in the legend); the total time and effective bandwidth are written at
    the end of the bar.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    transfers : sequence of interconnect.transfer.Transfer
    labels : sequence of str
        One per transfer, on the y axis (first at the top).
    """
    seen = set()
    for y, tr in enumerate(transfers):
        left = 0.0
        for step in tr.steps:
            label, color, hatch = STEP_STYLE[step.kind]
            ax.barh(y, step.seconds / ms, left=left, color=color, hatch=hatch, edgecolor="white",
                    height=0.62, label=None if (step.kind in seen or step.kind == "latency") else label)
            seen.add(step.kind)
            left += step.seconds / ms
        ax.text(left + 1.0, y, f"{fmt_time(tr.time)}  ({fmt_si(tr.bandwidth, 'B/s')})", va="center", fontsize=9)
    ax.set_yticks(range(len(transfers)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.grid(axis="y", visible=False)


def _default_routes():
    """(label, graph, source, destination) of the explorer's default routes."""
    dgx1 = topo.dgx1_hybrid_cube_mesh(with_pcie=True)
    two_nodes = topo.cluster(nodes=2, gpus_per_node=8)
    return [
        ("DGX-1, GPU0→GPU3 (NV2)", dgx1, "gpu0", "gpu3"),
        ("DGX-1, GPU0→GPU6 (SYS)", dgx1, "gpu0", "gpu6"),
        ("PCIe server, GPU0→GPU1 (PIX)", topo.pcie_tree(), "gpu0", "gpu1"),
        ("2 × DGX H100, n0.gpu0→n1.gpu0", two_nodes, "n0.gpu0", "n1.gpu0"),
    ]


_MECH_LABELS = ["direct: P2P or GPUDirect RDMA", "staged through host memory", "staged, pipelined in 8 chunks"]


def mechanism_explorer(routes=None, sizes=tuple(4 * KiB * 4 ** k for k in range(11)), default_size=None):
    """Effective bandwidth of the three ways to move a buffer against its size, and their times
    at one size (chapter "Protocols").

    Sliders: the route and the message size. The mechanisms are
    :func:`interconnect.transfer.mechanisms`: within a machine peer-to-peer (where supported)
    and a copy staged through host memory, whole and in 8 chunks; across machines GPUDirect
    RDMA and a bounce buffer, whole and in 8 chunks.

    Parameters
    ----------
    routes : sequence of (label, graph, source GPU, destination GPU), optional
        Default: DGX-1 GPU0→GPU3 (NVLink) and GPU0→GPU6 (across the sockets), a PCIe
        server's GPU0→GPU1, and two DGX H100-like nodes over InfiniBand.
    sizes : sequence of float
        Message sizes offered, bytes (default 4 KiB to 4 GiB).
    default_size : float, optional
        One of ``sizes``; default the ninth (1 GiB).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    routes = list(_default_routes() if routes is None else routes)
    sizes = tuple(sizes)
    default_size = sizes[min(8, len(sizes) - 1)] if default_size is None else default_size
    if default_size not in sizes:
        raise ValueError(f"default_size={default_size!r} is not one of sizes {sizes}")
    grid = np.logspace(np.log2(4 * KiB), np.log2(4 * GiB), 48, base=2)

    def transfers(route, nbytes):
        _, g, a, b = routes[route]
        return T.mechanisms(g, a, b, nbytes)

    curves = {}
    for r in range(len(routes)):
        rows = [transfers(r, float(s)) for s in grid]
        curves[r] = [np.array([np.nan if row[m] is None else row[m].bandwidth for row in rows]) for m in range(3)]

    def make_figure():
        fig, (ax, axb) = plots.new_figure("", ["message size", "time at the chosen size"],
                                          ["effective bandwidth (GB/s, per direction)", ""],
                                          figsize=(8.4, 4.4), ncols=2)
        lines, marks, bars, texts = [], [], [], []
        for m in range(3):
            (ln,) = ax.plot(grid, grid * 0 + 1, color=plots.PALETTE[m], ls=plots.LINESTYLES[m], label=_MECH_LABELS[m])
            (mk,) = ax.plot([grid[0]], [1.0], marker="o", ms=8, color=plots.PALETTE[m], ls="")
            lines.append(ln)
            marks.append(mk)
        ax.set_xscale("log", base=2)
        plots.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_ylim(0.05, 1000)
        ax.legend(loc="upper left", fontsize=8.5)
        vline = ax.axvline(grid[0], color="#888888", lw=1, ls=":")
        plots.time_axis(axb, axis="x")
        axb.set_xlim(1e-6, 30)
        axb.set_ylim(-0.6, 2.6)
        axb.invert_yaxis()
        axb.set_yticks([])
        axb.grid(axis="y", visible=False)
        for m in range(3):
            bars.append(axb.barh(m, 1e-6, left=1e-6, height=0.55, color=plots.PALETTE[m])[0])
            texts.append(axb.text(1.3e-6, m - 0.38, "", fontsize=8.5, va="bottom"))
        title = fig.suptitle(" ", fontsize=12, fontweight="bold")

        title.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(route, nbytes):
            trs = transfers(route, float(nbytes))
            for m in range(3):
                lines[m].set_ydata(curves[route][m] / GB)
                tr = trs[m]
                if tr is None:
                    marks[m].set_data([nbytes], [np.nan])
                    bars[m].set_width(0.0)
                    texts[m].set_text("direct: not possible here (no NVLink, crosses the sockets)")
                else:
                    marks[m].set_data([nbytes], [tr.bandwidth / GB])
                    bars[m].set_width(max(tr.time - 1e-6, 0.0))
                    texts[m].set_text(f"{tr.mechanism}: {fmt_time(tr.time)}, {fmt_si(tr.bandwidth, 'B/s')}")
            vline.set_xdata([nbytes, nbytes])
            title.set_text(f"{routes[route][0]}: {fmt_bytes(nbytes)}")
            return [*lines, *marks, *bars, *texts, vline, title]

        return fig, update

    def alt(route, nbytes):
        parts = [f"{tr.mechanism} {fmt_time(tr.time)}" for tr in transfers(route, float(nbytes)) if tr is not None]
        return (f"Effective bandwidth against message size for {routes[route][0]}, and bars of the time at "
                f"{fmt_bytes(nbytes)}: " + "; ".join(parts) + ".")

    return Explorer(
        "Moving a buffer: mechanism, route and size",
        [Param("route", "route", tuple(range(len(routes))), 0, fmt=lambda r: routes[r][0]),
         Param("nbytes", "message size", sizes, default_size, fmt=fmt_bytes)],
        make_figure, static=["route", "nbytes"], alt=alt)
