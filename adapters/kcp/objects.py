"""kcp objects -> what the placement controllers read of them, every field checked as the CRD
schema checks it (kcp v0.5.0-alpha.1 and v0.8.0 `config/crds`: required fields, patterns, enums,
int32 ranges); an InputError names the object with its workspace, and the field.

Every kcp object lives in the logical workspace its markers name (workspace.read_workspace: one
name, or the object is refused). Selectors keep Kubernetes' nil/empty distinction: None matches
nothing, an empty LabelSelector everything; a selector Kubernetes cannot build
(adapters.kube.selectors.SelectorError) matches nothing, as upstream skips it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.kcp import names as n
from adapters.kcp.keys import sync_target_key
from adapters.kcp.workspace import KcpFields, kcp_fields
from adapters.kube.fields import INT32, ZERO_TIME, Fields, parse_time, rfc3339, time_fine, whole
from adapters.kube.manifests import Manifest
from adapters.kube.selectors import SelectorError, label_selector
from adapters.kube.validation import judged_metadata
from model import LabelSelector, QuantityError, parse_quantity

__all__ = [
    "BindingObject",
    "ClusterObject",
    "LocationObject",
    "NO_RESOURCE",
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
_RESOURCE_NAME = re.compile(r"[a-z][-a-z0-9]*[a-z0-9]")
_GROUP = re.compile(r"(|[a-z0-9]([-a-z0-9]*[a-z0-9](\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?)")
# The Location CRD's patterns for availableSelectorLabels (a label key, a label value).
_LABEL_KEY = re.compile(
    r"([a-z0-9]([-a-z0-9]*[a-z0-9](\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?/)?([a-zA-Z0-9][-a-zA-Z0-9_.]{0,61})?[a-zA-Z0-9]"
)
_LABEL_VALUE = re.compile(
    r"(|([a-z0-9]([-a-z0-9]*[a-z0-9](\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?/)?([a-zA-Z0-9][-a-zA-Z0-9_.]{0,61})?[a-zA-Z0-9])"
)
_SYNC_TARGET_NAME_MAX = 234  # the SyncTarget CRD's patch: 253 - 10 (prefix) - 9 (hash)
BINDING_PHASES = ("", "Binding", "Bound")
CLAIM_STATES = ("Accepted", "Rejected")
SYNCED_STATES = ("Pending", "Accepted", "Incompatible")


def selects(selector: LabelSelector | None, labels: Mapping[str, str]) -> bool:
    """Kubernetes' LabelSelectorAsSelector: None (a nil selector) matches nothing."""
    return selector is not None and selector.matches(labels)


def _selector(f: Fields, raw: Any, path: str) -> tuple[LabelSelector | None, str]:
    """A selector that may be nil (None: matches nothing), and upstream's error when it cannot be
    built (then it matches nothing either). Each distinct one is read once (a hub's placements
    repeat a few): keyed by its raw form's repr, in which 1, "1" and True differ; a selector the
    schema refuses raises, and is never kept, so it names its own object."""
    if raw is None:
        return None, ""
    seen = (repr(raw), path)
    got = _SELECTORS.get(seen)
    if got is None:
        try:
            got = (label_selector(f, raw, path) or LabelSelector(), "")
        except SelectorError as err:
            got = (None, str(err))
        if len(_SELECTORS) < _SELECTORS_KEPT:
            _SELECTORS[seen] = got
    return got


_SELECTORS: dict[tuple[str, str], tuple[LabelSelector | None, str]] = {}
_SELECTORS_KEPT = 1 << 14


def _required(f: Fields, raw: Mapping[str, Any], key: str, path: str) -> Any:
    """A field the schema requires (present, not null)."""
    if raw.get(key) is None:
        raise f.fail("required", path)
    return raw[key]


def _enum(f: Fields, value: Any, allowed: tuple[str, ...], path: str) -> str:
    """A string the schema restricts to `allowed`."""
    text = f.string(value, path)
    if text not in allowed:
        expected = ", ".join(repr(a) for a in allowed)
        raise f.fail(f"unsupported value {text!r}: expected one of {expected}", path)
    return text


def _pattern(f: Fields, value: Any, pattern: re.Pattern[str], path: str, what: str) -> str:
    text = f.string(value, path)
    if not pattern.fullmatch(text):
        raise f.fail(f"{text!r} is not {what}", path)
    return text


def _workspace_path(f: Fields, value: Any, path: str) -> str:
    """An absolute workspace path (root:...), "" when absent (a present "" fails the pattern)."""
    if value is None:
        return ""
    return _pattern(f, value, _PATH, path, "an absolute workspace path (root:...)")


def _int32(f: Fields, raw: Mapping[str, Any], key: str, path: str) -> None:
    if raw.get(key) is not None:
        f.integer(raw[key], path, maximum=INT32)


def _quantities(f: Fields, raw: Mapping[str, Any], key: str) -> None:
    """status.capacity / status.allocatable: resource quantities (an integer or a quantity string)."""
    for resource, value in f.mapping(raw.get(key), f"status.{key}").items():
        if value is None:  # the API server prunes a null in a map: no such resource
            continue
        path = f"status.{key}.{resource}"
        value = whole(value)
        if isinstance(value, bool) or not isinstance(value, str | int):
            raise f.fail("expected a quantity", path)
        try:
            parse_quantity(str(value))
        except QuantityError as err:
            raise f.fail(str(err), path) from None


def condition_status(conditions: tuple[Mapping[str, Any], ...], kind: str) -> str:
    """The status of the condition of that type ("" when it is absent)."""
    for item in conditions:
        if item.get("type") == kind:
            return item.get("status") or ""
    return ""


def _conditions(f: Fields, status: Mapping[str, Any], *, strict: bool) -> tuple[Mapping[str, Any], ...]:
    """The conditions; `strict`: as a kcp CRD's schema has them (no null item, type, status and
    an RFC 3339 lastTransitionTime required); a Namespace's are the API server's own, read
    leniently: it may be another system's input, and the API server decodes a core object as Go's
    encoding/json does, a null item into the zero value (an empty condition)."""
    out = []
    path = "status.conditions"
    items = f.sequence(status.get("conditions"), path)
    if strict and all(_plain_condition(item) for item in items):  # the common case, at a glance
        return tuple(items)
    listed = (
        f.objects(items, path)
        if strict
        else ((f"{path}[{i}]", f.mapping(item, f"{path}[{i}]")) for i, item in enumerate(items))
    )
    for where, item in listed:
        for key in ("type", "status"):  # required: present, any string ("" too)
            if item.get(key) is None and strict:
                raise f.fail("required", f"{where}.{key}")
            f.string(item.get(key), f"{where}.{key}")
        if strict:
            parse_time(
                f,
                _required(f, item, "lastTransitionTime", f"{where}.lastTransitionTime"),
                f"{where}.lastTransitionTime",
            )
            for key in ("reason", "message", "severity"):
                f.string(item.get(key), f"{where}.{key}")
        out.append(item)
    return tuple(out)


def _plain_condition(item: Any) -> bool:
    """A condition the strict checks pass: an object whose type and status are strings, with a
    time Kubernetes reads, and a reason, message and severity each a string or absent."""
    if type(item) is not dict:
        return False
    get = item.get  # each key spelt out: a generator over three keys cost more than the looks
    return (
        type(get("type")) is str
        and type(get("status")) is str
        and time_fine(get("lastTransitionTime"))
        and type(get("reason")) in _STRING_OR_NONE
        and type(get("message")) in _STRING_OR_NONE
        and type(get("severity")) in _STRING_OR_NONE
    )


_STRING_OR_NONE = (str, type(None))


def _fields(manifest: Manifest, workspace: str | None) -> KcpFields:
    """The checks of one object, in the workspace its loader read already (None: read it now)."""
    return kcp_fields(manifest) if workspace is None else KcpFields(manifest, workspace)


# Not frozen (nothing changes one once made): a hub makes one per object, tens of thousands,
# and a frozen dataclass's __init__ sets each field through object.__setattr__, about 1.3 us
# more for eight fields (tests/test_record_speed.py).
@dataclass(slots=True)
class _Meta:
    workspace: str
    labels: dict[str, str]
    annotations: dict[str, str]
    created: datetime


def _meta(f: KcpFields, manifest: Manifest) -> _Meta:
    metadata = manifest.obj["metadata"]
    labels, annotations = metadata.get("labels"), metadata.get("annotations")
    created = metadata.get("creationTimestamp")
    # The common object in a few looks: no namespace, labels and annotations the registry has
    # judged already (adapters.registry), a creation time or none, and no deletion time.
    if (
        not metadata.get("namespace")
        and metadata.get("deletionTimestamp") is None
        and judged_metadata(labels, annotations, None, None)
        and (moment := ZERO_TIME if created is None else rfc3339(created) if type(created) is str else None)
    ):
        assert f.workspace is not None
        return _Meta(f.workspace, dict(labels or {}), dict(annotations or {}), moment)
    if manifest.namespace:
        raise f.fail(f"a {manifest.kind} is cluster-scoped (within its workspace)", "metadata.namespace")
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    annotations = f.string_map(metadata.get("annotations"), "metadata.annotations")
    created = parse_time(f, metadata.get("creationTimestamp"), "metadata.creationTimestamp")
    # Checked as the API server reads it; no placement controller of either generation looks at
    # it (a SyncTarget or WorkloadCluster being deleted is still a candidate, FilterReady and
    # FilterNonEvicting in pkg/reconciler/scheduling/location).
    parse_time(f, metadata.get("deletionTimestamp"), "metadata.deletionTimestamp")
    assert f.workspace is not None
    return _Meta(f.workspace, labels, annotations, created)


# ----------------------------------------------------------------------------------------- Namespace


# Not frozen: one per object of a hub, and frozen's __init__ costs more (tests/test_record_speed.py).
@dataclass(slots=True)
class NamespaceObject:
    manifest: Manifest
    workspace: str
    name: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    created: datetime
    conditions: tuple[Mapping[str, Any], ...]
    key: str  # `<workspace>/<name>` (made once: plans ask it of every namespace in every round)


def read_namespace(manifest: Manifest, workspace: str | None = None) -> NamespaceObject:
    f = _fields(manifest, workspace)
    meta = _meta(f, manifest)
    status = manifest.obj.get("status")
    conditions: tuple[Mapping[str, Any], ...] = ()
    if not (status is None or (type(status) is dict and status.get("conditions") is None)):
        conditions = _conditions(f, f.mapping(status, "status"), strict=False)
    return NamespaceObject(
        manifest,
        meta.workspace,
        manifest.name,
        meta.labels,
        meta.annotations,
        meta.created,
        conditions,
        f"{meta.workspace}/{manifest.name}",
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
    completed: bool  # InitialBindingCompleted is True (what v0.5's event filter asks)

    @property
    def to_compute(self) -> bool:
        return self.export_name == n.COMPUTE_EXPORT


def read_binding(manifest: Manifest, workspace: str | None = None) -> BindingObject:
    f = _fields(manifest, workspace)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    # The CRD requires spec.reference, but not spec: without one (a null is pruned) the binding
    # refers to no export, and every placement controller skips it (a nil Workspace reference).
    path = export_name = ""
    if manifest.obj.get("spec") is not None:
        path, export_name = _export(f, spec)
    for at, claim in f.objects(spec.get("permissionClaims"), "spec.permissionClaims"):
        _pattern(
            f,
            _required(f, claim, "resource", f"{at}.resource"),
            _RESOURCE_NAME,
            f"{at}.resource",
            "a resource name",
        )
        _pattern(f, claim.get("group"), _GROUP, f"{at}.group", "an API group")
        _enum(f, _required(f, claim, "state", f"{at}.state"), CLAIM_STATES, f"{at}.state")
    status = f.mapping(manifest.obj.get("status"), "status")
    _enum(f, status.get("phase"), BINDING_PHASES, "status.phase")
    conditions = _conditions(f, status, strict=True)
    completed = condition_status(conditions, n.INITIAL_BINDING_COMPLETED) == "True"
    ready = completed and condition_status(conditions, n.API_EXPORT_VALID) == "True"
    return BindingObject(manifest, meta.workspace, manifest.name, path, export_name, ready, completed)


def _export(f: Fields, spec: Mapping[str, Any]) -> tuple[str, str]:
    """The workspace path and name of the APIExport the binding's spec refers to."""
    reference = f.mapping(_required(f, spec, "reference", "spec.reference"), "spec.reference")
    base = "spec.reference.workspace"
    ref = f.mapping(_required(f, reference, "workspace", base), base)
    # required: present, any string ("" too, which binds to no export anyone serves)
    export_name = f.string(_required(f, ref, "exportName", f"{base}.exportName"), f"{base}.exportName")
    # Both generations' schemas require the path (a `oneOf: [required: [path]]`); v0.4's sibling
    # `name` is no field of theirs.
    path = _workspace_path(f, _required(f, ref, "path", f"{base}.path"), f"{base}.path")
    return path, export_name


# ----------------------------------------------------------------------------------------- Location


@dataclass(frozen=True, slots=True)
class Resource:
    group: str
    version: str
    resource: str


# The resource of a Location or Placement without a spec (the CRDs require none; a null one is
# pruned): Go's zero GroupVersionResource, which no Placement's locationResource equals.
NO_RESOURCE = Resource("", "", "")


@dataclass(frozen=True, slots=True)
class LocationObject:
    manifest: Manifest
    workspace: str
    name: str
    labels: Mapping[str, str]
    resource: Resource
    instance_selector: LabelSelector | None  # None: upstream cannot build it, matches nothing
    selector_error: str

    @property
    def key(self) -> str:
        """`<workspace>+<name>`: how the placement annotation and the traits name it."""
        return f"{self.workspace}+{self.name}"


def _resource(f: Fields, spec: Mapping[str, Any], key: str) -> Resource:
    """A GroupVersionResource as both CRDs (Location, Placement) declare it: group optional but
    only workload.kcp.dev (an empty one is refused, an absent one reads as ""), version
    v1alpha1, resource required (its enum is the generation's: load.py)."""
    path = f"spec.{key}"
    raw = f.mapping(_required(f, spec, key, path), path)
    group = "" if raw.get("group") is None else _enum(f, raw["group"], (n.WORKLOAD_GROUP,), f"{path}.group")
    version = _enum(f, _required(f, raw, "version", f"{path}.version"), (n.VERSION,), f"{path}.version")
    resource = f.string(_required(f, raw, "resource", f"{path}.resource"), f"{path}.resource")
    _pattern(f, resource, _RESOURCE_NAME, f"{path}.resource", "a resource name")
    return Resource(group, version, resource)


def _selector_labels(f: Fields, spec: Mapping[str, Any]) -> None:
    """spec.availableSelectorLabels: a list keyed by `key` (a label key), each with a set of at
    least one label value."""
    seen: set[str] = set()
    for where, item in f.objects(spec.get("availableSelectorLabels"), "spec.availableSelectorLabels"):
        key = f.string(_required(f, item, "key", f"{where}.key"), f"{where}.key")
        if len(key) > 255:
            raise f.fail(f"must be at most 255 characters, got {len(key)}", f"{where}.key")
        _pattern(f, key, _LABEL_KEY, f"{where}.key", "a label key")
        if key in seen:
            raise f.fail(f"duplicate key {key!r}", f"{where}.key")
        seen.add(key)
        values = f.string_list(_required(f, item, "values", f"{where}.values"), f"{where}.values")
        if not values:
            raise f.fail("at least one value is required", f"{where}.values")
        for j, value in enumerate(values):
            if len(value) > 63:
                raise f.fail(f"must be at most 63 characters, got {len(value)}", f"{where}.values[{j}]")
            _pattern(f, value, _LABEL_VALUE, f"{where}.values[{j}]", "a label value")
        if len(set(values)) != len(values):
            raise f.fail("duplicate values (a set)", f"{where}.values")
        f.string(item.get("description"), f"{where}.description")


def read_location(manifest: Manifest, workspace: str | None = None) -> LocationObject:
    f = _fields(manifest, workspace)
    meta = _meta(f, manifest)
    status = f.mapping(manifest.obj.get("status"), "status")
    for key in ("instances", "availableInstances"):
        _int32(f, status, key, f"status.{key}")
    if manifest.obj.get("spec") is None:  # no resource, and a nil instanceSelector: no cluster
        return LocationObject(manifest, meta.workspace, manifest.name, meta.labels, NO_RESOURCE, None, "")
    spec = f.mapping(manifest.obj["spec"], "spec")
    resource = _resource(f, spec, "resource")
    f.string(spec.get("description"), "spec.description")
    _selector_labels(f, spec)
    # The CRD defaults an absent (or null) instanceSelector to {}: every cluster of the workspace.
    raw_selector = spec.get("instanceSelector")
    selector, error = _selector(f, {} if raw_selector is None else raw_selector, "spec.instanceSelector")
    return LocationObject(manifest, meta.workspace, manifest.name, meta.labels, resource, selector, error)


# ------------------------------------------------------------------------ WorkloadCluster, SyncTarget


# Not frozen: one per object of a hub, and frozen's __init__ costs more (tests/test_record_speed.py).
@dataclass(slots=True)
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
    neutral: str  # its name in the neutral model, `<workspace>/<name>` (made once: asked often)

    @property
    def key(self) -> str:
        """How placements name it: the name (v0.5), the SyncTargetKey (v0.8)."""
        if self.kind == n.SYNC_TARGET:
            return sync_target_key(self.workspace, self.name)
        return self.name

    def evicting(self, now: datetime) -> bool:
        return self.evict_after is not None and now >= self.evict_after


def _sync_target_fields(
    f: Fields, manifest: Manifest, spec: Mapping[str, Any], status: Mapping[str, Any]
) -> None:
    """What only a SyncTarget's schema has: its name's length, supportedAPIExports, cells and
    status.syncedResources."""
    if len(manifest.name) > _SYNC_TARGET_NAME_MAX:
        raise f.fail(
            f"must be at most {_SYNC_TARGET_NAME_MAX} characters, got {len(manifest.name)}", "metadata.name"
        )
    for where, item in f.objects(spec.get("supportedAPIExports"), "spec.supportedAPIExports"):
        ref = f.mapping(item.get("workspace"), f"{where}.workspace")
        if ref:
            f.string(
                _required(f, ref, "exportName", f"{where}.workspace.exportName"),
                f"{where}.workspace.exportName",
            )
            _workspace_path(f, ref.get("path"), f"{where}.workspace.path")
    f.string_map(spec.get("cells"), "spec.cells", pruned=True)
    for where, item in f.objects(status.get("syncedResources"), "status.syncedResources"):
        _pattern(
            f,
            _required(f, item, "resource", f"{where}.resource"),
            _RESOURCE_NAME,
            f"{where}.resource",
            "a resource name",
        )
        _pattern(f, item.get("group"), _GROUP, f"{where}.group", "an API group")
        if not f.string_list(_required(f, item, "versions", f"{where}.versions"), f"{where}.versions"):
            raise f.fail("at least one version is required", f"{where}.versions")
        if item.get("state") is not None:
            _enum(f, item["state"], SYNCED_STATES, f"{where}.state")


def read_cluster(manifest: Manifest, workspace: str | None = None) -> ClusterObject:
    f = _fields(manifest, workspace)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    unschedulable = spec.get("unschedulable", False)
    if not isinstance(unschedulable, bool):
        raise f.fail("expected a boolean", "spec.unschedulable")
    evict_after = None
    if spec.get("evictAfter") is not None:
        evict_after = parse_time(f, spec["evictAfter"], "spec.evictAfter")
    status = f.mapping(manifest.obj.get("status"), "status")
    for key in ("capacity", "allocatable"):
        _quantities(f, status, key)
    parse_time(f, status.get("lastSyncerHeartbeatTime"), "status.lastSyncerHeartbeatTime")
    for where, item in f.objects(status.get("virtualWorkspaces"), "status.virtualWorkspaces"):
        if not f.string(item.get("url"), f"{where}.url"):
            raise f.fail("required", f"{where}.url")
    if manifest.kind == n.SYNC_TARGET:
        _sync_target_fields(f, manifest, spec, status)
    ready = condition_status(_conditions(f, status, strict=True), n.READY) == "True"
    return ClusterObject(
        manifest,
        manifest.kind,
        meta.workspace,
        manifest.name,
        meta.labels,
        ready,
        unschedulable,
        evict_after,
        f"{meta.workspace}/{manifest.name}",
    )


# ---------------------------------------------------------------------------------------- Placement


# Not frozen: one per object of a hub, and frozen's __init__ costs more (tests/test_record_speed.py).
@dataclass(slots=True)
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
    namespace_selector_error: str  # why upstream cannot build it ("" when it can)
    location_workspace: str
    phase: str
    selected: tuple[str, str] | None  # status.selectedLocation (path, locationName)
    ready: str  # the Ready condition's status ("" when absent)
    conditions: tuple[Mapping[str, Any], ...]
    key: str  # `<workspace>/<name>` (made once: plans ask it of every placement in every round)

    @property
    def target(self) -> str:
        """The SyncTargetKey it holds ("" when none)."""
        return self.annotations.get(n.SYNC_TARGET_ANNOTATION, "")


def read_placement(manifest: Manifest, workspace: str | None = None) -> PlacementObject:
    f = _fields(manifest, workspace)
    meta = _meta(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    # Without a spec (the CRD requires none): no resource, no location selector, so no location.
    resource = NO_RESOURCE if manifest.obj.get("spec") is None else _resource(f, spec, "locationResource")
    selectors = []
    for where, raw in f.objects(spec.get("locationSelectors"), "spec.locationSelectors"):
        selector, _ = _selector(f, raw, where)
        if selector is not None:
            selectors.append(selector)
    namespace_selector, error = _selector(f, spec.get("namespaceSelector"), "spec.namespaceSelector")
    location_workspace = _workspace_path(f, spec.get("locationWorkspace"), "spec.locationWorkspace")
    status = f.mapping(manifest.obj.get("status"), "status")
    phase = (
        n.PHASE_PENDING
        if status.get("phase") is None
        else _enum(f, status["phase"], n.PHASES, "status.phase")
    )
    selected = None
    if status.get("selectedLocation") is not None:
        base = "status.selectedLocation"
        ref = f.mapping(status["selectedLocation"], base)
        path = _workspace_path(f, _required(f, ref, "path", f"{base}.path"), f"{base}.path")
        name = f.string(_required(f, ref, "locationName", f"{base}.locationName"), f"{base}.locationName")
        selected = (path, name)
    conditions = _conditions(f, status, strict=True)
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
        error,
        location_workspace or meta.workspace,
        phase,
        selected,
        condition_status(conditions, n.READY),
        conditions,
        f"{meta.workspace}/{manifest.name}",
    )
