"""The book's explorers: they build, every static frame differs where it should, and
drawing by blitting gives exactly the pixels of a fresh full draw."""

import os

os.environ.setdefault("MPLBACKEND", "Agg")

import numpy as np  # noqa: E402
import pytest  # noqa: E402
from explorer_checks import assert_frames_cover_the_static_grid_and_differ  # noqa: E402

from interconnect import explorers  # noqa: E402

MAKERS = [getattr(explorers, name) for name in explorers.__all__]


@pytest.mark.parametrize("make", MAKERS, ids=explorers.__all__)
def test_frames_cover_the_static_grid_and_differ(make):
    assert_frames_cover_the_static_grid_and_differ(make())


@pytest.mark.parametrize("make", MAKERS, ids=explorers.__all__)
def test_blitting_matches_a_full_redraw(make):
    """Blitted frames must not keep traces of the previous state."""
    ex = make()
    p0 = ex.params[0]
    a = {p0.name: p0.values[0]}
    b = {p0.name: p0.values[-1]}
    if len(ex.params) > 1:
        p1 = ex.params[1]
        a[p1.name], b[p1.name] = p1.values[-1], p1.values[0]
    ex._draw(a)
    blitted = ex._draw(b).copy()
    fresh = make()
    direct = fresh._draw(b).copy()
    assert blitted.shape == direct.shape
    assert np.array_equal(blitted, direct)


def test_ring_animation_ends_with_every_sum_everywhere():
    # after 2(p-1) steps of the ring schedule every chunk of every rank holds all p contributions
    for p in (3, 4, 5, 8):
        states, sends, phases, rounds = explorers._ring_states(p)
        assert rounds == 2 * (p - 1)
        assert all(c == 1 for row in states[0] for c in row)  # each rank holds only its own data
        # after the reduce-scatter (p - 1 steps) each rank holds exactly one fully summed chunk
        assert all(sum(c == p for c in row) == 1 for row in states[p - 1])
        assert all(c == p for row in states[-1] for c in row)  # every sum on every rank
        assert all(len(s) == p for s in sends[:-1])  # every rank sends in every step
    ex = explorers.ring_allreduce_animation(4)
    assert ex.params[0].values == tuple(range(7))
    with pytest.raises(ValueError, match="p=9"):
        explorers.ring_allreduce_animation(9)


def test_explorer_rejects_a_default_link_not_offered():
    with pytest.raises(ValueError, match="default_link"):
        explorers.dp_scaling_explorer(link_names=("pcie3x16",), default_link="nvlink4")
    with pytest.raises(ValueError, match="default_link"):
        explorers.allreduce_explorer(link_names=("pcie3x16",), default_link="nvlink4")
