"""A join's patched rows (solver/table.py `_Rows._patched`): the new cluster's row goes between the
slices of every column it is made for, where the slide put row 0's value for a scatter to replace."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from model import Taint
from solver.table import _Rows
from tests.fixtures.builders import cluster
from tests.fixtures.tables import assert_same_table, loads_moved, rows_fleet, rows_table

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
    kept = tuple(sorted(rows_fleet(), key=lambda c: c.name))
    after = loads_moved(sorted([*kept, joined], key=lambda c: c.name))
    _Rows._last = None
    expected = rows_table([replace(c) for c in after])
    _Rows._last = None
    rows_table(list(kept))

    def scattered(*_):
        raise AssertionError("a column scattered")

    def made_again(*_):
        raise AssertionError("the rows were made again")

    with monkeypatch.context() as patch:
        patch.setattr(pl.Series, "scatter", scattered)
        patch.setattr(_Rows, "__init__", made_again)
        table = rows_table(after)
    assert_same_table(table, expected)


def test_a_join_with_another_row_made_again_still_scatters() -> None:
    """A join beside another cluster made again (its labels changed): that row is scattered as
    before, and the table is still the one fresh clusters make."""
    kept = tuple(sorted(rows_fleet(), key=lambda c: c.name))
    after = list(kept)
    after[5] = replace(after[5], labels={"zone": "z1", "gpu": "yes"})
    after = sorted([*after, _JOINED[0]], key=lambda c: c.name)
    _Rows._last = None
    expected = rows_table([replace(c) for c in after])
    _Rows._last = None
    rows_table(list(kept))
    kept_rows = _Rows._last
    table = rows_table(after)
    assert _Rows._last is not kept_rows and _Rows._last.patched  # patched, not made afresh
    assert_same_table(table, expected)
