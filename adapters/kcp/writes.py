"""The requests kcp's placement controllers send for what a run changes, in the input's generation
(adapters.cli.writeback renders them).

v0.5 (kcp-dev/kcp v0.5.0-alpha.1, pkg/reconciler/scheduling/placement): the namespace scheduler
(placement_reconcile_scheduling.go) merge-patches the `scheduling.kcp.dev/placement` and
`internal.scheduling.kcp.dev/negotiation-workspace` annotations with the namespace's
resourceVersion and uid in the patch (with no workload binding left, its removal patch is not
valid JSON, `}}}}`, and the API server refuses it: nothing is written, so the script sends
nothing). The status reconciler (placement_reconcile_status.go) then
merge-patches the status subresource, the NamespaceScheduled condition among the conditions, with
the uid and resourceVersion of the namespace as the previous patch returned it.

v0.8 (kcp-dev/kcp v0.8.0): the scheduling placement controller
(pkg/reconciler/scheduling/placement/placement_controller.go) merge-patches a Placement's status
(phase, selectedLocation, the Ready condition) with its uid and resourceVersion; the workload
placement controller (pkg/reconciler/workload/placement/placement_reconcile_scheduling.go)
merge-patches the `internal.workload.kcp.dev/synctarget` annotation; the workload namespace
controller (pkg/reconciler/workload/namespace/namespace_reconcile_placementbind.go, then
namespace_reconcile_scheduling.go) merge-patches the `scheduling.kcp.dev/placement` mark, then the
`state.workload.kcp.dev/<key>` labels and `deletion.internal.workload.kcp.dev/<key>` annotations
(none of these carries preconditions), and its status reconciler (namespace_reconcile_status.go)
the NamespaceScheduled condition, a status patch with the uid and resourceVersion of the namespace
as the previous patch returned it. Nothing is created or deleted.

Field manager: the controllers run inside the kcp server, each with rest.AddUserAgent(config,
<controller name>) (pkg/server/controllers.go), which appends "/<controller name>" to client-go's
default user agent; the API server records the user agent up to its first "/" (apiserver
endpoints/handlers: managerOrUserAgent), which is the binary's name (rest.DefaultKubernetesUserAgent):
`kcp` (cmd/kcp). Every object is addressed in its logical workspace, under /clusters/<workspace>.
"""

from __future__ import annotations

from collections.abc import Sequence

from adapters.contract import Verb, Write, Writes, entries, field_at
from adapters.kcp import names as n
from adapters.kcp.load import _generation, _index
from adapters.kcp.names import Generation
from adapters.kube.manifests import Manifest

__all__ = ["V05", "V08", "writes"]

_VERSIONED = ("uid", "resourceVersion")
_NEGOTIATION = entries("metadata", "annotations", keys=(n.PLACEMENT_ANNOTATION, n.NEGOTIATION_ANNOTATION))
_V05_SCHEDULING = "v0.5 pkg/reconciler/scheduling/placement/placement_reconcile_scheduling.go"
_V08 = "v0.8 pkg/reconciler"
_NAMESPACES = {n.NAMESPACE: ("", "namespaces")}
_PLACEMENTS = {n.PLACEMENT: (n.SCHEDULING_GROUP, "placements")}
_WORKSPACES = "/clusters/{}"


V05 = Writes(
    manager="kcp",
    kinds=_NAMESPACES,
    writes=(
        Write(
            n.NAMESPACE,
            Verb.PATCH,
            f"{_V05_SCHEDULING} reconcile",
            (_NEGOTIATION,),
            preconditions=_VERSIONED,
        ),
        Write(
            n.NAMESPACE,
            Verb.PATCH,
            "v0.5 pkg/reconciler/scheduling/placement/placement_reconcile_status.go reconcile",
            (field_at("status", "conditions"),),
            status=True,
            preconditions=_VERSIONED,
        ),
    ),
    workspace_path=_WORKSPACES,
)

V08 = Writes(
    manager="kcp",
    kinds={**_PLACEMENTS, **_NAMESPACES},
    writes=(
        Write(
            n.PLACEMENT,
            Verb.PATCH,
            f"{_V08}/scheduling/placement/placement_controller.go process",
            (
                field_at("status", "phase"),
                field_at("status", "selectedLocation"),
                field_at("status", "conditions"),
            ),
            status=True,
            preconditions=_VERSIONED,
        ),
        Write(
            n.PLACEMENT,
            Verb.PATCH,
            f"{_V08}/workload/placement/placement_reconcile_scheduling.go patchPlacementAnnotation",
            (entries("metadata", "annotations", keys=(n.SYNC_TARGET_ANNOTATION,)),),
        ),
        Write(
            n.NAMESPACE,
            Verb.PATCH,
            f"{_V08}/workload/namespace/namespace_reconcile_placementbind.go reconcile",
            (entries("metadata", "annotations", keys=(n.PLACEMENT_ANNOTATION,)),),
        ),
        Write(
            n.NAMESPACE,
            Verb.PATCH,
            f"{_V08}/workload/namespace/namespace_reconcile_scheduling.go patchNamespaceLabelAnnotation",
            (
                entries("metadata", "labels", prefixes=(n.STATE_LABEL,)),
                entries("metadata", "annotations", prefixes=(n.DELETION_ANNOTATION,)),
            ),
        ),
        Write(
            n.NAMESPACE,
            Verb.PATCH,
            f"{_V08}/workload/namespace/namespace_reconcile_status.go reconcile",
            (field_at("status", "conditions"),),
            status=True,
            preconditions=_VERSIONED,
        ),
    ),
    workspace_path=_WORKSPACES,
)


def writes(manifests: Sequence[Manifest]) -> Writes:
    """The writes of the input's generation, as the loader tells it."""
    return V05 if _generation(_index(manifests)) is Generation.V05 else V08
