"""The joint capacity solve, in neutral words: requests that divide replicas, placed together so
that what they add fits every cluster's free capacity.

The interface is small on purpose, so that the model never sees how a request's candidates,
estimates or splits were found (the per-request algorithm does that, solver.replicas' greedy):

- a `Unit` is one request: `count` replicas of one `demand` vector, and the `Option`s it may be
  scheduled under, earliest first (failover tiers past the one greedy landed on; one option for a
  request without tiers; none when not even the snapshot as given fits it). An option lists the
  candidate clusters (rows), the replicas the request holds on them (kept in steady mode: on every
  cluster it uses, and where it has group constraints given up on the clusters it leaves out, as
  upstream's steady division keeps only the selected clusters' current replicas), the split
  greedy computes there (the division's own aim), the most replicas one request may add on each
  candidate alone (the estimator's figure, where it is below what the free capacity allows) and the
  group constraints it must meet. A unit with `fixed` replicas is placed exactly so (static weights,
  duplicated, every cluster, a shrink: capacity-blind, as the user asked) and charged first.
- a `CapacityProblem` is the units and a free-capacity matrix (clusters x resources, the units'
  demand in the same columns).
- an answer is, per unit, `Placed` (the option and the replicas per cluster) or None (not
  scheduled: it keeps what it holds and adds nothing).

What a request adds on a cluster is the replicas it places there beyond what it holds there (in
its option: replicas given up elsewhere are not credited within the run, their pods still run).
The hard rule: on every cluster, for every resource, the fixed units' footprint and then what the
others add fit its free capacity.

The levels (all minimised, each solved in turn, never one combined integer) are `level_names`:
unscheduled requests per priority from the highest; then for requests divided afresh their aim
(tier, clusters, distance); replicas moved; then the others' aim: the option's rank (the earliest
tier that fits), the clusters used (AGGREGATED: fewest) and the L1 distance to greedy's own split
(AVAILABLE). Greedy's order breaks what is left: a class's scheduled requests are its earliest.

`charge` is the baseline: greedy's answer with its over-commit charged in queue order (a request
that does not fit where greedy put it is unscheduled). `solve_joint` never returns worse than it
on the levels: it is the hint of every model and the fallback of every failure.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from solver.replicas.capacity_alone import kept_in_spread, own_least
from solver.replicas.capacity_bound import aim_bounds, unscheduled_bound
from solver.replicas.capacity_classes import build_classes
from solver.replicas.capacity_fill import fill, fill_orders, repair
from solver.replicas.capacity_model import solve_classes
from solver.replicas.capacity_units import (
    Answer,
    CapacityProblem,
    charge,
    measure,
    overcommitted,
    room_after_fixed,
)

__all__ = ["JointOutcome", "solve_joint"]


@dataclass(slots=True)
class JointOutcome:
    answer: Answer
    values: tuple[int, ...]
    bound: tuple[int | None, ...]  # proven lower bounds per level (None where nothing is proven)
    proven: bool  # every level at its proven optimum
    models: int = 0
    time_limited: bool = False
    build_seconds: float = 0.0
    solve_seconds: float = 0.0


def solve_joint(
    problem: CapacityProblem,
    part: Sequence[int],
    greedy: Answer,
    *,
    seed: int = 0,
    budget: float = 5.0,
    deadline: float | None = None,
) -> JointOutcome:
    """The part's joint answer: the best of greedy charged, a capacity-aware fill (in three
    orders, each repaired in a small part, the best one in a large: capacity_fill) and the class
    model (hinted with the best so far, skipping the levels it meets a bound on),
    measured on the levels; greedy charged unless another is strictly better.

    No search where none can do better (solver.replicas.capacity_alone): greedy charged with
    every unit at the least it can be alone, an AGGREGATED unit divided afresh kept where it runs
    where that is its least (a live event's few bindings among many clusters, mostly), or the
    best answer meeting its cheap bound on every level: proven, with no model built (the class
    model over hundreds of candidates each cost 0.2 to 2.7 CPU seconds an event to confirm it)."""
    started = time.perf_counter()
    deadline = started + 10.0 if deadline is None else deadline
    part = sorted(part)
    baseline = charge(problem, part, greedy)
    best, values = baseline, measure(problem, part, baseline)
    least = own_least(problem, part, baseline, room_after_fixed(problem, part))
    if least is not None:
        # each unit as good as it can be alone: no answer is better (solver.replicas.capacity_alone)
        least_values = measure(problem, part, least)
        return JointOutcome(
            least, least_values, least_values, True, build_seconds=time.perf_counter() - started
        )
    orders = fill_orders(problem, part)
    every = len(part) <= _REPAIR_EVERY
    for order in orders:
        filled = fill(problem, part, baseline, order)
        if every and any(filled[u] is None for u in part):
            filled = repair(problem, part, filled, order)
        filled_values = measure(problem, part, filled)
        if filled_values < values:
            best, values = filled, filled_values
    if not every and any(placed is None for placed in best):
        repaired = repair(problem, part, best, orders[1])
        repaired_values = measure(problem, part, repaired)
        if repaired_values < values:
            best, values = repaired, repaired_values
    kept = kept_in_spread(problem, part, best, room_after_fixed(problem, part))
    kept_values = measure(problem, part, kept)
    if kept_values < values and not overcommitted(problem, part, kept):
        best, values = kept, kept_values
    bound = _bound(problem, part, best, values)
    outcome = JointOutcome(best, values, bound, False, build_seconds=time.perf_counter() - started)
    if bound == values:  # every level at a bound proven without the model: nothing to search
        outcome.proven = True
        return outcome
    classes = build_classes(problem, part)
    modelled = solve_classes(
        problem, part, classes, best, seed=seed, budget=budget, deadline=deadline, known=bound, given=values
    )
    if modelled is not None:  # cut by the clock with no answer or not, it says so
        outcome.models += modelled.solved
        outcome.time_limited = modelled.time_limited
        outcome.solve_seconds = modelled.seconds
    if modelled is not None and modelled.answer is not None:
        got = measure(problem, part, modelled.answer)
        assert not overcommitted(problem, part, modelled.answer), "the class model over-committed"
        if got < values:
            outcome.answer, outcome.values = modelled.answer, got
            # The cheap bounds hold given the levels before each at the answer's values: the
            # model's answer may differ from the one they were read for on the levels before.
            bound = _bound(problem, part, modelled.answer, got)
        # A level's proven optimum bounds it when every level before it is at its own.
        proven = list(bound)
        for i, (value, optimum) in enumerate(zip(outcome.values, modelled.optima, strict=False)):
            if optimum is None:
                break
            proven[i] = optimum if proven[i] is None else max(proven[i], optimum)
            if value != optimum:
                break
        outcome.bound = tuple(proven)
        outcome.proven = outcome.bound == outcome.values
    return outcome


# Parts of at most this many units have each fill repaired in its own order, the best kept: the
# best fill is not always the best repaired (1,000 x 1,000 generated, seed 0: the fills leave 30,
# 24 and 21 of 544 out, repaired 18, 15 and 18). Larger parts repair the best fill alone: at
# 10,000 x 50,000 a repair costs some 5 cpu seconds, and the hubs of 1,000 x 10,000 and 10,000 x
# 50,000 gained nothing from the others (their outputs byte-identical).
_REPAIR_EVERY = 2_000


def _bound(
    problem: CapacityProblem, part: Sequence[int], answer: Answer, values: tuple[int, ...]
) -> tuple[int | None, ...]:
    """The unscheduled levels' bounds (solver.replicas.capacity_bound), each given the levels
    above it at the answer's values: a level's bound holds once those are at their optimum, so
    the levels after the first one short of its bound are left at what no option proves (units
    with no option are unscheduled whatever happens); the aims' cheap bounds (aim_bounds), given
    the levels before each at the answer's values."""
    slot = {p: i for i, p in enumerate(problem.priorities)}
    out: list[int | None] = [0] * len(slot) + aim_bounds(problem, part, values)
    for u in part:
        unit = problem.units[u]
        if unit.fixed is None and not unit.options:
            out[slot[unit.priority]] += 1
    bounds = unscheduled_bound(problem, part, room_after_fixed(problem, part), answer, values)
    for i, bound in enumerate(bounds):
        out[i] = max(out[i], bound)
        if values[i] != out[i]:
            break
    return tuple(out)
