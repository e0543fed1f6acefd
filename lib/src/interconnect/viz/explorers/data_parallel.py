"""Figures and explorers of the chapter "Data parallelism" (book/parallel/data_parallel)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from ... import plots
from ...parallel import dp_step_time
from ...units import fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["draw_dp_step", "dp_overlap_figure", "dp_explorer", "DP_TOKENS"]

#: Tokens per GPU per step on the explorer's slider.
DP_TOKENS = tuple(2048 * k for k in (1, 2, 4, 8, 16, 32))


def draw_dp_step(ax, st, microbatches, title):
    """Gantt bars of one data-parallel step: compute stream above, NCCL stream below.

    The last microbatch's backward pass (2/3 of its compute) is the window the gradient
    reduction may hide behind (:func:`interconnect.parallel.step_time`); the hidden part of
    ``st.dp_comm`` is drawn solid inside it, the exposed part hatched after the compute.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    st : interconnect.parallel.StepTime
    microbatches : int
        Microbatches per step m, >= 1.
    title : str
    """
    m = microbatches
    per_mb = st.compute / m
    window = 2 / 3 * per_mb          # the backward pass of the last microbatch
    t_back0 = st.compute - window
    ax.broken_barh([(0, st.compute - per_mb)], (1.6, 0.8), color=plots.PALETTE[5],
                   label=f"forward + backward, microbatches 1-{m - 1}")
    ax.broken_barh([(st.compute - per_mb, per_mb - window)], (1.6, 0.8), color=plots.PALETTE[0], alpha=0.55,
                   label="forward, last microbatch")
    ax.broken_barh([(t_back0, window)], (1.6, 0.8), color=plots.PALETTE[0], label="backward, last microbatch")
    hidden = st.dp_comm - st.dp_comm_exposed
    ax.broken_barh([(t_back0, hidden)], (0.4, 0.8), color=plots.PALETTE[1], label="gradient reduction, hidden")
    if st.dp_comm_exposed > 0:
        ax.broken_barh([(st.compute, st.dp_comm_exposed)], (0.4, 0.8), facecolor="white", edgecolor=plots.PALETTE[1],
                       hatch="///", lw=1.2, label="gradient reduction, exposed")
    ax.axvline(st.total, color="black", lw=1, ls="--")
    ax.text(st.total, 2.55, f" step ends: {fmt_time(st.total)}", fontsize=9, va="bottom")
    ax.set_yticks([0.8, 2.0], ["NCCL stream", "compute stream"])
    ax.set_ylim(0, 3.1)
    ax.set_title(title, fontsize=10.5)
    ax.grid(axis="y", visible=False)


def dp_overlap_figure(panels, microbatches, title):
    """Stacked :func:`draw_dp_step` panels sharing the time axis, one legend below.

    Parameters
    ----------
    panels : sequence of (str, StepTime)
        Title and step of each panel, top to bottom.
    microbatches : int
    title : str

    Returns
    -------
    matplotlib.figure.Figure
    """
    plots.use_style()
    fig, axes = plt.subplots(len(panels), 1, figsize=(8.2, 4.8), sharex=True)
    axes = np.atleast_1d(axes)
    for ax, (name, st) in zip(axes, panels):
        draw_dp_step(ax, st, microbatches, name)
    axes[-1].set_xlabel("time within one step (s)")
    fig.suptitle(title, fontweight="bold")
    h, lab = axes[-1].get_legend_handles_labels()
    fig.legend(h, lab, loc="lower center", ncols=3, fontsize=9)
    fig.tight_layout(rect=(0, 0.13, 1, 1))
    return fig


def dp_explorer(models, machines, tokens=DP_TOKENS, dp=8, default_model="6.7B", default_machine=None,
                default_tokens=8192, overlaps=(0.0, 0.5, 1.0), default_overlap=1.0):
    """Data-parallel step explorer: efficiency against tokens per GPU, and one step's split.

    Left, ``StepTime.efficiency`` of :func:`interconnect.parallel.dp_step_time` (ZeRO-2, 25 MB
    buckets) against the tokens per GPU, with the chosen point circled; right, the chosen
    step as compute, exposed and hidden gradient communication. The static book varies the
    machine and the tokens.

    Parameters
    ----------
    models : dict of str to ModelConfig
    machines : dict of str to Cluster
    tokens : sequence of int
        Tokens per GPU per step on the slider.
    dp : int
        Data-parallel ranks.
    default_model, default_machine, default_tokens, overlaps, default_overlap :
        The sliders' values and defaults; ``default_machine`` defaults to the first machine.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    models, machines, grid = dict(models), dict(machines), tuple(tokens)
    if default_machine is None:
        default_machine = next(iter(machines))

    def step(model_name, machine, tok, overlap):
        return dp_step_time(models[model_name], machines[machine], dp=dp, dp_overlap=overlap, tokens_per_gpu=tok)

    def make_figure():
        fig, (ax, bx) = plots.new_figure(f"Data parallelism on {dp} × A100 (ZeRO-2, 25 MB buckets)",
                                         ["tokens per GPU per step", "share of one step"], ["efficiency", ""],
                                         ncols=2, figsize=(8.4, 4.4))
        (curve,) = ax.plot(grid, np.ones(len(grid)), "o-", color=plots.PALETTE[0], ms=4,
                           label="this machine and model")
        (mark,) = ax.plot([grid[2]], [1.0], "o", ms=11, mfc="none", mec=plots.PALETTE[3], mew=2,
                          label="chosen point")
        ax.set_xscale("log", base=2)
        ax.set_xticks(grid, [f"{t // 1024}k" for t in grid])
        ax.minorticks_off()
        ax.set_xlim(1500, 90000)
        ax.set_ylim(0, 1.05)
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        ax.legend(loc="lower right")
        y = [0.78]
        b_comp = bx.barh(y, [1.0], height=0.4, color=plots.PALETTE[0])[0]
        b_exp = bx.barh(y, [0.0], left=[1.0], height=0.4, facecolor="white", edgecolor=plots.PALETTE[1],
                        hatch="///")[0]
        b_hid = bx.barh([0.32], [0.0], height=0.25, color=plots.PALETTE[1])[0]
        bx.legend([b_comp, b_exp, b_hid],
                  ["compute", "gradient comm, exposed", "gradient comm, hidden (under compute)"],
                  loc="upper left", fontsize=8.5, ncols=1)
        bx.set_xlim(0, 1)
        bx.set_ylim(0, 1.45)
        bx.set_yticks([])
        bx.grid(axis="y", visible=False)
        bx.xaxis.set_major_formatter(plt.FuncFormatter(lambda v, _: f"{v:.0%}"))
        note = bx.text(0.5, 0.1, "", transform=bx.transAxes, ha="center", fontsize=9,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))
        head = ax.set_title("", fontsize=10, fontweight="normal")

        head.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(model, machine, tokens, overlap):
            curve.set_ydata([step(model, machine, t, overlap).efficiency for t in grid])
            st = step(model, machine, tokens, overlap)
            eff = st.efficiency
            mark.set_data([tokens], [eff])
            b_comp.set_width(eff)
            b_exp.set_x(eff)
            b_exp.set_width(1 - eff)
            b_hid.set_width((st.dp_comm - st.dp_comm_exposed) / st.total)
            head.set_text(f"{model} model on {machine}, overlap {overlap:.0%}")
            note.set_text(f"step {fmt_time(st.total)}: compute {fmt_time(st.compute)}, "
                          f"exposed {fmt_time(st.dp_comm_exposed)}\nefficiency {eff:.0%}, MFU {st.mfu:.0%}")
            return [curve, mark, b_comp, b_exp, b_hid, head, note]

        return fig, update

    return Explorer(
        "Data-parallel step explorer",
        [Param("model", "model", tuple(models), default_model),
         Param("machine", "machine", tuple(machines), default_machine),
         Param("tokens", "tokens per GPU per step", grid, default_tokens, lambda t: f"{t:,}"),
         Param("overlap", "overlap with the backward pass", tuple(overlaps), default_overlap, lambda o: f"{o:.0%}")],
        make_figure,
        static=["machine", "tokens"],
        alt=lambda model, machine, tokens, overlap: (
            f"Efficiency against tokens per GPU for the {model} model on {machine} with {overlap:.0%} overlap, "
            f"and the split of one step at {tokens:,} tokens per GPU into compute and exposed communication."),
    )
