"""The closed-form spread solves' shortcuts give what the plain computations give: nested windows
looked at all in one pass against the passes that narrow them down."""

from __future__ import annotations

import random
from unittest import mock

import pytest

from model import Batch
from solver import spread_nested
from solver.spread import SpreadState
from solver.spread_nested import nests, solve_nested
from tests.builders import batch, held, pick_n, pref, prepared, spread
from tests.test_solver_speed_equivalence import _fleet

SEEDS = range(8)


def _nested_batch(seed: int) -> Batch:
    """Requests under zone and region constraints (either order, hard or soft, skews 1 to 3),
    wanting a few clusters or many, some holding clusters (current or not)."""
    rng = random.Random(seed)
    clusters = _fleet(seed, 400)
    names = [c.name for c in clusters]
    requests = []
    for i in range(12):
        keys = ["region", "zone"] if i % 2 else ["zone", "region"]
        constraints = tuple(spread(k, rng.randrange(1, 4), hard=rng.random() < 0.5) for k in keys)
        existing = [held(n, current=rng.random() < 0.7) for n in rng.sample(names, rng.randrange(0, 6))]
        requests.append(
            pick_n(
                rng.choice((2, 5, 9, 30, 120)),
                f"p{i:02d}",
                preferences=[pref(rng.randrange(1, 50), {"tier": "a"})] if i % 3 else [],
                spread=constraints,
                existing=existing,
                prefer_held=i % 4 == 0,
            )
        )
    return batch(clusters, *requests)


@pytest.mark.parametrize("seed", SEEDS)
def test_nested_windows_in_one_pass_agree_with_the_narrowing_passes(seed: int) -> None:
    table, prepared_requests = prepared(_nested_batch(seed))
    solved = 0
    for p in prepared_requests:
        state = SpreadState(table, p.request.spread, list(p.kept))
        assert nests(table, state)
        want = p.request.count - p.present
        with mock.patch.object(spread_nested, "ALL_PAIRS", 10**12):
            one_pass = solve_nested(p, table, state, p.candidates, want)
        with mock.patch.object(spread_nested, "ALL_PAIRS", -1):
            narrowed = solve_nested(p, table, state, p.candidates, want)
        assert one_pass == narrowed
        solved += bool(one_pass)
    assert solved >= 10
