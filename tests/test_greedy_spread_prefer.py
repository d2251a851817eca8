"""Upstream's first cycle under topology spread where the request prefers its obsolete decisions
(solver.greedy._spread_cycles): picked by the spread cells with those rows' keys raised for that
pick alone (`_Cells.prefer`), not by scoring every candidate, with the same answer."""

from __future__ import annotations

from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver.greedy as greedy
from model import PlacementRequest
from solver.prepare import prepare
from solver.spread import SpreadState
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, zone_rack_spread
from tests.fixtures.common import counted_calls


def _request(count: int, max_skew: int, hard: bool, holds: list[str]) -> PlacementRequest:
    """Holding `holds` as obsolete decisions (re-decided), which it prefers."""
    return zone_rack_spread(count, max_skew, hard, holds, current=False, prefer_held=True)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_first_cycle_by_cells_picks_as_scoring_every_candidate(data) -> None:
    """Obsolete decisions preferred in the first cycle, on any scores (as the Balance search makes
    them, ties included): the cycles by cells pick, score, release and restore as every cycle
    scoring every candidate does, explained or not. Fails where `prefer` leaves the obsolete rows'
    keys as they are (`value = int(self.values[at])`, no `+ self.step`)."""
    n = data.draw(st.integers(2, 24))
    zones = data.draw(st.lists(st.sampled_from("abc"), min_size=n, max_size=n))
    racks = data.draw(st.lists(st.sampled_from("xy"), min_size=n, max_size=n))
    clusters = [cluster(f"c{i:02}", {"zone": zones[i], "rack": racks[i]}) for i in range(n)]
    names = [c.name for c in clusters]
    holds = data.draw(st.lists(st.sampled_from(names), unique=True, min_size=1, max_size=4))
    count, skew, hard = data.draw(st.integers(2, n)), data.draw(st.integers(1, 2)), data.draw(st.booleans())
    request = _request(count, skew, hard, holds)
    b = batch(clusters, request)
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    assert p.sticky.any()
    scores = data.draw(st.lists(st.integers(-2, 2), min_size=n, max_size=n))
    p = p.scored_as(np.asarray(scores, dtype=np.int64))
    for limit in (0, 5):
        by_cells = greedy._spread_cycles(p, table, limit)
        with mock.patch.object(greedy._Cells, "pick", lambda self, state: None):  # every cycle scores all
            by_rows = greedy._spread_cycles(p, table, limit)
        assert by_cells == by_rows


def test_the_first_cycle_preferring_obsolete_decisions_scores_no_candidate(monkeypatch) -> None:
    """Three picks with nothing to explain, two obsolete decisions held (one of them the pick of
    the first cycle, on scores where it is not its cell's best by key alone): no cycle scores
    every candidate (before: the first one did). Fails where a cycle preferring obsolete decisions
    skips the cells (`and not preferring` back in the cells' condition)."""
    clusters = [cluster(f"c{i:02}", {"zone": "abc"[i % 3], "rack": f"r{i % 2}"}) for i in range(12)]
    b = batch(clusters, _request(3, 1, True, ["c07", "c10"]))
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    p = p.scored_as(np.zeros(12, dtype=np.int64))  # all tied: the held rows win by their preference
    with mock.patch.object(greedy._Cells, "pick", lambda self, state: None):
        expected = greedy._spread_cycles(p, table, 0)
    scored = counted_calls(monkeypatch, SpreadState, "score")
    silent = greedy._spread_cycles(p, table, 0)
    assert not scored
    assert silent == expected
    assert silent.picks[0] == table.index["c07"]  # not its cell's head (c01) by key alone
