"""Shared test configuration: the hypothesis profiles.

`ci` (the default) bounds the examples of every property test that does not fix its own count, so
the suite stays fast, and draws them from a fixed seed: a checkout passes or fails the same way on
every run, so a red run names a defect of the change, not of the draw. `explore` draws the same
count at random (what found the Karmada bound defect of 08af6cf); `HYPOTHESIS_PROFILE=thorough
python -m pytest tests/test_properties_systems.py` runs 400 per property, at random. Tests that pass
`max_examples` themselves keep their own count under every profile.
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_QUIET = [HealthCheck.too_slow, HealthCheck.data_too_large]

_COMMON = {"deadline": None, "suppress_health_check": _QUIET}

settings.register_profile("ci", max_examples=30, derandomize=True, **_COMMON)
settings.register_profile("explore", max_examples=30, **_COMMON)
settings.register_profile("thorough", max_examples=400, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
