"""Upstream's own scheduler tests (karmada-io/karmada at v1.19, f8fdd02df), each written as a whole
hub (Clusters and ResourceBindings) and run through `placement-solver solve --mode greedy`.

Asserted as upstream's tests compare: spec.clusters as a set of (name, replicas)
(test/helper.IsScheduleResultEqual), the Scheduled condition's reason and message, the observed
affinity name, and what is not written (an error leaves spec.clusters and the applied-placement
annotation as they were). Where an upstream test drives one function with a mock (a fake
Algorithm, a hand-made assignState), the hub is built so that the real scheduler reaches the same
state: a cluster's AvailableReplicas is its free `pods` (the request asks for nothing else), the
candidates are every cluster the placement admits. Each case names its upstream test and case.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
import yaml

from adapters.kube.fields import INT64
from tests.fixtures.common import solve_cli
from tests.fixtures.karmada import (
    APPLIED,
    DUPLICATED,
    NOW,
    ago,
    applied,
    binding,
    cluster,
    divided,
    solve,
    written,
)
from tests.fixtures.pipeline import applied as hub_applied

SUCCESS = ("Success", "Binding has been scheduled successfully.")
DYNAMIC = divided(dynamic="AvailableReplicas")  # upstream's dynamicWeightStrategy
AGGREGATED = divided("Aggregated")  # upstream's aggregatedStrategy
NOTHING = {"cpu": "0"}  # util.EmptyResource().ResourceList(): requirements that ask for nothing


def _members(count: int) -> list[dict[str, Any]]:
    """helper.NewCluster(ClusterMemberN) for N in 1..count: no resourceSummary."""
    return [cluster(f"member{i}") for i in range(1, count + 1)]


def _with_pods(free: Mapping[str, int]) -> list[dict[str, Any]]:
    """helper.NewClusterWithResource(name, {pods: n}, {}, {}): AllocatableReplicas n each."""
    return [cluster(name, allocatable={"pods": str(n)}) for name, n in free.items()]


def _run(tmp_path, objects: Sequence[Mapping[str, Any]], key: str = "ResourceBinding/default/rb") -> dict:
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    return written(result.stdout)[key]


def _placed(obj: Mapping[str, Any]) -> dict[str, int | None]:
    """spec.clusters as a set (a map: name -> replicas, None where the entry has no replicas)."""
    return {c["name"]: c.get("replicas") for c in obj["spec"].get("clusters") or []}


def _condition(obj: Mapping[str, Any]) -> tuple[str, str]:
    (scheduled,) = [c for c in obj["status"]["conditions"] if c["type"] == "Scheduled"]
    return scheduled["reason"], scheduled["message"]


def _not_enough(available: int) -> str:
    reason = f"Clusters available replicas {available} are not enough to schedule."
    return f"failed to assign replicas: failed to scale up: {reason}"


# ------------------------------------------ pkg/scheduler/core/generic_scheduler_test.go


def _weights(*weights: int) -> dict[str, Any]:
    return divided(weights=[([f"member{i}"], w) for i, w in enumerate(weights, 1)])


# Test_DistributionOfReplicas: static weights through assignReplicas (stateless: the previous
# result is not read, so "before" and "after" are each a first schedule).
DISTRIBUTION = [
    ("replica 3, static weighted 1:1", 2, 3, (1, 1), {"member1": 2, "member2": 1}),
    ("replica 3, 1:1:1, 3 to 5, before", 3, 3, (1, 1, 1), {"member1": 1, "member2": 1, "member3": 1}),
    ("replica 3, 1:1:1, 3 to 5, after", 3, 5, (1, 1, 1), {"member1": 2, "member2": 2, "member3": 1}),
    (
        "replica 7, 2:1:1:1, 7 to 8, before",
        4,
        7,
        (2, 1, 1, 1),
        {"member1": 3, "member2": 2, "member3": 1, "member4": 1},
    ),
    (
        "replica 7, 2:1:1:1, 7 to 8, after",
        4,
        8,
        (2, 1, 1, 1),
        {"member1": 3, "member2": 2, "member3": 2, "member4": 1},
    ),
    (
        "replica 9, 2:1:1:1, 9 to 8, before",
        4,
        9,
        (2, 1, 1, 1),
        {"member1": 3, "member2": 2, "member3": 2, "member4": 2},
    ),
    (
        "replica 9, 2:1:1:1, 9 to 8, after",
        4,
        8,
        (2, 1, 1, 1),
        {"member1": 3, "member2": 2, "member3": 2, "member4": 1},
    ),
    (
        "replica 6, 1:1:1:1 to 2:1:1:1, before",
        4,
        6,
        (1, 1, 1, 1),
        {"member1": 2, "member2": 2, "member3": 1, "member4": 1},
    ),
    (
        "replica 6, 1:1:1:1 to 2:1:1:1, after",
        4,
        6,
        (2, 1, 1, 1),
        {"member1": 3, "member2": 1, "member3": 1, "member4": 1},
    ),
    ("replica 5, add a cluster, before", 3, 5, (1, 1, 1), {"member1": 2, "member2": 2, "member3": 1}),
    (
        "replica 5, add a cluster, after",
        4,
        5,
        (1, 1, 1, 1),
        {"member1": 2, "member2": 1, "member3": 1, "member4": 1},
    ),
    (
        "replica 6, remove a cluster, before",
        4,
        6,
        (1, 1, 1, 1),
        {"member1": 2, "member2": 2, "member3": 1, "member4": 1},
    ),
    ("replica 6, remove a cluster, after", 3, 6, (1, 1, 1), {"member1": 2, "member2": 2, "member3": 2}),
]


@pytest.mark.parametrize(
    ("case", "clusters", "replicas", "weights", "want"), DISTRIBUTION, ids=[d[0] for d in DISTRIBUTION]
)
def test_distribution_of_replicas(tmp_path, case, clusters, replicas, weights, want):
    rb = binding(placement={"replicaScheduling": _weights(*weights)}, replicas=replicas)
    got = _run(tmp_path, [*_members(clusters), rb])
    assert (_placed(got), _condition(got)) == (want, SUCCESS)


# ------------------------------------------------- pkg/scheduler/core/assignment_test.go

# Test_dynamicScale (assignByDynamicStrategy, Steady mode): (case, free pods, strategy, replicas,
# spec.clusters, expected or None for an error).
DYNAMIC_SCALE = [
    (
        "replica 12 -> 6, dynamic weighted 1:1:1",
        {"member1": 1, "member2": 1, "member3": 1},
        DYNAMIC,
        6,
        {"member1": 2, "member2": 4, "member3": 6},
        {"member1": 1, "member2": 2, "member3": 3},
    ),
    (
        "replica 12 -> 24, dynamic weighted 10:10:10",
        {"member1": 10, "member2": 10, "member3": 10},
        DYNAMIC,
        24,
        {"member1": 2, "member2": 4, "member3": 6},
        {"member1": 6, "member2": 8, "member3": 10},
    ),
    (
        "replica 12 -> 24, dynamic weighted 1:1:1",
        {"member1": 1, "member2": 1, "member3": 1},
        DYNAMIC,
        24,
        {"member1": 2, "member2": 4, "member3": 6},
        None,
    ),
    (
        "replica 12 -> 6, aggregated 1:1:1",
        {"member1": 1, "member2": 1, "member3": 1},
        AGGREGATED,
        6,
        {"member1": 4, "member2": 8},
        {"member2": 6},
    ),
    (
        "replica 12 -> 8, aggregated 100:100",
        {"member1": 100, "member2": 100},
        AGGREGATED,
        8,
        {"member1": 4, "member2": 8},
        {"member2": 8},
    ),
    (
        "replica 12 -> 24, aggregated 4:6:8",
        {"member1": 4, "member2": 6, "member3": 8},
        AGGREGATED,
        24,
        {"member1": 4, "member2": 8},
        {"member1": 7, "member2": 12, "member3": 5},
    ),
    (
        "replica 12 -> 24, aggregated 6:6:20",
        {"member1": 6, "member2": 6, "member3": 20},
        AGGREGATED,
        24,
        {"member1": 4, "member2": 8},
        {"member1": 10, "member2": 14},
    ),
    (
        "replica 12 -> 24, aggregated 1:1:1",
        {"member1": 1, "member2": 1, "member3": 1},
        AGGREGATED,
        24,
        {"member1": 4, "member2": 8},
        None,
    ),
    (
        "replica 12 -> 24, aggregated 4:8:12, cluster2 gone, cluster4 new",
        {"member1": 4, "member3": 8, "member4": 12},
        AGGREGATED,
        24,
        {"member1": 4, "member2": 8},
        {"member1": 7, "member3": 7, "member4": 10},
    ),
]
# Test_dynamicScaleUp (first schedules, and one whose old cluster is gone)
DYNAMIC_SCALE_UP = [
    (
        "replica 12, dynamic weight 6:8:10",
        {"member1": 6, "member2": 8, "member3": 10},
        DYNAMIC,
        12,
        {},
        {"member1": 3, "member2": 4, "member3": 5},
    ),
    (
        "replica 12, dynamic weight 8:8:10",
        {"member1": 8, "member2": 8, "member3": 10},
        DYNAMIC,
        12,
        {},
        {"member1": 4, "member2": 4, "member3": 4},
    ),
    ("replica 12, dynamic weight 3:3:3", {"member1": 3, "member2": 3, "member3": 3}, DYNAMIC, 12, {}, None),
    (
        "replica 12, aggregated 6:8:10",
        {"member1": 6, "member2": 8, "member3": 10},
        AGGREGATED,
        12,
        {},
        {"member2": 5, "member3": 7},
    ),
    (
        "replica 12, aggregated 12:8:10",
        {"member1": 12, "member2": 8, "member3": 10},
        AGGREGATED,
        12,
        {},
        {"member1": 12},
    ),
    ("replica 12, aggregated 3:3:3", {"member1": 3, "member2": 3, "member3": 3}, AGGREGATED, 12, {}, None),
    (
        "replica 12, dynamic weight 3:3, cluster3 gone, cluster2 new",
        {"member1": 3, "member2": 3},
        DYNAMIC,
        12,
        {"member1": 6, "member3": 6},
        {"member1": 9, "member2": 3},
    ),
]
# Test_dynamicDivideReplicas (dynamicDivideReplicas on the available list a first schedule builds)
DYNAMIC_DIVIDE = [
    (
        "replica 12, dynamic weight 18:12:6",
        {"member1": 18, "member2": 12, "member3": 6},
        DYNAMIC,
        12,
        {},
        {"member1": 6, "member2": 4, "member3": 2},
    ),
    (
        "replica 12, dynamic weight 20:12:6",
        {"member1": 20, "member2": 12, "member3": 6},
        DYNAMIC,
        12,
        {},
        {"member1": 6, "member2": 4, "member3": 2},
    ),
    (
        "replica 12, dynamic weight 6:12:6",
        {"member1": 6, "member2": 12, "member3": 6},
        DYNAMIC,
        12,
        {},
        {"member1": 3, "member2": 6, "member3": 3},
    ),
    (
        "replica 12, aggregated 12:6:6",
        {"member1": 6, "member2": 12, "member3": 6},
        AGGREGATED,
        12,
        {},
        {"member2": 12},
    ),
    (
        "replica 12, aggregated 6:6:6",
        {"member1": 6, "member2": 6, "member3": 6},
        AGGREGATED,
        12,
        {},
        {"member1": 6, "member2": 6},
    ),
]
SCALING = DYNAMIC_SCALE + DYNAMIC_SCALE_UP + DYNAMIC_DIVIDE


@pytest.mark.parametrize(
    ("case", "free", "strategy", "replicas", "current", "want"), SCALING, ids=[s[0] for s in SCALING]
)
def test_dynamic_scale(tmp_path, case, free, strategy, replicas, current, want):
    rb = binding(
        placement={"replicaScheduling": strategy},
        replicas=replicas,
        requests=NOTHING,
        clusters=list(current.items()) if current else None,
    )
    got = _run(tmp_path, [*_with_pods(free), rb])
    if want is None:  # the error: Unschedulable, spec.clusters untouched
        assert _condition(got) == ("Unschedulable", _not_enough(sum(free.values())))
        assert _placed(got) == current
        assert APPLIED not in got["metadata"].get("annotations", {})
        return
    assert (_placed(got), _condition(got)) == (want, SUCCESS)


def test_assign_by_dynamic_strategy_unschedulable_error_preserved(tmp_path):
    # Test_assignByDynamicStrategy_UnschedulableErrorPreserved: 3 available, 10 asked: the error
    # stays an UnschedulableError through its wrapping, so the condition says Unschedulable.
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=10, requests=NOTHING)
    got = _run(tmp_path, [*_with_pods({"member1": 3}), rb])
    assert _condition(got) == ("Unschedulable", _not_enough(3))
    assert "clusters" not in got["spec"]


@pytest.mark.parametrize(
    ("case", "replicas", "want"),
    [
        ("test with multiple cluster", 2, {"member1": 2, "member2": 2}),
        ("replicas is null", None, {"member1": None, "member2": None}),
    ],
)
def test_assign_by_duplicated_strategy(tmp_path, case, replicas, want):
    # Test_assignByDuplicatedStrategy. "replicas is null": upstream's {member: 0} entries are
    # written without replicas (omitempty); through the whole scheduler that binding is no
    # workload, placed on every cluster the same way.
    rb = binding(placement={"replicaScheduling": DUPLICATED}, replicas=replicas)
    got = _run(tmp_path, [*_members(2), rb])
    assert (_placed(got), _condition(got)) == (want, SUCCESS)


# ------------------------------------------------------- pkg/scheduler/scheduler_test.go

TERMS = [
    {"affinityName": "affinity1", "clusterNames": ["cluster1"]},
    {"affinityName": "affinity2", "clusterNames": ["cluster2"]},
]
TERMS_ANNOTATION = (
    '{"clusterAffinities":[{"affinityName":"affinity1","clusterNames":["cluster1"]},'
    '{"affinityName":"affinity2","clusterNames":["cluster2"]}]}'
)


def _two_clusters(*names: str) -> list[dict[str, Any]]:
    return [cluster(n, allocatable={"pods": "10"}) for n in names]


def test_schedule_binding_with_cluster_affinity_successful_scheduling(tmp_path):
    # TestScheduleResourceBindingWithClusterAffinity "successful scheduling": one patch, the
    # annotation and spec.clusters {cluster1: 1}.
    rb = binding(placement={"clusterAffinity": {"clusterNames": ["cluster1"]}}, replicas=1)
    got = _run(tmp_path, [*_two_clusters("cluster1", "cluster2"), rb])
    assert got["metadata"]["annotations"][APPLIED] == '{"clusterAffinity":{"clusterNames":["cluster1"]}}'
    assert (_placed(got), _condition(got)) == ({"cluster1": 1}, SUCCESS)


def test_schedule_binding_with_cluster_affinity_scheduling_error(tmp_path):
    # TestScheduleResourceBindingWithClusterAffinity "scheduling error": an error that is no
    # FitError patches nothing (no annotation, no spec.clusters); here a spread constraint the
    # one feasible cluster cannot meet.
    placement = {
        "clusterAffinity": {"clusterNames": ["cluster1"]},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2, "maxGroups": 2}],
        "replicaScheduling": DYNAMIC,
    }
    rb = binding(placement=placement, replicas=1)
    got = _run(tmp_path, [*_two_clusters("cluster1", "cluster2"), rb])
    message = (
        "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups"
    )
    assert _condition(got) == ("SchedulerError", message)
    assert "clusters" not in got["spec"] and APPLIED not in got["metadata"].get("annotations", {})
    assert "lastScheduledTime" not in got["status"]


def _affinities(tmp_path, clusters, status=None, reschedule_at=None, replicas=1):
    rb = binding(
        placement={"clusterAffinities": TERMS}, replicas=replicas, status=status, reschedule_at=reschedule_at
    )
    return _run(tmp_path, [*clusters, rb])


def test_cluster_affinities_successful_scheduling_with_first_affinity(tmp_path):
    # TestScheduleResourceBindingWithClusterAffinities "successful scheduling with first affinity"
    got = _affinities(tmp_path, _two_clusters("cluster1", "cluster2"))
    assert got["metadata"]["annotations"][APPLIED] == TERMS_ANNOTATION
    assert (_placed(got), _condition(got)) == ({"cluster1": 1}, SUCCESS)
    assert got["status"]["schedulerObservingAffinityName"] == "affinity1"


def test_cluster_affinities_explicit_rescheduling_restarts_from_first_affinity(tmp_path):
    # "explicit rescheduling restarts from first affinity": rescheduleTriggeredAt after
    # lastScheduledTime, observed affinity2: scheduled with affinity1 only.
    status = {"lastScheduledTime": ago(60), "schedulerObservingAffinityName": "affinity2"}
    got = _affinities(tmp_path, _two_clusters("cluster1", "cluster2"), status, reschedule_at=ago(30))
    assert (_placed(got), _condition(got)) == ({"cluster1": 1}, SUCCESS)
    assert got["status"]["schedulerObservingAffinityName"] == "affinity1"
    assert got["status"]["lastScheduledTime"] == NOW


def test_cluster_affinities_without_explicit_rescheduling_resumes_from_observed_affinity(tmp_path):
    # "without explicit rescheduling resumes from observed affinity": affinity1 would fit, the
    # scheduler starts at affinity2 and stays there (its name unchanged: no status patch).
    status = {"schedulerObservingAffinityName": "affinity2"}
    got = _affinities(tmp_path, _two_clusters("cluster1", "cluster2"), status)
    assert got["metadata"]["annotations"][APPLIED] == TERMS_ANNOTATION
    assert (_placed(got), _condition(got)) == ({"cluster2": 1}, SUCCESS)
    assert got["status"]["schedulerObservingAffinityName"] == "affinity2"


def test_cluster_affinities_successful_scheduling_with_second_affinity(tmp_path):
    # "successful scheduling with second affinity": the first term fails (its cluster is not
    # there: a FitError), the second places the binding and is recorded.
    got = _affinities(tmp_path, _two_clusters("cluster2"))
    assert (_placed(got), _condition(got)) == ({"cluster2": 1}, SUCCESS)
    assert got["status"]["schedulerObservingAffinityName"] == "affinity2"


def test_cluster_affinities_all_affinities_fail(tmp_path):
    # "all affinities fail": errors that are no FitError (here too little room in either term)
    # patch nothing; the condition holds the FIRST term's error, unwrapped.
    rb = binding(
        placement={"clusterAffinities": TERMS, "replicaScheduling": DYNAMIC},
        replicas=12,
        requests=NOTHING,
        clusters=[("cluster1", 1)],
        status={"schedulerObservingAffinityName": "affinity1"},
    )
    clusters = [
        cluster("cluster1", allocatable={"pods": "3"}),
        cluster("cluster2", allocatable={"pods": "5"}),
    ]
    got = _run(tmp_path, [*clusters, rb])
    # scale up from 1 on cluster1 (0 left there: 3 free, 11 more asked)
    assert _condition(got) == ("Unschedulable", _not_enough(3))
    assert _placed(got) == {"cluster1": 1}
    assert APPLIED not in got["metadata"].get("annotations", {})
    assert got["status"]["schedulerObservingAffinityName"] == "affinity1"


def test_cluster_affinities_all_fit_errors_clear_the_clusters(tmp_path):
    # scheduleResourceBindingWithClusterAffinities: every term failing with a FitError first
    # patches spec.clusters empty (and the annotation) and reports NoClusterFit; the observed
    # name stays.
    rb = binding(
        placement={"clusterAffinities": TERMS},
        replicas=1,
        clusters=[("cluster1", 1)],
        status={"schedulerObservingAffinityName": "affinity1"},
    )
    got = _run(tmp_path, [cluster("other"), rb])
    reason = "1 cluster(s) did not match the placement cluster affinity constraint"
    assert _condition(got) == ("NoClusterFit", f"0/1 clusters are available: {reason}.")
    assert _placed(got) == {}
    assert got["metadata"]["annotations"][APPLIED] == TERMS_ANNOTATION
    assert got["status"]["schedulerObservingAffinityName"] == "affinity1"


@pytest.mark.parametrize("kind", ["ResourceBinding", "ClusterResourceBinding"])
def test_do_schedule(tmp_path, kind):
    # TestDoSchedule "ResourceBinding scheduling" / "ClusterResourceBinding scheduling": a binding
    # with clusterNames [cluster1] and no annotation is scheduled onto cluster1 alone.
    scoped = kind == "ClusterResourceBinding"
    name = "test-cluster-binding" if scoped else "test-binding"
    rb = binding(
        name,
        placement={"clusterAffinity": {"clusterNames": ["cluster1"]}},
        replicas=None,
        kind="ConfigMap",
        api_version="v1",
        cluster_scoped=scoped,
    )
    configmaps = {"groupVersion": "v1", "resources": [{"name": "configmaps", "kind": "ConfigMap"}]}
    clusters = [cluster(n, apis=[configmaps]) for n in ("cluster1", "cluster2")]
    got = _run(tmp_path, [*clusters, rb], f"{kind}/{name}" if scoped else f"{kind}/default/{name}")
    assert list(_placed(got)) == ["cluster1"]
    assert _condition(got) == SUCCESS


DO_SCHEDULE_BINDING = [
    # "binding with changed placement": the annotation names cluster1 only, the placement both
    (
        "binding with changed placement",
        {"clusterAffinity": {"clusterNames": ["cluster1", "cluster2"]}},
        {"annotations": {APPLIED: '{"clusterAffinity":{"clusterNames":["cluster1"]}}'}},
        {"cluster1": 1, "cluster2": 1},
    ),
    # "binding with replicas changed": Divided, 2 replicas, nothing placed yet
    (
        "binding with replicas changed",
        {"replicaScheduling": {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Weighted"}},
        {"replicas": 2, "status": {"schedulerObservedGeneration": 1}},
        {"cluster1": 1, "cluster2": 1},
    ),
    # "binding with reschedule triggered": an empty placement (and no workload: every cluster)
    ("binding with reschedule triggered", {}, {"reschedule_at": ago(1), "replicas": None}, None),
]


@pytest.mark.parametrize(
    ("case", "placement", "extra", "want"), DO_SCHEDULE_BINDING, ids=[d[0] for d in DO_SCHEDULE_BINDING]
)
def test_do_schedule_binding(tmp_path, case, placement, extra, want):
    # TestDoScheduleBinding: each binding is scheduled (its spec.clusters written anew). Upstream's
    # mock Algorithm returns fixed clusters; here the real scheduler's answer on two clusters.
    options = {"replicas": 1, **extra}
    rb = binding(placement=placement, **options)
    got = _run(tmp_path, [*_two_clusters("cluster1", "cluster2"), rb])
    if want is None:
        want = {"cluster1": None, "cluster2": None}
    assert (_placed(got), _condition(got)) == (want, SUCCESS)
    assert got["status"]["lastScheduledTime"] == NOW


# --------------------------------------------------------- pkg/scheduler/helper_test.go

M1 = {"clusterNames": ["m1"]}
FOO = {"key": "foo", "operator": "Equal", "value": "foo", "effect": "NoSchedule"}
ONE_CLUSTER = [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1}]
STATIC = divided(weights=[(["m1"], 1)])  # stands in for Duplicated below (see the test)


def _full(affinity=M1, toleration=FOO, spread=ONE_CLUSTER, scheduling=STATIC) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if affinity is not None:
        out["clusterAffinity"] = affinity
    out["clusterTolerations"] = [toleration]
    out["spreadConstraints"] = spread
    out["replicaScheduling"] = scheduling
    return out


def _terms(*terms: tuple[str, list[str]]) -> list[dict[str, Any]]:
    return [{"affinityName": name, "clusterNames": names} for name, names in terms]


WITH_TERMS = {"replicaScheduling": STATIC}
# (case, placement, applied placement (None: no annotation), observed name, changed)
PLACEMENT_CHANGED = [
    ("nil appliedPlacement", {"clusterAffinity": M1, "replicaScheduling": STATIC}, None, "", True),
    ("same placement and appliedPlacement", _full(), _full(), "", False),
    (
        "different ClusterAffinity field",
        _full(affinity=None),
        _full(affinity={"clusterNames": ["m2"]}),
        "",
        True,
    ),
    (
        "different ClusterTolerations field",
        _full(),
        _full(toleration={**FOO, "operator": "Exists"}),
        "",
        True,
    ),
    (
        "different SpreadConstraints field",
        _full(),
        _full(spread=[{**ONE_CLUSTER[0], "maxGroups": 2}]),
        "",
        True,
    ),
    ("different ReplicaScheduling field", _full(), _full(scheduling=DYNAMIC), "", True),
    (
        "different ClusterAffinities field with empty schedulerObservingAffinityName",
        {"clusterAffinities": _terms(("group1", ["m1"])), **WITH_TERMS},
        WITH_TERMS,
        "",
        True,
    ),
    (
        "update the target ClusterAffinityTerm",
        {"clusterAffinities": _terms(("group1", ["m1", "m2"])), **WITH_TERMS},
        {"clusterAffinities": _terms(("group1", ["m1"])), **WITH_TERMS},
        "group1",
        True,
    ),
    (
        "delete the target ClusterAffinityTerm",
        {"clusterAffinities": _terms(("group2", ["m2"])), **WITH_TERMS},
        {"clusterAffinities": _terms(("group1", ["m1"]), ("group2", ["m2"])), **WITH_TERMS},
        "group1",
        True,
    ),
    (
        "delete the whole ClusterAffinities",
        WITH_TERMS,
        {"clusterAffinities": _terms(("group1", ["m1"])), **WITH_TERMS},
        "group1",
        True,
    ),
    (
        "add a new ClusterAffinityTerm and don't update the target ClusterAffinityTerm",
        {"clusterAffinities": _terms(("group1", ["m1"]), ("group2", ["m1", "m2"])), **WITH_TERMS},
        {"clusterAffinities": _terms(("group1", ["m1"])), **WITH_TERMS},
        "group1",
        False,
    ),
    (
        "update a ClusterAffinityTerm and don't update the target ClusterAffinityTerm",
        {"clusterAffinities": _terms(("group1", ["m1"]), ("group2", ["m1", "m2"])), **WITH_TERMS},
        {"clusterAffinities": _terms(("group1", ["m1"]), ("group2", ["m2"])), **WITH_TERMS},
        "group1",
        False,
    ),
    (
        "delete a ClusterAffinityTerm and don't update the target ClusterAffinityTerm",
        {"clusterAffinities": _terms(("group1", ["m1"])), **WITH_TERMS},
        {"clusterAffinities": _terms(("group1", ["m1"]), ("group2", ["m2"])), **WITH_TERMS},
        "group1",
        False,
    ),
]


TWO = {"clusterAffinity": {"clusterNames": ["m1", "m2"]}, "replicaScheduling": STATIC}
# scheduler_test.go TestPlacementChanged (the same function, its own cases; cluster1 and cluster2
# spelt m1 and m2, the hub's clusters)
PLACEMENT_CHANGED += [
    ("placement changed", TWO, {**TWO, "clusterAffinity": {"clusterNames": ["m1"]}}, "", True),
    ("placement not changed", TWO, TWO, "", False),
    ("invalid applied placement string", TWO, "invalid json", "", False),
]


@pytest.mark.parametrize(
    ("case", "placement", "old", "observed", "changed"),
    PLACEMENT_CHANGED,
    ids=[p[0] for p in PLACEMENT_CHANGED],
)
def test_need_considered_placement_changed(tmp_path, case, placement, old, observed, changed):
    # Test_needConsideredPlacementChanged, through doScheduleBinding: a settled binding (its
    # replicas placed, not fresh, a Divided workload, no target being deleted) is scheduled again
    # exactly when placementChanged says so. Upstream's cases use Duplicated, which doScheduleBinding
    # always schedules; a static weight stands in for it on both sides, so the comparison is the
    # same one. The annotation is json.Marshal of the applied placement, as upstream's test makes it
    # (or, for TestPlacementChanged's "invalid applied placement string", that string).
    status = {
        "schedulerObservedGeneration": 1,
        "lastScheduledTime": ago(60),
        "conditions": [
            {
                "type": "Scheduled",
                "status": "True",
                "reason": SUCCESS[0],
                "message": SUCCESS[1],
                "lastTransitionTime": ago(60),
            }
        ],
    }
    if observed:
        status["schedulerObservingAffinityName"] = observed
    rb = binding(placement=placement, replicas=1, clusters=[("m1", 1)], status=status)
    if isinstance(old, str):  # an annotation as written
        rb["metadata"]["annotations"] = {APPLIED: old}
    elif old is not None:
        rb = applied({**rb, "spec": {**rb["spec"], "placement": old}})
        rb["spec"]["placement"] = placement
    before = rb["metadata"].get("annotations", {}).get(APPLIED)
    got = _run(tmp_path, [cluster("m1"), cluster("m2"), rb])
    after = got["metadata"]["annotations"][APPLIED]
    if changed:  # scheduled: the placement applied now
        assert (after, got["status"]["lastScheduledTime"]) == (
            applied(rb)["metadata"]["annotations"][APPLIED],
            NOW,
        )
    else:  # left alone: the generation only (already observed)
        assert (after, got["status"]["lastScheduledTime"]) == (before, ago(60))


@pytest.mark.parametrize(
    ("case", "observed", "want"),
    [
        ("empty observedName", "", "group1"),
        ("observedName can not find in affinities", "group0", "group1"),
        ("observedName can find in affinities", "group3", "group3"),
    ],
)
def test_get_affinity_index(tmp_path, case, observed, want):
    # Test_getAffinityIndex: the term the scheduler starts at (every term fits here, so it is the
    # one recorded).
    terms = _terms(("group1", ["m1"]), ("group2", ["m2"]), ("group3", ["m3"]))
    status = {"schedulerObservingAffinityName": observed} if observed else None
    rb = binding(placement={"clusterAffinities": terms}, replicas=1, status=status)
    got = _run(tmp_path, [cluster("m1"), cluster("m2"), cluster("m3"), rb])
    assert got["status"]["schedulerObservingAffinityName"] == want
    assert list(_placed(got)) == [f"m{want[-1]}"]


def test_get_condition_by_error(tmp_path):
    # Test_getConditionByError, each error class the scheduling attempt itself can return, in one
    # hub: "no error" (Success), "no cluster fit" (a FitError, spec.clusters cleared), "failed to
    # schedule" (any other error: SchedulerError), "wrapped unschedulable error" (Unschedulable).
    # The aggregated cases need a failed patch, which a run does not have.
    clusters = [cluster("m1", allocatable={"pods": "2"})]
    fits = binding("fits", placement={"replicaScheduling": DYNAMIC}, replicas=2, requests=NOTHING)
    nowhere = binding(
        "nowhere", placement={"clusterAffinity": {"clusterNames": ["m9"]}}, clusters=[("m1", 3)]
    )
    spread = {
        "replicaScheduling": DYNAMIC,
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 2}],
    }
    selecting = binding("selecting", placement=spread, replicas=1, requests=NOTHING)
    short = binding("short", placement={"replicaScheduling": DYNAMIC}, replicas=5, requests=NOTHING)
    result = solve(tmp_path, [*clusters, fits, nowhere, selecting, short], "greedy", "-o", "yaml")
    got = written(result.stdout)
    rb = "ResourceBinding/default/"
    fit_error = (
        "0/1 clusters are available: 1 cluster(s) did not match the placement cluster affinity constraint."
    )
    less = (
        "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups"
    )
    assert {name: _condition(got[rb + name]) for name in ("fits", "nowhere", "selecting", "short")} == {
        "fits": SUCCESS,
        "nowhere": ("NoClusterFit", fit_error),
        "selecting": ("SchedulerError", less),
        "short": ("Unschedulable", _not_enough(2)),
    }
    assert _placed(got[rb + "nowhere"]) == {}
    assert APPLIED in got[rb + "nowhere"]["metadata"]["annotations"]
    assert all(APPLIED not in got[rb + n]["metadata"].get("annotations", {}) for n in ("selecting", "short"))


# ----------------------- pkg/scheduler/core/spreadconstraint/select_clusters_by_region_test.go


def _regions(layout: Mapping[str, Sequence[str]]) -> list[dict[str, Any]]:
    """Clusters with the test's topology (provider P1, zone Z1), room for 40 each."""
    return [
        cluster(name, provider="P1", region=region, zones=["Z1"], allocatable={"pods": "40"})
        for region, names in layout.items()
        for name in names
    ]


def _by_region(region: tuple[int, int], clusters: tuple[int, int]) -> dict[str, Any]:
    spread = [
        {"spreadByField": "region", "minGroups": region[0], "maxGroups": region[1]},
        {"spreadByField": "cluster", "minGroups": clusters[0], "maxGroups": clusters[1]},
    ]
    return {"spreadConstraints": spread, "replicaScheduling": DYNAMIC}


def test_select_best_clusters_by_region_from_the_region_with_the_higher_score(tmp_path):
    # Test_selectBestClustersByRegion "select cluster from the region with the higher score": R1
    # scores higher (upstream gives region scores; here ClusterLocality does it: the binding holds
    # member1, so R1's clusters average 50 and R2's 0, both with room for the target).
    layout = {"R1": ["member1", "member2"], "R2": ["member3", "member4", "member5"]}
    rb = binding(
        placement=_by_region((1, 1), (2, 2)), replicas=4, requests=NOTHING, clusters=[("member1", 1)]
    )
    got = _run(tmp_path, [*_regions(layout), rb])
    assert set(_placed(got)) == {"member1", "member2"}
    assert _condition(got) == SUCCESS


def test_select_best_clusters_by_region_from_the_region_with_enough_clusters(tmp_path):
    # "select cluster from the region with enough clusters": 3 clusters wanted, only R2 has them.
    layout = {"R1": ["member1", "member2"], "R2": ["member3", "member4", "member5"]}
    rb = binding(
        placement=_by_region((1, 1), (3, 3)), replicas=3, requests=NOTHING, clusters=[("member1", 1)]
    )
    got = _run(tmp_path, [*_regions(layout), rb])
    assert (_placed(got), _condition(got)) == ({"member3": 1, "member4": 1, "member5": 1}, SUCCESS)


def test_select_best_clusters_by_region_with_enough_clusters_and_higher_score(tmp_path):
    # "select cluster from the region with enough clusters and higher score": two regions of at
    # least 4 clusters together; R1+R2 weigh most (upstream's region scores 90, 70, 80, 50 for
    # R1..R4; here the held clusters give averages 100, 33, 50, 25 in the same order); the best
    # cluster of each, then the rest in order up to 4.
    layout = {
        "R1": ["member1"],
        "R2": ["member2", "member3", "member4"],
        "R3": ["member5", "member6"],
        "R4": ["member7", "member8", "member9", "member10"],
    }
    held = [("member1", 1), ("member2", 1), ("member5", 1), ("member7", 1)]
    rb = binding(placement=_by_region((2, 2), (4, 5)), replicas=8, requests=NOTHING, clusters=held)
    got = _run(tmp_path, [*_regions(layout), rb])
    # Steady scale-up from the 2 kept (member5 and member7 are no candidates any more): 6 more
    # over four equal clusters, 2:2:1:1 by name.
    assert (_placed(got), _condition(got)) == (
        {"member1": 3, "member2": 3, "member3": 1, "member4": 1},
        SUCCESS,
    )


@pytest.mark.parametrize(
    ("case", "layout", "region", "clusters", "error"),
    [
        (
            "no enough region",
            {"R1": ["member1", "member2"], "R2": ["member3", "member4", "member5"]},
            (3, 3),
            (3, 3),
            "the number of feasible region is less than spreadConstraint.MinGroups",
        ),
        (
            "no enough clusters",
            {"R1": ["member1", "member2"], "R2": ["member3", "member4", "member5"]},
            (1, 1),
            (4, 4),
            "the number of clusters is less than the cluster spreadConstraint.MinGroups",
        ),
        (
            "no more regions to replace",
            {"R1": ["member1", "member2"]},
            (1, 1),
            (3, 4),
            "the number of clusters is less than the cluster spreadConstraint.MinGroups",
        ),
    ],
)
def test_select_best_clusters_by_region_errors(tmp_path, case, layout, region, clusters, error):
    # Test_selectBestClustersByRegion's error cases: SchedulerError, nothing patched.
    rb = binding(placement=_by_region(region, clusters), replicas=2, requests=NOTHING)
    got = _run(tmp_path, [*_regions(layout), rb])
    assert _condition(got) == ("SchedulerError", f"failed to select clusters: {error}")
    assert "clusters" not in got["spec"] and APPLIED not in got["metadata"].get("annotations", {})


# ------------------------------------------------ test/e2e/suites/base/scheduling_test.go

E2E_CLUSTERS = ("member1", "member2", "member3")  # the e2e suite's members, labelled location=CHN


def _e2e_clusters() -> list[dict[str, Any]]:
    return [cluster(n, {"location": "CHN"}, allocatable={"pods": "110"}) for n in E2E_CLUSTERS]


def _rescaled(tmp_path, placement: Mapping[str, Any], first: int, then: int) -> tuple[dict, dict]:
    """A Deployment's binding scheduled with `first` replicas, the result applied, then scaled to
    `then` (the detector bumps the generation) and scheduled again: both results."""
    rb = binding(
        placement={"clusterAffinity": {"clusterNames": list(E2E_CLUSTERS)}, **placement}, replicas=first
    )
    before = _run(tmp_path, [*_e2e_clusters(), rb])
    scaled = json.loads(json.dumps(before))
    scaled["spec"]["replicas"] = then
    scaled["metadata"]["generation"] = rb["metadata"]["generation"] + 1  # -o yaml leaves it out
    return before, _run(tmp_path, [*_e2e_clusters(), scaled])


@pytest.mark.parametrize("groups", [1, 2])
def test_e2e_deployment_propagation_with_label_and_group_constraints(tmp_path, groups):
    # "Deployment propagation with label and group constraints testing": location=CHN and a
    # cluster spread of exactly `groups`: that many target clusters, Scheduled true.
    placement = {
        "clusterAffinity": {"labelSelector": {"matchLabels": {"location": "CHN"}}},
        "spreadConstraints": [{"spreadByField": "cluster", "maxGroups": groups, "minGroups": groups}],
    }
    rb = binding(placement=placement, replicas=3)
    got = _run(tmp_path, [*_e2e_clusters(), cluster("elsewhere", allocatable={"pods": "110"}), rb])
    assert len(_placed(got)) == groups and set(_placed(got)) <= set(E2E_CLUSTERS)
    assert set(_placed(got).values()) == {3} and _condition(got) == SUCCESS


@pytest.mark.parametrize(
    ("case", "placement", "first", "then", "want_first", "want_then"),
    [
        (
            "replicas duplicated testing (when rescheduling)",
            {"replicaScheduling": DUPLICATED},
            3,
            2,
            (3, 3, 3),
            (2, 2, 2),
        ),
        (
            "replicas divided and weighted testing, WeightPreference nil",
            {"replicaScheduling": divided()},
            6,
            9,
            (2, 2, 2),
            (3, 3, 3),
        ),
        (
            "replicas divided and weighted testing, WeightPreference isn't nil",
            {"replicaScheduling": _weights(1, 2, 3)},
            6,
            12,
            (1, 2, 3),
            (2, 4, 6),
        ),
    ],
)
def test_e2e_replica_scheduling_strategy(tmp_path, case, placement, first, then, want_first, want_then):
    # [ReplicaScheduling] ReplicaSchedulingStrategy testing, each case and its "when
    # rescheduling" twin (the replicas changed after the first result is applied).
    before, after = _rescaled(tmp_path, placement, first, then)
    assert _placed(before) == dict(zip(E2E_CLUSTERS, want_first, strict=True))
    assert _placed(after) == dict(zip(E2E_CLUSTERS, want_then, strict=True))
    assert _condition(after) == SUCCESS and after["status"]["schedulerObservedGeneration"] == 2


# ----------------------------------------- test/e2e/suites/base/clusteraffinities_test.go


def _step(tmp_path, objects: list[dict[str, Any]], now: str) -> list[dict[str, Any]]:
    """One run at `now`, its -o yaml applied to the hub: the hub after."""
    result = solve_cli(tmp_path, objects, "--now", now, "--mode", "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    return hub_applied(objects, [o for o in yaml.safe_load_all(result.stdout) if o])


def _labelled(objects: list[dict[str, Any]], name: str, labels: Mapping[str, str]) -> list[dict[str, Any]]:
    out = json.loads(json.dumps(objects))
    for obj in out:
        if obj["kind"] == "Cluster" and obj["metadata"]["name"] == name:
            obj["metadata"].setdefault("labels", {}).update(labels)
    return out


def _the_binding(objects: list[dict[str, Any]]) -> dict[str, Any]:
    return next(o for o in objects if o["kind"] == "ResourceBinding")


def test_e2e_cluster_affinities_reschedule_from_the_first_cluster_affinity(tmp_path):
    # [ClusterAffinities] "schedule with multi clusterAffinity": "propagate deployment and then
    # update the cluster label" and "reschedule from the first cluster affinity". A Duplicated
    # Deployment (3 replicas) with group1 (member1's label) and group2 (member2's): on member1
    # under group1; member1 relabelled not-ok, it moves to member2 under group2; member1 ok again,
    # a new attempt stays on member2 (never back on its own); a WorkloadRebalancer (its
    # rescheduleTriggeredAt) brings it back to member1 under group1.
    one, two = "member1-key", "member2-key"
    terms = [
        {"affinityName": "group1", "labelSelector": {"matchLabels": {one: "ok"}}},
        {"affinityName": "group2", "labelSelector": {"matchLabels": {two: "ok"}}},
    ]
    clusters = [cluster("member1", {one: "ok"}), cluster("member2", {two: "ok"}), cluster("member3")]
    hub = _step(tmp_path, [*clusters, binding(placement={"clusterAffinities": terms})], ago(40))
    rb = _the_binding(hub)
    assert (_placed(rb), rb["status"]["schedulerObservingAffinityName"]) == ({"member1": 3}, "group1")

    hub = _step(tmp_path, _labelled(hub, "member1", {one: "not-ok"}), ago(30))
    rb = _the_binding(hub)
    assert (_placed(rb), rb["status"]["schedulerObservingAffinityName"]) == ({"member2": 3}, "group2")
    assert rb["status"]["lastScheduledTime"] == ago(30)

    hub = _step(tmp_path, _labelled(hub, "member1", {one: "ok"}), ago(20))
    rb = _the_binding(hub)
    assert (_placed(rb), rb["status"]["schedulerObservingAffinityName"]) == ({"member2": 3}, "group2")
    assert rb["status"]["lastScheduledTime"] == ago(20)  # scheduled again, in group2

    _the_binding(hub)["spec"]["rescheduleTriggeredAt"] = ago(15)  # the rebalancer's creation time
    hub = _step(tmp_path, hub, ago(10))
    rb = _the_binding(hub)
    assert (_placed(rb), rb["status"]["schedulerObservingAffinityName"]) == ({"member1": 3}, "group1")
    assert _condition(rb) == SUCCESS


# ------------------------------------------- test/e2e/suites/base/spread_by_region_test.go


def test_e2e_multiple_region_deployment(tmp_path):
    # "multiple region deployment testing": Duplicated, cluster 1..1 and region 2..2 over two
    # clusters with regions "2" and "1" (the third has none): one cluster per region, so both
    # (the region path returns more clusters than the cluster constraint's maxGroups); then the
    # policy (so the binding's placement) changes to region 1..1: one cluster.
    def spread(regions: int) -> list[dict[str, Any]]:
        return [
            {"spreadByField": "cluster", "maxGroups": 1, "minGroups": 1},
            {"spreadByField": "region", "maxGroups": regions, "minGroups": regions},
        ]

    clusters = [cluster("member1", region="2"), cluster("member2", region="1"), cluster("member3")]
    rb = binding(placement={"replicaScheduling": DUPLICATED, "spreadConstraints": spread(2)})
    hub = _step(tmp_path, [*clusters, rb], ago(20))
    assert _placed(_the_binding(hub)) == {"member1": 3, "member2": 3}
    _the_binding(hub)["spec"]["placement"]["spreadConstraints"] = spread(1)
    _the_binding(hub)["metadata"]["generation"] = 2
    hub = _step(tmp_path, hub, ago(10))
    assert len(_placed(_the_binding(hub))) == 1 and _condition(_the_binding(hub)) == SUCCESS


# ------------------------------------------- test/e2e/suites/base/tainttoleration_test.go


def test_e2e_deployment_with_cluster_tolerations(tmp_path):
    # "deployment with cluster tolerations testing": every member tainted
    # cluster-toleration.karmada.io=<its name>:NoSchedule, the policy tolerating member1's value:
    # scheduled on member1 alone.
    key = "cluster-toleration.karmada.io"
    clusters = [cluster(n, taints=[{"key": key, "value": n, "effect": "NoSchedule"}]) for n in E2E_CLUSTERS]
    placement = {
        "clusterAffinity": {"clusterNames": list(E2E_CLUSTERS)},
        "clusterTolerations": [{"key": key, "operator": "Equal", "value": "member1", "effect": "NoSchedule"}],
    }
    got = _run(tmp_path, [*clusters, binding(placement=placement)])
    assert (_placed(got), _condition(got)) == ({"member1": 3}, SUCCESS)


# ---------------------------------------------- test/e2e/suites/base/rescheduling_test.go


def test_e2e_divided_deployment_reschedules_when_a_cluster_unjoins(tmp_path):
    # "For Divided ReplicaSchedulingType, resource should reschedule when unJoin cluster": 10
    # replicas, Divided and Weighted without a preference (equal static weights); a newly joined
    # cluster gets some; once it unjoins (its Cluster being deleted), they go to the others.
    clusters = [cluster(n) for n in (*E2E_CLUSTERS, "member-e2e")]
    rb = binding(placement={"replicaScheduling": divided()}, replicas=10)
    hub = _step(tmp_path, [*clusters, rb], ago(20))
    assert _placed(_the_binding(hub)) == {"member-e2e": 3, "member1": 3, "member2": 2, "member3": 2}
    for obj in hub:
        if obj["metadata"]["name"] == "member-e2e":
            obj["metadata"]["deletionTimestamp"] = ago(15)
    hub = _step(tmp_path, hub, ago(10))
    assert _placed(_the_binding(hub)) == {"member1": 4, "member2": 3, "member3": 3}
    assert _condition(_the_binding(hub)) == SUCCESS


def test_e2e_change_labels_to_testing_deployment_reschedule(tmp_path):
    # "change labels to testing deployment reschedule(PropagationPolicy)": Duplicated, the
    # cluster with label ok; relabelled not_ok the deployment leaves it (NoClusterFit clears
    # spec.clusters); ok again, it comes back.
    key = "cluster-e2e"
    placement = {"clusterAffinity": {"labelSelector": {"matchLabels": {key: "ok"}}}}
    clusters = [cluster("member1", {key: "ok"}), cluster("member2"), cluster("member3")]
    hub = _step(tmp_path, [*clusters, binding(placement=placement)], ago(30))
    assert _placed(_the_binding(hub)) == {"member1": 3}
    hub = _step(tmp_path, _labelled(hub, "member1", {key: "not_ok"}), ago(20))
    assert _placed(_the_binding(hub)) == {}
    fit_error = (
        "0/3 clusters are available: 3 cluster(s) did not match the placement cluster affinity constraint."
    )
    assert _condition(_the_binding(hub)) == ("NoClusterFit", fit_error)
    hub = _step(tmp_path, _labelled(hub, "member1", {key: "ok"}), ago(10))
    assert (_placed(_the_binding(hub)), _condition(_the_binding(hub))) == ({"member1": 3}, SUCCESS)


@pytest.mark.parametrize(
    ("case", "present", "observed", "want", "term"),
    [
        (
            "successful scheduling with first affinity",
            ("cluster1", "cluster2"),
            None,
            "cluster1",
            "affinity1",
        ),
        (
            "without explicit rescheduling resumes from observed affinity",
            ("cluster1", "cluster2"),
            "affinity2",
            "cluster2",
            "affinity2",
        ),
        ("successful scheduling with second affinity", ("cluster2",), None, "cluster2", "affinity2"),
    ],
)
def test_schedule_cluster_resource_binding_with_cluster_affinities(
    tmp_path, case, present, observed, want, term
):
    # TestScheduleClusterResourceBindingWithClusterAffinities: the ClusterResourceBinding twin
    # of the ResourceBinding cases above (a ClusterRole: no workload, no replicas field).
    status = {"schedulerObservingAffinityName": observed} if observed else None
    crb = binding(
        "crb",
        placement={"clusterAffinities": TERMS},
        replicas=None,
        kind="ClusterRole",
        api_version="rbac.authorization.k8s.io/v1",
        status=status,
        cluster_scoped=True,
    )
    rbac = {
        "groupVersion": "rbac.authorization.k8s.io/v1",
        "resources": [{"name": "clusterroles", "kind": "ClusterRole"}],
    }
    got = _run(tmp_path, [*(cluster(n, apis=[rbac]) for n in present), crb], "ClusterResourceBinding/crb")
    assert (_placed(got), _condition(got)) == ({want: None}, SUCCESS)
    assert got["status"]["schedulerObservingAffinityName"] == term
    assert got["metadata"]["annotations"][APPLIED] == TERMS_ANNOTATION


@pytest.mark.parametrize(
    ("case", "first", "then"),
    [
        (
            "schedule change from clusterAffinity to clusterAffinities",
            {"clusterAffinity": {"clusterNames": ["member1"]}},
            {"clusterAffinities": [{"affinityName": "group1", "clusterNames": ["member2"]}]},
        ),
        (
            "schedule change from clusterAffinities to clusterAffinity",
            {"clusterAffinities": [{"affinityName": "group1", "clusterNames": ["member1"]}]},
            {"clusterAffinity": {"clusterNames": ["member2"]}},
        ),
    ],
)
def test_e2e_schedule_change_between_cluster_affinity_and_affinities(tmp_path, case, first, then):
    # [ClusterAffinities] "propagate deployment and then update the cluster label" in the two
    # contexts where the policy changes its affinity's form: on member1, then on member2. The
    # ClusterAffinity path leaves an observed term's name as it was (only the ClusterAffinities
    # path patches it).
    hub = _step(tmp_path, [*_e2e_clusters(), binding(placement=first)], ago(20))
    assert _placed(_the_binding(hub)) == {"member1": 3}
    _the_binding(hub)["spec"]["placement"] = then
    _the_binding(hub)["metadata"]["generation"] = 2
    hub = _step(tmp_path, hub, ago(10))
    rb = _the_binding(hub)
    assert (_placed(rb), _condition(rb)) == ({"member2": 3}, SUCCESS)
    assert rb["status"].get("schedulerObservingAffinityName") == "group1"


# ------------------------------- pkg/scheduler/core/spreadconstraint/group_clusters_test.go


@pytest.mark.parametrize(
    ("case", "scores1", "available1", "scores2", "available2", "winner"),
    [
        (
            "id 1: clusters1 meets the replicas on more clusters",
            (100, 100, 0, 0, 0),
            (30,) * 5,
            (100,) * 5,
            (30, 30, 30, 10, 10),
            "a1",
        ),
        (
            "id 2: as many clusters meet them, clusters2 scores higher",
            (100, 100, 0, 0, 0),
            (30, 30, 30, 10, 10),
            (100,) * 5,
            (30, 30, 30, 10, 10),
            "b1",
        ),
    ],
)
def test_calc_group_score_for_duplicated(tmp_path, case, scores1, available1, scores2, available2, winner):
    # Test_CalcGroupScore's Duplicated cases (20 replicas), as two regions that one region
    # constraint chooses between: the group scoring higher gives the one cluster selected. A
    # score of 100 is ClusterLocality's (the binding holds the cluster, with 1 replica), and a
    # cluster's available replicas are its free pods plus what the binding holds there. (Ids 3, 4
    # and 6 score groups under minGroups 2, where both groups are selected; id 5 is static
    # weights, which ignore spread constraints: none of them decides a selection alone.)
    clusters, held = [], []
    for region, prefix, scores, available in (
        ("R1", "a", scores1, available1),
        ("R2", "b", scores2, available2),
    ):
        for i, (score, room) in enumerate(zip(scores, available, strict=True), 1):
            name = f"{prefix}{i}"
            holds = 1 if score == 100 else 0
            clusters.append(cluster(name, region=region, allocatable={"pods": str(room - holds)}))
            held += [(name, 1)] * holds
    spread = [
        {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
        {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
    ]
    placement = {"replicaScheduling": DUPLICATED, "spreadConstraints": spread}
    rb = binding(placement=placement, replicas=20, requests=NOTHING, clusters=held)
    got = _run(tmp_path, [*clusters, rb])
    assert (_placed(got), _condition(got)) == ({winner: 20}, SUCCESS)


# ------------------------------------ pkg/scheduler/core/spreadconstraint/select_clusters_test.go

# TestSelectBestClusters' clusters give scores 60, 40, 30, 20, which the in-tree plugins cannot
# (ClusterLocality: 100 or 0); here member2 and member4 are held (100, one replica each) and the
# available replicas (free pods plus the one held) are upstream's: member4 50, member2 60,
# member3 80, member1 40. The canonical order is then member2, member4, member3, member1.
SELECT_FREE = {"member1": 40, "member2": 59, "member3": 80, "member4": 49}
SELECT_HELD = [("member2", 1), ("member4", 1)]


def _select(tmp_path, scheduling: Mapping[str, Any], replicas: int, groups: tuple[int, int]) -> dict:
    spread = [{"spreadByField": "cluster", "minGroups": groups[0], "maxGroups": groups[1]}]
    placement = {"spreadConstraints": spread, "replicaScheduling": scheduling}
    rb = binding(placement=placement, replicas=replicas, requests=NOTHING, clusters=SELECT_HELD)
    return _run(tmp_path, [*_with_pods(SELECT_FREE), rb])


def test_select_best_clusters_by_cluster_score(tmp_path):
    # "select clusters by cluster score": the first two in order when they have room enough.
    got = _select(tmp_path, DYNAMIC, 100, (1, 2))
    assert set(_placed(got)) == {"member2", "member4"} and _condition(got) == SUCCESS


def test_select_best_clusters_and_satisfy_available_resources(tmp_path):
    # "select clusters by cluster score and satisfy available resources": 120 asked, the first two
    # hold 110: the last of them is swapped for the roomiest of the rest with more (member3).
    got = _select(tmp_path, DYNAMIC, 120, (1, 2))
    assert set(_placed(got)) == {"member2", "member3"} and _condition(got) == SUCCESS


def test_select_best_clusters_ignoring_resources_when_duplicated(tmp_path):
    # "... ignore available resources when scheduling strategy is duplicated": the first two.
    got = _select(tmp_path, DUPLICATED, 120, (1, 2))
    assert (_placed(got), _condition(got)) == ({"member2": 120, "member4": 120}, SUCCESS)


def test_select_best_clusters_ignoring_spread_with_static_weights(tmp_path):
    # "... ignore available resources when scheduling strategy is static weight": every cluster
    # is selected (static weights ignore the spread constraint); member1 alone has a weight.
    got = _select(tmp_path, divided(weights=[(["member1"], 2)]), 120, (1, 2))
    assert (_placed(got), _condition(got)) == ({"member1": 120}, SUCCESS)


@pytest.mark.parametrize(
    ("case", "replicas", "groups", "error"),
    [
        (
            "select clusters by cluster score and insufficient resources",
            200,
            (1, 2),
            "no enough resource when selecting 2 clusters",
        ),
        (
            "select clusters by cluster score and exceeded the number of available clusters.",
            30,
            (7, 7),
            "the number of feasible clusters is less than spreadConstraint.MinGroups",
        ),
    ],
)
def test_select_best_clusters_errors(tmp_path, case, replicas, groups, error):
    got = _select(tmp_path, DYNAMIC, replicas, groups)
    assert _condition(got) == ("SchedulerError", f"failed to select clusters: {error}")
    assert _placed(got) == dict(SELECT_HELD)


# ---------------------------------------- test/e2e/suites/base/workloadrebalancer_test.go


@pytest.mark.parametrize(
    ("case", "scheduling", "first"),
    [
        ("reschedule when policy is dynamic weight schedule type", DYNAMIC, {"member1": 2, "member2": 1}),
        (
            "reschedule when policy is static weight schedule type",
            _weights(2, 1),
            {"member1": 2, "member2": 1},
        ),
    ],
)
def test_e2e_workload_rebalancer(tmp_path, case, scheduling, first):
    # A Deployment (3 replicas) on member1 and member2. Step 2: member1 tainted NoExecute, the
    # taint manager evicts it (spec.clusters without it, an eviction task): all on member2.
    # Step 3: the taint gone (and the eviction done), a WorkloadRebalancer stamps
    # rescheduleTriggeredAt: back on both.
    clusters = [cluster(n, allocatable={"pods": "110"}) for n in ("member1", "member2")]
    placement = {"clusterAffinity": {"clusterNames": ["member1", "member2"]}, "replicaScheduling": scheduling}
    hub = _step(tmp_path, [*clusters, binding(placement=placement)], ago(40))
    assert _placed(_the_binding(hub)) == first

    taint = {"key": "workload-rebalancer-test", "effect": "NoExecute"}
    hub[0]["spec"]["taints"] = [taint]
    rb = _the_binding(hub)
    rb["spec"]["clusters"] = [c for c in rb["spec"]["clusters"] if c["name"] != "member1"]
    rb["spec"]["gracefulEvictionTasks"] = [
        {"fromCluster": "member1", "producer": "TaintManager", "reason": "TaintUntolerated"}
    ]
    hub = _step(tmp_path, hub, ago(30))
    assert _placed(_the_binding(hub)) == {"member2": 3}

    del hub[0]["spec"]["taints"]
    rb = _the_binding(hub)
    del rb["spec"]["gracefulEvictionTasks"]
    rb["spec"]["rescheduleTriggeredAt"] = ago(20)
    hub = _step(tmp_path, hub, ago(10))
    rb = _the_binding(hub)
    assert set(_placed(rb)) == {"member1", "member2"} and _condition(rb) == SUCCESS
    assert rb["status"]["lastScheduledTime"] == ago(10)


def test_do_schedule_binding_divided_without_a_preference(tmp_path):
    # TestDoScheduleBinding "binding with replicas changed" as upstream writes the binding: Divided
    # with no division preference (the policy webhook would have set Weighted; its mock Algorithm
    # answers anyway). The real AssignReplicas has no strategy for it: a SchedulerError, nothing
    # patched but the condition.
    placement = {"replicaScheduling": {"replicaSchedulingType": "Divided"}}
    rb = binding(placement=placement, replicas=2, status={"schedulerObservedGeneration": 1})
    got = _run(tmp_path, [*_two_clusters("cluster1", "cluster2"), rb])
    unsupported = (
        "unsupported replica scheduling strategy, replicaSchedulingType: Divided, "
        "replicaDivisionPreference: , please try another scheduling strategy"
    )
    assert _condition(got) == ("SchedulerError", f"failed to assign replicas: {unsupported}")
    assert "clusters" not in got["spec"] and APPLIED not in got["metadata"].get("annotations", {})


# ------------------------------------------------------ pkg/estimator/client/general_test.go


def _estimate(tmp_path, c: dict[str, Any], requests: Mapping[str, str] | None) -> int:
    """The general estimator's answer for the cluster, read where upstream writes it: a dynamic
    binding asking for more than any cluster holds is Unschedulable, its message naming the sum."""
    rb = binding(placement={"replicaScheduling": DYNAMIC}, replicas=10_000, requests=requests)
    reason, message = _condition(_run(tmp_path, [c, rb]))
    assert reason == "Unschedulable", message
    prefix = "failed to assign replicas: failed to scale up: Clusters available replicas "
    return int(message.removeprefix(prefix).split()[0])


def _summarised(summary: Mapping[str, Any] | None, **spec: Any) -> dict[str, Any]:
    c = cluster("member1")
    if summary is not None:
        c["status"]["resourceSummary"] = dict(summary)
    c["spec"].update(spec)
    return c


@pytest.mark.parametrize(
    ("case", "summary", "requests", "want"),
    [
        ("nil resource summary", None, {"cpu": "1"}, 0),
        ("no allowed pods", {"allocatable": {"pods": "10"}, "allocated": {"pods": "10"}}, {"cpu": "1"}, 0),
        ("nil replica requirements", {"allocatable": {"pods": "10"}}, None, 10),
        (
            "basic resource estimation",
            {
                "allocatable": {"pods": "100", "cpu": "4", "memory": "8Gi"},
                "allocated": {"pods": "20", "cpu": "1", "memory": "2Gi"},
            },
            {"cpu": "500m", "memory": "1Gi"},
            6,
        ),
    ],
)
def test_max_available_replicas_general(tmp_path, case, summary, requests, want):
    # TestMaxAvailableReplicasGeneral (its cases without assumed workloads: the
    # SchedulingOvercommitProtection gate is off by default).
    assert _estimate(tmp_path, _summarised(summary), requests) == want


def _graded(*grades: Mapping[str, tuple[str, str]]) -> list[dict[str, Any]]:
    """Resource models, one per grade: {resource: (min, max)}; the last max is MaxInt64, as
    ValidateClusterResourceModels requires (upstream's unit tests build Clusters unvalidated)."""
    out = []
    for g, ranges in enumerate(grades):
        last = g == len(grades) - 1
        out.append(
            {
                "grade": g,
                "ranges": [
                    {"name": name, "min": low, "max": str(INT64) if last else high}
                    for name, (low, high) in ranges.items()
                ],
            }
        )
    return out


CPU_GRADES = _graded({"cpu": ("0", "1")}, {"cpu": ("1", "2")}, {"cpu": ("2", "4")})
CPU_MEMORY_GRADES = _graded(
    {"cpu": ("0", "1"), "memory": ("0", "1Gi")},
    {"cpu": ("1", "2"), "memory": ("1Gi", "2Gi")},
    {"cpu": ("2", "4"), "memory": ("2Gi", "4Gi")},
)
ONE_EACH = [{"grade": 0, "count": 1}, {"grade": 1, "count": 1}, {"grade": 2, "count": 1}]


@pytest.mark.parametrize(
    ("case", "models", "modelings", "requests", "want"),
    [
        ("Partially compliant grades", CPU_GRADES, ONE_EACH, {"cpu": "1.5"}, 1),
        ("No compliant grades", CPU_GRADES, ONE_EACH, {"cpu": "3"}, 0),
        ("Multi resource request", CPU_MEMORY_GRADES, ONE_EACH, {"cpu": "1", "memory": "1.5Gi"}, 1),
        ("request exceeds highest grade", CPU_MEMORY_GRADES, ONE_EACH, {"cpu": "1", "memory": "2.5Gi"}, 0),
        (
            "TestMaxAvailableReplicasGeneralWithResourceModels, without assumed workloads",
            _graded({"cpu": ("0", "1")}, {"cpu": ("1", "2")}),
            [{"grade": 0, "count": 0}, {"grade": 1, "count": 3}],
            {"cpu": "500m"},
            6,
        ),
    ],
)
def test_get_maximum_replicas_based_on_resource_models(tmp_path, case, models, modelings, requests, want):
    # TestGetMaximumReplicasBasedOnResourceModels through the general estimator: virtual nodes of
    # each grade's minimum, one replica set after another. The summary also reports pods (100:
    # without them the estimator answers 0 before it looks at the models) and, for the last case,
    # upstream's 3 cpu.
    summary = {"allocatable": {"pods": "100", "cpu": "3"}, "allocatableModelings": modelings}
    c = _summarised(summary, resourceModels=models)
    assert _estimate(tmp_path, c, requests) == want
