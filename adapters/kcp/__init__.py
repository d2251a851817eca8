"""kcp Transparent Multi-Cluster placement, both API generations: Namespaces, APIBindings to the
compute service, Locations, WorkloadClusters (v0.5) or SyncTargets and Placements (v0.8) <-> the
neutral model (one tenancy request per unit to place: a namespace in a location, or a Placement).
"""
