"""Requests that divide replicas among clusters."""
