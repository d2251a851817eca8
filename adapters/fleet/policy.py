"""A ClusterResourcePlacement's policy -> the request it makes, validated as upstream's admission
webhook and CRD schema would: what they reject is an InputError naming the field."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from functools import lru_cache
from typing import Any

from adapters.fleet import names as n
from adapters.fleet.schema import (
    PLACEMENT_TYPES,
    SORT_ORDERS,
    TAINT_EFFECTS,
    TOLERATION_OPERATORS,
    WHEN_UNSATISFIABLE,
    enum,
)
from adapters.kube.fields import INT32, Fields
from adapters.kube.selectors import SelectorError, label_selector
from adapters.kube.validation import label_value_errors, qualified_name_errors, subdomain_errors
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

_TYPES = dict(zip(PLACEMENT_TYPES, (SelectionMode.ALL, SelectionMode.N, SelectionMode.FIXED), strict=True))
_MAX_REQUIRED_TERMS = 10
_MAX_FIXED_NAMES = 100
_MAX_TOLERATIONS = 100
# Fields only some placement types may set (the CRD's rules on spec.policy, the webhook's after them).
_ONLY_FOR = {
    "clusterNames": ("PickFixed",),
    "numberOfClusters": ("PickN",),
    "affinity": ("PickAll", "PickN"),
    "topologySpreadConstraints": ("PickN",),
    "tolerations": ("PickAll", "PickN"),
}


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
    kind = enum(f, raw.get("placementType"), f"{base}.placementType", PLACEMENT_TYPES, "PickAll")
    policy.mode = _TYPES[kind]
    affinity = f.mapping(raw.get("affinity"), f"{base}.affinity")
    cluster_affinity = f.mapping(affinity.get("clusterAffinity"), f"{base}.affinity.clusterAffinity")
    count = raw.get("numberOfClusters")
    # The CRD's rules (x-kubernetes-validations on spec.policy) ask whether a field is set at all:
    # an empty list or object is set; a null one is pruned.
    for field, allowed in _ONLY_FOR.items():
        if raw.get(field) is not None and kind not in allowed:
            raise f.fail(f"{field} is not allowed for placement type {kind}", f"{base}.{field}")

    if policy.mode is SelectionMode.FIXED:
        names = raw.get("clusterNames")
        policy.cluster_names = tuple(f.string_list(names, f"{base}.clusterNames"))
        if len(policy.cluster_names) > _MAX_FIXED_NAMES:
            raise f.fail(f"at most {_MAX_FIXED_NAMES} cluster names", f"{base}.clusterNames")
        for i, name in enumerate(policy.cluster_names):
            where = f"{base}.clusterNames[{i}]"
            if errors := subdomain_errors(name):
                raise f.fail(f"{name!r} is not a valid member name: {'; '.join(errors)}", where)
            if len(name) > 63:
                raise f.fail(f"{name!r} is longer than 63 characters", where)
        if len(set(policy.cluster_names)) != len(policy.cluster_names):
            raise f.fail("cluster names must be unique", f"{base}.clusterNames")
        return policy

    if policy.mode is SelectionMode.N:
        if count is None:
            raise f.fail("numberOfClusters is required for placement type PickN", f"{base}.numberOfClusters")
        policy.count = f.integer(count, f"{base}.numberOfClusters", minimum=0, maximum=INT32)

    path = f"{base}.affinity.clusterAffinity"
    required = f.mapping(
        cluster_affinity.get("requiredDuringSchedulingIgnoredDuringExecution"),
        f"{path}.requiredDuringSchedulingIgnoredDuringExecution",
    )
    if cluster_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") is not None:
        terms_path = f"{path}.requiredDuringSchedulingIgnoredDuringExecution.clusterSelectorTerms"
        if required.get("clusterSelectorTerms") is None:
            raise f.fail("clusterSelectorTerms is required", terms_path)
        terms = f.sequence(required.get("clusterSelectorTerms"), terms_path)
        if len(terms) > _MAX_REQUIRED_TERMS:
            raise f.fail(f"at most {_MAX_REQUIRED_TERMS} terms", terms_path)
        policy.required = tuple(_required_term(f, t, where) for where, t in f.objects(terms, terms_path))
    preferred_path = f"{path}.preferredDuringSchedulingIgnoredDuringExecution"
    preferred = f.sequence(
        cluster_affinity.get("preferredDuringSchedulingIgnoredDuringExecution"), preferred_path
    )
    if preferred and policy.mode is SelectionMode.ALL:
        raise f.fail(
            "PreferredDuringSchedulingIgnoredDuringExecution will be ignored for placement policy type PickAll",  # noqa: E501
            preferred_path,
        )
    policy.preferences = tuple(_preference(f, p, where) for where, p in f.objects(preferred, preferred_path))

    spread_path = f"{base}.topologySpreadConstraints"
    spread_items = f.sequence(raw.get("topologySpreadConstraints"), spread_path)
    policy.spread = tuple(_spread(f, s, where) for where, s in f.objects(spread_items, spread_path))

    tolerations_path = f"{base}.tolerations"
    items = f.sequence(raw.get("tolerations"), tolerations_path)
    if len(items) > _MAX_TOLERATIONS:
        raise f.fail(f"at most {_MAX_TOLERATIONS} tolerations", tolerations_path)
    policy.tolerations = tuple(_toleration(f, t, where) for where, t in f.objects(items, tolerations_path))
    for i, toleration in enumerate(policy.tolerations):
        if toleration in policy.tolerations[:i]:
            raise f.fail("tolerations must be unique", f"{tolerations_path}[{i}]")
    return policy


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


def _required_term(f: Fields, raw: Mapping[str, Any], path: str) -> ClusterTerm:
    if raw.get("propertySorter") is not None:
        raise f.fail(
            "PropertySorter is not allowed for RequiredDuringSchedulingIgnoredDuringExecution affinity",
            f"{path}.propertySorter",
        )
    selector = _label_selector(f, raw.get("labelSelector"), f"{path}.labelSelector")
    requirements = []
    prop_path = f"{path}.propertySelector"
    prop = f.mapping(raw.get("propertySelector"), prop_path)
    if raw.get("propertySelector") is not None and prop.get("matchExpressions") is None:
        raise f.fail("matchExpressions is required", f"{prop_path}.matchExpressions")
    for where, item in f.objects(prop.get("matchExpressions"), f"{prop_path}.matchExpressions"):
        name = _property_name(f, item.get("name"), f"{where}.name")
        operator = _operator(f, PropertyOperator, item, where)
        values = f.sequence(item.get("values"), f"{where}.values")
        if len(values) != 1:
            raise f.fail(f"exactly one value is required, got {len(values)}", f"{where}.values")
        value = values[0]
        if type(value) is not str:
            raise f.fail("expected a quantity as a string", f"{where}.values[0]")
        try:
            quantity = parse_quantity(value)
        except QuantityError as err:
            raise f.fail(str(err), f"{where}.values[0]") from None
        requirements.append(PropertyRequirement(name, operator, quantity))
    if problem := _contradiction(requirements):
        raise f.fail(problem, f"{prop_path}.matchExpressions")
    return ClusterTerm(selector, tuple(requirements))


def _property_name(f: Fields, value: Any, path: str) -> str:
    """A property name the webhook takes (validateName): a resource property
    `resources.kubernetes-fleet.io/<total|allocatable|available>-<resource>` that is a qualified
    name, or segments split by '/', each a qualified name, the first a DNS subdomain or one."""
    name = f.string(value, path)
    if not name:
        raise f.fail("a property name is required", path)
    if name.startswith(n.RESOURCE_PROPERTY_PREFIX):
        capacity, dash, _ = name.removeprefix(n.RESOURCE_PROPERTY_PREFIX).partition("-")
        if not dash:
            raise f.fail(f"{name!r} is not of the form {n.RESOURCE_PROPERTY_PREFIX}<capacity>-<name>", path)
        if capacity not in n.RESOURCE_CAPACITY_TYPES:
            expected = ", ".join(sorted(n.RESOURCE_CAPACITY_TYPES))
            raise f.fail(f"unknown capacity type {capacity!r} in {name!r}; expected one of {expected}", path)
        errors = qualified_name_errors(name)
    else:
        first, *rest = name.split("/")
        errors = [] if not rest or not subdomain_errors(first) else qualified_name_errors(first)
        errors = errors or [e for segment in (rest or [first]) for e in qualified_name_errors(segment)]
    if errors:
        raise f.fail(f"invalid property name {name!r}: {'; '.join(errors)}", path)
    return name


def _contradiction(requirements: list[PropertyRequirement]) -> str | None:
    """Why no value satisfies every requirement on one property (the webhook's
    validateRequirementsConsistency, property by property in the order they first appear)."""
    by_name: dict[str, list[PropertyRequirement]] = {}
    for r in requirements:
        by_name.setdefault(r.name, []).append(r)
    for name, group in by_name.items():
        if len(group) > 1 and (problem := _bounds_problem(group)):
            return f"inconsistent requirements on property {name}: {problem}"
    return None


def _bounds_problem(group: list[PropertyRequirement]) -> str | None:
    equal, unequal = None, []
    lower = upper = None  # (quantity, strict): the tightest bounds
    for r in group:
        q, op = r.value, r.operator
        if op is PropertyOperator.EQ:
            if equal is not None and equal != q:
                return f"conflicting Eq values {equal} and {q}"
            equal = q
        elif op is PropertyOperator.NE:
            unequal.append(q)
        elif op in (PropertyOperator.GT, PropertyOperator.GE):
            bound = (q, op is PropertyOperator.GT)
            if lower is None or (q.nanos, bound[1]) > (lower[0].nanos, lower[1]):
                lower = bound
        elif upper is None or (-q.nanos, op is PropertyOperator.LT) > (-upper[0].nanos, upper[1]):
            upper = (q, op is PropertyOperator.LT)
    if equal is not None and equal in unequal:
        return f"conflicting Eq and Ne on same value {equal}"
    if lower and upper and (lower[0] > upper[0] or (lower[0] == upper[0] and (lower[1] or upper[1]))):
        return f"lower bound ({lower[0]}) and upper bound ({upper[0]}) exclude all values"
    if equal is not None and lower and (equal < lower[0] or (equal == lower[0] and lower[1])):
        return f"eq value {equal} violates lower bound {lower[0]}"
    if equal is not None and upper and (equal > upper[0] or (equal == upper[0] and upper[1])):
        return f"eq value {equal} violates upper bound {upper[0]}"
    return None


def _preference(f: Fields, raw: Mapping[str, Any], path: str) -> Preference:
    weight = f.integer(raw.get("weight"), f"{path}.weight", minimum=-100, maximum=100)
    term_path = f"{path}.preference"
    if raw.get("preference") is None:
        raise f.fail("preference is required", term_path)
    term = f.mapping(raw["preference"], term_path)
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
        name = _property_name(f, raw_sorter.get("name"), f"{sorter_path}.name")
        order = enum(f, raw_sorter.get("sortOrder"), f"{sorter_path}.sortOrder", SORT_ORDERS)
        if order is None:
            raise f.fail("sortOrder is required", f"{sorter_path}.sortOrder")
        sorter = PropertySorter(name, ascending=order == "Ascending")
    return Preference(weight, selector, sorter)


def _spread(f: Fields, raw: Mapping[str, Any], path: str) -> SpreadConstraint:
    skew = f.integer(raw.get("maxSkew", 1), f"{path}.maxSkew", minimum=1, maximum=INT32)
    key = f.string(raw.get("topologyKey"), f"{path}.topologyKey")
    if not key:
        raise f.fail("topologyKey is required", f"{path}.topologyKey")
    when_path = f"{path}.whenUnsatisfiable"
    when = enum(f, raw.get("whenUnsatisfiable"), when_path, WHEN_UNSATISFIABLE, "DoNotSchedule")
    return SpreadConstraint(key, skew, hard=when == "DoNotSchedule")


def _toleration(f: Fields, raw: Mapping[str, Any], path: str) -> Toleration:
    """A toleration, refused as the CRD (enums, its CEL rules) and the webhook (validateTolerations:
    a qualified key, a label value) refuse it."""
    key = f.string(raw.get("key"), f"{path}.key")
    operator_name = enum(f, raw.get("operator"), f"{path}.operator", TOLERATION_OPERATORS, "Equal")
    operator = TolerationOperator(operator_name)
    value = f.string(raw.get("value"), f"{path}.value")
    effect = enum(f, raw.get("effect"), f"{path}.effect", TAINT_EFFECTS, "")
    if operator is TolerationOperator.EXISTS and value:
        raise f.fail("value must be empty when operator is Exists", f"{path}.value")
    if not key and operator is not TolerationOperator.EXISTS:
        raise f.fail("operator must be Exists when key is empty", f"{path}.operator")
    if key and (errors := qualified_name_errors(key)):
        raise f.fail(f"invalid toleration key {key!r}: {'; '.join(errors)}", f"{path}.key")
    if operator is TolerationOperator.EQUAL and (errors := label_value_errors(value)):
        raise f.fail(f"invalid toleration value {value!r}: {'; '.join(errors)}", f"{path}.value")
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


# The Go types of a placement policy (apis/placement/v1beta1/clusterresourceplacement_types.go,
# metav1.LabelSelector) as encoding/json writes them: a struct's fields in declaration order, each
# with its JSON name and whether it is `omitempty`.
@dataclass(frozen=True, slots=True)
class _Scalar:
    name: str  # "string", "int" or "map" (a map[string]string)


@dataclass(frozen=True, slots=True)
class _Pointer:
    of: Any


@dataclass(frozen=True, slots=True)
class _Slice:
    of: Any


@dataclass(frozen=True, slots=True)
class _Struct:
    fields: tuple[tuple[str, Any, bool], ...]  # (JSON name, type, omitempty)


_STRING, _INT, _MAP = _Scalar("string"), _Scalar("int"), _Scalar("map")
_TERM = _Struct(
    (
        (
            "labelSelector",
            _Pointer(
                _Struct(
                    (
                        ("matchLabels", _MAP, True),
                        (
                            "matchExpressions",
                            _Slice(
                                _Struct(
                                    (
                                        ("key", _STRING, False),
                                        ("operator", _STRING, False),
                                        ("values", _Slice(_STRING), True),
                                    )
                                )
                            ),
                            True,
                        ),
                    )
                )
            ),
            True,
        ),
        (
            "propertySelector",
            _Pointer(
                _Struct(
                    (
                        (
                            "matchExpressions",
                            _Slice(
                                _Struct(
                                    (
                                        ("name", _STRING, False),
                                        ("operator", _STRING, False),
                                        ("values", _Slice(_STRING), False),
                                    )
                                )
                            ),
                            False,
                        ),
                    )
                )
            ),
            True,
        ),
        (
            "propertySorter",
            _Pointer(_Struct((("name", _STRING, False), ("sortOrder", _STRING, False)))),
            True,
        ),
    )
)
_AFFINITY = _Struct(
    (
        (
            "clusterAffinity",
            _Pointer(
                _Struct(
                    (
                        (
                            "requiredDuringSchedulingIgnoredDuringExecution",
                            _Pointer(_Struct((("clusterSelectorTerms", _Slice(_TERM), False),))),
                            True,
                        ),
                        (
                            "preferredDuringSchedulingIgnoredDuringExecution",
                            _Slice(_Struct((("weight", _INT, False), ("preference", _TERM, False)))),
                            True,
                        ),
                    )
                )
            ),
            True,
        ),
    )
)
_POLICY = _Struct(
    (
        ("placementType", _STRING, True),
        ("clusterNames", _Slice(_STRING), True),
        ("numberOfClusters", _Pointer(_INT), True),
        ("affinity", _Pointer(_AFFINITY), True),
        (
            "topologySpreadConstraints",
            _Slice(
                _Struct(
                    (
                        ("maxSkew", _Pointer(_INT), True),
                        ("topologyKey", _STRING, False),
                        ("whenUnsatisfiable", _STRING, True),
                    )
                )
            ),
            True,
        ),
        (
            "tolerations",
            _Slice(_Struct(tuple((name, _STRING, True) for name in ("key", "operator", "value", "effect")))),
            True,
        ),
    )
)


def policy_hash(raw: Any) -> str:
    """What the placement controller writes as a snapshot's hash of the policy (hex; the snapshot
    holds its bytes): resource.HashOf, the lowercase hex SHA-256 of encoding/json's bytes of the
    policy as the API server stores it (the CRD's defaults filled in) without numberOfClusters
    (controller.go getOrCreateSchedulingPolicySnapshot)."""
    if raw is None:
        return hashlib.sha256(b"null").hexdigest()
    policy = _defaulted({k: v for k, v in raw.items() if k != "numberOfClusters"})
    return hashlib.sha256(_ENCODE_POLICY(policy).encode()).hexdigest()


def _defaulted(policy: dict[str, Any]) -> dict[str, Any]:
    """The CRD's defaults inside a policy: placementType, a toleration's operator, a spread
    constraint's maxSkew and whenUnsatisfiable (each where the field is absent)."""
    out = {**policy, "placementType": policy.get("placementType", "PickAll")}
    for field, defaults in _ITEM_DEFAULTS.items():
        if isinstance(policy.get(field), list):
            out[field] = [{**defaults, **i} if isinstance(i, dict) else i for i in policy[field]]
    return out


_ITEM_DEFAULTS = {
    "tolerations": {"operator": "Equal"},
    "topologySpreadConstraints": {"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"},
}


def _encoder(kind: Any) -> Callable[[Any], str]:
    """How encoding/json marshals a value of Go type `kind` (decoded JSON in, its text out), made
    once per type: a nil pointer, slice or map is null, an absent string or int its zero value,
    a struct's fields in order (omitempty's left out where empty)."""
    if isinstance(kind, _Pointer):
        of = _encoder(kind.of)
        return lambda value: "null" if value is None else of(value)
    if isinstance(kind, _Slice):
        item = _encoder(kind.of)
        return lambda value: "null" if value is None else "[" + ",".join(map(item, value)) + "]"
    if kind is _STRING:
        return lambda value: _go_string("" if value is None else value)
    if kind is _INT:
        return lambda value: str(0 if value is None else value)
    if kind is _MAP:
        return _go_map
    return _struct_encoder(kind)


def _struct_encoder(kind: _Struct) -> Callable[[Any], str]:
    """A struct's encoder as one function of straight-line Python, written once per type: each
    field looked up once, its key's text and an absent field's text literals, omitempty's test
    inline where it can be (a hub hashes thousands of policies, each a few structs deep)."""
    names: dict[str, Any] = {"Mapping": Mapping, "EMPTY": ("", [], {})}

    def name(thing: Any) -> str:
        names[f"n{len(names)}"] = thing
        return f"n{len(names) - 1}"

    lines = [
        "def struct(value):",
        "    given = value if type(value) is dict or isinstance(value, Mapping) else {}",
        "    parts = []",
    ]
    for field_name, field_kind, omitempty in kind.fields:
        key, encode = _go_string(field_name) + ":", name(_present(field_kind))
        lines.append(f"    x = given.get({field_name!r})")
        if not omitempty:  # an absent field: its zero value
            absent = key + _encoder(field_kind)(None)
            lines.append(f"    parts.append({key!r} + {encode}(x) if x is not None else {absent!r})")
            continue
        if isinstance(field_kind, _Pointer):  # omitempty: a nil pointer only
            test = "x is not None"
        elif field_kind is _MAP:  # or a map whose values are all pruned nulls
            test = f"x is not None and not {name(_empty_map)}(x)"
        else:  # or an empty string, slice or map
            test = "x is not None and x not in EMPTY"
        lines.append(f"    if {test}: parts.append({key!r} + {encode}(x))")
    lines.append('    return "{" + ",".join(parts) + "}"')
    exec(compile("\n".join(lines) + "\n", "<fleet policy encoder>", "exec"), names)  # noqa: S102 (our types)
    return names["struct"]


def _present(kind: Any) -> Callable[[Any], str]:
    """_encoder(kind) of a value that is there (not None): a pointer's, its target's."""
    if isinstance(kind, _Pointer):
        return _present(kind.of)
    if kind is _STRING:
        return _go_string
    if kind is _INT:
        return str
    return _encoder(kind)


def _go_map(value: Any) -> str:
    """A map[string]string: its keys sorted; a null value the API server pruned is not in the
    stored policy."""
    if value is None:
        return "null"
    present = sorted(k for k, v in value.items() if v is not None)
    return "{" + ",".join(f"{_go_string(k)}:{_go_string(value[k])}" for k in present) + "}"


def _empty_map(value: Any) -> bool:
    """omitempty's test of a map that is there: empty once its null values are pruned."""
    if isinstance(value, Mapping):
        return all(v is None for v in value.values())
    return value in ("", [], {})


_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


@lru_cache(maxsize=1 << 14)  # field names, label keys and values repeat across a hub's policies
def _go_string(text: str) -> str:
    r"""A JSON string as encoding/json writes one: <, > and & escaped for HTML, U+2028 and U+2029
    escaped, other characters as they are but the quote, the backslash and the control
    characters (\b, \f, \n, \r, \t short, the rest \u00XX, as json.dumps writes them); a lone
    surrogate, which Go's decoder reads as U+FFFD, as that."""
    encoded = json.dumps(_LONE_SURROGATE.sub("\ufffd", text), ensure_ascii=False)
    for raw, escaped in _GO_ESCAPES:
        encoded = encoded.replace(raw, escaped)
    return encoded


_GO_ESCAPES = tuple((c, f"\\u{ord(c):04x}") for c in "<>&\u2028\u2029")


_ENCODE_POLICY = _encoder(_POLICY)
