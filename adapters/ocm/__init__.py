"""Open Cluster Management: ManagedCluster, ManagedClusterSet, ManagedClusterSetBinding, Placement,
AddOnPlacementScore and PlacementDecision <-> the neutral model. The record: system.py; the library
surface: api.py."""
