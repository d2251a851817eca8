"""The hub soak's short profile: each system's small hub driven through seeded random events by the
long-lived scheduler (adapters.live.hub.HubScheduler), with every check of bench/hub_soak.py (the
state what a full solve may change every 50 events, no move beyond the forced ones and optimal
never worse than greedy after every event, memory flat). The figures at fleet scale run from
bench/: `python -m bench.hub_soak --events 1000 --profiles P --hub FILE` (docs/bench/hub_soak.md)."""

from __future__ import annotations

import pytest

from bench.hub_soak import PROFILES, render, run_hub_soak

EVENTS = 100


@pytest.fixture(scope="module", params=PROFILES)
def report(request):
    return run_hub_soak(
        request.param, events=EVENTS, clusters=10, placements=12, seed=1, check_every=50, trace=True
    )


def test_a_short_soak_passes_every_check(report) -> None:
    assert report.failures == []
    assert report.checks["fixed point"] == EVENTS // 50
    assert report.checks["moves"] == EVENTS
    assert report.checks["memory flat"] == 1
    assert report.memory_flat


def test_the_stream_holds_every_kind_of_event(report) -> None:
    assert sum(report.kinds.values()) == EVENTS
    assert len(report.kinds) >= 6
    assert all(count > 0 for count in report.kinds.values())
    assert "| " + report.profile + " |" in render([report])


def test_the_stream_and_the_deltas_are_deterministic() -> None:
    a = run_hub_soak("openmcp", events=40, seed=4, check_every=20)
    b = run_hub_soak("openmcp", events=40, seed=4, check_every=20)
    assert (a.kinds, a.hub_end, a.checks, a.digest) == (b.kinds, b.hub_end, b.checks, b.digest)
    assert a.digest
