"""The link catalog's rows: the numbers of every entry of :mod:`interconnect.catalog.links`, with sources.

Data only. Each table maps a generation (or rate, or port) to its figures and the primary
source they were taken from; :mod:`interconnect.catalog.links` turns the rows into
:class:`~interconnect.catalog.links.Link` records. The conventions (per direction, usable
vs raw, lane rate, latency basis, year) are in that module's docstring. Each row's latency
basis is a structured pair, ``latency_basis`` (``"model"``, ``"spec"``, ``"measured"``,
``"unpublished"``) and ``latency_label`` (the short phrase a specification table shows).
"""

from __future__ import annotations

from fractions import Fraction

from ..units import GB, MB, us

# ----------------------------------------------------------------------------------
# Latency: one basis for every link
# ----------------------------------------------------------------------------------
#: What every ``Link.latency`` of the catalog is (the one basis of the catalog).
LATENCY_BASIS = (
    "end-to-end latency of one small message over one hop of the link or fabric, one way, "
    "software plus wire, as a collective library sees it (GPU memory to GPU memory; for a "
    "network, through the NICs and one switch)")
NCCL_TUNING = ("NVIDIA/nccl src/graph/tuning.cc hwLat table, commit 5067397 "
                "(https://github.com/NVIDIA/nccl/blob/master/src/graph/tuning.cc)")
# NCCL's hwLat[NVLINK | PCI | NET][Ring][LL] (us): the latency NCCL's tuning model charges
# for one step of a ring in its low-latency protocol, i.e. one small message over one hop
# of that link type, software included. The same numbers are ported, with the whole
# table, in interconnect.collectives.nccl_graphs.CONSTANTS["hw_latency_us"] (a layer above
# the catalog, so not importable here); tests/test_link_latency.py checks that they agree.
LAT_NVLINK = 0.6 * us
LAT_PCIE = 1.0 * us
LAT_NET = 2.7 * us

LAT_PCIE_NOTE = (
    "Latency: 1.0 us, NCCL's hwLat[PCI][Ring][LL], the latency its tuning model charges "
    f"for one small message over one PCIe hop, software included ({NCCL_TUNING}). On "
    "the catalog's one basis (end-to-end, one hop, per message); NCCL uses one value for "
    "every PCIe generation and width.")
LAT_NVLINK_NOTE = (
    "Latency: 0.6 us, NCCL's hwLat[NVLINK][Ring][LL], the latency its tuning model charges "
    f"for one small message over one NVLink hop, software included ({NCCL_TUNING}; older "
    "NCCL releases used 0.4-0.5 us). On the catalog's one basis (end-to-end, one hop, per "
    "message); NCCL uses one value for every NVLink generation.")
LAT_NET_NOTE = (
    "Latency: 2.7 us, NCCL's hwLat[NET][Ring][LL], the latency its tuning model charges "
    "for one small message between two GPUs of different machines (GPU, NIC, one switch, "
    f"NIC, GPU), software included ({NCCL_TUNING}). NCCL uses the same value for "
    "InfiniBand and RoCE Ethernet and for every rate, so on the catalog's one basis the two "
    "fabrics have the same small-message latency. Host-to-host verbs benchmarks (perftest "
    "ib_write_lat/ib_send_lat, half the round trip) report lower numbers because they "
    "leave out the GPU side of the software.")
LAT_UNPUBLISHED_NOTE = (
    "Latency: not published on the catalog's basis: no collective library runs over this "
    "link (it carries finished frames between graphics cards, or predates GPU "
    "communication libraries) and no vendor gives an end-to-end figure. The value is a "
    "stand-in, NCCL's PCIe value (1.0 us), so the field is positive; do not quote it.")

#: ``latency_basis`` / ``latency_label`` pairs the rows use (see ``Link.latency_basis``).
LAT_MODEL = {"latency_basis": "model", "latency_label": "end-to-end, NCCL model (hwLat, ring LL)"}
LAT_UNPUBLISHED = {"latency_basis": "unpublished",
                   "latency_label": "not published (stand-in: NCCL's PCIe value)"}

# ----------------------------------------------------------------------------------
# PCIe
# ----------------------------------------------------------------------------------
#: PCIe 6.0 FLIT layout in bytes (PCIe Base 6.x, Flit Mode): 236 TLP + 6 DLP + 8 CRC + 6 FEC.
PCIE6_FLIT = {"total": 256, "tlp": 236, "dlp": 6, "crc": 8, "fec": 6}
assert sum(v for k, v in PCIE6_FLIT.items() if k != "total") == PCIE6_FLIT["total"]

PCIE_WIDTHS = (1, 4, 8, 16)
LINUX_PCI_H = ("Linux drivers/pci/pci.h PCIE_SPEED2MBS_ENC (encoding per rate; 64 GT/s "
                "1b/1b per PCIe r6.1 sec 1.2 Table 1-1, patch by I. Jarvinen, v6.8)")

# gen: (GT/s, encoding, efficiency as exact fraction, spec year, source, gen-specific note)
PCIE_SPECS = {
    1: (2.5, "8b/10b", Fraction(8, 10), 2003,
        "PCI-SIG, PCI Express Base Specification Rev. 1.0a (2003): 2.5 GT/s per lane, "
        "8b/10b; https://pcisig.com/specifications; " + LINUX_PCI_H,
        "Year: 2003 = Base Spec 1.0a, the revision first products implemented; Base "
        "1.0 itself dates from 2002 (not confirmed in stored copies) and the first "
        "PCIe chipsets/cards shipped in 2004. Per lane 250 MB/s per direction, as "
        "Wikipedia's PCI Express article (2008 revision) states."),
    2: (5.0, "8b/10b", Fraction(8, 10), 2007,
        "PCI-SIG press release 2007-01-15, PCI Express Base 2.0: 5.0 GT/s, 8b/10b, "
        "500 MB/s per lane; " + LINUX_PCI_H,
        "Year: Base 2.0 announced 15 January 2007; first chipsets (Intel X38) late 2007."),
    3: (8.0, "128b/130b", Fraction(128, 130), 2010,
        "PCI-SIG press release 2010-11-18, PCIe Base 3.0: 8 GT/s, 128b/130b "
        "(http://www.pcper.com/news/General-Tech/PCI-SIG-Releases-PCI-Express-30-SPECIFICATION); "
        + LINUX_PCI_H,
        "PCI-SIG's own wording: 'near 1 GB/s in one direction on x1 ... aggregate "
        "approaching 32 GB/s on x16' - the 32 GB/s is both directions added."),
    4: (16.0, "128b/130b", Fraction(128, 130), 2017,
        "PCI-SIG, PCIe Base 4.0 (final spec announced 2017-06, v1.0 2017-10): "
        "16 GT/s, 128b/130b; https://pcisig.com/specifications; " + LINUX_PCI_H,
        "PCI-SIG's '64 GB/s per x16 slot' is both directions added (32 per direction "
        "raw, 31.5 after 128b/130b)."),
    5: (32.0, "128b/130b", Fraction(128, 130), 2019,
        "PCI-SIG, PCIe Base 5.0 (2019): 32 GT/s, 128b/130b; "
        "https://pcisig.com/specifications; " + LINUX_PCI_H,
        "Measured: nvbandwidth on 8xH200 (PCIe 5.0 x16) gives H2D 55.4 GB/s, D2H "
        "55.1 GB/s = 88 %/87 % of 63.0 (stas00/ml-engineering network/README.md)."),
    6: (64.0, "1b/1b FLIT (PAM4)",
        Fraction(PCIE6_FLIT["tlp"] + PCIE6_FLIT["dlp"], PCIE6_FLIT["total"]), 2022,
        "PCI-SIG press release 2022-01-11, PCIe 6.0: 64 GT/s PAM4, Flit Mode, FEC+CRC "
        "(https://www.phoronix.com/scan.php?page=news_item&px=PCIe-6.0-Specification); "
        "1b/1b encoding per PCIe r6.1 sec 1.2 Table 1-1 (" + LINUX_PCI_H + "); flit "
        "layout 236 B TLP + 6 B DLP + 8 B CRC + 6 B FEC per PCIe Base 6.2 Flit Mode "
        "(transcribed at https://blog.csdn.net/weixin_43770660/article/details/141707780)",
        "DECISION: bandwidth counts 242/256 of the flit (TLP bytes + DLP bytes, i.e. "
        "everything the data link layer hands down, minus the flit CRC and FEC). This "
        "treats DLLPs as Gen1-5 numbers do (inside the counted bandwidth) and gives "
        "121 GB/s per direction at x16, matching stas00/ml-engineering "
        "(121/242 GB/s uni/duplex). TLP bytes only would be 236/256 -> 118 GB/s at "
        "x16. PCI-SIG's headline '256 GB/s' is raw 128 GB/s per direction x 2."),
}

PCIE_COMMON_NOTE = (
    "bandwidth = lanes x lane_rate x encoding_efficiency / 8 (line coding only). "
    "TLP headers, framing, LCRC/sequence numbers and DLLPs (ACK, flow control) reduce "
    "achievable throughput further: measured DMA copies reach about 80-90 % of this "
    "figure.")


# ----------------------------------------------------------------------------------
# NVLink
# ----------------------------------------------------------------------------------
NVLINK_PAGE = "NVIDIA NVLink page, https://www.nvidia.com/en-us/data-center/nvlink/"
# gen: (lanes per link per direction, per-lane Gb/s, links per GPU, GPU, year, source, note)
NVLINK_SPECS = {
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
        + NVLINK_PAGE,
        "Same 25 GB/s per link as NVLink 2 (twice the lane rate, half the lanes). "
        "Measured: nccl-tests all-reduce busbw 234.9 GB/s on 8xA100 = 78 % of 300 "
        "(stas00/ml-engineering). NCCL's model uses 20 GB/s per link (SM80)."),
    4: (2, 100.0, 18, "H100", 2022,
        "NVIDIA H100 Tensor Core GPU Architecture (Hopper) whitepaper (2022): 18 "
        "fourth-gen NVLinks, 2 lanes (PAM4) per direction per link, 25 GB/s per "
        "direction per link, 900 GB/s total bidirectional; " + NVLINK_PAGE,
        "nvidia-smi reports 26.5625 GB/s per link (= 2 x 106.25 Gb/s line rate / 8; "
        "NVIDIA health-validation docs, expected_speed_mbytes_per_sec H100 26562); "
        "25/26.5625 = 16/17, the same 256b/257b x RS(544,514) ratio as 100G-PAM4 "
        "Ethernet/IB, though NVIDIA does not document NVLink's coding. Measured: "
        "p2pBandwidthLatencyTest 380 GB/s uni, 749 GB/s bidir on H100 SXM = 83-84 % "
        "(NVIDIA/nccl issue #1264). Also H200/GH200."),
    5: (2, 200.0, 18, "B200", 2024,
        "NVIDIA Blackwell architecture technical brief / NVLink page (2024): 18 "
        "fifth-gen NVLinks of 100 GB/s (bidirectional) each, 1.8 TB/s total per GPU; "
        + NVLINK_PAGE,
        "CONFLICT: NVIDIA Mission Control docs (docs.nvidia.com/base-command-manager/"
        ".../nvlinkinfo) say '900 GB/s bidirectional bandwidth per link' for NVLink 5; "
        "inconsistent with 18 x 50 GB/s per direction - read as the per-GPU "
        "per-direction figure mislabeled. nvidia-smi/health-validation: 53.125 GB/s "
        "raw per link (25 GB/s x 17/16 x 2). NCCL's model uses 40.1 GB/s per link "
        "(SM100)."),
}

NVLINK_COMMON = (
    "NVIDIA's per-link figure equals lanes x per-lane rate / 8 with no line-coding "
    "deduction, so encoding is left unset; it is a peak, and packet/protocol "
    "overhead makes measured P2P bandwidth about 80-90 % of it.")


def consumer_nvlink_rows():
    """The GeForce NVLink bridges, as keyword rows for :class:`~interconnect.catalog.links.Link`."""
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
        dict(name="nvlink-bridge-2080ti", **LAT_MODEL, family="NVLink",
             label="GeForce RTX 2080 Ti NVLink bridge (2 x8 NVLink 2)", year=2018,
             bandwidth=tu_links * tu_link, latency=LAT_NVLINK,
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
                    "product. " + LAT_NVLINK_NOTE)),
        dict(name="nvlink-bridge-3090", **LAT_MODEL, family="NVLink",
             label="GeForce RTX 3090 NVLink bridge (4 x4 NVLink 3)", year=2020,
             bandwidth=ga_links * ga_link, latency=LAT_NVLINK,
             source=("NVIDIA Ampere GA102 GPU Architecture whitepaper (2020), "
                     "'Third-Generation NVLink': four x4 links, 14.0625 GB/s per "
                     "direction each, 56.25 GB/s per direction, 112.5 GB/s total "
                     "(quoted in huggingface/transformers docs/source/en/perf_hardware.md)"),
             lanes=ga_lanes, lane_rate=ga_rate, links_per_gpu=ga_links,
             per_link_bandwidth=ga_link, gpu="RTX 3090",
             notes=("lane_rate 28.125 Gb/s is derived from the whitepaper's "
                    "14.0625 GB/s per x4 link, not stated by NVIDIA. Pages claiming "
                    "600 GB/s for the RTX 3090 confuse it with A100. The often-quoted "
                    "'GPT-2 DDP 23 % faster with NVLink' (transformers perf_hardware.md) was "
                    "measured on 2x TITAN RTX with a Turing NVLink 2 bridge (NV2), not on this "
                    "bridge. Year: first product. "
                    + LAT_NVLINK_NOTE)),
    ]


# ----------------------------------------------------------------------------------
# SLI and CrossFire (frame-transfer bridges; poorly documented)
# ----------------------------------------------------------------------------------
SLI_CLASSIC = 1.0 * GB           # Tom's Hardware: "original SLI interface's 1 GB/s MIO link"
SLI_HB_GAIN = 1.70               # AnandTech: HB on Pascal = +170 % effective bandwidth
CFBI = 900 * MB                  # AnandTech: CrossFire bridge interconnect, 900 MB/s


def bridge_rows(pcie3x16):
    """SLI and CrossFire keyword rows; ``pcie3x16`` is the PCIe 3.0 x16 bandwidth XDMA uses."""
    return [
        dict(name="sli", **LAT_UNPUBLISHED, family="SLI", label="NVIDIA SLI bridge (classic MIO link)",
             year=2004, bandwidth=SLI_CLASSIC, latency=LAT_PCIE,
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
                    + LAT_UNPUBLISHED_NOTE)),
        dict(name="sli-hb", **LAT_UNPUBLISHED, family="SLI", label="NVIDIA SLI HB bridge (Pascal, dual link)",
             year=2016, bandwidth=SLI_CLASSIC * (1.0 + SLI_HB_GAIN), latency=LAT_PCIE,
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
                    + LAT_UNPUBLISHED_NOTE)),
        dict(name="crossfire", **LAT_UNPUBLISHED, family="CrossFire",
             label="ATI/AMD CrossFire (dongle, then CrossFire bridge interconnect)",
             year=2005, bandwidth=CFBI, latency=LAT_PCIE,
             source=("AnandTech, 'The AMD Radeon R9 290X Review' p.4 'XDMA: Improving "
                     "Crossfire' (https://www.anandtech.com/show/7457/the-radeon-r9-290x-"
                     "review/4): 'a CFBI link directly connects two GPUs and has "
                     "900MB/sec of bandwidth' (internal CFBI bridges came with the Radeon X1950 Pro, Oct 2006)"),
             notes=("Year 2005 = CrossFire launch (reviews 26 Sep 2005, retail from October), whose first form was "
                    "an external DVI Y-dongle into a 'CrossFire Edition' master card "
                    "with compositing chip (X850: single-link TMDS receiver, max "
                    "1600x1200@60); the 900 MB/s figure is for the later internal CFBI "
                    "bridge (first on the Radeon X1950 Pro, Oct 2006), the best-documented number of the "
                    "bridge era. Direction not stated by the source; it carries frames "
                    "one way. Low-end cards (X1300/X1600) had no bridge and used PCIe. "
                    + LAT_UNPUBLISHED_NOTE)),
        dict(name="crossfire-xdma", **LAT_MODEL, family="CrossFire",
             label="AMD XDMA CrossFire (bridgeless, over PCIe)", year=2013,
             bandwidth=pcie3x16, latency=LAT_PCIE,
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
                    "product. " + LAT_PCIE_NOTE)),
    ]


# ----------------------------------------------------------------------------------
# InfiniBand 4x ports
# ----------------------------------------------------------------------------------
RS_FEC_PAM4 = Fraction(256, 257) * Fraction(514, 544)   # = 16/17 exactly
assert RS_FEC_PAM4 == Fraction(16, 17)
IB_RATE_SOURCE = ("InfiniBand Trade Association, InfiniBand Architecture Specification "
                   "Vol. 2 (physical layer) and IBTA roadmap, https://www.infinibandta.org/; "
                   "per-lane signalling and data rates as tabulated at "
                   "https://infiniband.jp/2022/06/01/infiband-%E8%A6%8F%E6%A0%BC/ and "
                   "https://www.aicplight.com/article_detail/92")
IB_ADAPTER_LATENCY_NOTE = (
    "Per-port figures, a different basis, not used: stas00/ml-engineering network/README.md "
    "tabulates an InfiniBand latency of 0.5 us for EDR and 0.6 us for HDR and none for NDR "
    "and later ('??'); Wikipedia's 'InfiniBand' table gives 5, 2.5, 1.3 and 0.7 us for "
    "SDR to FDR as adapter latencies, citing a tutorial (Panda & Sur, CCGrid 2011) whose "
    "table could not be read here. Neither is an end-to-end GPU-to-GPU figure, so "
    "neither is comparable with NVLink's or PCIe's, and neither is used.")

# rate: (line rate per lane Gb/s, encoding, efficiency, year, note)
IB_SPECS = {
    "sdr": (2.5, "8b/10b", Fraction(8, 10), 2001, ""),
    "ddr": (5.0, "8b/10b", Fraction(8, 10), 2005, ""),
    "qdr": (10.0, "8b/10b", Fraction(8, 10), 2007, ""),
    "fdr": (14.0625, "64b/66b", Fraction(64, 66), 2011,
            "54.54 Gb/s (not the marketed '56 Gb/s', which is the line rate). "
            "FDR10 (10.3125 Gb/s lanes, 40 Gb/s data) is a different, Mellanox-only "
            "rate."),
    "edr": (25.78125, "64b/66b", Fraction(64, 66), 2014, ""),
    "hdr": (53.125, "256b/257b + RS(544,514) FEC, PAM4", RS_FEC_PAM4, 2018,
            "CONFLICT: infiniband.jp lists '64/66' for HDR/NDR, but 53.125 x 64/66 = "
            "51.5, not the 50 Gb/s it also lists; 256b/257b transcoding with "
            "RS(544,514) FEC (as in IEEE 802.3 200G/400GBASE-R) gives exactly 16/17 and "
            "50 Gb/s, so that is used. Year: 2018 first products; some secondary "
            "sources say 'around 2017' (HDR was announced 2016)."),
    "ndr": (106.25, "256b/257b + RS(544,514) FEC, PAM4", RS_FEC_PAM4, 2022,
            "Year: 2022 products (NVIDIA Quantum-2, announced Nov 2021). "
            "DGX H100 uses 8 x ConnectX-7 400 Gb/s."),
    "xdr": (212.5, "256b/257b + RS(544,514) FEC, PAM4", RS_FEC_PAM4, 2024,
            "XDR = 200 Gb/s per lane, 800 Gb/s per 4x port (ml-engineering, citing the "
            "IBTA XDR release). Line rate and coding: not published by the IBTA (its "
            "physical-layer volume is for members); 212.5 Gb/s with 256b/257b + "
            "RS(544,514) is the 200 Gb/s-per-lane electrical lane of IEEE 802.3dj, the "
            "same 17/16 pattern as NDR, and is assumed here. Year: 2024 products (NVIDIA "
            "Quantum-X800)."),
}

# ----------------------------------------------------------------------------------
# Ethernet
# ----------------------------------------------------------------------------------
# key: (MAC rate Gb/s, PHY used for lane data, lanes, line Gb/s per lane, encoding, eff, year, std)
ETH_SPECS = {
    "100g": (100, "100GBASE-LR4", 4, 25.78125, "64b/66b", Fraction(64, 66), 2010,
             "IEEE Std 802.3ba-2010 (40/100 GbE, approved June 2010)",
             "802.3bj-2014 added 4 x 25G electrical PHYs (100GBASE-KR4/CR4) with RS-FEC "
             "at the same 25.78125 Gb/s lane rate."),
    "200g": (200, "200GBASE-DR4", 4, 53.125, "256b/257b + RS(544,514) FEC, PAM4",
             RS_FEC_PAM4, 2017,
             "IEEE Std 802.3bs-2017 (200/400 GbE, approved 6 Dec 2017)",
             "200G line cards appeared in 2019 after 802.3cd."),
    "400g": (400, "400GBASE-DR4", 4, 106.25, "256b/257b + RS(544,514) FEC, PAM4",
             RS_FEC_PAM4, 2017,
             "IEEE Std 802.3bs-2017 (200/400 GbE, approved 6 Dec 2017)",
             "Electrical 100G-per-lane interfaces (400GBASE-CR4/KR4) came with "
             "802.3ck-2022; 400GBASE-CR8 uses 8 x 53.125 Gb/s."),
    "800g": (800, "800GBASE-DR8", 8, 106.25, "256b/257b + RS(544,514) FEC, PAM4",
             RS_FEC_PAM4, 2024,
             "IEEE Std 802.3df-2024 (800 GbE, approved 16 Feb 2024); the Ethernet "
             "Technology Consortium published an 800GBASE-R spec in 2020",
             "Built from two 400G PCS instances over 8 x 106.25 Gb/s lanes."),
}


# ----------------------------------------------------------------------------------
# PCI and AGP: the parallel buses before PCIe (half duplex)
# ----------------------------------------------------------------------------------
PCI_SPEC = ("PCI-SIG, PCI Local Bus Specification (Rev. 1.0 1992, 2.0 1993, 2.1 1995 adding 66 MHz "
             "and 64-bit at 66 MHz); https://pcisig.com/specifications")
AGP_SPEC = ("Intel, Accelerated Graphics Port Interface Specification: Rev. 1.0 (31 July 1996; "
             "1x and 2x), Rev. 2.0 (4 May 1998; 4x), AGP 3.0 (Sept. 2002; 8x)")
# name: (label, bus width in bytes, clock Hz, transfers per clock, year, source, note)
PCI_SPECS = {
    "pci-32-33": ("PCI 32-bit, 33 MHz", 4, 100e6 / 3, 1, 1992, PCI_SPEC,
                  "The shared bus of the 1990s PC: every card on it takes turns."),
    "pci-64-66": ("PCI 64-bit, 66 MHz", 8, 200e6 / 3, 1, 1995, PCI_SPEC,
                  "Servers only (PCI 2.1); PCI-X later raised the clock to 133 MHz."),
    "agp-1x": ("AGP 1x", 4, 200e6 / 3, 1, 1996, AGP_SPEC,
               "A port for one graphics card, 32 bits at 66 MHz, off the PCI bus."),
    "agp-2x": ("AGP 2x", 4, 200e6 / 3, 2, 1996, AGP_SPEC, "Two transfers per clock."),
    "agp-4x": ("AGP 4x", 4, 200e6 / 3, 4, 1998, AGP_SPEC, "Four transfers per clock, 1.5 V signalling."),
    "agp-8x": ("AGP 8x", 4, 200e6 / 3, 8, 2002, AGP_SPEC,
               "Eight transfers per clock, 0.8 V signalling; replaced by PCIe x16 from 2004."),
}


