"""An alone greedy pass (SolveOptions.alone) reports a top N whose scores read a sorter by its best
cluster left out alone (solver.api `_reported`): its picks, their scores and that cluster (the
best of the full report, by score then name) are those of the full report, which a top N whose
totals are each its own keeps whole."""

from __future__ import annotations

import solver.api as api
from model import FilterKind, Preference, PropertySorter
from solver import SolveOptions
from solver.api import solve
from tests.fixtures.batches import ocm_like
from tests.fixtures.builders import batch, cluster

_SORTED = Preference(1, sorter=PropertySorter("cpu", ascending=False, centered=True))


def _batch():
    # Twelve clusters, cpu 1..12 with ties in pairs, some holding decisions of others (Balance).
    clusters = [cluster(f"c{i:02d}", props={"cpu": str(1 + i // 2)}) for i in range(12)]
    requests = [
        ocm_like(
            "a", 3, _SORTED, Preference(2, balance=True), Preference(1, held=True), holds=("c00", "c05")
        ),
        ocm_like("b", 2, Preference(3, balance=True), Preference(1, held=True), holds=("c10", "c11")),
        ocm_like("c", 4, _SORTED, Preference(1, balance=True), holds=("c10", "c09", "c08")),
    ]
    return batch(clusters, *requests)


def _left_out(r) -> list[tuple[int, str]]:
    return [(u.score.affinity, u.cluster) for u in r.unselected if u.kind is FilterKind.NOT_PICKED]


def test_a_sorted_top_n_judged_alone_reports_its_best_cluster_left_out_alone(monkeypatch) -> None:
    """Two top Ns reading a centered sorter and one without on twelve clusters with tied values:
    judged alone, each sorted one reports exactly one cluster left out, the best of the full report
    (the full report: the same alone pass with `_reported` as it was) by score then name, and picks
    and scores the same clusters; the one without a sorter reports its full list. Fails where
    `_reported` gives a sorted top N `limit` (its report not cut: `min(limit, 1)` made `limit`) or
    none (`0`: its best left out lost)."""
    alone = solve(_batch(), SolveOptions(mode="greedy", alone=True))
    # The full report: `_reported` as it was before a sorted top N's was cut.
    monkeypatch.setattr(api, "_reported", lambda p, limit, o: 0 if o.alone and p.request.spread else limit)
    whole = solve(_batch(), SolveOptions(mode="greedy", alone=True))
    by_key = {r.request: r for r in whole.requests}
    for got in alone.requests:
        want = by_key[got.request]
        assert [(c.cluster, c.score) for c in got.selected] == [(c.cluster, c.score) for c in want.selected]
        full = _left_out(want)
        if got.request == "ns/b":
            assert _left_out(got) == full and len(full) > 1
            continue
        assert len(full) > 1
        best = min(full, key=lambda t: (-t[0], t[1]))
        assert _left_out(got) == [best]
