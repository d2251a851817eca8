"""Fleet's schema checks (adapters.fleet.schema) judge a well-formed object in one quick pass and
walk it rule by rule, naming what fails, only where that pass cannot vouch for it. The quick pass
must never take what the walk refuses; and the objects a hub is made of take the quick pass."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.errors import InputError
from adapters.fleet import schema
from adapters.kube.fields import INT32, INT64, Fields
from adapters.kube.manifests import Manifest
from tests.fixtures.hubs import valid_hub

CONDITION = {"type": "Ready", "status": "True", "lastTransitionTime": "2026-11-21T12:00:00Z", "reason": "R"}
NAMESPACE, SCOPED = {"group": "", "version": "v1", "kind": "Namespace"}, "NamespaceWithResourceSelectors"
EDGES = (
    None,
    True,
    0,
    -1,
    1,
    101,
    600,
    601,
    INT32,
    INT32 + 1,
    -INT32 - 2,
    INT64 + 1,
    1.0,
    1.5,
    "",
    "a",
    "5",
    "50%",
    "101%",
    "2026-11-21T12:00:00Z",
    "2026-02-30T12:00:00Z",
    "Mirror",
    "External",
    "ServerSideApply",
    "NamespaceAccessible",
    "Namespace",
    "NamespaceWithResourceSelectors",
    "aGFzaA==",
    "aGFzaA=",
    [],
    {},
    [None],
    ["a", "b"],
    [{}],
    {"a": None},
    {"a": {"value": "1", "observationTime": "2026-11-21T12:00:00Z"}},
    {"a": {"value": "1"}},
    {"a": {"value": 1, "observationTime": "2026-11-21T12:00:00Z"}},
    {"type": "External", "rollingUpdate": {}},
    [{"clusterName": "a", "reason": "", "selected": True, "clusterScore": {"affinityScore": INT32 + 1}}],
    [{**NAMESPACE, "name": "a", "selectionScope": SCOPED}, {**NAMESPACE, "name": "b"}],
    {"applyStrategy": {"serverSideApplyConfig": {}}},
    {"applyStrategy": {"serverSideApplyConfig": {}, "type": "ServerSideApply"}},
    [{**CONDITION, "message": ""}],
    [{**CONDITION, "status": "Maybe", "message": ""}],
    [{**CONDITION, "message": ""}, {**CONDITION, "message": ""}],
)
# Values a rule's enum names (each rule's own), so that an object takes the quick pass at times.
ENUM_VALUES = tuple(
    value for rules in schema.RULES.values() for rule in rules for value in getattr(rule.check, "values", ())
)
VALUES = st.sampled_from(EDGES + ENUM_VALUES)


def _set(obj: dict[str, Any], segments: list[str], value: Any, items: int) -> None:
    """`value` at the dotted path's segments below `obj`; a segment ending in [] a list of `items`
    objects, each holding the rest of the path."""
    name, *rest = segments
    listed = name.endswith("[]")
    name = name.removesuffix("[]")
    if not rest:
        obj[name] = value
        return
    if listed:
        found = obj.get(name)
        if not isinstance(found, list) or not all(isinstance(i, dict) for i in found):
            found = obj[name] = [{} for _ in range(items)]
        for item in found:
            _set(item, rest, value, items)
        return
    found = obj.get(name)
    if not isinstance(found, dict):
        found = obj[name] = {}
    _set(found, rest, value, items)


@st.composite
def objects(draw: st.DrawFn, kind: str) -> dict[str, Any]:
    """An object of `kind` (or a policy) with some of the fields its rules name, each an edge or
    enum value; a valid hub's object of the kind underneath, where there is one."""
    bases = [o for o in valid_hub("fleet").objects if o["kind"] == kind] or [{}]
    obj = copy.deepcopy(draw(st.sampled_from(bases)))
    paths = sorted({rule.path for rule in schema.RULES[kind]})
    for path in draw(st.lists(st.sampled_from(paths), max_size=6)):
        _set(obj, path.split("."), copy.deepcopy(draw(VALUES)), draw(st.integers(1, 2)))
    return obj


def walk_refuses(obj: dict[str, Any], kind: str, version: str) -> bool:
    manifest = Manifest({"kind": kind, "metadata": {"name": "x"}, **obj}, "hub.yaml", 1)
    try:
        schema._walk(Fields(manifest), obj, schema._TREES[kind], "", version)
    except InputError:
        return False
    return True


def assert_the_walk_takes_what_the_quick_pass_takes(obj: dict[str, Any], kind: str) -> None:
    if schema._JUDGES[kind](obj):
        for version in ("v1", "v1beta1"):
            assert walk_refuses(obj, kind, version), (version, obj)


@pytest.mark.parametrize("kind", sorted(schema.RULES))
def test_the_quick_pass_never_takes_what_the_walk_refuses_one_field_at_a_time(kind) -> None:
    """Each field a rule names, in a valid object, set to each value (in one list item and in two)."""
    bases = [o for o in valid_hub("fleet").objects if o["kind"] == kind] or [{}]
    for path in sorted({rule.path for rule in schema.RULES[kind]}):
        for value in EDGES + ENUM_VALUES:
            for items in (1, 2):
                obj = copy.deepcopy(bases[0])
                _set(obj, path.split("."), copy.deepcopy(value), items)
                assert_the_walk_takes_what_the_quick_pass_takes(obj, kind)


@pytest.mark.parametrize("kind", sorted(schema.RULES))
@given(data=st.data())
def test_the_quick_pass_never_takes_what_the_walk_refuses(kind, data) -> None:
    """Several fields at once, in any of the hub's objects of the kind."""
    assert_the_walk_takes_what_the_quick_pass_takes(data.draw(objects(kind)), kind)


@pytest.mark.parametrize("kind", [k for k in schema.RULES if k != schema.POLICY])
def test_a_hubs_objects_take_the_quick_pass(kind) -> None:
    """Every object of the valid hub of its kind: no walk (its cost is the checks' whole cost)."""
    objects_of_kind = [o for o in valid_hub("fleet").objects if o["kind"] == kind]
    assert objects_of_kind
    for obj in objects_of_kind:
        assert schema._JUDGES[kind](obj), obj
        policy = obj.get("spec", {}).get("policy")
        assert policy is None or schema._JUDGES[schema.POLICY](policy)


def test_a_rules_test_written_out_says_what_its_quick_test_says() -> None:
    checks = {rule.check for rules in schema.RULES.values() for rule in rules if hasattr(rule.check, "quick")}
    assert checks
    for check in checks:
        for value in (*EDGES, *ENUM_VALUES, -101, -100, 100, INT64, -INT64 - 1, -INT64 - 2, "1"):
            assert eval(check.quick("v"), {"v": value}) == check.fine(value), (check, value)  # noqa: S307
