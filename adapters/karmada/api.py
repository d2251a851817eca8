"""Karmada: Cluster, ResourceBinding and ClusterResourceBinding <-> the neutral model.

batch, context = karmada.load(manifests, now=now)
result = solver.solve(batch)
emitted = karmada.emit(context, result)   # .apply: the bindings as the scheduler leaves them
"""

from adapters.karmada.emit import Emitted, emit
from adapters.karmada.load import KarmadaContext, load
from adapters.karmada.names import KINDS

__all__ = ["KINDS", "Emitted", "KarmadaContext", "emit", "load"]
