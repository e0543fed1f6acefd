"""Links: a catalog of real GPU and cluster interconnect links with their sources.

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
* **Latency.** A typical one-way figure, with its basis in ``notes``: a *model value*
  (NCCL's ``hwLat`` table), a *per-port adapter/switch figure*, or an *end-to-end
  measurement*. These are not interchangeable; use them for orders of magnitude.
* **Year.** Spec release year for standards (PCIe, IEEE 802.3, IBTA rates), first
  product year for vendor links (NVLink, SLI, CrossFire); each entry's notes say which.

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

import difflib
from dataclasses import dataclass
from fractions import Fraction

from ._validate import as_count, as_positive, choice
from .units import GB, Gbps, GT, MB, us

__all__ = ["Link", "get_link", "catalog", "families", "FAMILIES", "PCIE6_FLIT"]

#: Families in catalog order.
FAMILIES = ("PCI", "PCIe", "NVLink", "SLI", "CrossFire", "InfiniBand", "Ethernet")


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
        Typical one-way latency, s; its basis is stated in ``notes``.
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

    @property
    def bidirectional_bandwidth(self) -> float:
        """Both directions added, bytes/s: ``2 * bandwidth`` for a full-duplex link.

        A half-duplex bus (PCI, AGP: ``duplex=False``) carries one direction at a time,
        so its ``bandwidth`` is already the total and this equals it.
        """
        return (2.0 if self.duplex else 1.0) * self.bandwidth

    @property
    def raw_bandwidth(self) -> float | None:
        """Per-direction signalling bandwidth before line coding, bytes/s.

        ``lanes * lane_rate / 8`` (one bit per transfer per lane, see the module
        docstring), times ``links_per_gpu`` for per-GPU NVLink entries; ``None``
        where lanes or lane rate are not documented (SLI, CrossFire).
        """
        if self.lanes is None or self.lane_rate is None:
            return None
        return self.lanes * self.lane_rate / 8.0 * (self.links_per_gpu or 1)


# ----------------------------------------------------------------------------------
# Latency figures (one-way), each with its basis
# ----------------------------------------------------------------------------------
_NCCL_TUNING = ("NVIDIA/nccl src/graph/tuning.cc hwLat table, commit 5067397 "
                "(https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc)")
#: NCCL hwLat, Ring algorithm, LL protocol (us). Model values, not wire latencies.
_LAT_NVLINK = 0.6 * us
_LAT_PCIE = 1.0 * us
_LAT_NET = 2.7 * us

_LAT_PCIE_NOTE = (
    "Latency: 1.0 us is NCCL's model value for one LL-protocol step over PCIe "
    f"(hwLat[PCI][Ring][LL] in {_NCCL_TUNING}); a model value, not a measured wire "
    "latency, and the same for every generation and width.")
_LAT_NVLINK_NOTE = (
    "Latency: 0.6 us is NCCL's model value for one LL-protocol step over NVLink "
    f"(hwLat[NVLINK][Ring][LL] in {_NCCL_TUNING}; older NCCL releases used 0.4-0.5 us); "
    "a model value, not a measured wire latency.")
_LAT_PLACEHOLDER_NOTE = (
    "Latency: NO published figure was found; 1 us is an order-of-magnitude "
    "placeholder (NCCL's PCIe model value) so the field is positive. Do not quote it.")

# ----------------------------------------------------------------------------------
# PCIe
# ----------------------------------------------------------------------------------
#: PCIe 6.0 FLIT layout in bytes (PCIe Base 6.x, Flit Mode): 236 TLP + 6 DLP + 8 CRC + 6 FEC.
PCIE6_FLIT = {"total": 256, "tlp": 236, "dlp": 6, "crc": 8, "fec": 6}
assert sum(v for k, v in PCIE6_FLIT.items() if k != "total") == PCIE6_FLIT["total"]

_PCIE_WIDTHS = (1, 4, 8, 16)
_LINUX_PCI_H = ("Linux drivers/pci/pci.h PCIE_SPEED2MBS_ENC (encoding per rate; 64 GT/s "
                "1b/1b per PCIe r6.1 sec 1.2 Table 1-1, patch by I. Jarvinen, v6.8)")

# gen: (GT/s, encoding, efficiency as exact fraction, spec year, source, gen-specific note)
_PCIE_SPECS = {
    1: (2.5, "8b/10b", Fraction(8, 10), 2003,
        "PCI-SIG, PCI Express Base Specification Rev. 1.0a (2003): 2.5 GT/s per lane, "
        "8b/10b; https://pcisig.com/specifications; " + _LINUX_PCI_H,
        "Year: 2003 = Base Spec 1.0a, the revision first products implemented; Base "
        "1.0 itself dates from 2002 (not confirmed in stored copies) and the first "
        "PCIe chipsets/cards shipped in 2004. Per lane 250 MB/s per direction, as "
        "Wikipedia's PCI Express article (2008 revision) states."),
    2: (5.0, "8b/10b", Fraction(8, 10), 2007,
        "PCI-SIG press release 2007-01-15, PCI Express Base 2.0: 5.0 GT/s, 8b/10b, "
        "500 MB/s per lane; " + _LINUX_PCI_H,
        "Year: Base 2.0 announced 15 January 2007; first chipsets (Intel X38) late 2007."),
    3: (8.0, "128b/130b", Fraction(128, 130), 2010,
        "PCI-SIG press release 2010-11-18, PCIe Base 3.0: 8 GT/s, 128b/130b "
        "(http://www.pcper.com/news/General-Tech/PCI-SIG-Releases-PCI-Express-30-SPECIFICATION); "
        + _LINUX_PCI_H,
        "PCI-SIG's own wording: 'near 1 GB/s in one direction on x1 ... aggregate "
        "approaching 32 GB/s on x16' - the 32 GB/s is both directions added."),
    4: (16.0, "128b/130b", Fraction(128, 130), 2017,
        "PCI-SIG, PCIe Base 4.0 (final spec announced 2017-06, v1.0 2017-10): "
        "16 GT/s, 128b/130b; https://pcisig.com/specifications; " + _LINUX_PCI_H,
        "PCI-SIG's '64 GB/s per x16 slot' is both directions added (32 per direction "
        "raw, 31.5 after 128b/130b)."),
    5: (32.0, "128b/130b", Fraction(128, 130), 2019,
        "PCI-SIG, PCIe Base 5.0 (2019): 32 GT/s, 128b/130b; "
        "https://pcisig.com/specifications; " + _LINUX_PCI_H,
        "Measured: nvbandwidth on 8xH200 (PCIe 5.0 x16) gives H2D 55.4 GB/s, D2H "
        "55.1 GB/s = 88 %/87 % of 63.0 (stas00/ml-engineering network/README.md)."),
    6: (64.0, "1b/1b FLIT (PAM4)",
        Fraction(PCIE6_FLIT["tlp"] + PCIE6_FLIT["dlp"], PCIE6_FLIT["total"]), 2022,
        "PCI-SIG press release 2022-01-11, PCIe 6.0: 64 GT/s PAM4, Flit Mode, FEC+CRC "
        "(https://www.phoronix.com/scan.php?page=news_item&px=PCIe-6.0-Specification); "
        "1b/1b encoding per PCIe r6.1 sec 1.2 Table 1-1 (" + _LINUX_PCI_H + "); flit "
        "layout 236 B TLP + 6 B DLP + 8 B CRC + 6 B FEC per PCIe Base 6.2 Flit Mode "
        "(transcribed at https://blog.csdn.net/weixin_43770660/article/details/141707780)",
        "DECISION: bandwidth counts 242/256 of the flit (TLP bytes + DLP bytes, i.e. "
        "everything the data link layer hands down, minus the flit CRC and FEC). This "
        "treats DLLPs as Gen1-5 numbers do (inside the counted bandwidth) and gives "
        "121 GB/s per direction at x16, matching stas00/ml-engineering "
        "(121/242 GB/s uni/duplex). TLP bytes only would be 236/256 -> 118 GB/s at "
        "x16. PCI-SIG's headline '256 GB/s' is raw 128 GB/s per direction x 2."),
}

_PCIE_COMMON_NOTE = (
    "bandwidth = lanes x lane_rate x encoding_efficiency / 8 (line coding only). "
    "TLP headers, framing, LCRC/sequence numbers and DLLPs (ACK, flow control) reduce "
    "achievable throughput further: measured DMA copies reach about 80-90 % of this "
    "figure.")


def _pcie_links():
    out = []
    for gen, (gts, enc, eff, year, source, gen_note) in _PCIE_SPECS.items():
        for lanes in _PCIE_WIDTHS:
            rate = gts * GT
            bw = lanes * rate * float(eff) / 8.0
            out.append(Link(
                name=f"pcie{gen}x{lanes}", family="PCIe",
                label=f"PCIe {gen}.0 x{lanes}", year=year, bandwidth=bw,
                latency=_LAT_PCIE, source=source, lanes=lanes, lane_rate=rate,
                encoding=enc, encoding_efficiency=float(eff),
                notes=" ".join([_PCIE_COMMON_NOTE, gen_note,
                                "Year is the spec release year.", _LAT_PCIE_NOTE])))
    return out


# ----------------------------------------------------------------------------------
# NVLink
# ----------------------------------------------------------------------------------
_NVLINK_PAGE = "NVIDIA NVLink page, https://www.nvidia.com/en-us/data-center/nvlink/"
# gen: (lanes per link per direction, per-lane Gb/s, links per GPU, GPU, year, source, note)
_NVLINK_SPECS = {
    1: (8, 20.0, 4, "P100", 2016,
        "NVIDIA Tesla P100 whitepaper (2016), NVLink section: 4 links per GPU, 8 lanes "
        "at 20 Gb/s per direction per link, 160 GB/s total bidirectional; "
        "https://images.nvidia.com/content/pdf/tesla/whitepaper/pascal-architecture-whitepaper.pdf",
        "NCCL's topology model uses 18 GB/s per link for SM60 (NVIDIA/nccl "
        "src/graph/topo.h)."),
    2: (8, 25.0, 6, "V100", 2017,
        "NVIDIA Tesla V100 GPU Architecture whitepaper (2017): up to 6 NVLinks, "
        "25 GB/s per direction per link, 300 GB/s total; "
        "https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf",
        "Alibaba Cloud ACK docs confirm 25 GB/s one way / 50 GB/s two way per V100 "
        "NVLink. A third-party driver project reports a 25.78125 Gb/s line rate; the "
        "25 GB/s figure is NVIDIA's. NCCL's model uses 20 GB/s per link (SM70)."),
    3: (4, 50.0, 12, "A100", 2020,
        "NVIDIA A100 Tensor Core GPU Architecture whitepaper (2020): 12 third-gen "
        "NVLinks, 4 lanes x 50 Gb/s per direction per link, 600 GB/s total; "
        + _NVLINK_PAGE,
        "Same 25 GB/s per link as NVLink 2 (twice the lane rate, half the lanes). "
        "Measured: nccl-tests all-reduce busbw 234.9 GB/s on 8xA100 = 78 % of 300 "
        "(stas00/ml-engineering). NCCL's model uses 20 GB/s per link (SM80)."),
    4: (2, 100.0, 18, "H100", 2022,
        "NVIDIA H100 Tensor Core GPU Architecture (Hopper) whitepaper (2022): 18 "
        "fourth-gen NVLinks, 2 lanes (PAM4) per direction per link, 25 GB/s per "
        "direction per link, 900 GB/s total bidirectional; " + _NVLINK_PAGE,
        "nvidia-smi reports 26.5625 GB/s per link (= 2 x 106.25 Gb/s line rate / 8; "
        "NVIDIA health-validation docs, expected_speed_mbytes_per_sec H100 26562); "
        "25/26.5625 = 16/17, the same 256b/257b x RS(544,514) ratio as 100G-PAM4 "
        "Ethernet/IB, though NVIDIA does not document NVLink's coding. Measured: "
        "p2pBandwidthLatencyTest 380 GB/s uni, 749 GB/s bidir on H100 SXM = 83-84 % "
        "(NVIDIA/nccl issue #1264). Also H200/GH200."),
    5: (2, 200.0, 18, "B200", 2024,
        "NVIDIA Blackwell architecture technical brief / NVLink page (2024): 18 "
        "fifth-gen NVLinks of 100 GB/s (bidirectional) each, 1.8 TB/s total per GPU; "
        + _NVLINK_PAGE,
        "CONFLICT: NVIDIA Mission Control docs (docs.nvidia.com/base-command-manager/"
        ".../nvlinkinfo) say '900 GB/s bidirectional bandwidth per link' for NVLink 5; "
        "inconsistent with 18 x 50 GB/s per direction - read as the per-GPU "
        "per-direction figure mislabeled. nvidia-smi/health-validation: 53.125 GB/s "
        "raw per link (25 GB/s x 17/16 x 2). NCCL's model uses 40.1 GB/s per link "
        "(SM100)."),
}

_NVLINK_COMMON = (
    "NVIDIA's per-link figure equals lanes x per-lane rate / 8 with no line-coding "
    "deduction, so encoding is left unset; it is a peak, and packet/protocol "
    "overhead makes measured P2P bandwidth about 80-90 % of it.")


def _nvlink_links():
    out = []
    for gen, (lanes, gbps, nlinks, gpu, year, source, note) in _NVLINK_SPECS.items():
        rate = gbps * 1e9
        per_link = lanes * rate / 8.0
        common = " ".join([_NVLINK_COMMON, note,
                           f"Year: first product ({gpu}).", _LAT_NVLINK_NOTE])
        out.append(Link(
            name=f"nvlink{gen}-link", family="NVLink",
            label=f"NVLink {gen} (one link)", year=year, bandwidth=per_link,
            latency=_LAT_NVLINK, source=source, lanes=lanes, lane_rate=rate,
            notes="One link, per direction. " + common))
        out.append(Link(
            name=f"nvlink{gen}", family="NVLink",
            label=f"NVLink {gen} ({gpu}, {nlinks} links)", year=year,
            bandwidth=nlinks * per_link, latency=_LAT_NVLINK, source=source,
            lanes=lanes, lane_rate=rate, links_per_gpu=nlinks,
            per_link_bandwidth=per_link, gpu=gpu,
            notes=(f"All {nlinks} links of one {gpu}, per direction; reaching it "
                   "needs every link busy (NVSwitch or a full mesh); a single peer in "
                   "a hybrid cube mesh (DGX-1) gets 1-2 links. lanes counts one link. "
                   + common)))
    return out


def _consumer_nvlink_links():
    # GeForce RTX 2080 Ti (TU102): two x8 second-generation NVLinks, 25 GB/s per
    # direction each -> 50 GB/s per direction, 100 GB/s bidirectional.
    tu_lanes, tu_rate, tu_links = 8, 25e9, 2
    tu_link = tu_lanes * tu_rate / 8.0
    # GeForce RTX 3090 (GA102): four x4 third-generation links, 14.0625 GB/s per
    # direction each. The per-lane rate is implied: 14.0625 GB/s * 8 / 4 lanes.
    ga_lanes, ga_links = 4, 4
    ga_link = 14.0625 * GB
    ga_rate = ga_link * 8.0 / ga_lanes
    return [
        Link(name="nvlink-bridge-2080ti", family="NVLink",
             label="GeForce RTX 2080 Ti NVLink bridge (2 x8 NVLink 2)", year=2018,
             bandwidth=tu_links * tu_link, latency=_LAT_NVLINK,
             source=("TechPowerUp, 'NVIDIA Turing GeForce RTX Technology & Architecture' "
                     "p.14 (https://techpowerup.com/review/nvidia-geforce-turing-geforce-"
                     "rtx-architecture/14.html): TU102 two x8 NVLink 2.0 links, 100 GB/s "
                     "bidirectional; Tom's Hardware, 'Nvidia Turing GPU architecture "
                     "explored' p.7: each x8 link 50 GB/s bidirectional"),
             lanes=tu_lanes, lane_rate=tu_rate, links_per_gpu=tu_links,
             per_link_bandwidth=tu_link, gpu="RTX 2080 Ti",
             notes=("Per direction 50 GB/s = half the 100 GB/s bidirectional figure. "
                    "TechPowerUp's text says '25 Gb/s per x8 link, per direction' - a "
                    "typo for GB/s (its own total of 100 GB/s needs 25 GB/s). RTX 2080 "
                    "(TU104) has one x8 link: 50 GB/s bidirectional. The NVIDIA Turing "
                    "whitepaper was not available in stored copies. Year: first "
                    "product. " + _LAT_NVLINK_NOTE)),
        Link(name="nvlink-bridge-3090", family="NVLink",
             label="GeForce RTX 3090 NVLink bridge (4 x4 NVLink 3)", year=2020,
             bandwidth=ga_links * ga_link, latency=_LAT_NVLINK,
             source=("NVIDIA Ampere GA102 GPU Architecture whitepaper (2020), "
                     "'Third-Generation NVLink': four x4 links, 14.0625 GB/s per "
                     "direction each, 56.25 GB/s per direction, 112.5 GB/s total "
                     "(quoted in huggingface/transformers docs/source/en/perf_hardware.md)"),
             lanes=ga_lanes, lane_rate=ga_rate, links_per_gpu=ga_links,
             per_link_bandwidth=ga_link, gpu="RTX 3090",
             notes=("lane_rate 28.125 Gb/s is derived from the whitepaper's "
                    "14.0625 GB/s per x4 link, not stated by NVIDIA. Pages claiming "
                    "600 GB/s for the RTX 3090 confuse it with A100. Measured effect: "
                    "2x TITAN RTX GPT-2 DDP 23 % faster with NVLink than without "
                    "(transformers perf_hardware.md). Year: first product. "
                    + _LAT_NVLINK_NOTE)),
    ]


# ----------------------------------------------------------------------------------
# SLI and CrossFire (frame-transfer bridges; poorly documented)
# ----------------------------------------------------------------------------------
_SLI_CLASSIC = 1.0 * GB           # Tom's Hardware: "original SLI interface's 1 GB/s MIO link"
_SLI_HB_GAIN = 1.70               # AnandTech: HB on Pascal = +170 % effective bandwidth
_CFBI = 900 * MB                  # AnandTech: CrossFire bridge interconnect, 900 MB/s


def _bridge_links(pcie3x16):
    """SLI and CrossFire entries; ``pcie3x16`` is the PCIe 3.0 x16 bandwidth XDMA uses."""
    return [
        Link(name="sli", family="SLI", label="NVIDIA SLI bridge (classic MIO link)",
             year=2004, bandwidth=_SLI_CLASSIC, latency=_LAT_PCIE,
             source=("Tom's Hardware, 'Nvidia Turing GPU architecture explored' p.7 "
                     "(https://www.tomshardware.com/reviews/nvidia-turing-gpu-"
                     "architecture-explored,5801-7.html): 'the original SLI "
                     "interface's 1 GB/s MIO link' (strong secondary; NVIDIA never "
                     "published a figure)"),
             notes=("UNCERTAIN. No NVIDIA primary figure exists. Candidates: 1 GB/s "
                    "(Tom's Hardware, chosen); ~1 GB/s folklore; PCStats (2004) "
                    "'apparently up to 10 GB/s', implausible and unsourced. Sources do "
                    "not say whether it is per direction; the link carries finished "
                    "frames from the secondary to the primary GPU, so it is treated as "
                    "the one-way rate. Year: first products (GeForce 6800, 2004). "
                    + _LAT_PLACEHOLDER_NOTE)),
        Link(name="sli-hb", family="SLI", label="NVIDIA SLI HB bridge (Pascal, dual link)",
             year=2016, bandwidth=_SLI_CLASSIC * (1.0 + _SLI_HB_GAIN), latency=_LAT_PCIE,
             source=("AnandTech, 'The NVIDIA GeForce GTX 1080 & 1070 Founders Edition "
                     "Review' p.14 (https://www.anandtech.com/show/10325/the-nvidia-"
                     "geforce-gtx-1080-and-1070-founders-edition-review/14): link clock "
                     "400 -> 650 MHz, two teamed links, effective +170 %; baseline 1 GB/s "
                     "from Tom's Hardware (see `sli`)"),
             notes=("UNCERTAIN (factor ~2). bandwidth = 1 GB/s x (1 + 1.70) = 2.7 GB/s "
                    "(AnandTech's ratio applied to Tom's classic figure; the ratio is "
                    "strictly relative to Maxwell-2 SLI at 400 MHz). Other figures: "
                    "650/400 x 2 links = 3.25x naive; Tom's Hardware says Pascal "
                    "'drove ~4 GB/s'; ipon.hu says 1 GB/s, 'twice' the old bridge; "
                    "folklore ~2 GB/s; NVIDIA only: 'more than double the bandwidth' "
                    "(quoted at gamingbolt.com). Year: first products (GTX 1080, 2016). "
                    + _LAT_PLACEHOLDER_NOTE)),
        Link(name="crossfire", family="CrossFire",
             label="ATI/AMD CrossFire (dongle, then CrossFire bridge interconnect)",
             year=2005, bandwidth=_CFBI, latency=_LAT_PCIE,
             source=("AnandTech, 'The AMD Radeon R9 290X Review' p.4 'XDMA: Improving "
                     "Crossfire' (https://www.anandtech.com/show/7457/the-radeon-r9-290x-"
                     "review/4): 'a CFBI link directly connects two GPUs and has "
                     "900MB/sec of bandwidth' (CFBI dates back to the X1900 generation)"),
             notes=("Year 2005 = CrossFire launch (27 Sep 2005), whose first form was "
                    "an external DVI Y-dongle into a 'CrossFire Edition' master card "
                    "with compositing chip (X850: single-link TMDS receiver, max "
                    "1600x1200@60); the 900 MB/s figure is for the later internal CFBI "
                    "bridge (X1900/X1950 era, 2006), the best-documented number of the "
                    "bridge era. Direction not stated by the source; it carries frames "
                    "one way. Low-end cards (X1300/X1600) had no bridge and used PCIe. "
                    + _LAT_PLACEHOLDER_NOTE)),
        Link(name="crossfire-xdma", family="CrossFire",
             label="AMD XDMA CrossFire (bridgeless, over PCIe)", year=2013,
             bandwidth=pcie3x16, latency=_LAT_PCIE,
             source=("Tom's Hardware, 'Radeon R9 290X Review' p.2 'CrossFire: Farewell "
                     "Bridge Connector; Hello DMA' (https://www.tomshardware.com/uk/"
                     "reviews/radeon-r9-290x-hawaii-review,3650-2.html); AnandTech R9 "
                     "290X review p.4; bandwidth = PCIe 3.0 x16 (see pcie3x16)"),
             notes=("XDMA is a DMA engine in the display/compositing block (R9 290X "
                    "'Hawaii', R7 260X 'Bonaire', 2013) that moves frames GPU-to-GPU "
                    "over PCIe; there is no bridge, so the bandwidth is the PCIe "
                    "slot's, shared with all other traffic. Stored here as PCIe 3.0 "
                    "x16 (Hawaii's host interface); in a typical x8/x8 board it is "
                    "half, and AMD says it also works on PCIe 2.0. Year: first "
                    "product. " + _LAT_PCIE_NOTE)),
    ]


# ----------------------------------------------------------------------------------
# InfiniBand 4x ports
# ----------------------------------------------------------------------------------
_RS_FEC_PAM4 = Fraction(256, 257) * Fraction(514, 544)   # = 16/17 exactly
assert _RS_FEC_PAM4 == Fraction(16, 17)
_IB_RATE_SOURCE = ("InfiniBand Trade Association, InfiniBand Architecture Specification "
                   "Vol. 2 (physical layer) and IBTA roadmap, https://www.infinibandta.org/; "
                   "per-lane signalling and data rates as tabulated at "
                   "https://infiniband.jp/2022/06/01/infiband-%E8%A6%8F%E6%A0%BC/ and "
                   "https://www.aicplight.com/article_detail/92")
_IB_LAT_SOURCE = ("latency: stas00/ml-engineering network/README.md (EDR 0.5 us, HDR "
                  "0.6 us, NDR+ unpublished) and Wikipedia 'InfiniBand' performance "
                  "table (adapter latency, citing Panda & Sur, CCGrid 2011 tutorial p.23)")

# rate: (line rate per lane Gb/s, encoding, efficiency, year, latency us, note)
_IB_SPECS = {
    "sdr": (2.5, "8b/10b", Fraction(8, 10), 2001, 5.0,
            "Latency 5 us: Wikipedia table value for SDR (UNVERIFIED against the cited "
            "tutorial in stored copies)."),
    "ddr": (5.0, "8b/10b", Fraction(8, 10), 2005, 2.5,
            "Latency 2.5 us: Wikipedia table value for DDR (UNVERIFIED against the "
            "cited tutorial in stored copies)."),
    "qdr": (10.0, "8b/10b", Fraction(8, 10), 2007, 1.3,
            "Latency 1.3 us: Wikipedia table value for QDR (UNVERIFIED against the "
            "cited tutorial in stored copies)."),
    "fdr": (14.0625, "64b/66b", Fraction(64, 66), 2011, 0.7,
            "54.54 Gb/s (not the marketed '56 Gb/s', which is the line rate). "
            "FDR10 (10.3125 Gb/s lanes, 40 Gb/s data) is a different, Mellanox-only "
            "rate. Latency 0.7 us: Wikipedia table value (UNVERIFIED in stored copies)."),
    "edr": (25.78125, "64b/66b", Fraction(64, 66), 2014, 0.5,
            "Latency 0.5 us: ml-engineering's EDR figure."),
    "hdr": (53.125, "256b/257b + RS(544,514) FEC, PAM4", _RS_FEC_PAM4, 2018, 0.6,
            "CONFLICT: infiniband.jp lists '64/66' for HDR/NDR, but 53.125 x 64/66 = "
            "51.5, not the 50 Gb/s it also lists; 256b/257b transcoding with "
            "RS(544,514) FEC (as in IEEE 802.3 200G/400GBASE-R) gives exactly 16/17 and "
            "50 Gb/s, so that is used. Year: 2018 first products; some secondary "
            "sources say 'around 2017' (HDR was announced 2016). Latency 0.6 us: "
            "ml-engineering's HDR figure."),
    "ndr": (106.25, "256b/257b + RS(544,514) FEC, PAM4", _RS_FEC_PAM4, 2022, 0.6,
            "Year: 2022 products (NVIDIA Quantum-2, announced Nov 2021). Latency: NOT "
            "published for NDR (ml-engineering: '??'); the HDR 0.6 us is carried "
            "forward. DGX H100 uses 8 x ConnectX-7 400 Gb/s."),
    "xdr": (212.5, "256b/257b + RS(544,514) FEC, PAM4", _RS_FEC_PAM4, 2024, 0.6,
            "XDR = 200 Gb/s per lane, 800 Gb/s per 4x port (ml-engineering, citing the "
            "IBTA XDR release). The 212.5 Gb/s line rate and the coding are assumed to "
            "follow NDR's 17/16 pattern (UNVERIFIED). Year: 2024 products (NVIDIA "
            "Quantum-X800). Latency: NOT published; HDR's 0.6 us carried forward."),
}


def _ib_links():
    out = []
    for key, (gbps, enc, eff, year, lat_us, note) in _IB_SPECS.items():
        lanes = 4
        rate = gbps * 1e9
        bw = lanes * rate * float(eff) / 8.0
        out.append(Link(
            name=f"ib-{key}", family="InfiniBand",
            label=f"InfiniBand {key.upper()} 4x ({bw * 8 / 1e9:.4g} Gb/s)", year=year,
            bandwidth=bw, latency=lat_us * us,
            source=_IB_RATE_SOURCE + "; " + _IB_LAT_SOURCE,
            lanes=lanes, lane_rate=rate, encoding=enc, encoding_efficiency=float(eff),
            notes=" ".join([
                "4x port, per direction; lane_rate is the serial line rate "
                "(baud x bits/symbol). bandwidth = 4 x lane_rate x efficiency / 8, "
                "before packet headers (LRH/BTH/ICRC/VCRC).", note,
                "Latency basis: per-port/adapter figure as tabulated, not an "
                "end-to-end measurement; host-to-host ib_send_lat (RC, 32 B) is "
                "about 0.8-1 us one way (half the round trip, perftest convention)."])))
    return out


# ----------------------------------------------------------------------------------
# Ethernet
# ----------------------------------------------------------------------------------
# key: (MAC rate Gb/s, PHY used for lane data, lanes, line Gb/s per lane, encoding, eff, year, std)
_ETH_SPECS = {
    "100g": (100, "100GBASE-LR4", 4, 25.78125, "64b/66b", Fraction(64, 66), 2010,
             "IEEE Std 802.3ba-2010 (40/100 GbE, approved June 2010)",
             "802.3bj-2014 added 4 x 25G electrical PHYs (100GBASE-KR4/CR4) with RS-FEC "
             "at the same 25.78125 Gb/s lane rate."),
    "200g": (200, "200GBASE-DR4", 4, 53.125, "256b/257b + RS(544,514) FEC, PAM4",
             _RS_FEC_PAM4, 2017,
             "IEEE Std 802.3bs-2017 (200/400 GbE, approved 6 Dec 2017)",
             "200G line cards appeared in 2019 after 802.3cd."),
    "400g": (400, "400GBASE-DR4", 4, 106.25, "256b/257b + RS(544,514) FEC, PAM4",
             _RS_FEC_PAM4, 2017,
             "IEEE Std 802.3bs-2017 (200/400 GbE, approved 6 Dec 2017)",
             "Electrical 100G-per-lane interfaces (400GBASE-CR4/KR4) came with "
             "802.3ck-2022; 400GBASE-CR8 uses 8 x 53.125 Gb/s."),
    "800g": (800, "800GBASE-DR8", 8, 106.25, "256b/257b + RS(544,514) FEC, PAM4",
             _RS_FEC_PAM4, 2024,
             "IEEE Std 802.3df-2024 (800 GbE, approved 16 Feb 2024); the Ethernet "
             "Technology Consortium published an 800GBASE-R spec in 2020",
             "Built from two 400G PCS instances over 8 x 106.25 Gb/s lanes."),
}


def _eth_links():
    out = []
    for key, (mac, phy, lanes, gbps, enc, eff, year, std, note) in _ETH_SPECS.items():
        out.append(Link(
            name=f"eth-{key}", family="Ethernet",
            label=f"{mac} Gigabit Ethernet ({phy})", year=year,
            bandwidth=mac * Gbps, latency=_LAT_NET,
            source=f"{std}, {phy}; https://standards.ieee.org/ieee/802.3/",
            lanes=lanes, lane_rate=gbps * 1e9, encoding=enc,
            encoding_efficiency=float(eff),
            notes=" ".join([
                "bandwidth = nominal MAC data rate / 8, per direction; it equals "
                f"lanes x lane_rate x efficiency / 8 for {phy}. Preamble, inter-frame "
                "gap and Ethernet/IP/UDP/RoCE headers come out of it (about 2-6 % at "
                "4 KiB MTU).", note, "Year: IEEE standard approval.",
                "Latency: 2.7 us is NCCL's model value for one LL step over the "
                f"network (hwLat[NET][Ring][LL] in {_NCCL_TUNING}, used for IB and "
                "RoCE alike); a model value, not a switch or wire latency."])))
    return out


# ----------------------------------------------------------------------------------
# PCI and AGP: the parallel buses before PCIe (half duplex)
# ----------------------------------------------------------------------------------
_PCI_SPEC = ("PCI-SIG, PCI Local Bus Specification (Rev. 1.0 1992, 2.0 1993, 2.1 1995 adding 66 MHz "
             "and 64-bit at 66 MHz); https://pcisig.com/specifications")
_AGP_SPEC = ("Intel, Accelerated Graphics Port Interface Specification: Rev. 1.0 (31 July 1996; "
             "1x and 2x), Rev. 2.0 (4 May 1998; 4x), AGP 3.0 (Sept. 2002; 8x)")
# name: (label, bus width in bytes, clock Hz, transfers per clock, year, source, note)
_PCI_SPECS = {
    "pci-32-33": ("PCI 32-bit, 33 MHz", 4, 100e6 / 3, 1, 1992, _PCI_SPEC,
                  "The shared bus of the 1990s PC: every card on it takes turns."),
    "pci-64-66": ("PCI 64-bit, 66 MHz", 8, 200e6 / 3, 1, 1995, _PCI_SPEC,
                  "Servers only (PCI 2.1); PCI-X later raised the clock to 133 MHz."),
    "agp-1x": ("AGP 1x", 4, 200e6 / 3, 1, 1996, _AGP_SPEC,
               "A port for one graphics card, 32 bits at 66 MHz, off the PCI bus."),
    "agp-2x": ("AGP 2x", 4, 200e6 / 3, 2, 1996, _AGP_SPEC, "Two transfers per clock."),
    "agp-4x": ("AGP 4x", 4, 200e6 / 3, 4, 1998, _AGP_SPEC, "Four transfers per clock, 1.5 V signalling."),
    "agp-8x": ("AGP 8x", 4, 200e6 / 3, 8, 2002, _AGP_SPEC,
               "Eight transfers per clock, 0.8 V signalling; replaced by PCIe x16 from 2004."),
}


def _pci_links():
    out = []
    for name, (label, width, clock, per_clock, year, source, note) in _PCI_SPECS.items():
        rate = clock * per_clock  # transfers/s on every data line
        out.append(Link(
            name=name, family="PCI", label=label, year=year, bandwidth=width * rate,
            latency=_LAT_PCIE, source=source, lanes=8 * width, lane_rate=rate,
            encoding="none (parallel bus)", encoding_efficiency=1.0, duplex=False,
            notes=" ".join([
                f"A parallel, half-duplex bus: {8 * width} data lines each carry one bit per "
                "transfer, in one direction at a time, so bandwidth = width x clock x "
                "transfers per clock is the total for both directions (bidirectional_bandwidth "
                "equals it). Arbitration and address phases reduce what a card gets.", note,
                "Year: specification revision that introduced the mode (sources also give "
                "1997 for AGP 1.0, its public release).",
                "Latency: NO published figure used; 1 us is the PCIe model placeholder. "
                "Do not quote it."])))
    return out


# ----------------------------------------------------------------------------------
# Catalog
# ----------------------------------------------------------------------------------
def _build():
    pcie = _pcie_links()
    pcie3x16 = next(l.bandwidth for l in pcie if l.name == "pcie3x16")
    links = (_pci_links() + pcie + _nvlink_links() + _consumer_nvlink_links()
             + _bridge_links(pcie3x16) + _ib_links() + _eth_links())
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
    hint = "list all names with [l.name for l in interconnect.links.catalog()]"
    if not isinstance(name, str):
        raise ValueError(f"name={name!r} is not a string; expected a link name such as "
                         f"'pcie4x16'; {hint}")
    key = name.strip().lower()
    if key in _BY_NAME:
        return _BY_NAME[key]
    close = difflib.get_close_matches(key, list(_BY_NAME), n=5, cutoff=0.6)
    maybe = f"close matches: {', '.join(close)}; " if close else ""
    raise ValueError(f"name={name!r} is not a known link; {maybe}{hint}")


# ----------------------------------------------------------------------------------
# Views of the catalog: rows for the specification tables, and a timeline figure
# ----------------------------------------------------------------------------------
import re as _re

_URL_IN_PARENS = _re.compile(r"\s*\((https?://[^\s)]+)\)")
_URL = _re.compile(r"https?://[^\s)]+[^\s),;.]")


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


def _latency_basis(link):
    """A short phrase for the basis of ``link.latency``, read from its notes."""
    notes = link.notes
    if "NO published figure" in notes:
        return "placeholder: no published figure"
    if "NCCL's model value" in notes:
        return "NCCL model value (hwLat)"
    if "Latency: NOT published" in notes:
        return "not published; earlier rate's value carried forward"
    if "Wikipedia table value" in notes:
        return "adapter figure (Wikipedia table, unverified)"
    if "ml-engineering's" in notes:
        return "adapter figure (ml-engineering)"
    return "see notes"


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
        * ``latency`` (s) and ``latency_basis`` (short phrase read from the notes:
          NCCL model value, adapter figure, placeholder, ...)
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
            "latency_basis": _latency_basis(link),
            "source": link.source,
            "source_short": _short_source(link.source),
            "source_url": url.group(0) if url else None,
            "notes": link.notes,
        })
    return rows


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
        return _re.fullmatch(r"nvlink\d+", link.name) is not None
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
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullFormatter

    from . import plots

    fams = FAMILIES if families is None else tuple(choice("family", f, FAMILIES)
                                                   for f in families)
    links = [l for l in _CATALOG if l.family in fams]
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


__all__ += ["table", "plot_timeline"]


# ----------------------------------------------------------------------------------
# Questions across the catalog: growth between two entries, the newest of a year
# ----------------------------------------------------------------------------------
from typing import NamedTuple as _NamedTuple  # noqa: E402


class Growth(_NamedTuple):
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
    import math

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


__all__ += ["Growth", "growth", "newest"]
