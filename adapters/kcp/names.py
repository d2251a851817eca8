"""kcp API names: the groups, kinds, annotations, labels and condition words the placement
controllers of both generations read and write, and the names the neutral model carries.

Two generations (see /work/shared/semantics/openmcp-kcp.md part 2):

- v0.5 (WorkloadCluster): the namespace scheduler keeps a JSON map in the namespace annotation
  `scheduling.kcp.dev/placement`, keyed `<locationWorkspace>+<locationName>+<clusterName>`;
- v0.8 (SyncTarget, the Placement API): Placement objects choose a Location, the chosen SyncTarget
  is the Placement's `internal.workload.kcp.dev/synctarget` annotation, and namespaces carry
  `state.workload.kcp.dev/<syncTargetKey>` labels.
"""

from __future__ import annotations

from enum import StrEnum

SCHEDULING_GROUP = "scheduling.kcp.dev"
WORKLOAD_GROUP = "workload.kcp.dev"
WORKLOADS_GROUP = "workloads.kcp.dev"  # the seed document's spelling of the v0.5 group
APIS_GROUP = "apis.kcp.dev"
VERSION = "v1alpha1"
SCHEDULING_API = f"{SCHEDULING_GROUP}/{VERSION}"

NAMESPACE = "Namespace"
API_BINDING = "APIBinding"
LOCATION = "Location"
PLACEMENT = "Placement"
WORKLOAD_CLUSTER = "WorkloadCluster"
SYNC_TARGET = "SyncTarget"

KINDS: dict[str, set[str]] = {
    API_BINDING: {APIS_GROUP},
    LOCATION: {SCHEDULING_GROUP},
    PLACEMENT: {SCHEDULING_GROUP},
    WORKLOAD_CLUSTER: {WORKLOAD_GROUP, WORKLOADS_GROUP},
    SYNC_TARGET: {WORKLOAD_GROUP},
}
# Core kinds kcp reads beside others' inputs: they make no kcp input by themselves.
SHARED_KINDS: dict[str, set[str]] = {NAMESPACE: {""}}
# The versions served (kcp's config/crds at v0.5.0-alpha.1, v0.8.0 and v0.11.0: v1alpha1 only;
# Namespaces are core v1): an object of another version is refused, as the API server would.
SERVED_VERSIONS = {**{kind: (VERSION,) for kind in KINDS}, NAMESPACE: ("v1",)}


class Generation(StrEnum):
    V05 = "v0.5"  # WorkloadCluster, the placement annotation's state machine
    V08 = "v0.8"  # SyncTarget and the Placement API


# The resource a Location spans, as its CRD's enum allows it in each generation.
LOCATION_RESOURCE = {Generation.V05: "workloadclusters", Generation.V08: "synctargets"}

# -- workspaces (workspace.py: which generation marks an object's workspace how) ------------------
WORKSPACE_ANNOTATION = "kcp.io/cluster"  # kcp v0.11 on (logicalcluster v3)
V08_WORKSPACE_ANNOTATION = "kcp.dev/cluster"  # kcp v0.7 to v0.10 (logicalcluster v2)
# kcp v0.5 and v0.6 (logicalcluster v1) mark it with metadata.clusterName

# -- the compute service's export -----------------------------------------------------------------
COMPUTE_EXPORT = "kubernetes"
INITIAL_BINDING_COMPLETED = "InitialBindingCompleted"
API_EXPORT_VALID = "APIExportValid"

# -- v0.5: the placement annotation's state machine -------------------------------------------------
PLACEMENT_ANNOTATION = f"{SCHEDULING_GROUP}/placement"
NEGOTIATION_ANNOTATION = f"internal.{SCHEDULING_GROUP}/negotiation-workspace"
SCHEDULING_DISABLED = "experimental.workloads.kcp.dev/scheduling-disabled"
DEFAULT_LOCATION = "default"  # the location a negotiation workspace without Locations stands for
V05_STATE_LABEL = "state.internal.workloads.kcp.dev/"
V05_DELETION_ANNOTATION = "deletion.internal.workloads.kcp.dev/"
V05_FINALIZERS_ANNOTATION = "finalizers.workloads.kcp.dev/"
V05_SYNCER_FINALIZER = "workloads.kcp.dev/syncer-"


class State(StrEnum):
    PENDING = "Pending"
    BOUND = "Bound"
    REMOVING = "Removing"
    UNBOUND = "Unbound"


ROOT_WORKSPACE = "root"  # v0.5 schedules namespaces only in logical clusters whose name begins so
# Namespaces kcp's placement controllers' event filters leave out (they are reconciled only when
# another object's event enqueues them).
NAMESPACE_BLOCKLIST = frozenset({"kube-system", "kube-public", "kube-node-lease"})

# The NamespaceScheduled condition: v0.5's scheduling/placement and v0.8's workload/namespace
# status reconcilers (placement_reconcile_status.go, namespace_reconcile_status.go), their words.
NAMESPACE_SCHEDULED = "NamespaceScheduled"
SCHEDULING_DISABLED_REASON = "SchedulingDisabled"
SCHEDULING_DISABLED_MESSAGE = f"Automatic scheduling disabled via {SCHEDULING_DISABLED}=true label"
PLACEMENT_INVALID = "PlacementInvalid"
PLACEMENT_INVALID_MESSAGE = f"Invalid placement annotation {PLACEMENT_ANNOTATION}"
UNSCHEDULABLE = "Unschedulable"
UNSCHEDULABLE_MESSAGE = "No workload clusters available under given placement constraints"
NO_PLACEMENTS_MESSAGE = "No available placements"  # v0.8
NO_SYNC_TARGETS_MESSAGE = "No available sync targets"  # v0.8

# -- v0.8: the Placement API ------------------------------------------------------------------------
SYNC_TARGET_ANNOTATION = f"internal.{WORKLOAD_GROUP}/synctarget"
STATE_LABEL = f"state.{WORKLOAD_GROUP}/"
DELETION_ANNOTATION = f"deletion.internal.{WORKLOAD_GROUP}/"
FINALIZERS_ANNOTATION = f"finalizers.{WORKLOAD_GROUP}/"
SYNCER_FINALIZER = f"{WORKLOAD_GROUP}/syncer-"
SYNC = "Sync"
REMOVING_GRACE_SECONDS = 5

PHASE_PENDING = "Pending"
PHASE_UNBOUND = "Unbound"
PHASE_BOUND = "Bound"
PHASES = (PHASE_PENDING, PHASE_UNBOUND, PHASE_BOUND)
READY = "Ready"
LOCATION_NOT_FOUND = "LocationNotFound"
LOCATION_INVALID = "LocationInvalid"
LOCATION_NO_MATCH = "LocationNoMatch"

# -- names the neutral model carries ----------------------------------------------------------------
LOCATION_TRAIT = "location:{}+{}"  # location workspace, location name
WORKSPACE_TRAIT = "workspace:{}"
NOT_READY_TAINT = "kcp/not-ready"
UNSCHEDULABLE_TAINT = "kcp/unschedulable"
NAME_CLAIM = "kcp/cluster"  # a cluster's own neutral name, to keep a request off named clusters
