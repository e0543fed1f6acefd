"""The chapter "Other fabrics": its explorer (frames, blitting), its comparison table and the
models it shares with the exercises (interconnect.viz.explorers.other_fabrics).

Expected values: the catalog records (interconnect.catalog.fabrics, interconnect.links) and
the closed forms of the ring AllReduce, 2(p-1)(alpha + n/(pB)), and of the all-at-once
AllToAll on a full mesh, alpha + n/(pB) per link.
"""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import collectives as C  # noqa: E402
from interconnect import netsim  # noqa: E402
from interconnect import topology as T  # noqa: E402
from interconnect.catalog.fabrics import get_fabric  # noqa: E402
from interconnect.viz.explorers import other_fabrics as X  # noqa: E402

GB = 1e9
ALPHA = T.ASSUMED_LATENCY


@pytest.fixture(scope="module")
def explorer():
    return X.fabric_allreduce_explorer()


def test_frames_cover_the_static_grid_and_differ(explorer):
    assert_frames_cover_the_static_grid_and_differ(explorer)


def test_blitting_matches_a_full_redraw(explorer):
    p0, p1 = explorer.params
    explorer._draw({p0.name: p0.values[0], p1.name: p1.values[-1]})
    b = {p0.name: p0.values[-1], p1.name: p1.values[0]}
    blitted = explorer._draw(b).copy()
    assert np.array_equal(blitted, X.fabric_allreduce_explorer()._draw(b).copy())


def test_systems_match_the_catalog():
    s = X.eight_way_systems()
    mi, g3 = s["MI300X (xGMI mesh)"], s["Gaudi 3 (RoCE all-to-all)"]
    assert mi.per_device == get_fabric("xgmi-mi300x").bandwidth == 448 * GB and mi.per_peer == 64 * GB
    assert g3.per_device == 525 * GB and g3.per_peer == 75 * GB
    assert s["DGX H100 (NVSwitch)"].per_peer == s["DGX H100 (NVSwitch)"].per_device == 450 * GB


@pytest.mark.parametrize("name", ["MI300X (xGMI mesh)", "Gaudi 3 (RoCE all-to-all)", "Gaudi 2 (RoCE all-to-all)"])
def test_allreduce_on_meshes_against_closed_forms(name):
    sy = X.eight_way_systems()[name]
    n, p = 2.0 ** 30, 8
    ring = netsim.domain_allreduce_time(sy.graph, n, "ring")
    assert ring == pytest.approx(C.collective_time("allreduce", n, p, sy.per_peer, ALPHA), rel=1e-9)
    rings = netsim.domain_allreduce_time(sy.graph, n, "rings")
    assert rings == pytest.approx(C.collective_time("allreduce", n, p, 6 * sy.per_peer, ALPHA), rel=1e-9)
    # direct: two all-at-once exchanges of n/p per peer, each alpha + n/(p B_pair)
    direct = netsim.domain_allreduce_time(sy.graph, n, "direct")
    assert direct == pytest.approx(2 * (ALPHA + n / p / sy.per_peer), rel=1e-9)
    # its bandwidth term is the one-port model at the per-device sum
    assert direct - 2 * ALPHA == pytest.approx(C.collective_time("allreduce", n, p, sy.per_device, 0.0), rel=1e-9)
    with pytest.raises(ValueError, match="algorithm"):
        netsim.domain_allreduce_time(sy.graph, n, "tree")


def test_on_a_switch_all_rings_are_one_ring():
    sy = X.eight_way_systems()["DGX H100 (NVSwitch)"]
    n = 2.0 ** 30
    rings, ring = (netsim.domain_allreduce_time(sy.graph, n, a) for a in ("rings", "ring"))
    assert rings == pytest.approx(ring, rel=1e-9)


def test_comparison_table_every_cell_from_a_record():
    rows = X.comparison_rows()
    assert all(len(r) == len(X.COMPARISON_HEADERS) for r in rows)
    by = {r[0]: r for r in rows}
    mi = by[get_fabric("xgmi-mi300x").label]
    assert mi[3:6] == ("448", "64", "896 GB/s bidirectional")
    # what no source gives per direction is "not published", never a number
    for name in ("tpu-v4-ici", "neuronlink-v3-trn2"):
        assert by[get_fabric(name).label][3] == X.NOT_PUBLISHED
    assert by[get_fabric("neuronlink-v3-trn2").label][5] == "1280 GB/s direction not stated"
    assert by[get_fabric("tpu-v5p-ici").label][3:5] == ("600", X.NOT_PUBLISHED)
    mi250 = by[get_fabric("xgmi-mi250x-link").label]
    assert mi250[3] == "not uniform" and mi250[4].startswith("50 or 100 where linked, 200")   # 1, 2 or 4 links
    for r in rows:
        if r is mi250:
            continue
        for cell in r[3:5]:
            if cell[0].isdigit():
                float(cell)               # a plain per-direction number in GB/s
