"""Diagrams of what each collective does: who holds which piece, before and after;
and the book's map (the four-layer stack, the chapter-dependency graph).

Every rank's buffer is drawn as a row of ``p`` chunk blocks (one block per ``n / p``
bytes of the full vector). A chunk is a :class:`Chunk`: the ranks whose data it holds
(one rank for plain data, several for a partial or full sum) and its position in the
vector. The colour of a block is the colour of its rank of origin (the Okabe-Ito
palette of :mod:`interconnect.plots`), a sum is striped with the colours of all the
ranks it adds up, and every block also carries a text label (``A0`` is chunk 0 of rank
0's data, ``B2`` chunk 2 of rank 1's data, ``Σ1`` chunk 1 summed over all ranks), so
nothing depends on colour alone.

The data functions (:func:`collective_state`, :func:`ring_allreduce_schedule`) return
plain tuples and can be checked without drawing; the drawing functions
(:func:`collective_diagram`, :func:`all_collectives_figure`,
:func:`ring_allreduce_steps`) render them.

Conventions
-----------
* The root of rooted collectives (broadcast, reduce, scatter, gather) is rank 0.
* "After" shows each rank's *result* buffer; a rank that receives no result (the
  non-roots of reduce and gather) is drawn with empty slots.
* The ring schedule is the one of Patarasuk and Yuan (2009): in reduce-scatter step
  ``s`` rank ``r`` sends chunk ``(r - s) mod p`` to rank ``r + 1``, which adds it to its
  own; in allgather step ``s`` rank ``r`` sends chunk ``(r + 1 - s) mod p``, which the
  receiver stores.

References
----------
P. Patarasuk and X. Yuan, "Bandwidth optimal all-reduce algorithms for clusters of
workstations", J. Parallel Distrib. Comput. 69(2):117-124, 2009.
R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of Collective Communication
Operations in MPICH", Int. J. High Perform. Comput. Appl. 19(1):49-66, 2005.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, Rectangle

from ._validate import as_count, choice
from .collectives import OPS
from .plots import PALETTE, use_style

__all__ = [
    "Chunk", "NAMES", "MAX_RANKS", "collective_state", "collective_diagram", "all_collectives_figure",
    "ring_allreduce_schedule", "ring_allreduce_steps",
    "STACK", "LEVEL_MARKERS", "stack_figure", "transitive_reduction", "dependency_figure",
]

#: Display names of the operations, in the order of :data:`interconnect.collectives.OPS`.
NAMES = {
    "broadcast": "Broadcast", "reduce": "Reduce", "scatter": "Scatter", "gather": "Gather",
    "allgather": "AllGather", "reducescatter": "ReduceScatter", "allreduce": "AllReduce",
    "alltoall": "AllToAll",
}
#: Largest ``p`` the diagrams draw (one palette colour and one letter per rank).
MAX_RANKS = len(PALETTE)
_LETTERS = "ABCDEFGH"
_UNIT = 0.42  # inches per chunk block


@dataclass(frozen=True)
class Chunk:
    """One ``n / p`` piece of a buffer.

    Attributes
    ----------
    origin : tuple of int
        Ranks whose data is summed in this chunk, sorted; one rank for unreduced data.
    index : int
        Position of the chunk in the full vector, ``0 <= index < p``.
    """

    origin: tuple
    index: int

    def label(self, p):
        """``A0`` for chunk 0 of rank 0, ``AB2`` for a partial sum, ``Σ2`` for a full one."""
        if len(self.origin) == p and p > 1:
            return f"Σ{self.index}"
        return "".join(_LETTERS[r] for r in self.origin) + str(self.index)


def _check_p(p):
    p = as_count("p", p, minimum=2)
    if p > MAX_RANKS:
        raise ValueError(f"p={p} is too large to draw; p must be between 2 and {MAX_RANKS}")
    return p


def collective_state(op, p=4):
    """What every rank holds before and after ``op``.

    Parameters
    ----------
    op : str
        One of :data:`interconnect.collectives.OPS`.
    p : int
        Number of ranks, ``2 <= p <= 8``.

    Returns
    -------
    (before, after) : tuple of two tuples
        Each is a tuple of ``p`` rows (one per rank); a row is a tuple of ``p`` entries,
        entry ``j`` the :class:`Chunk` in slot ``j`` of that rank's buffer or ``None``
        for an empty slot.

    Raises
    ------
    ValueError
        For an unknown ``op`` or ``p`` outside 2..8.

    Examples
    --------
    >>> before, after = collective_state("allgather", p=2)
    >>> [[c.label(2) for c in row] for row in after]
    [['A0', 'B1'], ['A0', 'B1']]
    """
    op = choice("op", op, OPS)
    p = _check_p(p)
    ranks = range(p)
    allr = tuple(ranks)
    empty = tuple(None for _ in ranks)

    def own_vector(r):
        return tuple(Chunk((r,), j) for j in ranks)

    def own_piece(r):
        return tuple(Chunk((r,), j) if j == r else None for j in ranks)

    total = tuple(Chunk(allr, j) for j in ranks)
    if op == "broadcast":
        before = (own_vector(0),) + (empty,) * (p - 1)
        after = (own_vector(0),) * p
    elif op == "reduce":
        before = tuple(own_vector(r) for r in ranks)
        after = (total,) + (empty,) * (p - 1)
    elif op == "scatter":
        before = (own_vector(0),) + (empty,) * (p - 1)
        after = tuple(tuple(Chunk((0,), j) if j == r else None for j in ranks) for r in ranks)
    elif op == "gather":
        before = tuple(own_piece(r) for r in ranks)
        after = (tuple(Chunk((j,), j) for j in ranks),) + (empty,) * (p - 1)
    elif op == "allgather":
        before = tuple(own_piece(r) for r in ranks)
        after = (tuple(Chunk((j,), j) for j in ranks),) * p
    elif op == "reducescatter":
        before = tuple(own_vector(r) for r in ranks)
        after = tuple(tuple(Chunk(allr, j) if j == r else None for j in ranks) for r in ranks)
    elif op == "allreduce":
        before = tuple(own_vector(r) for r in ranks)
        after = (total,) * p
    else:  # alltoall: slot j of rank r is destined for rank j; after, rank j holds them in source order
        before = tuple(own_vector(r) for r in ranks)
        after = tuple(tuple(Chunk((src,), dst) for src in ranks) for dst in ranks)
    return before, after


# ------------------------------------------------------------------------------ drawing
def _block(ax, x, y, chunk, p, highlight=False, fontsize=8.5):
    """One chunk slot at (x, y) of size 1 x 0.8; ``chunk`` None draws an empty slot."""
    h = 0.8
    if chunk is None:
        ax.add_patch(Rectangle((x + 0.05, y), 0.9, h, facecolor="none", edgecolor="#bbbbbb",
                               linestyle=(0, (2, 2)), linewidth=0.8))
        return
    k = len(chunk.origin)
    for i, r in enumerate(chunk.origin):  # vertical stripes, one per summed rank
        ax.add_patch(Rectangle((x + 0.05 + 0.9 * i / k, y), 0.9 / k, h, facecolor=PALETTE[r],
                               alpha=0.5, edgecolor="none"))
    ax.add_patch(Rectangle((x + 0.05, y), 0.9, h, facecolor="none",
                           edgecolor="black" if highlight else "#444444",
                           linewidth=2.4 if highlight else 0.8))
    ax.text(x + 0.5, y + h / 2, chunk.label(p), ha="center", va="center", fontsize=fontsize,
            color="black", fontweight="bold" if highlight else "normal",
            bbox=dict(boxstyle="round,pad=0.12", facecolor="white", edgecolor="none", alpha=0.75))


def _finish_axes(ax, p, xmax, ylabels=True):
    ax.set_xlim(-0.2, xmax + 0.2)
    ax.set_ylim(-(p - 1) - 0.35, 1.45)
    ax.set_aspect("equal")
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xticks([])
    ax.set_yticks([-r + 0.4 for r in range(p)])
    ax.set_yticklabels([f"rank {r}" for r in range(p)] if ylabels else [""] * p)
    ax.tick_params(axis="y", length=0, labelsize=10.5)


def collective_diagram(op, p=4, ax=None):
    """Draw what every rank holds before and after one collective.

    Ranks are rows (rank 0 on top, also the root of rooted operations); each row shows
    the rank's ``p`` chunk slots before the operation on the left and its result
    buffer after it on the right.

    Parameters
    ----------
    op : str
        One of :data:`interconnect.collectives.OPS`.
    p : int
        Number of ranks, ``2 <= p <= 8`` (default 4).
    ax : matplotlib Axes, optional
        Where to draw; a new figure is made if omitted.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (its ``figure`` attribute is the Figure). Its y tick labels
        are ``rank 0 ... rank p-1``, one per row.

    Raises
    ------
    ValueError
        For an unknown ``op``, ``p`` outside 2..8, or an ``ax`` that is not a
        matplotlib Axes.
    """
    before, after = collective_state(op, p)
    op = choice("op", op, OPS)
    p = _check_p(p)
    if ax is None:
        use_style()
        _, ax = plt.subplots(figsize=(0.8 + _UNIT * (2 * p + 2.0), 0.5 + _UNIT * (p + 1.0)))
    elif not isinstance(ax, Axes):
        raise ValueError(f"ax={ax!r} is not a matplotlib Axes; pass one (e.g. from plt.subplots) or None")
    gap = 1.6  # room for the arrow between the two halves
    x_after = p + gap
    fs = 10 if p <= 4 else 7
    for r in range(p):
        y = -r
        for j in range(p):
            _block(ax, j, y, before[r][j], p, fontsize=fs)
            _block(ax, x_after + j, y, after[r][j], p, fontsize=fs)
    ymid = -(p - 1) / 2 + 0.4
    ax.add_patch(FancyArrowPatch((p + 0.15, ymid), (x_after - 0.15, ymid), arrowstyle="-|>",
                                 mutation_scale=16, color="#333333", linewidth=1.6))
    ax.text(p / 2, 1.05, "before", ha="center", va="center", fontsize=10.5, style="italic")
    ax.text(x_after + p / 2, 1.05, "after", ha="center", va="center", fontsize=10.5, style="italic")
    ax.set_title(NAMES[op], fontsize=13, fontweight="bold", pad=2)
    _finish_axes(ax, p, x_after + p)
    return ax


def all_collectives_figure(p=4, ncols=2):
    """One figure with :func:`collective_diagram` for each of the eight operations.

    Parameters
    ----------
    p : int
        Number of ranks, ``2 <= p <= 8``.
    ncols : int
        Columns of the grid, 1 to 8.

    Returns
    -------
    matplotlib.figure.Figure
        Its ``axes`` are the eight diagrams in the order of
        :data:`interconnect.collectives.OPS`.
    """
    p = _check_p(p)
    ncols = as_count("ncols", ncols, minimum=1)
    if ncols > len(OPS):
        raise ValueError(f"ncols={ncols} is too large; ncols must be between 1 and {len(OPS)}")
    nrows = -(-len(OPS) // ncols)
    use_style()
    w = 0.8 + _UNIT * (2 * p + 2.0)
    h = 0.4 + _UNIT * (p + 0.9)
    fig, axes = plt.subplots(nrows, ncols, figsize=(w * ncols, h * nrows), squeeze=False)
    flat = list(axes.flat)
    for ax, op in zip(flat, OPS):
        collective_diagram(op, p, ax=ax)
    for ax in flat[len(OPS):]:
        fig.delaxes(ax)
    fig.subplots_adjust(left=0.08, right=0.995, top=0.97, bottom=0.01, wspace=0.22, hspace=0.12)
    return fig


def ring_allreduce_schedule(p=4):
    """The steps of a ring AllReduce, as data.

    Parameters
    ----------
    p : int
        Number of ranks, ``2 <= p <= 8``.

    Returns
    -------
    list of dict
        ``2 (p - 1) + 1`` entries: the initial state, then one per step. Each has
        ``"phase"`` (``"start"``, ``"reduce-scatter"`` or ``"allgather"``), ``"step"``
        (1-based within the phase, 0 for the start), ``"sends"`` (a tuple of
        ``(sender, receiver, chunk_index)``, one per rank) and ``"state"`` (``p`` rows of
        ``p`` :class:`Chunk`, every rank's buffer after the step).

    Notes
    -----
    Every rank sends one chunk of ``n / p`` bytes per step and receives one, so the
    whole AllReduce sends ``2 (p - 1) n / p`` bytes per rank in ``2 (p - 1)`` steps: the
    ``b`` and ``a`` coefficients of ``cost_terms("allreduce", p, "ring")``.
    """
    p = _check_p(p)
    state = [[Chunk((r,), j) for j in range(p)] for r in range(p)]
    out = [{"phase": "start", "step": 0, "sends": (), "state": tuple(tuple(row) for row in state)}]
    for s in range(p - 1):  # reduce-scatter: receiver adds the incoming chunk to its own
        sends = tuple((r, (r + 1) % p, (r - s) % p) for r in range(p))
        incoming = [(dst, j, state[src][j]) for src, dst, j in sends]
        for dst, j, c in incoming:
            state[dst][j] = Chunk(tuple(sorted(set(c.origin) | set(state[dst][j].origin))), j)
        out.append({"phase": "reduce-scatter", "step": s + 1, "sends": sends,
                    "state": tuple(tuple(row) for row in state)})
    for s in range(p - 1):  # allgather: receiver stores the incoming (complete) chunk
        sends = tuple((r, (r + 1) % p, (r + 1 - s) % p) for r in range(p))
        incoming = [(dst, j, state[src][j]) for src, dst, j in sends]
        for dst, j, c in incoming:
            state[dst][j] = c
        out.append({"phase": "allgather", "step": s + 1, "sends": sends,
                    "state": tuple(tuple(row) for row in state)})
    return out


def ring_allreduce_steps(p=4):
    """Draw every step of a ring AllReduce: rows are steps, columns are ranks.

    Each cell shows one rank's ``p`` chunks after the step; the chunk it has just
    received is outlined in bold. Stripes show which ranks' data a chunk already sums.

    Parameters
    ----------
    p : int
        Number of ranks, ``2 <= p <= 8`` (default 4).

    Returns
    -------
    matplotlib.figure.Figure
        One Axes; its y tick labels name the ``2 (p - 1) + 1`` rows (start and steps).
    """
    steps = ring_allreduce_schedule(p)
    p = _check_p(p)
    use_style()
    cell = p + 0.8  # width of one rank's buffer plus a gap
    fig, ax = plt.subplots(figsize=(1.6 + _UNIT * cell * p, 0.7 + _UNIT * 1.1 * len(steps)))
    fs = 10 if p <= 4 else 5.5
    for i, st in enumerate(steps):
        y = -i
        received = {(dst, j) for _, dst, j in st["sends"]}
        for r in range(p):
            for j in range(p):
                _block(ax, r * cell + j, y, st["state"][r][j], p, highlight=(r, j) in received, fontsize=fs)
        if i == p - 1:  # separator between the two phases
            ax.axhline(y - 0.1, color="#888888", linewidth=0.8, linestyle=":")
    for r in range(p):
        ax.text(r * cell + p / 2, 1.05, f"rank {r}", ha="center", va="center", fontsize=10.5, fontweight="bold")
    labels = []
    for st in steps:
        if st["phase"] == "start":
            labels.append("start")
        else:
            labels.append(f"{st['phase']} {st['step']}")
    ax.set_xlim(-0.2, cell * p - 0.6)
    ax.set_ylim(-(len(steps) - 1) - 0.35, 1.45)
    ax.set_aspect("equal")
    ax.grid(False)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    ax.set_xticks([])
    ax.set_yticks([-i + 0.4 for i in range(len(steps))])
    ax.set_yticklabels(labels)
    ax.tick_params(axis="y", length=0, labelsize=10)
    ax.set_title(f"Ring AllReduce on {p} ranks: {2 * (p - 1)} steps, each rank sends one chunk of n/{p} per step",
                 fontsize=12, fontweight="bold")
    fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------
# The book's map: the four-layer stack and the chapter-dependency graph (landing page)
# ---------------------------------------------------------------------------------------

#: The four layers, from the wire up: ``(name, what it is made of, what it decides)``.
STACK = (
    ("Physical links", "slots, connectors, bridges, SerDes lanes, copper and optics",
     "the bandwidth of one link and the quality of its signal"),
    ("Switching and topology", "point-to-point links, switch chips, rings, tori, fat trees",
     "the path between two GPUs, the bandwidth a group shares, how far a failure reaches"),
    ("Protocols and semantics", "peer-to-peer copies, RDMA, coherence, multicast, in-network reduction",
     "how the bytes get there, and how many copies they take"),
    ("Software stack", "drivers, topology discovery, collective libraries (NCCL), training and inference frameworks",
     "how close a job comes to what the layers below allow"),
)

#: Marker of each level in :func:`dependency_figure`: open, half-filled, filled circle.
LEVEL_MARKERS = {"introductory": "none", "intermediate": "bottom", "advanced": "full"}


def _wrap(text, width):
    import textwrap

    return "\n".join(textwrap.wrap(text, width))


def stack_figure(layers=STACK, width=5.0):
    """Draw the four-layer stack: one box per layer, the wire at the bottom.

    Each box names the layer, what it is made of and what it decides. No text is under
    11.5 pt in a 5-inch figure, so shown 310 px wide (a 390 px phone, inside the dark
    theme's card) its letters stay at 9.5 px or more.

    Parameters
    ----------
    layers : sequence of (str, str, str)
        ``(name, made of, decides)`` from the bottom layer up; default :data:`STACK`.
    width : float
        Figure width in inches, 4 to 10.

    Returns
    -------
    matplotlib.figure.Figure
        One Axes; its texts are the layers' names and descriptions.

    Raises
    ------
    ValueError
        For no layers, a layer that is not three strings, or a width outside 4..10.

    Examples
    --------
    >>> fig = stack_figure()
    >>> [t.get_text() for t in fig.axes[0].texts if t.get_fontweight() == "bold"][:2]
    ['1  Physical links', '2  Switching and topology']
    >>> plt.close(fig)
    """
    layers = tuple(layers)
    if not layers or any(len(layer) != 3 or not all(isinstance(s, str) for s in layer) for layer in layers):
        raise ValueError(f"layers={layers!r}: expected one or more (name, made of, decides) string triples")
    if not 4.0 <= float(width) <= 10.0:
        raise ValueError(f"width={width} is out of range; width must be between 4 and 10 inches")
    use_style()
    chars = int(width * 9.5)  # characters per line at 11.5 pt
    wrapped = [(name, _wrap(made, chars), _wrap("Decides " + decides + ".", chars)) for name, made, decides in layers]
    heights = [0.62 + 0.2 * (made.count("\n") + dec.count("\n") + 2) for _, made, dec in wrapped]
    gap = 0.12
    total = sum(heights) + gap * (len(layers) - 1)
    fig, ax = plt.subplots(figsize=(width, total + 0.75))
    y = 0.0
    boxes = []
    for k, ((name, made, dec), h) in enumerate(zip(wrapped, heights)):
        colour = PALETTE[k % len(PALETTE)]
        ax.add_patch(Rectangle((0.0, y), width - 0.5, h, facecolor=colour, alpha=0.16, edgecolor=colour,
                               linewidth=2.0))
        ax.add_patch(Rectangle((0.0, y), 0.09, h, facecolor=colour, edgecolor="none"))
        top = y + h - 0.14
        ax.text(0.22, top, f"{k + 1}  {name}", ha="left", va="top", fontsize=14, fontweight="bold", color="#111111")
        ax.text(0.22, top - 0.42, made, ha="left", va="top", fontsize=11.5, color="#111111", linespacing=1.25)
        ax.text(0.22, top - 0.42 - 0.2 * (made.count("\n") + 1) - 0.06, dec, ha="left", va="top", fontsize=11.5,
                style="italic", color="#333333", linespacing=1.25)
        boxes.append((y, h))
        y += h + gap
    # an arrow up the right edge: each layer is built on the one below
    ax.add_patch(FancyArrowPatch((width - 0.25, 0.05), (width - 0.25, y - gap - 0.05), arrowstyle="-|>",
                                 mutation_scale=16, color="#444444", linewidth=1.4))
    ax.text(width - 0.12, (y - gap) / 2, "each layer builds on the one below", rotation=90, ha="center", va="center",
            fontsize=11.5, color="#333333")
    ax.set_xlim(-0.05, width)
    ax.set_ylim(-0.05, y - gap + 0.05)
    ax.axis("off")
    ax.set_title("The four-layer stack of GPU interconnect", fontsize=14, fontweight="bold", loc="left")
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - 0.55 / (total + 0.75))
    return fig


def transitive_reduction(prerequisites):
    """Drop every prerequisite that another prerequisite already implies.

    Parameters
    ----------
    prerequisites : sequence of sequence of int
        ``prerequisites[i]`` are the indices of the nodes node ``i`` needs; each must be
        smaller than ``i`` (nodes in reading order).

    Returns
    -------
    list of tuple of int
        For each node, the prerequisites not reachable through another prerequisite, sorted.

    Raises
    ------
    ValueError
        For an index that is not smaller than its node's.

    Examples
    --------
    >>> transitive_reduction([[], [0], [0, 1], [2, 0]])
    [(), (0,), (1,), (2,)]
    """
    prerequisites = [tuple(int(j) for j in pre) for pre in prerequisites]
    for i, pre in enumerate(prerequisites):
        bad = [j for j in pre if not 0 <= j < i]
        if bad:
            raise ValueError(f"prerequisites[{i}]={list(pre)}: every prerequisite must be a node before it "
                             f"(0 <= j < {i}); got {bad}")
    ancestors = []
    for pre in prerequisites:
        a = set(pre)
        for j in pre:
            a |= ancestors[j]
        ancestors.append(a)
    return [tuple(sorted(j for j in pre if not any(j in ancestors[k] for k in pre if k != j)))
            for pre in prerequisites]


def dependency_figure(titles, prerequisites, groups, levels=None, width=5.0):
    """Draw which chapter builds on which: chapters top to bottom in reading order.

    Every chapter is a row (a dot and its title) under the heading of its group (part);
    an arc on the left runs from each prerequisite down to the chapter that needs it, so
    every arc points down the page. Only prerequisites that no other prerequisite
    implies are drawn (:func:`transitive_reduction`). The dot's fill gives the level.

    Parameters
    ----------
    titles : sequence of str
        Chapter titles in reading order.
    prerequisites : sequence of sequence of int
        For each chapter, the indices of the chapters it needs (each before it).
    groups : sequence of str
        Each chapter's group (part); chapters of a group must be consecutive.
    levels : sequence of str, optional
        Each chapter's level, a key of :data:`LEVEL_MARKERS`.
    width : float
        Figure width in inches, 4 to 10.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        For lengths that differ, a prerequisite that is not earlier, a group split in two,
        an unknown level or a width outside 4..10.

    Examples
    --------
    >>> fig = dependency_figure(["A", "B", "C"], [[], [0], [0, 1]], ["one", "one", "two"])
    >>> len(fig.axes[0].patches)   # arcs A-B and B-C; A-C is implied
    2
    >>> plt.close(fig)
    """
    titles, groups = list(titles), list(groups)
    n = len(titles)
    if len(prerequisites) != n or len(groups) != n or (levels is not None and len(levels) != n):
        raise ValueError(f"titles, prerequisites, groups and levels must have the same length; got {n} titles, "
                         f"{len(prerequisites)} prerequisites, {len(groups)} groups"
                         + ("" if levels is None else f", {len(levels)} levels"))
    if not 4.0 <= float(width) <= 10.0:
        raise ValueError(f"width={width} is out of range; width must be between 4 and 10 inches")
    reduced = transitive_reduction(prerequisites)
    order = list(dict.fromkeys(groups))
    if [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g] != order:
        raise ValueError(f"groups={groups}: the chapters of a group must be consecutive")
    if levels is not None:
        for lv in levels:
            choice("level", lv, tuple(LEVEL_MARKERS))
    use_style()
    row = 0.34  # inches per row
    ys, y = [], 0.0
    heads = []
    for i, g in enumerate(groups):
        if i == 0 or groups[i - 1] != g:
            y -= 1.0 if i else 0.0
            heads.append((y, g))
            y -= 1.0
        ys.append(y)
        y -= 1.0
    rows = -y
    fig, ax = plt.subplots(figsize=(width, row * rows + 0.7))
    from matplotlib.path import Path

    span = max((i - j for i, pre in enumerate(reduced) for j in pre), default=1)
    left = 1.8  # room for the arcs left of the dots, in rows
    for hy, g in heads:
        ax.text(0.0, hy, g, ha="left", va="center", fontsize=12, fontweight="bold", color="#111111")
    colour_of = {g: PALETTE[k % len(PALETTE)] for k, g in enumerate(order)}
    for i, pre in enumerate(reduced):
        for j in pre:
            bulge = 2 * (0.25 + (left - 0.35) * (i - j) / span)   # a quadratic curve reaches half its control point
            path = Path([(0.0, ys[j]), (-bulge, (ys[i] + ys[j]) / 2), (0.0, ys[i])],
                        [Path.MOVETO, Path.CURVE3, Path.CURVE3])
            ax.add_patch(FancyArrowPatch(path=path, arrowstyle="-|>", mutation_scale=9, color=colour_of[groups[j]],
                                         linewidth=1.1, alpha=0.85, shrinkA=4, shrinkB=4))
    for i, (t, g) in enumerate(zip(titles, groups)):
        fill = "full" if levels is None else LEVEL_MARKERS[levels[i]]
        ax.plot([0.0], [ys[i]], marker="o", markersize=8, fillstyle=fill, color=colour_of[g],
                markeredgecolor=colour_of[g], markerfacecoloralt="white", linestyle="none")
        ax.text(0.35, ys[i], t, ha="left", va="center", fontsize=12, color="#111111")
    if levels is not None:
        from matplotlib.lines import Line2D

        handles = [Line2D([], [], marker="o", markersize=8, fillstyle=f, color="#444444", markerfacecoloralt="white",
                          linestyle="none", label=lv) for lv, f in LEVEL_MARKERS.items()]
        ax.legend(handles=handles, loc="lower right", fontsize=11.5, title="level", title_fontsize=11.5, frameon=True)
    ax.set_xlim(-left - 0.2, -left - 0.2 + 0.98 * width / row)   # one row high = one unit wide
    ax.set_ylim(y + 0.5, 0.6)
    ax.axis("off")
    ax.set_title("Which chapter builds on which", fontsize=14, fontweight="bold", loc="left")
    fig.subplots_adjust(left=0.01, right=0.99, bottom=0.005, top=1 - 0.5 / (row * rows + 0.7))
    return fig
