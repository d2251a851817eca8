"""Bad input: exit status 2, one line on stderr naming the file or object and the field, nothing on
stdout, never a traceback. An infeasible policy is not bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from tests.fleet_fixtures import (
    CLUSTER_API,
    INDEX,
    MODES,
    NOW,
    binding,
    checked_outcome,
    crp,
    member_cluster,
    pick_all,
    pick_fixed,
    pick_n,
    preferred,
    run_cli,
    snapshot,
    spread,
    term,
)

CLUSTER = member_cluster("c1", {"env": "prod"})
CRP = "ClusterResourcePlacement/app"
TERM0 = (
    "spec.policy.affinity.clusterAffinity.requiredDuringSchedulingIgnoredDuringExecution"
    ".clusterSelectorTerms[0]"
)
PREFERRED0 = "spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution[0]"


def placement(policy) -> list[dict]:
    return [CLUSTER, crp("app", policy)]


def with_property_expression(expression: dict) -> dict:
    return pick_all(required=[{"propertySelector": {"matchExpressions": [expression]}}])


def bad_cluster(**status_changes) -> dict:
    cluster = member_cluster("c2", {"env": "prod"})
    for path, value in status_changes.items():
        target = cluster["status"]
        *parents, last = path.split("__")
        for key in parents:
            target = target.setdefault(key, {})
        target[last] = value
    return cluster


def binding_with(**metadata) -> dict:
    out = binding("app", "c1")
    out["metadata"].update(metadata)
    return out


def snapshot_with(**changes) -> dict:
    out = snapshot("app", 0, pick_n(1), n=1)
    for key, value in changes.items():
        if key == "labels":
            out["metadata"]["labels"] = value
        elif key == "policy":
            out["spec"]["policy"] = value
        else:
            out["metadata"][key] = value
    return out


# name -> (objects or raw text, file suffix, [every substring the error line must contain])
OBJECT_CASES: dict[str, tuple[list[dict], list[str]]] = {
    "no-name": (
        [{"apiVersion": CLUSTER_API, "kind": "MemberCluster", "metadata": {}}],
        ["document 1", "metadata.name"],
    ),
    "duplicate": ([CLUSTER, copy.deepcopy(CLUSTER)], ["MemberCluster/c1", "duplicate", "documents 1 and 2"]),
    "pick-n-without-number": (
        placement({"placementType": "PickN"}),
        [CRP, "spec.policy.numberOfClusters", "required"],
    ),
    "negative-number": (placement(pick_n(-1)), [CRP, "spec.policy.numberOfClusters", "negative"]),
    "number-as-string": (
        placement({"placementType": "PickN", "numberOfClusters": "3"}),
        [CRP, "spec.policy.numberOfClusters", "integer"],
    ),
    "number-past-int32": (
        placement(pick_n(3_000_000_000)),
        [CRP, "spec.policy.numberOfClusters", "2147483647", "3000000000"],
    ),
    "number-past-int64": (
        placement(pick_n(99999999999999999999)),
        [CRP, "spec.policy.numberOfClusters", "99999999999999999999"],
    ),
    "label-key-not-qualified": (
        [member_cluster("c2", {"bad key": "x"})],
        ["MemberCluster/c2", "metadata.labels", "invalid label key 'bad key'"],
    ),
    "label-key-name-too-long": (
        [member_cluster("c2", {"a" * 64: "x"})],
        ["MemberCluster/c2", "metadata.labels", "no more than 63 characters"],
    ),
    "label-value-too-long": (
        [member_cluster("c2", {"env": "v" * 64})],
        ["MemberCluster/c2", "metadata.labels", "invalid value"],
    ),
    "label-value-bad-characters": (
        [member_cluster("c2", {"env": "-prod"})],
        ["MemberCluster/c2", "metadata.labels", "invalid value '-prod'"],
    ),
    "unknown-placement-type": (
        placement({"placementType": "PickSome"}),
        [CRP, "spec.policy.placementType", "PickSome"],
    ),
    "pick-fixed-with-affinity": (
        placement({**pick_fixed("c1"), "affinity": pick_all(required=[term({"a": "b"})])["affinity"]}),
        [CRP, "spec.policy.affinity", "PickFixed"],
    ),
    "pick-fixed-with-number": (
        placement({**pick_fixed("c1"), "numberOfClusters": 1}),
        [CRP, "spec.policy.numberOfClusters", "PickFixed"],
    ),
    "max-skew-zero": (
        placement(pick_n(1, spread_by=[spread("zone", 0)])),
        [CRP, "spec.policy.topologySpreadConstraints[0].maxSkew"],
    ),
    "weight-101": (
        placement(pick_n(1, prefer=[preferred(101, {"a": "b"})])),
        [CRP, f"{PREFERRED0}.weight", "101"],
    ),
    "weight-minus-101": (
        placement(pick_n(1, prefer=[preferred(-101, {"a": "b"})])),
        [CRP, f"{PREFERRED0}.weight", "-101"],
    ),
    "quantity-in-selector": (
        placement(with_property_expression({"name": "x", "operator": "Gt", "values": ["lots"]})),
        [CRP, f"{TERM0}.propertySelector.matchExpressions[0].values[0]", "lots"],
    ),
    "quantity-in-status-property": (
        [bad_cluster(properties={"kubernetes-fleet.io/node-count": {"value": "1.2.3"}})],
        ["MemberCluster/c2", "status.properties[kubernetes-fleet.io/node-count].value", "1.2.3"],
    ),
    "quantity-in-resource-usage": (
        [bad_cluster(resourceUsage__available={"cpu": "many"})],
        ["MemberCluster/c2", "status.resourceUsage.available.cpu", "many"],
    ),
    "unknown-label-operator": (
        placement(pick_all(required=[term(expressions=[("a", "Like", ["b"])])])),
        [CRP, f"{TERM0}.labelSelector.matchExpressions[0].operator", "Like"],
    ),
    "unknown-property-operator": (
        placement(with_property_expression({"name": "x", "operator": "Gte", "values": ["1"]})),
        [CRP, f"{TERM0}.propertySelector.matchExpressions[0].operator", "Gte"],
    ),
    "two-property-values": (
        placement(with_property_expression({"name": "x", "operator": "Gt", "values": ["1", "2"]})),
        [CRP, f"{TERM0}.propertySelector.matchExpressions[0].values"],
    ),
    "sorter-in-required-term": (
        placement(pick_n(1, required=[{"propertySorter": {"name": "x", "sortOrder": "Ascending"}}])),
        [CRP, f"{TERM0}.propertySorter"],
    ),
    "preferred-for-pick-all": (
        placement({**pick_all(), "affinity": pick_n(1, prefer=[preferred(5, {"a": "b"})])["affinity"]}),
        [CRP, "preferredDuringSchedulingIgnoredDuringExecution", "PickAll"],
    ),
    "spread-for-pick-all": (
        placement({**pick_all(), "topologySpreadConstraints": [spread("zone")]}),
        [CRP, "spec.policy.topologySpreadConstraints"],
    ),
    "heartbeat-not-a-time": (
        [bad_cluster(agentStatus=[{"type": "MemberAgent", "lastReceivedHeartbeat": "2026-13-01T00:00:00Z"}])],
        ["MemberCluster/c2", "status.agentStatus[0].lastReceivedHeartbeat"],
    ),
    "binding-labels-not-a-map": (
        [CLUSTER, crp("app", pick_n(1)), binding_with(labels=["x"])],
        ["ClusterResourceBinding/app-c1-0000abcd", "metadata.labels"],
    ),
    "binding-annotations-not-a-map": (
        [CLUSTER, crp("app", pick_n(1)), binding_with(annotations=["x"])],
        ["ClusterResourceBinding/app-c1-0000abcd", "metadata.annotations"],
    ),
    "binding-state": (
        [
            CLUSTER,
            crp("app", pick_n(1)),
            {**binding("app", "c1"), "spec": {**binding("app", "c1")["spec"], "state": "Pending"}},
        ],
        ["ClusterResourceBinding/app-c1-0000abcd", "spec.state", "Pending"],
    ),
    "snapshot-labels-not-a-map": (
        [CLUSTER, crp("app", pick_n(1)), snapshot_with(labels="x")],
        ["ClusterSchedulingPolicySnapshot/app-0", "metadata.labels"],
    ),
    "snapshot-policy-not-an-object": (
        [CLUSTER, crp("app", pick_n(1)), snapshot_with(policy="PickN")],
        ["ClusterSchedulingPolicySnapshot/app-0", "spec.policy"],
    ),
    "snapshot-policy-malformed-inside": (
        [CLUSTER, crp("app", pick_n(1)), snapshot_with(policy={"topologySpreadConstraints": "zone"})],
        ["ClusterSchedulingPolicySnapshot/app-0", "spec.policy"],
    ),
    "snapshot-index": (
        [
            CLUSTER,
            crp("app", pick_n(1)),
            snapshot_with(labels={"kubernetes-fleet.io/parent-CRP": "app", INDEX: "first"}),
        ],
        ["ClusterSchedulingPolicySnapshot/app-0", INDEX],
    ),
    "placement-name-not-a-label": (
        [CLUSTER, crp("App_1", pick_n(1))],
        ["ClusterResourcePlacement/App_1", "metadata.name"],
    ),
    "cluster-name-not-a-label": (
        [member_cluster("c1.example.com"), crp("app", pick_all())],
        ["MemberCluster/c1.example.com", "metadata.name"],
    ),
}

TEXT_CASES: dict[str, tuple[str, str, list[str]]] = {
    "malformed-yaml": ("kind: MemberCluster\nmetadata: [name: c1\n", "yaml", ["malformed YAML", "line"]),
    "malformed-json": ('{"kind": "MemberCluster", "metadata": }', "json", ["malformed JSON", "line 1"]),
    "not-an-object": ("- a\n- b\n", "yaml", ["document 1 is not an object"]),
    "scalar-document": ("---\njust text\n", "yaml", ["document 1 is not an object"]),
    "list-item-not-an-object": (
        json.dumps({"apiVersion": "v1", "kind": "List", "items": [1]}),
        "json",
        ["document 1", "items[0]"],
    ),
    "binary": ("\x00\x01", "yaml", ["malformed YAML"]),
}


def assert_usage_error(result, *expected: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 1, lines
    assert result.stderr.endswith("\n")
    line = lines[0]
    assert line.startswith("error: ")
    for part in expected:
        assert part in line, (part, line)
    return line


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", sorted(OBJECT_CASES))
def test_bad_objects(tmp_path, case, mode):
    objects, expected = OBJECT_CASES[case]
    path = tmp_path / f"{case}.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    result = run_cli(["solve", "-f", str(path), "--now", NOW, "--mode", mode])
    line = assert_usage_error(result, *expected)
    if "document" in " ".join(expected) or case == "duplicate":
        assert str(path) in line


@pytest.mark.parametrize("case", sorted(TEXT_CASES))
def test_bad_text(tmp_path, case):
    text, suffix, expected = TEXT_CASES[case]
    path = tmp_path / f"{case}.{suffix}"
    path.write_text(text, encoding="utf-8")
    result = run_cli(["solve", "-f", str(path), "--now", NOW])
    assert_usage_error(result, str(path), *expected)


def test_bad_text_on_stdin():
    result = run_cli(["solve", "-f", "-", "--now", NOW], stdin="metadata: [\n")
    assert_usage_error(result, "<stdin>", "malformed YAML")


def test_the_error_names_the_file_among_several(tmp_path):
    good = tmp_path / "good.yaml"
    good.write_text(yaml.safe_dump(CLUSTER), encoding="utf-8")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    result = run_cli(["solve", "-f", str(good), "-f", str(bad), "--now", NOW])
    line = assert_usage_error(result, str(bad))
    assert str(good) not in line


def test_missing_file(tmp_path):
    missing = tmp_path / "nope.yaml"
    result = run_cli(["solve", "-f", str(missing), "--now", NOW])
    assert_usage_error(result, str(missing), "no such file")


def test_duplicate_across_files(tmp_path):
    first, second = tmp_path / "a.yaml", tmp_path / "b.yaml"
    for path in (first, second):
        path.write_text(yaml.safe_dump(CLUSTER), encoding="utf-8")
    result = run_cli(["solve", "-f", str(first), "-f", str(second), "--now", NOW])
    assert_usage_error(result, "MemberCluster/c1", str(first), str(second))


@pytest.mark.parametrize("now", ["yesterday", "2026-13-01T00:00:00Z", "12:00", ""])
def test_bad_now(tmp_path, now):
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump(CLUSTER), encoding="utf-8")
    result = run_cli(["solve", "-f", str(path), "--now", now])
    assert_usage_error(result, "--now")


@pytest.mark.parametrize("mode", MODES)
def test_infeasible_policy_is_not_an_error(tmp_path, mode):
    objects = [
        CLUSTER,
        member_cluster("c2", {"env": "prod"}),
        member_cluster("c3", {"env": "dev"}),
        crp("app", pick_n(5, required=[term({"env": "prod"})])),
    ]
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    result = run_cli(["solve", "-f", str(path), "--now", NOW, "--mode", mode, "-o", "plan"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    plan = json.loads(result.stdout)
    (snap,) = [o for o in plan["apply"] if o["kind"] == "ClusterSchedulingPolicySnapshot"]
    (condition,) = snap["status"]["conditions"]
    assert condition["status"] == "False"
    assert condition["reason"] == "SchedulingPolicyUnfulfilled"
    assert condition["message"] == (
        "could not find all clusters needed as specified by the scheduling policy, found 2 cluster(s) instead"
    )
    assert len([o for o in plan["apply"] if o["kind"] == "ClusterResourceBinding"]) == 2
    assert plan["summary"]["unsatisfied"] == 1
    checked_outcome(objects, mode)


def test_nothing_is_written_when_a_later_object_is_bad(tmp_path):
    objects = [CLUSTER, crp("good", pick_n(1)), crp("zz-bad", pick_n(-1))]
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump_all(objects, sort_keys=False), encoding="utf-8")
    result = run_cli(["solve", "-f", str(path), "--now", NOW])
    assert_usage_error(result, "ClusterResourcePlacement/zz-bad")


def test_bad_file_inside_a_directory_is_named(tmp_path):
    root = tmp_path / "hub"
    root.mkdir()
    (root / "broken.yaml").write_text("a: [", encoding="utf-8")
    result = run_cli(["solve", "-f", str(root), "--now", NOW])
    assert_usage_error(result, str(Path(root / "broken.yaml")))
