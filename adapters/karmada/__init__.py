"""Karmada: ResourceBindings divided over Clusters, with capacity."""
