"""Greedy's answer to a coupled request with a Balance weight of 0 is its best response where no
search answers it (solver.api answers such a request with greedy's own solve, on the same
scores: its own): remembered from the greedy pass, the Balance search's asks solve nothing more;
the same answers, levels and bound."""

from __future__ import annotations

import pytest

import solver.api
import solver.balance as balance
from model import ExistingDecision, PlacementRequest, Preference, SelectionMode, TieBreak
from solver import SolveOptions, solve
from tests.fixtures.builders import batch, cluster, term
from tests.fixtures.common import counted_calls


def coupled(name: str, n: int, holds: str, group: int, weighted: bool) -> PlacementRequest:
    balance_pref = (Preference(1, balance=True),) if weighted else ()
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=n,
        required=(term({"g": str(group)}),),
        preferences=(*balance_pref, Preference(1, held=True)),
        existing=(ExistingDecision(holds, current=False),),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def hub(n: int = 40, groups: int = 6, size: int = 5):
    """Requests each confined to a group of clusters (a required label), holding one of them;
    every other one with no Balance preference (weight 0, coupled all the same)."""
    clusters = [cluster(f"c{g}-{j}", {"g": str(g)}) for g in range(groups) for j in range(size)]
    requests = [
        coupled(f"p{i:02}", 1 + i % 2, f"c{i % groups}-{i % size}", i % groups, weighted=i % 2 == 0)
        for i in range(n)
    ]
    return batch(clusters, *requests)


@pytest.mark.parametrize("bound", [True, False])
def test_greedys_answer_is_remembered_where_it_is_the_best_response(monkeypatch, bound: bool) -> None:
    b = hub()
    options = SolveOptions(bound=bound)
    monkeypatch.setattr(solver.api, "_RUNS_UP_TO", 0)  # no repeat answered by solver.api `_Runs`
    monkeypatch.setattr(balance._Responses, "greedy", lambda *args: None)  # nothing remembered
    calls = counted_calls(monkeypatch, solver.api, "solve_greedy")
    every = solve(b, options)
    solved_every = len(calls)
    monkeypatch.undo()
    monkeypatch.setattr(solver.api, "_RUNS_UP_TO", 0)
    calls = counted_calls(monkeypatch, solver.api, "solve_greedy")
    remembered = solve(b, options)
    assert remembered.requests == every.requests
    assert (remembered.stats.objective, remembered.stats.bound) == (every.stats.objective, every.stats.bound)
    assert remembered.stats.levels == every.stats.levels
    assert len(calls) == solved_every - 20  # each weight-0 request's first ask


@pytest.mark.parametrize("alone", [True, False])
def test_the_busiest_count_is_read_once_while_the_counts_stand(monkeypatch, alone: bool) -> None:
    """Greedy's pass asks each request's busiest count (_Batch.most_seen_by): how many clusters
    have it is counted over the fleet once (an alone pass moves none), and carried through the
    moves (`_Batch._moved_busiest`), counted again only where none is left at it; every request
    sees what the counts as they stand give it."""
    b = hub(n=24)
    table = solver.api.ClusterTable(b)
    prepared = solver.api.prepare(b, table)
    found: list[int] = []
    count_nonzero = balance.np.count_nonzero

    def choose(i: int, state: balance._Batch):
        def counting(a):  # the counts read in full: every cluster's compared with the busiest count
            if len(a) == len(state.totals):
                found.append(1)
            return count_nonzero(a)

        monkeypatch.setattr(balance.np, "count_nonzero", counting)
        most = state.most_seen_by(i)
        monkeypatch.setattr(balance.np, "count_nonzero", count_nonzero)
        kept, state._busiest = state._busiest, None  # as found afresh
        assert state.most_seen_by(i) == most
        state._busiest = kept
        return solver.api.solve_greedy(state.scored(i), table, 0)

    coupled = balance.coupled_requests(prepared)
    assert len(coupled) == len(prepared)  # every request coupled: none fixed
    balance._decide(prepared, table, coupled, {}, choose, alone=alone)
    assert len(found) == 1  # (before the moves carried it: again after each move)
