"""ManagedCluster -> what the scheduler reads of it: labels, claims, allocatable resources, taints.

Taints are spec.taints as given, with PreferNoSelect left out (upstream always tolerates it and
gives it no score). Nothing is derived from the conditions: the hub's registration controller
writes the unavailable/unreachable taints into spec.taints, and upstream's placement scheduler
sees only what stands there (ocm pkg/placement/plugins/tainttoleration reads cluster.Spec.Taints;
a cluster with no conditions and no taints is selectable, as in upstream's scheduling tests).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from adapters.kube.fields import INT32, ZERO_TIME, Fields, parse_time, whole
from adapters.kube.manifests import Manifest
from adapters.ocm import names as n
from adapters.ocm.checks import conditions, enum
from model import Cluster, Quantity, QuantityError, Taint, parse_quantity

__all__ = ["ManagedCluster", "read_cluster", "TAINT_KEY"]

# The CRD pattern of a taint (and toleration) key.
TAINT_KEY = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])"
)
_MAX_KEY = 316


@dataclass(frozen=True, slots=True)
class ManagedCluster:
    """One ManagedCluster as read; `obj` is the object itself (CEL expressions read it whole)."""

    name: str
    obj: Mapping[str, Any]
    labels: dict[str, str] = field(default_factory=dict)
    claims: dict[str, str] = field(default_factory=dict)
    properties: dict[str, Quantity] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    terminating: bool = False

    def to_model(self, traits: frozenset[str], scores: Mapping[str, int], load: int) -> Cluster:
        return Cluster(
            name=self.name,
            labels=self.labels,
            properties=self.properties,
            taints=self.taints,
            claims=self.claims,
            traits=traits,
            scores=scores,
            load=load,
        )


def read_cluster(manifest: Manifest) -> ManagedCluster:
    f = Fields(manifest)
    obj = manifest.obj
    metadata = obj["metadata"]
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    spec = f.mapping(obj.get("spec"), "spec")
    status = f.mapping(obj.get("status"), "status")
    claims = _plain_claims(status.get("clusterClaims"))
    if claims is None:
        claims = {}
        for path, raw in f.objects(status.get("clusterClaims"), "status.clusterClaims"):
            name = _claim_part(f, raw, "name", path, _MAX_CLAIM_NAME)
            claims[name] = _claim_part(f, raw, "value", path, _MAX_CLAIM_VALUE)
    _check_unread(f, spec, status)
    return ManagedCluster(
        name=manifest.name,
        obj=obj,
        labels=labels,
        claims=claims,
        properties=_properties(f, status),
        taints=_taints(f, spec),
        terminating=metadata.get("deletionTimestamp") is not None,
    )


_MAX_CLAIM_NAME, _MAX_CLAIM_VALUE = 253, 1024


def _plain_claims(items: Any) -> dict[str, str] | None:
    """The claims by name where every item is an object whose name and value are strings within
    the CRD's bounds (as a hub's are), read without a path per item; None otherwise (the checks
    then spell out the first problem)."""
    if type(items) is not list:
        return None if items is not None else {}
    claims = {}
    for raw in items:
        if type(raw) is not dict:
            return None
        name, value = raw.get("name"), raw.get("value")
        if (
            type(name) is not str
            or type(value) is not str
            or not 1 <= len(name) <= _MAX_CLAIM_NAME
            or not 1 <= len(value) <= _MAX_CLAIM_VALUE
        ):
            return None
        claims[name] = value
    return claims


def _claim_part(f: Fields, raw: Mapping[str, Any], key: str, path: str, longest: int) -> str:
    """A claim's name or value: when given, 1 to `longest` characters (the CRD's bounds)."""
    if raw.get(key) is None:
        return ""
    text = f.string(raw[key], f"{path}.{key}")
    if not 1 <= len(text) <= longest:
        raise f.fail(f"must be 1 to {longest} characters, got {len(text)}", f"{path}.{key}")
    return text


def _check_unread(f: Fields, spec: Mapping[str, Any], status: Mapping[str, Any]) -> None:
    """What the CRD refuses in fields the scheduler does not read."""
    accepts = spec.get("hubAcceptsClient")
    if accepts is not None and not isinstance(accepts, bool):
        raise f.fail(f"expected a boolean, got {accepts!r}", "spec.hubAcceptsClient")
    if spec.get("leaseDurationSeconds") is not None:
        f.integer(spec["leaseDurationSeconds"], "spec.leaseDurationSeconds", maximum=INT32)
    conditions(f, status)
    for path, raw in f.objects(status.get("managedNamespaces"), "status.managedNamespaces"):
        conditions(f, raw, f"{path}.conditions")


_parse_cached = lru_cache(maxsize=65536)(parse_quantity)


def _quantity(f: Fields, value: Any, path: str) -> Quantity:
    """An int-or-string quantity (a ResourceList's): a float only where it is a whole number."""
    value = whole(value)
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise f.fail("expected a quantity", path)
    try:
        return _parse_cached(str(value))
    except QuantityError as err:
        raise f.fail(str(err), path) from None


def _properties(f: Fields, status: Mapping[str, Any]) -> dict[str, Quantity]:
    """Allocatable cpu and memory, for a resource that also has a capacity (upstream's Resource
    prioritizer skips a cluster missing either)."""
    plain = _plain_properties(status.get("allocatable"), status.get("capacity"))
    if plain is not None:
        return plain
    # A null amount is no amount: the API server prunes a null in a map.
    allocatable = _present(f.mapping(status.get("allocatable"), "status.allocatable"))
    capacity = _present(f.mapping(status.get("capacity"), "status.capacity"))
    for resource, value in capacity.items():
        _quantity(f, value, f"status.capacity.{resource}")
    out = {}
    for resource in sorted(allocatable):
        quantity = _quantity(f, allocatable[resource], f"status.allocatable.{resource}")
        if resource in n.RESOURCES.values() and resource in capacity:
            out[resource] = quantity
    return out


_READ = frozenset(n.RESOURCES.values())


def _plain_properties(allocatable: Any, capacity: Any) -> dict[str, Quantity] | None:
    """_properties where both lists are objects whose amounts are all quantity strings (as a
    hub's are), read without a path per amount; None otherwise (the checks then spell out the
    first problem)."""
    if type(allocatable) is not dict or type(capacity) is not dict:
        return None
    try:
        for value in capacity.values():
            if type(value) is not str:
                return None
            _parse_cached(value)
        out = {}
        for resource in sorted(allocatable):
            value = allocatable[resource]
            if type(value) is not str:
                return None
            quantity = _parse_cached(value)
            if resource in _READ and resource in capacity:
                out[resource] = quantity
    except QuantityError:
        return None
    return out


def _present(amounts: Mapping[str, Any]) -> Mapping[str, Any]:
    if all(value is not None for value in amounts.values()):
        return amounts
    return {resource: value for resource, value in amounts.items() if value is not None}


def _taints(f: Fields, spec: Mapping[str, Any]) -> tuple[Taint, ...]:
    taints = []
    for path, raw in f.objects(spec.get("taints"), "spec.taints"):
        key = f.string(raw.get("key"), f"{path}.key")
        if not key:
            raise f.fail("a taint needs a key", f"{path}.key")
        if len(key) > _MAX_KEY or not TAINT_KEY.fullmatch(key):
            raise f.fail(f"invalid taint key {key!r}", f"{path}.key")
        if raw.get("effect") is None:
            raise f.fail("a taint needs an effect", f"{path}.effect")
        effect = enum(f, raw, "effect", f"{path}.effect", n.TAINT_EFFECTS, "")
        value = f.string(raw.get("value"), f"{path}.value")
        added = parse_time(f, raw.get("timeAdded"), f"{path}.timeAdded")
        if effect == n.PREFER_NO_SELECT:
            continue  # always tolerated, no score
        taints.append(
            Taint(
                key,
                value,
                effect,
                added=None if added == ZERO_TIME else added,
                new_only=effect == n.NO_SELECT_IF_NEW,
            )
        )
    return tuple(taints)
