"""Deterministic synthetic Karmada hubs: the Clusters and bindings karmada-scheduler reads.

    from adapters.karmada.generate import generate_karmada
    objects = generate_karmada(1_000, 10_000, seed=0, now=datetime(2026, 11, 21, 12, tzinfo=UTC))

The hub holds, in this order:

- ``Cluster`` (cluster.karmada.io/v1alpha1), from the shared cluster table: labels, ``syncMode``,
  provider, region and zones (a quarter span two zones, a few legacy ones none), the taints the
  cluster controller adds (``cluster.karmada.io/not-ready`` and ``unreachable``, NoSchedule) on the
  clusters that are not Ready, the operators' own (maintenance as NoExecute, GPU pools and dedicated
  clusters as NoSchedule), a deletionTimestamp on a few; status ``apiEnablements`` (argo Rollouts on
  some clusters only), ``resourceSummary`` {allocatable, allocated, allocating} for cpu, memory and
  pods (absent on a few clusters that just joined), and on some clusters the default
  ``resourceModels`` with the ``allocatableModelings`` their nodes fall in;
- ``ResourceBinding`` (work.karmada.io/v1alpha2) and, for cluster-scoped resources,
  ``ClusterResourceBinding``: the permanent-id label of the policy they come from, ``spec.resource``
  with its uid, replicas, ``replicaRequirements.resourceRequest``, the policy's placement, and for part
  of them the state an earlier scheduler run left (``spec.clusters``, the applied-placement annotation,
  the status), changed since by a scale-up, a scale-down, a failover (a cluster taken out of
  ``spec.clusters`` with a ``gracefulEvictionTasks`` entry), an explicit reschedule
  (``rescheduleTriggeredAt``) or an edited policy.

How the mix was chosen (the closing note of issue 19 quotes this):

- Division kinds, per binding (exact counts): DynamicWeight (AvailableReplicas) 40%, Aggregated 28%,
  Duplicated 12%, static weights 13%, non-workloads 7%. Karmada's users report dynamic weights and
  Aggregated where capacity hurts (karmada#6943's load is Divided + dynamic weight; #6518 and #6783 are
  Aggregated failovers), so capacity-aware divisions are two thirds; Duplicated is the default of a
  policy without replicaScheduling and static weights are for explicit ratios (both capacity-blind:
  they count in the load but the solver cannot move them); non-workloads (ConfigMaps, Services, and
  as ClusterResourceBindings Namespaces and ClusterRoles) ask for no capacity. A tenth of the new
  namespaced Aggregated bindings are multi-component workloads (spec.components alone: a jobmanager
  and the rest of their replicas as taskmanagers, the same footprint), placed whole on one cluster
  (a cluster spread of exactly one), drawn from a stream of their own so the rest are unchanged.
- Affinity breadth: a policy's clusterAffinity is one of a vocabulary the fleet's own attributes make,
  from the whole fleet (no affinity) and broad terms (an environment: about 60% of clusters; a
  provider: about a third) to narrow ones (a region or a geography, a team, some zones), every term
  matching at least two clusters; a median dynamic binding sees some 15-30% of the fleet. Duplicated
  and static-weight policies name 1-5 clusters (clusterNames, or static weights by region),
  non-workloads a term of at most 30 clusters (they go on every cluster they select). 12% of the
  dynamic policies use clusterAffinities (a primary and a backup region) instead, half of those with
  an overflow tier; about a third carry spread constraints (by cluster; by region and cluster; a zone
  filter beside a cluster constraint), a tenth tolerations. Bindings draw their policy from a small
  vocabulary per kind (Zipf), so that many share a placement, as bindings of one policy do.
- Load: the replicas the bindings ask for beyond what they hold, times their cpu request, are 75% of the
  fleet's free cpu (free = allocatable - allocated - allocating, over the clusters open to a binding
  that tolerates nothing: a resourceSummary, no taint, not being deleted); a Duplicated binding asks on
  every cluster it names. Memory requests follow cpu at 60% of the fleet's free memory per free core,
  so memory asks about 45% of the free memory, and pods (110 per node) far less: cpu binds most.
  Replicas are drawn lognormal (most bindings a few, some dozens) and scaled together to that load;
  cpu requests are 100m to 4 cores.
- State: 70% of the bindings are new (never scheduled); the rest hold an earlier run's assignment on
  clusters their placement selects (its footprint already in `allocated`): 14% unchanged, 6% scaled up,
  2% scaled down, 4% failed over, 2% rescheduled (rescheduleTriggeredAt after lastScheduledTime), 2%
  with a policy edited since. 15% carry a schedulePriority, 1% suspend scheduling.

Per-cluster work is vectorised numpy on the shared cluster table (adapters.generate.common), drawn from
``rng_for(seed, section)``, so the clusters do not depend on the number of bindings; bindings draw
from vocabularies and per-policy cluster masks computed once. Every object is what the API server and
Karmada's webhooks accept (syncMode, label values, unique taints, contiguous resource models, the
CRDs' required fields and ranges, spread constraints with a cluster constraint and maxGroups >=
minGroups, no clusterAffinity beside clusterAffinities, overflow tiers only with dynamic divisions).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np
import orjson

from adapters.generate.common import (
    BLIP,
    HEALTHY,
    LABEL_KEYS,
    LEAVING,
    PROVIDERS,
    REGIONS,
    STALE,
    TEAMS,
    UNHEALTHY,
    Clock,
    ClusterTable,
    Matcher,
    Picker,
    check_sizes,
    cluster_table,
    exact_categories,
    expression,
    label_selector,
    parse_now,
    rng_for,
    uuid_text,
    zipf_weights,
)
from adapters.karmada import names as n
from adapters.karmada.gojson import go_json

__all__ = ["KIND_SHARES", "KINDS", "LOAD", "STATE_SHARES", "STATES", "generate_karmada"]

# ------------------------------------------------------------------------------------- API names

CLUSTER_API = f"{n.CLUSTER_GROUP}/{n.CLUSTER_VERSION}"
NOT_READY_TAINT = "cluster.karmada.io/not-ready"  # the cluster controller's (cluster_controller.go)
UNREACHABLE_TAINT = "cluster.karmada.io/unreachable"
CLUSTER_FINALIZER = "karmada.io/cluster-controller"
GPU = "nvidia.com/gpu"

# ------------------------------------------------------------------------------------ the mix

KINDS = ("DynamicWeight", "Aggregated", "Duplicated", "StaticWeight", "NonWorkload")
DYNAMIC, AGGREGATED, DUPLICATED, STATIC, NON_WORKLOAD = range(len(KINDS))
KIND_SHARES = (0.40, 0.28, 0.12, 0.13, 0.07)  # DynamicWeight takes what the others leave
STATES = ("New", "Steady", "ScaledUp", "ScaledDown", "FailedOver", "Rescheduled", "Edited")
NEW, STEADY, SCALED_UP, SCALED_DOWN, FAILED_OVER, RESCHEDULED, EDITED = range(len(STATES))
STATE_SHARES = (0.70, 0.14, 0.06, 0.02, 0.04, 0.02, 0.02)  # New takes what the others leave
LOAD = 0.75  # the cpu the bindings ask for beyond what they hold, over the fleet's free cpu
MEMORY_PER_CPU = 0.60  # a replica's memory per cpu, over the fleet's free memory per free cpu
PRIORITY_SHARE, SUSPENDED_SHARE = 0.15, 0.01
CLUSTER_BINDING_SHARE = 0.5  # of the non-workloads: cluster-scoped resources
# Of the new namespaced Aggregated bindings: multi-component workloads (a jobmanager and its
# taskmanagers, run whole on one cluster: karmada#5115's Flink and its kin), drawn apart so that
# the other bindings stay as they are.
COMPONENT_SHARE = 0.1
ONE_CLUSTER = ({"spreadByField": "cluster", "maxGroups": 1, "minGroups": 1},)  # Go field order
NON_WORKLOAD_LIMIT = 30  # a non-workload's term matches at most this many clusters
VOCABULARY = 200  # placements per division kind at most

# cpu requests (millicores) and their shares
CPU_SHAPES, CPU_SHARES = (100, 250, 500, 1000, 2000, 4000), (0.15, 0.30, 0.30, 0.15, 0.07, 0.03)

# ------------------------------------------------------------------------------------ the fleet

MULTI_ZONE_SHARE, NO_ZONE_SHARE = 0.25, 0.03
PULL_SHARE = 0.3
NO_SUMMARY_SHARE = 0.01
ALLOCATING_SHARE = 0.3  # clusters with pods not bound yet
MODELED_SHARE = 0.3  # clusters registered with resource models (CustomizedClusterResourceModeling)
ROLLOUT_SHARE = 0.45  # clusters serving argoproj.io/v1alpha1 Rollouts
PODS_PER_NODE, GPUS_PER_NODE = 110, 4
GIB = 1024  # MiB
MAX_INT64 = "9223372036854775807"
# Upstream's default resource models (pkg/apis/cluster/mutation SetDefaultClusterResourceModels):
# cpu in cores, memory in GiB, grade by grade; the last grade's max is MaxInt64.
MODEL_CPU = (0, 1, 2, 4, 8, 16, 32, 64, 128)
MODEL_MEMORY_GIB = (0, 4, 16, 32, 64, 128, 256, 512, 1024)

# group/version -> (resource, kind) every cluster serves, and the ones only some do
CORE_APIS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("v1", (("configmaps", "ConfigMap"), ("namespaces", "Namespace"), ("secrets", "Secret"),
            ("services", "Service"))),
    ("apps/v1", (("daemonsets", "DaemonSet"), ("deployments", "Deployment"),
                 ("statefulsets", "StatefulSet"))),
    ("batch/v1", (("cronjobs", "CronJob"), ("jobs", "Job"))),
    ("rbac.authorization.k8s.io/v1", (("clusterroles", "ClusterRole"), ("roles", "Role"))),
)  # fmt: skip
ROLLOUT_API = ("argoproj.io/v1alpha1", (("rollouts", "Rollout"),))

# ------------------------------------------------------------------------------------ tenants

NAMESPACES = (
    "payments", "search", "identity", "checkout", "data-pipeline", "ml-serving", "media", "ads",
    "observability", "catalog", "notifications", "platform",
)  # fmt: skip
WORKLOADS = (
    "web-frontend", "api-gateway", "checkout", "payments", "search-api", "identity", "inventory",
    "recommendations", "ml-inference", "feature-store", "transcode", "ads-serving", "notifications",
    "cache", "queue-workers", "analytics",
)  # fmt: skip
# (apiVersion, kind, share) of the workloads
WORKLOAD_KINDS = (("apps/v1", "Deployment", 0.80), ("apps/v1", "StatefulSet", 0.12),
                  ("argoproj.io/v1alpha1", "Rollout", 0.08))  # fmt: skip
NAMESPACED_OBJECTS = (("v1", "ConfigMap"), ("v1", "Service"), ("v1", "Secret"))
CLUSTER_OBJECTS = (("v1", "Namespace"), ("rbac.authorization.k8s.io/v1", "ClusterRole"))
PRIORITIES = (10, 100, 1000)
EVICTION_REASON, EVICTION_PRODUCER = "TaintUntolerated", "TaintManager"
# ResourceBindingSpec's fields in Go's struct order, as its controllers' JSON (and so the server) has them
SPEC_ORDER = ("resource", "replicaRequirements", "replicas", "components", "clusters", "placement",
              "gracefulEvictionTasks",
              "schedulerName", "rescheduleTriggeredAt", "suspension", "schedulePriority")  # fmt: skip


def _uuids(rng: np.random.Generator, size: int) -> list[str]:
    raw = rng.integers(0, 2**63, size=(size, 2), dtype=np.int64).view(np.uint64)
    return [uuid_text(f"{hi:016x}{lo:016x}") for hi, lo in raw.tolist()]


def _namespaced_id(policy_id: str, namespace: str) -> str:
    """The permanent id of the PropagationPolicy in `namespace` that carries a vocabulary entry."""
    return uuid_text(hashlib.sha256(f"{policy_id}/{namespace}".encode()).hexdigest()[:32])


def _cpu_texts(millis: np.ndarray) -> list[str]:
    return [str(m // 1000) if m % 1000 == 0 else f"{m}m" for m in millis.tolist()]


def _memory_texts(mib: np.ndarray) -> list[str]:
    return [f"{m // GIB}Gi" if m % GIB == 0 else f"{m}Mi" for m in mib.tolist()]


# ======================================================================================== clusters


@dataclass(slots=True)
class _Fleet:
    """The shared cluster table with what Karmada's clusters add: zones, capacity in the estimator's
    terms (free = allocatable - allocated - allocating), taints, resource models."""

    table: ClusterTable
    names: list[str]
    zones: list[list[str]]
    zone_a: np.ndarray  # the first zone ("" none), for field selectors
    zone_b: np.ndarray  # the second zone ("" none)
    summary: np.ndarray  # bool: has a resourceSummary
    cpu_allocatable: np.ndarray  # millicores
    cpu_allocated: np.ndarray
    cpu_allocating: np.ndarray
    memory_allocatable: np.ndarray  # MiB
    memory_allocated: np.ndarray
    memory_allocating: np.ndarray
    pods_allocatable: np.ndarray
    pods_allocated: np.ndarray
    pods_allocating: np.ndarray
    gpus_allocatable: np.ndarray
    gpus_allocated: np.ndarray
    modeled: np.ndarray  # bool: has resource models
    grade_counts: np.ndarray  # (clusters, grades) nodes per grade
    pull: np.ndarray
    rollouts: np.ndarray  # bool: serves Rollouts
    open: np.ndarray  # bool: a summary, no taint, not leaving: open to a binding tolerating nothing

    def __len__(self) -> int:
        return len(self.names)

    def label(self, key: str) -> np.ndarray:
        return self.table.label(key)

    @property
    def free_cpu(self) -> np.ndarray:
        return np.where(self.summary, self.cpu_allocatable - self.cpu_allocated - self.cpu_allocating, 0)

    @property
    def free_memory(self) -> np.ndarray:
        return np.where(
            self.summary, self.memory_allocatable - self.memory_allocated - self.memory_allocating, 0
        )


def _fleet(clusters: int, seed: int, now: datetime) -> _Fleet:
    table = cluster_table(clusters, seed, now)
    rng = rng_for(seed, 41)
    size = len(table)
    frame = table.frame
    region_zones = {r: z for r, _, z in REGIONS}
    regions = table.label("region").tolist()
    first = table.label("zone")
    multi = rng.random(size) < MULTI_ZONE_SHARE
    none = rng.random(size) < NO_ZONE_SHARE
    zones: list[list[str]] = []
    for i, (region, zone) in enumerate(zip(regions, first.tolist(), strict=True)):
        if none[i]:
            zones.append([])
            continue
        options = region_zones[region]
        other = options[(options.index(zone) + 1) % len(options)]
        zones.append(sorted({zone, other}) if multi[i] else [zone])
    zone_a = np.array([z[0] if z else "" for z in zones], dtype=object)
    zone_b = np.array([z[1] if len(z) > 1 else "" for z in zones], dtype=object)

    health = table.numbers["health"]
    nodes = table.numbers["node_count"]
    summary = rng.random(size) >= NO_SUMMARY_SHARE
    cpu_allocatable = table.numbers["cpu_allocatable_m"]
    cpu_available = table.numbers["cpu_available_m"]
    pending = rng.random(size) < ALLOCATING_SHARE
    share = np.where(pending, rng.uniform(0.0, 0.03, size), 0.0)
    cpu_allocating = np.minimum((cpu_allocatable * share // 10).astype(np.int64) * 10, cpu_available)
    memory_allocatable = table.numbers["memory_allocatable_mi"]
    memory_available = table.numbers["memory_available_mi"]
    memory_allocating = np.minimum((memory_allocatable * share).astype(np.int64), memory_available)
    pods_allocatable = nodes * PODS_PER_NODE
    cpu_allocated = cpu_allocatable - cpu_available
    per_pod = rng.uniform(150.0, 400.0, size)
    pods_allocated = np.minimum(np.ceil(cpu_allocated / per_pod).astype(np.int64), pods_allocatable // 2)
    pods_allocating = np.ceil(cpu_allocating / 250.0).astype(np.int64)
    gpu = table.label("accelerator") != ""
    gpus_allocatable = np.where(gpu, nodes * GPUS_PER_NODE, 0)
    gpus_allocated = (gpus_allocatable * rng.uniform(0.2, 0.8, size)).astype(np.int64)

    # Resource models: each node's grade from its free cpu and memory, some nodes a grade lower.
    modeled = rng.random(size) < MODELED_SHARE
    free_cores = (cpu_available - cpu_allocating) / 1000.0 / nodes
    free_gib = (memory_available - memory_allocating) / GIB / nodes
    grade = np.minimum(
        np.searchsorted(MODEL_CPU, free_cores, side="right") - 1,
        np.searchsorted(MODEL_MEMORY_GIB, free_gib, side="right") - 1,
    ).clip(0, len(MODEL_CPU) - 1)
    lower = np.minimum(rng.binomial(nodes, 0.3), nodes)
    grade_counts = np.zeros((size, len(MODEL_CPU)), dtype=np.int64)
    rows = np.arange(size)
    np.add.at(grade_counts, (rows, grade), nodes - lower)
    np.add.at(grade_counts, (rows, np.maximum(grade - 1, 0)), lower)

    tainted = (frame["taint_key"].to_numpy().astype(str) != "") | np.isin(health, (UNHEALTHY, STALE))
    return _Fleet(
        table=table,
        names=table.names.tolist(),
        zones=zones,
        zone_a=zone_a,
        zone_b=zone_b,
        summary=summary,
        cpu_allocatable=cpu_allocatable,
        cpu_allocated=cpu_allocated,
        cpu_allocating=cpu_allocating,
        memory_allocatable=memory_allocatable,
        memory_allocated=memory_allocatable - memory_available,
        memory_allocating=memory_allocating,
        pods_allocatable=pods_allocatable,
        pods_allocated=pods_allocated,
        pods_allocating=pods_allocating,
        gpus_allocatable=gpus_allocatable,
        gpus_allocated=gpus_allocated,
        modeled=modeled,
        grade_counts=grade_counts,
        pull=rng.random(size) < PULL_SHARE,
        rollouts=rng.random(size) < ROLLOUT_SHARE,
        open=summary & ~tainted & (health != LEAVING),
    )


def _resource_models() -> list[dict[str, Any]]:
    last = len(MODEL_CPU) - 1
    models = []
    for g in range(len(MODEL_CPU)):
        cpu_max = MAX_INT64 if g == last else str(MODEL_CPU[g + 1])
        memory_max = MAX_INT64 if g == last else f"{MODEL_MEMORY_GIB[g + 1]}Gi"
        memory_min = f"{MODEL_MEMORY_GIB[g]}Gi" if g else "0"
        models.append(
            {
                "grade": g,
                "ranges": [
                    {"name": "cpu", "min": str(MODEL_CPU[g]), "max": cpu_max},
                    {"name": "memory", "min": memory_min, "max": memory_max},
                ],
            }
        )
    return models


def _api_enablements(rollouts: bool) -> list[dict[str, Any]]:
    apis = (*CORE_APIS, ROLLOUT_API) if rollouts else CORE_APIS
    return [
        {"groupVersion": gv, "resources": [{"name": name, "kind": kind} for name, kind in resources]}
        for gv, resources in apis
    ]


def _cluster_objects(f: _Fleet, clock: Clock) -> list[dict[str, Any]]:
    t = f.table
    frame = t.frame
    size = len(f)
    labels = [(k, t.label(k).tolist()) for k in LABEL_KEYS]
    texts = {
        "cpu": (_cpu_texts(f.cpu_allocatable), _cpu_texts(f.cpu_allocated), _cpu_texts(f.cpu_allocating)),
        "memory": (
            _memory_texts(f.memory_allocatable),
            _memory_texts(f.memory_allocated),
            _memory_texts(f.memory_allocating),
        ),
        "pods": tuple(
            [str(v) for v in a.tolist()] for a in (f.pods_allocatable, f.pods_allocated, f.pods_allocating)
        ),
    }
    gpus = (f.gpus_allocatable.tolist(), f.gpus_allocated.tolist())
    health = t.numbers["health"].tolist()
    nodes = t.numbers["node_count"].tolist()
    taint_key = frame["taint_key"].to_list()
    taint_value = frame["taint_value"].to_list()
    since = frame["health_since"].to_list()
    joined = frame["joined_since"].to_list()
    deleted = frame["deleted_at"].to_list()
    regions, providers = t.label("region").tolist(), t.label("provider").tolist()
    summary, modeled, pull = f.summary.tolist(), f.modeled.tolist(), f.pull.tolist()
    rollouts, grades = f.rollouts.tolist(), f.grade_counts.tolist()
    models = json.dumps(_resource_models())
    enablements = {flag: json.dumps(_api_enablements(flag)) for flag in (False, True)}
    out = []
    for i in range(size):
        name = f.names[i]
        metadata: dict[str, Any] = {
            "name": name,
            "labels": {k: col[i] for k, col in labels if col[i]},
            "creationTimestamp": joined[i],
        }
        if health[i] == LEAVING:
            metadata["deletionTimestamp"] = deleted[i]
            metadata["finalizers"] = [CLUSTER_FINALIZER]
        spec: dict[str, Any] = {"syncMode": "Pull" if pull[i] else "Push"}
        if not pull[i]:
            spec["apiEndpoint"] = f"https://{name}.clusters.example.com:6443"
            spec["secretRef"] = {"namespace": "karmada-cluster", "name": name}
        spec["provider"] = providers[i]
        spec["region"] = regions[i]
        if f.zones[i]:
            spec["zones"] = list(f.zones[i])
        taints = _taints(health[i], taint_key[i], taint_value[i], since[i])
        if taints:
            spec["taints"] = taints
        if modeled[i]:
            spec["resourceModels"] = orjson.loads(models)
        ready = {HEALTHY: "True", BLIP: "True", UNHEALTHY: "False", STALE: "Unknown"}.get(health[i], "True")
        status: dict[str, Any] = {
            "kubernetesVersion": "v1.31.4",
            "apiEnablements": orjson.loads(enablements[rollouts[i]]),
            "conditions": _cluster_conditions(ready, since[i]),
            "nodeSummary": {"totalNum": nodes[i], "readyNum": nodes[i] if ready == "True" else 0},
        }
        if summary[i]:
            resources = {}
            for part, column in enumerate(("allocatable", "allocated", "allocating")):
                values = {key: texts[key][part][i] for key in ("cpu", "memory", "pods")}
                if part < 2 and gpus[0][i]:
                    values[GPU] = str(gpus[part][i])
                resources[column] = values
            if modeled[i]:
                resources["allocatableModelings"] = [
                    {"grade": g, "count": c} for g, c in enumerate(grades[i])
                ]
            status["resourceSummary"] = resources
        out.append({"apiVersion": CLUSTER_API, "kind": n.CLUSTER, "metadata": metadata, "spec": spec,
                    "status": status})  # fmt: skip
    return out


def _taints(health: int, key: str, value: str, since: str) -> list[dict[str, Any]]:
    """The cluster controller's taint of a cluster that is not Ready, and the operators' own."""
    taints: list[dict[str, Any]] = []
    if health == UNHEALTHY:
        taints.append({"key": NOT_READY_TAINT, "effect": "NoSchedule"})
    elif health == STALE:
        taints.append({"key": UNREACHABLE_TAINT, "effect": "NoSchedule"})
    if key == "maintenance":
        taints.append({"key": key, "value": value, "effect": "NoExecute", "timeAdded": since})
    elif key:
        taints.append({"key": key, "value": value, "effect": "NoSchedule"})
    return taints


def _cluster_conditions(ready: str, since: str) -> list[dict[str, Any]]:
    reason, message = {
        "True": ("ClusterReady", "cluster is healthy and ready to accept workloads"),
        "False": ("ClusterNotReady", "cluster is reachable but health endpoint responded without ok"),
        "Unknown": ("ClusterNotReachable", "cluster is not reachable"),
    }[ready]
    return [
        {"type": "Ready", "status": ready, "reason": reason, "message": message, "lastTransitionTime": since},
        {
            "type": "CompleteAPIEnablements",
            "status": "True",
            "reason": "Complete",
            "message": "collected complete APIEnablements from the cluster",
            "lastTransitionTime": since,
        },
    ]


# ======================================================================================== selectors


class _KarmadaMatcher(Matcher):
    """Upstream's ClusterMatches (pkg/util/selector.go) over the fleet: exclude, the label
    selector, the field selector (provider and region as a node selector over the non-empty ones,
    zone against every zone), clusterNames; all ANDed."""

    def __init__(self, fleet: _Fleet) -> None:
        super().__init__(fleet)
        self.fleet = fleet
        self.names = np.array(fleet.names, dtype=object)

    def affinity(self, term: Mapping[str, Any] | None) -> np.ndarray:
        return self._cached("affinity", term, lambda: self._affinity(term or {}))

    def _affinity(self, term: Mapping[str, Any]) -> np.ndarray:
        mask = np.ones(len(self.fleet), dtype=bool)
        if term.get("exclude"):
            mask &= ~np.isin(self.names, term["exclude"])
        if "labelSelector" in term:
            mask &= self.selector(term["labelSelector"])
        for item in (term.get("fieldSelector") or {}).get("matchExpressions") or []:
            if item["key"] == "zone":
                listed = np.isin(self.fleet.zone_a, item["values"]) | np.isin(
                    self.fleet.zone_b, item["values"]
                )
                mask &= listed if item["operator"] == "In" else ~listed
            else:
                values = self.fleet.label(item["key"])
                listed = (values != "") & np.isin(values, item["values"])
                mask &= listed if item["operator"] == "In" else ~listed
        if term.get("clusterNames"):
            mask &= np.isin(self.names, term["clusterNames"])
        return mask


def _field(key: str, *values: str) -> dict[str, Any]:
    return {"matchExpressions": [expression(key, "In", *values)]}


# ======================================================================================== policies


@dataclass(slots=True)
class _Policy:
    """A placement as its policy (and so every binding of it) carries it, with what the
    generator needs about it: its division kind, the clusters it names (Duplicated, static)."""

    kind: int
    placement: dict[str, Any]
    text: str  # the placement as Go's json.Marshal writes it: the applied-placement annotation
    named: tuple[int, ...]  # cluster indices a Duplicated or static policy places on
    id: str


class _Policies:
    """A vocabulary of placements per division kind, made from the fleet's own attributes."""

    def __init__(self, fleet: _Fleet, matcher: _KarmadaMatcher, rng: np.random.Generator, size: int) -> None:
        self.fleet, self.matcher, self.rng = fleet, matcher, rng
        self.picker = Picker(rng)
        self.open = np.flatnonzero(fleet.open)
        self.terms = self._terms()
        self.narrow = [t for t in self.terms if 0 < int(self._count(t)) <= NON_WORKLOAD_LIMIT]
        self.regions = [r for r, _, _ in REGIONS if (fleet.label("region") == r).any()]
        self.size = size

    def _count(self, term: Mapping[str, Any] | None) -> int:
        return int(self.matcher.affinity(term).sum())

    def _terms(self) -> list[dict[str, Any] | None]:
        """The clusterAffinity terms the dynamic policies use, broad to narrow, each matching at
        least two clusters (None: no affinity, the whole fleet)."""
        f = self.fleet
        present = [r for r, _, _ in REGIONS if (f.label("region") == r).any()]
        prod = {"labelSelector": label_selector({"environment": "production"})}
        candidates: list[dict[str, Any] | None] = [
            None,
            prod,
            {"labelSelector": label_selector({"environment": "staging"})},
            {"labelSelector": label_selector(None, expression("tier", "In", "gold", "silver"))},
            *({"fieldSelector": _field("provider", p)} for p in PROVIDERS),
            *({**prod, "fieldSelector": _field("region", r)} for r in present),
            {
                **prod,
                "fieldSelector": _field("region", *[r for r in present if r.startswith(("eu", "west"))]),
            },
            {**prod, "fieldSelector": _field("region", *[r for r in present if r.startswith("us")])},
            *({"labelSelector": label_selector({"environment": "production", "team": t})} for t in TEAMS),
            *(
                {"fieldSelector": _field("zone", *zones[:2])}
                for region, _, zones in REGIONS
                if region in present and len(zones) == 3
            ),
        ]
        out = []
        for term in candidates:
            if term is not None and any(not e.get("values") for e in term.get("fieldSelector", {}).get(
                    "matchExpressions", [])):  # fmt: skip
                continue
            if term is None or self._count(term) >= 2:
                out.append(term)
        return out

    # -- one placement per kind -----------------------------------------------------------------

    def _tolerations(self) -> list[dict[str, Any]] | None:
        if self.rng.random() >= 0.10:
            return None
        return self.picker.pick(
            [
                [{"key": NOT_READY_TAINT, "operator": "Exists", "effect": "NoSchedule"}],
                [{"key": "maintenance", "operator": "Exists"}],
                [
                    {
                        "key": "dedicated",
                        "operator": "Equal",
                        "value": self.picker.pick(TEAMS),
                        "effect": "NoSchedule",
                    }
                ],
                [
                    {"key": UNREACHABLE_TAINT, "operator": "Exists", "effect": "NoSchedule"},
                    {"key": NOT_READY_TAINT, "operator": "Exists", "effect": "NoSchedule"},
                ],
            ]
        )

    def _spread(self) -> list[dict[str, Any]] | None:
        u = self.rng.random()
        low = int(self.rng.integers(1, 3))
        high = low + int(self.rng.integers(1, 5))
        if u < 0.22:
            return [{"spreadByField": "cluster", "maxGroups": high, "minGroups": low}]
        if u < 0.30:
            return [
                {"spreadByField": "region", "maxGroups": 2, "minGroups": 1},
                {"spreadByField": "cluster", "maxGroups": high + 2, "minGroups": 2},
            ]
        if u < 0.33:
            return [
                {"spreadByField": "zone", "minGroups": 1},
                {"spreadByField": "cluster", "maxGroups": high, "minGroups": low},
            ]
        return None

    def _affinities(self) -> list[dict[str, Any]]:
        """A primary and a backup region (environment production), the primary sometimes with an
        overflow tier in a third region."""
        regions = self.picker.sample(self.regions, min(3, len(self.regions)))
        self.rng.shuffle(regions)
        prod = label_selector({"environment": "production"})

        def term(name: str, region: str) -> dict[str, Any]:
            return {"affinityName": name, "labelSelector": prod, "fieldSelector": _field("region", region)}

        primary = term("primary", regions[0])
        if len(regions) > 2 and self.rng.random() < 0.5:
            primary["overflowAffinities"] = [
                {"affinityName": "burst", "fieldSelector": _field("region", regions[2])}
            ]
        return [primary, term("backup", regions[-1 if len(regions) < 3 else 1])]

    def _dynamic(self, kind: int) -> dict[str, Any]:
        placement: dict[str, Any] = {}
        if self.rng.random() < 0.12 and self.regions:
            placement["clusterAffinities"] = self._affinities()
        else:
            term = self.picker.pick(self.terms)
            if term is not None:
                placement["clusterAffinity"] = term
        tolerations = self._tolerations()
        if tolerations:
            placement["clusterTolerations"] = tolerations
        spread = self._spread() if self.rng.random() < (1.0 if kind == DYNAMIC else 0.6) else None
        if spread:
            placement["spreadConstraints"] = spread
        if kind == DYNAMIC:
            scheduling = {
                "replicaSchedulingType": "Divided",
                "replicaDivisionPreference": "Weighted",
                "weightPreference": {"dynamicWeight": "AvailableReplicas"},
            }
        else:
            scheduling = {"replicaSchedulingType": "Divided", "replicaDivisionPreference": "Aggregated"}
        placement["replicaScheduling"] = scheduling
        return placement

    def _named(self, low: int, high: int) -> list[int]:
        """Some open clusters of one narrow-enough term, as upstream's users name them."""
        pool = self.open
        term = self.picker.pick(self.terms)
        inside = np.flatnonzero(self.matcher.affinity(term) & self.fleet.open)
        if len(inside) >= low:
            pool = inside
        if not len(pool):
            return []
        return sorted(
            self.picker.sample(pool.tolist(), min(int(self.rng.integers(low, high + 1)), len(pool)))
        )

    def _duplicated(self, named: list[int]) -> dict[str, Any]:
        placement: dict[str, Any] = {
            "clusterAffinity": {"clusterNames": [self.fleet.names[i] for i in named]}
        }
        tolerations = self._tolerations()
        if tolerations:
            placement["clusterTolerations"] = tolerations
        if self.rng.random() < 0.4:
            placement["replicaScheduling"] = {"replicaSchedulingType": "Duplicated"}
        return placement

    def _static(self, named: list[int]) -> dict[str, Any]:
        names = [self.fleet.names[i] for i in named]
        placement: dict[str, Any] = {"clusterAffinity": {"clusterNames": names}}
        scheduling: dict[str, Any] = {
            "replicaSchedulingType": "Divided",
            "replicaDivisionPreference": "Weighted",
        }
        u = self.rng.random()
        if u < 0.15:
            pass  # no weightPreference: every cluster weighs 1
        elif u < 0.40 and len({self.fleet.label("region")[i] for i in named}) > 1:
            regions = sorted({str(self.fleet.label("region")[i]) for i in named})
            scheduling["weightPreference"] = {
                "staticWeightList": [
                    {"targetCluster": {"fieldSelector": _field("region", r)}, "weight": len(regions) - k}
                    for k, r in enumerate(regions)
                ]
            }
        else:
            scheduling["weightPreference"] = {
                "staticWeightList": [
                    {"targetCluster": {"clusterNames": [name]}, "weight": int(self.rng.integers(1, 5))}
                    for name in names
                ]
            }
        placement["replicaScheduling"] = scheduling
        return placement

    def _non_workload(self) -> tuple[dict[str, Any], list[int]]:
        if self.narrow and self.rng.random() < 0.7:
            term = self.picker.pick(self.narrow)
            return {"clusterAffinity": term}, []
        named = self._named(2, 6)
        return {"clusterAffinity": {"clusterNames": [self.fleet.names[i] for i in named]}}, named

    def _one(self, kind: int) -> tuple[dict[str, Any], list[int]]:
        if kind in (DYNAMIC, AGGREGATED):
            return self._dynamic(kind), []
        if kind == NON_WORKLOAD:
            return self._non_workload()
        named = self._named(1, 4) if kind == DUPLICATED else self._named(2, 5)
        return (self._duplicated(named) if kind == DUPLICATED else self._static(named)), named

    def vocabulary(self, kind: int) -> list[_Policy]:
        """Up to `size` distinct placements of one kind (a Duplicated or static one naming no
        cluster is left out: the fleet has no open cluster)."""
        made: dict[str, tuple[dict[str, Any], list[int]]] = {}
        for _ in range(self.size * 3):
            if len(made) >= self.size:
                break
            placement, named = self._one(kind)
            if kind in (DUPLICATED, STATIC) and not named:
                continue
            made.setdefault(go_json(placement), (placement, named))
        ids = _uuids(self.rng, len(made))
        return [
            _Policy(kind, placement, text, tuple(named), ids[k])
            for k, (text, (placement, named)) in enumerate(made.items())
        ]


# ======================================================================================== bindings


@dataclass(slots=True)
class _Draws:
    """Every binding's vectorised draws."""

    kind: np.ndarray
    state: np.ndarray
    policy: np.ndarray  # index into the kind's vocabulary
    cpu: np.ndarray  # millicores per replica
    memory: np.ndarray  # MiB per replica
    replicas: np.ndarray
    new_share: np.ndarray  # of a scaled-up binding's replicas: the ones added
    namespace: np.ndarray
    workload: np.ndarray
    resource_kind: np.ndarray
    age: np.ndarray  # creation, seconds before now
    priority: np.ndarray  # 0: none
    suspended: np.ndarray
    cluster_scoped: np.ndarray
    cpu_text: list[str]
    memory_text: list[str]


class _Generator:
    def __init__(self, clusters: int, bindings: int, seed: int, now: datetime) -> None:
        self.clock = Clock(now)
        self.fleet = _fleet(clusters, seed, now)
        self.matcher = _KarmadaMatcher(self.fleet)
        self.bindings = bindings
        self.seed = seed
        self.rng = rng_for(seed, 43)
        self.state_rng = rng_for(seed, 44)
        size = int(min(VOCABULARY, max(4, round(2 * bindings**0.5))))
        policies = _Policies(self.fleet, self.matcher, rng_for(seed, 42), size)
        self.vocabulary = [policies.vocabulary(kind) for kind in range(len(KINDS))]

    # -- draws ----------------------------------------------------------------------------------

    def _draws(self) -> _Draws:
        rng, total, f = self.rng, self.bindings, self.fleet
        kind = exact_categories(rng, total, KIND_SHARES, rest=DYNAMIC)
        # A kind without a placement (no open cluster to name) becomes dynamic.
        for k, vocabulary in enumerate(self.vocabulary):
            if not vocabulary:
                kind[kind == k] = DYNAMIC
        state = exact_categories(rng, total, STATE_SHARES, rest=NEW)
        policy = np.zeros(total, dtype=np.int64)
        for k, vocabulary in enumerate(self.vocabulary):
            where = np.flatnonzero(kind == k)
            if len(where) and vocabulary:
                cumulative = np.cumsum(zipf_weights(len(vocabulary), 1.0))
                drawn = np.searchsorted(cumulative, rng.random(len(where)), side="right")
                policy[where] = np.minimum(drawn, len(vocabulary) - 1)
        cpu = np.array(CPU_SHAPES)[rng.choice(len(CPU_SHAPES), size=total, p=CPU_SHARES)]
        free_cpu = float(f.free_cpu[f.open].sum())
        free_memory = float(f.free_memory[f.open].sum())
        mib_per_milli = free_memory / free_cpu if free_cpu else 1.0
        spread = rng.choice(np.array([2 / 3, 1.0, 4 / 3]), size=total)  # around the mean, which is 1
        memory = np.maximum(np.ceil(cpu * mib_per_milli * MEMORY_PER_CPU * spread / 64), 1) * 64
        raw = np.exp(rng.normal(1.2, 0.9, total))  # lognormal: median ~3.3
        new_share = rng.uniform(0.2, 0.5, total)
        workloads = np.array([k for _, k, _ in WORKLOAD_KINDS])
        resource_kind = workloads[
            rng.choice(len(WORKLOAD_KINDS), size=total, p=[s for *_, s in WORKLOAD_KINDS])
        ]
        draws = _Draws(
            kind=kind,
            state=state,
            policy=policy,
            cpu=cpu.astype(np.int64),
            memory=memory.astype(np.int64),
            replicas=np.zeros(total, dtype=np.int64),
            new_share=new_share,
            namespace=rng.choice(len(NAMESPACES), size=total, p=zipf_weights(len(NAMESPACES), 0.7)),
            workload=rng.integers(0, len(WORKLOADS), total),
            resource_kind=resource_kind,
            age=np.where(state == NEW, rng.integers(0, 900, total), rng.integers(3600, 60 * 86400, total)),
            priority=np.where(
                rng.random(total) < PRIORITY_SHARE, np.array(PRIORITIES)[rng.integers(0, 3, total)], 0
            ),
            suspended=rng.random(total) < SUSPENDED_SHARE,
            cluster_scoped=(kind == NON_WORKLOAD) & (rng.random(total) < CLUSTER_BINDING_SHARE),
            cpu_text=_cpu_texts(cpu),
            memory_text=_memory_texts(memory.astype(np.int64)),
        )
        draws.replicas = self._scaled(draws, raw, free_cpu * LOAD)
        return draws

    def _scaled(self, d: _Draws, raw: np.ndarray, target: float) -> np.ndarray:
        """Replicas scaled together so that what the bindings ask for beyond what they hold is
        `target` millicores: a new binding asks for all its replicas (a Duplicated one on every
        cluster it names), a scaled-up one for its new share, a failed-over one for about what it
        lost, the others for nothing."""
        widths = np.array([len(p.named) for p in self._policies_of(d)])
        per_copy = np.where(d.kind == DUPLICATED, np.maximum(widths, 1), 1)
        share = np.select(
            [d.state == NEW, d.state == SCALED_UP, d.state == FAILED_OVER],
            [1.0, d.new_share, 0.35],
            0.0,
        )
        share = np.where((d.kind == NON_WORKLOAD) | d.suspended, 0.0, share)
        asked = float((raw * share * per_copy * d.cpu).sum())
        factor = target / asked if asked else 1.0
        replicas = np.clip(np.rint(raw * factor), 1, 2**31 - 1).astype(np.int64)
        return np.where(d.kind == NON_WORKLOAD, 0, replicas)

    def _policies_of(self, d: _Draws) -> list[_Policy]:
        return [self.vocabulary[k][p] for k, p in zip(d.kind.tolist(), d.policy.tolist(), strict=True)]

    # -- an earlier run's assignment ------------------------------------------------------------

    def _candidates(self, policy: _Policy, observed: int) -> np.ndarray:
        """The clusters an earlier run could have placed a binding of `policy` on (its observed
        term, for clusterAffinities): matching, with a summary, not being deleted."""
        if policy.named:
            return np.array(policy.named, dtype=np.int64)
        placement = policy.placement
        if "clusterAffinities" in placement:
            term = {k: v for k, v in placement["clusterAffinities"][observed].items()
                    if k not in ("affinityName", "overflowAffinities")}  # fmt: skip
        else:
            term = placement.get("clusterAffinity")
        f = self.fleet
        return np.flatnonzero(
            self.matcher.affinity(term) & f.summary & (f.table.numbers["health"] != LEAVING)
        )

    def _assignment(self, policy: _Policy, replicas: int, observed: int) -> list[tuple[int, int]]:
        """(cluster, replicas) an earlier run wrote, in name order."""
        rng = self.state_rng
        candidates = self._candidates(policy, observed)
        if not len(candidates):
            return []
        if policy.kind in (DUPLICATED, NON_WORKLOAD):
            return [(int(c), replicas) for c in candidates.tolist()]
        if policy.kind == STATIC:
            k = len(candidates)
            chosen = candidates
        else:
            high = 2 if policy.kind == AGGREGATED else 4
            spread = [
                s for s in policy.placement.get("spreadConstraints", ()) if s["spreadByField"] == "cluster"
            ]
            low = spread[0]["minGroups"] if spread else 1
            high = spread[0]["maxGroups"] if spread else high
            k = max(1, min(int(rng.integers(low, high + 1)), len(candidates), replicas))
            picks = np.unique(rng.integers(0, len(candidates), 2 * k + 2))[:k] if len(candidates) > 64 else (
                rng.choice(len(candidates), size=k, replace=False))  # fmt: skip
            chosen = candidates[np.sort(picks)]
            k = len(chosen)
        counts = np.full(k, replicas // k) + (np.arange(k) < replicas % k)
        order = np.argsort([self.fleet.names[c] for c in chosen.tolist()], kind="stable")
        return [(int(chosen[j]), int(counts[j])) for j in order.tolist() if counts[j] > 0]

    # -- objects --------------------------------------------------------------------------------

    def objects(self) -> list[dict[str, Any]]:
        clusters = _cluster_objects(self.fleet, self.clock)
        if not self.bindings:
            return clusters
        d = self._draws()
        uids = _uuids(self.rng, self.bindings)
        resource_uids = _uuids(self.rng, self.bindings)
        created = self.clock.before(d.age)
        policies = self._policies_of(d)
        sets = self._component_sets(d)
        out = []
        for i in range(self.bindings):
            binding = self._binding(i, d, policies[i], uids[i], resource_uids[i], created[i])
            out.append(_as_components(binding, policies[i].id) if sets[i] else binding)
        return [*clusters, *out]

    def _component_sets(self, d: _Draws) -> np.ndarray:
        """Which bindings are multi-component workloads: COMPONENT_SHARE of the new namespaced
        Aggregated ones, from a stream of their own."""
        drawn = rng_for(self.seed, 45).random(self.bindings) < COMPONENT_SHARE
        return drawn & (d.kind == AGGREGATED) & (d.state == NEW) & ~d.cluster_scoped & ~d.suspended

    def _resource(self, i: int, d: _Draws, uid: str) -> tuple[str, dict[str, Any], str]:
        """(binding name, spec.resource, namespace or "")."""
        name = f"{WORKLOADS[int(d.workload[i])]}-{i:05d}"
        namespace = NAMESPACES[int(d.namespace[i])]
        if d.kind[i] == NON_WORKLOAD:
            options = CLUSTER_OBJECTS if d.cluster_scoped[i] else NAMESPACED_OBJECTS
            api, kind = options[i % len(options)]
            if d.cluster_scoped[i]:
                namespace = ""
                if kind == "Namespace":
                    name = f"{NAMESPACES[int(d.namespace[i])]}-{i:05d}"
        else:
            kind = str(d.resource_kind[i])
            api = next(a for a, k, _ in WORKLOAD_KINDS if k == kind)
        resource: dict[str, Any] = {"apiVersion": api, "kind": kind}
        if namespace:
            resource["namespace"] = namespace
        resource["name"] = name
        resource["uid"] = uid
        return f"{name}-{kind.lower()}", resource, namespace

    def _binding(
        self, i: int, d: _Draws, policy: _Policy, uid: str, resource_uid: str, created: str
    ) -> dict[str, Any]:
        name, resource, namespace = self._resource(i, d, resource_uid)
        workload = d.kind[i] != NON_WORKLOAD
        replicas = int(d.replicas[i])
        state = int(d.state[i])
        # Cluster-scoped resources and one namespaced binding in seven come from a ClusterPropagationPolicy.
        label = n.CPP_ID_LABEL if not namespace or i % 7 == 0 else n.PP_ID_LABEL
        # A PropagationPolicy is namespaced: one placement in two namespaces is two policies.
        policy_id = policy.id if label == n.CPP_ID_LABEL else _namespaced_id(policy.id, namespace)
        metadata: dict[str, Any] = {"name": name}
        if namespace:
            metadata["namespace"] = namespace
        metadata.update(uid=uid, generation=1, creationTimestamp=created, labels={label: policy_id})
        spec: dict[str, Any] = {"resource": resource}
        if workload:
            spec["replicas"] = replicas
            spec["replicaRequirements"] = {
                "resourceRequest": {"cpu": d.cpu_text[i], "memory": d.memory_text[i]}
            }
        spec["placement"] = orjson.loads(policy.text)
        spec["schedulerName"] = n.DEFAULT_SCHEDULER
        if d.priority[i]:
            spec["schedulePriority"] = {"priority": int(d.priority[i])}
        if d.suspended[i]:
            spec["suspension"] = {"scheduling": True}
        binding = {
            "apiVersion": n.BINDING_API_VERSION,
            "kind": n.RB if namespace else n.CRB,
            "metadata": metadata,
            "spec": spec,
        }
        if state != NEW:
            self._earlier_run(binding, policy, state, workload, int(d.age[i]), float(d.new_share[i]))
        binding["spec"] = {k: binding["spec"][k] for k in SPEC_ORDER if k in binding["spec"]}
        return binding

    def _earlier_run(
        self, binding: dict[str, Any], policy: _Policy, state: int, workload: bool, age: int, added: float
    ) -> None:
        """The state an earlier run left, changed since as `state` says."""
        rng = self.state_rng
        spec, metadata = binding["spec"], binding["metadata"]
        replicas = spec.get("replicas", 0)
        affinities = policy.placement.get("clusterAffinities")
        observed = int(rng.random() < 0.2) if affinities else 0
        held = replicas
        if workload and state == SCALED_UP and replicas > 1:
            held = max(1, replicas - max(1, round(replicas * added)))
        elif workload and state == SCALED_DOWN:
            held = replicas + max(1, round(replicas * 0.3))
        assigned = self._assignment(policy, held, observed)
        if not assigned:
            return  # no cluster could have held it: it stays as a new binding would be
        scheduled_age = int(rng.integers(60, max(61, age)))
        generation = int(rng.integers(1, 6))
        text = policy.text
        if state == FAILED_OVER:
            lost = self._failed(assigned)
            cluster, lost_replicas = assigned.pop(lost)
            task: dict[str, Any] = {"fromCluster": self.fleet.names[cluster]}
            if workload:
                task["replicas"] = lost_replicas
            task["reason"] = EVICTION_REASON
            task["producer"] = EVICTION_PRODUCER
            task["creationTimestamp"] = self.clock.one(int(rng.integers(10, 300)))
            spec["gracefulEvictionTasks"] = [task]
        elif state == RESCHEDULED:
            spec["rescheduleTriggeredAt"] = self.clock.one(int(rng.integers(5, scheduled_age)))
        elif state == EDITED:
            others = [p for p in self.vocabulary[policy.kind] if p.text != policy.text]
            if others:
                text = others[int(rng.integers(0, len(others)))].text
        changed = state in (SCALED_UP, SCALED_DOWN, FAILED_OVER, RESCHEDULED) or text != policy.text
        metadata["generation"] = generation + int(changed)
        metadata["annotations"] = {n.APPLIED_PLACEMENT: text}
        names = self.fleet.names
        if assigned:
            spec["clusters"] = [
                {"name": names[c], "replicas": n} if workload else {"name": names[c]} for c, n in assigned
            ]
        stamp = self.clock.one(scheduled_age)
        status: dict[str, Any] = {"schedulerObservedGeneration": generation}
        if affinities:
            status["schedulerObservingAffinityName"] = affinities[observed]["affinityName"]
        status["lastScheduledTime"] = stamp
        status["conditions"] = [
            {
                "type": n.SCHEDULED,
                "status": "True",
                "reason": n.SUCCESS,
                "message": n.SUCCESS_MESSAGE,
                "lastTransitionTime": stamp,
            }
        ]
        binding["status"] = status

    def _failed(self, assigned: Sequence[tuple[int, int]]) -> int:
        """Which held cluster failed: one no longer Ready where there is one, else any."""
        health = self.fleet.table.numbers["health"]
        for k, (c, _) in enumerate(assigned):
            if health[c] in (UNHEALTHY, STALE):
                return k
        return int(self.state_rng.integers(0, len(assigned)))


def _as_components(binding: dict[str, Any], policy_id: str) -> dict[str, Any]:
    """The binding as the detector writes a multi-component workload (MultiplePodTemplatesScheduling):
    its replicas as one jobmanager and the rest taskmanagers of the same request, in components
    alone; its policy's placement run whole on one cluster (a cluster spread of exactly one)."""
    spec = binding["spec"]
    replicas = spec.pop("replicas")
    requirements = spec.pop("replicaRequirements")
    spec["components"] = [
        {"name": name, "replicas": count, "replicaRequirements": requirements}
        for name, count in (("jobmanager", 1), ("taskmanager", max(1, replicas - 1)))
    ]
    placement = {k: v for k, v in spec["placement"].items() if k != "spreadConstraints"}
    scheduling = placement.pop("replicaScheduling")  # after the spread, in Placement's Go order
    spec["placement"] = {**placement, "spreadConstraints": [dict(s) for s in ONE_CLUSTER]}
    spec["placement"]["replicaScheduling"] = scheduling
    labels = binding["metadata"]["labels"]
    key = next(iter(labels))
    labels[key] = _namespaced_id(f"{policy_id}/components", binding["metadata"]["namespace"])
    binding["spec"] = {k: spec[k] for k in SPEC_ORDER if k in spec}
    return binding


def generate_karmada(clusters: int, placements: int, *, seed: int = 0, now: datetime) -> list[dict[str, Any]]:
    """A synthetic Karmada hub with `clusters` Clusters and `placements` bindings (ResourceBindings and
    ClusterResourceBindings), as plain JSON-like objects; the same arguments give the same objects."""
    check_sizes(clusters, placements, seed)
    return _Generator(int(clusters), int(placements), int(seed), parse_now(now)).objects()
