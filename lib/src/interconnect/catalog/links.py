"""The link catalog: real GPU and cluster interconnect links with their sources.

Each entry is a :class:`Link`: one PCIe slot width of one generation, one NVLink
link or one GPU's full NVLink complement, a consumer multi-GPU bridge (SLI,
CrossFire, GeForce NVLink), an InfiniBand 4x port, or an Ethernet port. Every entry
carries its per-direction bandwidth, a typical one-way latency, a year, and the
primary source the numbers were taken from, plus ``notes`` where sources disagree.

Conventions
-----------
* **Units.** SI base units, as everywhere in :mod:`interconnect`: bytes/s, seconds.
  ``GB = 1e9`` bytes (decimal), see :mod:`interconnect.units`.
* **Per direction.** ``Link.bandwidth`` is the bandwidth in *one* direction (what one
  end can push to the other while the other pushes the same amount back). Vendors
  usually quote the sum of both directions ("bidirectional", "total", "duplex");
  every such figure was halved before it went in here. ``bidirectional_bandwidth``
  is always derived as ``2 * bandwidth``, never stored.
* **Usable vs raw.** ``bandwidth`` is the data bandwidth after line coding
  (8b/10b, 128b/130b, 64b/66b, 256b/257b + RS-FEC, PCIe 6 FLIT CRC/FEC), i.e.
  ``lanes * lane_rate * encoding_efficiency / 8``. It is still a *peak*: packet
  headers (PCIe TLP/DLLP, InfiniBand LRH/BTH, Ethernet preamble/IFG/headers) are not
  subtracted, so measured throughput is typically 80-90 % of it.
  ``raw_bandwidth`` is ``lanes * lane_rate / 8`` before line coding (multiplied by
  ``links_per_gpu`` for per-GPU NVLink entries, where ``lanes`` counts the lanes of
  one link in one direction).
* **Lane rate.** ``lane_rate`` is in bits per second per lane per direction: PCI-SIG's
  GT/s (one bit per transfer per lane, also for PAM4 PCIe 6.0 where 64 GT/s is
  32 GBd x 2 bit), and for InfiniBand/Ethernet the serial line rate = baud x bits per
  symbol (e.g. NDR: 53.125 GBd PAM4 x 2 = 106.25 Gb/s). For NVLink it is the per-lane
  rate NVIDIA quotes (20/25/50/100/200 Gb/s); NVIDIA's per-link figures equal
  ``lanes * lane_rate / 8`` with no coding deduction (see each entry's notes).
* **Latency.** One basis for every entry (:data:`LATENCY_BASIS`): the end-to-end latency
  of one small message over one hop, one way, software plus wire, as a collective library
  sees it. NCCL's tuning model charges exactly this per ring step (``hwLat[link][Ring][LL]``
  in ``src/graph/tuning.cc``): 0.6 us NVLink, 1.0 us PCIe, 2.7 us network (InfiniBand and
  RoCE alike), so every NVLink, PCIe, InfiniBand and Ethernet entry carries NCCL's value
  (``latency_basis="model"``). Links no collective library runs over (SLI, CrossFire
  bridges, PCI, AGP) have no figure on this basis (``"unpublished"``; the value is a
  stand-in). ``latency_label`` is the short phrase a table shows, ``notes`` the source.
  Per-port switch or adapter figures are a different basis and are only quoted in notes.
* **Year.** Spec release year for standards (PCIe, IEEE 802.3, IBTA rates), first
  product year for vendor links (NVLink, SLI, CrossFire); each entry's notes say which.

The rows (numbers and sources) are in :mod:`interconnect.catalog.link_specs`, the table
views in :mod:`interconnect.catalog.link_tables` and the timeline figure in
:mod:`interconnect.viz.history`; :mod:`interconnect.links` re-exports all of it.

References
----------
PCI-SIG, *PCI Express Base Specification*, Rev. 1.0a-6.x, https://pcisig.com/specifications.
Linux kernel, ``drivers/pci/pci.h``, macro ``PCIE_SPEED2MBS_ENC`` (encoding per rate).
NVIDIA Tesla P100, V100, A100, H100 and Blackwell architecture whitepapers;
NVIDIA NVLink page, https://www.nvidia.com/en-us/data-center/nvlink/.
NVIDIA Ampere GA102 GPU Architecture whitepaper (GeForce RTX 3090 NVLink).
InfiniBand Trade Association, *InfiniBand Architecture Specification* Vol. 2 and
roadmap, https://www.infinibandta.org/.
IEEE Std 802.3ba-2010, 802.3bs-2017, 802.3ck-2022, 802.3df-2024.
NVIDIA/nccl, ``src/graph/tuning.cc`` (``hwLat``), commit 5067397.
S. Bekman, *Machine Learning Engineering*, ``network/README.md`` (stas00/ml-engineering).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from .._validate import as_count, as_positive, choice, lookup
from ..units import GT, Gbps
from .link_specs import (
    ETH_SPECS,
    IB_ADAPTER_LATENCY_NOTE,
    IB_RATE_SOURCE,
    IB_SPECS,
    LAT_MODEL,
    LAT_NET,
    LAT_NET_NOTE,
    LAT_NVLINK,
    LAT_NVLINK_NOTE,
    LAT_PCIE,
    LAT_PCIE_NOTE,
    LAT_UNPUBLISHED,
    LAT_UNPUBLISHED_NOTE,
    LATENCY_BASIS,
    NCCL_TUNING,
    NVLINK_COMMON,
    NVLINK_SPECS,
    PCI_SPECS,
    PCIE6_FLIT,
    PCIE_COMMON_NOTE,
    PCIE_SPECS,
    PCIE_WIDTHS,
    bridge_rows,
    consumer_nvlink_rows,
)

__all__ = ["Link", "get_link", "catalog", "families", "FAMILIES", "LATENCY_BASES", "LATENCY_BASIS", "PCIE6_FLIT",
           "Growth", "growth", "newest"]

#: Families in catalog order.
FAMILIES = ("PCI", "PCIe", "NVLink", "SLI", "CrossFire", "InfiniBand", "Ethernet")

#: Where a latency figure comes from. Every ``Link.latency`` of the catalog is on the one basis
#: :data:`LATENCY_BASIS` and is either ``"model"`` (NCCL's tuning model, which charges exactly
#: that latency) or ``"unpublished"`` (no figure on that basis exists; the value is a stand-in);
#: ``"measured"`` (a published end-to-end measurement) and ``"spec"`` (a vendor's component
#: figure, e.g. a switch's port-to-port target) are used by the records of
#: :mod:`interconnect.catalog.fabrics`.
LATENCY_BASES = ("measured", "spec", "model", "unpublished")

@dataclass(frozen=True)
class Link:
    """One interconnect link and where its numbers come from.

    Attributes
    ----------
    name : str
        Catalog key, lower case (``"pcie4x16"``, ``"nvlink4"``, ``"ib-ndr"``).
    family : str
        One of :data:`FAMILIES`.
    label : str
        Human-readable name.
    year : int
        Spec release year (standards) or first-product year (vendor links).
    bandwidth : float
        Usable data bandwidth after line coding, bytes/s, **per direction**.
    latency : float
        One-way end-to-end small-message latency over one hop, s, on the catalog's one
        basis :data:`LATENCY_BASIS`; where it comes from in ``latency_basis`` and ``notes``.
    source : str
        Primary source (spec section, whitepaper, datasheet), with URL where known.
    lanes : int or None
        Lanes per direction (per link, for NVLink entries).
    lane_rate : float or None
        Bits per second per lane per direction, before line coding.
    encoding : str or None
        Line code, e.g. ``"128b/130b"``.
    encoding_efficiency : float or None
        Fraction of ``lane_rate`` that carries data after line coding.
    links_per_gpu : int or None
        NVLink links per GPU (per-GPU NVLink entries only).
    per_link_bandwidth : float or None
        Bytes/s per direction of one link (per-GPU NVLink entries only).
    gpu : str or None
        GPU the per-GPU NVLink figure applies to.
    notes : str
        Caveats: conflicts between sources, measured vs peak, basis of latency.
    latency_basis : str or None
        What ``latency`` is, one of :data:`LATENCY_BASES`; set on every catalog entry
        (``None`` only for ad-hoc links built by hand).
    latency_label : str
        The basis in a short phrase for tables (``"NCCL model value (hwLat)"``).
    duplex : bool
        True for full-duplex links (every serial link here); False for the shared,
        half-duplex parallel buses PCI and AGP, whose ``bandwidth`` is the total of
        both directions.
    """

    name: str
    family: str
    label: str
    year: int
    bandwidth: float
    latency: float
    source: str
    lanes: int | None = None
    lane_rate: float | None = None
    encoding: str | None = None
    encoding_efficiency: float | None = None
    links_per_gpu: int | None = None
    per_link_bandwidth: float | None = None
    gpu: str | None = None
    notes: str = ""
    duplex: bool = True
    latency_basis: str | None = None
    latency_label: str = ""

    def __post_init__(self):
        choice("family", self.family, FAMILIES)
        as_count("year", self.year, 1)
        as_positive("bandwidth", self.bandwidth, "bytes/s")
        as_positive("latency", self.latency, "s")
        if self.lanes is not None:
            as_count("lanes", self.lanes, 1)
        if self.lane_rate is not None:
            as_positive("lane_rate", self.lane_rate, "bit/s")
        if self.links_per_gpu is not None:
            as_count("links_per_gpu", self.links_per_gpu, 1)
        if self.latency_basis is not None:
            choice("latency_basis", self.latency_basis, LATENCY_BASES)

    @property
    def bidirectional_bandwidth(self) -> float:
        """Both directions added, bytes/s: ``2 * bandwidth`` for a full-duplex link.

        A half-duplex bus (PCI, AGP: ``duplex=False``) carries one direction at a time,
        so its ``bandwidth`` is already the total and this equals it.
        """
        return (2.0 if self.duplex else 1.0) * self.bandwidth

    @property
    def raw_bandwidth(self) -> float | None:
        """Per-direction bandwidth before line coding, bytes/s.

        For PCIe, InfiniBand and Ethernet this is the signalling rate; for NVLink
        ``lane_rate`` is the per-lane data rate NVIDIA quotes, so this is NVIDIA's data rate
        (NVLink 4 and 5 signal 17/16 faster, see their notes).

        ``lanes * lane_rate / 8`` (one bit per transfer per lane, see the module
        docstring), times ``links_per_gpu`` for per-GPU NVLink entries; ``None``
        where lanes or lane rate are not documented (SLI, CrossFire).
        """
        if self.lanes is None or self.lane_rate is None:
            return None
        return self.lanes * self.lane_rate / 8.0 * (self.links_per_gpu or 1)



# ----------------------------------------------------------------------------------
# Building the catalog from the rows
# ----------------------------------------------------------------------------------
def _pcie_links():
    out = []
    for gen, (gts, enc, eff, year, source, gen_note) in PCIE_SPECS.items():
        for lanes in PCIE_WIDTHS:
            rate = gts * GT
            bw = lanes * rate * float(eff) / 8.0
            out.append(Link(
                name=f"pcie{gen}x{lanes}", family="PCIe",
                label=f"PCIe {gen}.0 x{lanes}", year=year, bandwidth=bw,
                latency=LAT_PCIE, source=source, lanes=lanes, lane_rate=rate,
                encoding=enc, encoding_efficiency=float(eff), **LAT_MODEL,
                notes=" ".join([PCIE_COMMON_NOTE, gen_note,
                                "Year is the spec release year.", LAT_PCIE_NOTE])))
    return out


def _nvlink_links():
    out = []
    for gen, (lanes, gbps, nlinks, gpu, year, source, note) in NVLINK_SPECS.items():
        rate = gbps * 1e9
        per_link = lanes * rate / 8.0
        common = " ".join([NVLINK_COMMON, note,
                           f"Year: first product ({gpu}).", LAT_NVLINK_NOTE])
        out.append(Link(
            name=f"nvlink{gen}-link", family="NVLink",
            label=f"NVLink {gen} (one link)", year=year, bandwidth=per_link,
            latency=LAT_NVLINK, source=source, lanes=lanes, lane_rate=rate, **LAT_MODEL,
            notes="One link, per direction. " + common))
        out.append(Link(
            name=f"nvlink{gen}", family="NVLink",
            label=f"NVLink {gen} ({gpu}, {nlinks} links)", year=year,
            bandwidth=nlinks * per_link, latency=LAT_NVLINK, source=source,
            lanes=lanes, lane_rate=rate, links_per_gpu=nlinks,
            per_link_bandwidth=per_link, gpu=gpu, **LAT_MODEL,
            notes=(f"All {nlinks} links of one {gpu}, per direction; reaching it "
                   "needs every link busy (NVSwitch or a full mesh); a single peer in "
                   "a hybrid cube mesh (DGX-1) gets 1-2 links. lanes counts one link. "
                   + common)))
    return out


def _ib_links():
    out = []
    for key, (gbps, enc, eff, year, note) in IB_SPECS.items():
        lanes = 4
        rate = gbps * 1e9
        bw = lanes * rate * float(eff) / 8.0
        out.append(Link(
            name=f"ib-{key}", family="InfiniBand",
            label=f"InfiniBand {key.upper()} 4x ({bw * 8 / 1e9:.4g} Gb/s)", year=year,
            bandwidth=bw, latency=LAT_NET,
            source=IB_RATE_SOURCE + "; latency: " + NCCL_TUNING,
            lanes=lanes, lane_rate=rate, encoding=enc, encoding_efficiency=float(eff),
            **LAT_MODEL,
            notes=" ".join(part for part in [
                "4x port, per direction; lane_rate is the serial line rate "
                "(baud x bits/symbol). bandwidth = 4 x lane_rate x efficiency / 8, "
                "before packet headers (LRH/BTH/ICRC/VCRC).", note, LAT_NET_NOTE,
                IB_ADAPTER_LATENCY_NOTE] if part)))
    return out


def _eth_links():
    out = []
    for key, (mac, phy, lanes, gbps, enc, eff, year, std, note) in ETH_SPECS.items():
        out.append(Link(
            name=f"eth-{key}", family="Ethernet",
            label=f"{mac} Gigabit Ethernet ({phy})", year=year,
            bandwidth=mac * Gbps, latency=LAT_NET,
            source=f"{std}, {phy}; https://standards.ieee.org/ieee/802.3/",
            lanes=lanes, lane_rate=gbps * 1e9, encoding=enc,
            encoding_efficiency=float(eff), **LAT_MODEL,
            notes=" ".join([
                "bandwidth = nominal MAC data rate / 8, per direction; it equals "
                f"lanes x lane_rate x efficiency / 8 for {phy}. Preamble, inter-frame "
                "gap and Ethernet/IP/UDP/RoCE headers come out of it (about 2-6 % at "
                "4 KiB MTU).", note, "Year: IEEE standard approval.",
                LAT_NET_NOTE])))
    return out


def _pci_links():
    out = []
    for name, (label, width, clock, per_clock, year, source, note) in PCI_SPECS.items():
        rate = clock * per_clock  # transfers/s on every data line
        out.append(Link(
            name=name, family="PCI", label=label, year=year, bandwidth=width * rate,
            latency=LAT_PCIE, source=source, lanes=8 * width, lane_rate=rate,
            encoding="none (parallel bus)", encoding_efficiency=1.0, duplex=False, **LAT_UNPUBLISHED,
            notes=" ".join([
                f"A parallel, half-duplex bus: {8 * width} data lines each carry one bit per "
                "transfer, in one direction at a time, so bandwidth = width x clock x "
                "transfers per clock is the total for both directions (bidirectional_bandwidth "
                "equals it). Arbitration and address phases reduce what a card gets.", note,
                "Year: specification revision that introduced the mode (sources also give "
                "1997 for AGP 1.0, its public release).",
                LAT_UNPUBLISHED_NOTE])))
    return out


# ----------------------------------------------------------------------------------
# Catalog
# ----------------------------------------------------------------------------------
def _build():
    pcie = _pcie_links()
    pcie3x16 = next(l.bandwidth for l in pcie if l.name == "pcie3x16")
    links = (_pci_links() + pcie + _nvlink_links() + [Link(**row) for row in consumer_nvlink_rows()]
             + [Link(**row) for row in bridge_rows(pcie3x16)] + _ib_links() + _eth_links())
    order = {f: i for i, f in enumerate(FAMILIES)}
    links.sort(key=lambda l: (order[l.family], l.year, l.bandwidth, l.name))
    table = {}
    for link in links:
        if link.name in table:
            raise RuntimeError(f"duplicate link name {link.name!r}")
        table[link.name] = link
    return tuple(links), table


_CATALOG, _BY_NAME = _build()


def families() -> tuple[str, ...]:
    """Link families in catalog order.

    Returns
    -------
    tuple of str
        ``("PCI", "PCIe", "NVLink", "SLI", "CrossFire", "InfiniBand", "Ethernet")``;
        "PCI" holds the parallel buses before PCIe (PCI and AGP).
    """
    return FAMILIES


def catalog(family: str | None = None) -> tuple[Link, ...]:
    """All links, or those of one family, ordered by family, then year, then bandwidth.

    Parameters
    ----------
    family : str, optional
        One of :func:`families` (case-insensitive). ``None`` returns every link.

    Returns
    -------
    tuple of Link
        Ordered by family (in :data:`FAMILIES` order), year, per-direction
        bandwidth (bytes/s), then name.

    Raises
    ------
    ValueError
        If ``family`` is not one of :func:`families`.

    Examples
    --------
    >>> [l.name for l in catalog("Ethernet")]
    ['eth-100g', 'eth-200g', 'eth-400g', 'eth-800g']
    """
    if family is None:
        return _CATALOG
    fam = choice("family", family, FAMILIES)
    return tuple(l for l in _CATALOG if l.family == fam)


def get_link(name: str) -> Link:
    """One catalog entry by name (case-insensitive).

    Parameters
    ----------
    name : str
        Catalog key, e.g. ``"pcie4x16"``, ``"nvlink4"`` (per GPU),
        ``"nvlink4-link"`` (one link), ``"ib-ndr"``, ``"eth-400g"``.

    Returns
    -------
    Link
        With ``bandwidth`` in bytes/s per direction and ``latency`` in seconds.

    Raises
    ------
    ValueError
        If ``name`` is not a string or not a known link; the message lists close
        matches and how to list all names.

    Examples
    --------
    >>> get_link("PCIe4x16").bandwidth / 1e9   # 16 lanes x 16 GT/s x 128/130 / 8
    31.50769230769231
    >>> get_link("nvlink4").bidirectional_bandwidth / 1e9
    900.0
    """
    return lookup(name, _BY_NAME, "link", "pcie4x16",
                  "list all names with [l.name for l in interconnect.links.catalog()]")



# ----------------------------------------------------------------------------------
# Questions across the catalog: growth between two entries, the newest of a year
# ----------------------------------------------------------------------------------
class Growth(NamedTuple):
    """Bandwidth growth from one catalog entry to a later one (see :func:`growth`)."""

    first: Link
    last: Link
    factor: float          #: last.bandwidth / first.bandwidth
    years: int             #: last.year - first.year
    per_year: float        #: average growth per year, a fraction (0.41 = 41 % a year)
    doubling: float        #: years per doubling at that rate


def growth(first, last):
    """How much the per-direction bandwidth grew from ``first`` to ``last``, and how fast.

    With ``F = B_last / B_first`` over ``Y = year_last - year_first`` years, the average
    (compound) growth per year is ``F ** (1 / Y) - 1`` and the bandwidth doubled every
    ``Y ln 2 / ln F`` years.

    Parameters
    ----------
    first, last : str or Link
        Catalog entries (names for :func:`get_link`, or :class:`Link`), ``last`` at least
        one year after ``first``.

    Returns
    -------
    Growth
        ``(first, last, factor, years, per_year, doubling)``, unpackable as a tuple.

    Examples
    --------
    >>> g = growth("nvlink1", "nvlink5")          # P100 (2016) to B200 (2024), per GPU
    >>> round(g.factor, 4), g.years, round(g.doubling, 2)
    (11.25, 8, 2.29)
    """
    a = first if isinstance(first, Link) else get_link(first)
    b = last if isinstance(last, Link) else get_link(last)
    years = b.year - a.year
    if years <= 0:
        raise ValueError(f"last={b.name!r} ({b.year}) must be at least a year after first={a.name!r} ({a.year})")
    factor = b.bandwidth / a.bandwidth
    per_year = factor ** (1 / years) - 1
    doubling = years * math.log(2) / math.log(factor)
    return Growth(a, b, factor, years, per_year, doubling)


def newest(family, year, lanes=None):
    """The entry of ``family`` with the latest year not after ``year`` (the first such in
    catalog order on a tie): e.g. the newest PCIe x16 specification out by a given year.

    Parameters
    ----------
    family : str
        One of :func:`families`.
    year : int
    lanes : int, optional
        Only entries with this many lanes (e.g. 16 for x16 slots).

    Returns
    -------
    Link

    Examples
    --------
    >>> newest("PCIe", 2016, lanes=16).name, newest("PCIe", 2024, lanes=16).name
    ('pcie3x16', 'pcie6x16')
    """
    found = [l for l in catalog(family) if l.year <= year and (lanes is None or l.lanes == lanes)]
    if not found:
        raise ValueError(f"no {family} entry{f' with {lanes} lanes' if lanes else ''} is dated {year} or earlier")
    return max(found, key=lambda l: l.year)


