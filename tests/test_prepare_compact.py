"""Prepare's relative scores (held clusters, properties centered over a request's candidates):
each request's own copy is kept as int32 where its values leave room, every property read once
per table, and the pick order stays exact in int64 whatever the dtype."""

from __future__ import annotations

import numpy as np
import pytest

from model import ExistingDecision, PlacementRequest, Preference, PropertySorter, SelectionMode, TieBreak
from solver.prepare import pick_key, prepare
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster

CPU = Preference(1, sorter=PropertySorter("cpu", ascending=False, centered=True))


def request(name: str, *prefs: Preference, holds: tuple[str, ...] = ()) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=1,
        preferences=prefs,
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


def clusters(n: int):
    return [cluster(f"c{i}", props={"cpu": str(2 + i)}) for i in range(n)]


def test_relative_scores_are_compact_and_equal() -> None:
    b = batch(clusters(6), request("a", CPU, Preference(2, held=True), holds=("c1",)), request("b", CPU))
    p, q = prepare(b, ClusterTable(b))
    assert p.affinity.dtype == np.int32 and q.affinity.dtype == np.int32
    # centered cpu over 2..7 (float truncation: 0.4 gives -19), and a holds c1 (+200)
    assert q.affinity.tolist() == [-100, -60, -19, 19, 60, 100]
    assert p.affinity.tolist() == [-100, 140, -19, 19, 60, 100]


def test_scores_out_of_int32_room_stay_int64() -> None:
    huge = Preference(2**24, held=True)  # 100 x 2^24 > 2^30: no room left for Balance in int32
    b = batch(clusters(3), request("a", huge, holds=("c0",)))
    (p,) = prepare(b, ClusterTable(b))
    assert p.affinity.dtype == np.int64 and int(p.affinity[0]) == 2**24 * 100


def test_each_property_is_read_once_per_table(monkeypatch: pytest.MonkeyPatch) -> None:
    b = batch(clusters(5), *(request(f"r{i}", CPU, holds=(f"c{i % 5}",)) for i in range(20)))
    table = ClusterTable(b)
    reads: list[str] = []
    read = table.float_values
    monkeypatch.setattr(table, "float_values", lambda name: reads.append(name) or read(name))
    prepare(b, table)
    assert reads == ["cpu"]


def test_pick_key_is_exact_for_int32_scores_on_a_large_fleet() -> None:
    size = 400_000  # (2 * 6000 + 1) * 400,000 overflows int32
    affinity = np.array([6000, 5999], dtype=np.int32)
    key = pick_key(affinity, np.array([True, False]), np.array([size - 1, 0]), size)
    assert key.tolist() == [(2 * 6000 + 1) * size + size - 1, 2 * 5999 * size]
