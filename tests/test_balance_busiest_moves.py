"""The busiest count the greedy pass's requests see (solver.balance._Batch.most_seen_by), carried
with how many clusters have it from move to move (`_moved_busiest`) instead of read again over
the fleet's counts after each: at every step it is what the counts as they stand give."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import solver.balance as balance
from tests.fixtures.batches import drawn_balance_batch


def _fresh(state: balance._Batch, i: int) -> int:
    """most_seen_by(i) read off the counts alone."""
    most = int(state.totals.max())
    held = state.members.get(i, balance._NONE)
    if most == 0 or not len(held):
        return most
    busiest = np.flatnonzero(state.totals == most)
    return most - 1 if set(busiest.tolist()) <= set(held.tolist()) else most


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_the_busiest_count_carried_through_moves_is_the_counts_own(data) -> None:
    """Drawn batches (five clusters, counts rising and falling by the requests' moves, answers
    drawn again and again): after each move, every request's busiest count is the one the counts
    give, and a carried busiest count and its clusters are the counts' maximum and how many have
    it. Fails where a cluster going down from the busiest count is not carried (`n + 1 == most`
    read as `n == most`)."""
    prepared, table, coupled, answer = drawn_balance_batch(data, 4)
    assume(coupled)
    state = balance._Batch(table, coupled, prepared)
    for i, p in enumerate(prepared):
        state.hold(i, balance.holdings(p, table, state.absent))
    for _ in range(data.draw(st.integers(1, 12))):
        asked = data.draw(st.sampled_from(range(len(prepared))))
        assert state.most_seen_by(asked) == _fresh(state, asked)
        mover = data.draw(st.sampled_from(coupled))
        state.move(mover, answer(mover))
        known = state._busiest
        if known is not None:
            most = int(state.totals.max())
            assert known == (most, int(np.count_nonzero(state.totals == most)))
        for i in range(len(prepared)):
            assert state.most_seen_by(i) == _fresh(state, i)
