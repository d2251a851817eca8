"""Karmada API names: groups, kinds, versions, labels, the annotation, the condition and its
reasons, and the reason and message strings upstream's scheduler writes (karmada-io/karmada at
v1.19, commit f8fdd02df)."""

from __future__ import annotations

CLUSTER_GROUP = "cluster.karmada.io"
WORK_GROUP = "work.karmada.io"
CLUSTER_VERSION = "v1alpha1"
BINDING_VERSION = "v1alpha2"  # the version the scheduler reads and writes (its typed client)
BINDING_API_VERSION = f"{WORK_GROUP}/{BINDING_VERSION}"

CLUSTER = "Cluster"
RB = "ResourceBinding"
CRB = "ClusterResourceBinding"
BINDINGS = (RB, CRB)

KINDS = {CLUSTER: {CLUSTER_GROUP}, RB: {WORK_GROUP}, CRB: {WORK_GROUP}}
# What the API server serves: Cluster is karmada-aggregated-apiserver's (pkg/apis/cluster:
# v1alpha1 only); the binding CRDs (charts/karmada/_crds/bases/work/work.karmada.io_*bindings.yaml)
# serve v1alpha1 (no placement: the scheduler reads such a binding converted, with no placement,
# and leaves it alone) and v1alpha2 (the storage version).
SERVED_VERSIONS = {CLUSTER: (CLUSTER_VERSION,), RB: ("v1alpha2", "v1alpha1"), CRB: ("v1alpha2", "v1alpha1")}

# The scheduler looks only at bindings carrying one of these labels with a non-empty value
# (pkg/scheduler/event_handler.go resourceBindingEventFilter).
PP_ID_LABEL = "propagationpolicy.karmada.io/permanent-id"
CPP_ID_LABEL = "clusterpropagationpolicy.karmada.io/permanent-id"
MANAGED_BY_LABEL = "binding.karmada.io/managed-by"
WATCH_LABELS = (PP_ID_LABEL, CPP_ID_LABEL, MANAGED_BY_LABEL)
APPLIED_PLACEMENT = "policy.karmada.io/applied-placement"  # util.PolicyPlacementAnnotation
DEFAULT_SCHEDULER = "default-scheduler"

# The Scheduled condition (pkg/scheduler/helper.go getConditionByError).
SCHEDULED = "Scheduled"
SUCCESS = "Success"
SUCCESS_MESSAGE = "Binding has been scheduled successfully."
NO_CLUSTER_FIT = "NoClusterFit"
UNSCHEDULABLE = "Unschedulable"
SCHEDULER_ERROR = "SchedulerError"

# Field selector keys and spread fields.
PROVIDER, REGION, ZONE, CLUSTER_FIELD = "provider", "region", "zone", "cluster"
FIELD_KEYS = (PROVIDER, REGION, ZONE)
SPREAD_FIELDS = (CLUSTER_FIELD, REGION, ZONE, PROVIDER)  # the CRD's enum
ZONES_CLAIM = "zone"  # the cluster's zones joined by ","

# Placement enums (the CRD's).
DUPLICATED, DIVIDED = "Duplicated", "Divided"
SCHEDULING_TYPES = (DUPLICATED, DIVIDED)
AGGREGATED, WEIGHTED = "Aggregated", "Weighted"
DIVISION_PREFERENCES = (AGGREGATED, WEIGHTED)
AVAILABLE_REPLICAS = "AvailableReplicas"
DYNAMIC_WEIGHTS = (AVAILABLE_REPLICAS,)
TAINT_EFFECTS = ("NoSchedule", "PreferNoSchedule", "NoExecute")
FILTER_EFFECTS = ("NoSchedule", "NoExecute")  # the effects TaintToleration filters by
TOLERATION_OPERATORS = ("", "Exists", "Equal")  # the webhook refuses Lt and Gt
SYNC_MODES = ("Pull", "Push")
CLUSTER_NAME_MAX = 48
AFFINITY_NAME_MAX = 32
COMPONENT_NAME_MAX = 32

# Traits the adapter decides per cluster (model.Cluster.traits).
API_TRAIT = "api:{}/{}"  # groupVersion, kind
AFFINITY_TRAIT = "affinity:{}"  # a digest of the term

# Estimator units: cpu in millicores, every other resource in whole units.
CPU, PODS = "cpu", "pods"
MODEL_NODE_PODS = 110  # pkg/estimator/client/general.go maxPodsCountPerNode

# Filter plugins in the order this program runs them (upstream's order is Go map order, so the
# reason of a cluster failing several is random there): the in-tree registry's listing order.
API_ENABLEMENT = "APIEnablement"
TAINT_TOLERATION = "TaintToleration"
CLUSTER_AFFINITY = "ClusterAffinity"
SPREAD_CONSTRAINT = "SpreadConstraint"
CLUSTER_EVICTION = "ClusterEviction"
FILTERS = (API_ENABLEMENT, TAINT_TOLERATION, CLUSTER_AFFINITY, SPREAD_CONSTRAINT, CLUSTER_EVICTION)

# Filter reasons (pkg/scheduler/framework/plugins/*).
NO_API = "cluster(s) did not have the API resource"
UNTOLERATED = "cluster(s) had untolerated taint {{{}}}"
NO_AFFINITY = "cluster(s) did not match the placement cluster affinity constraint"
NO_FIELD = {
    PROVIDER: "cluster(s) did not have provider property",
    REGION: "cluster(s) did not have region property",
    ZONE: "cluster(s) did not have zones property",
}
EVICTING = "cluster(s) is in the process of eviction"

# Error messages (pkg/scheduler/framework/types.go, pkg/scheduler/core/...).
FIT_ERROR = "0/{} clusters are available: {}."
NO_CLUSTER_EXISTS = "no cluster exists"
SELECT_FAILED = "failed to select clusters: {}"
ASSIGN_FAILED = "failed to assign replicas: {}"
SCALE_UP_FAILED = "failed to scale up: {}"
FRESH_FAILED = "failed to do fresh scale: {}"
NOT_ENOUGH = "Clusters available replicas {} are not enough to schedule."
TIERS_NOT_ENOUGH = "Clusters available replicas are not enough to schedule."
NO_CLUSTERS = "no clusters available to schedule"
SPREAD_UNSUPPORTED = "just support cluster and region spread constraint"
UNSUPPORTED_STRATEGY = (
    "unsupported replica scheduling strategy, replicaSchedulingType: {}, replicaDivisionPreference: {}, "
    "please try another scheduling strategy"
)

# Webhook messages (pkg/util/validation/validation.go ValidatePlacement).
AFFINITY_BOTH = "clusterAffinities cannot co-exist with clusterAffinity"
UNIQUE_TERMS = "each affinity term in a policy must have a unique name"
OVERFLOW_STRATEGY = (
    "overflowAffinities can only be used together with dynamic weight or aggregated scheduling"
)
OVERFLOW_INLINE = "overflowAffinities can only be used together with the inline ClusterAffinity"
OVERFLOW_UNIQUE = (
    "overflow affinity name must be unique and must not duplicate the primary group's affinityName"
)
FIELD_KEY = 'unsupported key "{}", must be provider, region, or zone'
FIELD_OPERATOR = 'unsupported operator "{}", must be In or NotIn'
SPREAD_BOTH = "spreadByLabel should not co-exist with spreadByField"
MIN_NEGATIVE = "minGroups lower than 0 is not allowed"
MAX_NEGATIVE = "maxGroups lower than 0 is not allowed"
MAX_BELOW_MIN = "maxGroups lower than minGroups is not allowed"
SPREAD_TWICE = "multiple {} spread constraints are not allowed"
SPREAD_NO_CLUSTER = (
    "the cluster spread constraint must be enabled in one of the constraints "
    "in case of SpreadByField is enabled"
)
SAME_GROUP_KEY = "affinity and antiAffinity must not use the same groupByLabelKey"
