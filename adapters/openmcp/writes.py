"""The requests openMCP's Cluster Scheduler sends for what a run changes (adapters.cli.writeback renders
them).

Read from openmcp-project/openmcp-operator at a131d2f (internal/controllers/scheduler/controller.go)
and openmcp-project/controller-utils v0.31.0, which it uses (pkg/controller/annotation_label.go,
status_updater.go, openmcp.go). Per ClusterRequest reconcile, in this order:

- a `openmcp.cloud/operation: reconcile` annotation is taken off first (EnsureAnnotation with
  DELETE: a merge patch nulling that one key);
- handleCreateOrUpdate adds the request finalizer with a merge patch (client.MergeFrom: no
  preconditions), then writes the cluster: its request finalizer added, and the propagated
  `metadata.open-control-plane.io/*` labels and annotations of an Exclusive cluster, each a merge
  patch (client.MergeFrom); a new cluster is `Create`d; a cluster of the chosen name that exists
  already is recovered with an `Update` of the object read (finalizers, labels and annotations
  merged, spec replaced): its uid and resourceVersion are preconditions;
- handleDelete takes the request's finalizer off every cluster with a merge patch, `Delete`s a
  cluster left without requests (no preconditions, NotFound ignored), then takes the request's own
  finalizer off with a merge patch;
- the status updater patches the status subresource (client.MergeFrom, no preconditions) with
  observedGeneration and phase (NewOpenMCPStatusUpdaterBuilder leaves out the reconcile time,
  reason and message; the scheduler leaves out conditions) and status.cluster set by the reconcile.

A recovered cluster is told from one that only gains a finalizer or propagated entries by what
changes: its spec, or labels or annotations outside the propagated prefix (a recovery that changes
neither is written as the finalizer patch: the same fields, without the preconditions).

Field manager: the scheduler names none, so the API server takes the user agent up to its first
"/" (apiserver endpoints/handlers: managerOrUserAgent), which client-go makes from the binary's
name (rest.DefaultKubernetesUserAgent; no user agent is set in the operator or controller-utils).
The scheduler runs in the `/openmcp-operator` binary (Taskfile.yaml COMPONENTS; the image's
Dockerfile in openmcp-project/build copies `bin/$COMPONENT.<os>-<arch>` to `/<component>`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.contract import Verb, Write, Writes, entries, field_at
from adapters.kube.manifests import Manifest
from adapters.openmcp import names as n

__all__ = ["WRITES", "writes"]

_CONTROLLER = "internal/controllers/scheduler/controller.go"
_FINALIZERS = field_at("metadata", "finalizers")


def _metadata(obj: Mapping[str, Any], key: str) -> dict[str, Any]:
    return dict((obj.get("metadata") or {}).get(key) or {})


def _finalized(obj: Mapping[str, Any]) -> bool:
    return n.REQUEST_FINALIZER in ((obj.get("metadata") or {}).get("finalizers") or ())


def _own(mapping: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in mapping.items() if not k.startswith(n.PROPAGATED_PREFIX)}


def _recovered(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """The cluster of a chosen name existed and is taken over: its spec or its own (not propagated)
    labels or annotations change."""
    if before.get("spec") != after.get("spec"):
        return True
    return any(
        _own(_metadata(before, key)) != _own(_metadata(after, key)) for key in ("labels", "annotations")
    )


WRITES = Writes(
    manager="openmcp-operator",
    kinds={n.CLUSTER: (n.GROUP, "clusters"), n.REQUEST: (n.GROUP, "clusterrequests")},
    writes=(
        Write(
            n.REQUEST,
            Verb.PATCH,
            f"{_CONTROLLER} reconcile (EnsureAnnotation)",
            (entries("metadata", "annotations", keys=(n.OPERATION,)),),
        ),
        Write(
            n.REQUEST,
            Verb.PATCH,
            f"{_CONTROLLER} handleCreateOrUpdate",
            (_FINALIZERS,),
            when=lambda before, after: _finalized(after),
        ),
        Write(n.CLUSTER, Verb.CREATE, f"{_CONTROLLER} handleCreateOrUpdate"),
        Write(
            n.CLUSTER,
            Verb.UPDATE,
            f"{_CONTROLLER} handleCreateOrUpdate (recovering an existing cluster)",
            (
                _FINALIZERS,
                field_at("metadata", "labels"),
                field_at("metadata", "annotations"),
                field_at("spec"),
            ),
            preconditions=("uid", "resourceVersion"),
            when=_recovered,
        ),
        Write(n.CLUSTER, Verb.PATCH, f"{_CONTROLLER} handleCreateOrUpdate/handleDelete", (_FINALIZERS,)),
        Write(
            n.CLUSTER,
            Verb.PATCH,
            f"{_CONTROLLER} handleCreateOrUpdate (propagated metadata)",
            (
                entries("metadata", "labels", prefixes=(n.PROPAGATED_PREFIX,)),
                entries("metadata", "annotations", prefixes=(n.PROPAGATED_PREFIX,)),
            ),
        ),
        Write(n.CLUSTER, Verb.DELETE, f"{_CONTROLLER} handleDelete"),
        Write(
            n.REQUEST,
            Verb.PATCH,
            f"{_CONTROLLER} handleDelete",
            (_FINALIZERS,),
            when=lambda before, after: not _finalized(after),
        ),
        Write(
            n.REQUEST,
            Verb.PATCH,
            "controller-utils pkg/controller/status_updater.go UpdateStatus",
            (
                field_at("status", "observedGeneration"),
                field_at("status", "phase"),
                field_at("status", "cluster"),
            ),
            status=True,
        ),
    ),
)


def writes(manifests: Sequence[Manifest]) -> Writes:
    return WRITES
