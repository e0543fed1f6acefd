"""Tables of the appendix "Specification tables" (``book/appendix/spec_tables.ipynb``).

Presentation only: every value comes from :func:`interconnect.links.table`; these
functions format one link family as Markdown (:func:`interconnect.book.table`).
"""

from __future__ import annotations

from ... import links
from ...book import table
from ...units import GB, us

__all__ = ["family_table", "family_sources", "family_notes"]

DASH = "—"


def _num(v, fmt):
    return DASH if v is None else format(v, fmt)


def _keep_together(label, max_chars=24):
    """Short labels on one line (no-break spaces); long ones may wrap."""
    return label.replace(" ", "\u00a0") if len(label) <= max_chars else label


def family_table(family):
    """The specification table of one link family, from :func:`interconnect.links.table`.

    One row per catalog entry: label, year, lanes, lane rate (GT/s for PCIe, Gb/s
    otherwise), encoding with its efficiency, and the bandwidth per direction and
    bidirectional in GB/s. Missing values show as a dash.

    Parameters
    ----------
    family : str
        One of :func:`interconnect.links.families`.

    Returns
    -------
    IPython.display.Markdown
    """
    rows = links.table(family)
    unit = rows[0]["lane_rate_unit"]
    lanes_head = "lanes (per link)" if family == "NVLink" else "lanes"
    headers = ["link", "year", lanes_head, f"lane rate ({unit})", "encoding (efficiency)",
               "per direction (GB/s)", "bidirectional (GB/s)"]
    cells = []
    for r in rows:
        rate = None if r["lane_rate"] is None else r["lane_rate"] / 1e9
        coding = DASH
        if r["encoding"] is not None:
            coding = f"{r['encoding']} ({r['efficiency'] * 100:.2f}\u00a0%)"
        cells.append([
            _keep_together(r["label"]), r["year"], _num(r["lanes"], "d"),
            _num(None if rate is None else round(rate, 5), ".7g"),
            coding, f"{r['bandwidth'] / GB:.4g}", f"{r['bidirectional_bandwidth'] / GB:.4g}",
        ])
    return table(cells, headers, align=["l", "r", "r", "r", "l", "r", "r"])


def family_sources(family):
    """Latency, its basis and the primary source of each entry of one family; entries that
    share all three share a row.

    Parameters
    ----------
    family : str
        One of :func:`interconnect.links.families`.

    Returns
    -------
    IPython.display.Markdown
    """
    headers = ["catalog name", "latency (µs)", "latency basis", "source"]
    groups = {}
    for r in links.table(family):
        src = r["source_short"]
        if r["source_url"]:
            src = f"[{src}]({r['source_url']})"
        key = (f"{r['latency'] / us:.1f}", r["latency_basis"], src)
        groups.setdefault(key, []).append(f"`{r['name']}`")
    cells = [[", ".join(names), *key] for key, names in groups.items()]
    return table(cells, headers, align=["l", "r", "l", "l"])


def family_notes(family):
    """A collapsible MyST admonition with the full source and notes of each entry of one
    family (entries with identical source and notes are grouped).

    Parameters
    ----------
    family : str
        One of :func:`interconnect.links.families`.

    Returns
    -------
    IPython.display.Markdown
    """
    from IPython.display import Markdown

    groups = {}
    for r in links.table(family):
        groups.setdefault((r["source"], r["notes"]), []).append(r)
    items = []
    for (source, notes), rs in groups.items():
        names = ", ".join(f"{r['label']} (`{r['name']}`)" for r in rs)
        items.append(f"**{names}.** Source: {source}.\n  Notes: {notes}")
    body = "\n\n".join(f"- {item}" for item in items)
    return Markdown(f":::{{admonition}} Notes: {family}\n:class: dropdown\n\n{body}\n:::\n")
