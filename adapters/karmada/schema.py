"""What the binding CRDs (charts/karmada/_crds/bases/work/work.karmada.io_resourcebindings.yaml
and _clusterresourcebindings.yaml, v1alpha2) and the policy webhook (pkg/util/validation
ValidateApplicationFailover: the binding's failover is its policy's) refuse in the integer and
enum fields the scheduler does not read. The API server refuses such an object, so no hub holds
one; the fields the scheduler reads are checked where they are read (bindings.py, placement.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from adapters.kube.fields import INT32, INT64, Fields

__all__ = ["check_unread"]


@dataclass(frozen=True, slots=True)
class _Integer:
    minimum: int | None = None
    maximum: int = INT64

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        f.integer(value, path, minimum=self.minimum, maximum=self.maximum)


@dataclass(frozen=True, slots=True)
class _Enum:
    values: tuple[str, ...]

    def __call__(self, f: Fields, value: Any, path: str) -> None:
        if type(value) is str and value in self.values:
            return
        text = f.string(value, path)
        quoted = ", ".join(f'"{v}"' for v in self.values)
        raise f.fail(f'Unsupported value: "{text}": supported values: {quoted}', path)


_INT32 = _Integer(maximum=INT32)
_PURGE_MODES = ("Directly", "Gracefully", "Never")
# (path, check): "[]" walks each item of a list of objects; a field absent or null is not checked.
_RULES: tuple[tuple[str, Any], ...] = (
    ("spec.clusters[].components[].replicas", _INT32),
    ("spec.conflictResolution", _Enum(("Abort", "Overwrite"))),
    ("spec.failover.application.decisionConditions.tolerationSeconds", _Integer(0, INT32)),
    ("spec.failover.application.gracePeriodSeconds", _Integer(1, INT32)),
    ("spec.failover.application.purgeMode", _Enum(_PURGE_MODES)),
    ("spec.failover.cluster.purgeMode", _Enum(("Directly", "Gracefully"))),
    ("spec.gracefulEvictionTasks[].gracePeriodSeconds", _INT32),
    ("spec.gracefulEvictionTasks[].purgeMode", _Enum(_PURGE_MODES)),
    ("spec.replicaRequirements.nodeClaim.tolerations[].tolerationSeconds", _Integer()),
    ("spec.requiredBy[].clusters[].replicas", _INT32),
    ("status.aggregatedStatus[].health", _Enum(("Healthy", "Unhealthy", "Unknown"))),
)
_TOP = frozenset(path.split(".", 2)[1].removesuffix("[]") for path, _ in _RULES)
# Each rule's path as (name, walks a list) steps, split once.
Steps = tuple[tuple[str, bool], ...]
_STEPS: tuple[tuple[Steps, Any], ...] = tuple(
    (tuple((seg.removesuffix("[]"), seg.endswith("[]")) for seg in path.split(".")), rule)
    for path, rule in _RULES
)


def check_unread(f: Fields, obj: Mapping[str, Any]) -> None:
    """Refuse a v1alpha2 binding whose unread integer or enum fields the API server refuses."""
    spec, status = obj.get("spec"), obj.get("status")
    if not any(key in _TOP for part in (spec, status) if isinstance(part, Mapping) for key in part):
        return
    for steps, rule in _STEPS:
        _walk(f, obj, steps, "", rule)


def _walk(f: Fields, node: Mapping[str, Any], steps: Steps, at: str, rule: Any) -> None:
    (name, walks), rest = steps[0], steps[1:]
    value = node.get(name)
    if value is None:
        return
    path = f"{at}.{name}" if at else name
    if not rest:
        rule(f, value, path)
    elif walks:
        below = rest[0][0]
        for i, item in enumerate(f.sequence(value, path)):
            if type(item) is dict and item.get(below) is None:
                continue  # nothing under it to check (most items: spec.clusters' entries)
            where = f"{path}[{i}]"
            _walk(f, item if type(item) is dict else f.item(item, where), rest, where, rule)
    else:
        _walk(f, f.mapping(value, path), rest, path, rule)
