"""Tests for interconnect.links: derivations, published figures, ordering, validation."""

import dataclasses
import doctest
import math

import pytest

import interconnect.catalog.link_tables as link_tables
import interconnect.catalog.links as catalog_links
import interconnect.links as links_mod
from interconnect.links import FAMILIES, Link, catalog, families, get_link

GB = 1e9
ALL = catalog()
ALL_IDS = [l.name for l in ALL]

PCIE_GT = {1: 2.5, 2: 5.0, 3: 8.0, 4: 16.0, 5: 32.0, 6: 64.0}
PCIE_EFF = {1: 8 / 10, 2: 8 / 10, 3: 128 / 130, 4: 128 / 130, 5: 128 / 130, 6: 242 / 256}
PCIE_YEAR = {1: 2003, 2: 2007, 3: 2010, 4: 2017, 5: 2019, 6: 2022}
WIDTHS = (1, 4, 8, 16)

REQUIRED = (
    ["pci-32-33", "pci-64-66", "agp-1x", "agp-2x", "agp-4x", "agp-8x"]
    + [f"pcie{g}x{w}" for g in range(1, 7) for w in WIDTHS]
    + [f"nvlink{g}-link" for g in range(1, 6)] + [f"nvlink{g}" for g in range(1, 6)]
    + ["nvlink-bridge-2080ti", "nvlink-bridge-3090", "sli", "sli-hb", "crossfire",
       "crossfire-xdma"]
    + [f"ib-{r}" for r in ("sdr", "ddr", "qdr", "fdr", "edr", "hdr", "ndr", "xdr")]
    + [f"eth-{r}" for r in ("100g", "200g", "400g", "800g")]
)


# --------------------------------------------------------------------------- catalog
def test_required_names_present_and_nothing_else_missing():
    names = set(ALL_IDS)
    missing = [n for n in REQUIRED if n not in names]
    assert not missing
    assert len(ALL) == len(REQUIRED)


def test_names_unique_and_lowercase():
    assert len(ALL_IDS) == len(set(ALL_IDS))
    assert all(n == n.lower() for n in ALL_IDS)


def test_families_and_order():
    assert families() == ("PCI", "PCIe", "NVLink", "SLI", "CrossFire", "InfiniBand", "Ethernet")
    assert FAMILIES == families()
    order = {f: i for i, f in enumerate(families())}
    keys = [(order[l.family], l.year, l.bandwidth) for l in ALL]
    assert keys == sorted(keys)
    assert {l.family for l in ALL} == set(families())


@pytest.mark.parametrize("fam", list(FAMILIES))
def test_catalog_family_filter(fam):
    sub = catalog(fam)
    assert sub and all(l.family == fam for l in sub)
    assert catalog(fam.upper()) == sub
    assert sub == tuple(l for l in ALL if l.family == fam)


def test_catalog_family_invalid():
    with pytest.raises(ValueError, match="family"):
        catalog("Myrinet")
    with pytest.raises(ValueError, match="family"):
        catalog(3)


# ----------------------------------------------------------------- every-entry checks
@pytest.mark.parametrize("link", ALL, ids=ALL_IDS)
def test_entry_invariants(link):
    assert isinstance(link, Link)
    assert link.source.strip()
    assert link.notes.strip()
    assert link.label.strip()
    assert 1990 <= link.year <= 2026
    assert link.latency > 0 and link.latency < 1e-4          # below 100 us
    assert link.bandwidth > 0
    # bidirectional is derived, always exactly twice per direction
    # bidirectional is derived: twice per direction for full-duplex links, equal for the
    # half-duplex parallel buses (PCI, AGP), whose bandwidth is already the total
    assert link.bidirectional_bandwidth == (2 if link.duplex else 1) * link.bandwidth
    assert link.duplex == (link.family != "PCI")
    # usable never exceeds raw signalling
    if link.raw_bandwidth is not None:
        assert link.bandwidth <= link.raw_bandwidth * (1 + 1e-12)
    # line-coded entries: bandwidth is exactly lanes x rate x efficiency / 8 (x links)
    if link.encoding_efficiency is not None:
        assert 0 < link.encoding_efficiency <= 1
        expected = (link.lanes * link.lane_rate * link.encoding_efficiency / 8
                    * (link.links_per_gpu or 1))
        assert link.bandwidth == pytest.approx(expected, rel=1e-12)
    # latency basis is stated
    assert "latency" in link.notes.lower()


@pytest.mark.parametrize("link", ALL, ids=ALL_IDS)
def test_get_link_roundtrip(link):
    assert get_link(link.name) is link
    assert get_link(link.name.upper()) is link
    assert get_link(f"  {link.name} ") is link


def test_frozen():
    link = get_link("pcie4x16")
    with pytest.raises(dataclasses.FrozenInstanceError):
        link.bandwidth = 1.0


# ------------------------------------------------------------------------------ PCIe
@pytest.mark.parametrize("gen,lanes", [(g, w) for g in range(1, 7) for w in WIDTHS],
                         ids=[f"pcie{g}x{w}" for g in range(1, 7) for w in WIDTHS])
def test_pcie_derivation(gen, lanes):
    link = get_link(f"pcie{gen}x{lanes}")
    assert link.family == "PCIe"
    assert link.lanes == lanes
    assert link.lane_rate == PCIE_GT[gen] * 1e9
    assert link.encoding_efficiency == pytest.approx(PCIE_EFF[gen], rel=1e-12)
    # usable = lanes x lane_rate x efficiency / 8, written out independently
    assert link.bandwidth == pytest.approx(lanes * PCIE_GT[gen] * 1e9 * PCIE_EFF[gen] / 8,
                                           rel=1e-12)
    assert link.raw_bandwidth == pytest.approx(lanes * PCIE_GT[gen] * 1e9 / 8, rel=1e-12)
    assert link.year == PCIE_YEAR[gen]
    assert link.encoding == {1: "8b/10b", 2: "8b/10b"}.get(
        gen, "1b/1b FLIT (PAM4)" if gen == 6 else "128b/130b")


# Published figures, per direction unless stated. Each with where it comes from.
PUBLISHED_PER_DIRECTION = [
    # Wikipedia "PCI Express" (2008 rev.): PCIe 1.1 lane = 250 MB/s each direction
    ("pcie1x1", 0.25 * GB, 1e-12),
    # PCI-SIG 2007-01-15 release: PCIe 2.0 doubles per-lane throughput to 500 MB/s
    ("pcie2x1", 0.5 * GB, 1e-12),
    # Gen1 x16 4 GB/s, Gen2 x16 8 GB/s: 8b/10b arithmetic (REFERENCES.md, Linux pci.h)
    ("pcie1x16", 4.0 * GB, 1e-12),
    ("pcie2x16", 8.0 * GB, 1e-12),
    # PCI-SIG 2010-11-18: PCIe 3.0 "near 1 GB/s in one direction on x1"; x16 15.754 GB/s
    ("pcie3x1", 0.9846 * GB, 1e-3),
    ("pcie3x16", 15.754 * GB, 1e-4),
    # ml-engineering network/README.md: PCIe 4 x16 31 GBps uni (~31.5); 31.508 derived
    ("pcie4x16", 31.508 * GB, 1e-4),
    # ml-engineering: PCIe 5 x16 63 GBps uni; 63.015 derived
    ("pcie5x16", 63.015 * GB, 1e-4),
    # ml-engineering: PCIe 6 x16 121 GBps uni (= 128 x 242/256)
    ("pcie6x16", 121.0 * GB, 1e-12),
    # NVIDIA P100 whitepaper: 4 NVLinks, 160 GB/s bidirectional -> 80 per direction
    ("nvlink1", 80 * GB, 1e-12),
    ("nvlink1-link", 20 * GB, 1e-12),
    # V100 whitepaper / Alibaba ACK docs: 25 GB/s one way per link, 300 GB/s total
    ("nvlink2-link", 25 * GB, 1e-12),
    ("nvlink2", 150 * GB, 1e-12),
    # A100 whitepaper / nvidia.com NVLink page: 12 links, 600 GB/s total
    ("nvlink3", 300 * GB, 1e-12),
    ("nvlink3-link", 25 * GB, 1e-12),
    # H100 whitepaper: 18 links, 900 GB/s total; ml-engineering 450 GBps uni
    ("nvlink4", 450 * GB, 1e-12),
    ("nvlink4-link", 25 * GB, 1e-12),
    # NVIDIA NVLink page: B200 18 x 100 GB/s = 1.8 TB/s total; ml-engineering 900 uni
    ("nvlink5", 900 * GB, 1e-12),
    ("nvlink5-link", 50 * GB, 1e-12),
    # GA102 whitepaper: 56.25 GB/s in each direction for RTX 3090
    ("nvlink-bridge-3090", 56.25 * GB, 1e-12),
    # TechPowerUp / Tom's Hardware: RTX 2080 Ti 100 GB/s bidirectional
    ("nvlink-bridge-2080ti", 50 * GB, 1e-12),
    # Tom's Hardware Turing p.7: original SLI MIO link 1 GB/s
    ("sli", 1.0 * GB, 1e-12),
    # 1 GB/s x (1 + 170 %) from AnandTech GTX 1080 review p.14
    ("sli-hb", 2.7 * GB, 1e-12),
    # AnandTech R9 290X review p.4: CFBI link 900 MB/s
    ("crossfire", 0.9 * GB, 1e-12),
    # IBTA data rates per 4x port: 8, 16, 32, 54.54, 100, 200, 400, 800 Gb/s
    ("ib-sdr", 8 / 8 * GB, 1e-12),
    ("ib-ddr", 16 / 8 * GB, 1e-12),
    ("ib-qdr", 32 / 8 * GB, 1e-12),
    ("ib-fdr", 54.545 / 8 * GB, 1e-4),
    ("ib-edr", 100 / 8 * GB, 1e-12),
    ("ib-hdr", 200 / 8 * GB, 1e-12),
    ("ib-ndr", 50 * GB, 1e-12),       # NDR 400 Gb/s = 50 GB/s
    ("ib-xdr", 800 / 8 * GB, 1e-12),
    # IEEE 802.3 MAC rates
    ("eth-100g", 12.5 * GB, 1e-12),
    ("eth-200g", 25 * GB, 1e-12),
    ("eth-400g", 50 * GB, 1e-12),
    ("eth-800g", 100 * GB, 1e-12),
]


@pytest.mark.parametrize("name,expected,rel", PUBLISHED_PER_DIRECTION,
                         ids=[p[0] for p in PUBLISHED_PER_DIRECTION])
def test_published_per_direction(name, expected, rel):
    assert get_link(name).bandwidth == pytest.approx(expected, rel=rel)


PUBLISHED_BIDIRECTIONAL = [
    ("nvlink1", 160 * GB),                 # P100 whitepaper
    ("nvlink2", 300 * GB),                 # V100 whitepaper
    ("nvlink2-link", 50 * GB),             # Alibaba ACK: two-way 50 GB/s per NVLink
    ("nvlink3", 600 * GB),                 # nvidia.com NVLink page (A100)
    ("nvlink4", 900 * GB),                 # H100 whitepaper
    ("nvlink5", 1800 * GB),                # NVLink page: 1.8 TB/s (B200)
    ("nvlink5-link", 100 * GB),            # NVLink page: 18 NVLink 100 GB/s connections
    ("nvlink-bridge-2080ti", 100 * GB),    # TechPowerUp RTX 2080 Ti SLI review p.2
    ("nvlink-bridge-3090", 112.5 * GB),    # GA102 whitepaper: 112.5 GB/s total
    ("pcie6x16", 242 * GB),                # ml-engineering: PCIe 6 duplex 242 GBps
]


@pytest.mark.parametrize("name,expected", PUBLISHED_BIDIRECTIONAL,
                         ids=[p[0] for p in PUBLISHED_BIDIRECTIONAL])
def test_published_bidirectional(name, expected):
    assert get_link(name).bidirectional_bandwidth == pytest.approx(expected, rel=1e-12)


def test_pcie_raw_headline_figures():
    # PCI-SIG 6.0 headline "256 GB/s" x16 and 4.0 "64 GB/s" x16 are raw, both directions
    assert 2 * get_link("pcie6x16").raw_bandwidth == pytest.approx(256 * GB)
    assert 2 * get_link("pcie4x16").raw_bandwidth == pytest.approx(64 * GB)


def test_pcie6_flit_layout():
    flit = links_mod.PCIE6_FLIT
    assert (flit["tlp"], flit["dlp"], flit["crc"], flit["fec"]) == (236, 6, 8, 6)
    assert flit["total"] == 256
    assert get_link("pcie6x16").encoding_efficiency == pytest.approx(242 / 256)
    assert "236/256" in get_link("pcie6x16").notes       # the alternative is documented


def test_pcie_generation_doubles_within_encoding():
    for w in WIDTHS:
        for g in range(1, 6):
            lo, hi = get_link(f"pcie{g}x{w}"), get_link(f"pcie{g + 1}x{w}")
            # usable ratio = rate ratio x efficiency ratio, exactly
            assert hi.bandwidth / lo.bandwidth == pytest.approx(
                (PCIE_GT[g + 1] / PCIE_GT[g]) * hi.encoding_efficiency
                / lo.encoding_efficiency, rel=1e-12)
            # and about 2x each generation (1.97x at 3.0, 1.92x at 6.0)
            assert 1.9 < hi.bandwidth / lo.bandwidth <= 2.0 + 1e-12
            if lo.encoding == hi.encoding:
                assert hi.bandwidth == pytest.approx(2 * lo.bandwidth, rel=1e-12)
        # raw signalling doubles except 5 -> 8 GT/s (Gen2 -> Gen3, 1.6x)
        assert get_link(f"pcie3x{w}").raw_bandwidth / get_link(f"pcie2x{w}").raw_bandwidth \
            == pytest.approx(1.6)


def test_pcie_more_lanes_never_less():
    for g in range(1, 7):
        bws = [get_link(f"pcie{g}x{w}").bandwidth for w in WIDTHS]
        assert bws == sorted(bws)
        for w in WIDTHS:
            assert get_link(f"pcie{g}x{w}").bandwidth == pytest.approx(
                w * get_link(f"pcie{g}x1").bandwidth, rel=1e-12)


def test_pcie_notes_mention_protocol_overhead():
    for g in range(1, 7):
        notes = get_link(f"pcie{g}x16").notes
        assert "DLLP" in notes and "80-90 %" in notes


# ---------------------------------------------------------------------------- NVLink
NVLINK = {  # gen: (lanes per link, Gb/s per lane, links per GPU, GPU, year)
    1: (8, 20, 4, "P100", 2016),
    2: (8, 25, 6, "V100", 2017),
    3: (4, 50, 12, "A100", 2020),
    4: (2, 100, 18, "H100", 2022),
    5: (2, 200, 18, "B200", 2024),
}


@pytest.mark.parametrize("gen", sorted(NVLINK))
def test_nvlink_derivation(gen):
    lanes, gbps, nlinks, gpu, year = NVLINK[gen]
    link = get_link(f"nvlink{gen}-link")
    gpu_entry = get_link(f"nvlink{gen}")
    assert (link.lanes, link.lane_rate) == (lanes, gbps * 1e9)
    assert link.bandwidth == pytest.approx(lanes * gbps * 1e9 / 8, rel=1e-12)
    assert link.links_per_gpu is None
    assert gpu_entry.gpu == gpu and gpu_entry.year == year == link.year
    assert gpu_entry.links_per_gpu == nlinks
    assert gpu_entry.per_link_bandwidth == link.bandwidth
    # per-GPU = links x per-link
    assert gpu_entry.bandwidth == pytest.approx(nlinks * link.bandwidth, rel=1e-12)
    assert gpu_entry.raw_bandwidth == pytest.approx(nlinks * link.raw_bandwidth, rel=1e-12)


def test_nvlink_per_gpu_grows_each_generation():
    bws = [get_link(f"nvlink{g}").bandwidth for g in range(1, 6)]
    assert all(b < a for b, a in zip(bws, bws[1:]))
    assert [get_link(f"nvlink{g}").links_per_gpu for g in range(1, 6)] == [4, 6, 12, 18, 18]


@pytest.mark.parametrize("name,links,lanes,per_link", [
    ("nvlink-bridge-2080ti", 2, 8, 25 * GB),      # TechPowerUp: two x8 NVLink 2 links
    ("nvlink-bridge-3090", 4, 4, 14.0625 * GB),   # GA102 whitepaper: four x4 links
])
def test_consumer_nvlink_derivation(name, links, lanes, per_link):
    link = get_link(name)
    assert link.links_per_gpu == links and link.lanes == lanes
    assert link.per_link_bandwidth == pytest.approx(per_link, rel=1e-12)
    assert link.bandwidth == pytest.approx(links * per_link, rel=1e-12)
    assert link.lanes * link.lane_rate / 8 == pytest.approx(per_link, rel=1e-12)


def test_nvlink_faster_than_pcie_of_its_era():
    # H100: NVLink 4 is ~7x PCIe 5.0 x16; B200: ~14x (ml-engineering, NVIDIA NVLink page)
    assert get_link("nvlink4").bandwidth / get_link("pcie5x16").bandwidth == pytest.approx(7.14, rel=0.01)
    assert get_link("nvlink5").bandwidth / get_link("pcie5x16").bandwidth == pytest.approx(14.28, rel=0.01)


# ----------------------------------------------------------------- SLI / CrossFire
def test_bridges():
    assert get_link("sli-hb").bandwidth > get_link("sli").bandwidth
    assert get_link("crossfire-xdma").bandwidth == get_link("pcie3x16").bandwidth
    for name in ("sli", "sli-hb", "crossfire"):
        link = get_link(name)
        assert link.raw_bandwidth is None
        assert "UNCERTAIN" in link.notes or "Year 2005 = CrossFire launch" in link.notes
        assert link.latency_basis == "unpublished" and "not published on the catalog's basis" in link.notes
    assert get_link("sli").year == 2004 and get_link("sli-hb").year == 2016
    assert get_link("crossfire").year == 2005 and get_link("crossfire-xdma").year == 2013


# ------------------------------------------------------------------------ InfiniBand
IB = {  # rate: (line Gb/s per lane, efficiency, data Gb/s per 4x port)
    "sdr": (2.5, 8 / 10, 8), "ddr": (5, 8 / 10, 16), "qdr": (10, 8 / 10, 32),
    "fdr": (14.0625, 64 / 66, 54.545454), "edr": (25.78125, 64 / 66, 100),
    "hdr": (53.125, 16 / 17, 200), "ndr": (106.25, 16 / 17, 400),
    "xdr": (212.5, 16 / 17, 800),
}


@pytest.mark.parametrize("rate", list(IB))
def test_ib_derivation(rate):
    gbps, eff, port = IB[rate]
    link = get_link(f"ib-{rate}")
    assert link.lanes == 4 and link.lane_rate == gbps * 1e9
    assert link.encoding_efficiency == pytest.approx(eff, rel=1e-12)
    assert link.bandwidth == pytest.approx(4 * gbps * 1e9 * eff / 8, rel=1e-12)
    assert link.bandwidth * 8 / 1e9 == pytest.approx(port, rel=1e-6)


def test_ib_pam4_coding_is_rs_fec_over_transcoding():
    # 256b/257b transcoding x RS(544,514) = 16/17 exactly
    assert (256 / 257) * (514 / 544) == pytest.approx(16 / 17, rel=1e-15)
    for rate in ("hdr", "ndr", "xdr"):
        assert "RS(544,514)" in get_link(f"ib-{rate}").encoding


def test_ib_monotonic():
    ib = catalog("InfiniBand")
    assert [l.name for l in ib] == [f"ib-{r}" for r in IB]
    assert all(a.bandwidth < b.bandwidth for a, b in zip(ib, ib[1:]))
    assert all(a.year < b.year for a, b in zip(ib, ib[1:]))
    # one basis: every rate carries NCCL's network value (hwLat[NET][Ring][LL] = 2.7 us);
    # the per-port figures (ml-engineering: EDR 0.5 us, HDR 0.6 us) are only quoted in notes
    assert {l.latency for l in ib} == {2.7e-6}
    assert "0.5 us for EDR and 0.6 us for HDR" in get_link("ib-edr").notes


# -------------------------------------------------------------------------- Ethernet
@pytest.mark.parametrize("name,mac_gbps,lanes,line_gbps,year", [
    ("eth-100g", 100, 4, 25.78125, 2010),   # 802.3ba-2010, 100GBASE-LR4
    ("eth-200g", 200, 4, 53.125, 2017),     # 802.3bs-2017, 200GBASE-DR4
    ("eth-400g", 400, 4, 106.25, 2017),     # 802.3bs-2017, 400GBASE-DR4
    ("eth-800g", 800, 8, 106.25, 2024),     # 802.3df-2024, 800GBASE-DR8
])
def test_ethernet_derivation(name, mac_gbps, lanes, line_gbps, year):
    link = get_link(name)
    assert link.bandwidth == pytest.approx(mac_gbps * 1e9 / 8, rel=1e-12)   # MAC / 8
    assert link.lanes == lanes and link.lane_rate == line_gbps * 1e9
    assert link.lanes * link.lane_rate * link.encoding_efficiency / 8 == pytest.approx(
        link.bandwidth, rel=1e-12)
    assert link.year == year


# ---------------------------------------------------------------------------- latency
def test_latency_model_values():
    # NCCL tuning.cc hwLat (Ring, LL): NVLink 0.6 us, PCI 1.0 us, NET 2.7 us
    assert get_link("nvlink4").latency == pytest.approx(0.6e-6)
    assert get_link("pcie5x16").latency == pytest.approx(1.0e-6)
    assert get_link("eth-400g").latency == pytest.approx(2.7e-6)
    assert get_link("nvlink4").latency < get_link("pcie4x16").latency < get_link("eth-100g").latency


def test_latency_values_are_nccls_ported_table():
    """One number, one place: the catalog's values are NCCL's hwLat[link][Ring][LL], the same
    numbers as the full table ported in collectives.nccl_graphs (which sits above the catalog)."""
    from interconnect.collectives.nccl_graphs import _LL, _RING, CONSTANTS

    hw = CONSTANTS["hw_latency_us"]
    assert get_link("nvlink3-link").latency == pytest.approx(hw["nvlink"][_RING][_LL] * 1e-6, rel=1e-15)
    assert get_link("pcie4x16").latency == pytest.approx(hw["pci"][_RING][_LL] * 1e-6, rel=1e-15)
    for name in ("ib-ndr", "ib-sdr", "eth-400g"):
        assert get_link(name).latency == pytest.approx(hw["net"][_RING][_LL] * 1e-6, rel=1e-15)


def test_one_latency_basis_for_every_fabric():
    """InfiniBand and RoCE Ethernet are both NCCL's NET: the same small-message latency, no
    longer 4.5x apart; a network hop costs more than a PCIe hop, which costs more than NVLink."""
    assert get_link("ib-ndr").latency == get_link("eth-400g").latency
    assert get_link("ib-ndr").latency / get_link("nvlink4").latency == pytest.approx(4.5)
    by_basis = {}
    for link in ALL:
        by_basis.setdefault(link.latency_basis, set()).add(link.family)
    assert set(by_basis) == {"model", "unpublished"}
    assert by_basis["model"] >= {"PCIe", "NVLink", "InfiniBand", "Ethernet"}
    assert by_basis["unpublished"] <= {"PCI", "SLI", "CrossFire"}
    assert "end-to-end" in links_mod.LATENCY_BASIS and "one hop" in links_mod.LATENCY_BASIS


# ------------------------------------------------------------------------ validation
@pytest.mark.parametrize("bad", [3, None, 4.0, b"pcie4x16", ["pcie4x16"]])
def test_get_link_non_string(bad):
    with pytest.raises(ValueError, match="name=") as exc:
        get_link(bad)
    msg = str(exc.value)
    assert "name=" in msg and repr(bad) in msg and "catalog()" in msg


def test_get_link_unknown():
    with pytest.raises(ValueError, match="not a known link") as exc:
        get_link("foo")
    msg = str(exc.value)
    assert "name='foo'" in msg and "catalog()" in msg


def test_get_link_suggests_close_matches():
    with pytest.raises(ValueError, match="pcie4x16"):
        get_link("pcie4x61")
    with pytest.raises(ValueError, match="ib-ndr"):
        get_link("ib_ndr")
    with pytest.raises(ValueError, match="nvlink4"):
        get_link("nvlnk4")


def test_link_constructor_validates():
    good = dict(name="x", family="PCIe", label="x", year=2020, bandwidth=1e9,
                latency=1e-6, source="s")
    Link(**good)
    for field, value in [("bandwidth", 0.0), ("latency", -1e-6), ("family", "Myrinet"),
                         ("year", 0), ("lanes", 0)]:
        with pytest.raises(ValueError, match=field):
            Link(**{**good, field: value})


def test_raw_bandwidth_none_without_lanes():
    link = Link(name="x", family="SLI", label="x", year=2004, bandwidth=1e9,
                latency=1e-6, source="s")
    assert link.raw_bandwidth is None
    assert link.bidirectional_bandwidth == 2e9


@pytest.mark.parametrize("mod", [links_mod, catalog_links, link_tables])
def test_doctests(mod):
    result = doctest.testmod(mod)
    assert result.attempted >= 1 and result.failed == 0


def test_no_nan():
    for link in ALL:
        for v in (link.bandwidth, link.latency, link.bidirectional_bandwidth):
            assert math.isfinite(v)


# --------------------------------------------------------------------------- PCI and AGP
@pytest.mark.parametrize("name, mb_per_s", [
    # PCI Local Bus spec: 32 bits x 33.33 MHz = 133 MB/s; 64 bits x 66.67 MHz = 533 MB/s
    ("pci-32-33", 133.33), ("pci-64-66", 533.33),
    # Intel AGP specs 1.0 / 2.0 / 3.0: 32 bits at 66.67 MHz, 1, 2, 4, 8 transfers per clock
    ("agp-1x", 266.67), ("agp-2x", 533.33), ("agp-4x", 1066.67), ("agp-8x", 2133.33),
])
def test_parallel_bus_rates(name, mb_per_s):
    link = get_link(name)
    assert link.bandwidth / 1e6 == pytest.approx(mb_per_s, abs=0.01)
    # width x transfers/s: every data line carries one bit per transfer
    assert link.bandwidth == pytest.approx(link.lanes * link.lane_rate / 8, rel=1e-12)
    assert not link.duplex and link.bidirectional_bandwidth == link.bandwidth


def test_agp_8x_is_half_of_pcie1_x16_per_direction():
    # AGP 8x (2.13 GB/s, shared) vs PCIe 1.0 x16 (4 GB/s in each direction at once)
    assert get_link("pcie1x16").bidirectional_bandwidth / get_link("agp-8x").bidirectional_bandwidth == pytest.approx(
        3.75, rel=1e-9)
