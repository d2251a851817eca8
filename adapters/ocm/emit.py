"""model.Result -> the objects OCM's placement controller writes: PlacementDecisions and the
Placement's status.

For each placement, sorted by namespace/name: its PlacementDecisions `<placement>-decision-<k>`
(k from 1 across the decision groups, at most 100 decisions each, at least one object), then the
Placement with numberOfSelectedClusters, decisionGroups and the PlacementMisconfigured and
PlacementSatisfied conditions. Its other PlacementDecisions are listed for deletion.

A decision strategy upstream cannot apply (groups.py) leaves upstream with no decision group at
all: no PlacementDecision is written (every existing one is deleted) while the status still counts
the selected clusters; that is reproduced here.

A long-lived scheduler's context (adapters.ocm.reach: `OcmContext.wrote`, a mapping it keeps from
batch to batch) holds the stored objects themselves: where a Placement's objects as made here
would each equal the stored one as the server takes a write (adapters.run.changes.served: the
comparison the hub makes before writing), the stored objects are handed back instead (the hub
skips a stored object by identity, adapters.live.store.Store.unheld), and what they were made
from is noted (`_Wrote`). A Placement emitted again from equal inputs (the stored objects and
every value `_objects` reads: the answer's names, the context's counts and sets, the strategy,
the labels and claims of the selected clusters its groups match) makes the same objects, which
equal the stored ones again: they are handed back without being made. The time (`now`) is read
only by a condition whose status differs from the stored one's, and there is none where the
objects made equalled the stored ones. A cluster event's batch emits 50 to 190 Placements whose
objects nearly all come back the same.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.contract import Emitted
from adapters.kube.fields import time_text
from adapters.kube.manifests import object_reference
from adapters.ocm import names as n
from adapters.ocm.groups import decision_groups
from adapters.ocm.load import OcmContext, PlacementContext
from adapters.run.changes import served
from model import Cluster, Result

__all__ = ["Emitted", "emit"]

_SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def emit(context: OcmContext, result: Result) -> Emitted:
    apply: list[dict[str, Any]] = []
    delete: list[dict[str, str]] = []
    by_request = result.by_request()
    now = time_text(context.now)
    unsatisfied: list[str] = []
    wrote = context.wrote
    for key in sorted(context.placements):
        p = context.placements[key]
        selected: list[str] = []
        if p.misconfigured is None:
            got = by_request.get(key)
            if got is None:
                raise ValueError(f"the result has no answer for placement {key!r}")
            selected = [c.cluster for c in got.selected]
        if wrote is None:
            objects, gone, satisfied = _objects(p, selected, context.clusters, now)
        else:
            inputs = _inputs(p, selected, context.clusters)
            last = wrote.get(key)
            if last is not None and last.inputs == inputs:  # made from equal inputs: the stored ones
                objects = [*(p.decisions[i].obj for i in last.order), p.placement.obj]
                gone, satisfied = [], last.satisfied
            else:
                objects, gone, satisfied = _objects(p, selected, context.clusters, now)
                objects = _as_stored(key, p, objects, gone, satisfied, inputs, wrote)
        apply += objects
        delete += gone
        if not satisfied:
            unsatisfied.append(key)
    return Emitted(apply, delete, tuple(sorted(context.placements)), tuple(unsatisfied))


@dataclass(frozen=True, slots=True)
class _Wrote:
    """A Placement's objects as emit made them equal the stored ones: what they were made from
    (`_inputs`), the stored decisions' positions in the order they were made, and whether the
    Placement was satisfied."""

    inputs: tuple[Any, ...]
    order: tuple[int, ...]
    satisfied: bool


def _inputs(p: PlacementContext, selected: list[str], clusters: Mapping[str, Cluster]) -> tuple[Any, ...]:
    """Everything `_objects` reads but the time: the stored Placement and decisions (compared by
    identity first, as tuples compare), the context's values (of the available clusters, only
    whether there are none) and the answer; the selected clusters' labels and claims where
    decision groups match them."""
    grouped = ()
    if p.groups.groups and p.groups.error is None:
        grouped = tuple((clusters[c].labels, clusters[c].claims) for c in selected)
    return (
        p.placement.obj,
        tuple(d.obj for d in p.decisions),
        p.count,
        p.cluster_sets,
        p.bindings,
        p.eligible,
        p.available == 0,  # read by `_satisfied` alone, only whether it is 0 (a join moves it)
        p.groups,
        p.misconfigured,
        tuple(selected),
        grouped,
    )


def _as_stored(
    key: str,
    p: PlacementContext,
    objects: list[dict[str, Any]],
    gone: list[dict[str, str]],
    satisfied: bool,
    inputs: tuple[Any, ...],
    wrote: dict[str, _Wrote],
) -> list[dict[str, Any]]:
    """The objects made, or the stored ones where each made one equals its stored one as the
    server takes the write and none is deleted (noted in `wrote` for the next time)."""
    wrote.pop(key, None)
    if gone:
        return objects
    position = {d.name: i for i, d in enumerate(p.decisions)}
    order = []
    for obj in objects[:-1]:
        at = position.get(obj["metadata"]["name"])
        if at is None:
            return objects
        stored = p.decisions[at].obj
        if served(obj, stored) != stored:
            return objects
        order.append(at)
    stored = p.placement.obj
    if served(objects[-1], stored) != stored:
        return objects
    wrote[key] = _Wrote(inputs, tuple(order), satisfied)
    return [*(p.decisions[i].obj for i in order), stored]


def _objects(
    p: PlacementContext, selected: list[str], clusters: Mapping[str, Cluster], now: str
) -> tuple[list[dict[str, Any]], list[dict[str, str]], bool]:
    """The Placement's decisions and then itself as its controller writes them, the references of
    its decisions to delete, and whether it is satisfied."""
    misconfigured = p.misconfigured
    if p.groups.error is not None:
        misconfigured = f"{n.NO_PLUGIN}:{p.groups.error}"
        groups: list[tuple[str, list[str]]] = []
    else:
        groups = decision_groups(p.groups, selected, clusters)
    objects, group_status = _decisions(p, groups)
    written = {o["metadata"]["name"] for o in objects}
    gone = [object_reference(d) for d in p.decisions if d.name not in written]
    placement = _placement(p, len(selected), group_status, misconfigured, now)
    objects.append(placement)
    satisfied = not any(
        c["type"] == n.SATISFIED and c["status"] != "True" for c in placement["status"]["conditions"]
    )
    return objects, gone, satisfied


def _decisions(
    p: PlacementContext, groups: list[tuple[str, list[str]]]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The PlacementDecision objects of every group and the groups' status entries."""
    placement = p.placement
    existing = {d.name: d.obj for d in p.decisions}
    objects, status = [], []
    k = 1
    for index, (name, members) in enumerate(groups):
        size = n.MAX_DECISIONS_PER_OBJECT
        chunks = [members[i : i + size] for i in range(0, len(members), size)] or [[]]
        names = []
        for chunk in chunks:
            object_name = f"{placement.name}-decision-{k}"
            k += 1
            labels = {
                n.PLACEMENT_LABEL: placement.name,
                n.GROUP_NAME_LABEL: name,
                n.GROUP_INDEX_LABEL: str(index),
            }
            objects.append(
                {
                    "apiVersion": n.API_VERSION,
                    "kind": n.DECISION,
                    "metadata": _decision_metadata(p, object_name, labels, existing.get(object_name)),
                    "status": {"decisions": [{"clusterName": c, "reason": ""} for c in chunk]},
                }
            )
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
