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
instead of deciding each request, and clusters alike for levels 1 and 2 (the same tenants, the
same rooms for the same classes) are one cell of that count. CP-SAT decides levels 1 and 2 (it
proves them in a fraction of a second at 10,000 requests); level 3 is then a min-cost flow (convex
unit arcs for the squares), exact for a given split of the new clusters over pools, tried for
every split when there are few (proven optimal) and for CP-SAT's split otherwise; where requests
may join other pools' new clusters the flow also decides who goes to which pool. CP-SAT took
seconds to tens of seconds on level 3 and proved nothing at 10,000 requests. An aim not proven so
is bounded by a relaxation (solver.tenancy.bound: the pools' Lagrangian relaxation, or units of
several slots split into slots), each solved exactly by min-cost flows: the level's bound, within
a tenth of a percent on the generated openMCP hubs; where the ways to split the new clusters over
joined pools are few, by the least over all of them (flow.best_joined); units of several slots by
solver.tenancy.pieces, exactly on kcp's hubs. The counts are then handed out to the
requests in queue order (the request-order tie-break), each request keeping greedy's seeded pick
where its class has allotment left there; the model is hinted with greedy's counts, so among
equal answers it stays near greedy's. Parts that couple no two classes are answered by greedy,
which is optimal on a single class unless a new cluster it opens keeps room while some requests
sit on existing clusters: it fills every slot before creating a cluster, fills a new cluster
before opening the next, and for FEWEST levels the counts like water.

The package is laid out by job: `problem` (the requests and their classes), `queue` (greedy),
`joint` (CP-SAT for the counts), `flow` (min-cost flows for the aim), `bound` (the aim's bounds),
`hand_out` (counts to requests), `local_search` (units of several slots), `pieces` (those units
solved exactly piece by piece, with their bound), `results` (levels and results); this module runs
them part by part, as the tenancy coupling (solver.coupling) its parts from solver.decompose.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from model import Batch, PlacementRequest, RequestResult, SolveStats, added_levels
from solver.coupling import Levels, decide, zero_levels
from solver.tenancy.bound import pools_bound, slots_bounds
from solver.tenancy.flow import arcs_of
from solver.tenancy.hand_out import hand_out, hand_out_pools
from solver.tenancy.joint import solve_joint
from solver.tenancy.local_search import free_balance, free_weighted
from solver.tenancy.pieces import NODES as _PIECE
from solver.tenancy.pieces import settle
from solver.tenancy.problem import Placement, Problem
from solver.tenancy.queue import greedy_is_optimal, run_queue
from solver.tenancy.results import AIM_KINDS, LEVELS, adopt, combined, measure, to_results

__all__ = ["solve_tenancy", "LEVELS"]

_CLOSE = 1000  # a bound within 1/_CLOSE of the aim is not tightened further
# The pieces' search (solver.tenancy.pieces) over every part of a solve at most, in nodes: each
# part then falls back to the local search and the slots' bound (kcp v0.8's 10,000 x 50,000 hub
# takes about 3,300).
_SEARCH = 200_000


class TenancySlots:
    """The tenancy coupling (solver.coupling.Coupling): its units are the problem's classes, and
    what it proves and spends is kept here as the parts are solved."""

    def __init__(self, problem: Problem, *, seed: int, budget: float, deadline: float) -> None:
        self.problem = problem
        self.seed, self.budget, self.deadline = seed, budget, deadline
        self.proven: set[int] = set()  # the parts (by first class) whose joint answer is proven
        # The parts (by first class) whose levels 1 and 2 CP-SAT proved, with their optima.
        self.optima: dict[int, tuple[int | None, int | None]] = {}
        # The parts (by first class) whose aim a relaxation bounds (solver.tenancy.bound), with
        # that bound: it holds for answers at the optima of levels 1 and 2.
        self.aims: dict[int, int] = {}
        self.weighted: list[list[int]] = []  # the parts of several-slot units (local_search)
        self.search_left = _SEARCH  # the pieces' search nodes left for the solve
        self.models = 0
        self.time_limited = False
        self.build_seconds = 0.0
        self.solve_seconds = 0.0

    def draws(self) -> list[list[tuple[str, int | str]]]:
        """A class draws on its candidates' slots and on the new clusters of the pools it may
        open or join."""
        return [
            [("cluster", row) for row in cls.candidates] + [("pool", pool) for pool in cls.pools]
            for cls in self.problem.classes
        ]

    def greedy(self) -> Placement:
        started = time.perf_counter()
        placement = run_queue(self.problem, self.seed)
        self.build_seconds += time.perf_counter() - started
        return placement

    def joint(self, part: list[int], greedy: Placement) -> Placement:
        """The part's joint answer where it beats greedy's levels, else greedy's: a local search
        for units of several slots with nothing else to decide, greedy itself where it is the
        optimum, else CP-SAT's counts (and the flows') handed out to the requests."""
        problem = self.problem
        if greedy_is_optimal(problem, part, greedy):
            self.proven.add(part[0])
            return greedy
        if free_weighted(problem, part):
            # Every unit with a candidate is placed and nothing is created, in any answer.
            alone = [problem.classes[k] for k in part if not problem.classes[k].candidates]
            self.optima[part[0]] = (sum(len(cls.requests) for cls in alone), 0)
            return self._settle(part, greedy)
        joint = solve_joint(problem, part, greedy, seed=self.seed, budget=self.budget, deadline=self.deadline)
        self.models += 1 if joint is None else joint.models
        if joint is None:
            return greedy
        self.build_seconds += joint.build_seconds
        self.solve_seconds += joint.seconds
        self.time_limited |= joint.time_limited
        self.optima[part[0]] = joint.optima
        if joint.pools is not None:
            answer = hand_out_pools(problem, part, joint, greedy, self.seed)
        else:
            answer = hand_out(problem, part, joint.allot, greedy, self.seed)
        if answer is None:  # the counts could not be handed out: greedy stands, unproven
            return greedy
        if joint.proven:
            self.proven.add(part[0])
        answer = _better(problem, part, answer, greedy)
        if not joint.proven:
            self._bound_aim(part, answer, joint.optima, joint.least)
        return answer

    def _settle(self, part: list[int], greedy: Placement) -> Placement:
        """Units of several slots: the local search's answer with each piece solved exactly and
        its bound (solver.tenancy.pieces): proven where they meet; else, or where the pieces'
        search is cut or their bound is not within a thousandth, the slots' relaxation too."""
        problem = self.problem
        local = free_balance(problem, part, greedy)
        nodes = max(0, min(_PIECE, self.search_left))
        settled = settle(problem, part, local, nodes=nodes)
        self.search_left -= nodes if settled is None else settled.nodes
        if settled is None:
            self.weighted.append(part)  # bounded all at once (bound_weighted)
            return _better(problem, part, local, greedy)
        answer = _better(problem, part, settled.placement, greedy)
        aim = measure(problem, part, answer)[2]
        if aim <= settled.bound:
            self.proven.add(part[0])
            return answer
        self.aims[part[0]] = settled.bound
        if (aim - settled.bound) * _CLOSE > aim:
            self.weighted.append(part)
        return answer

    def _bound_aim(
        self, part: list[int], answer: Placement, optima: tuple[int | None, int | None], least: int | None
    ) -> None:
        """The aim's bound (solver.tenancy.bound) where the answer holds levels 1 and 2 at their
        proven optima, all requests take one slot and the aim is the squares; with `least`, the
        joins flow's least over every split, where that is higher."""
        classes = [self.problem.classes[k] for k in part]
        if classes[0].aim != "squares" or any(cls.demand != 1 for cls in classes):
            return
        unplaced, created, aim = measure(self.problem, part, answer)
        if (unplaced, created) != optima:
            return
        bound = pools_bound(self.problem, part, arcs_of(self.problem, classes), (unplaced, created), aim)
        bounds = [b for b in (bound, least) if b is not None]
        if bounds:
            self.aims[part[0]] = max(bounds)

    def bound_weighted(self) -> None:
        """The several-slot parts' aims bounded, in one flow (solver.tenancy.bound)."""
        for part, bound in zip(self.weighted, slots_bounds(self.problem, self.weighted), strict=True):
            self.aims[part[0]] = max(bound, self.aims.get(part[0], bound))

    def levels(self, part: list[int], answer: Placement) -> Levels:
        """The part's levels (LEVELS: the aim counted under its kind's name) and their bound: the
        answer's own where it is proven, else what CP-SAT proved of levels 1 and 2."""
        unplaced, created, aim = measure(self.problem, part, answer)
        kind = self.problem.classes[part[0]].aim
        values = (unplaced, created, *(aim if kind == named else 0 for named in AIM_KINDS))
        if part[0] in self.proven:
            return Levels(values, values)
        least = self.optima.get(part[0])
        if least is None or least[0] is None:
            return Levels(values, None)
        # A level's optimum bounds it where the answer holds every level before it at its own;
        # the aims of other kinds are none of the part's (0, whatever the answer).
        second = least[1] if unplaced == least[0] else None
        aim = self.aims.get(part[0]) if second is not None and created == second else None
        return Levels(values, (least[0], second, *(aim if kind == named else 0 for named in AIM_KINDS)))


def _better(problem: Problem, part: list[int], answer: Placement, greedy: Placement) -> Placement:
    """The answer where its levels are below greedy's: never worse than greedy, else greedy stands."""
    return answer if measure(problem, part, answer) < measure(problem, part, greedy) else greedy


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
    problem = Problem(batch, requests)
    slots = TenancySlots(problem, seed=seed, budget=budget, deadline=deadline)
    slots.build_seconds = time.perf_counter() - started
    final = Placement()
    summed = zero_levels(LEVELS, proven=mode == "optimal")
    proven = True
    decided = decide(slots, mode == "optimal")
    slots.bound_weighted()
    for part, answer in decided:
        adopt(problem, part, final, answer)
        levels = slots.levels(part, answer)
        proven &= levels.proven
        summed = added_levels(summed, levels.stats(LEVELS))
    results = to_results(problem, final)
    unplaced, created, *aims = (level.objective for level in summed)
    value = combined([unplaced, created, sum(aims)], problem)
    stats = SolveStats(
        mode=mode,
        status="GREEDY" if mode == "greedy" else ("OPTIMAL" if proven else "FEASIBLE"),
        objective=value,
        bound=(value if proven else None) if mode == "optimal" else None,
        gap=(0.0 if proven else None) if mode == "optimal" else None,
        wall_seconds=time.perf_counter() - started,
        build_seconds=slots.build_seconds,
        solve_seconds=slots.solve_seconds,
        time_limited=slots.time_limited,
        models=slots.models,
        levels=summed,
    )
    return results, stats
