"""Views of the link catalog: rows for the specification tables.

Each row is a plain dict built from one :class:`~interconnect.catalog.links.Link`, in SI
units, for the book's specification tables (:mod:`interconnect.viz.explorers.spec_tables`).
"""

from __future__ import annotations

import re

from .links import catalog

__all__ = ["table"]

_URL_IN_PARENS = re.compile(r"\s*\((https?://[^\s)]+)\)")
_URL = re.compile(r"https?://[^\s)]+[^\s),;.]")


def _first_clause(text):
    """``text`` up to the first ``": "`` or ``"; "`` outside a quoted title."""
    quoted = False
    for i, ch in enumerate(text):
        if ch == "'":
            before = text[i - 1] if i else " "
            after = text[i + 1] if i + 1 < len(text) else " "
            if not quoted and (before in " (" ) and after.isalnum():
                quoted = True
            elif quoted and not after.isalnum():
                quoted = False
        elif not quoted and ch in ":;" and text[i + 1:i + 2] == " ":
            return text[:i]
    return text


def _short_source(source, max_chars=110):
    """The primary reference of a ``Link.source``: its first clause, URLs removed."""
    text = _URL_IN_PARENS.sub("", source)
    text = _first_clause(text)
    text = _URL.sub("", text).strip().rstrip(",;").strip()
    if len(text) > max_chars:
        cut = text[:max_chars].rsplit(" ", 1)[0].rstrip(",;:")
        text = cut + " …"
    return text



def table(family=None):
    """Rows for a specification table: one dict per catalog entry, in catalog order.

    Parameters
    ----------
    family : str, optional
        One of :func:`families` (case-insensitive); ``None`` gives every entry.

    Returns
    -------
    list of dict
        Keys, with SI units (format them for display):

        * ``name``, ``label``, ``family``, ``year``
        * ``lanes`` (int or None): lanes per direction (per link for NVLink)
        * ``links_per_gpu`` (int or None)
        * ``lane_rate`` (bit/s per lane per direction, or None) and
          ``lane_rate_unit``: ``"GT/s"`` for PCIe, ``"Gb/s"`` otherwise
        * ``encoding`` (str or None), ``efficiency`` (fraction or None)
        * ``bandwidth``: bytes/s **per direction**;
          ``bidirectional_bandwidth``: bytes/s, both directions added (``2 *
          bandwidth``); ``raw_bandwidth``: per direction before line coding, or None
        * ``latency`` (s) and ``latency_basis``: the entry's ``latency_label``, a short
          phrase saying where the value on the catalog's one basis
          (:data:`~interconnect.catalog.link_specs.LATENCY_BASIS`) comes from (NCCL's model,
          or not published); the category is ``Link.latency_basis``
        * ``source`` (full), ``source_short`` (its first clause, URLs removed) and
          ``source_url`` (first URL in ``source``, or None)
        * ``notes`` (full caveats)

    Examples
    --------
    >>> row = table("PCIe")[-1]
    >>> row["name"], row["bandwidth"] / 1e9, row["bidirectional_bandwidth"] / 1e9
    ('pcie6x16', 121.0, 242.0)
    """
    rows = []
    for link in catalog(family):
        url = _URL.search(link.source)
        rows.append({
            "name": link.name,
            "label": link.label,
            "family": link.family,
            "year": link.year,
            "lanes": link.lanes,
            "links_per_gpu": link.links_per_gpu,
            "lane_rate": link.lane_rate,
            "lane_rate_unit": "GT/s" if link.family == "PCIe" else "Gb/s",
            "encoding": link.encoding,
            "efficiency": link.encoding_efficiency,
            "bandwidth": link.bandwidth,
            "bidirectional_bandwidth": link.bidirectional_bandwidth,
            "raw_bandwidth": link.raw_bandwidth,
            "latency": link.latency,
            "latency_basis": link.latency_label,
            "source": link.source,
            "source_short": _short_source(link.source),
            "source_url": url.group(0) if url else None,
            "notes": link.notes,
        })
    return rows

