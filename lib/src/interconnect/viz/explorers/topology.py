"""Explorers of the chapter "Switching and topology" (``book/stack/topology.ipynb``).

Presentation only: the simulations are :func:`interconnect.netsim.simulate_collective`, the
closed forms :func:`interconnect.collectives.collective_time`, the drawing geometry
:mod:`interconnect.viz.topology`.
"""

from __future__ import annotations

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

from ... import collectives, netsim, plots
from ... import topology as T
from ...netsim.closed_form import neighbour_closed_form
from ...units import fmt_bandwidth, fmt_bytes, fmt_time
from ...widgets import Explorer, Param
from ..topology import NODE_STYLE, edge_curves, fit_to_box, layout

__all__ = ["topology_load_explorer"]


#: Collectives offered by :func:`topology_load_explorer`: label -> (op, algorithm) of
#: :data:`interconnect.collectives.REGISTRY`; the closed form set beside each simulation is
#: :func:`interconnect.collectives.closed_form_of` (for the AllToAll with every message in
#: flight at once: the pairwise exchange).
_TOPO_COLLECTIVES = {
    "ring AllReduce": ("allreduce", "ring"),
    "AllToAll": ("alltoall", "all_at_once"),
}


def _topo_default_cases():
    """(label, graph, ranks or None, routing) of the explorer's default topologies."""
    return [
        ("Ring of 8 GPUs (NVLink 2)", T.ring(8), None, "shortest"),
        ("DGX-1, ranks in index order", T.dgx1_hybrid_cube_mesh(), None, "shortest"),
        ("DGX-1, ring 0-3-2-1-5-6-7-4", T.dgx1_hybrid_cube_mesh(),
         [f"gpu{i}" for i in (0, 3, 2, 1, 5, 6, 7, 4)], "shortest"),
        ("PCIe tree, 8 GPUs (PCIe 3.0)", T.pcie_tree(4, 1, 2), None, "shortest"),
        ("NVSwitch, 8 H100 (NVLink 4)", T.nvswitch(8), None, "shortest"),
        ("Fat tree k=4, 16 hosts, 1:1", T.fat_tree(4), None, "ecmp"),
        ("Fat tree k=4, 16 hosts, 2:1", T.fat_tree(4, oversubscription=2), None, "ecmp"),
    ]


def _checked_labels(cases, collective_names):
    """The cases' labels, after checking the arguments of :func:`topology_load_explorer`."""
    if not cases:
        raise ValueError("cases is empty; give at least one (label, graph, ranks, routing)")
    for c in collective_names:
        if c not in _TOPO_COLLECTIVES:
            raise ValueError(f"collective_names contains {c!r}; allowed: {tuple(_TOPO_COLLECTIVES)}")
    labels = [c[0] for c in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"cases have repeated labels {labels}")
    return labels


def _run(g, ranks, routing, cname, nbytes):
    """Simulation and closed form of one (topology, collective): what the explorer shows."""
    rk = list(T.endpoints(g) if ranks is None else ranks)
    op, alg = _TOPO_COLLECTIVES[cname]
    res = netsim.simulate_collective(g, op, nbytes, ranks=rk, algorithm=alg, routing=routing, seed=0)
    t_cf, bw_cf = neighbour_closed_form(g, nbytes, op, rk, collectives.closed_form_of(op, alg))
    util = res.sim.link_utilisation
    per_edge = np.array([max(util.get((u, v), 0.0), util.get((v, u), 0.0)) for u, v in g.edges])
    b = res.sim.bottleneck
    return dict(time=res.time, busbw=res.busbw, closed=t_cf, bw=bw_cf, util=per_edge, bottleneck=b,
                bottleneck_util=util.get(b, 0.0) if b else 0.0, p=len(rk), routing=routing)


def _draw_case(ax, ix, g, cmap):
    """One topology, hidden until chosen: its edges (one LineCollection, recoloured by load),
    its nodes by kind, GPU and host numbers, and a legend of node kinds in ``ix``.

    Returns ``(line collection, every artist)``.
    """
    pos = fit_to_box(layout(g))
    segs = edge_curves(g, pos)
    lc = LineCollection(segs, colors=[cmap(0.0)] * len(segs), linewidths=1.0, capstyle="round", zorder=1)
    ax.add_collection(lc)
    art = [lc]
    n_nodes = g.number_of_nodes()
    scale = 1.0 if n_nodes <= 16 else max(0.3, (16 / n_nodes) ** 0.8)
    handles = []
    for kind in T.KINDS:
        ns = [n for n, d in g.nodes(data=True) if d.get("kind") == kind]
        if not ns:
            continue
        col, marker, size, name = NODE_STYLE[kind]
        art.append(ax.scatter([pos[n][0] for n in ns], [pos[n][1] for n in ns], s=size * scale, c=col,
                              marker=marker, edgecolors="white", linewidths=1.0, zorder=3))
        handles.append(Line2D([], [], ls="", marker=marker, color=col, markersize=8, label=name))
    for n, d in g.nodes(data=True):
        # numbers only where the node is drawn large enough to hold legible text
        if d.get("kind") in ("gpu", "host") and scale >= 0.8:
            art.append(ax.text(pos[n][0], pos[n][1], str(d.get("index", "")), ha="center", va="center",
                               color="white", fontsize=8.5, fontweight="bold", zorder=4))
    leg = Legend(ix, handles, [h.get_label() for h in handles], loc="upper left", fontsize=9,
                 frameon=False, ncols=1, bbox_to_anchor=(-0.05, 1.0), handletextpad=0.3,
                 title="node kinds", title_fontsize=9)
    ix.add_artist(leg)
    art.append(leg)
    return lc, art


def topology_load_explorer(nbytes=256 * 2**20, cases=None, collective_names=("ring AllReduce", "AllToAll")):
    """Per-link load of a collective drawn on its topology, and the simulated time
    against the alpha-beta closed form (chapter "Switching and topology").

    Sliders: the topology and the collective. Every (topology, collective) pair is
    simulated once, at construction, with :func:`interconnect.netsim.simulate_collective`
    (ring AllReduce; AllToAll with all messages in flight at once); ``update`` only
    recolours the drawing. Each edge is coloured and widened by the utilisation of its
    busier direction (bytes carried / (per-direction bandwidth x makespan)). The closed
    form is :func:`interconnect.collectives.collective_time` (ring AllReduce; pairwise
    AllToAll) with one uncontended port per rank whose bandwidth is the narrowest
    shortest path between consecutive ranks and whose latency is the longest such path's
    (:func:`interconnect.netsim.closed_form.neighbour_closed_form`).

    Parameters
    ----------
    nbytes : float
        Size of the collective in bytes (nccl-tests convention).
    cases : sequence of (label, graph, ranks or None, routing), optional
        Topologies offered; default: ring of 8, DGX-1 with two rank orders, an 8-GPU
        PCIe tree, an 8-GPU NVSwitch board, and k = 4 fat trees at 1:1 and 2:1 (with
        seeded ECMP routing). ``ranks=None`` takes the GPUs (or hosts) in index order.
    collective_names : sequence of str
        Keys of ``_TOPO_COLLECTIVES``.
    """
    cases = list(_topo_default_cases() if cases is None else cases)
    labels = _checked_labels(cases, collective_names)
    # the slow part, once: every simulation and closed form
    results = {(label, cname): _run(g, ranks, routing, cname, nbytes)
               for label, g, ranks, routing in cases for cname in collective_names}
    cmap = mpl.colormaps["viridis"]
    norm = mpl.colors.Normalize(0.0, 1.0)

    def make_figure():
        # 8 in wide, so that the page (about 670 px wide) shows every text at 9 px or more
        plots.use_style()
        fig = plt.figure(figsize=(8.0, 5.0))
        gs = fig.add_gridspec(2, 2, width_ratios=(2.3, 1.0), height_ratios=(1.0, 1.4))
        ax = fig.add_subplot(gs[:, 0])
        bx = fig.add_subplot(gs[0, 1])
        ix = fig.add_subplot(gs[1, 1])
        ax.set_xlim(-0.7, 10.7)
        ax.set_ylim(-0.7, 6.3)
        ax.set_aspect("equal")
        ax.set_axis_off()
        ix.set_axis_off()
        ix.set_xlim(0, 1)
        ix.set_ylim(0, 1)
        sm = mpl.cm.ScalarMappable(norm=norm, cmap=cmap)
        cb = fig.colorbar(sm, ax=ax, orientation="horizontal", fraction=0.05, pad=0.02, aspect=30)
        cb.set_label("busier direction's utilisation (%)", fontsize=9.5)
        cb.set_ticks([0, 0.25, 0.5, 0.75, 1.0], labels=["0", "25", "50", "75", "100"])
        cb.ax.tick_params(labelsize=9)

        groups = {label: _draw_case(ax, ix, g, cmap) for label, g, _ranks, _routing in cases}
        head = ax.set_title(" ", fontsize=11)

        # time bars on a linear axis rescaled to each frame: the point is their ratio
        bars = bx.barh([1, 0], [1.0, 1.0], height=0.6, color=[plots.PALETTE[0], plots.PALETTE[1]])
        bx.set_ylim(-0.6, 1.6)
        bx.set_yticks([1, 0], ["simulated", "closed\nform"])
        bx.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: fmt_time(v) if v > 0 else "0"))
        bx.tick_params(labelsize=9)
        bx.set_title("time of the collective", fontsize=10)
        bx.grid(axis="y", visible=False)

        def update(topology, collective):
            r = results[topology, collective]
            for label, (_lc, art) in groups.items():
                on = label == topology
                for a in art:
                    a.set_visible(on)
            lc, _ = groups[topology]
            lc.set_colors(cmap(norm(r["util"])))
            lc.set_linewidths(0.8 + 5.2 * np.clip(r["util"], 0, 1))
            head.set_text(f"{topology}: {collective} of {fmt_bytes(nbytes)}")
            bars[0].set_width(r["time"])
            bars[1].set_width(r["closed"])
            bx.set_xlim(0, 1.25 * max(r["time"], r["closed"]))
            bx.xaxis.set_major_locator(mpl.ticker.MaxNLocator(3))
            # no list of changed artists: the time axis rescales, so every frame is drawn whole

        return fig, update

    def readout(topology, collective):
        r = results[topology, collective]
        u, v = r["bottleneck"] if r["bottleneck"] else ("-", "-")
        return (f"{topology}, {collective} of {fmt_bytes(nbytes)} on {r['p']} ranks "
                f"({'seeded ECMP' if r['routing'] == 'ecmp' else 'shortest-path'} routing): "
                f"simulated {fmt_time(r['time'])} (busbw {fmt_bandwidth(r['busbw'])}), closed form "
                f"{fmt_time(r['closed'])} with B = {fmt_bandwidth(r['bw'])}; simulated / closed form = "
                f"{r['time'] / r['closed']:.2f}; busiest link {u} → {v} at {100 * r['bottleneck_util']:.0f} %.")

    def alt(topology, collective):
        r = results[topology, collective]
        return (f"The {topology} topology drawn with each link coloured by its utilisation during a {collective} of "
                f"{fmt_bytes(nbytes)}; the busiest link is {r['bottleneck'][0]} to {r['bottleneck'][1]}. "
                f"Simulated time {fmt_time(r['time'])} against {fmt_time(r['closed'])} from the closed form.")

    return Explorer(
        "Link load of a collective on a topology",
        [Param("topology", "topology", tuple(labels), labels[0]),
         Param("collective", "collective", tuple(collective_names), collective_names[0])],
        make_figure, static=["topology", "collective"], alt=alt, readout=readout)
