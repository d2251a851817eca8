"""kcp objects -> what the placement controllers read of them, every field checked as the CRD
schema checks it (an InputError names the object with its workspace, and the field).

Every kcp object lives in the logical workspace its markers name (workspace.read_workspace: one
name, or the object is refused). Selectors
keep Kubernetes' nil/empty distinction: None matches nothing, an empty LabelSelector everything;
a selector Kubernetes cannot build (adapters.selectors.SelectorError) matches nothing, as upstream
skips it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.fields import ZERO_TIME, Fields, parse_time
from adapters.kcp import names as n
from adapters.kcp.keys import sync_target_key
from adapters.kcp.workspace import KcpFields, kcp_fields
from adapters.manifests import Manifest
from adapters.selectors import SelectorError, label_selector
from model import LabelSelector

__all__ = [
    "BindingObject",
    "ClusterObject",
    "LocationObject",
    "NamespaceObject",
    "PlacementObject",
    "Resource",
    "condition_status",
    "read_binding",
    "read_cluster",
    "read_location",
    "read_namespace",
    "read_placement",
    "selects",
]

_PATH = re.compile(r"root(:[a-z0-9]([-a-z0-9]*[a-z0-9])?)*")
_NOT_A_PATH = "{!r} is not an absolute workspace path (root:...)"
_RESOURCE_NAME = re.compile(r"[a-z][-a-z0-9]*[a-z0-9]")


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """Kubernetes' LabelSelectorAsSelector: None (a nil selector) matches nothing."""
    return selector is not None and selector.matches(labels)


def _selector(f: Fields, raw: Any, path: str) -> tuple[LabelSelector | None, str]:
    """A selector that may be nil (None: matches nothing), and upstream's error when it cannot be
    built (then it matches nothing either)."""
    if raw is None:
        return None, ""
    try:
        return label_selector(f, raw, path) or LabelSelector(), ""
    except SelectorError as err:
        return None, str(err)


def condition_status(f: Fields, status: Mapping[str, Any], kind: str) -> str:
    """The status of the condition of that type ("" when it is absent)."""
    for i, item in enumerate(f.sequence(status.get("conditions"), "status.conditions")):
        item = f.mapping(item, f"status.conditions[{i}]")
        if f.string(item.get("type"), f"status.conditions[{i}].type") == kind:
            return f.string(item.get("status"), f"status.conditions[{i}].status")
    return ""


def _conditions(f: Fields, status: Mapping[str, Any], *, strict: bool) -> tuple[Mapping[str, Any], ...]:
    """The conditions; `strict`: type and status required (a CRD's schema; a Namespace's is the
    API server's own, read leniently: it may be another system's input)."""
    out = []
    for i, item in enumerate(f.sequence(status.get("conditions"), "status.conditions")):
        item = f.mapping(item, f"status.conditions[{i}]")
        for key in ("type", "status"):
            if not f.string(item.get(key), f"status.conditions[{i}].{key}") and strict:
                raise f.fail("required", f"status.conditions[{i}].{key}")
        out.append(item)
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _Meta:
    workspace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    created: datetime
    deleting: bool


def _meta(f: KcpFields, manifest: Manifest) -> _Meta:
    metadata = manifest.obj["metadata"]
    if manifest.namespace:
        raise f.fail(f"a {manifest.kind} is cluster-scoped (within its workspace)", "metadata.namespace")
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    annotations = f.string_map(metadata.get("annotations"), "metadata.annotations")
    created = parse_time(f, metadata.get("creationTimestamp"), "metadata.creationTimestamp")
    deleting = parse_time(f, metadata.get("deletionTimestamp"), "metadata.deletionTimestamp") != ZERO_TIME
    assert f.workspace is not None
    return _Meta(f.workspace, labels, annotations, created, deleting)


# ----------------------------------------------------------------------------------------- Namespace


@dataclass(frozen=True, slots=True)
class NamespaceObject:
    manifest: Manifest
    workspace: str
    name: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    created: datetime
    deleting: bool
    conditions: tuple[Mapping[str, Any], ...]

    @property
    def key(self) -> str:
        return f"{self.workspace}/{self.name}"


def read_namespace(manifest: Manifest) -> NamespaceObject:
    f = kcp_fields(manifest)
    meta = _meta(f, manifest)
    status = f.mapping(manifest.obj.get("status"), "status")
    return NamespaceObject(
        manifest,
        meta.workspace,
        manifest.name,
        meta.labels,
        meta.annotations,
        meta.created,
        meta.deleting,
        _conditions(f, status, strict=False),
    )


# --------------------------------------------------------------------------------------- APIBinding


@dataclass(frozen=True, slots=True)
class BindingObject:
    manifest: Manifest
    workspace: str
    name: str
    export_workspace: str  # the workspace of the APIExport it binds to
    export_name: str
    ready: bool  # InitialBindingCompleted and APIExportValid are True

    @property
    def to_compute(self) -> bool:
        return self.export_name == n.COMPUTE_EXPORT


def read_binding(manifest: Manifest) -> BindingObject:
    f = kcp_fields(manifest)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    if spec.get("reference") is None:
        raise f.fail("required", "spec.reference")
    reference = f.mapping(spec["reference"], "spec.reference")
    if reference.get("workspace") is None:
        raise f.fail("required", "spec.reference.workspace")
    ref = f.mapping(reference["workspace"], "spec.reference.workspace")
    export_name = f.string(ref.get("exportName"), "spec.reference.workspace.exportName")
    if not export_name:
        raise f.fail("required", "spec.reference.workspace.exportName")
    path = f.string(ref.get("path"), "spec.reference.workspace.path")
    sibling = f.string(ref.get("workspaceName"), "spec.reference.workspace.workspaceName")
    if path and not _PATH.fullmatch(path):
        raise f.fail(
            f"{path!r} is not an absolute workspace path (root:...)", "spec.reference.workspace.path"
        )
    if path:
        where = path
    elif sibling:  # v0.5: a workspace of the same organization (a sibling of the binding's)
        parent, colon, _ = meta.workspace.rpartition(":")
        where = f"{parent}{colon}{sibling}"
    else:
        where = meta.workspace
    status = f.mapping(manifest.obj.get("status"), "status")
    ready = all(
        condition_status(f, status, kind) == "True"
        for kind in (n.INITIAL_BINDING_COMPLETED, n.API_EXPORT_VALID)
    )
    return BindingObject(manifest, meta.workspace, manifest.name, where, export_name, ready)


# ----------------------------------------------------------------------------------------- Location


@dataclass(frozen=True, slots=True)
class Resource:
    group: str
    version: str
    resource: str


@dataclass(frozen=True, slots=True)
class LocationObject:
    manifest: Manifest
    workspace: str
    name: str
    labels: Mapping[str, str]
    resource: Resource
    instance_selector: LabelSelector | None  # None: matches nothing
    selector_error: str

    @property
    def key(self) -> str:
        """`<workspace>+<name>`: how the placement annotation and the traits name it."""
        return f"{self.workspace}+{self.name}"


def _resource(f: Fields, raw: Any, path: str) -> Resource:
    if raw is None:
        raise f.fail("required", path)
    raw = f.mapping(raw, path)
    values = []
    for part in ("group", "version", "resource"):
        value = f.string(raw.get(part), f"{path}.{part}")
        if part != "group" and not value:
            raise f.fail("required", f"{path}.{part}")
        if part != "group" and not _RESOURCE_NAME.fullmatch(value):
            raise f.fail(f"{value!r} is not a resource or version name", f"{path}.{part}")
        values.append(value)
    return Resource(*values)


def read_location(manifest: Manifest) -> LocationObject:
    f = kcp_fields(manifest)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    resource = _resource(f, spec.get("resource"), "spec.resource")
    f.string(spec.get("description"), "spec.description")
    for i, item in enumerate(f.sequence(spec.get("availableSelectorLabels"), "spec.availableSelectorLabels")):
        where = f"spec.availableSelectorLabels[{i}]"
        item = f.mapping(item, where)
        if not f.string(item.get("key"), f"{where}.key"):
            raise f.fail("required", f"{where}.key")
        if not f.string_list(item.get("values"), f"{where}.values"):
            raise f.fail("at least one value is required", f"{where}.values")
    selector, error = _selector(f, spec.get("instanceSelector"), "spec.instanceSelector")
    return LocationObject(manifest, meta.workspace, manifest.name, meta.labels, resource, selector, error)


# ------------------------------------------------------------------------ WorkloadCluster, SyncTarget


@dataclass(frozen=True, slots=True)
class ClusterObject:
    """A WorkloadCluster (v0.5) or a SyncTarget (v0.8)."""

    manifest: Manifest
    kind: str
    workspace: str
    name: str
    labels: Mapping[str, str]
    ready: bool  # the Ready condition is True
    unschedulable: bool
    evict_after: datetime | None
    deleting: bool

    @property
    def neutral(self) -> str:
        """Its name in the neutral model: `<workspace>/<name>`."""
        return f"{self.workspace}/{self.name}"

    @property
    def key(self) -> str:
        """How placements name it: the name (v0.5), the SyncTargetKey (v0.8)."""
        if self.kind == n.SYNC_TARGET:
            return sync_target_key(self.workspace, self.name)
        return self.name

    def evicting(self, now: datetime) -> bool:
        return self.evict_after is not None and now >= self.evict_after


def read_cluster(manifest: Manifest) -> ClusterObject:
    f = kcp_fields(manifest)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    unschedulable = spec.get("unschedulable", False)
    if not isinstance(unschedulable, bool):
        raise f.fail("expected a boolean", "spec.unschedulable")
    evict_after = None
    if spec.get("evictAfter") is not None:
        evict_after = parse_time(f, spec["evictAfter"], "spec.evictAfter")
    status = f.mapping(manifest.obj.get("status"), "status")
    ready = condition_status(f, status, n.READY) == "True"
    return ClusterObject(
        manifest,
        manifest.kind,
        meta.workspace,
        manifest.name,
        meta.labels,
        ready,
        unschedulable,
        evict_after,
        meta.deleting,
    )


# ---------------------------------------------------------------------------------------- Placement


@dataclass(frozen=True, slots=True)
class PlacementObject:
    manifest: Manifest
    workspace: str
    name: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    created: datetime
    location_selectors: tuple[LabelSelector, ...]  # ORed; those upstream cannot build are left out
    location_resource: Resource
    namespace_selector: LabelSelector | None  # None: matches no namespace
    location_workspace: str
    phase: str
    selected: tuple[str, str] | None  # status.selectedLocation (path, locationName)
    ready: str  # the Ready condition's status ("" when absent)
    conditions: tuple[Mapping[str, Any], ...]

    @property
    def key(self) -> str:
        return f"{self.workspace}/{self.name}"

    @property
    def target(self) -> str:
        """The SyncTargetKey it holds ("" when none)."""
        return self.annotations.get(n.SYNC_TARGET_ANNOTATION, "")


def read_placement(manifest: Manifest) -> PlacementObject:
    f = kcp_fields(manifest)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    resource = _resource(f, spec.get("locationResource"), "spec.locationResource")
    selectors = []
    for i, raw in enumerate(f.sequence(spec.get("locationSelectors"), "spec.locationSelectors")):
        selector, _ = _selector(f, raw, f"spec.locationSelectors[{i}]")
        if selector is not None:
            selectors.append(selector)
    namespace_selector, _ = _selector(f, spec.get("namespaceSelector"), "spec.namespaceSelector")
    location_workspace = f.string(spec.get("locationWorkspace"), "spec.locationWorkspace")
    if location_workspace and not _PATH.fullmatch(location_workspace):
        raise f.fail(
            f"{location_workspace!r} is not an absolute workspace path (root:...)", "spec.locationWorkspace"
        )
    status = f.mapping(manifest.obj.get("status"), "status")
    phase = f.string(status.get("phase"), "status.phase") or n.PHASE_PENDING
    if phase not in n.PHASES:
        raise f.fail(f"unsupported value {phase!r}: expected one of {', '.join(n.PHASES)}", "status.phase")
    selected = None
    if status.get("selectedLocation") is not None:
        ref = f.mapping(status["selectedLocation"], "status.selectedLocation")
        path = f.string(ref.get("path"), "status.selectedLocation.path")
        name = f.string(ref.get("locationName"), "status.selectedLocation.locationName")
        if not name:
            raise f.fail("required", "status.selectedLocation.locationName")
        selected = (path, name)
    f.string(meta.annotations.get(n.SYNC_TARGET_ANNOTATION), "metadata.annotations")
    return PlacementObject(
        manifest,
        meta.workspace,
        manifest.name,
        meta.labels,
        meta.annotations,
        meta.created,
        tuple(selectors),
        resource,
        namespace_selector,
        location_workspace or meta.workspace,
        phase,
        selected,
        condition_status(f, status, n.READY),
        _conditions(f, status, strict=True),
    )
