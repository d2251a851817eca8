"""A Balance search's trial move taken back (solver.balance._Batch.mark / undo, _improve's
accept): the state a move back to the earlier answer would make again, without making it."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver.balance as balance
from model import Preference
from solver.prepare import prepare
from solver.solution import Solution
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster
from tests.test_balance import STEADY, ocm_like
from tests.test_balance_held_starts import _picture


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_trial_move_undone_leaves_the_state_a_move_back_makes(data) -> None:
    names = [f"c{i}" for i in range(5)]
    requests = [
        ocm_like(
            f"p{k}",
            data.draw(st.integers(1, 3)),
            Preference(data.draw(st.integers(-2, 2)), balance=True),
            STEADY,
            holds=data.draw(st.lists(st.sampled_from(names), max_size=3, unique=True)),
        )
        for k in range(4)
    ]
    b = batch([cluster(n) for n in names], *requests)
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = balance.coupled_requests(prepared)

    def answer(i: int) -> Solution:
        rows = data.draw(st.permutations(prepared[i].candidates.tolist()))
        return Solution(kept=[], picks=rows[: prepared[i].request.count])

    first = {i: answer(i) for i in coupled}
    state, answers = balance._decide(prepared, table, coupled, {}, lambda i, _: first[i])
    for _ in range(3):  # a few trials in turn, each undone
        i = data.draw(st.sampled_from(coupled))
        trial = answer(i)
        before = _picture(state)
        back = state.copy()
        back.move(i, trial)
        back.move(i, answers[i])
        mark = state.mark(i)
        state.move(i, trial)
        state.undo(i, mark)
        assert _picture(state) == before
        assert _picture(state)[:-2] == _picture(back)[:-2]  # a move back keeps the larger most_held
        # and the search goes on from it as from the state moved back
        if data.draw(st.booleans()):
            other = answer(i)
            back.move(i, other)
            state.move(i, other)
            answers[i] = other
            assert _picture(state)[:-2] == _picture(back)[:-2]
