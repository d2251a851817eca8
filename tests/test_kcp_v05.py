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

from tests.test_kcp_fixtures import (
    COMPUTE,
    DISABLED,
    MODES,
    NEGOTIATION,
    NOW,
    PLACEMENT,
    TEAM,
    Written,
    ago,
    apply_output,
    binding,
    cluster,
    compute_v05,
    key,
    location,
    namespace,
    run_cli,
)

EVICTED = ago(60)  # evictAfter in the past: the cluster is evicting


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
    for i in range(4):
        assert written.placement_map(f"ns{i}") == bound("us", "f-good", "Pending")


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
    plan = json.loads(run_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
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
    result = run_cli(tmp_path, hub, "--mode", mode, "-o", "table")
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
    rows = run_cli(tmp_path, hub, "--mode", mode, "-o", "table").stdout
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
    plan = json.loads(run_cli(tmp_path, hub, "--mode", mode, "-o", "plan").stdout)
    assert plan["summary"]["unsatisfied"] == 1


@pytest.mark.parametrize("mode", MODES)
def test_pending_on_an_evicting_cluster_is_dropped(tmp_path, mode) -> None:
    # A dropped Pending entry is not replaced in its location while another location is active.
    hub = [
        *compute_v05(
            cluster("c1", "us", evict_after=EVICTED),
            cluster("c2", "us"),
            cluster("c3", "eu"),
            locations=["eu", "us"],
        ),
        namespace("default", placement={**bound("us", "c1", "Pending"), **bound("eu", "c3")}),
    ]
    assert Written.solve(tmp_path, hub, mode).placement_map("default") == bound("eu", "c3")


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
    # c9 does not exist any more: its Bound and Removing entries go; the Bound one in eu stays.
    hub = [
        *compute_v05(cluster("c3", "eu"), locations=["eu", "us"]),
        namespace("default", placement={**bound("us", "c9"), **bound("eu", "c3")}),
        namespace("other", placement={**bound("us", "c9", "Removing"), **bound("eu", "c3")}),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == bound("eu", "c3")
    assert written.placement_map("other") == bound("eu", "c3")


@pytest.mark.parametrize("mode", MODES)
def test_removing_stays_while_the_cluster_exists_and_unbound_is_collected(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), cluster("c2", "us"), cluster("c3", "us"), locations=["us"]),
        namespace(
            "default",
            placement={**bound("us", "c1", "Removing"), **bound("us", "c2"), **bound("us", "c3", "Unbound")},
        ),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c2"): "Bound",
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
def test_without_a_workload_binding_the_annotations_come_off(tmp_path, bind) -> None:
    hub = [
        bind,
        location("us"),
        cluster("c1", "us"),
        namespace("default", placement=bound("us", "c1"), annotations={NEGOTIATION: COMPUTE}),
        namespace("untouched"),
    ]
    written = Written.solve(tmp_path, hub, "optimal")
    assert PLACEMENT not in written.annotations("default")
    assert NEGOTIATION not in written.annotations("default")
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
    result = run_cli(tmp_path, hub)
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


def test_namespaces_of_other_systems_are_not_kcp_input(tmp_path) -> None:
    # A Namespace beside no kcp object makes no kcp input: no kcp part, nothing written for it.
    from tests.ocm_fixtures import hub, managed_cluster
    from tests.ocm_fixtures import placement as ocm_placement

    objects = [*hub(managed_cluster("c1")), ocm_placement("web", n=1), namespace("ns1")]
    plan = json.loads(run_cli(tmp_path, objects, "-o", "plan").stdout)
    assert set(plan["summary"]["systems"]) == {"ocm"}
    assert all(o["kind"] != "Namespace" for o in plan["apply"])


# ---------------------------------------------------------------------------------------- bad input


@pytest.mark.parametrize("mode", MODES)
def test_invalid_json_is_reported_and_left_alone(tmp_path, mode) -> None:
    hub = [
        *compute_v05(cluster("c1", "us"), locations=["us"]),
        namespace("broken", placement='{"root:org:compute+us+c1": "Bound"'),
        namespace("list", placement="[1, 2]"),
        namespace("fine", created=1),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.annotation("broken") == '{"root:org:compute+us+c1": "Bound"'
    for name in ("broken", "list"):
        condition = written.condition(name)
        assert (condition["status"], condition["reason"]) == ("False", "PlacementInvalid")
        assert PLACEMENT in condition["message"]
    assert written.placement_map("fine") == bound("us", "c1", "Pending")


@pytest.mark.parametrize("mode", MODES)
def test_malformed_entries_are_kept_and_reported_beside_the_others(tmp_path, mode) -> None:
    entries = {
        "root:org:compute+us": "Bound",  # two parts
        key(COMPUTE, "us", "c2"): "Sleeping",  # unknown state
        key(COMPUTE, "us", "c3"): 7,  # not a string
        **bound("us", "c1"),
    }
    hub = [
        *compute_v05(cluster("c1", "us", evict_after=EVICTED), cluster("c4", "us"), locations=["us"]),
        namespace("default", placement=json.dumps(entries)),
    ]
    written = Written.solve(tmp_path, hub, mode)
    assert written.placement_map("default") == {
        "root:org:compute+us": "Bound",
        key(COMPUTE, "us", "c2"): "Sleeping",
        key(COMPUTE, "us", "c3"): 7,
        key(COMPUTE, "us", "c1"): "Removing",
        key(COMPUTE, "us", "c4"): "Pending",
    }
    condition = written.condition("default")
    assert (condition["status"], condition["reason"]) == ("True", "PlacementInvalid")
    assert "unknown state 'Sleeping'" in condition["message"]
    assert "'root:org:compute+us'" in condition["message"]


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
    after = apply_output(hub, first.apply)
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
    result = run_cli(tmp_path, [*hub, obj])
    assert result.exit_code == 2, result.output
    assert result.stdout == "" and result.stderr.count("\n") == 1
    # named with its workspace, as kcp names an object in a logical cluster, then the field
    workspace = TEAM if obj["kind"] == "APIBinding" else COMPUTE
    assert f"{obj['kind']} {workspace}|{obj['metadata']['name']}: {field}" in result.stderr


def test_duplicate_objects_in_one_workspace_exit_2_and_other_workspaces_may_repeat_names(tmp_path) -> None:
    hub = [*compute_v05(cluster("c1", "us"), locations=["us"]), namespace("default")]
    other = namespace("default", workspace="root:org:other")
    assert run_cli(tmp_path, [*hub, other]).exit_code == 0
    result = run_cli(tmp_path, [*hub, namespace("default")])
    assert result.exit_code == 2 and f"duplicate object Namespace {TEAM}|default" in result.stderr


# -------------------------------------------------------------------------------- the whole batch


@pytest.mark.parametrize("mode", MODES)
def test_same_bytes_twice(tmp_path, mode) -> None:
    hub = [
        *compute_v05(*(cluster(f"c{i}", "us" if i % 2 else "eu") for i in range(6)), locations=["eu", "us"]),
        *(namespace(f"ns{i}", created=i) for i in range(8)),
    ]
    first = run_cli(tmp_path, hub, "--mode", mode, "--seed", "3")
    second = run_cli(tmp_path, hub, "--mode", mode, "--seed", "3")
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
