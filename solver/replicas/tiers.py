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
    clusters = problem.batch.clusters
    claim = deciding_claim(replicas)
    values = [clusters[int(row)].claims.get(claim) for row in c.rows] if claim is not None else []

    def weight(index: int) -> int:
        if replicas.weights is None:
            return 1
        cl = clusters[int(c.rows[index])]
        matching = (
            w.weight
            for w in replicas.weights
            if w.term.matches(cl.labels, cl.properties, cl.claims, cl.traits)
        )
        return max(matching, default=0)

    overflow = bool(replicas.tiers) and bool(replicas.tiers[tier].overflow)
    try:
        chosen = select(c, replicas, values)
        entries = divide(c, chosen, replicas, weight, overflow and replicas.division is not Division.EVERY)
    except Unplaceable as failed:
        return Failed(tier, failed.failure, failed.message)
    return Answer(tier, tuple(entries), c)


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
