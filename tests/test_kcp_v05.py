"""End to end through the command line, v0.5 (WorkloadCluster): the namespace scheduler's
placement annotation, in both modes.

Expectations follow /work/shared/semantics/openmcp-kcp.md section 2.3: the entry rules (Pending
dropped, Bound to Removing, Removing while the cluster exists, Unbound collected), location
stickiness, revival, `{}` when nothing can be placed, the negotiation annotation and the
NamespaceScheduled condition.
"""

from __future__ import annotations

import json

import pytest

from tests.fixtures.kcp import (
    COMPUTE,
    DISABLED,
    MODES,
    NEGOTIATION,
    NOW,
    PLACEMENT,
    TEAM,
    Written,
    ago,
    binding,
    cluster,
    compute_v05,
    key,
    location,
    namespace,
    solve_cli,
)
from tests.fixtures.pipeline import applied

EVICTED = ago(seconds=60)  # evictAfter in the past: the cluster is evicting


def bound(location_name: str, cluster_name: str, state: str = "Bound") -> dict[str, str]:
    return {key(COMPUTE, location_name, cluster_name): state}


# ------------------------------------------------------------------------------------ new namespaces


@pytest.mark.parametrize("mode", MODES)
def test_new_namespace_gets_a_pending_entry_in_one_location(tmp_path, mode) -> None:
    hub = [*compute_v05(cluster("c1", "us"), cluster("c2", "us"), locations=["us"]), namespace("default")]
    written = Written.solve(tmp_path, hub, mode)
    entries = written.placement_map("default")
    assert len(entries) == 1
    ((entry, state),) = entries.items()
    assert state == "Pending"
    assert entry in (key(COMPUTE, "us", "c1"), key(COMPUTE, "us", "c2"))
    assert written.annotations("default")[NEGOTIATION] == COMPUTE
    condition = written.condition("default")
    assert condition["status"] == "True" and condition["lastTransitionTime"] == NOW


@pytest.mark.parametrize("mode", MODES)
def test_new_namespace_takes_only_ready_schedulable_non_evicting_clusters(tmp_path, mode) -> None:
    hub = [
        *compute_v05(
            cluster("a-unready", "us", ready=False),
            cluster("b-cordoned", "us", unschedulable=True),
            cluster("c-evicting", "us", evict_after=EVICTED),
            cluster("d-deleting", "us", deleting=True),
            cluster("e-no-conditions", "us", ready=None),
            cluster("f-good", "us"),
            locations=["us"],
        ),
        *(namespace(f"ns{i}", created=i) for i in range(4)),
    ]
    written = Written.solve(tmp_path, hub, mode)
    good = (bound("us", "f-good", "Pending"), bound("us", "d-deleting", "Pending"))
    for i in range(4):  # a deletionTimestamp counts for nothing upstream
        assert written.placement_map(f"ns{i}") in good


@pytest.mark.parametrize("mode", MODES)
def test_a_negotiation_workspace_without_locations_is_one_default_location(tmp_path, mode) -> None:
    hub = [*compute_v05(cluster("c1")), namespace("default")]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {key(COMPUTE, "default", "c1"): "Pending"}


@pytest.mark.parametrize("mode", MODES)
def test_the_location_is_drawn_among_those_with_a_schedulable_cluster(tmp_path, mode) -> None:
    # eu's only cluster is cordoned: every seed lands in us.
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "eu", unschedulable=True), locations=["eu", "us"]),
        namespace("default"),
    ]
    for seed in range(6):
        written = Written.solve(tmp_path, hub, mode, "--seed", str(seed))
        assert written.placement_map("default") == bound("us", "c1", "Pending")


def test_the_seed_draws_the_location(tmp_path) -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "eu"), locations=["eu", "us"]),
        namespace("default"),
    ]
    picks = {
        next(iter(Written.solve(tmp_path, hub, "greedy", "--seed", str(seed)).placement_map("default")))
        for seed in range(12)
    }
    assert picks == {key(COMPUTE, "us", "c1"), key(COMPUTE, "eu", "c2")}


@pytest.mark.parametrize("mode", MODES)
def test_nothing_schedulable_writes_an_empty_map(tmp_path, mode) -> None:
    hub = [*compute_v05(cluster("c1", "us", ready=False), locations=["us"]), namespace("default")]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("default") == "{}"
    condition = written.condition("default")
    assert (condition["status"], condition["reason"]) == ("False", "Unschedulable")
    assert condition["message"] == "No workload clusters available under given placement constraints"
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 1


# ------------------------------------------------------------------------------------ kept entries


@pytest.mark.parametrize("mode", MODES)
def test_valid_entries_are_left_as_they_are(tmp_path, mode) -> None:
    # Only forced moves: a Bound and a Pending entry on good clusters stay, the annotation's text
    # (not Go's formatting) untouched and no negotiation annotation added.
    text = json.dumps({key(COMPUTE, "us", "c1"): "Bound"}, indent=1)
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "us"), cluster("c3", "us"), locations=["us"]),
        namespace("a", placement=text),
        namespace("b", placement=bound("us", "c1", "Pending")),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("a") == text
    assert written.placement_map("b") == bound("us", "c1", "Pending")
    assert NEGOTIATION not in written.annotations("a")
    result = solve_cli(tmp_path, hub, "--mode", mode, "-o", "table")
    assert result.stdout.count(" kept") == 2


@pytest.mark.parametrize("mode", MODES)
def test_unready_and_cordoned_clusters_keep_what_they_hold(tmp_path, mode) -> None:
    # v0.5 admits a cluster as long as it is not evicting: existing entries stay, newcomers go
    # elsewhere.
    hub = [
        *compute_v05(
            cluster("c1", "us", ready=False),
            cluster("c2", "us", unschedulable=True),
            cluster("c3", "us"),
            locations=["us"],
        ),
        namespace("a", placement=bound("us", "c1")),
        namespace("b", placement=bound("us", "c2")),
        namespace("new", created=5),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("a") == bound("us", "c1")
    assert written.placement_map("b") == bound("us", "c2")
    assert written.placement_map("new") == bound("us", "c3", "Pending")


# ---------------------------------------------------------------------------------------- eviction


@pytest.mark.parametrize("mode", MODES)
def test_eviction_replaces_the_cluster_in_the_same_location(tmp_path, mode) -> None:
    hub = [
        *compute_v05(
            cluster("c1", "us", evict_after=EVICTED),
            cluster("c2", "us"),
            cluster("c3", "eu"),
            locations=["eu", "us"],
        ),
        namespace("default", placement=bound("us", "c1")),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Pending",
    }
    assert written.annotations("default")[NEGOTIATION] == COMPUTE
    rows = solve_cli(tmp_path, hub, "--mode", mode, "-o", "table").stdout
    assert "released" in rows and "root:org:compute/c1" in rows


@pytest.mark.parametrize("mode", MODES)
def test_eviction_in_the_future_changes_nothing(tmp_path, mode) -> None:
    later = "2026-11-21T13:00:00Z"
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=later), cluster("c2", "us"), locations=["us"]),
        namespace("default", placement=bound("us", "c1")),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == bound("us", "c1")


@pytest.mark.parametrize("mode", MODES)
def test_evicted_location_without_a_cluster_keeps_removing(tmp_path, mode) -> None:
    # The location has no other cluster: Removing stays, no replacement (requeued upstream).
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c3", "eu"), locations=["eu", "us"]),
        namespace("default", placement=bound("us", "c1")),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == bound("us", "c1", "Removing")
    assert written.condition("default")["status"] == "True"
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_nothing_to_reschedule_beside_an_active_location_writes_nothing(tmp_path, mode) -> None:
    # Upstream returns before its patch when no location is to be rescheduled and one is active
    # (placement_reconcile_scheduling.go, "(re)schedule"): the Pending entry on the evicting c1
    # stays as read, and so do an Unbound entry and one of a deleted cluster.
    text = json.dumps(
        {
            **bound("us", "c1", "Pending"),
            **bound("eu", "c3"),
            **bound("us", "c2", "Unbound"),
            **bound("us", "c9"),
        }
    )
    hub = [
        *compute_v05(
            cluster("c1", "us", evict_after=EVICTED),
            cluster("c2", "us"),
            cluster("c3", "eu"),
            locations=["eu", "us"],
        ),
        namespace("default", placement=text),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("default") == text
    assert NEGOTIATION not in written.annotations("default")
    assert written.condition("default")["status"] == "True"


@pytest.mark.parametrize("mode", MODES)
def test_pending_dropped_alone_schedules_afresh(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c3", "eu"), locations=["eu", "us"]),
        namespace("default", placement=bound("us", "c1", "Pending")),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == bound("eu", "c3", "Pending")


@pytest.mark.parametrize("mode", MODES)
def test_several_locations_move_independently(tmp_path, mode) -> None:
    # Two locations bound at once; only the evicted one's cluster is replaced.
    hub = [
        *compute_v05(
            cluster("c1", "us", evict_after=EVICTED),
            cluster("c2", "us"),
            cluster("c3", "eu"),
            cluster("c4", "eu"),
            locations=["eu", "us"],
        ),
        namespace("default", placement={**bound("us", "c1"), **bound("eu", "c3")}),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Pending",
        key(COMPUTE, "eu", "c3"): "Bound",
    }


@pytest.mark.parametrize("mode", MODES)
def test_a_replacement_never_reuses_a_cluster_in_the_annotation(tmp_path, mode) -> None:
    # c2 still has a Removing entry from an earlier move (it is healthy again): it is not picked.
    hub = [
        *compute_v05(
            cluster("c1", "us", evict_after=EVICTED),
            cluster("c2", "us"),
            cluster("c3", "us"),
            locations=["us"],
        ),
        namespace("default", placement={**bound("us", "c1"), **bound("us", "c2", "Removing")}),
    ]
    for seed in range(4):
        written = Written.solve(tmp_path, hub, mode, "--seed", str(seed))
        assert written.placement_map("default") == {
            key(COMPUTE, "us", "c1"): "Removing",
            key(COMPUTE, "us", "c2"): "Removing",
            key(COMPUTE, "us", "c3"): "Pending",
        }


# ------------------------------------------------------------------------- locations and clusters


@pytest.mark.parametrize("mode", MODES)
def test_a_cluster_leaving_its_location_is_replaced_there(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "eu"), cluster("c2", "us"), locations=["eu", "us"]),
        namespace("default", placement=bound("us", "c1")),  # c1 is now labelled eu
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Pending",
    }


@pytest.mark.parametrize("mode", MODES)
def test_a_location_disappearing_moves_the_namespace_to_another(tmp_path, mode) -> None:
    # us is gone: c1 is Removing (it still exists), the namespace is placed afresh in eu.
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c3", "eu"), locations=["eu"]),
        namespace("default", placement=bound("us", "c1")),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "eu", "c3"): "Pending",
    }


@pytest.mark.parametrize("mode", MODES)
def test_revival_under_another_location_that_selects_the_cluster(tmp_path, mode) -> None:
    # us is gone, but "all" selects c1 too: c1 is revived there (Bound), its Removing entry dropped.
    hub = [
        binding(),
        location("all", selector={}),
        location("eu"),
        cluster("c1", "us"),
        cluster("c3", "eu"),
        namespace("default", placement=bound("us", "c1")),
    ]
    for seed in range(4):
        written = Written.solve(tmp_path, hub, mode, "--seed", str(seed))
        assert written.placement_map("default") == bound("all", "c1")


@pytest.mark.parametrize("mode", MODES)
def test_entries_on_deleted_clusters_are_dropped(tmp_path, mode) -> None:
    # c9 does not exist any more: its Bound and Removing entries go, and with nothing left the
    # namespace is placed afresh.
    hub = [
        *compute_v05(cluster("c3", "eu"), locations=["eu", "us"]),
        namespace("default", placement={**bound("us", "c9"), **bound("eu", "c9", "Removing")}),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == bound("eu", "c3", "Pending")


@pytest.mark.parametrize("mode", MODES)
def test_removing_stays_while_the_cluster_exists_and_unbound_is_collected(tmp_path, mode) -> None:
    # us holds only a Removing entry: it is rescheduled (c2, the one schedulable cluster not in the
    # annotation), and the write collects the Unbound entry.
    hub = [
        *compute_v05(
            cluster("c1", "us"),
            cluster("c2", "us"),
            cluster("c3", "us", unschedulable=True),
            locations=["us"],
        ),
        namespace("default", placement={**bound("us", "c1", "Removing"), **bound("us", "c3", "Unbound")}),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Pending",
    }


@pytest.mark.parametrize("mode", MODES)
def test_entries_of_another_negotiation_workspace_are_dropped(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), locations=["us"]),
        namespace("default", placement={key("root:org:old", "us", "x"): "Bound"}),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == bound("us", "c1", "Pending")


# -------------------------------------------------------------------------------- bindings, labels


@pytest.mark.parametrize(
    "bind",
    [
        binding(ready=False),
        binding(export="other"),
        binding(export_workspace="root:org:empty"),  # no cluster, no Location there
    ],
)
def test_without_a_workload_binding_nothing_is_written(tmp_path, bind) -> None:
    """v0.5.0-alpha.1 patches the annotation away with `{"metadata":{"annotations":{...:null}}}}`,
    one closing brace too many: the API server refuses the merge patch, the reconcile stops on the
    error before the status reconciler, and the namespace stays as it is (kcp 0254f45 fixed the
    typo after alpha.1)."""
    stale = {
        "type": "NamespaceScheduled",
        "status": "True",
        "lastTransitionTime": "2026-11-20T09:00:00Z",
    }
    held = namespace("default", placement=bound("us", "c1"), annotations={NEGOTIATION: COMPUTE})
    held["status"] = {"conditions": [stale]}
    hub = [bind, location("us"), cluster("c1", "us"), held, namespace("untouched")]
    written = Written.solve(tmp_path, hub, "optimal")
    assert written.namespace("default") == held
    assert [k for k in written.kinds() if k[0] == "Namespace"] == [("Namespace", TEAM, "default")]


def test_the_first_workload_binding_by_name_is_used(tmp_path) -> None:
    hub = [
        binding(name="b-second", export_workspace="root:org:compute2"),
        binding(name="a-first"),
        location("us"),
        cluster("c1", "us"),
        cluster("c9", workspace="root:org:compute2"),
        namespace("default"),
    ]
    written = Written.solve(tmp_path, hub, "optimal")
    assert written.placement_map("default") == bound("us", "c1", "Pending")


@pytest.mark.parametrize(
    "reference",
    [{"workspaceName": "compute"}, {"name": "compute"}, {}, {"path": ""}],
    ids=["workspaceName", "v0.4-name", "none", "empty"],
)
def test_a_binding_names_its_export_workspace_by_path(tmp_path, reference) -> None:
    """v0.5.0-alpha.1's (and v0.8's) APIBinding schema requires the export's workspace as an
    absolute `path` (`oneOf: [required: [path]]`); a sibling's name was v0.4's field, since gone."""
    named = binding()
    named["spec"]["reference"]["workspace"] = {**reference, "exportName": "kubernetes"}
    hub = [named, location("us"), cluster("c1", "us"), namespace("default")]
    result = solve_cli(tmp_path, hub)
    assert result.exit_code == 2 and result.stderr.count("\n") == 1
    assert f"APIBinding {TEAM}|kubernetes: spec.reference.workspace.path: " in result.stderr


@pytest.mark.parametrize("mode", MODES)
def test_scheduling_disabled_leaves_the_namespace_alone(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c2", "us"), locations=["us"]),
        namespace("default", labels={DISABLED: "true"}, placement=bound("us", "c1")),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == bound("us", "c1")
    condition = written.condition("default")
    assert (condition["status"], condition["reason"]) == ("False", "SchedulingDisabled")
    assert condition["message"] == f"Automatic scheduling disabled via {DISABLED}=true label"


@pytest.mark.parametrize("mode", MODES)
def test_the_status_reconciler_marks_every_disabled_namespace(tmp_path, mode) -> None:
    # The status reconciler runs on every namespace, bound or not, under root or not.
    hub = [
        location("us"),
        cluster("c1", "us"),
        namespace("default", labels={DISABLED: "true"}),
        namespace("elsewhere", workspace="org:team", labels={DISABLED: "true"}),
        namespace("plain"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    for name, workspace in (("default", TEAM), ("elsewhere", "org:team")):
        condition = written.condition(name, workspace)
        assert (condition["status"], condition["reason"]) == ("False", "SchedulingDisabled")
        assert written.annotations(name, workspace) == {}
    assert ("Namespace", TEAM, "plain") not in written.kinds()


def test_namespaces_of_other_systems_are_not_kcp_input(tmp_path) -> None:
    # A Namespace beside no kcp object makes no kcp input: no kcp part, nothing written for it.
    from tests.fixtures.ocm import hub, managed_cluster
    from tests.fixtures.ocm import placement as ocm_placement

    objects = [*hub(managed_cluster("c1")), ocm_placement("web", n=1), namespace("ns1")]
    plan = json.loads(solve_cli(tmp_path, objects, "-o", "plan").stdout)
    assert set(plan["summary"]["systems"]) == {"ocm"}
    assert all(o["kind"] != "Namespace" for o in plan["apply"])


# ------------------------------------------------------------------------ upstream's own test cases


def _region(name: str, region: str, **kwargs) -> dict:
    return cluster(name, labels={"region": region}, **kwargs)


@pytest.mark.parametrize("mode", MODES)
def test_upstreams_rescheduling_case(tmp_path, mode) -> None:
    """placement_reconcile_scheduling_test.go "rescheduling" (v0.5.0-alpha.1), its expected patch."""
    soon = "2026-11-21T12:10:00Z"
    names = [f"us-east{i}" for i in range(1, 8)]
    hub = [
        binding(),
        *(location(name, selector={"matchLabels": {"region": name}}) for name in names),
        _region("us-east1-1", "us-east1", ready=None, unschedulable=True, evict_after=EVICTED),
        _region("us-east1-2", "us-east1"),
        _region("us-east2-1", "us-east2", ready=None, unschedulable=True, evict_after=EVICTED),
        _region("us-east2-2", "us-east2"),
        _region("us-east3-1", "us-east3"),
        _region("us-east3-2", "us-east3"),
        _region("us-east4-1", "us-east4", ready=None, unschedulable=True, evict_after=EVICTED),
        _region("us-east4-2", "us-east4"),
        _region("us-east5-1", "us-east5", ready=None, unschedulable=True),
        _region("us-east5-2", "us-east5"),
        _region("us-east6-1", "us-east6", ready=None, unschedulable=True),
        _region("us-east6-2", "us-east6"),
        _region("us-east7-1", "us-east7", ready=None, unschedulable=True, evict_after=soon),
        _region("us-east7-2", "us-east7"),
        namespace(
            "test",
            placement={
                key(COMPUTE, "us-east1", "us-east1-1"): "Pending",
                key(COMPUTE, "us-east2", "us-east2-1"): "Bound",
                key(COMPUTE, "us-east3", "us-east3-1"): "Bound",
                key(COMPUTE, "us-east4", "us-east4-1"): "Removing",
                key(COMPUTE, "us-east5", "us-east5-1"): "Unbound",
                key(COMPUTE, "us-east6", "us-east6-1"): "Bound",
                key(COMPUTE, "us-east7", "us-east7-1"): "Bound",
            },
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("test") == json.dumps(
        {
            key(COMPUTE, "us-east2", "us-east2-1"): "Removing",
            key(COMPUTE, "us-east2", "us-east2-2"): "Pending",
            key(COMPUTE, "us-east3", "us-east3-1"): "Bound",
            key(COMPUTE, "us-east4", "us-east4-1"): "Removing",
            key(COMPUTE, "us-east4", "us-east4-2"): "Pending",
            key(COMPUTE, "us-east6", "us-east6-1"): "Bound",
            key(COMPUTE, "us-east7", "us-east7-1"): "Bound",
        },
        separators=(",", ":"),
    )
    assert written.annotations("test")[NEGOTIATION] == COMPUTE


@pytest.mark.parametrize("mode", MODES)
def test_upstreams_location_gone_case(tmp_path, mode) -> None:
    """placement_reconcile_scheduling_test.go "location gone" (v0.5.0-alpha.1), its expected patch."""
    hub = [
        binding(),
        location("us-east1", selector={"matchLabels": {"region": "us-east1"}}),
        location("us", selector={"matchLabels": {"foo": "bar"}}),
        _region("us-east1-1", "us-east1", ready=None, unschedulable=True, evict_after=EVICTED),
        _region("us-east1-2", "us-east1"),
        *(_region(f"us-east7-{i}", "us-east7") for i in range(1, 5)),
        cluster("us-east7-5", labels={"region": "us-east7", "foo": "bar"}),
        namespace(
            "test",
            placement={
                key(COMPUTE, "us-east7", "us-east7-1"): "Pending",
                key(COMPUTE, "us-east7", "us-east7-2"): "Bound",
                key(COMPUTE, "us-east7", "us-east7-3"): "Removing",
                key(COMPUTE, "us-east7", "us-east7-4"): "Unbound",
                key(COMPUTE, "us-east7", "us-east7-5"): "Bound",
            },
        ),
    ]
    for seed in range(4):
        written = Written.solve(tmp_path, hub, mode, "--seed", str(seed))
        assert written.placement_map("test") == {
            key(COMPUTE, "us", "us-east7-5"): "Bound",
            key(COMPUTE, "us-east7", "us-east7-2"): "Removing",
            key(COMPUTE, "us-east7", "us-east7-3"): "Removing",
        }


# ------------------------------------------------------------------------------ upstream's quirks


@pytest.mark.parametrize("mode", MODES)
def test_namespaces_outside_root_are_left_to_the_status_reconciler(tmp_path, mode) -> None:
    """The scheduler skips a namespace whose logical cluster name does not begin with "root"
    (logicalcluster's HasPrefix: a string prefix, so `rootbeer:team` is scheduled); the status
    reconciler still sets the condition from the annotation as it is."""
    outside = "org:team"
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c2", "us"), locations=["us"]),
        binding(workspace=outside),
        binding(workspace="rootbeer:team"),
        namespace("fresh", workspace=outside),
        namespace("held", workspace=outside, placement=bound("us", "c1")),
        namespace("broken", workspace=outside, placement='{"x":'),
        namespace("fresh", workspace="rootbeer:team"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert ("Namespace", outside, "fresh") not in written.kinds()
    assert written.placement_map("held", outside) == bound("us", "c1")
    assert NEGOTIATION not in written.annotations("held", outside)
    assert written.condition("held", outside)["status"] == "True"
    assert written.annotation("broken", outside) == '{"x":'
    assert written.condition("broken", outside)["reason"] == "PlacementInvalid"
    assert written.placement_map("fresh", "rootbeer:team") == bound("us", "c2", "Pending")


@pytest.mark.parametrize("mode", MODES)
def test_a_location_whose_clusters_are_all_in_the_annotation_crashes_upstream(tmp_path, mode) -> None:
    """place() draws from no candidate (rand.Intn(0) panics) when a location's schedulable clusters
    are all in the annotation: kcp crashes on the namespace and writes nothing for it."""
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "eu"), locations=["eu", "us"]),
        # us to reschedule, its only schedulable cluster c1 still Removing there
        namespace("again", placement=bound("us", "c1", "Removing")),
        # nothing active, "gone" no location: the new location's draw sees c2 in the annotation
        namespace("stale", placement={**bound("gone", "c1", "Removing"), **bound("gone", "c2", "Removing")}),
    ]
    written = Written.solve(tmp_path, hub, mode)
    for name in ("again", "stale"):
        assert written.namespace(name) == next(o for o in hub if o["metadata"]["name"] == name)
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 2


@pytest.mark.parametrize("mode", MODES)
def test_a_revival_while_rescheduling_drops_the_entry_and_the_next_pass_places_again(tmp_path, mode) -> None:
    """Rescheduling east and west: c0 left east for west, where it is revivable. Upstream drops
    (east, c0), writes nothing for it and stops (its `break`); its own patch enqueues the
    namespace again and that pass reschedules what is left, c0 no longer barred. Which location
    upstream visits first (a Go map) decides whether east still has a location to reschedule."""
    hub = [
        *compute_v05(
            cluster("c0", "west"),
            cluster("c1", "west", evict_after=EVICTED),
            cluster("c2", "east"),
            locations=["east", "west"],
        ),
        namespace("default", placement={**bound("east", "c0"), **bound("west", "c1", "Removing")}),
    ]
    west_first = {key(COMPUTE, "west", "c1"): "Removing", key(COMPUTE, "west", "c0"): "Pending"}
    east_first = {**west_first, key(COMPUTE, "east", "c2"): "Pending"}
    seen = []
    for seed in range(8):
        first = Written.solve(tmp_path, hub, mode, "--seed", str(seed))
        seen.append(first.placement_map("default"))
        again = Written.solve(tmp_path, applied(hub, first.apply), mode, "--seed", str(seed))
        assert again.namespace("default") == first.namespace("default")
    assert all(got in (west_first, east_first) for got in seen)
    assert west_first in seen and east_first in seen


@pytest.mark.parametrize("mode", MODES)
def test_a_second_pass_that_panics_leaves_the_first_pass_written(tmp_path, mode) -> None:
    """Found by the checker property: c0 left east (gone) for west, where it is Removing already.
    The first pass revives nothing but drops (east, c0) and stops; the second reschedules west,
    whose one cluster c0 its remaining entry still names, and panics."""
    hub = [
        *compute_v05(cluster("c0", "west"), locations=["west"]),
        namespace("ns0", placement={**bound("east", "c0"), **bound("west", "c0", "Removing")}),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("ns0") == bound("west", "c0", "Removing")
    assert written.condition("ns0")["status"] == "True"
    plan = json.loads(solve_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_conditions_are_set_as_kcp_sets_them(tmp_path, mode) -> None:
    """conditions.Set: a change of reason or message (not only of status) moves
    lastTransitionTime; the list is sorted, Ready first, then by type."""
    other = {"type": "Alpha", "status": "True", "lastTransitionTime": "2026-11-20T09:00:00Z"}
    was = {
        "type": "NamespaceScheduled",
        "status": "False",
        "lastTransitionTime": "2026-11-20T09:00:00Z",
        "reason": "PlacementInvalid",
        "message": "an older message",
    }
    same = {**was, "message": f"Invalid placement annotation {PLACEMENT}"}
    hub = [*compute_v05(cluster("c1", "us", ready=False), locations=["us"])]
    for name, conditions in (("moved", [dict(was), other]), ("kept", [dict(same), other])):
        ns = namespace(name, placement='{"x":')
        ns["status"] = {"conditions": conditions}
        hub.append(ns)
    written = Written.solve(tmp_path, hub, mode)
    assert written.namespace("moved")["status"]["conditions"] == [other, {**same, "lastTransitionTime": NOW}]
    assert written.namespace("kept")["status"]["conditions"] == [other, same]


def test_blocklisted_namespaces_are_reconciled_only_when_another_object_enqueues_them(tmp_path) -> None:
    """kube-system, kube-public and kube-node-lease fail the namespace event filter: only an
    APIBinding event of their workspace (compute export, InitialBindingCompleted) or a Location or
    WorkloadCluster event of their negotiation workspace enqueues them."""
    hub = [
        *compute_v05(cluster("c1", "us"), locations=["us"]),
        namespace("kube-system"),
        namespace("kube-public", workspace="root:org:lone", labels={DISABLED: "true"}),
        namespace(
            "kube-node-lease",
            workspace="root:org:lone",
            labels={DISABLED: "true"},
            annotations={NEGOTIATION: COMPUTE},
        ),
        namespace("default", workspace="root:org:lone", labels={DISABLED: "true"}),
    ]
    written = Written.solve(tmp_path, hub, "greedy")
    assert written.placement_map("kube-system") == bound("us", "c1", "Pending")
    assert ("Namespace", "root:org:lone", "kube-public") not in written.kinds()
    for name in ("kube-node-lease", "default"):
        assert written.condition(name, "root:org:lone")["reason"] == "SchedulingDisabled"


# ---------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("mode", MODES)
def test_an_annotation_that_does_not_unmarshal_is_read_as_empty_and_overwritten(tmp_path, mode) -> None:
    # Upstream's json.Unmarshal fails (not JSON, not an object, a state that is not a string): it
    # assumes no placement and writes a fresh one over the text.
    broken = ['{"root:org:compute+us+c1": "Bound"', "[1, 2]", json.dumps({key(COMPUTE, "us", "c1"): 7}), ""]
    hub = [
        *compute_v05(cluster("c1", "us"), locations=["us"]),
        *(namespace(f"ns{i}", placement=text) for i, text in enumerate(broken)),
    ]
    written = Written.solve(tmp_path, hub, mode)
    for i in range(len(broken)):
        assert written.placement_map(f"ns{i}") == bound("us", "c1", "Pending")
        assert written.annotations(f"ns{i}")[NEGOTIATION] == COMPUTE
        assert written.condition(f"ns{i}")["status"] == "True"


@pytest.mark.parametrize("mode", MODES)
def test_an_annotation_that_does_not_unmarshal_stays_when_nothing_is_placed(tmp_path, mode) -> None:
    # Nothing schedulable: the empty map upstream starts from is its result, nothing changed, no
    # patch. The status reconciler reports the text (an empty text it does not look at).
    hub = [
        *compute_v05(cluster("c1", "us", ready=False), locations=["us"]),
        namespace("broken", placement='{"x":'),
        namespace("empty", placement=""),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("broken") == '{"x":' and written.annotation("empty") == ""
    condition = written.condition("broken")
    assert (condition["status"], condition["reason"]) == ("False", "PlacementInvalid")
    assert condition["message"] == f"Invalid placement annotation {PLACEMENT}"
    assert written.condition("empty") is None
    assert NEGOTIATION not in written.annotations("broken")


@pytest.mark.parametrize("mode", MODES)
def test_a_null_annotation_is_a_nil_map_and_always_written(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us", ready=False), locations=["us"]),
        namespace("default", placement="null"),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("default") == "{}"
    assert written.condition("default")["reason"] == "Unschedulable"


@pytest.mark.parametrize("mode", MODES)
def test_malformed_entries_are_dropped_by_a_write(tmp_path, mode) -> None:
    # Keys not of three parts and unknown states (a null state is "") are dropped on upstream's
    # write; the condition does not name them.
    entries = {
        "root:org:compute+us": "Bound",  # two parts
        key(COMPUTE, "us", "c2"): "Sleeping",  # unknown state
        key(COMPUTE, "us", "c3"): None,
        **bound("us", "c1"),
    }
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c4", "us"), locations=["us"]),
        namespace("default", placement=json.dumps(entries)),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c4"): "Pending",
    }
    condition = written.condition("default")
    assert condition["status"] == "True" and "reason" not in condition and "message" not in condition


@pytest.mark.parametrize("mode", MODES)
def test_malformed_entries_stay_without_a_write_and_count_for_the_condition(tmp_path, mode) -> None:
    text = json.dumps({"x": "Bound", key(COMPUTE, "us", "c1"): "Odd"})
    kept = json.dumps({"x": "Bound", **bound("us", "c1")})
    hub = [
        *compute_v05(cluster("c1", "us", ready=False), locations=["us"]),
        namespace("odd", placement=text),  # read as {}: nothing placed, but {} differs: written
        namespace("kept", placement=kept),  # us active, nothing to reschedule: no write
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("odd") == "{}"
    assert written.annotation("kept") == kept
    assert written.condition("kept")["status"] == "True"


@pytest.mark.parametrize("mode", MODES)
def test_a_new_entry_on_the_cluster_of_an_unknown_state_replaces_it_once_and_for_all(tmp_path, mode) -> None:
    # Found by the idempotence property: the only schedulable cluster, c0, is named by an entry with
    # an unknown state. That entry is ignored, so c0 is picked (as upstream, which drops the entry),
    # and the new Pending entry takes its key. The first run wrote the Pending entry but still named
    # the replaced entry in the condition (PlacementInvalid); the second run, reading no malformed
    # entry, took the reason off again: not a fixed point.
    hub = [
        *compute_v05(
            cluster("c0", "east"),
            cluster("c1", "east", unschedulable=True, deleting=True),
            locations=["east"],
        ),
        namespace("ns0", placement=json.dumps({key(COMPUTE, "east", "c0"): "Odd"})),
    ]
    first = Written.solve(tmp_path, hub, mode)
    assert first.placement_map("ns0") == bound("east", "c0", "Pending")
    condition = first.condition("ns0")
    assert condition["status"] == "True" and "reason" not in condition and "message" not in condition
    after = applied(hub, first.apply)
    second = Written.solve(tmp_path, after, mode)
    assert second.namespace("ns0") == first.namespace("ns0")


@pytest.mark.parametrize(
    ("obj", "field"),
    [
        (cluster("c1", "us") | {"spec": {"unschedulable": "yes"}}, "spec.unschedulable"),
        (cluster("c1", "us") | {"spec": {"evictAfter": "soon"}}, "spec.evictAfter"),
        (location("us", generation="v0.8"), "spec.resource"),
        (binding() | {"spec": {}}, "spec.reference"),
    ],
)
def test_objects_the_crd_rejects_exit_2(tmp_path, obj, field) -> None:
    hub = [binding(), location("eu"), cluster("c9", "eu"), namespace("default")]
    kinds = {(o["kind"], o["metadata"]["name"]) for o in hub}
    if (obj["kind"], obj["metadata"]["name"]) in kinds:
        hub = [o for o in hub if (o["kind"], o["metadata"]["name"]) != (obj["kind"], obj["metadata"]["name"])]
    result = solve_cli(tmp_path, [*hub, obj])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1
    # named with its workspace, as kcp names an object in a logical cluster, then the field
    workspace = TEAM if obj["kind"] == "APIBinding" else COMPUTE
    assert f"{obj['kind']} {workspace}|{obj['metadata']['name']}: {field}" in result.stderr


def test_duplicate_objects_in_one_workspace_exit_2_and_other_workspaces_may_repeat_names(tmp_path) -> None:
    hub = [*compute_v05(cluster("c1", "us"), locations=["us"]), namespace("default")]
    other = namespace("default", workspace="root:org:other")
    assert solve_cli(tmp_path, [*hub, other]).exit_code == 0
    result = solve_cli(tmp_path, [*hub, namespace("default")])
    assert result.exit_code == 2 and f"duplicate object Namespace {TEAM}|default" in result.stderr


# -------------------------------------------------------------------------------- the whole batch


@pytest.mark.parametrize("mode", MODES)
def test_same_bytes_twice(tmp_path, mode) -> None:
    hub = [
        *compute_v05(*(cluster(f"c{i}", "us" if i % 2 else "eu") for i in range(6)), locations=["eu", "us"]),
        *(namespace(f"ns{i}", created=i) for i in range(8)),
    ]
    first = solve_cli(tmp_path, hub, "--mode", mode, "--seed", "3")
    second = solve_cli(tmp_path, hub, "--mode", mode, "--seed", "3")
    assert first.exit_code == 0 and first.stdout == second.stdout


def _loads(written: Written, names: list[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for name in names:
        for entry in written.placement_map(name):
            counts[entry.rsplit("+", 1)[1]] = counts.get(entry.rsplit("+", 1)[1], 0) + 1
    return counts


def test_optimal_spreads_new_namespaces_evenly_where_the_draw_does_not(tmp_path) -> None:
    # Eight new namespaces, one location of three clusters, one of which already holds a
    # namespace: optimal levels them (3 on every cluster); greedy's random draw piles up.
    names = [f"ns{i}" for i in range(8)]
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "us"), cluster("c3", "us"), locations=["us"]),
        namespace("held", placement=bound("us", "c1")),
        *(namespace(name, created=i + 1) for i, name in enumerate(names)),
    ]
    for seed in range(3):
        optimal = _loads(Written.solve(tmp_path, hub, "optimal", "--seed", str(seed)), [*names, "held"])
        greedy = _loads(Written.solve(tmp_path, hub, "greedy", "--seed", str(seed)), [*names, "held"])
        assert max(optimal.values()) == 3 == min(optimal.values())
        assert max(greedy.values()) >= max(optimal.values())
    worse = [
        max(_loads(Written.solve(tmp_path, hub, "greedy", "--seed", str(seed)), [*names, "held"]).values())
        for seed in range(3)
    ]
    assert max(worse) > 3
