"""Deterministic synthetic hubs: the shared layer (common) and the registry's generators (hubs)."""
