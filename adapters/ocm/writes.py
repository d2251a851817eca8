"""The requests OCM's placement controller sends for what a run changes (adapters.cli.writeback renders
them).

Read from open-cluster-management-io/ocm at 00f84c32 (pkg/placement/controllers/scheduling/
scheduling_controller.go) and the sdk-go patcher it vendors (open-cluster-management.io/sdk-go/pkg/
patcher/patcher.go):

- createOrUpdatePlacementDecision `Create`s a missing PlacementDecision (labels, owner reference;
  the API server drops the status it carries), then patches its status with the patcher's
  PatchStatus: a merge patch of the status subresource carrying the object's uid and
  resourceVersion. When the status did not change it patches the labels (PatchLabelAnnotations: a
  merge patch of the changed entries, uid and resourceVersion again); when it did, the labels wait
  for the next reconcile, which the script runs at once. Annotations are the existing ones: never
  changed.
- bind then `Delete`s the placement's other PlacementDecisions (empty DeleteOptions, NotFound
  ignored).
- updateStatus patches the Placement's status (numberOfSelectedClusters, decisionGroups, the
  PlacementMisconfigured and PlacementSatisfied conditions) with PatchStatus.

Field manager: the controller names none, so the API server takes the user agent up to its first
"/" (apiserver endpoints/handlers: managerOrUserAgent), which client-go makes from the binary's
name (rest.DefaultKubernetesUserAgent; pkg/placement/controllers/manager.go builds its clients from
the controller context's config, with no user agent of its own). The binary is `/placement`
(build/Dockerfile.placement; manifests/cluster-manager/management/placement/deployment.yaml runs
`/placement controller`).
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.contract import Verb, Write, Writes, field_at
from adapters.kube.manifests import Manifest
from adapters.ocm import names as n

__all__ = ["WRITES", "writes"]

_CONTROLLER = "pkg/placement/controllers/scheduling/scheduling_controller.go"
_VERSIONED = ("uid", "resourceVersion")

WRITES = Writes(
    manager="placement",
    kinds={n.DECISION: (n.GROUP, "placementdecisions"), n.PLACEMENT: (n.GROUP, "placements")},
    writes=(
        Write(n.DECISION, Verb.CREATE, f"{_CONTROLLER} createOrUpdatePlacementDecision"),
        Write(
            n.DECISION,
            Verb.PATCH,
            f"{_CONTROLLER} createOrUpdatePlacementDecision (patcher.PatchStatus)",
            (field_at("status", "decisions"),),
            status=True,
            preconditions=_VERSIONED,
        ),
        Write(
            n.DECISION,
            Verb.PATCH,
            f"{_CONTROLLER} createOrUpdatePlacementDecision (patcher.PatchLabelAnnotations)",
            (field_at("metadata", "labels"),),
            preconditions=_VERSIONED,
        ),
        Write(n.DECISION, Verb.DELETE, f"{_CONTROLLER} bind"),
        Write(
            n.PLACEMENT,
            Verb.PATCH,
            f"{_CONTROLLER} updateStatus (patcher.PatchStatus)",
            (
                field_at("status", "numberOfSelectedClusters"),
                field_at("status", "decisionGroups"),
                field_at("status", "conditions"),
            ),
            status=True,
            preconditions=_VERSIONED,
        ),
    ),
)


def writes(manifests: Sequence[Manifest]) -> Writes:
    return WRITES
