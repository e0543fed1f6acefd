"""Explorers of the chapter "Expert parallelism" (book/parallel/expert_parallel)."""

from __future__ import annotations

import numpy as np

from ... import plots
from ...moe import simulate_dispatch
from ...units import MiB, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["ep_dispatch_grid", "ep_explorer"]


def ep_dispatch_grid(tokens_per_gpu, n_experts, top_k, hidden, skews, spans, cache=None):
    """Simulated dispatches over a grid: ``{(nodes, skew): (bytes received per GPU, time, bottleneck)}``.

    Each point is :func:`interconnect.moe.simulate_dispatch`; ``cache`` may hold results
    already simulated, keyed ``(nodes, skew)`` with values ``(graph, matrix, SimResult)``.
    """
    cache = {} if cache is None else cache
    out = {}
    for nodes in spans:
        for s in skews:
            if (nodes, s) in cache:
                _, m, res = cache[nodes, s]
            else:
                _, m, res = simulate_dispatch(nodes, s, tokens_per_gpu, n_experts, top_k, hidden)
            out[nodes, s] = (m.sum(axis=0), res.makespan, res.bottleneck)
    return out


def ep_explorer(tokens_per_gpu, n_experts, top_k, hidden, skews=(0.0, 0.5, 1.0, 1.5), spans=(1, 2, 4), cache=None,
                default_skew=0.5, default_nodes=2):
    """Expert-parallel dispatch explorer: bytes each GPU receives, and the simulated time against skew.

    Left, what each GPU of the EP group receives in one dispatch AllToAll at the chosen
    router skew, coloured by node, with the mean dashed; right, the simulated dispatch time
    against skew for EP on one, two and four 8-GPU nodes (:func:`ep_dispatch_grid`). The
    static book varies both sliders.

    Parameters
    ----------
    tokens_per_gpu, n_experts, top_k, hidden : int
        The MoE layer (:func:`interconnect.moe.simulate_dispatch`).
    skews : sequence of float
        Router skews (Zipf exponents).
    spans : sequence of int
        EP spans, in 8-GPU nodes.
    cache : dict, optional
        Dispatches already simulated, ``{(nodes, skew): (graph, matrix, SimResult)}``.
    default_skew, default_nodes :
        The sliders' defaults.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    skews, spans = tuple(skews), tuple(spans)
    grid = ep_dispatch_grid(tokens_per_gpu, n_experts, top_k, hidden, skews, spans, cache)
    ymax = 1.05 * max(v[0].max() for v in grid.values()) / MiB
    tmax = 1.15 * max(v[1] for v in grid.values()) * 1e3
    n_bars = 8 * max(spans)

    def make_figure():
        fig, (ax, bx) = plots.new_figure("Dispatch AllToAll: skew and EP span (H100 nodes, NDR)",
                                         ["GPU in the EP group", "router skew"],
                                         ["received in the dispatch (MiB)", "simulated dispatch time (ms)"],
                                         ncols=2, figsize=(8.8, 4.4))
        bars = ax.bar(np.arange(n_bars), np.zeros(n_bars), width=0.8, color=plots.PALETTE[0])
        mean = ax.axhline(0, color="black", linestyle="--", linewidth=1)
        ax.set_xlim(-0.7, n_bars - 0.3)
        ax.set_ylim(0, ymax)
        for i, nodes in enumerate(spans):
            bx.plot(skews, [grid[nodes, s][1] * 1e3 for s in skews], color=plots.PALETTE[i],
                    linestyle=plots.LINESTYLES[i], marker="o", ms=3,
                    label=f"{nodes} node{'s' if nodes > 1 else ''}, EP {8 * nodes}")
        bx.set_ylim(0, tmax)
        bx.legend(loc="upper left")
        marker, = bx.plot([0], [0], "o", ms=11, mfc="none", mec="black", mew=2)
        note = ax.text(0.02, 0.97, "", transform=ax.transAxes, va="top", fontsize=9,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(skew, nodes):
            recv, t, (u, v) = grid[nodes, skew]
            for i, b in enumerate(bars):
                b.set_height(recv[i] / MiB if i < recv.size else 0.0)
                b.set_color(plots.PALETTE[(i // 8) % 4])
            mean.set_ydata([recv.mean() / MiB] * 2)
            marker.set_data([skew], [t * 1e3])
            note.set_text(f"EP {recv.size} on {nodes} node{'s' if nodes > 1 else ''}, skew {skew:g}\n"
                          f"receive imbalance {recv.max() / recv.mean():.2f}\n"
                          f"time {fmt_time(t)}, bottleneck {u} → {v}")
            return list(bars) + [mean, marker, note]

        return fig, update

    return Explorer(
        "Expert-parallel dispatch: skew and span",
        [Param("skew", "router skew (Zipf exponent)", skews, default_skew, fmt=lambda s: f"{s:g}"),
         Param("nodes", "EP span (8-GPU nodes)", spans, default_nodes,
               fmt=lambda n: "within one node" if n == 1 else f"{n} nodes")],
        make_figure, static=("skew", "nodes"),
        alt=lambda skew, nodes: (f"Left: bytes each of the {8 * nodes} GPUs receives in the dispatch at router skew "
                                 f"{skew:g}, coloured by node, with the mean dashed. Right: simulated dispatch time "
                                 f"against skew for EP on one, two and four nodes, with the current point circled."))
