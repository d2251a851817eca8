"""openMCP API names: the group, kinds, finalizers, labels, annotations and config values the
Cluster Scheduler reads and writes, and the trait names the neutral model carries."""

from __future__ import annotations

GROUP = "clusters.openmcp.cloud"
API_VERSION = f"{GROUP}/v1alpha1"

CLUSTER = "Cluster"
REQUEST = "ClusterRequest"

KINDS = {kind: {GROUP} for kind in (CLUSTER, REQUEST)}
# The versions upstream's CRDs serve (openmcp-operator api/crds/manifests at a131d2f): an object of
# another version is refused, as the API server would.
SERVED_VERSIONS = {kind: ("v1alpha1",) for kind in KINDS}

# Finalizers: the request's own, and the back reference every request puts on its cluster.
REQUEST_FINALIZER = f"{GROUP}/request"
ON_CLUSTER_PREFIX = f"request.{GROUP}/"

# Labels and annotations.
DELETE_WITHOUT_REQUESTS = f"{GROUP}/delete-without-requests"
RANDOMIZE_NAME = f"{GROUP}/randomize-cluster-name"
OPERATION = "openmcp.cloud/operation"
IGNORE = "ignore"
RECONCILE = "reconcile"  # forces a reconcile; the scheduler then removes the annotation
PROPAGATED_PREFIX = "metadata.open-control-plane.io/"

# Request phases the scheduler writes.
GRANTED = "Granted"
PENDING = "Pending"

# Cluster tenancies.
EXCLUSIVE = "Exclusive"
SHARED = "Shared"
TENANCIES = (EXCLUSIVE, SHARED)

# Config values.
CONFIG_KEY = "scheduler"
SCOPE_CLUSTER = "Cluster"
SCOPE_NAMESPACED = "Namespaced"
SCOPES = (SCOPE_CLUSTER, SCOPE_NAMESPACED)
BALANCED = "Balanced"
RANDOM = "Random"
SIMPLE = "Simple"
STRATEGIES = (BALANCED, RANDOM, SIMPLE)

# Kubernetes' longest object name, which a generated name must fit in.
MAX_NAME_LENGTH = 63

# Names the neutral model carries.
PURPOSE_TRAIT = "purpose:{}"
NAMESPACE_TRAIT = "namespace:{}"
BEING_DELETED = "being deleted"
