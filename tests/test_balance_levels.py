"""Balance's levels in optimal mode keep what a level bound promises (model.LevelStats): level 1's
bound holds for every answer, level k's for every answer at least as good as the reported one on
each of levels 1..k-1. Checked against every joint answer of small batches, enumerated, Balance
judged on each answer's own decisions."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings

from model import LevelStats
from solver import SolveOptions, solve
from solver.objective import LEVEL_NAMES
from tests.fixtures.batches import BALANCE_CASES as CASES
from tests.fixtures.batches import balance_batch as small
from tests.fixtures.batches import balance_hubs, shortfalls_of_every_answer
from tests.fixtures.batches import balance_request as request

# Four requests on four clusters, the busiest count 1 to 4 across the answers. b (weight 0) is at
# its own best answer whatever the others hold, but another answer, as good on the summed levels
# before the name's, gives b a better-ranked cluster: b's own name level is no bound there.
CROWDING = [
    request("a", 1, -3, ("c0",)),
    request("b", 1, 0),
    request("c", 2, 2, ("c1",)),
    request("d", 1, 1, ("c0",)),
]
# Found by a search over random small hubs, each with an answer better on every level before the
# name's and better on the name than the bound 2d4dc6b reported (a request's own lexicographic
# optimum is no bound once the others can make up its affinity).
TRADED = {
    "two": [request("a", 1, -4, ("c3",)), request("b", 2, 4, ("c0",))],
    "three, weight 0": [
        request("a", 1, -4, ("c1",)),
        request("b", 1, -4, ("c3",)),
        request("c", 2, 0, ("c0", "c3")),
    ],
    "three, no weight 0": [
        request("a", 1, -3, ("c0", "c1")),
        request("b", 2, 3, ("c0", "c3")),
        request("c", 1, 3, ("c2",)),
    ],
}


def assert_the_promise(levels: Sequence[LevelStats], every: list[tuple[int, ...]]) -> None:
    """Each level's bound is at most the level of every answer that is at least as good as the
    reported one on every level before it (level 1: every answer)."""
    reported = [level.objective for level in levels]
    assert reported in [list(answer) for answer in every]  # the answer is one of them
    for k, level in enumerate(levels):
        assert level.bound is None or level.bound <= level.objective, level.name
        reaching = [a for a in every if all(a[j] <= reported[j] for j in range(k))]
        if level.bound is not None:
            assert level.bound <= min(a[k] for a in reaching), level.name


@pytest.mark.parametrize(
    "requests", [*CASES.values(), CROWDING, *TRADED.values()], ids=[*CASES, "crowding", *TRADED]
)
def test_every_level_has_a_bound_that_keeps_the_promise(requests) -> None:
    b = small(requests)
    levels = solve(b, SolveOptions()).stats.levels
    assert [level.name for level in levels] == list(LEVEL_NAMES)
    assert all(level.bound is not None for level in levels)
    assert_the_promise(levels, shortfalls_of_every_answer(b))


@settings(max_examples=60, deadline=None)
@given(balance_hubs(4))
def test_every_level_bound_keeps_the_promise_on_small_hubs(requests) -> None:
    """Property: on random small hubs every level's bound holds for every answer at least as good
    as the reported one on the levels before it."""
    b = small(requests)
    assert_the_promise(solve(b, SolveOptions()).stats.levels, shortfalls_of_every_answer(b))
