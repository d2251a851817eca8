"""The per-Placement costs of a large OCM batch (issue 21: a cluster event's batch solves 70 to
200 Placements over 10,000 clusters): prepare sorts each request's decisions as before and keeps
the rows they name, which the Balance coupling reads instead of walking them again; a spread's
answer asked with no report (the Balance search's asks) scores nothing for the report it will
not make; a coupled request's best response on its own scores is remembered; the
Balance ceiling of a spread a closed form solves reads that closed form's value alone."""

from __future__ import annotations

import numpy as np

import solver.balance_bound
from model import Taint
from solver.balance import _Responses, absent_slots, holdings
from solver.balance_bound import ceiling
from solver.greedy import solve_greedy
from solver.objective import scale_of
from solver.optimal import closed_form, finish, solve_spread
from solver.prepare import AFFINITY, HELD, INELIGIBLE, PASS, TAINT, prepare
from solver.solution import Solution
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


class _NoMembership(_NoLookups):
    def __contains__(self, key):
        raise AssertionError("a decision looked up again")


def test_the_balance_couplings_absent_slots_read_the_names_prepare_found() -> None:
    """absent_slots reads the names of the decisions outside the table off prepare
    (Prepared.elsewhere) and walks no decision (a join's batch of PickAlls holds tens of
    thousands); a request prepare found none for is walked as before, with the same slots."""
    table, p = _prepared()
    table.absent_load = {"x": 1}
    looked_up = absent_slots([p], table)
    assert looked_up == {"gone": 7, "x": 8}
    index = table.index
    table.index = _NoMembership(index)
    assert absent_slots([p], table) == looked_up
    table.index = index
    p.held = None  # not found by prepare: the decisions are walked
    assert absent_slots([p], table) == looked_up


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


def _respond(asked: list):
    """A best response that answers its best candidate and how many times it was asked."""

    def respond(q, scale):
        asked.append(q)
        best = int(q.candidates[np.argmax(q.affinity[q.candidates])])
        return Solution(kept=[], picks=[best]), len(asked)

    return respond


def test_a_best_response_on_the_requests_own_scores_is_remembered() -> None:
    """Asked again as prepared (a weight-0 request's every ask, and its ceiling, are one call), a
    request's best response is its first answer; scored by the Balance search it is asked afresh,
    even on equal scores (a stale answer would pick the old best)."""
    table, p = _prepared()
    asked: list = []
    responses = _Responses(_respond(asked), [p], table)
    scale = scale_of(p, table)
    first = responses.ask(0, p, scale)
    assert responses.of(0)(p, scale) is first and responses.ask(0, p, scale) is first and len(asked) == 1
    other = p.affinity.copy()
    other[6] += 5  # row 6 now the best candidate
    solution, number = responses.ask(0, p.scored_as(other), scale)
    assert (solution.picks, number) == ([6], 2)
    assert responses.ask(0, p.scored_as(p.affinity.copy()), scale)[1] == 3
    assert responses.ask(0, p, scale) is first and len(asked) == 3
    raised = p.scored_as(p.affinity + 100)
    assert responses.of(0)(raised, scale)[1] == 4 and responses.of(0)(raised, scale)[1] == 5


def test_a_best_response_a_search_finds_is_asked_every_time() -> None:
    """A request under spread with no closed form is searched each time it is asked (each search is
    a model solved; a wall-clock cut may answer otherwise)."""
    clusters = [cluster(f"c{i:02d}", {"zone": f"z{i % 3}", "rack": f"r{i % 4}"}) for i in range(12)]
    b = batch(clusters, pick_n(4, spread=(spread("zone"), spread("rack"))))
    table = ClusterTable(b)
    p = prepare(b, table)[0]
    assert not closed_form(p, table)
    asked: list = []
    responses = _Responses(_respond(asked), [p], table)
    scale = scale_of(p, table)
    assert responses.ask(0, p, scale)[1] == 1 and responses.of(0)(p, scale)[1] == 2


def _searched(table, asked: list):
    """solve_spread as the solver's best response asks it (no report), counting its asks."""

    def respond(q, scale):
        asked.append(q)
        outcome = solve_spread(
            q,
            table,
            scale,
            lambda: solve_greedy(q, table, 0),
            0,
            seed=0,
            deterministic_budget=5.0,
            deadline=1e18,
        )
        return outcome.solution, outcome.bound

    return respond


def test_the_ceiling_of_a_spread_a_closed_form_solves_asks_no_best_response(monkeypatch) -> None:
    """Its value is solve_spread's closed form's, every Balance score at its best, as the best
    response gives it (with its answer's scores, unread), for one constraint and two that nest;
    two that do not nest are searched: asked as before."""
    zones = [
        cluster(f"c{i:02d}", {"zone": f"z{i % 3}", "region": f"r{i % 3 // 2}", "rack": f"k{i % 4}"})
        for i in range(12)
    ]
    existing = (held("c04"), held("c07", current=False))
    for constraints, closed in (
        ((spread("zone"),), True),
        ((spread("region", 2), spread("zone")), True),
        ((spread("zone"), spread("rack")), False),
    ):
        b = batch(zones, pick_n(5, spread=constraints, existing=existing))
        table = ClusterTable(b)
        p = prepare(b, table)[0]
        scale = scale_of(p, table)
        assert closed_form(p, table) is closed
        asked: list = []
        value = ceiling(p, scale, table, 3, _searched(table, asked))
        assert bool(asked) is not closed
        with monkeypatch.context() as m:
            m.setattr(solver.balance_bound, "closed_form_best", lambda *args: None)
            assert ceiling(p, scale, table, 3, _searched(table, [])) == value
