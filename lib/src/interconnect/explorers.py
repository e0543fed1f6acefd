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

__all__ = ["dp_scaling_explorer", "allreduce_explorer", "ring_allreduce_animation", "topology_load_explorer"]


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
    rows = {r.name: r for r in (collectives.cost_algorithm("allreduce", a) for a in algorithms)}
    algs = tuple(rows)
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
                if rows[alg].pow2 and p & (p - 1):
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


# ---------------------------------------------------------------------------------------
# chapter "Switching and topology"
# ---------------------------------------------------------------------------------------
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
    from . import topology as T

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


def _topo_closed_form(g, ranks, op, algorithm, nbytes):
    """Alpha-beta time with B = the narrowest shortest path between ring neighbours
    (bytes/s per direction) and alpha = the longest such path latency."""
    from . import topology as T

    pairs = list(zip(ranks, ranks[1:] + ranks[:1]))
    bw = min(T.path_bandwidth(g, a, b) for a, b in pairs)
    lat = max(T.path_latency(g, a, b) for a, b in pairs)
    return collectives.collective_time(op, nbytes, len(ranks), bw, lat, algorithm), bw


def _topo_layout(g, box=(0.0, 0.0, 10.0, 5.6)):
    """Node positions of ``g`` scaled (aspect kept) and centred into ``box``."""
    import networkx as nx

    pos = {n: d.get("pos") for n, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        pos = nx.spring_layout(g, seed=1)
    xy = np.array([pos[n] for n in g.nodes], dtype=float)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    x0, y0, x1, y1 = box
    s = min((x1 - x0) / span[0], (y1 - y0) / span[1])
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    out = (xy - (lo + hi) / 2) * s + centre
    return {n: out[i] for i, n in enumerate(g.nodes)}


def _topo_segment(p, q, rad=0.0, n=17):
    """A straight segment or, for ``rad != 0``, the quadratic arc that matplotlib's
    ``arc3`` connection style draws (control point ``rad`` x the length off the middle)."""
    p, q = np.asarray(p, float), np.asarray(q, float)
    if not rad:
        return np.array([p, q])
    c = (p + q) / 2 + rad * np.array([q[1] - p[1], -(q[0] - p[0])])
    t = np.linspace(0.0, 1.0, n)[:, None]
    return (1 - t) ** 2 * p + 2 * (1 - t) * t * c + t ** 2 * q


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
    shortest path between consecutive ranks (:func:`interconnect.topology.path_bandwidth`)
    and whose latency is the longest such path's.

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
    import matplotlib as mpl
    from matplotlib.collections import LineCollection
    from matplotlib.legend import Legend
    from matplotlib.lines import Line2D

    from . import netsim
    from . import topology as T
    from .topology import _KIND_STYLE
    from .units import fmt_bytes

    cases = list(_topo_default_cases() if cases is None else cases)
    if not cases:
        raise ValueError("cases is empty; give at least one (label, graph, ranks, routing)")
    for c in collective_names:
        if c not in _TOPO_COLLECTIVES:
            raise ValueError(f"collective_names contains {c!r}; allowed: {tuple(_TOPO_COLLECTIVES)}")
    labels = [c[0] for c in cases]
    if len(set(labels)) != len(labels):
        raise ValueError(f"cases have repeated labels {labels}")

    # the slow part, once: every simulation and closed form
    results = {}
    for label, g, ranks, routing in cases:
        rk = list(T.endpoints(g) if ranks is None else ranks)
        for cname in collective_names:
            op, alg = _TOPO_COLLECTIVES[cname]
            cf_alg = collectives.closed_form_of(op, alg)
            res = netsim.simulate_collective(g, op, nbytes, ranks=rk, algorithm=alg, routing=routing, seed=0)
            t_cf, bw_cf = _topo_closed_form(g, rk, op, cf_alg, nbytes)
            util = res.sim.link_utilisation
            per_edge = np.array([max(util.get((u, v), 0.0), util.get((v, u), 0.0)) for u, v in g.edges])
            b = res.sim.bottleneck
            results[label, cname] = dict(time=res.time, busbw=res.busbw, closed=t_cf, bw=bw_cf, util=per_edge,
                                         bottleneck=b, bottleneck_util=util.get(b, 0.0) if b else 0.0,
                                         p=len(rk), routing=routing)
    cmap = mpl.colormaps["viridis"]
    norm = mpl.colors.Normalize(0.0, 1.0)

    def make_figure():
        plots.use_style()
        fig = plt.figure(figsize=(10.4, 5.4))
        gs = fig.add_gridspec(2, 2, width_ratios=(2.5, 1.0), height_ratios=(1.0, 1.45))
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
        cb = fig.colorbar(sm, ax=ax, orientation="horizontal", fraction=0.045, pad=0.02, aspect=40)
        cb.set_label("utilisation of the busier direction over the run (% of per-direction bandwidth)", fontsize=9)
        cb.set_ticks([0, 0.25, 0.5, 0.75, 1.0], labels=["0", "25", "50", "75", "100"])

        groups = {}
        for label, g, _ranks, _routing in cases:
            pos = _topo_layout(g)
            arcs = g.graph.get("draw_arcs", {})
            segs = []
            for u, v in g.edges:
                rad = arcs.get((u, v), -arcs[(v, u)] if (v, u) in arcs else 0.0)
                segs.append(_topo_segment(pos[u], pos[v], rad))
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
                col, marker, size, name = _KIND_STYLE[kind]
                art.append(ax.scatter([pos[n][0] for n in ns], [pos[n][1] for n in ns], s=size * scale, c=col,
                                      marker=marker, edgecolors="white", linewidths=1.0, zorder=3))
                handles.append(Line2D([], [], ls="", marker=marker, color=col, markersize=8, label=name))
            for n, d in g.nodes(data=True):
                if d.get("kind") in ("gpu", "host"):
                    art.append(ax.text(pos[n][0], pos[n][1], str(d.get("index", "")), ha="center", va="center",
                                       color="white", fontsize=8 if scale >= 0.8 else 6, fontweight="bold",
                                       zorder=4))
            leg = Legend(ix, handles, [h.get_label() for h in handles], loc="lower left", fontsize=8.5,
                         frameon=False, ncols=2, bbox_to_anchor=(-0.05, -0.02), handletextpad=0.3,
                         columnspacing=0.8, title="node kinds", title_fontsize=8.5)
            ix.add_artist(leg)
            art.append(leg)
            groups[label] = (lc, art)
        head = ax.set_title(" ")

        # time bars on a fixed log axis
        bars = bx.barh([1, 0], [1e-4, 1e-4], left=1e-5, height=0.6, color=[plots.PALETTE[0], plots.PALETTE[1]])
        bx.set_xscale("log")
        bx.set_xlim(1e-4, 1e-1)
        bx.set_ylim(-0.6, 1.6)
        bx.set_yticks([1, 0], ["simulated", "closed form"])
        plots.time_axis(bx, axis="x")
        bx.set_title("time of the collective", fontsize=10)
        bx.grid(axis="y", visible=False)
        note = ix.text(0.0, 0.98, "", ha="left", va="top", fontsize=9, transform=ix.transAxes, linespacing=1.45)

        def update(topology, collective):
            r = results[topology, collective]
            for label, (lc, art) in groups.items():
                on = label == topology
                for a in art:
                    a.set_visible(on)
            lc, _ = groups[topology]
            lc.set_colors(cmap(norm(r["util"])))
            lc.set_linewidths(0.8 + 5.2 * np.clip(r["util"], 0, 1))
            head.set_text(f"{topology}: {collective} of {fmt_bytes(nbytes)}")
            bars[0].set_width(r["time"] - 1e-5)
            bars[1].set_width(r["closed"] - 1e-5)
            u, v = r["bottleneck"] if r["bottleneck"] else ("-", "-")
            note.set_text(
                f"{r['p']} ranks, routing: {'seeded ECMP' if r['routing'] == 'ecmp' else 'shortest path'}\n"
                f"simulated: {fmt_time(r['time'])} (busbw {fmt_bandwidth(r['busbw'])})\n"
                f"closed form: {fmt_time(r['closed'])}\n"
                f"   with B = {fmt_bandwidth(r['bw'])}\n"
                f"simulated / closed form = {r['time'] / r['closed']:.2f}\n"
                f"busiest link: {u} → {v}, {100 * r['bottleneck_util']:.0f} %")
            return [*(a for _, art in groups.values() for a in art), head, bars[0], bars[1], note]

        return fig, update

    def alt(topology, collective):
        r = results[topology, collective]
        return (f"The {topology} topology drawn with each link coloured by its utilisation during a {collective} of "
                f"{fmt_bytes(nbytes)}; the busiest link is {r['bottleneck'][0]} to {r['bottleneck'][1]}. "
                f"Simulated time {fmt_time(r['time'])} against {fmt_time(r['closed'])} from the closed form.")

    return Explorer(
        "Link load of a collective on a topology",
        [Param("topology", "topology", tuple(labels), labels[0]),
         Param("collective", "collective", tuple(collective_names), collective_names[0])],
        make_figure, static=["topology", "collective"], alt=alt)


def _ring_states(p):
    """Per step: how many ranks are summed into each chunk of each rank, and who sends what.

    Runs :func:`interconnect.netsim.schedule` ("allreduce", ring) on sets of contributing
    ranks. Returns ``(states, sends, phase_of, rounds)``: ``states[k][r][u]`` counts the
    ranks summed into unit ``u`` of rank ``r`` after ``k`` steps; ``sends[k]`` maps each
    sender of step ``k`` to the unit it sends; ``phase_of[k]`` names the phase.
    """
    from . import netsim

    sch = netsim.schedule("allreduce", p, "ring")
    rounds = sch.n_rounds
    state = [[{r} for _ in range(sch.units)] for r in range(p)]
    states = [[[len(c) for c in row] for row in state]]
    sends = []
    for k in range(rounds):
        idx = np.flatnonzero(sch.round == k)
        sends.append({int(sch.src[i]): int(sch.lo[i]) for i in idx})
        before = [[set(c) for c in row] for row in state]
        for i in idx:
            s_, d = int(sch.src[i]), int(sch.dst[i])
            for u in range(int(sch.lo[i]), int(sch.hi[i])):
                du = int(sch.dst_lo[i]) + u - int(sch.lo[i])
                state[d][du] = (state[d][du] | before[s_][u]) if sch.reduce[i] else set(before[s_][u])
        states.append([[len(c) for c in row] for row in state])
    sends.append({})
    phase_of = {k: sch.phases[int(sch.phase[np.flatnonzero(sch.round == k)[0]])] for k in range(rounds)}
    return states, sends, phase_of, rounds


def ring_allreduce_animation(p=5):
    """Step through a ring AllReduce: what every rank holds after each step, and which
    chunk each rank sends next (chapter "Collective communication").

    The schedule is :func:`interconnect.netsim.schedule` (the same one the simulator
    runs and :func:`interconnect.netsim.run_collective` executes on numpy arrays), so the
    picture is the algorithm itself, not a drawing of it. Each rank's buffer is a row of
    ``p`` chunks coloured by how many ranks' data have been summed into it; ``Σ`` marks
    a finished chunk. One slider: the step, from 0 (before the first send) to
    ``2(p-1)`` (done).

    Parameters
    ----------
    p : int
        Ranks, 3 to 8.
    """
    from matplotlib.patches import FancyArrowPatch, Rectangle

    from ._validate import as_count

    p = as_count("p", p, minimum=3)
    if p > 8:
        raise ValueError(f"p={p} is too many to draw; allowed 3 to 8")
    states, sends, phase_of, rounds = _ring_states(p)
    cmap = plt.get_cmap("Blues")

    def make_figure():
        fig, ax = plots.new_figure(f"Ring AllReduce on {p} ranks", "", "", figsize=(7.2, 5.6))
        ax.set_axis_off()
        ax.set_xlim(-1.75, 1.75)
        ax.set_ylim(-1.55, 1.6)
        ax.set_aspect("equal", adjustable="box")
        angles = np.pi / 2 - 2 * np.pi * np.arange(p) / p
        centres = np.c_[np.cos(angles), np.sin(angles)]
        w = 0.5 / p * 1.6
        cells, texts, arrows, labels = [], [], [], []
        for r, (x, y) in enumerate(centres):
            ax.text(x, y + 0.17, f"rank {r}", ha="center", va="bottom", fontsize=9)
            row, trow = [], []
            for u in range(p):
                cx = x - p * w / 2 + u * w
                rect = Rectangle((cx, y - w / 2), w * 0.94, w, facecolor="white", edgecolor="0.3", lw=0.6)
                ax.add_patch(rect)
                row.append(rect)
                trow.append(ax.text(cx + w * 0.47, y, "", ha="center", va="center", fontsize=7))
            cells.append(row)
            texts.append(trow)
        for r in range(p):
            a, b = centres[r], centres[(r + 1) % p]
            arrow = FancyArrowPatch(a * 0.72 + b * 0.28, a * 0.28 + b * 0.72, arrowstyle="-|>", mutation_scale=12,
                                    color=plots.PALETTE[3], lw=1.6, connectionstyle="arc3,rad=-0.25")
            ax.add_patch(arrow)
            arrows.append(arrow)
            mid = (a + b) / 2 * 1.22
            labels.append(ax.text(mid[0], mid[1], "", ha="center", va="center", fontsize=8, color=plots.PALETTE[3]))
        head = ax.text(0, -1.45, "", ha="center", va="center", fontsize=10)
        sm = plt.cm.ScalarMappable(cmap=cmap, norm=plt.Normalize(0, p))
        cb = fig.colorbar(sm, ax=ax, fraction=0.035, pad=0.0, ticks=range(0, p + 1))
        cb.set_label("ranks summed into the chunk")

        def update(step):
            counts = states[step]
            for r in range(p):
                for u in range(p):
                    c = counts[r][u]
                    cells[r][u].set_facecolor(cmap(0.15 + 0.85 * c / p))
                    texts[r][u].set_text("Σ" if c == p else str(c))
                    texts[r][u].set_color("white" if c > p / 2 else "black")
            for r in range(p):
                chunk = sends[step].get(r)
                arrows[r].set_visible(chunk is not None)
                labels[r].set_text("" if chunk is None else f"chunk {chunk}")
            if step < rounds:
                head.set_text(f"step {step + 1} of {rounds} ({phase_of[step]}): each rank sends one chunk of n/{p} "
                              "to the next")
            else:
                head.set_text(f"done after {rounds} steps: every rank holds every sum Σ")
            return [*(c for row in cells for c in row), *(t for row in texts for t in row), *arrows, *labels, head]

        return fig, update

    return Explorer(
        f"Ring AllReduce, step by step ({p} ranks)",
        [Param("step", "step", tuple(range(rounds + 1)), 0,
               lambda k: "before the first step" if k == 0 else f"after step {k} of {rounds}")],
        make_figure, static=["step"],
        alt=lambda step: (f"Ring of {p} ranks, each holding {p} chunks, after {step} of {rounds} steps of a ring "
                          "AllReduce; colours show how many ranks' data each chunk has summed."),
        dpi=90)


# ---------------------------------------------------------------------------------------
# chapter "Putting it together: planning a cluster"
# ---------------------------------------------------------------------------------------
__all__ += ["memory_calculator_explorer"]

#: Activation strategies offered by :func:`memory_calculator_explorer`: label -> (recompute,
#: sequence_parallel). Full recomputation keeps only each layer's input, the same with or
#: without sequence parallelism in :func:`interconnect.memory.activation_memory`.
_MEM_ACTIVATIONS = {
    "store all": ("none", False),
    "store all + SP": ("none", True),
    "selective": ("selective", False),
    "selective + SP": ("selective", True),
    "full recompute": ("full", False),
}


def _mem_default_models():
    """name -> (ModelConfig, kv_heads, head_dim) of the explorer's model presets."""
    from .catalog import models

    # the catalog's presets with the key-value heads and head size of their attention:
    # Llama 2 70B uses grouped-query attention with 8 KV heads (Touvron et al. 2023, sec. 2.2)
    return {m.name: (m, kv, 128) for m, kv in ((models.get("gpt3-175b"), 96), (models.get("llama2-70b"), 8),
                                               (models.get("gpt3-13b"), 40), (models.get("gpt3-6.7b"), 32))}


def _mem_parts(model, dp, tp, pp, microbatch, zero_stage, recompute, sequence_parallel):
    """Bytes per GPU of the first pipeline stage in training, by part, as
    :func:`interconnect.parallel.layout_memory` counts them (its total is their sum)."""
    from dataclasses import replace

    from . import memory
    from .parallel import Layout, layout_memory, stage_params

    lay = Layout(dp=dp, tp=tp, pp=pp, microbatch=microbatch, recompute=recompute,
                 sequence_parallel=sequence_parallel, zero_stage=zero_stage)
    # a global batch with m = 4 pp microbatches, so 1F1B keeps pp of them in flight
    m = replace(model, global_batch=microbatch * dp * pp * 4)
    params = stage_params(m, lay)
    states = memory.training_memory(params, dp, zero_stage)
    total = layout_memory(m, lay)
    return {"params": states["params"], "grads": states["grads"], "optimizer": states["optimizer"],
            "activations": total - states["total"], "total": total, "stage_params": params}


def _mem_inference_parts(model, kv_heads, head_dim, tp, pp, batch, context):
    """Bytes per GPU in inference: 16-bit weights split over ``tp * pp`` and the KV cache
    (:func:`interconnect.memory.kv_cache_bytes`) of ``layers / pp`` layers and
    ``kv_heads / tp`` key-value heads (at least one: heads are replicated when tp > kv_heads)."""
    from . import memory
    from .parallel import transformer_params

    weights = 2.0 * transformer_params(model.layers, model.hidden, model.vocab, model.seq_len) / (tp * pp)
    kv = memory.kv_cache_bytes(max(1, model.layers // pp), max(1, kv_heads // tp), head_dim, context, batch)
    return {"weights": weights, "kv_cache": kv, "total": weights + kv}


def memory_calculator_explorer(models=None, default_model="GPT-3 175B", gpu_names=("V100", "A100", "H100"),
                               default_gpu="A100", y_max_gib=160.0):
    """Memory per GPU of training and of inference, as stacked bars against the GPU's
    capacity (chapter "Putting it together: planning a cluster").

    Training bar (first pipeline stage, the fullest): 16-bit parameters, 16-bit gradients
    and the 12 bytes per parameter of mixed-precision Adam, partitioned by ZeRO over ``dp``
    (:func:`interconnect.memory.training_memory`), and the activations of ``pp``
    microbatches in flight under 1F1B (:func:`interconnect.memory.activation_memory`,
    Korthikanti et al. 2022); the sum is :func:`interconnect.parallel.layout_memory`.
    Inference bar: the 16-bit weights split over ``tp * pp`` and the KV cache of the
    serving batch (:func:`interconnect.memory.kv_cache_bytes`, with the model's key-value
    heads, so grouped-query attention counts). Sizes are drawn in GiB (2**30 bytes); the
    labels give GB (1e9 bytes) as well.

    Sliders: model, GPU, dp, tp, pp, microbatch, ZeRO stage, activation strategy
    (recomputation and sequence parallelism), serving batch and context length. The
    static book varies the ZeRO stage and the activation strategy.

    Parameters
    ----------
    models : dict, optional
        name -> (ModelConfig, kv_heads, head_dim); default GPT-3 175B, a Llama-class 70B
        (8 KV heads), GPT-3 13B and 6.7B.
    default_model : str
        A key of ``models``.
    gpu_names : sequence of str
        Names for :func:`interconnect.devices.get_gpu`.
    default_gpu : str
        One of ``gpu_names``.
    y_max_gib : float
        Fixed top of the axis, GiB; larger bars are clipped and say so.
    """
    from . import devices
    from .units import GB, GiB

    models = _mem_default_models() if models is None else dict(models)
    if default_model not in models:
        raise ValueError(f"default_model={default_model!r} is not one of {list(models)}")
    if default_gpu not in gpu_names:
        raise ValueError(f"default_gpu={default_gpu!r} is not in gpu_names {tuple(gpu_names)}")
    gpus = {n: devices.get_gpu(n) for n in gpu_names}
    top = float(y_max_gib)
    train_parts = [("params", "parameters (16-bit)"), ("grads", "gradients (16-bit)"),
                   ("optimizer", "optimizer: FP32 master + Adam m, v"), ("activations", "activations")]
    infer_parts = [("weights", "weights (16-bit)"), ("kv_cache", "KV cache")]
    colors = {"params": plots.PALETTE[0], "grads": plots.PALETTE[5], "optimizer": plots.PALETTE[1],
              "activations": plots.PALETTE[2], "weights": plots.PALETTE[0], "kv_cache": plots.PALETTE[4]}
    hatches = {"grads": "..", "optimizer": "//", "activations": "xx", "kv_cache": "\\\\"}

    def make_figure():
        fig, ax = plots.new_figure("Memory per GPU", "", "memory per GPU (GiB = 2³⁰ bytes)", figsize=(9.0, 4.4))
        ax.set_xlim(-0.55, 2.75)
        ax.set_ylim(0, top)
        ax.set_xticks([0, 1], ["training\n(first pipeline stage)", "inference\n(same tp × pp)"])
        ax.grid(axis="x", visible=False)
        bars = {}
        for k, label in train_parts:
            bars[("t", k)] = ax.bar([0], [0.0], width=0.6, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label)[0]
        for k, label in infer_parts:
            bars[("i", k)] = ax.bar([1], [0.0], width=0.6, color=colors[k], hatch=hatches.get(k), edgecolor="white",
                                    label=label if k != "weights" else None)[0]
        (cap,) = ax.plot([-0.45, 1.45], [0, 0], color=plots.PALETTE[3], lw=2, linestyle="--")
        cap_text = ax.text(-0.45, 0, "", color=plots.PALETTE[3], fontsize=9, va="bottom")
        tot = {s: ax.text(x, 0, "", ha="center", va="bottom", fontsize=9, fontweight="bold")
               for s, x in (("t", 0), ("i", 1))}
        info = ax.text(1.55, top * 0.97, "", va="top", ha="left", fontsize=8.5, family="monospace",
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        ax.legend(loc="upper left", fontsize=8, ncols=1, bbox_to_anchor=(0.0, 1.0))
        head = ax.set_title(" ")

        def update(model, gpu, dp, tp, pp, microbatch, zero_stage, activations, batch, context):
            cfg, kv_heads, head_dim = models[model]
            g = gpus[gpu]
            recompute, sp = _MEM_ACTIVATIONS[activations]
            tr = _mem_parts(cfg, dp, tp, pp, microbatch, zero_stage, recompute, sp)
            inf = _mem_inference_parts(cfg, kv_heads, head_dim, tp, pp, batch, context)
            for side, parts, vals in (("t", train_parts, tr), ("i", infer_parts, inf)):
                y = 0.0
                for k, _ in parts:
                    hgt = vals[k] / GiB
                    b = bars[(side, k)]
                    lo, hi = min(y, top), min(y + hgt, top)
                    b.set_y(lo)
                    b.set_height(hi - lo)
                    y += hgt
                t = tot[side]
                t.set_position((0 if side == "t" else 1, min(y, top * 0.93)))
                fits = vals["total"] <= g.memory
                t.set_text(f"{vals['total'] / GiB:.1f} GiB{' (off scale)' if y > top else ''}\n"
                           f"{'fits' if fits else 'does NOT fit'}")
                t.set_color("black" if fits else plots.PALETTE[3])
            c = g.memory / GiB
            cap.set_ydata([c, c])
            cap_text.set_position((-0.45, min(c, top * 0.9)))
            cap_text.set_text(f"{g.name}: {g.memory / GB:.0f} GB = {c:.1f} GiB")
            head.set_text(f"{model} on {g.name}: dp={dp} tp={tp} pp={pp} b={microbatch}, ZeRO-{zero_stage}, "
                          f"{activations}")
            info.set_text(
                f"per GPU            GiB     GB\n"
                f"parameters   {tr['params'] / GiB:9.1f} {tr['params'] / GB:6.1f}\n"
                f"gradients    {tr['grads'] / GiB:9.1f} {tr['grads'] / GB:6.1f}\n"
                f"optimizer    {tr['optimizer'] / GiB:9.1f} {tr['optimizer'] / GB:6.1f}\n"
                f"activations  {tr['activations'] / GiB:9.1f} {tr['activations'] / GB:6.1f}\n"
                f"training     {tr['total'] / GiB:9.1f} {tr['total'] / GB:6.1f}\n"
                f"\ninference, batch {batch} x {context} tokens\n"
                f"weights      {inf['weights'] / GiB:9.1f} {inf['weights'] / GB:6.1f}\n"
                f"KV cache     {inf['kv_cache'] / GiB:9.1f} {inf['kv_cache'] / GB:6.1f}\n"
                f"inference    {inf['total'] / GiB:9.1f} {inf['total'] / GB:6.1f}\n"
                f"\n{tr['stage_params'] / 1e9:.2f} B parameters per GPU\n"
                f"{dp * tp * pp} GPUs in the training job")
            return [*bars.values(), cap, cap_text, *tot.values(), info, head]

        return fig, update

    names = list(models)
    return Explorer(
        "Memory calculator",
        [Param("zero_stage", "ZeRO stage", (0, 1, 2, 3), 1, lambda z: f"ZeRO-{z}"),
         Param("activations", "activations (recompute, sequence parallel SP)", tuple(_MEM_ACTIVATIONS),
               "selective + SP"),
         Param("model", "model", tuple(names), default_model),
         Param("gpu", "GPU", tuple(gpu_names), default_gpu,
               lambda n: f"{n} {gpus[n].memory / GB:.0f} GB"),
         Param("dp", "data parallel dp", (1, 2, 4, 8, 16, 32, 64), 8),
         Param("tp", "tensor parallel tp", (1, 2, 4, 8), 8),
         Param("pp", "pipeline stages pp", (1, 2, 4, 8, 16), 4),
         Param("microbatch", "microbatch b (sequences)", (1, 2, 4, 8), 1),
         Param("batch", "serving batch (sequences)", (1, 8, 32, 64, 128), 32),
         Param("context", "serving context (tokens)", (2048, 8192, 32768, 131072), 8192)],
        make_figure, static=["zero_stage", "activations"],
        alt=lambda model, gpu, dp, tp, pp, microbatch, zero_stage, activations, batch, context: (
            f"Stacked bars of memory per GPU in GiB for {model} on {gpu} with dp={dp}, tp={tp}, pp={pp}, "
            f"microbatch {microbatch}, ZeRO stage {zero_stage} and activations '{activations}': training "
            f"(parameters, gradients, optimizer states, activations) and inference (weights and KV cache for "
            f"{batch} sequences of {context} tokens), against a dashed line at the GPU's capacity."),
        dpi=80)
