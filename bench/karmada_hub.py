"""Karmada in the benchmarks: what a plan asks of the clusters' free capacity.

    objects = generate("karmada", 1_000, 10_000, seed=0)   # bindings asking for 75% of the free cpu
    outcome = schedule(objects, now=NOW, options=options)
    overcommit(outcome)      # (over-committed clusters, replicas they cannot run)

The figure that matters for Karmada is over-commit: upstream decides one binding at a time against
the same resourceSummary, so greedy (upstream) can place more replicas on a cluster than it has
room for; those replicas stay Pending in the member cluster. Optimal mode never over-commits.
Counted as issue 19 counts it: the replicas each binding adds beyond what it holds on a cluster are
charged to that cluster's free room in upstream's queue order (schedulePriority descending, then the
queue position), and what does not fit is what the cluster cannot run. The room is the summary's
(free per resource and pods); a cluster that reports node classes may hold fewer, so this is a
lower bound there.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import datetime
from typing import Any

from adapters.generate.common import DEFAULT_NOW
from model import Batch, Result

__all__ = ["NOW", "note", "overcommit"]

NOW = datetime.fromisoformat(DEFAULT_NOW)


def overcommit(batch: Batch, result: Result) -> tuple[int, int]:
    """(clusters over-committed, replicas that do not fit) of `result`, charged in queue order."""
    room = {c.name: dict(c.capacity.free) for c in batch.clusters if c.capacity is not None}
    answers = result.by_request()
    requests = [r for r in batch.requests if r.replicas is not None and not r.replicas.unlimited]
    requests.sort(key=lambda r: (-r.replicas.priority, r.replicas.order))
    short: dict[str, int] = defaultdict(int)
    for request in requests:
        replicas = request.replicas
        held = dict(replicas.current)
        answer = answers.get(request.key)
        for choice in answer.selected if answer is not None else ():
            added = (choice.replicas or 0) - held.get(choice.cluster, 0)
            if added <= 0:
                continue
            free = room.get(choice.cluster, {})
            fits = min(
                (free.get(resource, 0) // amount for resource, amount in replicas.demand.items() if amount),
                default=added,
            )
            fits = max(0, min(added, fits))
            for resource, amount in replicas.demand.items():
                free[resource] = free.get(resource, 0) - fits * amount
            if fits < added:
                short[choice.cluster] += added - fits
    return len(short), sum(short.values())


def note(objects: Any, outcome: Any) -> str:
    """The row's note: the plan's over-commit (:func:`overcommit`) over every system it solved."""
    clusters = replicas = 0
    for part in outcome.parts:
        over = overcommit(part.batch, part.result)
        clusters, replicas = clusters + over[0], replicas + over[1]
    return f"over-committed clusters {clusters}, replicas that cannot run {replicas}"
