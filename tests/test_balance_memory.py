"""Balance keeps no request's scores of every cluster longer than it needs them: a large batch has
thousands of coupled requests, each scored against ten thousand clusters (80 KB a request)."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest

import solver.balance as balance
from model import ExistingDecision, PlacementRequest, Preference, SelectionMode, TieBreak
from solver import SolveOptions, solve
from solver.objective import evaluate, scale_of
from solver.prepare import Prepared, prepare
from solver.solution import Solution, to_result
from solver.table import ClusterTable
from tests.fixtures.builders import batch, numbered


def coupled(name: str, n: int, holds: tuple[str, ...] = ()) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=n,
        preferences=(Preference(1, balance=True), Preference(1, held=True)),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def hub():
    requests = [coupled(f"p{i}", 1 + i % 3, holds=(f"cluster-{1 + i % 5}",)) for i in range(12)]
    return batch(numbered(8), *requests)


@pytest.mark.parametrize("mode", ["optimal", "greedy"])
def test_scores_made_for_an_answer_are_freed_once_it_is_reported(
    monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    made: list[weakref.ref] = []
    scored = balance._Batch.scored

    def recorded(self: balance._Batch, i: int) -> Prepared:
        p = scored(self, i)
        if p is not self.base[i]:  # a copy with this answer's scores
            made.append(weakref.ref(p.affinity))
        return p

    settle = balance.Balance.settle
    alive_after_settle: list[int] = []

    def counted(self: balance.Balance, part: list[int], answer: balance.Answer):
        out = settle(self, part, answer)
        gc.collect()
        alive_after_settle.append(sum(ref() is not None for ref in made))
        return out

    monkeypatch.setattr(balance._Batch, "scored", recorded)
    monkeypatch.setattr(balance.Balance, "settle", counted)
    result = solve(hub(), SolveOptions(mode=mode))
    assert made and alive_after_settle == [0]  # every request reported, none of its scores kept
    assert all(r.selected for r in result.requests)


def test_a_result_does_not_keep_its_scores_alive() -> None:
    b = hub()
    table = ClusterTable(b)
    p = prepare(b, table)[0]
    scored = Prepared(**{f: getattr(p, f) for f in p.__slots__})
    scored.affinity = p.affinity + np.arange(table.size)
    ref = weakref.ref(scored.affinity)
    result = to_result(scored, table, Solution(kept=[], picks=[0]))
    del scored
    gc.collect()
    assert ref() is None
    assert [c.cluster for c in result.selected] == ["cluster-1"]


def test_sums_and_choices_of_many_picks_do_not_keep_their_scores_alive() -> None:
    b = batch(numbered(20), coupled("p", 12))
    table = ClusterTable(b)
    p = prepare(b, table)[0]
    scored = Prepared(**{f: getattr(p, f) for f in p.__slots__})
    scored.affinity = p.affinity + np.arange(table.size)
    ref = weakref.ref(scored.affinity)
    picks = list(range(12))  # more than a few: the sums and the choices are cached by the list
    values = evaluate(scored, table, scale_of(p, table), [], picks)
    result = to_result(scored, table, Solution(kept=[], picks=picks))
    del scored
    gc.collect()
    assert ref() is None
    assert values[2] - scale_of(p, table).offsets[2] == int(p.affinity[:12].sum()) + sum(range(12))
    assert [c.score.affinity for c in result.selected] == [int(p.affinity[r]) + r for r in range(12)]
