"""Open Cluster Management API names: groups, kinds, labels, annotations, taints, conditions and
the reason and message strings upstream's placement controller writes."""

from __future__ import annotations

GROUP = "cluster.open-cluster-management.io"
API_VERSION = f"{GROUP}/v1beta1"  # Placement and PlacementDecision

MANAGED_CLUSTER = "ManagedCluster"
CLUSTER_SET = "ManagedClusterSet"
SET_BINDING = "ManagedClusterSetBinding"
PLACEMENT = "Placement"
SCORE = "AddOnPlacementScore"
DECISION = "PlacementDecision"

KINDS = {kind: {GROUP} for kind in (MANAGED_CLUSTER, CLUSTER_SET, SET_BINDING, PLACEMENT, SCORE, DECISION)}
# The versions upstream's CRDs serve (open-cluster-management-io/api at 1845fd8,
# cluster/<version>/*.crd.yaml): an object of another version is refused, as the API server would.
SERVED_VERSIONS = {
    MANAGED_CLUSTER: ("v1",),
    CLUSTER_SET: ("v1beta2",),
    SET_BINDING: ("v1beta2",),
    PLACEMENT: ("v1beta1",),
    SCORE: ("v1alpha1",),
    DECISION: ("v1beta1",),
}

# Labels and annotations.
CLUSTERSET_LABEL = f"{GROUP}/clusterset"
PLACEMENT_LABEL = f"{GROUP}/placement"
GROUP_NAME_LABEL = f"{GROUP}/decision-group-name"
GROUP_INDEX_LABEL = f"{GROUP}/decision-group-index"
DISABLE_ANNOTATION = f"{GROUP}/experimental-scheduling-disable"

# Taints the hub's registration controller writes into spec.taints from the Available condition
# (False: unavailable; Unknown or missing: unreachable). The scheduler reads only spec.taints.
UNAVAILABLE_TAINT = f"{GROUP}/unavailable"
UNREACHABLE_TAINT = f"{GROUP}/unreachable"
REGISTRATION_TAINTS = (UNAVAILABLE_TAINT, UNREACHABLE_TAINT)
AVAILABLE_CONDITION = "ManagedClusterConditionAvailable"
NO_SELECT, PREFER_NO_SELECT, NO_SELECT_IF_NEW = "NoSelect", "PreferNoSelect", "NoSelectIfNew"
TAINT_EFFECTS = (NO_SELECT, PREFER_NO_SELECT, NO_SELECT_IF_NEW)

# Cluster sets.
EXCLUSIVE = "ExclusiveClusterSetLabel"
LABEL_SELECTOR = "LabelSelector"

# Prioritizers.
ADDITIVE, EXACT = "Additive", "Exact"
BUILT_IN, ADD_ON = "BuiltIn", "AddOn"
BALANCE, STEADY = "Balance", "Steady"
RESOURCE_CPU, RESOURCE_MEMORY = "ResourceAllocatableCPU", "ResourceAllocatableMemory"
RESOURCES = {RESOURCE_CPU: "cpu", RESOURCE_MEMORY: "memory"}
MAX_WEIGHT = 10
MAX_SPREAD_CONSTRAINTS = 8
WHEN_UNSATISFIABLE = ("DoNotSchedule", "ScheduleAnyway")  # the CRD's default: the second
SORT_BY = ("ClusterName", "Score")  # the CRD's default: the first
MAX_SCORE = 100

# Names the neutral model carries (traits, external scores).
SET_TRAIT = "set:{}"
CEL_TRAIT = "cel:{}"
ADDON_SCORE = "addon/{}/{}"

# Plugins, as they name themselves in a Misconfigured message ("<plugin>:<message>").
PREDICATE = "Predicate"
TAINT_TOLERATION = "TaintToleration"
NO_PLUGIN = ""

# Misconfiguration messages.
EMPTY_KEY = "If the key is empty, operator must be Exists."
EXISTS_WITH_VALUE = "If the operator is Exists, the value should be empty."
UNKNOWN_MODE = "incorrect prioritizer policy mode: {}"
UNKNOWN_BUILT_IN = "incorrect builtin prioritizer: {}"
NO_ADD_ON = "addOn should not be empty"
NOT_PERCENTAGE = "{} invalid type: string is not a percentage"
CEL_COMPILE = "compilation failed: {}"

MAX_DECISIONS_PER_OBJECT = 100

# Conditions.
SATISFIED = "PlacementSatisfied"
MISCONFIGURED = "PlacementMisconfigured"
NO_BINDINGS = "NoManagedClusterSetBindings"
NO_BINDINGS_MESSAGE = "No valid ManagedClusterSetBindings found in placement namespace"
NO_INTERSECTION = "NoIntersection"
NO_INTERSECTION_MESSAGE = "None of ManagedClusterSets [{}] is bound to placement namespace"
SETS_EMPTY = "AllManagedClusterSetsEmpty"
SETS_EMPTY_MESSAGE = "All ManagedClusterSets [{}] have no member ManagedCluster"
NO_MATCH = "NoManagedClusterMatched"
NO_MATCH_MESSAGE = "No ManagedCluster matches any of the cluster predicate"
ALL_SCHEDULED = "AllDecisionsScheduled"
ALL_SCHEDULED_MESSAGE = "All cluster decisions scheduled"
NOT_ALL_SCHEDULED = "NotAllDecisionsScheduled"
NOT_ALL_SCHEDULED_MESSAGE = "{} cluster decisions unscheduled"
MISCONFIGURED_REASON = "Misconfigured"
CONFIGURED_REASON = "Succeedconfigured"
CONFIGURED_MESSAGE = "Placement configurations check pass"
