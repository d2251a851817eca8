"""Builders for Open Cluster Management objects as plain dicts, and helpers that load them or run
the command line on them.

Every time is relative to NOW, the `--now` the tests pass: `ago(5)` is five minutes before NOW.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml
from click.testing import CliRunner

from adapters.cli.main import main
from adapters.kube.manifests import parse_text
from adapters.ocm import api as ocm

NOW = "2026-11-21T12:00:00Z"
NOW_TIME = datetime(2026, 11, 21, 12, 0, 0, tzinfo=UTC)
MODES = ("greedy", "optimal")
NS = "ns1"

GROUP = "cluster.open-cluster-management.io"
V1, V1BETA1, V1BETA2, V1ALPHA1 = (f"{GROUP}/{v}" for v in ("v1", "v1beta1", "v1beta2", "v1alpha1"))
CLUSTERSET_LABEL = f"{GROUP}/clusterset"
PLACEMENT_LABEL = f"{GROUP}/placement"
GROUP_NAME_LABEL = f"{GROUP}/decision-group-name"
GROUP_INDEX_LABEL = f"{GROUP}/decision-group-index"
DISABLE = f"{GROUP}/experimental-scheduling-disable"
UNREACHABLE = f"{GROUP}/unreachable"
UNAVAILABLE = f"{GROUP}/unavailable"


def ago(minutes: float) -> str:
    return (NOW_TIME - timedelta(minutes=minutes)).strftime("%Y-%m-%dT%H:%M:%SZ")


def later(minutes: float) -> str:
    return ago(-minutes)


# -------------------------------------------------------------------------------------- clusters


def managed_cluster(
    name: str,
    labels: Mapping[str, str] | None = None,
    *,
    claims: Mapping[str, str] | None = None,
    allocatable: Mapping[str, Any] | None = None,
    capacity: Mapping[str, Any] | None = None,
    taints: Sequence[Mapping[str, Any]] = (),
    available: str | None = "True",
    available_since: str = "2026-01-01T00:00:00Z",
    terminating: bool = False,
) -> dict[str, Any]:
    """A ManagedCluster; `available` is the Available condition's status (None: no condition)."""
    metadata: dict[str, Any] = {"name": name}
    if labels:
        metadata["labels"] = dict(labels)
    if terminating:
        metadata["deletionTimestamp"] = ago(1)
    spec: dict[str, Any] = {"hubAcceptsClient": True}
    if taints:
        spec["taints"] = [dict(t) for t in taints]
    status: dict[str, Any] = {}
    if claims:
        status["clusterClaims"] = [{"name": k, "value": v} for k, v in claims.items()]
    if allocatable:
        status["allocatable"] = dict(allocatable)
    if capacity:
        status["capacity"] = dict(capacity)
    if available is not None:
        status["conditions"] = [
            {
                "type": "ManagedClusterConditionAvailable",
                "status": available,
                "reason": "ManagedClusterAvailable",
                "message": "",
                "lastTransitionTime": available_since,
            }
        ]
    return {"apiVersion": V1, "kind": "ManagedCluster", "metadata": metadata, "spec": spec, "status": status}


def taint(key: str, effect: str = "NoSelect", *, value: str = "", added: str | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "effect": effect, "timeAdded": added}
    if value:
        out["value"] = value
    return out


def cluster_set(
    name: str, selector: Mapping[str, Any] | None = None, *, exclusive: bool = False
) -> dict[str, Any]:
    """A ManagedClusterSet: by label selector (`{}`: every cluster) or ExclusiveClusterSetLabel."""
    if exclusive:
        spec = {"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}}
    else:
        spec = {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": dict(selector or {})}}
    return {"apiVersion": V1BETA2, "kind": "ManagedClusterSet", "metadata": {"name": name}, "spec": spec}


def binding(name: str, namespace: str = NS, *, target: str | None = None) -> dict[str, Any]:
    return {
        "apiVersion": V1BETA2,
        "kind": "ManagedClusterSetBinding",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"clusterSet": target or name},
    }


def hub(*clusters: dict[str, Any], namespace: str = NS) -> list[dict[str, Any]]:
    """The global set (every cluster) bound into `namespace`, and `clusters`."""
    return [cluster_set("global"), binding("global", namespace), *clusters]


def score(
    cluster: str, name: str, scores: Mapping[str, int], *, valid_until: str | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": V1ALPHA1,
        "kind": "AddOnPlacementScore",
        "metadata": {"name": name, "namespace": cluster},
        "status": {"scores": [{"name": k, "value": v} for k, v in scores.items()], "validUntil": valid_until},
    }


# ------------------------------------------------------------------------------------ placements


def builtin(name: str, weight: int = 1) -> dict[str, Any]:
    return {"scoreCoordinate": {"type": "BuiltIn", "builtIn": name}, "weight": weight}


def addon(resource: str, score_name: str, weight: int = 1) -> dict[str, Any]:
    return {
        "scoreCoordinate": {"type": "AddOn", "addOn": {"resourceName": resource, "scoreName": score_name}},
        "weight": weight,
    }


def predicate(
    labels: Mapping[str, Any] | None = None,
    *,
    claims: Sequence[Mapping[str, Any]] | None = None,
    cel: Sequence[str] | None = None,
) -> dict[str, Any]:
    selector: dict[str, Any] = {}
    if labels is not None:
        selector["labelSelector"] = dict(labels)
    if claims is not None:
        selector["claimSelector"] = {"matchExpressions": [dict(c) for c in claims]}
    if cel is not None:
        selector["celSelector"] = {"celExpressions": list(cel)}
    return {"requiredClusterSelector": selector}


def toleration(
    key: str = "",
    operator: str | None = None,
    *,
    value: str = "",
    effect: str = "",
    seconds: int | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if key:
        out["key"] = key
    if operator is not None:
        out["operator"] = operator
    if value:
        out["value"] = value
    if effect:
        out["effect"] = effect
    if seconds is not None:
        out["tolerationSeconds"] = seconds
    return out


def placement(
    name: str = "p",
    namespace: str = NS,
    *,
    n: int | None = None,
    mode: str | None = None,
    prioritizers: Sequence[Mapping[str, Any]] | None = None,
    predicates: Sequence[Mapping[str, Any]] | None = None,
    tolerations: Sequence[Mapping[str, Any]] | None = None,
    cluster_sets: Sequence[str] | None = None,
    groups: Sequence[Mapping[str, Any]] | None = None,
    per_group: int | str | None = None,
    spread: Sequence[Mapping[str, Any]] | None = None,
    annotations: Mapping[str, str] | None = None,
    status: Mapping[str, Any] | None = None,
    uid: str | None = None,
    deleting: bool = False,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if cluster_sets is not None:
        spec["clusterSets"] = list(cluster_sets)
    if n is not None:
        spec["numberOfClusters"] = n
    if predicates is not None:
        spec["predicates"] = [dict(p) for p in predicates]
    if mode is not None or prioritizers is not None:
        policy: dict[str, Any] = {}
        if mode is not None:
            policy["mode"] = mode
        if prioritizers is not None:
            policy["configurations"] = [dict(p) for p in prioritizers]
        spec["prioritizerPolicy"] = policy
    if tolerations is not None:
        spec["tolerations"] = [dict(t) for t in tolerations]
    if spread is not None:
        spec["spreadPolicy"] = {"spreadConstraints": [dict(s) for s in spread]}
    if groups is not None or per_group is not None:
        strategy: dict[str, Any] = {}
        if groups is not None:
            strategy["decisionGroups"] = [dict(g) for g in groups]
        if per_group is not None:
            strategy["clustersPerDecisionGroup"] = per_group
        spec["decisionStrategy"] = {"groupStrategy": strategy}
    metadata: dict[str, Any] = {"name": name, "namespace": namespace, "resourceVersion": "7"}
    if uid:
        metadata["uid"] = uid
    if annotations:
        metadata["annotations"] = dict(annotations)
    if deleting:
        metadata["deletionTimestamp"] = ago(1)
    out: dict[str, Any] = {"apiVersion": V1BETA1, "kind": "Placement", "metadata": metadata, "spec": spec}
    if status is not None:
        out["status"] = dict(status)
    return out


def group(name: str, labels: Mapping[str, str] | None = None) -> dict[str, Any]:
    selector = {"labelSelector": {"matchLabels": dict(labels)}} if labels else {}
    return {"groupName": name, "groupClusterSelector": selector}


def decision(
    placement_name: str,
    k: int,
    clusters: Sequence[str],
    namespace: str = NS,
    *,
    group_name: str = "",
    index: int = 0,
) -> dict[str, Any]:
    """A PlacementDecision as upstream writes it."""
    return {
        "apiVersion": V1BETA1,
        "kind": "PlacementDecision",
        "metadata": {
            "name": f"{placement_name}-decision-{k}",
            "namespace": namespace,
            "resourceVersion": "3",
            "labels": {
                PLACEMENT_LABEL: placement_name,
                GROUP_NAME_LABEL: group_name,
                GROUP_INDEX_LABEL: str(index),
            },
        },
        "status": {"decisions": [{"clusterName": c, "reason": ""} for c in clusters]},
    }


# ---------------------------------------------------------------------------------------- running


def manifests(objects: Sequence[Mapping[str, Any]]):
    text = yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False)
    return parse_text(text, "ocm.yaml")


def load(objects: Sequence[Mapping[str, Any]], now: datetime = NOW_TIME):
    return ocm.load(manifests(objects), now=now)


def run_cli(tmp_path: Path, objects: Sequence[Mapping[str, Any]], *args: str):
    path = tmp_path / "ocm.yaml"
    path.write_text(yaml.safe_dump_all([dict(o) for o in objects], sort_keys=False), encoding="utf-8")
    return CliRunner().invoke(main, ["solve", "-f", str(path), *args], catch_exceptions=True)


class Written:
    """The objects `solve -o plan` writes for an OCM input."""

    def __init__(self, plan: dict[str, Any]) -> None:
        self.apply = plan["apply"]
        self.delete = plan["delete"]
        self.summary = plan["summary"]

    @classmethod
    def solve(
        cls, tmp_path: Path, objects: Sequence[Mapping[str, Any]], mode: str, now: str = NOW
    ) -> Written:
        result = run_cli(tmp_path, objects, "--now", now, "--mode", mode, "-o", "plan")
        assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
        return cls(json.loads(result.stdout))

    def placement(self, name: str = "p", namespace: str = NS) -> dict[str, Any]:
        (found,) = [
            o
            for o in self.apply
            if o["kind"] == "Placement"
            and o["metadata"]["name"] == name
            and o["metadata"]["namespace"] == namespace
        ]
        return found

    def decision_objects(self, name: str = "p", namespace: str = NS) -> list[dict[str, Any]]:
        return [
            o
            for o in self.apply
            if o["kind"] == "PlacementDecision"
            and o["metadata"]["namespace"] == namespace
            and o["metadata"]["labels"][PLACEMENT_LABEL] == name
        ]

    def chosen(self, name: str = "p", namespace: str = NS) -> list[str]:
        """Every decided cluster, in object order."""
        return [
            d["clusterName"] for o in self.decision_objects(name, namespace) for d in o["status"]["decisions"]
        ]

    def condition(self, kind: str, name: str = "p", namespace: str = NS) -> dict[str, Any]:
        (found,) = [c for c in self.placement(name, namespace)["status"]["conditions"] if c["type"] == kind]
        return found

    def satisfied(self, name: str = "p", namespace: str = NS) -> tuple[str, str, str]:
        c = self.condition("PlacementSatisfied", name, namespace)
        return c["status"], c["reason"], c["message"]

    def misconfigured(self, name: str = "p", namespace: str = NS) -> tuple[str, str, str]:
        c = self.condition("PlacementMisconfigured", name, namespace)
        return c["status"], c["reason"], c["message"]
