"""Conditions as kcp's controllers write them: its conditions.Set (pkg/apis/third_party/conditions/
util/conditions/setter.go, the same at v0.5.0-alpha.1 and v0.8.0); and the objects written with
them: changed labels and annotations, a Namespace's NamespaceScheduled condition."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["namespace_object", "set_condition", "with_metadata"]

from adapters.kcp import names as n

_READY = "Ready"
_STATE = ("status", "reason", "severity", "message")


def set_condition(
    conditions: list[Any], kind: str, value: tuple[str, str, str], now: str, severity: str = ""
) -> list[Any]:
    """The conditions with the one of type `kind` set to (status, reason, message), and to
    `severity` when False. A condition already in that state is kept as read (lastTransitionTime
    included); any change of status, reason, severity or message writes it anew at `now`, in its
    place; a new one is appended. Then the list is sorted as kcp sorts it: Ready first, the
    others by type."""
    status, reason, message = value
    written: dict[str, Any] = {"type": kind, "status": status}
    if severity and status == "False":
        written["severity"] = severity
    written["lastTransitionTime"] = now
    if reason:
        written["reason"] = reason
    if message:
        written["message"] = message
    if not conditions:  # the common cases first: none yet, or only this one
        return [written]
    if len(conditions) == 1 and isinstance(conditions[0], Mapping) and conditions[0].get("type") == kind:
        return [conditions[0] if _same_state(conditions[0], written) else written]
    out = list(conditions)
    at = next((i for i, c in enumerate(out) if isinstance(c, Mapping) and c.get("type") == kind), None)
    if at is None:
        out.append(written)
    elif not _same_state(out[at], written):
        out[at] = written
    return sorted(out, key=_order)


def _same_state(found: Mapping[str, Any], written: Mapping[str, Any]) -> bool:
    return all((found.get(k) or "") == (written.get(k) or "") for k in _STATE)


def _order(condition: Any) -> tuple[bool, str]:
    kind = str(condition.get("type") or "") if isinstance(condition, Mapping) else ""
    return kind != _READY, kind


def with_metadata(
    obj: Mapping[str, Any], labels: Mapping[str, str] | None, annotations: Mapping[str, str] | None
) -> dict[str, Any]:
    """The object as read with these labels and annotations (an empty map written as none; None:
    as read)."""
    out = dict(obj)
    if labels is None and annotations is None:
        return out
    metadata = obj["metadata"]
    written = dict(metadata)
    for name, value in (("labels", labels), ("annotations", annotations)):
        if value is not None and value != (metadata.get(name) or {}):
            if value:
                written[name] = dict(value)
            else:
                written.pop(name, None)
    if written != metadata:
        out["metadata"] = written
    return out


def namespace_object(
    obj: Mapping[str, Any],
    labels: Mapping[str, str] | None,
    annotations: Mapping[str, str] | None,
    condition: tuple[str, str, str] | None,
    now: str,
) -> dict[str, Any]:
    """A Namespace as read with these labels and annotations (None: as read) and its
    NamespaceScheduled condition set (None: left as it is)."""
    out = with_metadata(obj, labels, annotations)
    if condition is not None:
        status = obj.get("status") or {}
        before = list(status.get("conditions") or [])
        conditions = set_condition(before, n.NAMESPACE_SCHEDULED, condition, now)
        if conditions != before:
            out["status"] = {**status, "conditions": conditions}
    return out
