"""Drawing topologies: one geometry (positions and edge curves) for every picture of a graph.

:func:`layout` places the nodes (the builders' ``pos``, else a seeded spring layout) and
:func:`edge_curves` gives each edge its polyline: straight, or the quadratic arc that
matplotlib's ``arc3`` connection style draws for the edges listed in
``g.graph["draw_arcs"]`` and for the wrap-around edges of a torus (:func:`edge_rad`).
:func:`draw` (also ``interconnect.topology.draw``), the topology-load explorer of
:mod:`interconnect.viz.explorers.topology` and the routes drawn in the chapter
"Protocols" (:func:`route_curve`) share them.
"""

from __future__ import annotations

import math

import networkx as nx
import numpy as np

from ..topology.build import KINDS

__all__ = ["NODE_STYLE", "FAMILY_STYLE", "edge_family", "layout", "fit_to_box", "edge_rad", "edge_curves",
           "route_curve", "draw"]

#: kind -> (colour, marker, size, legend label) of the nodes (Okabe-Ito colours).
NODE_STYLE = {
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

#: edge family -> (colour, line style).
FAMILY_STYLE = {"NVLink": ("#009E73", "-"), "PCIe": ("#0072B2", "-"),
                "network": ("#555555", "-"), "other": ("#000000", "--")}

#: Bend of a torus wrap-around edge (``arc3`` ``rad``).
TORUS_RAD = 0.28


def edge_family(d):
    """``"NVLink"``, ``"PCIe"``, ``"network"`` or ``"other"`` from an edge's ``link`` name."""
    link = str(d.get("link", ""))
    if link.startswith("nvlink"):
        return "NVLink"
    if link.startswith("pcie"):
        return "PCIe"
    if link.startswith("ib-") or link.startswith("eth-"):
        return "network"
    return "other"


def layout(g):
    """Node positions of ``g``: the builders' ``pos`` attribute, else a seeded spring layout.

    Returns
    -------
    dict
        node -> ``numpy`` array ``(x, y)``.
    """
    pos = {n: d.get("pos") for n, d in g.nodes(data=True)}
    if any(p is None for p in pos.values()):
        pos = nx.spring_layout(g, seed=1)
    return {n: np.asarray(p, dtype=float) for n, p in pos.items()}


def fit_to_box(pos, box=(0.0, 0.0, 10.0, 5.6)):
    """Positions scaled (aspect kept) and centred into ``box = (x0, y0, x1, y1)``."""
    nodes = list(pos)
    xy = np.array([pos[n] for n in nodes], dtype=float)
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    span = np.maximum(hi - lo, 1e-9)
    x0, y0, x1, y1 = box
    s = min((x1 - x0) / span[0], (y1 - y0) / span[1])
    centre = np.array([(x0 + x1) / 2, (y0 + y1) / 2])
    out = (xy - (lo + hi) / 2) * s + centre
    return {n: out[i] for i, n in enumerate(nodes)}


def edge_rad(g, u, v):
    """How much the edge ``u -> v`` bends (``arc3`` ``rad``; 0 for a straight edge).

    ``g.graph["draw_arcs"][(u, v)]`` (negated when listed as ``(v, u)``), else
    :data:`TORUS_RAD` for a torus wrap-around edge (its ``coords`` differ by more than one
    in some dimension), else 0.
    """
    arcs = g.graph.get("draw_arcs", {})
    if (u, v) in arcs:
        return arcs[(u, v)]
    if (v, u) in arcs:
        return -arcs[(v, u)]
    coords = g.graph.get("dims") and nx.get_node_attributes(g, "coords")
    if coords and u in coords and v in coords:
        if any(abs(a - b) > 1 for a, b in zip(coords[u], coords[v])):
            return TORUS_RAD
    return 0.0


def _curve(p, q, rad, n):
    """The straight segment ``[p, q]`` or, for ``rad != 0``, ``n`` points of the quadratic
    arc that ``arc3`` draws (control point ``rad`` x the chord off its middle)."""
    if not rad:
        return np.array([p, q])
    c = (p + q) / 2 + rad * np.array([q[1] - p[1], -(q[0] - p[0])])
    t = np.linspace(0.0, 1.0, n)[:, None]
    return (1 - t) ** 2 * p + 2 * (1 - t) * t * c + t ** 2 * q


def edge_curves(g, pos, n=17):
    """The polyline of every edge of ``g``, in ``g.edges`` order.

    Parameters
    ----------
    g : networkx.Graph
    pos : dict
        node -> (x, y), e.g. :func:`layout`.
    n : int
        Points of a curved edge (odd, so the middle point is the arc's apex).

    Returns
    -------
    list of ndarray
        ``(2, 2)`` for a straight edge, ``(n, 2)`` for an arc (:func:`edge_rad`).
    """
    return [_curve(np.asarray(pos[u], float), np.asarray(pos[v], float), edge_rad(g, u, v), n) for u, v in g.edges]


def route_curve(g, route, pos=None, n=40):
    """Points along a route (a list of nodes) that follow the drawn edges, arcs included.

    Parameters
    ----------
    g : networkx.Graph
    route : sequence
        Nodes, each adjacent to the next.
    pos : dict, optional
        Default :func:`layout` of ``g``.
    n : int
        Points per curved edge.

    Returns
    -------
    ndarray of shape (k, 2)
    """
    pos = layout(g) if pos is None else pos
    pts = [np.asarray(pos[route[0]], float)]
    for u, v in zip(route[:-1], route[1:]):
        rad = edge_rad(g, u, v)
        seg = _curve(np.asarray(pos[u], float), np.asarray(pos[v], float), rad, n)
        pts.extend(seg if rad else seg[1:])
    return np.array(pts)


# ---------------------------------------------------------------------------------------
# draw
# ---------------------------------------------------------------------------------------
def _new_axes(pos):
    """A figure sized to the spread of the positions."""
    import matplotlib.pyplot as plt

    xy = np.array(list(pos.values()))
    xr = max(np.ptp(xy[:, 0]), 1.0)
    yr = max(np.ptp(xy[:, 1]), 1.0)
    wid = min(13.0, max(6.0, 1.0 + xr * 0.75))
    hei = min(8.0, max(3.6, wid * yr / xr * 0.9 + 1.4))
    return plt.subplots(figsize=(wid, hei))[1]


def _width_of(g):
    """Line width of an edge of bandwidth ``bw``: from 0.8 to 5.5 with the log of the bandwidth."""
    bws = [d["bandwidth"] for _, _, d in g.edges(data=True)]
    lo, hi = (min(bws), max(bws)) if bws else (1.0, 1.0)

    def width(bw):
        if hi <= lo * 1.0001:
            return 2.2
        return 0.8 + 4.7 * (math.log(bw) - math.log(lo)) / (math.log(hi) - math.log(lo))

    return width


def _draw_edges(ax, g, pos, scale):
    """Edges by family, arcs as ``arc3`` patches; returns (families drawn, arc apexes)."""
    from matplotlib.patches import FancyArrowPatch

    width = _width_of(g)
    families, apexes = set(), []
    for (u, v, d), curve in zip(g.edges(data=True), edge_curves(g, pos)):
        fam = edge_family(d)
        families.add(fam)
        col, ls = FAMILY_STYLE[fam]
        lw = width(d["bandwidth"]) * (0.6 + 0.4 * scale)
        rad = edge_rad(g, u, v)
        if rad:
            apexes.append(curve[len(curve) // 2])
            ax.add_patch(FancyArrowPatch(tuple(pos[u]), tuple(pos[v]), arrowstyle="-",
                                         connectionstyle=f"arc3,rad={rad}", color=col, lw=lw, ls=ls, alpha=0.75,
                                         zorder=1))
        else:
            ax.plot(curve[:, 0], curve[:, 1], color=col, lw=lw, ls=ls, alpha=0.8, solid_capstyle="round", zorder=1)
    return families, apexes


def _kinds_present(g):
    return [k for k in KINDS if any(d.get("kind") == k for _, d in g.nodes(data=True))]


def _draw_nodes(ax, g, pos, scale):
    """One scatter per node kind, in the order of :data:`interconnect.topology.KINDS`."""
    for kind in _kinds_present(g):
        col, marker, size, _ = NODE_STYLE[kind]
        ns = [n for n, d in g.nodes(data=True) if d.get("kind") == kind]
        ax.scatter([pos[n][0] for n in ns], [pos[n][1] for n in ns], s=size * scale, c=col,
                   marker=marker, edgecolors="white", linewidths=1.2, zorder=3)


#: kind -> (label text from the node's data, bold) of the small graphs' labels drawn on the marker
_SMALL_LABELS = {"cpu": (lambda d: f"CPU{d.get('index', '')}", True),
                 "host": (lambda d: str(d.get("index", "")), False)}

#: switch kinds: in graphs of up to 40 nodes each is named (``sw0``, ``nvsw0``, ``leaf0``,
#: ``edge1.0``: the names the chapters and ``nvidia-smi``-style outputs use) beside its marker
_SWITCH_KINDS = ("pcie_switch", "nvswitch", "leaf", "edge", "aggregation", "spine", "core")

#: smallest font (points) of any text in a topology drawing: 9 pt is 12.5 px at 100 dpi, so it
#: stays at 9 px or more on the page as long as the figure is shown at 72 % or more of its size
MIN_FONT = 9


def _draw_labels(ax, g, pos, scale):
    """GPU indices; CPU and host labels and switch names in graphs of up to 40 nodes; cluster captions."""
    small = g.number_of_nodes() <= 40
    for n, d in g.nodes(data=True):
        kind = d.get("kind")
        if kind == "gpu":
            ax.text(pos[n][0], pos[n][1], str(d.get("index", n)), ha="center", va="center", color="white",
                    fontsize=MIN_FONT if scale >= 0.8 else 7, fontweight="bold", zorder=4)
        elif small and kind in _SMALL_LABELS:
            text, bold = _SMALL_LABELS[kind]
            ax.text(pos[n][0], pos[n][1], text(d), ha="center", va="center", color="white", fontsize=7.5,
                    zorder=4, **({"fontweight": "bold"} if bold else {}))
        elif small and kind in _SWITCH_KINDS:
            ax.annotate(str(n), pos[n], xytext=(0, -9 - 4 * scale), textcoords="offset points", ha="center",
                        va="top", fontsize=MIN_FONT, color="#222222", zorder=5,
                        bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none", "alpha": 0.8})
    if g.graph.get("builder") == "cluster":
        for j in range(g.graph["nodes"]):
            gs = [pos[n] for n, d in g.nodes(data=True) if d.get("node") == j and d.get("kind") == "gpu"]
            if gs:
                ax.text(np.mean([p[0] for p in gs]), max(p[1] for p in gs) + 1.45, f"node {j}",
                        ha="center", va="bottom", fontsize=MIN_FONT, color="#333333")


def _legend(ax, g, families, where="right"):
    """Node kinds, edge families and the range of edge widths, right of the axes or below them."""
    from matplotlib.lines import Line2D

    from ..units import fmt_bandwidth

    handles = []
    for kind in _kinds_present(g):
        col, marker, _, lab = NODE_STYLE[kind]
        handles.append(Line2D([], [], ls="", marker=marker, color=col, markersize=9, label=lab))
    sockets = any(g.nodes[u].get("kind") == "cpu" and g.nodes[v].get("kind") == "cpu" for u, v in g.edges)
    names = {"NVLink": "NVLink", "PCIe": "PCIe", "network": "network link",
             "other": "socket link (QPI/UPI)" if sockets else "other link"}
    for fam in ("NVLink", "PCIe", "network", "other"):
        if fam in families:
            col, ls = FAMILY_STYLE[fam]
            handles.append(Line2D([], [], color=col, ls=ls, lw=2.5, label=names[fam]))
    bws = [d["bandwidth"] for _, _, d in g.edges(data=True)]
    if bws and max(bws) > min(bws) * 1.0001:
        handles.append(Line2D([], [], color="none",
                              label=f"width: {fmt_bandwidth(min(bws))} .. {fmt_bandwidth(max(bws))}"))
    elif bws:
        handles.append(Line2D([], [], color="none", label=f"every edge {fmt_bandwidth(min(bws))}"))
    if where == "below":
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, 0.0), frameon=False,
                  fontsize=MIN_FONT, borderaxespad=0.2, ncols=min(3, len(handles)))
    else:
        ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False,
                  fontsize=MIN_FONT, borderaxespad=0.2)


def _set_limits(ax, g, pos, apexes, pad=0.5):
    """Limits around the nodes and the arcs' apexes, equal scales, no axes."""
    xy = np.array(list(pos.values()))
    xs, ys = xy[:, 0], xy[:, 1]
    if apexes:
        xs = np.concatenate([xs, [p[0] for p in apexes]])
        ys = np.concatenate([ys, [p[1] for p in apexes]])
    ax.set_xlim(xs.min() - pad, xs.max() + pad)
    ax.set_ylim(ys.min() - pad, ys.max() + pad + (0.8 if g.graph.get("builder") == "cluster" else 0))
    # equal scales by shrinking the box (limits are fixed, so "datalim" would be ignored with a warning)
    ax.set_aspect("equal", adjustable="box")
    ax.set_axis_off()


def draw(g, ax=None, title=None, labels=True, legend="right"):
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
    legend : {"right", "below"}
        Where the legend goes: right of the drawing, or below it in up to three columns,
        which keeps a wide drawing narrow enough for its labels to stay legible at a
        book's column width.

    Returns
    -------
    matplotlib.axes.Axes

    Notes
    -----
    Colours follow the Okabe-Ito palette of :mod:`interconnect.plots`; node kinds also
    differ by marker shape and edge families (NVLink, PCIe, network, other) by colour
    and style, so the figure reads without colour. Edge width grows with the log of the
    per-direction bandwidth; the legend states the range. Torus wrap-around edges and the
    builders' ``draw_arcs`` are drawn as arcs (:func:`edge_curves`).

    References
    ----------
    M. Okabe, K. Ito, "Color Universal Design (CUD)", 2008.
    """
    from ..plots import use_style

    if legend not in ("right", "below"):
        raise ValueError(f"legend={legend!r} is not allowed; legend must be 'right' or 'below'")
    use_style()
    pos = layout(g)
    if ax is None:
        ax = _new_axes(pos)
    n_nodes = g.number_of_nodes()
    scale = 1.0 if n_nodes <= 24 else max(0.25, (24 / n_nodes) ** 0.5)
    families, apexes = _draw_edges(ax, g, pos, scale)
    _draw_nodes(ax, g, pos, scale)
    if labels:
        _draw_labels(ax, g, pos, scale)
    _legend(ax, g, families, legend)
    ax.set_title(g.graph.get("name", "topology") if title is None else title)
    _set_limits(ax, g, pos, apexes)
    return ax
