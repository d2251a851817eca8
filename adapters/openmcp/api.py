"""openMCP's Cluster Scheduler: the scheduler config, Cluster and ClusterRequest <-> the neutral
model (ClusterRequests as tenancy requests, Clusters with their request finalizers as load, new
clusters from the purposes' templates).

    batch, context = openmcp.load(manifests, now=now, config=document)  # the `scheduler:` config
    result = solver.solve(batch)
    emitted = openmcp.emit(context, result)   # .apply: objects to write, .delete: references
"""

from adapters.openmcp.config import SchedulerConfig, parse_config, read_config_files
from adapters.openmcp.emit import emit
from adapters.openmcp.load import OpenMcpContext, load
from adapters.openmcp.names import KINDS

__all__ = ["KINDS", "OpenMcpContext", "SchedulerConfig", "emit", "load", "parse_config", "read_config_files"]
