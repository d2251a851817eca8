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
search by best responses. It starts from what the requests hold where that is at least as good as
greedy's answer (fewer moves), else from greedy's answer. Every request with a choice takes part,
Balance-weighted or not, since its picks move the others' scores. A request's best response, with
the others fixed, is its own exact optimum (a top-N sort, or the spread solve); it is accepted only
where the batch objective strictly rises, so the search never ends below greedy and cannot cycle.
It stops at a fixed point (no request alone can raise the batch objective) or after a
deterministic number of asks. The proven bound takes every balance score at its best
(100 x |weight|), so a gap usually remains. A request alone in its batch sees fixed others, so
there both modes give the same answer.

It is a coupling (solver.coupling): every request with a choice draws on the busiest count, so
solver.decompose finds them one part; greedy is the pass in batch order, joint the local search.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

import numpy as np

from model import RequestResult, SelectionMode
from solver.balance_bound import at_least, balance_score, ceiling, tighten
from solver.coupling import Levels
from solver.objective import (
    LEVELS,
    LevelSums,
    Scale,
    affinity_weight,
    bound_shortfalls,
    combine,
    evaluate,
    scale_of,
)
from solver.optimal import closed_form
from solver.prepare import PASS, Prepared, pick_key
from solver.solution import Solution, pick_order, pick_values, to_result
from solver.spread import SpreadState
from solver.stickiness import released_obsolete
from solver.table import ClusterTable

__all__ = ["balance_scores", "Balance", "Coupled", "coupled_requests", "MAX_SWEEPS"]

_NO_LEVELS = (0,) * len(LEVELS)  # an alone answer's levels and spans: judged, not measured

MAX_SWEEPS = 20
# Asks (a request's best responses tried) per search, deterministic unlike the wall clock: small
# batches reach a fixed point well within it; on a 10,000 x 2,000 hub the first sweep brings
# 99.99% of the gain over greedy (measured), so a few sweeps of a large batch suffice.
ASKS_PER_REQUEST, MIN_ASKS = 3, 5000
_NONE = np.empty(0, dtype=np.int64)


@lru_cache(maxsize=256)
def _table_of(most: int) -> np.ndarray:
    """Balance score for n = 0..most others' decisions, against the busiest count `most`."""
    out = balance_score(np.arange(most + 1, dtype=np.int64), most)
    out.setflags(write=False)
    return out


def balance_scores(others: np.ndarray, most: int) -> np.ndarray:
    """Per cluster: 2 * trunc(100 * (0.5 - n / m)) for n others' decisions (n <= m), 100 where n
    is 0. Looked up, not computed: there are only m + 1 distinct values."""
    return _table_of(max(most, 0))[others]


def _weight(p: Prepared) -> int:
    return sum(pref.weight for pref in p.request.preferences if pref.balance)


def holdings(p: Prepared, table: ClusterTable, absent: dict[str, int] | None = None) -> np.ndarray:
    """The rows a request holds before this solve (its decisions as the others see them); with
    `absent` (cluster name -> slot past the table), its decisions on clusters not in the batch too.
    Read off what prepare found of them (Prepared.held, elsewhere) where it did."""
    if p.held is not None:
        if not absent or not p.elsewhere:
            return p.held
        slots = {absent[name] for name in p.elsewhere if name in absent}  # all past the table's rows
        return np.concatenate([p.held, np.asarray(sorted(slots), dtype=np.int64)]) if slots else p.held
    if not p.request.existing:
        return _NONE
    rows = {table.index.get(d.cluster, (absent or {}).get(d.cluster, -1)) for d in p.request.existing}
    rows.discard(-1)
    return np.asarray(sorted(rows), dtype=np.int64)


def absent_slots(prepared: Sequence[Prepared], table: ClusterTable) -> dict[str, int]:
    """Clusters not in the batch that still count toward the busiest count (their outside load,
    or decisions the requests held there), each given a slot after the table's rows."""
    names = set(table.absent_load)
    index = table.index
    for p in prepared:
        if p.held is not None:  # prepare named them (Prepared.elsewhere): no decision read again
            names.update(p.elsewhere)
        elif p.request.existing:
            names.update(d.cluster for d in p.request.existing if d.cluster not in index)
    return {name: table.size + j for j, name in enumerate(sorted(names))}


def _among(rows: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Per row, whether it is one of `members` (sorted): a search in them, not np.isin's sort of
    both, for the few rows a request holds."""
    if not len(members):
        return np.zeros(len(rows), dtype=bool)
    at = np.minimum(np.searchsorted(members, rows), len(members) - 1)
    return members[at] == rows


def _found(rows: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Where in `rows` (sorted, each once) the `members` (each once) are: a search of the few
    members in the thousands of rows, where _among searches every row in the members (most of a
    Balance-scored request's scoring)."""
    if not len(members) or not len(rows):
        return _NONE
    at = np.searchsorted(rows, members)
    inside = at < len(rows)
    at = at[inside]
    return at[rows[at] == members[inside]]


def _union(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """np.union1d of two arrays of distinct rows, sorted: the same rows, without np.unique, whose
    masked-array check imports numpy.ma (some 40 ms of the command's CPU, for this alone)."""
    rows = np.concatenate((a, b))
    rows.sort()
    if len(rows) < 2:
        return rows
    keep = np.empty(len(rows), dtype=bool)
    keep[0] = True
    np.not_equal(rows[1:], rows[:-1], out=keep[1:])
    return rows[keep]


def selected_rows(solution: Solution) -> np.ndarray:
    return np.asarray(sorted([*solution.kept, *solution.picks]), dtype=np.int64)


@dataclass(slots=True)
class Coupled:
    """One coupled request's answer: the solution, its result as the request was scored for it
    (made at once, so that no request's scores of every cluster are kept), its objective value
    and proven bound, and its levels with what its bound proves of them."""

    solution: Solution
    result: RequestResult
    value: int
    bound: int
    values: tuple[int, ...]  # its levels as solver.objective.evaluate gives them
    spans: tuple[int, ...]
    least: tuple[int | None, ...] | None  # the shortfalls its bound proves (None: the bound is its value)
    # Asked (Balance's `ordered`), optimal mode: a request under spread holding exactly its answer,
    # which its greedy run on the final decisions picks too (`_greedy_run_holds`).
    ordered: bool = False


class _Batch:
    """The decision counts of the whole batch, every request's decisions, and the coupled
    requests' balance scores, kept up to date move by move."""

    def __init__(
        self,
        table: ClusterTable,
        coupled: Sequence[int],
        base: Sequence[Prepared],
        *,
        alone: bool = False,
    ) -> None:
        # SolveOptions.alone (`_decide`): every request chooses against the counts as held, and
        # nothing moves or is scored after; the moves' slots and who holds each row are not kept.
        self.alone = alone
        self.table = table
        self.coupled = list(coupled)
        self.position = {i: k for k, i in enumerate(self.coupled)}
        self.base = base
        # Each coupled request's objective's scale (none alone: no objective is measured there).
        self.scales = {} if alone else {i: scale_of(base[i], table) for i in coupled}
        self.weight = {i: _weight(base[i]) for i in coupled}  # each coupled request's Balance weight
        self.candidates: dict[int, np.ndarray] = {}  # each coupled request's, once asked
        # What one balance point is worth in each coupled request's objective: exact ints.
        self.worth = [self.weight[i] * affinity_weight(self.scales[i].spans) for i in self.scales]
        # Counts per cluster row, then per cluster not in the batch (they only raise the busiest).
        self.absent = absent_slots(base, table)
        self.totals = np.concatenate(
            [table.load, np.asarray([table.absent_load.get(n, 0) for n in self.absent], dtype=np.int64)]
        )
        self.members: dict[int, np.ndarray] = {}  # every request's decisions (they count)
        self.picks: dict[int, np.ndarray] = {}  # coupled requests' new picks (they are scored)
        self.scores = [0] * len(self.coupled)  # per coupled request: its picks' balance scores, summed
        self.holders: dict[int, set[int]] = {}  # row -> coupled positions picking it
        self.member_holders: dict[int, set[int]] = {}  # row -> coupled positions holding it
        self.limits: tuple[int, frozenset[int]] = (0, frozenset())
        self.value = 0  # sum of worth x scores, once scoring has begun
        self.scoring = False
        self.most_held = 0  # at least the most decisions any coupled request holds
        # most_seen_by's busiest count and how many clusters have it (carried through the moves).
        self._busiest: tuple[int, int] | None = None
        # Every coupled request's picks side by side in fixed slots (-1: empty), so that rescoring
        # them all is one vectorised pass with no per-request Python.
        sizes = (
            [0] * len(self.coupled)
            if alone
            else [
                max(
                    0,
                    min(
                        base[i].request.count - base[i].present,
                        int(np.count_nonzero(base[i].outcome == PASS)),
                    ),
                )
                for i in coupled
            ]
        )
        self.slot = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
        self.flat = np.full(int(self.slot[-1]), -1, dtype=np.int64)
        self.owner = np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)

    # -- the others as one request sees them -------------------------------------------------

    def most_seen_by(self, i: int) -> int:
        """The busiest count request i sees (its own decisions do not count): the fleet's busiest,
        or one less where it holds every busiest cluster."""
        if self.scoring:
            most, holding = self.limits
            return most - 1 if self.position[i] in holding else most
        if not len(self.totals):
            return 0
        known = self._busiest
        if known is None:  # the busiest count as the counts stand, and how many clusters have it
            most = int(self.totals.max())
            known = self._busiest = (most, int(np.count_nonzero(self.totals == most)))
        most, count = known
        held = self.members.get(i, _NONE)
        if most == 0 or count > len(held):
            return most
        # It holds every busiest cluster where as many of its own (distinct) rows have that count.
        return most - 1 if int(np.count_nonzero(self.totals[held] == most)) == count else most

    def bonus(self, i: int, rows: np.ndarray, ordered: bool = False) -> np.ndarray:
        """Request i's weighted balance scores on `rows` (`ordered`: sorted, each once), against
        the others as they stand: 2 * trunc(100 * (0.5 - n / m)) for the others' n decisions on a
        row, read off a table of the m + 1 values."""
        lookup = _table_of(max(self.most_seen_by(i), 0))
        members = self.members.get(i, _NONE)
        if not ordered:
            return self.weight[i] * lookup[self.totals[rows] - _among(rows, members)]
        others = self.totals[rows]  # a copy: its own decisions are taken off below
        others[_found(rows, members)] -= 1
        return self.weight[i] * lookup[others]

    def pick_values(self, i: int, rows: np.ndarray) -> np.ndarray:
        """solver.solution.pick_values of `rows` for request i as scored now, without scoring
        every cluster."""
        p = self.base[i]
        affinity = p.affinity[rows] + self.bonus(i, rows) if self.weight[i] else p.affinity[rows]
        return pick_key(affinity, p.sticky[rows], p.rank[rows], self.table.size)

    def scored(self, i: int) -> Prepared:
        """Request i with its balance scores against the others as they stand (itself where its
        Balance weight is 0: its scores are its own whatever the others hold). Scored on its
        candidates only: nothing reads a score of a cluster it cannot pick."""
        p = self.base[i]
        if not self.weight[i]:
            return p
        candidates = self.candidates.get(i)
        if candidates is None:
            candidates = self.candidates[i] = p.candidates
        affinity = p.affinity.copy()
        affinity[candidates] += self.bonus(i, candidates, ordered=True)
        return p.scored_as(affinity)

    def scored_on(self, i: int, rows: list[int]) -> Prepared:
        """Request i as `scored` gives it, for what reads only the scores of `rows` (its
        objective's values for those picks): the Balance scores are added on those rows alone."""
        p = self.base[i]
        if not self.weight[i] or not rows:
            return p
        picked = np.asarray(rows, dtype=np.int64)
        picked = picked[_among(picked, p.candidates)]  # scored() scores its candidates only
        affinity = p.affinity.copy()
        affinity[picked] += self.bonus(i, picked)
        return p.scored_as(affinity)

    def copy(self) -> _Batch:
        """An independent state as this one stands (what moves change is copied, the rest shared)."""
        other = copy.copy(self)
        other.totals, other.flat = self.totals.copy(), self.flat.copy()
        other.members, other.picks = dict(self.members), dict(self.picks)
        other.candidates, other.scores = dict(self.candidates), list(self.scores)
        other.holders = {row: set(at) for row, at in self.holders.items()}
        other.member_holders = {row: set(at) for row, at in self.member_holders.items()}
        return other

    # -- moves ---------------------------------------------------------------------------------

    def hold(self, i: int, rows: np.ndarray) -> None:
        """Before anything is decided: request i holds these rows (they count, nothing is scored)."""
        self.totals[rows] += 1  # rows are distinct: no ufunc.at needed
        self._busiest = None
        self.members[i] = rows
        k = self.position.get(i)
        if k is not None and not self.alone:  # read only by the moves and the search
            for row in rows.tolist():
                self.member_holders.setdefault(row, set()).add(k)

    def move(self, i: int, solution: Solution) -> None:
        """Request i now holds the solution's clusters; the balance value follows."""
        rows = selected_rows(solution)
        old = self.members[i]
        before = self._limits() if self.scoring else None
        self.totals[old] -= 1
        self.totals[rows] += 1
        self._busiest = None if self.scoring else self._moved_busiest(old, rows)
        self.members[i] = rows
        k = self.position.get(i)
        if k is not None:
            for row in old.tolist():
                self.member_holders[row].discard(k)
            for row in rows.tolist():
                self.member_holders.setdefault(row, set()).add(k)
            gone = self.picks.get(i, _NONE)
            for row in gone.tolist():
                self.holders[row].discard(k)
            self.picks[i] = np.asarray(solution.picks, dtype=np.int64)
            start = int(self.slot[k])
            self.flat[start : int(self.slot[k + 1])] = -1
            self.flat[start : start + len(self.picks[i])] = self.picks[i]
            for row in self.picks[i].tolist():
                self.holders.setdefault(row, set()).add(k)
            self.most_held = max(self.most_held, len(rows))
        if not self.scoring:
            return
        self.limits = self._limits()
        if before is not None and self.limits[0] == before[0]:
            # The busiest count is as it was: only the requests picking a changed cluster, the
            # mover, and those now holding (or no longer holding) every busiest cluster see
            # different scores.
            changed = np.setxor1d(old, rows, assume_unique=True).tolist()
            affected = set().union(*(self.holders.get(r, ()) for r in changed), self.limits[1] ^ before[1])
            if k is not None:
                affected.add(k)
            self._rescore(sorted(affected))
        else:
            self._rescore_all()

    def _moved_busiest(self, old: np.ndarray, rows: np.ndarray) -> tuple[int, int] | None:
        """most_seen_by's busiest count and how many clusters have it, once a request has moved
        from `old` to `rows` (the counts already moved), from what they were: only those rows
        changed, each by one, so the greedy pass reads the fleet's counts once, not once a
        request. None where no cluster is left at the count (read again when next asked)."""
        known = self._busiest
        if known is None:
            return None
        most, count = known
        before, after = set(old.tolist()), set(rows.tolist())
        up, down = sorted(after - before), sorted(before - after)
        risen = self.totals[up].tolist() if up else []
        top = sum(1 for n in risen if n > most)
        if top:  # clusters at the busiest count went up: they alone are above it
            return most + 1, top
        count += sum(1 for n in risen if n == most)
        if down:
            count -= sum(1 for n in self.totals[down].tolist() if n + 1 == most)
        return (most, count) if count else None

    def mark(self, i: int) -> tuple:
        """What a move of coupled request i changes besides the counts and holders (which an undo
        takes back move by move), for `undo`: while scoring, the state as it stands."""
        k = self.position[i]
        start, end = int(self.slot[k]), int(self.slot[k + 1])
        return (
            self.members[i],
            self.picks.get(i),
            self.flat[start:end].copy(),
            list(self.scores),
            self.value,
            self.limits,
            self.most_held,
        )

    def undo(self, i: int, mark: tuple) -> None:
        """Coupled request i's one move since `mark` taken back: the state as it was, what a move
        back to its earlier answer would make again (the same counts, holders, limits and scores,
        each a function of who holds what), without making it again."""
        members, picks, flat, self.scores, self.value, self.limits, self.most_held = mark
        rows, k = self.members[i], self.position[i]
        self.totals[rows] -= 1
        self.totals[members] += 1
        self._busiest = None
        self.members[i] = members
        for row in rows.tolist():
            self.member_holders[row].discard(k)
        for row in members.tolist():
            self.member_holders.setdefault(row, set()).add(k)
        for row in self.picks[i].tolist():
            self.holders[row].discard(k)
        if picks is None:
            del self.picks[i]
        else:
            self.picks[i] = picks
            for row in picks.tolist():
                self.holders.setdefault(row, set()).add(k)
        self.flat[int(self.slot[k]) : int(self.slot[k + 1])] = flat

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
        self.scores = [0] * len(self.coupled)
        self.value = 0
        self._rescore(list(range(len(self.coupled))))

    def _rescore(self, positions: list[int]) -> None:
        """The balance scores of some coupled requests (by position), in one vectorised pass."""
        if not positions or not len(self.totals):
            return
        most, holding = self.limits
        chosen = np.zeros(len(self.coupled), dtype=bool)
        chosen[positions] = True
        used = (self.flat >= 0) & chosen[self.owner]
        rows, owner = self.flat[used], self.owner[used]
        own_most = np.full(len(self.coupled), most, dtype=np.int64)
        own_most[list(holding)] -= 1  # they see one less: their own decisions do not count
        scores = balance_score(self.totals[rows] - 1, own_most[owner])
        sums = np.bincount(owner, weights=scores, minlength=len(self.coupled)).astype(np.int64)
        for k in positions:
            score = int(sums[k])
            self.value += self.worth[k] * (score - self.scores[k])
            self.scores[k] = score

    def static_value(self, i: int, solution: Solution) -> int:
        """The request's combined objective without its balance scores."""
        scale = self.scales[i]
        return combine(evaluate(self.base[i], self.table, scale, solution.kept, solution.picks), scale.spans)


Respond = Callable[[Prepared, Scale], tuple[Solution, int]]

# What every coupled request draws on: the fleet's decision counts, read through the busiest count.
BUSIEST = ("balance", "busiest")


def coupled_requests(prepared: Sequence[Prepared]) -> list[int]:
    """The requests decided together: when some request's scores depend on the others' answers
    (Balance), every request with a choice to make (N clusters) is one of them, since what it
    picks moves those scores even where its own do not depend on them."""
    choosing = [i for i, p in enumerate(prepared) if p.request.mode is SelectionMode.N]
    return choosing if any(prepared[i].request.coupled for i in choosing) else []


@dataclass(slots=True)
class Answer:
    """The batch state and the coupled requests' solutions (by request index), and, once asked,
    each coupled request's settled answer."""

    state: _Batch
    solutions: dict[int, Solution]
    settled: dict[int, Coupled] | None = None


class Balance:
    """The Balance coupling (solver.coupling.Coupling). Its units are the coupled requests
    (indices into `coupled`); every other request's solution is fixed (`fixed`, filled in before
    greedy is asked). Every unit draws on the busiest count, so there is one part: all of them.

    With `best_response` (a request's own optimum and proven bound, others fixed) the joint
    answer improves greedy's; without it (greedy mode) greedy is the answer."""

    def __init__(
        self,
        prepared: Sequence[Prepared],
        table: ClusterTable,
        coupled: Sequence[int],
        fixed: dict[int, Solution],
        greedy: Callable[[Prepared], Solution],
        best_response: Respond | None,
        explain: Callable[[Prepared, Solution], Solution],
        *,
        deadline: float,
        on_sweep: Callable[[int, int], None] | None = None,
        settled: Callable[[], None] | None = None,
        bound: bool = True,
        greedy_is_best: Callable[[Prepared], bool] | None = None,
        alone: bool = False,
        ordered: bool = False,
    ) -> None:
        self.prepared, self.table, self.coupled, self.fixed = prepared, table, list(coupled), fixed
        # SolveOptions.alone: greedy's pass moves no answer into the state (each request sees
        # every other holding what it holds).
        self.alone = alone
        self.ordered = ordered  # report Coupled.ordered (optimal mode; solver.api's Batch.ordered)
        # The proven bound asked (solver.api.SolveOptions.bound): without it the settle makes
        # no ceiling, least shortfall or joint tightening, and each bound is its value.
        self.bound = bound
        self.respond_as_upstream, self.best_response, self.explain = greedy, best_response, explain
        self.deadline, self.on_sweep = deadline, on_sweep
        # Called once every answer is settled: what the caller kept for the solve's asks may go.
        self.settled = settled
        # greedy_is_best(q): where `greedy`'s answer to q is its best response too (the same
        # solve), whose proven value is then that answer's objective.
        self.responses = (
            _Responses(best_response, prepared, table, greedy_is_best) if best_response is not None else None
        )
        self.time_limited = False  # the wall clock cut the search
        # Greedy mode: each request's result as greedy scored it (its scores when it was decided).
        self.reported: dict[int, RequestResult] = {}

    def draws(self) -> list[tuple[tuple[str, str]]]:
        return [(BUSIEST,)] * len(self.coupled)

    def greedy(self) -> Answer:
        """One at a time in batch order, each against the others as they stand."""

        def as_upstream(i: int, state: _Batch) -> Solution:
            scored = state.scored(i)
            solution = self.respond_as_upstream(scored)
            if self.responses is None:
                self.reported[i] = to_result(scored, self.table, solution)
            else:
                self.responses.greedy(i, scored, solution)
            return solution

        return Answer(*_decide(self.prepared, self.table, self.coupled, self.fixed, as_upstream, self.alone))

    def joint(self, part: list[int], greedy: Answer) -> Answer:
        """Best responses from the best start by the batch objective: greedy's answer, or what the
        requests hold where that is a valid answer (greedy's elsewhere), with the requests under
        spread holding too or taking greedy's (a tie goes to the start holding more: less churn,
        and an answer fed back in stays). Both held starts are tried: holding under spread lets
        placements chasing each other's Balance settle (tests/test_ocm_settles.py), and leaving
        it to greedy finds the better answer of the OCM demo. The search only climbs, so the
        answer is never worse than greedy. Continues greedy's state."""
        assert self.best_response is not None and len(part) == len(self.coupled)
        prepared, table, coupled = self.prepared, self.table, self.coupled
        state, answers = greedy.state, greedy.solutions
        greedy_own = own = _own(state, answers)
        best = sum(own.values()) + state.value
        every = {i: _holding(prepared[i], table) for i in coupled}
        plain = {i: h if not prepared[i].request.spread else None for i, h in every.items()}
        # The second start (every request holding) continues the first (those not under spread):
        # the counts and holders are sums, so moving the rest from the first's state is the state
        # made from greedy's (tests/test_balance.py), without moving the first's requests again.
        start, start_own = greedy, greedy_own
        for held in (plain, every) if plain != every else (every,):
            if all(h is None for h in held.values()):
                continue
            if start is not greedy:
                held = {i: h if plain[i] is None else None for i, h in held.items()}
            kept, kept_answers, kept_own = _held_start(start, start_own, held)
            start, start_own = Answer(kept, kept_answers), kept_own
            total = sum(kept_own.values()) + kept.value
            if total >= best:
                state, answers, own, best = kept, kept_answers, kept_own, total
        assert self.responses is not None
        self.time_limited = _improve(state, answers, own, self.responses, self.deadline, self.on_sweep)
        return Answer(state, answers)

    def levels(self, part: list[int], answer: Answer) -> Levels:
        """The objective's levels (LEVEL_NAMES), summed over the coupled requests; greedy (no
        best response) proves nothing."""
        sums = LevelSums()
        for c in self.settle(part, answer).values():
            sums.add(c.values, c.spans, c.least)
        values, bound = sums.levels()
        return Levels(values, bound if self.best_response else None)

    def settle(self, part: list[int], answer: Answer) -> dict[int, Coupled]:
        """Each coupled request's answer judged on everyone else's final decisions, with its value
        and bound (in optimal mode explained against the final scores)."""
        if answer.settled is not None:
            return answer.settled
        state, table = answer.state, self.table
        out: dict[int, Coupled] = {}
        for i in (self.coupled[u] for u in part):
            solution = answer.solutions[i]
            if self.alone:  # SolveOptions.alone: each answer judged alone, no objective measured
                out[i] = Coupled(solution, self.reported[i], 0, 0, _NO_LEVELS, _NO_LEVELS, None)
                continue
            # Judged on everyone else's final decisions; greedy's reported result is made, so
            # only its picks' scores are read.
            final = state.scored(i) if self.best_response is not None else state.scored_on(i, solution.picks)
            spans = state.scales[i].spans
            values = evaluate(final, table, state.scales[i], solution.kept, solution.picks)
            value = combine(values, spans)
            bound = value
            asked = self.ordered and self.responses is not None
            ordered = asked and self._greedy_run_holds(i, final, solution)
            if self.responses is not None:
                solution = self.explain(final, solution)
            if self.responses is not None and self.bound:
                respond = self.responses.of(i)
                most = ceiling(self.prepared[i], state.scales[i], table, state.weight[i], respond)
                bound = max(value, most)
            least = None
            if bound != value:
                least = at_least(
                    bound_shortfalls(values, bound, spans), self.prepared[i], state.scales[i], state.weight[i]
                )
            out[i] = Coupled(
                solution,
                to_result(final, table, solution) if self.best_response is not None else self.reported[i],
                value,
                bound,
                values,
                spans,
                least,
                ordered,
            )
        if self.best_response is not None and self.bound:
            tighten(out, state, self.prepared)
        answer.settled = out
        if self.settled is not None:
            self.settled()
        return out

    def _greedy_run_holds(self, i: int, final: Prepared, solution: Solution) -> bool:
        """Whether request i is under spread, holds exactly its answer (every decision on a
        cluster of the batch), and its greedy run (upstream's sync: `greedy`) on its final scores,
        with those holdings, picks that answer too. The run is made only where the rest holds."""
        p = self.prepared[i]
        if not p.request.spread or not solution.scheduled or p.elsewhere:
            return False
        mine = sorted([*solution.kept, *solution.picks])
        held = {d.cluster for d in p.request.existing}  # (a cluster not in the batch too)
        if len(mine) != len(held) or mine != holdings(p, self.table).tolist():
            return False
        run = self.respond_as_upstream(final)
        return run.scheduled and sorted([*run.kept, *run.picks]) == mine


def _decide(
    prepared: Sequence[Prepared],
    table: ClusterTable,
    coupled: Sequence[int],
    fixed: dict[int, Solution],
    choose: Callable[[int, _Batch], Solution],
    alone: bool = False,
) -> tuple[_Batch, dict[int, Solution]]:
    """A batch state where every request first holds what it held, then, in batch order, each
    coupled request takes `choose(i, state)` and every other its fixed solution (`alone`: each
    chooses against the state where every request holds what it held, which then stays; nothing
    moves and nothing reads the state's scores or scales after, so neither is made: the settle
    judges each answer alone, measuring none)."""
    state = _Batch(table, coupled, prepared, alone=alone)
    for i, p in enumerate(prepared):
        state.hold(i, holdings(p, table, state.absent))
    answers: dict[int, Solution] = {}
    is_coupled = set(coupled)
    for i in range(len(prepared)):
        if i in is_coupled:
            answers[i] = choose(i, state)
            if not alone:
                state.move(i, answers[i])
        elif not alone:
            state.move(i, fixed[i])
    if not alone:
        state.begin_scoring()
    return state, answers


def _held_start(
    greedy: Answer, greedy_own: dict[int, int], held: dict[int, Solution | None]
) -> tuple[_Batch, dict[int, Solution], dict[int, int]]:
    """The start where each coupled request holding a valid answer (`held`) keeps it and every
    other takes greedy's: greedy's state with those requests moved (as _decide would leave it
    from nothing: the counts and holders are sums, the scores made once all are moved), and
    the requests' answers and own values (greedy's where unmoved). `greedy` may be an earlier
    start, whose moved requests then stay moved."""
    state = greedy.state.copy()
    state.scoring = False
    answers, own = dict(greedy.solutions), dict(greedy_own)
    for i in state.coupled:  # batch order
        if held[i] is not None:
            answers[i] = held[i]
            state.move(i, held[i])
            own[i] = state.static_value(i, held[i])
    state.begin_scoring()
    return state, answers, own


def _own(state: _Batch, answers: dict[int, Solution]) -> dict[int, int]:
    """Each coupled request's objective without its balance scores (the state's value holds them)."""
    return {i: state.static_value(i, answers[i]) for i in state.coupled}


def _holding(p: Prepared, table: ClusterTable) -> Solution | None:
    """Keeping exactly what the request holds, where that is a valid answer of a top-N request
    (every held cluster still passes, and there are as many as it can take, or under topology
    spread at most that many within every hard constraint's max skew); None otherwise.

    A request under spread held out of this start would start from greedy's answer instead,
    whatever it held: the search, which only climbs, may then not find its way back to an answer
    it settled on in the previous run (two requests chasing each other's Balance flip between
    two answers on every run: tests/test_balance.py)."""
    if p.request.mode is not SelectionMode.N or p.kept:
        return None
    rows = holdings(p, table)  # clusters in the batch only
    rows = rows[p.outcome[rows] == PASS]
    want = min(p.request.count, len(p.candidates))
    if not want or not len(rows) or len(rows) > want:
        return None
    if p.request.spread and not _within_hard_skew(p, table, rows):
        return None
    if not p.request.spread and len(rows) != want:
        return None
    picks = [int(r) for r in pick_order(p, table, rows)]
    return Solution(
        kept=[],
        picks=picks,
        released=released_obsolete(p, table, picks),
        satisfied=len(picks) >= p.request.count,
    )


def _within_hard_skew(p: Prepared, table: ClusterTable, rows: np.ndarray) -> bool:
    """Whether the rows keep every hard spread constraint within its max skew (nothing is kept:
    _holding's requests hold no current decision, so no skew of theirs is allowed beyond it)."""
    state = SpreadState(table, p.request.spread, rows.tolist())
    return all(
        skew <= d.constraint.max_skew
        for d, skew in zip(state.dimensions, state.skews(), strict=True)
        if d.constraint.hard
    )


def _improve(
    state: _Batch,
    answers: dict[int, Solution],
    own: dict[int, int],
    responses: _Responses,
    deadline: float,
    on_sweep: Callable[[int, int], None] | None = None,
) -> bool:
    """Best responses, each kept only where the batch objective strictly rises (a request's own
    optimum can cost the others more Balance than it gains: then it stays). A request is asked
    again only when a move since it was last asked changed a cluster that can change its answer,
    or the busiest count. True when the wall clock cut the search.

    Measured and left out: also trying, per request, the picks best for the batch (its own score
    less what its picks take from the others' Balance) raised the 1,000 x 1,000 objective by one
    part in 10^8 but moved ten times as many decisions on a re-solve with nothing changed.
    `own` (_own of the start) is updated as moves are taken."""
    asks: dict[int, _Ask] = {}
    moves = 0  # accepted so far
    # Per row, the number of the last accepted move that changed it (-1: none): the rows changed
    # since a request was asked are its candidates moved at or after that number.
    moved_at = np.full(len(state.totals), -1, dtype=np.int64)
    asked = dict.fromkeys(state.coupled, -1)  # moves accepted when last asked
    limits = state.limits
    limits_changed_at = 0

    def accept(i: int, candidate: Solution) -> bool:
        nonlocal limits, limits_changed_at, moves
        old, rows = state.members[i], selected_rows(candidate)
        if np.array_equal(rows, old):
            return False
        before, mark = state.value, state.mark(i)
        state.move(i, candidate)
        value = state.static_value(i, candidate)
        if value - own[i] + state.value - before <= 0:
            state.undo(i, mark)  # the state as a move back to answers[i] would make it again
            return False
        answers[i], own[i] = candidate, value
        moved_at[np.setxor1d(old, rows, assume_unique=True)] = moves
        moves += 1
        if state.limits != limits:
            limits, limits_changed_at = state.limits, moves
        return True

    budget = max(MIN_ASKS, ASKS_PER_REQUEST * len(state.coupled))
    for number in range(MAX_SWEEPS):
        if on_sweep is not None:  # the coupled requests' objective as it stands
            on_sweep(number, sum(own.values()) + state.value)
        improved = False
        for i in state.coupled:
            if budget <= 0:
                return False
            since = asked[i]
            if since >= 0 and limits_changed_at <= since:
                if moves == since:
                    continue
                candidates = state.base[i].candidates
                rows = candidates[moved_at[candidates] >= since]
                if not len(rows) or not asks[i].may_change(state, i, rows):
                    continue
            if time.perf_counter() > deadline:
                return True
            budget -= 1
            scored = state.scored(i)
            candidate = responses.answer(i, scored, state.scales[i])
            asks[i] = _Ask.of(state, i, scored, candidate)
            moved = accept(i, candidate)
            asked[i] = moves
            improved |= moved
        if not improved:
            break
    return False


class _Responses:
    """The coupled requests' best responses, each request's answer on its own scores remembered: a
    request with a Balance weight of 0 is asked as prepared, the same object, every time (its scores
    are its own whatever the others hold), and so is the settle's ceiling of every request; asked
    again so, it gives the same answer. Its greedy turn is on those scores too: where greedy's
    answer is its best response (`greedy_is_best`, the caller's: solver.api answers a request
    needing no search with greedy's own solve), that answer is remembered and the search's asks
    solve nothing. Scores the Balance search made are asked afresh here (asked again on equal
    scores: 2 of 4,635 over the first 30 events of the 10k x 2k hub); the caller's greedy, which
    best responses needing no search are, keeps its own answers on equal scores within one solve
    (solver.api `_Runs`: the greedy pass, the hint and the settle's run ask one set of scores
    three times in a small batch). Not where a CP-SAT search answers (a request under spread
    with no closed form): each search counts as a model, and a wall-clock cut may answer
    otherwise."""

    def __init__(
        self,
        respond: Respond,
        prepared: Sequence[Prepared],
        table: ClusterTable,
        greedy_is_best: Callable[[Prepared], bool] | None = None,
    ) -> None:
        self.respond, self.prepared, self.table = respond, prepared, table
        self.greedy_is_best = greedy_is_best
        self.own: dict[int, tuple[Solution, int | None]] = {}  # value None: greedy's, not yet asked

    def _remembers(self, i: int) -> bool:
        base = self.prepared[i]
        return not (base.request.spread and not closed_form(base, self.table))

    def greedy(self, i: int, p: Prepared, solution: Solution) -> None:
        """Greedy's answer to request i scored as `p`: remembered where `p` is the request as
        prepared and that answer is its best response."""
        gives = self.greedy_is_best is not None and self.greedy_is_best(p)
        if p is self.prepared[i] and gives and self._remembers(i):
            self.own.setdefault(i, (solution, None))

    def answer(self, i: int, p: Prepared, scale: Scale) -> Solution:
        """The best response of request i scored as `p`, the answer alone (what the search reads)."""
        base = self.prepared[i]
        if p is not base or not self._remembers(i):
            return self.respond(p, scale)[0]
        own = self.own.get(i)
        if own is None:
            own = self.own[i] = self.respond(p, scale)
        return own[0]

    def ask(self, i: int, p: Prepared, scale: Scale) -> tuple[Solution, int]:
        """The best response of request i scored as `p` (the request as prepared, or scored by
        the Balance search), and its value."""
        base = self.prepared[i]
        if p is not base or not self._remembers(i):
            return self.respond(p, scale)
        own = self.own.get(i)
        if own is None:
            own = self.own[i] = self.respond(p, scale)
        elif own[1] is None:  # greedy's answer: its value, the objective it proves optimal
            chosen = own[0]
            own = self.own[i] = (
                chosen,
                combine(evaluate(p, self.table, scale, chosen.kept, chosen.picks), scale.spans),
            )
        return own  # type: ignore[return-value]

    def of(self, i: int) -> Respond:
        """Request i's best response as a function of the request and its scale (the ceiling's)."""
        return partial(self.ask, i)


@dataclass(slots=True)
class _Ask:
    """What a request's last ask depended on: the rows it holds or would take, and the value its
    best response's worst pick had (None: any change may matter, and no row is kept)."""

    watch: np.ndarray
    worst: int | None

    @classmethod
    def of(cls, state: _Batch, i: int, scored: Prepared, answer: Solution) -> _Ask:
        """The ask's dependencies. Where its answer is no plain top N (`_worst_pick` None: a
        request under spread, most of the asks that cost) no rows are watched: may_change then
        answers True before it reads them, so their union would be made for nothing."""
        worst = _worst_pick(scored, state.table, answer)
        if worst is None:
            return cls(_NONE, None)
        return cls(_union(state.members[i], selected_rows(answer)), worst)

    def may_change(self, state: _Batch, i: int, rows: np.ndarray) -> bool:
        """Whether clusters whose counts changed can change what asking request i gives: one it
        holds or would take changed (its score, or the gain of moving), or one it left out now
        beats the worst pick of its best response."""
        if self.worst is None:
            return True
        if _among(rows, self.watch).any():
            return True
        if self.worst == _NOTHING_ENTERS:
            return False
        return bool(state.pick_values(i, rows).max() >= self.worst)


def _worst_pick(p: Prepared, table: ClusterTable, solution: Solution) -> int | None:
    """For a top-N answer that left candidates out: the value (pick order) of its worst pick,
    which a cluster must beat to get in. None where the answer is not a plain top N."""
    if p.request.spread or p.request.mode is not SelectionMode.N or not solution.picks:
        return None
    if len(solution.picks) >= len(p.candidates):
        return _NOTHING_ENTERS
    return int(pick_values(p, table, np.asarray(solution.picks, dtype=np.int64)).min())


_NOTHING_ENTERS = 2**62
