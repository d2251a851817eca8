"""Open Cluster Management: ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, Placement,
AddOnPlacementScore and PlacementDecision <-> the neutral model.

    batch, context = ocm.load(manifests, now=now)
    result = solver.solve(batch)
    emitted = ocm.emit(context, result)   # .apply: objects to write, .delete: references
"""

from adapters.ocm.emit import Emitted, emit
from adapters.ocm.load import OcmContext, load
from adapters.ocm.names import KINDS

__all__ = ["KINDS", "Emitted", "OcmContext", "emit", "load"]
