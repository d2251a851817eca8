"""Shared test configuration: the hypothesis profiles.

`ci` (the default) bounds the examples of every property test that does not fix its own count, so
the suite stays fast; `HYPOTHESIS_PROFILE=thorough python -m pytest tests/test_properties_systems.py`
runs 400 per property. Tests that pass `max_examples` themselves keep their own count under
either profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

settings.register_profile("ci", max_examples=30, deadline=None, suppress_health_check=_QUIET)
settings.register_profile("thorough", max_examples=400, deadline=None, suppress_health_check=_QUIET)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
