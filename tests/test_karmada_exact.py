"""Greedy's corners of upstream (karmada-io/karmada v1.19) that the first round left: each case a
whole hub through `placement-solver solve --mode greedy`, citing the upstream code path.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.fixtures.karmada import DUPLICATED, applied, binding, cluster, divided, solve, written

KEY = "ResourceBinding/default/rb"


def _run(tmp_path, objects) -> dict[str, Any]:
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert result.exit_code == 0, result.output
    return written(result.stdout)[KEY]


def _placed(obj: dict[str, Any]) -> dict[str, int | None]:
    return {c["name"]: c.get("replicas") for c in obj["spec"].get("clusters") or []}


def _condition(obj: dict[str, Any]) -> tuple[str, str]:
    (scheduled,) = [c for c in obj["status"]["conditions"] if c["type"] == "Scheduled"]
    return scheduled["reason"], scheduled["message"]


# ------------------------- a non-workload under a Divided placement (spreadconstraint package)


@pytest.mark.parametrize(
    ("scheduling", "message"),
    [
        # needReplicas -1 (shouldIgnoreAvailableResource): Clusters[:0], then AssignReplicas
        (DUPLICATED, "failed to assign replicas: no clusters available to schedule"),
        # needReplicas = spec.replicas (0): selectClustersByAvailableResource returns the empty
        # slice, which selectBestClustersByCluster reports
        (divided("Aggregated"), "failed to select clusters: no enough resource when selecting 0 clusters"),
    ],
)
def test_non_workload_with_cluster_max_groups_zero(tmp_path, scheduling, message):
    placement = {
        "replicaScheduling": scheduling,
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1}],
    }
    rb = binding(placement=placement, replicas=0)
    got = _run(tmp_path, [cluster("a"), cluster("b"), rb])
    assert _condition(got) == ("SchedulerError", message)


@pytest.mark.parametrize(("scheduling", "want"), [(DUPLICATED, "a1"), (divided("Aggregated"), "b1")])
def test_non_workload_region_group_score_follows_the_placement(tmp_path, scheduling, want):
    # calcGroupScore: Duplicated scores a region 1000 per cluster with room for spec.replicas (0:
    # every one) plus their mean locality score: r1 (3 clusters) 3000 beats r2 (b1, held) 1100.
    # Divided aims at ceil(0 / minGroups) = 0 replicas: the first cluster covers it, so a region
    # scores its first cluster's locality score: r2 100 beats r1 0.
    placement = {
        "replicaScheduling": scheduling,
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
        ],
    }
    clusters = [cluster(name, region="r1") for name in ("a1", "a2", "a3")] + [cluster("b1", region="r2")]
    rb = binding(placement=placement, replicas=0, clusters=["b1"])
    assert _placed(_run(tmp_path, [*clusters, rb])) == {want: None}


# ------------------------------------------------- negative replicas (the CRD's int32, no minimum)


def _free(names, pods="10"):
    return [cluster(name, allocatable={"pods": pods}) for name in names]


def test_negative_replicas_without_requirements_go_on_every_cluster(tmp_path):
    # IsWorkload is false (replicas not above 0), so the binding is scheduled as duplicated, and
    # AssignReplicas divides nothing (replicas not above 0, no replicaRequirements): every
    # selected cluster, no replicas field.
    rb = binding(placement={"replicaScheduling": divided("Aggregated")}, replicas=-3)
    got = _run(tmp_path, [*_free(["a", "b"]), rb])
    assert _placed(got) == {"a": None, "b": None}
    assert _condition(got)[0] == "Success"


@pytest.mark.parametrize(
    "scheduling",
    [DUPLICATED, divided(), divided(dynamic="AvailableReplicas"), divided("Aggregated")],
    ids=["duplicated", "static", "dynamic", "aggregated"],
)
def test_negative_replicas_with_requirements_place_nothing(tmp_path, scheduling):
    # A workload (replicaRequirements): Duplicated gives each cluster -3, which
    # removeZeroReplicasCluster drops; Webster hands out no seat for a count below 1 (static),
    # and a dynamic division scales down (0 assigned > -3) over nothing: spec.clusters empty.
    rb = binding(placement={"replicaScheduling": scheduling}, replicas=-3, requests={"cpu": "100m"})
    a = cluster("a", allocatable={"pods": "10", "cpu": "4"})
    got = _run(tmp_path, [a, rb])
    assert _placed(got) == {}
    assert _condition(got)[0] == "Success"


def test_negative_current_replicas_count_in_the_scale_up(tmp_path):
    # spec.clusters a: -2, replicas 3 (Divided: 3 != -2, rescheduled): scale up by 3 - (-2) = 5
    # over a's and b's room (10 each, dynamic weight): 3 : 2 by name... merged with a's -2.
    rb = binding(
        placement={"replicaScheduling": divided(dynamic="AvailableReplicas")},
        replicas=3,
        requests={"cpu": "1"},
        clusters=[("a", -2)],
    )
    clusters = [cluster(name, allocatable={"pods": "10", "cpu": "10"}) for name in ("a", "b")]
    got = _run(tmp_path, [*clusters, rb])
    assert _placed(got) == {"a": 1, "b": 2}


def test_negative_component_replicas_are_read(tmp_path):
    rb = binding(placement={"replicaScheduling": DUPLICATED}, replicas=None)
    rb["spec"]["components"] = [
        {"name": "jobmanager", "replicas": -1, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}},
        {"name": "taskmanager", "replicas": 2, "replicaRequirements": {"resourceRequest": {"cpu": "1"}}},
    ]
    got = _run(tmp_path, [*_free(["a"]), rb])
    assert _placed(got) == {"a": None}


def test_one_component_without_replicas_goes_on_every_cluster(tmp_path):
    # IsWorkload counts the component (so a Divided binding is not always rescheduled), but
    # AssignReplicas divides only replicas above 0 or replicaRequirements: every cluster.
    rb = binding(placement={"replicaScheduling": divided("Aggregated")}, replicas=0, clusters=[("a", 1)])
    rb["spec"]["components"] = [{"name": "main", "replicas": 0}]
    got = _run(tmp_path, [*_free(["a", "b"]), rb])
    assert _placed(got) == {"a": None, "b": None}


INT32 = 2**31 - 1


def test_current_replicas_sum_in_int32(tmp_path):
    # assignByDynamicStrategy: assignedReplicas = GetSumOfReplicas (int32): 2147483647 + 2 wraps
    # to -2147483647, below 5: a scale up by 5 - (-2147483647), which wraps to -2147483644:
    # Webster hands out nothing and the merge keeps spec.clusters as they are. Summed exactly it
    # would be a scale down to 5 (all on a).
    rb = binding(
        placement={"replicaScheduling": divided(dynamic="AvailableReplicas")},
        replicas=5,
        requests={"cpu": "1"},
        clusters=[("a", INT32), ("b", 2)],
    )
    clusters = [cluster(name, allocatable={"pods": "10", "cpu": "10"}) for name in ("a", "b")]
    got = _run(tmp_path, [*clusters, rb])
    assert (_placed(got), _condition(got)[0]) == ({"a": INT32, "b": 2}, "Success")


def test_replicas_changed_compares_the_int32_sum(tmp_path):
    # IsBindingReplicasChanged: 2147483647 + 1 wraps to -2147483648, the binding's replicas: not
    # changed, so the decision tree only records the generation (the placement is as applied).
    rb = applied(
        binding(
            placement={"replicaScheduling": divided(dynamic="AvailableReplicas")},
            replicas=-(2**31),
            requests={"cpu": "1"},
            clusters=[("a", INT32), ("b", 1)],
            generation=2,
            status={"schedulerObservedGeneration": 1},
        )
    )
    clusters = [cluster(name, allocatable={"pods": "10", "cpu": "10"}) for name in ("a", "b")]
    got = _run(tmp_path, [*clusters, rb])
    assert _placed(got) == {"a": INT32, "b": 1}
    assert got["status"] == {"schedulerObservedGeneration": 2}


def test_fresh_mode_adds_every_entry_of_a_cluster_listed_twice(tmp_path):
    # dynamicFreshScale adds each spec.clusters entry to its cluster's room (the inner loop breaks,
    # the outer goes on): a (room 1) listed twice with 3 has 7, b 5: Aggregated's prefix for 6 is
    # a alone. Counting a's first entry only (4), b would lead and both be used.
    rb = binding(
        placement={"replicaScheduling": divided("Aggregated")},
        replicas=6,
        requests={"cpu": "1"},
        clusters=[("a", 3), ("a", 3)],
        reschedule_at="2026-01-02T00:00:00Z",
        status={"lastScheduledTime": "2026-01-01T00:00:00Z"},
    )
    clusters = [
        cluster("a", allocatable={"pods": "1", "cpu": "9"}),
        cluster("b", allocatable={"pods": "5", "cpu": "9"}),
    ]
    assert _placed(_run(tmp_path, [*clusters, rb])) == {"a": 6}


# --------------------------- a null item in a Cluster's lists: Go's zero value, as decoded upstream


def test_a_null_zone_is_an_empty_zone(tmp_path):
    # Zones [""]: not empty, so the SpreadConstraint filter lets the cluster through a zone spread
    # (b, without zones, fails it).
    placement = {
        "replicaScheduling": DUPLICATED,
        "spreadConstraints": [
            {"spreadByField": "zone", "minGroups": 1, "maxGroups": 1},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 2},
        ],
    }
    a = cluster("a")
    a["spec"]["zones"] = [None]
    rb = binding(placement=placement, replicas=1)
    assert _placed(_run(tmp_path, [a, cluster("b"), rb])) == {"a": 1}


def test_a_null_resource_model_is_grade_zero_without_ranges(tmp_path):
    a = cluster("a", allocatable={"pods": "5"}, modelings=[{"grade": 0, "count": 1}])
    a["spec"]["resourceModels"] = [None]
    rb = binding(placement={"replicaScheduling": divided("Aggregated")}, replicas=2)
    assert _placed(_run(tmp_path, [a, rb])) == {"a": 2}


def test_a_null_model_range_is_refused_as_its_zero_value(tmp_path):
    # ResourceModelRange{} runs from 0 to 0: ValidateClusterResourceModels' own message.
    a = cluster("a", models=[{"grade": 0, "ranges": [None]}])
    result = solve(tmp_path, [a, binding(placement={"replicaScheduling": DUPLICATED})], "greedy")
    assert result.exit_code == 2
    assert "The max value of each resource must be greater than the min value" in result.output


def test_a_null_taint_is_refused_as_its_zero_value(tmp_path):
    a = cluster("a")
    a["spec"]["taints"] = [None]
    result = solve(tmp_path, [a, binding(placement={"replicaScheduling": DUPLICATED})], "greedy")
    assert result.exit_code == 2
    assert "spec.taints[0].key" in result.output


def test_optimal_charges_nothing_for_a_negative_non_workload(tmp_path):
    # n (replicas -1, no requirements) goes on a without running a pod there: w's 2 replicas fit
    # a's 2 pods in optimal mode as in greedy (the joint once charged n a pod: w Unschedulable).
    objects = [
        cluster("a", allocatable={"pods": "2", "cpu": "10"}),
        binding(
            "n", placement={"replicaScheduling": DUPLICATED}, replicas=-1, created="2026-01-01T00:00:00Z"
        ),
        binding(
            "w",
            placement={"replicaScheduling": divided("Aggregated")},
            replicas=2,
            requests={"cpu": "1"},
            created="2026-01-01T00:00:01Z",
        ),
    ]
    result = solve(tmp_path, objects, "optimal", "-o", "yaml")
    assert result.exit_code == 0, result.output
    got = written(result.stdout)
    assert _placed(got["ResourceBinding/default/n"]) == {"a": None}
    assert _placed(got["ResourceBinding/default/w"]) == {"a": 2}


def test_the_table_charges_nothing_for_a_negative_non_workload(tmp_path):
    # The difference section charges each mode's answer as the joint does: n runs no pod on a.
    objects = [
        cluster("a", allocatable={"pods": "2", "cpu": "10"}),
        binding(
            "n", placement={"replicaScheduling": DUPLICATED}, replicas=-1, created="2026-01-01T00:00:00Z"
        ),
        binding("w", replicas=2, requests={"cpu": "1"}, created="2026-01-01T00:00:01Z"),
    ]
    objects[2]["spec"]["placement"] = {"replicaScheduling": divided("Aggregated")}
    result = solve(tmp_path, objects, "optimal", "-o", "table")
    assert result.exit_code == 0, result.output
    assert "greedy over-commits no cluster; optimal: none" in result.output
    assert "Optimal chose as greedy did for every placement." in result.output


def test_optimal_takes_greedys_answer_for_a_negative_count(tmp_path):
    # Held -3 on a, replicas -1: a steady scale up by 2 (Webster 1 : 1 over a and b), merged with
    # a's -3: b 1 (a's -2 dropped). Optimal once took it as a request to place anew, whose kept
    # replicas (0) passed its count: a ValueError traceback.
    rb = binding(
        placement={"replicaScheduling": divided(dynamic="AvailableReplicas")},
        replicas=-1,
        requests={"cpu": "1"},
        clusters=[("a", -3)],
    )
    clusters = [cluster(name, allocatable={"pods": "5", "cpu": "5"}) for name in ("a", "b")]
    for mode in ("greedy", "optimal"):
        result = solve(tmp_path, [*clusters, rb], mode, "-o", "yaml")
        assert result.exit_code == 0, result.output
        got = written(result.stdout)[KEY]
        assert (_placed(got), _condition(got)[0]) == ({"b": 1}, "Success")


def test_a_non_workload_has_room_for_max_int32_everywhere(tmp_path):
    # calAvailableReplicas returns MaxInt32 for a non-workload before any estimator, so a cluster
    # it holds with -5 replicas has room for MaxInt32 - 5, at least the 0 Duplicated's group score
    # asks: r1 (a1, held) scores 1000 + 100, r2 (b1) 1000 + 0. Counted from 0 it would have -5,
    # and r1 would score 0.
    placement = {
        "replicaScheduling": DUPLICATED,
        "spreadConstraints": [
            {"spreadByField": "region", "minGroups": 1, "maxGroups": 1},
            {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
        ],
    }
    clusters = [cluster("a1", region="r1"), cluster("b1", region="r2")]
    rb = binding(placement=placement, replicas=0, clusters=[("a1", -5)])
    assert _placed(_run(tmp_path, [*clusters, rb])) == {"a1": None}
