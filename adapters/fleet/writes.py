"""The requests KubeFleet's hub agent sends for what a run changes (adapters.cli.writeback renders them).

Read from kubefleet-dev/kubefleet at e160c1cd (controller-runtime v0.22.4):

- The placement controller (pkg/controllers/placement/controller.go) keeps the policy snapshots:
  getOrCreateSchedulingPolicySnapshot `Create`s a new one; the is-latest label of the one it
  replaces, and ensureLatestPolicySnapshot's is-latest label, CRP-generation and number-of-clusters
  annotations, are `Update`s of the object read; deleteRedundantSchedulingPolicySnapshots `Delete`s
  those past the revision history limit (no preconditions; NotFound ignored).
- The scheduler (pkg/scheduler/scheduler.go scheduleOnce) `Update`s a placement with a latest policy
  snapshot to add its cleanup finalizer before its first cycle (addSchedulerCleanUpFinalizer); for
  a placement being deleted that holds it, cleanUpAllBindingsFor `Update`s every binding of the
  placement without the binding finalizer, `Delete`s each not being deleted yet, then `Update`s
  the placement without its finalizer. The placement controller, holding its own finalizer on a
  placement being deleted, deletes its policy snapshots (handleDelete: a DeleteAllOf by the
  parent label; here one delete per snapshot read).
- The scheduler (pkg/scheduler/framework/framework.go, frameworkutils.go) writes the bindings:
  createBindings `Create`s new ones (AlreadyExists ignored: its names carry a random suffix and a
  create is retried; names here come from the input and the seed, so a create that finds the name
  taken stops the script); patchBindingFromScoredCluster / patchBindingFromFixedCluster send a merge
  patch with controller-runtime's MergeFromWithOptimisticLock (the resourceVersion read, no uid) of
  state, policy snapshot name and cluster decision; markUnscheduledForAndUpdate `Update`s state
  Unscheduled with the annotations replaced by the previous-state one; removeFinalizerAndUpdate
  `Update`s the finalizers. updatePolicySnapshotStatusFromBindings writes the snapshot's status with
  `Status().Update` (observedCRPGeneration, the Scheduled condition among the conditions,
  targetClusters).

An `Update` PUTs the object as read: its uid and resourceVersion are preconditions (a changed
resourceVersion is a Conflict, a changed uid is refused as immutable). Order: the placement
controller's writes come before the scheduler's, which creates, patches, then marks unscheduled
("to avoid interruptions (deselected then reselected)"), and writes the status last.

Field manager: neither controller names one, so the API server takes the client's user agent up to
its first "/" (apiserver endpoints/handlers: managerOrUserAgent), which client-go makes from the
binary's name (rest.DefaultKubernetesUserAgent); the hub agent is `/hubagent`
(docker/hub-agent.Dockerfile: `go build -o hubagent cmd/hubagent/main.go`; cmd/hubagent sets no
user agent).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from adapters.contract import Verb, Write, Writes, entries, field_at
from adapters.fleet import names as n
from adapters.kube.manifests import Manifest

__all__ = ["WRITES", "writes"]

_CONTROLLER = "pkg/controllers/placement/controller.go"
_SCHEDULER = "pkg/scheduler/scheduler.go"
_FRAMEWORK = "pkg/scheduler/framework/framework.go"
_VERSIONED = ("uid", "resourceVersion")


def _state(obj: Mapping[str, Any]) -> Any:
    return (obj.get("spec") or {}).get("state")


def _annotations(obj: Mapping[str, Any]) -> Any:
    return (obj.get("metadata") or {}).get("annotations")


def _holds_cleanup(obj: Mapping[str, Any]) -> bool:
    return n.SCHEDULER_CLEANUP_FINALIZER in ((obj.get("metadata") or {}).get("finalizers") or ())


def _marked_unscheduled(before: Mapping[str, Any], after: Mapping[str, Any]) -> bool:
    """markUnscheduledForAndUpdate: the binding becomes Unscheduled, or (re-picked since) keeps the
    previous-state annotation that marking wrote."""
    became = _state(after) == n.UNSCHEDULED != _state(before)
    return became or _annotations(after) != _annotations(before)


WRITES = Writes(
    manager="hubagent",
    kinds={
        n.PLACEMENT: (n.PLACEMENT_GROUP, "clusterresourceplacements"),
        n.POLICY_SNAPSHOT: (n.PLACEMENT_GROUP, "clusterschedulingpolicysnapshots"),
        n.BINDING: (n.PLACEMENT_GROUP, "clusterresourcebindings"),
    },
    writes=(
        Write(
            n.POLICY_SNAPSHOT,
            Verb.UPDATE,
            f"{_CONTROLLER} getOrCreateSchedulingPolicySnapshot/ensureLatestPolicySnapshot",
            (
                entries("metadata", "labels", keys=(n.LATEST_LABEL,)),
                entries(
                    "metadata", "annotations", keys=(n.GENERATION_ANNOTATION, n.NUMBER_OF_CLUSTERS_ANNOTATION)
                ),
            ),
            preconditions=_VERSIONED,
        ),
        Write(
            n.POLICY_SNAPSHOT,
            Verb.DELETE,
            f"{_CONTROLLER} deleteRedundantSchedulingPolicySnapshots/handleDelete",
        ),
        Write(n.POLICY_SNAPSHOT, Verb.CREATE, f"{_CONTROLLER} getOrCreateSchedulingPolicySnapshot"),
        Write(
            n.PLACEMENT,
            Verb.UPDATE,
            f"{_SCHEDULER} addSchedulerCleanUpFinalizer",
            (field_at("metadata", "finalizers"),),
            preconditions=_VERSIONED,
            when=lambda before, after: _holds_cleanup(after) and not _holds_cleanup(before),
        ),
        Write(
            n.BINDING,
            Verb.UPDATE,
            f"{_FRAMEWORK} removeFinalizerAndUpdate/{_SCHEDULER} cleanUpAllBindingsFor",
            (field_at("metadata", "finalizers"),),
            preconditions=_VERSIONED,
        ),
        Write(n.BINDING, Verb.DELETE, f"{_SCHEDULER} cleanUpAllBindingsFor"),
        Write(
            n.PLACEMENT,
            Verb.UPDATE,
            f"{_SCHEDULER} cleanUpAllBindingsFor",
            (field_at("metadata", "finalizers"),),
            preconditions=_VERSIONED,
            when=lambda before, after: _holds_cleanup(before) and not _holds_cleanup(after),
        ),
        Write(n.BINDING, Verb.CREATE, f"{_FRAMEWORK} createBindings"),
        Write(
            n.BINDING,
            Verb.PATCH,
            "pkg/scheduler/framework/frameworkutils.go patchBindingFromScoredCluster/FixedCluster",
            (
                field_at("spec", "state"),
                field_at("spec", "schedulingPolicySnapshotName"),
                field_at("spec", "clusterDecision"),
            ),
            preconditions=("resourceVersion",),
            when=lambda before, after: _state(after) != n.UNSCHEDULED,
        ),
        Write(
            n.BINDING,
            Verb.UPDATE,
            f"{_FRAMEWORK} markUnscheduledForAndUpdate",
            (field_at("metadata", "annotations"), field_at("spec", "state")),
            preconditions=_VERSIONED,
            when=_marked_unscheduled,
        ),
        Write(
            n.POLICY_SNAPSHOT,
            Verb.UPDATE,
            f"{_FRAMEWORK} updatePolicySnapshotStatusFromBindings",
            (
                field_at("status", "observedCRPGeneration"),
                field_at("status", "conditions"),
                field_at("status", "targetClusters"),
            ),
            status=True,
            preconditions=_VERSIONED,
        ),
    ),
)


def writes(manifests: Sequence[Manifest]) -> Writes:
    return WRITES
