"""The requests Karmada's scheduler sends for what a run changes (adapters.cli.writeback renders
them). Read from karmada-io/karmada at f8fdd02df (pkg/scheduler/scheduler.go):

- patchScheduleResultForResourceBinding (and ...ForClusterResourceBinding): a JSON merge patch of
  the binding (helper.GenMergePatch of the old and new objects) carrying the applied-placement
  annotation and spec.clusters, skipped when empty;
- patchBindingStatusCondition: a merge patch of the status subresource
  (helper.GenFieldMergePatch("status", ...)) with the Scheduled condition and, on success,
  schedulerObservedGeneration and lastScheduledTime; the same patch carries the observed
  generation alone for a binding the scheduler leaves alone;
- patchBindingStatusWithAffinityName: another status merge patch with
  schedulerObservingAffinityName.

None carries preconditions (no uid or resourceVersion in the patches). Field manager: the
scheduler names none, so the API server takes the user agent up to its first "/", the binary's
name, `karmada-scheduler`.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.contract import Verb, Write, Writes, entries, field_at
from adapters.karmada import names as n
from adapters.kube.manifests import Manifest

__all__ = ["WRITES", "writes"]

_SCHEDULER = "pkg/scheduler/scheduler.go"


def _per_kind(kind: str, short: str) -> tuple[Write, ...]:
    return (
        Write(
            kind,
            Verb.PATCH,
            f"{_SCHEDULER} patchScheduleResultFor{short}",
            (entries("metadata", "annotations", keys=(n.APPLIED_PLACEMENT,)), field_at("spec", "clusters")),
        ),
        Write(
            kind,
            Verb.PATCH,
            f"{_SCHEDULER} patch{'Cluster' if kind == n.CRB else ''}BindingStatusCondition",
            (
                field_at("status", "conditions"),
                field_at("status", "schedulerObservedGeneration"),
                field_at("status", "lastScheduledTime"),
            ),
            status=True,
        ),
        Write(
            kind,
            Verb.PATCH,
            f"{_SCHEDULER} patch{'Cluster' if kind == n.CRB else ''}BindingStatusWithAffinityName",
            (field_at("status", "schedulerObservingAffinityName"),),
            status=True,
        ),
    )


WRITES = Writes(
    manager="karmada-scheduler",
    kinds={n.RB: (n.WORK_GROUP, "resourcebindings"), n.CRB: (n.WORK_GROUP, "clusterresourcebindings")},
    writes=(*_per_kind(n.RB, "ResourceBinding"), *_per_kind(n.CRB, "ClusterResourceBinding")),
)


def writes(manifests: Sequence[Manifest]) -> Writes:
    return WRITES
