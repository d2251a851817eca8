"""The soak test's short profile: a small hub driven through a few hundred seeded events, with
every check of bench/soak.py (state against a full solve, the checkpoint's event against a full
solve, churn beyond the forced moves, memory after the warm-up). The full profile runs from bench/:
`python -m bench.soak --events 10000 --clusters 2000 --placements 400`."""

from __future__ import annotations

import pytest

from bench.soak import KINDS, MEMORY_GROWTH_LIMIT, run_soak


@pytest.fixture(scope="module")
def report():
    return run_soak(events=400, clusters=120, placements=40, seed=3, check_every=100)


def test_a_short_soak_passes_every_check(report) -> None:
    assert report.failures == []
    assert report.checks["churn"] == 400
    for check in ("state = full solve", "bindings = full solve", "event = full solve"):
        assert report.checks[check] == 4
    assert report.checks["memory flat"] == 1
    assert report.memory_growth <= MEMORY_GROWTH_LIMIT
    assert report.churn["beyond forced"] == 0


def test_the_stream_holds_every_kind_of_event_and_time_passes(report) -> None:
    assert sum(row["count"] for row in report.kinds.values()) == 400
    assert all(report.kinds[kind]["count"] > 0 for kind in KINDS)
    assert report.simulated_s > 5 * 60  # long enough for a silent agent to time out
    assert report.world["agents silenced"] > 0
    # the forced moves the churn accounting licenses did happen
    assert report.churn["forced: cluster removed or leaving"] > 0


def test_the_stream_is_deterministic() -> None:
    a = run_soak(events=60, clusters=60, placements=20, seed=5, check_every=30)
    b = run_soak(events=60, clusters=60, placements=20, seed=5, check_every=30)
    assert {k: v["count"] for k, v in a.kinds.items()} == {k: v["count"] for k, v in b.kinds.items()}
    assert (a.churn, a.hub_end, a.simulated_s) == (b.churn, b.hub_end, b.simulated_s)
