"""Drawing a topology with matplotlib (imported on first call)."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from .build import KINDS

__all__ = ["draw"]

_KIND_STYLE = {
    # kind: (colour, marker, size, legend label)
    "gpu": ("#009E73", "s", 420, "GPU"),
    "host": ("#009E73", "s", 260, "host"),
    "cpu": ("#0072B2", "D", 480, "CPU socket (root complex)"),
    "pcie_switch": ("#56B4E9", "o", 300, "PCIe switch"),
    "nvswitch": ("#E69F00", "h", 700, "NVSwitch"),
    "nic": ("#CC79A7", "v", 200, "NIC"),
    "leaf": ("#D55E00", "^", 320, "leaf switch"),
    "edge": ("#D55E00", "^", 260, "edge switch"),
    "aggregation": ("#CC79A7", "^", 260, "aggregation switch"),
    "spine": ("#0072B2", "^", 360, "spine switch"),
    "core": ("#000000", "^", 300, "core switch"),
}


def _edge_family(d):
    link = str(d.get("link", ""))
    if link.startswith("nvlink"):
        return "NVLink"
    if link.startswith("pcie"):
        return "PCIe"
    if link.startswith("ib-") or link.startswith("eth-"):
        return "network"
    return "other"


_FAMILY_STYLE = {"NVLink": ("#009E73", "-"), "PCIe": ("#0072B2", "-"),
                 "network": ("#555555", "-"), "other": ("#000000", "--")}


def draw(g, ax=None, title=None, labels=True):
    """Draw a topology: nodes by kind, edge width by bandwidth (log), a legend.

    Parameters
    ----------
    g : networkx.Graph
        A graph from one of the builders (uses their ``pos`` node attribute; other
        graphs get a seeded spring layout).
    ax : matplotlib.axes.Axes, optional
        Axes to draw into; a new figure is made if omitted.
    title : str, optional
        Default ``g.graph["name"]``.
    labels : bool
        Label GPUs (and CPUs / switches in small graphs).

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Colours follow the Okabe-Ito palette of :mod:`interconnect.plots`; node kinds also
    differ by marker shape and edge families (NVLink, PCIe, network, other) by colour
    and style, so the figure reads without colour. Edge width grows with the log of the
    per-direction bandwidth; the legend states the range. Torus wrap-around edges are
    drawn as arcs.

    References
    ----------
    M. Okabe, K. Ito, "Color Universal Design (CUD)", 2008.
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    from ..plots import use_style
    from ..units import fmt_bandwidth

    use_style()
    pos = {n: d.get("pos") for n, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        pos = nx.spring_layout(g, seed=1)
    xs = np.array([p[0] for p in pos.values()])
    ys = np.array([p[1] for p in pos.values()])
    xr = max(xs.max() - xs.min(), 1.0)
    yr = max(ys.max() - ys.min(), 1.0)
    if ax is None:
        wid = min(13.0, max(6.0, 1.0 + xr * 0.75))
        hei = min(8.0, max(3.6, wid * yr / xr * 0.9 + 1.4))
        _, ax = plt.subplots(figsize=(wid, hei))
    n_nodes = g.number_of_nodes()
    scale = 1.0 if n_nodes <= 24 else max(0.25, (24 / n_nodes) ** 0.5)

    bws = [d["bandwidth"] for _, _, d in g.edges(data=True)]
    lo, hi = (min(bws), max(bws)) if bws else (1.0, 1.0)

    def width(bw):
        if hi <= lo * 1.0001:
            return 2.2
        return 0.8 + 4.7 * (math.log(bw) - math.log(lo)) / (math.log(hi) - math.log(lo))

    families = set()
    extra = []
    coords = nx.get_node_attributes(g, "coords")
    dims = g.graph.get("dims")
    for u, v, d in g.edges(data=True):
        fam = _edge_family(d)
        families.add(fam)
        col, ls = _FAMILY_STYLE[fam]
        lw = width(d["bandwidth"]) * (0.6 + 0.4 * scale)
        rad = 0.0
        arcs = g.graph.get("draw_arcs", {})
        if (u, v) in arcs:
            rad = arcs[(u, v)]
        elif (v, u) in arcs:
            rad = -arcs[(v, u)]
        elif coords and dims and u in coords and v in coords:
            if any(abs(a - b) > 1 for a, b in zip(coords[u], coords[v])):
                rad = 0.28
        if rad:
            (x1, y1), (x2, y2) = pos[u], pos[v]
            cx, cy = (x1 + x2) / 2 + rad * (y2 - y1), (y1 + y2) / 2 - rad * (x2 - x1)
            extra.append((0.25 * x1 + 0.5 * cx + 0.25 * x2, 0.25 * y1 + 0.5 * cy + 0.25 * y2))
            patch = FancyArrowPatch(pos[u], pos[v], arrowstyle="-", connectionstyle=f"arc3,rad={rad}",
                                    color=col, lw=lw, ls=ls, alpha=0.75, zorder=1)
            ax.add_patch(patch)
        else:
            ax.plot([pos[u][0], pos[v][0]], [pos[u][1], pos[v][1]], color=col, lw=lw, ls=ls,
                    alpha=0.8, solid_capstyle="round", zorder=1)

    kinds_present = [k for k in KINDS if any(d.get("kind") == k for _, d in g.nodes(data=True))]
    for kind in kinds_present:
        col, marker, size, _ = _KIND_STYLE[kind]
        ns = [n for n, d in g.nodes(data=True) if d.get("kind") == kind]
        ax.scatter([pos[n][0] for n in ns], [pos[n][1] for n in ns], s=size * scale, c=col,
                   marker=marker, edgecolors="white", linewidths=1.2, zorder=3)
    if labels:
        small = n_nodes <= 40
        for n, d in g.nodes(data=True):
            kind = d.get("kind")
            if kind == "gpu":
                text = str(d.get("index", n))
                fs = 9 if scale >= 0.8 else 7
                ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                        fontsize=fs, fontweight="bold", zorder=4)
            elif small and kind in ("cpu", "pcie_switch", "nvswitch", "host"):
                text = {"cpu": f"CPU{d.get('index', '')}", "pcie_switch": "SW",
                        "nvswitch": "NVS", "host": str(d.get("index", ""))}[kind]
                if kind == "cpu" or kind == "nvswitch":
                    ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                            fontsize=7, fontweight="bold", zorder=4)
                elif kind == "host":
                    ax.text(pos[n][0], pos[n][1], text, ha="center", va="center", color="white",
                            fontsize=7, zorder=4)
        if g.graph.get("builder") == "cluster":
            for j in range(g.graph["nodes"]):
                gs = [pos[n] for n, d in g.nodes(data=True) if d.get("node") == j and d.get("kind") == "gpu"]
                if gs:
                    ax.text(np.mean([p[0] for p in gs]), max(p[1] for p in gs) + 1.45, f"node {j}",
                            ha="center", va="bottom", fontsize=9, color="#333333")

    handles = []
    for kind in kinds_present:
        col, marker, _, lab = _KIND_STYLE[kind]
        handles.append(Line2D([], [], ls="", marker=marker, color=col, markersize=9, label=lab))
    for fam in ("NVLink", "PCIe", "network", "other"):
        if fam in families:
            col, ls = _FAMILY_STYLE[fam]
            lab = {"NVLink": "NVLink", "PCIe": "PCIe", "network": "network link",
                   "other": "socket link (QPI/UPI)" if any(
                       g.nodes[u].get("kind") == "cpu" and g.nodes[v].get("kind") == "cpu"
                       for u, v in g.edges) else "other link"}[fam]
            handles.append(Line2D([], [], color=col, ls=ls, lw=2.5, label=lab))
    if bws and hi > lo * 1.0001:
        handles.append(Line2D([], [], color="none",
                              label=f"width: {fmt_bandwidth(lo)} .. {fmt_bandwidth(hi)}"))
    elif bws:
        handles.append(Line2D([], [], color="none", label=f"every edge {fmt_bandwidth(lo)}"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
              fontsize=8.5, borderaxespad=0.2)
    ax.set_title(g.graph.get("name", "topology") if title is None else title)
    pad = 0.5
    if extra:
        xs = np.concatenate([xs, [p[0] for p in extra]])
        ys = np.concatenate([ys, [p[1] for p in extra]])
    ax.set_xlim(xs.min() - pad, xs.max() + pad)
    ax.set_ylim(ys.min() - pad, ys.max() + pad + (0.8 if g.graph.get("builder") == "cluster" else 0))
    # equal scales by shrinking the box (limits are fixed, so "datalim" would be ignored with a warning)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()
    return ax
