"""The neutral domain: clusters, placement requests, batches and results.

Frozen value types with no knowledge of any upstream API. Adapters build a Batch from upstream
objects; the solver turns it into a Result; adapters write the Result back as upstream objects.
"""

from __future__ import annotations

import operator
import os
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import field
from datetime import datetime
from enum import StrEnum
from functools import partial
from operator import attrgetter

from model.frozen import frozen
from model.quantity import Quantity
from model.selectors import ClusterTerm, LabelSelector, Taint, Toleration

__all__ = [
    "INT32_MAX",
    "MAX_AFFINITY",
    "MAX_TENANCY",
    "Cluster",
    "SelectionMode",
    "TieBreak",
    "PropertySorter",
    "Preference",
    "SpreadConstraint",
    "Packing",
    "Tenancy",
    "Division",
    "StaticWeight",
    "GroupSpread",
    "AffinityTier",
    "Part",
    "Replicas",
    "NodeClass",
    "Capacity",
    "Failure",
    "ExistingDecision",
    "ClusterScore",
    "PlacementRequest",
    "Batch",
    "FilterKind",
    "Choice",
    "Unselected",
    "RequestResult",
    "LevelStats",
    "added_levels",
    "SolveStats",
    "Result",
]


# What the solver's arithmetic holds exactly, so the values it is given are refused past it (a
# ValueError naming the field, where the value is made). Every system's API declares its counts,
# skews, weights and scores int32; the solver keeps each objective level exact in a double (2^53:
# a level is the picks times the affinity range) and its pick keys (affinity x 2 x clusters) in
# int64; squares of tenants per cluster must fit int64 too.
INT32_MAX = 2**31 - 1
MAX_AFFINITY = INT32_MAX  # the most affinity a request's preferences can give one cluster, +/-
MAX_TENANCY = INT32_MAX  # a cluster's tenants at most: its load and every request's demand
_INT32_MIN = -INT32_MAX - 1


# A check fails through _within (its message); the checks made per value spell their bounds inline
# first, so a value that passes costs no call and no f-string of its owner's name.
def _within(owner: str, name: str, value: object, low: int, high: int) -> None:
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{owner}: {name} must be an integer between {low} and {high}, got {value!r}")


@frozen
class Cluster:
    """One member cluster. `eligible` is false (with the reason) when nothing new may land on it;
    `leaving` means it is going away, so whatever it holds is released.

    `claims` are facts the cluster reports about itself (selected like labels); `traits` are named
    predicates the adapter decided for it (pool memberships, expressions the solver does not
    speak); `scores` are externally supplied scores by name (absent: 0); `load` counts decisions of
    placements outside the batch that sit on the cluster (for balance scores)."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict, hash=False)
    properties: Mapping[str, Quantity] = field(default_factory=dict, hash=False)
    taints: tuple[Taint, ...] = ()
    eligible: bool = True
    ineligible_reason: str = ""
    leaving: bool = False
    claims: Mapping[str, str] = field(default_factory=dict, hash=False)
    traits: frozenset[str] = frozenset()
    scores: Mapping[str, int] = field(default_factory=dict, hash=False)
    load: int = 0
    capacity: Capacity | None = None  # free room for replicas; None: the cluster reports none

    def __post_init__(self) -> None:
        if self.load and (type(self.load) is not int or not 0 <= self.load <= MAX_TENANCY):
            _within(f"cluster {self.name!r}", "load", self.load, 0, MAX_TENANCY)
        for name, score in self.scores.items():
            if type(score) is not int or not _INT32_MIN <= score <= INT32_MAX:
                _within(f"cluster {self.name!r}", f"scores[{name!r}]", score, _INT32_MIN, INT32_MAX)


class SelectionMode(StrEnum):
    ALL = "all"  # every cluster that passes the filters
    N = "n"  # the best `count` clusters
    FIXED = "fixed"  # exactly the named clusters


class TieBreak(StrEnum):
    """Which cluster wins among equal scores."""

    LARGER_NAME = "larger-name"
    SMALLER_NAME = "smaller-name"


@frozen
class PropertySorter:
    """Rank clusters by a numeric property.

    Not centered: the weight interpolated over the property's range across the whole fleet,
    rounded half away from zero (0 when all values are equal or the property is missing).
    Centered: trunc(((v - min) / (max - min) - 0.5) * 2 * 100) in float64, min and max over the
    request's candidates that have the property; 100 when they are all equal; 0 without the
    property; then multiplied by the weight.
    """

    name: str
    ascending: bool  # smaller values score higher
    centered: bool = False


@frozen
class Preference:
    """A weighted soft preference. Exactly one of these shapes:

    - `labels` alone (or nothing): `weight` when the selector matches;
    - `sorter`: see PropertySorter (only where `labels` matches);
    - `external`: weight x the cluster's external score of that name (0 when absent);
    - `held`: weight x 100 on the clusters the request already holds;
    - `balance`: weight x 2 * trunc(100 * (0.5 - n / m)), n the decisions of every other request
      (and the cluster's outside load) on the cluster and m the largest such count over the
      fleet; 100 where n is 0. It couples the requests of a batch.
    """

    weight: int
    labels: LabelSelector | None = None
    sorter: PropertySorter | None = None
    external: str | None = None
    held: bool = False
    balance: bool = False

    def __post_init__(self) -> None:
        if type(self.weight) is not int or not _INT32_MIN <= self.weight <= INT32_MAX:
            _within("preference", "weight", self.weight, _INT32_MIN, INT32_MAX)

    def most(self) -> int:
        """The most this preference gives one cluster, in absolute value, but for an external
        score's (the weight per unit of score)."""
        unit = HELD_UNIT if self.held else BALANCE_UNIT if self.balance else 1
        return abs(self.weight) * unit


# What a `held` and a `balance` preference give per unit of weight, at most.
HELD_UNIT, BALANCE_UNIT = 100, 200


@frozen
class SpreadConstraint:
    topology_key: str
    max_skew: int = 1
    hard: bool = True  # hard: never exceed max_skew; soft: exceeding it costs score
    claims: bool = False  # the topology key names a claim, not a label

    def __post_init__(self) -> None:
        if type(self.max_skew) is not int or not 1 <= self.max_skew <= INT32_MAX:
            _within(f"spread constraint {self.topology_key!r}", "max_skew", self.max_skew, 1, INT32_MAX)


class Packing(StrEnum):
    """How a tenancy request picks among the existing clusters with room for it."""

    FEWEST = "fewest"  # the fewest tenants; the first in cluster order on ties
    FIRST = "first"  # the first in cluster order
    RANDOM = "random"  # uniformly at random, from the batch's seed


@frozen
class Tenancy:
    """The request takes one tenancy slot on exactly one cluster: an existing one it may use
    (eligible, matching `required` and `scope`), or a new one from its pool.

    A cluster's tenants are its `load` (slots held outside the batch) plus the batch's requests
    on it. A request joins a cluster only while fewer than `limit` slots are taken there (0: no
    limit): upstream decides requests one at a time in `order` (its queue); a joint answer must
    admit a cluster's requests in some order (smallest limits first, then). New clusters come
    from a pool: requests with the same `pool` key may join each other's new clusters (so the key
    is what decides whether a new cluster would be a candidate, e.g. the purpose alone when
    candidates span every namespace); None: the request may create none and join none. A new
    cluster is named after the request that opens it (`new_cluster`); an unlimited pool opens
    at most one. An `exclusive` request never shares: it takes a new cluster of its own.

    A request holding a cluster (`existing`) keeps it; when `movable`, only while the hold is
    current and the cluster still passes its filters (held: taints that keep out only newcomers
    do not apply), else the hold is given up and the request placed again (a forced move).
    `demand` is the slots (units of load) it takes. With `balance`, optimal mode levels the
    clusters' loads whatever greedy's packing rule (upstream picks at random; the optimum spreads
    evenly).
    """

    order: int
    limit: int = 0
    packing: Packing = Packing.FEWEST
    pool: str | None = None
    new_cluster: str = ""
    exclusive: bool = False
    movable: bool = False
    demand: int = 1
    balance: bool = False
    # Pools whose new clusters the request may join besides its own pool's (a template listing
    # the request's purpose makes clusters it can use); a request that may create none may still
    # join these.
    joins: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if type(self.demand) is not int or not 1 <= self.demand <= MAX_TENANCY:
            _within("tenancy", "demand", self.demand, 1, MAX_TENANCY)
        if type(self.limit) is not int or self.limit < 0:  # only compared: any size holds
            raise ValueError(f"tenancy: limit must be an integer at least 0, got {self.limit!r}")


class Division(StrEnum):
    """How a request's replicas are divided among the clusters it selects."""

    EVERY = "every"  # nothing to count: every selected cluster, with no replica number
    DUPLICATED = "duplicated"  # every selected cluster runs all the replicas; capacity-blind
    WEIGHTED = "weighted"  # in proportion to static weights (Webster); capacity-blind
    AVAILABLE = "available"  # in proportion to each cluster's available replicas (Webster)
    AGGREGATED = "aggregated"  # on the fewest clusters, those already used first (then Webster)


@frozen
class StaticWeight:
    """A static weight rule: a cluster's weight is the largest weight of the rules whose term it
    matches, 0 (it gets nothing) when none does."""

    term: ClusterTerm
    weight: int

    def __post_init__(self) -> None:
        if type(self.weight) is not int or not 1 <= self.weight <= INT32_MAX:
            _within("static weight", "weight", self.weight, 1, INT32_MAX)


@frozen
class GroupSpread:
    """Select between `min_groups` and `max_groups` groups, a group being the clusters that share
    one value of the claim `claim` ("": every cluster a group of its own). A cluster without the
    claim is filtered out. `selects` is false where the constraint only filters (upstream shapes
    the selection by some claims only); max_groups 0 selects nothing."""

    claim: str
    min_groups: int = 1
    max_groups: int = 0
    selects: bool = True

    def __post_init__(self) -> None:
        if type(self.min_groups) is not int or not 0 <= self.min_groups <= INT32_MAX:
            _within(f"group spread {self.claim!r}", "min_groups", self.min_groups, 0, INT32_MAX)
        if type(self.max_groups) is not int or not 0 <= self.max_groups <= INT32_MAX:
            _within(f"group spread {self.claim!r}", "max_groups", self.max_groups, 0, INT32_MAX)


@frozen
class AffinityTier:
    """One of a request's ordered failover terms: the request uses one tier at a time, from the
    one it last observed on, moving on past any failure and never back (unless it is divided
    afresh). A tier's `overflow` terms, in order, take the replicas its own clusters cannot."""

    name: str
    term: ClusterTerm = field(default_factory=ClusterTerm)
    overflow: tuple[ClusterTerm, ...] = ()


@frozen
class NodeClass:
    """`count` identical nodes, each with `capacity` free per resource (a replica must fit within
    one node)."""

    count: int
    capacity: Mapping[str, int] = field(default_factory=dict, hash=False)


@frozen
class Capacity:
    """A cluster's free room for replicas, in whole units per resource (the units requests'
    demands are in): what it can hold less what is allocated and being allocated. A resource
    absent has none free; a value at or below 0 none either. `nodes`, where the cluster reports
    them, also bound how many replicas fit (each within one node)."""

    free: Mapping[str, int] = field(default_factory=dict, hash=False)
    nodes: tuple[NodeClass, ...] = ()
    # Where `nodes` are given, the resources whose free amount still bounds the replicas beside
    # them (the nodes bound every resource they name); None: every resource's.
    free_with_nodes: frozenset[str] | None = None


@frozen
class Part:
    """One part of a set of differently-sized parts: `count` replicas, each taking `demand`.
    `count` is an int32 and may be negative (upstream's API takes it): a set's footprint sums the
    parts' counts as they are, and a part of 0 replicas or fewer places none on a node."""

    count: int
    demand: Mapping[str, int] = field(default_factory=dict, hash=False)

    def __post_init__(self) -> None:
        if type(self.count) is not int or not _INT32_MIN <= self.count <= INT32_MAX:
            _within("part", "count", self.count, _INT32_MIN, INT32_MAX)
        for name, amount in self.demand.items():
            if type(amount) is not int or amount < 0:
                raise ValueError(f"part: demand[{name!r}] must be an integer at least 0, got {amount!r}")


@frozen
class Replicas:
    """The request runs `count` replicas, divided among the clusters it selects as `division`
    says, each replica taking `demand` (whole units per resource; every resource it names must be
    free on a cluster for a replica to fit there) out of the clusters' capacity. `count` and the
    replicas of `current` are int32 and may be negative (upstream's API takes them): a division
    keeps only the clusters it gives more than 0, and counts in int32 as upstream does.

    `current` is what the request holds now (cluster and replicas, in the order they were
    written; `existing` names the same clusters); replicas it keeps are never moved unless the
    request is divided afresh (`fresh`), or it shrinks, or a cluster stops passing. `weights`
    (WEIGHTED; None: every candidate weighs 1). `groups`: group spread constraints. `tiers`:
    ordered failover terms, resumed at `tier`. `needs`: a trait a cluster must have unless the
    request already holds it there. `evicted`: clusters the request is being moved off, never
    its candidates. `unlimited`: capacity never limits the request (it has no
    replicas to fit: every candidate has room for INT32_MAX). Upstream's queue decides requests in
    `priority` (higher first) then `order`; `tie_break` settles Webster's equal priorities.
    `spread_by_room` (EVERY only): selection weighs the clusters' room as a divided request's does
    (a group scored by room up to its share, a cluster spread swapping for room for the count, or
    for one set with `parts`), not as DUPLICATED's (groups by clusters with room for the whole
    count, no swap: the best candidates whatever their room).

    `parts`: the request's unit is a whole set of these parts, landing whole on one cluster: a
    cluster's room is counted in whole sets (`demand` is then unused) and selection asks room for
    one set. With division EVERY each selected cluster runs the whole set."""

    count: int
    division: Division = Division.AVAILABLE
    demand: Mapping[str, int] = field(default_factory=dict, hash=False)
    weights: tuple[StaticWeight, ...] | None = None
    groups: tuple[GroupSpread, ...] = ()
    tiers: tuple[AffinityTier, ...] = ()
    tier: int = 0
    current: tuple[tuple[str, int], ...] = ()
    fresh: bool = False
    needs: str = ""
    evicted: tuple[str, ...] = ()
    unlimited: bool = False
    order: int = 0
    priority: int = 0
    tie_break: TieBreak = TieBreak.SMALLER_NAME
    spread_by_room: bool = False
    parts: tuple[Part, ...] = ()

    def __post_init__(self) -> None:
        if type(self.count) is not int or not _INT32_MIN <= self.count <= INT32_MAX:
            _within("replicas", "count", self.count, _INT32_MIN, INT32_MAX)
        if type(self.priority) is not int or not _INT32_MIN <= self.priority <= INT32_MAX:
            _within("replicas", "priority", self.priority, _INT32_MIN, INT32_MAX)
        for name, amount in self.demand.items():
            if type(amount) is not int or amount < 0:
                raise ValueError(f"replicas: demand[{name!r}] must be an integer at least 0, got {amount!r}")
        for cluster, held in self.current:
            if type(held) is not int or not _INT32_MIN <= held <= INT32_MAX:
                _within(f"replicas on {cluster!r}", "replicas", held, _INT32_MIN, INT32_MAX)
        if self.tiers and not 0 <= self.tier < len(self.tiers):
            raise ValueError(f"replicas: tier {self.tier} is not one of {len(self.tiers)} tiers")

    @property
    def idle(self) -> bool:
        """Whether it runs no replica where it is placed, so takes no capacity: `unlimited`, or
        placed on every cluster with a count below 1 and no parts (a set of parts runs whole
        whatever the count)."""
        return self.unlimited or (self.division is Division.EVERY and self.count < 1 and not self.parts)


@frozen
class ClusterScore:
    """Score parts of one cluster for one request: spread ranks above affinity."""

    spread: int = 0
    affinity: int = 0


@frozen
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


@frozen
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
    # Traits of which a cluster needs one to be visible to the request at all (pools it may draw
    # from); None: every cluster is visible. Invisible clusters are not reported.
    scope: tuple[str, ...] | None = None
    tie_break: TieBreak = TieBreak.LARGER_NAME
    # Held decisions of an older policy win ties (less churn). Off where the policy already
    # prices holding a cluster (a `held` preference).
    prefer_held: bool = True
    # Set when the request asks for a tenancy slot (mode N, count 1) rather than scored clusters.
    tenancy: Tenancy | None = None
    # Set when the request divides replicas among the clusters it selects (mode ALL: the
    # division decides which of them get any).
    replicas: Replicas | None = None

    def __post_init__(self) -> None:
        # Its name spelt only where a check fails: a batch makes tens of thousands of requests.
        if type(self.count) is not int or not 0 <= self.count <= INT32_MAX:
            _within(f"request {self.key!r}", "count", self.count, 0, INT32_MAX)
        if not self.preferences:
            return
        fixed = sum(p.most() for p in self.preferences if p.external is None)
        if fixed > MAX_AFFINITY:
            raise ValueError(
                f"request {self.key!r}: preferences can give a cluster {fixed} affinity, "
                f"more than {MAX_AFFINITY}"
            )

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
            self.scope,
            self.tie_break,
            self.prefer_held,
            self.tenancy,
            self.replicas,
        )

    @property
    def coupled(self) -> bool:
        """Its scores depend on the other requests' answers."""
        return any(p.balance for p in self.preferences)


@frozen
class Loads:
    """Loads of some of a batch's clusters in place of their own (`Cluster.load`): `at` the
    positions in the batch's cluster tuple (ascending), `values` their loads. A long-lived
    scheduler's batch takes the decisions of its requests off thousands of clusters' loads: it
    carries them here beside its pool's shared tuple instead of a copy of each such cluster.
    A batch with its loads here is not equal (`==`) to one with the same loads in copies of its
    clusters; they are the same problem, and the solver answers them alike."""

    at: tuple[int, ...] = ()
    values: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        if len(self.at) != len(self.values):
            raise ValueError(f"loads: {len(self.at)} positions, {len(self.values)} values")
        if not all(map(operator.lt, self.at, self.at[1:])) or (self.at and self.at[0] < 0):
            raise ValueError("loads: positions must be ascending and at least 0")
        if not set(map(type, (*self.at, *self.values))) <= {int}:
            raise ValueError("loads: positions and values must be integers")
        if self.values and not 0 <= min(self.values) <= max(self.values) <= MAX_TENANCY:
            low, high = min(self.values), max(self.values)
            _within("loads", "value", low if low < 0 else high, 0, MAX_TENANCY)


@frozen
class Batch:
    """Clusters (sorted by name) and requests (sorted by key) to solve together.

    A cluster's load is read through `cluster_loads()`: `loads`, where given, holds some
    clusters' loads in place of their own (`Loads`)."""

    clusters: tuple[Cluster, ...]
    requests: tuple[PlacementRequest, ...]
    now: datetime | None = None
    seed: int = 0
    explain_limit: int = 20  # how many unselected clusters each result explains
    # Decisions of requests outside the batch on clusters that are not in it (gone, going), by
    # cluster name: nothing lands there, but they still count toward balance's busiest count.
    absent_load: Mapping[str, int] = field(default_factory=dict, hash=False)
    # Asks an optimal solve to report the coupled requests under spread that hold exactly their
    # answer and whose greedy run on the batch's final decisions picks it (Result.ordered): a
    # report asked, not part of the problem (equal batches ask the same answers).
    ordered: bool = field(default=False, compare=False)
    loads: Loads | None = None  # some clusters' loads in place of their own (`cluster_loads`)

    def __post_init__(self) -> None:
        _within("batch", "explain_limit", self.explain_limit, 0, INT32_MAX)
        if self.loads is not None and self.loads.at and self.loads.at[-1] >= len(self.clusters):
            raise ValueError(
                f"batch: a load at position {self.loads.at[-1]} of {len(self.clusters)} clusters"
            )
        self._check_external_affinity()
        self._check_tenancy()

    def _check_external_affinity(self) -> None:
        """External scores multiply weights: a request's most affinity depends on the fleet's
        highest score of each name."""
        for r in self.requests:  # most requests of a 50,000-request tenancy batch have no preference
            if r.preferences:
                break
        else:
            return
        named = {p.external for r in self.requests for p in r.preferences if p.external is not None}
        if not named:
            return
        # Magnitudes kept between batches (_Magnitudes: a long-lived scheduler's batch of one
        # request still holds 10,000 clusters, and batch after batch the same score mappings).
        # First the highest magnitude of every score, whatever its name: it bounds each name's,
        # and a request whose preferences stay within MAX_AFFINITY under that bound stays within
        # it under its names' own; a name's own highest is found only for a request the bound fails.
        with _Magnitudes.lock:
            magnitudes = _Magnitudes.of(self.clusters)
            ceiling = magnitudes.ceiling
            highest: dict[str, int] = {}
            for r in self.requests:
                if not r.preferences:
                    continue
                bound = sum(
                    abs(p.weight) * ceiling if p.external is not None else p.most() for p in r.preferences
                )
                if bound <= MAX_AFFINITY:
                    continue
                for name in named.difference(highest):
                    highest[name] = magnitudes.highest(name)
                most = sum(
                    abs(p.weight) * highest[p.external] if p.external is not None else p.most()
                    for p in r.preferences
                )
                if most > MAX_AFFINITY:
                    raise ValueError(
                        f"request {r.key!r}: preferences can give a cluster {most} affinity, "
                        f"more than {MAX_AFFINITY}"
                    )

    def _check_tenancy(self) -> None:
        demand = sum(r.tenancy.demand for r in self.requests if r.tenancy is not None)
        if not demand:
            return
        busiest = max(self.cluster_loads(), default=0)
        if busiest + demand > MAX_TENANCY:
            raise ValueError(
                f"batch: a cluster's load ({busiest}) and the requests' demand ({demand}) "
                f"exceed {MAX_TENANCY} tenants"
            )

    def cluster_loads(self) -> list[int]:
        """Each cluster's load, in the clusters' order: its own (`Cluster.load`), or `loads`'
        where that holds its position. Every reader of a batch's loads reads them here."""
        out = list(map(_LOAD, self.clusters))
        if self.loads is not None:
            for at, value in zip(self.loads.at, self.loads.values, strict=True):
                out[at] = value
        return out

    @property
    def separable(self) -> bool:
        """Whether each request's answer is its own, whatever else the batch holds: none takes a
        tenancy slot (slots are shared) and none scores by Balance (its scores read the others'
        answers) and none divides replicas (they share the clusters' capacity). A separable batch
        may be solved in parts, and their answers are the batch's."""
        return not any(r.tenancy is not None or r.replicas is not None or r.coupled for r in self.requests)


_SCORES = attrgetter("scores")
_LOAD = attrgetter("load")
# How a pool's score mappings moved (vouch_scores): per change, the token before it and the entry
# changed ("set" | "insert" | "delete", its position, the new mapping or None).
ScoresLog = Sequence[tuple[object, tuple[str, int, object]]]


class _Magnitudes:
    """The highest score magnitude over a batch's clusters (`ceiling`: of every name; `highest`:
    of one name, 0 where a cluster lacks it), kept for the last batch's clusters and moved to the
    next batch's through the part where their score mappings differ (Batch._check_external_affinity:
    a long-lived scheduler's batches hold the same 10,000 clusters, their load copies sharing
    their mappings, a cluster event apart; a pass over every score was most of a batch's checks).

    Exact: each maximum is kept with the number of clusters at it. The two batches' mappings are
    compared in order from both ends, slices at a time (in C: mostly the very same objects); those
    of the part between (clusters added, gone or replaced) go out and the new ones come in: one
    that comes in raises a maximum or counts at it, one that goes counts off it, and only when
    none is left at it is it found again over every cluster (as it is where that part is longer
    than _MOVED_UP_TO). A mapping is read as the model's values are, never changed once made
    (solver.table keeps a cluster's rows by its object too). One state for every thread, read
    under `lock`; a forked child starts without it."""

    lock = threading.Lock()
    _last: _Magnitudes | None = None
    # The last tuple of clusters `vouch` was told of, with its token and the log of how the
    # mappings of earlier tokens moved to it.
    _vouched: tuple[tuple[Cluster, ...], object, ScoresLog] | None = None

    def __init__(self, scores: list[Mapping[str, int]]) -> None:
        self.scores = scores  # per cluster, in batch order
        self.ceiling, self._at_ceiling = _most(map(_magnitude, scores))
        self._named: dict[str, list[int]] = {}  # by name: [highest, clusters at it]
        # The token of the vouched tuples whose scores are `scores` (None: none vouched).
        self.token: object | None = None

    @classmethod
    def of(cls, clusters: Sequence[Cluster]) -> _Magnitudes:
        """The magnitudes of these clusters' scores (the caller holds `lock`): the last ones, no
        cluster read, where these clusters are a tuple vouched with the token they were found
        for (`vouch`)."""
        vouched = cls._vouched
        token = vouched[1] if vouched is not None and vouched[0] is clusters else None
        last = cls._last
        if token is not None and last is not None and last.token is token:
            return last
        if token is not None and last is not None and last.token is not None:
            moved = _logged(last, clusters, vouched[2])  # type: ignore[index]
            if moved is not None:
                scores, outs, ins = moved
                last._move(scores, outs, ins)
                last.token = token
                return last
        scores = list(map(_SCORES, clusters))
        if last is not None and scores == last.scores:  # one C pass, each pair the same object
            last.scores, last.token = scores, token
            return last
        if last is not None:
            outs, ins = _differing(last.scores, scores)
            if len(outs) + len(ins) <= _MOVED_UP_TO:
                last._move(scores, outs, ins)
                last.token = token
                return last
        last = cls._last = cls(scores)
        last.token = token
        return last

    @classmethod
    def vouch(cls, clusters: tuple[Cluster, ...], token: object, log: ScoresLog = ()) -> None:
        """`clusters`' score mappings are, in order, those of every tuple vouched with `token`.
        One triple set at once, without `lock` (`of` reads it whole; a caller may hold it)."""
        cls._vouched = (clusters, token, tuple(log))

    def _move(self, scores: list[Mapping[str, int]], outs: list, ins: list) -> None:
        self.scores = scores
        if not outs and not ins:
            return
        every = partial(map, _magnitude, scores)
        most = _moved((self.ceiling, self._at_ceiling), map(_magnitude, ins), map(_magnitude, outs), every)
        self.ceiling, self._at_ceiling = most
        for name, state in self._named.items():
            state[:] = _moved(
                tuple(state), _named(ins, name), _named(outs, name), partial(_named, scores, name)
            )

    @classmethod
    def _forked(cls) -> None:
        """A forked child's own lock and no state: a thread of its parent may have held the lock,
        or been moving the state, when it forked."""
        cls.lock = threading.Lock()
        cls._last = None
        cls._vouched = None

    def highest(self, name: str) -> int:
        state = self._named.get(name)
        if state is None:
            state = self._named[name] = list(_most(_named(self.scores, name)))
        return state[0]


os.register_at_fork(after_in_child=_Magnitudes._forked)


def vouch_scores(clusters: tuple[Cluster, ...], token: object, log: ScoresLog = ()) -> None:
    """Vouch that `clusters`' score mappings are, in order, those of every tuple vouched with the
    same `token` (an object its maker keeps, and replaces at any change of what it vouches for): a
    batch of that very tuple then finds the magnitudes of its scores, its external preferences'
    check (Batch._check_external_affinity), without reading any of its clusters again when the
    last batch's were found for that token. A long-lived scheduler's pool (adapters.live.kept)
    gives its clusters in name order with some loads moved (copies sharing their mappings): two
    batches of a cluster event, and every request event's batch, hold the same mappings, and
    reading them off 10,000 clusters costs some 2 ms a batch.

    `log`: how the mappings moved to `token`'s, one change at a time, each with the token before
    it and the change of one entry, ("set" | "insert" | "delete", position, the new mapping): the
    magnitudes found for one of those tokens are moved through the changes after it (a cluster
    event's first batch, one cluster put or dropped, then reads no other cluster: some 2 ms)."""
    _Magnitudes.vouch(clusters, token, log)


def vouch_loads(clusters: tuple[Cluster, ...], base: tuple[Cluster, ...]) -> None:
    """Vouch that each of `clusters` is `base`'s cluster at its position, or a copy of it that
    differs in its load alone (every other field the very same object): two tuples vouched with
    the same `base` then differ, position by position, in their loads alone, and solver.table
    keeps every row but the load of the one for the other without comparing a field (a
    long-lived scheduler's join moves the loads of thousands of clusters between its two batches:
    each row compared field by field was most of the second batch's table). The last
    _LOADS_VOUCHED are kept, each holding its tuples (so an identity read off them is theirs)."""
    global _vouched_loads
    _vouched_loads = (*_vouched_loads[1 - _LOADS_VOUCHED :], (clusters, base))


def vouched_base(clusters: tuple[Cluster, ...]) -> tuple[Cluster, ...] | None:
    """The `base` this very tuple was last vouched with (`vouch_loads`), or None."""
    for vouched, base in reversed(_vouched_loads):
        if vouched is clusters:
            return base
    return None


def vouch_moved(base: tuple[Cluster, ...], before: tuple[Cluster, ...], at: int) -> None:
    """Vouch that `base`'s names are, in order, `before`'s with one name added at `at` (`base` one
    longer) or the one at `at` gone (one shorter): tables of tuples vouched with either base
    (`vouch_loads`) slide their rows by one at `at` without reading or comparing the names (a
    long-lived scheduler's cluster joining or leaving). The last _LOADS_VOUCHED are kept."""
    global _vouched_moves
    _vouched_moves = (*_vouched_moves[1 - _LOADS_VOUCHED :], (base, before, at))


def vouched_move(base: tuple[Cluster, ...]) -> tuple[tuple[Cluster, ...], int] | None:
    """The `before` and `at` this very base was last vouched with (`vouch_moved`), or None."""
    for vouched, before, at in reversed(_vouched_moves):
        if vouched is base:
            return before, at
    return None


_LOADS_VOUCHED = 4  # (clusters, base) pairs vouch_loads keeps, the latest last (vouch_moved's too)
_vouched_moves: tuple[tuple[tuple[Cluster, ...], tuple[Cluster, ...], int], ...] = ()
_vouched_loads: tuple[tuple[tuple[Cluster, ...], tuple[Cluster, ...]], ...] = ()


def _logged(last: _Magnitudes, clusters: Sequence[Cluster], log: ScoresLog) -> tuple[list, list, list] | None:
    """`last`'s mappings moved through the changes `log` holds after `last`'s token: the mappings
    then, those gone out and those come in (None: its token is not in the log, or the changes do
    not end at as many mappings as `clusters`, or are more than _MOVED_UP_TO)."""
    i = next((i for i, (before, _) in enumerate(log) if before is last.token), None)
    if i is None or len(log) - i > _MOVED_UP_TO:
        return None
    scores = list(last.scores)
    outs, ins = [], []
    for _, (kind, at, mapping) in log[i:]:
        if kind == "insert":
            scores.insert(at, mapping)
            ins.append(mapping)
        elif kind == "delete":
            outs.append(scores.pop(at))
        else:
            outs.append(scores[at])
            scores[at] = mapping
            ins.append(mapping)
    if len(scores) != len(clusters):
        return None
    return scores, outs, ins


_MOVED_UP_TO = 64  # clusters whose scores differ (out and in) a kept _Magnitudes is moved through


def _differing(old: list, new: list) -> tuple[list, list]:
    """The parts of `old` and `new` between their longest common head and tail (equal mappings:
    the same object, or equal values), found by slices compared in C."""
    shortest = min(len(old), len(new))
    head = 0
    while head < shortest and old[head : head + _STEP] == new[head : head + _STEP]:
        head += _STEP
    head = min(head, shortest)
    while head < shortest and old[head] == new[head]:
        head += 1
    tail, most = 0, shortest - head
    a, b = len(old), len(new)
    while tail + _STEP <= most and old[a - tail - _STEP : a - tail] == new[b - tail - _STEP : b - tail]:
        tail += _STEP
    while tail < most and old[a - tail - 1] == new[b - tail - 1]:
        tail += 1
    return old[head : a - tail], new[head : b - tail]


_STEP = 256  # mappings compared at once by _differing


def _magnitude(scores: Mapping[str, int]) -> int:
    return max(map(abs, scores.values()), default=0)


def _named(mappings: Iterable[Mapping[str, int]], name: str) -> Iterator[int]:
    return map(abs, map(operator.methodcaller("get", name, 0), mappings))


def _most(values: Iterable[int]) -> tuple[int, int]:
    """The highest of the values (0 where none) and how many are at it."""
    values = list(values)
    most = max(values, default=0)
    return most, values.count(most)


def _moved(
    kept: tuple[int, int], ins: Iterable[int], outs: Iterable[int], every: Callable[[], Iterable[int]]
) -> tuple[int, int]:
    """A highest value and its count (`kept`), with values come in (`ins`) and gone (`outs`, each
    one of those counted before); found again over `every` value left when none is at it."""
    most, count = kept
    for value in ins:
        if value > most:
            most, count = value, 1
        elif value == most:
            count += 1
    for value in outs:
        if value == most:
            count -= 1
    return _most(every()) if count <= 0 else (most, count)


class FilterKind(StrEnum):
    AFFINITY = "affinity"  # matches no required term
    INELIGIBLE = "ineligible"  # detail: the cluster's ineligible_reason
    TAINT = "taint"  # the untolerated taint is in Unselected.taint
    SPREAD = "spread"  # detail: the topology key; max_skew in `skew`
    SCOPE = "scope"  # outside every pool the request may draw from
    NOT_FOUND = "not-found"  # a named cluster that does not exist
    NOT_LISTED = "not-listed"  # a request for named clusters that does not name it
    NOT_PICKED = "not-picked"  # passed the filters, but others scored higher
    FULL = "full"  # no tenancy slot left for the request (detail: tenants/limit)
    EXCLUSIVE = "exclusive"  # the request takes a new cluster of its own
    MISSING = "missing"  # lacks the trait the request needs (detail: the trait)
    EVICTED = "evicted"  # the request is being moved off it


class Failure(StrEnum):
    """Why a request that divides replicas got no answer."""

    NO_FIT = "no-fit"  # no cluster passes the filters
    SHORT = "short"  # the candidates have room for fewer replicas than asked (detail: how many)
    SELECTION = "selection"  # the group constraints cannot be met (detail: which, and why)


@frozen
class Choice:
    """A selected cluster. `score` is None where the mode does not score (FIXED)."""

    cluster: str
    score: ClusterScore | None = None
    kept: bool = False  # an existing current decision, left as it was
    restored: bool = False  # an older decision given up earlier in this run and chosen again
    created: bool = False  # a cluster that does not exist yet: writing the result creates it
    replicas: int | None = None  # the replicas it runs, for a request that divides them


@frozen
class Unselected:
    cluster: str
    kind: FilterKind
    detail: str = ""
    score: ClusterScore | None = None
    taint: Taint | None = None
    skew: int = 0


@frozen
class RequestResult:
    request: str  # the request's key
    selected: tuple[Choice, ...]  # in decision order: kept first, then new picks best first
    released: tuple[str, ...] = ()  # existing decisions given up, by cluster name
    unselected: tuple[Unselected, ...] = ()  # at most Batch.explain_limit, in report order
    satisfied: bool = True
    scheduled: bool = True  # false when nothing needed scheduling (only a refresh or a scale-down)
    failure: Failure | None = None  # a request dividing replicas: why it got no answer
    failure_detail: str = ""
    tier: str = ""  # a request with failover tiers: the tier its answer (or last failure) used


@frozen
class LevelStats:
    """One lexicographic level of a solve, summed over its parts: what the level counts (`name`),
    its value, and the lower bound proven on it (every level is minimised); None where nothing is
    proven (greedy mode, a search cut short, a level after one not at its optimum where no bound
    holds for every answer).

    What a bound promises, whichever path proved it (solver.objective's levels, tenancy's,
    capacity's, Balance's): level 1's bound is at most the level in every answer; level k's is
    at most the level in every answer at least as good as this one on each of levels 1..k-1 (no
    greater on any). Where those levels are proven, that is every answer at their optimum: a
    lexicographic bound. A solve's levels are sums over independent parts (a request alone, a
    coupling's part, a system), each keeping the promise on its own levels; the sum holds for
    every answer at least as good on the levels before k part by part."""

    name: str
    objective: int
    bound: int | None = None
    gap: float | None = None  # (objective - bound) / max(1, |objective|)

    @classmethod
    def of(cls, name: str, objective: int, bound: int | None) -> LevelStats:
        gap = None if bound is None else (objective - bound) / max(1, abs(objective))
        return cls(name, objective, bound, gap)


def added_levels(a: Sequence[LevelStats], b: Sequence[LevelStats]) -> tuple[LevelStats, ...]:
    """Two solves' levels added up level by level: a level both have sums (its bound proven where
    both are), in `a`'s order, then `b`'s other levels in theirs."""
    theirs = {level.name: level for level in b}
    out = []
    for mine in a:
        other = theirs.pop(mine.name, None)
        if other is None:
            out.append(mine)
            continue
        proven = mine.bound is not None and other.bound is not None
        bound = mine.bound + other.bound if proven else None
        out.append(LevelStats.of(mine.name, mine.objective + other.objective, bound))
    return (*out, *theirs.values())


@frozen
class SolveStats:
    mode: str
    status: str  # OPTIMAL or FEASIBLE (optimal mode), GREEDY
    # The levels combined, summed over requests (kept for compatibility: `levels` is the figure to
    # read, since a combined integer's relative gap looks like zero whatever the search found).
    objective: int = 0
    bound: int | None = None  # proven upper bound on the objective; None when nothing is proven
    gap: float | None = None  # (bound - objective) / max(1, |objective|)
    wall_seconds: float = 0.0
    build_seconds: float = 0.0
    solve_seconds: float = 0.0
    time_limited: bool = False  # a wall-clock limit cut a search
    models: int = 0  # CP-SAT models solved (closed-form answers are not counted)
    levels: tuple[LevelStats, ...] = ()  # most important first


@frozen
class Result:
    requests: tuple[RequestResult, ...]
    stats: SolveStats
    # Upstream's (greedy mode's) answer to the same batch, in the same order, where an optimal
    # solve was asked to keep it beside its own (for people: what optimal changed); None where it
    # was not asked, or the batch was decided jointly (a coupling), which keeps no greedy answer
    # request by request.
    greedy: tuple[RequestResult, ...] | None = None
    # Where the batch asked (Batch.ordered), optimal mode: the keys of the coupled requests under
    # spread that hold exactly their answer and whose greedy run (upstream's sync) on the batch's
    # final decisions picks that answer too. A report only: no answer depends on it.
    ordered: frozenset[str] = field(default=frozenset(), compare=False)

    def by_request(self) -> dict[str, RequestResult]:
        return {r.request: r for r in self.requests}
