"""The optimal mode: the greedy answer where nothing couples, better answers under topology spread."""

from __future__ import annotations

import pytest

from model import Batch, FilterKind
from solver import SolveOptions, solve
from tests.fixtures.batches import SPREAD_CASES, no_spread_batch, skew, stuck_batch
from tests.fixtures.builders import (
    batch,
    chosen,
    cluster,
    held,
    numbered,
    only,
    pick_all,
    pick_n,
    pref,
    run,
    scores,
    spread,
)


def both(b: Batch):
    return run(b, "greedy"), run(b, "optimal")


# -- without spread: the same answer as greedy ----------------------------------------------


def test_optimal_equals_greedy_without_spread() -> None:
    b = no_spread_batch()
    g, o = both(b)
    assert o.requests == g.requests
    assert o.stats.objective == g.stats.objective
    assert o.stats.status == "OPTIMAL" and g.stats.status == "GREEDY"
    assert o.stats.models == 0  # nothing needed a search
    assert o.stats.bound == o.stats.objective and o.stats.gap == 0
    assert g.stats.bound is None and g.stats.gap is None


def test_optimal_equals_greedy_on_tie_break() -> None:
    g, o = both(batch(numbered(7), pick_n(3)))
    assert chosen(only(o)) == chosen(only(g)) == ["cluster-7", "cluster-6", "cluster-5"]


# -- spread: never worse, and better where greedy gets stuck ---------------------------------


def test_optimal_gets_unstuck_under_do_not_schedule() -> None:
    b = stuck_batch()
    g, o = both(b)
    rg, ro = only(g), only(o)
    assert chosen(rg) == ["x"] and not rg.satisfied
    assert {u.kind for u in rg.unselected} == {FilterKind.SPREAD}
    assert sorted(chosen(ro)) == ["p", "q"] and ro.satisfied
    assert o.stats.status == "OPTIMAL" and o.stats.models == 1
    assert o.stats.objective > g.stats.objective
    assert o.stats.bound == o.stats.objective
    # Each pick is scored as if it were the last: its zone and rack are each the unique minimum.
    assert scores(ro) == {"p": (2, 0), "q": (2, 0)}
    assert [(u.cluster, u.kind) for u in ro.unselected] == [("x", FilterKind.NOT_PICKED)]


def test_optimal_gets_unstuck_when_affinity_decides_the_first_pick() -> None:
    clusters = [
        cluster("a-best", {"zone": "a", "rack": "r1", "ssd": "1"}),
        cluster("p", {"zone": "a", "rack": "r2"}),
        cluster("q", {"zone": "b", "rack": "r1"}),
        cluster("z", {"zone": "b", "rack": "r1"}),
    ]
    request = pick_n(2, preferences=(pref(50, {"ssd": "1"}),), spread=(spread("zone"), spread("rack")))
    b = batch(clusters, request)
    g, o = both(b)
    assert chosen(only(g)) == ["a-best"] and not only(g).satisfied
    assert sorted(chosen(only(o))) == ["p", "z"]  # z beats q on name
    assert only(o).satisfied


def test_optimal_soft_spread_avoids_the_violation_greedy_takes() -> None:
    b = stuck_batch(hard=False)
    g, o = both(b)
    assert chosen(only(g)) == ["x", "q"]  # -999 each for p and q; the larger name wins
    assert scores(only(g))["q"] == (-999, 0)
    assert skew(b, chosen(only(g)), "rack") == 2
    assert sorted(chosen(only(o))) == ["p", "q"]
    assert skew(b, chosen(only(o)), "rack") == skew(b, chosen(only(o)), "zone") == 0
    assert o.stats.objective > g.stats.objective


def test_optimal_repairs_a_skew_greedy_cannot_reduce() -> None:
    # Current decisions already sit at skew 3 in zone a; upstream sees every b-pick as 3-1 > 1.
    clusters = numbered(3, prefix="a", labels={"zone": "a"}) + numbered(2, prefix="b", labels={"zone": "b"})
    request = pick_n(5, spread=(spread("zone"),), existing=(held("a1"), held("a2"), held("a3")))
    b = batch(clusters, request)
    g, o = both(b)
    assert chosen(only(g)) == ["a1", "a2", "a3"] and not only(g).satisfied
    assert chosen(only(o))[:3] == ["a1", "a2", "a3"]
    assert sorted(chosen(only(o))[3:]) == ["b1", "b2"] and only(o).satisfied
    assert skew(b, chosen(only(o)), "zone") == 1


@pytest.mark.parametrize("case", sorted(SPREAD_CASES))
def test_spread_objective_never_below_greedy(case: str) -> None:
    clusters, request = SPREAD_CASES[case]
    b = batch(clusters, request)
    g, o = both(b)
    assert o.stats.status == "OPTIMAL"
    assert o.stats.objective >= g.stats.objective
    assert o.stats.bound == o.stats.objective and o.stats.gap == 0
    assert len(chosen(only(o))) >= len(chosen(only(g)))
    for c in request.spread:
        if c.hard:
            assert skew(b, chosen(only(o)), c.topology_key) <= c.max_skew


def test_obsolete_decisions_kept_where_greedy_releases_them() -> None:
    """Greedy drops the obsolete preference after its first cycle; the optimum keeps both old
    decisions (regression: a greedy pick outside a cell's best candidates crashed the search)."""
    clusters = [
        cluster("k1", {"zone": "z1"}),
        cluster("d", {"zone": "z2"}),
        cluster("a1"),
        cluster("a2"),
        cluster("c"),
        cluster("e"),
    ]
    existing = (held("k1"), held("a1", current=False), held("a2", current=False))
    b = batch(clusters, pick_n(4, spread=(spread("zone"),), existing=existing))
    g, o = both(b)
    assert chosen(only(g)) == ["k1", "d", "e", "c"] and only(g).released == ("a1", "a2")
    assert chosen(only(o)) == ["k1", "d", "a2", "a1"] and only(o).released == ()
    assert o.stats.objective > g.stats.objective and o.stats.status == "OPTIMAL"


def test_optimal_downscale_is_greedy() -> None:
    clusters = numbered(4, labels={"zone": "a"})
    request = pick_n(1, spread=(spread("zone"),), existing=(held("cluster-1"), held("cluster-2")))
    g, o = both(batch(clusters, request))
    assert g.requests == o.requests
    assert only(o).released == ("cluster-1",) and o.stats.models == 0


def test_optimal_is_deterministic() -> None:
    clusters, request = SPREAD_CASES["two-keys"]
    b = batch(clusters, request)
    first, second = solve(b, SolveOptions(mode="optimal")), solve(b, SolveOptions(mode="optimal"))
    assert first.requests == second.requests
    assert first.stats.objective == second.stats.objective


def test_several_requests_add_up() -> None:
    clusters, request = SPREAD_CASES["zones"]
    b = batch(clusters, request, pick_n(2, name="q", spread=(spread("zone"),)), pick_all(name="r"))
    g, o = both(b)
    singles = sum(run(batch(clusters, r), "optimal").stats.objective for r in b.requests)
    assert o.stats.objective == singles
    assert o.stats.models == 0  # one spread constraint each: both answered in closed form
    assert o.stats.objective >= g.stats.objective
    assert o.by_request()["r"] == g.by_request()["r"]


def test_modes_are_validated() -> None:
    with pytest.raises(ValueError):
        SolveOptions(mode="fast")
    with pytest.raises(ValueError):
        SolveOptions(time_limit=0)
