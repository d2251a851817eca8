"""Kubernetes Fleet (KubeFleet): MemberCluster, ClusterResourcePlacement, ClusterResourceBinding and
ClusterSchedulingPolicySnapshot <-> the neutral model.

    batch, context = fleet.load(manifests, now=now)
    result = solver.solve(batch)
    emitted = fleet.emit(context, result)   # .apply: objects to write, .delete: references
"""

from adapters.fleet.emit import Emitted, emit
from adapters.fleet.load import FleetContext, cut, load
from adapters.fleet.names import KINDS

__all__ = ["KINDS", "Emitted", "FleetContext", "cut", "emit", "load"]
