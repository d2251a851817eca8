"""Binding and snapshot lifecycle through the command line: stickiness, obsolete bindings after a
policy change, scale up and down, dangling and restored bindings, and the snapshot the scheduler
writes (fleet.md sections 2, 4 and 5)."""

from __future__ import annotations

import base64
import copy
import re

import pytest

from tests.fixtures.fleet import (
    CRP_GENERATION,
    FINALIZER,
    INDEX,
    LATEST,
    MODES,
    NOW,
    NUMBER,
    PARENT,
    PREVIOUS_STATE,
    Written,
    ago,
    as_json,
    binding,
    crp,
    decision,
    member_cluster,
    not_picked_reason,
    pick_all,
    pick_fixed,
    pick_n,
    preferred,
    run_solve,
    scheduled_condition,
    snapshot,
    spread,
    term,
    toleration,
)

AFFINITY = "ClusterUnschedulable, cluster does not match with any of the required cluster affinity terms"


def applied(obj: dict) -> dict:
    """An input object as it is written back unchanged: without server-populated metadata."""
    out = copy.deepcopy(obj)
    for key in ("resourceVersion", "uid", "generation", "creationTimestamp"):
        out["metadata"].pop(key, None)
    return out


def unscheduled(obj: dict) -> dict:
    """A binding marked Unscheduled: annotations replaced wholesale by the previous state."""
    out = applied(obj)
    out["metadata"]["annotations"] = {PREVIOUS_STATE: obj["spec"]["state"]}
    out["spec"]["state"] = "Unscheduled"
    return out


def prod(name: str, **kwargs) -> dict:
    return member_cluster(name, {"env": "prod", **kwargs.pop("labels", {})}, **kwargs)


# -------------------------------------------------------------------------------- stickiness


@pytest.mark.parametrize("mode", MODES)
def test_current_pick_n_bindings_are_never_reevaluated(tmp_path, mode):
    policy = pick_n(2, required=[term({"env": "prod"})])
    c1 = binding("app", "c1", state="Bound")
    c2 = binding("app", "c2", state="Scheduled")
    status = {
        "observedCRPGeneration": 1,
        "conditions": [scheduled_condition("True", 2, when=ago(100))],
        "targetClusters": [c1["spec"]["clusterDecision"], c2["spec"]["clusterDecision"]],
    }
    objects = [
        member_cluster("c1", {"env": "staging"}),  # no longer matches
        prod("c2", taints=[("k", "v")], healthy="False", health_changed=30),  # tainted and unhealthy
        prod("c3"),
        crp("app", policy),
        snapshot("app", 0, policy, n=2, status=status),
        c1,
        c2,
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.bindings("app") == [applied(c1), applied(c2)]
    assert [s["metadata"]["name"] for s in written.snapshots("app")] == ["app-0"]
    snap = written.snapshot("app")
    # No scheduling needed: only the selected decisions, bound first; the transition time is kept.
    assert snap["status"] == status


@pytest.mark.parametrize("mode", MODES)
def test_current_pick_all_bindings_are_kept_and_new_clusters_added(tmp_path, mode):
    policy = pick_all(required=[term({"env": "prod"})])
    kept = binding("web", "c1", state="Bound")
    objects = [
        member_cluster("c1", {"env": "staging"}),
        prod("c2", taints=[("k", "v")]),
        prod("c3"),
        crp("web", policy),
        snapshot("web", 0, policy),
        kept,
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen("web") == ["c1", "c3"]
    assert written.binding("web", "c1") == applied(kept)
    new = written.binding("web", "c3")
    assert new["spec"]["schedulingPolicySnapshotName"] == "web-0"
    assert written.targets("web") == [
        decision("c3", (0, 0)),
        kept["spec"]["clusterDecision"],
        {
            "clusterName": "c2",
            "selected": False,
            "reason": "ClusterUnschedulable, taint &{Key:k Value:v Effect:NoSchedule} cannot be tolerated",
        },
    ]
    assert written.condition("web")["message"].endswith("found 2 cluster(s)")


# ------------------------------------------------------------------------------ policy change


@pytest.mark.parametrize("mode", MODES)
def test_policy_change_pick_all(tmp_path, mode):
    old_policy = pick_all(required=[term({"env": "staging"})])
    new_policy = pick_all(required=[term({"env": "prod"})], tolerations=[toleration("k", "v")])
    old_status = {"observedCRPGeneration": 2, "conditions": [scheduled_condition("True", 2, when=ago(300))]}
    s1 = binding("web", "s1", state="Bound", annotations={"note": "dropped when unscheduled"})
    p1 = binding("web", "p1", state="Scheduled")
    objects = [
        member_cluster("s1", {"env": "staging"}),
        prod("p1"),
        prod("p2", taints=[("k", "v")]),
        crp("web", new_policy, generation=3),
        snapshot("web", 0, old_policy, crp_generation=2, status=old_status),
        s1,
        p1,
    ]
    written = Written.solve(tmp_path, objects, mode)

    old, new = written.snapshots("web")
    assert old == {
        **applied(snapshot("web", 0, old_policy, crp_generation=2, status=old_status)),
        "metadata": {
            **applied(objects[4])["metadata"],
            "labels": {PARENT: "web", LATEST: "false", INDEX: "0"},
        },
    }
    assert new["metadata"]["name"] == "web-1"
    assert new["metadata"]["labels"] == {PARENT: "web", LATEST: "true", INDEX: "1"}
    assert new["metadata"]["annotations"] == {CRP_GENERATION: "3"}
    assert new["metadata"]["ownerReferences"][0]["name"] == "web"
    assert new["metadata"]["ownerReferences"][0]["controller"] is True
    assert new["spec"]["policy"] == new_policy
    assert re.fullmatch(r"[0-9a-f]{64}", base64.b64decode(new["spec"]["policyHash"]).decode())

    # s1 no longer matches: Unscheduled. p1 still matches: patched, state kept. p2: new.
    assert written.binding("web", "s1") == unscheduled(s1)
    patched = applied(p1)
    patched["spec"]["schedulingPolicySnapshotName"] = "web-1"
    patched["spec"]["clusterDecision"] = decision("p1", (0, 0))
    assert written.binding("web", "p1") == patched
    assert written.binding("web", "p2")["spec"]["state"] == "Scheduled"

    assert new["status"] == {
        "observedCRPGeneration": 3,
        "conditions": [scheduled_condition("True", 2, when=NOW)],
        "targetClusters": [
            decision("p2", (0, 0)),
            decision("p1", (0, 0)),
            {"clusterName": "s1", "selected": False, "reason": AFFINITY},
        ],
    }


@pytest.mark.parametrize("mode", MODES)
def test_policy_change_pick_n_prefers_clusters_holding_obsolete_bindings(tmp_path, mode):
    old_policy = pick_n(2)
    new_policy = pick_n(2, required=[term({"env": "prod"})], prefer=[preferred(100, {"tier": "gold"})])
    p1 = binding("app", "p1", state="Bound")
    p2 = binding("app", "p2", state="Scheduled")
    objects = [
        prod("p1"),
        prod("p2"),
        prod("p3", labels={"tier": "gold"}),
        prod("p9"),  # the larger name, but holds nothing: the hidden third key ranks it below p1 and p2
        crp("app", new_policy, generation=2),
        snapshot("app", 0, old_policy, n=2),
        p1,
        p2,
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.snapshot("app")["metadata"]["name"] == "app-1"
    assert written.snapshot("app")["metadata"]["annotations"] == {CRP_GENERATION: "2", NUMBER: "2"}
    assert written.chosen("app") == ["p2", "p3"]
    assert written.binding("app", "p1") == unscheduled(p1)
    repicked = written.binding("app", "p2")
    assert repicked["metadata"]["name"] == p2["metadata"]["name"]
    assert repicked["spec"]["state"] == "Scheduled"
    assert repicked["spec"]["schedulingPolicySnapshotName"] == "app-1"
    assert written.targets("app") == [
        decision("p3", (100, 0)),
        decision("p2", (0, 0)),
        {
            "clusterName": "p1",
            "selected": False,
            "clusterScore": {"affinityScore": 0, "priorityScore": 0},
            "reason": not_picked_reason("p1", 0, 0),
        },
        {
            "clusterName": "p9",
            "selected": False,
            "clusterScore": {"affinityScore": 0, "priorityScore": 0},
            "reason": not_picked_reason("p9", 0, 0),
        },
    ]


def zone_spread_after_policy_change(clusters: list[str], *bindings: dict) -> list[dict]:
    """Clusters named <zone><n>, an app now spread over zones, and its bindings of the old policy."""
    return [
        *(member_cluster(name, {"zone": name[0]}) for name in clusters),
        crp("app", pick_n(2, spread_by=[spread("zone")])),
        snapshot("app", 0, pick_n(2), n=2),
        *bindings,
    ]


@pytest.mark.parametrize("mode", MODES)
def test_policy_change_under_spread(tmp_path, mode):
    a1 = binding("app", "a1", state="Bound")
    b1 = binding("app", "b1", state="Bound")
    objects = zone_spread_after_policy_change(["a1", "a2", "b1", "b2"], a1, b1)
    written = Written.solve(tmp_path, objects, mode)
    assert written.binding("app", "b1")["spec"]["state"] == "Bound"
    if mode == "greedy":
        # Batch size 1: the first cycle keeps only b1 (obsolete, larger name) and unschedules a1 at
        # once; the second cycle no longer prefers a1 and picks a2 by name.
        assert written.chosen("app") == ["a2", "b1"]
        assert written.binding("app", "a1") == unscheduled(a1)
    else:
        # Keeping both old clusters is as spread and less churn.
        assert written.chosen("app") == ["a1", "b1"]
        assert written.binding("app", "a1")["spec"]["state"] == "Bound"


@pytest.mark.parametrize("mode", MODES)
def test_policy_change_under_spread_restores_what_an_earlier_cycle_released(tmp_path, mode):
    a1 = binding("app", "a1", state="Bound", annotations={"team": "web"})
    b1 = binding("app", "b1", state="Bound")
    objects = zone_spread_after_policy_change(["a1", "b1", "b2"], a1, b1)
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen("app") == ["a1", "b1"]
    restored = written.binding("app", "a1")
    assert restored["metadata"]["name"] == a1["metadata"]["name"]
    assert restored["spec"]["state"] == "Bound"
    assert restored["spec"]["schedulingPolicySnapshotName"] == "app-1"
    if mode == "greedy":
        # Cycle 1 keeps b1 (the larger name) and marks a1 Unscheduled, replacing its annotations;
        # cycle 2 picks a1 again and restores its state, leaving that annotation behind, as upstream.
        assert restored["metadata"]["annotations"] == {"kubernetes-fleet.io/previous-binding-state": "Bound"}
    else:
        assert restored["metadata"]["annotations"] == {"team": "web"}


# ------------------------------------------------------------------------- number of clusters


def scaled_objects(n: int, bindings: list[dict], *, extra_clusters=()) -> list[dict]:
    """PickN whose snapshot was made for N=2 and whose CRP now asks for `n` (policy otherwise equal)."""
    status = {"observedCRPGeneration": 1, "conditions": [scheduled_condition("True", 2, when=ago(100))]}
    return [
        *(member_cluster(f"c{i}") for i in range(1, 8)),
        *extra_clusters,
        crp("app", pick_n(n), generation=2),
        snapshot("app", 0, pick_n(2), n=2, status=status),
        *bindings,
    ]


@pytest.mark.parametrize("mode", MODES)
def test_scale_up_keeps_the_snapshot(tmp_path, mode):
    c1 = binding("app", "c1", state="Bound")
    c2 = binding("app", "c2", state="Scheduled")
    written = Written.solve(tmp_path, scaled_objects(3, [c1, c2]), mode)
    assert [s["metadata"]["name"] for s in written.snapshots("app")] == ["app-0"]
    snap = written.snapshot("app")
    assert snap["metadata"]["annotations"] == {CRP_GENERATION: "2", NUMBER: "3"}
    assert snap["spec"]["policy"]["numberOfClusters"] == 2  # stale, as upstream leaves it
    assert written.chosen("app") == ["c1", "c2", "c7"]
    assert written.binding("app", "c1") == applied(c1)
    assert written.binding("app", "c2") == applied(c2)
    assert written.binding("app", "c7")["spec"]["schedulingPolicySnapshotName"] == "app-0"
    assert [t["clusterName"] for t in written.targets("app")[:3]] == ["c7", "c2", "c1"]
    assert snap["status"]["observedCRPGeneration"] == 2
    assert snap["status"]["conditions"] == [scheduled_condition("True", 3, when=ago(100))]


@pytest.mark.parametrize("mode", MODES)
def test_scale_down_order(tmp_path, mode):
    bindings = {
        "c1": binding("app", "c1", state="Bound", score=(5, 0)),
        "c2": binding("app", "c2", state="Scheduled", score=(80, 0)),
        "c3": binding("app", "c3", state="Scheduled", score=(20, 0)),
        "c4": binding("app", "c4", state="Scheduled", score=(20, 0)),
        "c5": binding("app", "c5", state="Scheduled", score=(90, -1)),  # topology ranks first
        "c6": binding("app", "c6", state="Scheduled", score=None),  # no score: trimmed first
        "c7": binding("app", "c7", state="Bound", policy_snapshot="app-old"),  # obsolete
    }
    written = Written.solve(tmp_path, scaled_objects(2, list(bindings.values())), mode)
    assert written.chosen("app") == ["c1", "c2"]
    for cluster in ("c3", "c4", "c5", "c6", "c7"):
        assert written.binding("app", cluster) == unscheduled(bindings[cluster])
    assert written.binding("app", "c1") == applied(bindings["c1"])
    assert written.binding("app", "c2") == applied(bindings["c2"])
    status = written.snapshot("app")["status"]
    assert status["targetClusters"] == [
        bindings["c2"]["spec"]["clusterDecision"],
        bindings["c1"]["spec"]["clusterDecision"],
    ]
    assert status["conditions"] == [scheduled_condition("True", 2, when=ago(100))]


@pytest.mark.parametrize("mode", MODES)
def test_scale_down_reaches_bound_bindings_lowest_score_then_smaller_name(tmp_path, mode):
    bindings = {
        "c1": binding("app", "c1", state="Bound", score=(50, 0)),
        "c2": binding("app", "c2", state="Bound", score=(10, 0)),
        "c3": binding("app", "c3", state="Bound", score=(10, 0)),
        "c4": binding("app", "c4", state="Scheduled", score=(99, 0)),
    }
    written = Written.solve(tmp_path, scaled_objects(2, list(bindings.values())), mode)
    # c4 (scheduled) goes first whatever its score, then the lower of the tied bound ones by name.
    assert written.chosen("app") == ["c1", "c3"]
    assert written.binding("app", "c4")["spec"]["state"] == "Unscheduled"
    assert written.binding("app", "c2") == unscheduled(bindings["c2"])


@pytest.mark.parametrize("mode", MODES)
def test_exact_count_with_obsolete_bindings_unschedules_them(tmp_path, mode):
    policy = pick_n(2)
    current = [
        binding("app", "c1", state="Bound", policy_snapshot="app-1"),
        binding("app", "c2", policy_snapshot="app-1"),
    ]
    stale = binding("app", "c3", state="Bound", policy_snapshot="app-0")
    objects = [
        *(member_cluster(f"c{i}") for i in range(1, 5)),
        crp("app", policy),
        snapshot("app", 0, pick_n(1), latest=False, n=1),
        snapshot("app", 1, policy, n=2),
        *current,
        stale,
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.chosen("app") == ["c1", "c2"]
    assert written.binding("app", "c3") == unscheduled(stale)
    assert [s["metadata"]["name"] for s in written.snapshots("app")] == ["app-1"]  # app-0 already not latest
    assert written.condition("app")["message"].endswith("found 2 cluster(s)")


@pytest.mark.parametrize("mode", MODES)
def test_scale_to_zero(tmp_path, mode):
    bindings = [binding("app", "c1", state="Bound"), binding("app", "c2")]
    written = Written.solve(tmp_path, scaled_objects(0, bindings), mode)
    assert written.chosen("app") == []
    assert "targetClusters" not in written.snapshot("app")["status"]
    assert written.condition("app")["message"].endswith("found 0 cluster(s)")


# ------------------------------------------------------------------ dangling and unscheduled


@pytest.mark.parametrize("mode", MODES)
def test_dangling_bindings_are_unscheduled_and_replaced(tmp_path, mode):
    policy = pick_n(3)
    bindings = {
        "c1": binding("app", "c1", state="Bound"),
        "gone": binding("app", "gone", state="Bound"),  # the cluster no longer exists
        "leaving": binding("app", "leaving", state="Scheduled"),  # the cluster is leaving
        "sick": binding("app", "sick", state="Scheduled"),  # unhealthy is not dangling
    }
    objects = [
        member_cluster("c1"),
        member_cluster("c2"),
        member_cluster("c3"),
        member_cluster("leaving", leaving=True),
        member_cluster("sick", healthy="False", health_changed=60),
        crp("app", policy),
        snapshot("app", 0, policy, n=3),
        *bindings.values(),
    ]
    written = Written.solve(tmp_path, objects, mode)
    assert written.binding("app", "gone") == unscheduled(bindings["gone"])
    assert written.binding("app", "leaving") == unscheduled(bindings["leaving"])
    assert written.binding("app", "sick") == applied(bindings["sick"])
    assert written.chosen("app") == ["c1", "c3", "sick"]
    assert written.condition("app")["message"].endswith("found 3 cluster(s)")


@pytest.mark.parametrize("mode", MODES)
def test_unscheduled_binding_is_restored_not_recreated(tmp_path, mode):
    policy = pick_n(2)
    parked = binding(
        "app",
        "c3",
        state="Unscheduled",
        name="app-c3-parked01",
        annotations={PREVIOUS_STATE: "Bound"},
        policy_snapshot="app-0",
    )
    other = binding(
        "app", "c2", state="Unscheduled", name="app-c2-parked02", annotations={PREVIOUS_STATE: "Scheduled"}
    )
    objects = [
        *(member_cluster(f"c{i}") for i in range(1, 4)),
        crp("app", policy, generation=2),
        snapshot("app", 0, pick_n(1), latest=False, n=1),
        snapshot("app", 1, policy, n=2, crp_generation=2),
        binding("app", "c1", state="Bound", policy_snapshot="app-1"),
        parked,
        other,
    ]
    written = Written.solve(tmp_path, objects, mode)
    restored = written.binding("app", "c3")
    assert restored["metadata"]["name"] == "app-c3-parked01"
    assert restored["spec"]["state"] == "Bound"
    assert restored["spec"]["schedulingPolicySnapshotName"] == "app-1"
    assert restored["spec"]["clusterDecision"] == decision("c3", (0, 0))
    assert len(written.bindings("app")) == 3  # no new binding for c3
    assert written.binding("app", "c2") == applied(other)  # not picked: left as it is


@pytest.mark.parametrize("mode", MODES)
def test_pick_fixed_restores_and_patches(tmp_path, mode):
    new_policy = pick_fixed("a", "b", "c")
    obsolete = binding("f", "a", state="Bound", score=None)
    parked = binding("f", "b", state="Unscheduled", score=None, annotations={PREVIOUS_STATE: "Scheduled"})
    dropped = binding("f", "d", state="Bound", score=None)
    objects = [
        *(member_cluster(n) for n in "abcd"),
        crp("f", new_policy, generation=2),
        snapshot("f", 0, pick_fixed("a", "d")),
        obsolete,
        parked,
        dropped,
    ]
    written = Written.solve(tmp_path, objects, mode)
    a = written.binding("f", "a")
    assert (a["spec"]["state"], a["spec"]["schedulingPolicySnapshotName"]) == ("Bound", "f-1")
    assert a["spec"]["clusterDecision"] == decision("a")
    b = written.binding("f", "b")
    assert (b["metadata"]["name"], b["spec"]["state"]) == (parked["metadata"]["name"], "Scheduled")
    assert written.binding("f", "c")["spec"]["clusterDecision"] == decision("c")
    assert written.binding("f", "d") == unscheduled(dropped)
    assert written.targets("f") == [decision("a"), decision("b"), decision("c")]


@pytest.mark.parametrize("mode", MODES)
def test_pick_fixed_current_binding_on_a_now_invalid_cluster(tmp_path, mode):
    policy = pick_fixed("a", "b")
    a, b = binding("f", "a", score=None), binding("f", "b", state="Bound", score=None)
    objects = [
        member_cluster("a"),
        member_cluster("b", healthy="False", health_changed=30),
        crp("f", policy),
        snapshot("f", 0, policy),
        a,
        b,
    ]
    written = Written.solve(tmp_path, objects, mode)
    # The binding stays (main-old leaves current bindings alone); the status lists b once, as invalid.
    assert written.binding("f", "b") == applied(b)
    assert [(t["clusterName"], t["selected"]) for t in written.targets("f")] == [("a", True), ("b", False)]
    assert written.condition("f")["message"].endswith("found 1 cluster(s) instead")


@pytest.mark.parametrize("mode", MODES)
def test_deleting_binding_loses_the_scheduler_finalizer(tmp_path, mode):
    policy = pick_n(1)
    going = binding("app", "c1", state="Bound", deleting=True)
    going["metadata"]["finalizers"] = ["other.io/keep", FINALIZER]
    objects = [
        member_cluster("c1"),
        member_cluster("c2"),
        crp("app", policy),
        snapshot("app", 0, policy, n=1),
        going,
    ]
    written = Written.solve(tmp_path, objects, mode)
    out = [b for b in written.bindings("app") if b["metadata"].get("deletionTimestamp")]
    assert out[0]["metadata"]["finalizers"] == ["other.io/keep"]
    assert written.chosen("app") == ["c1", "c2"]  # a deleting binding holds nothing: c2 is new
    assert written.binding("app", "c2", state="Scheduled")


# ---------------------------------------------------------------------------- new objects


@pytest.mark.parametrize("mode", MODES)
def test_new_binding_shape_and_name(tmp_path, mode):
    placement = "a-very-long-placement-name-for-the-name-test"
    cluster = "member-cluster-with-an-extremely-long-name-01"
    objects = [member_cluster(cluster), crp(placement, pick_n(1))]
    written = Written.solve(tmp_path, objects, mode)
    (new,) = written.bindings(placement)
    name = new["metadata"]["name"]
    assert re.fullmatch(re.escape(f"{placement[:26]}-{cluster[:27]}-") + "[0-9a-f]{8}", name)
    assert len(name) == 63
    assert new == {
        "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
        "kind": "ClusterResourceBinding",
        "metadata": {"name": name, "labels": {PARENT: placement}, "finalizers": [FINALIZER]},
        "spec": {
            "state": "Scheduled",
            "resourceSnapshotName": "",
            "schedulingPolicySnapshotName": f"{placement}-0",
            "targetCluster": cluster,
            "clusterDecision": decision(cluster, (0, 0)),
        },
    }


@pytest.mark.parametrize("mode", MODES)
def test_new_snapshot_when_none_exists(tmp_path, mode):
    policy = pick_n(1, prefer=[preferred(10, {"a": "b"})])
    written = Written.solve(tmp_path, [member_cluster("c1"), crp("app", policy, generation=7)], mode)
    snap = written.snapshot("app")
    assert snap["metadata"] == {
        "name": "app-0",
        "labels": {PARENT: "app", LATEST: "true", INDEX: "0"},
        "annotations": {CRP_GENERATION: "7", NUMBER: "1"},
        "ownerReferences": [
            {
                "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
                "kind": "ClusterResourcePlacement",
                "name": "app",
                "controller": True,
                "blockOwnerDeletion": True,
            }
        ],
    }
    assert snap["spec"]["policy"] == policy
    assert snap["status"] == {
        "observedCRPGeneration": 7,
        "conditions": [scheduled_condition("True", 1, when=NOW)],
        "targetClusters": [decision("c1", (0, 0))],
    }


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("before", "after", "when"),
    [
        ("True", "True", ago(100)),
        ("False", "True", NOW),
        ("True", "False", NOW),
        ("False", "False", ago(100)),
    ],
)
def test_condition_transition_time(tmp_path, mode, before, after, when):
    n = 1 if after == "True" else 5
    policy = pick_n(n)
    status = {
        "observedCRPGeneration": 1,
        "conditions": [scheduled_condition(before, 1, when=ago(100), generation=3)],
    }
    objects = [
        member_cluster("c1"),
        crp("app", policy, generation=4),
        snapshot("app", 0, policy, n=n, generation=3, status=status),
    ]
    written = Written.solve(tmp_path, objects, mode)
    snap = written.snapshot("app")
    assert snap["metadata"]["annotations"] == {CRP_GENERATION: "4", NUMBER: str(n)}
    assert snap["status"]["observedCRPGeneration"] == 4
    # observedGeneration is the snapshot's own generation.
    assert snap["status"]["conditions"] == [scheduled_condition(after, 1, when=when, generation=3)]


@pytest.mark.parametrize("limit", [None, 2])
def test_revision_history_limit(tmp_path, limit):
    objects = [
        member_cluster("c1"),
        crp("app", pick_n(1, prefer=[preferred(5, {"x": "y"})])),
        snapshot("app", 0, pick_n(1), latest=False, n=1),
        snapshot("app", 1, pick_all()),
    ]
    if limit is not None:
        objects[1]["spec"]["revisionHistoryLimit"] = limit
    plan = as_json(run_solve(tmp_path, objects, "greedy", "plan"))
    snapshots = [o for o in plan["apply"] if o["kind"] == "ClusterSchedulingPolicySnapshot"]
    assert [(s["metadata"]["name"], s["metadata"]["labels"][LATEST]) for s in snapshots] == [
        ("app-1", "false"),
        ("app-2", "true"),
    ]
    expected = (
        []
        if limit is None
        else [
            {
                "apiVersion": "placement.kubernetes-fleet.io/v1beta1",
                "kind": "ClusterSchedulingPolicySnapshot",
                "name": "app-0",
            }
        ]
    )
    assert plan["delete"] == expected


@pytest.mark.parametrize("mode", MODES)
def test_held_cluster_failing_a_filter_is_listed_once_but_takes_a_report_slot(tmp_path, mode):
    policy = pick_all(required=[term({"env": "prod"})])
    held = binding("web", "f05x", state="Bound")
    objects = [
        *(member_cluster(f"f{i:02d}", {"env": "dev"}) for i in range(25)),
        member_cluster("f05x", {"env": "dev"}),  # held under the current policy, no longer matching
        crp("web", policy),
        snapshot("web", 0, policy),
        held,
    ]
    written = Written.solve(tmp_path, objects, mode)
    targets = written.targets("web")
    assert targets[0] == held["spec"]["clusterDecision"]
    # Upstream walks the first 20 filtered clusters and skips the one already selected.
    assert targets[1:] == [
        {"clusterName": f"f{i:02d}", "selected": False, "reason": AFFINITY} for i in range(19)
    ]
