"""Tenancy requests: one slot each, on an existing cluster with room or on a new cluster of a pool.

Greedy is the upstream queue: requests one at a time in their order, each taking the cluster its
packing rule picks among those with room (existing and opened this run), a new cluster of its pool
when none has room. Optimal decides all pending requests of a coupled part jointly, lexicographic:

1. unplaced: requests left without a cluster (only those that may create none can be);
2. created: new clusters;
3. aim: FEWEST (Balanced) the sum of squared tenant counts of existing clusters, which makes the
   busiest cluster as light as it can be and levels the rest; FIRST (Simple) the summed cluster
   rank (earlier clusters first); RANDOM nothing: its preference is the seeded draw itself.

All levels are minimised. Requests asking for the same thing (a class: same candidates, limit,
packing, pool) are interchangeable, so the model counts how many of a class go to each cluster
instead of deciding each request. CP-SAT decides levels 1 and 2 (it proves them in a fraction of a
second at 10,000 requests); level 3 is then a min-cost flow (convex unit arcs for the squares),
exact for a given split of the new clusters over pools, tried for every split when there are few
(proven optimal) and for CP-SAT's split otherwise (status FEASIBLE: the aim is unproven). CP-SAT
took seconds to tens of seconds on level 3 and proved nothing at 10,000 requests. The counts are
then handed out to the requests in queue order (the request-order tie-break), each request
keeping greedy's seeded pick where its class has allotment left there; the model is hinted with
greedy's counts, so among equal answers it stays near greedy's. Parts that couple no two classes
are answered by greedy, which is optimal on a single class: it fills every slot before creating
a cluster, fills a new cluster before opening the next, and for FEWEST levels the counts like
water.
"""

from __future__ import annotations

import heapq
import random
import time
from bisect import bisect_left, insort
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from model import (
    Batch,
    Choice,
    FilterKind,
    Packing,
    PlacementRequest,
    RequestResult,
    SolveStats,
    Unselected,
    first_untolerated,
)
from solver.search import cp_seed, stage_weights, stages

__all__ = ["solve_tenancy", "LEVELS"]

LEVELS = ("unplaced", "created", "aim")


@dataclass(slots=True)
class _Class:
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
class _Placement:
    """Where each pending request went: an existing cluster index, a created cluster name, or
    nothing."""

    existing: dict[int, int] = field(default_factory=dict)  # request -> cluster index
    created: dict[int, str] = field(default_factory=dict)  # request -> new cluster name
    opened: set[str] = field(default_factory=set)  # new clusters


class _Problem:
    """The batch's tenancy requests, sorted into kept (granted) and pending ones and classes."""

    def __init__(self, batch: Batch, requests: Sequence[PlacementRequest]) -> None:
        self.batch = batch
        self.names = [c.name for c in batch.clusters]
        self.index = {name: i for i, name in enumerate(self.names)}
        self.requests = list(requests)
        self._with_trait: dict[str, set[int]] | None = None
        self.base = [c.load for c in batch.clusters]
        self.kept: list[int] = []
        self.forced: dict[int, str] = {}  # request -> the hold it gives up (movable, no longer valid)
        pending: list[int] = []
        for i, r in enumerate(self.requests):
            if r.existing:
                held = r.existing[0].cluster
                row = self.index.get(held)
                valid = row is not None and r.existing[0].current
                if r.tenancy.movable and not (valid and self._passes(r, batch.clusters[row], held=True)):
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
        self.classes: list[_Class] = []
        by_key: dict[tuple, _Class] = {}
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
                cls = by_key[key] = _Class(
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
        return [row for row in self._may_pass(r) if self._passes(r, clusters[row], held=False)]

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

    def _passes(self, r: PlacementRequest, c, *, held: bool) -> bool:
        if not c.eligible or c.leaving:
            return False
        if r.scope is not None and c.traits.isdisjoint(r.scope):
            return False
        if r.required and not any(t.matches(c.labels, c.properties, c.claims, c.traits) for t in r.required):
            return False
        return not c.taints or first_untolerated(c.taints, r.tolerations, self.batch.now, held=held) is None

    def request(self, position: int) -> PlacementRequest:
        return self.requests[self.pending[position]]


class _Rooms:
    """The clusters with room for each class as the queue runs, existing and created alike, kept
    in name order; a cluster is full for a class at the class's limit (counts only grow)."""

    def __init__(self, problem: _Problem, seed: int) -> None:
        self.p = problem
        self.rng = random.Random(seed)
        self.count: dict[str, int] = {name: problem.base[i] for i, name in enumerate(problem.names)}
        self.room: list[list[str]] = []  # per class, names with room, sorted
        self.heaps: list[list[tuple[int, str]]] = []  # FEWEST classes: (count, name), lazy
        self.members: dict[str, list[int]] = defaultdict(list)  # cluster -> classes seeing it
        self.pool_classes: dict[str, list[int]] = defaultdict(list)
        for cls in problem.classes:
            names = [problem.names[row] for row in cls.candidates]
            names = [n for n in names if _fits(cls, self.count[n])]
            self.room.append(names)
            self.heaps.append([(self.count[n], n) for n in names] if cls.packing is Packing.FEWEST else [])
            heapq.heapify(self.heaps[-1])
            for n in names:
                self.members[n].append(cls.index)
            for pool in cls.pools:
                self.pool_classes[pool].append(cls.index)

    def pick(self, cls: _Class) -> str | None:
        """The cluster the class's packing rule takes now, among those with room."""
        names = self.room[cls.index]
        if not names:
            return None
        if cls.packing is Packing.FEWEST:
            heap = self.heaps[cls.index]
            while heap:
                count, name = heap[0]
                now = self.count[name]
                if not _fits(cls, now):
                    heapq.heappop(heap)  # full for this class, for good: counts only grow
                elif now == count:
                    return name
                else:
                    heapq.heapreplace(heap, (now, name))
            return None
        if cls.packing is Packing.RANDOM and len(names) > 1:
            return names[self.rng.randrange(len(names))]
        return names[0]

    def take(self, name: str, demand: int) -> None:
        self.count[name] += demand
        count = self.count[name]
        for k in self.members[name]:
            cls = self.p.classes[k]
            if not _fits(cls, count):
                names = self.room[k]
                at = bisect_left(names, name)
                if at < len(names) and names[at] == name:
                    del names[at]

    def open(self, name: str, cls: _Class) -> None:
        """A new cluster, holding one request: every class of the pool may join it."""
        self.count[name] = self.count.get(name, 0) + cls.demand
        if cls.exclusive or cls.pool is None:
            return
        for k in self.pool_classes[cls.pool]:
            other = self.p.classes[k]
            if not _fits(other, self.count[name]):
                continue
            insort(self.room[k], name)
            self.members[name].append(k)
            if other.packing is Packing.FEWEST:
                heapq.heappush(self.heaps[k], (self.count[name], name))


def _fits(cls: _Class, count: int) -> bool:
    """Whether one more request of the class may join a cluster holding `count`."""
    return cls.limit == 0 or count + cls.demand <= cls.limit


def _new_name(r: PlacementRequest) -> str:
    return r.tenancy.new_cluster


def _greedy(problem: _Problem, seed: int) -> _Placement:
    """Upstream's queue, one request at a time."""
    rooms = _Rooms(problem, seed)
    out = _Placement()
    for position in range(len(problem.pending)):
        cls = problem.classes[problem.class_of[position]]
        name = rooms.pick(cls)
        if name is not None:
            _record(problem, out, position, name)
            rooms.take(name, cls.demand)
        elif cls.pool is not None:
            name = _new_name(problem.request(position))
            out.created[position] = name
            out.opened.add(name)
            rooms.open(name, cls)
    return out


def _record(problem: _Problem, out: _Placement, position: int, name: str) -> None:
    row = problem.index.get(name)
    if row is not None and name not in out.opened:
        out.existing[position] = row
    else:
        out.created[position] = name


# ---------------------------------------------------------------------------------------------
# Measuring an answer


def _allotment(problem: _Problem, placement: _Placement) -> dict[tuple[int, int], int]:
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for position, row in placement.existing.items():
        counts[(problem.class_of[position], row)] += 1
    return counts


def _levels(problem: _Problem, part: Sequence[int], placement: _Placement) -> tuple[int, int, int]:
    """The part's levels (all minimised) for an answer."""
    positions = [p for k in part for p in problem.classes[k].requests]
    unplaced = sum(1 for p in positions if p not in placement.existing and p not in placement.created)
    created = len({placement.created[p] for p in positions if p in placement.created})
    mine: dict[tuple[int, int], int] = defaultdict(int)
    for p in positions:
        row = placement.existing.get(p)
        if row is not None:
            mine[(problem.class_of[p], row)] += 1
    aim = 0
    kind = problem.classes[part[0]].aim
    rows = _rows_of(problem, part)
    if kind == "squares":
        load = {row: problem.base[row] for row in rows}
        for (k, row), n in mine.items():
            load[row] += n * problem.classes[k].demand
        aim = sum(v * v for v in load.values())
    elif kind == "rank":
        rank = {row: i for i, row in enumerate(rows)}
        aim = sum(rank[row] * n for (_, row), n in mine.items())
    return unplaced, created, aim


def _rows_of(problem: _Problem, part: Sequence[int]) -> list[int]:
    return sorted({row for k in part for row in problem.classes[k].candidates})


def _parts(problem: _Problem) -> list[list[int]]:
    """Classes coupled through a shared existing cluster or a shared pool. Parts of one packing
    only: the packing is the scheduler's strategy, one per batch."""
    import networkx as nx  # on first use: its import costs a tenth of a second of every command

    graph = nx.Graph()
    graph.add_nodes_from(range(len(problem.classes)))
    for cls in problem.classes:
        graph.add_edges_from((cls.index, ("cluster", row)) for row in cls.candidates)
        graph.add_edges_from((cls.index, ("pool", pool)) for pool in cls.pools)
    parts = [sorted(n for n in nodes if isinstance(n, int)) for nodes in nx.connected_components(graph)]
    return sorted((p for p in parts if p), key=lambda p: p[0])


# ---------------------------------------------------------------------------------------------
# The joint model


@dataclass(slots=True)
class _Joint:
    allot: dict[tuple[int, int], int]  # (class, row) -> requests
    proven: bool
    models: int  # CP-SAT models solved (a flow alone is none)
    time_limited: bool
    seconds: float
    build_seconds: float
    # Where joins couple pools: how many of each class go to each pool's new clusters, and how
    # many clusters each pool opens (else the hand-out fills each class's own pool in turn).
    pools: dict[tuple[int, str], int] | None = None
    opened: dict[str, int] | None = None


def _joint(
    problem: _Problem,
    part: list[int],
    greedy: _Placement,
    *,
    seed: int,
    budget: float,
    deadline: float,
) -> _Joint | None:
    """Levels 1 and 2 by CP-SAT (how many requests each cluster and pool takes, in counts), then
    the aim by a min-cost flow with the new clusters per pool fixed at CP-SAT's answer."""
    from ortools.sat.python import cp_model

    started = time.perf_counter()
    classes = [problem.classes[k] for k in part]
    if all(c.limit == 0 and c.pool is None and not c.exclusive for c in classes) and classes[0].aim != "none":
        # Nothing to count (no limits, nothing to create: every request with a candidate is
        # placed): the aim's flow alone.
        arcs = _arcs(problem, classes)
        unplaced = sum(
            len(c.requests) for c in classes if not any((c.index, row) in arcs for row in c.candidates)
        )
        flowed, proven = _best_split(problem, part, arcs, {}, unplaced)
        seconds = time.perf_counter() - started
        return None if flowed is None else _Joint(flowed, proven, 0, False, seconds, 0.0)
    total_of = cp_model.LinearExpr.sum
    model = cp_model.CpModel()
    arcs = _arcs(problem, classes)
    y = {key: model.new_int_var(0, room, "") for key, room in arcs.items()}
    of_class: dict[int, list[cp_model.IntVar]] = defaultdict(list)
    on: dict[int, list[tuple[_Class, cp_model.IntVar]]] = defaultdict(list)
    for (k, row), var in y.items():
        of_class[k].append(var)
        on[row].append((problem.classes[k], var))

    # Capacity: the requests on a cluster must be admissible one at a time, each while fewer than
    # its limit are taken. Some order admits them exactly when the smallest limits first does
    # (earliest deadline first), so: for every limit L, the cluster's tenants plus the requests
    # of limit at most L stay within L. Greedy's queue always passes; unlimited requests go last.
    for row, members in on.items():
        for limit, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(cp_model.LinearExpr.weighted_sum(xs, demands) + problem.base[row] <= limit)

    # Every request is placed: on an existing cluster, else on a new one of its pool.
    # Those left over go to new clusters: of their own pool, or of a pool they may join.
    unplaced_terms, created_terms = [], []
    to_pool: dict[tuple[int, str], cp_model.IntVar] = {}
    opened: dict[str, cp_model.IntVar] = {}
    for cls in classes:
        n = len(cls.requests)
        rest = model.new_int_var(0, n, "")
        model.add(rest + total_of(of_class[cls.index]) == n)
        if cls.exclusive:
            created_terms.append(rest)
            continue
        spills = []
        for pool in cls.pools:
            to_pool[(cls.index, pool)] = model.new_int_var(0, n, "")
            spills.append(to_pool[(cls.index, pool)])
        if cls.pool is None:  # it may join others' new clusters, not open one
            left = model.new_int_var(0, n, "")
            model.add(left + total_of(spills) == rest)
            unplaced_terms.append(left)
        else:
            model.add(total_of(spills) == rest)
    for pool in sorted({pool for cls in classes for pool in cls.pools}):
        members = [(problem.classes[k], x) for (k, p), x in to_pool.items() if p == pool]
        own = [x for cls, x in members if cls.pool == pool]
        if not own:  # nobody here may open one: nothing to join
            model.add(total_of([x for _, x in members]) == 0)
            continue
        limit = _pool_limit(problem, part, pool)
        openers = _pool_demand(problem, part, pool)
        opened[pool] = model.new_bool_var("") if limit == 0 else model.new_int_var(0, openers, "")
        # Every new cluster is opened by a request of the pool (it is named after it), and takes
        # what the earliest-deadline order admits: per limit L, L per cluster.
        model.add(opened[pool] <= total_of(own))
        load = sum(cls.demand * len(cls.requests) for cls, _ in members)
        model.add(
            cp_model.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
            <= load * opened[pool]
        )
        for tier, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(cp_model.LinearExpr.weighted_sum(xs, demands) <= tier * opened[pool])
        created_terms.append(opened[pool])

    total_requests = sum(len(c.requests) for c in classes)
    spans = (total_requests, total_requests)
    levels = [total_of(unplaced_terms), total_of(created_terms)]

    greedy_allot = _allotment(problem, greedy)
    for key, var in y.items():
        model.add_hint(var, min(greedy_allot.get(key, 0), arcs[key]))

    every = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # deterministic
    solver.parameters.random_seed = cp_seed(seed)
    build_seconds = time.perf_counter() - started
    seconds = 0.0
    best: dict[tuple[int, int], int] | None = None
    values: list[int] = []
    for stage in stages(spans):
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        weights = stage_weights(spans, stage)
        objective = cp_model.LinearExpr.weighted_sum([levels[i] for i in stage], weights)
        model.minimize(objective)
        solver.parameters.max_time_in_seconds = remaining
        solver.parameters.max_deterministic_time = budget
        began = time.perf_counter()
        status = solver.solve(model)
        seconds += time.perf_counter() - began
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        values = [solver.value(var) for var in every]
        best = {key: solver.value(var) for key, var in y.items() if solver.value(var)}
        if status == cp_model.FEASIBLE:  # a limit cut the search: its answer, unproven
            limited = solver.wall_time >= remaining * 0.99
            return _Joint(best, False, 1, limited, seconds, build_seconds)
        model.add(objective == round(solver.objective_value))
        # The next stage starts from this answer in full: hinting the counts alone leaves CP-SAT
        # to complete the rest under the new equality, which it may not manage in its budget.
        model.clear_hints()
        for var, v in zip(every, values, strict=True):
            model.add_hint(var, v)
    assert best is not None
    kind = classes[0].aim
    if kind == "none":
        return _Joint(best, True, 1, False, seconds, build_seconds)
    if any(cls.demand != 1 for cls in classes):
        # Requests of several slots do not split: no flow; CP-SAT with the square's tangents.
        aim = _squares(model, on, problem, classes) if kind == "squares" else _ranks(y, problem, part)
        model.minimize(aim)
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return _Joint(best, False, 1, True, seconds, build_seconds)
        solver.parameters.max_time_in_seconds = remaining
        began = time.perf_counter()
        status = solver.solve(model)
        seconds += time.perf_counter() - began
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return _Joint(best, False, 1, solver.wall_time >= remaining * 0.99, seconds, build_seconds)
        answer = {key: solver.value(var) for key, var in y.items() if solver.value(var)}
        limited = status != cp_model.OPTIMAL and solver.wall_time >= remaining * 0.99
        return _Joint(answer, status == cp_model.OPTIMAL, 1, limited, seconds, build_seconds)
    began = time.perf_counter()
    unplaced = sum(solver.value(t) for t in unplaced_terms)
    split = {pool: solver.value(var) for pool, var in opened.items()}
    pools = {key: solver.value(x) for key, x in to_pool.items() if solver.value(x)}
    if any(cls.joins for cls in classes):
        # Who goes to which pool stays CP-SAT's; the flow levels the rest on existing clusters
        # (exact for those spills, so unproven).
        away = {
            cls.index: len(cls.requests) - sum(best.get((cls.index, row), 0) for row in cls.candidates)
            for cls in classes
        }
        flowed = _aim_flow(problem, part, arcs, {}, 0, away=away)
        seconds += time.perf_counter() - began
        answer = flowed[0] if flowed else best
        return _Joint(answer, False, 1, False, seconds, build_seconds, pools, split)
    flowed, proven = _best_split(problem, part, arcs, split, unplaced)
    seconds += time.perf_counter() - began
    return _Joint(flowed or best, proven and flowed is not None, 1, False, seconds, build_seconds)


# Tangents per square at most: past this many a cluster's square is CP-SAT's own product, with
# this many tangents spread over its range for the LP (one per integer would cost the model's
# build a constraint per unit of load: minutes for loads in the millions, past any time limit).
_TANGENTS = 256


def _squares(model, on, problem: _Problem, classes: list[_Class]):
    """The sum over clusters of (load^2 - tenants^2), each square as its tangents at the integers
    (exact where the load is an integer, a convex envelope for the LP); over a range wider than
    _TANGENTS, the exact product and _TANGENTS of those tangents."""
    from ortools.sat.python import cp_model

    ceiling = _balanced_ceilings(problem, classes)
    terms = []
    for row, members in on.items():
        base = problem.base[row]
        extra = cp_model.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
        most = min(
            sum(cls.demand * len(cls.requests) for cls, _ in members),
            max(0, max(cls.limit or ceiling[cls.index] for cls, _ in members) - base),
        )
        square = model.new_int_var(0, (base + most) ** 2 - base * base, "")
        if most <= _TANGENTS:
            points = range(base, base + most)
        else:
            load = model.new_int_var(base, base + most, "")
            model.add(load == base + extra)
            product = model.new_int_var(base * base, (base + most) ** 2, "")
            model.add_multiplication_equality(product, [load, load])
            model.add(square == product - base * base)
            points = sorted({base + most * i // _TANGENTS for i in range(_TANGENTS)})
        for a in points:
            model.add(square >= (2 * a + 1) * (base + extra) - a * (a + 1) - base * base)
        terms.append(square)
    return cp_model.LinearExpr.sum(terms)


def _ranks(y, problem: _Problem, part: list[int]):
    from ortools.sat.python import cp_model

    rank = {row: i for i, row in enumerate(_rows_of(problem, part))}
    keys = sorted(y)
    return cp_model.LinearExpr.weighted_sum([y[k] for k in keys], [rank[k[1]] for k in keys])


_SPLITS = 64  # the most ways to split the new clusters over pools that are all tried


def _best_split(
    problem: _Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    split: dict[str, int],
    unplaced: int,
) -> tuple[dict[tuple[int, int], int] | None, bool]:
    """The aim's optimum over the ways to split the optimal number of new clusters over the
    pools, when there are few (proven: each way is one exact flow); else for CP-SAT's split."""
    pools = sorted(split)
    tops = [
        1
        if _pool_limit(problem, part, p) == 0
        else -(-_pool_demand(problem, part, p) // _pool_limit(problem, part, p))
        for p in pools
    ]
    ways = list(_compositions(sum(split.values()), tops, _SPLITS + 1))
    if len(ways) > _SPLITS:
        flowed = _aim_flow(problem, part, arcs, split, unplaced)
        return (flowed[0] if flowed else None), False
    best: tuple[int, dict[tuple[int, int], int]] | None = None
    mine = tuple(split[p] for p in pools)
    for way in sorted(ways, key=lambda w: w != mine):  # CP-SAT's split first: it wins ties
        flowed = _aim_flow(problem, part, arcs, dict(zip(pools, way, strict=True)), unplaced)
        if flowed is not None and (best is None or flowed[1] < best[0]):
            best = (flowed[1], flowed[0])
    return (best[1] if best else None), best is not None


def _compositions(total: int, tops: list[int], most: int):
    """Ways to write total as a sum of len(tops) parts, part i in [0, tops[i]]; stops after most."""
    found = 0

    def walk(i: int, left: int, prefix: tuple[int, ...]):
        nonlocal found
        if found >= most:
            return
        if i == len(tops):
            if left == 0:
                found += 1
                yield prefix
            return
        for v in range(min(left, tops[i]) + 1):
            yield from walk(i + 1, left - v, (*prefix, v))

    yield from walk(0, total, ())


def _arcs(problem: _Problem, classes: list[_Class]) -> dict[tuple[int, int], int]:
    """(class, cluster) -> the most requests of the class the cluster can take."""
    ceiling = _balanced_ceilings(problem, classes) if classes[0].aim == "squares" else {}
    out = {}
    for cls in classes:
        n = len(cls.requests)
        for row in cls.candidates:
            limit = cls.limit or ceiling.get(cls.index, 0)
            room = n if limit == 0 else min(n, (limit - problem.base[row]) // cls.demand)
            if room > 0:
                out[(cls.index, row)] = room
    return out


def _tiers(members):
    """For each distinct limit L on a cluster, the members of limit at most L, as (x, demand)."""
    by_limit = sorted(((cls.limit, x, cls.demand) for cls, x in members if cls.limit), key=lambda m: m[0])
    within: list = []
    for at, (limit, x, demand) in enumerate(by_limit):
        within.append((x, demand))
        if at + 1 == len(by_limit) or by_limit[at + 1][0] != limit:
            yield limit, list(within)


def _pool_limit(problem: _Problem, part: list[int], pool: str) -> int:
    return next(problem.classes[k].limit for k in part if problem.classes[k].pool == pool)


def _pool_demand(problem: _Problem, part: list[int], pool: str) -> int:
    return sum(
        len(problem.classes[k].requests)
        for k in part
        if problem.classes[k].pool == pool and not problem.classes[k].exclusive
    )


def _aim_flow(
    problem: _Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    pools: dict[str, int],
    unplaced: int,
    *,
    away: dict[int, int] | None = None,
) -> tuple[dict[tuple[int, int], int], int] | None:
    """The aim's optimum for fixed new clusters per pool, as a min-cost flow: each request flows
    from its class to a cluster, a pool's new clusters, or (if it may create none) nowhere. A
    cluster is a chain of its limit tiers (the arc out of tier L carries every request of limit
    at most L, so its capacity is L minus the tenants) ending in unit arcs priced by the square's
    increments (Balanced: convex, so taken cheapest first) or one free arc (Simple: the price is
    the cluster's rank, on the way in)."""
    from ortools.graph.python import min_cost_flow

    classes = [problem.classes[k] for k in part]
    kind = classes[0].aim
    rows = _rows_of(problem, part)
    rank = {row: i for i, row in enumerate(rows)}
    node = iter(range(1 << 62))
    source, sink, nowhere = next(node), next(node), next(node)
    class_node = {cls.index: next(node) for cls in classes}
    pool_node = {pool: next(node) for pool in pools}
    tails: list[int] = []
    heads: list[int] = []
    caps: list[int] = []
    costs: list[int] = []

    def arc(tail: int, head: int, cap: int, cost: int = 0) -> int:
        tails.append(tail)
        heads.append(head)
        caps.append(cap)
        costs.append(cost)
        return len(tails) - 1

    total = 0
    for cls in classes:
        n = len(cls.requests)
        if away is not None:  # what does not stay on existing clusters is fixed already: exactly
            n -= away[cls.index]  # that many leave, the rest all flow to existing clusters
        total += n
        arc(source, class_node[cls.index], n)
        if away is None:
            if cls.exclusive:
                arc(class_node[cls.index], sink, n)
            elif cls.pool is None:
                arc(class_node[cls.index], nowhere, n)
            else:
                arc(class_node[cls.index], pool_node[cls.pool], n)
    arc(nowhere, sink, unplaced)
    for pool, count in pools.items():
        limit = _pool_limit(problem, part, pool)
        arc(pool_node[pool], sink, (_pool_demand(problem, part, pool) if limit == 0 else limit) * count)

    on: dict[int, list[tuple[_Class, int]]] = defaultdict(list)
    for (k, row), room in arcs.items():
        on[row].append((problem.classes[k], room))
    placed: dict[tuple[int, int], int] = {}
    for row in rows:
        members = on.get(row)
        if not members:
            continue
        base = problem.base[row]
        top = next(node)
        tier_node: dict[int, int] = {}
        limits = sorted({cls.limit for cls, _ in members if cls.limit})
        for limit in limits:
            tier_node[limit] = next(node)
        for here, after in zip(limits, [*limits[1:], None], strict=False):
            arc(tier_node[here], tier_node[after] if after is not None else top, max(0, here - base))
        for cls, room in members:
            entry = tier_node[cls.limit] if cls.limit else top
            price = rank[row] if kind == "rank" else 0
            placed[(cls.index, row)] = arc(class_node[cls.index], entry, room, price)
        most = sum(room for _, room in members)
        if kind == "squares":
            for step in range(most):
                arc(top, sink, 1, 2 * (base + step) + 1)
        else:
            arc(top, sink, most)

    flow = min_cost_flow.SimpleMinCostFlow()
    flow.add_arcs_with_capacity_and_unit_cost(
        np.asarray(tails, dtype=np.int32),
        np.asarray(heads, dtype=np.int32),
        np.asarray(caps, dtype=np.int64),
        np.asarray(costs, dtype=np.int64),
    )
    supplies = np.zeros(max(max(tails), max(heads)) + 1, dtype=np.int64)
    supplies[source], supplies[sink] = total, -total
    flow.set_nodes_supplies(np.arange(len(supplies), dtype=np.int32), supplies)
    if flow.solve() != flow.OPTIMAL:
        return None
    return {key: int(flow.flow(a)) for key, a in placed.items() if flow.flow(a)}, flow.optimal_cost()


def _balanced_ceilings(problem: _Problem, classes: list[_Class]) -> dict[int, int]:
    """For each unlimited class, a tenant count no cluster holding one of its requests exceeds in
    any Balanced optimum: its requests may move to any of its candidates (no limit binds them,
    and the limited classes' admission counts only limited requests), so one sitting on a cluster
    more than one above the class's emptiest candidate would lower the sum of squares by moving.
    The emptiest candidate holds at most the average of the candidates' tenants, with every
    request of the part counted."""
    load = sum(len(cls.requests) * cls.demand for cls in classes)
    out = {}
    for cls in classes:
        if cls.limit == 0 and cls.candidates:
            tenants = sum(problem.base[row] for row in cls.candidates) + load
            out[cls.index] = tenants // len(cls.candidates) + cls.demand
    return out


def _hand_out(
    problem: _Problem,
    part: list[int],
    allot: dict[tuple[int, int], int],
    greedy: _Placement,
    seed: int,
) -> _Placement:
    """The counts, handed to the part's requests in queue order: each takes greedy's cluster when
    its class has allotment left there, else the one its packing rule picks among those with
    allotment left; the rest fill new clusters of their pool in turn."""
    out = _Placement()
    count = {name: problem.base[i] for i, name in enumerate(problem.names)}
    left: dict[int, _Allotted] = {}
    for (k, row), n in sorted(allot.items()):
        if n > 0 and k in part:
            left.setdefault(k, _Allotted(problem.classes[k].packing, count)).add(problem.names[row], n)
    rng = random.Random(seed)
    filling: dict[str, tuple[str, int]] = {}  # pool -> the open new cluster and its count
    positions = sorted(p for k in part for p in problem.classes[k].requests)
    spilled = []
    for position in positions:
        k = problem.class_of[position]
        cls = problem.classes[k]
        allotted = left.get(k)
        name = None
        if allotted is not None:
            wanted = greedy.existing.get(position)
            name = allotted.take(problem.names[wanted] if wanted is not None else None, rng)
        if name is not None:
            out.existing[position] = problem.index[name]
            count[name] += cls.demand
        elif cls.pool is not None:
            spilled.append(position)
    for position in spilled:
        cls = problem.classes[problem.class_of[position]]
        assert cls.pool is not None
        current = filling.get(cls.pool)
        if not cls.exclusive and current is not None and _fits(cls, current[1]):
            out.created[position] = current[0]
            filling[cls.pool] = (current[0], current[1] + cls.demand)
            continue
        new = _new_name(problem.request(position))
        out.created[position] = new
        out.opened.add(new)
        if not cls.exclusive:
            filling[cls.pool] = (new, cls.demand)
    return out


def _hand_out_pools(
    problem: _Problem, part: list[int], joint: _Joint, greedy: _Placement, seed: int
) -> _Placement | None:
    """As _hand_out, where requests may join other pools' new clusters: the existing clusters'
    counts as there; then per pool, CP-SAT's number of clusters, each opened by a request of the
    pool, and the other requests, smallest limits first, each
    on the emptiest of them that admits it. None if some request fits nowhere (greedy stands)."""
    assert joint.pools is not None and joint.opened is not None
    base = _hand_out(problem, part, joint.allot, greedy, seed)
    spilled = sorted(p for k in part for p in problem.classes[k].requests if p not in base.existing)
    out = _Placement(existing=dict(base.existing))
    by_class: dict[int, list[int]] = defaultdict(list)
    for position in spilled:
        by_class[problem.class_of[position]].append(position)
    going: dict[str, list[int]] = defaultdict(list)
    for k, positions in by_class.items():
        cls = problem.classes[k]
        if cls.exclusive:
            for position in positions:
                new = _new_name(problem.request(position))
                out.created[position] = new
                out.opened.add(new)
            continue
        queue = list(positions)
        for pool in cls.pools:
            count = joint.pools.get((k, pool), 0)
            going[pool] += queue[:count]
            queue = queue[count:]
    for pool in sorted(going):
        members = going[pool]
        own = sorted(p for p in members if problem.classes[problem.class_of[p]].pool == pool)
        openers = own[: joint.opened.get(pool, 0)]
        if not openers and members:
            return None
        clusters: list[tuple[str, list[int]]] = []  # name, the limits of its requests
        for position in openers:
            new = _new_name(problem.request(position))
            out.created[position] = new
            out.opened.add(new)
            clusters.append((new, [problem.classes[problem.class_of[position]].limit]))
        rest = sorted(
            (p for p in members if p not in set(openers)),
            key=lambda p: (problem.classes[problem.class_of[p]].limit or 1 << 62, p),
        )
        for position in rest:
            cls = problem.classes[problem.class_of[position]]
            fitting = [
                (len(limits), i) for i, (_, limits) in enumerate(clusters) if _admits(limits, cls.limit)
            ]
            if not fitting:
                return None
            _, i = min(fitting)
            clusters[i][1].append(cls.limit)
            out.created[position] = clusters[i][0]
    return out


def _admits(limits: list[int], limit: int) -> bool:
    """Whether a cluster holding requests of these limits admits one more of `limit`, in the
    earliest-deadline order (smallest limits first, unlimited last; one slot each)."""
    ordered = sorted([*limits, limit], key=lambda v: v or 1 << 62)
    return all(v == 0 or at + 1 <= v for at, v in enumerate(ordered))


class _Allotted:
    """One class's allotment left per cluster, picked by its packing rule on live counts."""

    def __init__(self, packing: Packing, count: dict[str, int]) -> None:
        self.packing = packing
        self.count = count
        self.left: dict[str, int] = {}
        self.names: list[str] = []  # with allotment left, sorted
        self.heap: list[tuple[int, str]] = []

    def add(self, name: str, n: int) -> None:
        self.left[name] = n
        insort(self.names, name)
        heapq.heappush(self.heap, (self.count[name], name))

    def take(self, wanted: str | None, rng: random.Random) -> str | None:
        if wanted is None or self.left.get(wanted, 0) <= 0:
            wanted = self._pick(rng)
        if wanted is None:
            return None
        self.left[wanted] -= 1
        if self.left[wanted] == 0:
            del self.names[bisect_left(self.names, wanted)]
        return wanted

    def _pick(self, rng: random.Random) -> str | None:
        if not self.names:
            return None
        if self.packing is Packing.FEWEST:
            while self.heap:
                count, name = self.heap[0]
                if self.left.get(name, 0) <= 0:
                    heapq.heappop(self.heap)
                elif self.count[name] != count:
                    heapq.heapreplace(self.heap, (self.count[name], name))
                else:
                    return name
            return None
        if self.packing is Packing.RANDOM and len(self.names) > 1:
            return self.names[rng.randrange(len(self.names))]
        return self.names[0]


# ---------------------------------------------------------------------------------------------
# Entry point


def solve_tenancy(
    batch: Batch,
    requests: Sequence[PlacementRequest],
    *,
    mode: str,
    seed: int,
    budget: float,
    deadline: float,
) -> tuple[list[RequestResult], SolveStats]:
    """Results for the tenancy requests (in the given order) and the statistics of their solve."""
    started = time.perf_counter()
    problem = _Problem(batch, requests)
    greedy = _greedy(problem, seed)
    build_seconds = time.perf_counter() - started
    solve_seconds = 0.0
    final = _Placement(dict(greedy.existing), dict(greedy.created), set(greedy.opened))
    objective: list[int] = [0] * len(LEVELS)
    models = 0
    proven = True
    time_limited = False
    for part in _parts(problem):
        greedy_levels = _levels(problem, part, greedy)
        chosen_levels = greedy_levels
        if mode == "optimal" and _free_weighted(problem, part):
            answer = _free_balance(problem, part, greedy)
            proven = False  # a local optimum: no bound is proven
            levels = _levels(problem, part, answer)
            if levels < greedy_levels:
                chosen_levels = levels
                _replace(problem, part, final, answer)
        elif mode == "optimal" and not _greedy_is_optimal(problem, part):
            joint = _joint(problem, part, greedy, seed=seed, budget=budget, deadline=deadline)
            models += 1 if joint is None else joint.models
            if joint is None:
                proven = False
            else:
                build_seconds += joint.build_seconds
                solve_seconds += joint.seconds
                time_limited |= joint.time_limited
                proven &= joint.proven
                if joint.pools is not None:
                    answer = _hand_out_pools(problem, part, joint, greedy, seed)
                else:
                    answer = _hand_out(problem, part, joint.allot, greedy, seed)
                if answer is None:  # the counts could not be handed out: greedy stands, unproven
                    proven = False
                else:
                    levels = _levels(problem, part, answer)
                    if levels < greedy_levels:  # never worse than greedy: else greedy stands
                        chosen_levels = levels
                        _replace(problem, part, final, answer)
        objective = [a + b for a, b in zip(objective, chosen_levels, strict=True)]
    results = _results(problem, final)
    value = _combined(objective, problem)
    stats = SolveStats(
        mode=mode,
        status="GREEDY" if mode == "greedy" else ("OPTIMAL" if proven else "FEASIBLE"),
        objective=value,
        bound=(value if proven else None) if mode == "optimal" else None,
        gap=(0.0 if proven else None) if mode == "optimal" else None,
        wall_seconds=time.perf_counter() - started,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        time_limited=time_limited,
        models=models,
    )
    return results, stats


def _free_weighted(problem: _Problem, part: list[int]) -> bool:
    """Units of several slots levelled with nothing else to decide (no limits, no pools): every
    unit that has a candidate is placed and nothing is created, so only the aim is left, and it
    does not split into a flow."""
    classes = [problem.classes[k] for k in part]
    return any(c.demand != 1 for c in classes) and all(
        c.limit == 0 and c.pool is None and not c.exclusive and c.aim == "squares" for c in classes
    )


_SWEEPS = 50  # local search passes at most (each strictly lowers the sum of squares)
_SWAPS = 400  # pairwise exchanges are tried for parts of at most this many units


def _free_balance(problem: _Problem, part: list[int], greedy: _Placement) -> _Placement:
    """A local optimum of the sum of squared loads: from the better of greedy's answer and the
    largest-first placement (each unit, heaviest first, on its emptiest candidate), units move to
    a candidate where the sum falls and pairs of units swap clusters where it falls, until
    neither helps. Moving d from load a to load b changes the sum by 2d(b - a + d); swapping d1
    (at a) with d2 (at b) by 2t(a - b + t), t = d2 - d1."""
    units = sorted(p for k in part for p in problem.classes[k].requests)
    demand = {p: problem.classes[problem.class_of[p]].demand for p in units}
    cands = {p: problem.classes[problem.class_of[p]].candidates for p in units}
    units = [p for p in units if cands[p]]

    def squares(where: dict[int, int]) -> int:
        load = dict.fromkeys(_rows_of(problem, part), 0)
        for row in load:
            load[row] = problem.base[row]
        for p, row in where.items():
            load[row] += demand[p]
        return sum(v * v for v in load.values())

    load = list(problem.base)
    largest_first: dict[int, int] = {}
    for p in sorted(units, key=lambda p: (-demand[p], p)):
        row = min(cands[p], key=lambda r: (load[r], r))
        largest_first[p] = row
        load[row] += demand[p]
    start = {p: row for p, row in greedy.existing.items() if p in demand}
    where = largest_first if squares(largest_first) < squares(start) else start
    load = list(problem.base)
    for p, row in where.items():
        load[row] += demand[p]

    for _ in range(_SWEEPS):
        improved = False
        for p in units:
            here, d = where[p], demand[p]
            best, gain = here, 0
            for row in cands[p]:
                delta = 2 * d * (load[row] - load[here] + d)
                if delta < gain:
                    best, gain = row, delta
            if best != here:
                where[p] = best
                load[here] -= d
                load[best] += d
                improved = True
        if len(units) <= _SWAPS:
            allowed = {p: set(cands[p]) for p in units}
            for i, p in enumerate(units):
                for q in units[i + 1 :]:
                    a, b = where[p], where[q]
                    t = demand[q] - demand[p]
                    if a == b or t == 0 or b not in allowed[p] or a not in allowed[q]:
                        continue
                    if 2 * t * (load[a] - load[b] + t) < 0:
                        where[p], where[q] = b, a
                        load[a] += t
                        load[b] -= t
                        improved = True
        if not improved:
            break
    return _Placement(existing=dict(where))


def _greedy_is_optimal(problem: _Problem, part: list[int]) -> bool:
    """On one class of one-slot requests, greedy's queue is the optimum when its packing rule is
    the aim: it fills every slot before creating, a new cluster before the next, and Balanced's
    fewest-first is water filling."""
    if len(part) > 1:
        return False
    cls = problem.classes[part[0]]
    rule = {Packing.FEWEST: "squares", Packing.FIRST: "rank", Packing.RANDOM: "none"}[cls.packing]
    return cls.demand == 1 and cls.aim == rule


def _combined(levels: list[int], problem: _Problem) -> int:
    """The levels as one number to maximise (the summary's objective): minus the levels weighed
    exactly, each level's weight above the widest the levels below it can be for this batch."""
    n = len(problem.pending)
    most = max(problem.base, default=0) + n
    aim_span = len(problem.names) * max(most * most, most * len(problem.names))
    unplaced, created, aim = levels
    return -(((unplaced * (n + 1)) + created) * (aim_span + 1) + aim)


def _replace(problem: _Problem, part: list[int], final: _Placement, answer: _Placement) -> None:
    for k in part:
        for position in problem.classes[k].requests:
            final.existing.pop(position, None)
            final.created.pop(position, None)
    final.existing.update(answer.existing)
    final.created.update(answer.created)


def _results(problem: _Problem, placement: _Placement) -> list[RequestResult]:
    out: list[RequestResult | None] = [None] * len(problem.requests)
    count = list(problem.base)
    for position, row in placement.existing.items():
        count[row] += problem.request(position).tenancy.demand
    for i in problem.kept:
        r = problem.requests[i]
        name = r.existing[0].cluster
        out[i] = RequestResult(
            r.key, (Choice(name, kept=True, created=name not in problem.index),), scheduled=False
        )
    for position, i in enumerate(problem.pending):
        r = problem.requests[i]
        released = (problem.forced[i],) if i in problem.forced else ()
        if position in placement.existing:
            choice = Choice(problem.names[placement.existing[position]])
        elif position in placement.created:
            choice = Choice(placement.created[position], created=True)
        else:
            out[i] = RequestResult(
                r.key, (), released, unselected=_full(problem, position, count), satisfied=False
            )
            continue
        out[i] = RequestResult(r.key, (choice,), released)
    return [r for r in out if r is not None]


def _full(problem: _Problem, position: int, count: list[int]) -> tuple[Unselected, ...]:
    """Why an unplaced request found no cluster: its candidates, each full."""
    cls = problem.classes[problem.class_of[position]]
    limit = problem.batch.explain_limit
    if cls.exclusive:
        return ()
    return tuple(
        Unselected(problem.names[row], FilterKind.FULL, detail=f"{count[row]}/{cls.limit}")
        for row in cls.candidates[:limit]
    )
