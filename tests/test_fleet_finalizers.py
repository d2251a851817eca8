"""The finalizers KubeFleet's scheduler keeps on a placement, and its clean-up of a placement being
deleted (kubefleet pkg/scheduler/scheduler.go at e160c1cd).

scheduleOnce, for a placement not being deleted whose latest policy snapshot exists, adds the
scheduler's cleanup finalizer (addSchedulerCleanUpFinalizer: an Update, before the cycle, whatever
the cycle then finds). For a placement being deleted it runs no cycle: holding its finalizer, it
takes the binding finalizer off every binding of the placement, deletes each binding not being
deleted yet, whatever its state, and then takes its own finalizer off the placement
(cleanUpAllBindingsFor); without it, nothing. The placement controller keeps no snapshot for a
placement being deleted, and, holding its own finalizer, deletes its policy snapshots
(pkg/controllers/placement/controller.go handleDelete).
"""

from __future__ import annotations

import copy
from datetime import timedelta

import pytest

from adapters.live.hub import Deleted, HubScheduler
from adapters.live.incremental import FleetScheduler, PlacementChanged
from solver import SolveOptions
from tests.fixtures.fleet import (
    FINALIZER,
    HELD,
    MODES,
    NOW,
    NOW_TIME,
    PLACEMENT_CLEANUP,
    SCHEDULER_CLEANUP,
    Written,
    as_json,
    binding,
    checked_outcome,
    crp,
    member_cluster,
    pick_all,
    pick_fixed,
    pick_n,
    run_cli,
    run_solve,
    snapshot,
    solve_args,
    write_yaml,
)

CLUSTERS = [member_cluster("a"), member_cluster("b"), member_cluster("gone", leaving=True)]


def _plan(tmp_path, objects, mode) -> dict:
    return as_json(run_solve(tmp_path, objects, mode, "plan"))


def _names(plan: dict) -> list[str]:
    return [f"{o['kind']}/{o['metadata']['name']}" for o in plan["apply"]] + [
        f"delete {ref['kind']}/{ref['name']}" for ref in plan["delete"]
    ]


def _placement(written: Written, name: str = "web") -> dict:
    (found,) = [o for o in written.of_kind("ClusterResourcePlacement") if o["metadata"]["name"] == name]
    return found


# ---------------------------------------------------------------------------- a placement scheduled


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_scheduled_gets_the_schedulers_finalizer_after_its_own(tmp_path, mode):
    web = crp("web", pick_n(1), finalizers=[PLACEMENT_CLEANUP])
    web["status"] = {"observedResourceIndex": "0"}  # the placement controller's: kept as read
    written = Written.solve(tmp_path, [*CLUSTERS, web], mode)
    placement = _placement(written)
    assert placement["metadata"]["finalizers"] == [PLACEMENT_CLEANUP, SCHEDULER_CLEANUP]
    assert placement["spec"] == web["spec"] and placement["status"] == web["status"]
    assert "ClusterResourcePlacement/web" in _names(_plan(tmp_path, [*CLUSTERS, web], mode))


# Whatever the cycle then finds, the finalizer is added first: a cycle that picks nothing, a
# PickFixed whose clusters are ineligible or not found, a PickFixed naming none, PickN of 0.
POLICIES = {
    "nothing to pick": pick_all(required=[{"labelSelector": {"matchLabels": {"env": "none"}}}]),
    "fixed, none valid": pick_fixed("gone", "nowhere"),
    "fixed, no names": {"placementType": "PickFixed", "clusterNames": []},
    "zero clusters": pick_n(0),
    "no policy": None,
}


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("policy", POLICIES.values(), ids=POLICIES.keys())
def test_the_finalizer_is_added_whatever_the_cycle_finds(tmp_path, mode, policy):
    written = Written.solve(tmp_path, [*CLUSTERS, crp("web", policy)], mode)
    assert _placement(written)["metadata"]["finalizers"] == [SCHEDULER_CLEANUP]


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_holding_it_is_not_written(tmp_path, mode):
    policy = pick_all()
    objects = [
        *CLUSTERS[:2],
        crp("web", policy, finalizers=HELD),
        snapshot("web", 0, policy),
        binding("web", "a"),
        binding("web", "b"),
    ]
    assert "ClusterResourcePlacement/web" not in _names(_plan(tmp_path, objects, mode))
    assert _placement(Written.solve(tmp_path, objects, mode))["metadata"]["finalizers"] == list(HELD)


# ----------------------------------------------------------------------- a placement being deleted


def _deleting_hub(finalizers) -> list[dict]:
    policy = pick_all()
    kept = binding("web", "b", state="Bound", name="web-b")
    kept["metadata"]["finalizers"] = ["other.io/keep", FINALIZER]
    bare = binding("web", "c", name="web-c")
    del bare["metadata"]["finalizers"]
    return [
        *CLUSTERS,
        member_cluster("c"),
        member_cluster("d"),  # free, and eligible: no cycle runs, nothing lands on it
        crp("web", policy, finalizers=finalizers, deleting=True),
        snapshot("web", 0, pick_n(1), latest=False, n=1),
        snapshot("web", 1, policy),
        binding("web", "a", name="web-a"),  # Scheduled, current
        kept,  # Bound, another finalizer too
        bare,  # without the binding finalizer
        binding("web", "gone", state="Unscheduled", name="web-gone", annotations={"x": "y"}),
        binding("web", "d", deleting=True, name="web-d", policy_snapshot="web-0"),  # being deleted
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_being_deleted_has_its_bindings_released_and_deleted_then_its_finalizer(tmp_path, mode):
    objects = _deleting_hub(HELD)
    plan = _plan(tmp_path, objects, mode)
    assert _names(plan) == [
        "ClusterResourceBinding/web-a",
        "ClusterResourceBinding/web-b",
        "ClusterResourceBinding/web-d",
        "ClusterResourceBinding/web-gone",
        "ClusterResourcePlacement/web",
        # the placement controller's (it holds its finalizer): every policy snapshot
        "delete ClusterSchedulingPolicySnapshot/web-0",
        "delete ClusterSchedulingPolicySnapshot/web-1",
        # every binding not being deleted yet, whatever its state
        "delete ClusterResourceBinding/web-a",
        "delete ClusterResourceBinding/web-b",
        "delete ClusterResourceBinding/web-c",
        "delete ClusterResourceBinding/web-gone",
    ]
    written = {o["metadata"]["name"]: o for o in plan["apply"]}
    assert "finalizers" not in written["web-a"]["metadata"]
    assert written["web-b"]["metadata"]["finalizers"] == ["other.io/keep"]
    assert written["web-gone"]["spec"]["state"] == "Unscheduled"  # nothing but its finalizer changes
    assert written["web"]["metadata"]["finalizers"] == [PLACEMENT_CLEANUP]
    # no cycle: no binding made, none marked, no snapshot made or refreshed
    specs = {o["metadata"]["name"]: o["spec"] for o in objects if o["kind"] == "ClusterResourceBinding"}
    assert {o["metadata"]["name"]: o["spec"] for o in plan["apply"][:4]} == {
        name: spec for name, spec in specs.items() if name != "web-c"
    }


@pytest.mark.parametrize("mode", MODES)
def test_without_the_schedulers_finalizer_the_scheduler_writes_nothing(tmp_path, mode):
    assert _names(_plan(tmp_path, _deleting_hub([]), mode)) == []
    assert _names(_plan(tmp_path, _deleting_hub([PLACEMENT_CLEANUP]), mode)) == [
        "delete ClusterSchedulingPolicySnapshot/web-0",
        "delete ClusterSchedulingPolicySnapshot/web-1",
    ]
    # in -o yaml every object is written as read
    written = Written.solve(tmp_path, _deleting_hub([]), mode)
    assert sorted(o["metadata"]["name"] for o in written.objects) == [
        "web",
        "web-0",
        "web-1",
        "web-a",
        "web-b",
        "web-c",
        "web-d",
        "web-gone",
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_being_deleted_does_not_hold_back_the_others(mode):
    outcome = checked_outcome([*_deleting_hub(HELD), crp("api", pick_n(2))], mode)
    assert [r.key for r in outcome.batch.requests] == ["api"]  # no cycle for the other
    written = Written(list(outcome.apply))
    assert written.chosen("api") == ["c", "d"]  # the deleting placement's bindings bind nothing
    assert _placement(written, "api")["metadata"]["finalizers"] == [SCHEDULER_CLEANUP]


# ----------------------------------------------------------------------------------- -o apply-script


def _versioned(objects: list[dict]) -> list[dict]:
    out = copy.deepcopy(objects)
    for i, obj in enumerate(out):
        obj["metadata"].setdefault("uid", f"uid-{obj['metadata']['name']}")
        obj["metadata"].setdefault("resourceVersion", str(100 + i))
    return out


def _script(tmp_path, objects, mode) -> list[str]:
    path = write_yaml(tmp_path / "hub.yaml", _versioned(objects))
    result = run_cli(solve_args([path], mode, "apply-script"))
    assert result.exit_code == 0, result.stderr
    return [
        line
        for line in result.stdout.splitlines()
        if line.startswith(("# update ", "# delete ", "# create "))
    ]


@pytest.mark.parametrize("mode", MODES)
def test_the_script_adds_the_finalizer_before_the_cycles_writes(tmp_path, mode):
    comments = _script(tmp_path, [*CLUSTERS, crp("web", pick_n(1))], mode)
    calls = [c for c in comments if "ClusterResourcePlacement" in c or "ClusterResourceBinding" in c]
    assert calls[0] == (
        "# update ClusterResourcePlacement/web, conditional on uid and resourceVersion: "
        "pkg/scheduler/scheduler.go addSchedulerCleanUpFinalizer"
    )
    assert calls[1].startswith("# create ClusterResourceBinding/web-")


@pytest.mark.parametrize("mode", MODES)
def test_the_script_cleans_up_as_cleanupallbindingsfor_does(tmp_path, mode):
    comments = _script(tmp_path, _deleting_hub(HELD), mode)
    update = "conditional on uid and resourceVersion: pkg/scheduler/framework/framework.go "
    update += "removeFinalizerAndUpdate/pkg/scheduler/scheduler.go cleanUpAllBindingsFor"
    delete = "pkg/scheduler/scheduler.go cleanUpAllBindingsFor"
    snapshots = (
        "pkg/controllers/placement/controller.go deleteRedundantSchedulingPolicySnapshots/handleDelete"
    )
    assert comments == [
        f"# delete ClusterSchedulingPolicySnapshot/web-0: {snapshots}",
        f"# delete ClusterSchedulingPolicySnapshot/web-1: {snapshots}",
        f"# update ClusterResourceBinding/web-a, {update}",
        f"# update ClusterResourceBinding/web-b, {update}",
        f"# update ClusterResourceBinding/web-d, {update}",
        f"# update ClusterResourceBinding/web-gone, {update}",
        f"# delete ClusterResourceBinding/web-a: {delete}",
        f"# delete ClusterResourceBinding/web-b: {delete}",
        f"# delete ClusterResourceBinding/web-c: {delete}",
        f"# delete ClusterResourceBinding/web-gone: {delete}",
        "# update ClusterResourcePlacement/web, conditional on uid and resourceVersion: "
        "pkg/scheduler/scheduler.go cleanUpAllBindingsFor",
    ]


# -------------------------------------------------------------------------- long-lived schedulers


def test_the_hub_scheduler_lets_a_deleted_placement_go_with_everything_it_made():
    hub = HubScheduler([*CLUSTERS, crp("web", pick_n(2))], now=NOW_TIME, verify=True)
    assert any(o["kind"] == "ClusterResourceBinding" for o in hub.objects())
    later = NOW_TIME + timedelta(minutes=1)
    delta = hub.handle(
        Deleted("ClusterResourcePlacement", "web", api_version="placement.kubernetes-fleet.io/v1beta1"),
        now=later,
    )
    assert sorted(ref["kind"] for ref in delta.delete) == ["ClusterResourceBinding"] * 2
    # its finalizer taken off, the placement went, and its snapshot with it (owned by it)
    assert sorted(o["kind"] for o in hub.objects()) == ["MemberCluster"] * 3


@pytest.mark.parametrize("mode", MODES)
def test_the_fleet_scheduler_writes_the_finalizer_once(mode):
    scheduler = FleetScheduler(
        [*CLUSTERS, crp("web", pick_n(1))], now=NOW_TIME, options=SolveOptions(mode=mode)
    )
    (placement,) = [o for o in scheduler.initial.apply if o["kind"] == "ClusterResourcePlacement"]
    assert placement["metadata"]["finalizers"] == [SCHEDULER_CLEANUP]
    scaled = copy.deepcopy(placement)
    scaled["spec"]["policy"]["numberOfClusters"] = 2
    delta = scheduler.handle(PlacementChanged(scaled), now=NOW_TIME)
    assert [o["kind"] for o in delta.apply if o["kind"] == "ClusterResourcePlacement"] == []
    assert sorted(scheduler.selected()["web"]) == ["a", "b"]


@pytest.mark.parametrize(
    ("finalizers", "says"),
    [
        (HELD, "the scheduler takes its finalizer off the placement's 5 binding(s), deletes them"),
        ([], "it does not hold the scheduler's finalizer: the scheduler writes nothing for it"),
    ],
)
def test_explain_says_what_the_clean_up_of_a_placement_being_deleted_does(tmp_path, finalizers, says):
    path = write_yaml(tmp_path / "hub.yaml", _deleting_hub(finalizers))
    result = run_cli(["explain", "-f", str(path), "crp/web", "--now", NOW])
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("ClusterResourcePlacement web: being deleted, no scheduling cycle runs")
    assert says in result.stdout
