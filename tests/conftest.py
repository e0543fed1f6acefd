"""Shared test settings.

Hypothesis's health checks time data generation; on a loaded 2-core CI machine that
can fail a correct test ("too slow"), so the profile used here drops the timing-based
checks. The properties and their example counts are unchanged.

The explorers' static frames are built only when ``INTERCONNECT_STATIC_FRAMES=1``; the
committed outputs have them, so the tests (nbval among them) set it.
"""

import os

from hypothesis import HealthCheck, settings

# Explorers precompute their static frames only where stored outputs are written or checked
# (interconnect.widgets.static_frames_enabled); nbval's kernels inherit this from pytest.
os.environ.setdefault("INTERCONNECT_STATIC_FRAMES", "1")

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
