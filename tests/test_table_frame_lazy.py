"""A ClusterTable's polars frame is made when first read (solver.table.ClusterTable.frame): the
wanted columns are made with the table (kept with the rows, as before), and a batch that asks
only kept masks, external scores and traits reads them off those columns without the frame."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from model import ClusterTerm, Preference
from solver.table import _CODED_FROM, ClusterTable, _score_column, _trait_column
from tests.fixtures.builders import batch, cluster, pick_n


def _clusters() -> list:
    return [
        replace(
            cluster(f"c{i:03d}", {"zone": f"z{i % 3}"}),
            scores={"s1": i % 5, "s2": 7 - i % 4},
            traits=frozenset({"set-a"} if i % 2 else {"set-b"}),
        )
        for i in range(30)
    ]


def test_external_scores_and_traits_are_read_off_the_columns_without_the_frame() -> None:
    """Requests scored by external scores alone, and more term sets of traits than `_CODED_FROM`
    (judged in numpy): the masks and scores are made with no frame, equal to the polars
    expressions' over the frame made afterwards, whose columns are the very columns made with
    the table. Fails where `_external_scores` or `_coded_required` reads its columns through
    the frame (`self.frame.get_column`), which makes it."""
    prefs = [(Preference(3, external="s1"),), (Preference(-2, external="s1"), Preference(5, external="s2"))]
    terms = [(ClusterTerm(traits=("set-a",)),), (ClusterTerm(traits=("set-b",)),)]
    terms += [
        (ClusterTerm(traits=("set-a",)), ClusterTerm(traits=("set-b", f"x{k}"))) for k in range(_CODED_FROM)
    ]
    requests = [pick_n(1, f"p{i}", preferences=prefs[i % 2], required=terms[i]) for i in range(len(terms))]
    table = ClusterTable(batch(_clusters(), *requests))
    required, scored, _ = table.batch_masks(terms, prefs, ())
    assert table._frame is None  # nothing read the frame
    by_polars = table._evaluate_all([(prefs, table._preferences, np.int64), (terms, table._required, bool)])
    assert table._frame is not None
    for p in prefs:
        assert np.array_equal(scored[p], by_polars[0][p])
    for t in terms:
        assert np.array_equal(required[t], by_polars[1][t])
    for name in (_score_column("s1"), _score_column("s2"), _trait_column("set-a"), _trait_column("set-b")):
        assert table.frame.get_column(name).equals(table._data[name])
