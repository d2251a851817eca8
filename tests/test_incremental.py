"""The long-lived scheduler: events re-solve only what they can change, move nothing they do not
force, and leave the same selections a full solve of the new state would."""

from __future__ import annotations

import copy
from collections import Counter

import pytest

from adapters.live.incremental import (
    ClusterAdded,
    ClusterChanged,
    ClusterRemoved,
    FleetScheduler,
    PlacementChanged,
    PlacementRemoved,
)
from adapters.run.pipeline import schedule
from bench.generate import generate
from solver import SolveOptions
from tests.fixtures.common import NOW_TIME as NOW
from tests.fixtures.fleet import agent_condition


def _full(objects, mode):
    outcome = schedule(objects, now=NOW, options=SolveOptions(mode=mode))
    return {r.request: sorted(c.cluster for c in r.selected) for r in outcome.result.requests}


def _moves(before, after):
    return sum(len(set(clusters) - set(after.get(name, []))) for name, clusters in before.items())


@pytest.fixture(scope="module")
def fleet_objects():
    return generate("fleet", 300, 120, seed=3)


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_removing_a_cluster_moves_only_what_it_held(fleet_objects, mode) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, options=SolveOptions(mode=mode), verify=True)
    before = scheduler.selected()
    busiest = Counter(c for clusters in before.values() for c in clusters).most_common(1)[0][0]
    delta = scheduler.handle(ClusterRemoved(busiest), now=NOW)
    after = scheduler.selected()
    forced = sum(busiest in clusters for clusters in before.values())
    assert forced > 0 and _moves(before, after) == forced
    assert all(busiest not in clusters for clusters in after.values())
    assert set(delta.placements) >= {name for name, clusters in before.items() if busiest in clusters}
    assert after == _full(scheduler.objects(), mode)


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_label_and_score_changes_move_nothing(fleet_objects, mode) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, options=SolveOptions(mode=mode), verify=True)
    members = [o for o in fleet_objects if o["kind"] == "MemberCluster"]
    before = scheduler.selected()
    relabelled = copy.deepcopy(members[7])
    relabelled["metadata"]["labels"]["region"] = "somewhere-else"
    scheduler.handle(ClusterChanged(relabelled), now=NOW)
    rescored = copy.deepcopy(members[11])
    cost = rescored["status"]["properties"]["kubernetes.azure.com/per-cpu-core-cost"]
    cost["value"] = "0.001"
    scheduler.handle(ClusterChanged(rescored), now=NOW)
    after = scheduler.selected()
    assert _moves(before, after) == 0
    assert after == _full(scheduler.objects(), mode)


def test_an_added_cluster_only_wakes_placements_it_can_serve(fleet_objects) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, verify=True)
    members = [o for o in fleet_objects if o["kind"] == "MemberCluster"]
    before = scheduler.selected()
    new = copy.deepcopy(members[0])
    new["metadata"]["name"] = "member-added-00001"
    delta = scheduler.handle(ClusterAdded(new), now=NOW)
    after = scheduler.selected()
    assert _moves(before, after) == 0
    assert len(delta.placements) < len(before)
    gained = [name for name in after if "member-added-00001" in after[name]]
    assert set(gained) <= set(delta.placements)
    assert after == _full(scheduler.objects(), "optimal")


def test_a_changed_placement_is_solved_alone(fleet_objects) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, verify=True)
    crp = copy.deepcopy(next(o for o in fleet_objects if o["kind"] == "ClusterResourcePlacement"))
    crp["spec"]["policy"] = {"placementType": "PickN", "numberOfClusters": 2}
    delta = scheduler.handle(PlacementChanged(crp), now=NOW)
    assert delta.placements == [crp["metadata"]["name"]]
    assert len(scheduler.selected()[crp["metadata"]["name"]]) == 2
    kinds = Counter(o["kind"] for o in delta.apply)
    assert kinds["ClusterSchedulingPolicySnapshot"] >= 1


def test_incremental_benchmark_reports_no_moves_beyond_forced() -> None:
    from bench.incremental import KINDS, run_incremental, summarize

    frame = summarize(run_incremental(200, 60, events=2, seed=1))
    assert frame.get_column("event").to_list() == list(KINDS)
    assert frame.get_column("beyond_forced").to_list() == [0, 0, 0, 0]
    assert frame.filter(frame["event"] == "cluster-removed")["forced"].item() > 0


# -- placement deletion -------------------------------------------------------------------------


def _owned_by(objects, name):
    return [
        o
        for o in objects
        if o["kind"] in ("ClusterResourceBinding", "ClusterSchedulingPolicySnapshot")
        and o["metadata"].get("labels", {}).get("kubernetes-fleet.io/parent-CRP") == name
    ]


def test_a_removed_placement_takes_its_bindings_and_snapshots_and_nothing_else_moves(fleet_objects) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, verify=True)
    before = scheduler.selected()
    name = max(before, key=lambda p: len(before[p]))  # the placement holding the most clusters
    owned = _owned_by(scheduler.objects(), name)
    assert any(o["kind"] == "ClusterResourceBinding" for o in owned)
    delta = scheduler.handle(PlacementRemoved(name), now=NOW)
    assert delta.placements == [name]
    # the bindings deleted; the policy snapshots, owned by the placement, go with it (the
    # garbage collector's work once its finalizer is off)
    assert sorted((d["kind"], d["name"]) for d in delta.delete) == sorted(
        (o["kind"], o["metadata"]["name"]) for o in owned if o["kind"] == "ClusterResourceBinding"
    )
    # upstream's scheduler drops its finalizer from each binding before deleting it, and then
    # its own from the placement, which lets the placement go
    assert {(o["kind"], o["metadata"]["name"]) for o in delta.apply} == {
        (o["kind"], o["metadata"]["name"]) for o in owned if o["kind"] == "ClusterResourceBinding"
    } | {("ClusterResourcePlacement", name)}
    finalizer = "kubernetes-fleet.io/scheduler-crb-cleanup"
    assert all(finalizer not in o["metadata"].get("finalizers", ()) for o in delta.apply)
    after = scheduler.selected()
    assert name not in after
    assert after == {p: clusters for p, clusters in before.items() if p != name}
    assert not _owned_by(scheduler.objects(), name)
    placements = [o for o in scheduler.objects() if o["kind"] == "ClusterResourcePlacement"]
    assert name not in {o["metadata"]["name"] for o in placements}
    assert after == _full(scheduler.objects(), "optimal")
    again = scheduler.handle(PlacementRemoved(name), now=NOW)  # a second delete, or an unknown name
    assert (again.apply, again.delete, again.placements) == ([], [], [])


def test_a_placement_created_again_after_removal_starts_from_nothing(fleet_objects) -> None:
    scheduler = FleetScheduler(fleet_objects, now=NOW, verify=True)
    crp = next(
        o
        for o in fleet_objects
        if o["kind"] == "ClusterResourcePlacement" and _owned_by(fleet_objects, o["metadata"]["name"])
    )
    name = crp["metadata"]["name"]
    scheduler.handle(PlacementRemoved(name), now=NOW)
    delta = scheduler.handle(PlacementChanged(crp), now=NOW)
    assert delta.placements == [name]
    bindings = [o for o in delta.apply if o["kind"] == "ClusterResourceBinding"]
    assert all(b["spec"]["state"] == "Scheduled" for b in bindings)  # new, none restored or kept
    assert scheduler.selected() == _full(scheduler.objects(), "optimal")


# -- time ---------------------------------------------------------------------------------------


def _member(name: str, heartbeat: str) -> dict:
    long_ago = "2026-11-01T00:00:00Z"
    return {
        "apiVersion": "cluster.kubernetes-fleet.io/v1beta1",
        "kind": "MemberCluster",
        "metadata": {"name": name, "labels": {"environment": "production"}},
        "spec": {"identity": {"kind": "ServiceAccount", "name": "agent", "namespace": "fleet-system"}},
        "status": {
            "agentStatus": [
                {
                    "type": "MemberAgent",
                    "lastReceivedHeartbeat": heartbeat,
                    "conditions": [
                        agent_condition("Joined", "True", long_ago),
                        agent_condition("Healthy", "True", long_ago),
                    ],
                }
            ]
        },
    }


def _pick_all(name: str) -> dict:
    return {
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourcePlacement",
        "metadata": {"name": name, "generation": 1},
        "spec": {
            "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": name}],
            "policy": {"placementType": "PickAll"},
        },
    }


def test_a_cluster_whose_heartbeat_times_out_with_no_event_is_not_picked_later() -> None:
    from datetime import timedelta

    heard = "2026-11-21T12:00:00Z"
    hub = [_member("a", heard), _member("b", heard), _pick_all("old")]
    scheduler = FleetScheduler(hub, now=NOW, verify=True)
    assert scheduler.selected() == {"old": ["a", "b"]}
    later = NOW + timedelta(minutes=10)  # b's agent went silent; a heartbeats on
    alive = _member("a", "2026-11-21T12:09:30Z")
    delta = scheduler.handle(ClusterChanged(alive), now=later)
    assert delta.placements == []  # a is held already; b's timeout wakes nothing (upstream ignores it)
    scheduler.handle(PlacementChanged(_pick_all("new")), now=later)
    assert scheduler.selected() == {"new": ["a"], "old": ["a", "b"]}  # old keeps b: bindings are sticky
    assert scheduler.selected() == _full_at(scheduler.objects(), later)


def test_a_silent_cluster_heard_again_is_picked_again() -> None:
    from datetime import timedelta

    scheduler = FleetScheduler([_member("a", "2026-11-21T11:50:00Z")], now=NOW, verify=True)
    scheduler.handle(PlacementChanged(_pick_all("web")), now=NOW)
    assert scheduler.selected() == {"web": []}
    later = NOW + timedelta(minutes=1)
    delta = scheduler.handle(ClusterChanged(_member("a", "2026-11-21T12:01:00Z")), now=later)
    assert delta.placements == ["web"]
    assert scheduler.selected() == {"web": ["a"]} == _full_at(scheduler.objects(), later)


def _full_at(objects, now):
    outcome = schedule(objects, now=now, options=SolveOptions())
    return {r.request: sorted(c.cluster for c in r.selected) for r in outcome.result.requests}
