"""The synthetic KubeFleet hub: MemberClusters, ClusterResourcePlacements, and for part of the
placements the ClusterSchedulingPolicySnapshot and ClusterResourceBindings of an earlier run.

Built on the shared layer of :mod:`adapters.generate.common` (cluster table, selector matcher) and
registered there as ``"fleet"``.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from adapters.fleet import names as n
from adapters.fleet.policy import normalized_policy
from adapters.fleet.snapshots import new_snapshot, scheduled_condition
from adapters.generate.common import (
    COMPLIANCE,
    DEFAULT_NOW,
    ENVIRONMENT_SHARES,
    ENVIRONMENTS,
    HEALTHY,
    LABEL_KEYS,
    LEAVING,
    PROVIDERS,
    REGIONS,
    STALE,
    TEAMS,
    ClusterTable,
    Matcher,
    Picker,
    check_sizes,
    cluster_table,
    distinct,
    exact_categories,
    expression,
    gone_cluster_name,
    label_selector,
    parse_now,
    rng_for,
    sample_share,
    time_text,
    uuid_text,
)
from model import parse_quantity

__all__ = ["FLEET_PROPERTIES", "PICK_ALL_LIMIT", "generate_fleet"]

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
PLACEMENT_TYPE_SHARES = (PICK_ALL_SHARE, PICK_FIXED_SHARE, 1 - PICK_ALL_SHARE - PICK_FIXED_SHARE)
PICK_ALL_LIMIT = 300  # no PickAll affinity matches more clusters than this
EXISTING_SHARE = 0.40  # placements with a policy snapshot and bindings from an earlier run
OBSOLETE_SHARE = 0.10  # of those: the snapshot holds an older, different policy
RESCALED_SHARE = 0.15  # of the current PickN snapshots: N changed since
SPREAD_SHARE, TOLERATION_SHARE = 0.30, 0.10  # of PickN
REQUIRED_SHARE, PREFERRED_SHARE = 0.75, 0.65  # of PickN
BOUND_SHARE = 0.8  # of existing bindings; the rest are Scheduled
PICK_N_EXPONENT = 1.1  # Zipf exponent of PickN policies' draws from the vocabulary

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
    selector = label_selector(labels, *(expressions or ()))
    if selector:
        term["labelSelector"] = selector
    if properties:
        term["propertySelector"] = {
            "matchExpressions": [{"name": p, "operator": op, "values": [v]} for p, op, v in properties]
        }
    return term


def _sorter(name: str, order: str) -> dict[str, Any]:
    return {"propertySorter": {"name": name, "sortOrder": order}}


def _cpu(kind: str) -> str:
    return f"{n.RESOURCE_PROPERTY_PREFIX}{kind}-cpu"


def _memory(kind: str) -> str:
    return f"{n.RESOURCE_PROPERTY_PREFIX}{kind}-memory"


class _FleetMatcher(Matcher):
    """Fleet's selectors over the shared cluster table: property selectors, NoSchedule tolerations
    and affinity preference scores, beside the shared label selectors.

    `properties` maps a property name to (numeric column, nano-units per column unit), so that a
    selector value such as "64Gi" compares exactly with a MiB column.
    """

    def __init__(self, table: ClusterTable, properties: Mapping[str, tuple[str, int]]) -> None:
        super().__init__(table)
        self.properties = properties

    def property_values(self, name: str) -> np.ndarray | None:
        """A property in its column unit as float64, or None when no cluster has it."""
        spec = self.properties.get(name)
        if spec is None:
            return None
        return self.table.numbers[spec[0]].astype(np.float64)

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
        return self.any_of(terms, self.term)

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


def _round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


class _Vocabulary(Picker):
    """A limited set of policy parts that placements draw from with Zipf-like weights, so that many
    placements share identical selectors. Entries are JSON strings: each use gets a fresh copy."""

    def __init__(self, rng: np.random.Generator, matcher: _FleetMatcher) -> None:
        super().__init__(rng)
        self.matcher = matcher
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
        rng = self.rng
        every = (make(template) for template in rng.permutation(len(mix)).tolist())
        return distinct(lambda: make(int(rng.choice(len(mix), p=mix))), count, count * 20, first=every)

    def _required(self, template: int, regions: list[str]) -> list[dict[str, Any]]:
        rng, pick = self.rng, self.pick
        env = str(rng.choice(ENVIRONMENTS, p=ENVIRONMENT_SHARES))
        if template == 0:
            return [_term({"environment": env})]
        if template == 1:
            return [_term({"environment": env, "provider": pick(PROVIDERS)})]
        if template == 2:
            chosen = self.some(regions, 2, 4)
            return [_term({"environment": env}, [expression("region", "In", *chosen)])]
        if template == 3:
            return [
                _term(
                    expressions=[
                        expression("environment", "NotIn", "dev"),
                        expression("compliance", "Exists"),
                    ]
                )
            ]
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
            a, b = self.sample(regions, 2)
            return [_term({"region": a, "environment": env}), _term({"region": b, "environment": env})]
        if template == 7:
            return [
                _term({"team": pick(TEAMS[:6])}, [expression("environment", "In", "production", "staging")])
            ]
        if template == 8:
            return [
                _term(
                    expressions=[expression("tier", "In", "gold", "silver")],
                    properties=[(_memory("total"), "Ge", "256Gi")],
                )
            ]
        return [_term({"environment": env}, [expression("accelerator", "DoesNotExist")])]

    def _preferred(self, template: int, regions: list[str]) -> list[dict[str, Any]]:
        rng, pick = self.rng, self.pick

        def weight() -> int:
            return int(rng.integers(1, 11)) * 10

        def pref(weight: int, labels=None, expressions=None, sorter=None) -> dict[str, Any]:
            term: dict[str, Any] = {}
            if labels or expressions:
                term["labelSelector"] = label_selector(labels, *(expressions or ()))
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
                pref(weight(), expressions=[expression("tier", "In", "gold")]),
                pref(weight(), sorter=(_memory("available"), "Descending")),
            ]
        if template == 5:
            return [pref(-weight(), {"provider": pick(PROVIDERS)})]
        zone = pick(REGIONS)[2][0]
        return [pref(weight(), {"zone": zone}, sorter=(_cpu("available"), "Descending"))]

    def _spread(self, template: int) -> list[dict[str, Any]]:
        rng, pick = self.rng, self.pick

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
                    (
                        3,
                        [
                            _term(
                                {"environment": env, "region": region},
                                [expression("tier", "NotIn", "bronze")],
                            )
                        ],
                    )
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
                    # the member agent's reasons (internalmembercluster/v1beta1/member_controller.go)
                    "conditions": [
                        {
                            "type": "Joined",
                            "status": "True",
                            "lastTransitionTime": row["joined_since"],
                            "reason": "InternalMemberClusterJoined",
                            "message": "",
                        },
                        {
                            "type": "Healthy",
                            "status": "True" if healthy else "False",
                            "lastTransitionTime": row["health_since"],
                            "reason": f"InternalMemberCluster{'Healthy' if healthy else 'Unhealthy'}",
                            "message": "",
                        },
                    ],
                }
            ],
        },
    }


def _uid(rng: np.random.Generator) -> str:
    return uuid_text("".join(f"{int(x):08x}" for x in rng.integers(0, 2**32, 4)))


@dataclass(slots=True)
class _Placement:
    name: str
    kind: str  # PickAll / PickN / PickFixed
    policy: dict[str, Any]
    generation: int = 1
    uid: str = ""


class _FleetGenerator:
    def __init__(self, clusters: int, placements: int, seed: int, now: datetime) -> None:
        self.now = now
        self.table = cluster_table(clusters, seed, now)
        self.names = self.table.names
        self.index = {str(name): i for i, name in enumerate(self.names)}
        self._domains: dict[str, np.ndarray] = {}
        self.matcher = _FleetMatcher(self.table, FLEET_PROPERTIES)
        self.rng = rng_for(seed, 2)
        self.state_rng = rng_for(seed, 3)
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
            affinity[_REQUIRED] = {"clusterSelectorTerms": vocab.draw(vocab.required, PICK_N_EXPONENT)}
        if rng.random() < PREFERRED_SHARE:
            affinity[_PREFERRED] = vocab.draw(vocab.preferred, PICK_N_EXPONENT)
        if affinity:
            policy["affinity"] = {"clusterAffinity": affinity}
        if rng.random() < SPREAD_SHARE:
            policy["topologySpreadConstraints"] = vocab.draw(vocab.spread, PICK_N_EXPONENT)
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
        return gone_cluster_name(self.rng, "member", [r for r, _, _ in REGIONS], len(self.table))

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
        kinds = exact_categories(rng, self.placement_count, PLACEMENT_TYPE_SHARES)
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
    def placement_object(p: _Placement, scheduled: bool) -> dict[str, Any]:
        """The placement; `scheduled`: one the controllers have acted on, which holds their finalizers."""
        workload = p.name.rsplit("-", 1)[0]
        metadata: dict[str, Any] = {"name": p.name, "generation": p.generation, "uid": p.uid}
        if scheduled:
            metadata["finalizers"] = [n.PLACEMENT_CLEANUP_FINALIZER, n.SCHEDULER_CLEANUP_FINALIZER]
        return {
            "apiVersion": n.API_VERSION,
            "kind": n.PLACEMENT,
            "metadata": metadata,
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
        snapshot = new_snapshot(
            self.placement_object(p, True),
            0,
            policy,
            snapshot_generation,
            policy["numberOfClusters"] if p.kind == "PickN" else None,
        )
        name = snapshot["metadata"]["name"]
        # As the hub holds it: the API server's generation beside the name.
        snapshot["metadata"] = {"name": name, "generation": 1, **snapshot["metadata"]}

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
        changed = self.now - timedelta(seconds=int(rng.integers(600, 7 * 86400)))
        scheduled = {**scheduled_condition(satisfied, found, 1), "lastTransitionTime": time_text(changed)}
        snapshot["status"] = {"observedCRPGeneration": snapshot_generation, "conditions": [scheduled]}
        return [snapshot, *bindings]

    def objects(self) -> list[dict[str, Any]]:
        members = [_fleet_member(row) for row in self.table.frame.iter_rows(named=True)]
        placements = self.placements()
        existing = sample_share(self.state_rng, len(placements), EXISTING_SHARE)
        obsolete = set(existing[: round(OBSOLETE_SHARE * len(existing))].tolist())
        snapshots, bindings = [], []
        for i in sorted(existing.tolist()):
            snapshot, *made = self.existing_state(placements[i], i in obsolete)
            snapshots.append(snapshot)
            bindings.extend(made)
        held = set(existing.tolist())
        placed = [self.placement_object(p, i in held) for i, p in enumerate(placements)]
        return [*members, *placed, *snapshots, *bindings]


def generate_fleet(
    clusters: int, placements: int, seed: int = 0, now: str | datetime = DEFAULT_NOW
) -> list[dict[str, Any]]:
    """A KubeFleet hub: MemberClusters, ClusterResourcePlacements, and for ~40% of the placements
    the ClusterSchedulingPolicySnapshot and ClusterResourceBindings of an earlier scheduling run."""
    check_sizes(clusters, placements, seed)
    return _FleetGenerator(clusters, placements, seed, parse_now(now)).objects()
