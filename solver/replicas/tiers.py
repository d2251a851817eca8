"""One request, as upstream schedules it: an attempt per failover tier (pkg/scheduler/scheduler.go
scheduleResourceBindingWithClusterAffinities), each attempt filter, order, select, divide
(pkg/scheduler/core/generic_scheduler.go Schedule).

The attempts resume at the tier the request last observed (`Replicas.tier`; 0 when divided
afresh), move on to the next tier after ANY failure (too little room included) and never go back
nor wrap around. The first answer wins; when every tier fails, the first failure decides what is
reported. A request without tiers makes one attempt.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import Division, Failure
from solver.replicas.division import divide
from solver.replicas.problem import Candidates, ReplicaProblem
from solver.replicas.selection import Unplaceable, deciding_claim, select

__all__ = ["Answer", "Failed", "attempt", "schedule"]


@dataclass(frozen=True, slots=True)
class Answer:
    tier: int
    entries: tuple[tuple[str, int | None], ...]  # upstream's write order
    candidates: Candidates
    chosen: tuple[int, ...]  # the selected candidates (indices into `candidates`)


@dataclass(frozen=True, slots=True)
class Failed:
    tier: int
    failure: Failure
    message: str  # upstream's text ("" for NO_FIT: the adapter words it from the filters)


def attempt(problem: ReplicaProblem, i: int, tier: int) -> Answer | Failed:
    """One attempt of request i under its tier `tier`."""
    request = problem.requests[i]
    replicas = request.replicas
    c = problem.candidates(i, tier)
    if not len(c):
        return Failed(tier, Failure.NO_FIT, "")
    claim = deciding_claim(replicas)
    values = problem.claim_values(c.rows, claim) if claim is not None else ()

    weights = np.ones(len(c), dtype=np.int64)
    if replicas.weights is not None:  # the largest weight of the rules a cluster matches, else 0
        weights[:] = 0
        for rule in replicas.weights:
            matches = problem.filters.term(rule.term)[c.rows]
            np.maximum(weights, np.where(matches, rule.weight, 0), out=weights)
    overflow = bool(replicas.tiers) and bool(replicas.tiers[tier].overflow)
    try:
        chosen = select(c, replicas, values)
        entries = divide(c, chosen, replicas, weights, overflow and replicas.division is not Division.EVERY)
    except Unplaceable as failed:
        return Failed(tier, failed.failure, failed.message)
    return Answer(tier, tuple(entries), c, tuple(chosen))


def schedule(problem: ReplicaProblem, i: int) -> tuple[Answer | Failed, Failed | None]:
    """The request's outcome: its answer, or the failure that decides (the first); and the last
    failure (the tier tried last, for a request that failed every tier; else None)."""
    replicas = problem.requests[i].replicas
    if not replicas.tiers:
        return attempt(problem, i, 0), None
    first: Failed | None = None
    last: Failed | None = None
    for tier in range(0 if replicas.fresh else replicas.tier, len(replicas.tiers)):
        outcome = attempt(problem, i, tier)
        if isinstance(outcome, Answer):
            return outcome, None
        first = first or outcome
        last = outcome
    return first, last
