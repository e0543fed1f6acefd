"""The explorer of the section "Across nodes" of the chapter "Collective communication"."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import collectives as C  # noqa: E402
from interconnect.viz.explorers import collectives as xc  # noqa: E402


def test_frames_cover_the_grid_and_differ():
    assert_frames_cover_the_static_grid_and_differ(xc.multinode_allreduce_explorer(nodes=(2, 8, 64)))


def test_the_curves_are_the_closed_forms():
    ex = xc.multinode_allreduce_explorer(nodes=(2, 8))
    ex._draw({"nic": "ib-ndr", "N": 8})
    ax = ex.fig.axes[0]
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    bi, ai, be, ae = C.hierarchical.cluster_link_parameters("ib-ndr")
    n = lines["two-level, pipelined"].get_xdata()[-1]
    t = C.hierarchical_time("allreduce", n, 8, 8, bi, ai, be, ae)
    assert lines["two-level, pipelined"].get_ydata()[-1] == pytest.approx(C.bus_bandwidth("allreduce", n / t, 64))
    t1 = C.hierarchical_time("allreduce", n, 8, 8, bi, ai, be, ae, chunks=1)
    assert lines["two-level, phases added"].get_ydata()[-1] == pytest.approx(C.bus_bandwidth("allreduce", n / t1, 64))
    assert np.all(lines["two-level, pipelined"].get_ydata() >= lines["two-level, phases added"].get_ydata() * 0.999)
    assert ax.get_title() and ax.get_xlabel() and ax.get_ylabel()
    assert "8 nodes" in ex.alt("ib-ndr", 8)


def test_bad_default():
    with pytest.raises(ValueError, match="default_nic="):
        xc.multinode_allreduce_explorer(default_nic="nvlink4")
