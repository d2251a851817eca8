"""Balance's levels in optimal mode: every level has a bound, and each bound holds against every
joint answer of a small batch (enumerated, Balance judged on each answer's own decisions)."""

from __future__ import annotations

import pytest

from solver import SolveOptions, solve
from solver.objective import LEVEL_NAMES
from tests.fixtures.batches import BALANCE_CASES as CASES
from tests.fixtures.batches import balance_batch as small
from tests.fixtures.batches import shortfalls_of_every_answer


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_level_has_a_bound_that_no_answer_beats(case: str) -> None:
    b = small(CASES[case])
    levels = solve(b, SolveOptions()).stats.levels
    assert [level.name for level in levels] == list(LEVEL_NAMES)
    assert all(level.bound is not None for level in levels)
    every = shortfalls_of_every_answer(b)
    for k, level in enumerate(levels):
        assert level.bound <= level.objective
        if k >= 2:  # affinity, obsolete, name: bounds for every answer, each level alone
            assert level.bound <= min(answer[k] for answer in every), level.name
