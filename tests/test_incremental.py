"""The long-lived scheduler: events re-solve only what they can change, move nothing they do not
force, and leave the same selections a full solve of the new state would."""

from __future__ import annotations

import copy
from collections import Counter
from datetime import UTC, datetime

import pytest

from adapters.incremental import (
    ClusterAdded,
    ClusterChanged,
    ClusterRemoved,
    FleetScheduler,
    PlacementChanged,
)
from adapters.pipeline import schedule
from bench.generate import generate
from solver import SolveOptions

NOW = datetime(2026, 11, 21, 12, tzinfo=UTC)


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
    rescored["status"]["properties"]["kubernetes.azure.com/per-cpu-core-cost"] = {"value": "0.001"}
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
