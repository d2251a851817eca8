"""Requests that divide replicas among clusters (PlacementRequest.replicas)."""
