"""Explorers of the chapter "Selection and operations" (book/practice/operations)."""

from __future__ import annotations

import numpy as np

from ... import operations as O
from ... import plots
from ...units import GB, fmt_si
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["loader_explorer"]

#: How the stages of :data:`interconnect.operations.STAGES` are labelled on the bars.
STAGE_LABELS = {"storage": "storage read", "network": "storage network", "decode": "CPU decode",
                "h2d": "host-to-device (PCIe)", "gpu": "GPU consumption"}


def loader_explorer(node=None, gpus=8):
    """Stage rates of a node's data-loading pipeline, the stage that binds and the GPUs' stall.

    Horizontal bars of :func:`interconnect.operations.loader_stages` on a log axis, the
    binding stage highlighted, and the pipeline throughput
    (:func:`interconnect.operations.pipeline_throughput`) as a line; the note gives the
    share of time the GPUs wait (:func:`interconnect.operations.data_stall_fraction`).
    Fixed bars, redrawn by blitting.

    Sliders: CPU cores decoding, the node's storage read bandwidth, images decoded per
    core per second and images per second each GPU can train on. The static book varies
    the cores and the storage bandwidth.

    Parameters
    ----------
    node : dict, optional
        Keyword arguments of :func:`interconnect.operations.loader_stages` for the node
        (default :func:`interconnect.operations.image_loader_node`); its ``cpu_cores``,
        ``storage_bandwidth``, ``decode_rate`` and ``gpu_rate / gpus`` are the sliders'
        defaults and must be among their values.
    gpus : int
        GPUs in the node (the GPU slider is per GPU).

    Returns
    -------
    interconnect.widgets.Explorer
    """
    node = O.image_loader_node(gpus) if node is None else dict(node)
    lo, hi = 1e3, 1e7

    def stages(cpu_cores, storage_bandwidth, decode_rate, gpu_per_gpu):
        return O.loader_stages(**{**node, "cpu_cores": cpu_cores, "storage_bandwidth": storage_bandwidth,
                                  "decode_rate": decode_rate, "gpu_rate": gpus * gpu_per_gpu})

    def make_figure():
        fig, ax = plots.new_figure("Data-loading pipeline of one node", "rate (images/s, log scale)", "",
                                   figsize=(7.0, 4.0))
        ax.set_xscale("log")
        ax.set_xlim(lo, hi)
        y = np.arange(len(O.STAGES))[::-1]
        bars = ax.barh(y, [1.0] * len(y), left=lo, color=plots.PALETTE[5], height=0.6)
        ax.set_yticks(y)
        ax.set_yticklabels([STAGE_LABELS[s] for s in O.STAGES])
        line = ax.axvline(lo * 10, color=plots.PALETTE[3], linestyle="--", linewidth=1.8, label="pipeline throughput")
        note = ax.text(0.98, 0.03, "", transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                       bbox=dict(facecolor="white", edgecolor="#cccccc", boxstyle="round,pad=0.3"))
        ax.legend(loc="upper right", fontsize=8)

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(cpu_cores, storage_bandwidth, decode_rate, gpu_per_gpu):
            st = stages(cpu_cores, storage_bandwidth, decode_rate, gpu_per_gpu)
            r, b = O.pipeline_throughput(st)
            for bar, s in zip(bars, O.STAGES):
                bar.set_width(min(st[s], hi) - lo)
                bar.set_color(plots.PALETTE[3] if s == b else plots.PALETTE[5])
            line.set_xdata([r, r])
            note.set_text(f"binds: {STAGE_LABELS[b]}\nthroughput {r:,.0f} images/s\n"
                          f"GPUs wait {100 * O.data_stall_fraction(st):.0f} % of the time")
            return list(bars) + [line, note]

        return fig, update

    def alt(cpu_cores, storage_bandwidth, decode_rate, gpu_per_gpu):
        st = stages(cpu_cores, storage_bandwidth, decode_rate, gpu_per_gpu)
        r, b = O.pipeline_throughput(st)
        return (f"Horizontal bars of five stage rates on a log axis; {STAGE_LABELS[b]} is the shortest bar and binds, "
                f"giving {r:,.0f} images/s; the GPUs wait {100 * O.data_stall_fraction(st):.0f} % of the time.")

    params = [
        Param("cpu_cores", "CPU cores decoding", (16, 32, 56, 112, 224), node["cpu_cores"]),
        Param("storage_bandwidth", "storage read bandwidth for the node", tuple(x * GB for x in (0.5, 1, 2, 5, 10)),
              node["storage_bandwidth"], fmt=lambda v: fmt_si(v, "B/s")),
        Param("decode_rate", "images/s decoded per core", (75.0, 150.0, 300.0, 600.0), node["decode_rate"],
              fmt=lambda v: f"{v:.0f}"),
        Param("gpu_per_gpu", f"images/s each of {gpus} GPUs can train on", (1000.0, 2000.0, 3000.0, 5000.0),
              node["gpu_rate"] / gpus, fmt=lambda v: f"{v:,.0f}"),
    ]
    return Explorer("Which stage of the data pipeline binds?", params, make_figure,
                    static=("cpu_cores", "storage_bandwidth"), alt=alt, dpi=86, colors=32)
