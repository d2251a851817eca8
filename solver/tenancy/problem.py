"""The tenancy problem: the batch's tenancy requests sorted into kept (granted) and pending ones, and
the pending ones into classes of interchangeable requests.

Every other module of the package reads this one and none writes it: the queue, the joint model,
the flows and the hand-out all speak of classes (same candidates, limit, packing, pool) and of
`Placement`s (where each pending request went), so the problem is built once per solve and each
stage stays a function of it. Counting a class's requests per cluster instead of deciding each
request is what keeps the joint model small (semantics/cp-sat-notes.md, 4.2: aggregate identical
placements into integer counts).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

from model import Batch, Packing, PlacementRequest
from solver.admits import admits


@dataclass(slots=True)
class RequestClass:
    """Interchangeable pending requests."""

    index: int
    requests: list[int]  # indices into the pending list, in queue order
    candidates: list[int]  # existing cluster indices (batch order = name order)
    limit: int
    packing: Packing
    pool: str | None
    exclusive: bool
    demand: int = 1
    aim: str = "none"  # what optimal mode minimises on level 3: "squares", "rank" or "none"
    joins: tuple[str, ...] = ()  # other pools whose new clusters it may join

    @property
    def pools(self) -> tuple[str, ...]:
        """Every pool whose new clusters the class may go to: its own first, then those it joins."""
        own = (self.pool,) if self.pool is not None and not self.exclusive else ()
        return own + tuple(p for p in self.joins if p not in own)


@dataclass(slots=True)
class Placement:
    """Where each pending request went: an existing cluster index, a created cluster name, or
    nothing."""

    existing: dict[int, int] = field(default_factory=dict)  # request -> cluster index
    created: dict[int, str] = field(default_factory=dict)  # request -> new cluster name
    opened: set[str] = field(default_factory=set)  # new clusters


class Problem:
    """The batch's tenancy requests, sorted into kept (granted) and pending ones and classes."""

    def __init__(self, batch: Batch, requests: Sequence[PlacementRequest]) -> None:
        self.batch = batch
        self.names = [c.name for c in batch.clusters]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.requests = list(requests)
        self._with_trait: dict[str, set[int]] | None = None
        self.base = batch.cluster_loads()
        self.kept: list[int] = []
        self.forced: dict[int, str] = {}  # request -> the hold it gives up (movable, no longer valid)
        pending: list[int] = []
        for i, r in enumerate(self.requests):
            if r.existing:
                held = r.existing[0].cluster
                row = self.index.get(held)
                valid = row is not None and r.existing[0].current
                if r.tenancy.movable and not (valid and admits(r, batch.clusters[row], batch.now, held=True)):
                    self.forced[i] = held
                    pending.append(i)
                    continue
                self.kept.append(i)
                if row is not None:
                    self.base[row] += r.tenancy.demand
            else:
                pending.append(i)
        pending.sort(key=lambda i: (self.requests[i].tenancy.order, self.requests[i].key))
        self.pending = pending  # request indices, queue order
        # No cluster, existing or new, can hold more than this: a limit above it binds nothing and
        # is taken as it, so the model's constants stay small (an int64 limit made CP-SAT's model
        # invalid, and optimal mode fell back to greedy's answer without a word).
        ceiling = max(1, max(self.base, default=0) + sum(self.requests[i].tenancy.demand for i in pending))
        self.classes: list[RequestClass] = []
        by_key: dict[tuple, RequestClass] = {}
        self.class_of: list[int] = []
        for position, i in enumerate(pending):
            r = self.requests[i]
            t = r.tenancy
            aim = "squares" if t.balance or t.packing is Packing.FEWEST else "none"
            if t.packing is Packing.FIRST and not t.balance:
                aim = "rank"
            joins = () if t.exclusive else tuple(sorted(set(t.joins)))
            limit = min(t.limit, ceiling)  # 0 (no limit) stays 0
            key = (r.required, r.scope, r.tolerations, limit, t.packing, t.pool, t.exclusive)
            key += (t.demand, aim, joins)
            cls = by_key.get(key)
            if cls is None:
                cls = by_key[key] = RequestClass(
                    len(self.classes),
                    [],
                    self._candidates(r),
                    limit,
                    t.packing,
                    t.pool,
                    t.exclusive,
                    t.demand,
                    aim,
                    joins,
                )
                self.classes.append(cls)
            cls.requests.append(position)
            self.class_of.append(cls.index)

    def _candidates(self, r: PlacementRequest) -> list[int]:
        if r.tenancy.exclusive:
            return []
        clusters = self.batch.clusters
        return [row for row in self._may_pass(r) if admits(r, clusters[row], self.batch.now)]

    def _may_pass(self, r: PlacementRequest) -> list[int]:
        """The rows that can pass: a term matches only clusters with every trait it names, so
        where every term names traits only those clusters are judged (a pool's, a location's)."""
        if not r.required or any(not t.traits for t in r.required):
            return list(range(len(self.batch.clusters)))
        if self._with_trait is None:
            self._with_trait = defaultdict(set)
            for row, c in enumerate(self.batch.clusters):
                for trait in c.traits:
                    self._with_trait[trait].add(row)
        rows: set[int] = set()
        for term in r.required:
            rows |= set.intersection(*(self._with_trait.get(t, set()) for t in term.traits))
        return sorted(rows)

    def request(self, position: int) -> PlacementRequest:
        return self.requests[self.pending[position]]


def fits(cls: RequestClass, count: int) -> bool:
    """Whether one more request of the class may join a cluster holding `count`."""
    return cls.limit == 0 or count + cls.demand <= cls.limit


def new_name(r: PlacementRequest) -> str:
    return r.tenancy.new_cluster


def rows_of(problem: Problem, part: Sequence[int]) -> list[int]:
    return sorted({row for k in part for row in problem.classes[k].candidates})


def pool_limit(problem: Problem, part: list[int], pool: str) -> int:
    return next(problem.classes[k].limit for k in part if problem.classes[k].pool == pool)


def pool_demand(problem: Problem, part: list[int], pool: str) -> int:
    return sum(
        len(problem.classes[k].requests)
        for k in part
        if problem.classes[k].pool == pool and not problem.classes[k].exclusive
    )


def allotment(problem: Problem, placement: Placement) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for position, row in placement.existing.items():
        counts[(problem.class_of[position], row)] += 1
    return counts
