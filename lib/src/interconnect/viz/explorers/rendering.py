"""Explorers of the chapter "Multi-GPU rendering" (``book/history/rendering.ipynb``).

Presentation only: the frame timing comes from :func:`interconnect.rendering.simulate_frames`,
the copy time and link load from :func:`interconnect.rendering.frame_copy_time` and
:func:`interconnect.rendering.link_utilisation`.
"""

from __future__ import annotations

import numpy as np

from ... import plots
from ... import rendering as R
from ...links import get_link
from ...units import fmt_bandwidth, fmt_time, ms
from ...widgets import Explorer, Param

__all__ = ["frame_time_explorer"]


def frame_time_explorer(res_names=("1080p", "1440p", "4K"), link_names=("sli", "sli-hb", "nvlink-bridge-2080ti"),
                        base_1080=10 * ms, n_show=48, default_resolution="4K", default_link="sli-hb"):
    """Displayed AFR frame intervals on one to four GPUs, without and with frame pacing,
    and the statistics a reviewer reports (chapter "Multi-GPU rendering").

    Sliders: the number of GPUs in alternate-frame rendering, the spread of the per-frame
    render time (coefficient of variation), the resolution and the bridge. The left panel
    shows ``n_show`` consecutive steady-state frame intervals of
    :func:`interconnect.rendering.simulate_frames` (240 frames, seed 3, 2 ms of CPU time
    per frame); the right panel the mean fps, mean interval, 99th percentile, stutter
    index and latency of both runs, and how full the bridge is
    (:func:`interconnect.rendering.link_utilisation`). The render time scales with the
    pixel count (:func:`interconnect.rendering.scaled_render_time`); each foreign frame's
    copy over the bridge takes :func:`interconnect.rendering.frame_copy_time`.

    Parameters
    ----------
    res_names : sequence of str
        Resolutions offered (keys of :data:`interconnect.rendering.RESOLUTIONS`).
    link_names : sequence of str
        Bridges offered (entries of :mod:`interconnect.links`).
    base_1080 : float
        Render time of one 1080p frame on one GPU, s.
    n_show : int
        Displayed frame intervals drawn.
    default_resolution, default_link : str
        Initial resolution and bridge; must be in ``res_names`` and ``link_names``.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    res_names, link_names = tuple(res_names), tuple(link_names)

    def make_figure():
        fig, (ax, bx) = plots.new_figure("AFR frame times", ["displayed frame number", ""],
                                         ["frame interval (ms)", ""], ncols=2, figsize=(8.8, 4.6))
        xs = np.arange(n_show)
        (l_raw,) = ax.plot(xs, np.zeros(n_show), color=plots.PALETTE[3], marker=".", label="AFR, no pacing")
        (l_pace,) = ax.plot(xs, np.zeros(n_show), color=plots.PALETTE[0], marker=".", ls="--", label="AFR, paced")
        ax.set_ylim(0, 100)
        ax.set_xlim(-1, n_show)
        ax.legend(loc="upper right")
        head = ax.set_title(" ", fontsize=10)
        bx.set_xticks([])
        bx.set_yticks([])
        bx.grid(False)
        for s in bx.spines.values():
            s.set_visible(False)
        txt = bx.text(0.0, 0.97, "", transform=bx.transAxes, va="top", ha="left", family="monospace", fontsize=11)

        def update(n_gpus, jitter, resolution, link_name):
            rt = R.scaled_render_time(resolution, base_1080, "1080p")
            xfer = R.frame_copy_time("afr", link_name, max(n_gpus, 2), resolution) if n_gpus > 1 else 0.0
            kw = dict(render_time=rt, cpu_time=2 * ms, render_jitter=jitter, transfer_time=xfer, n_frames=240, seed=3)
            a = R.simulate_frames("afr", n_gpus, **kw)
            p = R.simulate_frames("afr", n_gpus, pacing=True, **kw)
            l_raw.set_ydata(np.clip(a.steady_intervals[:n_show] / ms, 0, 99))
            l_pace.set_ydata(np.clip(p.steady_intervals[:n_show] / ms, 0, 99))
            head.set_text(f"{n_gpus} GPU{'s' if n_gpus > 1 else ''}, {resolution}, "
                          f"render {fmt_time(rt)} ± {jitter:.0%}")
            lines = [f"{'':18}{'no pacing':>11}{'paced':>9}"]
            for name, fa, fp in (("mean fps", a.mean_fps, p.mean_fps),
                                 ("mean interval ms", a.mean_interval / ms, p.mean_interval / ms),
                                 ("99th pct ms", a.interval_p99 / ms, p.interval_p99 / ms),
                                 ("stutter index", a.stutter_index, p.stutter_index),
                                 ("latency ms", a.mean_latency / ms, p.mean_latency / ms)):
                lines.append(f"{name:18}{fa:11.2f}{fp:9.2f}" if name == "stutter index"
                             else f"{name:18}{fa:11.1f}{fp:9.1f}")
            lines.append("")
            lk = get_link(link_name)
            lines.append(f"link: {lk.label.split('(')[0].strip()}")
            lines.append(f"      {fmt_bandwidth(lk.bandwidth)}")
            if n_gpus > 1:
                u = R.link_utilisation("afr", link_name, n_gpus, resolution, a.mean_fps)
                lines.append(f"frame copy {fmt_time(xfer)}, link {u:.0%} full")
                lines.append("LINK OVERLOADED: frames cannot cross" if u > 1 else "")
            else:
                lines.append("one GPU: nothing crosses the link")
                lines.append("")
            txt.set_text("\n".join(lines))
            return [l_raw, l_pace, head, txt]

        return fig, update

    return Explorer(
        "AFR frame time explorer",
        [Param("n_gpus", "GPUs in AFR", (1, 2, 3, 4), 2, str),
         Param("jitter", "render-time spread (coefficient of variation)", (0.0, 0.05, 0.1, 0.2, 0.3, 0.4), 0.1,
               lambda v: f"{v:.0%}"),
         Param("resolution", "resolution", res_names, default_resolution, str),
         Param("link_name", "bridge", link_names, default_link, lambda n: get_link(n).label)],
        make_figure, static=["n_gpus", "jitter"],
        alt=lambda n_gpus, jitter, resolution, link_name: (
            f"Left, {n_show} displayed frame intervals for AFR on {n_gpus} GPU(s) at {resolution} with {jitter:.0%} "
            f"render-time spread, without and with frame pacing; right, a table of mean fps, mean interval, "
            f"99th percentile, stutter index, latency and link utilisation over {get_link(link_name).label}."))
