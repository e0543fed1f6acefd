"""Tests for interconnect.catalog.fabrics: the non-NVIDIA fabrics (AMD xGMI, Intel Gaudi RoCE,
Google TPU ICI, AWS NeuronLink, UALink 1.0, Ultra Ethernet 1.0).

Values against the sources named in each record (``book/references.bib`` keys):

* ROCm MI250 page: 16-wide links at 25 GT/s = 50 GB/s per link (100 bidirectional); the two
  GCDs of an OAM joined by 4 links = 200 GB/s (400 bidirectional).
* MI300X data sheet: 7 links x 128 GB/s bidirectional = 896 GB/s aggregate; ROCm MI300 page:
  the 7 links form a fully connected 8-GPU system.
* Intel Gaudi Network Configuration: Gaudi 3 21 x 200 Gb/s scale-up = 525 GB/s per direction,
  1,050 bidirectional; 3 scale-out = 75 / 150. Gaudi 2 at 100 Gb/s: 262.5 and 37.5.
* Cloud TPU v5p: bidirectional ICI per chip 1,200 GB/s (older page: 4,800 Gbps).
* AWS Neuron Trainium2: NeuronLink-v3 1.28 TB/s per chip, direction not stated.
* UALink 200G 1.0: 200 Gb/s per lane, x4 ports; UALink Q&A: <= 150 ns switch target.
"""

import dataclasses
import doctest
import pathlib
import re

import pytest

import interconnect.catalog.fabrics as fab
from interconnect import devices, links
from interconnect.collectives import collective_time

BIB = pathlib.Path(__file__).resolve().parent.parent / "book" / "references.bib"
KEYS = set(re.findall(r"^@\w+\{([^,\s]+),", BIB.read_text(encoding="utf-8"), flags=re.M))
ALL = fab.fabrics()
GB = 1e9


def test_doctests():
    result = doctest.testmod(fab)
    assert result.attempted >= 4 and result.failed == 0


def test_the_brief_is_covered():
    vendors = {f.vendor for f in ALL}
    assert vendors == set(fab.VENDORS)
    assert {"if-mi250x-gcd", "xgmi-mi250x-link", "xgmi-mi300x", "xgmi-mi300x-link", "gaudi2-scale-up",
            "gaudi3-scale-up", "tpu-v4-ici", "tpu-v5p-ici", "neuronlink-v3-trn2", "ualink-1.0-x4",
            "uet-1.0"} <= set(fab.names())


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.name)
def test_every_source_cites_keys_in_references_bib(f):
    assert f.bib_key in KEYS, f"{f.name}: {f.bib_key!r} not in references.bib"
    # every further key the source names (word followed by " (") is in the bib too
    for key in re.findall(r"(?:^|; )([a-z][a-z0-9_]+) \(", f.source):
        assert key in KEYS, f"{f.name}: {key!r} not in references.bib"


@pytest.mark.parametrize("f", ALL, ids=lambda f: f.name)
def test_per_direction_against_the_quoted_figure(f):
    if f.quoted_as == "bidirectional":
        assert f.bidirectional_bandwidth == pytest.approx(f.quoted)
        assert f.bandwidth == pytest.approx(f.quoted / 2)
    elif f.quoted_as == "per direction":
        assert f.bandwidth == f.quoted
    elif f.quoted_as == "unstated":
        assert f.bandwidth is None and f.bidirectional_bandwidth is None
    if f.bandwidth is not None and f.per_link_bandwidth is not None and f.links is not None:
        assert f.bandwidth == pytest.approx(f.links * f.per_link_bandwidth)
    if f.raw_bandwidth is not None:          # AMD, UALink: bytes per transfer x rate, no coding deducted
        assert f.bandwidth == pytest.approx(f.raw_bandwidth)
    if f.kind == "transport":
        assert f.bandwidth is None


@pytest.mark.parametrize("name, per_dir, bidir", [
    ("if-mi250x-gcd", 200, 400), ("xgmi-mi250x-link", 50, 100),
    ("xgmi-mi300x-link", 64, 128), ("xgmi-mi300x", 448, 896),
    ("gaudi2-scale-up", 262.5, 525), ("gaudi2-scale-out", 37.5, 75),
    ("gaudi3-scale-up", 525, 1050), ("gaudi3-scale-out", 75, 150),
    ("tpu-v5p-ici", 600, 1200), ("ualink-1.0-x4", 100, 200),
])
def test_values_from_the_sources(name, per_dir, bidir):
    f = fab.get_fabric(name)
    assert f.bandwidth == pytest.approx(per_dir * GB)
    assert f.bidirectional_bandwidth == pytest.approx(bidir * GB)


def test_line_rates_give_the_port_figures():
    assert 16 * 25e9 / 8 == fab.get_fabric("xgmi-mi250x-link").bandwidth          # 16 wide, 25 GT/s
    assert fab.get_fabric("gaudi3-scale-up").per_link_bandwidth == 200e9 / 8      # 200 GbE MAC rate
    assert fab.get_fabric("gaudi2-scale-up").per_link_bandwidth == 100e9 / 8
    assert fab.get_fabric("gaudi3-scale-up").links + fab.get_fabric("gaudi3-scale-out").links == 24
    assert 4800e9 / 8 == fab.get_fabric("tpu-v5p-ici").bandwidth                   # old page, per direction
    assert fab.get_fabric("ualink-1.0-x4").raw_bandwidth == 4 * 200e9 / 8


def test_unverified_numbers_are_left_out():
    for name in ("tpu-v4-ici", "neuronlink-v3-trn2", "uet-1.0"):
        assert fab.get_fabric(name).bandwidth is None
    assert fab.get_fabric("neuronlink-v3-trn2").quoted == 1280 * GB
    assert fab.get_fabric("tpu-v5p-ici").per_link_bandwidth is None


def test_latency_only_where_a_source_gives_one():
    with_latency = [f.name for f in ALL if f.latency is not None]
    assert with_latency == ["ualink-1.0-x4"]
    u = fab.get_fabric("ualink-1.0-x4")
    assert u.latency == 150e-9 and u.latency_basis in links.LATENCY_BASES


# ----------------------------------------------------------------- GPU records agree
@pytest.mark.parametrize("gpu", ["MI300X", "MI325X"])
def test_amd_gpu_records_point_at_their_fabric(gpu):
    g = devices.get_gpu(gpu)
    f = fab.get_fabric(g.fabric)
    assert f.bandwidth == g.scale_up_bandwidth and f.kind == "scale-up"
    assert g.nvlink is None


def test_every_gpu_fabric_name_resolves_and_nvidia_has_none():
    for g in devices.gpus(through=None):
        if g.vendor == "NVIDIA":
            assert g.fabric is None
        elif g.fabric is not None:
            assert fab.get_fabric(g.fabric).bandwidth == g.scale_up_bandwidth
    assert devices.get_gpu("MI355X").fabric is None      # 153.6 GB/s per link unverified


# ----------------------------------------------------------------- collectives, same model
def test_ring_allreduce_on_8_mi300x_over_one_xgmi_link_is_the_closed_form():
    link = fab.get_fabric("xgmi-mi300x-link")
    n, p, alpha = 1e9, 8, 5e-6
    t = collective_time("allreduce", n, p, link.bandwidth, alpha)
    assert t == pytest.approx(2 * (p - 1) * alpha + 2 * (p - 1) / p * n / (64 * GB))
    # the per-GPU sum over 7 peers is the bound no ring reaches: 7x faster on the bandwidth term
    full = collective_time("allreduce", n, p, fab.get_fabric("xgmi-mi300x").bandwidth, 0.0)
    assert full == pytest.approx(2 * (p - 1) / p * n / (448 * GB))
    assert (t - 2 * (p - 1) * alpha) / full == pytest.approx(7.0)


def test_same_model_as_nvlink():
    n, p = 1e9, 8
    for nvl, amd in (("nvlink4", "xgmi-mi300x"),):
        t_nv = collective_time("allreduce", n, p, links.get_link(nvl).bandwidth, 0.0)
        t_amd = collective_time("allreduce", n, p, fab.get_fabric(amd).bandwidth, 0.0)
        assert t_amd / t_nv == pytest.approx(450 / 448)


def test_gaudi3_alltoall_over_the_3_ports_to_each_peer():
    per_peer = 3 * fab.get_fabric("gaudi3-scale-up").per_link_bandwidth      # 75 GB/s per direction
    n, p = 8e9, 8
    t = collective_time("alltoall", n, p, per_peer * (p - 1), 0.0, algorithm="pairwise")
    assert per_peer == 75 * GB
    assert t == pytest.approx((p - 1) / p * n / (525 * GB))


# ----------------------------------------------------------------- lookups and validation
def test_names_are_case_insensitive():
    assert fab.get_fabric(" XGMI-MI300X ") is fab.get_fabric("xgmi-mi300x")


@pytest.mark.parametrize("bad", ["nvlink4", "xgmi", 3, None])
def test_unknown_name_lists_the_allowed_ones(bad):
    with pytest.raises(ValueError, match="name=") as err:
        fab.get_fabric(bad)
    msg = str(err.value)
    assert f"name={bad!r}" in msg
    if isinstance(bad, str):
        assert "allowed: " + ", ".join(fab.names()) in msg


def test_filters():
    assert [f.name for f in fab.fabrics(kind="transport")] == ["uet-1.0"]
    assert {f.vendor for f in fab.fabrics(vendor="amd")} == {"AMD"}
    with pytest.raises(ValueError, match="allowed: scale-up, scale-out, transport"):
        fab.fabrics(kind="scale-sideways")
    with pytest.raises(ValueError, match="allowed: AMD, Intel"):
        fab.fabrics(vendor="NVIDIA")


def test_records_validate_their_own_consistency():
    base = fab.get_fabric("xgmi-mi300x-link")
    with pytest.raises(ValueError, match="does not follow from"):
        dataclasses.replace(base, bandwidth=128 * GB)          # the bidirectional figure not halved
    with pytest.raises(ValueError, match="go together"):
        dataclasses.replace(base, quoted_as=None)
    with pytest.raises(ValueError, match="does not follow from"):
        dataclasses.replace(fab.get_fabric("neuronlink-v3-trn2"), bandwidth=640 * GB)
    with pytest.raises(ValueError, match="latency"):
        dataclasses.replace(base, latency=1e-6)
    with pytest.raises(ValueError, match="kind='bus' is unknown"):
        dataclasses.replace(base, kind="bus")


def test_link_catalog_listings_are_unchanged():
    names = {l.name for l in links.catalog()}
    assert not names & set(fab.names())
    assert links.families() == ("PCI", "PCIe", "NVLink", "SLI", "CrossFire", "InfiniBand", "Ethernet")
