"""The aim (level 3) as min-cost flows: levelled loads (a sum of squares: convex unit arcs priced by
the square's increments) or the earliest clusters (the rank, priced on the way in), for a given
number of new clusters per pool.

Separate from the joint model because it is exact where CP-SAT is not fast: CP-SAT took seconds
to tens of seconds on level 3 and proved nothing at 10,000 requests, while one flow per way of
splitting the new clusters over pools is exact, and when there are few ways they are all tried
(proven optimal).
"""

from __future__ import annotations

from collections import defaultdict

import numpy as np

from solver.tenancy.problem import Problem, RequestClass, pool_demand, pool_limit, rows_of


def arcs_of(problem: Problem, classes: list[RequestClass]) -> dict[tuple[int, int], int]:
    """(class, cluster) -> the most requests of the class the cluster can take."""
    ceiling = balanced_ceilings(problem, classes) if classes[0].aim == "squares" else {}
    out = {}
    for cls in classes:
        n = len(cls.requests)
        for row in cls.candidates:
            limit = cls.limit or ceiling.get(cls.index, 0)
            room = n if limit == 0 else min(n, (limit - problem.base[row]) // cls.demand)
            if room > 0:
                out[(cls.index, row)] = room
    return out


def balanced_ceilings(problem: Problem, classes: list[RequestClass]) -> dict[int, int]:
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


_SPLITS = 64  # the most ways to split the new clusters over pools that are all tried


def best_split(
    problem: Problem,
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
        if pool_limit(problem, part, p) == 0
        else -(-pool_demand(problem, part, p) // pool_limit(problem, part, p))
        for p in pools
    ]
    ways = list(_compositions(sum(split.values()), tops, _SPLITS + 1))
    if len(ways) > _SPLITS:
        flowed = aim_flow(problem, part, arcs, split, unplaced)
        return (flowed[0] if flowed else None), False
    best: tuple[int, dict[tuple[int, int], int]] | None = None
    mine = tuple(split[p] for p in pools)
    for way in sorted(ways, key=lambda w: w != mine):  # CP-SAT's split first: it wins ties
        flowed = aim_flow(problem, part, arcs, dict(zip(pools, way, strict=True)), unplaced)
        if flowed is not None and (best is None or flowed[1] < best[0]):
            best = (flowed[1], flowed[0])
    return (best[1] if best else None), best is not None


_JOINED_SPLITS = 256  # the most ways tried where requests join other pools' new clusters


def best_joined(
    problem: Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    split: dict[str, int],
    unplaced: int,
) -> tuple[dict[str, int], tuple[dict[tuple[int, int], int], dict[tuple[int, str], int]] | None, int | None]:
    """Where requests may join other pools' new clusters: the joins flow (joined_flow) at every
    way to split the optimal number of new clusters over the pools when there are few, else at
    CP-SAT's split alone. A pool opens at most one cluster per request of its own (each is opened
    by one and named after it), one if it has no limit (a singleton): more clusters than its own
    requests need can take others' joining requests, so every count up to that is a way. Returns
    the best way, its flow, and the least squares over every way where all were tried (each
    way's flow is a relaxation of the answers with that split, so the least is a lower bound on
    the aim at the optima of levels 1 and 2), else None."""
    pools = sorted(split)
    tops = [1 if pool_limit(problem, part, p) == 0 else pool_demand(problem, part, p) for p in pools]
    mine = tuple(split[p] for p in pools)
    ways = list(_compositions(sum(split.values()), tops, _JOINED_SPLITS + 1))
    every = len(ways) <= _JOINED_SPLITS
    best: tuple[int, dict[str, int], tuple] | None = None
    for way in sorted(ways, key=lambda w: w != mine) if every else [mine]:  # CP-SAT's first: it wins ties
        opened = dict(zip(pools, way, strict=True))
        flowed = joined_flow(problem, part, arcs, opened, unplaced)
        if flowed is None:
            continue
        value = _squares(problem, part, flowed[0])
        if best is None or value < best[0]:
            best = (value, opened, flowed)
    if best is None:
        return split, None, None
    return best[1], best[2], (best[0] if every else None)


def _squares(problem: Problem, part: list[int], placed: dict[tuple[int, int], int]) -> int:
    """The part's squared tenant counts with `placed` ((class, row) -> requests) on its clusters."""
    load = {row: problem.base[row] for row in rows_of(problem, part)}
    for (k, row), n in placed.items():
        load[row] += n * problem.classes[k].demand
    return sum(v * v for v in load.values())


def _compositions(total: int, tops: list[int], most: int):
    """Ways to write total as a sum of len(tops) parts, part i in [0, tops[i]]; stops after most.
    No prefix is walked whose remaining parts cannot make up what is left (it would yield no
    way): each prefix walked leads to a way, so about `most` prefixes are walked per part, not
    every prefix below the tops (half a million on a 10,000 x 50,000 openMCP hub)."""
    found = 0
    room = [sum(tops[i:]) for i in range(len(tops) + 1)]  # the most parts i.. can make up

    def walk(i: int, left: int, prefix: tuple[int, ...]):
        nonlocal found
        if i == len(tops):
            found += 1
            yield prefix
            return
        for v in range(max(0, left - room[i + 1]), min(left, tops[i]) + 1):
            if found >= most:
                return
            yield from walk(i + 1, left - v, (*prefix, v))

    if total <= room[0] and most > 0:
        yield from walk(0, total, ())


def aim_flow(
    problem: Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    pools: dict[str, int],
    unplaced: int,
) -> tuple[dict[tuple[int, int], int], int] | None:
    """The aim's optimum for fixed new clusters per pool, as a min-cost flow: each request flows
    from its class to a cluster, a pool's new clusters, or (if it may create none) nowhere. A
    cluster is a chain of its limit tiers ending in the aim's arcs (existing_clusters)."""
    classes = [problem.classes[k] for k in part]
    graph = Graph()
    source, sink, nowhere = graph.node(), graph.node(), graph.node()
    class_node = {cls.index: graph.node() for cls in classes}
    pool_node = {pool: graph.node() for pool in pools}
    total = 0
    for cls in classes:
        n = len(cls.requests)
        total += n
        graph.arc(source, class_node[cls.index], n)
        if cls.exclusive:
            graph.arc(class_node[cls.index], sink, n)
        elif cls.pool is None:
            graph.arc(class_node[cls.index], nowhere, n)
        else:
            graph.arc(class_node[cls.index], pool_node[cls.pool], n)
    graph.arc(nowhere, sink, unplaced)
    for pool, count in pools.items():
        limit = pool_limit(problem, part, pool)
        graph.arc(pool_node[pool], sink, (pool_demand(problem, part, pool) if limit == 0 else limit) * count)
    placed = existing_clusters(graph, problem, part, arcs, class_node, sink, classes[0].aim)
    solved = graph.solve(source, sink, total, np.asarray(graph.costs, dtype=np.int64))
    if solved is None:
        return None
    flows, cost = solved
    return {key: int(flows[a]) for key, a in placed.items() if flows[a]}, cost


class Graph:
    """A min-cost flow's arcs, gathered and then solved at once (as often as wanted, each time
    with the costs given)."""

    def __init__(self) -> None:
        self.nodes = 0
        self.tails: list[int] = []
        self.heads: list[int] = []
        self.caps: list[int] = []
        self.costs: list[int] = []
        self.moved: list[tuple[int, int, int]] = []  # lower bounds: (tail, head, least)

    def node(self) -> int:
        self.nodes += 1
        return self.nodes - 1

    def arc(self, tail: int, head: int, cap: int, cost: int = 0) -> int:
        self.tails.append(tail)
        self.heads.append(head)
        self.caps.append(cap)
        self.costs.append(cost)
        return len(self.tails) - 1

    def lower(self, tail: int, head: int, least: int) -> None:
        """At least `least` must flow from tail to head (along the arc between them): that much
        is taken out at the tail and given at the head."""
        self.moved.append((tail, head, least))

    def solve(self, source: int, sink: int, total: int, costs: np.ndarray) -> tuple[np.ndarray, int] | None:
        """Every arc's flow and the cost, None where `total` cannot flow from source to sink."""
        from ortools.graph.python import min_cost_flow

        flow = min_cost_flow.SimpleMinCostFlow()
        arcs = flow.add_arcs_with_capacity_and_unit_cost(
            np.asarray(self.tails, dtype=np.int32),
            np.asarray(self.heads, dtype=np.int32),
            np.asarray(self.caps, dtype=np.int64),
            costs,
        )
        supplies = np.zeros(self.nodes, dtype=np.int64)
        supplies[source], supplies[sink] = total, -total
        for tail, head, least in self.moved:
            supplies[tail] -= least
            supplies[head] += least
        flow.set_nodes_supplies(np.arange(self.nodes, dtype=np.int32), supplies)
        if flow.solve() != flow.OPTIMAL:
            return None
        return flow.flows(arcs), flow.optimal_cost()


def existing_clusters(
    graph: Graph,
    problem: Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    class_node: dict[int, int],
    sink: int,
    kind: str,
    scale: int = 1,
) -> dict[tuple[int, int], int]:
    """The existing clusters' arcs, each cluster a chain of its limit tiers (the arc out of tier
    L carries every request of limit at most L, so its capacity is L minus the tenants) ending
    in unit arcs priced by the square's increments times `scale` (kind "squares": convex, so
    taken cheapest first) or one free arc (the price is the cluster's rank, on the way in);
    returns the arc of each (class, cluster)."""
    rows = rows_of(problem, part)
    rank = {row: i for i, row in enumerate(rows)}
    on: dict[int, list[tuple[RequestClass, int]]] = defaultdict(list)
    for (k, row), room in arcs.items():
        on[row].append((problem.classes[k], room))
    placed: dict[tuple[int, int], int] = {}
    for row in rows:
        members = on.get(row)
        if not members:
            continue
        base = problem.base[row]
        top = graph.node()
        tier_node: dict[int, int] = {}
        limits = sorted({cls.limit for cls, _ in members if cls.limit})
        for limit in limits:
            tier_node[limit] = graph.node()
        for here, after in zip(limits, [*limits[1:], None], strict=False):
            graph.arc(tier_node[here], tier_node[after] if after is not None else top, max(0, here - base))
        for cls, room in members:
            entry = tier_node[cls.limit] if cls.limit else top
            price = rank[row] if kind == "rank" else 0
            placed[(cls.index, row)] = graph.arc(class_node[cls.index], entry, room, price)
        most = sum(room for _, room in members)
        if kind == "squares":
            for step in range(most):
                graph.arc(top, sink, 1, scale * (2 * (base + step) + 1))
        else:
            graph.arc(top, sink, most)
    return placed


def class_entries(
    graph: Graph, problem: Problem, part: list[int], unplaced: int
) -> tuple[int, int, dict[int, int], int, int]:
    """The flow's source, sink and one entry node per class of the part, each fed its requests:
    an exclusive class's go straight to the sink (each makes its own cluster), a class of no pool
    may leave at most `unplaced` requests out in all (through one node). Returns the source, the
    sink, each class's entry, how many requests flow, and how many of them are exclusive."""
    classes = [problem.classes[k] for k in part]
    source, sink, nowhere = graph.node(), graph.node(), graph.node()
    entry = {cls.index: graph.node() for cls in classes}
    total = exclusive = 0
    for cls in classes:
        count = len(cls.requests)
        total += count
        graph.arc(source, entry[cls.index], count)
        if cls.exclusive:
            graph.arc(entry[cls.index], sink, count)
            exclusive += count
        elif cls.pool is None:
            graph.arc(entry[cls.index], nowhere, count)
    graph.arc(nowhere, sink, unplaced)
    return source, sink, entry, total, exclusive


def joined_flow(
    problem: Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    opened: dict[str, int],
    unplaced: int,
) -> tuple[dict[tuple[int, int], int], dict[tuple[int, str], int]] | None:
    """The aim's optimum where requests may join other pools' new clusters, for the clusters
    each pool opens (`opened`, CP-SAT's): every request flows from its class to an existing
    cluster, a pool it may go to (own or joined), or (if it may create none) nowhere; a pool's
    clusters are a chain of the limit tiers of the requests that go there, L times its clusters
    for the tier of limit L (new_clusters). Returns how many of each class go to each existing
    cluster and to each pool."""
    graph = Graph()
    source, sink, entry, total, _ = class_entries(graph, problem, part, unplaced)
    joining, _ = new_clusters(graph, problem, part, entry, sink, opened, total)
    placed = existing_clusters(graph, problem, part, arcs, entry, sink, "squares")
    solved = graph.solve(source, sink, total, np.asarray(graph.costs, dtype=np.int64))
    if solved is None:
        return None
    flows = solved[0]
    return (
        {key: int(flows[a]) for key, a in placed.items() if flows[a]},
        {key: int(flows[a]) for key, a in joining.items() if flows[a]},
    )


def new_clusters(
    graph: Graph,
    problem: Problem,
    part: list[int],
    entry: dict[int, int],
    sink: int,
    opened: dict[str, int],
    total: int,
    *,
    by_own: bool = True,
) -> tuple[dict[tuple[int, str], int], list[tuple[int, int]]]:
    """The pools' new clusters: per pool opening `opened[pool]` clusters, a chain of the limit
    tiers of the requests that may go there (the arc out of tier L carries every request of
    limit at most L: L per cluster), then requests of no limit, while one is open. With `by_own`,
    at least one request of the pool's own per cluster goes there: each is opened by one (and
    named after it), so the arc from its own requests carries that many at least (a lower bound:
    that much supply moved from its tail to its head). Returns the arc of each (class, pool)
    and, per pool, its widest limited tier's arc with that limit."""
    classes = [problem.classes[k] for k in part]
    joining: dict[tuple[int, str], int] = {}
    widest: list[tuple[int, int]] = []
    for pool in sorted(opened):
        count = opened[pool]
        members = [cls for cls in classes if pool in cls.pools]
        top = graph.node()
        limits = sorted({cls.limit for cls in members if cls.limit})
        tier = {limit: graph.node() for limit in limits}
        for here, after in zip(limits, [*limits[1:], None], strict=False):
            arc = graph.arc(tier[here], tier[after] if after is not None else top, here * count)
            if after is None:
                widest.append((arc, here))
        if count:
            graph.arc(top, sink, total)
        own = {cls.limit for cls in members if cls.pool == pool}
        gate = graph.node() if by_own and len(own) == 1 else None  # the own requests' way in
        if gate is not None:
            limit = own.pop()
            graph.arc(gate, tier[limit] if limit else top, total)
        for cls in members:
            way = gate if gate is not None and cls.pool == pool else (tier[cls.limit] if cls.limit else top)
            joining[(cls.index, pool)] = graph.arc(entry[cls.index], way, len(cls.requests))
        if gate is not None and count:
            graph.lower(gate, tier[limit] if limit else top, count)
    return joining, widest
