"""Requests that divide replicas among clusters (PlacementRequest.replicas): upstream's per-request
algorithm, in neutral words.

Each request is filtered, ordered, selected and divided as upstream's scheduler does one binding
(pkg/scheduler/core), attempt by attempt over its failover tiers, in upstream's queue order
(priority descending, then order). Greedy sees every cluster's capacity as given: nothing one
request takes is deducted before the next (upstream's estimates are refreshed only by its
clusters' status), so greedy over-commits where upstream does. The optimal mode's joint capacity
solve (solver.replicas.joint) plugs in through solver.coupling; until then both modes answer
greedily.

The package by job: `problem` (the requests and each attempt's candidates, shared with the joint
solve), `estimate` (the general estimator), `order` (the filters and the canonical order),
`selection` (group spreads), `division` (the division rules and overflow tiers), `webster`
(apportionment), `tiers` (attempts over failover tiers), `results` (RequestResults and
explanations), `messages` (upstream's texts).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

from model import Batch, PlacementRequest, RequestResult, SolveStats
from solver.replicas.problem import ReplicaProblem, alike
from solver.replicas.results import to_result
from solver.replicas.tiers import schedule

__all__ = ["solve_replicas"]


def solve_replicas(
    batch: Batch, requests: Sequence[PlacementRequest], *, mode: str = "greedy"
) -> tuple[list[RequestResult], SolveStats]:
    """Results for the requests with replicas (in the given order) and the statistics of their
    solve."""
    started = time.perf_counter()
    problem = ReplicaProblem(batch, requests)
    results: list[RequestResult | None] = [None] * len(problem.requests)
    first: dict[tuple, int] = {}
    for i in problem.queue:  # each distinct request decided once: the answer is the same but for the key
        twin = first.setdefault(alike(problem.requests[i]), i)
        if twin != i:
            results[i] = replace(results[twin], request=problem.requests[i].key)
            continue
        outcome, last = schedule(problem, i)
        results[i] = to_result(problem, i, outcome, last)
    elapsed = time.perf_counter() - started
    # Optimal mode answers greedily until the joint solve plugs in: feasible, nothing proven.
    status = "GREEDY" if mode == "greedy" else "FEASIBLE"
    stats = SolveStats(mode=mode, status=status, wall_seconds=elapsed, solve_seconds=elapsed)
    return [r for r in results if r is not None], stats
