"""model.Result -> the objects OCM's placement controller writes: PlacementDecisions and the
Placement's status.

For each placement, sorted by namespace/name: its PlacementDecisions `<placement>-decision-<k>`
(k from 1 across the decision groups, at most 100 decisions each, at least one object), then the
Placement with numberOfSelectedClusters, decisionGroups and the PlacementMisconfigured and
PlacementSatisfied conditions. Its other PlacementDecisions are listed for deletion.

A decision strategy upstream cannot apply (groups.py) leaves upstream with no decision group at
all: no PlacementDecision is written (every existing one is deleted) while the status still counts
the selected clusters; that is reproduced here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.contract import Emitted
from adapters.kube.fields import time_text
from adapters.kube.manifests import object_reference
from adapters.ocm import names as n
from adapters.ocm.groups import decision_groups
from adapters.ocm.load import OcmContext, PlacementContext
from adapters.run.changes import served
from model import Choice, Result

__all__ = ["Emitted", "emit"]

_SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def emit(context: OcmContext, result: Result) -> Emitted:
    apply: list[dict[str, Any]] = []
    delete: list[dict[str, str]] = []
    by_request = result.by_request()
    now = time_text(context.now)
    unsatisfied: list[str] = []
    for key in sorted(context.placements):
        p = context.placements[key]
        selected: Sequence[str] = []
        in_order = False
        if p.misconfigured is None:
            got = by_request.get(key)
            if got is None:
                raise ValueError(f"the result has no answer for placement {key!r}")
            selected, in_order = _selected(key, got.selected, context.entries)
        misconfigured = p.misconfigured
        if p.groups.error is not None:
            misconfigured = f"{n.NO_PLUGIN}:{p.groups.error}"
            groups: list[tuple[str, list[str]]] = []
        else:
            groups = decision_groups(p.groups, selected, context.clusters, context.members, in_order=in_order)
        objects, group_status = _decisions(p, groups, context.entries)
        written = {o["metadata"]["name"] for o in objects}
        delete += [object_reference(d) for d in p.decisions if d.name not in written]
        apply += objects
        placement = _placement(p, len(selected), group_status, misconfigured, now)
        apply.append(placement)
        if any(c["type"] == n.SATISFIED and c["status"] != "True" for c in placement["status"]["conditions"]):
            unsatisfied.append(key)
    return Emitted(apply, delete, tuple(sorted(context.placements)), tuple(unsatisfied))


def _selected(
    key: str, picks: tuple[Choice, ...], entries: Mapping[str, Any] | None
) -> tuple[Sequence[str], bool]:
    """The picks' cluster names, in their order, and whether they are known in strict name order,
    each once: a long-lived scheduler's entries (`entries.names`) know those of an answer it gave
    without the solver (the names it was made of, so ordered); else each pick's."""
    names = getattr(entries, "names", None)
    known = names(key, picks) if names is not None else None
    return (known, True) if known is not None else ([c.cluster for c in picks], False)


def _decisions(
    p: PlacementContext,
    groups: list[tuple[str, list[str]]],
    entries: Mapping[str, dict[str, Any]] | None = None,
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The PlacementDecision objects of every group and the groups' status entries. `entries`: a
    long-lived scheduler's decision entries, one per cluster name, shared by every object it
    writes (read-only; see OcmContext.entries); else each entry made."""
    placement = p.placement
    existing = {d.name: d.obj for d in p.decisions}
    made = getattr(entries, "made", None)  # a long-lived scheduler's objects made before
    objects, status = [], []
    k = 1
    for index, (name, members) in enumerate(groups):
        size = n.MAX_DECISIONS_PER_OBJECT
        chunks = [members[i : i + size] for i in range(0, len(members), size)] or [[]]
        names = []
        for chunk in chunks:
            object_name = f"{placement.name}-decision-{k}"
            k += 1
            stored = existing.get(object_name)
            group = (placement.name, name, index)
            obj = (
                None
                if made is None
                else _stored_again(made, placement.namespace, object_name, stored, chunk, group)
            )
            if obj is None:
                labels = {
                    n.PLACEMENT_LABEL: placement.name,
                    n.GROUP_NAME_LABEL: name,
                    n.GROUP_INDEX_LABEL: str(index),
                }
                if made is not None:
                    labels = _labels_again(stored, labels)
                metadata = _decision_metadata(p, object_name, labels, stored)
                obj = _made_again(made, metadata, chunk) if made is not None else None
                if obj is None:
                    obj = {
                        "apiVersion": n.API_VERSION,
                        "kind": n.DECISION,
                        "metadata": metadata,
                        "status": {"decisions": _listed(chunk, entries, made, metadata)},
                    }
                    if made is not None:
                        made.keep(metadata, chunk, obj, group)
            objects.append(obj)
            names.append(object_name)
        status.append(
            {
                "decisionGroupIndex": index,
                "decisionGroupName": name,
                "decisions": names,
                "clusterCount": len(members),
            }
        )
    return objects, status


def _labels_again(stored: Mapping[str, Any] | None, labels: dict[str, str]) -> dict[str, str]:
    """`labels`, or the equal labels of the stored PlacementDecision this one replaces: the same
    map object (read-only, as every stored object is), which a long-lived scheduler read when
    that object came in (adapters.ocm.reach `_decision_names` knows it by identity). The object
    written is the same either way."""
    kept = ((stored or {}).get("metadata") or {}).get("labels")
    return kept if type(kept) is dict and kept == labels else labels


def _made_again(made: Any, metadata: dict[str, Any], chunk: list[str]) -> dict[str, Any] | None:
    """The PlacementDecision a long-lived scheduler's emit made last under this name (`made`,
    adapters.ocm.reach._MadeObjects), where it is the one to make now: the same metadata and
    the same clusters in the same order (its entries are then the very ones `_entries` gives:
    one shared entry per cluster name, never changed). A cluster event rewrites a few of a
    Placement's decision lists: the others are not listed again (a list of 100 made and kept)."""
    last = made.get((metadata["namespace"], metadata["name"]))
    if last is not None and last[0] == chunk and last[1]["metadata"] == metadata:
        return last[1]
    return None


def _stored_again(
    made: Any,
    namespace: str,
    name: str,
    stored: dict[str, Any] | None,
    chunk: list[str],
    group: tuple[str, str, int],
) -> dict[str, Any] | None:
    """The stored PlacementDecision itself, where it is what this sync writes, as the hub
    compares it (adapters.live.hub `_apply`: the object the server's metadata taken in,
    `served`): the last one emit made under this name (`made`), made of the same Placement name,
    group and index and the same clusters in the same order, and the stored one that object as
    served (`made.vouched`: judged once per stored object, by identity; the store never changes
    a stored object in place). Its metadata made now would then read the stored one's
    annotations, owner references and finalizers, which are the made one's, so it would be the
    made one's, and `_made_again` would give that object, which the hub finds stored unchanged.
    Handed back as stored, the hub skips it by identity (`Store.unheld`), no metadata made and
    nothing compared: a taint rewrites a few of its PickAlls' decision lists (those after the
    tainted cluster), over a hundred stay."""
    if stored is None:
        return None
    key = (namespace, name)
    last = made.get(key)
    if last is None or last[2] != group or last[0] != chunk:
        return None
    vouched = made.vouched
    if vouched.get(key) is stored:
        return stored
    if served(last[1], stored) == stored:
        vouched[key] = stored
        return stored
    return None


def _entries(chunk: list[str], entries: Mapping[str, dict[str, Any]] | None) -> list[dict[str, Any]]:
    if entries is None:
        return [{"clusterName": c, "reason": ""} for c in chunk]
    listed = getattr(entries, "listed", None)  # a long-lived scheduler's: it knows the list back
    return listed(chunk) if listed is not None else list(map(entries.__getitem__, chunk))


def _listed(
    chunk: list[str], entries: Mapping[str, dict[str, Any]] | None, made: Any, metadata: dict[str, Any]
) -> list[dict[str, Any]]:
    """The decision entries of `chunk`: where a long-lived scheduler made a list under this
    object's name before (`_last_list`), its entries' `listed` is handed it (read off it where
    the names slid by one place); else `_entries`."""
    last = _last_list(made, metadata)
    listed = getattr(entries, "listed", None)
    return listed(chunk, last) if last is not None and listed is not None else _entries(chunk, entries)


def _last_list(made: Any, metadata: dict[str, Any]) -> tuple[list[str], list[dict[str, Any]]] | None:
    """The clusters and the decision entries of the PlacementDecision a long-lived scheduler's
    emit made last under this namespace and name (`made`, adapters.ocm.reach._MadeObjects; its
    entries the shared ones, read-only), or None."""
    last = made.get((metadata["namespace"], metadata["name"])) if made is not None else None
    if last is None:
        return None
    decisions = last[1]["status"]["decisions"]
    return (last[0], decisions) if type(decisions) is list else None


def _decision_metadata(
    p: PlacementContext, name: str, labels: dict[str, str], existing: Mapping[str, Any] | None
) -> dict[str, Any]:
    """Name, namespace, the labels upstream sets (replacing any others) and the owner reference;
    an existing object keeps its annotations, finalizers and owner references."""
    old = (existing or {}).get("metadata") or {}
    metadata: dict[str, Any] = {"name": name, "namespace": p.placement.namespace, "labels": labels}
    if old.get("annotations"):
        metadata["annotations"] = old["annotations"]
    metadata["ownerReferences"] = old.get("ownerReferences") or [_owner(p)]
    if old.get("finalizers"):
        metadata["finalizers"] = old["finalizers"]
    return metadata


def _owner(p: PlacementContext) -> dict[str, Any]:
    placement = p.placement.obj
    uid = placement["metadata"].get("uid")
    return {
        "apiVersion": n.API_VERSION,
        "kind": n.PLACEMENT,
        "name": p.placement.name,
        **({"uid": uid} if uid else {}),
        "controller": True,
        "blockOwnerDeletion": True,
    }


def _placement(
    p: PlacementContext,
    selected: int,
    groups: list[dict[str, Any]],
    misconfigured: str | None,
    now: str,
) -> dict[str, Any]:
    obj = p.placement.obj
    out = {k: v for k, v in obj.items() if k != "status"}
    out["metadata"] = {k: v for k, v in obj["metadata"].items() if k not in _SERVER_FIELDS}
    previous = obj.get("status") if isinstance(obj.get("status"), Mapping) else {}
    conditions = [dict(c) for c in previous.get("conditions") or [] if isinstance(c, Mapping)]
    if misconfigured is None:
        _set_condition(conditions, n.MISCONFIGURED, "False", n.CONFIGURED_REASON, n.CONFIGURED_MESSAGE, now)
    else:
        _set_condition(conditions, n.MISCONFIGURED, "True", n.MISCONFIGURED_REASON, misconfigured, now)
    _set_condition(conditions, n.SATISFIED, *_satisfied(p, selected), now)
    status: dict[str, Any] = {"numberOfSelectedClusters": selected}
    if groups:
        status["decisionGroups"] = groups
    status["conditions"] = conditions
    for k, v in previous.items():  # what the scheduler does not write (lastScoreUpdateTime)
        if k not in ("numberOfSelectedClusters", "decisionGroups", "conditions"):
            status[k] = v
    out["status"] = status
    return out


def _satisfied(p: PlacementContext, decided: int) -> tuple[str, str, str]:
    """PlacementSatisfied: the first row of upstream's table that applies."""
    if p.bindings == 0:
        return "False", n.NO_BINDINGS, n.NO_BINDINGS_MESSAGE
    if not p.eligible:
        return "False", n.NO_INTERSECTION, n.NO_INTERSECTION_MESSAGE.format(",".join(p.cluster_sets))
    if p.available == 0:
        return "False", n.SETS_EMPTY, n.SETS_EMPTY_MESSAGE.format(",".join(p.eligible))
    if decided == 0:
        return "False", n.NO_MATCH, n.NO_MATCH_MESSAGE
    unscheduled = p.count - decided if p.count is not None else 0
    if unscheduled == 0:
        return "True", n.ALL_SCHEDULED, n.ALL_SCHEDULED_MESSAGE
    return "False", n.NOT_ALL_SCHEDULED, n.NOT_ALL_SCHEDULED_MESSAGE.format(unscheduled)


def _set_condition(
    conditions: list[dict[str, Any]], kind: str, status: str, reason: str, message: str, now: str
) -> None:
    """Kubernetes' meta.SetStatusCondition: replace the condition of that type in place (its
    lastTransitionTime kept while the status does not change) or append it."""
    new = {"type": kind, "status": status, "lastTransitionTime": now, "reason": reason, "message": message}
    for i, old in enumerate(conditions):
        if old.get("type") == kind:
            if old.get("status") == status and old.get("lastTransitionTime"):
                new["lastTransitionTime"] = old["lastTransitionTime"]
            conditions[i] = new
            return
    conditions.append(new)
