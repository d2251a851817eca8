"""Conditions as kcp's controllers write them: one condition of a type, its lastTransitionTime
moved only when its status changes."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["set_condition"]


def set_condition(
    conditions: list[Any], kind: str, value: tuple[str, str, str] | None, now: str, severity: str = ""
) -> list[Any]:
    """The conditions with the one of type `kind` set to (status, reason, message) in its place
    (appended when new), or removed (None); its lastTransitionTime kept while its status does not
    change, and the condition as read when nothing in it changes."""
    at = next((i for i, c in enumerate(conditions) if isinstance(c, Mapping) and c.get("type") == kind), None)
    out = [c for i, c in enumerate(conditions) if i != at]
    if value is None:
        return out
    found = conditions[at] if at is not None else None
    status, reason, message = value
    written: dict[str, Any] = {"type": kind, "status": status}
    if severity and status == "False":
        written["severity"] = severity
    same = found is not None and found.get("status") == status and found.get("lastTransitionTime")
    written["lastTransitionTime"] = found["lastTransitionTime"] if same else now
    if reason:
        written["reason"] = reason
    if message:
        written["message"] = message
    if found is not None and dict(found) == written:
        written = found
    out.insert(len(out) if at is None else at, written)
    return out
