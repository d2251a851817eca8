"""kcp's other actors, beside the scheduler: pure transition functions over plain objects.

    acted = namespace_controller_v05(objects, now)     # -> Acted(objects, transitions, wake)
    for name, actor in ACTORS["v0.8"]: acted = actor(objects, now); objects = acted.objects

Each actor takes the current objects (dicts as `kubectl get -o json` gives them; never changed in
place) and the moment it runs, and returns the objects after one pass of it over every object, the
transitions it made (one per changed facet: an entry of the placement annotation, a label, an
annotation, a finalizer) and, when it is waiting for time to pass with nothing else to do, the
moment it will act again (`wake`). No solver is involved: the scheduler is the pipeline.

The actors (semantics reference, part 2; the key names of each generation in `Keys`):

v0.5 (WorkloadCluster era; the placement annotation is a JSON map `{"<ws>+<location>+<cluster>":
state}` written by the scheduler):

- namespace-controller (`workload/namespace`), per entry: Pending or Bound -> the state label
  `state.internal.workloads.kcp.dev/<cluster>: Sync` (and a removal of that cluster under way is
  called off: its deletion annotation goes); Pending -> Bound once the syncer has adopted the
  namespace, i.e. its finalizer `workloads.kcp.dev/syncer-<cluster>` is on it (the documented
  target behaviour: v0.5 itself never moved Pending to Bound; without it nothing would ever be
  Bound); Removing -> the deletion annotation `deletion.internal.workloads.kcp.dev/<cluster>` set
  to now if missing, and once the state label is gone, Unbound and the deletion annotation removed;
  Unbound -> a stray state label and deletion annotation removed. A choice beyond v0.5: a state
  label of a cluster that no entry names any more (a Pending entry the scheduler dropped, an
  unbound workspace) is taken down the same way as a Removing entry (deletion annotation, then the
  syncer removes the label, then the annotation goes), so that no namespace keeps syncing to a
  cluster it is not placed on. A namespace whose annotation is not a JSON object of strings is left
  alone (the scheduler reports it), and malformed entries are kept as they are and otherwise
  ignored.
- resource-controller (`workload/resource`): every namespaced object of a namespace follows the
  namespace's state labels and deletion annotations (below).
- syncer (one per cluster): on every object whose state label is `Sync` and that carries no
  deletion annotation for its cluster, puts the finalizer `workloads.kcp.dev/syncer-<cluster>`
  (adopting it: it syncs the object downstream); on an object with the deletion annotation it waits
  while `finalizers.workloads.kcp.dev/<cluster>` (a comma list annotation of coordination
  controllers) is non-empty, then deletes downstream and removes its finalizer and the state label.
  In v0.5 the syncer takes part in the namespace's own deletion too (the docs say it "has to"):
  a namespace's state label goes only once no object in it still carries that cluster's label.

v0.8 (SyncTarget and Placement; the cluster in a key is the SyncTargetKey):

- namespace-controller (Controller C, `workload/namespace`): the bind sub-reconciler (the marker
  annotation `scheduling.kcp.dev/placement: ""` while a valid Placement selects the namespace,
  removed when none does) and the scheduling sub-reconciler: `scheduled` = the
  `internal.workload.kcp.dev/synctarget` of every valid Placement, `synced` = state labels without
  a deletion annotation, `removing` = with one; a synced key no longer scheduled gets the deletion
  annotation (now); a removing key more than 5 s old (`REMOVING_GRACE`) loses label and annotation
  (until then the actor `wake`s at its end; a time Go's time.Parse cannot read is its zero time,
  long past); a scheduled key neither synced nor removing gets the label `Sync` (a removing key
  is not revived inside the grace window). One merge per namespace. Then the status step: the
  NamespaceScheduled condition (v08.scheduled_condition). kube-system, kube-public and
  kube-node-lease only in a workspace with a Placement (whose events enqueue them).
  A Placement is valid when its phase is not Pending, its Ready condition not False and its
  namespaceSelector matches the namespace's labels (a missing selector matches nothing).
- resource-controller and syncer as in v0.5 with the v0.8 key names; the syncer works on the
  namespaced objects only (the namespace's label is Controller C's, taken off after the grace).

The resource controller, per namespaced object O of namespace N (same workspace) and cluster C:
N removing C (deletion annotation) -> O, while it carries C's label, gets the same deletion
annotation; N syncing C (label, no deletion annotation) -> O gets N's label and loses a deletion
annotation for C; N neither -> O, if it still carries C's label, gets a deletion annotation (now),
and a leftover deletion annotation without the label goes. It never removes a state label: only the
syncer does, once removal is signalled and the coordination finalizers are empty, which is the
invariant `label_losses` checks.

Every pass visits objects in input order and keys in sorted order, so the same input gives the same
output. Objects are identified by workspace (adapters.kcp.workspace.workspace_of), API group, kind,
namespace and name.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.kcp import names as n
from adapters.kcp.annotation import format_placement, parse_placement
from adapters.kcp.names import State
from adapters.kcp.status import set_condition
from adapters.kcp.v08 import scheduled_condition
from adapters.kcp.workspace import reference, workspace_of
from adapters.kcp.world import parse_rfc3339
from adapters.kube.fields import time_text

__all__ = [
    "ACTORS",
    "GENERATIONS",
    "REMOVING_GRACE",
    "V05",
    "V08",
    "Acted",
    "Keys",
    "Transition",
    "describe",
    "diff_objects",
    "facets",
    "generation_of",
    "identity",
    "label_losses",
    "namespace_controller_v05",
    "namespace_controller_v08",
    "resource_controller",
    "syncer",
    "workspace_of",
]

Obj = dict[str, Any]

GENERATIONS = ("v0.5", "v0.8")
REMOVING_GRACE = timedelta(seconds=n.REMOVING_GRACE_SECONDS)  # Controller C's removingGracePeriod

PENDING, BOUND, REMOVING, UNBOUND = (
    str(s) for s in (State.PENDING, State.BOUND, State.REMOVING, State.UNBOUND)
)
ABSENT = "-"  # a facet's value in a transition when it is not there


@dataclass(frozen=True, slots=True)
class Keys:
    """The names the syncing state machine uses in one generation; each takes the cluster id."""

    state: str  # label prefix
    deletion: str  # annotation prefix, RFC 3339 value
    finalizers: str  # annotation prefix, comma list of coordination finalizers
    syncer: str  # metadata.finalizers entry prefix

    def of(self, prefix: str, mapping: Mapping[str, str]) -> dict[str, str]:
        """cluster id -> value of every `prefix<cluster>` key of `mapping`."""
        return {
            k[len(prefix) :]: v for k, v in mapping.items() if k.startswith(prefix) and len(k) > len(prefix)
        }


V05 = Keys(
    state=n.V05_STATE_LABEL,
    deletion=n.V05_DELETION_ANNOTATION,
    finalizers=n.V05_FINALIZERS_ANNOTATION,
    syncer=n.V05_SYNCER_FINALIZER,
)
V08 = Keys(
    state=n.STATE_LABEL,
    deletion=n.DELETION_ANNOTATION,
    finalizers=n.FINALIZERS_ANNOTATION,
    syncer=n.SYNCER_FINALIZER,
)
KEYS = {"v0.5": V05, "v0.8": V08}


@dataclass(frozen=True, slots=True)
class Transition:
    """One facet of one object changed by one actor: `detail` names the facet (`label <key>`,
    `annotation <key>`, `finalizer <name>`, `placement <ws+location+cluster>`, `phase`, ...),
    `before` and `after` its values (`-` when absent, `""` when empty)."""

    actor: str
    object: str
    detail: str
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class Acted:
    """An actor's pass: the objects after it, what it changed, and the moment it will act again
    with nothing else changing (None: it waits for nothing)."""

    objects: list[Obj]
    transitions: list[Transition]
    wake: datetime | None = None


# ================================================================================ object helpers


def generation_of(objects: Iterable[Mapping[str, Any]]) -> str:
    """The API generation a set of objects is in: v0.5 when it holds WorkloadClusters and no
    SyncTarget or Placement, else v0.8."""
    kinds = {o.get("kind") for o in objects}
    return "v0.5" if "WorkloadCluster" in kinds and not kinds & {"SyncTarget", "Placement"} else "v0.8"


def _meta(obj: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = obj.get("metadata")
    return meta if isinstance(meta, Mapping) else {}


def _strings(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping):
        return {}
    return {str(k): v for k, v in value.items() if isinstance(v, str)}


def _labels(obj: Mapping[str, Any]) -> dict[str, str]:
    return _strings(_meta(obj).get("labels"))


def _annotations(obj: Mapping[str, Any]) -> dict[str, str]:
    return _strings(_meta(obj).get("annotations"))


def _finalizers(obj: Mapping[str, Any]) -> list[str]:
    value = _meta(obj).get("finalizers")
    return [f for f in value if isinstance(f, str)] if isinstance(value, list) else []


def _group(obj: Mapping[str, Any]) -> str:
    return str(obj.get("apiVersion") or "").rpartition("/")[0]


def identity(obj: Mapping[str, Any]) -> tuple[str, str, str, str, str]:
    """(workspace, API group, kind, namespace, name): what the API server keys an object by."""
    meta = _meta(obj)
    return (
        workspace_of(obj),
        _group(obj),
        str(obj.get("kind") or ""),
        str(meta.get("namespace") or ""),
        str(meta.get("name") or ""),
    )


def describe(obj: Mapping[str, Any]) -> str:
    """`Kind workspace|name` or `Kind workspace|namespace/name` (kcp's own notation for a key in a
    logical cluster)."""
    ws, _, kind, namespace, name = identity(obj)
    return reference(kind, ws, name, namespace)


def _is_namespace(obj: Mapping[str, Any]) -> bool:
    return obj.get("kind") == "Namespace" and _group(obj) == ""


def _now_text(now: datetime) -> str:
    return time_text(now if now.tzinfo else now.replace(tzinfo=UTC))


def coordination_finalizers(obj: Mapping[str, Any], keys: Keys, cluster: str) -> list[str]:
    """The coordination controllers' finalizers holding back `cluster`'s downstream removal."""
    raw = _annotations(obj).get(keys.finalizers + cluster, "")
    return [item.strip() for item in raw.split(",") if item.strip()]


# ====================================================================================== facets


def facets(obj: Mapping[str, Any]) -> dict[str, str]:
    """What a transition log shows of an object: every label, annotation and finalizer, the v0.5
    placement annotation entry by entry (when it is a JSON object), a Placement's phase and
    selected location, a Placement's or Namespace's conditions (status and reason)."""
    out: dict[str, str] = {}
    for key, value in _labels(obj).items():
        out[f"label {key}"] = value
    for key, value in _annotations(obj).items():
        if key == n.PLACEMENT_ANNOTATION and value:
            parsed = parse_placement(value)
            if not parsed.invalid:
                for location, (_, state) in parsed.entries.items():
                    out[f"placement {location}"] = str(state)
                for location, raw in parsed.malformed.items():
                    out[f"placement {location}"] = json.dumps(raw) + " (malformed)"
                continue
        out[f"annotation {key}"] = value
    for name in _finalizers(obj):
        out[f"finalizer {name}"] = "present"
    status = obj.get("status")
    if isinstance(status, Mapping) and obj.get("kind") in ("Placement", "Namespace"):
        if isinstance(status.get("phase"), str) and obj.get("kind") == "Placement":
            out["phase"] = status["phase"]
        selected = status.get("selectedLocation")
        if isinstance(selected, Mapping):
            out["selectedLocation"] = f"{selected.get('path', '')}:{selected.get('locationName', '')}"
        for condition in status.get("conditions") or ():
            if isinstance(condition, Mapping) and condition.get("type"):
                reason = condition.get("reason")
                out[f"condition {condition['type']}"] = str(condition.get("status", "")) + (
                    f" ({reason})" if reason else ""
                )
    return out


def diff_objects(
    actor: str, before: Mapping[str, Any] | None, after: Mapping[str, Any] | None
) -> list[Transition]:
    """The transitions from `before` to `after` (either None: created or deleted), facet by facet
    in sorted order; a change no facet shows is one `object: changed` transition."""
    if before is None and after is None:
        return []
    name = describe(after if after is not None else before)  # type: ignore[arg-type]
    if before is None:
        return [Transition(actor, name, "object", ABSENT, "created")]
    if after is None:
        return [Transition(actor, name, "object", "present", "deleted")]
    old, new = facets(before), facets(after)
    out = [
        Transition(actor, name, key, _shown(old.get(key)), _shown(new.get(key)))
        for key in sorted(old.keys() | new.keys())
        if old.get(key) != new.get(key)
    ]
    if not out and before != after:
        out.append(Transition(actor, name, "object", "present", "changed"))
    return out


def _shown(value: str | None) -> str:
    """A facet's value in a transition: `-` when absent, `""` when empty."""
    if value is None:
        return ABSENT
    return value or '""'


class _Editor:
    """Copy-on-write edits of a list of objects, and the transitions they make."""

    def __init__(self, actor: str, objects: Sequence[Obj]) -> None:
        self.actor = actor
        self.before = list(objects)
        self.after = list(objects)
        self._copied: dict[int, None] = {}  # in the order of first edit: the log's order

    def edit(self, index: int) -> Obj:
        """A private copy of object `index` to change (made once)."""
        if index not in self._copied:
            self._copied[index] = None
            obj = copy.deepcopy(self.before[index])
            obj.setdefault("metadata", {})
            self.after[index] = obj
        return self.after[index]

    def current(self, index: int) -> Obj:
        return self.after[index]

    def done(self, wake: datetime | None = None) -> Acted:
        transitions: list[Transition] = []
        for index in self._copied:
            _tidy(self.after[index])
            if self.after[index] == self.before[index]:
                self.after[index] = self.before[index]
                continue
            transitions += diff_objects(self.actor, self.before[index], self.after[index])
        return Acted(self.after, transitions, wake)


def _tidy(obj: Obj) -> None:
    """No empty labels, annotations or finalizers left behind by an edit."""
    meta = obj["metadata"]
    for field in ("labels", "annotations", "finalizers"):
        if field in meta and not meta[field]:
            del meta[field]


def _set(obj: Obj, field: str, key: str, value: str | None) -> None:
    """metadata.<field>[key] = value; None removes it."""
    meta = obj["metadata"]
    if value is None:
        if isinstance(meta.get(field), dict):
            meta[field].pop(key, None)
        return
    if not isinstance(meta.get(field), dict):
        meta[field] = {}
    meta[field][key] = value


def _finalize(obj: Obj, name: str, present: bool) -> None:
    meta = obj["metadata"]
    current = [f for f in meta.get("finalizers") or () if isinstance(f, str)]
    if present and name not in current:
        meta["finalizers"] = [*current, name]
    elif not present and name in current:
        meta["finalizers"] = [f for f in current if f != name]


# =================================================================================== the actors


def namespace_controller_v05(objects: Sequence[Obj], now: datetime) -> Acted:
    """v0.5's workload namespace controller over every Namespace (see the module docstring)."""
    ed = _Editor("namespace-controller", objects)
    stamp = _now_text(now)
    keys = V05
    for index, obj in enumerate(objects):
        if not _is_namespace(obj):
            continue
        annotations = _annotations(obj)
        parsed = parse_placement(annotations.get(n.PLACEMENT_ANNOTATION))
        if parsed.invalid:
            continue
        entries = {key: str(state) for key, (_, state) in parsed.entries.items()}
        labels = keys.of(keys.state, _labels(obj))
        deleting = keys.of(keys.deletion, annotations)
        adopted = {f[len(keys.syncer) :] for f in _finalizers(obj) if f.startswith(keys.syncer)}
        by_cluster: dict[str, list[str]] = {}
        for location, (entry, _) in sorted(parsed.entries.items()):
            by_cluster.setdefault(entry.cluster, []).append(location)
        new_entries = dict(entries)
        wanted_label: dict[str, str | None] = {}
        wanted_deletion: dict[str, str | None] = {}
        for cluster, locations in sorted(by_cluster.items()):
            states = {entries[loc] for loc in locations}
            if states & {PENDING, BOUND}:  # syncing (wins over a Removing entry of the same cluster)
                if labels.get(cluster) != n.SYNC:
                    wanted_label[cluster] = n.SYNC
                if cluster in deleting:
                    wanted_deletion[cluster] = None  # a removal called off
                if cluster in adopted and labels.get(cluster) == n.SYNC:
                    for loc in locations:
                        if entries[loc] == PENDING:
                            new_entries[loc] = BOUND
            elif REMOVING in states:
                if cluster not in labels:
                    for loc in locations:
                        if entries[loc] == REMOVING:
                            new_entries[loc] = UNBOUND
                    if cluster in deleting:
                        wanted_deletion[cluster] = None
                elif cluster not in deleting:
                    wanted_deletion[cluster] = stamp
            elif UNBOUND in states:
                if cluster in labels:
                    wanted_label[cluster] = None
                if cluster in deleting:
                    wanted_deletion[cluster] = None
        # Labels of clusters no entry names: taken down like a Removing entry.
        for cluster in sorted((labels.keys() | deleting.keys()) - by_cluster.keys()):
            if cluster in labels and cluster not in deleting:
                wanted_deletion[cluster] = stamp
            elif cluster not in labels and cluster in deleting:
                wanted_deletion[cluster] = None
        if new_entries == entries and not wanted_label and not wanted_deletion:
            continue
        out = ed.edit(index)
        if new_entries != entries:
            _set(out, "annotations", n.PLACEMENT_ANNOTATION, format_placement(new_entries, parsed.malformed))
        for cluster, value in wanted_label.items():
            _set(out, "labels", keys.state + cluster, value)
        for cluster, value in wanted_deletion.items():
            _set(out, "annotations", keys.deletion + cluster, value)
    return ed.done()


def _selector_matches(selector: Any, labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector; None (and anything that is not an object) matches nothing, {} all;
    an expression upstream could not build matches nothing."""
    if not isinstance(selector, Mapping):
        return False
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for item in selector.get("matchExpressions") or ():
        if not isinstance(item, Mapping):
            return False
        key, op, values = item.get("key"), item.get("operator"), list(item.get("values") or ())
        if op == "In":
            ok = key in labels and labels[key] in values
        elif op == "NotIn":
            ok = key not in labels or labels[key] not in values
        elif op == "Exists":
            ok = key in labels
        elif op == "DoesNotExist":
            ok = key not in labels
        else:
            return False
        if not ok:
            return False
    return True


def _valid_placement(placement: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    status = placement.get("status")
    status = status if isinstance(status, Mapping) else {}
    if (status.get("phase") or PENDING) == PENDING:
        return False
    for condition in status.get("conditions") or ():
        if (
            isinstance(condition, Mapping)
            and condition.get("type") == "Ready"
            and condition.get("status") == "False"
        ):
            return False
    spec = placement.get("spec")
    return _selector_matches(spec.get("namespaceSelector") if isinstance(spec, Mapping) else None, labels)


def namespace_controller_v08(objects: Sequence[Obj], now: datetime) -> Acted:
    """v0.8's Controller C (bind and scheduling sub-reconcilers) over every Namespace."""
    ed = _Editor("namespace-controller", objects)
    stamp = _now_text(now)
    keys = V08
    placements: dict[str, list[Obj]] = {}
    for obj in objects:
        if obj.get("kind") == "Placement" and _group(obj) == n.SCHEDULING_GROUP:
            placements.setdefault(workspace_of(obj), []).append(obj)
    wake: datetime | None = None
    for index, obj in enumerate(objects):
        if not _is_namespace(obj):
            continue
        if _meta(obj).get("name") in n.NAMESPACE_BLOCKLIST and workspace_of(obj) not in placements:
            continue  # its event filter leaves it out, and no Placement's event enqueues it
        labels_all = _labels(obj)
        annotations = _annotations(obj)
        valid = [p for p in placements.get(workspace_of(obj), ()) if _valid_placement(p, labels_all)]
        marked = n.PLACEMENT_ANNOTATION in annotations
        bind: bool | None = None
        if valid and not marked:
            bind, marked = True, True
        elif not valid and marked:
            bind, marked = False, False
        scheduled = set()
        if marked:
            for p in valid:
                target = _annotations(p).get(n.SYNC_TARGET_ANNOTATION)
                if target:
                    scheduled.add(target)
        labels = keys.of(keys.state, labels_all)
        deleting = keys.of(keys.deletion, annotations)
        synced = {k for k in labels if k not in deleting}
        removing = {k: deleting[k] for k in labels if k in deleting}
        wanted_label: dict[str, str | None] = {}
        wanted_deletion: dict[str, str | None] = {}
        for key in sorted(synced - scheduled):
            wanted_deletion[key] = stamp
        for key, text in sorted(removing.items()):
            since = parse_rfc3339(text)
            if since is None or now - since > REMOVING_GRACE:  # unreadable: Go's zero time
                wanted_label[key] = None
                wanted_deletion[key] = None
            else:
                end = since + REMOVING_GRACE
                wake = end if wake is None else min(wake, end)
        for key in sorted(scheduled - synced - removing.keys()):
            wanted_label[key] = n.SYNC
        changes = [("labels", keys.state + key, value) for key, value in wanted_label.items()]
        changes += [("annotations", keys.deletion + key, value) for key, value in wanted_deletion.items()]
        if bind is not None:
            changes.insert(0, ("annotations", n.PLACEMENT_ANNOTATION, "" if bind else None))
        # The status sub-reconciler, from the namespace as the two steps before left it.
        after = {"labels": dict(labels_all), "annotations": dict(annotations)}
        for field, key, value in changes:
            _set({"metadata": after}, field, key, value)
        condition = scheduled_condition(after["labels"], after["annotations"])
        status = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
        before = list(status.get("conditions") or [])
        conditions = set_condition(before, n.NAMESPACE_SCHEDULED, condition, stamp)
        if not changes and conditions == before:
            continue
        out = ed.edit(index)
        for field, key, value in changes:
            _set(out, field, key, value)
        if conditions != before:
            out["status"] = {**status, "conditions": conditions}
    return ed.done(wake)


def _namespaces(objects: Sequence[Obj]) -> dict[tuple[str, str], int]:
    """(workspace, name) -> index of every Namespace."""
    return {
        (workspace_of(obj), str(_meta(obj).get("name") or "")): i
        for i, obj in enumerate(objects)
        if _is_namespace(obj)
    }


def _workload(obj: Mapping[str, Any], namespaces: Mapping[tuple[str, str], int]) -> int | None:
    """The index of the Namespace a namespaced object lives in; None for anything else."""
    namespace = _meta(obj).get("namespace")
    if not namespace or _is_namespace(obj):
        return None
    return namespaces.get((workspace_of(obj), str(namespace)))


def resource_controller(objects: Sequence[Obj], now: datetime, *, generation: str) -> Acted:
    """The workload resource controller: namespaced objects follow their namespace's state labels and
    deletion annotations (see the module docstring); it never removes a state label."""
    keys = KEYS[generation]
    ed = _Editor("resource-controller", objects)
    stamp = _now_text(now)
    namespaces = _namespaces(objects)
    for index, obj in enumerate(objects):
        home = _workload(obj, namespaces)
        if home is None:
            continue
        ns = objects[home]
        ns_labels, ns_deleting = keys.of(keys.state, _labels(ns)), keys.of(keys.deletion, _annotations(ns))
        labels, deleting = keys.of(keys.state, _labels(obj)), keys.of(keys.deletion, _annotations(obj))
        changes: list[tuple[str, str, str | None]] = []
        for cluster in sorted(ns_labels.keys() | ns_deleting.keys() | labels.keys() | deleting.keys()):
            if cluster in ns_deleting:
                if cluster in labels and cluster not in deleting:
                    changes.append(("annotations", keys.deletion + cluster, ns_deleting[cluster]))
            elif cluster in ns_labels:
                if labels.get(cluster) != ns_labels[cluster]:
                    changes.append(("labels", keys.state + cluster, ns_labels[cluster]))
                if cluster in deleting:
                    changes.append(("annotations", keys.deletion + cluster, None))
            elif cluster in labels:
                if cluster not in deleting:
                    changes.append(("annotations", keys.deletion + cluster, stamp))
            elif cluster in deleting:
                changes.append(("annotations", keys.deletion + cluster, None))
        if changes:
            out = ed.edit(index)
            for field, key, value in changes:
                _set(out, field, key, value)
    return ed.done()


def syncer(objects: Sequence[Obj], now: datetime, *, generation: str) -> Acted:
    """Every cluster's syncer: adopt what is to be synced (finalizer), remove what is signalled for
    removal once no coordination finalizer holds it (finalizer and state label go). v0.5: the
    namespaces too, after their objects (see the module docstring)."""
    keys = KEYS[generation]
    ed = _Editor("syncer", objects)
    namespaces = _namespaces(objects)
    still: dict[int, set[str]] = {}  # namespace index -> clusters an object in it still carries

    def visit(index: int) -> None:
        obj = ed.current(index)
        labels, deleting = keys.of(keys.state, _labels(obj)), keys.of(keys.deletion, _annotations(obj))
        finalizers = set(_finalizers(obj))
        for cluster in sorted(labels):
            mine = keys.syncer + cluster
            if cluster not in deleting:
                if labels[cluster] == n.SYNC and mine not in finalizers:
                    _finalize(ed.edit(index), mine, True)
                continue
            if coordination_finalizers(obj, keys, cluster):
                continue  # held back by a coordination controller
            if _is_namespace(obj) and cluster in still.get(index, ()):
                continue  # the downstream namespace goes after its contents
            out = ed.edit(index)
            _finalize(out, mine, False)
            _set(out, "labels", keys.state + cluster, None)

    for index, obj in enumerate(objects):
        home = _workload(obj, namespaces)
        if home is None:
            continue
        visit(index)
        left = keys.of(keys.state, _labels(ed.current(index)))
        still.setdefault(home, set()).update(left)
    if generation == "v0.5":
        for index in sorted(namespaces.values()):
            visit(index)
    return ed.done()


def _with(actor: Callable[..., Acted], generation: str) -> Callable[[Sequence[Obj], datetime], Acted]:
    def run(objects: Sequence[Obj], now: datetime) -> Acted:
        return actor(objects, now, generation=generation)

    run.__name__ = f"{actor.__name__}_{generation.replace('.', '')}"
    return run


# generation -> the actors after the scheduler, in the order one simulation step runs them.
ACTORS: dict[str, tuple[tuple[str, Callable[[Sequence[Obj], datetime], Acted]], ...]] = {
    "v0.5": (
        ("namespace-controller", namespace_controller_v05),
        ("resource-controller", _with(resource_controller, "v0.5")),
        ("syncer", _with(syncer, "v0.5")),
    ),
    "v0.8": (
        ("namespace-controller", namespace_controller_v08),
        ("resource-controller", _with(resource_controller, "v0.8")),
        ("syncer", _with(syncer, "v0.8")),
    ),
}


# =================================================================================== invariant


def label_losses(before: Iterable[Obj], after: Iterable[Obj], *, generation: str) -> list[str]:
    """Workload objects (namespaced, not Namespaces) that lost a state label between `before` and
    `after` although their downstream removal was not signalled in `before` (the deletion
    annotation set and the coordination finalizers empty). Must be empty for every actor's pass
    and every scheduler run."""
    keys = KEYS[generation]
    old = {identity(o): o for o in before if _meta(o).get("namespace") and not _is_namespace(o)}
    problems = []
    for obj in after:
        previous = old.get(identity(obj))
        if previous is None:
            continue
        had = keys.of(keys.state, _labels(previous))
        has = keys.of(keys.state, _labels(obj))
        deleting = keys.of(keys.deletion, _annotations(previous))
        for cluster in sorted(had.keys() - has.keys()):
            if cluster not in deleting:
                problems.append(
                    f"{describe(obj)}: {keys.state}{cluster} removed without a deletion annotation"
                )
            elif coordination_finalizers(previous, keys, cluster):
                problems.append(
                    f"{describe(obj)}: {keys.state}{cluster} removed while coordination finalizers held it"
                )
    return problems
