"""Deterministic synthetic fleets for benchmarks: upstream objects as a real hub would hold them.

    from bench.generate import generate, generate_yaml
    objects = generate("fleet", clusters=10_000, placements=2_000, seed=0)
    text = generate_yaml("fleet", 1_000, 200)            # a YAML stream, byte-identical per arguments

Two layers:

- the shared layer (system-neutral): :func:`cluster_table` draws the tabular cluster attributes
  (topology labels with Zipf-like sizes, team/tier/compliance labels, node counts, CPU and memory
  capacity/allocatable/available, cost, taints, health) as vectorised numpy columns in a polars frame,
  and :class:`Matcher` evaluates label selectors, property selectors, tolerations and preference
  scores on those columns (with caches, since placements reuse a limited vocabulary of policies);
- one generator per system, registered in :data:`SYSTEMS`, that turns the table's rows into the
  system's objects and adds placements and the state an earlier scheduler run left behind.

Only KubeFleet exists so far; OCM, openMCP and kcp are meant to reuse the shared layer.
Everything is drawn from ``np.random.default_rng`` seeded by ``(seed, section)``, so the same
arguments give the same objects, and the clusters do not depend on the number of placements.
"""

from __future__ import annotations

import argparse
import base64
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np
import polars as pl

from adapters.fleet import names as n
from adapters.fleet.policy import normalized_policy, policy_hash
from adapters.manifests import dump_yaml_stream
from model import parse_quantity

__all__ = [
    "DEFAULT_NOW",
    "PICK_ALL_LIMIT",
    "SYSTEMS",
    "ClusterTable",
    "Matcher",
    "cluster_table",
    "generate",
    "generate_fleet",
    "generate_yaml",
    "main",
    "zipf_weights",
]

DEFAULT_NOW = "2026-11-21T12:00:00Z"

# =================================================================================== shared layer

# (region, provider, zones), in order of size: region k gets a share proportional to 1/k.
REGIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("eastus", "azure", ("eastus-1", "eastus-2", "eastus-3")),
    ("us-east-1", "aws", ("us-east-1a", "us-east-1b", "us-east-1c")),
    ("westeurope", "azure", ("westeurope-1", "westeurope-2", "westeurope-3")),
    ("us-central1", "gcp", ("us-central1-a", "us-central1-b", "us-central1-c")),
    ("eu-west-1", "aws", ("eu-west-1a", "eu-west-1b")),
    ("westus2", "azure", ("westus2-1", "westus2-2")),
    ("europe-west1", "gcp", ("europe-west1-b", "europe-west1-c", "europe-west1-d")),
    ("ap-northeast-1", "aws", ("ap-northeast-1a", "ap-northeast-1c")),
    ("southeastasia", "azure", ("southeastasia-1", "southeastasia-2")),
    ("asia-east1", "gcp", ("asia-east1-a", "asia-east1-b")),
    ("northeurope", "azure", ("northeurope-1", "northeurope-2", "northeurope-3")),
    ("us-west-2", "aws", ("us-west-2a", "us-west-2b")),
)
PROVIDERS = ("azure", "aws", "gcp")
ENVIRONMENTS = ("production", "staging", "dev")
ENVIRONMENT_SHARES = (0.60, 0.25, 0.15)
TEAMS = ("payments", "search", "identity", "platform", "data", "ml", "checkout", "media", "ads", "infra")
TIERS = ("gold", "silver", "bronze")
TIER_SHARES = (0.2, 0.5, 0.3)
COMPLIANCE = ("", "pci", "hipaa", "sox")  # "" = no label
COMPLIANCE_SHARES = (0.85, 0.06, 0.05, 0.04)
ZONE_SHARES = {2: (0.6, 0.4), 3: (0.45, 0.35, 0.2)}

TAINTED_SHARE = 0.03
TAINT_KEYS = ("maintenance", "gpu", "dedicated")
TAINT_KEY_SHARES = (0.5, 0.25, 0.25)
MAINTENANCE_REASONS = ("kernel-upgrade", "node-drain")

# Health states: eligible ones first.
HEALTHY, BLIP, UNHEALTHY, STALE, LEAVING = range(5)
HEALTH_SHARES = (0.955, 0.005, 0.02, 0.01, 0.01)  # BLIP = unhealthy for < 5 min, still eligible

# Label keys the table carries, each a column of the same name ("" where the label is absent).
LABEL_KEYS = ("region", "zone", "provider", "environment", "team", "tier", "compliance", "accelerator")

_TIME_FORMAT = "%Y-%m-%dT%H:%M:%SZ"


def zipf_weights(k: int, s: float = 1.0) -> np.ndarray:
    """Probabilities proportional to 1/rank**s for ranks 1..k."""
    w = 1.0 / np.arange(1, k + 1, dtype=np.float64) ** s
    return w / w.sum()


def _rng(seed: int, section: int) -> np.random.Generator:
    return np.random.default_rng([seed, section])


@dataclass(slots=True)
class ClusterTable:
    """The clusters' attributes: one polars row per cluster, plus numpy views for matching."""

    frame: pl.DataFrame
    labels: dict[str, np.ndarray] = field(init=False)  # label key -> values ("" = absent)
    numbers: dict[str, np.ndarray] = field(init=False)  # numeric column -> int64 values

    def __post_init__(self) -> None:
        self.labels = {k: self.frame[k].to_numpy().astype(str) for k in LABEL_KEYS}
        self.numbers = {
            c: self.frame[c].to_numpy()
            for c, dtype in self.frame.schema.items()
            if dtype.is_integer() and c != "index"
        }

    def __len__(self) -> int:
        return self.frame.height

    @property
    def names(self) -> np.ndarray:
        return self.frame["name"].to_numpy().astype(str)

    @property
    def eligible(self) -> np.ndarray:
        return self.numbers["health"] <= BLIP

    def label(self, key: str) -> np.ndarray:
        """The values of a label key; "" for every cluster when no cluster has it."""
        got = self.labels.get(key)
        return got if got is not None else np.full(len(self), "", dtype=str)


def cluster_table(clusters: int, seed: int, now: datetime) -> ClusterTable:
    """Draw `clusters` clusters' attributes, vectorised; names are `member-<region>-<nnnnn>`."""
    rng = _rng(seed, 1)
    size = clusters
    region_names = np.array([r for r, _, _ in REGIONS])
    region_providers = np.array([p for _, p, _ in REGIONS])
    width = max(len(z) for _, _, z in REGIONS)
    zone_names = np.array([list(z) + [""] * (width - len(z)) for _, _, z in REGIONS])
    zone_counts = np.array([len(z) for _, _, z in REGIONS])

    region = rng.choice(len(REGIONS), size=size, p=zipf_weights(len(REGIONS)))
    u = rng.random(size)
    zone = np.where(
        zone_counts[region] == 3,
        np.searchsorted(np.cumsum(ZONE_SHARES[3])[:-1], u, side="right"),
        np.searchsorted(np.cumsum(ZONE_SHARES[2])[:-1], u, side="right"),
    )
    environment = rng.choice(len(ENVIRONMENTS), size=size, p=ENVIRONMENT_SHARES)
    team = rng.choice(len(TEAMS), size=size, p=zipf_weights(len(TEAMS), 0.8))
    tier = rng.choice(len(TIERS), size=size, p=TIER_SHARES)
    compliance = rng.choice(len(COMPLIANCE), size=size, p=COMPLIANCE_SHARES)

    # Capacity: node counts lognormal around an environment median, a few machine shapes.
    median_nodes = np.array([8.0, 4.0, 2.0])[environment]
    nodes = np.clip(np.rint(median_nodes * np.exp(0.7 * rng.standard_normal(size))), 1, 500).astype(np.int64)
    cores = rng.choice(np.array([4, 8, 16, 32, 64]), size=size, p=[0.15, 0.35, 0.3, 0.15, 0.05])
    gib_per_core = rng.choice(np.array([2, 4, 8]), size=size, p=[0.2, 0.6, 0.2])
    cpu_capacity = nodes * cores * 1000  # millicores
    cpu_allocatable = nodes * (cores * 1000 - (100 + 20 * cores))
    cpu_available = (cpu_allocatable * (1.0 - rng.beta(2.0, 3.0, size)) // 10).astype(np.int64) * 10
    node_mib = cores * gib_per_core * 1024
    memory_capacity = nodes * node_mib  # MiB
    memory_allocatable = nodes * (node_mib - (750 + node_mib // 10))
    memory_available = (memory_allocatable * (1.0 - rng.beta(2.0, 2.5, size))).astype(np.int64)
    provider_index = np.array([PROVIDERS.index(p) for _, p, _ in REGIONS])
    base_cost = np.array([48, 45, 42])[provider_index[region]]  # thousandths per core-hour
    cost_milli = np.clip(base_cost + np.rint(5.0 * rng.standard_normal(size)), 20, 120).astype(np.int64)

    # Taints, on ~3%: maintenance windows, GPU pools, clusters dedicated to one team.
    tainted = rng.random(size) < TAINTED_SHARE
    taint_kind = rng.choice(len(TAINT_KEYS), size=size, p=TAINT_KEY_SHARES)
    taint_key = np.where(tainted, np.array(TAINT_KEYS)[taint_kind], "")
    maintenance = np.array(MAINTENANCE_REASONS)[rng.integers(0, len(MAINTENANCE_REASONS), size)]
    taint_value = np.select(
        [taint_key == "maintenance", taint_key == "gpu", taint_key == "dedicated"],
        [maintenance, np.full(size, "true"), np.array(TEAMS)[team]],
        "",
    )
    accelerator = np.where(taint_key == "gpu", "nvidia", "")

    # Health and times (seconds before now).
    health = rng.choice(len(HEALTH_SHARES), size=size, p=HEALTH_SHARES)
    heartbeat_age = np.where(health == STALE, rng.integers(6 * 60, 6 * 3600, size), rng.integers(0, 60, size))
    health_age = np.select(
        [health == UNHEALTHY, health == BLIP],
        [rng.integers(6 * 60, 3 * 86400, size), rng.integers(10, 4 * 60, size)],
        rng.integers(3600, 30 * 86400, size),
    )
    joined_age = health_age + rng.integers(0, 90 * 86400, size)
    deletion_age = rng.integers(60, 3600, size)

    frame = pl.DataFrame(
        {
            "index": np.arange(size, dtype=np.int64),
            "region": region_names[region],
            "zone": zone_names[region, zone],
            "provider": region_providers[region],
            "environment": np.array(ENVIRONMENTS)[environment],
            "team": np.array(TEAMS)[team],
            "tier": np.array(TIERS)[tier],
            "compliance": np.array(COMPLIANCE)[compliance],
            "accelerator": accelerator,
            "taint_key": taint_key,
            "taint_value": taint_value,
            "health": health.astype(np.int64),
            "node_count": nodes,
            "cost_milli": cost_milli,
            "cpu_capacity_m": cpu_capacity.astype(np.int64),
            "cpu_allocatable_m": cpu_allocatable.astype(np.int64),
            "cpu_available_m": cpu_available,
            "memory_capacity_mi": memory_capacity.astype(np.int64),
            "memory_allocatable_mi": memory_allocatable.astype(np.int64),
            "memory_available_mi": memory_available,
            "heartbeat_age": heartbeat_age.astype(np.int64),
            "health_age": health_age.astype(np.int64),
            "joined_age": joined_age.astype(np.int64),
            "deletion_age": deletion_age.astype(np.int64),
        },
        schema_overrides={k: pl.String for k in (*LABEL_KEYS, "taint_key", "taint_value")},
    )
    ago = pl.lit(now)

    def time_of(column: str) -> pl.Expr:
        return (ago - pl.duration(seconds=pl.col(column))).dt.strftime(_TIME_FORMAT)

    def cpu(column: str) -> pl.Expr:
        c = pl.col(column)
        return pl.when(c % 1000 == 0).then((c // 1000).cast(pl.String)).otherwise(c.cast(pl.String) + "m")

    def memory(column: str) -> pl.Expr:
        c = pl.col(column)
        return (
            pl.when(c % 1024 == 0)
            .then((c // 1024).cast(pl.String) + "Gi")
            .otherwise(c.cast(pl.String) + "Mi")
        )

    frame = frame.with_columns(
        name=pl.concat_str(
            [pl.lit("member-"), pl.col("region"), pl.lit("-"), pl.col("index").cast(pl.String).str.zfill(5)]
        ),
        cost=pl.lit("0.") + pl.col("cost_milli").cast(pl.String).str.zfill(3),
        cpu_capacity=cpu("cpu_capacity_m"),
        cpu_allocatable=cpu("cpu_allocatable_m"),
        cpu_available=cpu("cpu_available_m"),
        memory_capacity=memory("memory_capacity_mi"),
        memory_allocatable=memory("memory_allocatable_mi"),
        memory_available=memory("memory_available_mi"),
        heartbeat=time_of("heartbeat_age"),
        health_since=time_of("health_age"),
        joined_since=time_of("joined_age"),
        deleted_at=pl.when(pl.col("health") == LEAVING).then(time_of("deletion_age")),
    )
    return ClusterTable(frame)


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


class Matcher:
    """Vectorised, cached evaluation of selectors over a ClusterTable.

    `properties` maps a property name to (numeric column, nano-units per column unit), so that a
    selector value such as "64Gi" compares exactly with a MiB column.
    """

    def __init__(self, table: ClusterTable, properties: Mapping[str, tuple[str, int]]) -> None:
        self.table = table
        self.properties = properties
        self._cache: dict[str, np.ndarray] = {}

    def _cached(self, kind: str, value: Any, compute: Callable[[], np.ndarray]) -> np.ndarray:
        key = kind + json.dumps(value, sort_keys=True)
        got = self._cache.get(key)
        if got is None:
            got = self._cache[key] = compute()
        return got

    def property_values(self, name: str) -> np.ndarray | None:
        """A property in its column unit as float64, or None when no cluster has it."""
        spec = self.properties.get(name)
        if spec is None:
            return None
        return self.table.numbers[spec[0]].astype(np.float64)

    def selector(self, selector: Mapping[str, Any] | None) -> np.ndarray:
        """Kubernetes label selector semantics; None (and {}) match every cluster."""
        return self._cached("labels", selector, lambda: self._selector(selector or {}))

    def _selector(self, selector: Mapping[str, Any]) -> np.ndarray:
        mask = np.ones(len(self.table), dtype=bool)
        for key, value in (selector.get("matchLabels") or {}).items():
            mask &= self.table.label(key) == value
        for item in selector.get("matchExpressions") or []:
            values = self.table.label(item["key"])
            present = values != ""
            op = item["operator"]
            if op == "In":
                mask &= present & np.isin(values, item["values"])
            elif op == "NotIn":
                mask &= ~(present & np.isin(values, item["values"]))
            elif op == "Exists":
                mask &= present
            elif op == "DoesNotExist":
                mask &= ~present
            else:
                raise ValueError(f"unknown label operator {op!r}")
        return mask

    def term(self, term: Mapping[str, Any]) -> np.ndarray:
        """A required cluster selector term: labelSelector AND every property expression."""
        return self._cached("term", term, lambda: self._term(term))

    def _term(self, term: Mapping[str, Any]) -> np.ndarray:
        mask = self.selector(term.get("labelSelector")).copy()
        for item in (term.get("propertySelector") or {}).get("matchExpressions") or []:
            values = self.property_values(item["name"])
            if values is None:
                mask[:] = False  # a missing property never matches
                continue
            threshold = parse_quantity(str(item["values"][0])).nanos / self.properties[item["name"]][1]
            compare = {
                "Gt": np.greater,
                "Ge": np.greater_equal,
                "Eq": np.equal,
                "Ne": np.not_equal,
                "Lt": np.less,
                "Le": np.less_equal,
            }[item["operator"]]
            mask &= compare(values, threshold)
        return mask

    def terms(self, terms: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """ORed terms; no terms match every cluster."""
        if not terms:
            return np.ones(len(self.table), dtype=bool)
        mask = np.zeros(len(self.table), dtype=bool)
        for term in terms:
            mask |= self.term(term)
        return mask

    def tolerated(self, tolerations: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Clusters whose (single, NoSchedule) taint, if any, some toleration tolerates."""
        return self._cached("tolerations", tolerations, lambda: self._tolerated(tolerations))

    def _tolerated(self, tolerations: Sequence[Mapping[str, Any]]) -> np.ndarray:
        key = self.table.frame["taint_key"].to_numpy().astype(str)
        value = self.table.frame["taint_value"].to_numpy().astype(str)
        ok = key == ""
        for t in tolerations:
            if t.get("effect", "") not in ("", "NoSchedule"):
                continue
            if t.get("operator", "Equal") == "Exists":
                ok |= (key == t["key"]) if t.get("key") else np.ones_like(ok)
            else:
                ok |= (key == t.get("key", "")) & (value == t.get("value", ""))
        return ok

    def preference_scores(self, preferences: Sequence[Mapping[str, Any]]) -> np.ndarray:
        """Upstream's affinity score per cluster: label weights plus interpolated sorters, rounded
        per term, min and max over every cluster."""
        return self._cached("preferences", preferences, lambda: self._preference_scores(preferences))

    def _preference_scores(self, preferences: Sequence[Mapping[str, Any]]) -> np.ndarray:
        total = np.zeros(len(self.table), dtype=np.int64)
        for item in preferences:
            weight = item["weight"]
            term = item.get("preference") or {}
            if weight == 0:
                continue
            matched = self.selector(term.get("labelSelector"))
            sorter = term.get("propertySorter")
            if sorter is None:
                total += np.where(matched, weight, 0)
                continue
            values = self.property_values(sorter["name"])
            if values is None or len(values) == 0 or values.max() == values.min():
                continue
            fraction = (values - values.min()) / (values.max() - values.min())
            if sorter["sortOrder"] == "Ascending":
                fraction = 1.0 - fraction
            total += np.where(matched, _round_half_away(fraction * weight), 0).astype(np.int64)
        return total


# ======================================================================================== KubeFleet

FLEET_CLUSTER_API = f"{n.CLUSTER_GROUP}/v1beta1"
NODE_COUNT = "kubernetes-fleet.io/node-count"
CPU_COST = "kubernetes.azure.com/per-cpu-core-cost"
_GI = 2**20 * 10**9  # nano-units per MiB
FLEET_PROPERTIES: dict[str, tuple[str, int]] = {
    NODE_COUNT: ("node_count", 10**9),
    CPU_COST: ("cost_milli", 10**6),
    **{
        f"{n.RESOURCE_PROPERTY_PREFIX}{capacity}-cpu": (f"cpu_{field_}_m", 10**6)
        for capacity, field_ in n.RESOURCE_CAPACITY_TYPES.items()
    },
    **{
        f"{n.RESOURCE_PROPERTY_PREFIX}{capacity}-memory": (f"memory_{field_}_mi", _GI)
        for capacity, field_ in n.RESOURCE_CAPACITY_TYPES.items()
    },
}

# The mix of placements.
PICK_ALL_SHARE, PICK_FIXED_SHARE = 0.15, 0.05  # the rest is PickN
PICK_ALL_LIMIT = 300  # no PickAll affinity matches more clusters than this
EXISTING_SHARE = 0.40  # placements with a policy snapshot and bindings from an earlier run
OBSOLETE_SHARE = 0.10  # of those: the snapshot holds an older, different policy
RESCALED_SHARE = 0.15  # of the current PickN snapshots: N changed since
SPREAD_SHARE, TOLERATION_SHARE = 0.30, 0.10  # of PickN
REQUIRED_SHARE, PREFERRED_SHARE = 0.75, 0.65  # of PickN
BOUND_SHARE = 0.8  # of existing bindings; the rest are Scheduled

WORKLOADS = (
    "web-frontend", "checkout", "payments", "search-api", "identity", "monitoring", "logging",
    "metrics-agent", "ingress", "cert-manager", "batch-jobs", "ml-inference", "feature-store",
    "media-transcode", "ads-serving", "notifications", "inventory", "recommendations", "analytics",
    "backup-agent", "policy-agent", "service-mesh", "cache", "queue-workers",
)  # fmt: skip

_BINDING_CRP_PREFIX, _BINDING_CLUSTER_PREFIX = 26, 27
_REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
_PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"


def _term(
    labels: dict[str, str] | None = None, expressions: list | None = None, properties: list | None = None
) -> dict[str, Any]:
    term: dict[str, Any] = {}
    selector: dict[str, Any] = {}
    if labels:
        selector["matchLabels"] = labels
    if expressions:
        selector["matchExpressions"] = expressions
    if selector:
        term["labelSelector"] = selector
    if properties:
        term["propertySelector"] = {
            "matchExpressions": [{"name": p, "operator": op, "values": [v]} for p, op, v in properties]
        }
    return term


def _expr(key: str, operator: str, *values: str) -> dict[str, Any]:
    out: dict[str, Any] = {"key": key, "operator": operator}
    if values:
        out["values"] = list(values)
    return out


def _sorter(name: str, order: str) -> dict[str, Any]:
    return {"propertySorter": {"name": name, "sortOrder": order}}


def _cpu(kind: str) -> str:
    return f"{n.RESOURCE_PROPERTY_PREFIX}{kind}-cpu"


def _memory(kind: str) -> str:
    return f"{n.RESOURCE_PROPERTY_PREFIX}{kind}-memory"


class _Vocabulary:
    """A limited set of policy parts that placements draw from with Zipf-like weights, so that many
    placements share identical selectors. Entries are JSON strings: each use gets a fresh copy."""

    def __init__(self, rng: np.random.Generator, matcher: Matcher) -> None:
        self.rng = rng
        self.matcher = matcher
        self._cumulative: dict[tuple[int, float], np.ndarray] = {}
        regions = [r for r, _, _ in REGIONS]
        required_mix = (0.2, 0.12, 0.12, 0.08, 0.14, 0.1, 0.06, 0.08, 0.05, 0.05)
        self.required = self._distinct(24, required_mix, lambda t: self._required(t, regions))
        self.preferred = self._distinct(16, (1 / 7,) * 7, lambda t: self._preferred(t, regions))
        self.spread = self._distinct(10, (0.4, 0.25, 0.15, 0.2), self._spread)
        self.tolerations = [
            json.dumps(t)
            for t in (
                [{"key": "maintenance", "operator": "Exists"}],
                [{"key": "gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}],
                [{"key": "dedicated", "operator": "Equal", "value": TEAMS[0]}],
                [{"key": "maintenance", "operator": "Exists"}, {"key": "gpu", "operator": "Exists"}],
                [{"key": "dedicated", "operator": "Equal", "value": TEAMS[1], "effect": "NoSchedule"}],
                [{"operator": "Exists"}],
            )
        ]
        self.pick_all = self._pick_all(regions)

    def _distinct(self, count: int, mix: Sequence[float], make: Callable[[int], Any]) -> list[str]:
        """`count` distinct entries: every template once (in a random order), then by `mix`."""
        seen: dict[str, None] = {}
        for template in self.rng.permutation(len(mix)).tolist():
            seen.setdefault(json.dumps(make(template)), None)
        for _ in range(count * 20):
            if len(seen) >= count:
                break
            seen.setdefault(json.dumps(make(int(self.rng.choice(len(mix), p=mix)))), None)
        return list(seen)

    def _pick(self, options: Sequence[Any], k: int | None = None) -> Any:
        if k is None:
            return options[int(self.rng.integers(len(options)))]
        chosen = self.rng.choice(len(options), size=k, replace=False)
        return sorted(options[i] for i in chosen)

    def draw(self, entries: Sequence[str], s: float = 1.1) -> Any:
        """A fresh copy of an entry, the first ones more likely."""
        cumulative = self._cumulative.get((len(entries), s))
        if cumulative is None:
            cumulative = self._cumulative[len(entries), s] = np.cumsum(zipf_weights(len(entries), s))
        i = min(int(np.searchsorted(cumulative, self.rng.random(), side="right")), len(entries) - 1)
        return json.loads(entries[i])

    def _required(self, template: int, regions: list[str]) -> list[dict[str, Any]]:
        rng, pick = self.rng, self._pick
        env = str(rng.choice(ENVIRONMENTS, p=ENVIRONMENT_SHARES))
        if template == 0:
            return [_term({"environment": env})]
        if template == 1:
            return [_term({"environment": env, "provider": pick(PROVIDERS)})]
        if template == 2:
            chosen = pick(regions, int(rng.integers(2, 5)))
            return [_term({"environment": env}, [_expr("region", "In", *chosen)])]
        if template == 3:
            return [_term(expressions=[_expr("environment", "NotIn", "dev"), _expr("compliance", "Exists")])]
        if template == 4:
            cpu = pick(("16", "32", "64", "128"))
            return [_term({"environment": env}, properties=[(_cpu("allocatable"), "Ge", cpu)])]
        if template == 5:
            name, op, value = pick(
                (
                    (NODE_COUNT, "Ge", "3"),
                    (NODE_COUNT, "Ge", "5"),
                    (_memory("available"), "Ge", "64Gi"),
                    (CPU_COST, "Le", "0.05"),
                    (_cpu("available"), "Gt", "8"),
                )
            )
            return [_term(properties=[(name, op, value)])]
        if template == 6:
            a, b = pick(regions, 2)
            return [_term({"region": a, "environment": env}), _term({"region": b, "environment": env})]
        if template == 7:
            return [_term({"team": pick(TEAMS[:6])}, [_expr("environment", "In", "production", "staging")])]
        if template == 8:
            return [
                _term(
                    expressions=[_expr("tier", "In", "gold", "silver")],
                    properties=[(_memory("total"), "Ge", "256Gi")],
                )
            ]
        return [_term({"environment": env}, [_expr("accelerator", "DoesNotExist")])]

    def _preferred(self, template: int, regions: list[str]) -> list[dict[str, Any]]:
        rng, pick = self.rng, self._pick

        def weight() -> int:
            return int(rng.integers(1, 11)) * 10

        def pref(weight: int, labels=None, expressions=None, sorter=None) -> dict[str, Any]:
            term: dict[str, Any] = {}
            if labels or expressions:
                term["labelSelector"] = _term(labels, expressions)["labelSelector"]
            if sorter:
                term.update(_sorter(*sorter))
            return {"weight": weight, "preference": term}

        if template == 0:
            return [pref(weight(), sorter=(CPU_COST, "Ascending"))]
        if template == 1:
            return [pref(weight(), sorter=(_cpu("available"), "Descending"))]
        if template == 2:
            return [
                pref(weight(), sorter=(NODE_COUNT, "Descending")),
                pref(-weight(), {"environment": "dev"}),
            ]
        if template == 3:
            return [pref(weight(), {"region": pick(regions)})]
        if template == 4:
            return [
                pref(weight(), expressions=[_expr("tier", "In", "gold")]),
                pref(weight(), sorter=(_memory("available"), "Descending")),
            ]
        if template == 5:
            return [pref(-weight(), {"provider": pick(PROVIDERS)})]
        zone = pick(REGIONS)[2][0]
        return [pref(weight(), {"zone": zone}, sorter=(_cpu("available"), "Descending"))]

    def _spread(self, template: int) -> list[dict[str, Any]]:
        rng, pick = self.rng, self._pick

        def one(key: str) -> dict[str, Any]:
            if rng.random() < 0.25:
                return {"topologyKey": key}  # upstream defaults: maxSkew 1, DoNotSchedule
            return {
                "maxSkew": int(rng.integers(1, 3)),
                "topologyKey": key,
                "whenUnsatisfiable": pick(("DoNotSchedule", "ScheduleAnyway")),
            }

        if template == 3:
            return [one("region"), {**one("zone"), "whenUnsatisfiable": "ScheduleAnyway"}]
        return [one(("region", "zone", "provider")[template])]

    def _pick_all(self, regions: list[str]) -> list[str]:
        """PickAll affinities matching 1..PICK_ALL_LIMIT clusters, less specific ones preferred."""
        candidates: list[tuple[int, list[dict[str, Any]]]] = []  # (specificity, terms)
        zones = [z for _, _, zs in REGIONS for z in zs]
        for env in ENVIRONMENTS:
            for region in regions:
                candidates.append((1, [_term({"environment": env, "region": region})]))
                candidates.append((3, [_term({"environment": env, "region": region, "tier": "gold"})]))
                candidates.append(
                    (3, [_term({"environment": env, "region": region}, [_expr("tier", "NotIn", "bronze")])])
                )
            for zone in zones:
                candidates.append((2, [_term({"environment": env, "zone": zone})]))
            for team in TEAMS:
                candidates.append((2, [_term({"environment": env, "team": team})]))
                for region in regions[:6]:
                    candidates.append((3, [_term({"environment": env, "team": team, "region": region})]))
        for compliance in COMPLIANCE[1:]:
            candidates.append((2, [_term({"compliance": compliance})]))
            for region in regions:
                candidates.append((3, [_term({"compliance": compliance, "region": region})]))
        counts = np.array([int(self.matcher.terms(terms).sum()) for _, terms in candidates])
        fits = [i for i, c in enumerate(counts) if 1 <= c <= PICK_ALL_LIMIT]
        if not fits:
            fits = [i for i, c in enumerate(counts) if c <= PICK_ALL_LIMIT]
        weights = np.array([1.0 / candidates[i][0] ** 2 for i in fits])
        chosen = self.rng.choice(len(fits), size=min(24, len(fits)), replace=False, p=weights / weights.sum())
        return [json.dumps(candidates[fits[int(i)]][1]) for i in chosen]


def _fleet_member(row: dict[str, Any]) -> dict[str, Any]:
    labels = {k: row[k] for k in LABEL_KEYS if row[k]}
    metadata: dict[str, Any] = {"name": row["name"], "labels": labels}
    if row["deleted_at"] is not None:
        metadata["deletionTimestamp"] = row["deleted_at"]
    spec: dict[str, Any] = {
        "identity": {"kind": "ServiceAccount", "name": "fleet-member-agent", "namespace": "fleet-system"},
        "heartbeatPeriodSeconds": 60,
    }
    if row["taint_key"]:
        spec["taints"] = [{"key": row["taint_key"], "value": row["taint_value"], "effect": "NoSchedule"}]
    seen = row["heartbeat"]
    healthy = row["health"] in (HEALTHY, STALE, LEAVING)
    return {
        "apiVersion": FLEET_CLUSTER_API,
        "kind": n.MEMBER_CLUSTER,
        "metadata": metadata,
        "spec": spec,
        "status": {
            "properties": {
                NODE_COUNT: {"value": str(row["node_count"]), "observationTime": seen},
                CPU_COST: {"value": row["cost"], "observationTime": seen},
            },
            "resourceUsage": {
                "capacity": {"cpu": row["cpu_capacity"], "memory": row["memory_capacity"]},
                "allocatable": {"cpu": row["cpu_allocatable"], "memory": row["memory_allocatable"]},
                "available": {"cpu": row["cpu_available"], "memory": row["memory_available"]},
                "observationTime": seen,
            },
            "agentStatus": [
                {
                    "type": n.MEMBER_AGENT,
                    "lastReceivedHeartbeat": seen,
                    "conditions": [
                        {"type": "Joined", "status": "True", "lastTransitionTime": row["joined_since"]},
                        {
                            "type": "Healthy",
                            "status": "True" if healthy else "False",
                            "lastTransitionTime": row["health_since"],
                        },
                    ],
                }
            ],
        },
    }


def _uid(rng: np.random.Generator) -> str:
    h = "".join(f"{int(x):08x}" for x in rng.integers(0, 2**32, 4))
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


@dataclass(slots=True)
class _Placement:
    name: str
    kind: str  # PickAll / PickN / PickFixed
    policy: dict[str, Any]
    generation: int = 1
    uid: str = ""


def _split(rng: np.random.Generator, total: int, shares: Sequence[float]) -> np.ndarray:
    """Exactly round(share * total) items of each kind (the last kind takes the rest), shuffled."""
    counts = [round(s * total) for s in shares]
    counts.append(total - sum(counts))
    kinds = np.repeat(np.arange(len(counts)), counts)
    return rng.permutation(kinds)


class _FleetGenerator:
    def __init__(self, clusters: int, placements: int, seed: int, now: datetime) -> None:
        self.now = now
        self.table = cluster_table(clusters, seed, now)
        self.names = self.table.names
        self.index = {str(name): i for i, name in enumerate(self.names)}
        self._domains: dict[str, np.ndarray] = {}
        self.matcher = Matcher(self.table, FLEET_PROPERTIES)
        self.rng = _rng(seed, 2)
        self.state_rng = _rng(seed, 3)
        self.vocabulary = _Vocabulary(self.rng, self.matcher)
        self.placement_count = placements
        self.binding_names: set[str] = set()

    # -- placements ------------------------------------------------------------------------------

    def _pick_n(self) -> dict[str, Any]:
        rng, vocab = self.rng, self.vocabulary
        count = int(rng.integers(1, 11)) if rng.random() < 0.9 else int(rng.integers(11, 26))
        policy: dict[str, Any] = {"placementType": "PickN", "numberOfClusters": count}
        affinity: dict[str, Any] = {}
        if rng.random() < REQUIRED_SHARE:
            affinity[_REQUIRED] = {"clusterSelectorTerms": vocab.draw(vocab.required)}
        if rng.random() < PREFERRED_SHARE:
            affinity[_PREFERRED] = vocab.draw(vocab.preferred)
        if affinity:
            policy["affinity"] = {"clusterAffinity": affinity}
        if rng.random() < SPREAD_SHARE:
            policy["topologySpreadConstraints"] = vocab.draw(vocab.spread)
        if rng.random() < TOLERATION_SHARE:
            policy["tolerations"] = vocab.draw(vocab.tolerations, 1.5)
        return policy

    def _pick_all(self) -> dict[str, Any]:
        terms = self.vocabulary.draw(self.vocabulary.pick_all, 0.8)
        return {
            "placementType": "PickAll",
            "affinity": {"clusterAffinity": {_REQUIRED: {"clusterSelectorTerms": terms}}},
        }

    def _missing_name(self) -> str:
        region = REGIONS[int(self.rng.integers(len(REGIONS)))][0]
        return f"member-{region}-{len(self.table) + int(self.rng.integers(0, 1000)):05d}"

    def _pick_fixed(self) -> dict[str, Any]:
        rng = self.rng
        want = int(rng.integers(2, 6))
        have = min(want, len(self.table))
        chosen = rng.choice(len(self.table), size=have, replace=False) if have else np.array([], dtype=int)
        names = [str(self.names[i]) for i in chosen]
        if not names or rng.random() < 0.15:  # a name that is not (or no longer) in the fleet
            if len(names) >= 2:
                names[-1] = self._missing_name()
            else:
                names.append(self._missing_name())
        return {"placementType": "PickFixed", "clusterNames": names}

    def placements(self) -> list[_Placement]:
        rng = self.rng
        kinds = _split(rng, self.placement_count, (PICK_ALL_SHARE, PICK_FIXED_SHARE))
        workloads = rng.choice(len(WORKLOADS), size=self.placement_count)
        out = []
        for i, (kind, workload) in enumerate(zip(kinds, workloads, strict=True)):
            make = (self._pick_all, self._pick_fixed, self._pick_n)[int(kind)]
            policy = make()
            out.append(
                _Placement(
                    name=f"{WORKLOADS[int(workload)]}-{i:05d}",
                    kind=policy["placementType"],
                    policy=policy,
                    generation=int(rng.integers(1, 4)),
                    uid=_uid(rng),
                )
            )
        return out

    @staticmethod
    def placement_object(p: _Placement) -> dict[str, Any]:
        workload = p.name.rsplit("-", 1)[0]
        return {
            "apiVersion": n.API_VERSION,
            "kind": n.PLACEMENT,
            "metadata": {"name": p.name, "generation": p.generation, "uid": p.uid},
            "spec": {
                "resourceSelectors": [{"group": "", "version": "v1", "kind": "Namespace", "name": workload}],
                "policy": p.policy,
                "strategy": {"type": "RollingUpdate"},
            },
        }

    # -- existing state -------------------------------------------------------------------------

    def _older_policy(self, p: _Placement) -> dict[str, Any]:
        """A policy that differs from the placement's current one (beyond numberOfClusters)."""
        current = normalized_policy(p.policy)
        for _ in range(10):
            if p.kind == "PickN":
                old = self._pick_n()
            elif p.kind == "PickAll":
                old = self._pick_all()
            else:
                old = self._pick_fixed()
            if normalized_policy(old) != current:
                return old
        old = json.loads(json.dumps(p.policy))
        if p.kind == "PickFixed":
            old["clusterNames"] = old["clusterNames"][1:] or [self._missing_name()]
            if normalized_policy(old) == current:  # pragma: no cover - the one name was missing
                old["clusterNames"] = [self._missing_name() + "0"]
        elif old.get("tolerations"):
            del old["tolerations"]
        else:
            old["tolerations"] = [{"key": "maintenance", "operator": "Exists"}]
        return old

    def _candidates(self, policy: dict[str, Any]) -> np.ndarray:
        """Indices of the clusters an earlier run could have picked under `policy`."""
        if policy["placementType"] == "PickFixed":
            index = self.index
            return np.array([index[c] for c in policy["clusterNames"] if c in index], dtype=np.int64)
        terms = (
            policy.get("affinity", {})
            .get("clusterAffinity", {})
            .get(_REQUIRED, {})
            .get("clusterSelectorTerms", [])
        )
        mask = self.matcher.terms(terms) & self.matcher.tolerated(policy.get("tolerations", []))
        return np.flatnonzero(mask)

    def _choose(self, policy: dict[str, Any], candidates: np.ndarray, scores: np.ndarray) -> np.ndarray:
        rng = self.state_rng
        kind = policy["placementType"]
        if kind == "PickFixed":
            return candidates[rng.random(len(candidates)) < 0.85]
        if kind == "PickAll":
            keep = round(rng.uniform(0.6, 1.0) * len(candidates))
            return np.sort(rng.choice(candidates, size=keep, replace=False))
        count = policy["numberOfClusters"]
        if rng.random() < 0.2:
            count = int(rng.integers(0, count + 1))  # partly scheduled, or since scaled
        count = min(count, len(candidates))
        if count == 0:
            return np.array([], dtype=np.int64)
        # The best-scored candidates when they were picked, with some drift since.
        noisy = scores[candidates] + rng.random(len(candidates)) * 15.0
        spread = policy.get("topologySpreadConstraints")
        if not spread:
            top = np.argpartition(-noisy, count - 1)[:count] if count < len(noisy) else np.arange(len(noisy))
            return candidates[top[np.argsort(-noisy[top], kind="stable")]]
        # Round robin over the first constraint's domains (in a random order), best first within each.
        codes = self._domain_codes(spread[0]["topologyKey"])
        domain = codes[candidates]
        order = np.lexsort((-noisy, domain))
        sorted_domain = domain[order]
        starts = np.r_[True, sorted_domain[1:] != sorted_domain[:-1]]
        rank = np.arange(len(order)) - np.maximum.accumulate(np.where(starts, np.arange(len(order)), 0))
        priority = rng.permutation(int(codes.max()) + 1)[sorted_domain]
        return candidates[order[np.lexsort((priority, rank))[:count]]]

    def _domain_codes(self, key: str) -> np.ndarray:
        codes = self._domains.get(key)
        if codes is None:
            _, codes = np.unique(self.table.label(key), return_inverse=True)
            codes = self._domains[key] = codes.astype(np.int64)
        return codes

    def _binding_name(self, crp: str, cluster: str, suffix: int) -> str:
        while True:
            name = f"{crp[:_BINDING_CRP_PREFIX]}-{cluster[:_BINDING_CLUSTER_PREFIX]}-{suffix:08x}"
            if name not in self.binding_names:
                self.binding_names.add(name)
                return name
            suffix = int(self.state_rng.integers(0, 2**32))

    def _binding(
        self, crp: str, snapshot: str, cluster: str, score: tuple[int, int] | None, bound: bool, suffix: int
    ) -> dict[str, Any]:
        decision: dict[str, Any] = {"clusterName": cluster, "selected": True}
        if score is None:
            decision["reason"] = n.PICKED_FIXED.format(cluster=cluster)
        else:
            affinity, spread = score
            decision["clusterScore"] = {"affinityScore": affinity, "priorityScore": spread}
            decision["reason"] = n.PICKED_SCORED.format(cluster=cluster, affinity=affinity, spread=spread)
        return {
            "apiVersion": n.API_VERSION,
            "kind": n.BINDING,
            "metadata": {
                "name": self._binding_name(crp, cluster, suffix),
                "labels": {n.PARENT_LABEL: crp},
                "finalizers": [n.SCHEDULER_FINALIZER],
            },
            "spec": {
                "state": n.BOUND if bound else n.SCHEDULED,
                "resourceSnapshotName": f"{crp}-0-snapshot" if bound else "",
                "schedulingPolicySnapshotName": snapshot,
                "targetCluster": cluster,
                "clusterDecision": decision,
            },
        }

    def existing_state(self, p: _Placement, obsolete: bool) -> list[dict[str, Any]]:
        """The policy snapshot `<crp>-0` and its bindings; adjusts the placement's generation."""
        rng = self.state_rng
        policy = self._older_policy(p) if obsolete else json.loads(json.dumps(p.policy))
        snapshot_generation = p.generation
        if obsolete:
            p.generation = snapshot_generation + int(rng.integers(1, 3))
        elif p.kind == "PickN" and rng.random() < RESCALED_SHARE:
            old = p.policy["numberOfClusters"]
            policy["numberOfClusters"] = max(1, old + int(rng.choice([-3, -2, -1, 1, 2, 4])))
            if policy["numberOfClusters"] != old:
                p.generation = snapshot_generation + 1
        name = f"{p.name}-0"
        annotations = {n.GENERATION_ANNOTATION: str(snapshot_generation)}
        if p.kind == "PickN":
            annotations[n.NUMBER_OF_CLUSTERS_ANNOTATION] = str(policy["numberOfClusters"])

        candidates = self._candidates(policy)
        scores = self.matcher.preference_scores(
            policy.get("affinity", {}).get("clusterAffinity", {}).get(_PREFERRED, [])
        )
        chosen = self._choose(policy, candidates, scores)
        bound = (rng.random(len(chosen)) < BOUND_SHARE).tolist()
        suffixes = rng.integers(0, 2**32, len(chosen)).tolist()
        spread_scores = (
            (-rng.integers(0, 2, len(chosen))).tolist()
            if policy.get("topologySpreadConstraints")
            else [0] * len(chosen)
        )
        bindings = []
        for k, i in enumerate(chosen.tolist()):
            cluster = str(self.names[i])
            if p.kind == "PickFixed":
                score = None
            elif p.kind == "PickAll":
                score = (0, 0)
            else:
                score = (int(scores[i]), int(spread_scores[k]))
            bindings.append(self._binding(p.name, name, cluster, score, bound[k], suffixes[k]))

        found = len(bindings)
        if p.kind == "PickN":
            satisfied = found >= policy["numberOfClusters"]
        elif p.kind == "PickFixed":
            eligible = self.table.eligible
            satisfied = len(candidates) == len(policy["clusterNames"]) and bool(eligible[candidates].all())
        else:
            satisfied = True
        message = n.FULFILLED_MESSAGE if satisfied else n.UNFULFILLED_MESSAGE
        changed = self.now.timestamp() - int(rng.integers(600, 7 * 86400))
        snapshot = {
            "apiVersion": n.API_VERSION,
            "kind": n.POLICY_SNAPSHOT,
            "metadata": {
                "name": name,
                "generation": 1,
                "labels": {n.PARENT_LABEL: p.name, n.LATEST_LABEL: "true", n.INDEX_LABEL: "0"},
                "annotations": annotations,
                "ownerReferences": [
                    {
                        "apiVersion": n.API_VERSION,
                        "kind": n.PLACEMENT,
                        "name": p.name,
                        "uid": p.uid,
                        "controller": True,
                        "blockOwnerDeletion": True,
                    }
                ],
            },
            "spec": {
                "policy": policy,
                "policyHash": base64.b64encode(policy_hash(policy).encode()).decode(),
            },
            "status": {
                "observedCRPGeneration": snapshot_generation,
                "conditions": [
                    {
                        "type": n.CONDITION_SCHEDULED,
                        "status": "True" if satisfied else "False",
                        "reason": n.FULFILLED if satisfied else n.UNFULFILLED,
                        "message": message.format(found),
                        "observedGeneration": 1,
                        "lastTransitionTime": datetime.fromtimestamp(changed, UTC).strftime(_TIME_FORMAT),
                    }
                ],
            },
        }
        return [snapshot, *bindings]

    def objects(self) -> list[dict[str, Any]]:
        members = [_fleet_member(row) for row in self.table.frame.iter_rows(named=True)]
        placements = self.placements()
        existing = self.state_rng.permutation(len(placements))[: round(EXISTING_SHARE * len(placements))]
        obsolete = set(existing[: round(OBSOLETE_SHARE * len(existing))].tolist())
        snapshots, bindings = [], []
        for i in sorted(existing.tolist()):
            snapshot, *made = self.existing_state(placements[i], i in obsolete)
            snapshots.append(snapshot)
            bindings.extend(made)
        return [*members, *(self.placement_object(p) for p in placements), *snapshots, *bindings]


def generate_fleet(
    clusters: int, placements: int, seed: int = 0, now: str | datetime = DEFAULT_NOW
) -> list[dict[str, Any]]:
    """A KubeFleet hub: MemberClusters, ClusterResourcePlacements, and for ~40% of the placements
    the ClusterSchedulingPolicySnapshot and ClusterResourceBindings of an earlier scheduling run."""
    _check_sizes(clusters, placements, seed)
    return _FleetGenerator(clusters, placements, seed, _parse_now(now)).objects()


# =================================================================================== public entry

SYSTEMS: dict[str, Callable[..., list[dict[str, Any]]]] = {"fleet": generate_fleet}


def _check_sizes(clusters: int, placements: int, seed: int) -> None:
    for label, value in (("clusters", clusters), ("placements", placements), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 0:
            raise ValueError(f"{label} must be a non-negative integer, got {value!r}")


def _parse_now(now: str | datetime) -> datetime:
    moment = now if isinstance(now, datetime) else datetime.fromisoformat(now)
    moment = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def generate(
    system: str, clusters: int, placements: int, seed: int = 0, now: str | datetime = DEFAULT_NOW
) -> list[dict[str, Any]]:
    """The upstream objects of a synthetic `system` hub with `clusters` clusters and `placements`
    placements; the same arguments always give the same objects."""
    make = SYSTEMS.get(system)
    if make is None:
        raise ValueError(f"unknown system {system!r}; expected one of {', '.join(sorted(SYSTEMS))}")
    return make(clusters, placements, seed=seed, now=now)


def generate_yaml(
    system: str, clusters: int, placements: int, seed: int = 0, now: str | datetime = DEFAULT_NOW
) -> str:
    """:func:`generate` as a YAML stream (every document starts with ``---``)."""
    return dump_yaml_stream(generate(system, clusters, placements, seed=seed, now=now))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.generate", description=__doc__.splitlines()[0])
    parser.add_argument("system", choices=sorted(SYSTEMS))
    parser.add_argument("clusters", type=int)
    parser.add_argument("placements", type=int)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--now", default=DEFAULT_NOW, help="RFC 3339 time the state is relative to")
    parser.add_argument("-o", "--output", default="-", help="file to write (default: standard output)")
    args = parser.parse_args(argv)
    text = generate_yaml(args.system, args.clusters, args.placements, seed=args.seed, now=args.now)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
