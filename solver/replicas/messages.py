"""The texts upstream reports when a request's replicas cannot be placed, verbatim: the adapter
writes them as they are (failure_detail). Kept in one place; every other module of the package
speaks neutral words.

Upstream wraps each step's error (pkg/scheduler/core/generic_scheduler.go: "failed to select
clusters: ", "failed to assign replicas: "; assignment.go: "failed to scale up: " and the like),
and the condition's message is the whole chain.
"""

from __future__ import annotations

SELECT = "failed to select clusters: {}"
ASSIGN = "failed to assign replicas: {}"

FEWER_THAN_MIN = "the number of feasible clusters is less than spreadConstraint.MinGroups"
NOT_ENOUGH_WHEN_SELECTING = "no enough resource when selecting {} clusters"
FEWER_GROUPS_THAN_MIN = "the number of feasible region is less than spreadConstraint.MinGroups"
NO_GROUP_PATH = "the number of clusters is less than the cluster spreadConstraint.MinGroups"
NOTHING_SELECTED = "no clusters available to schedule"

SHORT = "Clusters available replicas {} are not enough to schedule."
SHORT_OVER_TIERS = "Clusters available replicas are not enough to schedule."
SCALE_UP = "failed to scale up: {}"
SCALE_DOWN = "failed to scale down: {}"
FRESH = "failed to do fresh scale: {}"
