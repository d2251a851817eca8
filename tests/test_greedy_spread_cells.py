"""Upstream's cycles under topology spread (solver.greedy._spread_cycles) with nothing to explain
(limit 0, the Balance search's and the optimal mode's greedy answers): the last cycle picks by the
spread cells too instead of scoring every available candidate, with the same answer."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver.greedy as greedy
from model import ExistingDecision, PlacementRequest, Preference, SelectionMode, SpreadConstraint, TieBreak
from solver.prepare import prepare
from solver.spread import SpreadState
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster
from tests.fixtures.common import counted_calls


def _request(count: int, max_skew: int, hard: bool, holds: list[str], current: bool) -> PlacementRequest:
    return PlacementRequest(
        "p",
        namespace="ns",
        mode=SelectionMode.N,
        count=count,
        preferences=(Preference(1, held=True),),
        existing=tuple(ExistingDecision(c, current=current) for c in holds),
        spread=(SpreadConstraint("zone", max_skew, hard), SpreadConstraint("rack", 1, False)),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_answer_with_nothing_to_explain_is_the_answer_explained(data) -> None:
    n = data.draw(st.integers(2, 9))
    zones = data.draw(st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=n, max_size=n))
    racks = data.draw(st.lists(st.sampled_from(["r1", "r2"]), min_size=n, max_size=n))
    clusters = [
        cluster(f"c{i}", {k: v for k, v in (("zone", zones[i]), ("rack", racks[i])) if v}) for i in range(n)
    ]
    holds = data.draw(st.lists(st.sampled_from([c.name for c in clusters]), unique=True, max_size=2))
    request = _request(
        data.draw(st.integers(1, n)),
        data.draw(st.integers(1, 2)),
        data.draw(st.booleans()),
        holds,
        data.draw(st.booleans()),
    )
    b = batch(clusters, request)
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    silent, explained = greedy._spread_cycles(p, table, 0), greedy._spread_cycles(p, table, 20)
    assert (silent.kept, silent.picks, silent.spread_scores, silent.released) == (
        explained.kept,
        explained.picks,
        explained.spread_scores,
        explained.released,
    )
    assert (silent.satisfied, silent.restored) == (explained.satisfied, explained.restored)
    assert silent.unselected == []


def test_the_last_cycle_with_nothing_to_explain_scores_no_candidate(monkeypatch) -> None:
    """Three picks, nothing held: every cycle picks by cells (before: the last scored them all)."""
    clusters = [cluster(f"c{i}", {"zone": "abc"[i % 3], "rack": f"r{i % 2}"}) for i in range(12)]
    b = batch(clusters, _request(3, 1, True, [], False))
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    explained = greedy._spread_cycles(p, table, 5)
    scored = counted_calls(monkeypatch, SpreadState, "score")
    silent = greedy._spread_cycles(p, table, 0)
    assert not scored
    assert (silent.picks, silent.spread_scores) == (explained.picks, explained.spread_scores)
    assert len(silent.picks) == 3
