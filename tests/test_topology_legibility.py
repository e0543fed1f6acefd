"""The topology drawings of the NVLink, RDMA clusters and Topology chapters keep their smallest
text at 9 px or more in the book's 672 px column: drawn with ``legend="below"`` at the chapters'
figure sizes, the saved PNG (100 dpi, tight box, as the notebooks' inline backend saves it) is
narrow enough that 7.5 pt labels (CPU and host names) show at >= 9 px."""

import io
import os
import struct

os.environ.setdefault("MPLBACKEND", "Agg")

import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

from interconnect import topology as T  # noqa: E402
from interconnect.viz.topology import MIN_FONT  # noqa: E402

COLUMN_PX = 672  # main column of the HTML book at its default width (measured in Chromium)
SMALLEST_PT = 7.5  # CPU and host labels drawn on their markers


def _png_width(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    plt.close(fig)
    return struct.unpack(">II", buf.getvalue()[16:24])[0]


@pytest.mark.parametrize("build, figsize", [
    (lambda: T.dgx1_hybrid_cube_mesh(with_pcie=True), (7, 4.2)),   # NVLink and Topology
    (lambda: T.fat_tree(4), (7.6, 3.8)),                           # Topology
    (lambda: T.cluster(2, 4), (7, 4.2)),                           # Topology, rails
    (lambda: T.cluster(2, 4, rail_optimized=False), (7, 4.3)),     # RDMA clusters, one of two stacked panels
])
def test_chapter_drawings_keep_text_at_9_px(build, figsize):
    fig, ax = plt.subplots(figsize=figsize)
    T.draw(build(), ax=ax, title="a title of ordinary length for the drawing", legend="below")
    width = _png_width(fig)
    scale = min(1.0, COLUMN_PX / width)
    smallest = SMALLEST_PT * 100 / 72 * scale
    assert smallest >= 9.0, f"{width} px wide: smallest text {smallest:.1f} px"
    assert MIN_FONT * 100 / 72 * scale >= 9.0


def test_legend_right_is_wider_than_below():
    fig, ax = plt.subplots(figsize=(7, 4.2))
    T.draw(T.cluster(2, 4), ax=ax)
    right = _png_width(fig)
    fig, ax = plt.subplots(figsize=(7, 4.2))
    T.draw(T.cluster(2, 4), ax=ax, legend="below")
    assert _png_width(fig) < right


def test_legend_rejects_other_places():
    with pytest.raises(ValueError, match="legend"):
        T.draw(T.ring(4), legend="left")
    plt.close("all")
