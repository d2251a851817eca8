"""MemberCluster -> model.Cluster: labels, properties, taints, and eligibility at a given time."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from adapters.errors import InputError
from adapters.fleet import names as n
from adapters.fleet import schema
from adapters.fleet.schema import TAINT_EFFECTS, enum
from adapters.kube.fields import Fields, parse_time, whole
from adapters.kube.manifests import Manifest
from adapters.kube.validation import label_value_errors, qualified_name_errors
from model import Cluster, Quantity, QuantityError, Taint, parse_quantity

__all__ = ["load_cluster", "eligibility"]


def load_cluster(manifest: Manifest, now: datetime) -> Cluster:
    f = Fields(manifest)
    obj = manifest.obj
    if len(manifest.name) > n.MAX_NAME_LENGTH:  # the CRD's rule (size(self.metadata.name) < 64)
        raise f.fail(f"longer than {n.MAX_NAME_LENGTH} characters", "metadata.name")
    labels = f.metadata(obj["metadata"])
    spec = _mapping(f, obj.get("spec"), "spec")
    status = _mapping(f, obj.get("status"), "status")
    taints = _taints(f, spec.get("taints"))
    schema.check(f, obj, n.MEMBER_CLUSTER)
    leaving = obj.get("metadata", {}).get("deletionTimestamp") is not None
    eligible, reason = eligibility(f, status, now, leaving)
    return Cluster(
        name=manifest.name,
        labels=labels,
        properties=_properties(f, status),
        taints=taints,
        eligible=eligible,
        ineligible_reason=reason,
        leaving=leaving,
    )


_MAX_TAINTS = 100


def _taints(f: Fields, raw: Any) -> tuple[Taint, ...]:
    """spec.taints, refused as the CRD (a key and an effect, NoSchedule only, at most 100) and the
    webhook (validateTaints: a qualified key, a label value, no taint twice) refuse them."""
    items = f.sequence(raw, "spec.taints")
    if len(items) > _MAX_TAINTS:
        raise f.fail(f"at most {_MAX_TAINTS} taints", "spec.taints")
    taints: list[Taint] = []
    for path, item in f.objects(items, "spec.taints"):
        effect = enum(f, item.get("effect"), f"{path}.effect", TAINT_EFFECTS)
        if effect is None:
            raise f.fail("effect is required", f"{path}.effect")
        key = f.string(item.get("key"), f"{path}.key")
        if errors := qualified_name_errors(key):
            raise f.fail(f"invalid taint key {key!r}: {'; '.join(errors)}", f"{path}.key")
        value = f.string(item.get("value"), f"{path}.value")
        if value and (errors := label_value_errors(value)):
            raise f.fail(f"invalid taint value {value!r}: {'; '.join(errors)}", f"{path}.value")
        taint = Taint(key, value, effect)
        if taint in taints:
            raise f.fail("taints must be unique", path)
        taints.append(taint)
    return tuple(taints)


def _quantity(f: Fields, value: Any, path: str, *, integers: bool) -> Quantity:
    """A quantity written as a string, or as an integer where the field is an int-or-string
    (a ResourceList's); the CRD refuses any other type."""
    if value is None:
        raise InputError("a value is required", where=f.where, field=path)
    if integers:
        value = whole(value)
    if not (type(value) is str or (integers and type(value) is int)):
        kind = "a string or an integer" if integers else "a string"
        raise InputError(f"expected a quantity as {kind}", where=f.where, field=path)
    try:
        return _parsed(str(value))
    except QuantityError as err:
        raise InputError(str(err), where=f.where, field=path) from None


def _plain_quantity(value: Any) -> Quantity | None:
    """The quantity a well-formed string gives, or None: then _quantity judges it (and names
    the field)."""
    if type(value) is not str:
        return None
    try:
        return _parsed(value)
    except QuantityError:
        return None


def _parsed(text: str) -> Quantity:
    """parse_quantity(text), each text parsed once (QuantityError when it is malformed)."""
    quantity = _SEEN.get(text)
    if quantity is None:
        quantity = parse_quantity(text)
        if len(_SEEN) < _SEEN_LIMIT:
            _SEEN[text] = quantity
    return quantity


# A fleet repeats the same few capacities ("16", "64Gi") thousands of times: the quantities of the
# texts seen, a dict lookup away (_properties looks here first, without a call).
_SEEN: dict[str, Quantity] = {}
_SEEN_LIMIT = 1 << 16


def _mapping(f: Fields, value: Any, path: str) -> Mapping[str, Any]:
    """f.mapping, without its checks for the plain dict every parser gives."""
    return value if type(value) is dict else f.mapping(value, path)


def _properties(f: Fields, status: Mapping[str, Any]) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    seen = _SEEN
    properties = status.get("properties")
    if properties is not None:
        properties = _mapping(f, properties, "status.properties")
        for name in sorted(properties):
            entry = properties[name]
            if entry is None:  # the API server prunes a null in a map: no such property
                continue
            if type(entry) is not dict:
                entry = f.mapping(entry, f"status.properties[{name}]")
            value = entry.get("value")
            quantity = seen.get(value) if type(value) is str else None
            if quantity is None:
                quantity = _plain_quantity(value)
            if quantity is None:
                quantity = _quantity(f, value, f"status.properties[{name}].value", integers=False)
            out[name] = quantity
    usage = status.get("resourceUsage")
    if usage is None:
        return out
    usage = _mapping(f, usage, "status.resourceUsage")
    for field, prefix in _CAPACITY_PREFIXES:
        amounts = usage.get(field)
        if amounts is None:
            continue
        if type(amounts) is not dict:
            amounts = f.mapping(amounts, f"status.resourceUsage.{field}")
        for resource in sorted(amounts):
            value = amounts[resource]
            if value is None:  # the API server prunes a null in a map: no such resource
                continue
            quantity = seen.get(value) if type(value) is str else None
            if quantity is None:
                quantity = _plain_quantity(value)
            if quantity is None:
                quantity = _quantity(f, value, f"status.resourceUsage.{field}.{resource}", integers=True)
            out[prefix + resource] = quantity
    return out


# (resourceUsage field, the property-name prefix of its amounts), in upstream's order.
_CAPACITY_PREFIXES = tuple(
    (field, f"{n.RESOURCE_PROPERTY_PREFIX}{capacity_type}-")
    for capacity_type, field in n.RESOURCE_CAPACITY_TYPES.items()
)


# Go's time.Since saturates at the longest time.Duration (2^63-1 ns), e.g. for a missing (zero) time.
_MAX_GO_DURATION_SECONDS = (2**63 - 1) / 1e9


def _minutes_since(now: datetime, then: datetime) -> float:
    seconds = (now - then).total_seconds()
    return max(-_MAX_GO_DURATION_SECONDS, min(seconds, _MAX_GO_DURATION_SECONDS)) / 60.0


def eligibility(f: Fields, status: Mapping[str, Any], now: datetime, leaving: bool) -> tuple[bool, str]:
    """Whether new placements may land on the cluster, and the upstream reason when not (its
    conditions' statuses checked already: schema.RULES)."""
    if leaving:
        return False, n.LEFT_FLEET
    # Items' paths spelt only for a message (f.item): every cluster has agents and conditions.
    agent = path = None
    for i, raw in enumerate(f.sequence(status.get("agentStatus"), "status.agentStatus")):
        if type(raw) is not dict:
            raw = f.item(raw, f"status.agentStatus[{i}]")
        if raw.get("type") == n.MEMBER_AGENT:
            agent, path = raw, f"status.agentStatus[{i}]"
            break
    if agent is None:
        return False, n.AGENT_MISSING
    # A missing time is Go's zero time: long ago.
    heartbeat = parse_time(f, agent.get("lastReceivedHeartbeat"), f"{path}.lastReceivedHeartbeat")
    since = _minutes_since(now, heartbeat)
    if since > n.HEARTBEAT_TIMEOUT_MINUTES:
        return False, n.NO_HEARTBEAT.format(since)
    conditions = {}
    for i, raw in enumerate(f.sequence(agent.get("conditions"), f"{path}.conditions")):
        if type(raw) is not dict:
            raw = f.item(raw, f"{path}.conditions[{i}]")
        kind = raw.get("type")
        if type(kind) is not str:  # a list or a map would not even key the dict
            kind = f.string(kind, f"{path}.conditions[{i}].type")
        conditions.setdefault(kind, (i, raw))
    joined = conditions.get("Joined")
    if joined is None or joined[1].get("status") != "True":
        return False, n.NOT_JOINED
    healthy = conditions.get("Healthy")
    if healthy is None:
        return False, n.NO_HEALTH
    i, condition = healthy
    if condition.get("status") != "True":  # its status and time checked (schema.py: Conditions)
        changed = parse_time(
            f, condition.get("lastTransitionTime"), f"{path}.conditions[{i}].lastTransitionTime"
        )
        since = _minutes_since(now, changed)
        if since > n.HEALTH_TIMEOUT_MINUTES:
            return False, n.UNHEALTHY.format(since)
    return True, ""
