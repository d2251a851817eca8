"""A join's patched rows (solver/table.py `_Rows._patched`): the new cluster's row goes between the
slices of every column it is made for, where the slide put row 0's value for a scatter to replace."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import polars as pl
import pytest

from adapters.live.kept import with_load
from model import Taint
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, pref, term

SIZE = 300  # above the size from which rows are kept


def _fleet() -> list:
    return [
        cluster(
            f"c{i:04d}",
            {"zone": f"z{i % 7}", **({"gpu": "yes"} if i % 5 == 0 else {})},
            {"cpu": str(i % 13), "memory": f"{i}Gi"} if i % 3 else {},
            [Taint("t")] if i % 11 == 0 else (),
            eligible=i % 17 != 0,
        )
        for i in range(SIZE)
    ]


def _table(clusters: list) -> ClusterTable:
    prefer = (pref(3, {"gpu": "yes"}, sort="cpu"), pref(2, sort="memory"))
    request = pick_n(2, required=(term({"zone": "z1"}),), preferences=prefer)
    return ClusterTable(batch(clusters, request))


def _same(a: ClusterTable, b: ClusterTable) -> None:
    assert a.names == b.names and a.index == b.index and a.tainted == b.tainted
    for field in ("eligible", "leaving", "load"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert a.frame.equals(b.frame) and a.frame.columns == b.frame.columns
    assert a.frame.dtypes == b.frame.dtypes


def _loaded(clusters: list) -> list:
    """Half the clusters with another load alone (a long-lived scheduler's counts moved)."""
    return [with_load(c, c.load + 1 + i % 3) if i % 2 else c for i, c in enumerate(clusters)]


_JOINED = [
    cluster("c0039x", {"zone": "z1"}, {"memory": "1Ti"}, [Taint("u")]),
    cluster("a0", {"zone": "z1", "gpu": "yes"}, {"cpu": "7"}),
    cluster("c9999", {}),  # no label, no property: null in every such column
]


@pytest.mark.parametrize("joined", _JOINED, ids=["middle", "first", "last"])
def test_a_joined_row_is_placed_between_the_slices(joined, monkeypatch) -> None:
    """A join (other clusters' loads alone moved) places the new row's values between each
    column's slices: no column is scattered, and the table is the one fresh clusters make. Fails
    where `_patched` leaves out the `joined` path (row 0's value slid in, then scattered over), or
    where `_slid_series` puts the value after the row at `at` (checked)."""
    kept = tuple(sorted(_fleet(), key=lambda c: c.name))
    after = _loaded(sorted([*kept, joined], key=lambda c: c.name))
    _Rows._last = None
    expected = _table([replace(c) for c in after])
    _Rows._last = None
    _table(list(kept))

    def scattered(*_):
        raise AssertionError("a column scattered")

    def made_again(*_):
        raise AssertionError("the rows were made again")

    with monkeypatch.context() as patch:
        patch.setattr(pl.Series, "scatter", scattered)
        patch.setattr(_Rows, "__init__", made_again)
        table = _table(after)
    _same(table, expected)


def test_a_join_with_another_row_made_again_still_scatters() -> None:
    """A join beside another cluster made again (its labels changed): that row is scattered as
    before, and the table is still the one fresh clusters make."""
    kept = tuple(sorted(_fleet(), key=lambda c: c.name))
    after = list(kept)
    after[5] = replace(after[5], labels={"zone": "z1", "gpu": "yes"})
    after = sorted([*after, _JOINED[0]], key=lambda c: c.name)
    _Rows._last = None
    expected = _table([replace(c) for c in after])
    _Rows._last = None
    _table(list(kept))
    kept_rows = _Rows._last
    table = _table(after)
    assert _Rows._last is not kept_rows and _Rows._last.patched  # patched, not made afresh
    _same(table, expected)
