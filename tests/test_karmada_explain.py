"""`explain rb/NAMESPACE/NAME` and `crb/NAME`: per cluster the filter in upstream's words, the
replicas the estimator finds room for and what the rest of the batch takes of them, the division,
and what would let more replicas in (the resource that runs out and how much more of it one more
replica needs; for a filtered cluster, the toleration, label, field or API that would admit it)."""

from __future__ import annotations

import yaml

from tests.fixtures.common import NOW, run_cli, write_yaml
from tests.fixtures.karmada import DEPLOYMENT, binding, cluster, divided

FREE = {"cpu": "4", "memory": "16Gi", "pods": "110"}
DYNAMIC = {"replicaScheduling": divided(dynamic="AvailableReplicas")}
AGGREGATED = {"replicaScheduling": divided("Aggregated")}


def _explain(tmp_path, objects, target: str, *args: str) -> tuple[dict, str]:
    path = write_yaml(tmp_path / "hub.yaml", objects)
    command = ["explain", target, "-f", path, "--now", NOW, *args]
    data = run_cli([*command, "-o", "yaml"])
    assert data.exit_code == 0, (data.output, data.exception)
    text = run_cli(command)
    assert text.exit_code == 0, (text.output, text.exception)
    return yaml.safe_load(data.stdout), text.stdout


def _by_cluster(doc: dict) -> dict[str, dict]:
    return {row["cluster"]: row for row in doc["clusters"]}


def test_a_filtered_cluster_says_what_would_admit_it(tmp_path) -> None:
    placement = {"clusterAffinity": {"labelSelector": {"matchLabels": {"team": "web"}}}, **DYNAMIC}
    web = {"team": "web"}
    objects = [
        cluster("ok", web, allocatable=FREE),
        cluster(
            "tainted", web, allocatable=FREE, taints=[{"key": "k", "value": "v", "effect": "NoSchedule"}]
        ),
        cluster("other", {"team": "db"}, allocatable=FREE),
        cluster("bare", web, allocatable=FREE, apis=()),
        cluster("gone", web, allocatable=FREE, deleting=True),
        binding(placement=placement, replicas=2, requests={"cpu": "1"}),
    ]
    doc, text = _explain(tmp_path, objects, "rb/default/rb")
    rows = _by_cluster(doc)
    assert rows["tainted"]["filter"] == "cluster(s) had untolerated taint {k=v:NoSchedule}"
    assert rows["tainted"]["admittedBy"] == [
        "the toleration {key: k, operator: Equal, value: v, effect: NoSchedule}"
    ]
    assert rows["other"]["filter"] == "cluster(s) did not match the placement cluster affinity constraint"
    assert rows["other"]["admittedBy"] == ["the label team=web (was db)"]
    assert rows["bare"]["filter"] == "cluster(s) did not have the API resource"
    assert rows["bare"]["admittedBy"] == ["serving the API apps/v1 Deployment"]
    assert rows["gone"]["admittedBy"] == ["nothing: it is being deleted"]
    assert "admittedBy" not in rows["ok"]
    assert text.splitlines()[4].split()[:5] == ["CLUSTER", "AVAILABLE", "TAKEN", "HELD", "ASSIGNED"]


def test_cluster_names_exclude_and_fields_of_the_nearest_term(tmp_path) -> None:
    affinity = {
        "clusterNames": ["a", "b"],
        "exclude": ["b"],
        "fieldSelector": {"matchExpressions": [{"key": "region", "operator": "In", "values": ["eu"]}]},
    }
    objects = [
        cluster("a", allocatable=FREE, region="eu"),
        cluster("b", allocatable=FREE, region="us"),
        cluster("c", allocatable=FREE, region="eu"),
        binding(placement={"clusterAffinity": affinity, **DYNAMIC}, replicas=1, requests={"cpu": "1"}),
    ]
    rows = _by_cluster(_explain(tmp_path, objects, "rb/default/rb")[0])
    assert rows["b"]["admittedBy"] == ["b taken out of the term's exclude", "spec.region In (eu)"]
    assert rows["c"]["admittedBy"] == ["c listed in the term's clusterNames"]


def test_what_the_batch_took_and_what_one_more_replica_needs(tmp_path) -> None:
    """`first` is queued first (higher priority) and takes 2 of m1's 4 cpus; `second` gets the
    other 2, and one more of its replicas needs one more cpu."""
    only_m1 = {"clusterAffinity": {"clusterNames": ["m1"]}, **AGGREGATED}
    objects = [
        cluster("m1", allocatable={"cpu": "4500m", "memory": "16Gi", "pods": "110"}),
        binding("first", placement=only_m1, replicas=2, requests={"cpu": "1"}, priority=5),
        binding("second", placement=only_m1, replicas=2, requests={"cpu": "1"}),
    ]
    doc, text = _explain(tmp_path, objects, "rb/default/second")
    (row,) = doc["clusters"]
    assert (row["available"], row["taken"], row["held"], row["assigned"]) == (4, 2, 0, 2)
    assert row["oneMoreNeeds"] == {"cpu": "500m"}
    assert doc["binding"]["division"] == "aggregated"
    assert text.splitlines()[-1].endswith("one more replica needs cpu +500m")


def test_greedy_over_commits_and_explain_shows_how_far(tmp_path) -> None:
    """Greedy puts both on m1 (6 cpu asked, 4 free): one more replica of the second needs 3 cpus."""
    only_m1 = {"clusterAffinity": {"clusterNames": ["m1"]}, **AGGREGATED}
    objects = [
        cluster("m1", allocatable=FREE),
        binding("first", placement=only_m1, replicas=3, requests={"cpu": "1"}, priority=5),
        binding("second", placement=only_m1, replicas=3, requests={"cpu": "1"}),
    ]
    doc, _ = _explain(tmp_path, objects, "rb/default/second", "--mode", "greedy")
    (row,) = doc["clusters"]
    assert (row["available"], row["taken"], row["assigned"], row["room"]) == (4, 3, 3, 0)
    assert row["oneMoreNeeds"] == {"cpu": "3"}


def test_room_left_nodes_and_a_cluster_reporting_nothing(tmp_path) -> None:
    models = [
        {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": "2"}]},
        {"grade": 1, "ranges": [{"name": "cpu", "min": "2", "max": "9223372036854775807"}]},
    ]
    objects = [
        cluster("roomy", allocatable=FREE),
        cluster(
            "modelled",
            allocatable={"cpu": "64", "pods": "110"},
            models=models,
            modelings=[{"grade": 0, "count": 0}, {"grade": 1, "count": 1}],
        ),
        cluster("silent"),
        binding(placement=DYNAMIC, replicas=2, requests={"cpu": "1"}),
    ]
    doc, text = _explain(tmp_path, objects, "rb/default/rb")
    rows = _by_cluster(doc)
    assert rows["roomy"]["assigned"] + rows["modelled"]["assigned"] == 2
    lines = {line.split()[0]: line for line in text.splitlines()[5:]}
    assert lines["silent"].endswith("a resourceSummary (none reported: the estimator finds room for nothing)")
    assert "one past them needs a node with {cpu: 1, pods: 1} free" in lines["modelled"]
    assert lines["roomy"].endswith("one past them needs cpu +1")


def test_a_binding_divided_over_every_cluster_is_assigned_whole(tmp_path) -> None:
    """ASSIGNED showed `-` on every cluster a non-workload was placed on."""
    namespace = binding("ns", kind="Namespace", api_version="v1", replicas=None, cluster_scoped=True)
    v1 = {"groupVersion": "v1", "resources": [{"name": "namespaces", "kind": "Namespace"}]}
    objects = [cluster("m1", apis=(DEPLOYMENT, v1)), cluster("m2", apis=(DEPLOYMENT,)), namespace]
    doc, _ = _explain(tmp_path, objects, "crb/ns")
    rows = _by_cluster(doc)
    assert rows["m1"]["assigned"] == "all"
    assert rows["m2"]["admittedBy"] == ["serving the API v1 Namespace"]
    assert "oneMoreNeeds" not in rows["m1"]
