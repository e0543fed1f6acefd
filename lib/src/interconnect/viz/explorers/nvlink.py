"""Explorers of the chapter "NVLink and NVSwitch" (``book/history/nvlink.ipynb``).

Presentation only: the machines and their AllReduce times (peak models, and NCCL's achieved
model where a machine carries one) are :func:`interconnect.nvlink_machines.nvlink_machines`;
the bus bandwidth is :func:`interconnect.collectives.bus_bandwidth`.
"""

from __future__ import annotations

import numpy as np

from ... import collectives as C
from ... import plots
from ...nvlink_machines import nvlink_machines
from ...units import GB, bidirectional, fmt_bandwidth, fmt_bytes, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

__all__ = ["bidir", "nvlink_allreduce_explorer"]

#: Message sizes at which every machine is timed: 4 KiB to 16 GiB, every factor of 4.
CURVE_SIZES = tuple(2.0 ** np.arange(12, 35, 2))

_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def bidir(bw):
    """A per-direction bandwidth shown as the bidirectional figure vendors quote
    (:func:`interconnect.units.bidirectional`, labelled "bidirectional")."""
    return fmt_bandwidth(bidirectional(bw), "bidirectional")


def nvlink_allreduce_explorer(machines=None, exclude=("NVLink domain of 576 (ring)",),
                              default_machine="DGX H100 (8 H100, ring)",
                              curve_sizes=CURVE_SIZES,
                              slider_sizes=tuple(2.0 ** k for k in (16, 20, 26, 30, 34)), default_size=2.0 ** 30):
    """AllReduce bus bandwidth against message size on the NVLink machines, one drawn bold
    (chapter "NVLink and NVSwitch").

    Thin lines: every machine's busbw in its peak model
    (:func:`interconnect.collectives.bus_bandwidth` of
    :meth:`interconnect.nvlink_machines.NVLinkMachine.allreduce_time`) at ``curve_sizes``.
    Sliders: the machine drawn bold and the message size marked on it; where the machine
    carries NCCL's achieved model
    (:meth:`~interconnect.nvlink_machines.NVLinkMachine.nccl_allreduce_time`) a dashed bold
    line draws it. The note gives the peak time there (log-log interpolation between the
    computed sizes), the busbw as a share of the GPU's NVLink bandwidth, and NCCL's achieved
    time and busbw where there is one.

    Parameters
    ----------
    machines : dict, optional
        ``{name: NVLinkMachine}``; default :func:`interconnect.nvlink_machines.nvlink_machines`.
    exclude : sequence of str
        Machines left out (the 576-GPU domain, whose curve needs no simulation to read).
    default_machine : str
        The machine drawn bold at first.
    curve_sizes : sequence of float
        Message sizes at which every machine is timed, bytes (4 KiB to 16 GiB).
    slider_sizes : sequence of float
        Message sizes offered on the slider, bytes.
    default_size : float
        One of ``slider_sizes``.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    machines = nvlink_machines() if machines is None else machines
    names = [k for k in machines if k not in exclude]
    sizes = np.asarray(curve_sizes, dtype=float)
    curves = {}
    for name in names:
        m = machines[name]
        ts = np.array([m.allreduce_time(s) for s in sizes])
        curves[name] = (ts, C.bus_bandwidth("allreduce", sizes / ts, m.gpus), m.link, m.gpus)
    achieved = {}
    for name in names:
        m = machines[name]
        if m.nccl_allreduce_time(sizes[0]) is not None:
            ta = np.array([m.nccl_allreduce_time(s) for s in sizes])
            achieved[name] = (ta, C.bus_bandwidth("allreduce", sizes / ta, m.gpus))

    def at(machine, nbytes, curve=None):
        ts, _, link, p = curves[machine]
        ts = ts if curve is None else curve[0]
        t = np.interp(np.log2(nbytes), np.log2(sizes), ts)
        return t, C.bus_bandwidth("allreduce", nbytes / t, p), link, p

    def make_figure():
        fig, ax = plots.new_figure("AllReduce bus bandwidth on NVLink machines", "message size n",
                                   "busbw (GB/s, per direction)", figsize=(8.4, 4.6))
        colours = (0, 1, 2, 3, 4, 5, 7)
        for i, name in enumerate(names):
            ax.plot(sizes, curves[name][1] / GB, color=plots.PALETTE[colours[i % len(colours)]], lw=1.3,
                    ls=plots.LINESTYLES[i % len(plots.LINESTYLES)], alpha=0.8, label=name)
        (bold,) = ax.plot(sizes, curves[names[0]][1] / GB, color="black", lw=3.2, label="bold: peak model")
        (dashed,) = ax.plot(sizes, np.full(len(sizes), np.nan), color="black", lw=2.4, ls="--",
                            label="dashed: NCCL achieved")
        (mark,) = ax.plot([slider_sizes[0]], [1.0], "o", ms=11, mfc="none", mec=plots.PALETTE[3], mew=2.4)
        plots.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_ylim(0.5, 3e4)
        ax.set_xlim(sizes[0], sizes[-1])
        ax.legend(loc="upper left", fontsize=8.5, ncols=2)
        note = ax.text(0.985, 0.04, "", transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text

        def update(machine, nbytes):
            bold.set_ydata(curves[machine][1] / GB)
            t, b, link, p = at(machine, nbytes)
            mark.set_data([nbytes], [b / GB])
            text = (f"{machine}\nAllReduce of {fmt_bytes(nbytes)} on {p} GPUs (peak model): {fmt_time(t)}\n"
                    f"busbw {fmt_bandwidth(b)} = {100 * b / link.bandwidth:.0f} % of "
                    f"{fmt_bandwidth(link.bandwidth)} per GPU")
            if machine in achieved:
                dashed.set_ydata(achieved[machine][1] / GB)
                ta, ba, _, _ = at(machine, nbytes, achieved[machine])
                text += f"\nNCCL achieved: {fmt_time(ta)}, busbw {fmt_bandwidth(ba)}"
            else:
                dashed.set_ydata(np.full(len(sizes), np.nan))
                text += "\nNCCL achieved: no checked model for this machine"
            note.set_text(text)
            return [bold, dashed, mark, note]

        return fig, update

    def alt(machine, nbytes):
        t = at(machine, nbytes)[0]
        return (f"Log-log plot of AllReduce bus bandwidth against message size from {fmt_bytes(sizes[0])} to "
                f"{fmt_bytes(sizes[-1])} for {_WORDS[len(names)] if len(names) < len(_WORDS) else len(names)} NVLink "
                f"machines in their peak models; {machine} is bold"
                + (", with NCCL's achieved model dashed. " if machine in achieved else ". ")
                + f"At {fmt_bytes(nbytes)} the peak model takes {fmt_time(t)}"
                + (f" and NCCL achieves {fmt_time(at(machine, nbytes, achieved[machine])[0])}."
                   if machine in achieved else "."))

    return Explorer("AllReduce on NVLink machines",
                    [Param("machine", "machine", tuple(names), default_machine),
                     Param("nbytes", "message size", tuple(slider_sizes), default_size, fmt=fmt_bytes)],
                    make_figure, static=["machine", "nbytes"], alt=alt)
