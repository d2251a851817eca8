"""A delta holds only changes, and every change: both long-lived schedulers (adapters.live.hub.HubScheduler
and adapters.live.incremental.FleetScheduler) on the same Fleet hub and the same events write only
objects that are new or differ from what the hub holds, and the hub after the event is the hub
before it with the delta applied, a fixed point of a full solve."""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from adapters.generate.hubs import generate
from adapters.live import hub as hub_module
from adapters.live import incremental
from adapters.run.changes import SERVER_FIELDS, Key, object_key
from adapters.run.pipeline import schedule
from solver import SolveOptions
from tests.fixtures.common import NOW_TIME as NOW

OWNED = ("ClusterResourceBinding", "ClusterSchedulingPolicySnapshot")


def _stored(obj: dict[str, Any]) -> dict[str, Any]:
    """An object as a comparison sees it: without the metadata the API server keeps for itself."""
    metadata = {k: v for k, v in obj["metadata"].items() if k not in SERVER_FIELDS}
    return {**obj, "metadata": metadata}


def _state(objects: list[dict[str, Any]]) -> dict[Key, dict[str, Any]]:
    return {object_key(o): _stored(o) for o in objects}


class _Hub:
    """HubScheduler behind the events both schedulers take."""

    def __init__(self, objects, mode):
        self.s = hub_module.HubScheduler(objects, now=NOW, options=SolveOptions(mode=mode), verify=True)

    def objects(self):
        return self.s.objects()

    def cluster_removed(self, name):
        return self.s.handle(hub_module.Deleted("MemberCluster", name), now=NOW)

    def cluster_changed(self, obj):
        return self.s.handle(hub_module.Applied(obj), now=NOW)

    def placement_changed(self, obj):
        return self.s.handle(hub_module.Applied(obj), now=NOW)


class _Fleet:
    """FleetScheduler behind the events both schedulers take."""

    def __init__(self, objects, mode):
        self.s = incremental.FleetScheduler(objects, now=NOW, options=SolveOptions(mode=mode), verify=True)

    def objects(self):
        return self.s.objects()

    def cluster_removed(self, name):
        return self.s.handle(incremental.ClusterRemoved(name), now=NOW)

    def cluster_changed(self, obj):
        return self.s.handle(incremental.ClusterChanged(obj), now=NOW)

    def placement_changed(self, obj):
        return self.s.handle(incremental.PlacementChanged(obj), now=NOW)


@pytest.fixture(scope="module")
def fleet_objects() -> list[dict[str, Any]]:
    return generate("fleet", 40, 16, seed=5)


def _reference_key(ref: dict[str, str]) -> Key:
    return object_key({"apiVersion": ref["apiVersion"], "kind": ref["kind"], "metadata": ref})


def _of(objects, kind):
    return [o for o in objects if o["kind"] == kind]


def _busiest(objects) -> str:
    held = Counter(
        o["spec"]["targetCluster"]
        for o in _of(objects, "ClusterResourceBinding")
        if o["spec"]["state"] in ("Scheduled", "Bound")
    )
    return held.most_common(1)[0][0]


def _relabelled(objects) -> dict[str, Any]:
    member = copy.deepcopy(next(o for o in _of(objects, "MemberCluster") if o["metadata"]["name"] != "x"))
    member["metadata"]["labels"]["region"] = "somewhere-else"
    return member


def _pick_n(objects) -> dict[str, Any]:
    return next(
        o
        for o in _of(objects, "ClusterResourcePlacement")
        if (o["spec"].get("policy") or {}).get("placementType") == "PickN"
    )


def _scaled(objects) -> dict[str, Any]:
    crp = copy.deepcopy(_pick_n(objects))
    crp["spec"]["policy"]["numberOfClusters"] += 1
    return crp


def _repolicied(objects) -> dict[str, Any]:
    crp = copy.deepcopy(_pick_n(objects))
    crp["spec"]["policy"] = {"placementType": "PickN", "numberOfClusters": 2}
    return crp


def _new_placement(objects) -> dict[str, Any]:
    crp = copy.deepcopy(_pick_n(objects))
    crp["metadata"] = {"name": "a-new-placement"}
    return crp


EVENTS: dict[str, Callable[[Any, list[dict[str, Any]]], Any]] = {
    "cluster removed": lambda s, objects: s.cluster_removed(_busiest(objects)),
    "cluster relabelled": lambda s, objects: s.cluster_changed(_relabelled(objects)),
    "placement scaled": lambda s, objects: s.placement_changed(_scaled(objects)),
    "placement policy changed": lambda s, objects: s.placement_changed(_repolicied(objects)),
    "placement created": lambda s, objects: s.placement_changed(_new_placement(objects)),
}


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
@pytest.mark.parametrize("scheduler", [_Hub, _Fleet], ids=["HubScheduler", "FleetScheduler"])
def test_the_first_solve_writes_only_changes(fleet_objects, scheduler, mode) -> None:
    s = scheduler(copy.deepcopy(fleet_objects), mode)
    before = _state(fleet_objects)
    assert s.s.initial.apply
    for obj in s.s.initial.apply:
        assert _stored(obj) != before.get(object_key(obj)), object_key(obj)


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
@pytest.mark.parametrize("scheduler", [_Hub, _Fleet], ids=["HubScheduler", "FleetScheduler"])
@pytest.mark.parametrize("event", list(EVENTS))
def test_a_delta_holds_only_changes_and_every_change(fleet_objects, scheduler, event, mode) -> None:
    s = scheduler(copy.deepcopy(fleet_objects), mode)
    before = _state(s.objects())
    delta = EVENTS[event](s, s.objects())
    after = _state(s.objects())
    written = {object_key(o): _stored(o) for o in delta.apply}
    deleted = {
        object_key({"apiVersion": r["apiVersion"], "kind": r["kind"], "metadata": r}) for r in delta.delete
    }
    if event != "cluster relabelled":  # a label no policy reads may change nothing
        assert written or deleted, "the event changes something"
    for key, obj in written.items():
        assert obj != before.get(key), f"{key} is written unchanged"
    for key in {k for k in (*before, *after) if k[1] in OWNED}:
        expected = None if key in deleted else written.get(key, before.get(key))
        assert after.get(key) == expected, key
    assert _full_solve_changes(s.objects(), mode) == []


def _full_solve_changes(objects: list[dict[str, Any]], mode: str) -> list[Key]:
    """What a full solve of the hub from scratch would change: nothing at a fixed point."""
    held = {object_key(o): o for o in objects}
    outcome = schedule(copy.deepcopy(objects), now=NOW, options=SolveOptions(mode=mode))
    changed = [k for o in outcome.apply if hub_module.served(o, held.get(k := object_key(o))) != held.get(k)]
    return changed + [_reference_key(r) for r in outcome.delete]


@pytest.mark.parametrize("scheduler", [_Hub, _Fleet], ids=["HubScheduler", "FleetScheduler"])
def test_snapshots_no_longer_latest_stay_through_later_solves(fleet_objects, scheduler) -> None:
    # Two policy changes in a row: the first snapshot, relabelled not-latest by the first, is not
    # written again by the second, and stays (the history limit is 10).
    s = scheduler(copy.deepcopy(fleet_objects), "greedy")
    crp = copy.deepcopy(_pick_n(fleet_objects))
    name = crp["metadata"]["name"]
    for n in (2, 3):
        toleration = {"key": f"k{n}", "operator": "Exists"}
        crp["spec"]["policy"] = {"placementType": "PickN", "numberOfClusters": n, "tolerations": [toleration]}
        s.placement_changed(copy.deepcopy(crp))
    snapshots = {
        o["metadata"]["name"]: o["metadata"]["labels"]["kubernetes-fleet.io/is-latest-snapshot"]
        for o in _of(s.objects(), "ClusterSchedulingPolicySnapshot")
        if o["metadata"]["labels"]["kubernetes-fleet.io/parent-CRP"] == name
    }
    assert snapshots == {f"{name}-0": "false", f"{name}-1": "false", f"{name}-2": "true"}
