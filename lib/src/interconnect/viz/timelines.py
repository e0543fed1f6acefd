"""Figures of a flow simulation: the Gantt chart of flows and the busiest links.

The presentation layer for :mod:`interconnect.netsim`: the simulator computes a
:class:`~interconnect.netsim.SimResult` and these functions draw it. Both are also
reachable as ``interconnect.netsim.plot_timeline`` and ``interconnect.netsim.plot_link_load``.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count
from ..plots import PALETTE, new_figure

__all__ = ["plot_timeline", "plot_link_load", "plot_gantt"]


def _time_scale(t):
    if t < 1e-3:
        return 1e6, "µs"
    if t < 1.0:
        return 1e3, "ms"
    return 1.0, "s"


def plot_timeline(result, ax=None, max_flows=5000):
    """Gantt chart of flows: one row per source node, bars from start to finish.

    A thin line continues each bar to the flow's arrival (the path latency). Bars are
    coloured by tag (phase); flows of one source that overlap in time are stacked in
    lanes within the source's row.

    Parameters
    ----------
    result : SimResult or CollectiveResult
    ax : matplotlib Axes, optional
    max_flows : int
        Plot at most this many flows (the earliest to start).

    Returns
    -------
    matplotlib Axes
    """
    sim = getattr(result, "sim", result)
    scale, unit = _time_scale(max(sim.makespan, 1e-12))
    title = "Flow timeline" + (f": {sim.name}" if sim.name else "")
    if ax is None:
        _, ax = new_figure(title, f"time ({unit})", "source")
    else:
        ax.set_title(title)
        ax.set_xlabel(f"time ({unit})")
        ax.set_ylabel("source")
    order = np.argsort(sim.start, kind="stable")[:max_flows]
    srcs = sorted(set(sim.src_index[order].tolist()))
    row = {s: i for i, s in enumerate(srcs)}
    lanes = {}
    lane_of = np.zeros(order.size, dtype=np.int64)
    for j, f in enumerate(order.tolist()):
        ends = lanes.setdefault(int(sim.src_index[f]), [])
        for li, e in enumerate(ends):
            if e <= sim.start[f] + 1e-15:
                ends[li] = sim.arrival[f]
                lane_of[j] = li
                break
        else:
            ends.append(sim.arrival[f])
            lane_of[j] = len(ends) - 1
    n_lanes = {s: max(1, len(v)) for s, v in lanes.items()}
    seen = set()
    for j, f in enumerate(order.tolist()):
        s = int(sim.src_index[f])
        h = 0.8 / n_lanes[s]
        y = row[s] - 0.4 + lane_of[j] * h
        tg = int(sim.tag_id[f])
        col = PALETTE[tg % len(PALETTE)]
        label = None
        if tg not in seen:
            seen.add(tg)
            name = sim.tag_table[tg]
            label = None if name is None else str(name)
        ax.broken_barh([(sim.start[f] * scale, (sim.finish[f] - sim.start[f]) * scale)], (y, h * 0.9),
                       facecolors=col, edgecolor="none", label=label)
        if sim.arrival[f] > sim.finish[f]:
            ax.plot([sim.finish[f] * scale, sim.arrival[f] * scale], [y + h * 0.45] * 2, color=col, lw=0.8)
    ax.set_yticks(range(len(srcs)))
    ax.set_yticklabels([str(sim.nodes[s]) for s in srcs])
    ax.set_ylim(-0.6, len(srcs) - 0.4)
    ax.invert_yaxis()
    if any(sim.tag_table[t] is not None for t in seen):
        ax.legend(loc="lower right")
    return ax


def plot_link_load(g, result, ax=None, top=16):
    """Bar chart of the busiest directed links (utilisation over the makespan).

    Parameters
    ----------
    g : networkx.Graph
        The topology the result was simulated on (its name titles the figure).
    result : SimResult or CollectiveResult
    top : int
        Number of links shown.

    Returns
    -------
    matplotlib Axes
    """
    sim = getattr(result, "sim", result)
    top = as_count("top", top, minimum=1)
    name = str(g.graph.get("name", "")) or sim.name
    title = "Busiest links" + (f": {name}" if name else "")
    xlabel = "utilisation over the makespan (% of per-direction bandwidth)"
    if ax is None:
        _, ax = new_figure(title, xlabel, "directed link")
    else:
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("directed link")
    items = sorted(sim.link_utilisation.items(), key=lambda kv: -kv[1])[:top]
    for (u, v), _ in items:
        if not g.has_edge(u, v):
            raise ValueError(f"result has link ({u!r}, {v!r}) that is not an edge of g; "
                             "pass the graph it was simulated on")
    labels = [f"{u} → {v}" for (u, v), _ in items]
    vals = [100.0 * x for _, x in items]
    ax.barh(range(len(items)), vals, color=PALETTE[0])
    ax.set_yticks(range(len(items)))
    ax.set_yticklabels(labels)
    ax.invert_yaxis()
    ax.set_xlim(0, 105)
    return ax


#: Colours of the pass kinds when a Gantt chart is coloured by kind (Okabe-Ito, colour-blind safe).
KIND_COLOURS = {"F": PALETTE[0], "B": PALETTE[1], "W": PALETTE[2]}
_HATCH = {"F": None, "B": "///", "W": "..."}


def plot_gantt(tasks, ax=None, title=None, time_unit="units of one forward pass", until=None, color_by="auto"):
    """Draw a schedule as a Gantt chart: stages as rows, time across.

    Forward passes are solid, backward passes hatched, weight-gradient passes (``"W"``,
    the split schedules only) dotted. By default bars are coloured by microbatch
    (``interconnect.PALETTE``, cycling); a schedule with ``"W"`` tasks is coloured by
    kind instead (forward blue, backward orange, weight gradient green), as its papers
    draw it. With several chunks, later chunks are drawn lighter (for DualPipe: the
    microbatches that enter at the last stage). An overlapped pair of tasks on one stage
    (DualPipe's F&B) is drawn as two half-height bars in one black frame. Each bar is
    labelled with its microbatch number where it fits.

    Parameters
    ----------
    tasks : list of Task
        From :func:`interconnect.pipeline.schedule`.
    ax : matplotlib Axes, optional
        Drawn into a new figure if None.
    title : str, optional
        Axes title; default names the number of stages and microbatches.
    time_unit : str
        Unit of the time axis, shown in its label.
    until : float, optional
        Draw only what has happened by this time (bars cut at ``until``).
    color_by : {"auto", "microbatch", "kind"}
        Colour the bars by microbatch or by kind of pass; ``"auto"`` colours by kind when
        there are ``"W"`` tasks.

    Returns
    -------
    matplotlib Axes
        The bars are ``ax.patches`` in the order of ``tasks`` (then one frame per
        overlapped pair), followed by the legend proxies' handles in the legend.
    """
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    from ..pipeline.analysis import _check_tasks

    tasks = _check_tasks(tasks)
    if color_by not in ("auto", "microbatch", "kind"):
        raise ValueError(f"color_by={color_by!r} is unknown; allowed: auto, microbatch, kind")
    has_w = any(t.kind == "W" for t in tasks)
    by_kind = color_by == "kind" or (color_by == "auto" and has_w)
    if ax is None:
        _, ax = plt.subplots(figsize=(8.0, 3.2))
    p = max(t.stage for t in tasks) + 1
    m = max(t.microbatch for t in tasks) + 1
    v = max(t.chunk for t in tasks) + 1
    span = max(t.end for t in tasks)
    slots = {}
    for i, t in enumerate(tasks):
        slots.setdefault((t.stage, t.start, t.end), []).append(i)
    pairs = [ix for ix in slots.values() if len(ix) > 1]
    half = {i: k for ix in pairs for k, i in enumerate(ix)}
    # a bar's width in points, to label only the bars that the label fits inside (7 pt digits are
    # about 4.2 pt wide; a figure at most 6.7 in wide keeps them at 9 px or more on the page)
    pt_per_unit = ax.get_position().width * ax.figure.get_figwidth() * 72.0 / (span * 1.01)
    for i, t in enumerate(tasks):
        stop = t.end if until is None else min(t.end, until)
        width = max(0.0, stop - t.start)
        colour = KIND_COLOURS.get(t.kind, PALETTE[7]) if by_kind else PALETTE[t.microbatch % len(PALETTE)]
        alpha = 1.0 - 0.45 * t.chunk / max(1, v - 1) if v > 1 else 1.0
        y, h = t.stage - 0.4, 0.8
        if i in half:
            y, h = t.stage - 0.4 + 0.4 * half[i], 0.4
        rect = Rectangle((t.start, y), width, h, facecolor=colour, alpha=alpha,
                         edgecolor="white", linewidth=0.6, hatch=_HATCH.get(t.kind) if has_w else
                         ("///" if t.kind == "B" else None))
        ax.add_patch(rect)
        if width >= 0.6 * t.duration and t.duration * pt_per_unit >= 4.2 * len(str(t.microbatch)) + 3.0:
            dark = PALETTE.index(colour) in (1, 5, 6) if colour in PALETTE else False
            ax.text(t.start + t.duration / 2, y + h / 2 if i in half else t.stage, str(t.microbatch),
                    ha="center", va="center", fontsize=7, color="black" if dark else "white")
    for ix in pairs:
        t = tasks[ix[0]]
        stop = t.end if until is None else min(t.end, until)
        if stop > t.start:
            ax.add_patch(Rectangle((t.start, t.stage - 0.4), stop - t.start, 0.8, facecolor="none",
                                   edgecolor="black", linewidth=1.0))
    ax.set_xlim(0, span * 1.01)
    ax.set_ylim(p - 0.5, -0.5)
    ax.set_yticks(range(p))
    ax.set_yticklabels([f"stage {s}" for s in range(p)])
    ax.set_xlabel(f"time ({time_unit})")
    ax.set_ylabel("pipeline stage (GPU)")
    ax.grid(False)
    if title is None:
        title = f"{p} stages, {m} microbatches" + (f", {v} chunks per stage" if v > 1 else "")
    ax.set_title(title)
    if by_kind:
        handles = [Patch(facecolor=KIND_COLOURS["F"], label="forward (F)"),
                   Patch(facecolor=KIND_COLOURS["B"], hatch="///", edgecolor="white", label="backward (B)")]
        if has_w:
            handles.append(Patch(facecolor=KIND_COLOURS["W"], hatch="...", edgecolor="white",
                                 label="weight gradient (W)"))
        if v > 1:
            visits = {}
            for t in tasks:
                visits.setdefault((t.stage, t.microbatch), set()).add(t.chunk)
            two_way = all(len(c) == 1 for c in visits.values())   # DualPipe: a chunk per direction
            handles.append(Patch(facecolor=KIND_COLOURS["F"], alpha=0.55,
                                 label="lighter: enters at the last stage" if two_way else "lighter: later chunk"))
    else:
        handles = [Patch(facecolor="0.5", label="forward (F)"),
                   Patch(facecolor="0.5", hatch="///", edgecolor="white", label="backward (B)")]
        if has_w:
            handles.append(Patch(facecolor="0.5", hatch="...", edgecolor="white", label="weight gradient (W)"))
    if pairs:
        handles.append(Patch(facecolor="none", edgecolor="black", label="F and B overlapped"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, ncol=1, frameon=False)
    return ax
