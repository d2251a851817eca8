"""The joint search's states: its two held starts (solver.balance.Balance.joint), the second
(where the requests under spread hold too) continuing the first instead of moving every holding
request in a fresh copy of greedy's state; and a trial move taken back (_Batch.mark / undo,
_improve's accept) without a move back. The same states, so the same answers."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver.balance as balance
from model import Preference, SpreadConstraint
from solver import SolveOptions, solve
from tests.fixtures.batches import drawn_balance_batch, ocm_like
from tests.fixtures.builders import batch, cluster
from tests.fixtures.common import counted_calls

STEADY = Preference(1, held=True)


def _picture(state: balance._Batch) -> tuple:
    """Everything a held start leaves that the search reads."""
    return (
        state.totals.tolist(),
        state.flat.tolist(),
        {i: r.tolist() for i, r in state.members.items()},
        {i: r.tolist() for i, r in state.picks.items()},
        {r: set(s) for r, s in state.holders.items() if s},
        {r: set(s) for r, s in state.member_holders.items() if s},
        list(state.scores),
        state.value,
        state.limits,
        state.most_held,
        state.scoring,
    )


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_held_start_continued_from_an_earlier_one_is_the_start_made_from_greedys(data) -> None:
    prepared, table, coupled, answer = drawn_balance_batch(data, 5)

    first = {i: answer(i) for i in coupled}
    every = {i: answer(i) if data.draw(st.booleans()) else None for i in coupled}
    early = {i: h if h is not None and data.draw(st.booleans()) else None for i, h in every.items()}
    rest = {i: h if early[i] is None else None for i, h in every.items()}
    greedy = balance.Answer(*balance._decide(prepared, table, coupled, {}, lambda i, _: first[i]))
    greedy_own = balance._own(greedy.state, first)
    state, answers, own = balance._held_start(greedy, greedy_own, every)
    kept, kept_answers, kept_own = balance._held_start(greedy, greedy_own, early)
    before = _picture(kept)
    later, later_answers, later_own = balance._held_start(balance.Answer(kept, kept_answers), kept_own, rest)
    assert later_answers == answers and later_own == own
    assert _picture(later) == _picture(state)
    assert _picture(kept) == before  # the earlier start is left as it was


def test_the_second_held_start_moves_only_the_requests_under_spread(monkeypatch) -> None:
    """Three requests hold valid answers, one of them under spread: the first start moves the two
    without spread, the second only the one under spread (before: all three again)."""
    zone = (SpreadConstraint("zone", 1, False),)
    clusters = [cluster(f"c{i}", {"zone": "a" if i % 2 else "b"}) for i in range(6)]
    b = batch(
        clusters,
        ocm_like("p0", 1, Preference(1, balance=True), STEADY, holds=["c1"]),
        ocm_like("p1", 1, Preference(-1, balance=True), holds=["c2"]),
        ocm_like("p2", 2, Preference(1, balance=True), holds=["c3", "c4"], spread=zone),
        ocm_like("p3", 1, Preference(2, balance=True), holds=["c1"]),
    )
    moves = counted_calls(monkeypatch, balance._Batch, "move")
    original = balance._held_start

    def counting(*args):
        at = len(moves)
        out = original(*args)
        held.append(len(moves) - at)
        return out

    held: list[int] = []
    monkeypatch.setattr(balance, "_held_start", counting)
    result = solve(b, SolveOptions(mode="optimal"))
    assert result.stats.objective >= solve(b, SolveOptions(mode="greedy")).stats.objective
    assert held == [3, 1]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_a_trial_move_undone_leaves_the_state_a_move_back_makes(data) -> None:
    prepared, table, coupled, answer = drawn_balance_batch(data, 4)

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
