"""Deterministic synthetic Open Cluster Management hubs: the objects a real hub would hold.

    from adapters.ocm.generate import generate_ocm
    objects = generate_ocm(10_000, 2_000, seed=0, now=datetime(2026, 11, 21, 12, tzinfo=UTC))

The hub holds, in this order:

- ``ManagedClusterSet`` (v1beta2): exclusive business-unit sets (``ExclusiveClusterSetLabel``), a few
  ``LabelSelector`` sets (all prod clusters, all of one cloud, a geography, all OpenShift) and ``global``;
- ``ManagedCluster`` (v1): Zipf-sized regions with nested zones, cloud/vendor, environment and tier labels,
  the exclusive set label on most, custom taints (NoSelect, PreferNoSelect, NoSelectIfNew), the
  Available condition with the built-in unavailable/unreachable taints hub registration adds, cluster
  claims, allocatable and capacity quantities, the Kubernetes version, and a few terminating clusters;
- ``AddOnPlacementScore`` (v1alpha1, in the cluster namespace): ``resource-usage-score``
  (cpuAvailable, memAvailable) on most clusters, ``latency`` (p99) on some; a few expired, some
  without validUntil;
- ``ManagedClusterSetBinding`` (v1beta2) in the tenant namespaces, one or two of them binding
  ``global``, one binding a set that does not exist;
- ``Placement`` (v1beta1): a realistic mix of numberOfClusters, clusterSets, label/claim/CEL
  predicates, every prioritizer mode, tolerations, decision groups and spread constraints; about 1%
  misconfigured on purpose (yet accepted by the CRD schema);
- ``PlacementDecision`` (v1beta1) for ~40% of the placements, as an earlier scheduler run wrote them
  (with the Placement's status), some naming clusters that no longer fit.

Per-cluster work is vectorised numpy; clusters are drawn from ``np.random.default_rng((seed, section))``
(:func:`adapters.generate.common.rng_for`) so they do not depend on the number of placements. Every
value is a plain str/int/bool/list/dict/None, times are RFC 3339 strings in UTC; the same arguments
give identical objects.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from adapters.generate.common import (
    Clock,
    Matcher,
    Picker,
    categories,
    check_sizes,
    column,
    distinct,
    draw_machines,
    draw_places,
    expression,
    gone_cluster_name,
    label_selector,
    pick,
    rng_for,
    sample_share,
    utc_moment,
    uuid_text,
    zipf_weights,
)
from adapters.ocm import names as n

__all__ = ["generate_ocm"]

# ------------------------------------------------------------------------------------- API names

GROUP = n.GROUP
CLUSTER_API = f"{GROUP}/v1"
SET_API = f"{GROUP}/v1beta2"
PLACEMENT_API = n.API_VERSION
SCORE_API = f"{GROUP}/v1alpha1"

SET_LABEL = n.CLUSTERSET_LABEL
PLACEMENT_LABEL = n.PLACEMENT_LABEL
GROUP_NAME_LABEL = n.GROUP_NAME_LABEL
GROUP_INDEX_LABEL = n.GROUP_INDEX_LABEL
UNAVAILABLE_TAINT = n.UNAVAILABLE_TAINT
UNREACHABLE_TAINT = n.UNREACHABLE_TAINT
AVAILABLE = n.AVAILABLE_CONDITION
MAX_DECISIONS_PER_OBJECT = n.MAX_DECISIONS_PER_OBJECT

CLAIM_ID = "id.k8s.io"
CLAIM_PLATFORM = "platform.open-cluster-management.io"
CLAIM_PRODUCT = "product.open-cluster-management.io"
CLAIM_REGION = "region.open-cluster-management.io"
CLAIM_KUBE_VERSION = "kubeversion.open-cluster-management.io"
CLAIM_OPENSHIFT_VERSION = "version.openshift.io"

RESOURCE_SCORE, LATENCY_SCORE = "resource-usage-score", "latency"

# ---------------------------------------------------------------------------------------- the fleet

# (region, cloud, zones), in order of size: region k gets a share proportional to 1/k.
REGIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("us-east-1", "Amazon", ("us-east-1a", "us-east-1b", "us-east-1c")),
    ("eastus", "Azure", ("eastus-1", "eastus-2", "eastus-3")),
    ("us-central1", "Google", ("us-central1-a", "us-central1-b", "us-central1-c")),
    ("eu-west-1", "Amazon", ("eu-west-1a", "eu-west-1b")),
    ("westeurope", "Azure", ("westeurope-1", "westeurope-2", "westeurope-3")),
    ("dc-frankfurt", "BareMetal", ("fra-room-1", "fra-room-2")),
    ("europe-west4", "Google", ("europe-west4-a", "europe-west4-b")),
    ("ap-northeast-1", "Amazon", ("ap-northeast-1a", "ap-northeast-1c")),
    ("us-south", "IBM", ("us-south-1", "us-south-2", "us-south-3")),
    ("southeastasia", "Azure", ("southeastasia-1", "southeastasia-2")),
    ("dc-dallas", "VSphere", ("dal-pod-a", "dal-pod-b")),
    ("us-west-2", "Amazon", ("us-west-2a", "us-west-2b")),
)
EMEA = ("eu-west-1", "westeurope", "dc-frankfurt", "europe-west4")
# cloud -> (platform claim, managed Kubernetes product, share of OpenShift)
CLOUDS: dict[str, tuple[str, str, float]] = {
    "Amazon": ("AWS", "EKS", 0.55),
    "Azure": ("Azure", "AKS", 0.4),
    "Google": ("GCP", "GKE", 0.3),
    "IBM": ("IBM", "IKS", 0.7),
    "BareMetal": ("BareMetal", "OpenShift", 1.0),
    "VSphere": ("VSphere", "OpenShift", 1.0),
}
ENVIRONMENTS, ENVIRONMENT_SHARES = ("prod", "staging", "dev"), (0.55, 0.25, 0.20)
TIERS, TIER_SHARES = ("gold", "silver", "bronze"), (0.2, 0.5, 0.3)
KUBE_MINORS, KUBE_MINOR_SHARES = (27, 28, 29, 30, 31, 32), (0.04, 0.1, 0.2, 0.3, 0.26, 0.1)
OPENSHIFT_OF_MINOR = {27: "4.14", 28: "4.15", 29: "4.16", 30: "4.17", 31: "4.18", 32: "4.19"}
GPU_SHARE = 0.04

# Exclusive (ExclusiveClusterSetLabel) sets by business unit, Zipf-sized; ~8% of clusters in none.
EXCLUSIVE_SETS = ("default", "payments", "search", "platform", "data", "ml", "edge", "retail")
UNSET_SHARE = 0.08
EMPTY_SET = "sandbox"  # exclusive, no cluster carries its label
LABEL_SETS: dict[str, dict[str, Any]] = {
    "prod": {"matchLabels": {"environment": "prod"}},
    "amazon": {"matchLabels": {"cloud": "Amazon"}},
    "emea": {"matchExpressions": [{"key": "region", "operator": "In", "values": list(EMEA)}]},
    "openshift": {"matchLabels": {"vendor": "OpenShift"}},
}
GLOBAL_SET = "global"
MISSING_SET = "legacy-clusters"  # bound in one namespace, never created

# Health: Available True / False / Unknown.
AVAILABLE_SHARES = (0.95, 0.03, 0.02)
TERMINATING_SHARE = 0.005

# Custom taints: (key, effect, share of clusters); at most one per cluster, added before now.
CUSTOM_TAINTS: tuple[tuple[str, str, float], ...] = (
    ("example.com/gpu", "NoSelect", 0.0),  # every GPU cluster; the share comes from GPU_SHARE
    ("example.com/dedicated", "NoSelect", 0.01),
    ("example.com/maintenance", "NoSelect", 0.01),
    ("example.com/spot", "PreferNoSelect", 0.03),
    ("example.com/degraded", "PreferNoSelect", 0.01),
    ("example.com/draining", "NoSelectIfNew", 0.02),
)
DEDICATED_TEAMS = ("payments", "search", "ml")
MAINTENANCE_REASONS = ("kernel-upgrade", "etcd-defrag", "node-drain")

# ------------------------------------------------------------------------------------ the tenants

NAMESPACES = (
    "payments", "search", "platform-ops", "identity", "checkout", "data-pipeline", "ml-serving",
    "media", "ads", "observability", "security", "edge-apps", "retail-pos", "billing", "catalog",
    "notifications",
)  # fmt: skip
WORKLOADS = (
    "web-frontend", "api-gateway", "checkout", "payments", "search-api", "identity", "monitoring",
    "logging", "metrics-agent", "ingress", "cert-manager", "batch-jobs", "ml-inference",
    "feature-store", "transcode", "ads-serving", "notifications", "inventory", "recommendations",
    "analytics", "backup-agent", "policy-agent", "service-mesh", "cache",
)  # fmt: skip

EXISTING_SHARE = 0.40  # placements with PlacementDecisions from an earlier run
DRIFT_SHARE = 0.25  # of those: some decisions no longer fit
ALL_SHARE = 0.12  # numberOfClusters nil
MISCONFIGURED_SHARE = 0.01
ALL_LIMIT = 300  # a nil-numberOfClusters placement's predicates match at most this many clusters
BROAD_SHARE = 0.05  # of those: no predicates, every cluster of the bound sets (an addon rollout)
CLUSTER_SETS_SHARE, UNBOUND_SET_SHARE = 0.30, 0.02
PREDICATE_SHARE, TWO_PREDICATES_SHARE, CEL_SHARE = 0.88, 0.15, 0.1
TOLERATION_SHARE, GROUPS_SHARE, SPREAD_SHARE = 0.15, 0.2, 0.1
MODE_SHARES = (0.45, 0.33, 0.15, 0.07)  # absent, Additive, Exact, configurations without a mode


def _uuids(rng: np.random.Generator, size: int) -> list[str]:
    raw = rng.integers(0, 2**63, size=(size, 2), dtype=np.int64).view(np.uint64)
    return [uuid_text(f"{hi:016x}{lo:016x}") for hi, lo in raw.tolist()]


# =================================================================================== cluster table


@dataclass(slots=True)
class _Clusters:
    """OCM's cluster table: every ManagedCluster attribute (labels, claims, the Available condition,
    taints, AddOnPlacementScores) as a numpy column; labels and claims use "" for absent. Drawn with
    the shared layer's draws; its columns are OCM's own (the shared ClusterTable holds Fleet's)."""

    names: np.ndarray
    labels: dict[str, np.ndarray]
    claims: dict[str, np.ndarray]
    kube: np.ndarray
    available: np.ndarray  # 0 True, 1 False, 2 Unknown
    available_age: np.ndarray
    joined_age: np.ndarray
    terminating: np.ndarray
    deletion_age: np.ndarray
    taint_key: np.ndarray
    taint_value: np.ndarray
    taint_effect: np.ndarray
    taint_age: np.ndarray
    cpu_capacity: list[str]
    cpu_allocatable: list[str]
    memory_capacity: list[str]
    memory_allocatable: list[str | None]
    resource_score: np.ndarray  # bool: has resource-usage-score
    cpu_score: np.ndarray
    memory_score: np.ndarray
    has_memory_score: np.ndarray
    latency: np.ndarray  # bool: has latency
    p99: np.ndarray
    score_until: np.ndarray  # validUntil: seconds before now (negative: in the future)
    score_state: np.ndarray  # 0 valid, 1 expired, 2 no validUntil
    latency_until: np.ndarray
    latency_state: np.ndarray

    def __len__(self) -> int:
        return len(self.names)

    def label(self, key: str) -> np.ndarray:
        return column(self.labels, key, len(self))

    def claim(self, name: str) -> np.ndarray:
        return column(self.claims, name, len(self))

    @property
    def builtin_taint(self) -> np.ndarray:
        return np.array(["", UNAVAILABLE_TAINT, UNREACHABLE_TAINT], dtype=object)[self.available]


def _cpu(millis: np.ndarray) -> list[str]:
    return [str(m // 1000) if m % 1000 == 0 else f"{m}m" for m in millis.tolist()]


def _clusters(clusters: int, seed: int) -> _Clusters:
    rng = rng_for(seed, 1)
    size = clusters
    region_names = np.array([r for r, _, _ in REGIONS], dtype=object)
    region_clouds = np.array([c for _, c, _ in REGIONS], dtype=object)
    region, zone = draw_places(rng, size, REGIONS)
    cloud = region_clouds[region]
    cloud_keys = list(CLOUDS)
    cloud_index = np.array([cloud_keys.index(c) for _, c, _ in REGIONS])[region]
    openshift = rng.random(size) < np.array([CLOUDS[c][2] for c in cloud_keys])[cloud_index]
    product = np.where(openshift, "OpenShift", np.array([CLOUDS[c][1] for c in cloud_keys])[cloud_index])
    platform = np.array([CLOUDS[c][0] for c in cloud_keys], dtype=object)[cloud_index]
    env_index = categories(rng, size, ENVIRONMENT_SHARES)
    environment = np.array(ENVIRONMENTS, dtype=object)[env_index]
    tier = np.array(TIERS, dtype=object)[categories(rng, size, TIER_SHARES)]
    gpu = rng.random(size) < GPU_SHARE
    set_index = rng.choice(len(EXCLUSIVE_SETS), size=size, p=zipf_weights(len(EXCLUSIVE_SETS)))
    clusterset = np.where(
        rng.random(size) < UNSET_SHARE, "", np.array(EXCLUSIVE_SETS, dtype=object)[set_index]
    )

    minor = np.array(KUBE_MINORS)[categories(rng, size, KUBE_MINOR_SHARES)]
    patch = rng.integers(1, 13, size)
    build = rng.integers(0, 16**7, size)
    kube = [
        f"v1.{m}.{p}+{b:07x}" if o else f"v1.{m}.{p}"
        for m, p, b, o in zip(minor.tolist(), patch.tolist(), build.tolist(), openshift.tolist(), strict=True)
    ]
    ocp_patch = rng.integers(1, 40, size)
    ocp_version = [
        f"{OPENSHIFT_OF_MINOR[m]}.{p}" if o else ""
        for m, p, o in zip(minor.tolist(), ocp_patch.tolist(), openshift.tolist(), strict=True)
    ]

    # Capacity: node counts lognormal around an environment median, a few machine shapes.
    nodes, cores, gib_per_core = draw_machines(rng, env_index, 300)
    cpu_capacity = nodes * cores * 1000
    cpu_allocatable = nodes * (cores * 1000 - (100 + 10 * cores)) - rng.integers(0, 4, size) * 250
    node_gib = cores * gib_per_core
    ki_format = rng.random(size) < 0.6  # kubelets report Ki; some agents round to Gi
    jitter = np.where(ki_format, rng.integers(0, 300_000, size), 0)
    memory_capacity_ki = nodes * (node_gib * 2**20 - jitter)
    memory_allocatable_ki = memory_capacity_ki - nodes * (750 + node_gib * 100) * 1024
    memory_capacity = [
        f"{k}Ki" if f else f"{k // 2**20}Gi"
        for k, f in zip(memory_capacity_ki.tolist(), ki_format.tolist(), strict=True)
    ]
    memory_missing = rng.random(size) < 0.03
    memory_allocatable: list[str | None] = [
        None if missing else (f"{k // 1024}Mi" if k % 1024 == 0 else f"{k}Ki")
        for k, missing in zip(memory_allocatable_ki.tolist(), memory_missing.tolist(), strict=True)
    ]

    # Health and times (seconds before now).
    available = categories(rng, size, AVAILABLE_SHARES)
    available_age = np.select(
        [available == 1, available == 2],
        [
            rng.integers(60, 3 * 86400, size),
            # Unknown: a third recent enough that a 5-10 minute toleration still holds.
            np.where(
                rng.random(size) < 0.35, rng.integers(20, 600, size), rng.integers(600, 2 * 86400, size)
            ),
        ],
        rng.integers(3600, 60 * 86400, size),
    )
    joined_age = available_age + rng.integers(3600, 365 * 86400, size)
    terminating = rng.random(size) < TERMINATING_SHARE
    deletion_age = rng.integers(10, 3600, size)

    # Custom taints: every GPU cluster, then the other kinds on disjoint slices of the rest.
    kind = np.full(size, -1)
    kind[gpu] = 0
    u = rng.random(size)
    low = 0.0
    for k, (_, _, share) in enumerate(CUSTOM_TAINTS):
        if share:
            kind[(kind < 0) & (u >= low) & (u < low + share)] = k
            low += share
    keys = np.array([""] + [k for k, _, _ in CUSTOM_TAINTS], dtype=object)
    effects = np.array([""] + [e for _, e, _ in CUSTOM_TAINTS], dtype=object)
    taint_key, taint_effect = keys[kind + 1], effects[kind + 1]
    value_dedicated = np.array(DEDICATED_TEAMS, dtype=object)[rng.integers(0, len(DEDICATED_TEAMS), size)]
    value_maintenance = np.array(MAINTENANCE_REASONS, dtype=object)[
        rng.integers(0, len(MAINTENANCE_REASONS), size)
    ]
    taint_value = np.select(
        [kind == 0, kind == 1, kind == 2, kind == 3],
        [
            np.full(size, "true", dtype=object),
            value_dedicated,
            value_maintenance,
            np.full(size, "true", dtype=object),
        ],
        np.full(size, "", dtype=object),
    )
    taint_age = rng.integers(300, 30 * 86400, size)

    # AddOnPlacementScores: resource usage on most clusters, latency on some.
    resource_score = rng.random(size) < 0.88
    cpu_score = np.clip(np.rint(200 * (1 - rng.beta(2.0, 3.0, size)) - 100), -100, 100).astype(np.int64)
    memory_score = np.clip(np.rint(200 * (1 - rng.beta(2.0, 2.5, size)) - 100), -100, 100).astype(np.int64)
    has_memory_score = rng.random(size) < 0.95
    latency = rng.random(size) < 0.4
    p99 = rng.integers(-100, 101, size)
    score_state = categories(rng, size, (0.8, 0.05, 0.15))
    score_until = np.where(score_state == 1, rng.integers(60, 86400, size), -rng.integers(300, 7200, size))
    latency_state = categories(rng, size, (0.8, 0.05, 0.15))
    latency_until = np.where(
        latency_state == 1, rng.integers(60, 86400, size), -rng.integers(300, 7200, size)
    )

    region_of = region_names[region]
    names = np.array([f"cluster-{r}-{i:05d}" for i, r in enumerate(region_of.tolist())], dtype=object)
    labels = {
        "name": names,
        "cloud": cloud,
        "vendor": product.astype(object),
        "region": region_of,
        "zone": zone,
        "environment": environment,
        "tier": tier,
        "accelerator": np.where(gpu, "nvidia", "").astype(object),
        SET_LABEL: clusterset.astype(object),
    }
    claims = {
        CLAIM_ID: np.array(_uuids(rng, size), dtype=object),
        CLAIM_PLATFORM: platform,
        CLAIM_PRODUCT: product.astype(object),
        CLAIM_REGION: region_of,
        CLAIM_KUBE_VERSION: np.array(kube, dtype=object),
        CLAIM_OPENSHIFT_VERSION: np.array(ocp_version, dtype=object),
    }
    return _Clusters(
        names=names,
        labels=labels,
        claims=claims,
        kube=np.array(kube, dtype=object),
        available=available,
        available_age=available_age,
        joined_age=joined_age,
        terminating=terminating,
        deletion_age=deletion_age,
        taint_key=taint_key,
        taint_value=taint_value,
        taint_effect=taint_effect,
        taint_age=taint_age,
        cpu_capacity=_cpu(cpu_capacity),
        cpu_allocatable=_cpu(cpu_allocatable),
        memory_capacity=memory_capacity,
        memory_allocatable=memory_allocatable,
        resource_score=resource_score,
        cpu_score=cpu_score,
        memory_score=memory_score,
        has_memory_score=has_memory_score,
        latency=latency,
        p99=p99,
        score_until=score_until,
        score_state=score_state,
        latency_until=latency_until,
        latency_state=latency_state,
    )


# ======================================================================================== matching


class _Matcher(Matcher):
    """OCM's selectors over its cluster table: claim selectors, CEL expressions and cluster
    selectors (label AND claim AND CEL), predicates, and its taints, beside the shared label
    selectors."""

    def claims(self, selector: Mapping[str, Any] | None) -> np.ndarray:
        return self.selector_over("claims", self.table.claim, selector)

    def cel(self, expression: str) -> np.ndarray:
        return self._cached("cel", expression, lambda: CEL[expression](self.table))

    def cluster_selector(self, selector: Mapping[str, Any]) -> np.ndarray:
        """A requiredClusterSelector / groupClusterSelector: label AND claim AND every CEL expression."""

        def compute() -> np.ndarray:
            mask = self.selector(selector.get("labelSelector")) & self.claims(selector.get("claimSelector"))
            for source in (selector.get("celSelector") or {}).get("celExpressions") or []:
                mask = mask & self.cel(source)
            return mask

        return self._cached("cluster", selector, compute)

    def predicates(self, predicates: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """ORed predicates; none match every cluster."""
        return self.any_of(predicates, self._required)

    def _required(self, predicate: Mapping[str, Any]) -> np.ndarray:
        return self.cluster_selector(predicate.get("requiredClusterSelector") or {})

    def tolerated(self, tolerations: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Clusters whose NoSelect / NoSelectIfNew taints (custom and built-in) are all tolerated now."""
        return self._cached("tolerations", tolerations, lambda: self._tolerated(tolerations))

    def _tolerated(self, tolerations: Sequence[Mapping[str, Any]]) -> np.ndarray:
        f = self.table
        slots = (
            (f.taint_key, f.taint_value, f.taint_effect, f.taint_age),
            (f.builtin_taint, np.full(len(f), "", dtype=object), np.where(f.available > 0, "NoSelect", ""),
             f.available_age),
        )  # fmt: skip
        ok = np.ones(len(f), dtype=bool)
        for key, value, effect, age in slots:
            slot_ok = (key == "") | (effect == "PreferNoSelect")
            for t in tolerations:
                if not _valid_toleration(t):
                    continue
                m = np.ones(len(f), dtype=bool)
                if t.get("effect"):
                    m &= effect == t["effect"]
                if t.get("key"):
                    m &= key == t["key"]
                if t.get("operator", "Equal") != "Exists":
                    m &= value == t.get("value", "")
                if t.get("tolerationSeconds") is not None:
                    m &= age < t["tolerationSeconds"]
                slot_ok |= m
            ok &= slot_ok
        return ok


def _valid_toleration(t: Mapping[str, Any]) -> bool:
    exists = t.get("operator") == "Exists"
    return (bool(t.get("key")) or exists) and not (exists and t.get("value"))


def _startswith(prefix: str) -> Callable[[_Clusters], np.ndarray]:
    return lambda f: np.array([v.startswith(prefix) for v in f.kube.tolist()], dtype=bool)


# CEL expressions placements use, each with its meaning over the fleet (for the earlier run's decisions).
CEL: dict[str, Callable[[_Clusters], np.ndarray]] = {
    'managedCluster.metadata.labels["environment"] == "prod"': lambda f: f.label("environment") == "prod",
    'managedCluster.status.version.kubernetes.startsWith("v1.3")': _startswith("v1.3"),
    'managedCluster.scores("resource-usage-score").filter(s, s.name == "cpuAvailable").all(e, e.value > 0)': (
        lambda f: f.resource_score & (f.cpu_score > 0)
    ),
    'managedCluster.scores("resource-usage-score")'
    '.filter(s, s.name == "memAvailable").all(e, e.value > -50)': (
        lambda f: f.resource_score & (~f.has_memory_score | (f.memory_score > -50))
    ),
    'managedCluster.metadata.labels["tier"] in ["gold", "silver"]': lambda f: np.isin(
        f.label("tier"), ["gold", "silver"]
    ),
    'managedCluster.status.clusterClaims.exists(c, c.name == "product.open-cluster-management.io"'
    ' && c.value == "OpenShift")': lambda f: f.claim(CLAIM_PRODUCT) == "OpenShift",
    'managedCluster.metadata.labels["region"].startsWith("us-")': lambda f: np.array(
        [v.startswith("us-") for v in f.label("region").tolist()], dtype=bool
    ),
}
_CEL_EXPRESSIONS = tuple(CEL)

# ===================================================================================== the objects


def _managed_clusters(f: _Clusters, clock: Clock) -> list[dict[str, Any]]:
    size = len(f)
    joined = clock.before(f.joined_age)
    transition = clock.before(f.available_age)
    deleted = clock.before(f.deletion_age)
    taint_added = clock.before(f.taint_age)
    label_columns = [(k, v.tolist()) for k, v in f.labels.items()]
    claim_columns = [(k, v.tolist()) for k, v in f.claims.items()]
    status_of = ("True", "False", "Unknown")
    reason_of = ("ManagedClusterAvailable", "ManagedClusterUnavailable", "ManagedClusterLeaseUpdateStopped")
    message_of = (
        "Managed cluster is available",
        "Managed cluster is unavailable",
        "Registration agent stopped updating its lease.",
    )
    builtin = f.builtin_taint.tolist()
    available = f.available.tolist()
    terminating = f.terminating.tolist()
    taint_key, taint_value, taint_effect = (
        f.taint_key.tolist(),
        f.taint_value.tolist(),
        f.taint_effect.tolist(),
    )
    kube = f.kube.tolist()
    out = []
    for i in range(size):
        labels = {k: col[i] for k, col in label_columns if col[i]}
        metadata: dict[str, Any] = {"name": f.names[i], "labels": labels}
        if terminating[i]:
            metadata["deletionTimestamp"] = deleted[i]
            metadata["finalizers"] = [f"{GROUP}/api-resource-cleanup"]
        taints = []
        if taint_key[i]:
            taints.append(
                {
                    "key": taint_key[i],
                    "value": taint_value[i],
                    "effect": taint_effect[i],
                    "timeAdded": taint_added[i],
                }
            )
        if builtin[i]:
            taints.append({"key": builtin[i], "effect": "NoSelect", "timeAdded": transition[i]})
        spec: dict[str, Any] = {"hubAcceptsClient": True, "leaseDurationSeconds": 60}
        if taints:
            spec["taints"] = taints
        a = available[i]
        allocatable = {"cpu": f.cpu_allocatable[i]}
        if f.memory_allocatable[i] is not None:
            allocatable["memory"] = f.memory_allocatable[i]
        out.append(
            {
                "apiVersion": CLUSTER_API,
                "kind": "ManagedCluster",
                "metadata": metadata,
                "spec": spec,
                "status": {
                    "conditions": [
                        {
                            "type": "HubAcceptedManagedCluster",
                            "status": "True",
                            "reason": "HubClusterAdminAccepted",
                            "message": "Accepted by hub cluster admin",
                            "lastTransitionTime": joined[i],
                        },
                        {
                            "type": "ManagedClusterJoined",
                            "status": "True",
                            "reason": "ManagedClusterJoined",
                            "message": "Managed cluster joined",
                            "lastTransitionTime": joined[i],
                        },
                        {
                            "type": AVAILABLE,
                            "status": status_of[a],
                            "reason": reason_of[a],
                            "message": message_of[a],
                            "lastTransitionTime": transition[i],
                        },
                    ],
                    "clusterClaims": [{"name": k, "value": col[i]} for k, col in claim_columns if col[i]],
                    "capacity": {"cpu": f.cpu_capacity[i], "memory": f.memory_capacity[i]},
                    "allocatable": allocatable,
                    "version": {"kubernetes": kube[i]},
                },
            }
        )
    return out


def _scores(f: _Clusters, clock: Clock) -> list[dict[str, Any]]:
    score_until = clock.before(f.score_until)
    latency_until = clock.before(f.latency_until)
    updated = clock.before(np.zeros(len(f), dtype=np.int64) + 120)
    names = f.names.tolist()

    def score(
        cluster: str, name: str, items: list[dict[str, Any]], until: str | None, i: int
    ) -> dict[str, Any]:
        status: dict[str, Any] = {
            "conditions": [
                {
                    "type": "AddOnPlacementScoreUpdated",
                    "status": "True",
                    "reason": "AddOnPlacementScoreUpdated",
                    "message": "",
                    "lastTransitionTime": updated[i],
                }
            ],
            "scores": items,
        }
        if until is not None:
            status["validUntil"] = until
        return {
            "apiVersion": SCORE_API,
            "kind": "AddOnPlacementScore",
            "metadata": {"name": name, "namespace": cluster},
            "status": status,
        }

    out = []
    rows = zip(
        f.resource_score.tolist(), f.cpu_score.tolist(), f.memory_score.tolist(), f.has_memory_score.tolist(),
        f.score_state.tolist(), f.latency.tolist(), f.p99.tolist(), f.latency_state.tolist(), strict=True,
    )  # fmt: skip
    for i, (resource, cpu, memory, has_memory, state, latency, p99, latency_state) in enumerate(rows):
        if resource:
            items = [{"name": "cpuAvailable", "value": cpu}]
            if has_memory:
                items.append({"name": "memAvailable", "value": memory})
            out.append(score(names[i], RESOURCE_SCORE, items, None if state == 2 else score_until[i], i))
        if latency:
            until = None if latency_state == 2 else latency_until[i]
            out.append(score(names[i], LATENCY_SCORE, [{"name": "p99", "value": p99}], until, i))
    return out


def _cluster_sets() -> list[dict[str, Any]]:
    def cluster_set(name: str, selector: dict[str, Any]) -> dict[str, Any]:
        return {
            "apiVersion": SET_API,
            "kind": "ManagedClusterSet",
            "metadata": {"name": name},
            "spec": selector,
        }

    out = [
        cluster_set(name, {"clusterSelector": {"selectorType": "ExclusiveClusterSetLabel"}})
        for name in (*EXCLUSIVE_SETS, EMPTY_SET)
    ]
    out += [
        cluster_set(name, {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": selector}})
        for name, selector in LABEL_SETS.items()
    ]
    out.append(
        cluster_set(GLOBAL_SET, {"clusterSelector": {"selectorType": "LabelSelector", "labelSelector": {}}})
    )
    return out


# ====================================================================================== placements


def _builtin(name: str, weight: int) -> dict[str, Any]:
    return {"scoreCoordinate": {"type": "BuiltIn", "builtIn": name}, "weight": weight}


def _addon(resource: str, score: str, weight: int) -> dict[str, Any]:
    return {
        "scoreCoordinate": {"type": "AddOn", "addOn": {"resourceName": resource, "scoreName": score}},
        "weight": weight,
    }


@dataclass(slots=True)
class _Placement:
    namespace: str
    name: str
    uid: str
    generation: int
    spec: dict[str, Any]
    visible: np.ndarray  # clusters in the eligible sets, not terminating
    status: dict[str, Any] | None = None  # written with an earlier run's decisions


class _Generator(Picker):
    def __init__(self, clusters: int, placements: int, seed: int, now: datetime) -> None:
        super().__init__(rng_for(seed, 2))
        self.clock = Clock(now)
        self.fleet = _clusters(clusters, seed)
        self.matcher = _Matcher(self.fleet)
        self.name_rank = np.argsort(np.argsort(self.fleet.names.astype(str), kind="stable"))
        self.state_rng = rng_for(seed, 3)
        self.placement_count = placements
        self.namespaces = self._namespaces(placements)
        self.bindings: dict[str, list[str]] = self._bindings()
        self.set_masks = self._set_masks()
        self._visible: dict[tuple[str, tuple[str, ...]], np.ndarray] = {}
        regions = [r for r, _, _ in REGIONS]
        self.wide = distinct(lambda: self._wide_selector(regions), 28, 28 * 10, sort_keys=True)
        self.narrow = distinct(lambda: self._narrow_selector(regions), 40, 40 * 10, sort_keys=True)

    # -- tenancy ---------------------------------------------------------------------------------

    @staticmethod
    def _namespaces(placements: int) -> list[str]:
        if placements == 0:
            return []
        count = max(1, min(64, round(math.sqrt(placements))))
        k = len(NAMESPACES)
        return [NAMESPACES[i % k] + ("" if i < k else f"-{i // k + 1}") for i in range(count)]

    def _bindings(self) -> dict[str, list[str]]:
        rng = self.rng
        out: dict[str, list[str]] = {}
        label_sets = list(LABEL_SETS)
        count = len(self.namespaces)
        for i, ns in enumerate(self.namespaces):
            if count >= 10 and i == count - 1:
                out[ns] = [MISSING_SET]  # a tenant whose only binding names a set that is gone
                continue
            base = ns.split("-")[0]
            home = (
                base
                if base in EXCLUSIVE_SETS
                else EXCLUSIVE_SETS[int(rng.choice(len(EXCLUSIVE_SETS), p=zipf_weights(8)))]
            )
            sets = {home}
            if rng.random() < 0.4:
                sets.add(self.pick(EXCLUSIVE_SETS))
            if rng.random() < 0.3:
                sets.add(self.pick(label_sets))
            if i == 2 or (count >= 8 and i == count // 2):
                sets.add(GLOBAL_SET)
            if i == min(3, count - 1):
                sets.add(MISSING_SET)
            if i == min(4, count - 1):
                sets.add(EMPTY_SET)
            out[ns] = sorted(sets)
        return out

    def _set_masks(self) -> dict[str, np.ndarray]:
        f = self.fleet
        masks = {name: f.label(SET_LABEL) == name for name in (*EXCLUSIVE_SETS, EMPTY_SET)}
        masks.update({name: self.matcher.selector(sel) for name, sel in LABEL_SETS.items()})
        masks[GLOBAL_SET] = np.ones(len(f), dtype=bool)
        return masks

    def visible(self, namespace: str, cluster_sets: Sequence[str]) -> np.ndarray:
        key = (namespace, tuple(cluster_sets))
        got = self._visible.get(key)
        if got is None:
            sets = [s for s in self.bindings.get(namespace, []) if s in self.set_masks]
            if cluster_sets:
                sets = [s for s in sets if s in cluster_sets]
            got = np.zeros(len(self.fleet), dtype=bool)
            for s in sets:
                got |= self.set_masks[s]
            got &= ~self.fleet.terminating
            self._visible[key] = got
        return got

    def binding_objects(self) -> list[dict[str, Any]]:
        out = []
        for ns in self.namespaces:
            for s in self.bindings[ns]:
                found = s in self.set_masks
                out.append(
                    {
                        "apiVersion": SET_API,
                        "kind": "ManagedClusterSetBinding",
                        "metadata": {"name": s, "namespace": ns},
                        "spec": {"clusterSet": s},
                        "status": {
                            "conditions": [
                                {
                                    "type": "Bound",
                                    "status": "True" if found else "False",
                                    "reason": "ClusterSetBound" if found else "ClusterSetNotFound",
                                    "message": "",
                                    "lastTransitionTime": self.clock.one(30 * 86400),
                                }
                            ]
                        },
                    }
                )
        return out

    # -- the policy vocabulary -------------------------------------------------------------------

    def _env(self) -> str:
        return ENVIRONMENTS[int(categories(self.rng, 1, ENVIRONMENT_SHARES)[0])]

    def _wide_selector(self, regions: list[str]) -> dict[str, Any]:
        """A requiredClusterSelector meant for top-N placements: tens of percent of the fleet."""
        template = int(self.rng.integers(10))
        env = self._env()
        if template == 0:
            return {"labelSelector": label_selector({"environment": env})}
        if template == 1:
            return {
                "labelSelector": label_selector({"environment": env, "cloud": self.pick(list(CLOUDS)[:3])})
            }
        if template == 2:
            return {
                "labelSelector": label_selector(
                    {"environment": env}, expression("region", "In", *self.some(regions, 2, 4))
                )
            }
        if template == 3:
            return {
                "labelSelector": label_selector(
                    None,
                    expression("environment", "NotIn", "dev"),
                    expression("tier", "In", "gold", "silver"),
                )
            }
        if template == 4:
            return {
                "labelSelector": label_selector({"vendor": "OpenShift"}),
                "claimSelector": {
                    "matchExpressions": [
                        expression(
                            CLAIM_PLATFORM, "In", *self.some(["AWS", "Azure", "GCP", "BareMetal"], 1, 3)
                        )
                    ]
                },
            }
        if template == 5:
            return {"labelSelector": label_selector({"region": self.pick(regions[:6])})}
        if template == 6:
            return {
                "labelSelector": label_selector({"environment": env}),
                "claimSelector": {
                    "matchExpressions": [expression(CLAIM_REGION, "In", *self.some(regions, 2, 5))]
                },
            }
        if template == 7:
            return {
                "labelSelector": label_selector(
                    None,
                    expression("accelerator", "DoesNotExist"),
                    expression("environment", "In", "prod", "staging"),
                )
            }
        if template == 8:
            return {
                "claimSelector": {
                    "matchExpressions": [
                        expression(CLAIM_PRODUCT, "In", *self.some(["OpenShift", "EKS", "AKS", "GKE"], 2, 3))
                    ]
                }
            }
        return {"labelSelector": label_selector({"tier": self.pick(TIERS[:2])})}

    def _narrow_selector(self, regions: list[str]) -> dict[str, Any]:
        """A selector for placements without numberOfClusters: one slice of the fleet."""
        template = int(self.rng.integers(6))
        env = self._env()
        region = self.pick(regions)
        if template == 0:
            return {
                "labelSelector": label_selector(
                    {"environment": env, "region": region, "tier": self.pick(TIERS)}
                )
            }
        if template == 1:
            zone = self.pick([z for _, _, zs in REGIONS for z in zs])
            return {"labelSelector": label_selector({"environment": env, "zone": zone})}
        if template == 2:
            return {"labelSelector": label_selector({"accelerator": "nvidia"})}
        if template == 3:
            return {
                "labelSelector": label_selector({"environment": env, "region": region}),
                "claimSelector": {"matchExpressions": [expression(CLAIM_OPENSHIFT_VERSION, "Exists")]},
            }
        if template == 4:
            return {"labelSelector": label_selector({"region": region, "tier": "gold"})}
        return {
            "labelSelector": label_selector(
                {"environment": env, "region": region}, expression("tier", "NotIn", "bronze")
            )
        }

    def _predicates(self, visible: np.ndarray, count: int | None) -> list[dict[str, Any]]:
        """Predicates a tenant would write, tried a few times until they fit: at least `count`
        visible clusters match, or, with no count, between 1 and ALL_LIMIT (except the few
        placements meant for every cluster of their sets)."""
        rng = self.rng
        if rng.random() > (PREDICATE_SHARE if count is not None else 1.0 - BROAD_SHARE):
            return []
        vocabulary = self.narrow if count is None else self.wide
        best: tuple[float, list[dict[str, Any]]] = (-math.inf, [])
        for _ in range(4):
            n_predicates = 2 if rng.random() < TWO_PREDICATES_SHARE else 1
            predicates = []
            for _ in range(n_predicates):
                selector = self.draw(vocabulary, 0.8)
                if rng.random() < CEL_SHARE / n_predicates:
                    if count is not None and rng.random() < 0.5:
                        selector = {}  # CEL alone
                    selector["celSelector"] = {"celExpressions": [self.pick(_CEL_EXPRESSIONS)]}
                predicates.append({"requiredClusterSelector": selector})
            matched = int((self.matcher.predicates(predicates) & visible).sum())
            if count is None:
                fit = -abs(matched - ALL_LIMIT / 10) if 1 <= matched <= ALL_LIMIT else -math.inf
                if fit > -math.inf:
                    return predicates
            elif matched >= count:
                return predicates
            else:
                fit = matched
            if fit > best[0] or not best[1]:
                best = (fit, predicates)
        return best[1]

    def _prioritizer_policy(self) -> dict[str, Any] | None:
        rng = self.rng
        mode = int(categories(rng, 1, MODE_SHARES)[0])
        if mode == 0:
            return None

        def w(low: int = 1, high: int = 5) -> int:
            return int(rng.integers(low, high + 1))

        addons = (
            _addon(RESOURCE_SCORE, "cpuAvailable", w()),
            _addon(RESOURCE_SCORE, "memAvailable", w()),
            _addon(LATENCY_SCORE, "p99", -w(1, 3)),
        )
        if mode == 2:  # Exact
            choices = [
                [_builtin("ResourceAllocatableCPU", 1), _builtin("ResourceAllocatableMemory", 1)],
                [addons[0], _builtin("ResourceAllocatableCPU", 1), _builtin("Balance", 1)],
                [_builtin("Steady", w()), addons[1]],
                [addons[2]],
                [_builtin("Balance", w(1, 10)), _builtin("ResourceAllocatableMemory", w(-10, 10))],
            ]
            return {"mode": "Exact", "configurations": self.pick(choices)}
        choices = [
            [_builtin("ResourceAllocatableCPU", w())],
            [_builtin("ResourceAllocatableMemory", w()), _builtin("Balance", 0)],
            [addons[0], _builtin("Steady", w(2, 10))],
            [addons[1], addons[2]],
            [_builtin("Balance", w(-10, 10)), _builtin("ResourceAllocatableCPU", w(-10, 10))],
            [addons[0]],
        ]
        policy: dict[str, Any] = {"configurations": self.pick(choices)}
        if mode == 1:
            policy = {"mode": "Additive", **policy}
        return policy

    def _tolerations(self) -> list[dict[str, Any]] | None:
        if self.rng.random() >= TOLERATION_SHARE:
            return None
        choices = [
            [{"key": UNREACHABLE_TAINT, "operator": "Exists", "tolerationSeconds": 300}],
            [
                {"key": UNREACHABLE_TAINT, "operator": "Exists", "tolerationSeconds": 600},
                {"key": UNAVAILABLE_TAINT, "operator": "Exists", "tolerationSeconds": 300},
            ],
            [{"key": UNREACHABLE_TAINT, "operator": "Exists"}],
            [{"key": "example.com/gpu", "operator": "Exists"}],
            [
                {
                    "key": "example.com/dedicated",
                    "operator": "Equal",
                    "value": self.pick(DEDICATED_TEAMS),
                    "effect": "NoSelect",
                }
            ],
            [{"key": "example.com/draining", "operator": "Exists", "effect": "NoSelectIfNew"}],
            [
                {"key": "example.com/maintenance", "operator": "Exists"},
                {"key": UNREACHABLE_TAINT, "operator": "Exists", "tolerationSeconds": 300},
            ],
        ]
        return self.pick(choices)

    def _decision_strategy(self, count: int | None) -> dict[str, Any] | None:
        if self.rng.random() >= GROUPS_SHARE:
            return None
        groups_choices: list[list[dict[str, Any]] | None] = [
            [
                {
                    "groupName": "canary",
                    "groupClusterSelector": {"labelSelector": label_selector({"environment": "staging"})},
                }
            ],
            [
                {
                    "groupName": "canary",
                    "groupClusterSelector": {"labelSelector": label_selector({"cloud": "Azure"})},
                }
            ],
            [
                {
                    "groupName": "wave-1",
                    "groupClusterSelector": {"labelSelector": label_selector({"environment": "dev"})},
                },
                {
                    "groupName": "wave-2",
                    "groupClusterSelector": {"labelSelector": label_selector({"environment": "staging"})},
                },
            ],
            [
                {
                    "groupName": "openshift",
                    "groupClusterSelector": {
                        "claimSelector": {"matchExpressions": [expression(CLAIM_PRODUCT, "In", "OpenShift")]}
                    },
                }
            ],
            None,
        ]
        per_group: list[int | str | None] = ["25%", "50%", "10%", "100%", None]
        if count is not None:
            per_group += [1, 2, 3, 5]  # fixed group sizes only where the selection is small
        strategy: dict[str, Any] = {}
        groups = self.pick(groups_choices)
        if groups:
            strategy["decisionGroups"] = groups
        size = self.pick(per_group)
        if size is not None or not groups:
            strategy["clustersPerDecisionGroup"] = size if size is not None else "20%"
        return {"groupStrategy": strategy}

    def _spread(self) -> dict[str, Any] | None:
        rng = self.rng
        if rng.random() >= SPREAD_SHARE:
            return None

        def one(key: str, key_type: str = "Label") -> dict[str, Any]:
            if rng.random() < 0.25:
                return {"topologyKey": key, "topologyKeyType": key_type}  # CRD defaults for the rest
            return {
                "topologyKey": key,
                "topologyKeyType": key_type,
                "maxSkew": int(rng.integers(1, 3)),
                "whenUnsatisfiable": self.pick(("DoNotSchedule", "ScheduleAnyway")),
            }

        choice = int(rng.integers(4))
        if choice == 0:
            constraints = [one("region")]
        elif choice == 1:
            constraints = [one("zone")]
        elif choice == 2:
            constraints = [one(CLAIM_REGION, "Claim")]
        else:
            constraints = [one("region"), {**one("zone"), "whenUnsatisfiable": "ScheduleAnyway"}]
        return {"spreadConstraints": constraints}

    def _misconfigure(self, spec: dict[str, Any]) -> None:
        """Break a placement in a way the CRD schema accepts and the scheduler reports Misconfigured."""
        kind = int(self.rng.integers(3))
        if kind == 0:  # an unknown builtIn prioritizer with a non-zero weight (the API comment lists it)
            spec["prioritizerPolicy"] = {"mode": "Additive", "configurations": [_builtin("Spread", 2)]}
        elif kind == 1:  # operator Exists with a value (an empty key would fail the CRD's key pattern)
            spec["tolerations"] = [{"key": "example.com/gpu", "operator": "Exists", "value": "true"}]
        else:  # an AddOn coordinate without addOn
            spec["prioritizerPolicy"] = {
                "mode": "Exact",
                "configurations": [{"scoreCoordinate": {"type": "AddOn"}, "weight": 1}],
            }

    def placements(self) -> list[_Placement]:
        rng = self.rng
        total = self.placement_count
        if total == 0:
            return []
        ns_weights = zipf_weights(len(self.namespaces), 0.7)
        namespace_of = rng.choice(len(self.namespaces), size=total, p=ns_weights)
        all_kind = rng.permutation(total) < round(ALL_SHARE * total)
        broken = set(sample_share(rng, total, MISCONFIGURED_SHARE).tolist())
        workloads = rng.integers(0, len(WORKLOADS), total)
        uids = _uuids(rng, total)
        out = []
        for i in range(total):
            ns = self.namespaces[int(namespace_of[i])]
            spec: dict[str, Any] = {}
            bound = self.bindings[ns]
            valid = [s for s in bound if s in self.set_masks]
            u = rng.random()
            if u < UNBOUND_SET_SHARE:
                spec["clusterSets"] = [self.pick([s for s in self.set_masks if s not in bound])]
            elif u < CLUSTER_SETS_SHARE and valid:
                spec["clusterSets"] = self.some(valid, 1, min(2, len(valid)))
            count: int | None = None
            if not all_kind[i]:
                count = int(rng.integers(1, 4)) if rng.random() < 0.5 else int(rng.integers(1, 11))
                if rng.random() < 0.08:
                    count = int(rng.integers(11, 31))
                spec["numberOfClusters"] = count
            visible = self.visible(ns, spec.get("clusterSets", []))
            predicates = self._predicates(visible, count)
            if predicates:
                spec["predicates"] = predicates
            parts = (
                ("prioritizerPolicy", self._prioritizer_policy()),
                ("tolerations", self._tolerations()),
                ("decisionStrategy", self._decision_strategy(count)),
                ("spreadPolicy", self._spread()),
            )
            spec.update((key, value) for key, value in parts if value is not None)
            if i in broken:
                self._misconfigure(spec)
            name = f"{WORKLOADS[int(workloads[i])]}-{i:05d}"
            out.append(_Placement(ns, name, uids[i], int(rng.integers(1, 4)), spec, visible))
        return out

    # -- an earlier run's decisions --------------------------------------------------------------

    def _earlier_decisions(self, p: _Placement) -> list[int | str]:
        """Cluster indices (or names of clusters gone since) an earlier run selected."""
        rng, f = self.state_rng, self.fleet
        spec = p.spec
        feasible = (
            p.visible
            & self.matcher.predicates(spec.get("predicates", []))
            & self.matcher.tolerated(spec.get("tolerations", []))
        )
        candidates = np.flatnonzero(feasible)
        count = spec.get("numberOfClusters")
        if count is None:
            keep = rng.random(len(candidates)) < 0.95  # some joined since
            chosen = candidates[keep]
        else:
            if rng.random() < 0.15:
                count = int(rng.integers(1, count + 1))  # scaled up since
            count = min(count, len(candidates))
            if rng.random() < 0.5:
                by_name = candidates[np.argsort(self.name_rank[candidates])]
                chosen = by_name[:count]  # what upstream's default policy picks first
            else:
                chosen = (
                    np.sort(rng.choice(candidates, size=count, replace=False)) if count else candidates[:0]
                )
        picks: list[int | str] = [int(c) for c in chosen.tolist()]
        if picks and rng.random() < DRIFT_SHARE:
            others = np.flatnonzero(~feasible)
            k = int(rng.integers(0, len(picks)))
            if len(others) and rng.random() < 0.75:
                picks[k] = int(pick(rng, others))  # no longer fits the policy
            else:
                picks[k] = gone_cluster_name(
                    rng, "cluster", [r for r, _, _ in REGIONS], len(f)
                )  # deleted since
        return picks

    def _groups(self, spec: dict[str, Any], picks: list[int | str]) -> list[tuple[str, list[str]]]:
        """Decision groups as upstream cuts them: spec groups in order, first match wins, then the rest."""
        f = self.fleet
        strategy = (spec.get("decisionStrategy") or {}).get("groupStrategy") or {}
        total = len(picks)
        size = strategy.get("clustersPerDecisionGroup", "100%")
        length = math.ceil(int(size[:-1]) / 100 * total) if isinstance(size, str) else size
        if length <= 0 or length > total:
            length = total
        names = [f.names[c] if isinstance(c, int) else c for c in picks]
        claimed = [False] * total
        groups: list[tuple[str, list[str]]] = []

        def chunk(group: str, members: list[str]) -> None:
            members.sort()
            for start in range(0, len(members), max(length, 1)):
                groups.append((group, members[start : start + length]))

        for g in strategy.get("decisionGroups") or []:
            mask = self.matcher.cluster_selector(g.get("groupClusterSelector") or {})
            members = []
            for k, c in enumerate(picks):
                if not claimed[k] and isinstance(c, int) and mask[c]:
                    claimed[k] = True
                    members.append(names[k])
            chunk(g["groupName"], members)
        chunk("", [names[k] for k in range(total) if not claimed[k]])
        return groups or [("", [])]

    def existing_state(self, p: _Placement) -> list[dict[str, Any]]:
        """The PlacementDecisions of an earlier run; sets the Placement's status to match."""
        picks = self._earlier_decisions(p)
        groups = self._groups(p.spec, picks)
        owner = {
            "apiVersion": PLACEMENT_API,
            "kind": "Placement",
            "name": p.name,
            "uid": p.uid,
            "controller": True,
            "blockOwnerDeletion": True,
        }
        decisions, status_groups = [], []
        k = 0
        for index, (group, members) in enumerate(groups):
            names = []
            for start in range(0, max(len(members), 1), MAX_DECISIONS_PER_OBJECT):
                k += 1
                name = f"{p.name}-decision-{k}"
                names.append(name)
                decisions.append(
                    {
                        "apiVersion": PLACEMENT_API,
                        "kind": "PlacementDecision",
                        "metadata": {
                            "name": name,
                            "namespace": p.namespace,
                            "labels": {
                                PLACEMENT_LABEL: p.name,
                                GROUP_NAME_LABEL: group,
                                GROUP_INDEX_LABEL: str(index),
                            },
                            "ownerReferences": [dict(owner)],
                        },
                        "status": {
                            "decisions": [
                                {"clusterName": c, "reason": ""}
                                for c in members[start : start + MAX_DECISIONS_PER_OBJECT]
                            ]
                        },
                    }
                )
            status_groups.append(
                {
                    "decisionGroupIndex": index,
                    "decisionGroupName": group,
                    "decisions": names,
                    "clusterCount": len(members),
                }
            )
        selected = len(picks)
        wanted = p.spec.get("numberOfClusters")
        changed = self.clock.one(int(self.state_rng.integers(600, 7 * 86400)))
        if selected == 0:
            satisfied = (
                "False",
                "NoManagedClusterMatched",
                "No ManagedCluster matches any of the cluster predicate",
            )
        elif wanted is None or selected >= wanted:
            satisfied = ("True", "AllDecisionsScheduled", "All cluster decisions scheduled")
        else:
            satisfied = (
                "False",
                "NotAllDecisionsScheduled",
                f"{wanted - selected} cluster decisions unscheduled",
            )
        p.status = {
            "numberOfSelectedClusters": selected,
            "decisionGroups": status_groups,
            "conditions": [
                {
                    "type": "PlacementMisconfigured",
                    "status": "False",
                    "reason": "Succeedconfigured",
                    "message": "Placement configurations check pass",
                    "lastTransitionTime": changed,
                },
                {
                    "type": "PlacementSatisfied",
                    "status": satisfied[0],
                    "reason": satisfied[1],
                    "message": satisfied[2],
                    "lastTransitionTime": changed,
                },
            ],
        }
        return decisions

    @staticmethod
    def placement_object(p: _Placement) -> dict[str, Any]:
        out: dict[str, Any] = {
            "apiVersion": PLACEMENT_API,
            "kind": "Placement",
            "metadata": {"name": p.name, "namespace": p.namespace, "uid": p.uid, "generation": p.generation},
            "spec": p.spec,
        }
        if p.status is not None:
            out["status"] = p.status
        return out

    def objects(self) -> list[dict[str, Any]]:
        f = self.fleet
        clusters = _managed_clusters(f, self.clock)
        scores = _scores(f, self.clock)
        placements = self.placements()
        existing = sample_share(self.state_rng, len(placements), EXISTING_SHARE)
        decisions: list[dict[str, Any]] = []
        for i in sorted(existing.tolist()):
            decisions.extend(self.existing_state(placements[i]))
        return [
            *_cluster_sets(),
            *clusters,
            *scores,
            *self.binding_objects(),
            *(self.placement_object(p) for p in placements),
            *decisions,
        ]


def generate_ocm(clusters: int, placements: int, *, seed: int = 0, now: datetime) -> list[dict[str, Any]]:
    """A synthetic OCM hub with `clusters` ManagedClusters and `placements` Placements, as plain
    JSON-like objects; the same arguments always give the same objects."""
    check_sizes(clusters, placements, seed)
    moment = utc_moment(now)
    return _Generator(int(clusters), int(placements), int(seed), moment).objects()
