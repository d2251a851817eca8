"""Cluster and ClusterRequest -> what the scheduler reads of them, every field checked.

A cluster's tenants are the distinct request uids among its `request.clusters.openmcp.cloud/<uid>`
finalizers, whether or not those requests still exist: the finalizers are the only record of who
uses a cluster.

What the API server would refuse is refused here (openmcp-operator api/crds/manifests/
clusters.openmcp.cloud_{clusters,clusterrequests}.yaml, and ObjectMeta's own rules): a Cluster's
spec.profile and spec.tenancy are required, the tenancy Exclusive or Shared, spec.purposes not
empty when given; metadata.generation is an int64 of at least 0; a status (of either kind)
requires observedGeneration (an int64) and phase (a string), its conditions are metav1.Conditions
(Fields.conditions); a request's status.cluster requires name and namespace (strings, "" too).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.kube.fields import ZERO_TIME, Fields, parse_time
from adapters.kube.manifests import Manifest
from adapters.kube.validation import judged_metadata
from adapters.openmcp import names as n

__all__ = ["ClusterObject", "RequestObject", "read_cluster", "read_request", "request_uids"]


# Not frozen (nothing changes one once made): a hub makes one per object, tens of thousands,
# and a frozen dataclass's __init__ sets each field through object.__setattr__, about 1.3 us
# more for eight fields (tests/test_record_speed.py).
@dataclass(slots=True)
class ClusterObject:
    manifest: Manifest
    key: str  # namespace/name
    namespace: str
    labels: Mapping[str, str]
    finalizers: tuple[str, ...]
    uids: frozenset[str]  # of the requests whose finalizer it carries
    purposes: tuple[str, ...]
    tenancy: str
    deleting: bool


# Not frozen: one per object of a hub, and frozen's __init__ costs more (tests/test_record_speed.py).
@dataclass(slots=True)
class RequestObject:
    manifest: Manifest
    key: str  # namespace/name
    namespace: str
    name: str
    uid: str
    purpose: str
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    created: datetime
    deleting: bool
    cluster: tuple[str, str] | None  # status.cluster (namespace, name)

    @property
    def lookup_fails(self) -> bool:
        """Whether its status.cluster names a cluster upstream cannot look up: an empty name
        (client-go refuses the Get: "resource name may not be empty") or namespace (the API
        server refuses a namespaced Get without one). Every reconcile then fails before anything
        else (controller.go handleCreateOrUpdate), so the request stays Pending for good: its
        reference is immutable (the CRD's `self == oldSelf`)."""
        return self.cluster is not None and not all(self.cluster)

    @property
    def finalizer(self) -> str:
        """The finalizer it puts on its cluster."""
        return n.ON_CLUSTER_PREFIX + self.uid

    @property
    def cluster_key(self) -> str | None:
        return None if self.cluster is None else f"{self.cluster[0]}/{self.cluster[1]}"


def request_uids(finalizers: tuple[str, ...] | list[str]) -> frozenset[str]:
    return frozenset(
        f.removeprefix(n.ON_CLUSTER_PREFIX) for f in finalizers if f.startswith(n.ON_CLUSTER_PREFIX)
    )


def _metadata(f: Fields, manifest: Manifest) -> tuple[dict[str, str], dict[str, str], tuple[str, ...], bool]:
    metadata = manifest.obj["metadata"]
    if not manifest.namespace:
        raise f.fail(f"a {manifest.kind} is namespaced", "metadata.namespace")
    labels, annotations = metadata.get("labels"), metadata.get("annotations")
    finalizers = metadata.get("finalizers")
    # The common object in a few looks: labels, annotations, finalizers and generation the
    # registry has judged already (adapters.registry), no deletion time.
    if metadata.get("deletionTimestamp") is None and judged_metadata(
        labels, annotations, finalizers, metadata.get("generation")
    ):
        return dict(labels or {}), dict(annotations or {}), tuple(finalizers or ()), False
    if metadata.get("generation") is not None:
        f.integer(metadata["generation"], "metadata.generation", minimum=0)
    labels = f.labels(metadata.get("labels"), "metadata.labels")
    annotations = f.string_map(metadata.get("annotations"), "metadata.annotations")
    finalizers = tuple(f.string_list(metadata.get("finalizers"), "metadata.finalizers"))
    deleting = parse_time(f, metadata.get("deletionTimestamp"), "metadata.deletionTimestamp") != ZERO_TIME
    return labels, annotations, finalizers, deleting


def _status(f: Fields, manifest: Manifest) -> Mapping[str, Any]:
    """status as the CRDs declare it (commonapi.Status): observedGeneration an int64, phase a
    string, metav1.Conditions. What it requires is asked last (_status_required): a value
    present and wrong is named first."""
    status = f.mapping(manifest.obj.get("status"), "status")
    if status.get("observedGeneration") is not None:
        f.integer(status["observedGeneration"], "status.observedGeneration")
    f.string(status.get("phase"), "status.phase")
    f.conditions(status.get("conditions"), "status.conditions")
    return status


def _status_required(f: Fields, manifest: Manifest) -> None:
    """A status, where there is one, holds observedGeneration and phase (the CRDs require both)."""
    status = manifest.obj.get("status")
    if status is not None:
        for key in ("observedGeneration", "phase"):
            _required(f, status, key, f"status.{key}")


def _required(f: Fields, raw: Mapping[str, Any], key: str, path: str) -> Any:
    """A field the schema requires: present and not null (any string, "" too)."""
    if raw.get(key) is None:
        raise f.fail("required", path)
    return raw[key]


def _one_of(f: Fields, value: str, allowed: tuple[str, ...], path: str) -> str:
    """A required enum's value."""
    if not value:
        raise f.fail(f"required: one of {', '.join(allowed)}", path)
    if value not in allowed:
        raise f.fail(f"unsupported value {value!r}: expected one of {', '.join(allowed)}", path)
    return value


def read_cluster(manifest: Manifest) -> ClusterObject:
    f = Fields(manifest)
    labels, _, finalizers, deleting = _metadata(f, manifest)
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    purposes = tuple(f.string_list(spec.get("purposes"), "spec.purposes"))
    if spec.get("purposes") == []:
        raise f.fail("must have at least 1 item", "spec.purposes")
    tenancy = _one_of(f, f.string(spec.get("tenancy"), "spec.tenancy"), n.TENANCIES, "spec.tenancy")
    if spec.get("profile") is None:  # required, but any string: "" too
        raise f.fail("required", "spec.profile")
    f.string(spec["profile"], "spec.profile")
    _status(f, manifest)
    _status_required(f, manifest)
    namespace = manifest.namespace
    return ClusterObject(
        manifest,
        f"{namespace}/{manifest.name}",
        namespace,
        labels,
        finalizers,
        request_uids(finalizers),
        purposes,
        tenancy,
        deleting,
    )


def read_request(manifest: Manifest) -> RequestObject:
    f = Fields(manifest)
    labels, annotations, _, deleting = _metadata(f, manifest)
    metadata = manifest.obj["metadata"]
    uid = f.string(metadata.get("uid"), "metadata.uid")
    created = parse_time(f, metadata.get("creationTimestamp"), "metadata.creationTimestamp")
    spec = f.mapping(manifest.obj.get("spec"), "spec")
    purpose = f.string(spec.get("purpose"), "spec.purpose")
    if not purpose:
        raise f.fail("required (a non-empty string)", "spec.purpose")
    cluster = None
    if manifest.obj.get("status") is not None:  # a new request has none: nothing to check
        status = _status(f, manifest)
        if status.get("cluster") is not None:
            ref = f.mapping(status["cluster"], "status.cluster")
            name, namespace = (
                f.string(_required(f, ref, key, f"status.cluster.{key}"), f"status.cluster.{key}")
                for key in ("name", "namespace")
            )
            cluster = (namespace, name)
        _status_required(f, manifest)
    namespace, name = manifest.namespace, manifest.name
    return RequestObject(
        manifest,
        f"{namespace}/{name}",
        namespace,
        name,
        uid,
        purpose,
        labels,
        annotations,
        created,
        deleting,
        cluster,
    )
