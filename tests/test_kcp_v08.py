"""End to end through the command line, v0.8 (SyncTarget and Placement): Controller A's location
and phase, Controller B's SyncTarget, Controller C's mark, state labels and removals, in both
modes.

Expectations follow /work/shared/semantics/openmcp-kcp.md section 2.4.
"""

from __future__ import annotations

import json

import pytest

from adapters.kcp.api import sync_target_key
from tests.fixtures.kcp import (
    COMPUTE,
    DELETION,
    MODES,
    NOW,
    PLACEMENT,
    STATE,
    SYNCTARGET,
    TEAM,
    Written,
    ago,
    compute_v08,
    location,
    placement,
    solve_cli,
    sync_target,
)
from tests.fixtures.kcp import namespace_v08 as namespace

EVICTED = ago(seconds=60)


def k(name: str) -> str:
    return sync_target_key(COMPUTE, name)


def state(name: str) -> str:
    return STATE + k(name)


def deletion(name: str) -> str:
    return DELETION + k(name)


def ready(written: Written, name: str) -> tuple[str, str]:
    (condition,) = [c for c in written.status(name)["conditions"] if c["type"] == "Ready"]
    return condition["status"], condition.get("reason", "")


def ready_message(written: Written, name: str) -> str:
    """The Ready condition's message: Controller A's own words (placement_reconcile_scheduling.go)."""
    (condition,) = [c for c in written.status(name)["conditions"] if c["type"] == "Ready"]
    return condition.get("message", "")


# ------------------------------------------------------------------------------------------ happy


@pytest.mark.parametrize("mode", MODES)
def test_a_new_placement_binds_a_location_and_a_sync_target(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c2", "us"), locations=["us"]),
        namespace("default"),
        placement("default"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    status = written.status("default")
    assert status["phase"] == "Bound"
    assert status["selectedLocation"] == {"path": COMPUTE, "locationName": "us"}
    assert ready(written, "default") == ("True", "")
    target = written.target("default")
    assert target in (k("c1"), k("c2"))
    assert written.annotations("default")[PLACEMENT] == ""
    assert written.labels("default") == {STATE + target: "Sync"}
    # Namespaces first, then Placements.
    assert [kind for kind, *_ in written.kinds()] == ["Namespace", "Placement"]


@pytest.mark.parametrize("mode", MODES)
def test_no_matching_location_leaves_the_placement_pending(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("default"),
        placement("default", locations=[{"matchLabels": {"region": "mars"}}]),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["phase"] == "Pending"
    assert "selectedLocation" not in written.status("default")
    assert ready(written, "default") == ("False", "LocationNoMatch")
    assert ready_message(written, "default") == "No valid location is found"
    assert written.target("default") is None
    assert PLACEMENT not in written.annotations("default")
    assert written.labels("default") == {}


@pytest.mark.parametrize("mode", MODES)
def test_location_selectors_are_ored_and_the_resource_must_match(tmp_path, mode) -> None:
    eu = location("eu", labels={"region": "eu"}, generation="v0.8")
    us = location("us", labels={"region": "us"}, generation="v0.8")
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c2", "eu")),
        eu,
        us,
        namespace("default"),
        placement(
            "default",
            locations=[{"matchLabels": {"region": "mars"}}, {"matchLabels": {"region": "eu"}}],
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["selectedLocation"]["locationName"] == "eu"
    assert written.target("default") == k("c2")
    other = placement("default", locations=[{}])
    other["spec"]["locationResource"].pop("group")  # "" is not the Locations' group
    written = Written.solve(tmp_path, [*hub[:-1], other], mode)
    assert ready(written, "default") == ("False", "LocationNoMatch")


def test_the_seed_draws_the_location(tmp_path) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c2", "eu"), locations=["eu", "us"]),
        namespace("default"),
        placement("default"),
    ]
    picks = {
        Written.solve(tmp_path, hub, "greedy", "--seed", str(seed)).status("default")["selectedLocation"][
            "locationName"
        ]
        for seed in range(12)
    }
    assert picks == {"eu", "us"}


@pytest.mark.parametrize("mode", MODES)
def test_namespace_selector_nil_selects_no_namespace(tmp_path, mode) -> None:
    p = placement("default")
    del p["spec"]["namespaceSelector"]
    web = placement("web", namespaces={"matchLabels": {"app": "web"}})
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("default"),
        namespace("web", labels={"app": "web"}),
        p,
        web,
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert PLACEMENT not in written.annotations("default")
    assert written.labels("default") == {}
    assert written.status("default")["phase"] == "Unbound"  # no namespace uses it
    assert written.target("default") == k("c1")  # Controller B picks all the same
    assert written.status("web")["phase"] == "Bound"
    assert written.labels("web") == {"app": "web", state("c1"): "Sync"}


@pytest.mark.parametrize("mode", MODES)
def test_unchanged_objects_are_written_as_they_were(tmp_path, mode) -> None:
    synced = namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""})
    synced["status"] = {
        "conditions": [{"type": "NamespaceScheduled", "status": "True", "lastTransitionTime": NOW}]
    }
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c2", "us"), locations=["us"]),
        synced,
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.apply == [hub[-2], hub[-1]]
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["apply"] == [] and plan["summary"]["unchanged"] == 2


# ------------------------------------------------------------------------------------ forced moves


@pytest.mark.parametrize("mode", MODES)
def test_a_sync_target_being_deleted_keeps_its_placements_and_takes_new_ones(tmp_path, mode) -> None:
    # FilterReady and FilterNonEvicting (pkg/reconciler/scheduling/location) do not look at a
    # deletionTimestamp: Controller B keeps the target, and may pick it.
    hub = [
        *compute_v08(sync_target("c1", "us", deleting=True), locations=["us"]),
        namespace("default", labels={"app": "a"}),
        namespace("other", labels={"app": "b"}),
        placement(
            "held",
            phase="Bound",
            selected="us",
            target=k("c1"),
            ready="True",
            namespaces={"matchLabels": {"app": "a"}},
        ),
        placement("fresh", namespaces={"matchLabels": {"app": "b"}}),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.target("held") == written.target("fresh") == k("c1")


@pytest.mark.parametrize(
    "broken",
    [
        {"ready": False},
        {"ready": None},  # no conditions
        {"unschedulable": True},
        {"evict_after": EVICTED},
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_an_invalid_target_moves_within_the_location(tmp_path, mode, broken) -> None:
    hub = [
        *compute_v08(
            sync_target("c1", "us", **broken),
            sync_target("c2", "us"),
            sync_target("c3", "eu"),
            locations=["eu", "us"],
        ),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.target("default") == k("c2")
    assert written.status("default")["selectedLocation"]["locationName"] == "us"
    # The old key is removing (the grace starts now), the new one syncs.
    assert written.labels("default") == {state("c1"): "Sync", state("c2"): "Sync"}
    assert written.annotations("default")[deletion("c1")] == NOW


@pytest.mark.parametrize("mode", MODES)
def test_no_valid_target_takes_the_annotation_off(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us", ready=False), sync_target("c3", "eu"), locations=["eu", "us"]),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.target("default") is None
    assert written.status("default")["selectedLocation"]["locationName"] == "us"  # sticky
    assert written.annotations("default")[deletion("c1")] == NOW
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_a_target_gone_is_replaced(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c2", "us"), locations=["us"]),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.target("default") == k("c2")
    assert written.labels("default") == {state("c1"): "Sync", state("c2"): "Sync"}


@pytest.mark.parametrize("mode", MODES)
def test_a_valid_target_never_moves(tmp_path, mode) -> None:
    # Only forced moves: three placements on c1 stay there though c2 is empty.
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c2", "us"), locations=["us"]),
        *(namespace(f"ns{i}", labels={"p": str(i)}) for i in range(3)),
        *(
            placement(
                f"p{i}",
                namespaces={"matchLabels": {"p": str(i)}},
                phase="Bound",
                selected="us",
                target=k("c1"),
                ready="True",
            )
            for i in range(3)
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert [written.target(f"p{i}") for i in range(3)] == [k("c1")] * 3


# ----------------------------------------------------------------------------- locations and phase


def regions(*clusters):
    return [
        *compute_v08(*clusters),
        location("us", labels={"region": "us"}, generation="v0.8"),
        location("eu", labels={"region": "eu"}, generation="v0.8"),
    ]


@pytest.mark.parametrize("mode", MODES)
def test_a_bound_placement_keeps_its_location_while_another_keeps_the_namespace(tmp_path, mode) -> None:
    # "default" no longer matches us: Ready=False/LocationInvalid, but "other" keeps the namespace
    # marked, so it stays Bound there (sticky) and Controller C no longer counts it.
    hub = [
        *regions(sync_target("c1", "us"), sync_target("c3", "eu")),
        namespace("default", labels={state("c1"): "Sync", state("c3"): "Sync"}, annotations={PLACEMENT: ""}),
        placement(
            "default",
            locations=[{"matchLabels": {"region": "eu"}}],
            phase="Bound",
            selected="us",
            target=k("c1"),
            ready="True",
        ),
        placement(
            "other",
            locations=[{"matchLabels": {"region": "eu"}}],
            phase="Bound",
            selected="eu",
            target=k("c3"),
            ready="True",
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["phase"] == "Bound"
    assert written.status("default")["selectedLocation"]["locationName"] == "us"
    assert ready(written, "default") == ("False", "LocationInvalid")
    assert ready_message(written, "default") == "Selected location is invalid for current placement"
    assert written.target("default") == k("c1")  # Controller B still serves the location
    assert written.annotations("default")[PLACEMENT] == ""
    assert written.annotations("default")[deletion("c1")] == NOW
    assert written.labels("default") == {state("c1"): "Sync", state("c3"): "Sync"}


@pytest.mark.parametrize("mode", MODES)
def test_a_placement_whose_location_stops_matching_rebinds_elsewhere(tmp_path, mode) -> None:
    # Alone, it unmarks its namespace (LocationInvalid), turns Unbound, and being Unbound with an
    # invalid selection picks again: the controllers come to rest on eu within the run.
    hub = [
        *regions(sync_target("c1", "us"), sync_target("c3", "eu")),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement(
            "default",
            locations=[{"matchLabels": {"region": "eu"}}],
            phase="Bound",
            selected="us",
            target=k("c1"),
            ready="True",
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["phase"] == "Bound"
    assert written.status("default")["selectedLocation"]["locationName"] == "eu"
    assert ready(written, "default") == ("True", "")
    # Ready went False (LocationInvalid) and True again on the way: each write moved its time.
    assert written.status("default")["conditions"][0]["lastTransitionTime"] == NOW
    assert written.target("default") == k("c3")
    assert written.labels("default") == {state("c1"): "Sync", state("c3"): "Sync"}
    assert written.annotations("default") == {PLACEMENT: "", deletion("c1"): NOW}


@pytest.mark.parametrize("mode", MODES)
def test_a_location_disappearing(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c3", "eu"), locations=["eu"]),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["selectedLocation"]["locationName"] == "eu"
    assert written.target("default") == k("c3")
    assert written.annotations("default")[deletion("c1")] == NOW
    # With no location left at all it goes back to Pending, and the namespace unsyncs.
    hub = [*compute_v08(sync_target("c1", "us")), *hub[-2:]]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["phase"] == "Pending"
    assert ready(written, "default") == ("False", "LocationNoMatch")
    assert written.target("default") is None
    assert written.annotations("default") == {deletion("c1"): NOW}


@pytest.mark.parametrize("mode", MODES)
def test_an_unbound_placement_with_an_invalid_location_picks_again(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c3", "eu"), locations=["eu"]),
        placement("default", phase="Unbound", selected="us", ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["selectedLocation"]["locationName"] == "eu"
    assert written.status("default")["phase"] == "Unbound"  # no namespace
    assert written.target("default") == k("c3")


# ---------------------------------------------------------------------------------------- removal


@pytest.mark.parametrize("mode", MODES)
def test_removal_after_the_grace_period(tmp_path, mode) -> None:
    # c1's removal began 10 s ago: label and annotation go. c2's began 3 s ago: it stays.
    hub = [
        *compute_v08(
            sync_target("c1", "us"), sync_target("c2", "us"), sync_target("c3", "us"), locations=["us"]
        ),
        namespace(
            "default",
            labels={state("c1"): "Sync", state("c2"): "Sync", state("c3"): "Sync"},
            annotations={PLACEMENT: "", deletion("c1"): ago(seconds=10), deletion("c2"): ago(seconds=3)},
        ),
        placement("default", phase="Bound", selected="us", target=k("c3"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.labels("default") == {state("c2"): "Sync", state("c3"): "Sync"}
    assert written.annotations("default") == {PLACEMENT: "", deletion("c2"): ago(seconds=3)}


@pytest.mark.parametrize("mode", MODES)
def test_a_removing_key_is_not_revived_inside_the_grace(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace(
            "default",
            labels={state("c1"): "Sync"},
            annotations={PLACEMENT: "", deletion("c1"): ago(seconds=2)},
        ),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotations("default")[deletion("c1")] == ago(seconds=2)
    after = ago(seconds=10)
    hub[-2]["metadata"]["annotations"][deletion("c1")] = after
    written = Written.solve(tmp_path, hub, mode)
    assert state("c1") not in written.labels("default")  # removed now, added back by the next run


@pytest.mark.parametrize("mode", MODES)
def test_several_placements_sync_one_namespace_to_several_targets(tmp_path, mode) -> None:
    hub = [
        *compute_v08(sync_target("c1", "us"), sync_target("c3", "eu")),
        location("us", labels={"region": "us"}, generation="v0.8"),
        location("eu", labels={"region": "eu"}, generation="v0.8"),
        namespace("default"),
        placement("east", locations=[{"matchLabels": {"region": "us"}}]),
        placement("west", locations=[{"matchLabels": {"region": "eu"}}]),
        placement("also-west", locations=[{"matchLabels": {"region": "eu"}}]),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.labels("default") == {state("c1"): "Sync", state("c3"): "Sync"}
    assert written.target("west") == written.target("also-west") == k("c3")


# ------------------------------------------------------------------------ Controller C's condition


@pytest.mark.parametrize("mode", MODES)
def test_every_namespace_gets_controller_cs_condition(tmp_path, mode) -> None:
    """namespace_reconcile_status.go, from the namespace as the bind and scheduling steps leave it:
    no mark, "No available placements"; a mark but no synced key, "No available sync targets";
    else True. Every namespace Controller C reconciles gets it, in any workspace."""
    hub = [
        *compute_v08(sync_target("c1", "us", ready=False), sync_target("c2", "eu")),
        location("us", labels={"name": "us"}, generation="v0.8"),
        location("eu", labels={"name": "eu"}, generation="v0.8"),
        namespace("synced", labels={"app": "b"}),
        namespace("waiting", labels={"app": "a"}),
        namespace("alone", labels={"app": "c"}),
        namespace("elsewhere", workspace="root:org:other"),
        placement(
            "east", locations=[{"matchLabels": {"name": "us"}}], namespaces={"matchLabels": {"app": "a"}}
        ),
        placement(
            "west", locations=[{"matchLabels": {"name": "eu"}}], namespaces={"matchLabels": {"app": "b"}}
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    expected = {
        ("synced", TEAM): ("True", None, None),
        ("waiting", TEAM): ("False", "Unschedulable", "No available sync targets"),
        ("alone", TEAM): ("False", "Unschedulable", "No available placements"),
        ("elsewhere", "root:org:other"): ("False", "Unschedulable", "No available placements"),
    }
    for (name, workspace), (status, reason, message) in expected.items():
        condition = written.condition(name, workspace)
        assert (condition["status"], condition.get("reason"), condition.get("message")) == (
            status,
            reason,
            message,
        )
        assert condition["lastTransitionTime"] == NOW


def test_blocklisted_namespaces_are_reconciled_only_beside_a_placement(tmp_path) -> None:
    """Controller C's namespace event filter leaves kube-system, kube-public and kube-node-lease
    out; a Placement event enqueues every namespace of its workspace."""
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("kube-system"),
        namespace("kube-system", workspace="root:org:other"),
        placement("default"),
    ]
    written = Written.solve(tmp_path, hub, "greedy")
    assert written.labels("kube-system") == {state("c1"): "Sync"}
    assert ("Namespace", "root:org:other", "kube-system") not in written.objects


@pytest.mark.parametrize("mode", MODES)
def test_placement_conditions_are_set_as_kcp_sets_them(tmp_path, mode) -> None:
    """conditions.Set: a new message moves lastTransitionTime although the status stays; the list is
    sorted, Ready first."""
    stale = placement("default", ready="False")
    other = {"type": "Alpha", "status": "True", "lastTransitionTime": "2026-11-20T09:00:00Z"}
    stale["status"]["conditions"] = [
        other,
        {
            **stale["status"]["conditions"][0],
            "reason": "LocationNoMatch",
            "message": "older words",
            "severity": "Error",
        },
    ]
    hub = [*compute_v08(sync_target("c1", "us")), stale]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["conditions"] == [
        {
            "type": "Ready",
            "status": "False",
            "severity": "Error",
            "lastTransitionTime": NOW,
            "reason": "LocationNoMatch",
            "message": "No valid location is found",
        },
        other,
    ]


# ------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda p: p["spec"].pop("locationResource"), "spec.locationResource"),
        (
            lambda p: p["spec"]["locationResource"].update(resource="workloadclusters"),
            "spec.locationResource",
        ),
        (lambda p: p.update(status={"phase": "Scheduled"}), "status.phase"),
        (lambda p: p["spec"].update(locationWorkspace="org:compute"), "spec.locationWorkspace"),
        (lambda p: p["spec"].update(namespaceSelector={"matchExpressions": [{"key": "a"}]}), "operator"),
    ],
)
def test_placements_the_crd_rejects_exit_2(tmp_path, change, field) -> None:
    p = placement("default")
    change(p)
    result = solve_cli(tmp_path, [*compute_v08(sync_target("c1", "us"), locations=["us"]), p])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1
    assert f"Placement {TEAM}|default: " in result.stderr and field in result.stderr


def test_mixed_generations_exit_2(tmp_path) -> None:
    from tests.fixtures.kcp import cluster

    result = solve_cli(
        tmp_path, [*compute_v08(sync_target("c1", "us"), locations=["us"]), cluster("c2", "us")]
    )
    assert result.exit_code == 2 and "mixes kcp generations" in result.stderr
    assert f"WorkloadCluster {COMPUTE}|c2 (v0.5) and SyncTarget {COMPUTE}|c1 (v0.8)" in result.stderr


@pytest.mark.parametrize(
    "text",
    ["yesterday", "2026-11-21T11:59:58", "2026-11-21 11:59:58Z", "2026-11-21T11:59Z", "2026-11-31T11:59:58Z"],
)
def test_an_unreadable_deletion_time_is_gos_zero_time_and_removes_at_once(tmp_path, text) -> None:
    # syncedRemovingCluster ignores time.Parse's error: the zero time, whose grace is long over.
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("default", labels={state("c1"): "Sync"}, annotations={deletion("c1"): text}),
        namespace(
            "read", labels={state("c1"): "Sync"}, annotations={deletion("c1"): "2026-11-21T11:59:58.5+00:00"}
        ),
    ]
    written = Written.solve(tmp_path, hub, "optimal")
    assert written.labels("default") == {} and written.annotations("default") == {}
    assert written.labels("read") == {state("c1"): "Sync"}  # 1.5 s ago: inside the grace


# -------------------------------------------------------------------------------- the whole batch


def test_sync_target_keys_are_upstreams() -> None:
    # Upstream's test constants: the workspace and the name concatenated, no separator.
    assert sync_target_key("", "c1") == "aQtdeEWVcqU7h7AKnYMm3KRQ96U4oU2W04yeOa"
    assert sync_target_key("", "c2") == "aPkhvUbGK0xoZIjMnM2pA0AuV1g7i4tBwxu5m4"
    assert sync_target_key("", "test-cluster") == "34sZi3721YwBLDHUuNVIOLxuYp5nEZBpsTQyDq"
    assert sync_target_key("", "test-cluster-2") == "aQA9mRmZ5RuT9vKRZokxZTm1Yk9SqKyfOMoTEr"
    assert sync_target_key("", "c3") == "5iSfzYTm7pPirj6HKlmfvXMb6AuqSBxNB7vkVP"
    assert sync_target_key("", "c4") == "8s5f69zIcmjG486nG2jBF8BdYtgwPS7PVP1bTL"
    assert sync_target_key("root:org", "c1") == sync_target_key("root:orgc", "1")


@pytest.mark.parametrize("mode", MODES)
def test_same_bytes_twice(tmp_path, mode) -> None:
    hub = [
        *compute_v08(
            *(sync_target(f"c{i}", "us" if i % 2 else "eu") for i in range(6)), locations=["eu", "us"]
        ),
        *(namespace(f"ns{i}", labels={"p": str(i % 3)}) for i in range(6)),
        *(placement(f"p{i}", namespaces={"matchLabels": {"p": str(i)}}, created=i) for i in range(3)),
    ]
    first = solve_cli(tmp_path, hub, "--mode", mode, "--seed", "5")
    second = solve_cli(tmp_path, hub, "--mode", mode, "--seed", "5")
    assert first.exit_code == 0 and first.stdout == second.stdout


def test_optimal_weighs_placements_by_their_namespaces(tmp_path) -> None:
    # Six placements in one location of three targets, syncing 3, 3, 2, 2, 1, 1 namespaces: the
    # levelled answer puts 4 namespaces on each target; greedy's draw does worse.
    sizes = [3, 3, 2, 2, 1, 1]
    namespaces = [
        namespace(f"p{i}-ns{j}", labels={"p": str(i)}, created=i)
        for i, size in enumerate(sizes)
        for j in range(size)
    ]
    placements = [placement(f"p{i}", namespaces={"matchLabels": {"p": str(i)}}, created=i) for i in range(6)]
    hub = [
        *compute_v08(
            sync_target("c1", "us"), sync_target("c2", "us"), sync_target("c3", "us"), locations=["us"]
        ),
        *namespaces,
        *placements,
    ]

    def busiest(written: Written) -> int:
        load: dict[str, int] = {}
        for i, size in enumerate(sizes):
            target = written.target(f"p{i}")
            load[target] = load.get(target, 0) + size
        return max(load.values())

    for seed in range(3):
        assert busiest(Written.solve(tmp_path, hub, "optimal", "--seed", str(seed))) == 4
    assert max(busiest(Written.solve(tmp_path, hub, "greedy", "--seed", str(seed))) for seed in range(3)) > 4


def test_v08_workspaces_stay_apart(tmp_path) -> None:
    # A namespace named like another workspace's is its own; a placement only serves its workspace.
    other = "root:org:other"
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("default"),
        namespace("default", workspace=other),
        placement("default"),
    ]
    written = Written.solve(tmp_path, hub, "optimal")
    assert written.labels("default") == {state("c1"): "Sync"}
    assert written.labels("default", other) == {} and written.annotations("default", other) == {}
    assert written.condition("default", other)["message"] == "No available placements"
    assert written.namespace("default", TEAM)["metadata"]["annotations"]["kcp.dev/cluster"] == TEAM
    assert SYNCTARGET in written.placement("default")["metadata"]["annotations"]


@pytest.mark.parametrize("mode", MODES)
def test_a_namespace_selector_upstream_cannot_build_leaves_the_phase_as_it_was(tmp_path, mode) -> None:
    # Controller A's namespace step fails on LabelSelectorAsSelector (placement_reconcile_namespace.go)
    # and leaves the phase as its scheduling step left it: Bound stays Bound. Controller C counts
    # the placement for no namespace (isPlacementValidForNS): the mark comes off.
    unbuildable = {"matchExpressions": [{"key": "team", "operator": "In", "values": []}]}
    hub = [
        *compute_v08(sync_target("c1", "us"), locations=["us"]),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement(
            "default", namespaces=unbuildable, phase="Bound", selected="us", target=k("c1"), ready="True"
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.status("default")["phase"] == "Bound"
    assert ready(written, "default") == ("True", "")
    assert written.target("default") == k("c1")  # Controller B serves a Bound placement's location
    assert PLACEMENT not in written.annotations("default")
    # Unbound, it draws a location and stays Unbound.
    hub[-1]["status"] = {"phase": "Unbound"}
    assert Written.solve(tmp_path, hub, mode).status("default")["phase"] == "Unbound"


@pytest.mark.parametrize("mode", MODES)
def test_a_location_selector_upstream_cannot_build_leaves_the_sync_target_as_it_was(tmp_path, mode) -> None:
    # Controller B's LocationSyncTargets returns LabelSelectorAsSelector's error
    # (scheduling/location/workloadcluster_helpers.go): it patches nothing, so the annotation it
    # holds stays, unready target or not, and the namespace keeps syncing there.
    unbuildable = {"matchExpressions": [{"key": "location", "operator": "In", "values": []}]}
    hub = [
        *compute_v08(sync_target("c1", "us", ready=False), sync_target("c2", "us")),
        location("us", selector=unbuildable, generation="v0.8"),
        namespace("default", labels={state("c1"): "Sync"}, annotations={PLACEMENT: ""}),
        placement("default", phase="Bound", selected="us", target=k("c1"), ready="True"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.target("default") == k("c1")
    assert written.labels("default") == {state("c1"): "Sync"}
    assert written.annotations("default") == {PLACEMENT: ""}
    hub[-1]["metadata"]["annotations"].pop(SYNCTARGET)  # and none stays none
    assert Written.solve(tmp_path, hub, mode).target("default") is None
