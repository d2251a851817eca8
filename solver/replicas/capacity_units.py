"""The units of the joint capacity solve (solver.replicas.joint) and what every part of it
measures them with: a leaf of the package, so that the solve's pieces (the classes, the fills,
the class model, the bound) and the solve itself import it and not one another.

See solver.replicas.joint for what a Unit, an Option, a CapacityProblem and an answer are, the
hard rule and the levels.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from model import Division

__all__ = [
    "AIMS",
    "Answer",
    "CapacityProblem",
    "Groups",
    "Option",
    "Placed",
    "Split",
    "Unit",
    "added",
    "candidate_rows",
    "charge",
    "draws",
    "level_names",
    "measure",
    "overcommitted",
    "queue",
    "room_after_fixed",
]

Split = tuple[tuple[int, int], ...]  # (cluster row, replicas), by row


@dataclass(frozen=True, slots=True)
class Groups:
    """Between `least` and `most` groups hold the request's replicas; `of[i]` is the group of the
    option's i-th candidate. Where none of an option's groups counts clusters (each candidate its
    own group), each group holds replicas on one cluster at most (upstream selects one per group)."""

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
    # Made from the options once for the whole solve (by id: the options live as long as the
    # problem): solver.replicas.capacity_fill's arrays.
    made: dict[object, object] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        free = np.asarray(self.free, dtype=np.int64)
        # rows of no resources where there is nothing to reshape (no clusters: a batch of requests alone)
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


def candidate_rows(problem: CapacityProblem, options: Sequence[Option]) -> np.ndarray:
    """The clusters the options draw on together, sorted; made once per distinct candidate
    tuples (shared by content: thousands of units have the same, and they live as long as the
    problem)."""
    key = ("rows", *(id(o.candidates) for o in options))
    got = problem.made.get(key)
    if got is None:
        arrays = [np.asarray(o.candidates, dtype=np.int64) for o in options]
        got = problem.made[key] = np.unique(np.concatenate(arrays)) if arrays else np.zeros(0, dtype=np.int64)
    return got


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
