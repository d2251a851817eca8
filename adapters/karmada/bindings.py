"""ResourceBindings and ClusterResourceBindings as the scheduler reads them, refused where their
CRD (work.karmada.io/v1alpha2) or the placement webhook refuses them, and the scheduler's
decision for each (pkg/scheduler/scheduler.go doScheduleBinding): look at it at all, schedule
it, or only record the observed generation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from adapters.karmada import names as n
from adapters.karmada.clusters import resource_list, units
from adapters.karmada.placement import Placement, placement_changed, read_placement
from adapters.karmada.schema import check_unread
from adapters.kube.fields import INT32, INT64, ZERO_TIME, Fields, conditions_fine, parse_time
from adapters.kube.manifests import Manifest
from model.quantity import Quantity

__all__ = ["Binding", "Component", "Trigger", "read_binding"]

_REASON_MAX = 32
_REASON = re.compile(r"[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?")  # the CRD's pattern


class Trigger(StrEnum):
    """Why the scheduler schedules a binding (doScheduleBinding's branches, in order)."""

    PLACEMENT = "placement changed"
    REPLICAS = "replicas changed"
    RESCHEDULE = "reschedule triggered"
    DUPLICATED = "duplicated or not a workload"
    DELETING = "a target cluster is being deleted"


@dataclass(frozen=True, slots=True)
class Component:
    """One of spec.components: its name, replicas and per-replica resourceRequest."""

    name: str
    replicas: int
    requests: dict[str, Quantity]

    def demand(self) -> dict[str, int]:
        """One replica's demand in the estimator's units, a pod each (as a replica's)."""
        return {**_counted(self.requests), n.PODS: 1}


@dataclass(frozen=True, slots=True)
class Binding:
    manifest: Manifest
    placement: Placement | None  # None: a v1alpha1 object (converted without one)
    generation: int
    observed_generation: int
    observed_affinity: str
    last_scheduled: datetime | None
    reschedule_at: datetime | None
    created: datetime
    watched: bool  # one of the scheduler's labels, its name, not suspended, not being deleted
    replicas: int
    requests: dict[str, Quantity] | None  # replicaRequirements.resourceRequest; None: no requirements
    components: tuple[Component, ...]
    clusters: tuple[tuple[str, int], ...]  # spec.clusters
    evicted: tuple[str, ...]
    api: str  # the trait of spec.resource's API
    uid: str  # spec.resource.uid
    priority: int

    @property
    def key(self) -> str:
        m = self.manifest
        return f"{m.namespace}/{m.name}" if m.namespace else m.name

    @property
    def workload(self) -> bool:
        """IsWorkload."""
        return self.replicas > 0 or self.requests is not None or bool(self.components)

    @property
    def fresh(self) -> bool:
        """RescheduleRequired: rescheduleTriggeredAt after lastScheduledTime, both set."""
        return (
            self.reschedule_at is not None
            and self.last_scheduled is not None
            and self.reschedule_at > self.last_scheduled
        )

    @property
    def divided(self) -> bool:
        """Whether AssignReplicas divides its replicas by the placement's strategy: replicas or
        requirements, and at most one component (the rest go to every selected cluster)."""
        return (self.replicas > 0 or self.requests is not None) and len(self.components) <= 1

    @property
    def as_sets(self) -> bool:
        """isMultiTemplateSchedulingApplicable (the gate MultiplePodTemplatesScheduling on, as the
        components say: the detector fills them only then): components, and a cluster spread
        constraint of exactly one cluster. Capacity is then counted in whole component sets."""
        placement = self.placement
        return (
            bool(self.components)
            and placement is not None
            and any(
                s.field == n.CLUSTER_FIELD and s.min_groups == 1 and s.max_groups == 1
                for s in placement.spread
            )
        )

    def demand(self) -> dict[str, int]:
        """One replica's demand in the estimator's units (replicaRequirements); quantities whose
        rounded-up value is not above 0 left out; a pod each."""
        return {**_counted(self.requests or {}), n.PODS: 1}

    def trigger(
        self, f: Fields, deleting: frozenset[str], decoded: dict[str, dict[str, Any] | None] | None = None
    ) -> Trigger | None:
        """Why the scheduler schedules it now, or None (it only records the generation); `decoded`
        as placement_changed's."""
        placement = self.placement
        if placement is None:
            return None
        # as the API server decodes them: a null value is ""
        applied = f.string_map(self.manifest.obj["metadata"].get("annotations"), "metadata.annotations")
        annotation = applied.get(n.APPLIED_PLACEMENT, "")
        if placement_changed(f, placement, annotation, self.observed_affinity, decoded):
            return Trigger.PLACEMENT
        if self._replicas_changed():
            return Trigger.REPLICAS
        if self.fresh:
            return Trigger.RESCHEDULE
        if not self.workload or placement.scheduling_type == n.DUPLICATED:
            return Trigger.DUPLICATED
        if any(name in deleting for name, _ in self.clusters):
            return Trigger.DELETING
        return None

    def _replicas_changed(self) -> bool:
        """IsBindingReplicasChanged, with MultiplePodTemplatesScheduling on: a binding with
        components and no clusters (evicted from all) is rescheduled."""
        placement = self.placement
        if placement is None or placement.scheduling is None:
            return False
        if self.components and not self.clusters:
            return True
        if placement.scheduling_type == n.DUPLICATED:
            return any(r != self.replicas for _, r in self.clusters)
        total = sum(r for _, r in self.clusters)
        return (total + 2**31) % 2**32 - 2**31 != self.replicas  # GetSumOfReplicas adds in int32


def _counted(requests: dict[str, Quantity]) -> dict[str, int]:
    """The requests the estimator counts: those whose Value() (whole units, rounded up) is above 0."""
    return {r: units(r, q) for r, q in requests.items() if units(n.PODS, q) > 0}


def read_binding(m: Manifest, placements: dict[str, Placement] | None = None) -> Binding:
    """The binding `m`; `placements` (see read_placement) shares the placements read so far."""
    f = Fields(m)
    metadata = m.obj["metadata"]
    if m.kind == n.RB and not m.namespace:
        raise f.fail("a ResourceBinding is namespaced", "metadata.namespace")
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    f.annotations(metadata.get("annotations"), "metadata.annotations")
    generation = _integer(f, metadata.get("generation"), "metadata.generation", minimum=0)
    created = parse_time(f, metadata.get("creationTimestamp"), "metadata.creationTimestamp")
    deleting = metadata.get("deletionTimestamp") is not None
    if deleting:
        parse_time(f, metadata["deletionTimestamp"], "metadata.deletionTimestamp")
    spec = f.mapping(m.obj.get("spec"), "spec")
    status = f.mapping(m.obj.get("status"), "status")
    if m.version != n.BINDING_VERSION:
        return _v1alpha1(f, m, spec, status, labels, generation, created, deleting)
    check_unread(f, m.obj)
    resource = _resource(f, spec)
    placement = None
    if spec.get("placement") is not None:
        placement = read_placement(f, spec["placement"], read=placements)
    replicas = _integer(f, spec.get("replicas"), "spec.replicas", maximum=INT32)
    requirements = f.mapping(spec.get("replicaRequirements"), "spec.replicaRequirements")
    requests = None
    if spec.get("replicaRequirements") is not None:
        requests = resource_list(
            f, requirements.get("resourceRequest"), "spec.replicaRequirements.resourceRequest"
        )
    components = _components(f, spec.get("components"))
    scheduler = f.string(spec.get("schedulerName"), "spec.schedulerName")
    suspension = f.mapping(spec.get("suspension"), "spec.suspension")
    suspended = _boolean(f, suspension.get("scheduling"), "spec.suspension.scheduling")
    priority_raw = f.mapping(spec.get("schedulePriority"), "spec.schedulePriority")
    priority = _integer(f, priority_raw.get("priority"), "spec.schedulePriority.priority", maximum=INT32)
    reschedule_at = _time(f, spec.get("rescheduleTriggeredAt"), "spec.rescheduleTriggeredAt")
    observed = _status(f, status)
    return Binding(
        manifest=m,
        placement=placement,
        generation=generation,
        observed_generation=observed[0],
        observed_affinity=observed[1],
        last_scheduled=observed[2],
        reschedule_at=reschedule_at,
        created=created,
        watched=_watched(labels)
        and scheduler in ("", n.DEFAULT_SCHEDULER)
        and not suspended
        and not deleting,
        replicas=replicas,
        requests=requests,
        components=components,
        clusters=_targets(f, spec.get("clusters")),
        evicted=_evictions(f, spec.get("gracefulEvictionTasks")),
        api=n.API_TRAIT.format(resource["apiVersion"], resource["kind"]),
        uid=resource["uid"],
        priority=priority,
    )


def _watched(labels: dict[str, str]) -> bool:
    return any(labels.get(label) for label in n.WATCH_LABELS)


def _v1alpha1(
    f: Fields,
    m: Manifest,
    spec: dict[str, Any],
    status: dict[str, Any],
    labels: dict[str, str],
    generation: int,
    created: datetime,
    deleting: bool,
) -> Binding:
    """A v1alpha1 binding, as the scheduler reads it converted (binding_types_conversion.go): the
    same resource, replicas, requests and clusters, and no placement, so it is never scheduled."""
    resource = _resource(f, spec)
    replicas = _integer(f, resource.get("replicas"), "spec.resource.replicas", maximum=INT32)
    raw = f.mapping(spec.get("resource"), "spec.resource").get("resourcePerReplicas")
    requests = None if raw is None else resource_list(f, raw, "spec.resource.resourcePerReplicas")
    if not conditions_fine(status.get("conditions")):
        f.conditions(status.get("conditions"), "status.conditions")
    return Binding(
        manifest=m,
        placement=None,
        generation=generation,
        observed_generation=0,
        observed_affinity="",
        last_scheduled=None,
        reschedule_at=None,
        created=created,
        watched=_watched(labels) and not deleting,
        replicas=replicas,
        requests=requests,
        components=(),
        clusters=_targets(f, spec.get("clusters")),
        evicted=(),
        api=n.API_TRAIT.format(resource["apiVersion"], resource["kind"]),
        uid="",
        priority=0,
    )


def _resource(f: Fields, spec: dict[str, Any]) -> dict[str, Any]:
    if spec.get("resource") is None:
        raise f.fail("resource is required", "spec.resource")
    raw = f.mapping(spec["resource"], "spec.resource")
    out: dict[str, Any] = dict(raw)
    f.required(raw, "spec.resource", ("apiVersion", "kind", "name"))
    for key in ("apiVersion", "kind", "name", "namespace", "uid", "resourceVersion"):
        out[key] = f.string(raw.get(key), f"spec.resource.{key}")
    return out


def _components(f: Fields, raw: Any) -> tuple[Component, ...]:
    out = []
    for path, item in f.objects(raw, "spec.components"):
        f.required(item, path, ("name", "replicas"))
        name = f.string(item["name"], f"{path}.name")
        if len(name) > n.COMPONENT_NAME_MAX:
            raise f.fail(f"may not be longer than {n.COMPONENT_NAME_MAX}", f"{path}.name")
        # the binding webhook's validateComponents (MultiplePodTemplatesScheduling on)
        if not name:
            raise f.fail("component names must be non-empty", f"{path}.name")
        if any(c.name == name for c in out):
            raise f.fail("component names must be unique", f"{path}.name")
        replicas = f.integer(item["replicas"], f"{path}.replicas", maximum=INT32)  # int32, no minimum
        requirements = f.mapping(item.get("replicaRequirements"), f"{path}.replicaRequirements")
        where = f"{path}.replicaRequirements.resourceRequest"
        out.append(Component(name, replicas, resource_list(f, requirements.get("resourceRequest"), where)))
    return tuple(out)


def _targets(f: Fields, raw: Any) -> tuple[tuple[str, int], ...]:
    out = []
    for path, item in f.objects(raw, "spec.clusters"):
        if item.get("name") is None:
            raise f.fail("name is required", f"{path}.name")
        name = f.string(item["name"], f"{path}.name")
        out.append((name, _integer(f, item.get("replicas"), f"{path}.replicas", maximum=INT32)))
    return tuple(out)


def _evictions(f: Fields, raw: Any) -> tuple[str, ...]:
    out = []
    for path, item in f.objects(raw, "spec.gracefulEvictionTasks"):
        f.required(item, path, ("fromCluster", "producer", "reason"))
        reason = f.string(item["reason"], f"{path}.reason")
        if len(reason) > _REASON_MAX or not _reason_ok(reason):
            raise f.fail(f"invalid reason {reason!r}", f"{path}.reason")
        f.string(item["producer"], f"{path}.producer")
        if item.get("replicas") is not None:
            f.integer(item["replicas"], f"{path}.replicas", maximum=INT32)
        if item.get("creationTimestamp") is not None:
            parse_time(f, item["creationTimestamp"], f"{path}.creationTimestamp")
        out.append(f.string(item["fromCluster"], f"{path}.fromCluster"))
    return tuple(out)


def _reason_ok(reason: str) -> bool:
    return _REASON.fullmatch(reason) is not None


def _integer(f: Fields, value: Any, path: str, *, minimum: int | None = None, maximum: int = INT64) -> int:
    """An integer field that may be absent or null (0: the API server prunes a null, Go decodes
    one into a plain int as its zero value)."""
    return 0 if value is None else f.integer(value, path, minimum=minimum, maximum=maximum)


def _boolean(f: Fields, value: Any, path: str) -> bool:
    if value is None:
        return False
    if type(value) is not bool:
        raise f.fail("expected a boolean", path)
    return value


def _time(f: Fields, value: Any, path: str) -> datetime | None:
    moment = parse_time(f, value, path)
    return None if value is None or moment == ZERO_TIME else moment


def _status(f: Fields, status: dict[str, Any]) -> tuple[int, str, datetime | None]:
    observed = _integer(f, status.get("schedulerObservedGeneration"), "status.schedulerObservedGeneration")
    affinity = f.string(status.get("schedulerObservingAffinityName"), "status.schedulerObservingAffinityName")
    last = _time(f, status.get("lastScheduledTime"), "status.lastScheduledTime")
    if not conditions_fine(status.get("conditions")):
        f.conditions(status.get("conditions"), "status.conditions")
    return observed, affinity, last
