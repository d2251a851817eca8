"""ClusterTable.float_values: a property as float64, NaN where a cluster lacks it, read off the
Float64 column without a frame pass (fill_null runs polars' engine: some milliseconds of a live
scheduler's small batch)."""

from __future__ import annotations

import numpy as np
import polars as pl

from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_n, pref


def test_float_values_are_nan_where_absent_with_no_fill_null(monkeypatch) -> None:
    clusters = [cluster(f"c{i:03d}", {}, {"cpu": f"{i * 250}m"} if i % 3 else {}) for i in range(30)]
    table = ClusterTable(batch(clusters, pick_n(1, "p", preferences=(pref(1, sort="cpu"),))))
    expected = np.asarray([i * 0.25 if i % 3 else np.nan for i in range(30)])

    def refused(*args, **kwargs):
        raise AssertionError("fill_null")

    monkeypatch.setattr(pl.Series, "fill_null", refused)
    values = table.float_values("cpu")
    assert values.dtype == np.float64
    assert np.array_equal(values, expected, equal_nan=True)
