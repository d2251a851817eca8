"""Karmada Clusters (cluster.karmada.io/v1alpha1, served by karmada-aggregated-apiserver) ->
model.Cluster: labels; claims provider, region and zone (the zones joined by ","); the
NoSchedule and NoExecute taints, each exempting the bindings already on the cluster (the
scheduler's TaintToleration); `leaving` while being deleted; traits for the APIs it serves and
the affinity terms it matches (added by load); free capacity in the general estimator's units
(pkg/estimator/client/general.go) and its resource models' nodes.

Refused as the aggregated API server refuses them (pkg/apis/cluster/validation): a name over 48
characters or not a DNS label, a sync mode other than Push or Pull, a provider, region or zone
that is not a label value, zone beside zones, invalid taints, resource models out of order. Its
status is never validated (pkg/registry/cluster/strategy.go): only decoded into the Go types, so a
value of the wrong type is refused, a null item of a list is the item's zero value, and a
condition holds any strings.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from adapters.karmada import names as n
from adapters.karmada.placement import ClusterFacts
from adapters.kube.fields import INT64, Fields, parse_time
from adapters.kube.manifests import Manifest
from adapters.kube.validation import dns_label_errors, label_value_errors, qualified_name_errors
from model import Capacity, Cluster, NodeClass, Taint
from model.quantity import Quantity, QuantityError, parse_quantity

__all__ = ["KarmadaCluster", "amount_text", "read_cluster", "units"]

_NANO, _MILLI = 10**9, 10**6
UINT64 = 2**64 - 1  # a grade is a Go uint (pkg/apis/cluster/v1alpha1/types.go)


@dataclass(frozen=True, slots=True)
class KarmadaCluster:
    facts: ClusterFacts
    taints: tuple[Taint, ...]
    leaving: bool
    apis: frozenset[str]  # API traits
    capacity: Capacity | None

    @property
    def name(self) -> str:
        return self.facts.name

    def to_model(self, affinity_traits: frozenset[str]) -> Cluster:
        facts = self.facts
        claims = {
            key: value for key, value in ((n.PROVIDER, facts.provider), (n.REGION, facts.region)) if value
        }
        if facts.zones:
            claims[n.ZONES_CLAIM] = ",".join(facts.zones)
        return Cluster(
            facts.name,
            labels=facts.labels,
            taints=tuple(t for t in self.taints if t.effect in n.FILTER_EFFECTS),
            leaving=self.leaving,
            claims=claims,
            traits=self.apis | affinity_traits,
            capacity=self.capacity,
        )


def units(resource: str, amount: Quantity) -> int:
    """A quantity in the estimator's units, rounded up: millicores for cpu, whole units else; at
    most int64's largest (a quantity the API server takes may pass it in these units, exa-cores
    in millicores, where upstream's int64 arithmetic means nothing)."""
    scale = _MILLI if resource == n.CPU else _NANO
    return min(INT64, -(-amount.nanos // scale))


_BINARY = (("Ti", 1 << 40), ("Gi", 1 << 30), ("Mi", 1 << 20), ("Ki", 1 << 10))


def amount_text(resource: str, amount: int) -> str:
    """An amount in the estimator's units as a quantity reads: cpu in cores or millicores,
    memory and storage with the largest binary suffix that divides it, the rest as numbers."""
    if resource == n.CPU:
        return str(amount // 1000) if amount % 1000 == 0 else f"{amount}m"
    if resource in ("memory", "ephemeral-storage") or resource.startswith("hugepages-"):
        for suffix, scale in _BINARY:
            if amount and amount % scale == 0:
                return f"{amount // scale}{suffix}"
    return str(amount)


def quantity(f: Fields, value: Any, path: str) -> Quantity:
    """A resource.Quantity field (int-or-string with the quantity pattern)."""
    if type(value) is bool or not isinstance(value, (int, str)):
        raise f.fail("expected a quantity (a string or an integer)", path)
    try:
        return _parsed(str(value))
    except QuantityError as err:
        raise f.fail(str(err), path) from None


@lru_cache(maxsize=1 << 14)
def _parsed(text: str) -> Quantity:
    """parse_quantity, once per distinct text: a hub's clusters and bindings repeat a few
    thousand quantity strings hundreds of thousands of times (a Quantity is immutable; a text
    that fails is not kept)."""
    return parse_quantity(text)


def resource_list(f: Fields, raw: Any, path: str) -> dict[str, Quantity]:
    return {str(k): quantity(f, v, f"{path}.{k}") for k, v in f.mapping(raw, path).items() if v is not None}


def read_cluster(m: Manifest) -> KarmadaCluster:
    f = Fields(m)
    metadata = m.obj["metadata"]
    if len(m.name) > n.CLUSTER_NAME_MAX:
        raise f.fail(f"must be no more than {n.CLUSTER_NAME_MAX} characters", "metadata.name")
    if errors := dns_label_errors(m.name):
        raise f.fail(f"invalid name {m.name!r}: {'; '.join(errors)}", "metadata.name")
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    leaving = parse_time(f, metadata.get("deletionTimestamp"), "metadata.deletionTimestamp").year > 1
    spec = f.mapping(m.obj.get("spec"), "spec")
    mode = f.string(spec.get("syncMode"), "spec.syncMode")
    if mode not in n.SYNC_MODES:
        raise f.fail(f'Unsupported value: "{mode}": supported values: "Pull", "Push"', "spec.syncMode")
    provider = _label_value(f, spec.get("provider"), "spec.provider")
    region = _label_value(f, spec.get("region"), "spec.region")
    zone = _label_value(f, spec.get("zone"), "spec.zone")
    # the aggregated API server decodes the Cluster into Go types: a null item is the zero value
    zones = tuple(
        f.string(z, f"spec.zones[{i}]") for i, z in enumerate(f.sequence(spec.get("zones"), "spec.zones"))
    )
    if zone and zones:
        raise f.fail("Zone and Zones cannot co-exist", "spec.zones")
    for i, z in enumerate(zones):
        _label_value(f, z, f"spec.zones[{i}]")
    taints = _taints(f, spec.get("taints"))
    grades = _resource_models(f, spec.get("resourceModels"))
    status = f.mapping(m.obj.get("status"), "status")
    _conditions(f, status.get("conditions"))
    apis = _apis(f, status.get("apiEnablements"))
    capacity = _capacity(f, status.get("resourceSummary"), grades)
    facts = ClusterFacts(m.name, labels, provider, region, zones)
    return KarmadaCluster(facts, taints, leaving, apis, capacity)


def _decoded(f: Fields, raw: Any, path: str) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each item of a status list of objects as encoding/json decodes it: a null item is the
    zero value (an empty object)."""
    for i, item in enumerate(f.sequence(raw, path)):
        yield f"{path}[{i}]", f.mapping(item, f"{path}[{i}]")


def _conditions(f: Fields, raw: Any) -> None:
    """status.conditions decoded into metav1.Condition: strings, a time, an int64."""
    for path, item in _decoded(f, raw, "status.conditions"):
        for key in ("type", "status", "reason", "message"):
            f.string(item.get(key), f"{path}.{key}")
        if item.get("lastTransitionTime") is not None:
            parse_time(f, item["lastTransitionTime"], f"{path}.lastTransitionTime")
        if item.get("observedGeneration") is not None:
            f.integer(item["observedGeneration"], f"{path}.observedGeneration")


def _label_value(f: Fields, value: Any, path: str) -> str:
    text = f.string(value, path)
    if errors := label_value_errors(text):
        raise f.fail(f"invalid value {text!r}: {'; '.join(errors)}", path)
    return text


def _taints(f: Fields, raw: Any) -> tuple[Taint, ...]:
    """spec.taints as ValidateClusterTaints checks them: a qualified key, a label value, a known
    effect, no key and effect twice."""
    out: list[Taint] = []
    seen: set[tuple[str, str]] = set()
    for path, item in _decoded(f, raw, "spec.taints"):
        key = f.string(item.get("key"), f"{path}.key")
        if errors := qualified_name_errors(key):
            raise f.fail(f"invalid taint key {key!r}: {'; '.join(errors)}", f"{path}.key")
        value = f.string(item.get("value"), f"{path}.value")
        if errors := label_value_errors(value):
            raise f.fail(f"invalid taint value {value!r}: {'; '.join(errors)}", f"{path}.value")
        effect = f.string(item.get("effect"), f"{path}.effect")
        if effect not in n.TAINT_EFFECTS:
            quoted = ", ".join(f'"{e}"' for e in n.TAINT_EFFECTS)
            raise f.fail(f'Unsupported value: "{effect}": supported values: {quoted}', f"{path}.effect")
        if (key, effect) in seen:
            raise f.fail(f"taints must be unique by key and effect pair: {key}:{effect}", path)
        seen.add((key, effect))
        if item.get("timeAdded") is not None:
            parse_time(f, item["timeAdded"], f"{path}.timeAdded")
        out.append(Taint(key, value, effect, new_only=True))
    return tuple(out)


def _resource_models(f: Fields, raw: Any) -> dict[int, dict[str, Quantity]]:
    """spec.resourceModels as ValidateClusterResourceModels checks them; each grade's `min`
    vector by grade. A null model, range or quantity is Go's zero value (grade 0, no ranges; a
    range named "" from 0 to 0)."""
    models = []
    for path, item in _decoded(f, raw, "spec.resourceModels"):
        grade = _grade(f, item.get("grade"), f"{path}.grade")
        ranges = []
        for where, r in _decoded(f, item.get("ranges"), f"{path}.ranges"):
            name = f.string(r.get("name"), f"{where}.name")
            low = _zero_or_quantity(f, r.get("min"), f"{where}.min")
            high = _zero_or_quantity(f, r.get("max"), f"{where}.max")
            ranges.append((name, low, high))
        models.append((grade, ranges))
    for i in range(len(models)):
        if problem := _model_problem(models, i):
            raise f.fail(problem, "spec.resourceModels")
    return {grade: {name: low for name, low, _ in ranges} for grade, ranges in models}


def _zero_or_quantity(f: Fields, value: Any, path: str) -> Quantity:
    return Quantity(0) if value is None else quantity(f, value, path)


def _grade(f: Fields, value: Any, path: str) -> int:
    """A grade: a Go uint the aggregated API server decodes as is (no schema: absent or null, 0)."""
    return 0 if value is None else f.integer(value, path, minimum=0, maximum=UINT64)


def _model_problem(models: list[tuple[int, list[tuple[str, Quantity, Quantity]]]], i: int) -> str:
    grade, ranges = models[i]
    previous = models[i - 1][1] if i else []
    if i and grade == models[i - 1][0]:
        return "The grade of each models should not be the same"
    if i and len(previous) != len(ranges):
        return "The number of resource types should be the same"
    for j, (name, low, high) in enumerate(ranges):
        if high <= low:
            return "The max value of each resource must be greater than the min value"
        if i == 0 and low.nanos != 0:
            return "The min value of each resource in the first model should be 0"
        if i and previous[j][0] != name:
            return "The resource types of each models should be the same"
        if i and previous[j][2] != low:
            return "Model intervals for resources must be contiguous and non-overlapping"
        if i == len(models) - 1 and -(-high.nanos // _NANO) != INT64:
            return "The max value of each resource in the last model should be MaxInt64"
    return ""


def _apis(f: Fields, raw: Any) -> frozenset[str]:
    """One trait per group/version and kind the cluster serves (status.apiEnablements)."""
    out = set()
    for path, item in _decoded(f, raw, "status.apiEnablements"):
        group_version = f.string(item.get("groupVersion"), f"{path}.groupVersion")
        for where, resource in _decoded(f, item.get("resources"), f"{path}.resources"):
            out.add(n.API_TRAIT.format(group_version, f.string(resource.get("kind"), f"{where}.kind")))
    return frozenset(out)


def _capacity(f: Fields, raw: Any, grades: Mapping[int, Mapping[str, Quantity]]) -> Capacity | None:
    """Free room as the general estimator computes it: allocatable - allocated - allocating per
    resource, in its units (none below 0); nodes of each grade both the models and
    allocatableModelings name, in grade order, each with the grade's `min` and 110 pods
    (getMaximumReplicasBasedOnResourceModels, which then stands in for the summary's resources,
    pods aside)."""
    if raw is None:
        return None
    summary = f.mapping(raw, "status.resourceSummary")
    lists = {
        key: resource_list(f, summary.get(key), f"status.resourceSummary.{key}")
        for key in ("allocatable", "allocated", "allocating")
    }
    free = {}
    for resource, amount in lists["allocatable"].items():
        left = amount.nanos - sum(
            lists[k][resource].nanos for k in ("allocated", "allocating") if resource in lists[k]
        )
        free[resource] = max(0, units(resource, Quantity(left)))
    counts: dict[int, int] = {}
    for path, item in _decoded(
        f, summary.get("allocatableModelings"), "status.resourceSummary.allocatableModelings"
    ):
        grade = _grade(f, item.get("grade"), f"{path}.grade")
        # a Go int the aggregated API server decodes as is: absent or null, 0
        count = 0 if item.get("count") is None else f.integer(item["count"], f"{path}.count")
        counts[grade] = counts.get(grade, 0) + count
    nodes = _nodes(grades, counts)
    # The model estimate stands in for the summary's resources; the pods left still bound it.
    return Capacity(free, nodes, frozenset({n.PODS}) if nodes else None)


def _nodes(grades: Mapping[int, Mapping[str, Quantity]], counts: Mapping[int, int]) -> tuple[NodeClass, ...]:
    """The model nodes, where upstream estimates by them (allocatableModelings reported, models
    defined, no negative count): then they replace the per-resource summary, and a cluster whose
    graded nodes all count 0 holds no replica (one class of 0 nodes says so)."""
    if not counts or not grades or any(count < 0 for count in counts.values()):
        return ()
    nodes = tuple(
        NodeClass(counts[g], {**{r: units(r, q) for r, q in grades[g].items()}, n.PODS: n.MODEL_NODE_PODS})
        for g in sorted(grades)
        if counts.get(g, 0) > 0
    )
    return nodes or (NodeClass(0),)
