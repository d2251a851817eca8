"""The weight 0 move of the joint Balance search (solver.balance_swap): a request whose Balance
weight is 0 never moves by its own best response, yet its picks move the others' Balance."""

from __future__ import annotations

import numpy as np
from hypothesis import event, given, settings
from hypothesis import strategies as st

from solver import SolveOptions, balance, solve
from solver.balance_swap import batch_swap
from solver.objective import combine, evaluate, scale_of
from solver.prepare import prepare
from solver.solution import Solution, pick_order
from solver.table import ClusterTable
from tests.fixtures.batches import balance_batch, balance_hubs, shortfalls_of_every_answer
from tests.fixtures.batches import balance_request as request

# c (weight 0) scores c1 100, c3 40 (held), c2 19 and c0 0 (held) for itself, whatever the others
# hold. The search starts from what the requests hold (c on c0 and c3) and c's best response
# (c1 and c3) costs the others more than it gains, so before the move c stayed on c0. The batch is
# best with c on c2 beside b (weight -4: it wants company), b's weight paying c's way.
CROWDED = [request("a", 1, 0, ("c1", "c2")), request("b", 2, -4, ("c2",)), request("c", 2, 0, ("c0", "c3"))]


def test_a_weight_0_request_takes_the_cluster_the_others_balance_pays_for() -> None:
    b = balance_batch(CROWDED)
    result = solve(b, SolveOptions())
    levels = tuple(level.objective for level in result.stats.levels)
    assert levels == min(shortfalls_of_every_answer(b)) == (0, 0, 160, 5, 14)
    picked = {key: sorted(c.cluster for c in got.selected) for key, got in result.by_request().items()}
    assert picked == {"ns/a": ["c1"], "ns/b": ["c1", "c2"], "ns/c": ["c2", "c3"]}
    greedy = solve(b, SolveOptions(mode="greedy"))
    assert result.stats.objective > greedy.stats.objective


def _judged(b, answers: dict[int, Solution]) -> tuple[int, tuple[int, ...]]:
    """The batch objective and the summed level shortfalls of an answer, judged from nothing (every
    request holding what it held, then taking its answer, in batch order)."""
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = balance.coupled_requests(prepared)
    state, _ = balance._decide(prepared, table, coupled, {}, lambda i, _: answers[i])
    objective, short = 0, [0] * 5
    for i, p in enumerate(prepared):
        scale = scale_of(p, table)
        values = evaluate(state.scored(i), table, scale, answers[i].kept, answers[i].picks)
        objective += combine(values, scale.spans)
        short = [s + span - v for s, span, v in zip(short, scale.spans, values, strict=True)]
    return objective, tuple(short)


@settings(max_examples=80, deadline=None)
@given(balance_hubs(8), st.randoms(use_true_random=False))
def test_a_swap_offered_raises_the_objective_and_keeps_the_summed_levels(requests, rng) -> None:
    """Property: from any answer of a random small hub, what the move offers a weight 0 request,
    judged from nothing, strictly raises the batch objective and leaves the summed levels
    lexicographically no worse; its state is left as it was."""
    b = balance_batch(requests)
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = balance.coupled_requests(prepared)
    state, answers = balance._decide(prepared, table, coupled, {}, lambda i, _: _any(prepared[i], table, rng))
    for i in coupled:
        totals, value = state.totals.copy(), state.value
        offered = batch_swap(state, i, answers[i])
        assert (state.totals == totals).all() and state.value == value
        event(f"offered: {offered is not None}")
        if offered is None:
            continue
        before, after = _judged(b, answers), _judged(b, {**answers, i: offered})
        assert after[0] > before[0]
        assert after[1][2:] <= before[1][2:] and after[1][:2] == before[1][:2]


def _any(p, table, rng) -> Solution:
    """Some answer of a top-N request: `count` of its candidates, in pick order."""
    rows = rng.sample(p.candidates.tolist(), p.request.count)
    return Solution(kept=[], picks=[int(r) for r in pick_order(p, table, np.asarray(rows))])
