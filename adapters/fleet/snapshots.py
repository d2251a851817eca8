"""ClusterSchedulingPolicySnapshot: creation, refresh, and the status the scheduler writes."""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

from adapters.fleet import names as n
from adapters.fleet.policy import policy_hash

__all__ = ["clean", "clean_or_same", "new_snapshot", "refresh_snapshot", "condition", "format_time"]

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
                {
                    "apiVersion": crp.get("apiVersion", n.API_VERSION),
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
    """The latest snapshot with the annotations the placement controller keeps up to date."""
    out = clean(obj)
    meta = out["metadata"]
    annotations = {
        k: v for k, v in (meta.get("annotations") or {}).items() if k != n.NUMBER_OF_CLUSTERS_ANNOTATION
    }
    annotations.update(_annotations(generation, count))
    meta["annotations"] = annotations
    meta["labels"] = {**(meta.get("labels") or {}), n.LATEST_LABEL: "true"}
    return out


def format_time(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def condition(satisfied: bool, found: int, generation: int, previous: dict[str, Any] | None, now: datetime):
    status = "True" if satisfied else "False"
    changed = previous is None or previous.get("status") != status or not previous.get("lastTransitionTime")
    return {
        "type": n.CONDITION_SCHEDULED,
        "status": status,
        "reason": n.FULFILLED if satisfied else n.UNFULFILLED,
        "message": (n.FULFILLED_MESSAGE if satisfied else n.UNFULFILLED_MESSAGE).format(found),
        "observedGeneration": generation,
        "lastTransitionTime": format_time(now) if changed else previous["lastTransitionTime"],
    }
