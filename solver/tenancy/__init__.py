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

The package is laid out by job: `problem` (the requests and their classes), `queue` (greedy),
`joint` (CP-SAT for the counts), `flow` (min-cost flows for the aim), `hand_out` (counts to
requests), `local_search` (units of several slots), `results` (levels and results); this module
runs them part by part.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

from model import Batch, PlacementRequest, RequestResult, SolveStats
from solver.tenancy.hand_out import hand_out, hand_out_pools
from solver.tenancy.joint import solve_joint
from solver.tenancy.local_search import free_balance, free_weighted
from solver.tenancy.problem import Placement, Problem, parts_of
from solver.tenancy.queue import greedy_is_optimal, run_queue
from solver.tenancy.results import LEVELS, combined, measure, replace_part, to_results

__all__ = ["solve_tenancy", "LEVELS"]


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
    greedy = run_queue(problem, seed)
    build_seconds = time.perf_counter() - started
    solve_seconds = 0.0
    final = Placement(dict(greedy.existing), dict(greedy.created), set(greedy.opened))
    objective: list[int] = [0] * len(LEVELS)
    models = 0
    proven = True
    time_limited = False
    for part in parts_of(problem):
        greedy_levels = measure(problem, part, greedy)
        chosen_levels = greedy_levels
        if mode == "optimal" and free_weighted(problem, part):
            answer = free_balance(problem, part, greedy)
            proven = False  # a local optimum: no bound is proven
            levels = measure(problem, part, answer)
            if levels < greedy_levels:
                chosen_levels = levels
                replace_part(problem, part, final, answer)
        elif mode == "optimal" and not greedy_is_optimal(problem, part):
            joint = solve_joint(problem, part, greedy, seed=seed, budget=budget, deadline=deadline)
            models += 1 if joint is None else joint.models
            if joint is None:
                proven = False
            else:
                build_seconds += joint.build_seconds
                solve_seconds += joint.seconds
                time_limited |= joint.time_limited
                proven &= joint.proven
                if joint.pools is not None:
                    answer = hand_out_pools(problem, part, joint, greedy, seed)
                else:
                    answer = hand_out(problem, part, joint.allot, greedy, seed)
                if answer is None:  # the counts could not be handed out: greedy stands, unproven
                    proven = False
                else:
                    levels = measure(problem, part, answer)
                    if levels < greedy_levels:  # never worse than greedy: else greedy stands
                        chosen_levels = levels
                        replace_part(problem, part, final, answer)
        objective = [a + b for a, b in zip(objective, chosen_levels, strict=True)]
    results = to_results(problem, final)
    value = combined(objective, problem)
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
