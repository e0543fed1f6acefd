"""Links: a catalog of real GPU and cluster interconnect links with their sources.

The public face of the link catalog, kept so that ``interconnect.links`` names everything
the chapters use. The code lives in:

* :mod:`interconnect.catalog.links`: the :class:`Link` record, :func:`catalog`,
  :func:`get_link`, :func:`growth`, :func:`newest` (conventions: per direction, usable vs
  raw, lane rate, latency basis, year);
* :mod:`interconnect.catalog.link_specs`: the rows, numbers and sources;
* :mod:`interconnect.catalog.link_tables`: :func:`table`, rows for specification tables;
* :mod:`interconnect.viz.history`: ``plot_timeline``, loaded only when first used, so
  ``import interconnect.links`` never imports matplotlib.

Examples
--------
>>> get_link("PCIe4x16").bandwidth / 1e9   # 16 lanes x 16 GT/s x 128/130 / 8
31.50769230769231
>>> get_link("nvlink4").latency_basis, get_link("sli").latency_basis
('model', 'unpublished')
>>> table("Ethernet")[0]["latency_basis"]
'end-to-end, NCCL model (hwLat, ring LL)'
>>> get_link("ib-ndr").latency == get_link("eth-400g").latency     # one basis: NCCL's NET value
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .catalog.link_tables import table
from .catalog.links import (
    FAMILIES,
    LATENCY_BASES,
    LATENCY_BASIS,
    PCIE6_FLIT,
    Growth,
    Link,
    catalog,
    families,
    get_link,
    growth,
    newest,
)

if TYPE_CHECKING:  # a lazy attribute, see __getattr__
    from .viz.history import plot_timeline

__all__ = ["Link", "get_link", "catalog", "families", "FAMILIES", "LATENCY_BASES", "LATENCY_BASIS",
           "PCIE6_FLIT", "table", "plot_timeline", "Growth", "growth", "newest"]


def __getattr__(name):
    # the plot lives in the presentation layer; import it (and matplotlib) on first use
    if name == "plot_timeline":
        from .viz.history import plot_timeline

        return plot_timeline
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
