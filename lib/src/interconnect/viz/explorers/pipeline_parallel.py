"""Explorers of the chapter "Pipeline parallelism" (book/parallel/pipeline_parallel)."""

from __future__ import annotations

import numpy as np
from matplotlib.patches import Rectangle

from ... import pipeline, plots
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["pipeline_fill_explorer"]

#: The schedules shown: label and chunks per stage v.
SCHEDULES = {"gpipe": ("GPipe", 1), "1f1b": ("1F1B", 1), "interleaved": ("interleaved 1F1B, v = 2", 2)}


def pipeline_fill_explorer(p=4, m=8, n_steps=16):
    """Gantt chart of a pipeline step revealed up to a time step, for three schedules.

    The tasks are :func:`interconnect.pipeline.schedule` of GPipe, 1F1B and interleaved 1F1B
    (``v = 2``); the note gives the share of GPU time busy so far and the microbatches stage 0
    holds (:func:`interconnect.pipeline.in_flight` counted up to the time step). Fixed axes,
    drawn by blitting; the static book varies the time step and the schedule.

    Parameters
    ----------
    p, m : int
        Stages and microbatches.
    n_steps : int
        Time steps from 0 to the longest schedule's makespan.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    kinds = SCHEDULES
    runs = {k: pipeline.schedule(k, p, m, chunks=v) for k, (_, v) in kinds.items()}
    horizon = max(pipeline.makespan(t) for t in runs.values())
    clock = np.linspace(0, horizon, n_steps)
    n_max = max(len(t) for t in runs.values())

    def make_figure():
        fig, ax = plots.new_figure(f"A pipeline step, {p} stages, {m} microbatches",
                                   "time (units of one forward pass)", "pipeline stage (GPU)", figsize=(8, 3.6))
        ax.set_xlim(0, horizon * 1.01)
        ax.set_ylim(p - 0.5, -1.3)
        ax.set_yticks(range(p))
        ax.set_yticklabels([f"stage {s}" for s in range(p)])
        ax.grid(False)
        bars = [ax.add_patch(Rectangle((0, 0), 0, 0.8, edgecolor="white", lw=0.6)) for _ in range(n_max)]
        now = ax.axvline(0, color=plots.PALETTE[7], lw=1.2)
        info = ax.text(0.005 * horizon, -0.9, "", fontsize=10.5, va="center")

        info.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(kind, step):
            tasks, v, t = runs[kind], kinds[kind][1], clock[step]
            done = 0.0
            for i, bar in enumerate(bars):
                if i >= len(tasks) or tasks[i].start >= t:
                    bar.set_visible(False)
                    continue
                task = tasks[i]
                width = min(task.end, t) - task.start
                done += width
                bar.set_visible(True)
                bar.set_bounds(task.start, task.stage - 0.4, width, 0.8)
                bar.set_facecolor(plots.PALETTE[task.microbatch % len(plots.PALETTE)])
                bar.set_alpha(1.0 - 0.45 * task.chunk if v > 1 else 1.0)
                bar.set_hatch("///" if task.kind == "B" else None)
            now.set_xdata([t, t])
            held = sum(1 for x in tasks if x.stage == 0 and x.kind == "F" and x.start < t) - \
                sum(1 for x in tasks if x.stage == 0 and x.kind == "B" and x.end <= t)
            busy = 100 * done / (p * t) if t > 0 else 0.0
            info.set_text(f"{kinds[kind][0]}: t = {t:.1f}, GPUs busy {busy:.0f} % so far, "
                          f"stage 0 holds {held / v:g} microbatches")
            return [*bars, now, info]

        return fig, update

    return Explorer(
        "Pipeline fill and drain",
        [Param("step", "time step", tuple(range(n_steps)), n_steps // 2, lambda k: f"t = {clock[k]:.1f}"),
         Param("kind", "schedule", tuple(kinds), "1f1b", lambda k: kinds[k][0])],
        make_figure, static=["step", "kind"], dpi=80, colors=64,
        alt=lambda step, kind: (f"Gantt chart of the {kinds[kind][0]} schedule with {p} stages and {m} microbatches, "
                                f"drawn up to time {clock[step]:.1f} forward-pass units."))
