"""OCM spreadPolicy, which upstream has in its API but never implemented: hard (DoNotSchedule) and
soft (ScheduleAnyway) constraints over labels or claims, solved exactly in optimal mode; greedy
mode picks one cluster per cycle, the spread score first (as KubeFleet does), then the total
score, then the smaller name."""

from __future__ import annotations

from collections import Counter

import pytest

from tests.fixtures.ocm import (
    MODES,
    Written,
    addon,
    builtin,
    decision,
    hub,
    managed_cluster,
    placement,
    score,
)


def constraint(key: str, *, hard: bool = True, claim: bool = False, skew: int | None = None) -> dict:
    out = {
        "topologyKey": key,
        "topologyKeyType": "Claim" if claim else "Label",
        "whenUnsatisfiable": "DoNotSchedule" if hard else "ScheduleAnyway",
    }
    if skew is not None:
        out["maxSkew"] = skew
    return out


def stuck_hub(hard: bool = True) -> list[dict]:
    # "a" has the smallest name, so greedy takes it first; after it, p breaks the zone constraint
    # and q the rack constraint (a claim). p and q together are perfectly spread.
    clusters = [
        managed_cluster("a", {"zone": "z1"}, claims={"rack": "r1"}),
        managed_cluster("p", {"zone": "z1"}, claims={"rack": "r2"}),
        managed_cluster("q", {"zone": "z2"}, claims={"rack": "r1"}),
    ]
    spread = [constraint("zone", hard=hard), constraint("rack", hard=hard, claim=True)]
    return hub(*clusters, placement("p", n=2, spread=spread))


def test_greedy_gets_stuck_where_optimal_finds_the_spread(tmp_path) -> None:
    greedy = Written.solve(tmp_path, stuck_hub(), "greedy")
    optimal = Written.solve(tmp_path, stuck_hub(), "optimal")
    assert greedy.chosen() == ["a"]
    assert greedy.satisfied() == ("False", "NotAllDecisionsScheduled", "1 cluster decisions unscheduled")
    assert optimal.chosen() == ["p", "q"]
    assert optimal.satisfied()[0] == "True"
    assert optimal.summary["objective"] > greedy.summary["objective"]


def test_soft_spread_is_paid_for_not_forbidden(tmp_path) -> None:
    greedy = Written.solve(tmp_path, stuck_hub(hard=False), "greedy")
    optimal = Written.solve(tmp_path, stuck_hub(hard=False), "optimal")
    assert len(greedy.chosen()) == 2 and "a" in greedy.chosen()  # greedy pays a violation
    assert optimal.chosen() == ["p", "q"]  # no skew over either key
    assert greedy.satisfied()[0] == optimal.satisfied()[0] == "True"


@pytest.mark.parametrize("mode", MODES)
def test_claim_topology_spreads_over_claim_values(tmp_path, mode) -> None:
    clusters = [managed_cluster(f"c{i}", claims={"region": r}) for i, r in enumerate("xxxyyz", 1)]
    objects = hub(*clusters, placement("p", n=3, spread=[constraint("region", claim=True)]))
    chosen = Written.solve(tmp_path, objects, mode).chosen()
    regions = Counter({"c1": "x", "c2": "x", "c3": "x", "c4": "y", "c5": "y", "c6": "z"}[c] for c in chosen)
    assert sorted(regions.values()) == [1, 1, 1]
    assert chosen == ["c1", "c4", "c6"]  # the smallest name in each region


@pytest.mark.parametrize("mode", MODES)
def test_spread_outranks_scores_but_scores_pick_within_a_domain(tmp_path, mode) -> None:
    clusters = [managed_cluster(f"c{i}", {"zone": z}) for i, z in enumerate("aabb", 1)]
    scores = [score(c, "demo", {"s": v}) for c, v in (("c1", 10), ("c2", 90), ("c3", 50), ("c4", 20))]
    p = placement("p", n=2, mode="Exact", prioritizers=[addon("demo", "s")], spread=[constraint("zone")])
    chosen = Written.solve(tmp_path, hub(*clusters, *scores, p), mode).chosen()
    assert chosen == ["c2", "c3"]  # one per zone, each zone's best


@pytest.mark.parametrize("mode", MODES)
def test_spread_with_balance_across_placements(tmp_path, mode) -> None:
    # Two placements under zone spread, coupled by Balance: both stay spread, and each is sound.
    clusters = [managed_cluster(f"c{i}", {"zone": z}) for i, z in enumerate("aabbcc", 1)]
    spread = [constraint("zone", skew=1)]
    objects = hub(
        *clusters,
        placement("p1", n=3, spread=spread),
        placement("p2", n=3, mode="Exact", prioritizers=[builtin("Balance", 3)], spread=spread),
        decision("p1", 1, ["c1", "c3", "c5"]),
    )
    written = Written.solve(tmp_path, objects, mode)
    zone = {f"c{i}": z for i, z in enumerate("aabbcc", 1)}
    for name in ("p1", "p2"):
        assert sorted(Counter(zone[c] for c in written.chosen(name)).values()) == [1, 1, 1]
    # p1 holds one cluster per zone and Steady keeps them; p2's Balance sends it to the others.
    assert written.chosen("p1") == ["c1", "c3", "c5"]
    assert written.chosen("p2") == ["c2", "c4", "c6"]
