"""A Placement's spec -> the parts of a model.PlacementRequest, checked in two tiers.

What the CRD schema rejects is an InputError naming the field, and so is a negative
numberOfClusters, which the CRD takes (an int32 without a minimum) but upstream's scheduler
cannot: selectClusters slices its candidates with it and panics, so the controller crashes and
writes nothing. What only upstream's scheduler rejects is kept as the message of a Misconfigured
status, by the stage that reports it, because whether upstream reaches that stage depends on the
clusters (load decides):

- Predicate: a label or claim selector Kubernetes cannot build, a CEL expression that does not
  compile (checked only when the placement has available clusters);
- TaintToleration: an empty key without Exists, Exists with a value (checked only when a cluster
  passed the predicates);
- the prioritizers: an unknown mode (the CRD has no enum), an unknown builtIn or an AddOn
  coordinate without addOn, with non-zero weight;
- decision groups (groups.py): a non-percentage string, a group selector that cannot be built.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.kube.fields import INT32, Fields
from adapters.kube.selectors import SelectorError, label_selector
from adapters.ocm import names as n
from adapters.ocm.checks import enum
from adapters.ocm.clusters import TAINT_KEY
from adapters.ocm.groups import GroupStrategy, read_strategy
from model import (
    LabelSelector,
    Preference,
    PropertySorter,
    SpreadConstraint,
    Toleration,
    TolerationOperator,
)

__all__ = ["Predicate", "Policy", "read_policy"]

_TOPOLOGY_KEY = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
)
_MAX_KEY = 316
_MAX_VALUE = 1024
_RATE_LIMIT = re.compile(r"[0-9]+[hms]")


@dataclass(frozen=True, slots=True)
class Predicate:
    """One requiredClusterSelector: label AND claim selector AND every CEL expression. `error`:
    upstream cannot build its selectors (the CEL expressions are compiled by load)."""

    labels: LabelSelector | None = None
    claims: LabelSelector | None = None
    cel: tuple[str, ...] = ()
    error: str | None = None


@dataclass(frozen=True, slots=True)
class Policy:
    count: int | None  # numberOfClusters; None: every feasible cluster
    cluster_sets: tuple[str, ...]
    predicates: tuple[Predicate, ...]
    tolerations: tuple[Toleration, ...]
    toleration_error: str | None
    preferences: tuple[Preference, ...]
    prioritizer_error: str | None
    spread: tuple[SpreadConstraint, ...]
    groups: GroupStrategy


def read_policy(f: Fields, spec: Any) -> Policy:
    spec = f.mapping(spec, "spec")
    count = spec.get("numberOfClusters")
    if count is not None:
        # int32 in the CRD, with no minimum; upstream's selectClusters (schedule.go) slices its
        # candidates with it, `clusters[:n]`, so a negative count panics the controller (a crash,
        # nothing written, at every try): refused here, as no output of upstream's stands for it.
        count = f.integer(count, "spec.numberOfClusters", minimum=0, maximum=INT32)
    enum(f, spec, "sortBy", "spec.sortBy", n.SORT_BY, n.SORT_BY[0])
    rate = spec.get("scoreRateLimit")
    if rate is not None and not _RATE_LIMIT.fullmatch(f.string(rate, "spec.scoreRateLimit")):
        raise f.fail(f"{rate!r} does not match ^[0-9]+[hms]$", "spec.scoreRateLimit")
    preferences, prioritizer_error = _prioritizers(f, spec)
    tolerations, toleration_error = _tolerations(f, spec)
    return Policy(
        count=count,
        cluster_sets=tuple(f.string_list(spec.get("clusterSets"), "spec.clusterSets")),
        predicates=_predicates(f, spec),
        tolerations=tolerations,
        toleration_error=toleration_error,
        preferences=preferences,
        prioritizer_error=prioritizer_error,
        spread=_spread(f, spec),
        groups=read_strategy(f, spec),
    )


def _predicates(f: Fields, spec: Mapping[str, Any]) -> tuple[Predicate, ...]:
    out = []
    for path, raw in f.objects(spec.get("predicates"), "spec.predicates"):
        path += ".requiredClusterSelector"
        selector = f.mapping(raw.get("requiredClusterSelector"), path)
        cel_path = f"{path}.celSelector"
        cel = f.mapping(selector.get("celSelector"), cel_path)
        expressions = tuple(f.string_list(cel.get("celExpressions"), f"{cel_path}.celExpressions"))
        try:
            labels = label_selector(f, selector.get("labelSelector"), f"{path}.labelSelector")
            claims = label_selector(f, selector.get("claimSelector"), f"{path}.claimSelector", labels=False)
        except SelectorError as err:
            out.append(Predicate(cel=expressions, error=str(err)))
            continue
        out.append(Predicate(labels, claims, expressions))
    return tuple(out)


def _tolerations(f: Fields, spec: Mapping[str, Any]) -> tuple[tuple[Toleration, ...], str | None]:
    """The tolerations that can tolerate something, and upstream's complaint about the first
    invalid one. A toleration with an operator other than Equal or Exists never matches upstream,
    so it is left out."""
    out, error = [], None
    for path, raw in f.objects(spec.get("tolerations"), "spec.tolerations"):
        key = f.string(raw.get("key"), f"{path}.key")
        if key and (len(key) > _MAX_KEY or not TAINT_KEY.fullmatch(key)):
            raise f.fail(f"invalid key {key!r}", f"{path}.key")
        operator = f.string(raw.get("operator", "Equal"), f"{path}.operator")
        value = f.string(raw.get("value"), f"{path}.value")
        if len(value) > _MAX_VALUE:
            raise f.fail(f"at most {_MAX_VALUE} characters", f"{path}.value")
        effect = enum(f, raw, "effect", f"{path}.effect", n.TAINT_EFFECTS, "")
        seconds = raw.get("tolerationSeconds")
        if seconds is not None:
            seconds = _go_duration_seconds(f.integer(seconds, f"{path}.tolerationSeconds"))
        if error is None:
            if not key and operator != TolerationOperator.EXISTS:
                error = n.EMPTY_KEY
            elif operator == TolerationOperator.EXISTS and value:
                error = n.EXISTS_WITH_VALUE
        if operator in ("", TolerationOperator.EQUAL):
            out.append(Toleration(key, TolerationOperator.EQUAL, value, effect, seconds))
        elif operator == TolerationOperator.EXISTS:
            out.append(Toleration(key, TolerationOperator.EXISTS, value, effect, seconds))
    return tuple(out), error


def _go_duration_seconds(seconds: int) -> int:
    """The seconds upstream's `time.Duration(seconds) * time.Second` stands for
    (tainttoleration's isTolerationTimeExpired): the product wraps around int64 nanoseconds as Go's
    integer arithmetic does (2**62 seconds are no time at all), rounded up to a second, the
    resolution of the times it is compared with (metav1.Time)."""
    nanoseconds = (seconds * 10**9 + 2**63) % 2**64 - 2**63
    return -(-nanoseconds // 10**9)


def _prioritizers(f: Fields, spec: Mapping[str, Any]) -> tuple[tuple[Preference, ...], str | None]:
    """Upstream's weights (Additive: Balance 1 and Steady 1, then each configuration overrides or
    adds the weight of its coordinate; Exact: the configurations only) as preferences, in a
    stable order: defaults first, then first appearance. Weight 0 disables a coordinate."""
    base = "spec.prioritizerPolicy"
    policy = f.mapping(spec.get("prioritizerPolicy"), base)
    mode = f.string(policy.get("mode", n.ADDITIVE), f"{base}.mode")
    weights: dict[tuple, int] = {}
    if mode != n.EXACT:
        weights[(n.BUILT_IN, n.BALANCE, None, None)] = 1
        weights[(n.BUILT_IN, n.STEADY, None, None)] = 1
    for i, (path, raw) in enumerate(f.objects(policy.get("configurations"), f"{base}.configurations")):
        weight = raw.get("weight")
        if weight is not None:
            weight = f.integer(weight, f"{path}.weight", minimum=-n.MAX_WEIGHT, maximum=n.MAX_WEIGHT)
        else:
            weight = 1
        kind, built_in, add_on = _coordinate(f, raw, path)
        # Upstream keys its weights by the coordinate struct, whose addOn is a pointer: entries
        # with an addOn never override one another, each one counts.
        weights[(kind, built_in, add_on, i if add_on is not None else None)] = weight
    if mode not in ("", n.ADDITIVE, n.EXACT):
        # The CRD has no enum; upstream's getWeights (schedule.go) refuses any other mode before
        # it builds a prioritizer: Misconfigured.
        return (), n.UNKNOWN_MODE.format(mode)
    preferences, error = [], None
    for (kind, built_in, add_on, _), weight in weights.items():
        if weight == 0:
            continue
        if kind == n.ADD_ON:
            if add_on is None:
                error = error or n.NO_ADD_ON
                continue
            preferences.append(Preference(weight, external=n.ADDON_SCORE.format(*add_on)))
        elif built_in == n.BALANCE:
            preferences.append(Preference(weight, balance=True))
        elif built_in == n.STEADY:
            preferences.append(Preference(weight, held=True))
        elif built_in in n.RESOURCES:
            sorter = PropertySorter(n.RESOURCES[built_in], ascending=False, centered=True)
            preferences.append(Preference(weight, sorter=sorter))
        else:
            error = error or n.UNKNOWN_BUILT_IN.format(built_in)
    return tuple(preferences), error


def _coordinate(f: Fields, raw: Mapping[str, Any], path: str) -> tuple[str, str, tuple[str, str] | None]:
    """The whole scoreCoordinate, upstream's map key: (type, builtIn, (resourceName, scoreName))."""
    path += ".scoreCoordinate"
    if raw.get("scoreCoordinate") is None:
        raise f.fail("scoreCoordinate is required", path)
    coordinate = f.mapping(raw["scoreCoordinate"], path)
    kind = enum(f, coordinate, "type", f"{path}.type", (n.BUILT_IN, n.ADD_ON), n.BUILT_IN)
    built_in = f.string(coordinate.get("builtIn"), f"{path}.builtIn")
    add_on = None
    if coordinate.get("addOn") is not None:
        raw_add_on = f.mapping(coordinate["addOn"], f"{path}.addOn")
        parts = []
        for field in ("resourceName", "scoreName"):
            if raw_add_on.get(field) is None:
                raise f.fail(f"{field} is required", f"{path}.addOn.{field}")
            parts.append(f.string(raw_add_on[field], f"{path}.addOn.{field}"))
        add_on = (parts[0], parts[1])
    return kind, built_in, add_on


def _spread(f: Fields, spec: Mapping[str, Any]) -> tuple[SpreadConstraint, ...]:
    base = "spec.spreadPolicy"
    policy = f.mapping(spec.get("spreadPolicy"), base)
    items = f.sequence(policy.get("spreadConstraints"), f"{base}.spreadConstraints")
    if len(items) > n.MAX_SPREAD_CONSTRAINTS:
        raise f.fail(f"at most {n.MAX_SPREAD_CONSTRAINTS} spread constraints", f"{base}.spreadConstraints")
    out = []
    for path, raw in f.objects(items, f"{base}.spreadConstraints"):
        key = f.string(raw.get("topologyKey"), f"{path}.topologyKey")
        if len(key) > _MAX_KEY or not _TOPOLOGY_KEY.fullmatch(key):
            raise f.fail(f"invalid topology key {key!r}", f"{path}.topologyKey")
        if raw.get("topologyKeyType") is None:
            raise f.fail("topologyKeyType is required", f"{path}.topologyKeyType")
        key_type = enum(f, raw, "topologyKeyType", f"{path}.topologyKeyType", ("Label", "Claim"), "")
        skew = raw.get("maxSkew")
        skew = 1 if skew is None else f.integer(skew, f"{path}.maxSkew", minimum=1, maximum=INT32)
        when_path = f"{path}.whenUnsatisfiable"
        when = enum(f, raw, "whenUnsatisfiable", when_path, n.WHEN_UNSATISFIABLE, n.WHEN_UNSATISFIABLE[1])
        out.append(SpreadConstraint(key, skew, hard=when == "DoNotSchedule", claims=key_type == "Claim"))
    return tuple(out)
