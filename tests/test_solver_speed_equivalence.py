"""The solver's shortcuts give what the plain computations they replace give: the shared ranking
and the partial sorts against full sorts, per-cell spread scores against per-row ones, and greedy
spread cycles picked by cells against cycles that score every candidate."""

from __future__ import annotations

import random
from unittest import mock

import numpy as np
import pytest

from model import Batch, SpreadConstraint
from solver.greedy import _Cells, solve_greedy
from solver.solution import best_first, best_rows, pick_order, ranked, without
from solver.spread import SpreadState
from tests.fixtures.batches import nested_fleet
from tests.fixtures.builders import batch, cluster, held, pick_n, pref, prepared, spread

SEEDS = range(6)


def _batch(seed: int) -> Batch:
    rng = random.Random(seed)
    clusters = nested_fleet(seed)
    names = [c.name for c in clusters]
    constraints: tuple[SpreadConstraint, ...] = (spread("zone", 1, hard=False), spread("region", 2))
    requests = [
        pick_n(
            rng.randrange(2, 12),
            f"p{i}",
            preferences=[pref(rng.randrange(1, 50), {"tier": "a"})] if i % 2 else [],
            spread=constraints[: 1 + i % 2] if i % 3 else (),
            existing=[held(n, current=bool(j % 2)) for j, n in enumerate(rng.sample(names, i % 4))],
            prefer_held=True,
        )
        for i in range(8)
    ]
    return batch(clusters, *requests)


def _prepared(seed: int):
    b = _batch(seed)
    return b, *prepared(b)


@pytest.mark.parametrize("seed", SEEDS)
def test_ranked_and_best_rows_agree_with_a_full_sort(seed: int) -> None:
    _, table, prepared = _prepared(seed)
    for p in prepared:
        rows = p.candidates
        full = pick_order(p, table, rows)
        assert ranked(p, table, rows).tolist() == full.tolist()
        for k in (0, 1, 5, 40, len(rows)):
            assert best_rows(p, table, rows, k).tolist() == full[:k].tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_best_first_agrees_with_a_full_sort(seed: int) -> None:
    _, table, prepared = _prepared(seed)
    rng = np.random.default_rng(seed)
    for p in prepared:
        rows = p.candidates
        topo = rng.integers(-3, 1, len(rows))
        order = np.lexsort((p.rank[rows], p.sticky[rows], p.affinity[rows], topo))[::-1]
        for k in (0, 1, 7, 20, len(rows)):
            assert best_first(p, table, rows, topo, p.sticky, k).tolist() == order[:k].tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_without_is_setdiff(seed: int) -> None:
    _, _, prepared = _prepared(seed)
    rng = random.Random(seed)
    for p in prepared:
        rows = p.candidates
        drop = rng.sample(rows.tolist(), min(5, len(rows))) + [10_000]  # one not among them
        assert without(rows, drop).tolist() == np.setdiff1d(rows, drop, assume_unique=True).tolist()


@pytest.mark.parametrize("seed", SEEDS)
def test_cell_scores_agree_with_row_scores(seed: int) -> None:
    b, table, prepared = _prepared(seed)
    for p in prepared:
        if not p.request.spread:
            continue
        state = SpreadState(table, p.request.spread, [*p.kept, *p.candidates[:3].tolist()])
        rows = np.arange(table.size)
        score, violated = state.score(rows)
        slots = list(zip(*(d.slots[rows].tolist() for d in state.dimensions), strict=True))
        expected = list(zip(score.tolist(), violated.tolist(), strict=True))
        assert state.cell_scores(slots) == expected


@pytest.mark.parametrize("seed", SEEDS)
def test_the_best_cell_is_the_best_of_the_cell_scores(seed: int) -> None:
    """SpreadState.best_cell (a cycle's pick among the cells, judged per cell) against every
    cell's `cell_scores` and the pick rule over them, held counts moved pick by pick."""
    rng = random.Random(seed)
    _, table, prepared = _prepared(seed)
    for p in prepared:
        if not p.request.spread:
            continue
        state = SpreadState(table, p.request.spread, list(p.kept))
        rows = np.arange(table.size)
        cells = sorted(set(zip(*(d.slots[rows].tolist() for d in state.dimensions), strict=True)))
        values = rng.sample(range(10 * len(cells)), len(cells))
        for row in rng.sample(range(table.size), 12):
            left = [rng.randrange(3) for _ in cells]
            expected = None
            for cell, (score, violated) in enumerate(state.cell_scores(cells)):
                if violated < 0 and left[cell] and (expected is None or (score, values[cell]) > expected[2:]):
                    expected = (cell, score, score, values[cell])
            assert state.best_cell(cells, left, values) == (expected and expected[:2])
            state.add(row)


@pytest.mark.parametrize("seed", SEEDS)
def test_greedy_cycles_by_cells_pick_as_scoring_every_candidate(seed: int) -> None:
    _, table, prepared = _prepared(seed)
    spread_requests = [p for p in prepared if p.request.spread]
    assert spread_requests
    by_cells = [solve_greedy(p, table, 20) for p in spread_requests]
    with mock.patch.object(_Cells, "pick", lambda self, state: None):  # every cycle scores all
        by_rows = [solve_greedy(p, table, 20) for p in spread_requests]
    assert by_cells == by_rows


def test_a_request_held_under_an_older_policy_is_ranked_without_sharing() -> None:
    """An obsolete holding preferred by the request makes its order its own, not the shared one."""
    clusters = [cluster(f"c{i:03d}", {"zone": f"z{i % 3}"}) for i in range(300)]
    request = pick_n(3, existing=[held("c001", current=False)], prefer_held=True, spread=(spread("zone"),))
    b = batch(clusters, request, pick_n(3, "q", spread=(spread("zone"),)))
    table, (p, q) = prepared(b)
    assert p.ranking is q.ranking and q.ranking.serves(q) and not p.ranking.serves(p)
    assert ranked(p, table, p.candidates)[0] == 1  # the obsolete holding first
