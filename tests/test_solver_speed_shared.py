"""Shortcuts through what requests share give what the plain computations give: candidates as a
shared verdict's rows less the held ones (in pick order, their count and affinity range), one
list and tuple of choices for all-clusters requests, twins found without hashing every decision,
and the cluster frame's string columns built in one go."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import replace
from types import MappingProxyType

import numpy as np
import polars as pl
import pytest

from model import Batch, Cluster, SelectionMode
from solver.objective import Scale, scale_of
from solver.prepare import PASS, Prepared, _twin, affinity_extremes
from solver.solution import best_candidates, best_rows, pick_order, ranked, ranked_candidates, to_result
from solver.spread import SOFT_VIOLATION
from solver.table import ClusterTable
from tests.fixtures.batches import nested_fleet
from tests.fixtures.builders import batch, cluster, held, pick_all, pick_n, pref, prepared, spread, taint

SEEDS = range(6)


def _batch(seed: int) -> Batch:
    """Requests alike in filters and scores that hold different clusters (current or not, some
    tainted, some holding the best clusters), all-clusters ones among them, and twins."""
    rng = random.Random(seed)
    clusters = nested_fleet(seed, 300)
    clusters = [
        Cluster(c.name, c.labels, taints=(taint("gpu"),)) if rng.random() < 0.05 else c for c in clusters
    ]
    names = [c.name for c in clusters]
    best = sorted((c.name for c in clusters if c.labels.get("tier") == "a"), reverse=True)[:6]
    requests = []
    for i in range(14):
        count = rng.sample(names, i % 5) + (best[: rng.randrange(4)] if i % 3 == 0 else [])
        existing = [held(n, current=rng.random() < 0.8) for n in sorted(set(count))]
        kw = {
            "preferences": [pref(rng.randrange(1, 50), {"tier": "a"})] if i % 2 else [],
            "existing": existing,
            "spread": (spread("zone", 1, hard=False),) if i % 4 == 1 else (),
        }
        wanted = rng.randrange(2, 12)

        def make(name: str, kw=kw, all_=i % 4 == 3, wanted=wanted):
            return pick_all(name, **kw) if all_ else pick_n(wanted, name, **kw)

        requests.append(make(f"p{i:02d}"))
        if i % 5 == 0:  # a twin: the same policy and holdings under another name
            requests.append(make(f"p{i:02d}-twin"))
        if i % 5 == 1 and existing:  # the same clusters held, one decision otherwise
            flipped = [held(existing[0].cluster, current=not existing[0].current), *existing[1:]]
            requests.append(make(f"p{i:02d}-other", {**kw, "existing": flipped}))
    return batch(clusters, *requests)


def _prepared(seed: int) -> tuple[Batch, ClusterTable, list[Prepared]]:
    b = _batch(seed)
    return b, *prepared(b)


@pytest.mark.parametrize("seed", SEEDS)
def test_base_less_held_rows_are_the_candidates(seed: int) -> None:
    _, _, prepared = _prepared(seed)
    assert any(p.held_out and p.base is not None for p in prepared)
    for p in prepared:
        if p.base is not None:
            expected = np.setdiff1d(p.base, p.held_out)
            assert p.candidates.tolist() == expected.tolist()
            assert p.held_out == sorted(p.held_out)


@pytest.mark.parametrize("seed", SEEDS)
def test_candidates_in_pick_order_agree_with_a_full_sort(seed: int) -> None:
    _, table, prepared = _prepared(seed)
    for p in prepared:
        full = pick_order(p, table, p.candidates)
        assert ranked_candidates(p, table).tolist() == full.tolist()
        assert ranked(p, table, p.candidates).tolist() == full.tolist()
        for k in (0, 1, 3, 20, len(full), len(full) + 5):
            assert best_candidates(p, table, k).tolist() == full[:k].tolist()
            assert best_candidates(p, table, k).tolist() == best_rows(p, table, p.candidates, k).tolist()


def _plain_scale(p: Prepared, table: ClusterTable) -> Scale:
    """scale_of with the candidates' count and affinity range read off their own array (the
    requests here have no balance preference)."""
    candidates = np.flatnonzero(p.outcome == PASS)
    lowest, highest = affinity_extremes(p.affinity, candidates)
    if p.request.mode is SelectionMode.N:
        picks = min(max(0, p.request.count - p.present), len(candidates))
    else:
        picks = len(candidates)
    low, high = min(lowest, 0), max(highest, 0)
    assert scale_of(p, table).spans[0] == p.present + picks
    most = p.present + picks
    ceiling = sum((1 + (0 if s.hard else SOFT_VIOLATION)) * most for s in p.request.spread)
    return Scale(
        picks,
        (most, ceiling, picks * (high - low), picks, picks * table.size),
        (p.present, ceiling, -picks * low, 0, 0),
    )


@pytest.mark.parametrize("seed", SEEDS)
def test_scale_agrees_with_one_from_the_candidates_array(seed: int) -> None:
    _, table, prepared = _prepared(seed)
    for p in prepared:
        assert scale_of(p, table) == _plain_scale(p, table)
        # Every row with the highest affinity held: read off the ends instead.
        if p.base is not None and p.ranking is not None and p.ranking.serves(p) and len(p.base):
            top = p.affinity[p.base].max()
            tops = [int(r) for r in p.base if p.affinity[r] == top]
            if len(tops) < len(p.base):
                q = Prepared(
                    p.request,
                    p.outcome.copy(),
                    p.affinity,
                    p.obsolete,
                    p.rank,
                    p.sticky,
                    kept=dict(p.kept),
                    base=p.base,
                    held_out=sorted(set(p.held_out) | set(tops)),
                    ranking=p.ranking,
                )
                q.outcome[q.held_out] = 4  # HELD
                assert scale_of(q, table) == _plain_scale(q, table)


@pytest.mark.parametrize("seed", SEEDS)
def test_results_agree_with_choices_built_one_by_one(seed: int) -> None:
    """to_result's shared lists and tuples (twins, all-clusters requests less held rows) against a
    table that has shared nothing yet."""
    b, table, prepared = _prepared(seed)
    from solver.greedy import solve_greedy

    solutions = [solve_greedy(p, table, b.explain_limit) for p in prepared]
    shared = [to_result(p, table, s) for p, s in zip(prepared, solutions, strict=True)]
    for p, s, got in zip(prepared, solutions, shared, strict=True):
        fresh = ClusterTable(b)
        alone = to_result(p, fresh, s)
        assert got == alone
        assert [c.cluster for c in got.selected if not c.kept] == [table.names[r] for r in s.picks]


@pytest.mark.parametrize("seed", SEEDS)
def test_twins_are_the_first_equal_signature(seed: int) -> None:
    b = _batch(seed)
    requests = b.requests
    first: dict = {}
    expected = [first.setdefault(r.signature(), i) for i, r in enumerate(requests)]
    buckets: dict = {}
    assert [_twin(requests, i, buckets) for i in range(len(requests))] == expected
    assert len(set(expected)) < len(expected)  # some twins


class _Frozen(Mapping):
    def __init__(self, data: dict) -> None:
        self._data = MappingProxyType(dict(data))

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self) -> int:
        return len(self._data)


@pytest.mark.parametrize("frozen", [False, True])
def test_string_columns_agree_with_one_series_per_key(frozen: bool) -> None:
    clusters = [
        cluster("a", {"region": "east", "zone": "e1", "other": "x"}),
        cluster("b", {"zone": "w1"}),
        cluster("c"),
    ]
    if frozen:
        clusters = [Cluster(c.name, _Frozen(c.labels)) for c in clusters]
    b = batch(clusters, pick_n(1, spread=(spread("region"), spread("zone"), spread("missing"))))
    frame = ClusterTable(b).frame
    for key in ("region", "zone", "missing"):
        column = frame.get_column(f"l\x00{key}")
        assert column.dtype == pl.String
        assert column.to_list() == [c.labels.get(key) for c in clusters]
    assert "l\x00other" not in frame.columns


def test_all_clusters_choices_sharing_scores_make_each_rows_choice_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lists of many picks under one scores array (a join's all-clusters requests): each row's
    choice is made once per table (solver.solution._row_choices), and every list's choices are
    the ones made row by row against a table that has shared nothing."""
    from solver import solution

    b = batch(nested_fleet(3, 300), pick_all("all", preferences=[pref(7, {"tier": "a"})]))
    table, (p,) = prepared(b)
    rng = random.Random(5)
    lists = [sorted(rng.sample(range(table.size), k)) for k in (200, 150, 260, 40)]
    made: list[int] = []
    scored = solution._scored_choices
    monkeypatch.setattr(
        solution, "_scored_choices", lambda p, t, picks, s, r: made.extend(picks) or scored(p, t, picks, s, r)
    )
    got = [solution._plain_choices(p, table, picks) for picks in lists]
    assert sorted(made) == sorted(set().union(*lists))  # each row once
    for picks, choices in zip(lists, got, strict=True):
        assert choices == tuple(scored(p, ClusterTable(b), picks, {}, frozenset()))
    # another scores array: its own rows' choices, and only the last array's are kept
    other = replace(p, affinity=p.affinity + 1)
    assert solution._row_choices(other, table, lists[0]) == tuple(
        scored(other, ClusterTable(b), lists[0], {}, frozenset())
    )
    (kept,) = table.derived(("solution", "row choices"), list)
    assert kept[0]() is other.affinity
