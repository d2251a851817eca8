"""A binding's placement as upstream's Go types hold it (policyv1alpha1.Placement,
pkg/apis/policy/v1alpha1/propagation_types.go): decoded from JSON into the structs and encoded
back, which is how the scheduler writes the applied-placement annotation (`json.Marshal` of the
placement) and how it reads it (`json.Unmarshal`).

`go_form` gives that round trip as plain data: the fields in the structs' order, unknown fields
dropped, `omitempty` fields left out when empty (an empty string, list or map, a zero number), a
pointer to a struct kept even when the struct is empty, map keys sorted; `go_json` writes it as
`encoding/json` does (no spaces; `<`, `>`, `&`, U+2028 and U+2029 escaped).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from adapters.kube.fields import Fields

__all__ = ["go_form", "go_json", "PLACEMENT", "CLUSTER_AFFINITY"]

# A struct: (json name, type, omitempty) per field, in the Go struct's order. Types: "str",
# "int", "strs" ([]string), "map" (map[string]string), "*S" (pointer to struct S), "S" (struct
# value: never omitted), "[S]" (list of S), "inline S" (S's fields embedded).
_STRUCTS: dict[str, tuple[tuple[str, str, bool], ...]] = {
    "Placement": (
        ("clusterAffinity", "*ClusterAffinity", True),
        ("clusterAffinities", "[ClusterAffinityTerm]", True),
        ("clusterTolerations", "[Toleration]", True),
        ("spreadConstraints", "[SpreadConstraint]", True),
        ("replicaScheduling", "*ReplicaSchedulingStrategy", True),
        ("workloadAffinity", "*WorkloadAffinity", True),
    ),
    "ClusterAffinity": (
        ("labelSelector", "*LabelSelector", True),
        ("fieldSelector", "*FieldSelector", True),
        ("clusterNames", "strs", True),
        ("exclude", "strs", True),
    ),
    "ClusterAffinityTerm": (
        ("affinityName", "str", False),
        ("", "inline ClusterAffinity", False),
        ("overflowAffinities", "[OverflowClusterAffinity]", True),
    ),
    "OverflowClusterAffinity": (("affinityName", "str", False), ("", "inline ClusterAffinity", False)),
    "LabelSelector": (("matchLabels", "map", True), ("matchExpressions", "[Requirement]", True)),
    "FieldSelector": (("matchExpressions", "[Requirement]", True),),
    "Requirement": (("key", "str", False), ("operator", "str", False), ("values", "strs", True)),
    "Toleration": (
        ("key", "str", True),
        ("operator", "str", True),
        ("value", "str", True),
        ("effect", "str", True),
        ("tolerationSeconds", "*int", True),
    ),
    "SpreadConstraint": (
        ("spreadByField", "str", True),
        ("spreadByLabel", "str", True),
        ("maxGroups", "int", True),
        ("minGroups", "int", True),
    ),
    "ReplicaSchedulingStrategy": (
        ("replicaSchedulingType", "str", True),
        ("replicaDivisionPreference", "str", True),
        ("weightPreference", "*ClusterPreferences", True),
    ),
    "ClusterPreferences": (
        ("staticWeightList", "[StaticClusterWeight]", True),
        ("dynamicWeight", "str", True),
    ),
    "StaticClusterWeight": (("targetCluster", "ClusterAffinity", False), ("weight", "int", False)),
    "WorkloadAffinity": (("affinity", "*WorkloadTerm", True), ("antiAffinity", "*WorkloadTerm", True)),
    "WorkloadTerm": (("groupByLabelKey", "str", False),),
}
PLACEMENT, CLUSTER_AFFINITY = "Placement", "ClusterAffinity"


def go_form(f: Fields, raw: Any, struct: str, path: str) -> dict[str, Any]:
    """`raw` (an object of type `struct`) decoded into the Go struct and encoded back; a value of
    the wrong type is an InputError at its path (Go's decoder refuses it too)."""
    out: dict[str, Any] = {}
    _fill(f, f.mapping(raw, path), struct, path, out)
    return out


def _fill(f: Fields, raw: Mapping[str, Any], struct: str, path: str, out: dict[str, Any]) -> None:
    for name, kind, omitempty in _STRUCTS[struct]:
        if kind.startswith("inline "):
            _fill(f, raw, kind[len("inline ") :], path, out)
            continue
        value = _value(f, raw.get(name), kind, f"{path}.{name}")
        if omitempty and value in ("", 0, [], {}) and not kind.startswith("*"):
            continue
        if kind.startswith("*") and value is None:
            continue
        out[name] = value


def _value(f: Fields, raw: Any, kind: str, path: str) -> Any:
    if kind == "str":
        return f.string(raw, path)
    if kind == "int":
        return 0 if raw is None else f.integer(raw, path)
    if kind == "*int":
        return None if raw is None else f.integer(raw, path)
    if kind == "strs":
        return f.string_list(raw, path)
    if kind == "map":
        return dict(sorted(f.string_map(raw, path, pruned=True).items()))
    if kind.startswith("["):
        return [go_form(f, item, kind[1:-1], where) for where, item in f.objects(raw, path)]
    if kind.startswith("*"):
        return None if raw is None else go_form(f, raw, kind[1:], path)
    return go_form(f, raw, kind, path)


_ESCAPES = str.maketrans(
    {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
)


def go_json(value: Any) -> str:
    """`value` as Go's json.Marshal writes it."""
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).translate(_ESCAPES)
