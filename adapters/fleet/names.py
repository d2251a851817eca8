"""KubeFleet API names: groups, kinds, labels, annotations, finalizers and reason strings."""

from __future__ import annotations

PLACEMENT_GROUP = "placement.kubernetes-fleet.io"
CLUSTER_GROUP = "cluster.kubernetes-fleet.io"
API_VERSION = f"{PLACEMENT_GROUP}/v1beta1"

MEMBER_CLUSTER = "MemberCluster"
PLACEMENT = "ClusterResourcePlacement"
BINDING = "ClusterResourceBinding"
POLICY_SNAPSHOT = "ClusterSchedulingPolicySnapshot"

KINDS = {
    MEMBER_CLUSTER: {CLUSTER_GROUP},
    PLACEMENT: {PLACEMENT_GROUP},
    BINDING: {PLACEMENT_GROUP},
    POLICY_SNAPSHOT: {PLACEMENT_GROUP},
}
# The versions upstream's CRDs serve (kubefleet config/crd/bases/*.yaml at e160c1cd): an object of
# another version is refused, as the API server would.
SERVED_VERSIONS = {kind: ("v1", "v1beta1") for kind in KINDS}

PARENT_LABEL = "kubernetes-fleet.io/parent-CRP"
LATEST_LABEL = "kubernetes-fleet.io/is-latest-snapshot"
INDEX_LABEL = "kubernetes-fleet.io/policy-index"
NUMBER_OF_CLUSTERS_ANNOTATION = "kubernetes-fleet.io/number-of-clusters"
GENERATION_ANNOTATION = "kubernetes-fleet.io/CRP-generation"
PREVIOUS_STATE_ANNOTATION = "kubernetes-fleet.io/previous-binding-state"
SCHEDULER_FINALIZER = "kubernetes-fleet.io/scheduler-crb-cleanup"  # on a binding
# On a placement: the scheduler's (it cleans up the bindings) and the placement controller's (it
# deletes the snapshots), each added before its controller first acts on the placement.
SCHEDULER_CLEANUP_FINALIZER = "kubernetes-fleet.io/scheduler-cleanup"
PLACEMENT_CLEANUP_FINALIZER = "kubernetes-fleet.io/crp-cleanup"

RESOURCE_PROPERTY_PREFIX = "resources.kubernetes-fleet.io/"
RESOURCE_CAPACITY_TYPES = {"total": "capacity", "allocatable": "allocatable", "available": "available"}

MEMBER_AGENT = "MemberAgent"
HEARTBEAT_TIMEOUT_MINUTES = 5.0
HEALTH_TIMEOUT_MINUTES = 5.0

SCHEDULED, BOUND, UNSCHEDULED = "Scheduled", "Bound", "Unscheduled"

MAX_NAME_LENGTH = 63  # of a MemberCluster and a placement
MAX_UNSELECTED_DECISIONS = 20
MAX_DECISIONS = 1000
DEFAULT_REVISION_HISTORY_LIMIT = 10

# Reason strings, as upstream writes them.
LEFT_FLEET = "cluster has left the fleet"
AGENT_MISSING = "cluster is not connected to the fleet: member agent not online yet"
NO_HEARTBEAT = (
    "cluster is not connected to the fleet: no recent heartbeat signals (last received {:.2f} minutes ago)"
)
NOT_JOINED = "cluster is not connected to the fleet: member agent not joined yet"
NO_HEALTH = "cluster is not connected to the fleet: health condition from member agent is not available"
UNHEALTHY = (
    "cluster is not connected to the fleet: unhealthy for a prolonged period of time "
    "(last transitioned {:.2f} minutes ago)"
)
AFFINITY_MISMATCH = "cluster does not match with any of the required cluster affinity terms"
TAINT_NOT_TOLERATED = "taint &{{Key:{key} Value:{value} Effect:{effect}}} cannot be tolerated"
SPREAD_VIOLATED = 'violated doNotSchedule topology spread constraint "{key}" (max skew {skew})'
UNSCHEDULABLE = "ClusterUnschedulable"
PICKED_SCORED = (
    'Successfully scheduled resources for placement in "{cluster}" (affinity score: {affinity}, '
    "topology spread score: {spread}): picked by scheduling policy"
)
PICKED_FIXED = 'Successfully scheduled resources for placement in "{cluster}": picked by scheduling policy'
NOT_PICKED = 'Cluster "{cluster}" does not score high enough (affinity score: {affinity}, topology spread score: {spread})'  # noqa: E501
FIXED_INVALID = 'Cluster "{cluster}" is not eligible for resource placement yet: {reason}'
FIXED_NOT_FOUND = 'Specified cluster "{cluster}" is not found'

CONDITION_SCHEDULED = "Scheduled"
FULFILLED = "SchedulingPolicyFulfilled"
UNFULFILLED = "SchedulingPolicyUnfulfilled"
FULFILLED_MESSAGE = "found all cluster needed as specified by the scheduling policy, found {} cluster(s)"
UNFULFILLED_MESSAGE = (
    "could not find all clusters needed as specified by the scheduling policy, found {} cluster(s) instead"
)
