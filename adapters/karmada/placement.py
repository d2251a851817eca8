"""A binding's spec.placement: read in its Go form (gojson), refused where the CRD or upstream's
webhook refuses it (pkg/util/validation/validation.go ValidatePlacement), compared with the
applied-placement annotation as the scheduler compares them (pkg/scheduler/helper.go
placementChanged), and its cluster affinities matched as upstream matches them
(pkg/util/selector.go ClusterMatches).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from adapters.errors import InputError
from adapters.karmada import names as n
from adapters.karmada.gojson import CLUSTER_AFFINITY, PLACEMENT, go_form, go_json
from adapters.kube.fields import Fields
from adapters.kube.selectors import SelectorError, label_selector
from adapters.kube.validation import label_value_errors, qualified_name_errors
from model import LabelOperator, LabelRequirement, LabelSelector, Toleration, TolerationOperator

__all__ = [
    "Affinity",
    "ClusterFacts",
    "FactTable",
    "Placement",
    "Spread",
    "field_matches",
    "matches_all",
    "placement_changed",
    "read_placement",
]


@dataclass(frozen=True, slots=True)
class ClusterFacts:
    """What ClusterMatches reads of a cluster."""

    name: str
    labels: Mapping[str, str]
    provider: str
    region: str
    zones: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Affinity:
    """One ClusterAffinity (a term of clusterAffinities or an overflow term without its name),
    with its Go form (`form`) and its trait name (`trait`, "" for the empty term, which matches
    every cluster)."""

    form: Mapping[str, Any]
    labels: LabelSelector | None
    labels_broken: bool  # a selector upstream cannot build: matches no cluster
    fields: tuple[tuple[str, str, tuple[str, ...]], ...]
    names: tuple[str, ...]
    exclude: tuple[str, ...]

    trait: str = field(init=False)  # made once: every binding's affinities are asked it

    def __post_init__(self) -> None:
        trait = ""
        if self.form:
            digest = hashlib.sha256(go_json(self.form).encode()).hexdigest()[:16]
            trait = n.AFFINITY_TRAIT.format(digest)
        object.__setattr__(self, "trait", trait)

    def matches(self, c: ClusterFacts) -> bool:
        if c.name in self.exclude:
            return False
        labels = self.labels
        if "labelSelector" in self.form and (self.labels_broken or (labels and not labels.matches(c.labels))):
            return False
        if not all(field_matches(key, op, values, c) for key, op, values in self.fields):
            return False
        return not self.names or c.name in self.names


class FactTable:
    """Many clusters' facts as columns, to match an Affinity on all of them at once (the same
    answers as Affinity.matches, cluster by cluster: tests hold them equal). A string column is
    held as codes (-1: no value) and the code of each value, each made when first asked (an
    affinity naming clusters reads their rows alone); `row`, where given, is each name's row."""

    def __init__(self, facts: Sequence[ClusterFacts], row: Mapping[str, int] | None = None) -> None:
        self.size = len(facts)
        self.row = {f.name: i for i, f in enumerate(facts)} if row is None else row
        self._facts = facts
        self._labels: dict[str, tuple[np.ndarray, dict[str, int]]] = {}

    @cached_property
    def provider(self) -> tuple[np.ndarray, dict[str, int]]:
        return _coded([f.provider for f in self._facts])

    @cached_property
    def region(self) -> tuple[np.ndarray, dict[str, int]]:
        return _coded([f.region for f in self._facts])

    @cached_property
    def zones(self) -> dict[str, np.ndarray]:
        zones: dict[str, np.ndarray] = {}
        for i, f in enumerate(self._facts):
            for zone in f.zones:
                zones.setdefault(zone, np.zeros(self.size, dtype=bool))[i] = True
        return zones

    def label(self, key: str) -> tuple[np.ndarray, dict[str, int]]:
        got = self._labels.get(key)
        if got is None:
            got = self._labels[key] = _coded([f.labels.get(key) for f in self._facts])
        return got

    def rows(self, names: Sequence[str]) -> np.ndarray:
        mask = np.zeros(self.size, dtype=bool)
        mask[[self.row[name] for name in names if name in self.row]] = True
        return mask


def _coded(values: Sequence[str | None]) -> tuple[np.ndarray, dict[str, int]]:
    code: dict[str, int] = {}
    coded = (-1 if v is None else code.setdefault(v, len(code)) for v in values)
    codes = np.fromiter(coded, dtype=np.int64, count=len(values))
    return codes, code


def _listed(column: tuple[np.ndarray, dict[str, int]], values: Sequence[str]) -> np.ndarray:
    codes, code = column
    return np.isin(codes, [code[v] for v in values if v in code])


def matches_all(a: Affinity, table: FactTable) -> np.ndarray:
    """Affinity.matches on every cluster of the table."""
    out = np.ones(table.size, dtype=bool) if not a.names else table.rows(a.names)
    if a.exclude:
        out &= ~table.rows(a.exclude)
    if "labelSelector" in a.form:
        if a.labels_broken:
            return np.zeros(table.size, dtype=bool)
        if a.labels:
            for r in a.labels.requirements():
                out &= _label_matches(r, table.label(r.key))
    for key, operator, values in a.fields:
        out &= _field_matches_all(key, operator, values, table)
    return out


def _label_matches(r: LabelRequirement, column: tuple[np.ndarray, dict[str, int]]) -> np.ndarray:
    present = column[0] >= 0
    if r.operator is LabelOperator.EXISTS:
        return present
    if r.operator is LabelOperator.DOES_NOT_EXIST:
        return ~present
    listed = _listed(column, r.values)
    return listed if r.operator is LabelOperator.IN else ~listed


def _field_matches_all(key: str, operator: str, values: tuple[str, ...], table: FactTable) -> np.ndarray:
    """field_matches on every cluster."""
    if key == n.ZONE:
        listed = np.zeros(table.size, dtype=bool)
        for zone in values:
            if zone in table.zones:
                listed |= table.zones[zone]
        return listed if operator == "In" else ~listed
    if not values or any(label_value_errors(v) for v in values):
        return np.zeros(table.size, dtype=bool)
    column = table.provider if key == n.PROVIDER else table.region
    empty = column[0] == column[1].get("", -2)
    listed = _listed(column, values)
    if operator == "In":
        return ~empty & listed
    return empty | ~listed


def field_matches(key: str, operator: str, values: tuple[str, ...], c: ClusterFacts) -> bool:
    """A field-selector expression: zones any/none of the listed (an empty zones list matches
    no In); provider and region as a node selector over the non-empty fields, which refuses (so
    matches nothing) an empty value list or a value that is not a label value."""
    if key == n.ZONE:
        listed = any(z in values for z in c.zones)
        return listed if operator == "In" else not listed
    if not values or any(label_value_errors(v) for v in values):
        return False
    value = c.provider if key == n.PROVIDER else c.region
    if operator == "In":
        return bool(value) and value in values
    return not value or value not in values


@dataclass(frozen=True, slots=True)
class Term:
    """A clusterAffinities term: its name, its affinity and its overflow terms in order."""

    name: str
    affinity: Affinity
    overflow: tuple[Affinity, ...]


@dataclass(frozen=True, slots=True)
class Spread:
    field: str  # "" with spreadByLabel (or neither)
    label: str
    min_groups: int
    max_groups: int


@dataclass(frozen=True, slots=True)
class Placement:
    form: Mapping[str, Any]  # the Go form: the annotation is its JSON
    affinity: Affinity | None
    terms: tuple[Term, ...] | None  # None: no clusterAffinities
    tolerations: tuple[Toleration, ...]
    spread: tuple[Spread, ...]
    scheduling: Mapping[str, Any] | None  # replicaScheduling's Go form, the CRD default filled in
    weights: tuple[tuple[Affinity, int], ...]
    annotation: str  # the applied-placement annotation: the Go form's JSON
    # The raw form it was read from (bindings holding equal ones share the first: written back,
    # one object renders once)
    raw: Any = field(default=None, compare=False)

    @property
    def scheduling_type(self) -> str:
        """ReplicaSchedulingType(): Duplicated without replicaScheduling."""
        if self.scheduling is None:
            return n.DUPLICATED
        return self.scheduling.get("replicaSchedulingType", n.DIVIDED)

    @property
    def preference(self) -> str:
        return (self.scheduling or {}).get("replicaDivisionPreference", "")

    @property
    def weight_preference(self) -> Mapping[str, Any] | None:
        return (self.scheduling or {}).get("weightPreference")

    @property
    def dynamic(self) -> str:
        return (self.weight_preference or {}).get("dynamicWeight", "")

    @property
    def ignores_spread(self) -> bool:
        """Static weights (and Weighted without a weightPreference) ignore spread constraints
        (spreadconstraint.IsSpreadConstraintIgnored)."""
        if self.scheduling_type != n.DIVIDED or self.preference != n.WEIGHTED:
            return False
        preference = self.weight_preference
        return preference is None or (bool(preference.get("staticWeightList")) and not self.dynamic)

    def affinities(self) -> list[Affinity]:
        """Every affinity term the placement names (for traits)."""
        out = [] if self.affinity is None else [self.affinity]
        for term in self.terms or ():
            out += [term.affinity, *term.overflow]
        return out + [a for a, _ in self.weights]


def read_placement(
    f: Fields, raw: Any, path: str = "spec.placement", read: dict[str, Placement] | None = None
) -> Placement:
    """The placement `raw`; `read` (the placements read so far, by the repr of their raw form)
    reads each distinct placement once where many bindings share one. The repr tells 1 from "1"
    and True, so a raw form that would be refused never meets an accepted one's entry; a refused
    form is not kept, so each binding that holds it is refused in its own name."""
    if read is None:
        return _read_placement(f, raw, path)
    key = repr(raw)
    placement = read.get(key)
    if placement is None:
        placement = read[key] = _read_placement(f, raw, path)
    return placement


def _read_placement(f: Fields, raw: Any, path: str) -> Placement:
    _no_empty_enum(f, raw, path)
    form = go_form(f, raw, PLACEMENT, path)
    if "clusterAffinity" in form and "clusterAffinities" in form:
        raise f.fail(n.AFFINITY_BOTH, path)
    scheduling = _scheduling(f, form.get("replicaScheduling"), f"{path}.replicaScheduling")
    affinity = None
    if "clusterAffinity" in form:
        affinity = _affinity(f, form["clusterAffinity"], f"{path}.clusterAffinity")
    terms = None
    if "clusterAffinities" in form:
        terms = _terms(f, form["clusterAffinities"], scheduling, f"{path}.clusterAffinities")
    read = (
        _toleration(f, t, f"{path}.clusterTolerations[{i}]")
        for i, t in enumerate(form.get("clusterTolerations", ()))
    )
    tolerations = tuple(t for t in read if t is not None)
    spread = _spread(f, form.get("spreadConstraints", ()), f"{path}.spreadConstraints")
    _workload_affinity(f, form.get("workloadAffinity"), f"{path}.workloadAffinity")
    weights = ()
    if scheduling is not None:
        items = (scheduling.get("weightPreference") or {}).get("staticWeightList", ())
        where = f"{path}.replicaScheduling.weightPreference.staticWeightList"
        weights = tuple(
            (
                _affinity(f, w["targetCluster"], f"{where}[{i}].targetCluster"),
                _weight(f, w, f"{where}[{i}].weight"),
            )
            for i, w in enumerate(items)
        )
    return Placement(form, affinity, terms, tolerations, spread, scheduling, weights, go_json(form), raw)


# The enum fields Go omits when empty: the CRD's enum holds no "", so the API server refuses an
# explicit one (go_form, as Go's round trip, would drop it).
_ENUM_FIELDS = (
    ("replicaScheduling", ("replicaSchedulingType", "replicaDivisionPreference")),
    ("replicaScheduling.weightPreference", ("dynamicWeight",)),
)


def _no_empty_enum(f: Fields, raw: Any, path: str) -> None:
    if not isinstance(raw, Mapping):
        return
    for parent, keys in _ENUM_FIELDS:
        node: Any = raw
        for key in parent.split("."):
            node = node.get(key) if isinstance(node, Mapping) else None
        for key in keys:
            if isinstance(node, Mapping) and node.get(key) == "":
                raise f.fail(_unsupported("", _ENUMS[key]), f"{path}.{parent}.{key}")
    spread = raw.get("spreadConstraints")
    for i, item in enumerate(spread if isinstance(spread, list) else ()):
        if isinstance(item, Mapping) and item.get("spreadByField") == "":
            raise f.fail(_unsupported("", n.SPREAD_FIELDS), f"{path}.spreadConstraints[{i}].spreadByField")


_ENUMS = {
    "replicaSchedulingType": n.SCHEDULING_TYPES,
    "replicaDivisionPreference": n.DIVISION_PREFERENCES,
    "dynamicWeight": n.DYNAMIC_WEIGHTS,
}


def _weight(f: Fields, item: Mapping[str, Any], path: str) -> int:
    if "weight" not in item or item["weight"] < 1:
        raise f.fail(f"must be at least 1, got {item.get('weight', 0)}", path)
    return item["weight"]


def _scheduling(f: Fields, raw: Mapping[str, Any] | None, path: str) -> dict[str, Any] | None:
    """replicaScheduling, its enums checked and the CRD's default type (Divided) filled in."""
    if raw is None:
        return None
    out = dict(raw)
    out.setdefault("replicaSchedulingType", n.DIVIDED)
    _enum(f, out["replicaSchedulingType"], n.SCHEDULING_TYPES, f"{path}.replicaSchedulingType")
    if "replicaDivisionPreference" in out:
        _enum(
            f, out["replicaDivisionPreference"], n.DIVISION_PREFERENCES, f"{path}.replicaDivisionPreference"
        )
    dynamic = (out.get("weightPreference") or {}).get("dynamicWeight")
    if dynamic is not None:
        _enum(f, dynamic, n.DYNAMIC_WEIGHTS, f"{path}.weightPreference.dynamicWeight")
    return out


def _enum(f: Fields, value: str, allowed: Sequence[str], path: str) -> None:
    if value not in allowed:
        raise f.fail(_unsupported(value, allowed), path)


def _unsupported(value: str, allowed: Sequence[str]) -> str:
    quoted = ", ".join(f'"{a}"' for a in allowed)
    return f'Unsupported value: "{value}": supported values: {quoted}'


def _affinity(f: Fields, form: Mapping[str, Any], path: str) -> Affinity:
    """A ClusterAffinity; its field selector refused as the webhook refuses it."""
    labels, broken = None, False
    if "labelSelector" in form:
        for i, item in enumerate(form["labelSelector"].get("matchExpressions", ())):
            for key in ("key", "operator"):
                if not item.get(key):
                    raise f.fail(f"{key} is required", f"{path}.labelSelector.matchExpressions[{i}].{key}")
        try:
            labels = label_selector(f, form["labelSelector"], f"{path}.labelSelector")
        except SelectorError:
            broken = True  # LabelSelectorAsSelector fails: ClusterMatches says no
    fields = []
    for i, item in enumerate((form.get("fieldSelector") or {}).get("matchExpressions", ())):
        where = f"{path}.fieldSelector.matchExpressions[{i}]"
        if item["key"] not in n.FIELD_KEYS:
            raise f.fail(n.FIELD_KEY.format(item["key"]), f"{where}.key")
        if item["operator"] not in ("In", "NotIn"):
            raise f.fail(n.FIELD_OPERATOR.format(item["operator"]), f"{where}.operator")
        fields.append((item["key"], item["operator"], tuple(item.get("values", ()))))
    return Affinity(
        form,
        labels,
        broken,
        tuple(fields),
        tuple(form.get("clusterNames", ())),
        tuple(form.get("exclude", ())),
    )


def _bare(form: Mapping[str, Any]) -> dict[str, Any]:
    """A term's ClusterAffinity part (its name and overflow terms left out)."""
    return {k: v for k, v in form.items() if k not in ("affinityName", "overflowAffinities")}


def _terms(
    f: Fields, items: list[Mapping[str, Any]], scheduling: Mapping[str, Any] | None, path: str
) -> tuple[Term, ...]:
    seen: set[str] = set()
    out = []
    overflow_allowed = scheduling is not None and (
        scheduling.get("replicaDivisionPreference") == n.AGGREGATED
        or (scheduling.get("weightPreference") or {}).get("dynamicWeight", "") != ""
    )
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        name = _affinity_name(f, item.get("affinityName", ""), f"{where}.affinityName")
        if name in seen:
            raise f.fail(n.UNIQUE_TERMS, path)
        seen.add(name)
        bare = _bare(item)
        overflow = []
        if "overflowAffinities" in item:
            if not overflow_allowed:
                raise f.fail(
                    n.OVERFLOW_STRATEGY,
                    f"{where}.overflowAffinities",
                )
            if not bare:
                raise f.fail(
                    n.OVERFLOW_INLINE,
                    f"{where}.overflowAffinities",
                )
            names = {name}
            for j, extra in enumerate(item["overflowAffinities"]):
                at = f"{where}.overflowAffinities[{j}]"
                extra_name = _affinity_name(f, extra.get("affinityName", ""), f"{at}.affinityName")
                if extra_name in names:
                    raise f.fail(
                        n.OVERFLOW_UNIQUE,
                        f"{at}.affinityName",
                    )
                names.add(extra_name)
                overflow.append(_affinity(f, _bare(extra), at))
        out.append(Term(name, _affinity(f, bare, where), tuple(overflow)))
    return tuple(out)


def _affinity_name(f: Fields, name: str, path: str) -> str:
    if len(name) > n.AFFINITY_NAME_MAX:
        raise f.fail(f"may not be longer than {n.AFFINITY_NAME_MAX}", path)
    if errors := qualified_name_errors(name):
        raise f.fail(f"invalid affinity name {name!r}: {'; '.join(errors)}", path)
    return name


def _toleration(f: Fields, form: Mapping[str, Any], path: str) -> Toleration | None:
    """A corev1.Toleration, Lt and Gt refused by the webhook. Upstream matches it with
    Kubernetes' ToleratesTaint, where any other unknown operator tolerates nothing (None)."""
    operator = form.get("operator", "")
    if operator in ("Lt", "Gt"):
        quoted = ", ".join(f'"{o}"' for o in n.TOLERATION_OPERATORS)
        raise f.fail(f'Unsupported value: "{operator}": supported values: {quoted}', f"{path}.operator")
    if operator not in n.TOLERATION_OPERATORS:
        return None
    kind = TolerationOperator.EXISTS if operator == "Exists" else TolerationOperator.EQUAL
    return Toleration(form.get("key", ""), kind, form.get("value", ""), form.get("effect", ""))


def _spread(f: Fields, items: Sequence[Mapping[str, Any]], path: str) -> tuple[Spread, ...]:
    out = []
    fields: list[str] = []
    for i, item in enumerate(items):
        where = f"{path}[{i}]"
        field, label = item.get("spreadByField", ""), item.get("spreadByLabel", "")
        if field:
            _enum(f, field, n.SPREAD_FIELDS, f"{where}.spreadByField")
        if field and label:
            raise f.fail(n.SPREAD_BOTH, where)
        low, high = item.get("minGroups", 0), item.get("maxGroups", 0)
        if low < 0:
            raise f.fail(n.MIN_NEGATIVE, f"{where}.minGroups")
        if high < 0:
            raise f.fail(n.MAX_NEGATIVE, f"{where}.maxGroups")
        if 0 < high < low:
            raise f.fail(n.MAX_BELOW_MIN, f"{where}.maxGroups")
        if field:
            if field in fields:
                raise f.fail(n.SPREAD_TWICE.format(field), path)
            fields.append(field)
        out.append(Spread(field, label, low, high))
    if fields and n.CLUSTER_FIELD not in fields:
        raise f.fail(
            n.SPREAD_NO_CLUSTER,
            path,
        )
    return tuple(out)


def _workload_affinity(f: Fields, form: Mapping[str, Any] | None, path: str) -> None:
    if form is None:
        return
    keys = {}
    for side in ("affinity", "antiAffinity"):
        if side in form:
            key = form[side].get("groupByLabelKey", "")
            if errors := qualified_name_errors(key):
                raise f.fail(
                    f"invalid groupByLabelKey {key!r}: {'; '.join(errors)}", f"{path}.{side}.groupByLabelKey"
                )
            keys[side] = key
    if len(keys) == 2 and keys["affinity"] == keys["antiAffinity"]:
        raise f.fail(n.SAME_GROUP_KEY, path)


# ---------------------------------------------------------------------------- placementChanged


def placement_changed(
    f: Fields,
    placement: Placement,
    applied: str,
    observed: str,
    decoded: dict[str, dict[str, Any] | None] | None = None,
) -> bool:
    """Whether the scheduler sees the placement as changed since it was applied: the
    annotation missing; else (an annotation Go cannot decode is no change) the placement differs
    in any part but clusterAffinities, or in the observed clusterAffinities term (a missing
    observed name, a term removed or edited). Compared in Go form on both sides, so omitted and
    empty fields are alike. `decoded` keeps each distinct annotation's Go form (None: not
    decodable) where many bindings carry the same one."""
    if applied == "":
        return True
    if decoded is None:
        old = _applied_form(f, applied)
    elif applied in decoded:
        old = decoded[applied]
    else:
        old = decoded[applied] = _applied_form(f, applied)
    if old is None:
        return False
    new = placement.form
    if new == old:
        return False
    for key in ("clusterAffinity", "clusterTolerations", "spreadConstraints", "replicaScheduling"):
        if new.get(key) != old.get(key):
            return True
    return _observed_term_changed(
        new.get("clusterAffinities", ()), old.get("clusterAffinities", ()), observed
    )


def _applied_form(f: Fields, applied: str) -> dict[str, Any] | None:
    try:
        return go_form(f, json.loads(applied), PLACEMENT, f"metadata.annotations[{n.APPLIED_PLACEMENT}]")
    except (ValueError, InputError):
        return None


def _observed_term_changed(
    terms: Sequence[Mapping[str, Any]], applied: Sequence[Mapping[str, Any]], observed: str
) -> bool:
    if observed == "":
        return True
    now = next((t for t in terms if t.get("affinityName", "") == observed), None)
    then = next((t for t in applied if t.get("affinityName", "") == observed), None)
    return now is None or then is None or now != then


def cluster_affinity_form(f: Fields, raw: Any, path: str) -> dict[str, Any]:
    """A ClusterAffinity in Go form (for callers outside a placement)."""
    return go_form(f, raw, CLUSTER_AFFINITY, path)
