"""Measuring an answer and writing it out: a part's levels, the batch's levels as one number, and
the model's results (kept holds, new placements, and for a request left without a cluster its
candidates, each full).

Measured by the same rule in every mode, so that an optimal stage's answer is compared with
greedy's on the same levels and taken only where it is strictly better.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from model import Choice, FilterKind, RequestResult, Unselected
from solver.tenancy.problem import Placement, Problem, rows_of

# The aim's kinds (RequestClass.aim) that count something, each its own level in the statistics.
AIM_KINDS = ("squares", "rank")
# The levels as the statistics name them: the aim under its kind's name (a part has one kind).
LEVELS = ("requests-unplaced", "clusters-created", "tenants-squared", "cluster-rank")


def measure(problem: Problem, part: Sequence[int], placement: Placement) -> tuple[int, int, int]:
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
    rows = rows_of(problem, part)
    if kind == "squares":
        load = {row: problem.base[row] for row in rows}
        for (k, row), n in mine.items():
            load[row] += n * problem.classes[k].demand
        aim = sum(v * v for v in load.values())
    elif kind == "rank":
        rank = {row: i for i, row in enumerate(rows)}
        aim = sum(rank[row] * n for (_, row), n in mine.items())
    return unplaced, created, aim


def combined(levels: list[int], problem: Problem) -> int:
    """The levels as one number to maximise (the summary's objective): minus the levels weighed
    exactly, each level's weight above the widest the levels below it can be for this batch."""
    n = len(problem.pending)
    most = max(problem.base, default=0) + n
    aim_span = len(problem.names) * max(most * most, most * len(problem.names))
    unplaced, created, aim = levels
    return -(((unplaced * (n + 1)) + created) * (aim_span + 1) + aim)


def adopt(problem: Problem, part: list[int], final: Placement, answer: Placement) -> None:
    """Where the answer puts the part's requests, into the final placement."""
    for k in part:
        for position in problem.classes[k].requests:
            if position in answer.existing:
                final.existing[position] = answer.existing[position]
            elif position in answer.created:
                final.created[position] = answer.created[position]


def to_results(problem: Problem, placement: Placement) -> list[RequestResult]:
    """The results in the requests' order. A cluster's choice is made once and shared by every
    request it answers alike (a Choice is frozen): tens of thousands of requests, a few thousand
    clusters."""
    out: list[RequestResult | None] = [None] * len(problem.requests)
    count = list(problem.base)
    for position, row in placement.existing.items():
        count[row] += problem.request(position).tenancy.demand
    kept: dict[str, tuple[Choice, ...]] = {}
    for i in problem.kept:
        r = problem.requests[i]
        name = r.existing[0].cluster
        held = kept.get(name)
        if held is None:
            held = kept[name] = (Choice(name, kept=True, created=name not in problem.index),)
        out[i] = RequestResult(r.key, held, scheduled=False)
    chosen: dict[int, tuple[Choice, ...]] = {}
    for position, i in enumerate(problem.pending):
        r = problem.requests[i]
        released = (problem.forced[i],) if i in problem.forced else ()
        row = placement.existing.get(position)
        if row is not None:
            choice = chosen.get(row)
            if choice is None:
                choice = chosen[row] = (Choice(problem.names[row]),)
        elif position in placement.created:
            choice = (Choice(placement.created[position], created=True),)
        else:
            out[i] = RequestResult(
                r.key, (), released, unselected=_full(problem, position, count), satisfied=False
            )
            continue
        out[i] = RequestResult(r.key, choice, released)
    return [r for r in out if r is not None]


def _full(problem: Problem, position: int, count: list[int]) -> tuple[Unselected, ...]:
    """Why an unplaced request found no cluster: its candidates, each full."""
    cls = problem.classes[problem.class_of[position]]
    limit = problem.batch.explain_limit
    if cls.exclusive:
        return ()
    return tuple(
        Unselected(problem.names[row], FilterKind.FULL, detail=f"{count[row]}/{cls.limit}")
        for row in cls.candidates[:limit]
    )
