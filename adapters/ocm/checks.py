"""What the OCM CRDs refuse, in the shapes every reader shares: enum fields and the status
conditions each OCM kind carries (api: cluster/*/0000_*.crd.yaml; metav1.Condition)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.kube.fields import INT64, Fields

__all__ = ["conditions", "enum"]

_CONDITION_STATUSES = ("True", "False", "Unknown")


def enum(f: Fields, raw: Mapping[str, Any], key: str, path: str, allowed: Sequence[str], default: str) -> str:
    """raw[key], one of `allowed`; `default` when absent or null (the API server prunes a null and
    defaults it). A present value outside the enum, "" included, is refused as the API server does."""
    value = raw.get(key)
    if value is None:
        return default
    value = f.string(value, path)
    if value not in allowed:
        raise f.fail(f"unsupported value {value!r}; expected one of {', '.join(allowed)}", path)
    return value


def conditions(f: Fields, status: Mapping[str, Any], path: str = "status.conditions") -> None:
    """Each condition's status (required, an enum) and observedGeneration (int64, at least 0)."""
    items = status.get("conditions")
    if type(items) is list and all(type(raw) is dict and _plain_condition(raw) for raw in items):
        return  # as a hub's are: no path spelt per item
    for where, raw in f.objects(items, path):
        if raw.get("status") is None:
            raise f.fail("a condition needs a status", f"{where}.status")
        enum(f, raw, "status", f"{where}.status", _CONDITION_STATUSES, "")
        if raw.get("observedGeneration") is not None:
            f.integer(raw["observedGeneration"], f"{where}.observedGeneration", minimum=0)


def _plain_condition(raw: dict[str, Any]) -> bool:
    """A condition the checks above pass: a status of the enum, a generation null or in range."""
    generation = raw.get("observedGeneration")
    return (
        type(raw.get("status")) is str
        and raw["status"] in _CONDITION_STATUSES
        and (generation is None or (type(generation) is int and 0 <= generation <= INT64))
    )
