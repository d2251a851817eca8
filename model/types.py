"""The neutral domain: clusters, placement requests, batches and results.

Frozen value types with no knowledge of any upstream API. Adapters build a Batch from upstream
objects; the solver turns it into a Result; adapters write the Result back as upstream objects.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum

from model.quantity import Quantity
from model.selectors import ClusterTerm, LabelSelector, Taint, Toleration

__all__ = [
    "Cluster",
    "SelectionMode",
    "PropertySorter",
    "Preference",
    "SpreadConstraint",
    "ExistingDecision",
    "ClusterScore",
    "PlacementRequest",
    "Batch",
    "FilterKind",
    "Choice",
    "Unselected",
    "RequestResult",
    "SolveStats",
    "Result",
]


@dataclass(frozen=True, slots=True)
class Cluster:
    """One member cluster. `eligible` is false (with the reason) when nothing new may land on it;
    `leaving` means it is going away, so whatever it holds is released."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    properties: Mapping[str, Quantity] = field(default_factory=dict, hash=False)
    taints: tuple[Taint, ...] = ()
    eligible: bool = True
    ineligible_reason: str = ""
    leaving: bool = False


class SelectionMode(StrEnum):
    ALL = "all"  # every cluster that passes the filters
    N = "n"  # the best `count` clusters
    FIXED = "fixed"  # exactly the named clusters


@dataclass(frozen=True, slots=True)
class PropertySorter:
    name: str
    ascending: bool  # smaller values score higher


@dataclass(frozen=True, slots=True)
class Preference:
    """A weighted soft preference: `weight` when the selector matches, or with a sorter the weight
    interpolated over the property's range across the whole fleet."""

    weight: int
    labels: LabelSelector | None = None
    sorter: PropertySorter | None = None


@dataclass(frozen=True, slots=True)
class SpreadConstraint:
    topology_key: str
    max_skew: int = 1
    hard: bool = True  # hard: never exceed max_skew; soft: exceeding it costs score


@dataclass(frozen=True, slots=True)
class ClusterScore:
    """Score parts of one cluster for one request: spread ranks above affinity."""

    spread: int = 0
    affinity: int = 0


@dataclass(frozen=True, slots=True)
class ExistingDecision:
    """A cluster the request already holds.

    `current` decisions were made under the request's present policy and are kept (the policy is
    ignored during execution); the others were made under an older policy and are re-evaluated,
    with a preference to keep them. `committed` ones are already rolled out and are given up after
    uncommitted ones when the request shrinks.
    """

    cluster: str
    current: bool = True
    committed: bool = False
    score: ClusterScore | None = None


@dataclass(frozen=True, slots=True)
class PlacementRequest:
    """What one placement asks for."""

    name: str
    namespace: str = ""
    mode: SelectionMode = SelectionMode.ALL
    count: int = 0  # for SelectionMode.N
    cluster_names: tuple[str, ...] = ()  # for SelectionMode.FIXED
    required: tuple[ClusterTerm, ...] = ()  # ORed; empty means no requirement
    preferences: tuple[Preference, ...] = ()
    spread: tuple[SpreadConstraint, ...] = ()
    tolerations: tuple[Toleration, ...] = ()
    existing: tuple[ExistingDecision, ...] = ()

    @property
    def key(self) -> str:
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    def signature(self) -> tuple:
        """Everything but the identity: requests with equal signatures have equal answers."""
        return (
            self.mode,
            self.count,
            self.cluster_names,
            self.required,
            self.preferences,
            self.spread,
            self.tolerations,
            self.existing,
        )


@dataclass(frozen=True, slots=True)
class Batch:
    """Clusters (sorted by name) and requests (sorted by key) to solve together."""

    clusters: tuple[Cluster, ...]
    requests: tuple[PlacementRequest, ...]
    now: datetime | None = None
    seed: int = 0
    explain_limit: int = 20  # how many unselected clusters each result explains


class FilterKind(StrEnum):
    AFFINITY = "affinity"  # matches no required term
    INELIGIBLE = "ineligible"  # detail: the cluster's ineligible_reason
    TAINT = "taint"  # the untolerated taint is in Unselected.taint
    SPREAD = "spread"  # detail: the topology key; max_skew in `skew`
    NOT_FOUND = "not-found"  # a named cluster that does not exist
    NOT_PICKED = "not-picked"  # passed the filters, but others scored higher


@dataclass(frozen=True, slots=True)
class Choice:
    """A selected cluster. `score` is None where the mode does not score (FIXED)."""

    cluster: str
    score: ClusterScore | None = None
    kept: bool = False  # an existing current decision, left as it was
    restored: bool = False  # an older decision given up earlier in this run and chosen again


@dataclass(frozen=True, slots=True)
class Unselected:
    cluster: str
    kind: FilterKind
    detail: str = ""
    score: ClusterScore | None = None
    taint: Taint | None = None
    skew: int = 0


@dataclass(frozen=True, slots=True)
class RequestResult:
    request: str  # the request's key
    selected: tuple[Choice, ...]  # in decision order: kept first, then new picks best first
    released: tuple[str, ...] = ()  # existing decisions given up, by cluster name
    unselected: tuple[Unselected, ...] = ()  # at most Batch.explain_limit, in report order
    satisfied: bool = True
    scheduled: bool = True  # false when nothing needed scheduling (only a refresh or a scale-down)


@dataclass(frozen=True, slots=True)
class SolveStats:
    mode: str
    status: str  # OPTIMAL or FEASIBLE (optimal mode), GREEDY
    objective: int = 0  # solver.objective's levels combined, summed over requests
    bound: int | None = None  # proven upper bound on the objective; None when nothing is proven
    gap: float | None = None  # (bound - objective) / max(1, |objective|)
    wall_seconds: float = 0.0
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    time_limited: bool = False  # a wall-clock limit cut a search
    models: int = 0  # CP-SAT models solved (closed-form answers are not counted)


@dataclass(frozen=True, slots=True)
class Result:
    requests: tuple[RequestResult, ...]
    stats: SolveStats

    def by_request(self) -> dict[str, RequestResult]:
        return {r.request: r for r in self.requests}
