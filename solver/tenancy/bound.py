"""Lower bounds on the aim (level 3, the sum of squared tenant counts) where the joint answer is
not proven optimal, each the optimum of a relaxation, solved exactly by min-cost flows.

- New clusters over pools (`pools_bound`). Levels 1 and 2 are proven: U requests left out, C new
  clusters. Every answer holding them opens o_P clusters in each pool P (sum o_P = C, less the
  exclusive requests' own), and a pool's clusters admit, for each limit L among the requests
  that go there, at most L * o_P requests of limit at most L. Relaxed: o_P is a real number in
  [0, its most], only the pool's widest limited tier (F_P requests of a limit, the widest limit
  L_P) is tied to o_P (o_P >= F_P / L_P), the narrower tiers only to o_P's most; requests of no
  limit may join a pool's clusters whenever the pool opens any; a pool's clusters need not be
  opened by its own requests. Every real answer satisfies all this, so the relaxation's optimum
  is at most the aim's. Its Lagrangian dual on the one row coupling the pools (sum o_P <= C) is,
  for a price lam >= 0 per new cluster, a min-cost flow in which each request through a pool's
  widest tier pays lam / L_P, less lam * C: every lam gives a valid bound (weak duality), and
  the best lam gives the relaxation's optimum (the flow's LP is integral; strong duality). The
  dual is concave and piecewise linear in lam; cutting planes find its top in a few flows.
- Units of several slots levelled with nothing else to decide (`slots_bounds`): the relaxation
  lets a unit's slots go to different candidates. Each slot then flows on its own and the
  squares are convex unit arcs (one slot more on a cluster holding t costs 2t + 1); a whole
  unit's placement is one of the relaxation's, at the same cost, so its optimum is at most
  the aim's. Weak where few units of many slots share a few clusters.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from solver.tenancy.flow import Graph, class_entries, existing_clusters, new_clusters
from solver.tenancy.problem import Problem, RequestClass, pool_demand, pool_limit, rows_of

__all__ = ["pools_bound", "slots_bounds"]

# A pool's price per request, lam / L_P, is charged in whole 1/_SCALE of a square's unit
# (rounded down: a lower price is still a valid bound, pools_bound's docstring).
_SCALE = 1 << 12
_CUTS = 12  # prices tried at most (a min-cost flow each)
_CLOSE = 1000  # the search ends once the bound is within 1/_CLOSE of the answer's aim (its gap)


def pools_bound(
    problem: Problem,
    part: list[int],
    arcs: dict[tuple[int, int], int],
    optima: tuple[int, int],
    answer: int,
) -> int | None:
    """A lower bound on the aim over every answer at the proven optima of levels 1 and 2
    (`optima`: requests left out, new clusters), by the module's Lagrangian relaxation; `answer`
    is the aim of the answer found. None if no price's flow routes every request."""
    unplaced, created = optima
    classes = [problem.classes[k] for k in part]
    graph = Graph()
    source, sink, entry, total, exclusive = class_entries(graph, problem, part, unplaced)
    created -= exclusive  # each exclusive request makes its own cluster
    # Each pool opens up to its most (a real count in the relaxation: see the docstring).
    most = {
        pool: 1 if pool_limit(problem, part, pool) == 0 else pool_demand(problem, part, pool)
        for pool in {cls.pool for cls in classes if cls.pool is not None and not cls.exclusive}
    }
    _, priced = new_clusters(graph, problem, part, entry, sink, most, total, by_own=False)
    existing_clusters(graph, problem, part, arcs, entry, sink, "squares", _SCALE)
    tenants = sum(problem.base[row] ** 2 for row in rows_of(problem, part))
    costs = np.asarray(graph.costs, dtype=np.int64)
    at = np.asarray([arc for arc, _ in priced], dtype=np.int64)

    def dual(lam: Fraction) -> tuple[Fraction, Fraction] | None:
        """The dual's value at price lam (a valid bound, less the tenants' squares) and its
        slope there."""
        prices = [math.floor(lam * _SCALE / width) for _, width in priced]
        costs[at] = prices
        solved = graph.solve(source, sink, total, costs)
        if solved is None:
            return None
        flows, cost = solved
        # The prices were rounded down: a cluster is credited the most any pool charged for
        # one (with F_P <= L_P o_P the flow then charges at most `credit` times sum o_P).
        widths = [width for _, width in priced]
        credit = max((Fraction(p * w, _SCALE) for p, w in zip(prices, widths, strict=True)), default=0)
        opened = sum(Fraction(int(flows[arc]), width) for arc, width in priced)
        return Fraction(cost, _SCALE) - credit * created, opened - created

    dearest = max((2 * (problem.base[row] + room) + 1 for (_, row), room in arcs.items()), default=1)
    widest = max((width for _, width in priced), default=1)
    # At this price no request is worth a cluster's share: the dual falls from there on.
    best = _top(dual, Fraction(dearest * widest), answer - tenants, Fraction(answer, _CLOSE))
    return None if best is None else tenants + math.ceil(best)


def _top(
    dual: Callable[[Fraction], tuple[Fraction, Fraction] | None],
    highest: Fraction,
    target: int,
    close: Fraction,
) -> Fraction | None:
    """The best value of a concave function of lam on [0, highest] found by Kelley's cutting
    planes: each point gives a value and a slope (a tangent above the function); the next point
    is where the tangents of the last rising and the first falling point meet. The highest
    price first (on the generated hubs it is within a tenth of a percent already), then 0.
    Stops once the value is within `close` of `target`, when the tangents meet outside the
    bracket, or after _CUTS points."""
    best: Fraction | None = None
    cuts: list[tuple[Fraction, Fraction, Fraction]] = []  # (lam, value, slope)
    todo = [highest, Fraction(0)]
    for _ in range(_CUTS):
        lam = todo.pop(0)
        got = dual(lam)
        if got is None:
            break
        value, slope = got
        cuts.append((lam, value, slope))
        best = value if best is None else max(best, value)
        if slope == 0 or target - best <= close:
            break
        if todo:
            continue
        rising = [cut for cut in cuts if cut[2] > 0]
        falling = [cut for cut in cuts if cut[2] < 0]
        if not rising or not falling:
            break
        (l1, v1, s1), (l2, v2, s2) = max(rising), min(falling)
        meet = (v2 - v1 + s1 * l1 - s2 * l2) / (s1 - s2)
        if not l1 < meet < l2:
            break
        todo.append(meet)
    return best


def slots_bounds(problem: Problem, parts: list[list[int]]) -> list[int]:
    """For each part, a lower bound on the sum of squared loads where units of several slots are
    levelled with nothing else to decide (solver.tenancy.local_search): each slot placed on its
    own (the module's docstring). The parts are independent: one min-cost flow for them all
    (kcp's hubs have hundreds), each part's bound its own arcs' cost."""
    if not parts:
        return []
    graph = Graph()
    source, sink = graph.node(), graph.node()
    starts, total = [], 0
    for part in parts:
        starts.append(len(graph.tails))
        classes = [problem.classes[k] for k in part if problem.classes[k].candidates]
        entry = {cls.index: graph.node() for cls in classes}
        slots = {cls.index: len(cls.requests) * cls.demand for cls in classes}
        for cls in classes:
            graph.arc(source, entry[cls.index], slots[cls.index])
        arcs = _slot_rooms(problem, classes, slots)
        existing_clusters(graph, problem, part, arcs, entry, sink, "squares")
        total += sum(slots.values())
    costs = np.asarray(graph.costs, dtype=np.int64)
    solved = graph.solve(source, sink, total, costs)
    assert solved is not None  # no limit: every slot has room on any of its candidates
    spent = np.concatenate([[0], np.cumsum(solved[0] * costs)])  # the cost of the arcs before each
    ends = [*starts[1:], len(costs)]
    return [
        sum(problem.base[row] ** 2 for row in rows_of(problem, part)) + int(spent[end] - spent[start])
        for part, start, end in zip(parts, starts, ends, strict=True)
    ]


def _slot_rooms(
    problem: Problem, classes: list[RequestClass], slots: dict[int, int]
) -> dict[tuple[int, int], int]:
    """(class, cluster) -> the slots of the class the relaxation may put there: as many as
    keep the cluster's load at most one above the class's emptiest candidate's at the end (a
    slot past that would lower the squares by moving there), which is at most the candidates'
    mean load with every slot of the part counted. So few unit arcs are needed, not one per
    slot of every unit that may go to a cluster."""
    everything = sum(slots.values())
    rooms = {}
    for cls in classes:
        ceiling = (sum(problem.base[row] for row in cls.candidates) + everything) // len(cls.candidates) + 1
        for row in cls.candidates:
            room = min(slots[cls.index], ceiling - problem.base[row])
            if room > 0:
                rooms[(cls.index, row)] = room
    return rooms
