"""Shared test settings.

Hypothesis's health checks time data generation; on a loaded 2-core CI machine that
can fail a correct test ("too slow"), so the profile used here drops the timing-based
checks. The properties and their example counts are unchanged.

``INTERCONNECT_STATIC_FRAMES=1`` is set by the repository's root ``conftest.py``.
"""

from hypothesis import HealthCheck, settings

settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci")
