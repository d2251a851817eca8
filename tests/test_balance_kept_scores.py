"""The Balance search keeps a request's scored copy while its scores cannot change (no candidate's
count moved, the same holdings, the same busiest count seen), so that a best response asked again
on it is known, and greedy's answer is remembered as the best response where it is one (solver.api
answers a request needing no search with greedy's own solve): the same answers, fewer solves."""

from __future__ import annotations

import numpy as np
import pytest

import solver.api
import solver.balance as balance
from model import ExistingDecision, PlacementRequest, Preference, SelectionMode, TieBreak
from solver import SolveOptions, solve
from solver.prepare import prepare
from solver.solution import Solution
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, numbered, term
from tests.fixtures.common import counted_calls


def coupled(name: str, n: int, holds: tuple[str, ...] = (), group: int | None = None) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=n,
        required=() if group is None else (term({"g": str(group)}),),
        preferences=(Preference(1, balance=True), Preference(1, held=True)),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def hub(n: int = 12, clusters: int = 8):
    requests = [coupled(f"p{i}", 1 + i % 3, holds=(f"cluster-{1 + i % 5}",)) for i in range(n)]
    return batch(numbered(clusters), *requests)


def grouped(n: int = 40, groups: int = 6, size: int = 5):
    """Requests each confined to a group of clusters (a required label), holding one of them: a
    move within one group changes no count another group's requests read, unless it moves the
    fleet's busiest count."""
    clusters = [cluster(f"c{g}-{j}", {"g": str(g)}) for g in range(groups) for j in range(size)]
    requests = [
        coupled(f"p{i:02}", 1 + i % 2, holds=(f"c{i % groups}-{i % size}",), group=i % groups)
        for i in range(n)
    ]
    return batch(clusters, *requests)


def _state(keep: bool, b=None):
    b = b or hub()
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = list(range(len(prepared)))
    state = balance._Batch(table, coupled, prepared, keep)
    for i, p in enumerate(prepared):
        state.hold(i, balance.holdings(p, table, state.absent))
    return state, table


def test_a_requests_scores_are_kept_until_a_count_it_reads_moves() -> None:
    """The same object while nothing it reads moved; scored afresh (equal to a state that keeps
    nothing) once another request moves onto one of its candidates, or it moves itself."""
    state, table = _state(keep=True)
    plain, _ = _state(keep=False)
    first = state.scored(0)
    assert state.scored(0) is first and plain.scored(0) is not plain.scored(0)
    # Request 5 moves within rows request 0 never reads? Every row is a candidate here: any
    # move of another request changes a count request 0 reads.
    for s in (state, plain):
        s.move(5, Solution(kept=[], picks=[6]))
    again = state.scored(0)
    assert again is not first
    assert np.array_equal(again.affinity, plain.scored(0).affinity)
    assert not np.array_equal(again.affinity, first.affinity)
    assert state.scored(0) is again
    # A move that leaves every count as it was (the same rows again) keeps the scores.
    state.move(5, Solution(kept=[], picks=[6]))
    assert state.scored(0) is again
    for s in (state, plain):
        s.move(0, Solution(kept=[], picks=[7]))  # its own holdings
    assert state.scored(0) is not again
    assert np.array_equal(state.scored(0).affinity, plain.scored(0).affinity)
    assert table.size == 8


@pytest.mark.parametrize("scoring", [False, True])
def test_a_move_onto_a_candidate_from_elsewhere_changes_its_scores(scoring: bool) -> None:
    """A request of another group moving onto one of request 0's candidates (the busiest count as
    it was), in the greedy pass or the search: request 0 is scored afresh (the new row marked,
    not only the row left)."""
    state, table = _state(True, grouped())
    plain, _ = _state(False, grouped())
    if scoring:
        for s in (state, plain):
            s.begin_scoring()
    first = state.scored(0)
    most = state.most_seen_by(0)
    candidates = state.base[0].candidates
    inside = int(candidates[np.argmin(state.totals[candidates])])  # the least held: no new busiest
    assert inside not in state.members[1].tolist() and int(state.members[1][0]) not in candidates
    for s in (state, plain):
        s.move(1, Solution(kept=[], picks=[inside]))
    assert state.most_seen_by(0) == most
    assert state.scored(0) is not first
    assert np.array_equal(state.scored(0).affinity, plain.scored(0).affinity)
    assert table.names[inside].startswith("c0-")


def test_kept_scores_are_let_go_once_settled() -> None:
    result = solve(hub(), SolveOptions())
    assert all(r.selected for r in result.requests)


@pytest.mark.parametrize("bound", [True, False])
def test_greedys_answer_is_remembered_where_it_is_the_best_response(monkeypatch, bound: bool) -> None:
    """Top-N requests under Balance: each ask on scores unchanged since the request's greedy turn
    is greedy's answer, not solved again; the results, levels and bound as when every ask solves."""
    b = grouped()
    options = SolveOptions(bound=bound)
    monkeypatch.setattr(balance._Responses, "greedy", lambda *args: None)  # nothing remembered
    calls = counted_calls(monkeypatch, solver.api, "solve_greedy")
    every = solve(b, options)
    solved_every = len(calls)
    monkeypatch.undo()
    calls = counted_calls(monkeypatch, solver.api, "solve_greedy")
    remembered = solve(b, options)
    assert remembered.requests == every.requests
    assert (remembered.stats.objective, remembered.stats.bound) == (every.stats.objective, every.stats.bound)
    assert remembered.stats.levels == every.stats.levels
    assert len(calls) < solved_every
