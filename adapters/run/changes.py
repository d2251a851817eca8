"""What a run changes on the hub: the desired objects against the input ones.

    plan = plan_of(outcome, manifests)
    plan["apply"]      # only the objects that are new or differ from the input
    plan["delete"]     # references of the objects to delete
    plan["summary"]    # the run's summary, plus "unchanged": desired objects equal to the input
    diff_of(outcome, manifests)   # a unified diff per changed object, as `kubectl diff` shows it

Objects are matched by API group, kind, logical workspace (by the rule of the system that reads
the kind: adapters.registry.scope_of; "" for systems without workspaces), namespace and name;
"equal" is equality of the whole object, every field the
scheduler writes included, the metadata the API server owns aside: a desired object leaves it
out (uid, resourceVersion, ...), and a write that leaves it out keeps it (input read with `kubectl
get` carries it).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from adapters.kube.manifests import Manifest, dump_yaml_stream
from adapters.registry import scope_of, scope_rule

__all__ = [
    "SERVER_FIELDS",
    "Key",
    "changed_against",
    "changed_objects",
    "inputs_by_key",
    "diff_of",
    "diff_sections",
    "object_key",
    "plan_of",
    "served",
]

Key = tuple[str, str, str, str, str]

# Metadata the API server owns: a write does not change it (a write that leaves it out keeps it).
SERVER_FIELDS = (
    "uid",
    "creationTimestamp",
    "deletionTimestamp",
    "deletionGracePeriodSeconds",
    "resourceVersion",
    "generation",
    "managedFields",
    "selfLink",
)


def object_key(obj: Mapping[str, Any]) -> Key:
    """(API group, kind, logical workspace, namespace, name): how plans match objects (objects of
    one name may live in several workspaces)."""
    metadata = obj.get("metadata") or {}
    kind, api_version = obj.get("kind", ""), obj.get("apiVersion", "")
    if type(kind) is str and type(api_version) is str:  # every object read or written: its type's rule
        group, scope = scope_rule(kind, api_version)
        return (group, kind, scope(obj), metadata.get("namespace") or "", metadata.get("name", ""))
    return (
        str(api_version).rpartition("/")[0],
        kind,
        scope_of(obj),
        metadata.get("namespace") or "",
        metadata.get("name", ""),
    )


def served(obj: dict[str, Any], stored: Mapping[str, Any] | None) -> dict[str, Any]:
    """`obj` with the metadata the server owns (uid, creationTimestamp, deletionTimestamp,
    resourceVersion, ...) taken from `stored`, the object it replaces: what the write leaves, and
    what a comparison with `stored` must see (a write that leaves them out changes nothing)."""
    if stored is None:
        return obj
    metadata = obj.get("metadata") or {}
    kept = stored.get("metadata") or {}
    missing = {f: kept[f] for f in SERVER_FIELDS if f in kept and metadata.get(f) != kept[f]}
    return {**obj, "metadata": {**metadata, **missing}} if missing else obj


def inputs_by_key(manifests: Iterable[Manifest]) -> dict[Key, dict[str, Any]]:
    """The input objects by their keys (:func:`object_key`), for :func:`changed_against`."""
    return {object_key(m.obj): m.obj for m in manifests}


def changed_objects(
    apply: Sequence[Mapping[str, Any]], manifests: Iterable[Manifest]
) -> tuple[list[tuple[Mapping[str, Any] | None, Mapping[str, Any]]], int]:
    """(input object or None, desired object) for each desired object that is new or differs,
    in output order, and the number of desired objects equal to their input (the server's
    metadata aside: :func:`served`)."""
    return changed_against(apply, inputs_by_key(manifests))


def changed_against(
    apply: Sequence[Mapping[str, Any]], inputs: Mapping[Key, Mapping[str, Any]]
) -> tuple[list[tuple[Mapping[str, Any] | None, Mapping[str, Any]]], int]:
    """:func:`changed_objects` against the input objects by key (:func:`inputs_by_key`)."""
    changed = []
    unchanged = 0
    for obj in apply:
        before = inputs.get(object_key(obj))
        if before is not None and _equal_as_served(obj, before):
            unchanged += 1
        else:
            changed.append((before, obj))
    return changed, unchanged


def _equal_as_served(obj: Mapping[str, Any], before: Mapping[str, Any]) -> bool:
    """Whether writing `obj` over `before` leaves it as it is: equal, or equal once the server's
    metadata is kept (:func:`served`). Each comparison made once: `served` gives `obj` itself back
    where it keeps nothing, whose comparison was just made (a hub's tens of thousands of changed
    objects would each be compared twice)."""
    if before == obj:
        return True
    kept = served(obj, before)
    return kept is not obj and kept == before


def plan_of(outcome: Any, manifests: Iterable[Manifest]) -> dict[str, Any]:
    """``{"apply": [new or changed objects], "delete": [...], "summary": {..., "unchanged": n}}``."""
    changed, unchanged = changed_objects(outcome.apply, manifests)
    summary = {**outcome.summary, "changed": len(changed), "unchanged": unchanged}
    return {"apply": [obj for _, obj in changed], "delete": outcome.delete, "summary": summary}


def _path(obj: Mapping[str, Any]) -> str:
    """kubectl diff's file name, `[group.]version.Kind.namespace.name` (the namespace empty for a
    cluster-scoped object), under a directory of its logical workspace when it has one: kubectl
    diffs one workspace at a time."""
    group, _, version = str(obj.get("apiVersion", "")).rpartition("/")
    _, kind, workspace, namespace, name = object_key(obj)
    name = ".".join([*([group] if group else []), version, kind, namespace, name])
    return f"{workspace}/{name}" if workspace else name


def _lines(obj: Mapping[str, Any] | None) -> list[str]:
    if obj is None:
        return []
    return dump_yaml_stream([obj]).removeprefix("---\n").splitlines(keepends=True)


def _unified(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None, path: str) -> str:
    lines = difflib.unified_diff(
        _lines(before), _lines(after), fromfile=f"live/{path}", tofile=f"merged/{path}", n=3
    )
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return f"diff -u -N live/{path} merged/{path}\n{text}" if text else ""


def diff_of(outcome: Any, manifests: Sequence[Manifest]) -> str:
    """A unified diff of every object the run creates, changes or deletes, as ``kubectl diff``
    prints it (live against merged; a new object against nothing, a deleted one against nothing).
    One diff per object: one written and then deleted (openMCP's cluster released of its last
    finalizer) is shown deleted."""
    written, deleted = diff_sections(outcome.apply, outcome.delete, manifests)
    return "".join(written) + "".join(deleted)


def diff_sections(
    apply: Sequence[Mapping[str, Any]], delete: Sequence[Mapping[str, str]], manifests: Iterable[Manifest]
) -> tuple[list[str], list[str]]:
    """:func:`diff_of`'s text in its two sections, one diff an object: each object written (new
    or changed, not deleted after), in output order, then each object deleted."""
    inputs = inputs_by_key(manifests)
    deleted = {}
    for ref in delete:
        named = {"apiVersion": ref.get("apiVersion", ""), "kind": ref.get("kind", ""), "metadata": ref}
        deleted[object_key(named)] = (ref, named)
    changed, _ = changed_against(apply, inputs)
    written = [
        _unified(before, served(after, before), _path(after))
        for before, after in changed
        if object_key(after) not in deleted
    ]
    gone = []
    for key, (ref, named) in deleted.items():
        before = inputs.get(key)
        gone.append(_unified(before if before is not None else ref, None, _path(named)))
    return written, gone
