"""A ClusterResourcePlacement's policy -> the request it makes, validated as upstream's admission
webhook and CRD schema would: what they reject is an InputError naming the field."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from enum import Enum
from typing import Any

from adapters.fields import INT32, Fields
from adapters.selectors import SelectorError, label_selector
from model import (
    ClusterTerm,
    LabelSelector,
    Preference,
    PropertyOperator,
    PropertyRequirement,
    PropertySorter,
    QuantityError,
    SelectionMode,
    SpreadConstraint,
    Toleration,
    TolerationOperator,
    parse_quantity,
)

__all__ = ["Policy", "parse_policy", "normalized_policy", "policy_hash"]

_TYPES = {"PickAll": SelectionMode.ALL, "PickN": SelectionMode.N, "PickFixed": SelectionMode.FIXED}
_MAX_REQUIRED_TERMS = 10
_MAX_FIXED_NAMES = 100
_MAX_TOLERATIONS = 100


class Policy:
    """The parts of a placement policy the scheduler uses."""

    def __init__(self) -> None:
        self.mode = SelectionMode.ALL
        self.count = 0
        self.cluster_names: tuple[str, ...] = ()
        self.required: tuple[ClusterTerm, ...] = ()
        self.preferences: tuple[Preference, ...] = ()
        self.spread: tuple[SpreadConstraint, ...] = ()
        self.tolerations: tuple[Toleration, ...] = ()


def parse_policy(f: Fields, raw: Any) -> Policy:
    policy = Policy()
    if raw is None:
        return policy  # no policy: every cluster, no affinity
    base = "spec.policy"
    raw = f.mapping(raw, base)
    kind = f.string(raw.get("placementType", "PickAll"), f"{base}.placementType") or "PickAll"
    if kind not in _TYPES:
        raise f.fail(
            f"unknown placement type {kind!r}; expected PickAll, PickN or PickFixed", f"{base}.placementType"
        )
    policy.mode = _TYPES[kind]
    affinity = f.mapping(raw.get("affinity"), f"{base}.affinity")
    cluster_affinity = f.mapping(affinity.get("clusterAffinity"), f"{base}.affinity.clusterAffinity")
    has_affinity = bool(cluster_affinity)
    count = raw.get("numberOfClusters")
    names = raw.get("clusterNames")
    spread = raw.get("topologySpreadConstraints")
    tolerations = raw.get("tolerations")

    if policy.mode is SelectionMode.FIXED:
        for field, value in (
            ("affinity", has_affinity),
            ("numberOfClusters", count is not None),
            ("topologySpreadConstraints", bool(spread)),
            ("tolerations", bool(tolerations)),
        ):
            if value:
                raise f.fail(f"{field} is not allowed for placement type PickFixed", f"{base}.{field}")
        policy.cluster_names = tuple(f.string_list(names, f"{base}.clusterNames"))
        if len(policy.cluster_names) > _MAX_FIXED_NAMES:
            raise f.fail(f"at most {_MAX_FIXED_NAMES} cluster names", f"{base}.clusterNames")
        if len(set(policy.cluster_names)) != len(policy.cluster_names):
            raise f.fail("cluster names must be unique", f"{base}.clusterNames")
        if any(not name for name in policy.cluster_names):
            raise f.fail("a cluster name must not be empty", f"{base}.clusterNames")
        return policy

    if names:
        raise f.fail(
            f"clusterNames is only allowed for placement type PickFixed, not {kind}", f"{base}.clusterNames"
        )
    if policy.mode is SelectionMode.N:
        if count is None:
            raise f.fail("numberOfClusters is required for placement type PickN", f"{base}.numberOfClusters")
        policy.count = f.integer(count, f"{base}.numberOfClusters", maximum=INT32)
        if policy.count < 0:
            raise f.fail("numberOfClusters must not be negative", f"{base}.numberOfClusters")
    elif count is not None:
        raise f.fail("numberOfClusters is only allowed for placement type PickN", f"{base}.numberOfClusters")

    path = f"{base}.affinity.clusterAffinity"
    required = f.mapping(
        cluster_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"),
        f"{path}.requiredDuringSchedulingIgnoredDuringExecution",
    )
    if required:
        terms_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms"
        terms = f.sequence(required.get("clusterSelectorTerms"), terms_path)
        if len(terms) > _MAX_REQUIRED_TERMS:
            raise f.fail(f"at most {_MAX_REQUIRED_TERMS} terms", terms_path)
        policy.required = tuple(_required_term(f, t, f"{terms_path}[{i}]") for i, t in enumerate(terms))
    preferred_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = f.sequence(
        cluster_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), preferred_path
    )
    if preferred and policy.mode is SelectionMode.ALL:
        raise f.fail(
            "PreferredDuringSchedulingIgnoredDuringExecution will be ignored for placement policy type PickAll",  # noqa: E501
            preferred_path,
        )
    policy.preferences = tuple(_preference(f, p, f"{preferred_path}[{i}]") for i, p in enumerate(preferred))

    spread_path = f"{base}.topologySpreadConstraints"
    spread_items = f.sequence(spread, spread_path)
    if spread_items and policy.mode is not SelectionMode.N:
        raise f.fail(
            f"topology spread constraints are only allowed for placement type PickN, not {kind}", spread_path
        )
    policy.spread = tuple(_spread(f, s, f"{spread_path}[{i}]") for i, s in enumerate(spread_items))

    tolerations_path = f"{base}.tolerations"
    items = f.sequence(tolerations, tolerations_path)
    if len(items) > _MAX_TOLERATIONS:
        raise f.fail(f"at most {_MAX_TOLERATIONS} tolerations", tolerations_path)
    policy.tolerations = tuple(_toleration(f, t, f"{tolerations_path}[{i}]") for i, t in enumerate(items))
    return policy


def _name(f: Fields, item: Any, field: str, where: str) -> str:
    value = f.string(item.get(field), f"{where}.{field}")
    if not value:
        raise f.fail(f"a {field} is required", f"{where}.{field}")
    return value


def _operator(f: Fields, kind: type[Enum], item: Any, where: str) -> Any:
    """The expression's operator as a member of `kind`, or an error listing the valid ones."""
    name = f.string(item.get("operator"), f"{where}.operator")
    try:
        return kind(name)
    except ValueError:
        valid = [member.value for member in kind]
        expected = ", ".join(valid[:-1]) + " or " + valid[-1]
        raise f.fail(f"unknown operator {name!r}; expected {expected}", f"{where}.operator") from None


def _label_selector(f: Fields, raw: Any, path: str) -> LabelSelector | None:
    """The selector at `path` (None: absent). One Kubernetes cannot build (an invalid key or
    value, a bad operator or value list) is refused, as Fleet's webhook refuses the placement
    (pkg/utils/validator/placement.go, validateLabelSelector)."""
    if raw is None:
        return None
    try:
        return label_selector(f, raw, path) or LabelSelector()
    except SelectorError as err:
        raise f.fail(f"the labelSelector is invalid: {err}", err.field) from None


def _required_term(f: Fields, raw: Any, path: str) -> ClusterTerm:
    raw = f.mapping(raw, path)
    if raw.get("propertySorter") is not None:
        raise f.fail(
            "PropertySorter is not allowed for RequiredDuringSchedulingIgnoredDuringExecution affinity",
            f"{path}.propertySorter",
        )
    selector = _label_selector(f, raw.get("labelSelector"), f"{path}.labelSelector")
    requirements = []
    prop_path = f"{path}.propertySelector"
    prop = f.mapping(raw.get("propertySelector"), prop_path)
    for i, item in enumerate(f.sequence(prop.get("matchExpressions"), f"{prop_path}.matchExpressions")):
        where = f"{prop_path}.matchExpressions[{i}]"
        item = f.mapping(item, where)
        name = _name(f, item, "name", where)
        operator = _operator(f, PropertyOperator, item, where)
        values = f.sequence(item.get("values"), f"{where}.values")
        if len(values) != 1:
            raise f.fail(f"exactly one value is required, got {len(values)}", f"{where}.values")
        value = values[0]
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            raise f.fail("expected a quantity", f"{where}.values[0]")
        try:
            quantity = parse_quantity(str(value))
        except QuantityError as err:
            raise f.fail(str(err), f"{where}.values[0]") from None
        requirements.append(PropertyRequirement(name, operator, quantity))
    return ClusterTerm(selector, tuple(requirements))


def _preference(f: Fields, raw: Any, path: str) -> Preference:
    raw = f.mapping(raw, path)
    weight = f.integer(raw.get("weight"), f"{path}.weight", maximum=INT32)
    if not -100 <= weight <= 100:
        raise f.fail(f"weight {weight} is outside [-100, 100]", f"{path}.weight")
    term_path = f"{path}.preference"
    term = f.mapping(raw.get("preference"), term_path)
    if term.get("propertySelector") is not None:
        raise f.fail(
            "PropertySelector is not allowed for PreferredDuringSchedulingIgnoredDuringExecution affinity",
            f"{term_path}.propertySelector",
        )
    selector = _label_selector(f, term.get("labelSelector"), f"{term_path}.labelSelector")
    sorter = None
    if term.get("propertySorter") is not None:
        sorter_path = f"{term_path}.propertySorter"
        raw_sorter = f.mapping(term.get("propertySorter"), sorter_path)
        name = f.string(raw_sorter.get("name"), f"{sorter_path}.name")
        if not name:
            raise f.fail("a property name is required", f"{sorter_path}.name")
        order = f.string(raw_sorter.get("sortOrder"), f"{sorter_path}.sortOrder")
        if order not in ("Ascending", "Descending"):
            raise f.fail(
                f"unknown sort order {order!r}; expected Ascending or Descending", f"{sorter_path}.sortOrder"
            )
        sorter = PropertySorter(name, ascending=order == "Ascending")
    return Preference(weight, selector, sorter)


def _spread(f: Fields, raw: Any, path: str) -> SpreadConstraint:
    raw = f.mapping(raw, path)
    skew = f.integer(raw.get("maxSkew", 1), f"{path}.maxSkew", maximum=INT32)
    if skew < 1:
        raise f.fail(f"maxSkew must be at least 1, got {skew}", f"{path}.maxSkew")
    key = f.string(raw.get("topologyKey"), f"{path}.topologyKey")
    if not key:
        raise f.fail("topologyKey is required", f"{path}.topologyKey")
    when = (
        f.string(raw.get("whenUnsatisfiable", "DoNotSchedule"), f"{path}.whenUnsatisfiable")
        or "DoNotSchedule"
    )
    if when not in ("DoNotSchedule", "ScheduleAnyway"):
        raise f.fail(
            f"unknown value {when!r}; expected DoNotSchedule or ScheduleAnyway", f"{path}.whenUnsatisfiable"
        )
    return SpreadConstraint(key, skew, hard=when == "DoNotSchedule")


def _toleration(f: Fields, raw: Any, path: str) -> Toleration:
    raw = f.mapping(raw, path)
    key = f.string(raw.get("key"), f"{path}.key")
    operator_name = f.string(raw.get("operator", "Equal"), f"{path}.operator") or "Equal"
    try:
        operator = TolerationOperator(operator_name)
    except ValueError:
        raise f.fail(
            f"unknown operator {operator_name!r}; expected Equal or Exists", f"{path}.operator"
        ) from None
    value = f.string(raw.get("value"), f"{path}.value")
    effect = f.string(raw.get("effect"), f"{path}.effect")
    if effect not in ("", "NoSchedule"):
        raise f.fail(f"unsupported effect {effect!r}; expected NoSchedule", f"{path}.effect")
    if operator is TolerationOperator.EXISTS and value:
        raise f.fail("value must be empty when operator is Exists", f"{path}.value")
    if not key and operator is not TolerationOperator.EXISTS:
        raise f.fail("operator must be Exists when key is empty", f"{path}.operator")
    return Toleration(key, operator, value, effect)


# -- snapshot identity -------------------------------------------------------------------------


def normalized_policy(raw: Any) -> Any:
    """The policy with CRD defaults filled in and numberOfClusters left out: two policies are the
    same snapshot exactly when these are equal."""
    if raw is None:
        return None
    policy = {k: v for k, v in dict(raw).items() if k != "numberOfClusters" and v not in (None, [], {})}
    policy.setdefault("placementType", "PickAll")
    spread = []
    for item in policy.get("topologySpreadConstraints") or []:
        item = dict(item)
        item.setdefault("maxSkew", 1)
        item.setdefault("whenUnsatisfiable", "DoNotSchedule")
        spread.append(item)
    if spread:
        policy["topologySpreadConstraints"] = spread
    tolerations = []
    for item in policy.get("tolerations") or []:
        item = dict(item)
        item.setdefault("operator", "Equal")
        tolerations.append({k: v for k, v in item.items() if v not in ("", None)})
    if tolerations:
        policy["tolerations"] = tolerations
    return _drop_empty(policy)


def _drop_empty(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _drop_empty(v) for k, v in value.items() if v not in (None, [], {}, "")}
    if isinstance(value, list):
        return [_drop_empty(v) for v in value]
    return value


_FIELD_ORDER = (
    "placementType",
    "clusterNames",
    "numberOfClusters",
    "affinity",
    "topologySpreadConstraints",
    "tolerations",
)


def policy_hash(raw: Any) -> str:
    """Lowercase hex SHA-256 of the policy's JSON without numberOfClusters, fields in API order.
    Informative only: snapshots are matched by comparing normalised policies, not hashes."""
    if raw is None:
        encoded = "null"
    else:
        policy = {k: v for k, v in raw.items() if k != "numberOfClusters"}
        ordered = {k: policy[k] for k in _FIELD_ORDER if k in policy}
        ordered.update({k: v for k, v in policy.items() if k not in ordered})
        encoded = json.dumps(ordered, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(encoded.encode()).hexdigest()
