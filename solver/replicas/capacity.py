"""The capacity coupling (solver.coupling.Coupling): requests that divide replicas draw on the
clusters' free capacity together.

Greedy is upstream's per-request algorithm (solver.replicas.tiers), each request against the
capacity as given. Jointly, each part is solve_joint's (solver.replicas.joint) over units built
from what greedy found: a request greedy could not place as given has no option (less room never
helps it); one whose division does not read capacity (static weights, duplicated, every cluster)
or that adds nothing (a steady shrink, no change) is fixed at greedy's answer; any other may be
scheduled under greedy's tier or a later one (never back: upstream's failover order), on the
tier's candidates, keeping what it holds (steady), each replica it adds within the estimator's
room for it alone and, with everything else added, within the clusters' free capacity.

The coupling's units are the requests that draw on the same clusters (identical candidate sets
make one unit, so parts are found over distinct sets, not over requests x clusters); its answer
is solve_joint's, per request.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from model import (
    Batch,
    Division,
    Failure,
    LevelStats,
    PlacementRequest,
    RequestResult,
    SolveStats,
    added_levels,
)
from solver.coupling import Levels, decide, zero_levels
from solver.replicas import messages
from solver.replicas.capacity_units import (
    CapacityProblem,
    Groups,
    Option,
    Placed,
    Unit,
    added,
    candidate_rows,
    charge,
    level_names,
    measure,
    room_after_fixed,
)
from solver.replicas.estimate import footprint
from solver.replicas.joint import solve_joint
from solver.replicas.problem import Candidates, ReplicaProblem, alike
from solver.replicas.results import to_result
from solver.replicas.tiers import Answer, Failed, attempt, schedule

__all__ = ["ReplicaCapacity", "part_budget", "solve_capacity"]

Joint = list[Placed | None]


class ReplicaCapacity:
    """The capacity coupling over a batch's requests that divide replicas."""

    def __init__(
        self, problem: ReplicaProblem, *, seed: int, budget: float, deadline: float, joint: bool = True
    ) -> None:
        self.problem = problem
        self.later_tiers = joint  # greedy alone is measured on its own tier: no later one is tried
        self.seed, self.budget, self.deadline = seed, budget, deadline
        n = len(problem.requests)
        self.outcomes: list[Answer | Failed | None] = [None] * n
        self.last: list[Failed | None] = [None] * n
        self.capacity: CapacityProblem | None = None
        self.twin: list[int] = []  # per request, the first request alike (the same greedy answer)
        self.greedy_results: dict[int, RequestResult] = {}
        self.undecided = 0  # requests with something to decide in parts not yet solved
        self.members: list[list[int]] = []  # per coupling unit, its requests
        self.bounds: dict[int, tuple[int, ...]] = {}  # part (first unit) -> proven bound
        self.models = 0
        self.time_limited = False
        self.solve_seconds = 0.0

    def greedy(self) -> Joint:
        """Upstream's answer per request, decided once per distinct request: a request's answer
        depends on neither its name nor its queue position (the snapshot is the same for all)."""
        problem = self.problem
        first: dict[tuple, int] = {}
        self.twin = [first.setdefault(alike(r), i) for i, r in enumerate(problem.requests)]
        for i in problem.queue:
            twin = self.twin[i]
            if twin == i:
                self.outcomes[i], self.last[i] = schedule(problem, i)
        for i, twin in enumerate(self.twin):
            if twin != i:
                self.outcomes[i], self.last[i] = self.outcomes[twin], self.last[twin]
        self.capacity = _capacity_problem(problem, self.outcomes, self.twin, self.later_tiers)
        self.undecided = sum(1 for u in self.capacity.units if u.fixed is None and u.options)
        return [_placed(problem, i, o) for i, o in enumerate(self.outcomes)]

    def draws(self) -> list[list[tuple[str, int]]]:
        """One unit per group of requests that draw on connected clusters (the parts
        joint.draws' keys would give, found over the clusters with numpy: at 10,000 x 50,000 a
        key per request and cluster made 55 million tuples), its draw a key of its own; a
        request that draws on nothing is a unit of its own."""
        rows = _rows_drawn(self.capacity)
        label = _cluster_components(len(self.capacity.free), rows)
        by_key: dict[object, int] = {}
        self.members = []
        out: list[list[tuple[str, int]]] = []
        for i, drawn in enumerate(rows):
            key = ("capacity", int(label[drawn[0]])) if len(drawn) else ("alone", i)
            unit = by_key.get(key)
            if unit is None:
                unit = by_key[key] = len(out)
                out.append([key])
                self.members.append([])
            self.members[unit].append(i)
        return out

    def requests_of(self, part: list[int]) -> list[int]:
        return sorted(i for unit in part for i in self.members[unit])

    def joint(self, part: list[int], greedy: Joint) -> Joint:
        """The part's joint answer, within its share of the time left (its requests over those
        still to decide: a part that finishes early leaves its time to the next)."""
        requests = self.requests_of(part)
        units = self.capacity.units
        deciding = sum(1 for i in requests if units[i].fixed is None and units[i].options)
        if not deciding:  # nothing to decide: fixed units and units nothing fits are greedy's
            self.bounds[part[0]] = measure(self.capacity, requests, greedy)
            return greedy
        remaining = self.deadline - time.perf_counter()  # past it, no model: the fills alone
        share = deciding / max(deciding, self.undecided)
        self.undecided -= deciding
        outcome = solve_joint(
            self.capacity,
            requests,
            greedy,
            seed=self.seed,
            budget=part_budget(self.budget, deciding),
            deadline=time.perf_counter() + max(0.0, remaining) * share,
        )
        self.models += outcome.models
        self.time_limited |= outcome.time_limited
        self.solve_seconds += outcome.solve_seconds
        self.bounds[part[0]] = outcome.bound
        return outcome.answer

    def levels(self, part: list[int], answer: Joint) -> Levels:
        """The part's levels and the bound proven on them (greedy mode proves nothing). Greedy's
        answer is measured charged in queue order: a request that does not fit where greedy put it
        counts as unscheduled, as it is when optimal mode is measured against it (the answer as
        written would count its over-commit as scheduled)."""
        requests = self.requests_of(part)
        measured = answer if self.later_tiers else charge(self.capacity, requests, answer)
        return Levels(measure(self.capacity, requests, measured), self.bounds.get(part[0]))

    def result(self, i: int, answer: Joint, room: np.ndarray) -> RequestResult:
        """Request i's result for the joint answer: greedy's own where they agree."""
        problem, outcome, placed = self.problem, self.outcomes[i], answer[i]
        if placed == _placed(problem, i, outcome) or self.capacity.units[i].fixed is not None:
            twin = self.twin[i]
            if twin != i and twin in self.greedy_results:  # the same words but for the key
                return replace(self.greedy_results[twin], request=problem.requests[i].key)
            got = self.greedy_results[i] = to_result(problem, i, outcome, self.last[i])
            return got
        assert isinstance(outcome, Answer)
        tier = outcome.tier + (
            self.capacity.units[i].options[placed.option].cost if placed is not None else 0
        )
        if placed is None:  # it fits nowhere the others left: upstream's Unschedulable
            c = outcome.candidates
            unit = self.capacity.units[i]
            left = int(_fits(room, c.rows, unit.demand).sum() + (c.held.sum() if unit.fresh else 0))
            text = messages.ASSIGN.format(messages.SHORT.format(left))
            return to_result(problem, i, Failed(outcome.tier, Failure.SHORT, text), None)
        c = outcome.candidates if tier == outcome.tier else problem.candidates(self.twin[i], tier)
        names = problem.batch.clusters
        every = problem.requests[i].replicas.division is Division.EVERY
        entries = tuple((names[row].name, None if every else n) for row, n in placed.replicas)
        chosen = tuple(c.positions([row for row, _ in placed.replicas]).tolist())
        return to_result(problem, i, Answer(tier, entries, c, chosen), None)


# The deterministic budget (SolveOptions.deterministic_budget) is for a part of this many units to
# decide; a smaller part gets its share, and no less than _LEAST_UNITS' share. A live event's part
# (a tainted cluster's 43 or 165 bindings contending for one region, bench karmada-1k-10k) ran its
# class model to the whole budget, 3 to 5 CPU seconds, or to the wall clock under load, so its
# answer depended on the machine; scaled, the budget cuts it at the same point on any machine. The
# parts of the bench hubs (1,000 x 1,000 and up) build no class model (capacity_model._MOST_ARCS).
_FULL_BUDGET_UNITS = 2_000
_LEAST_UNITS = 40


def part_budget(budget: float, deciding: int) -> float:
    """The deterministic budget of a part with `deciding` units to decide."""
    return budget * min(1.0, max(deciding, _LEAST_UNITS) / _FULL_BUDGET_UNITS)


def _rows_drawn(capacity: CapacityProblem) -> list[np.ndarray]:
    """Per unit, the cluster rows it may add replicas on (joint.draws' keys): a fixed unit's
    footprint, another's candidates under every option (units with the same candidates share one
    array)."""
    out = []
    for unit in capacity.units:
        if unit.fixed is not None:
            taken = [row for row, _ in added(unit, Placed(-1, unit.fixed))] if any(unit.demand) else []
            out.append(np.asarray(sorted(taken), dtype=np.int64))
            continue
        out.append(candidate_rows(capacity, unit.options))
    return out


def _cluster_components(clusters: int, rows: Sequence[np.ndarray]) -> np.ndarray:
    """Per cluster, the least cluster it is connected to through units drawing on both: each
    round every unit takes the least label of its clusters and gives it to them all, then labels
    jump to their label's label, until nothing changes (a few rounds: units are wide)."""
    label = np.arange(clusters, dtype=np.int64)
    used = list({id(r): r for r in rows if len(r)}.values())  # a shared array connects its rows once
    if not used:
        return label
    flat = np.concatenate(used)
    lengths = np.asarray([len(r) for r in used], dtype=np.int64)
    starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    order = np.argsort(flat, kind="stable")
    drawn, first = np.unique(flat[order], return_index=True)
    while True:
        least = np.minimum.reduceat(label[flat], starts)
        given = np.repeat(least, lengths)[order]
        new = label.copy()
        new[drawn] = np.minimum(label[drawn], np.minimum.reduceat(given, first))
        while True:  # jump: a label's own label is at most it
            jumped = new[new]
            if np.array_equal(jumped, new):
                break
            new = jumped
        if np.array_equal(new, label):
            return label
        label = new


def _fits(room: np.ndarray, rows: np.ndarray, demand: Sequence[int]) -> np.ndarray:
    from solver.replicas.capacity_fill import fits_on

    return fits_on(room, np.asarray(rows, dtype=np.int64), np.asarray(demand, dtype=np.int64))


def _placed(problem: ReplicaProblem, i: int, outcome: Answer | Failed | None) -> Placed | None:
    """Greedy's answer in the joint's terms: the option is the tier past greedy's own (0), the
    replicas by row (EVERY: one per cluster, the set it runs)."""
    if not isinstance(outcome, Answer):
        return None
    index = problem.filters.index
    replicas = [(index[name], 1 if n is None else n) for name, n in outcome.entries]
    option = 0 if _flexible(problem, i, outcome) else -1
    return Placed(option, tuple(sorted((row, n) for row, n in replicas if n)))


def _whole_set(problem: ReplicaProblem, i: int, outcome: Answer) -> bool:
    """A request of parts run whole (EVERY) on the one cluster greedy chose, holding at most one
    now, whose selection reads room: the joint places its one set on any one candidate."""
    replicas = problem.requests[i].replicas
    return (
        bool(replicas.parts)
        and replicas.division is Division.EVERY
        and replicas.spread_by_room
        and len(outcome.entries) == 1
        and len(problem.held(i)) <= 1
    )


def _flexible(problem: ReplicaProblem, i: int, outcome: Answer) -> bool:
    """Whether the joint may place the request elsewhere than greedy: a dynamic division that
    adds replicas (a steady one holding its count or more adds none: it is greedy's), or a whole
    set."""
    replicas = problem.requests[i].replicas
    if _whole_set(problem, i, outcome):
        return True
    if replicas.division not in (Division.AVAILABLE, Division.AGGREGATED) or replicas.unlimited:
        return False
    if replicas.count < 1:  # a count below 1 places nothing but what it keeps
        return False
    return replicas.fresh or _kept(outcome.candidates) < replicas.count


def _kept(c: Candidates) -> int:
    """The replicas a steady request keeps on the candidates (its option's kept): those it holds
    where it holds more than 0 (a negative entry, which upstream's sums count, keeps nothing)."""
    return int(c.held[c.held > 0].sum())


def _capacity_problem(
    problem: ReplicaProblem,
    outcomes: Sequence[Answer | Failed | None],
    twin: Sequence[int],
    later_tiers: bool = True,
) -> CapacityProblem:
    estimator = problem.estimator
    resources = sorted(
        set(estimator.column) | {name for r in problem.requests for name in footprint(r.replicas)}
    )
    free = np.zeros((len(problem.batch.clusters), len(resources)), dtype=np.int64)
    for j, name in enumerate(resources):
        if name in estimator.column:
            free[:, j] = estimator.free[:, estimator.column[name]]
    free[~estimator.reports] = 0
    units: list[Unit] = []
    shared = _Shared()
    for i, outcome in enumerate(outcomes):
        if twin[i] == i:
            units.append(_unit(problem, i, outcome, resources, later_tiers, shared))
        else:  # the same unit but for its place in the queue (the options are shared)
            replicas = problem.requests[i].replicas
            units.append(replace(units[twin[i]], priority=replicas.priority, order=replicas.order))
    return CapacityProblem(free, tuple(units))


def _unit(
    problem: ReplicaProblem,
    i: int,
    outcome: Answer | Failed | None,
    resources: list[str],
    later_tiers: bool,
    shared: _Shared,
) -> Unit:
    replicas = problem.requests[i].replicas
    unit_demand = footprint(replicas)
    demand = tuple(0 if replicas.idle else unit_demand.get(name, 0) for name in resources)
    common = dict(fresh=replicas.fresh, priority=replicas.priority, order=replicas.order)
    if not isinstance(outcome, Answer):
        return Unit(replicas.count, demand, replicas.division, **common)
    if _whole_set(problem, i, outcome):  # one set, on any one candidate the set fits
        options = [_option(problem, i, outcome.candidates, _placed(problem, i, outcome).replicas, 0, shared)]
        for tier in range(outcome.tier + 1, len(replicas.tiers) if later_tiers else 0):
            later = attempt(problem, i, tier)
            if isinstance(later, Answer) and len(later.entries) == 1:
                split = _placed(problem, i, later).replicas
                options.append(_option(problem, i, later.candidates, split, tier - outcome.tier, shared))
        return Unit(1, demand, Division.AVAILABLE, tuple(options), **common)
    greedy = _placed(problem, i, outcome)
    if greedy.option < 0:
        held = tuple(sorted(problem.held(i).items()))
        if replicas.division is Division.EVERY:
            held = tuple((row, 1) for row, _ in held)
        return Unit(replicas.count, demand, replicas.division, fixed=greedy.replicas, held=held, **common)
    options = [_option(problem, i, outcome.candidates, greedy.replicas, 0, shared)]
    for tier in range(outcome.tier + 1, len(replicas.tiers) if later_tiers else 0):
        later = attempt(problem, i, tier)
        if isinstance(later, Answer) and (replicas.fresh or _kept(later.candidates) <= replicas.count):
            split = _placed(problem, i, later).replicas
            options.append(_option(problem, i, later.candidates, split, tier - outcome.tier, shared))
    return Unit(replicas.count, demand, replicas.division, tuple(options), **common)


class _Shared:
    """Tuples of equal content made once and shared: many requests have the same candidates (and
    the same caps, and groups over them), and a tuple of a thousand ints per request and option
    was most of the peak memory at 10,000 x 50,000."""

    def __init__(self) -> None:
        self._made: dict[object, tuple] = {}

    def ints(self, values: np.ndarray) -> tuple[int, ...]:
        values = np.ascontiguousarray(values, dtype=np.int64)
        key = values.tobytes()
        got = self._made.get(key)
        if got is None:
            got = self._made[key] = tuple(values.tolist())
        return got

    def groups_of(self, problem: ReplicaProblem, claim: str, rows: tuple[int, ...]) -> tuple[int, ...]:
        """Per candidate, the index of its value of `claim` among the candidates' values, sorted."""
        key = (claim, id(rows))  # rows are shared: one tuple per content, alive as long as this
        got = self._made.get(key)
        if got is None:
            clusters = problem.batch.clusters
            of = [clusters[row].claims.get(claim, "") for row in rows]
            index = {value: k for k, value in enumerate(sorted(set(of)))}
            got = self._made[key] = self.ints(np.asarray([index[v] for v in of], dtype=np.int64))
        return got


def _option(problem: ReplicaProblem, i: int, c: Candidates, target, cost: int, shared: _Shared) -> Option:
    rows = shared.ints(c.rows)
    at = np.flatnonzero(c.held > 0)
    held = tuple(sorted(zip(c.rows[at].tolist(), c.held[at].tolist(), strict=True)))
    if problem.requests[i].replicas.parts:  # a set held runs there whole (its entry has no number)
        holds = problem.held(i)
        held = tuple((row, 1) for row in rows if row in holds)
    groups = []
    for spread in problem.requests[i].replicas.groups:
        if not spread.selects:
            continue
        if spread.claim:
            of = shared.groups_of(problem, spread.claim, rows)
        else:
            of = shared.ints(np.arange(len(rows), dtype=np.int64))
        groups.append(Groups(of, spread.min_groups, spread.max_groups))
    most = shared.ints(c.estimate)
    return Option(rows, held, tuple(sorted(target)), most, tuple(groups), cost)


def solve_capacity(
    batch: Batch,
    requests: Sequence[PlacementRequest],
    *,
    mode: str,
    seed: int,
    budget: float,
    deadline: float,
) -> tuple[list[RequestResult], SolveStats]:
    """Results for the requests with replicas (in the given order) and the statistics of their
    solve: greedy as upstream, or (optimal) each part jointly. The statistics' objective is the
    requests fully scheduled (the first level), its bound the most that can be."""
    started = time.perf_counter()
    problem = ReplicaProblem(batch, requests)
    optimal = mode == "optimal"
    coupling = ReplicaCapacity(problem, seed=seed, budget=budget, deadline=deadline, joint=optimal)
    final: Joint = [None] * len(problem.requests)
    scheduled = most = 0
    proven = True
    summed: tuple[LevelStats, ...] = ()
    for part, answer in decide(coupling, optimal):
        requests_of = coupling.requests_of(part)
        for i in requests_of:
            final[i] = answer[i]
        levels = coupling.levels(part, answer)
        summed = added_levels(summed, levels.stats(level_names(coupling.capacity)))
        first = len(coupling.capacity.priorities)
        unscheduled = sum(levels.values[:first])
        least = sum(levels.bound[:first]) if levels.bound is not None else 0
        flexible = sum(1 for i in requests_of if coupling.capacity.units[i].fixed is None)
        scheduled += flexible - unscheduled
        most += flexible - least
        proven &= levels.proven
    # Every level, in order, parts or none (decide's greedy has built the problem).
    summed = added_levels(zero_levels(level_names(coupling.capacity), proven=optimal), summed)
    room = room_after_fixed(coupling.capacity, range(len(final)))
    for i, placed in enumerate(final):
        if placed is not None and coupling.capacity.units[i].fixed is None:
            for row, n in added(coupling.capacity.units[i], placed):
                room[row] -= n * np.asarray(coupling.capacity.units[i].demand, dtype=np.int64)
    results = [coupling.result(i, final, np.maximum(room, 0)) for i in range(len(final))]
    wall = time.perf_counter() - started
    stats = SolveStats(
        mode=mode,
        status="GREEDY" if not optimal else ("OPTIMAL" if proven else "FEASIBLE"),
        objective=scheduled if optimal else 0,
        bound=most if optimal else None,
        gap=(most - scheduled) / max(1, scheduled) if optimal else None,
        wall_seconds=wall,
        solve_seconds=coupling.solve_seconds,
        time_limited=coupling.time_limited,
        models=coupling.models,
        levels=summed,
    )
    return results, stats
