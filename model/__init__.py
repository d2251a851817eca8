"""The neutral placement model: pure, typed, frozen value types. No solver, no upstream names."""

from model.quantity import Quantity, QuantityError, parse_quantity
from model.selectors import (
    ClusterTerm,
    LabelOperator,
    LabelRequirement,
    LabelSelector,
    PropertyOperator,
    PropertyRequirement,
    Taint,
    Toleration,
    TolerationOperator,
    first_untolerated,
)
from model.types import (
    Batch,
    Choice,
    Cluster,
    ClusterScore,
    ExistingDecision,
    FilterKind,
    PlacementRequest,
    Preference,
    PropertySorter,
    RequestResult,
    Result,
    SelectionMode,
    SolveStats,
    SpreadConstraint,
    Unselected,
)

__all__ = [
    "Batch", "Choice", "Cluster", "ClusterScore", "ClusterTerm", "ExistingDecision", "FilterKind",
    "LabelOperator", "LabelRequirement", "LabelSelector", "PlacementRequest", "Preference",
    "PropertyOperator", "PropertyRequirement", "PropertySorter", "Quantity", "QuantityError",
    "RequestResult", "Result", "SelectionMode", "SolveStats", "SpreadConstraint", "Taint",
    "Toleration", "TolerationOperator", "Unselected", "first_untolerated", "parse_quantity",
]
