"""ClusterSchedulingPolicySnapshot: creation, refresh, and the status the scheduler writes."""

from __future__ import annotations

import base64
import re
from datetime import datetime
from typing import Any

from adapters.fleet import names as n
from adapters.fleet.policy import policy_hash
from adapters.kube.fields import time_text, whole

__all__ = [
    "as_stored",
    "clean",
    "clean_or_same",
    "format_time",
    "new_snapshot",
    "refresh_snapshot",
    "scheduled_condition",
    "written_status",
]

_SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def clean(obj: dict[str, Any], *, keep_status: bool = False) -> dict[str, Any]:
    """A copy without server-populated metadata, ready to apply. Copied one level deep (metadata,
    spec): callers replace values there, never mutate what lies below, so the rest is shared."""
    out = {k: v for k, v in obj.items() if k != "status" or keep_status}
    out["metadata"] = {k: v for k, v in (obj.get("metadata") or {}).items() if k not in _SERVER_FIELDS}
    if isinstance(out.get("spec"), dict):
        out["spec"] = dict(out["spec"])
    return out


def clean_or_same(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` itself when :func:`clean` would only copy it (no status, no server-populated
    metadata), else the clean copy: for objects written back unchanged, which nobody mutates.
    A large hub's unchanged bindings are then neither rebuilt nor compared field by field."""
    metadata = obj.get("metadata")
    if (
        "status" in obj
        or type(metadata) is not dict
        or not metadata.keys().isdisjoint(_SERVER_FIELDS)
        or ("spec" in obj and type(obj["spec"]) is not dict)
    ):
        return clean(obj)
    return obj


def as_stored(obj: dict[str, Any]) -> dict[str, Any]:
    """``obj`` itself, a stored object written back unchanged, where writing :func:`clean_or_same`'s
    object over it leaves it as it is (the server keeps the metadata :func:`clean` leaves out:
    adapters.run.changes.served): no status, metadata a dict. Else that object. For the long-lived
    scheduler, which reads the stored objects and skips by identity an object handed back."""
    if "status" in obj or type(obj.get("metadata")) is not dict:
        return clean_or_same(obj)
    return obj


def _annotations(generation: int, count: int | None) -> dict[str, str]:
    out = {n.GENERATION_ANNOTATION: str(generation)}
    if count is not None:
        out[n.NUMBER_OF_CLUSTERS_ANNOTATION] = str(count)
    return out


def new_snapshot(
    crp: dict[str, Any], index: int, policy: Any, generation: int, count: int | None
) -> dict[str, Any]:
    name = crp["metadata"]["name"]
    digest = policy_hash(policy)
    spec: dict[str, Any] = {}
    if policy is not None:
        spec["policy"] = policy  # shared with the placement; never mutated
    spec["policyHash"] = base64.b64encode(digest.encode()).decode()  # bytes of the hex, as Go encodes []byte
    return {
        "apiVersion": n.API_VERSION,
        "kind": n.POLICY_SNAPSHOT,
        "metadata": {
            "name": f"{name}-{index}",
            "labels": {n.PARENT_LABEL: name, n.LATEST_LABEL: "true", n.INDEX_LABEL: str(index)},
            "annotations": _annotations(generation, count),
            "ownerReferences": [
                {  # SetControllerReference names the Go type's group and version: v1beta1's
                    "apiVersion": n.API_VERSION,
                    "kind": n.PLACEMENT,
                    "name": name,
                    **({"uid": crp["metadata"]["uid"]} if crp.get("metadata", {}).get("uid") else {}),
                    "controller": True,
                    "blockOwnerDeletion": True,
                }
            ],
        },
        "spec": spec,
    }


def refresh_snapshot(obj: dict[str, Any], generation: int, count: int | None) -> dict[str, Any]:
    """The latest snapshot as ensureLatestPolicySnapshot leaves it (pkg/controllers/placement/
    controller.go): labelled latest, its CRP-generation annotation set where the number it holds
    differs from the placement's generation, and, for PickN (`count`), its number-of-clusters
    annotation where the number it holds differs from N. Numbers are read as strconv.Atoi reads
    them ("03" holds 3, and stays); no annotation is ever removed, a non-PickN snapshot's
    number-of-clusters included."""
    out = clean(obj)
    meta = out["metadata"]
    annotations = dict(meta.get("annotations") or {})
    for key, value in _annotations(generation, count).items():
        if _atoi(annotations.get(key)) != int(value):
            annotations[key] = value
    meta["annotations"] = annotations
    meta["labels"] = {**(meta.get("labels") or {}), n.LATEST_LABEL: "true"}
    return out


_ATOI = re.compile(r"[+-]?[0-9]+")


def _atoi(text: Any) -> int | None:
    """The number Go's strconv.Atoi reads in `text` (decimal, an optional sign, nothing else), or
    None where it reads none."""
    if type(text) is not str or not _ATOI.fullmatch(text):
        return None
    return int(text)


def format_time(moment: datetime) -> str:
    return time_text(moment)


def written_status(
    previous: Any,
    observed: int,
    decisions: list[dict[str, Any]],
    scheduled: dict[str, Any],
    now: datetime,
    *,
    refresh: bool = False,
) -> Any:
    """The status a scheduling cycle leaves on the latest snapshot: `previous` itself where upstream
    skips the write, that is where the observed placement generation is the same, the decisions
    are equal as a set and the Scheduled condition is equal but for its message and time
    (framework.go updatePolicySnapshotStatusFromBindings and ...ForPickFixedPlacementType,
    frameworkutils.go equalDecisions, pkg/utils/condition EqualCondition); else the new status,
    the Scheduled condition set as meta.SetStatusCondition sets it (in place, the others kept,
    its transition time kept while its status holds).

    `scheduled` is the new Scheduled condition without lastTransitionTime. `refresh`: a cycle of
    a PickN that needs no pick, which lists the selected clusters only. Upstream's watchers start
    none for a fully scheduled PickN unless its snapshot's annotations change (watchers/
    membercluster/utils.go classifyPlacements, watchers/schedulingpolicysnapshot), so the
    unselected entries its last scheduling cycle wrote stay while the rest holds."""
    before = previous if type(previous) is dict else {}
    conditions = before.get("conditions")
    conditions = [c for c in conditions if type(c) is dict] if type(conditions) is list else []
    current = next((c for c in conditions if c.get("type") == n.CONDITION_SCHEDULED), None)
    listed = before.get("targetClusters")
    listed = listed if type(listed) is list else []
    if refresh:
        listed = [d for d in listed if type(d) is not dict or d.get("selected") is not False]
    if (
        before.get("observedCRPGeneration") == observed
        and _same_decisions(listed, decisions)
        and _same_condition(current, scheduled)
    ):
        return previous
    kept = current is not None and current.get("status") == scheduled["status"]
    when = current.get("lastTransitionTime") if kept else None
    scheduled = {**scheduled, "lastTransitionTime": when or format_time(now)}
    if current is None:
        conditions.append(scheduled)
    else:
        conditions[conditions.index(current)] = scheduled
    out: dict[str, Any] = {"observedCRPGeneration": observed, "conditions": conditions}
    if decisions:
        out["targetClusters"] = decisions
    return out


def scheduled_condition(satisfied: bool, found: int, generation: int) -> dict[str, Any]:
    """The Scheduled condition a cycle sets, before its transition time is known."""
    return {
        "type": n.CONDITION_SCHEDULED,
        "status": "True" if satisfied else "False",
        "reason": n.FULFILLED if satisfied else n.UNFULFILLED,
        "message": (n.FULFILLED_MESSAGE if satisfied else n.UNFULFILLED_MESSAGE).format(found),
        "observedGeneration": generation,
    }


def _same_decisions(current: list[Any], desired: list[dict[str, Any]]) -> bool:
    """equalDecisions: the same length, and each current decision equal to the desired one of
    its cluster."""
    by_cluster = {d["clusterName"]: d for d in desired}
    return len(current) == len(desired) and all(
        type(d) is dict and by_cluster.get(d.get("clusterName")) == d for d in current
    )


def _same_condition(current: dict[str, Any] | None, desired: dict[str, Any]) -> bool:
    """EqualCondition: type, status and reason equal, and an observedGeneration at least as new."""
    if current is None:
        return False
    generation = whole(current.get("observedGeneration"))  # 2.0 is the API server's 2
    return (
        all(current.get(key) == desired[key] for key in ("type", "status", "reason"))
        and type(generation) is int
        and generation >= desired["observedGeneration"]
    )
