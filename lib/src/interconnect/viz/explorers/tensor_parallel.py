"""Figures and explorers of the chapter "Tensor parallelism" (book/parallel/tensor_parallel)."""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.patches import Circle, FancyBboxPatch

from ... import plots
from ...parallel import Layout, activation_bytes, collectives_per_layer, step_time
from ...units import fmt_bytes, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["draw_tp_block", "tp_block_figure", "tp_layer_split", "tp_explorer"]


def draw_tp_block(ax, title, first, second):
    """One Megatron block split over two GPUs: ``X -> f -> column split -> row split -> g -> Z``.

    ``f`` is the identity forward and an AllReduce backward, ``g`` the reverse (Shoeybi et
    al. 2019, Fig. 3). ``first`` and ``second`` label the two GEMM boxes; ``{i}`` in them is
    replaced by the GPU number.
    """
    ax.set_xlim(0, 10)
    ax.set_ylim(-0.2, 3.4)
    ax.axis("off")
    ax.set_title(title, fontsize=12)
    ys = {0: 2.3, 1: 0.7}

    def box(x, y, w, text, color):
        ax.add_patch(FancyBboxPatch((x - w / 2, y - 0.38), w, 0.76, boxstyle="round,pad=0.05",
                                    fc=color, ec="0.25", lw=1))
        ax.text(x, y, text, ha="center", va="center", fontsize=11)

    def op(x, y, text, color):
        ax.add_patch(Circle((x, y), 0.36, fc="white", ec=color, lw=2))
        ax.text(x, y, text, ha="center", va="center", fontsize=12, fontweight="bold", color=color)

    box(0.6, 1.5, 0.9, "$X$", "#eeeeee")
    op(1.75, 1.5, "$f$", plots.PALETTE[3])
    op(8.25, 1.5, "$g$", plots.PALETTE[3])
    box(9.4, 1.5, 0.9, "$Z$", "#eeeeee")
    ax.annotate("", (1.39, 1.5), (1.05, 1.5), arrowprops=dict(arrowstyle="->", color="0.3"))
    ax.annotate("", (8.95, 1.5), (8.61, 1.5), arrowprops=dict(arrowstyle="->", color="0.3"))
    for i, y in ys.items():
        ax.text(3.1, y + 0.55, f"GPU {i + 1}", ha="center", fontsize=10.5, color=plots.PALETTE[i * 2])
        box(3.6, y, 2.3, first.format(i=i + 1), "#d6e6f4" if i == 0 else "#fbe3c2")
        box(6.55, y, 2.0, second.format(i=i + 1), "#d6e6f4" if i == 0 else "#fbe3c2")
        ax.annotate("", (2.45, y), (2.07, 1.5 + (0.2 if i == 0 else -0.2)),
                    arrowprops=dict(arrowstyle="->", color="0.3"))
        ax.annotate("", (5.55, y), (4.75, y), arrowprops=dict(arrowstyle="->", color="0.3"))
        ax.annotate("", (7.93, 1.5 + (0.2 if i == 0 else -0.2)), (7.55, y),
                    arrowprops=dict(arrowstyle="->", color="0.3"))
    ax.text(3.6, -0.05, "column split", ha="center", fontsize=10.5, style="italic")
    ax.text(6.55, -0.05, "row split", ha="center", fontsize=10.5, style="italic")
    ax.text(5.0, 3.25, "$f$: forward identity, backward AllReduce    $g$: forward AllReduce, backward identity",
            ha="center", fontsize=10, color=plots.PALETTE[3])


def tp_block_figure():
    """The MLP and the self-attention block of a transformer layer split over two GPUs (:func:`draw_tp_block`).

    Returns
    -------
    matplotlib.figure.Figure
    """
    fig, axes = plt.subplots(2, 1, figsize=(8.5, 6.6))
    draw_tp_block(axes[0], "MLP block", "$Y_{i} = \\mathrm{{GeLU}}(X A_{i})$", "$Y_{i} B_{i}$")
    draw_tp_block(axes[1], "Self-attention block", "heads of GPU {i}\n($Q_{i}, K_{i}, V_{i}$)", "$O_{i}\\, W^O_{i}$")
    fig.tight_layout()
    return fig


def tp_layer_split(model, cluster, tp, microbatch=1, pp=8):
    """One layer of one microbatch under tensor parallelism: ``(StepTime, compute, tp_comm)``.

    :func:`interconnect.parallel.step_time` of ``Layout(dp=1, tp, pp, microbatch)`` (sequence
    parallelism, selective recomputation); ``compute`` and ``tp_comm`` are the step's divided
    by the ``m l / pp`` layer-microbatches one GPU runs.

    Returns
    -------
    (StepTime, float, float)
    """
    lay = Layout(dp=1, tp=tp, pp=pp, microbatch=microbatch, sequence_parallel=True, recompute="selective")
    s = step_time(model, lay, cluster)
    per = lay.microbatches(model.global_batch) * model.layers / lay.pp
    return s, s.compute / per, s.tp_comm / per


def tp_explorer(model, machines, tps=(1, 2, 4, 8), pp=8, default_link="NVLink 4", microbatches=(1, 2, 4)):
    """Tensor-parallel degree and link explorer: one layer's compute against TP comm, and MFU against t.

    Left, one layer of one microbatch split into compute and TP communication
    (:func:`tp_layer_split`); right, MFU of the whole step against ``t`` on the chosen link,
    the other links in grey (``b = 1``). The static book varies ``t`` and the link.

    Parameters
    ----------
    model : ModelConfig
    machines : dict of str to Cluster
        The link under the TP group, by name.
    tps : sequence of int
        Tensor-parallel degrees.
    pp : int
        Pipeline stages of every layout.
    default_link : str
        A key of ``machines``.
    microbatches : sequence of int

    Returns
    -------
    interconnect.widgets.Explorer
    """
    machines, tps = dict(machines), tuple(tps)
    if default_link not in machines:
        raise ValueError(f"default_link={default_link!r} is not one of the machines {tuple(machines)}")

    def ex_step(tp, link, b):
        return tp_layer_split(model, machines[link], tp, b, pp)

    def make_figure():
        fig, (ax, bx) = plots.new_figure(f"Tensor parallelism of {model.name} on H100s",
                                         ["share of one layer's time (one microbatch)", "tensor-parallel degree t"],
                                         ["", "MFU of the whole step"], ncols=2, figsize=(8.4, 4.4))
        comp = ax.barh([0.7], [1.0], height=0.4, color=plots.PALETTE[0], label="compute (GEMMs + element-wise)")[0]
        comm = ax.barh([0.7], [0.0], left=[1.0], height=0.4, color=plots.PALETTE[1], hatch="//", edgecolor="white",
                       label="TP communication")[0]
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1.45)
        ax.set_yticks([])
        ax.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        ax.grid(axis="y", visible=False)
        ax.legend(loc="upper left", fontsize=8.5)
        note = ax.text(0.5, 0.2, "", transform=ax.transAxes, ha="center", va="center", fontsize=9.5,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        for name in machines:
            mfus = [ex_step(tp_, name, 1)[0].mfu for tp_ in tps]
            bx.plot(tps, mfus, color="0.82", lw=1, zorder=1)
        (curve,) = bx.plot(tps, [0.5] * len(tps), color=plots.PALETTE[2], marker="o", lw=2, zorder=3,
                           label="chosen link")
        (mark,) = bx.plot([tps[-1]], [0.5], "o", ms=12, mfc="none", mec=plots.PALETTE[3], mew=2, zorder=4,
                          label="chosen t")
        bx.plot([], [], color="0.82", lw=1, label="other links (b = 1)")
        bx.set_xscale("log", base=2)
        bx.set_xticks(tps, [str(v) for v in tps])
        bx.minorticks_off()
        bx.set_ylim(0, 0.65)
        bx.set_xlim(0.8, 10)
        bx.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        bx.legend(loc="lower left", fontsize=8.5)
        head = bx.set_title("", fontsize=10, fontweight="normal")

        head.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(tp, link, microbatch):
            s, c, k = ex_step(tp, link, microbatch)
            frac = c / (c + k)
            comp.set_width(frac)
            comm.set_x(frac)
            comm.set_width(1 - frac)
            lay = Layout(dp=1, tp=tp, pp=pp, microbatch=microbatch)
            note.set_text(f"per layer: compute {fmt_time(c)}, TP comm {fmt_time(k)}\n"
                          f"TP message {fmt_bytes(activation_bytes(model, lay), binary=False)}, "
                          f"{collectives_per_layer(lay)} AllReduce-equivalents per layer")
            curve.set_ydata([ex_step(tp_, link, microbatch)[0].mfu for tp_ in tps])
            mark.set_data([tp], [s.mfu])
            head.set_text(f"{link}, b = {microbatch}: t = {tp} gives MFU {s.mfu:.1%}")
            return [comp, comm, note, curve, mark, head]

        return fig, update

    return Explorer(
        "Tensor-parallel degree and link explorer",
        [Param("tp", "tensor-parallel degree t", tps, tps[-1], str),
         Param("link", "link under the TP group", tuple(machines), default_link, str),
         Param("microbatch", "microbatch b (sequences)", tuple(microbatches), microbatches[0], str)],
        make_figure,
        static=["tp", "link"],
        alt=lambda tp, link, microbatch: (f"Left: one layer of {model.name} split into compute and tensor-parallel "
                                          f"communication for t = {tp} over {link}, microbatch {microbatch}. "
                                          f"Right: MFU against t from {tps[0]} to {tps[-1]} over {link}."),
    )
