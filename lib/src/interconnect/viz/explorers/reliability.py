"""Explorers of the chapter "Reliability at scale" (book/parallel/reliability)."""

from __future__ import annotations

import numpy as np

from ... import plots
from ... import reliability as R
from ...units import day, fmt_time, hour, minute
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["goodput_explorer"]

YEAR = 365 * day


def goodput_explorer(gpu_mtbf=R.LLAMA3_GPU_MTBF, n_gpus=16_384, checkpoint=5 * minute, restart=10 * minute):
    """Goodput of a synchronous job against the compute time between checkpoints.

    The curve is :func:`interconnect.reliability.goodput` for a job of ``n_gpus`` GPUs (job
    MTBF :func:`interconnect.reliability.cluster_mtbf`), with Young's and Daly's intervals
    marked and the goodput at Daly's (:func:`interconnect.reliability.best_goodput`). Fixed
    axes and the same artists in every frame (drawn by blitting).

    Sliders: GPUs in the job, checkpoint time, per-GPU MTBF and restart time. The static
    book varies the GPUs and the checkpoint time.

    Parameters
    ----------
    gpu_mtbf : float
        Default per-GPU MTBF, s (the Llama 3 log's, :data:`interconnect.reliability.LLAMA3_GPU_MTBF`);
        offered on the slider with 1, 2, 5, 10 and 20 years.
    n_gpus, checkpoint, restart : float
        Defaults of the other sliders (GPUs, and seconds); each must be one of the slider's values.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    taus = np.logspace(np.log10(minute), np.log10(3 * day), 300)
    ticks = [minute, 10 * minute, hour, 6 * hour, day]

    def make_figure():
        fig, ax = plots.new_figure("Goodput of a synchronous job", "compute time between checkpoints",
                                   "goodput (useful / wall-clock time)", figsize=(7.0, 4.3))
        ax.set_xscale("log")
        ax.set_xlim(taus[0], taus[-1])
        ax.set_ylim(0, 1)
        ax.set_xticks(ticks)
        ax.set_xticklabels([fmt_time(t) for t in ticks])
        curve, = ax.plot(taus, np.zeros_like(taus), color=plots.PALETTE[0], label="goodput")
        young = ax.axvline(hour, color=plots.PALETTE[1], linestyle="--", linewidth=1.5, label="Young's interval")
        daly = ax.axvline(hour, color=plots.PALETTE[2], linestyle=":", linewidth=2, label="Daly's interval")
        best, = ax.plot([hour], [0.5], "o", color=plots.PALETTE[3], ms=7, label="goodput at Daly's interval")
        note = ax.text(0.98, 0.97, "", transform=ax.transAxes, ha="right", va="top", fontsize=9,
                       bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=4, fontsize=8)

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(n_gpus, gpu_mtbf, checkpoint, restart):
            M = R.cluster_mtbf(gpu_mtbf, n_gpus)
            curve.set_ydata(R.goodput(taus, checkpoint, M, restart))
            t_y, t_d = R.young_interval(checkpoint, M), R.daly_interval(checkpoint, M)
            g = R.best_goodput(checkpoint, M, restart)
            young.set_xdata([t_y, t_y])
            daly.set_xdata([t_d, t_d])
            best.set_data([t_d], [g])
            note.set_text(f"{n_gpus:,} GPUs, job MTBF {fmt_time(M)}\ncheckpoint {fmt_time(checkpoint)}, "
                          f"restart {fmt_time(restart)}\nYoung {fmt_time(t_y)}, Daly {fmt_time(t_d)}\n"
                          f"best goodput {100 * g:.1f} %")
            return [curve, young, daly, best, note]

        return fig, update

    def alt(n_gpus, gpu_mtbf, checkpoint, restart):
        M = R.cluster_mtbf(gpu_mtbf, n_gpus)
        t_d = R.daly_interval(checkpoint, M)
        return (f"Goodput against checkpoint interval for {n_gpus} GPUs with job MTBF {fmt_time(M)}, "
                f"checkpoint time {fmt_time(checkpoint)} and restart {fmt_time(restart)}: a hump peaking at "
                f"{100 * R.best_goodput(checkpoint, M, restart):.1f} % at Daly's interval of {fmt_time(t_d)}.")

    def years(s):
        return f"{s / YEAR:.1f} years"

    params = [
        Param("n_gpus", "GPUs in the job", (512, 1024, 2048, 4096, 8192, 16_384, 32_768, 65_536), n_gpus,
              fmt=lambda v: f"{v:,}"),
        Param("checkpoint", "checkpoint time δ", (10.0, 30.0, 60.0, 5 * minute, 10 * minute, 30 * minute),
              checkpoint, fmt=fmt_time),
        Param("gpu_mtbf", "per-GPU MTBF", tuple(y * YEAR for y in (1.0, 2.0, 5.0, 10.0, 20.0)) + (gpu_mtbf,),
              gpu_mtbf, fmt=years),
        Param("restart", "restart time R", (0.0, 5 * minute, 10 * minute, 30 * minute, hour), restart,
              fmt=fmt_time),
    ]
    return Explorer("Goodput against checkpoint interval", params, make_figure,
                    static=("n_gpus", "checkpoint"), alt=alt, dpi=86, colors=32)
