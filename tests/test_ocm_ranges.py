"""Every integer and enum field of the OCM CRDs (api: cluster/*/0000_*.crd.yaml) is refused at
load as the API server refuses it: each field at its edge (accepted) and just past it (an
InputError naming the object and the field)."""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from typing import Any

import pytest

from adapters.errors import InputError
from tests.fixtures.ocm import (
    binding,
    builtin,
    cluster_set,
    decision,
    hub,
    load,
    managed_cluster,
    placement,
    score,
    taint,
    toleration,
)

INT32, INT64 = 2**31 - 1, 2**63 - 1
P, BIND = "Placement/ns1/p", "ManagedClusterSetBinding/ns1/s"
CONDITION = {"type": "Ready", "status": "True", "reason": "Fine", "message": "", "lastTransitionTime": None}


def _placement() -> dict[str, Any]:
    return placement(
        "p",
        prioritizers=[builtin("Balance")],
        tolerations=[toleration("k", "Exists")],
        spread=[{"topologyKey": "zone", "topologyKeyType": "Label"}],
        per_group="100%",
        status={"decisionGroups": [{}], "conditions": [dict(CONDITION)]},
    )


def _cluster() -> dict[str, Any]:
    c = managed_cluster(
        "c1", taints=[taint("k")], allocatable={"cpu": "4"}, capacity={"cpu": "4"}, claims={"region": "east"}
    )
    c["status"]["managedNamespaces"] = [{"clusterSet": "s", "name": "ns", "conditions": [dict(CONDITION)]}]
    return c


def _set() -> dict[str, Any]:
    s = cluster_set("s", exclusive=True)
    s["status"] = {"conditions": [dict(CONDITION)]}
    return s


def _binding() -> dict[str, Any]:
    b = binding("s")
    b["status"] = {"conditions": [dict(CONDITION)]}
    return b


def _score() -> dict[str, Any]:
    s = score("c1", "demo", {"cpu": 1})
    s["status"]["conditions"] = [dict(CONDITION)]
    return s


OBJECTS: dict[str, Callable[[], dict[str, Any]]] = {
    "Placement/ns1/p": _placement,
    "ManagedCluster/c1": _cluster,
    "ManagedClusterSet/s": _set,
    "ManagedClusterSetBinding/ns1/s": _binding,
    "AddOnPlacementScore/c1/demo": _score,
    "PlacementDecision/ns1/p-decision-1": lambda: decision("p", 1, ["c1"]),
}


def _set_field(obj: dict[str, Any], path: str, value: Any) -> None:
    parts = [int(p) if p.isdigit() else p for p in re.findall(r"[^.\[\]]+", path)]
    target = obj
    for part in parts[:-1]:
        target = target[part]
    if value is _ABSENT:
        del target[parts[-1]]
    else:
        target[parts[-1]] = value


_ABSENT = object()


def _load_with(where: str, path: str, value: Any) -> None:
    objects = {name: make() for name, make in OBJECTS.items()}
    _set_field(objects[where], path, value)
    load(hub(*copy.deepcopy(list(objects.values()))))


# (object, field, values accepted, values refused)
FIELDS = [
    # a whole float the API server stores as its integer; another float it refuses
    (P, "spec.numberOfClusters", [0, INT32, 2.0], [-1, INT32 + 1, 1.5, True]),
    (P, "spec.prioritizerPolicy.configurations[0].weight", [-10, 10], [-11, 11]),
    (P, "spec.spreadPolicy.spreadConstraints[0].maxSkew", [1, INT32], [0, INT32 + 1]),
    (
        P,
        "spec.tolerations[0].tolerationSeconds",
        [-INT64 - 1, INT64],
        [-INT64 - 2, INT64 + 1],
    ),
    (
        P,
        "spec.decisionStrategy.groupStrategy.clustersPerDecisionGroup",
        [-INT32 - 1, 0, INT32, "1%", "100%", "7", 2.0],
        [-INT32 - 2, INT32 + 1, "0%", "101%", "07", "", "x", 2.5],
    ),
    (P, "status.numberOfSelectedClusters", [0, INT32], [INT32 + 1]),
    (P, "status.decisionGroups[0].decisionGroupIndex", [-INT32 - 1, INT32], [INT32 + 1]),
    (P, "status.decisionGroups[0].clusterCount", [-INT32 - 1, INT32], [-INT32 - 2]),
    (P, "status.conditions[0].observedGeneration", [0, INT64], [-1, INT64 + 1]),
    (P, "status.conditions[0].status", ["True", "False", "Unknown"], ["", "true", _ABSENT]),
    (P, "spec.sortBy", ["ClusterName", "Score", None], ["", "Name"]),
    (P, "spec.scoreRateLimit", ["1m", "30s", "2h", None], ["", "1d", "m", "1.5m"]),
    (
        P,
        "spec.tolerations[0].effect",
        ["NoSelect", "NoSelectIfNew", None],
        ["", "NoSchedule"],
    ),
    (
        P,
        "spec.prioritizerPolicy.configurations[0].scoreCoordinate.type",
        ["BuiltIn", None],
        ["", "Builtin"],
    ),
    (P, "spec.spreadPolicy.spreadConstraints[0].topologyKeyType", ["Claim"], ["", "Zone"]),
    (
        P,
        "spec.spreadPolicy.spreadConstraints[0].whenUnsatisfiable",
        ["DoNotSchedule", "ScheduleAnyway", None],
        ["", "Never"],
    ),
    # a null amount: pruned by the API server, no amount
    ("ManagedCluster/c1", "status.allocatable.cpu", ["4", 4, 4.0, None], [1.5, True, "4 cores"]),
    # a claim's name and value, 1 to 253 and 1 to 1024 characters (any length was taken), no null
    ("ManagedCluster/c1", "status.clusterClaims[0].name", ["r", "r" * 253], ["", "r" * 254, 1]),
    ("ManagedCluster/c1", "status.clusterClaims[0].value", ["v", "v" * 1024], ["", "v" * 1025]),
    ("ManagedCluster/c1", "status.clusterClaims[0]", [{"name": "r", "value": "v"}], [None]),
    ("ManagedCluster/c1", "spec.hubAcceptsClient", [True, False, None], ["true", 1]),  # a boolean
    ("ManagedCluster/c1", "spec.leaseDurationSeconds", [-INT32 - 1, 0, INT32], [-INT32 - 2, INT32 + 1]),
    ("ManagedCluster/c1", "spec.taints[0].effect", ["PreferNoSelect"], ["", "NoSchedule", _ABSENT]),
    ("ManagedCluster/c1", "status.conditions[0].status", ["Unknown"], ["", "Maybe", _ABSENT]),
    ("ManagedCluster/c1", "status.conditions[0].observedGeneration", [0, INT64], [-1, INT64 + 1]),
    (
        "ManagedCluster/c1",
        "status.managedNamespaces[0].conditions[0].observedGeneration",
        [0, INT64],
        [-1, INT64 + 1],
    ),
    (
        "ManagedClusterSet/s",
        "spec.clusterSelector.selectorType",
        ["ExclusiveClusterSetLabel", None],
        ["", "Exclusive"],
    ),
    ("ManagedClusterSet/s", "status.conditions[0].observedGeneration", [0, INT64], [-1, INT64 + 1]),
    (BIND, "status.conditions[0].status", ["False"], ["", "no"]),
    (
        "ManagedClusterSetBinding/ns1/s",
        "status.conditions[0].observedGeneration",
        [0, INT64],
        [-1, INT64 + 1],
    ),
    ("AddOnPlacementScore/c1/demo", "status.scores[0].value", [-100, 0, 100], [-101, 101, _ABSENT, None]),
    ("AddOnPlacementScore/c1/demo", "status.scores[0].name", ["x"], [_ABSENT]),
    ("AddOnPlacementScore/c1/demo", "status.conditions[0].observedGeneration", [0, INT64], [-1, INT64 + 1]),
    (P, "spec", [{}], [None]),  # required, {} at least (a null one was taken)
    # required in a status, [] at least (a status without decisions was taken)
    ("PlacementDecision/ns1/p-decision-1", "status.decisions", [[]], [None, _ABSENT]),
    ("PlacementDecision/ns1/p-decision-1", "status.decisions[0].score", [-INT64 - 1, INT64], [INT64 + 1]),
    ("PlacementDecision/ns1/p-decision-1", "status.decisions[0].reason", ["", "why"], [_ABSENT]),
    ("PlacementDecision/ns1/p-decision-1", "status.decisions[0].clusterName", ["c9"], [_ABSENT]),
]


@pytest.mark.parametrize(
    ("where", "path", "accepted", "refused"), FIELDS, ids=[f"{w}:{p}" for w, p, *_ in FIELDS]
)
def test_field_at_and_past_its_edge(where, path, accepted, refused):
    for value in accepted:
        _load_with(where, path, value)
    for value in refused:
        with pytest.raises(InputError) as caught:
            _load_with(where, path, value)
        assert (caught.value.where, caught.value.field) == (where, path), value
