"""The greedy mode: the upstream KubeFleet scheduler, cycle by cycle (fleet.md §3-§5)."""

from __future__ import annotations

import pytest

from model import FilterKind, Unselected
from tests.fixtures.batches import mixed_fleet, mixed_request
from tests.fixtures.builders import (
    batch,
    chosen,
    cluster,
    held,
    numbered,
    only,
    pick_all,
    pick_fixed,
    pick_n,
    pref,
    prop,
    run,
    scores,
    spread,
    taint,
    term,
    tol,
)


def greedy(clusters, request, **kw):
    return only(run(batch(clusters, request, **kw), "greedy"))


def kinds(rr) -> list[tuple[str, FilterKind]]:
    return [(u.cluster, u.kind) for u in rr.unselected]


# -- PickN ordering ---------------------------------------------------------------------------


def test_pick_n_tie_break_takes_largest_names() -> None:
    rr = greedy(numbered(7), pick_n(3))
    assert chosen(rr) == ["cluster-7", "cluster-6", "cluster-5"]
    assert set(scores(rr).values()) == {(0, 0)}
    assert kinds(rr) == [(f"cluster-{i}", FilterKind.NOT_PICKED) for i in (4, 3, 2, 1)]
    assert rr.satisfied and rr.scheduled and rr.released == ()


def test_affinity_orders_before_name() -> None:
    clusters = [
        cluster("a", {"tier": "gold"}),
        cluster("b", {"tier": "silver"}),
        cluster("c", {"tier": "silver"}),
        cluster("d", {}),
        cluster("e", {"tier": "bronze"}),
    ]
    prefs = (pref(50, {"tier": "gold"}), pref(20, {"tier": "silver"}), pref(-10, {"tier": "bronze"}))
    rr = greedy(clusters, pick_n(3, preferences=prefs))
    assert chosen(rr) == ["a", "c", "b"]
    assert scores(rr) == {"a": (0, 50), "c": (0, 20), "b": (0, 20)}
    # Not picked: best first, with their scores.
    assert [(u.cluster, u.score.affinity) for u in rr.unselected] == [("d", 0), ("e", -10)]


def test_property_sorter_orders_picks() -> None:
    clusters = [cluster(f"m{i}", props={"cost": str(v)}) for i, v in enumerate([5, 1, 3, 9])]
    rr = greedy(clusters, pick_n(2, preferences=(pref(100, sort="cost", asc=True),)))
    assert chosen(rr) == ["m1", "m2"]
    assert scores(rr) == {"m1": (0, 100), "m2": (0, 75)}


def test_obsolete_decision_is_the_third_key() -> None:
    clusters = [cluster("a", {"x": "1"}), cluster("b"), cluster("c"), cluster("d")]
    existing = (held("b", current=False), held("a", current=False), held("c", current=False))
    rr = greedy(clusters, pick_n(2, preferences=(pref(10, {"x": "1"}),), existing=existing))
    # a: best affinity. Then among equal affinity, the obsolete c and b beat the larger name d.
    assert chosen(rr) == ["a", "c"]
    assert rr.released == ("b",)
    assert not any(c.kept for c in rr.selected)


def test_obsolete_preference_never_beats_affinity() -> None:
    clusters = [cluster("a"), cluster("b", {"x": "1"})]
    rr = greedy(clusters, pick_n(1, preferences=(pref(1, {"x": "1"}),), existing=(held("a", current=False),)))
    assert chosen(rr) == ["b"]
    assert rr.released == ("a",)


def test_current_decisions_are_kept_and_only_the_rest_is_picked() -> None:
    clusters = numbered(5, labels={"env": "prod"})
    # cluster-1 no longer matches the requirement but is current: kept, never re-evaluated.
    clusters[0] = cluster("cluster-1", {"env": "dev"})
    rr = greedy(
        clusters,
        pick_n(3, required=(term({"env": "prod"}),), existing=(held("cluster-1", score=(0, 7)),)),
    )
    assert chosen(rr) == ["cluster-1", "cluster-5", "cluster-4"]
    assert rr.selected[0].kept and rr.selected[0].score.affinity == 7
    assert not rr.selected[1].kept


def test_unsatisfied_when_too_few_pass() -> None:
    clusters = [
        cluster("a"),
        cluster("b", eligible=False, reason="gone quiet"),
        cluster("c", taints=[taint("t")]),
    ]
    rr = greedy(clusters, pick_n(3))
    assert chosen(rr) == ["a"]
    assert not rr.satisfied
    assert rr.unselected == (
        Unselected("b", FilterKind.INELIGIBLE, detail="gone quiet"),
        Unselected("c", FilterKind.TAINT, taint=taint("t")),
    )


def test_pick_zero() -> None:
    rr = greedy(numbered(2), pick_n(0))
    assert chosen(rr) == [] and rr.satisfied and not rr.scheduled


# -- PickAll ----------------------------------------------------------------------------------


def test_pick_all_takes_every_passing_cluster() -> None:
    clusters = [
        cluster("a", {"env": "prod"}),
        cluster("b", {"env": "dev"}),
        cluster("c", {"env": "prod"}, eligible=False),
        cluster("d", {"env": "prod"}, taints=[taint("t")]),
        cluster("e", {"env": "prod"}, taints=[taint("ok", "1")]),
        cluster("f", {"env": "prod"}),
    ]
    request = pick_all(required=(term({"env": "prod"}),), tolerations=(tol("ok", "1"),))
    rr = greedy(clusters, request)
    assert chosen(rr) == ["a", "e", "f"]
    assert set(scores(rr).values()) == {(0, 0)}
    assert kinds(rr) == [("b", FilterKind.AFFINITY), ("c", FilterKind.INELIGIBLE), ("d", FilterKind.TAINT)]
    assert rr.satisfied


def test_pick_all_ignores_preferences() -> None:
    rr = greedy(numbered(2), pick_all(preferences=(pref(40),)))
    assert scores(rr) == {"cluster-1": (0, 0), "cluster-2": (0, 0)}


def test_pick_all_keeps_current_decisions_that_no_longer_pass() -> None:
    clusters = [
        cluster("a", {"env": "dev"}),
        cluster("b", {"env": "prod"}, taints=[taint("t")]),
        cluster("c", {"env": "prod"}, eligible=False),
        cluster("d", {"env": "prod"}),
        cluster("e", {"env": "dev"}),
        cluster("f", {"env": "prod"}),
    ]
    existing = (held("a"), held("b"), held("c"), held("e", current=False), held("f", current=False))
    rr = greedy(clusters, pick_all(required=(term({"env": "prod"}),), existing=existing))
    assert chosen(rr) == ["a", "b", "c", "d", "f"]
    assert [c.kept for c in rr.selected] == [True, True, True, False, False]
    assert rr.released == ("e",)  # obsolete and no longer passing
    # Held clusters that fail a filter are filtered upstream too, but the report skips them,
    # since they are listed as selected.
    assert kinds(rr) == [("e", FilterKind.AFFINITY)]


# -- PickFixed --------------------------------------------------------------------------------


def test_pick_fixed_valid_invalid_not_found() -> None:
    clusters = [
        cluster("a", taints=[taint("t")]),  # taints do not apply to PickFixed
        cluster("b", eligible=False, reason="cluster has left the fleet"),
        cluster("c", {"env": "dev"}),
        cluster("d"),
    ]
    request = pick_fixed("c", "zz", "a", "b", "a", required=(term({"env": "prod"}),))
    rr = greedy(clusters, request)
    assert chosen(rr) == ["a", "c"]
    assert all(c.score is None for c in rr.selected)
    assert rr.unselected == (
        Unselected("zz", FilterKind.NOT_FOUND),
        Unselected("b", FilterKind.INELIGIBLE, detail="cluster has left the fleet"),
    )
    assert not rr.satisfied


def test_pick_fixed_all_valid_is_satisfied() -> None:
    rr = greedy(numbered(3), pick_fixed("cluster-3", "cluster-1"))
    assert chosen(rr) == ["cluster-1", "cluster-3"] and rr.satisfied and rr.unselected == ()


def test_pick_fixed_existing_decisions() -> None:
    clusters = [cluster("a"), cluster("b", eligible=False), cluster("c", eligible=False), cluster("d")]
    existing = (held("a", current=False), held("b", current=False), held("c"), held("d", current=False))
    rr = greedy(clusters, pick_fixed("a", "b", "c", existing=existing))
    # a: obsolete on a valid cluster, picked again; b: obsolete on an invalid one, released;
    # c: current on an invalid one, kept; d: obsolete and no longer named, released.
    assert chosen(rr) == ["c", "a"]
    assert [c.kept for c in rr.selected] == [True, False]
    assert rr.released == ("b", "d")
    assert not rr.satisfied


# -- filters ----------------------------------------------------------------------------------


def test_taints_filter_pick_n_with_first_untolerated_taint() -> None:
    clusters = [
        cluster("a", taints=[taint("x", "1"), taint("y", "2")]),
        cluster("b", taints=[taint("y", "2")]),
        cluster("c", taints=[taint("z")]),
    ]
    rr = greedy(clusters, pick_n(3, tolerations=(tol("y", "2"), tol("z", exists=True))))
    assert chosen(rr) == ["c", "b"]
    assert rr.unselected == (Unselected("a", FilterKind.TAINT, taint=taint("x", "1")),)


def test_ineligible_clusters_are_filtered_with_reason() -> None:
    clusters = [cluster("a", eligible=False, reason="member agent not joined yet"), cluster("b")]
    for request in (pick_n(2), pick_all()):
        rr = greedy(clusters, request)
        assert chosen(rr) == ["b"]
        assert rr.unselected == (
            Unselected("a", FilterKind.INELIGIBLE, detail="member agent not joined yet"),
        )


def test_plugin_order_of_reasons() -> None:
    clusters = [
        cluster("a", {"env": "dev"}, eligible=False, taints=[taint("t")]),  # affinity first
        cluster("b", {"env": "prod"}, eligible=False, taints=[taint("t")]),  # then eligibility
        cluster("c", {"env": "prod"}, taints=[taint("t")]),  # then taints
        cluster("d", {"env": "prod"}, props={"cpu": "1"}),
    ]
    request = pick_n(
        1, required=(term({"env": "prod"}), term({"env": "dev"}, props=[prop("cpu", "Gt", "0")]))
    )
    rr = greedy(clusters, request)
    assert chosen(rr) == ["d"]
    assert kinds(rr) == [("a", FilterKind.AFFINITY), ("b", FilterKind.INELIGIBLE), ("c", FilterKind.TAINT)]


def test_required_property_terms() -> None:
    clusters = [
        cluster("a", props={"cpu": "8", "mem": "32Gi"}),
        cluster("b", props={"cpu": "16"}),
        cluster("c", props={"cpu": "2", "mem": "64Gi"}),
    ]
    request = pick_all(required=(term(None, props=[prop("cpu", "Ge", "4"), prop("mem", "Gt", "16Gi")]),))
    rr = greedy(clusters, request)
    assert chosen(rr) == ["a"]


# -- the unselected list ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("limit", "expected"),
    [
        (20, ["p4", "p3", "p1", "p0", "f0", "f1", "f2", "f3"]),
        (5, ["p4", "p3", "p1", "p0", "f0"]),
        (3, ["p4", "p3", "p1"]),
        (0, []),
    ],
)
def test_explain_limit_not_picked_first_then_filtered_by_name(limit, expected) -> None:
    rr = greedy(mixed_fleet(), mixed_request(2), explain_limit=limit)
    assert chosen(rr) == ["p2", "p5"]
    assert [u.cluster for u in rr.unselected] == expected
    assert all(u.kind is FilterKind.NOT_PICKED for u in rr.unselected if u.cluster.startswith("p"))
    assert all(u.score is None for u in rr.unselected if u.cluster.startswith("f"))


def test_explain_limit_applies_to_pick_all() -> None:
    rr = greedy(mixed_fleet(), pick_all(), explain_limit=2)
    assert [u.cluster for u in rr.unselected] == ["f0", "f1"]
    assert len(chosen(rr)) == 6


# -- downscale --------------------------------------------------------------------------------


def _downscale_request(n: int, extra=()):
    return pick_n(
        n,
        existing=(
            held("c1", committed=True, score=(0, 5)),
            held("c2", score=(0, 50)),
            held("c3", score=None),
            held("c4", score=(-1, 90)),
            held("c5", committed=True, score=None),
            held("c6", committed=True, score=(0, 5)),
            *extra,
        ),
    )


@pytest.mark.parametrize(
    ("n", "released"),
    [
        # Removal order: uncommitted c3 (unscored), c4 (-1, 90), c2 (0, 50); then committed
        # c5 (unscored), c1 and c6 tie on score, so the smaller name c1 goes first.
        (5, ["c3"]),
        (4, ["c3", "c4"]),
        (3, ["c2", "c3", "c4"]),
        (2, ["c2", "c3", "c4", "c5"]),
        (1, ["c1", "c2", "c3", "c4", "c5"]),
        (0, ["c1", "c2", "c3", "c4", "c5", "c6"]),
    ],
)
def test_downscale_order(n, released) -> None:
    clusters = numbered(7, prefix="c")
    rr = greedy(clusters, _downscale_request(n))
    assert list(rr.released) == released
    assert sorted(chosen(rr)) == sorted(set(f"c{i}" for i in range(1, 7)) - set(released))
    assert all(c.kept for c in rr.selected)
    assert not rr.scheduled and rr.satisfied
    assert rr.unselected == ()


def test_downscale_releases_every_obsolete_decision() -> None:
    clusters = numbered(8, prefix="c")
    rr = greedy(clusters, _downscale_request(6, extra=(held("c7", current=False), held("c8", current=False))))
    assert list(rr.released) == ["c7", "c8"]
    assert len(chosen(rr)) == 6 and not rr.scheduled


def test_no_scheduling_when_enough_are_held() -> None:
    rr = greedy(numbered(7, prefix="c"), _downscale_request(6))
    assert rr.released == () and len(chosen(rr)) == 6 and not rr.scheduled


def test_decisions_on_leaving_or_missing_clusters_are_released() -> None:
    clusters = [cluster("a", leaving=True, eligible=False), cluster("b"), cluster("c"), cluster("d")]
    existing = (held("a"), held("ghost"), held("b"), held("old", current=False))
    rr = greedy(clusters, pick_n(2, existing=existing))
    assert rr.released == ("a", "ghost", "old")
    assert chosen(rr) == ["b", "d"]  # a replacement for a
    assert rr.scheduled and rr.satisfied


def test_decisions_on_leaving_clusters_are_released_in_every_mode() -> None:
    clusters = [cluster("a", leaving=True, eligible=False), cluster("b")]
    for request in (pick_all(existing=(held("a"),)), pick_fixed("a", "b", existing=(held("a"),))):
        rr = greedy(clusters, request)
        assert rr.released == ("a",)
        assert chosen(rr) == ["b"]


# -- topology spread --------------------------------------------------------------------------


def zoned(*specs: str, **kw):
    """Clusters from 'name:zone' (zone may be empty for a keyless cluster)."""
    out = []
    for spec in specs:
        name, _, zone = spec.partition(":")
        out.append(cluster(name, {"zone": zone} if zone else {}, **kw))
    return out


def test_spread_one_pick_per_cycle() -> None:
    # All equal at first (every keyed cluster scores -1), so affinity then name decide: a3.
    # Then zone a is the largest, so another a-cluster would violate maxSkew 1 (-1000 under
    # ScheduleAnyway) while b, the unique minimum, scores +1.
    clusters = zoned("a1:a", "a2:a", "a3:a", "b1:b")
    prefs = (pref(30, {"zone": "a"}),)
    rr = greedy(clusters, pick_n(2, preferences=prefs, spread=(spread("zone", hard=False),)))
    assert chosen(rr) == ["a3", "b1"]
    assert scores(rr) == {"a3": (-1, 30), "b1": (1, 0)}
    # Without spread the top-2 sort would have taken two a-clusters.
    assert chosen(greedy(clusters, pick_n(2, preferences=prefs))) == ["a3", "a2"]


def test_spread_domains_count_ineligible_clusters() -> None:
    # Zone c has only an ineligible cluster; it still holds the minimum at 0.
    clusters = zoned("a1:a", "a2:a", "b1:b") + [cluster("c1", {"zone": "c"}, eligible=False)]
    rr = greedy(clusters, pick_n(3, spread=(spread("zone"),)))
    assert chosen(rr) == ["b1", "a2"]
    assert scores(rr) == {"b1": (-1, 0), "a2": (0, 0)}
    assert not rr.satisfied
    # a1 would make zone a the largest at 1 over c's 0 -> skew 2 > 1.
    assert rr.unselected == (
        Unselected("a1", FilterKind.SPREAD, detail="zone", skew=1),
        Unselected("c1", FilterKind.INELIGIBLE, detail="not eligible"),
    )


def test_spread_same_fleet_without_the_empty_domain_is_satisfied() -> None:
    rr = greedy(zoned("a1:a", "a2:a", "b1:b"), pick_n(3, spread=(spread("zone"),)))
    # Now zone a is the unique minimum after b1 (+1), then all equal again (-1).
    assert chosen(rr) == ["b1", "a2", "a1"]
    assert scores(rr) == {"b1": (-1, 0), "a2": (1, 0), "a1": (-1, 0)}
    assert rr.satisfied


def test_spread_larger_max_skew_allows_more() -> None:
    clusters = zoned("a1:a", "a2:a", "a3:a", "b1:b")
    one = greedy(clusters, pick_n(4, spread=(spread("zone", 1),)))
    assert chosen(one) == ["b1", "a3", "a2"] and not one.satisfied
    two = greedy(clusters, pick_n(4, spread=(spread("zone", 2),)))
    assert chosen(two) == ["b1", "a3", "a2", "a1"] and two.satisfied


def test_spread_keyless_clusters_are_neutral() -> None:
    clusters = zoned("a1:a", "b1:b", "k0:")
    rr = greedy(clusters, pick_n(1, spread=(spread("zone"),)))
    # The keyless k0 scores 0 against -1 for every keyed cluster, despite the smallest name.
    assert chosen(rr) == ["k0"]
    assert scores(rr) == {"k0": (0, 0)}
    assert [(u.cluster, u.score.spread) for u in rr.unselected] == [("b1", -1), ("a1", -1)]


def test_spread_score_of_schedule_anyway_violation() -> None:
    clusters = zoned("a1:a", "a2:a") + [cluster("b1", {"zone": "b"}, eligible=False)]
    rr = greedy(clusters, pick_n(2, spread=(spread("zone", hard=False),)))
    assert chosen(rr) == ["a2", "a1"]
    assert scores(rr) == {"a2": (-1, 0), "a1": (-1000, 0)}
    assert rr.satisfied


def test_spread_scores_add_across_constraints() -> None:
    # Two all-equal constraints: -2.
    clusters = [cluster("x", {"zone": "a", "rack": "r1"}), cluster("y", {"zone": "b", "rack": "r2"})]
    rr = greedy(clusters, pick_n(1, spread=(spread("zone"), spread("rack"))))
    assert scores(rr) == {"y": (-2, 0)}


def test_spread_violation_plus_decrease_is_minus_999() -> None:
    clusters = [
        cluster("k1", {"zone": "a", "rack": "r1"}),
        cluster("c1", {"zone": "a", "rack": "r2"}),
        cluster("z", {"zone": "b", "rack": "r1"}, eligible=False),
    ]
    constraints = (spread("zone", hard=False), spread("rack", hard=False))
    rr = greedy(clusters, pick_n(2, spread=constraints, existing=(held("k1"),)))
    # zone: a is the largest -> skew 2 > 1 -> -1000; rack: r2 is the unique minimum -> +1.
    assert scores(rr)["c1"] == (-999, 0)


def test_spread_counts_current_not_obsolete_decisions() -> None:
    clusters = zoned("a1:a", "a2:a", "b1:b", "b2:b")
    # Current a1 makes zone a the largest: b is the unique minimum.
    rr = greedy(clusters, pick_n(2, spread=(spread("zone"),), existing=(held("a1"),)))
    assert chosen(rr) == ["a1", "b2"] and scores(rr)["b2"] == (1, 0)
    # An obsolete decision on a1 does not count: all equal, -1 each; the obsolete a1 wins the tie.
    rr = greedy(clusters, pick_n(1, spread=(spread("zone"),), existing=(held("a1", current=False),)))
    assert chosen(rr) == ["a1"] and scores(rr)["a1"] == (-1, 0)


def test_spread_releases_obsolete_decisions_not_picked_in_the_first_cycle() -> None:
    clusters = zoned("a1:a", "a2:a", "b1:b", "b2:b")
    existing = (held("a1", current=False), held("b1", current=False))
    rr = greedy(clusters, pick_n(2, spread=(spread("zone"),), existing=existing))
    # Cycle 1 re-picks the obsolete b1 (equal scores, obsolete beats the larger names); a1 is
    # released then, so cycle 2 prefers the larger name a2 in the now-minimum zone a.
    assert chosen(rr) == ["b1", "a2"]
    assert rr.released == ("a1",)
    # Without spread, both obsolete decisions are re-picked in the single cycle.
    rr = greedy(clusters, pick_n(2, existing=existing))
    assert chosen(rr) == ["b1", "a1"] and rr.released == ()


def test_spread_do_not_schedule_filters_with_kind_spread() -> None:
    clusters = [
        cluster("k", {"zone": "a"}),
        cluster("a2", {"zone": "a"}),
        cluster("b1", {"zone": "b"}, taints=[taint("t")]),
    ]
    rr = greedy(clusters, pick_n(2, spread=(spread("zone", 1),), existing=(held("k"),)))
    assert chosen(rr) == ["k"]
    assert not rr.satisfied
    assert rr.unselected == (
        Unselected("a2", FilterKind.SPREAD, detail="zone", skew=1),
        Unselected("b1", FilterKind.TAINT, taint=taint("t")),
    )


def test_spread_first_hard_violation_is_reported() -> None:
    clusters = [
        cluster("k", {"zone": "a", "rack": "r1"}),
        cluster("c", {"zone": "a", "rack": "r1"}),
        cluster("o", {"zone": "b", "rack": "r2"}, eligible=False),
    ]
    constraints = (spread("rack", hard=False), spread("zone", 1), spread("rack", 1))
    rr = greedy(clusters, pick_n(2, spread=constraints, existing=(held("k"),)))
    assert rr.unselected[0] == Unselected("c", FilterKind.SPREAD, detail="zone", skew=1)


def test_spread_last_cycle_report_lists_not_picked_best_first() -> None:
    clusters = zoned("a1:a", "a2:a", "b1:b", "b2:b", "c1:c")
    rr = greedy(clusters, pick_n(2, spread=(spread("zone", 2),)))
    assert chosen(rr) == ["c1", "b2"]
    assert scores(rr) == {"c1": (-1, 0), "b2": (0, 0)}
    # The report is the last cycle's, scored before its pick: counts a=0, b=0, c=1, so a and b
    # tie at the minimum (0), and the not-picked follow by name, largest first.
    assert [(u.cluster, u.score.spread) for u in rr.unselected] == [("b1", 0), ("a2", 0), ("a1", 0)]
