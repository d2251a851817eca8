"""model.Result -> the ResourceBindings and ClusterResourceBindings as Karmada's scheduler leaves
them (pkg/scheduler/scheduler.go), every binding it looks at, in (kind, namespace/name) order:

- scheduled, success: spec.clusters (in the division's order; no zero-replica entries for a
  workload; no replicas field for a binding divided over every cluster; a multi-component
  workload counted in whole sets: each of its components per cluster), the applied-placement
  annotation, the Scheduled condition (Success), schedulerObservedGeneration, lastScheduledTime
  and, with clusterAffinities, schedulerObservingAffinityName;
- NoClusterFit (no cluster passes the filters): spec.clusters cleared, the annotation, the
  condition with FitError's message;
- Unschedulable (not enough replicas fit) and SchedulerError (spread selection and the rest): the
  condition only;
- left alone: status.schedulerObservedGeneration set to metadata.generation where they differ
  (a binding without a placement: nothing at all, as upstream errors out before).

The condition is set as meta.SetStatusCondition sets it: its lastTransitionTime is the run's
clock only where its status changes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from adapters.contract import Emitted
from adapters.karmada import names as n
from adapters.karmada.filters import filter_reason
from adapters.karmada.load import BindingContext, KarmadaContext
from adapters.kube.fields import time_text
from model import Division, Failure, PlacementRequest, RequestResult, Result

__all__ = ["Emitted", "emit", "failure_message"]

_REASONS = {
    Failure.NO_FIT: n.NO_CLUSTER_FIT,
    Failure.SHORT: n.UNSCHEDULABLE,
    Failure.SELECTION: n.SCHEDULER_ERROR,
}
_SERVER_FIELDS = ("resourceVersion", "uid", "creationTimestamp", "generation", "managedFields", "selfLink")


def emit(context: KarmadaContext, result: Result) -> Emitted:
    by_request = result.by_request()
    requests = {r.key: r for r in context.batch.requests}
    now = time_text(context.now)
    apply, unsatisfied = [], []
    targets: dict[tuple[str, int | None], dict[str, Any]] = {}  # spec.clusters' entries, shared
    for (_, key), b in context.bindings.items():
        obj = _base(b)
        if b.trigger is None:
            if b.binding.placement is not None and b.binding.generation != b.binding.observed_generation:
                obj.setdefault("status", {})["schedulerObservedGeneration"] = b.binding.generation
        elif b.error:
            _failed(obj, b, n.NO_CLUSTER_FIT if b.fit else n.SCHEDULER_ERROR, b.error, now)
        else:
            got = by_request.get(key)
            if got is None:
                raise ValueError(f"the result has no answer for binding {key!r}")
            request = requests[key]
            if got.failure is None:
                _succeeded(obj, b, request, got, now, targets)
            else:
                message = failure_message(context, got)
                _failed(obj, b, _REASONS[got.failure], message, now)
        if _scheduled_false(obj):
            unsatisfied.append(key)
        apply.append(obj)
    keys = tuple(key for _, key in context.bindings)
    return Emitted(apply, [], keys, tuple(unsatisfied))


def _base(b: BindingContext) -> dict[str, Any]:
    """The binding to write: a copy of the levels emit changes (the object, its metadata, spec
    and status; annotations and conditions are replaced whole, never changed in place), the rest
    shared with the input, which nothing changes (a deep copy of 10,000 bindings cost 1 s). Its
    placement is the first equal one read (the YAML writer renders an object it meets again once)."""
    out = dict(b.binding.manifest.obj)
    out["metadata"] = {k: v for k, v in out["metadata"].items() if k not in _SERVER_FIELDS}
    for part in ("spec", "status"):
        if isinstance(out.get(part), Mapping):
            out[part] = dict(out[part])
    placement = b.binding.placement
    if placement is not None and placement.raw is not None and "placement" in out["spec"]:
        out["spec"]["placement"] = placement.raw
    return out


def _scheduled_false(obj: Mapping[str, Any]) -> bool:
    conditions = (obj.get("status") or {}).get("conditions") or []
    return any(c.get("type") == n.SCHEDULED and c.get("status") == "False" for c in conditions)


def _succeeded(
    obj: dict[str, Any],
    b: BindingContext,
    request: PlacementRequest,
    got: RequestResult,
    now: str,
    shared: dict[tuple[str, int | None], dict[str, Any]],
) -> None:
    every = request.replicas is not None and request.replicas.division is Division.EVERY
    components = _target_components(b, request)
    targets = []
    for choice in got.selected:
        if every or choice.replicas is None:
            if components:
                targets.append({"name": choice.cluster, **components})
                continue
            key: tuple[str, int | None] = (choice.cluster, None)
        elif choice.replicas > 0:
            key = (choice.cluster, choice.replicas)
        else:
            continue
        target = shared.get(key)
        if target is None:  # one per content: the YAML writer renders an entry it meets again once
            target = shared[key] = (
                {"name": choice.cluster} if key[1] is None else {"name": key[0], "replicas": key[1]}
            )
        targets.append(target)
    _write_clusters(obj, b, targets)
    status = obj.setdefault("status", {})
    _set_condition(status, "True", n.SUCCESS, n.SUCCESS_MESSAGE, now)
    status["schedulerObservedGeneration"] = b.binding.generation
    status["lastScheduledTime"] = now
    if b.binding.placement.terms is not None and got.tier:
        status["schedulerObservingAffinityName"] = got.tier


def _target_components(b: BindingContext, request: PlacementRequest) -> dict[str, Any]:
    """What each selected cluster of a multi-component workload run whole carries
    (buildTargetComponents: every component with its replicas, in spec order): components past
    one, counted in sets."""
    components = b.binding.components
    if len(components) <= 1 or not request.replicas.parts:
        return {}
    return {"components": [{"name": c.name, "replicas": c.replicas} for c in components]}


def _failed(obj: dict[str, Any], b: BindingContext, reason: str, message: str, now: str) -> None:
    """A failed attempt: a FitError clears spec.clusters and writes the annotation (upstream
    patches the empty result); every failure writes the condition."""
    if reason == n.NO_CLUSTER_FIT:
        _write_clusters(obj, b, [])
    _set_condition(obj.setdefault("status", {}), "False", reason, message, now)


def _write_clusters(obj: dict[str, Any], b: BindingContext, targets: list[dict[str, Any]]) -> None:
    """spec.clusters (none: the field cleared) and the applied-placement annotation."""
    spec = obj.setdefault("spec", {})
    if targets:
        spec["clusters"] = targets
    else:
        spec.pop("clusters", None)
    annotations = dict(obj["metadata"].get("annotations") or {})
    annotations[n.APPLIED_PLACEMENT] = b.binding.placement.annotation
    obj["metadata"]["annotations"] = annotations


def failure_message(context: KarmadaContext, got: RequestResult) -> str:
    """The error upstream's attempt returns, as the condition's message: for NO_FIT, FitError's
    histogram of the first failing filter's reason over every cluster not being deleted (the
    solver lists them all, each with its first failing filter); else the solver's text, which is
    upstream's."""
    if got.failure is not Failure.NO_FIT:
        return got.failure_detail
    reasons = Counter(said for u in got.unselected if (said := filter_reason(u)))
    if not reasons:
        return n.FIT_ERROR.format(context.clusters, n.NO_CLUSTER_EXISTS)
    histogram = sorted(f"{count} {said}" for said, count in reasons.items())
    return n.FIT_ERROR.format(context.clusters, ", ".join(histogram))


def _set_condition(status: dict[str, Any], state: str, reason: str, message: str, now: str) -> None:
    """meta.SetStatusCondition of the Scheduled condition: in place, its lastTransitionTime kept
    while the status does not change."""
    conditions = [dict(c) for c in status.get("conditions") or []]
    new = {
        "type": n.SCHEDULED,
        "status": state,
        "lastTransitionTime": now,
        "reason": reason,
        "message": message,
    }
    for i, old in enumerate(conditions):
        if old.get("type") == n.SCHEDULED:
            if old.get("status") == state and old.get("lastTransitionTime"):
                new["lastTransitionTime"] = old["lastTransitionTime"]
            conditions[i] = new
            break
    else:
        conditions.append(new)
    status["conditions"] = conditions
