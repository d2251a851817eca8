"""A Balance-scored request's scores on its candidates (solver/balance.py _Batch.bonus with
`ordered`, _found): its own decisions found by searching them in the sorted rows give the scores
the search of every row in them (_among) gives."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import balance
from tests.fixtures.batches import drawn_balance_batch


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_ordered_bonus_is_the_bonus(data) -> None:
    prepared, table, coupled, answer = drawn_balance_batch(data, 5)
    first = {i: answer(i) for i in coupled}
    scoring = data.draw(st.booleans())
    state, _ = balance._decide(prepared, table, coupled, {}, lambda i, _: first[i])
    state.scoring = scoring
    for i in coupled:
        every = np.arange(state.totals.size, dtype=np.int64)
        some = np.asarray(sorted(data.draw(st.sets(st.sampled_from(every.tolist())))), dtype=np.int64)
        for rows in (prepared[i].candidates, every, some):
            want = (
                state.weight[i]
                * balance._table_of(max(state.most_seen_by(i), 0))[
                    state.totals[rows] - balance._among(rows, state.members.get(i, balance._NONE))
                ]
            )
            assert state.bonus(i, rows, ordered=True).tolist() == want.tolist()
            assert state.bonus(i, rows).tolist() == want.tolist()


def test_own_decisions_are_found_where_they_are_among_the_rows() -> None:
    rows = np.array([1, 4, 6, 9], dtype=np.int64)
    assert balance._found(rows, np.array([0, 4, 9, 12], dtype=np.int64)).tolist() == [1, 3]
    assert balance._found(rows, np.array([5], dtype=np.int64)).tolist() == []
    assert balance._found(rows, balance._NONE).tolist() == []
    assert balance._found(rows[:0], np.array([3], dtype=np.int64)).tolist() == []
