"""kcp Transparent Multi-Cluster placement, both API generations: Namespaces, APIBindings to the
compute service, Locations, WorkloadClusters (v0.5) or SyncTargets and Placements (v0.8) <-> the
neutral model (one tenancy request per unit to place: a namespace in a location, or a Placement).

    batch, context = kcp.load(manifests, now=now, seed=seed)
    result = solver.solve(batch)
    emitted = kcp.emit(context, result)   # .apply: Namespaces (and Placements) to write
"""

from adapters.kcp.emit import emit
from adapters.kcp.keys import sync_target_key
from adapters.kcp.load import KcpContext, load
from adapters.kcp.names import KINDS, SHARED_KINDS, Generation

__all__ = ["KINDS", "SHARED_KINDS", "Generation", "KcpContext", "emit", "load", "sync_target_key"]
