"""Explorer and comparison table of the chapter "Other fabrics" (``book/stack/other_fabrics.ipynb``).

The numbers are the library's models: the records of :mod:`interconnect.catalog.fabrics` and
:mod:`interconnect.links`, the topologies of :mod:`interconnect.topology.other_fabrics`, the
alpha-beta model :func:`interconnect.collectives.collective_time` and the flow simulator
:func:`interconnect.netsim.simulate_collective` / :func:`~interconnect.netsim.simulate_rings`.
The 8-device domains are :func:`interconnect.topology.eight_way_systems`, their AllReduce
:func:`interconnect.netsim.domain_allreduce_time`; this module lays the results out.
"""

from __future__ import annotations

import numpy as np

from ... import collectives as C
from ... import links, netsim, plots
from ... import topology as T
from ...catalog.fabrics import get_fabric
from ...units import GB, GiB, KiB, MiB, fmt_bandwidth, fmt_bytes, fmt_time
from ...widgets import READOUT_GID, Explorer, Param

#: How an AllReduce is run on an 8-device domain (:func:`interconnect.netsim.domain_allreduce_time`).
ALGORITHMS = netsim.DOMAIN_ALLREDUCE
eight_way_systems = T.eight_way_systems
EightWay = T.EightWay

__all__ = ["ALGORITHMS", "NOT_PUBLISHED", "EightWay", "eight_way_systems", "comparison_rows",
           "COMPARISON_HEADERS", "fabric_allreduce_explorer"]

#: What the table shows where no primary source gives a per-direction figure.
NOT_PUBLISHED = "not published"


def _gbs(bw):
    return f"{bw / GB:g}"


#: Columns of :func:`comparison_rows`.
COMPARISON_HEADERS = ("fabric", "topology", "devices per domain", "per device, GB/s per direction",
                      "one peer pair, GB/s per direction", "vendor's figure", "source")


def comparison_rows():
    """The chapter's comparison table, one row per fabric, every cell from a record or
    ``NOT_PUBLISHED``.

    Per-direction bandwidths are the records' ``bandwidth`` (vendor figures quoted as
    bidirectional are halved there); "one peer pair" is what a single pair of devices gets
    (a switch gives it the whole device, a mesh one link or one port bundle). The source
    column is the ``references.bib`` key of the record.

    Returns
    -------
    list of tuple of str
    """
    def quoted(rec):
        if rec.quoted is None:
            return NOT_PUBLISHED
        how = "direction not stated" if rec.quoted_as == "unstated" else rec.quoted_as
        return f"{rec.quoted / GB:g} GB/s {how}"

    def pub(bw):
        return NOT_PUBLISHED if bw is None else _gbs(bw)

    h100, gb200 = links.get_link("nvlink4"), links.get_link("nvlink5")
    rows = [
        ("NVLink 4 (DGX H100)", "NVSwitch, switched", "8", _gbs(h100.bandwidth), _gbs(h100.bandwidth),
         f"{h100.bidirectional_bandwidth / GB:g} GB/s bidirectional", "nvidia2023h100"),
        ("NVLink 5 (GB200 NVL72)", "NVSwitch trays, switched", str(T.NVL72_GPUS), _gbs(gb200.bandwidth),
         _gbs(gb200.bandwidth), f"{gb200.bidirectional_bandwidth / GB:g} GB/s bidirectional",
         "nvidia_dra_computedomain"),
    ]
    gaudi3 = T.gaudi_node(3).edges["gpu0", "gpu1"]["bandwidth"]
    gaudi2 = T.gaudi_node(2).edges["gpu0", "gpu1"]["bandwidth"]
    per_peer = {"xgmi-mi300x": get_fabric("xgmi-mi300x").per_link_bandwidth,

                "gaudi3-scale-up": gaudi3, "gaudi2-scale-up": gaudi2}
    short_topo = {"xgmi-mi300x": "full mesh, 1 link per pair",
                  "xgmi-mi250x-link": "8 GCDs, links differ per pair",
                  "gaudi3-scale-up": "all-to-all, 3 ports per pair", "gaudi2-scale-up": "all-to-all, 3 ports per pair",
                  "tpu-v4-ici": "3D torus, OCS-joined cubes", "tpu-v5p-ici": "3D torus, OCS-joined cubes",
                  "neuronlink-v3-trn2": "2D torus (4x4), 4 links", "ualink-1.0-x4": "switched",
                  "uet-1.0": "transport over Ethernet"}
    for name in ("xgmi-mi250x-link", "xgmi-mi300x", "gaudi2-scale-up", "gaudi3-scale-up", "tpu-v4-ici",
                 "tpu-v5p-ici", "neuronlink-v3-trn2", "ualink-1.0-x4", "uet-1.0"):
        rec = get_fabric(name)
        device = pub(rec.bandwidth)
        if name == "xgmi-mi250x-link":
            device = "not uniform"
        if name == "ualink-1.0-x4":
            device = "set by the product (ports per device)"
        peer = per_peer.get(name)
        peer = pub(peer)
        if name == "xgmi-mi250x-link":          # 4 links inside a package; 1 or 2 where packages are linked
            one = rec.bandwidth
            peer = f"{_gbs(one)} or {_gbs(2 * one)} where linked, {_gbs(4 * one)} in a package"
        label = rec.label
        if name == "ualink-1.0-x4":
            peer = _gbs(rec.bandwidth)
            label = "UALink 1.0 (one x4 port)"
        if name == "uet-1.0":
            none = "no line rate of its own"
            rows.append((label, short_topo[name], "not applicable", none, none, NOT_PUBLISHED, rec.bib_key))
            continue
        domain = NOT_PUBLISHED if rec.domain is None else f"{rec.domain:,}"
        if name == "ualink-1.0-x4":
            domain = f"up to {domain}"
        rows.append((label, short_topo[name], domain,
                     device, peer, quoted(rec), rec.bib_key))
    return rows


#: Message sizes at which every system is simulated: 64 KiB to 4 GiB, every factor of 4.
CURVE_SIZES = tuple(2.0 ** np.arange(16, 33, 2))


def fabric_allreduce_explorer(systems=None, sizes=CURVE_SIZES,
                              slider_sizes=(64 * KiB, 1 * MiB, 64 * MiB, 1 * GiB, 4 * GiB), default_size=1 * GiB):
    """AllReduce bus bandwidth against message size on the 8-device domains, one curve per
    system and algorithm, simulated with netsim (:func:`interconnect.netsim.domain_allreduce_time`).

    Sliders: the system (curves for its three algorithms drawn bold, its per-device
    bandwidth as a dashed ceiling) and the message size marked on them; the note gives
    the three times and bus bandwidths there (log-log interpolation between the simulated sizes).

    Parameters
    ----------
    systems : dict of str -> EightWay, optional
        Default :func:`eight_way_systems`.
    sizes : sequence of float
        Message sizes simulated, bytes.
    slider_sizes : sequence of float
        Message sizes offered, bytes, within ``sizes``.
    default_size : float
        One of ``slider_sizes``.

    Returns
    -------
    interconnect.widgets.Explorer
    """
    systems = eight_way_systems() if systems is None else systems
    names = list(systems)
    sizes = np.asarray(sizes, dtype=float)
    algs = list(ALGORITHMS)
    times = {(s, a): np.array([netsim.domain_allreduce_time(systems[s].graph, n, a) for n in sizes])
             for s in names for a in algs}
    busbw = {k: C.bus_bandwidth("allreduce", sizes / t, 8) for k, t in times.items()}

    def at(s, a, nbytes):
        t = float(np.exp(np.interp(np.log(nbytes), np.log(sizes), np.log(times[s, a]))))
        return t, C.bus_bandwidth("allreduce", nbytes / t, 8)

    def make_figure():
        fig, ax = plots.new_figure("AllReduce on 8-device scale-up domains (netsim)", "message size n",
                                   "busbw (GB/s, per direction)", figsize=(8.4, 4.6))
        for i, s in enumerate(names):
            for j, a in enumerate(algs):
                ax.plot(sizes, busbw[s, a] / GB, color=plots.PALETTE[i], ls=plots.LINESTYLES[j], lw=1.0, alpha=0.45)
        bold = [ax.plot(sizes, busbw[names[0], a] / GB, color="black", ls=plots.LINESTYLES[j], lw=2.8,
                        label=f"{a}: {ALGORITHMS[a]}")[0] for j, a in enumerate(algs)]
        (ceiling,) = ax.plot(sizes[[0, -1]], [1.0, 1.0], color=plots.PALETTE[3], ls=(0, (1, 1)), lw=2.0,
                             label="per-device bandwidth (all links)")
        (mark,) = ax.plot([sizes[0]], [1.0], "o", ms=11, mfc="none", mec=plots.PALETTE[3], mew=2.4)
        for i, s in enumerate(names):
            ax.plot([], [], color=plots.PALETTE[i], lw=3, label=s)
        plots.bytes_axis(ax)
        ax.set_yscale("log")
        ax.set_ylim(1, 2000)
        ax.set_xlim(sizes[0], sizes[-1])
        ax.legend(loc="upper left", fontsize=8.5, ncols=2)
        note = ax.text(0.985, 0.04, "", transform=ax.transAxes, ha="right", va="bottom", fontsize=9,
                       bbox=dict(boxstyle="round", fc="white", ec="0.7"))

        note.set_gid(READOUT_GID)  # the frame's key numbers, also as text
        def update(system, nbytes):
            sy = systems[system]
            lines = [f"{system}: AllReduce of {fmt_bytes(nbytes)}"]
            for j, a in enumerate(algs):
                bold[j].set_ydata(busbw[system, a] / GB)
                t, b = at(system, a, nbytes)
                lines.append(f"{a}: {fmt_time(t)}, busbw {fmt_bandwidth(b)}")
            ceiling.set_ydata([sy.per_device / GB] * 2)
            t, b = at(system, "direct", nbytes)
            mark.set_data([nbytes], [b / GB])
            note.set_text("\n".join(lines))
            return [*bold, ceiling, mark, note]

        return fig, update

    def alt(system, nbytes):
        t = {a: at(system, a, nbytes)[1] for a in algs}
        return (f"Log-log plot of AllReduce bus bandwidth against message size from {fmt_bytes(sizes[0])} to "
                f"{fmt_bytes(sizes[-1])} on {len(names)} eight-device systems, three algorithms each; {system} is "
                f"bold. At {fmt_bytes(nbytes)} its busbw is {fmt_bandwidth(t['ring'])} with one ring, "
                f"{fmt_bandwidth(t['rings'])} with all rings and {fmt_bandwidth(t['direct'])} direct, against "
                f"{fmt_bandwidth(systems[system].per_device)} per device.")

    return Explorer("AllReduce on other fabrics",
                    [Param("system", "system", tuple(names), names[0]),
                     Param("nbytes", "message size", tuple(slider_sizes), default_size, fmt=fmt_bytes)],
                    make_figure, static=["system", "nbytes"], alt=alt)
