"""openMCP's Cluster Scheduler: the scheduler config, Cluster and ClusterRequest <-> the neutral model.
The record: system.py; the library surface: api.py."""
