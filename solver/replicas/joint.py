"""The joint capacity solve, in neutral words: requests that divide replicas, placed together so
that what they add fits every cluster's free capacity.

The interface is small on purpose, so that the model never sees how a request's candidates,
estimates or splits were found (the per-request algorithm does that, solver.replicas' greedy):

- a `Unit` is one request: `count` replicas of one `demand` vector, and the `Option`s it may be
  scheduled under, earliest first (failover tiers past the one greedy landed on; one option for a
  request without tiers; none when not even the snapshot as given fits it). An option lists the
  candidate clusters (rows), the replicas the request holds on them (kept in steady mode), the split
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
from dataclasses import dataclass, field

import numpy as np

from model import Division

__all__ = [
    "CapacityProblem",
    "Groups",
    "JointOutcome",
    "Option",
    "Placed",
    "Unit",
    "added",
    "charge",
    "draws",
    "level_names",
    "measure",
    "overcommitted",
    "room_after_fixed",
    "solve_joint",
]

Split = tuple[tuple[int, int], ...]  # (cluster row, replicas), by row


@dataclass(frozen=True, slots=True)
class Groups:
    """Between `least` and `most` groups hold the request's replicas; `of[i]` is the group of the
    option's i-th candidate."""

    of: tuple[int, ...]
    least: int
    most: int


@dataclass(frozen=True, slots=True)
class Option:
    candidates: tuple[int, ...]  # cluster rows
    held: Split = ()  # what the request holds on these candidates now
    target: Split = ()  # the split greedy computes under this option (the division's aim)
    most: tuple[int, ...] | None = None  # per candidate: replicas one request may add there alone
    groups: tuple[Groups, ...] = ()
    cost: int = 0  # its rank among the request's options (the aim: the earliest that fits)

    @property
    def kept(self) -> int:
        return sum(n for _, n in self.held)


@dataclass(frozen=True, slots=True)
class Unit:
    count: int
    demand: tuple[int, ...]  # per resource column of the problem
    division: Division = Division.AVAILABLE
    options: tuple[Option, ...] = ()
    fixed: Split | None = None  # placed exactly so, whatever the capacity, and charged first
    held: Split = ()  # what a fixed unit holds now (its footprint is what it adds beyond)
    fresh: bool = False  # divided afresh: held replicas may move (added beyond held is charged)
    priority: int = 0
    order: int = 0  # upstream's queue position (after priority)

    def __post_init__(self) -> None:
        if self.fixed is None and not self.fresh:
            for option in self.options:
                if option.kept > self.count:
                    raise ValueError("a steady unit that shrinks is fixed (its split needs no capacity)")


@dataclass(frozen=True, slots=True)
class Placed:
    option: int  # index into the unit's options; -1 for a fixed unit
    replicas: Split


Answer = list[Placed | None]


@dataclass(eq=False)
class CapacityProblem:
    free: np.ndarray  # clusters x resources, int64
    units: tuple[Unit, ...]
    priorities: tuple[int, ...] = field(init=False)  # of the units that may go unscheduled, highest first

    def __post_init__(self) -> None:
        free = np.asarray(self.free, dtype=np.int64)
        # rows of no resources where there is nothing to reshape (no clusters: a hub of bindings alone)
        self.free = free.reshape(len(free), -1) if free.size else free.reshape(len(free), 0)
        self.priorities = tuple(sorted({u.priority for u in self.units if u.fixed is None}, reverse=True))


# The aims, as the levels name what they count: tiers past the one greedy used, the clusters an
# AGGREGATED request uses, the replicas away from greedy's own split (AVAILABLE: L1 distance).
AIMS = ("later-tiers", "clusters-used", "replicas-off-split")


def level_names(problem: CapacityProblem) -> tuple[str, ...]:
    return (
        *(f"requests-unscheduled@priority={p}" for p in problem.priorities),
        *(f"fresh-{aim}" for aim in AIMS),
        "replicas-moved",
        *AIMS,
    )


def added(unit: Unit, placed: Placed) -> list[tuple[int, int]]:
    """(row, replicas) the placement adds beyond what the unit holds there."""
    held = dict(unit.held if placed.option < 0 else unit.options[placed.option].held)
    return [(row, n - held.get(row, 0)) for row, n in placed.replicas if n > held.get(row, 0)]


def room_after_fixed(problem: CapacityProblem, part: Sequence[int]) -> np.ndarray:
    """The free capacity left for the part's other units once its fixed units are charged, never
    below 0 (a unit asking for a resource a fixed unit over-committed adds nothing there)."""
    room = problem.free.copy()
    for u in part:
        unit = problem.units[u]
        if unit.fixed is not None:
            for row, n in added(unit, Placed(-1, unit.fixed)):
                room[row] -= n * np.asarray(unit.demand, dtype=np.int64)
    return np.maximum(room, 0)


def queue(problem: CapacityProblem, part: Sequence[int]) -> list[int]:
    """The part's units that may go unscheduled, in upstream's queue order."""
    units = problem.units
    return sorted(
        (u for u in part if units[u].fixed is None), key=lambda u: (-units[u].priority, units[u].order)
    )


def charge(problem: CapacityProblem, part: Sequence[int], greedy: Answer) -> Answer:
    """Greedy's answer with its over-commit charged in queue order: fixed units as they are, then
    each other unit where greedy put it if what it adds still fits, else unscheduled."""
    answer: Answer = list(greedy)
    room = room_after_fixed(problem, part)
    for u in part:
        unit = problem.units[u]
        if unit.fixed is not None:
            answer[u] = Placed(-1, unit.fixed)
    for u in queue(problem, part):
        unit, placed = problem.units[u], greedy[u]
        if placed is None:
            continue
        demand = np.asarray(unit.demand, dtype=np.int64)
        adds = added(unit, placed)
        if all((room[row] >= n * demand).all() for row, n in adds):
            for row, n in adds:
                room[row] -= n * demand
        else:
            answer[u] = None
    return answer


def overcommitted(problem: CapacityProblem, part: Sequence[int], answer: Answer) -> list[tuple[int, int]]:
    """(row, resource) where what the part's non-fixed units add exceeds the room fixed units leave."""
    room = room_after_fixed(problem, part)
    for u in part:
        unit, placed = problem.units[u], answer[u]
        if unit.fixed is None and placed is not None:
            for row, n in added(unit, placed):
                room[row] -= n * np.asarray(unit.demand, dtype=np.int64)
    rows, columns = np.nonzero(room < 0)
    return [(int(r), int(c)) for r, c in zip(rows, columns, strict=True)]


def measure(problem: CapacityProblem, part: Sequence[int], answer: Answer) -> tuple[int, ...]:
    """The part's levels for the answer (level_names)."""
    slot = {p: i for i, p in enumerate(problem.priorities)}
    base = len(slot)
    values = [0] * (base + 2 * len(AIMS) + 1)
    for u in part:
        unit, placed = problem.units[u], answer[u]
        if unit.fixed is not None:
            continue
        if placed is None:
            values[slot[unit.priority]] += 1
            continue
        option = unit.options[placed.option]
        x = dict(placed.replicas)
        held = dict(option.held)
        aims = (
            option.cost,
            len(x) if unit.division is Division.AGGREGATED else 0,
            _distance(unit, option, x),
        )
        offset = base if unit.fresh else base + len(AIMS) + 1
        for i, value in enumerate(aims):
            values[offset + i] += value
        grown = max(0, unit.count - option.kept)
        values[base + len(AIMS)] += sum(max(0, n - held.get(row, 0)) for row, n in x.items()) - grown
    return tuple(values)


def _distance(unit: Unit, option: Option, x: dict[int, int]) -> int:
    if unit.division is not Division.AVAILABLE or not option.target:
        return 0
    target = dict(option.target)
    return sum(abs(x.get(row, 0) - target.get(row, 0)) for row in x.keys() | target.keys())


def draws(problem: CapacityProblem) -> list[list[tuple[str, int]]]:
    """Per unit, one key per cluster it could add a replica on (solver.decompose): a fixed unit's
    footprint, another's candidates under every option (units sharing their options share one
    list)."""
    out = []
    shared: dict[int, list[tuple[str, int]]] = {}  # by id(options): a class's members share them
    for unit in problem.units:
        if unit.fixed is not None:
            rows = sorted(row for row, _ in added(unit, Placed(-1, unit.fixed))) if any(unit.demand) else []
            out.append([("capacity", row) for row in rows])
            continue
        keys = shared.get(id(unit.options))
        if keys is None:
            rows = sorted({row for option in unit.options for row in option.candidates})
            keys = shared[id(unit.options)] = [("capacity", row) for row in rows]
        out.append(keys)
    return out


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
    orders, the best repaired: capacity_fill) and the class model (hinted with the best so far),
    measured on the levels; greedy charged unless another is strictly better."""
    from solver.replicas.capacity_classes import build_classes
    from solver.replicas.capacity_fill import fill, fill_orders, repair
    from solver.replicas.capacity_model import solve_classes

    started = time.perf_counter()
    deadline = started + 10.0 if deadline is None else deadline
    part = sorted(part)
    baseline = charge(problem, part, greedy)
    best, values = baseline, measure(problem, part, baseline)
    orders = fill_orders(problem, part)
    for order in orders:
        filled = fill(problem, part, baseline, order)
        filled_values = measure(problem, part, filled)
        if filled_values < values:
            best, values = filled, filled_values
    if any(placed is None for placed in best):
        repaired = repair(problem, part, best, orders[1])
        repaired_values = measure(problem, part, repaired)
        if repaired_values < values:
            best, values = repaired, repaired_values
    classes = build_classes(problem, part)
    bound = _bound(problem, part, best, values)
    outcome = JointOutcome(best, values, bound, False, build_seconds=time.perf_counter() - started)
    modelled = solve_classes(problem, part, classes, best, seed=seed, budget=budget, deadline=deadline)
    if modelled is not None:
        outcome.models += 1
        outcome.time_limited = modelled.time_limited
        outcome.solve_seconds = modelled.seconds
        got = measure(problem, part, modelled.answer)
        assert not overcommitted(problem, part, modelled.answer), "the class model over-committed"
        if got < values:
            outcome.answer, outcome.values = modelled.answer, got
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


def _bound(
    problem: CapacityProblem, part: Sequence[int], answer: Answer, values: tuple[int, ...]
) -> tuple[int | None, ...]:
    """The unscheduled levels' bounds (solver.replicas.capacity_bound), each given the levels
    above it at the answer's values: a level's bound holds once those are at their optimum, so
    the levels after the first one short of its bound are left at what no option proves;
    nothing is proven of the aims (None)."""
    from solver.replicas.capacity_bound import unscheduled_bound

    slot = {p: i for i, p in enumerate(problem.priorities)}
    out: list[int | None] = [0] * len(slot) + [None] * (len(level_names(problem)) - len(slot))
    for u in part:  # units with no option are unscheduled whatever happens
        unit = problem.units[u]
        if unit.fixed is None and not unit.options:
            out[slot[unit.priority]] += 1
    bounds = unscheduled_bound(problem, part, room_after_fixed(problem, part), answer, values)
    for i, bound in enumerate(bounds):
        out[i] = max(out[i], bound)
        if values[i] != out[i]:
            break
    return tuple(out)
