"""Upstream's cycles under topology spread (solver.greedy._spread_cycles) with nothing to explain
(limit 0, the Balance search's and the optimal mode's greedy answers): the last cycle picks by the
spread cells too instead of scoring every available candidate, with the same answer."""

from __future__ import annotations

from dataclasses import replace
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


def _request(count: int, max_skew: int, hard: bool, holds: list[str], current: bool) -> PlacementRequest:
    return zone_rack_spread(count, max_skew, hard, holds, current=current, prefer_held=False)


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


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_cells_pick_as_scoring_every_candidate_on_any_scores(data) -> None:
    """The cells' heads found by their greatest keys, not sorted: the same picks as every cycle
    scoring every candidate, on scores as the Balance search makes them (any integers)."""
    n = data.draw(st.integers(2, 30))
    clusters = [
        cluster(
            f"c{i:02}", {"zone": data.draw(st.sampled_from("abc")), "rack": data.draw(st.sampled_from("xy"))}
        )
        for i in range(n)
    ]
    request = _request(
        data.draw(st.integers(2, n)), data.draw(st.integers(1, 2)), data.draw(st.booleans()), [], False
    )
    b = batch(clusters, request)
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    scores = data.draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n))
    p = p.scored_as(np.asarray(scores, dtype=np.int64))
    by_cells = greedy._spread_cycles(p, table, 0)
    with mock.patch.object(greedy._Cells, "pick", lambda self, state: None):  # every cycle scores all
        by_rows = greedy._spread_cycles(p, table, 0)
    assert (by_cells.picks, by_cells.spread_scores, by_cells.released) == (
        by_rows.picks,
        by_rows.spread_scores,
        by_rows.released,
    )


def test_the_cells_sort_no_candidate_by_its_key(monkeypatch) -> None:
    """A Balance-scored request (its scores its own: no shared ranking serves it): the cells are
    grouped (a radix sort of int16 cell numbers) and their heads found, with no sort of the
    candidates' pick keys (before: one of every available candidate)."""
    clusters = [cluster(f"c{i:03}", {"zone": "abc"[i % 3], "rack": f"r{i % 2}"}) for i in range(300)]
    b = batch(clusters, _request(4, 1, True, [], False))
    table = ClusterTable(b)
    (p,) = prepare(b, table)
    p = p.scored_as(np.arange(300, dtype=np.int64) % 7)
    sorted_kinds: list[str] = []
    argsort = np.argsort

    def recording(a, *args, **kwargs):
        sorted_kinds.append(np.asarray(a).dtype.name)
        return argsort(a, *args, **kwargs)

    monkeypatch.setattr(np, "argsort", recording)
    cells = greedy._Cells(p, table, SpreadState(table, p.request.spread, []), p.candidates)
    assert sorted_kinds == ["int16"]
    picks = [cells.pick(SpreadState(table, p.request.spread, [])) for _ in range(3)]
    assert all(pick is not None for pick in picks)


class _Compared(np.ndarray):
    """An outcome array counting the comparisons made of it (a mask of every cluster each)."""

    compared = 0

    def __eq__(self, other):  # type: ignore[override]
        _Compared.compared += 1
        return np.asarray(self) == other


def test_a_run_with_nothing_to_explain_explains_nothing_nor_masks_the_fleet(monkeypatch) -> None:
    """Nothing to explain (limit 0, the runs pass's and the Balance search's): the cycles read the
    candidates (shared rows) less the picks, with no mask of the available clusters made over
    the whole fleet, and the last cycle makes no report."""
    clusters = [cluster(f"c{i}", {"zone": "abc"[i % 3], "rack": f"r{i % 2}"}) for i in range(12)]
    for count in (1, 3):
        b = batch(clusters, _request(count, 1, True, ["c1"], False))
        table = ClusterTable(b)
        (p,) = prepare(b, table)
        explained = greedy._spread_cycles(p, table, 5)
        p = replace(p, outcome=p.outcome.view(_Compared))
        explaining = counted_calls(monkeypatch, greedy, "explain_cycle")
        _Compared.compared = 0
        silent = greedy._spread_cycles(p, table, 0)
        assert not explaining and not _Compared.compared
        assert (silent.picks, silent.spread_scores, silent.released, silent.restored) == (
            explained.picks,
            explained.spread_scores,
            explained.released,
            explained.restored,
        )
        monkeypatch.undo()
