"""Tests for interconnect.links.table and plot_timeline: views must agree with the catalog."""

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402
from matplotlib.collections import PathCollection  # noqa: E402

from interconnect import links  # noqa: E402
from interconnect.plots import PALETTE  # noqa: E402

ALL = links.catalog()


def test_public_names_exported():
    assert "table" in links.__all__ and "plot_timeline" in links.__all__


def test_every_entry_appears_exactly_once_in_catalog_order():
    names = [r["name"] for r in links.table()]
    assert names == [l.name for l in ALL]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("family", links.FAMILIES)
def test_family_table_is_the_family_slice(family):
    assert [r["name"] for r in links.table(family)] == [l.name for l in links.catalog(family)]
    assert {r["family"] for r in links.table(family)} == {family}


def test_family_is_case_insensitive_and_validated():
    assert links.table("pcie") == links.table("PCIe")
    with pytest.raises(ValueError, match="family"):
        links.table("Myrinet")


@pytest.mark.parametrize("row", links.table(), ids=lambda r: r["name"])
def test_row_fields_copy_the_link(row):
    link = links.get_link(row["name"])
    assert row["label"] == link.label and row["year"] == link.year
    assert row["lanes"] == link.lanes and row["lane_rate"] == link.lane_rate
    assert row["encoding"] == link.encoding and row["efficiency"] == link.encoding_efficiency
    assert row["bandwidth"] == link.bandwidth and row["latency"] == link.latency
    assert row["source"] == link.source and row["notes"] == link.notes
    assert row["raw_bandwidth"] == link.raw_bandwidth


@pytest.mark.parametrize("row", links.table(), ids=lambda r: r["name"])
def test_bidirectional_is_twice_per_direction(row):
    # links module convention: bidirectional is derived, 2 x per direction for full-duplex links;
    # the half-duplex parallel buses (PCI, AGP) carry one direction at a time: equal
    factor = 2.0 if links.get_link(row["name"]).duplex else 1.0
    assert row["bidirectional_bandwidth"] == pytest.approx(factor * row["bandwidth"], rel=1e-12)


@pytest.mark.parametrize("row", [r for r in links.table()
                                 if r["lanes"] and r["lane_rate"] and r["efficiency"]],
                         ids=lambda r: r["name"])
def test_per_direction_is_lanes_times_rate_times_efficiency(row):
    # usable bandwidth = lanes x lane_rate x encoding efficiency / 8 (links module docstring)
    expected = row["lanes"] * row["lane_rate"] * row["efficiency"] / 8.0
    assert row["bandwidth"] == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("row", [r for r in links.table()
                                 if r["links_per_gpu"] and r["efficiency"] is None],
                         ids=lambda r: r["name"])
def test_per_gpu_nvlink_is_links_times_lanes_times_rate(row):
    # NVIDIA's per-link figure = lanes x per-lane rate / 8, no coding deduction
    expected = row["links_per_gpu"] * row["lanes"] * row["lane_rate"] / 8.0
    assert row["bandwidth"] == pytest.approx(expected, rel=1e-9)


def test_the_formula_check_covers_every_coded_family():
    checked = {r["family"] for r in links.table() if r["lanes"] and r["lane_rate"] and r["efficiency"]}
    assert checked == {"PCI", "PCIe", "InfiniBand", "Ethernet"}


def test_lane_rate_unit_follows_the_family():
    # PCI-SIG quotes GT/s; IBTA, IEEE and NVIDIA quote Gb/s
    for r in links.table():
        assert r["lane_rate_unit"] == ("GT/s" if r["family"] == "PCIe" else "Gb/s")


def test_short_source_is_short_and_keeps_the_primary_reference():
    for r in links.table():
        s = r["source_short"]
        assert s and len(s) <= 112 and "http" not in s
        assert r["source"].startswith(s.split(",")[0].split(" ")[0])
    assert links.table("PCIe")[0]["source_short"].startswith("PCI-SIG")
    assert links.get_link("ib-ndr").source.startswith(links.table("InfiniBand")[-2]["source_short"])
    # a colon inside a quoted title does not end the clause
    assert "'XDMA: Improving Crossfire'" in links.table("CrossFire")[0]["source_short"]


def test_source_url_is_in_the_source():
    for r in links.table():
        if r["source_url"] is not None:
            assert r["source_url"] in r["source"]
            assert r["source_url"][-1] not in ",;.)"


def test_every_entry_has_a_structured_latency_basis_that_its_notes_agree_with():
    """``latency_basis`` is set in the rows, not read from the notes; the notes say the same."""
    for link in ALL:
        assert link.latency_basis in links.LATENCY_BASES, link.name
        assert link.latency_label, link.name
        notes = link.notes
        if link.latency_basis == "model":
            assert "NCCL's hwLat[" in notes and "catalog's one basis" in notes, link.name
            assert link.latency_label.startswith("end-to-end"), link.name
        else:
            assert link.latency_basis == "unpublished", link.name
            assert "not published on the catalog's basis" in notes and "stand-in" in notes, link.name
        assert "UNVERIFIED" not in notes and "UNVERIFIED" not in link.source, link.name


def test_latency_basis_is_validated():
    with pytest.raises(ValueError, match="latency_basis"):
        links.Link(name="x", family="PCIe", label="x", year=2020, bandwidth=1e9, latency=1e-6,
                   source="s", latency_basis="guess")


def test_latency_basis_is_known_for_every_entry():
    bases = {r["name"]: r["latency_basis"] for r in links.table()}
    assert "see notes" not in bases.values()
    assert bases["pcie4x16"] == bases["ib-ndr"] == bases["nvlink4"] == "end-to-end, NCCL model (hwLat, ring LL)"
    assert bases["sli"].startswith("not published") and bases["agp-8x"].startswith("not published")


# --------------------------------------------------------------------- timeline
def _points(ax):
    pts = []
    for c in ax.collections:
        if isinstance(c, PathCollection):
            pts.extend(tuple(map(float, xy)) for xy in c.get_offsets())
    return pts


def test_timeline_draws_one_marker_per_entry():
    ax = links.plot_timeline()
    try:
        pts = _points(ax)
        assert len(pts) == len(ALL)
        expected = sorted((float(l.year), l.bandwidth / 1e9) for l in ALL)
        for (x, y), (ex, ey) in zip(sorted(pts), expected):
            assert x == ex and math.isclose(y, ey, rel_tol=1e-12)
        assert ax.get_yscale() == "log"
        assert ax.get_title() and "GB/s" in ax.get_ylabel() and "per-direction" in ax.get_ylabel()
        assert ax.get_xlabel().startswith("year")
        assert ax.get_legend() is not None
    finally:
        plt.close(ax.figure)


def test_timeline_colours_come_from_the_palette():
    ax = links.plot_timeline()
    try:
        allowed = {matplotlib.colors.to_hex(c) for c in PALETTE}
        for c in ax.collections:
            cols = c.get_facecolors() if len(c.get_facecolors()) else c.get_edgecolors()
            assert {matplotlib.colors.to_hex(x, keep_alpha=False) for x in cols} <= allowed
    finally:
        plt.close(ax.figure)


def test_timeline_family_subset_and_given_axes():
    fig, ax = plt.subplots()
    try:
        out = links.plot_timeline(ax=ax, families=["infiniband", "Ethernet"])
        assert out is ax
        assert len(_points(ax)) == len(links.catalog("InfiniBand")) + len(links.catalog("Ethernet"))
    finally:
        plt.close(fig)


def test_timeline_is_deterministic():
    from interconnect.plots import png_bytes

    images = []
    for _ in range(2):
        ax = links.plot_timeline()
        images.append(png_bytes(ax.figure, dpi=50))
        plt.close(ax.figure)
    assert images[0] == images[1]
