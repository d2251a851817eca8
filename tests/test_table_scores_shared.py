"""ClusterTable.batch_masks' scores: a set of preferences is scored by its static part alone
(solver.table.is_static), so sets that differ only in their held, balance or centered
preferences share one column, and a set with no static part has none (prepare reads zeros)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model import Preference, PropertySorter
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, pick_n, pref


def _clusters() -> list:
    return [cluster(f"c{i:03d}", {"zone": f"z{i % 3}"}, {"cpu": str(i % 7)}) for i in range(40)]


def test_sets_of_one_static_part_share_one_column_and_a_set_with_none_is_left_out(monkeypatch) -> None:
    held, balance = Preference(2, held=True), Preference(1, balance=True)
    centered = Preference(4, sorter=PropertySorter("cpu", False, True))
    static = (pref(3, {"zone": "z1"}), pref(2, sort="cpu"))
    sets = [
        (held, *static),
        (balance, *static, centered),
        (*static, Preference(0, external="x")),  # a weight of 0 scores nothing
        (held, balance, centered),
        (held,),
    ]
    requests = [pick_n(1, f"p{i}", preferences=s) for i, s in enumerate(sets)]
    table = ClusterTable(batch(_clusters(), *requests))
    compiled = []
    compile_one = table._preferences
    monkeypatch.setattr(table, "_preferences", lambda prefs: compiled.append(prefs) or compile_one(prefs))
    _, scored, _ = table.batch_masks((), sets, ())
    assert compiled == [static]  # one column for the three sets of that static part
    assert scored[sets[0]] is scored[sets[1]] is scored[sets[2]]
    assert sets[3] not in scored and sets[4] not in scored
    assert not scored[sets[0]].flags.writeable
    fresh = ClusterTable(batch([replace(c) for c in _clusters()], *requests))
    for s in sets:
        assert np.array_equal(
            scored.get(s, np.zeros(table.size, dtype=np.int64)), fresh.affinity_scores([s])[s]
        )


def test_sets_of_external_scores_alone_are_scored_in_numpy_as_polars_scores_them(monkeypatch) -> None:
    clusters = [
        replace(c, scores={"a": (i * 37) % 201 - 100, **({"b": i - 20} if i % 4 else {})})
        for i, c in enumerate(_clusters())
    ]
    sets = [
        (Preference(3, external="a"),),
        (Preference(-2, external="a"), Preference(5, external="b"), Preference(1, held=True)),
        (Preference(7, external="b"), Preference(1, balance=True)),
        (Preference(2, external="a"), pref(3, {"zone": "z1"})),  # with a label preference: polars
    ]
    requests = [pick_n(1, f"p{i}", preferences=s) for i, s in enumerate(sets)]
    table = ClusterTable(batch(clusters, *requests))
    compiled = []
    compile_one = table._preferences
    monkeypatch.setattr(table, "_preferences", lambda prefs: compiled.append(prefs) or compile_one(prefs))
    _, scored, _ = table.batch_masks((), sets, ())
    assert compiled == [sets[3]]  # the sets of external scores alone never reach polars
    fresh = ClusterTable(batch([replace(c) for c in clusters], *requests))
    for s in sets:
        expected = fresh.affinity_scores([s])[s]
        assert scored[s].dtype == expected.dtype == np.int64
        assert np.array_equal(scored[s], expected)
        assert not scored[s].flags.writeable
