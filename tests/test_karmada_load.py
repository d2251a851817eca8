"""Karmada's adapter, objects -> model.Batch: clusters (capacity in the estimator's units, claims,
taints, traits), the bindings the scheduler looks at and its decision for each
(pkg/scheduler/scheduler.go doScheduleBinding), its queue order, the requests' replicas, and the
applied-placement annotation (placementChanged, pkg/scheduler/helper.go)."""

from __future__ import annotations

import json

import pytest

from adapters.errors import InputError
from adapters.karmada.bindings import Trigger
from adapters.karmada.load import tie_break
from model import Division, GroupSpread, NodeClass, TieBreak
from tests.fixtures.karmada import (
    APPLIED,
    DUPLICATED,
    applied,
    at,
    binding,
    cluster,
    divided,
    load,
)

DYNAMIC = {"replicaScheduling": divided(dynamic="AvailableReplicas")}


def _requests(objects):
    batch, context = load(objects)
    return {r.key: r for r in batch.requests}, context


def test_capacity_is_free_room_in_the_estimators_units():
    c = cluster(
        "m1",
        allocatable={"cpu": "4", "memory": "8Gi", "pods": "110", "nvidia.com/gpu": "2"},
        allocated={"cpu": "1500m", "memory": "1Gi", "pods": "10"},
        allocating={"cpu": "600m", "pods": "3", "nvidia.com/gpu": "3"},
    )
    batch, _ = load([c])
    free = batch.clusters[0].capacity.free
    assert free == {"cpu": 1900, "memory": 7 * 2**30, "pods": 97, "nvidia.com/gpu": 0}


def test_no_resource_summary_is_no_capacity_and_models_give_node_classes():
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": "9223372036854775807"}]},
    ]
    modeled = cluster(
        "m2",
        allocatable={"cpu": "64", "pods": "200"},
        models=models,
        modelings=[{"grade": 0, "count": 0}, {"grade": 1, "count": 3}],
    )
    batch, _ = load([cluster("m1"), modeled])
    assert batch.clusters[0].capacity is None
    capacity = batch.clusters[1].capacity
    assert capacity.nodes == (NodeClass(3, {"cpu": 2000, "pods": 110}),)
    assert capacity.free_with_nodes == frozenset({"pods"})


def test_claims_taints_and_api_traits():
    c = cluster(
        "m1",
        provider="aws",
        region="eu",
        zones=["a", "b"],
        taints=[
            {"key": "x", "effect": "NoSchedule"},
            {"key": "y", "effect": "PreferNoSchedule"},
            {"key": "z", "value": "v", "effect": "NoExecute"},
        ],
        deleting=True,
    )
    (got,), _ = load([c])[0].clusters, None
    assert got.claims == {"provider": "aws", "region": "eu", "zone": "a,b"}
    assert [(t.key, t.effect, t.new_only) for t in got.taints] == [
        ("x", "NoSchedule", True),
        ("z", "NoExecute", True),
    ]
    assert got.leaving
    assert "api:apps/v1/Deployment" in got.traits


def test_a_binding_becomes_a_request_dividing_its_replicas():
    rb = binding(
        placement={
            "clusterAffinity": {"clusterNames": ["m1", "m2"]},
            "spreadConstraints": [
                {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2},
                {"spreadByField": "zone", "minGroups": 1},
            ],
            "replicaScheduling": divided(dynamic="AvailableReplicas"),
        },
        replicas=7,
        requests={"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "0"},
        clusters=[("m1", 4)],
        evictions=["m3"],
        priority=5,
    )
    requests, _ = _requests([cluster("m1"), cluster("m2"), cluster("m3"), rb])
    r = requests["default/rb"].replicas
    assert r.count == 7 and r.division is Division.AVAILABLE
    assert r.demand == {"cpu": 500, "memory": 2**30, "pods": 1}
    assert r.groups == (GroupSpread("", 1, 2, True), GroupSpread("zone", 1, 0, False))
    assert r.current == (("m1", 4),) and r.evicted == ("m3",) and r.priority == 5
    assert r.needs == "api:apps/v1/Deployment" and not r.unlimited
    assert [e.cluster for e in requests["default/rb"].existing] == ["m1"]


@pytest.mark.parametrize(
    ("scheduling", "division"),
    [
        (None, Division.DUPLICATED),
        (DUPLICATED, Division.DUPLICATED),
        (divided("Aggregated"), Division.AGGREGATED),
        (divided(), Division.WEIGHTED),
        (divided(weights=[(["m1"], 2)]), Division.WEIGHTED),
        (divided(dynamic="AvailableReplicas"), Division.AVAILABLE),
    ],
)
def test_division_by_strategy(scheduling, division):
    placement = {} if scheduling is None else {"replicaScheduling": scheduling}
    requests, _ = _requests([cluster("m1"), binding(placement=placement)])
    assert requests["default/rb"].replicas.division is division


def test_static_weights_ignore_spread_selection_but_an_empty_preference_does_not():
    spread = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]
    static = binding(
        "a", placement={"spreadConstraints": spread, "replicaScheduling": divided(weights=[(["m1"], 2)])}
    )
    empty = binding("b", placement={"spreadConstraints": spread, "replicaScheduling": divided(weights=[])})
    requests, _ = _requests([cluster("m1"), static, empty])
    assert not requests["default/a"].replicas.groups[0].selects
    assert requests["default/a"].replicas.weights[0].weight == 2
    assert requests["default/b"].replicas.groups[0].selects
    assert requests["default/b"].replicas.weights is None


def test_non_workloads_are_divided_over_every_cluster_unlimited():
    svc = binding("svc", kind="Service", api_version="v1", replicas=None, placement=DYNAMIC)
    requests, _ = _requests([cluster("m1"), svc])
    r = requests["default/svc"].replicas
    assert r.division is Division.EVERY and r.unlimited and r.needs == "api:v1/Service"


def test_webster_tie_break_follows_the_workload_uids_parity():
    # binding_test.go's UIDs: the first hashes odd (names descending), the second even.
    assert tie_break("d43fdeeb-d750-4e2b-bee3-64eb94534f4c") is TieBreak.LARGER_NAME
    assert tie_break("4858ca61-3ff8-4095-8267-f3d059d8074c") is TieBreak.SMALLER_NAME
    assert tie_break("") is TieBreak.SMALLER_NAME


def test_the_scheduler_looks_only_at_its_bindings():
    objects = [
        cluster("m1"),
        binding("mine"),
        binding("unlabelled", labels={}),
        binding("empty-label", labels={"binding.karmada.io/managed-by": ""}),
        binding("managed", labels={"binding.karmada.io/managed-by": "x"}),
        binding("other", scheduler="my-scheduler"),
        binding("default", scheduler="default-scheduler"),
        binding("suspended", suspended=True),
        binding("deleting", deleting=True),
        binding("crb", cluster_scoped=True, labels={"clusterpropagationpolicy.karmada.io/permanent-id": "p"}),
    ]
    requests, context = _requests(objects)
    assert sorted(requests) == ["crb", "default/default", "default/managed", "default/mine"]
    assert sorted(k for _, k in context.bindings) == sorted(requests)


def test_queue_order_is_priority_then_creation_then_name():
    objects = [
        cluster("m1"),
        binding("late", created=at(5)),
        binding("b-early", created=at(1)),
        binding("a-early", created=at(1)),
        binding("urgent", created=at(9), priority=10),
        binding("low", created=at(0), priority=-1),
    ]
    requests, _ = _requests(objects)
    order = sorted(requests.values(), key=lambda r: r.replicas.order)
    assert [r.name for r in order] == ["urgent", "a-early", "b-early", "late", "low"]


def _applied(placement, **kwargs):
    return applied(binding(placement=placement, **kwargs))


@pytest.mark.parametrize(
    ("case", "scheduled"),
    [
        ("first time: no annotation", True),
        ("applied, replicas in place", False),
        ("replicas scaled", True),
        ("a cluster failed over", True),
        ("reschedule triggered", True),
        ("reschedule before the last schedule", False),
        ("duplicated", True),
        ("not a workload", True),
        ("target being deleted", True),
    ],
)
def test_decision_tree(case, scheduled):
    dynamic = {"replicaScheduling": divided(dynamic="AvailableReplicas")}
    status = {"lastScheduledTime": at(10), "schedulerObservedGeneration": 1}
    rb = {
        "first time: no annotation": binding(placement=dynamic, clusters=[("m1", 3)]),
        "applied, replicas in place": _applied(dynamic, clusters=[("m1", 3)], status=status),
        "replicas scaled": _applied(dynamic, replicas=5, clusters=[("m1", 3)], status=status),
        "a cluster failed over": _applied(dynamic, replicas=3, clusters=[("m1", 1)], evictions=["m2"]),
        "reschedule triggered": _applied(dynamic, clusters=[("m1", 3)], reschedule_at=at(20), status=status),
        "reschedule before the last schedule": _applied(
            dynamic, clusters=[("m1", 3)], reschedule_at=at(5), status=status
        ),
        "duplicated": _applied({"replicaScheduling": DUPLICATED}, clusters=[("m1", 3)], status=status),
        "not a workload": _applied(dynamic, replicas=0, clusters=["m1"], status=status),
        "target being deleted": _applied(dynamic, clusters=[("gone", 3)], status=status),
    }[case]
    requests, context = _requests([cluster("m1"), cluster("m2"), cluster("gone", deleting=True), rb])
    assert ("default/rb" in requests) is scheduled
    assert (context.bindings[("ResourceBinding", "default/rb")].trigger is not None) is scheduled


def test_fresh_mode_restarts_at_the_first_affinity_term():
    placement = {
        "clusterAffinities": [{"affinityName": "a", "clusterNames": ["m1"]}, {"affinityName": "b"}],
        "replicaScheduling": divided("Aggregated"),
    }
    status = {"lastScheduledTime": at(10), "schedulerObservingAffinityName": "b"}
    resumed = _applied(placement, clusters=[("m1", 3)], status=status, replicas=4)
    fresh = _applied(placement, clusters=[("m1", 3)], status=status, reschedule_at=at(11))
    fresh["metadata"]["name"] = "fresh"
    requests, _ = _requests([cluster("m1"), resumed, fresh])
    assert requests["default/rb"].replicas.tier == 1 and not requests["default/rb"].replicas.fresh
    assert requests["default/fresh"].replicas.tier == 0 and requests["default/fresh"].replicas.fresh
    assert [t.name for t in requests["default/rb"].replicas.tiers] == ["a", "b"]


# Test_needConsideredPlacementChanged (pkg/scheduler/helper_test.go), in our words: only the
# observed clusterAffinities term counts; omitted and empty fields are alike.
TERMS = [
    {"affinityName": "group1", "clusterNames": ["m1"]},
    {"affinityName": "group2", "clusterNames": ["m2"]},
]


@pytest.mark.parametrize(
    ("now", "then", "observed", "changed"),
    [
        ({"clusterAffinities": TERMS}, {"clusterAffinities": TERMS}, "group1", False),
        (
            {"clusterAffinities": [TERMS[0], {"affinityName": "group2", "clusterNames": ["m3"]}]},
            {"clusterAffinities": TERMS},
            "group1",
            False,
        ),
        (
            {"clusterAffinities": [{"affinityName": "group1", "clusterNames": ["m3"]}, TERMS[1]]},
            {"clusterAffinities": TERMS},
            "group1",
            True,
        ),
        ({"clusterAffinities": [TERMS[1]]}, {"clusterAffinities": TERMS}, "group1", True),
        ({"clusterAffinities": TERMS + [{"affinityName": "g3"}]}, {"clusterAffinities": TERMS}, "", True),
        (
            {"clusterAffinities": TERMS, "clusterTolerations": [{"key": "k", "operator": "Exists"}]},
            {"clusterAffinities": TERMS},
            "group1",
            True,
        ),
        (
            {"clusterAffinity": {"clusterNames": ["m1"], "exclude": []}, "spreadConstraints": []},
            {"clusterAffinity": {"clusterNames": ["m1"]}},
            "",
            False,
        ),
    ],
)
def test_placement_changed_is_semantic(now, then, observed, changed):
    rb = binding(placement=now, clusters=[("m1", 3)], status={"schedulerObservingAffinityName": observed})
    rb["metadata"]["annotations"] = {APPLIED: json.dumps(then)}
    rb["spec"]["placement"] = now
    _, context = _requests([cluster("m1"), rb])
    assert (context.bindings[("ResourceBinding", "default/rb")].trigger is Trigger.PLACEMENT) is changed


def test_an_annotation_go_cannot_decode_is_no_change():
    rb = binding(placement=DYNAMIC, clusters=[("m1", 3)], annotations={APPLIED: "{not json"})
    requests, _ = _requests([cluster("m1"), rb])
    assert requests == {}


def test_bindings_that_share_a_placement_share_its_reading_and_a_refused_one_names_its_own_binding():
    same = {"clusterAffinity": {"clusterNames": ["1"]}}
    objects = [cluster("1"), binding("a", placement=same), binding("b", placement=same)]
    _, context = load(objects)
    a, b = (c.binding.placement for c in context.bindings.values())
    assert a is b
    bad = binding("c", placement={"clusterAffinity": {"clusterNames": [1]}})
    with pytest.raises(InputError) as refused:
        load([*objects, bad])
    assert "/c" in str(refused.value) and "spec.placement.clusterAffinity.clusterNames" in str(refused.value)
