"""The per-Placement costs of a large OCM batch (issue 21: a cluster event's batch solves 70 to
200 Placements over 10,000 clusters): prepare sorts each request's decisions as before and keeps
the rows they name, which the Balance coupling reads instead of walking them again; a spread's
answer asked with no report (the Balance search's asks) scores nothing for the report it will
not make."""

from __future__ import annotations

import numpy as np

from model import Taint
from solver.balance import holdings
from solver.optimal import finish
from solver.prepare import AFFINITY, HELD, INELIGIBLE, PASS, TAINT, prepare
from solver.spread import SpreadState
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster, held, pick_n, spread, term
from tests.fixtures.common import counted_calls


def _prepared():
    clusters = [
        cluster("a", {"zone": "z1"}),
        cluster("b", {"zone": "z1"}, taints=[Taint("t", new_only=True)]),
        cluster("c", {"zone": "z1"}, taints=[Taint("u")]),
        cluster("d", {"zone": "z1"}, leaving=True),
        cluster("e", {"zone": "z2"}),
        cluster("f", {"zone": "z1"}),
        cluster("g", {"zone": "z1"}),
    ]
    existing = (
        held("f", current=False),
        held("a"),
        held("a", current=False),
        held("gone"),
        held("d"),
        held("c"),
        held("b"),
        held("e", current=False),
    )
    b = batch(clusters, pick_n(2, required=(term({"zone": "z1"}),), existing=existing))
    table = ClusterTable(b)
    return table, prepare(b, table)[0]


def test_a_requests_decisions_are_sorted_into_kept_obsolete_and_lapsed_as_each_alone() -> None:
    """Gone and leaving clusters lapse (in name order); a held cluster passes a taint that keeps
    out newcomers only; the current decisions are kept (the later of two on one cluster), the
    others obsolete; a kept cluster that passes is held, and out of the shared candidates."""
    table, p = _prepared()
    assert p.released == ["d", "gone"]
    assert list(p.kept) == [0, 1, 2] and p.kept[0].current and p.kept[1].cluster == "b"
    assert p.outcome.tolist() == [HELD, HELD, TAINT, INELIGIBLE, AFFINITY, PASS, PASS]
    assert np.flatnonzero(p.obsolete).tolist() == [0, 4, 5]
    assert p.held_out == [0]
    assert p.passing is None and p.base is not None and p.base.tolist() == [0, 5, 6]
    assert p.candidates.tolist() == [5, 6]


class _NoLookups(dict):
    def get(self, *args):
        raise AssertionError("a decision looked up again")

    def __getitem__(self, key):
        raise AssertionError("a decision looked up again")


def test_the_balance_coupling_reads_a_requests_holdings_off_prepare() -> None:
    """holdings() walks no decision that prepare found (a PickAll holds thousands; the coupling
    asks for them several times per solve)."""
    table, p = _prepared()
    assert p.held.tolist() == [0, 1, 2, 3, 4, 5] and p.elsewhere == ("gone",)
    table.index = _NoLookups(table.index)
    assert holdings(p, table).tolist() == [0, 1, 2, 3, 4, 5]
    assert holdings(p, table, {"gone": 7, "x": 8}).tolist() == [0, 1, 2, 3, 4, 5, 7]
    assert holdings(p, table, {"x": 8}).tolist() == [0, 1, 2, 3, 4, 5]


def test_a_spread_answer_without_a_report_scores_nothing_for_it(monkeypatch) -> None:
    """finish() with no room in the report (limit 0) gives the same answer, scores, releases and
    satisfaction, and scores none of the clusters left out (a topology pass over every candidate
    per ask of the Balance search)."""
    clusters = [cluster(f"c{i:02d}", {"zone": f"z{i % 3}"}) for i in range(12)]
    existing = (held("c04", current=False), held("c07", current=False))
    b = batch(clusters, pick_n(4, spread=(spread("zone"),), existing=existing))
    table = ClusterTable(b)
    p = prepare(b, table)[0]
    picks = [1, 2, 3, 7]
    reported = finish(p, table, picks, 20)
    scored = counted_calls(monkeypatch, SpreadState, "score")
    bare = finish(p, table, picks, 0)
    assert not scored and bare.unselected == [] and reported.unselected
    for name in ("kept", "picks", "spread_scores", "released", "satisfied"):
        assert getattr(bare, name) == getattr(reported, name)
