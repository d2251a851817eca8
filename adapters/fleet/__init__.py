"""Kubernetes Fleet (KubeFleet): MemberCluster, ClusterResourcePlacement, ClusterResourceBinding and
ClusterSchedulingPolicySnapshot <-> the neutral model. The record: system.py; the library surface: api.py."""
