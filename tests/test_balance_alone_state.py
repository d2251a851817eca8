"""An alone greedy pass (SolveOptions.alone: each request chooses against every other holding what
it holds, nothing moves after) keeps none of the state only moves, scoring and the objective read
(solver.balance._decide: no move slots, no row holders, no scales, no scoring begun): its answers
and reports are those of the full state, and its levels count 0 (judged, not measured)."""

from __future__ import annotations

import numpy as np

import solver.balance as balance
from model import Preference
from solver import SolveOptions
from solver.api import solve
from solver.prepare import prepare
from solver.solution import Solution
from solver.table import ClusterTable
from tests.fixtures.batches import ocm_like
from tests.fixtures.builders import batch, cluster


def _batch():
    names = [f"c{i}" for i in range(6)]
    requests = [
        ocm_like(f"p{k}", 1 + k % 3, Preference(w, balance=True), Preference(1, held=True), holds=h)
        for k, (w, h) in enumerate(
            [(2, ("c0", "c1")), (-1, ("c1",)), (1, ()), (2, ("c2", "c3", "c4")), (1, ("c0",))]
        )
    ]
    return batch([cluster(n) for n in names], *requests)


def _full_decide(prepared, table, coupled, fixed, choose, alone=False):
    """_decide as it was before the alone state was kept small: the full state, scoring begun."""
    state = balance._Batch(table, coupled, prepared)
    for i, p in enumerate(prepared):
        state.hold(i, balance.holdings(p, table, state.absent))
    answers = {}
    for i in range(len(prepared)):
        if i in set(coupled):
            answers[i] = choose(i, state)
            if not alone:
                state.move(i, answers[i])
        elif not alone:
            state.move(i, fixed[i])
    state.begin_scoring()
    return state, answers


def _answers(result) -> list:
    return [
        (
            r.request,
            [(c.cluster, c.score) for c in r.selected],
            [(u.cluster, u.kind, u.score) for u in r.unselected],
        )
        for r in result.requests
    ]


def test_an_alone_pass_keeps_no_moving_state_and_answers_as_the_full_state(monkeypatch) -> None:
    """Five OCM-like requests (Balance -1 to 2, Steady) on six clusters: the alone state holds every
    request's holdings and the busiest count but no move slots, row holders or scales, and begins
    no scoring; the alone solve's answers and reports equal those the full state gives, and its
    levels and objective are 0. Fails where `_decide` begins the alone state's scoring (its
    `if not alone:` dropped), or where the alone settle reads a scale (`state.scales[i]`)."""
    b = _batch()
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = balance.coupled_requests(prepared)
    assert len(coupled) == 5
    seen = []

    def choose(i: int, state: balance._Batch) -> Solution:
        seen.append(state.most_seen_by(i))
        return Solution(kept=[], picks=[int(r) for r in prepared[i].candidates[: prepared[i].request.count]])

    state, answers = balance._decide(prepared, table, coupled, {}, choose, alone=True)
    assert not state.scoring and state.scales == {} and state.worth == []
    assert not state.member_holders and not state.holders and len(state.flat) == 0
    assert sorted(answers) == coupled
    assert int(state.totals.sum()) == sum(len(balance.holdings(p, table, state.absent)) for p in prepared)
    full, _ = _full_decide(prepared, table, coupled, {}, choose, alone=True)
    assert np.array_equal(full.totals, state.totals)
    assert seen[: len(coupled)] == seen[len(coupled) :]  # each request saw the same busiest count

    options = SolveOptions(mode="greedy", alone=True)
    got = solve(_batch(), options)
    assert got.stats.objective == 0 and all(level.objective == 0 for level in got.stats.levels)
    monkeypatch.setattr(balance, "_decide", _full_decide)
    want = solve(_batch(), options)
    assert _answers(got) == _answers(want)
