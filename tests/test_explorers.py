"""The book's explorers: they build, every static frame differs where it should, and
drawing by blitting gives exactly the pixels of a fresh full draw."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402

from interconnect import explorers  # noqa: E402

MAKERS = [getattr(explorers, name) for name in explorers.__all__]


@pytest.mark.parametrize("make", MAKERS, ids=explorers.__all__)
def test_frames_cover_the_static_grid_and_differ(make):
    ex = make()
    frames = ex.frames()
    expected = np.prod([len(p.values) for p in ex.params if p.name in ex.static])
    assert len(frames) == expected
    # each slider position shows a different picture (no two frames identical)
    uris = [uri for uri, _ in frames.values()]
    assert len(set(uris)) == len(uris)
    # and alt text that names the parameters is there for each
    assert all(alt.strip() for _, alt in frames.values())


@pytest.mark.parametrize("make", MAKERS, ids=explorers.__all__)
def test_blitting_matches_a_full_redraw(make):
    """Blitted frames must not keep traces of the previous state."""
    ex = make()
    p0, p1 = ex.params[0], ex.params[1]
    a = {p0.name: p0.values[0], p1.name: p1.values[-1]}
    b = {p0.name: p0.values[-1], p1.name: p1.values[0]}
    ex._draw(a)
    blitted = ex._draw(b).copy()
    fresh = make()
    direct = fresh._draw(b).copy()
    assert blitted.shape == direct.shape
    assert np.array_equal(blitted, direct)


def test_explorer_rejects_a_default_link_not_offered():
    with pytest.raises(ValueError, match="default_link"):
        explorers.dp_scaling_explorer(link_names=("pcie3x16",), default_link="nvlink4")
    with pytest.raises(ValueError, match="default_link"):
        explorers.allreduce_explorer(link_names=("pcie3x16",), default_link="nvlink4")
