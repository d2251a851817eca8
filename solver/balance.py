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
from functools import lru_cache

import numpy as np

from model import SelectionMode
from solver.objective import BALANCE_RANGE, Scale, affinity_weight, combine, evaluate, scale_of
from solver.prepare import PASS, Prepared
from solver.solution import Solution, pick_values
from solver.table import ClusterTable

__all__ = ["balance_scores", "Coupled", "solve_coupled", "MAX_SWEEPS"]

MAX_SWEEPS = 20
_NONE = np.empty(0, dtype=np.int64)


@lru_cache(maxsize=256)
def _table_of(most: int) -> np.ndarray:
    """Balance score for n = 0..most others' decisions, against the busiest count `most`."""
    out = np.full(most + 1, BALANCE_RANGE, dtype=np.int64)
    if most > 0:
        n = np.arange(1, most + 1, dtype=np.float64)
        out[1:] = 2 * np.trunc(100.0 * (0.5 - n / float(most))).astype(np.int64)
    out.setflags(write=False)
    return out


def balance_scores(others: np.ndarray, most: int) -> np.ndarray:
    """Per cluster: 2 * trunc(100 * (0.5 - n / m)) for n others' decisions (n <= m), 100 where n
    is 0. Looked up, not computed: there are only m + 1 distinct values."""
    return _table_of(max(most, 0))[others]


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
    """The decision counts of the whole batch, every request's decisions, and the coupled
    requests' balance scores, kept up to date move by move."""

    def __init__(self, table: ClusterTable, coupled: Sequence[int], base: Sequence[Prepared]) -> None:
        self.table = table
        self.coupled = list(coupled)
        self.position = {i: k for k, i in enumerate(self.coupled)}
        self.base = base
        self.scales: dict[int, Scale] = {i: scale_of(base[i], table) for i in coupled}
        # What one unit of balance score is worth in each coupled request's objective: exact ints.
        self.worth = [_weight(base[i]) * affinity_weight(self.scales[i].spans) for i in coupled]
        self.totals = table.load.copy()
        self.members: dict[int, np.ndarray] = {}  # every request's decisions (they count)
        self.picks: dict[int, np.ndarray] = {}  # coupled requests' new picks (they are scored)
        self.scores = [0] * len(self.coupled)  # per coupled request: its picks' balance scores, summed
        self.holders: dict[int, set[int]] = {}  # row -> coupled positions picking it
        self.member_holders: dict[int, set[int]] = {}  # row -> coupled positions holding it
        self.limits: tuple[int, frozenset[int]] = (0, frozenset())
        self.value = 0  # sum of worth x scores, once scoring has begun
        self.scoring = False
        self.most_held = 0  # at least the most decisions any coupled request holds

    # -- the others as one request sees them -------------------------------------------------

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

    # -- moves ---------------------------------------------------------------------------------

    def hold(self, i: int, rows: np.ndarray) -> None:
        """Before anything is decided: request i holds these rows (they count, nothing is scored)."""
        np.add.at(self.totals, rows, 1)
        self.members[i] = rows
        k = self.position.get(i)
        if k is not None:
            for row in rows.tolist():
                self.member_holders.setdefault(row, set()).add(k)

    def move(self, i: int, solution: Solution) -> None:
        """Request i now holds the solution's clusters; the balance value follows."""
        rows = selected_rows(solution)
        old = self.members[i]
        before = self._limits() if self.scoring else None
        np.subtract.at(self.totals, old, 1)
        np.add.at(self.totals, rows, 1)
        self.members[i] = rows
        k = self.position.get(i)
        if k is not None:
            for row in old.tolist():
                self.member_holders[row].discard(k)
            for row in rows.tolist():
                self.member_holders.setdefault(row, set()).add(k)
            for row in self.picks.get(i, np.empty(0, np.int64)).tolist():
                self.holders[row].discard(k)
            self.picks[i] = np.asarray(solution.picks, dtype=np.int64)
            for row in self.picks[i].tolist():
                self.holders.setdefault(row, set()).add(k)
            self.most_held = max(self.most_held, len(rows))
        if not self.scoring:
            return
        self.limits = self._limits()
        if self.limits == before:
            # Everyone's busiest count is as it was: only the requests picking a changed cluster
            # (and the mover) see different scores.
            changed = np.setxor1d(old, rows).tolist()
            affected = set().union(*(self.holders.get(r, ()) for r in changed))
            if k is not None:
                affected.add(k)
            self._rescore(sorted(affected))
        else:
            self._rescore_all()

    def _limits(self) -> tuple[int, frozenset[int]]:
        """The fleet's busiest count, and the coupled requests that hold every busiest cluster
        (their own decisions do not count, so they see one less)."""
        if not len(self.totals):
            return 0, frozenset()
        most = int(self.totals.max())
        busiest = np.flatnonzero(self.totals == most)
        if most == 0 or len(busiest) > self.most_held:
            return most, frozenset()
        holding: set[int] | None = None
        for row in busiest.tolist():  # those holding every busiest row: intersect until none is left
            holders = self.member_holders.get(row, set())
            holding = set(holders) if holding is None else holding & holders
            if not holding:
                break
        return most, frozenset(holding or ())

    def begin_scoring(self) -> None:
        """From now on keep the balance value up to date (the greedy pass needs none)."""
        self.scoring = True
        self.most_held = max((len(self.members[i]) for i in self.coupled), default=0)
        self.limits = self._limits()
        self._rescore_all()

    def _rescore_all(self) -> None:
        """Every coupled request's balance scores at once (someone's busiest count changed)."""
        if not len(self.totals) or not self.coupled:
            return
        most, holding = self.limits
        picks = [self.picks.get(i, _NONE) for i in self.coupled]
        owner = np.repeat(np.arange(len(picks)), [len(x) for x in picks])
        rows = np.concatenate(picks)
        own_most = np.full(len(picks), most, dtype=np.int64)
        own_most[list(holding)] -= 1
        others = self.totals[rows] - 1
        limit = own_most[owner]
        scores = np.full(len(rows), BALANCE_RANGE, dtype=np.int64)
        busy = (others > 0) & (limit > 0)
        scores[busy] = 2 * np.trunc(100.0 * (0.5 - others[busy] / limit[busy])).astype(np.int64)
        self.scores = np.bincount(owner, weights=scores, minlength=len(picks)).astype(np.int64).tolist()
        self.value = sum(w * v for w, v in zip(self.worth, self.scores, strict=True))

    def _rescore(self, positions) -> None:
        most, holding = self.limits
        for k in positions:
            picks = self.picks.get(self.coupled[k])
            if picks is None:
                continue
            own_most = most - (k in holding)
            score = int(balance_scores(self.totals[picks] - 1, own_most).sum())
            self.value += self.worth[k] * (score - self.scores[k])
            self.scores[k] = score

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
    explain: Callable[[Prepared, Solution], Solution],
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
        state.hold(i, holdings(p, table))

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
            solution = explain(final, solution)
            p = prepared[i]
            ceiling = replace(p, affinity=p.affinity + BALANCE_RANGE * abs(_weight(p)))
            bound = max(value, best_response(ceiling, state.scales[i])[1])
        out[i] = Coupled(solution, final if best_response is not None else seen[i], value, bound)
    return out, time_limited


def _improve(state: _Batch, answers: dict[int, Solution], best_response: Respond, deadline: float) -> bool:
    """Best responses, each kept only where the batch objective strictly rises. A request is
    asked again only when an accepted move since it was last asked touched one of its candidates
    or changed the busiest count. True when the wall clock cut the search."""
    state.begin_scoring()
    own = {i: state.static_value(i, answers[i]) for i in state.coupled}
    passing = {i: state.base[i].outcome == PASS for i in state.coupled}
    # When last asked: the worst pick's value of its best response (top-N only), and the rows whose
    # counts bear on it (what it holds and what it would take).
    threshold: dict[int, int | None] = {}
    watch: dict[int, np.ndarray] = {}
    log: list[np.ndarray] = []  # rows each accepted move changed
    asked = dict.fromkeys(state.coupled, -1)  # log length when last asked
    limits = state.limits
    limits_changed_at = 0
    for _ in range(MAX_SWEEPS):
        improved = False
        for i in state.coupled:
            since = asked[i]
            if since >= 0 and limits_changed_at <= since:
                changed = log[since:]
                if not changed:
                    continue
                rows = np.unique(np.concatenate(changed))
                rows = rows[passing[i][rows]]
                if not len(rows) or not _may_enter(state, i, rows, threshold[i], watch[i]):
                    continue
            if time.perf_counter() > deadline:
                return True
            asked[i] = len(log)
            scored = state.scored(i)
            candidate, _ = best_response(scored, state.scales[i])
            threshold[i] = _worst_pick(scored, state.table, candidate)
            rows = selected_rows(candidate)
            old = state.members[i]
            watch[i] = np.union1d(old, rows)
            if np.array_equal(rows, old):
                continue
            current, before = answers[i], state.value
            state.move(i, candidate)
            value = state.static_value(i, candidate)
            if value - own[i] + state.value - before > 0:
                answers[i], own[i] = candidate, value
                log.append(np.setxor1d(old, rows))
                asked[i] = len(log)
                if state.limits != limits:
                    limits, limits_changed_at = state.limits, len(log)
                improved = True
            else:
                state.move(i, current)
        if not improved:
            break
    return False


def _worst_pick(p: Prepared, table: ClusterTable, solution: Solution) -> int | None:
    """For a top-N answer that left candidates out: the value (pick order) of its worst pick,
    which a cluster must beat to get in. None where the answer is not a plain top N."""
    if p.request.spread or p.request.mode is not SelectionMode.N or not solution.picks:
        return None
    if len(solution.picks) >= len(p.candidates):
        return _NOTHING_ENTERS
    return int(pick_values(p, table, np.asarray(solution.picks, dtype=np.int64)).min())


_NOTHING_ENTERS = 2**62


def _may_enter(state: _Batch, i: int, rows: np.ndarray, threshold: int | None, watch: np.ndarray) -> bool:
    """Whether clusters whose counts changed can change what asking request i again gives: one it
    holds or would take changed (its score, or the gain of moving, moved), or one it left out now
    beats the worst pick of its best response."""
    if threshold is None or np.isin(rows, watch).any():
        return True
    if threshold == _NOTHING_ENTERS:
        return False
    p = state.base[i]
    most, holding = state.limits
    own_most = most - (state.position[i] in holding)
    # Rows it does not hold: the others' count is the total.
    bonus = _weight(p) * balance_scores(state.totals[rows], own_most)
    size = max(state.table.size, 1)
    values = ((p.affinity[rows] + bonus) * 2 + p.sticky[rows]) * size + p.rank[rows]
    return bool(values.max() >= threshold)
