"""Checks every explorer test file shares (imported by the tests/test_*explorers*.py files)."""

from __future__ import annotations

import numpy as np


def assert_frames_cover_the_static_grid_and_differ(ex):
    """One frame per point of the static grid, no two pictures alike, each with alt text."""
    frames = ex.frames()
    expected = np.prod([len(p.values) for p in ex.params if p.name in ex.static])
    assert len(frames) == expected
    # each slider position shows a different picture (no two frames identical)
    uris = [uri for uri, _, _ in frames.values()]
    assert len(set(uris)) == len(uris)
    # and alt text that names the parameters is there for each
    assert all(alt.strip() for _, alt, _ in frames.values())
    # a readout, where the explorer has one, is text for every frame
    if ex.readout is not None:
        assert all(text.strip() for _, _, text in frames.values())
