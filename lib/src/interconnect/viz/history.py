"""History figures: the link catalog on a timeline.

Presentation layer: this module imports matplotlib; the catalog it draws
(:mod:`interconnect.catalog.links`) does not. ``interconnect.links.plot_timeline`` is a lazy
alias of :func:`plot_timeline`.
"""

from __future__ import annotations

import re

from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

from .. import plots
from .._validate import choice
from ..catalog.links import FAMILIES, catalog
from ..units import GB

__all__ = ["plot_timeline"]

#: Marker per family for :func:`plot_timeline` (colour is ``PALETTE`` in family order).
_FAMILY_MARKERS = dict(zip(FAMILIES, ("X", "o", "s", "^", "v", "D", "P")))

#: Entries labelled on the timeline, with the label's offset in points.
_TIMELINE_LABELS = {
    "pci-32-33": ("PCI", (-8, 7)),
    "agp-8x": ("AGP 8x", (-18, 7)),
    "pcie1x16": ("PCIe 1.0", (-20, 7)),
    "pcie2x16": ("PCIe 2.0", (-20, 7)),
    "pcie3x16": ("PCIe 3.0", (-20, 7)),
    "pcie4x16": ("PCIe 4.0", (-44, -3)),
    "pcie5x16": ("PCIe 5.0", (-20, 8)),
    "pcie6x16": ("PCIe 6.0", (-44, -3)),
    "nvlink1": ("NVLink 1 (P100)", (-80, -3)),
    "nvlink2": ("NVLink 2 (V100)", (-80, -3)),
    "nvlink3": ("NVLink 3 (A100)", (-80, -3)),
    "nvlink4": ("NVLink 4 (H100)", (-80, -1)),
    "nvlink5": ("NVLink 5 (B200)", (-80, -3)),
    "sli": ("SLI", (-8, 7)),
    "sli-hb": ("SLI HB", (6, -3)),
    "crossfire": ("CrossFire bridge", (5, -11)),
    "crossfire-xdma": ("XDMA CrossFire", (-60, 30)),
    "ib-sdr": ("IB SDR", (4, -11)),
    "ib-ddr": ("IB DDR", (4, -11)),
    "ib-qdr": ("IB QDR", (4, -11)),
    "ib-fdr": ("IB FDR", (4, -11)),
    "ib-edr": ("IB EDR", (5, -9)),
    "ib-hdr": ("IB HDR", (5, -9)),
    "ib-ndr": ("IB NDR", (5, -9)),
    "ib-xdr": ("IB XDR", (7, -11)),
    "eth-100g": ("100 GbE", (5, -10)),
    "eth-800g": ("800 GbE", (7, 3)),
}

#: Families whose filled markers are successive generations, joined by a line.
_TIMELINE_LINES = ("PCIe", "NVLink", "InfiniBand", "Ethernet")

#: Legend text per family.
_TIMELINE_LEGEND = {
    "PCI": "PCI and AGP (shared, half-duplex buses)",
    "PCIe": "PCIe (filled: x16 slot)",
    "NVLink": "NVLink (filled: all links of one GPU)",
    "SLI": "SLI bridge",
    "CrossFire": "CrossFire (bridge, then XDMA over PCIe)",
    "InfiniBand": "InfiniBand 4x port",
    "Ethernet": "Ethernet port",
}


def _is_headline(link):
    """True for the entry that stands for its technology (x16 slot, per-GPU NVLink)."""
    if link.family == "PCIe":
        return link.lanes == 16
    if link.family == "NVLink":
        return re.fullmatch(r"nvlink\d+", link.name) is not None
    return True


def plot_timeline(ax=None, families=None):
    """Timeline of the catalog: year against per-direction bandwidth, log scale.

    One marker per catalog entry, coloured and shaped by family
    (:data:`interconnect.plots.PALETTE` in :data:`FAMILIES` order). Filled markers
    are the entries that stand for a technology (PCIe x16, a GPU's full NVLink
    complement, every bridge and network port); hollow, smaller markers are the
    narrower PCIe widths (x1, x4, x8), a single NVLink link and the GeForce NVLink
    bridges. Thin lines join the filled markers of each family; key entries are
    labelled. Deterministic: no randomness, fixed label offsets.

    Parameters
    ----------
    ax : matplotlib Axes, optional
        Axes to draw on; by default a new styled figure (``plots.new_figure``).
    families : sequence of str, optional
        Families to draw (default all of :data:`FAMILIES`).

    Returns
    -------
    matplotlib Axes
        One ``PathCollection`` (scatter) per family and marker style; the
        y data are in GB/s (1e9 bytes/s) per direction.
    """
    fams = FAMILIES if families is None else tuple(choice("family", f, FAMILIES)
                                                   for f in families)
    links = [l for l in catalog() if l.family in fams]
    years = [l.year for l in links]
    title = f"GPU interconnects, {min(years)}-{max(years)}: per-direction bandwidth"
    xlabel = "year (standard released or first product)"
    ylabel = "per-direction bandwidth (GB/s, log scale)"
    if ax is None:
        _, ax = plots.new_figure(title, xlabel, ylabel, figsize=(8.0, 6.4))
    else:
        plots.use_style()
        ax.set_title(title)
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)

    # PCIe keeps the first colour of the palette; the older buses get black
    colors = dict(zip(FAMILIES[1:], plots.PALETTE)) | {"PCI": plots.PALETTE[7]}
    for fam in fams:
        members = [l for l in links if l.family == fam]
        head = [l for l in members if _is_headline(l)]
        rest = [l for l in members if not _is_headline(l)]
        color, marker = colors[fam], _FAMILY_MARKERS[fam]
        if fam in _TIMELINE_LINES and len(head) > 1:
            ax.plot([l.year for l in head], [l.bandwidth / GB for l in head], "-",
                    color=color, lw=1.0, alpha=0.5, zorder=2)
        ax.scatter([l.year for l in head], [l.bandwidth / GB for l in head], s=46,
                   marker=marker, color=color, edgecolors="white", linewidths=0.6,
                   zorder=4, label=_TIMELINE_LEGEND[fam])
        if rest:
            ax.scatter([l.year for l in rest], [l.bandwidth / GB for l in rest], s=22,
                       marker=marker, facecolors="none", edgecolors=color,
                       linewidths=1.0, zorder=3)
    for l in links:
        if l.name in _TIMELINE_LABELS:
            text, (dx, dy) = _TIMELINE_LABELS[l.name]
            far = abs(dx) > 50 and abs(dy) > 20      # far from its point: draw a leader
            ax.annotate(text, (l.year, l.bandwidth / GB), xytext=(dx, dy),
                        textcoords="offset points", fontsize=8.5, color="#222222",
                        zorder=5, arrowprops=(dict(arrowstyle="-", color="#777777",
                                                   lw=0.6, shrinkB=4) if far else None))

    ax.set_yscale("log")
    ax.yaxis.set_major_locator(FixedLocator([10.0**k for k in range(-2, 5)]))
    ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    ax.yaxis.set_minor_formatter(NullFormatter())
    lo = min(l.bandwidth for l in links) / GB
    hi = max(l.bandwidth for l in links) / GB
    ax.set_ylim(lo / 2.0, hi * 2.0)
    ax.set_xlim(min(years) - 1.5, max(years) + 3.5)
    ax.xaxis.set_major_locator(FixedLocator(list(range(2000, max(years) + 4, 4))))
    handles, labels = ax.get_legend_handles_labels()
    handles.append(Line2D([], [], ls="none", marker="o", ms=5, mfc="none", mec="#555555"))
    labels.append("hollow: PCIe x1/x4/x8, one NVLink link, GeForce bridges")
    ax.legend(handles, labels, loc="upper center", bbox_to_anchor=(0.5, -0.11), ncol=2,
              fontsize=9, columnspacing=1.5, handletextpad=0.4)
    return ax

