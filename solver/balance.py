"""Balance: a score that couples the requests of a batch through how many decisions sit on a cluster.

For request q and cluster c, let n be the decisions of every other request on c (plus the outside
load: decisions of requests not in the batch) and m the largest such count over the fleet. The
balance score is 2 * trunc(100 * (0.5 - n / m)), or 100 where n is 0: the busiest clusters score
-100, idle ones 100. A request's weight multiplies it into its affinity level.

Greedy (upstream): requests are decided one at a time, in batch order. Each sees the others as
they stand at that moment: the requests before it with their new answer, those after it with what
they held. So the answer depends on the order, and a request decided early is judged against a
stale picture.

Optimal: every balance score is judged on the batch's own final decisions, and the batch objective
is the sum of the requests' objectives so judged (solver.objective). No CP-SAT model: the score is
a ratio to a fleet-wide maximum, truncated, over placements x clusters pairs; instead a local
search by best responses starts from the greedy answer. A request's best response, with the others
fixed, is its own exact optimum (a top-N sort, or the spread solve); it is accepted only where the
batch objective strictly rises, so the search never ends below greedy and cannot cycle. It stops at
a fixed point (no request alone can raise the batch objective) or after a bounded number of sweeps.
The proven bound takes every balance score at its best (100 x |weight|), so a gap usually remains.
A request alone in its batch sees fixed others, so there both modes give the same answer.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from solver.objective import BALANCE_RANGE, Scale, affinity_weight, combine, evaluate, scale_of
from solver.prepare import Prepared
from solver.solution import Solution
from solver.table import ClusterTable

__all__ = ["balance_scores", "Coupled", "solve_coupled", "MAX_SWEEPS"]

MAX_SWEEPS = 20


def balance_scores(others: np.ndarray, most: int) -> np.ndarray:
    """Per cluster: 2 * trunc(100 * (0.5 - n / m)) for n others' decisions, 100 where n is 0."""
    out = np.full(len(others), BALANCE_RANGE, dtype=np.int64)
    if most <= 0:
        return out
    busy = others > 0
    ratio = others[busy].astype(np.float64) / float(most)
    out[busy] = 2 * np.trunc(100.0 * (0.5 - ratio)).astype(np.int64)
    return out


def _weight(p: Prepared) -> int:
    return sum(pref.weight for pref in p.request.preferences if pref.balance)


def holdings(p: Prepared, table: ClusterTable) -> np.ndarray:
    """The rows a request holds before this solve (its decisions as the others see them)."""
    rows = [table.index[d.cluster] for d in p.request.existing if d.cluster in table.index]
    return np.asarray(sorted(set(rows)), dtype=np.int64)


def selected_rows(solution: Solution) -> np.ndarray:
    return np.asarray(sorted([*solution.kept, *solution.picks]), dtype=np.int64)


@dataclass(slots=True)
class Coupled:
    """One coupled request's answer: the solution, the request as it was scored for it, and its
    objective value and proven bound."""

    solution: Solution
    scored: Prepared
    value: int
    bound: int


class _Batch:
    """The decision counts of the whole batch and the coupled requests' current answers."""

    def __init__(self, table: ClusterTable, coupled: Sequence[int], base: Sequence[Prepared]) -> None:
        self.table = table
        self.coupled = list(coupled)
        self.base = base
        self.scales: dict[int, Scale] = {i: scale_of(base[i], table) for i in coupled}
        self.weights = [_weight(base[i]) for i in coupled]
        self.worth = [affinity_weight(self.scales[i].spans) for i in coupled]  # Python ints: exact
        self.totals = table.load.copy()
        self.members: dict[int, np.ndarray] = {}  # every request's decisions (they count)
        self.picks: dict[int, np.ndarray] = {}  # coupled requests' new picks (they are scored)

    def others(self, i: int) -> np.ndarray:
        others = self.totals.copy()
        others[self.members.get(i, np.empty(0, np.int64))] -= 1
        return others

    def scored(self, i: int) -> Prepared:
        """Request i with its balance scores against the others as they stand."""
        p = self.base[i]
        others = self.others(i)
        bonus = _weight(p) * balance_scores(others, int(others.max()) if len(others) else 0)
        return replace(p, affinity=p.affinity + bonus)

    def move(self, i: int, solution: Solution | None, rows: np.ndarray | None = None) -> None:
        """Request i now holds the solution's clusters (or `rows`, before anything is decided)."""
        rows = selected_rows(solution) if solution is not None else rows
        old = self.members.get(i)
        if old is not None:
            np.subtract.at(self.totals, old, 1)
        np.add.at(self.totals, rows, 1)
        self.members[i] = rows
        if solution is not None:
            self.picks[i] = np.asarray(solution.picks, dtype=np.int64)

    def balance_value(self) -> int:
        """Sum over coupled requests of worth x weight x (the balance scores of their picks)."""
        if not self.coupled or not len(self.totals):
            return 0
        k = range(len(self.coupled))
        totals = self.totals
        most = int(totals.max())
        at_most = totals == most
        # A request holding every busiest cluster sees one less there: its own decisions do not count.
        held_owner = np.concatenate(
            [np.full(len(self.members[i]), j, np.int64) for j, i in zip(k, self.coupled, strict=True)]
        )
        held_rows = np.concatenate([self.members[i] for i in self.coupled])
        holds_all = np.bincount(held_owner, weights=at_most[held_rows], minlength=len(self.coupled))
        own_most = most - (holds_all >= int(at_most.sum())).astype(np.int64)
        owner = np.concatenate(
            [np.full(len(self.picks[i]), j, np.int64) for j, i in zip(k, self.coupled, strict=True)]
        )
        rows = np.concatenate([self.picks[i] for i in self.coupled])
        others = totals[rows] - 1
        limit = own_most[owner]
        scores = np.full(len(rows), BALANCE_RANGE, dtype=np.int64)
        busy = (others > 0) & (limit > 0)
        scores[busy] = 2 * np.trunc(100.0 * (0.5 - others[busy] / limit[busy])).astype(np.int64)
        per_request = np.bincount(owner, weights=scores, minlength=len(self.coupled)).astype(np.int64)
        return sum(
            w * v * int(s) for w, v, s in zip(self.worth, self.weights, per_request.tolist(), strict=True)
        )

    def static_value(self, i: int, solution: Solution) -> int:
        """The request's combined objective without its balance scores."""
        scale = self.scales[i]
        return combine(evaluate(self.base[i], self.table, scale, solution.kept, solution.picks), scale.spans)


Respond = Callable[[Prepared, Scale], tuple[Solution, int]]


def solve_coupled(
    prepared: Sequence[Prepared],
    table: ClusterTable,
    coupled: Sequence[int],
    fixed: dict[int, Solution],
    greedy: Callable[[Prepared], Solution],
    best_response: Respond | None,
    *,
    deadline: float,
) -> tuple[dict[int, Coupled], bool]:
    """Answers for the coupled requests (indices into `prepared`, in batch order), given every
    other request's solution in `fixed`. With `best_response` (a request's own optimum and proven
    bound, others fixed) the greedy answer is improved; without it, greedy is the answer. Returns
    the answers and whether the wall clock cut the search."""
    state = _Batch(table, coupled, prepared)
    is_coupled = set(coupled)
    for i, p in enumerate(prepared):  # before anything is decided, everyone holds what it held
        state.move(i, None, holdings(p, table))

    answers: dict[int, Solution] = {}
    seen: dict[int, Prepared] = {}
    for i in range(len(prepared)):  # greedy, as upstream: one request at a time in batch order
        if i in is_coupled:
            seen[i] = state.scored(i)
            answers[i] = greedy(seen[i])
            state.move(i, answers[i])
        else:
            state.move(i, fixed[i])

    time_limited = False
    if best_response is not None:
        time_limited = _improve(state, answers, best_response, deadline)

    out: dict[int, Coupled] = {}
    for i in coupled:
        final = state.scored(i)  # judged on everyone else's final decisions
        solution = answers[i]
        value = combine(
            evaluate(final, table, state.scales[i], solution.kept, solution.picks), state.scales[i].spans
        )
        bound = value
        if best_response is not None:
            p = prepared[i]
            ceiling = replace(p, affinity=p.affinity + BALANCE_RANGE * abs(_weight(p)))
            bound = max(value, best_response(ceiling, state.scales[i])[1])
        out[i] = Coupled(solution, final if best_response is not None else seen[i], value, bound)
    return out, time_limited


def _improve(state: _Batch, answers: dict[int, Solution], best_response: Respond, deadline: float) -> bool:
    """Best responses, each kept only where the batch objective strictly rises. True when the
    wall clock cut the search."""
    own = {i: state.static_value(i, answers[i]) for i in state.coupled}
    for _ in range(MAX_SWEEPS):
        improved = False
        for i in state.coupled:
            if time.perf_counter() > deadline:
                return True
            candidate, _ = best_response(state.scored(i), state.scales[i])
            if np.array_equal(selected_rows(candidate), state.members[i]):
                continue
            current = answers[i]
            before = state.balance_value()
            state.move(i, candidate)
            value = state.static_value(i, candidate)
            if value - own[i] + state.balance_value() - before > 0:
                answers[i], own[i] = candidate, value
                improved = True
            else:
                state.move(i, current)
        if not improved:
            break
    return False
