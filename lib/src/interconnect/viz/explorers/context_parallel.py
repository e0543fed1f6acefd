"""Explorers of the chapter "Context parallelism and long sequences" (book/parallel/context_parallel).

Presentation only: one ring step's compute and transfer are
:func:`interconnect.parallel.context.cp_ring_step`, the threshold
:func:`interconnect.parallel.context.cp_min_tokens`.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ... import catalog, plots
from ...parallel import Layout
from ...parallel.context import cp_min_tokens, cp_ring_step
from ...parallel.machines import machine
from ...units import fmt_bytes, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["ring_step_explorer", "PLACEMENTS"]

#: Where the ``cp`` ranks sit on DGX H100 nodes: (label, tensor-parallel size). Ranks are numbered
#: TP fastest, then CP: with ``t = 8`` the CP ranks are 8 apart and every ring step crosses a
#: node's NIC; with ``t = 1`` a ring of up to 8 ranks stays on NVLink.
PLACEMENTS = {"nic": ("across nodes, one NDR NIC per GPU (t = 8)", 8),
              "nvlink": ("inside one node, NVLink 4 (t = 1)", 1)}


def ring_step_explorer(models=("llama3-70b", "llama3-405b"), cluster="dgx-h100", cp=8,
                       tokens=(512, 1024, 2048, 4096, 8192, 16384, 32768)):
    """Does a ring-attention step hide its K, V transfer? One rank's step for a chosen number of
    tokens per GPU: the attention it computes against the transfer of the next K, V block.

    Sliders: the model, where the ``cp`` ranks sit (across nodes on one NIC each, or inside a
    node on NVLink), the tokens each GPU holds (``s / cp``) and the pass (forward, or backward
    with twice the bytes and 2.5 times the FLOPs). Left: both times against tokens per GPU (the
    compute grows with the square of the block, the transfer linearly), with the threshold of
    :func:`~interconnect.parallel.context.cp_min_tokens`; right: the chosen step.

    Parameters
    ----------
    models : sequence of str
        Keys of :func:`interconnect.catalog.models.get`.
    cluster : str
        A machine preset of :func:`interconnect.parallel.machines.machine` (8 GPUs per node).
    cp : int
        Context-parallel size, >= 2 (at most 8 for the NVLink placement to stay in a node).
    tokens : sequence of int
        Tokens per GPU offered on the slider.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    if int(cp) != cp or cp < 2:
        raise ValueError(f"cp={cp!r} is not allowed; allowed an integer >= 2")
    cl = machine(cluster)
    if cp > cl.gpus_per_node:
        raise ValueError(f"cp={cp} is not allowed with {cluster!r}: the NVLink placement needs cp <= "
                         f"{cl.gpus_per_node}")
    base = {k: catalog.models.get(k) for k in models}
    grid = np.array(sorted(tokens), dtype=float)
    fine = np.geomspace(grid[0] / 1.5, grid[-1] * 1.5, 60)

    def step(key, where, c, backward):
        m = replace(base[key], seq_len=int(c * cp), global_batch=1)
        return cp_ring_step(m, Layout(dp=1, tp=PLACEMENTS[where][1], pp=1, cp=cp), cl, backward=backward)

    def threshold(key, where, backward):
        m = replace(base[key], seq_len=int(grid[-1] * cp), global_batch=1)
        return cp_min_tokens(m, Layout(dp=1, tp=PLACEMENTS[where][1], pp=1, cp=cp), cl, backward=backward)

    def curves(key, where, backward):
        pts = [step(key, where, x, backward) for x in fine]
        return [p["compute"] for p in pts], [p["transfer"] for p in pts]

    # fixed axes (the frames are drawn by blitting): the range of every curve the sliders reach
    every = [t for k in base for w in PLACEMENTS for bwd in (False, True) for ts in curves(k, w, bwd) for t in ts]
    t_lo, t_hi = min(every) / 2, max(every) * 2

    def make_figure():
        fig, (ax, bx) = plots.new_figure(f"One ring-attention step, cp = {cp}, on {cluster}",
                                         ["tokens per GPU (s / cp)", "time, as a share of the longer of the two"],
                                         ["time per ring step", ""], ncols=2, figsize=(8.8, 4.4))
        (comp,) = ax.plot([], [], color=plots.PALETTE[0], label="attention of the block in hand")
        (xfer,) = ax.plot([], [], color=plots.PALETTE[1], linestyle="--", label="transfer of the next K, V block")
        (mark_c,) = ax.plot([], [], "o", ms=8, color=plots.PALETTE[0])
        (mark_x,) = ax.plot([], [], "s", ms=8, color=plots.PALETTE[1])
        cross = ax.axvline(grid[0], color="0.35", lw=1, linestyle=":", label="compute = transfer")
        ax.set_xscale("log", base=2)
        plots.time_axis(ax)
        ax.set_xticks(grid, [f"{int(c):,}" for c in grid], rotation=45)
        ax.minorticks_off()
        ax.set_xlim(fine[0], fine[-1])
        ax.set_ylim(t_lo, t_hi)
        ax.legend(loc="upper left", fontsize=9)
        bars = bx.barh([1, 0], [0, 0], height=0.5, color=[plots.PALETTE[0], plots.PALETTE[1]], edgecolor="white")
        bars[1].set_hatch("//")
        bx.set_yticks([1, 0], ["attention", "K, V transfer"])
        bx.set_xlim(0, 1.45)
        bx.set_xticks([0, 0.5, 1.0], ["0", "½", "1"])
        bx.set_ylim(-0.5, 2.6)
        bx.grid(axis="y", visible=False)
        labels = [bx.text(0, y, "", va="center", ha="left", fontsize=10) for y in (1, 0)]
        head = bx.set_title("", fontsize=10, fontweight="normal")
        note = bx.text(0.02, 0.97, "", transform=bx.transAxes, ha="left", va="top", fontsize=9.5,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        head.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(model, where, c, direction):
            backward = direction == "backward"
            tc, tx = curves(model, where, backward)
            comp.set_data(fine, tc)
            xfer.set_data(fine, tx)
            c_star = threshold(model, where, backward)
            cross.set_xdata([c_star, c_star])
            s = step(model, where, c, backward)
            mark_c.set_data([c], [s["compute"]])
            mark_x.set_data([c], [s["transfer"]])
            longer = max(s["compute"], s["transfer"])
            for bar, label, t in zip(bars, labels, (s["compute"], s["transfer"])):
                bar.set_width(t / longer)
                label.set_position((t / longer + 0.03, bar.get_y() + bar.get_height() / 2))
                label.set_text(fmt_time(t))
            head.set_text(f"{model}, {direction} pass, {int(c):,} tokens per GPU")
            verdict = ("the transfer hides" if s["ratio"] >= 1 else
                       f"{fmt_time(s['transfer'] - s['compute'])} exposed per step")
            note.set_text(f"CP ranks {PLACEMENTS[where][0]}\nK, V block {fmt_bytes(s['bytes'])}: {verdict};\n"
                          f"it hides above {c_star:,.0f} tokens per GPU")
            return [comp, xfer, mark_c, mark_x, cross, *bars, *labels, head, note]

        return fig, update

    return Explorer(
        "Ring-attention step explorer",
        [Param("model", "model", tuple(base), tuple(base)[0], str),
         Param("where", "CP ranks", tuple(PLACEMENTS), "nic", lambda k: PLACEMENTS[k][0]),
         Param("c", "tokens per GPU", tuple(int(x) for x in grid), int(grid[len(grid) // 2]), lambda x: f"{x:,}"),
         Param("direction", "pass", ("forward", "backward"), "forward", str)],
        make_figure, static=["where", "c"],
        alt=lambda model, where, c, direction: (
            f"Log-log chart of one ring-attention step's attention time and K, V transfer time against tokens per "
            f"GPU for {model}, cp = {cp}, ranks {PLACEMENTS[where][0]}, {direction} pass; bars compare the two "
            f"times at {c:,} tokens per GPU."))
