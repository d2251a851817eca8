"""Bad input: exit status 2, one line on stderr naming the file or object and the field, nothing on
stdout, never a traceback. An infeasible policy is not bad input."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
import yaml

from tests.fixtures.fleet import (
    CLUSTER_API,
    INDEX,
    MODES,
    NOW,
    PARENT,
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


def with_property_expression(*expressions: dict) -> dict:
    return pick_all(required=[{"propertySelector": {"matchExpressions": list(expressions)}}])


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
    "negative-number": (placement(pick_n(-1)), [CRP, "spec.policy.numberOfClusters", "got -1"]),
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
        [
            bad_cluster(
                properties={"kubernetes-fleet.io/node-count": {"value": "1.2.3", "observationTime": NOW}}
            )
        ],
        ["MemberCluster/c2", "status.properties[kubernetes-fleet.io/node-count].value", "1.2.3"],
    ),
    "quantity-in-resource-usage": (
        [bad_cluster(resourceUsage__available={"cpu": "many"})],
        ["MemberCluster/c2", "status.resourceUsage.available.cpu", "many"],
    ),
    "unknown-label-operator": (
        placement(pick_all(required=[term(expressions=[("a", "Like", ["b"])])])),
        [CRP, f"{TERM0}.labelSelector", '"Like" is not a valid label selector operator'],
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

# ----------------------------------------------------------------- the CRDs' and webhook's edges
# Every range, enum and list length of the Fleet CRDs (config/crd/bases) and what the webhook
# (pkg/utils/validator) refuses: the values at an edge are taken, those past it are refused.

INT32 = 2**31 - 1
INT64 = 2**63 - 1


def _set(obj: dict, path: str, value) -> dict:
    """A copy of `obj` with the dotted `path` set to `value` (list items by index)."""
    out = copy.deepcopy(obj)
    *parents, last = path.split(".")
    node = out
    for key in parents:
        node = node[int(key)] if isinstance(node, list) else node.setdefault(key, {})
    if isinstance(node, list):
        node[int(last)] = value
    else:
        node[last] = value
    return out


def _with_placement(path: str, policy=None):
    """A builder: the placement `app` with `path` set to the value."""
    base = crp("app", policy if policy is not None else pick_n(1))
    return lambda value: [CLUSTER, _set(base, path, value)]


def _with_cluster(path: str):
    return lambda value: [_set(member_cluster("c2"), path, value)]


def _with_binding(path: str):
    return lambda value: [CLUSTER, crp("app", pick_n(1)), _set(binding("app", "c1"), path, value)]


def _with_snapshot(path: str):
    return lambda value: [
        CLUSTER,
        crp("app", pick_n(1)),
        _set(snapshot("app", 0, pick_n(1), n=1), path, value),
    ]


def _condition(kind: str, status: str | None, **more) -> dict:
    """A metav1.Condition with every field its CRD schema requires (`status` None: left out)."""
    out = {"type": kind, "lastTransitionTime": NOW, "reason": "Reason", "message": "", **more}
    return out if status is None else {**out, "status": status}


def _tolerations(count: int) -> list[dict]:
    return [{"key": f"k{i}", "operator": "Exists"} for i in range(count)]


def _status(**changes) -> dict:
    status = {
        "observedCRPGeneration": 1,
        "conditions": [
            {
                "type": "Scheduled",
                "status": "True",
                "reason": "R",
                "message": "",
                "observedGeneration": 1,
                "lastTransitionTime": NOW,
            }
        ],
        "targetClusters": [
            {
                "clusterName": "c1",
                "selected": True,
                "reason": "r",
                "clusterScore": {"affinityScore": 0, "priorityScore": 0},
            }
        ],
    }
    for path, value in changes.items():
        status = _set(status, path.replace("__", "."), value)
    return status


def _score_expression(*pairs) -> dict:
    return with_property_expression(
        *({"name": "kubernetes-fleet.io/node-count", "operator": op, "values": [v]} for op, v in pairs)
    )


SPREAD0 = "spec.policy.topologySpreadConstraints.0"
TOLERATION0 = "spec.policy.tolerations.0"
SORTER = "spec.policy.affinity.clusterAffinity.preferredDuringSchedulingIgnoredDuringExecution.0.preference"
SORTED = pick_n(
    1, prefer=[preferred(5, {"a": "b"}, sort="kubernetes-fleet.io/node-count", order="Ascending")]
)
STRATEGY = "spec.strategy"

# name -> (builder of the objects from one value, values at the edge, values past it, what the error names)
EDGES: dict[str, tuple] = {
    "numberOfClusters": (
        _with_placement("spec.policy.numberOfClusters"),
        [0, INT32, 2.0],  # a whole float the API server stores as its integer
        [-1, INT32 + 1, 1.5, float(INT32 + 1), True],
        [CRP, "numberOfClusters"],
    ),
    "weight": (
        lambda w: placement(pick_n(1, prefer=[preferred(w, {"a": "b"})])),
        [-100, 100],
        [-101, 101],
        [CRP, f"{PREFERRED0}.weight"],
    ),
    "maxSkew": (
        lambda k: placement(pick_n(1, spread_by=[spread("zone", k)])),
        [1, INT32],
        [0, INT32 + 1],
        [CRP, "topologySpreadConstraints[0].maxSkew"],
    ),
    "whenUnsatisfiable": (
        lambda w: placement(pick_n(1, spread_by=[spread("zone", 1, w)])),
        ["DoNotSchedule", "ScheduleAnyway"],
        ["", "doNotSchedule"],
        [CRP, "topologySpreadConstraints[0].whenUnsatisfiable"],
    ),
    "placementType": (
        _with_placement("spec.policy.placementType", pick_all()),
        ["PickAll"],
        ["", "pickAll"],
        [CRP, "spec.policy.placementType"],
    ),
    "tolerationOperator": (
        lambda op: placement(pick_all(tolerations=[{"key": "k", "operator": op}])),
        ["Equal", "Exists"],
        ["", "In"],
        [CRP, "tolerations[0].operator"],
    ),
    "tolerationEffect": (
        lambda e: placement(pick_all(tolerations=[{"key": "k", "operator": "Exists", "effect": e}])),
        ["NoSchedule"],
        ["", "NoExecute"],
        [CRP, "tolerations[0].effect"],
    ),
    "tolerationKey": (
        lambda k: placement(pick_all(tolerations=[{"key": k, "operator": "Exists"}])),
        ["example.com/" + "k" * 63],
        ["bad key", "k" * 64],
        [CRP, "tolerations[0].key"],
    ),
    "tolerationValue": (
        lambda v: placement(pick_all(tolerations=[{"key": "k", "value": v}])),
        ["", "v" * 63],
        ["-v", "v" * 64],
        [CRP, "tolerations[0].value"],
    ),
    "tolerationsUnique": (
        lambda t: placement(pick_all(tolerations=t)),
        [[{"key": "k", "operator": "Exists"}, {"key": "k", "operator": "Exists", "effect": "NoSchedule"}]],
        [[{"key": "k", "value": "v"}, {"key": "k", "operator": "Equal", "value": "v"}]],
        [CRP, "tolerations[1]", "unique"],
    ),
    "tolerationsCount": (
        lambda count: placement(pick_all(tolerations=_tolerations(count))),
        [100],
        [101],
        [CRP, "tolerations"],
    ),
    "sortOrder": (
        _with_placement(f"{SORTER}.propertySorter.sortOrder", SORTED),
        ["Ascending", "Descending"],
        ["", "ascending", None],
        [CRP, "propertySorter.sortOrder"],
    ),
    "sorterName": (
        _with_placement(f"{SORTER}.propertySorter.name", SORTED),
        [
            "resources.kubernetes-fleet.io/available-memory",
            "kubernetes.azure.com/vm-sizes/Standard_D2s_v3/count",
        ],
        ["resources.kubernetes-fleet.io/used-cpu", "resources.kubernetes-fleet.io/cpu", "bad name", "a/-b"],
        [CRP, "propertySorter.name"],
    ),
    "requirementsConsistent": (
        lambda pairs: placement(_score_expression(*pairs)),
        [[("Ge", "3"), ("Le", "3")], [("Eq", "3"), ("Ne", "4"), ("Gt", "2")]],
        [
            [("Gt", "5"), ("Lt", "3")],
            [("Gt", "3"), ("Le", "3")],
            [("Eq", "1"), ("Eq", "2")],
            [("Eq", "1"), ("Ne", "1000m")],
            [("Eq", "5"), ("Lt", "5")],
            [("Eq", "1"), ("Ge", "2")],
        ],
        [CRP, f"{TERM0}.propertySelector.matchExpressions", "inconsistent"],
    ),
    "requiredTerms": (
        lambda count: placement(pick_all(required=[term({"a": str(i)}) for i in range(count)])),
        [10],
        [11],
        [CRP, "clusterSelectorTerms"],
    ),
    "labelSelector": (
        lambda labels: placement(pick_all(required=[term(labels)])),
        [{"example.com/a": "b"}],
        [{"bad key": "b"}, {"a": "-b"}],
        [CRP, f"{TERM0}.labelSelector"],
    ),
    "pickFixedNames": (
        lambda names: placement(pick_fixed(*names)),
        [["c1", "a" * 63], [f"c{i}" for i in range(100)]],
        [["C1"], ["a" * 64], [f"c{i}" for i in range(101)], ["c1", "c1"], ["c1", None]],
        [CRP, "spec.policy.clusterNames"],
    ),
    "pickFixedTolerationsSet": (
        _with_placement("spec.policy.tolerations", pick_fixed("c1")),
        [None],
        [[]],
        [CRP, "spec.policy.tolerations"],
    ),
    "pickAllClusterNamesSet": (
        _with_placement("spec.policy.clusterNames", pick_all()),
        [None],
        [[]],
        [CRP, "spec.policy.clusterNames"],
    ),
    "revisionHistoryLimit": (
        _with_placement("spec.revisionHistoryLimit"),
        [1, 1000],
        [0, 1001],
        [CRP, "spec.revisionHistoryLimit"],
    ),
    "statusReportingScope": (
        _with_placement("spec.statusReportingScope"),
        ["ClusterScopeOnly", "NamespaceAccessible"],
        ["", "Namespace"],
        [CRP, "spec.statusReportingScope"],
    ),
    "resourceSelectors": (
        _with_placement("spec.resourceSelectors"),
        [[{"group": "", "version": "v1", "kind": "Namespace", "name": f"n{i}"} for i in range(100)]],
        [
            None,
            [],
            [{"group": "", "version": "v1", "kind": "Namespace", "name": f"n{i}"} for i in range(101)],
            [{"version": "v1", "kind": "Namespace", "name": "n"}],
        ],
        [CRP, "spec.resourceSelectors"],
    ),
    "resourceSelectorName": (  # a number was taken
        _with_placement("spec.resourceSelectors.0.name"),
        ["app", ""],
        [5, ["app"]],
        [CRP, "spec.resourceSelectors[0].name", "expected a string"],
    ),
    "placementSpec": (  # the spec is required, and with it the resource selectors: a null one was taken
        _with_placement("spec"),
        [{"resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace"}]}],
        [None, {}],
        [CRP, "spec.resourceSelectors", "between 1 and 100 resource selectors are required"],
    ),
    "selectionScope": (
        _with_placement("spec.resourceSelectors.0.selectionScope"),
        ["NamespaceOnly"],
        ["All"],
        [CRP, "spec.resourceSelectors[0].selectionScope"],
    ),
    "strategyType": (
        _with_placement(f"{STRATEGY}.type"),
        ["RollingUpdate", "External"],
        ["Recreate"],
        [CRP, f"{STRATEGY}.type"],
    ),
    "unavailablePeriodSeconds": (
        _with_placement(f"{STRATEGY}.rollingUpdate.unavailablePeriodSeconds"),
        [0, INT64],
        [-1, INT64 + 1],
        [CRP, "unavailablePeriodSeconds"],
    ),
    "maxUnavailable": (
        _with_placement(f"{STRATEGY}.rollingUpdate.maxUnavailable"),
        ["0%", "100%", "7", 0, INT32],
        ["101%", "1.5", "-1", -1, INT32 + 1],
        [CRP, "rollingUpdate.maxUnavailable"],
    ),
    "maxSurge": (
        _with_placement(f"{STRATEGY}.rollingUpdate.maxSurge"),
        ["25%"],
        ["25 %"],
        [CRP, "rollingUpdate.maxSurge"],
    ),
    "rollingUpdateForExternal": (
        _with_placement(STRATEGY),
        [{"type": "External"}],
        [{"type": "External", "rollingUpdate": {}}],
        [CRP, f"{STRATEGY}.rollingUpdate"],
    ),
    "applyStrategy": (
        _with_placement(f"{STRATEGY}.applyStrategy"),
        [{"type": "ServerSideApply", "serverSideApplyConfig": {"force": True}, "whenToTakeOver": "IfNoDiff"}],
        [
            {"type": "Apply"},
            {"comparisonOption": "Partial"},
            {"whenToApply": ""},
            {"whenToTakeOver": "Sometimes"},
            {"serverSideApplyConfig": {"force": True}},
        ],
        [CRP, f"{STRATEGY}.applyStrategy."],
    ),
    "deleteStrategy": (
        _with_placement(f"{STRATEGY}.deleteStrategy.propagationPolicy"),
        ["Abandon", "Delete"],
        ["Orphan"],
        [CRP, "propagationPolicy"],
    ),
    "reportBackStrategy": (
        _with_placement(f"{STRATEGY}.reportBackStrategy"),
        [{"type": "Disabled"}, {"type": "Mirror", "destination": "WorkAPI"}],
        [
            {"type": "Mirror"},
            {"type": "Off"},
            {"destination": "WorkAPI"},
            {"type": "Mirror", "destination": "Here"},
        ],
        [CRP, "reportBackStrategy"],
    ),
    "propertyValueType": (
        _with_cluster("status.properties"),
        [
            {"kubernetes-fleet.io/node-count": {"value": "3", "observationTime": NOW}},
            {"kubernetes-fleet.io/node-count": None},  # a null in a map: pruned, no such property
        ],
        [
            {"kubernetes-fleet.io/node-count": {"value": 3}},
            {"kubernetes-fleet.io/node-count": {"observationTime": NOW}},
        ],
        ["MemberCluster/c2", "status.properties[kubernetes-fleet.io/node-count].value"],
    ),
    "resourceUsageType": (
        _with_cluster("status.resourceUsage.available"),
        [{"cpu": 4, "memory": "1Gi"}, {"cpu": 4.0}, {"cpu": None, "memory": "1Gi"}],  # null: pruned
        [{"cpu": 1.5}, {"cpu": True}],
        ["MemberCluster/c2", "status.resourceUsage.available.cpu"],
    ),
    "selectorValueType": (
        lambda value: placement(with_property_expression({"name": "x", "operator": "Gt", "values": [value]})),
        ["4", "1.5Gi"],
        [4, 1.5],
        [CRP, f"{TERM0}.propertySelector.matchExpressions[0].values[0]"],
    ),
    "heartbeatPeriodSeconds": (
        _with_cluster("spec.heartbeatPeriodSeconds"),
        [1, 600],
        [0, 601],
        ["MemberCluster/c2", "heartbeatPeriodSeconds"],
    ),
    "validationMode": (
        _with_cluster("spec.deleteOptions.validationMode"),
        ["Skip", "Strict"],
        ["Lax"],
        ["MemberCluster/c2", "spec.deleteOptions.validationMode"],
    ),
    "taintEffect": (
        _with_cluster("spec.taints"),
        [[{"key": "k", "effect": "NoSchedule"}]],
        [[{"key": "k"}], [{"key": "k", "effect": ""}], [{"key": "k", "effect": "NoExecute"}]],
        ["MemberCluster/c2", "spec.taints[0].effect"],
    ),
    "taintKeyAndValue": (
        _with_cluster("spec.taints"),
        [[{"key": "example.com/k", "value": "v" * 63, "effect": "NoSchedule"}]],
        [
            [{"key": "", "effect": "NoSchedule"}],
            [{"key": "bad key", "effect": "NoSchedule"}],
            [{"key": "k", "value": "v" * 64, "effect": "NoSchedule"}],
        ],
        ["MemberCluster/c2", "spec.taints[0]"],
    ),
    "taintsUnique": (
        _with_cluster("spec.taints"),
        [[{"key": "k", "effect": "NoSchedule"}, {"key": "k", "value": "v", "effect": "NoSchedule"}]],
        [[{"key": "k", "effect": "NoSchedule"}, {"key": "k", "value": "", "effect": "NoSchedule"}]],
        ["MemberCluster/c2", "spec.taints[1]", "unique"],
    ),
    "taintsCount": (
        lambda count: [
            _set(
                member_cluster("c2"),
                "spec.taints",
                [{"key": f"k{i}", "effect": "NoSchedule"} for i in range(count)],
            )
        ],
        [100],
        [101],
        ["MemberCluster/c2", "spec.taints"],
    ),
    "agentConditionStatus": (
        _with_cluster("status.agentStatus.0.conditions.0.status"),
        ["Unknown", "False"],
        ["Yes", ""],
        ["MemberCluster/c2", "status.agentStatus[0].conditions[0].status"],
    ),
    "bindingScore": (
        _with_binding("spec.clusterDecision.clusterScore.affinityScore"),
        [-INT32 - 1, INT32, None],  # null: pruned, 0 (it was refused)
        [-INT32 - 2, INT32 + 1],
        ["ClusterResourceBinding/app-c1-0000abcd", "clusterScore.affinityScore"],
    ),
    "bindingApplyStrategy": (
        _with_binding("spec.applyStrategy.whenToApply"),
        ["IfNotDrifted"],
        ["Never"],
        ["ClusterResourceBinding/app-c1-0000abcd", "spec.applyStrategy.whenToApply"],
    ),
    "snapshotStatus": (
        lambda status: [CLUSTER, crp("app", pick_n(1)), snapshot("app", 0, pick_n(1), n=1, status=status)],
        [_status(), _status(conditions__0__observedGeneration=0, observedCRPGeneration=INT64)],
        [
            _status(conditions__0__status="Maybe"),
            _status(conditions__0__observedGeneration=-1),
            _status(observedCRPGeneration=INT64 + 1),
            _status(targetClusters__0__clusterScore__priorityScore=INT32 + 1),
            _status(targetClusters=[{"clusterName": "c1", "selected": False, "reason": "r"}] * 1001),
        ],
        ["ClusterSchedulingPolicySnapshot/app-0", "status."],
    ),
    "snapshotPolicy": (
        _with_snapshot("spec.policy"),
        [pick_n(INT32), {**pick_n(0), "tolerations": _tolerations(100)}],
        [
            pick_n(-1),
            {"placementType": "PickSome"},
            pick_n(1, spread_by=[spread("zone", 0)]),
            {**pick_n(0), "tolerations": _tolerations(101)},
        ],
        ["ClusterSchedulingPolicySnapshot/app-0", "spec.policy."],
    ),
    "names": (
        lambda name: [member_cluster(name), crp(name, pick_all())],
        ["a" * 63],
        ["a" * 64],
        ["metadata.name", "longer than 63"],
    ),
    "placementLabels": (
        _with_placement("metadata.labels"),
        [{"example.com/a": "b"}],
        [{"bad key": "b"}],
        [CRP, "metadata.labels"],
    ),
    "bindingLabels": (
        _with_binding("metadata.labels"),
        [{PARENT: "app", "example.com/a": "b"}],
        [{PARENT: "app", "bad key": "b"}, {PARENT: "app", "a": "-b"}],
        ["ClusterResourceBinding/app-c1-0000abcd", "metadata.labels"],
    ),
    "snapshotLabels": (
        _with_snapshot("metadata.labels.a"),
        ["b"],
        ["b" * 64],
        ["ClusterSchedulingPolicySnapshot/app-0", "metadata.labels"],
    ),
    "agentConditionType": (  # a list, once a key of a dict: TypeError
        _with_cluster("status.agentStatus.0.conditions.0.type"),
        ["Joined", "Anything"],
        [[], {"a": "b"}, 1],
        ["MemberCluster/c2", "status.agentStatus[0].conditions[0].type", "expected a string"],
    ),
    # conditions the scheduler does not consult: another agent's, the cluster's own (an enum was
    # checked only where it was read)
    "otherAgentConditionStatus": (
        _with_cluster("status.agentStatus.1.conditions.0.status"),
        ["True", "False", "Unknown"],
        ["true", "", None, 1],
        ["MemberCluster/c2", "status.agentStatus[1].conditions[0].status"],
    ),
    "clusterConditionStatus": (
        _with_cluster("status.conditions.0.status"),
        ["True", "Unknown"],
        ["Yes", None],
        ["MemberCluster/c2", "status.conditions[0].status"],
    ),
    "clusterConditionGeneration": (
        _with_cluster("status.conditions.0.observedGeneration"),
        [0, INT64, 3.0],
        [-1, INT64 + 1, 1.5],
        ["MemberCluster/c2", "status.conditions[0].observedGeneration"],
    ),
    "snapshotGeneration": (
        _with_snapshot("metadata.generation"),
        [0, INT64, None],  # null: as absent (it was refused)
        [-1, "1"],
        ["ClusterSchedulingPolicySnapshot/app-0", "metadata.generation"],
    ),
    "snapshotSpreadList": (  # a number was a TypeError (exit 1); "" and {} were taken as no list
        _with_snapshot("spec.policy.topologySpreadConstraints"),
        [[], [{"topologyKey": "zone", "maxSkew": 1}]],
        [-1, "", {}, "zone"],
        ["ClusterSchedulingPolicySnapshot/app-0", "spec.policy.topologySpreadConstraints"],
    ),
    # status conditions other controllers write (rollout, work applier): metav1.Condition's schema
    "placementConditionStatus": (
        _with_placement("status"),
        [{"conditions": [_condition("Scheduled", "True")]}],
        [{"conditions": [_condition("Scheduled", "true")]}, {"conditions": [_condition("Scheduled", None)]}],
        [CRP, "status.conditions[0].status"],
    ),
    "placementStatusesConditionGeneration": (
        _with_placement("status"),
        [
            {
                "placementStatuses": [
                    {"clusterName": "c1", "conditions": [_condition("Applied", "True", observedGeneration=2)]}
                ]
            }
        ],
        [
            {
                "placementStatuses": [
                    {
                        "clusterName": "c1",
                        "conditions": [_condition("Applied", "True", observedGeneration=-1)],
                    }
                ]
            }
        ],
        [CRP, "status.placementStatuses[0].conditions[0].observedGeneration"],
    ),
    "bindingConditionStatus": (
        _with_binding("status"),
        [{"conditions": [_condition("Applied", "Unknown")]}],
        [{"conditions": [_condition("Applied", "Maybe")]}],
        ["ClusterResourceBinding/app-c1-0000abcd", "status.conditions[0].status"],
    ),
    "placementGeneration": (
        _with_placement("metadata.generation"),
        [0, INT64, None],  # null: as absent (it was refused)
        [-1, "1", INT64 + 1],
        [CRP, "metadata.generation"],
    ),
}


def _condition(**changes) -> dict:
    """A condition at the edges metav1.Condition's schema allows, with `changes` (None: left out)."""
    out = {
        "type": "example.com/Ready" + "y" * (316 - 17),
        "status": "True",
        "lastTransitionTime": "2026-11-21T12:00:00.123456789+01:00",
        "reason": "A,b:c_9" + "d" * (1024 - 7),
        "message": "m" * 32768,
        "observedGeneration": INT64,
    }
    out.update(changes)
    return {k: v for k, v in out.items() if v is not None}


def _conditions(**changes) -> list[dict]:
    return [_condition(**changes), _condition(type="Other")]


# The conditions past an edge of metav1.Condition's schema: a required field left out, a type or a
# reason off its pattern or too long, a status off its enum, a message too long, a time that is no
# RFC 3339 time, a negative observedGeneration, a type listed twice.
BAD_CONDITIONS = [
    *(_conditions(**{name: None}) for name in ("type", "status", "lastTransitionTime", "reason", "message")),
    _conditions(type="y" * 317),
    _conditions(type="bad type"),
    _conditions(type="example.com/"),
    _conditions(status="Maybe"),
    _conditions(reason=""),
    _conditions(reason="a" * 1025),
    _conditions(reason="1a"),
    _conditions(reason="a,"),
    _conditions(reason="a b"),
    _conditions(message="m" * 32769),
    _conditions(lastTransitionTime="2026-11-21"),
    _conditions(lastTransitionTime="2026-11-21 12:00:00Z"),
    _conditions(observedGeneration=-1),
    [_condition(), _condition()],
]
GOOD_CONDITIONS = [_conditions(), _conditions(message="", observedGeneration=None, reason="R")]
NAMESPACE = {"group": "", "version": "v1", "kind": "Namespace"}
WITH_SELECTORS = {**NAMESPACE, "name": "web", "selectionScope": "NamespaceWithResourceSelectors"}
DEPLOYMENTS = {"group": "apps", "version": "v1", "kind": "Deployment", "name": "web"}
BINDING = "ClusterResourceBinding/app-c1-0000abcd"
SNAPSHOT = "ClusterSchedulingPolicySnapshot/app-0"


def _without(build, path: str):
    """A builder whose value `None` leaves the field at `path` out."""
    return lambda value: build(value) if value is not None else _dropped(build("x"), path)


def _dropped(objects: list[dict], path: str) -> list[dict]:
    *parents, last = path.split(".")
    node = objects[-1]
    for key in parents:
        node = node[key]
    del node[last]
    return objects


EDGES.update(
    {
        "clusterSpec": (
            lambda spec: [_set(member_cluster("c2"), "spec", spec)],
            [{"identity": {"kind": "User", "name": ""}}],
            [None, {}, {"identity": None}, {"identity": {"kind": "User"}}, {"identity": {"name": "u"}}],
            ["MemberCluster/c2", "spec"],
        ),
        "identityType": (
            _with_cluster("spec.identity.name"),
            ["u"],
            [3],
            ["MemberCluster/c2", "spec.identity.name"],
        ),
        "propertyObservationTime": (
            _with_cluster("status.properties"),
            [{"x": {"value": "3", "observationTime": "2026-11-21T12:00:00.5+01:00"}}],
            [{"x": {"value": "3"}}, {"x": {"value": "3", "observationTime": "yesterday"}}],
            ["MemberCluster/c2", "status.properties[x].observationTime"],
        ),
        "usageObservationTime": (
            _with_cluster("status.resourceUsage.observationTime"),
            [NOW],
            ["2026-11-21T12:00Z"],
            ["MemberCluster/c2", "status.resourceUsage.observationTime"],
        ),
        "agentType": (
            _with_cluster("status.agentStatus.1.type"),
            ["SomeAgent"],
            [None, 1],
            ["MemberCluster/c2", "status.agentStatus[1].type"],
        ),
        "agentHeartbeat": (  # an agent the scheduler does not read: the API server checks it all the same
            _with_cluster("status.agentStatus.1.lastReceivedHeartbeat"),
            [NOW],
            ["now"],
            ["MemberCluster/c2", "status.agentStatus[1].lastReceivedHeartbeat"],
        ),
        "agentConditions": (
            _with_cluster("status.agentStatus.1.conditions"),
            GOOD_CONDITIONS,
            BAD_CONDITIONS,
            ["MemberCluster/c2", "status.agentStatus[1].conditions["],
        ),
        "clusterConditions": (
            _with_cluster("status.conditions"),
            GOOD_CONDITIONS,
            BAD_CONDITIONS,
            ["MemberCluster/c2", "status.conditions["],
        ),
        "placementConditions": (
            _with_placement("status.conditions"),
            GOOD_CONDITIONS,
            BAD_CONDITIONS,
            [CRP, "status.conditions["],
        ),
        "bindingConditions": (
            _with_binding("status.conditions"),
            GOOD_CONDITIONS,
            BAD_CONDITIONS,
            [BINDING, "status.conditions["],
        ),
        "snapshotConditions": (
            _with_snapshot("status"),
            [_status(conditions=c) for c in GOOD_CONDITIONS],
            [_status(conditions=c) for c in BAD_CONDITIONS],
            [SNAPSHOT, "status.conditions["],
        ),
        # apimachinery's ValidateAnnotations: qualified keys (case aside), 256 KiB of UTF-8 in all
        "annotations": (
            _with_cluster("metadata.annotations"),
            [
                {"Example.COM/Key_1": "v", "k": "x" * (262144 - 1 - 18 - 1)},
                {"k": "é" * 131071},
            ],
            [
                {"k": "x" * 262144},
                {"k": "é" * 131072},
                {"bad key": "v"},
                {"a/b/c": ""},
                {"-a": ""},
                {"example.com/" + "n" * 64: ""},
            ],
            ["MemberCluster/c2", "metadata.annotations"],
        ),
        "snapshotAnnotations": (
            _with_snapshot("metadata.annotations.bad key"),
            [],
            ["v"],
            [SNAPSHOT, "metadata.annotations"],
        ),
        "finalizers": (
            _with_placement("metadata.finalizers"),
            [["example.com/cleanup", "kubernetes"]],
            [["bad finalizer"], ["a/b/c"], ["example.com/"]],
            [CRP, "metadata.finalizers"],
        ),
        "bindingFinalizers": (
            _with_binding("metadata.finalizers"),
            [["kubernetes-fleet.io/scheduler-crb-cleanup"]],
            [["-x"]],
            [BINDING, "metadata.finalizers"],
        ),
        **{
            f"binding-{field}": (
                _without(_with_binding(f"spec.{field}"), f"spec.{field}"),
                [""],
                [None, 7],
                [BINDING, f"spec.{field}"],
            )
            for field in ("resourceSnapshotName", "schedulingPolicySnapshotName")
        },
        "bindingDecision": (
            _with_binding("spec.clusterDecision"),
            [{"clusterName": "c1", "selected": True, "reason": ""}],
            [
                None,
                {"selected": True, "reason": ""},
                {"clusterName": "c1", "reason": ""},
                {"clusterName": "c1", "selected": "yes", "reason": ""},
                {"clusterName": "c1", "selected": True},
            ],
            [BINDING, "spec.clusterDecision"],
        ),
        "bindingState": (  # the CRD has no enum for it: any string (binding_states tests its semantics)
            _without(_with_binding("spec.state"), "spec.state"),
            ["Pending", "", "Bound"],
            [None, 3],
            [BINDING, "spec.state"],
        ),
        "bindingTarget": (
            _without(_with_binding("spec.targetCluster"), "spec.targetCluster"),
            ["", "c9"],
            [None, 3],
            [BINDING, "spec.targetCluster"],
        ),
        "bindingSpec": (
            _with_binding("spec"),
            [],
            [None],
            [BINDING, "spec"],
        ),
        "policyHash": (
            _without(_with_snapshot("spec.policyHash"), "spec.policyHash"),
            ["", "YWJj", "YW\nJj", "YQ=="],
            [None, "abc", "YQ", "YQ=", "!!!!", 5],
            [SNAPSHOT, "spec.policyHash"],
        ),
        "snapshotSpec": (
            _with_snapshot("spec"),
            [],
            [None],
            [SNAPSHOT, "spec"],
        ),
        "observedCRPGeneration": (
            _with_snapshot("status"),
            [{"observedCRPGeneration": 0}],
            [{}, {"conditions": []}, {"observedCRPGeneration": "1"}],
            [SNAPSHOT, "status.observedCRPGeneration"],
        ),
        "targetClusterFields": (
            lambda targets: _with_snapshot("status")(_status(targetClusters=targets)),
            [[{"clusterName": "c1", "selected": False, "reason": ""}]],
            [
                [{"selected": False, "reason": ""}],
                [{"clusterName": "c1", "reason": ""}],
                [{"clusterName": "c1", "selected": False}],
            ],
            [SNAPSHOT, "status.targetClusters[0]."],
        ),
        "placementSpec": (
            _with_placement("spec"),
            [],
            [None],
            [CRP, "spec"],
        ),
        "resourceSelectorLabels": (
            _with_placement("spec.resourceSelectors"),
            [[{**DEPLOYMENTS, "name": "", "labelSelector": {"matchLabels": {"app": "web"}}}]],
            [
                [{**NAMESPACE, "labelSelector": {"matchLabels": {"bad key": "v"}}}],
                [{**NAMESPACE, "labelSelector": {"matchExpressions": [{"key": "a", "operator": "In"}]}}],
                [{**NAMESPACE, "labelSelector": {"matchExpressions": [{"key": "a", "operator": "Near"}]}}],
            ],
            [CRP, "spec.resourceSelectors[0].labelSelector"],
        ),
        # the CRD's rules across spec.resourceSelectors and spec.statusReportingScope
        "namespaceAccessible": (
            lambda selectors: [
                CLUSTER,
                _set(
                    _set(crp("app", pick_n(1)), "spec.resourceSelectors", selectors),
                    "spec.statusReportingScope",
                    "NamespaceAccessible",
                ),
            ],
            [
                [{**NAMESPACE, "name": "web"}, DEPLOYMENTS],
                [{"group": "x.io", "version": "v1", "kind": "Namespace"}],
            ],
            [[DEPLOYMENTS], [{**NAMESPACE, "name": "a"}, {**NAMESPACE, "name": "b"}]],
            [CRP, "spec.statusReportingScope"],
        ),
        "namespaceWithResourceSelectors": (
            _with_placement("spec.resourceSelectors"),
            [
                [WITH_SELECTORS, DEPLOYMENTS],
                [WITH_SELECTORS, {**NAMESPACE, "group": "x.io", "name": "other"}],
                [{**WITH_SELECTORS, "version": "v2"}, {**NAMESPACE, "name": "b"}],
            ],
            [
                [WITH_SELECTORS, {**WITH_SELECTORS, "name": "other"}],
                [{**WITH_SELECTORS, "name": ""}],
                [{k: v for k, v in WITH_SELECTORS.items() if k != "name"}],
                [{**WITH_SELECTORS, "name": "", "labelSelector": {}}],
                [WITH_SELECTORS, {**NAMESPACE, "name": "other"}],
                [WITH_SELECTORS, {**NAMESPACE, "name": "other", "selectionScope": "NamespaceOnly"}],
            ],
            [CRP, "spec.resourceSelectors"],
        ),
    }
)


def _edge_cases(kind: int) -> list:
    return [
        pytest.param(name, value, id=f"{name}-{i}")
        for name, edge in EDGES.items()
        for i, value in enumerate(edge[kind])
    ]


@pytest.mark.parametrize(("edge", "value"), _edge_cases(1))
def test_a_value_at_an_edge_is_taken(edge, value):
    build, *_ = EDGES[edge]
    checked_outcome(build(value), "greedy")


@pytest.mark.parametrize(("edge", "value"), _edge_cases(2))
def test_a_value_past_an_edge_is_refused(tmp_path, edge, value):
    build, _, _, expected = EDGES[edge]
    path = tmp_path / "fleet.yaml"
    path.write_text(yaml.safe_dump_all(build(value), sort_keys=False), encoding="utf-8")
    assert_usage_error(run_cli(["solve", "-f", str(path), "--now", NOW]), *expected)


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


@pytest.mark.parametrize("name", ["a\nb", "a\rb", "a\u2028b", "a\x85b", "a\x1cb"])
def test_an_error_is_one_line_whatever_the_input_holds(tmp_path, name):
    # The name is refused, and the error names the object by it: as it was, its line break broke
    # the error line in two. Now written as repr writes it.
    path = tmp_path / "fleet.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": [member_cluster(name)]}))
    escaped = repr(name)[1:-1]
    assert_usage_error(run_cli(["solve", "-f", str(path)]), f"MemberCluster/{escaped}: metadata.name: ")


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
