"""Whole valid hubs of every system, one field set to an edge value, through the whole command.

Each example takes a small valid hub (Fleet, OCM, openMCP with its scheduler config, kcp v0.5 and
v0.8, Karmada), picks an object (the openMCP config is one too) and a field in it, sets the field to an
edge value, and runs `placement-solver solve` on the result in both modes, each twice. Asserted:
exit 0 with output, or exit 2 with nothing on standard output and exactly one line on standard
error that names the object (kind and name, a kcp object with its workspace; the file and
document where the object itself is malformed; the config file) and a field path; never a
traceback, another exit code or a Python exception's name; the same bytes twice; the same
verdict in both modes.

Three kinds of example:

- any field present in the hub, set to any edge value (numbers at and past the int32 and int64
  edges, floats, booleans, strings, label-like strings, empty and one-item lists and maps, null);
- the integer and enum fields each system's CRDs (and the openMCP config) declare, present or not
  (Fleet's taken from its own schema tables, adapters.fleet.schema; the others' written down
  below with the upstream CRD they come from), set to values at and past their bounds and around
  their enums: a value the API server (or the webhook, or upstream's config validation) refuses
  must be refused, naming that field;
- a label key and value at and past Kubernetes' length and character rules, in an object's
  metadata.labels: refused, naming metadata.labels, exactly when the API server refuses it.

A case of each system also runs through the console script in a process of its own, which must
say what the command says in this one. The example counts come from the hypothesis profile
(tests/conftest.py): `ci` by default, `HYPOTHESIS_PROFILE=thorough` for a longer local run.
"""

from __future__ import annotations

import builtins
import copy
import json
import re
import subprocess
import sys
import traceback
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.cli.main import main
from adapters.errors import InputError
from adapters.fleet import schema
from adapters.fleet.names import BINDING, MEMBER_CLUSTER, PLACEMENT, POLICY_SNAPSHOT
from adapters.kcp.workspace import workspace_of
from adapters.kube.fields import INT32, INT64
from adapters.registry import reads
from tests.fixtures.common import MODES, NOW
from tests.fixtures.hubs import HUB_NAMES, valid_hub

FieldPath = tuple[str | int, ...]  # a field's path in its object: keys and list indices

# ------------------------------------------------------------------------------------------ values

INTEGER_EDGES = (0, -1, 1, INT32, INT32 + 1, -INT32 - 1, -INT32 - 2, INT64, INT64 + 1, -INT64 - 1, -INT64 - 2)
FLOATS = (1.0, 1.5, -1.0, 0.0, 0.5)  # NaN and infinities are no JSON: left out
LONG_PREFIX = ".".join(["a" * 63] * 3 + ["a" * 61])  # a DNS subdomain of 253 characters
# Label keys and values with the API server's verdict (apimachinery's IsQualifiedName and
# IsValidLabelValue), spelt out here rather than asked of adapters.kube.validation.
LABEL_KEYS: dict[str, bool] = {
    "a": True,
    "A": True,
    "9": True,
    "a-b_c.d": True,
    "a" * 63: True,
    "a" * 64: False,
    f"{LONG_PREFIX}/a": True,
    f"{LONG_PREFIX}a/a": False,  # a 254-character prefix
    "example.com/" + "a" * 63: True,
    "example.com/" + "a" * 64: False,
    "": False,
    "-a": False,
    "a-": False,
    "_a": False,
    "a_": False,
    ".a": False,
    "a.": False,
    "/a": False,
    "a/": False,
    "a/b/c": False,
    "Example.com/a": False,
    "-example.com/a": False,
    "example_com/a": False,
    "a b": False,
    "é": False,
    "example.com/é": False,
}
LABEL_VALUES: dict[str, bool] = {
    "": True,
    "a": True,
    "A-b_c.9": True,
    "a" * 63: True,
    "a" * 64: False,
    "-a": False,
    "a-": False,
    "_a": False,
    "a_": False,
    ".a": False,
    "a.": False,
    "a/b": False,
    "a b": False,
    "é": False,
}
STRINGS = ("", "a", "1", "true", "null", "a\nb", "a\u2028b", "é", *LABEL_KEYS)
CONTAINERS = ([], {}, None, ["a"], {"a": "b"}, [{}], [None], {"a": 1})
ANY_VALUE = (*INTEGER_EDGES, *FLOATS, True, False, *STRINGS, *CONTAINERS)


# Quantities the API server takes that pass int64 in millicores or whole units.
HUGE_QUANTITIES = (str(INT64), str(-INT64 - 1), "8Ei", f"{INT64}k")


def neighbours(value: Any) -> tuple[Any, ...]:
    """Values next to a field's own: a number one off, as a float and a string; a word in
    another case, one letter longer, or cut short; a number written as a string (a quantity,
    say) also past int64."""
    if isinstance(value, bool):
        return (not value, str(value).lower())
    if isinstance(value, int):
        return (value + 1, value - 1, -value, float(value), str(value))
    if isinstance(value, str) and value:
        near = (value.lower(), value.upper(), value.swapcase(), value + "x", value[:-1], f" {value}")
        return (*near, *HUGE_QUANTITIES) if value[0].isdigit() else near
    return ()


# -------------------------------------------------------------------------------- declared fields


@dataclass(frozen=True, slots=True)
class Enum:
    """A string field whose schema lists its values; `required`: refused when absent or null
    (which the API server prunes), else absent is fine."""

    values: tuple[str, ...]
    required: bool = False

    def edges(self) -> tuple[Any, ...]:
        near = tuple(v for value in self.values for v in (value.lower(), value.upper(), value + "s"))
        return (*self.values, *near, "", "Unknown-word", 1, True, ["a"], {"a": "b"}, None)

    def valid(self, value: Any) -> bool:
        return value in self.values if isinstance(value, str) else value is None and not self.required


@dataclass(frozen=True, slots=True)
class Integer:
    """An integer field within [minimum, maximum] (the CRD's format and bounds)."""

    maximum: int = INT64
    minimum: int | None = None
    required: bool = False

    @property
    def low(self) -> int:
        return -self.maximum - 1 if self.minimum is None else self.minimum

    def edges(self) -> tuple[Any, ...]:
        bounds = (self.low - 1, self.low, self.low + 1, self.maximum - 1, self.maximum, self.maximum + 1)
        return (*bounds, *INTEGER_EDGES, *FLOATS, float(self.maximum), True, "1", "", None, [], {})

    def valid(self, value: Any) -> bool:
        # The API server takes a float without a fraction where an integer belongs (kube-openapi's
        # type validator, isFloatInt, up to 2**53) and stores it as that integer.
        if isinstance(value, float) and value.is_integer() and abs(value) < 2**53:
            value = int(value)
        if value is None:
            return not self.required
        return type(value) is int and self.low <= value <= self.maximum


Domain = Enum | Integer


@dataclass(frozen=True, slots=True)
class Declared:
    """A field a kind's schema declares, at `path` ("[]": the first item of a list, made from
    `seeds` when the list is absent), only in objects of API `version` when one is given."""

    kind: str
    path: str
    domain: Domain
    version: str | None = None


# Fleet: every enum and integer rule of adapters.fleet.schema (the CRDs' schemas and the webhook,
# kubefleet config/crd/bases), and those of the fields the loaders check where they read them.
def _fleet_declared() -> tuple[Declared, ...]:
    kinds = {schema.POLICY: (f"{PLACEMENT}:spec.policy", f"{POLICY_SNAPSHOT}:spec.policy")}
    out = []
    for key, rules in schema.RULES.items():
        for rule in rules:
            check = rule.check
            if isinstance(check, schema.Enum):
                domain: Domain = Enum(check.values)
            elif isinstance(check, schema.Integer):
                domain = Integer(check.maximum, check.minimum)
            elif isinstance(check, schema.Conditions):
                out += [
                    Declared(key, f"{rule.path}[].status", Enum(("True", "False", "Unknown"), required=True)),
                    Declared(key, f"{rule.path}[].observedGeneration", Integer(INT64, 0)),
                ]
                continue
            else:
                continue
            for target in kinds.get(key, (f"{key}:",)):
                kind, _, base = target.partition(":")
                out.append(Declared(kind, f"{base}.{rule.path}" if base else rule.path, domain, rule.version))
    return (
        *out,
        # clusterresourceplacements.yaml: revisionHistoryLimit, int32 in [1, 1000]
        Declared(PLACEMENT, "spec.revisionHistoryLimit", Integer(1000, 1)),
        # memberclusters.yaml: taints (effect required, NoSchedule only)
        Declared(MEMBER_CLUSTER, "spec.taints[].effect", Enum(("NoSchedule",), required=True)),
        # clusterresourcebindings.yaml: the decision's int32 scores (spec.state is any string: the
        # CRD has no enum; the scheduler reads an unknown state as classifyBindings does)
        Declared(BINDING, "spec.clusterDecision.clusterScore.affinityScore", Integer(INT32)),
        Declared(BINDING, "spec.clusterDecision.clusterScore.priorityScore", Integer(INT32)),
        *(Declared(kind, "metadata.generation", Integer(INT64, 0)) for kind in (PLACEMENT, POLICY_SNAPSHOT)),
    )


_OCM_CONDITIONS = (
    ("status.conditions[].status", Enum(("True", "False", "Unknown"), required=True)),
    ("status.conditions[].observedGeneration", Integer(INT64, 0)),
)
# OCM: open-cluster-management-io/api at 1845fd8, cluster/<version>/*.crd.yaml.
OCM_DECLARED = (
    # v1beta1 placements: numberOfClusters is an int32 without a minimum, but upstream's
    # selectClusters slices with it and panics on a negative one: the loader refuses those.
    Declared("Placement", "spec.numberOfClusters", Integer(INT32, 0)),
    Declared("Placement", "spec.sortBy", Enum(("ClusterName", "Score"))),
    Declared(
        "Placement",
        "spec.prioritizerPolicy.configurations[].scoreCoordinate.type",
        Enum(("BuiltIn", "AddOn")),
    ),
    Declared("Placement", "spec.prioritizerPolicy.configurations[].weight", Integer(10, -10)),
    Declared(
        "Placement", "spec.spreadPolicy.spreadConstraints[].topologyKeyType", Enum(("Label", "Claim"), True)
    ),
    Declared("Placement", "spec.spreadPolicy.spreadConstraints[].maxSkew", Integer(INT32, 1)),
    Declared(
        "Placement",
        "spec.spreadPolicy.spreadConstraints[].whenUnsatisfiable",
        Enum(("DoNotSchedule", "ScheduleAnyway")),
    ),
    Declared("Placement", "spec.tolerations[].effect", Enum(("NoSelect", "PreferNoSelect", "NoSelectIfNew"))),
    Declared("Placement", "spec.tolerations[].tolerationSeconds", Integer(INT64)),
    Declared("Placement", "status.numberOfSelectedClusters", Integer(INT32)),
    Declared("Placement", "status.decisionGroups[].decisionGroupIndex", Integer(INT32)),
    Declared("Placement", "status.decisionGroups[].clusterCount", Integer(INT32)),
    # v1 managedclusters
    Declared("ManagedCluster", "spec.leaseDurationSeconds", Integer(INT32)),
    Declared(
        "ManagedCluster", "spec.taints[].effect", Enum(("NoSelect", "PreferNoSelect", "NoSelectIfNew"), True)
    ),
    # v1beta2 managedclustersets
    Declared(
        "ManagedClusterSet",
        "spec.clusterSelector.selectorType",
        Enum(("ExclusiveClusterSetLabel", "LabelSelector")),
    ),
    # v1alpha1 addonplacementscores: each score's value, required, an int32 in [-100, 100]
    Declared("AddOnPlacementScore", "status.scores[].value", Integer(100, -100, required=True)),
    # v1beta1 placementdecisions: a decision's score, an int64
    Declared("PlacementDecision", "status.decisions[].score", Integer(INT64)),
    *(
        Declared(kind, path, domain)
        for kind in (
            "Placement",
            "ManagedCluster",
            "ManagedClusterSet",
            "ManagedClusterSetBinding",
            "AddOnPlacementScore",
        )
        for path, domain in _OCM_CONDITIONS
    ),
)

CONFIG = "config"  # the openMCP scheduler config, as a target of its own
# openMCP: openmcp-operator at a131d2f, api/crds/manifests/clusters.openmcp.cloud_{clusters,
# clusterrequests}.yaml; the config's rules in internal/config/config_scheduler.go (Validate: scope
# and strategy among the supported values or empty, tenancyCount an int of at least 0, the
# template's tenancy required, Exclusive or Shared).
OPENMCP_DECLARED = (
    Declared("Cluster", "spec.tenancy", Enum(("Exclusive", "Shared"), required=True)),
    *(
        Declared(kind, path, domain)
        for kind in ("Cluster", "ClusterRequest")
        for path, domain in (
            ("metadata.generation", Integer(INT64, 0)),
            ("status.observedGeneration", Integer(INT64)),
            *_OCM_CONDITIONS,
        )
    ),
    Declared(CONFIG, "scheduler.scope", Enum(("Cluster", "Namespaced", ""))),
    Declared(CONFIG, "scheduler.strategy", Enum(("Balanced", "Random", "Simple", ""))),
    Declared(CONFIG, "scheduler.purposeMappings.workload.tenancyCount", Integer(INT64, 0)),
    Declared(
        CONFIG,
        "scheduler.purposeMappings.workload.template.spec.tenancy",
        Enum(("Exclusive", "Shared"), required=True),
    ),
)

_RESOURCE = ("group", Enum(("workload.kcp.dev",))), ("version", Enum(("v1alpha1",), required=True))


# kcp: config/crds at v0.5.0-alpha.1 and v0.8.0 (apibindings, locations, workloadclusters,
# synctargets, placements): enums, the Location's int32 counts.
def _kcp_declared(cluster_resource: str) -> tuple[Declared, ...]:
    resource = Enum((cluster_resource,), required=True)
    out = [
        Declared("APIBinding", "status.phase", Enum(("", "Binding", "Bound"))),
        *(Declared("Location", f"spec.resource.{key}", domain) for key, domain in _RESOURCE),
        Declared("Location", "spec.resource.resource", resource),
        Declared("Location", "status.instances", Integer(INT32)),
        Declared("Location", "status.availableInstances", Integer(INT32)),
    ]
    if cluster_resource == "synctargets":
        out += [
            Declared(
                "APIBinding", "spec.permissionClaims[].state", Enum(("Accepted", "Rejected"), required=True)
            ),
            Declared(
                "SyncTarget", "status.syncedResources[].state", Enum(("Pending", "Accepted", "Incompatible"))
            ),
            *(Declared("Placement", f"spec.locationResource.{key}", domain) for key, domain in _RESOURCE),
            Declared("Placement", "spec.locationResource.resource", resource),
            Declared("Placement", "status.phase", Enum(("Pending", "Unbound", "Bound"))),
        ]
    return tuple(out)


UINT64 = 2**64 - 1
_KARMADA_BINDINGS = ("ResourceBinding", "ClusterResourceBinding")
_PURGE_MODES = ("Directly", "Gracefully", "Never")
_SPREAD_FIELDS = ("cluster", "region", "zone", "provider")
_PLACEMENT = "spec.placement"
_SCHEDULING = f"{_PLACEMENT}.replicaScheduling"
# Karmada (karmada-io/karmada at v1.19, f8fdd02df). Clusters: karmada-aggregated-apiserver decodes
# them into pkg/apis/cluster/v1alpha1/types.go (syncMode's kubebuilder enum, a grade a Go uint, a
# count a Go int) and validates them (pkg/apis/cluster/validation: syncMode required and Push or
# Pull, a taint's effect required and one of corev1's); older releases shipped the same schema as
# cluster.karmada.io_clusters.yaml. Bindings: charts/karmada/_crds/bases/work/
# work.karmada.io_resourcebindings.yaml and work.karmada.io_clusterresourcebindings.yaml (v1alpha2),
# their placement and failover copied from a policy the webhook admitted (pkg/util/validation
# ValidatePlacement: minGroups and maxGroups not below 0; ValidateApplicationFailover:
# decisionConditions.tolerationSeconds not below 0, gracePeriodSeconds above 0).
KARMADA_DECLARED = (
    Declared("Cluster", "spec.syncMode", Enum(("Push", "Pull"), required=True)),
    Declared("Cluster", "spec.taints[].effect", Enum(("NoSchedule", "PreferNoSchedule", "NoExecute"), True)),
    Declared("Cluster", "spec.resourceModels[].grade", Integer(UINT64, 0)),
    Declared("Cluster", "status.resourceSummary.allocatableModelings[].grade", Integer(UINT64, 0)),
    Declared("Cluster", "status.resourceSummary.allocatableModelings[].count", Integer(INT64)),
    *(
        Declared(kind, path, domain)
        for kind in _KARMADA_BINDINGS
        for path, domain in (
            ("metadata.generation", Integer(INT64, 0)),
            ("spec.replicas", Integer(INT32)),
            ("spec.clusters[].replicas", Integer(INT32)),
            ("spec.clusters[].components[].replicas", Integer(INT32)),
            ("spec.components[].replicas", Integer(INT32, required=True)),
            ("spec.conflictResolution", Enum(("Abort", "Overwrite"))),
            ("spec.failover.application.decisionConditions.tolerationSeconds", Integer(INT32, 0)),
            ("spec.failover.application.gracePeriodSeconds", Integer(INT32, 1)),
            ("spec.failover.application.purgeMode", Enum(_PURGE_MODES)),
            ("spec.failover.cluster.purgeMode", Enum(("Directly", "Gracefully"))),
            ("spec.gracefulEvictionTasks[].replicas", Integer(INT32)),
            ("spec.gracefulEvictionTasks[].gracePeriodSeconds", Integer(INT32)),
            ("spec.gracefulEvictionTasks[].purgeMode", Enum(_PURGE_MODES)),
            (f"{_PLACEMENT}.clusterTolerations[].tolerationSeconds", Integer(INT64)),
            (f"{_PLACEMENT}.spreadConstraints[].spreadByField", Enum(_SPREAD_FIELDS)),
            (f"{_PLACEMENT}.spreadConstraints[].minGroups", Integer(INT64, 0)),
            (f"{_PLACEMENT}.spreadConstraints[].maxGroups", Integer(INT64, 0)),
            (f"{_SCHEDULING}.replicaSchedulingType", Enum(("Duplicated", "Divided"))),
            (f"{_SCHEDULING}.replicaDivisionPreference", Enum(("Aggregated", "Weighted"))),
            (f"{_SCHEDULING}.weightPreference.dynamicWeight", Enum(("AvailableReplicas",))),
            (f"{_SCHEDULING}.weightPreference.staticWeightList[].weight", Integer(INT64, 1, required=True)),
            ("spec.replicaRequirements.nodeClaim.tolerations[].tolerationSeconds", Integer(INT64)),
            ("spec.requiredBy[].clusters[].replicas", Integer(INT32)),
            ("spec.schedulePriority.priority", Integer(INT32)),
            ("status.schedulerObservedGeneration", Integer(INT64)),
            ("status.aggregatedStatus[].health", Enum(("Healthy", "Unhealthy", "Unknown"))),
            *_OCM_CONDITIONS,
        )
    ),
)

# A minimal valid item of each list (or a valid map) a declared field may sit in, for objects
# without one.
_CONDITION = {
    "type": "Fuzzed",
    "status": "True",
    "lastTransitionTime": "2026-11-01T00:00:00Z",
    "reason": "Fuzzed",
    "message": "",
}
_AFFINITY = "spec.policy.affinity.clusterAffinity"
SEEDS: dict[str, Any] = {
    f"{_AFFINITY}.preferredDuringSchedulingIgnoredDuringExecution": {
        "weight": 1,
        "preference": {"labelSelector": {"matchLabels": {"fuzzed": "yes"}}},
    },
    f"{_AFFINITY}.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms": {"labelSelector": {}},
    f"{_AFFINITY}.preferredDuringSchedulingIgnoredDuringExecution.preference.propertySorter": {
        "name": "kubernetes-fleet.io/node-count"
    },
    "spec.policy.topologySpreadConstraints": {"topologyKey": "fuzzed"},
    "spec.policy.tolerations": {"key": "fuzzed", "operator": "Exists"},
    "spec.taints": {"key": "fuzzed", "effect": "NoSelect"},
    "status.agentStatus": {"type": "MemberAgent"},
    "status.conditions": _CONDITION,
    "status.targetClusters": {"clusterName": "fuzzed", "selected": False},
    "spec.prioritizerPolicy.configurations": {"scoreCoordinate": {"type": "BuiltIn", "builtIn": "Steady"}},
    "spec.spreadPolicy.spreadConstraints": {"topologyKey": "fuzzed", "topologyKeyType": "Label"},
    "spec.tolerations": {"key": "fuzzed", "operator": "Exists"},
    "status.decisionGroups": {"decisionGroupName": "", "decisionGroupIndex": 0, "clusterCount": 0},
    "status.scores": {"name": "fuzzed", "value": 0},
    "status.decisions": {"clusterName": "fuzzed", "reason": ""},
    "spec.permissionClaims": {"resource": "configmaps", "state": "Accepted"},
    "status.syncedResources": {"resource": "deployments", "group": "apps", "versions": ["v1"]},
    "spec.strategy.reportBackStrategy": {"type": "Disabled"},
    "status.placementStatuses": {"clusterName": "fuzzed", "conditions": [_CONDITION]},
    "status.placementStatuses.conditions": _CONDITION,
    "spec.resourceModels": {"grade": 0, "ranges": [{"name": "cpu", "min": "0", "max": str(INT64)}]},
    "status.resourceSummary.allocatableModelings": {"grade": 0, "count": 1},
    "spec.clusters": {"name": "fuzzed", "replicas": 1},
    "spec.clusters.components": {"name": "fuzzed", "replicas": 1},
    "spec.components": {"name": "fuzzed", "replicas": 1},
    "spec.gracefulEvictionTasks": {"fromCluster": "fuzzed", "producer": "fuzz", "reason": "Fuzzed"},
    f"{_PLACEMENT}.clusterTolerations": {"key": "fuzzed", "operator": "Exists"},
    f"{_PLACEMENT}.spreadConstraints": {"spreadByField": "cluster", "minGroups": 1, "maxGroups": 1},
    f"{_SCHEDULING}.weightPreference.staticWeightList": {
        "targetCluster": {"clusterNames": ["fuzzed"]},
        "weight": 1,
    },
    "spec.replicaRequirements.nodeClaim.tolerations": {"key": "fuzzed", "operator": "Exists"},
    "spec.requiredBy": {"namespace": "default", "name": "fuzzed"},
    "spec.requiredBy.clusters": {"name": "fuzzed"},
    "status.aggregatedStatus": {"clusterName": "fuzzed"},
}
# The same list where a kind's schema wants another item.
KIND_SEEDS: dict[tuple[str, str], Any] = {
    (MEMBER_CLUSTER, "spec.taints"): {"key": "fuzzed", "effect": "NoSchedule"},
    ("Cluster", "spec.taints"): {"key": "fuzzed", "effect": "NoSchedule"},
    (MEMBER_CLUSTER, "status.agentStatus.conditions"): {
        "type": "Joined",
        "status": "True",
        "lastTransitionTime": "2026-11-01T00:00:00Z",
    },
}


def _seed(kind: str, path: str, default: Any = None) -> Any:
    """The seed of the list or map at `path` (spelt, indices and all) in an object of `kind`."""
    key = re.sub(r"\[\d+\]", "", path)
    found = KIND_SEEDS.get((kind, key), SEEDS.get(key, default))
    if found is None:
        raise KeyError(f"no seed for the list {kind} {key}")
    return copy.deepcopy(found)


# ------------------------------------------------------------------------------------------- hubs


@dataclass(frozen=True)
class Hub:
    """One system's valid hub: its objects, the openMCP config, the fields its CRDs declare."""

    name: str
    objects: tuple[dict[str, Any], ...]
    declared: tuple[Declared, ...]
    config: dict[str, Any] | None = None
    workspaces: bool = False  # kcp: messages name objects with their workspace
    kinds: tuple[str, ...] = field(init=False)

    def __post_init__(self) -> None:
        kinds = [o["kind"] for o in self.objects] + ([CONFIG] if self.config is not None else [])
        object.__setattr__(self, "kinds", tuple(dict.fromkeys(kinds)))

    def indices(self, kind: str) -> list[int]:
        """The objects of a kind (-1: the config)."""
        if kind == CONFIG:
            return [-1]
        return [i for i, o in enumerate(self.objects) if o["kind"] == kind]

    def target(self, index: int) -> dict[str, Any]:
        return self.config if index == -1 else self.objects[index]  # type: ignore[return-value]


@cache
def hub_named(name: str) -> Hub:
    valid = valid_hub(name)
    declared = {
        "fleet": _fleet_declared,
        "ocm": lambda: OCM_DECLARED,
        "openmcp": lambda: OPENMCP_DECLARED,
        "kcp-v0.5": lambda: _kcp_declared("workloadclusters"),
        "kcp-v0.8": lambda: _kcp_declared("synctargets"),
        "karmada": lambda: KARMADA_DECLARED,
    }[name]()
    return Hub(name, valid.objects, declared, config=valid.config, workspaces=name.startswith("kcp"))


HUBS = HUB_NAMES

# ------------------------------------------------------------------------------------------ paths


def field_paths(value: Any, prefix: FieldPath = ()) -> Iterator[FieldPath]:
    """Every field below `value`, containers included."""
    if isinstance(value, dict):
        items: Any = value.items()
    elif isinstance(value, list):
        items = enumerate(value)
    else:
        return
    for key, child in items:
        yield (*prefix, key)
        yield from field_paths(child, (*prefix, key))


def spelt(path: FieldPath) -> str:
    out = ""
    for key in path:
        out += f"[{key}]" if isinstance(key, int) else (f".{key}" if out else str(key))
    return out


def declared_path(declared: Declared) -> FieldPath:
    """The declared path with each list's first item."""
    out: list[str | int] = []
    for segment in declared.path.split("."):
        name = segment.removesuffix("[]")
        out.append(name)
        if segment.endswith("[]"):
            out.append(0)
    return tuple(out)


def set_field(target: dict[str, Any], path: FieldPath, value: Any, kind: str = "") -> None:
    """target[path] = value, making absent parents: maps, or a list's seed item."""
    node: Any = target
    for depth, key in enumerate(path[:-1]):
        following = path[depth + 1]
        child = node[key] if isinstance(node, list) else node.get(key)
        here = spelt(path[: depth + 1])
        if isinstance(following, int):
            if not isinstance(child, list) or not child:
                child = [_seed(kind, here)]
        elif not isinstance(child, dict):
            child = _seed(kind, here, {})
        node[key] = child
        node = child
    node[path[-1]] = value


# ---------------------------------------------------------------------------------------- running


@dataclass(frozen=True, slots=True)
class Case:
    """One example: the hub, the object changed (-1: the config), the field, its new value, and
    how the input is written (a YAML stream or a JSON List)."""

    hub: str
    index: int
    path: FieldPath
    value: Any
    form: str

    def inputs(self) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
        hub = hub_named(self.hub)
        objects = copy.deepcopy(list(hub.objects))
        config = copy.deepcopy(hub.config)
        target = config if self.index == -1 else objects[self.index]
        assert target is not None
        set_field(target, self.path, copy.deepcopy(self.value), target.get("kind", ""))
        return objects, config


@dataclass(frozen=True, slots=True)
class Ran:
    code: int
    stdout: str
    stderr: str
    traceback: str = ""


_DUMPER = getattr(yaml, "CSafeDumper", yaml.SafeDumper)


def command(case: Case, mode: str, config_path: Path) -> tuple[list[str], str]:
    """The arguments of `solve` on the case's input, and its standard input."""
    objects, config = case.inputs()
    if case.form == "json":
        text = json.dumps({"apiVersion": "v1", "kind": "List", "items": objects})
    else:
        text = yaml.dump_all(objects, Dumper=_DUMPER, sort_keys=False, allow_unicode=True)
    args = ["solve", "-f", "-", "--now", NOW, "--mode", mode]
    if config is not None:
        config_path.write_text(yaml.dump(config, Dumper=_DUMPER, allow_unicode=True), encoding="utf-8")
        args += ["--config", str(config_path)]
    return args, text


def run(case: Case, mode: str, config_path: Path) -> Ran:
    """The command, in this process (click's CliRunner)."""
    args, text = command(case, mode, config_path)
    result = CliRunner().invoke(main, args, input=text, catch_exceptions=True)
    trace = ""
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        trace = "".join(traceback.format_exception(*result.exc_info))
    return Ran(result.exit_code, result.stdout, result.stderr, trace)


def run_in_a_process(case: Case, mode: str, config_path: Path) -> Ran:
    """The command as the console script runs it (adapters.cli.main.entry), in a process of its own."""
    args, text = command(case, mode, config_path)
    done = subprocess.run(
        [sys.executable, "-c", "from adapters.cli.main import entry; entry()", *args],
        input=text.encode(),
        capture_output=True,
        timeout=120,
        check=False,
    )
    return Ran(done.returncode, done.stdout.decode(), done.stderr.decode())


def outcome(case: Case, config_path: Path) -> Ran:
    """The greedy run, once both modes ran twice each: the same bytes every time, the same verdict
    in both modes; exit 0 with output, or exit 2 with one error line and nothing on standard
    output; never another exit status, a traceback or a Python exception's name."""
    runs = {mode: [run(case, mode, config_path) for _ in range(2)] for mode in MODES}
    for mode, (first, second) in runs.items():
        assert first.code in (0, 2), f"{mode}: exit {first.code}\n{first.traceback}{first.stderr}"
        assert first == second, f"{mode}: two runs of the same input differ"
        assert "Traceback" not in first.stderr, first.stderr
        if first.code == 0:
            assert first.stdout, f"{mode}: exit 0 without output"
            assert all(line.startswith("note: ") for line in first.stderr.splitlines()), first.stderr
        else:
            assert first.stdout == "", f"{mode}: output on error"
            lines = first.stderr.splitlines()
            assert len(lines) == 1 and first.stderr.endswith("\n"), first.stderr
            assert lines[0].startswith("error: ") and not _EXCEPTIONS.search(lines[0]), first.stderr
    greedy, optimal = runs["greedy"][0], runs["optimal"][0]
    assert greedy.code == optimal.code, (greedy.stderr, optimal.stderr)
    assert greedy.code == 0 or greedy.stderr == optimal.stderr, (greedy.stderr, optimal.stderr)
    return greedy


_EXCEPTIONS = re.compile(
    r"\b("
    + "|".join(
        name
        for name, value in vars(builtins).items()
        if isinstance(value, type) and issubclass(value, BaseException)
    )
    + r"|Traceback)\b"
)
# Where a field path begins: a top-level field of an object (or of a List's item), or the config's.
_FIELD = re.compile(r"(apiVersion|kind|metadata|spec|status|scheduler|items\[\d+\])(?=[.\[:]|$)")
_MANY = re.compile(r"\d+ errors: ")  # the config's errors, all of them at once


@dataclass(frozen=True, slots=True)
class Refusal:
    """Who an error line names, and which field ("" for a duplicate, named with its documents)."""

    where: str
    field: str


def names(case: Case, index: int, obj: Any, config_path: Path) -> tuple[str, ...]:
    """How an error line may name the object at `index` of the case's input: Kind/[namespace/]name
    (kcp: `Kind workspace|[namespace/]name`, or `Kind [namespace/]name (document)` when its
    workspace is what is wrong), its document (of a YAML stream, or the JSON List's) when the
    object itself is malformed; the config (-1)."""
    if index == -1:  # by its file; when load finds the file has no scheduler block, by what it is
        return (str(config_path), "scheduler config")
    documents = (f"<stdin>: document {index + 1}", "<stdin>: document 1")
    metadata = obj.get("metadata") if isinstance(obj, Mapping) else None
    if not isinstance(metadata, Mapping):
        return documents
    kind, name, namespace = obj.get("kind"), metadata.get("name"), metadata.get("namespace")
    scoped = f"{namespace}/{name}" if namespace else f"{name}"
    out = [*documents, str(InputError("", where=f"{kind}/{scoped}"))[:-2]]
    if hub_named(case.hub).workspaces:
        out.append(str(InputError("", where=f"{kind} {workspace_of(obj)}|{scoped}"))[:-2])
        out += [str(InputError("", where=f"{kind} {scoped} ({d})"))[:-2] for d in documents]
    return tuple(out)


def refusal(line: str, candidates: Sequence[str]) -> Refusal | None:
    """What the line names when it is one of `candidates` followed by a field path."""
    text = line.removeprefix("error: ")
    if text.startswith("duplicate object ") and any(c in text for c in candidates):
        return Refusal(text, "")
    for where in sorted(candidates, key=len, reverse=True):
        if text.startswith(f"{where}: "):
            rest = _MANY.sub("", text[len(where) + 2 :], count=1)
            if _FIELD.match(rest) and ": " in rest:
                return Refusal(where, rest[: rest.index(": ")])
    return None


def named(case: Case, ran: Ran, config_path: Path) -> Refusal:
    """The refusal of `ran` (exit 2), which names an object of the input and a field."""
    objects, config = case.inputs()
    candidates = [w for i, obj in enumerate(objects) for w in names(case, i, obj, config_path)]
    if config is not None:
        candidates += names(case, -1, config, config_path)
    found = refusal(ran.stderr.rstrip("\n"), candidates)
    assert found is not None, f"names no object of the input and no field: {ran.stderr}"
    return found


def names_the_changed(case: Case, ran: Ran, config_path: Path) -> Refusal:
    """The refusal of `ran`, which names the object the case changed."""
    found = named(case, ran, config_path)
    objects, config = case.inputs()
    changed = config if case.index == -1 else objects[case.index]
    assert found.where in names(case, case.index, changed, config_path), ran.stderr
    return found


def related(reported: str, changed: FieldPath) -> bool:
    """Whether the field an error names is the one changed, one above it or one below it."""
    mine, theirs = _segments(spelt(changed)), _segments(reported)
    shorter = min(len(mine), len(theirs))
    return mine[:shorter] == theirs[:shorter]


def _segments(path: str) -> list[str]:
    return [s for s in re.split(r"[.\[\]]", path) if s]


# ----------------------------------------------------------------------------------------- cases

FORMS = st.sampled_from(("yaml", "json"))


@cache
def _paths(hub_name: str, index: int) -> tuple[FieldPath, ...]:
    return tuple(field_paths(hub_named(hub_name).target(index)))


def _get(value: Any, path: FieldPath) -> Any:
    for key in path:
        value = value[key]
    return value


@st.composite
def any_field(draw: st.DrawFn, hub_name: str) -> Case:
    """Any field of any object (a kind first, then one of its objects), at any edge value."""
    hub = hub_named(hub_name)
    index = draw(st.sampled_from(hub.indices(draw(st.sampled_from(hub.kinds)))))
    path = draw(st.sampled_from(_paths(hub_name, index)))
    value = draw(st.sampled_from((*neighbours(_get(hub.target(index), path)), *ANY_VALUE)))
    return Case(hub_name, index, path, value, draw(FORMS))


@cache
def _declared(hub_name: str) -> tuple[tuple[int, Declared], ...]:
    hub = hub_named(hub_name)
    return tuple(
        (i, d)
        for d in hub.declared
        for i in hub.indices(d.kind)
        if d.version is None or str(hub.target(i).get("apiVersion", "")).endswith(f"/{d.version}")
    )


@st.composite
def declared_field(draw: st.DrawFn, hub_name: str) -> tuple[Case, Declared]:
    """A field the system's CRDs declare, in an object of its kind, at and past its edges."""
    index, declared = draw(st.sampled_from(_declared(hub_name)))
    value = draw(st.sampled_from(declared.domain.edges()))
    return Case(hub_name, index, declared_path(declared), value, draw(FORMS)), declared


@cache
def _read(hub_name: str) -> tuple[int, ...]:
    """The objects the system reads (not, say, kcp's APIExport)."""
    objects = hub_named(hub_name).objects
    return tuple(i for i, o in enumerate(objects) if reads(o["kind"], o["apiVersion"]))


@st.composite
def labelled(draw: st.DrawFn, hub_name: str) -> tuple[Case, bool]:
    """A label at and past Kubernetes' rules on an object the system reads; whether it is valid."""
    index = draw(st.sampled_from(_read(hub_name)))
    key = draw(st.sampled_from(list(LABEL_KEYS)))
    value = draw(st.sampled_from(list(LABEL_VALUES)))
    case = Case(hub_name, index, ("metadata", "labels", key), value, draw(FORMS))
    return case, LABEL_KEYS[key] and LABEL_VALUES[value]


# ----------------------------------------------------------------------------------------- tests

_QUIET = [HealthCheck.too_slow, HealthCheck.function_scoped_fixture]


@pytest.fixture(scope="module")
def config_path(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("fuzz") / "config.yaml"


@pytest.mark.parametrize("hub_name", HUBS)
def test_any_field_at_an_edge_is_taken_or_refused_in_one_line(hub_name: str, config_path: Path) -> None:
    @settings(suppress_health_check=_QUIET, deadline=None)
    @given(any_field(hub_name))
    def check(case: Case) -> None:
        ran = outcome(case, config_path)
        if ran.code == 2:
            named(case, ran, config_path)

    check()


@pytest.mark.parametrize("hub_name", HUBS)
def test_declared_fields_are_refused_exactly_past_their_bounds_and_enums(
    hub_name: str, config_path: Path
) -> None:
    @settings(suppress_health_check=_QUIET, deadline=None)
    @given(declared_field(hub_name))
    def check(drawn: tuple[Case, Declared]) -> None:
        case, declared = drawn
        ran = outcome(case, config_path)
        if declared.domain.valid(case.value):
            if ran.code == 2:  # only by a rule across fields (PickFixed takes no numberOfClusters, ...)
                named(case, ran, config_path)
            return
        assert ran.code == 2, f"{spelt(case.path)} = {case.value!r} taken"
        found = names_the_changed(case, ran, config_path)
        assert related(found.field, case.path), ran.stderr

    check()


@pytest.mark.parametrize("hub_name", HUBS)
def test_labels_are_refused_exactly_where_the_api_server_refuses_them(
    hub_name: str, config_path: Path
) -> None:
    @settings(suppress_health_check=_QUIET, deadline=None)
    @given(labelled(hub_name))
    def check(drawn: tuple[Case, bool]) -> None:
        case, valid = drawn
        ran = outcome(case, config_path)
        label = f"{case.path[-1]!r}: {case.value!r}"
        if valid:
            assert ran.code == 0, f"label {label} refused: {ran.stderr}"
            return
        assert ran.code == 2, f"label {label} taken"
        found = names_the_changed(case, ran, config_path)
        assert found.field == "metadata.labels", ran.stderr

    check()


def _index(hub_name: str, kind: str, name: str) -> int:
    objects = hub_named(hub_name).objects
    return next(i for i, o in enumerate(objects) if (o["kind"], o["metadata"]["name"]) == (kind, name))


# A case of each system, refused or taken, through the console script in a process of its own.
IN_A_PROCESS = [
    (
        "fleet",
        "ClusterResourcePlacement",
        "web-frontend",
        ("spec", "policy", "numberOfClusters"),
        INT32 + 1,
        "yaml",
    ),
    ("ocm", "Placement", "web", ("spec", "numberOfClusters"), 2.0, "json"),
    ("openmcp", CONFIG, "", ("scheduler", "purposeMappings", "workload", "tenancyCount"), INT64 + 1, "yaml"),
    ("kcp-v0.5", "Location", "us-east", ("metadata", "labels", "a" * 63), "b" * 63, "yaml"),
    ("kcp-v0.8", "Namespace", "api", ("metadata", "labels", "a/b/c"), "x", "json"),
    ("karmada", "ResourceBinding", "frontend-deployment", ("spec", "replicas"), INT32 + 1, "yaml"),
]


@pytest.mark.parametrize(("hub_name", "kind", "name", "path", "value", "form"), IN_A_PROCESS)
def test_a_real_process_says_what_the_command_says_in_this_one(
    hub_name: str, kind: str, name: str, path: FieldPath, value: Any, form: str, config_path: Path
) -> None:
    index = -1 if kind == CONFIG else _index(hub_name, kind, name)
    case = Case(hub_name, index, path, value, form)
    here = outcome(case, config_path)
    there = run_in_a_process(case, "greedy", config_path)
    assert (there.code, there.stdout, there.stderr) == (here.code, here.stdout, here.stderr)
