"""Karmada end to end through `placement-solver solve --mode greedy`: what the scheduler writes for
each outcome (pkg/scheduler/scheduler.go, getConditionByError in helper.go), explain, and the
bad input the CRDs, the aggregated API server and the webhook refuse (exit 2, one line)."""

from __future__ import annotations

import json

import pytest

from tests.fixtures.common import run_cli, write_yaml
from tests.fixtures.karmada import (
    APPLIED,
    DUPLICATED,
    NOW,
    ago,
    applied,
    at,
    binding,
    cluster,
    divided,
    solve,
    written,
)

FREE = {"cpu": "4", "memory": "16Gi", "pods": "110"}
DYNAMIC = {"replicaScheduling": divided(dynamic="AvailableReplicas")}


def _run(tmp_path, objects, mode="greedy"):
    result = solve(tmp_path, objects, mode, "-o", "yaml")
    assert result.exit_code == 0, (result.output, result.exception)
    return written(result.stdout)


def _condition(obj):
    (found,) = [c for c in obj["status"]["conditions"] if c["type"] == "Scheduled"]
    return found


def test_success_writes_clusters_annotation_condition_generation_and_time(tmp_path):
    objects = [
        cluster("m1", allocatable=FREE),
        cluster("m2", allocatable={**FREE, "cpu": "2"}),
        binding(placement=DYNAMIC, replicas=6, requests={"cpu": "1"}, generation=3),
    ]
    rb = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert rb["spec"]["clusters"] == [{"name": "m1", "replicas": 4}, {"name": "m2", "replicas": 2}]
    assert rb["metadata"]["annotations"][APPLIED] == (
        '{"replicaScheduling":{"replicaSchedulingType":"Divided","replicaDivisionPreference":"Weighted",'
        '"weightPreference":{"dynamicWeight":"AvailableReplicas"}}}'
    )
    condition = _condition(rb)
    assert (condition["status"], condition["reason"], condition["message"]) == (
        "True",
        "Success",
        "Binding has been scheduled successfully.",
    )
    assert condition["lastTransitionTime"] == NOW
    assert rb["status"]["schedulerObservedGeneration"] == 3
    assert rb["status"]["lastScheduledTime"] == NOW


def test_a_condition_keeps_its_transition_time_while_its_status_holds(tmp_path):
    old = {
        "type": "Scheduled",
        "status": "True",
        "reason": "Success",
        "message": "m",
        "lastTransitionTime": ago(60),
    }
    rb = binding(placement=DYNAMIC, replicas=2, requests={"cpu": "1"}, status={"conditions": [old]})
    got = _run(tmp_path, [cluster("m1", allocatable=FREE), rb])["ResourceBinding/default/rb"]
    assert _condition(got)["lastTransitionTime"] == ago(60)


def test_non_workloads_go_to_every_cluster_without_a_replicas_field(tmp_path):
    svc = binding("svc", kind="Service", api_version="v1", replicas=None, placement=DYNAMIC)
    api = [{"groupVersion": "v1", "resources": [{"name": "services", "kind": "Service"}]}]
    objects = [cluster("m1", apis=api), cluster("m2", apis=api), cluster("m3"), svc]
    got = _run(tmp_path, objects)["ResourceBinding/default/svc"]
    assert got["spec"]["clusters"] == [{"name": "m1"}, {"name": "m2"}]


def test_no_cluster_fit_clears_the_clusters_with_upstreams_message(tmp_path):
    rb = applied(
        binding(
            placement={"clusterAffinity": {"clusterNames": ["m2", "m3"]}, **DYNAMIC},
            replicas=3,
            clusters=[("m3", 3)],
        )
    )
    rb["spec"]["replicas"] = 4  # scaled: rescheduled
    objects = [
        cluster("m1", allocatable=FREE),
        cluster("m2", allocatable=FREE, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]),
        cluster("m3", allocatable=FREE, deleting=True),
        cluster("m4", apis=()),
        rb,
    ]
    got = _run(tmp_path, objects)["ResourceBinding/default/rb"]
    assert "clusters" not in got["spec"]
    assert APPLIED in got["metadata"]["annotations"]
    condition = _condition(got)
    assert (condition["status"], condition["reason"]) == ("False", "NoClusterFit")
    assert condition["message"] == (
        "0/4 clusters are available: 1 cluster(s) did not have the API resource, "
        "1 cluster(s) did not match the placement cluster affinity constraint, "
        "1 cluster(s) had untolerated taint {k=v:NoSchedule}."
    )
    assert "lastScheduledTime" not in got["status"]


def test_unschedulable_writes_the_condition_only(tmp_path):
    rb = binding(placement=DYNAMIC, replicas=9, requests={"cpu": "1"}, clusters=[("m1", 1)], generation=2)
    got = _run(tmp_path, [cluster("m1", allocatable=FREE), rb])["ResourceBinding/default/rb"]
    assert got["spec"]["clusters"] == [{"name": "m1", "replicas": 1}]
    assert APPLIED not in (got["metadata"].get("annotations") or {})
    condition = _condition(got)
    assert (condition["reason"], condition["message"]) == (
        "Unschedulable",
        "failed to assign replicas: failed to scale up: "
        "Clusters available replicas 4 are not enough to schedule.",
    )
    assert "schedulerObservedGeneration" not in got["status"]


def test_spread_selection_failures_are_scheduler_errors(tmp_path):
    placement = {
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 3, "maxGroups": 3}],
        **DYNAMIC,
    }
    rb = binding(placement=placement, replicas=2, requests={"cpu": "1"})
    got = _run(tmp_path, [cluster("m1", allocatable=FREE), cluster("m2", allocatable=FREE), rb])
    condition = _condition(got["ResourceBinding/default/rb"])
    assert (condition["reason"], condition["message"]) == (
        "SchedulerError",
        "failed to select clusters: the number of feasible clusters is less than spreadConstraint.MinGroups",
    )


def test_a_spread_by_label_alone_is_an_error_of_selection(tmp_path):
    placement = {"spreadConstraints": [{"spreadByLabel": "topology"}], **DYNAMIC}
    rb = binding(placement=placement, replicas=2, requests={"cpu": "1"})
    condition = _condition(
        _run(tmp_path, [cluster("m1", allocatable=FREE), rb])["ResourceBinding/default/rb"]
    )
    assert (condition["reason"], condition["message"]) == (
        "SchedulerError",
        "failed to select clusters: just support cluster and region spread constraint",
    )


def test_a_binding_left_alone_gets_only_its_observed_generation(tmp_path):
    rb = applied(binding(placement=DYNAMIC, replicas=3, clusters=[("m1", 3)], generation=7))
    rb["status"] = {"schedulerObservedGeneration": 6, "lastScheduledTime": at(1)}
    got = _run(tmp_path, [cluster("m1", allocatable=FREE), rb])["ResourceBinding/default/rb"]
    assert got["status"] == {"schedulerObservedGeneration": 7, "lastScheduledTime": at(1)}
    assert got["spec"]["clusters"] == [{"name": "m1", "replicas": 3}]


def test_cluster_affinities_write_the_term_that_fit(tmp_path):
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["m1"]},
            {"affinityName": "backup", "clusterNames": ["m2"]},
        ],
        "replicaScheduling": divided("Aggregated"),
    }
    rb = binding(placement=placement, replicas=2, requests={"cpu": "2"})
    got = _run(
        tmp_path, [cluster("m1", allocatable={**FREE, "cpu": "1"}), cluster("m2", allocatable=FREE), rb]
    )
    rb = got["ResourceBinding/default/rb"]
    assert rb["spec"]["clusters"] == [{"name": "m2", "replicas": 2}]
    assert _condition(rb)["reason"] == "Success"
    assert rb["status"]["schedulerObservingAffinityName"] == "backup"


def test_every_term_failing_reports_the_first_failure(tmp_path):
    placement = {
        "clusterAffinities": [
            {"affinityName": "primary", "clusterNames": ["m1"]},
            {"affinityName": "backup", "clusterNames": ["m2"]},
        ],
        "replicaScheduling": divided("Aggregated"),
    }
    rb = binding(placement=placement, replicas=3, requests={"cpu": "2"}, clusters=[("m1", 1)])
    got = _run(
        tmp_path, [cluster("m1", allocatable={**FREE, "cpu": "1"}), cluster("m2", allocatable=FREE), rb]
    )
    rb = got["ResourceBinding/default/rb"]
    assert rb["spec"]["clusters"] == [{"name": "m1", "replicas": 1}]
    assert _condition(rb)["reason"] == "Unschedulable"
    assert "schedulerObservingAffinityName" not in rb["status"]


def test_duplicated_places_every_replica_on_every_cluster_and_crbs_too(tmp_path):
    crb = binding("crb", cluster_scoped=True, placement={"replicaScheduling": DUPLICATED}, replicas=2)
    got = _run(tmp_path, [cluster("m1", allocatable=FREE), cluster("m2"), crb])
    assert got["ClusterResourceBinding/crb"]["spec"]["clusters"] == [
        {"name": "m1", "replicas": 2},
        {"name": "m2", "replicas": 2},
    ]


def test_explain_words_each_cluster(tmp_path):
    objects = [
        cluster("m1", allocatable=FREE),
        cluster("m2", allocatable=FREE, taints=[{"key": "k", "effect": "NoSchedule"}]),
        binding(placement=DYNAMIC, replicas=2, requests={"cpu": "1"}),
    ]
    path = write_yaml(tmp_path / "hub.yaml", objects)
    result = run_cli(["explain", "rb/default/rb", "-f", path, "--now", NOW, "--mode", "greedy", "-o", "yaml"])
    assert result.exit_code == 0, (result.output, result.exception)
    assert "cluster(s) had untolerated taint {k:NoSchedule}" in result.stdout
    assert "available: 4" in result.stdout


def _bad(tmp_path, objects):
    result = solve(tmp_path, objects, "greedy", "-o", "yaml")
    assert result.exit_code == 2, (result.output, result.exception)
    assert result.stdout == ""
    return result.stderr.strip()


SPREAD = "spec.placement.spreadConstraints"


@pytest.mark.parametrize(
    ("placement", "field"),
    [
        ({"clusterAffinity": {}, "clusterAffinities": [{"affinityName": "a"}]}, "spec.placement"),
        ({"spreadConstraints": [{"spreadByField": "region", "minGroups": 2, "maxGroups": 1}]}, SPREAD),
        ({"spreadConstraints": [{"spreadByField": "region"}]}, SPREAD),
        ({"spreadConstraints": [{"spreadByField": "rack"}]}, f"{SPREAD}[0].spreadByField"),
        ({"spreadConstraints": [{"spreadByField": "cluster", "spreadByLabel": "x"}]}, f"{SPREAD}[0]"),
        ({"replicaScheduling": divided(weights=[(["m1"], 0)])}, "staticWeightList[0].weight"),
        ({"replicaScheduling": divided("Spread")}, "replicaScheduling.replicaDivisionPreference"),
        (
            {"replicaScheduling": {"replicaSchedulingType": "Split"}},
            "replicaScheduling.replicaSchedulingType",
        ),
        ({"replicaScheduling": divided(dynamic="Free")}, "weightPreference.dynamicWeight"),
        (
            {
                "clusterAffinities": [
                    {
                        "affinityName": "a",
                        "clusterNames": ["m1"],
                        "overflowAffinities": [{"affinityName": "b"}],
                    }
                ],
                "replicaScheduling": divided(weights=[(["m1"], 1)]),
            },
            "clusterAffinities[0].overflowAffinities",
        ),
        (
            {"clusterTolerations": [{"key": "k", "operator": "Lt", "value": "3"}]},
            "clusterTolerations[0].operator",
        ),
        (
            {"clusterAffinity": {"fieldSelector": {"matchExpressions": [{"key": "rack", "operator": "In"}]}}},
            "fieldSelector.matchExpressions[0].key",
        ),
    ],
)
def test_placements_the_webhook_or_crd_refuses(tmp_path, placement, field):
    line = _bad(tmp_path, [cluster("m1"), binding(placement=placement)])
    assert "\n" not in line and "ResourceBinding/default/rb" in line and field in line


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda o: o["spec"].update(replicas=2**31), "spec.replicas"),
        (
            lambda o: o["spec"].update(replicaRequirements={"resourceRequest": {"cpu": "lots"}}),
            "resourceRequest.cpu",
        ),
        (lambda o: o["spec"].update(clusters=[{"replicas": 1}]), "spec.clusters[0].name"),
        (lambda o: o["spec"].update(schedulePriority={"priority": 2**31}), "spec.schedulePriority.priority"),
        (lambda o: o["spec"].update(rescheduleTriggeredAt="yesterday"), "spec.rescheduleTriggeredAt"),
        (lambda o: o["spec"].pop("resource"), "spec.resource"),
    ],
)
def test_bindings_the_crd_refuses(tmp_path, mutate, field):
    rb = binding(placement=DYNAMIC)
    mutate(rb)
    line = _bad(tmp_path, [cluster("m1"), rb])
    assert "\n" not in line and field in line


@pytest.mark.parametrize(
    ("mutate", "field"),
    [
        (lambda o: o["spec"].update(syncMode="Both"), "spec.syncMode"),
        (lambda o: o["spec"].update(taints=[{"key": "k", "effect": "Never"}]), "spec.taints[0].effect"),
        (lambda o: o["spec"].update(zone="a", zones=["b"]), "spec.zones"),
        (lambda o: o["status"].update(resourceSummary={"allocatable": {"cpu": "four"}}), "allocatable.cpu"),
        (lambda o: o["metadata"].update(name="m" * 49), "metadata.name"),
    ],
)
def test_clusters_the_api_server_refuses(tmp_path, mutate, field):
    c = cluster("m1")
    mutate(c)
    line = _bad(tmp_path, [c, binding(placement=DYNAMIC)])
    assert "\n" not in line and field in line


def test_the_annotation_is_gos_json(tmp_path):
    placement = {
        "clusterAffinity": {"labelSelector": {"matchLabels": {"b": "<&>", "a": "x"}}, "exclude": []},
        "spreadConstraints": [{"spreadByField": "cluster", "minGroups": 1, "maxGroups": 0}],
    }
    got = _run(
        tmp_path,
        [cluster("m1"), binding(placement=placement, replicas=0, kind="ConfigMap", api_version="v1")],
    )
    text = got["ResourceBinding/default/rb"]["metadata"]["annotations"][APPLIED]
    assert text == (
        '{"clusterAffinity":{"labelSelector":{"matchLabels":{"a":"x","b":"\\u003c\\u0026\\u003e"}}},'
        '"spreadConstraints":[{"spreadByField":"cluster","minGroups":1}]}'
    )
    assert json.loads(text)["clusterAffinity"]["labelSelector"]["matchLabels"]["b"] == "<&>"
