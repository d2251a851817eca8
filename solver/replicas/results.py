"""A request's outcome as a RequestResult, and why each cluster it did not get was left out.

- An answer: `selected` holds a Choice per cluster in upstream's write order, with its replicas
  (None for EVERY), `kept` where it holds the same replicas as before; `released` the clusters it
  held and no longer does; `tier` the tier's name.
- NO_FIT (no cluster passes the filters): nothing selected, everything held released (upstream
  clears the assignment). `unselected` then lists EVERY cluster, whatever Batch.explain_limit, each
  with the first filter it fails (solver.replicas.order.FILTERS; INELIGIBLE ones are those upstream
  skips before its filters, counted among all clusters with no reason), so that the adapter can
  count the reasons as upstream's message does ("0/<all clusters> clusters are available: <count>
  <reason>, ..." with the reasons sorted as strings, or "no cluster exists" when no cluster was
  filtered, every one INELIGIBLE or none at all); failure_detail is "".
- SHORT and SELECTION: upstream leaves the assignment as it was, so `selected` is the current
  assignment (kept, with its replicas; None for EVERY), nothing released, satisfied False, and
  failure_detail upstream's message (solver.replicas.messages).

`unselected` of an answer: the filtered clusters (first failing filter), then the candidates that
got nothing (NOT_PICKED), at most Batch.explain_limit. `tier`: the tier of the answer, else of the
last failed attempt ("" without tiers).
"""

from __future__ import annotations

import numpy as np

from model import Choice, ClusterScore, Division, Failure, FilterKind, RequestResult, Unselected
from solver.replicas.order import FILTERS
from solver.replicas.problem import ReplicaProblem
from solver.replicas.tiers import Answer, Failed

__all__ = ["to_result", "filtered"]


def filtered(problem: ReplicaProblem, i: int, tier: int, limit: int | None) -> list[Unselected]:
    """The clusters failing the request's filters under the tier, in name order, each with the
    first filter it fails; at most `limit` (None: all)."""
    failing, first = problem.failing(i, tier, limit)
    request = problem.requests[i]
    held = problem.held(i)
    out = []
    plain = problem.unselected  # entries that depend on the cluster and the filter alone, shared
    for row, k in zip(failing, first, strict=True):
        kind = FILTERS[k]
        if kind not in _OF_REQUEST:
            got = plain.get((row, kind))
            if got is None:
                got = plain[(row, kind)] = _unselected(problem, row, kind)
            out.append(got)
            continue
        cluster = problem.batch.clusters[row]
        detail, taint = "", None
        if kind is FilterKind.MISSING:
            detail = request.replicas.needs
        elif kind is FilterKind.TAINT:
            taint = problem.filters.untolerated(row, request.tolerations, held=row in held)
        elif kind is FilterKind.SPREAD:
            detail = next(
                g.claim for g in request.replicas.groups if g.claim and g.claim not in cluster.claims
            )
        out.append(Unselected(cluster.name, kind, detail=detail, taint=taint))
    return out


# The filters whose entry depends on the request (what it needs, tolerates, spreads by).
_OF_REQUEST = frozenset({FilterKind.MISSING, FilterKind.TAINT, FilterKind.SPREAD})


def _unselected(problem: ReplicaProblem, row: int, kind: FilterKind) -> Unselected:
    cluster = problem.batch.clusters[row]
    detail = ""
    if kind is FilterKind.INELIGIBLE:
        detail = cluster.ineligible_reason or ("leaving" if cluster.leaving else "")
    return Unselected(cluster.name, kind, detail=detail)


def _entries(current: tuple[tuple[str, int], ...]) -> dict[str, int]:
    """The current assignment by cluster, in its order, the first entry of a cluster listed twice
    counting (as upstream reads it)."""
    out: dict[str, int] = {}
    for name, n in current:
        out.setdefault(name, n)
    return out


def _tier_name(problem: ReplicaProblem, i: int, tier: int) -> str:
    tiers = problem.requests[i].replicas.tiers
    return tiers[tier].name if tiers else ""


def to_result(
    problem: ReplicaProblem, i: int, outcome: Answer | Failed, last: Failed | None
) -> RequestResult:
    request = problem.requests[i]
    replicas = request.replicas
    limit = problem.batch.explain_limit
    held_names = [name for name, _ in replicas.current] + [d.cluster for d in request.existing]
    held_names = list(dict.fromkeys(held_names))
    if isinstance(outcome, Answer):
        return _answered(problem, i, outcome, held_names, limit)
    tier = _tier_name(problem, i, (last or outcome).tier)
    if outcome.failure is Failure.NO_FIT:
        return RequestResult(
            request.key,
            (),
            released=tuple(held_names),
            unselected=tuple(filtered(problem, i, outcome.tier, None)),
            satisfied=False,
            failure=outcome.failure,
            tier=tier,
        )
    every = replicas.division is Division.EVERY
    as_was = tuple(
        Choice(name, kept=True, replicas=None if every else n)
        for name, n in _entries(replicas.current).items()
    )
    return RequestResult(
        request.key,
        as_was,
        unselected=tuple(filtered(problem, i, outcome.tier, limit)),
        satisfied=False,
        failure=outcome.failure,
        failure_detail=outcome.message,
        tier=tier,
    )


def _answered(
    problem: ReplicaProblem, i: int, answer: Answer, held_names: list[str], limit: int
) -> RequestResult:
    request = problem.requests[i]
    before = _entries(request.replicas.current)
    c = answer.candidates
    index = problem.filters.index
    position = c.positions([index[name] for name, _ in answer.entries]).tolist()
    chosen = []
    shared = problem.choices  # one per content: a binding over every cluster lists a thousand
    for (name, n), score in zip(answer.entries, c.score[position].tolist(), strict=True):
        key = (name, score, name in before and (n is None or before[name] == n), n)
        choice = shared.get(key)
        if choice is None:
            choice = shared[key] = Choice(name, ClusterScore(affinity=score), kept=key[2], replicas=n)
        chosen.append(choice)
    got = {name for name, _ in answer.entries}
    unselected = filtered(problem, i, answer.tier, limit)
    room = limit - len(unselected)
    if room > 0:
        left_out = np.ones(len(c), dtype=bool)
        left_out[position] = False
        unselected += [Unselected(c.names[k], FilterKind.NOT_PICKED) for k in np.flatnonzero(left_out)[:room]]
    return RequestResult(
        request.key,
        tuple(chosen),
        released=tuple(name for name in held_names if name not in got),
        unselected=tuple(unselected[:limit]),
        tier=_tier_name(problem, i, answer.tier),
    )
