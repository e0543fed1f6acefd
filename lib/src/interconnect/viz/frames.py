"""Frame-timing figures for :mod:`interconnect.rendering`.

Presentation layer: this module imports matplotlib (through :mod:`interconnect.plots`);
``interconnect.rendering.plot_frame_intervals`` is a lazy alias of :func:`plot_frame_intervals`.
"""

from __future__ import annotations

import numpy as np

from .._validate import as_count
from ..plots import LINESTYLES, PALETTE, new_figure
from ..rendering.frames import FrameTimeline

__all__ = ["plot_frame_intervals"]


def plot_frame_intervals(timelines, labels=None, n_show=60, title="Frame intervals on screen"):
    """Plot displayed frame intervals (ms) of one or more :class:`FrameTimeline` runs.

    Parameters
    ----------
    timelines : FrameTimeline or sequence of FrameTimeline
    labels : sequence of str, optional
        Legend entries; default "<mode>, N GPUs".
    n_show : int, default 60
        Intervals shown, starting after the warm-up.
    title : str

    Returns
    -------
    (Figure, Axes)
        Styled by :mod:`interconnect.plots`; the alt text is set as the figure label.
    """
    runs = [timelines] if isinstance(timelines, FrameTimeline) else list(timelines)
    if not runs or not all(isinstance(r, FrameTimeline) for r in runs):
        raise ValueError("timelines must be a FrameTimeline or a non-empty sequence of them")
    count = as_count("n_show", n_show, 2)
    if labels is None:
        labels = [f"{r.mode}, {r.n_gpus} GPU{'s' if r.n_gpus > 1 else ''}" for r in runs]
    elif len(labels) != len(runs):
        raise ValueError(f"labels has {len(labels)} entries; expected {len(runs)}")
    fig, ax = new_figure(title, "displayed frame number", "frame interval (ms)")
    for i, (r, lab) in enumerate(zip(runs, labels)):
        iv = r.steady_intervals[:count] * 1e3
        ax.plot(np.arange(iv.size), iv, color=PALETTE[i % len(PALETTE)],
                linestyle=LINESTYLES[i % len(LINESTYLES)], marker=".",
                label=f"{lab}: {r.mean_fps:.0f} fps, stutter {r.stutter_index:.2f}")
    ax.legend()
    fig.set_label("Line chart of the time between consecutive displayed frames for "
                  + "; ".join(labels))
    return fig, ax
