"""The bounds proven on the Balance-coupled requests' levels (solver.balance), in optimal mode.

Each coupled request's ceiling (its objective whatever the others hold) and its least shortfall
per level, each a bound for every answer of the batch (`ceiling`, `at_least`: every Balance score
at its best). What the part's summed levels promise is model.LevelStats's (`promised` keeps
it). Where the work is small enough (JOINT_PAIRS), the affinity level's bound is also taken
jointly over the batch (`tighten`), as follows.

The coupled requests pick clusters; request q's affinity level sums, over its picks c, its own
score a[q, c] plus w_q times the Balance score B(n, m) = 2 * trunc(100 * (0.5 - n / m)) (100
where n is 0), where n is the decisions of every other request on c and m the busiest such count
over the fleet as q sees it (its own decisions left out). Its shortfall is K_q * high_q less that
sum (solver.objective: K_q the most new picks, high_q the best a pick can score), so a bound on
the most the summed scores can be, over every answer, is a bound on the summed shortfall.

The relaxation (`most_scored`). Let M be the fleet's busiest count of an answer (every request's
decisions and the outside load counted). Every request sees m in [M - 1, M], and m >= n on every
cluster. The answers are split by M into intervals [lo, hi] covering every M the requests can
make (from the most decisions no coupled pick moves, to that plus every candidate on one
cluster). Within one interval, for every answer:

- B is nondecreasing in m and nonincreasing in n; so a positive weight's score is at most
  B(n, hi), and a negative weight's (which prefers crowded clusters) at least B(n, max(lo - 1,
  n)). Each cluster's score is then a function of its own count alone;
- no cluster holds more than hi decisions, and where no fixed count reaches lo, some cluster in
  the table holds at least lo (it is the busiest).

What remains couples the requests only through each one's pick count (exactly K_q where the
request has no spread constraint, as every answer of it picks that many; at most K_q under
spread), which is dualised with a price sigma_q per request (Lagrange; sigma_q >= 0 for "at
most"): for any prices, the scores of an answer are at most sum_q K_q sigma_q plus, per cluster,
the best set of requests to put there, each scoring a[q, c] - sigma_q plus its weight times its
score at the set's size (solved exactly per cluster, for every size), plus the most that one
cluster forced to the interval's lower end adds (bounded: each member at its best over the
sizes that reach lo). The bound is the largest interval's value, each interval's the least over
the prices tried: prices start at the least score of each request's picks in the answer and take
a fixed number of subgradient steps (Polyak's, toward the answer's own score), so the work, and
the bound, are the same on every run. Where an interval's value is no more than one already
found, it cannot raise the bound and its steps stop. Any prices give a bound: the steps only
make it tighter.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np

from solver.objective import (
    BALANCE_RANGE,
    LEVELS,
    Scale,
    affinity_weight,
    bound_shortfalls,
    combine,
    evaluate,
)
from solver.optimal import closed_form_best
from solver.prepare import Prepared
from solver.solution import Solution
from solver.table import ClusterTable

__all__ = ["ceiling", "at_least", "tighten", "promised", "Pairs", "most_scored", "JOINT_PAIRS"]


def ceiling(
    p: Prepared,
    scale: Scale,
    table: ClusterTable,
    weight: int,
    best_response: Callable[[Prepared, Scale], tuple[Solution, int]],
) -> int:
    """A bound on the request's objective whatever the others hold: its best answer with every
    Balance score at its best (100 x |weight| on every candidate). One amount added to every
    candidate's score leaves the best answer where it is (the levels above affinity read no
    score, and answers alike there take as many picks), so where the request's own best
    response (no Balance) is proven optimal, the ceiling's is that answer raised by the amount
    on each pick: asked once, on the arrays its shared ranking serves. A request under spread that
    a closed form solves (the best response's own answer, exact) is read off that closed form
    alone: its value is all this reads, and the answer's scores would cost as much again."""
    shift = BALANCE_RANGE * abs(weight)
    closed = closed_form_best(p, table, scale)
    if closed is not None:
        value, picks = closed
        return value + shift * picks * affinity_weight(scale.spans)
    best, bound = best_response(p, scale)
    # Under no spread constraint the best response is a top-N sort, its bound its value.
    proven = not p.request.spread or bound == combine(
        evaluate(p, table, scale, best.kept, best.picks), scale.spans
    )
    if proven:
        return bound + shift * len(best.picks) * affinity_weight(scale.spans)
    return best_response(replace(p, affinity=p.affinity + shift), scale)[1]


def at_least(least: tuple[int | None, ...], p: Prepared, scale: Scale, weight: int) -> tuple[int | None, ...]:
    """A coupled request's least shortfall per level: what its combined bound proves (a level
    after one its answer does not hold at the bound's digit proves nothing there), or, where
    greater or where that proves nothing, what no answer can beat whatever the other levels and
    requests hold. For affinity, its best picks with every Balance score at its best; for
    obsolete, as many picks as it has candidates holding an older decision; for the name, the
    best-ranked candidates. Each is its own level's bound for every answer, alone."""
    candidates = p.candidates
    picks = min(scale.picks, len(candidates))
    best = _largest(p.affinity[candidates] + BALANCE_RANGE * abs(weight), picks)
    ranks = _largest(p.rank[candidates], picks)
    spans, offsets = scale.spans, scale.offsets
    unconditional = (
        None,
        None,
        spans[2] - offsets[2] - int(np.maximum(best, 0).sum()),  # fewer picks where scores are negative
        spans[3] - min(picks, int(np.count_nonzero(p.sticky[candidates]))),
        spans[4] - int(ranks.sum()),
    )
    return tuple(
        b if a is None else a if b is None else max(a, b) for a, b in zip(least, unconditional, strict=True)
    )


def _largest(values: np.ndarray, k: int) -> np.ndarray:
    """The k largest values, in no order (a partition, not a sort: k is a request's few picks)."""
    if k <= 0:
        return values[:0]
    return np.partition(values, len(values) - k)[len(values) - k :]


# The joint bound is taken where the coupled requests have at most this many candidate pairs
# (its work grows with them, and with the busiest counts it covers: about 0.3 cpu s at 10,000
# pairs; a step is a pass over every pair and every cluster's best sets).
JOINT_PAIRS = 10_000
# Subgradient steps: at the answer's own busiest count, then at most per other interval.
FIRST_STEPS, LATER_STEPS = 12, 4
# Forced clusters refined exactly (the rest keep their coarse bound), per evaluation.
_REFINED = 16
_NEVER = -(2**62)


@dataclass(frozen=True, slots=True)
class Pairs:
    """The coupled requests' candidates, flat: pair j is request `request[j]` on table row
    `row[j]`, its own (Balance-free) score `affinity[j]`; pairs are grouped by request."""

    request: np.ndarray  # int64 per pair
    row: np.ndarray  # int64 per pair
    affinity: np.ndarray  # int64 per pair
    picks: np.ndarray  # int64 per request: the most new picks (K_q)
    exact: np.ndarray  # bool per request: every answer makes exactly K_q picks (no spread)
    weight: np.ndarray  # int64 per request: its Balance weight
    base: np.ndarray  # int64 per table row: decisions no coupled pick moves
    outside: int  # the most decisions on a cluster outside the table (fixed)
    start: np.ndarray  # int64 per request: the least its answer's picks score (where prices start)
    scored: int  # what the answer's picks score together (the steps aim below the bound toward it)


def balance_score(n: np.ndarray, m: np.ndarray | int) -> np.ndarray:
    """B(n, m) = 2 * trunc(100 * (0.5 - n / m)) in float64, elementwise (n <= m); 100 where n or
    m is 0. The one formula: solver.balance scores with it too."""
    n, m = np.broadcast_arrays(np.asarray(n, dtype=np.int64), np.asarray(m, dtype=np.int64))
    out = np.full(n.shape, BALANCE_RANGE, dtype=np.int64)
    busy = (n > 0) & (m > 0)
    out[busy] = 2 * np.trunc(100.0 * (0.5 - n[busy] / m[busy])).astype(np.int64)
    return out


@dataclass(slots=True)
class _Interval:
    """Busiest counts lo..hi: each pair's score bound per cluster count, the clusters' room."""

    lo: int
    hi: int
    positive: np.ndarray  # per count n (0..hi): a positive weight's score bound, B(n, hi)
    negative: np.ndarray  # per count n: a negative weight's score bound, B(n, max(lo - 1, n))
    room: np.ndarray  # per row: the most coupled picks it may take (hi less its fixed count)
    forced: bool  # no fixed count reaches lo: some row is forced up to it

    @classmethod
    def of(cls, lo: int, hi: int, pairs: Pairs, fixed_most: int, candidates: np.ndarray) -> _Interval:
        n = np.arange(hi + 1, dtype=np.int64)
        room = np.clip(np.minimum(hi - pairs.base, candidates), 0, None)
        least = balance_score(n, np.maximum(lo - 1, n))
        return cls(lo, hi, balance_score(n, hi), least, room, lo > fixed_most)


class _Relaxation:
    """The dual function of one problem, evaluated interval by interval."""

    def __init__(self, pairs: Pairs) -> None:
        self.p = pairs
        self.size = len(pairs.base)
        self.candidates = np.bincount(pairs.row, minlength=self.size).astype(np.int64)
        self.sign = np.sign(pairs.weight)[pairs.request]
        self.weight = pairs.weight[pairs.request]
        self.fixed_most = max(int(pairs.base.max(initial=0)), pairs.outside)
        self.most_possible = max(self.fixed_most, int((pairs.base + self.candidates).max(initial=0)))
        # Pairs in row order, for per-row reductions over all of them.
        self.by_row = np.argsort(pairs.row, kind="stable")
        self.row_starts = np.searchsorted(pairs.row[self.by_row], np.arange(self.size + 1))

    def table(self, interval: _Interval, n: np.ndarray, sign: np.ndarray) -> np.ndarray:
        """Each pair's Balance score bound at cluster count n (0 for weight 0)."""
        n = np.minimum(n, interval.hi)
        return np.where(sign > 0, interval.positive[n], np.where(sign < 0, interval.negative[n], 0))

    def value(self, interval: _Interval, price: np.ndarray) -> tuple[int, np.ndarray]:
        """The dual function at `price`: (its value, per request how many picks the clusters'
        best sets give it: the subgradient is K less that)."""
        p = self.p
        base = p.base[p.row]
        room = interval.room[p.row]
        own = p.affinity - price[p.request]
        # A pair's best score over the sizes its row may take: one pick (n = base) for a positive
        # weight, the most crowded (n = base + room - 1) for a negative one.
        crowded = np.maximum(base + room - 1, 0)
        best = own + self.weight * self.table(interval, np.where(self.sign < 0, crowded, base), self.sign)
        usable = room > 0
        total, counts, rows = self._rows(interval, self._kept(interval, best, usable), own)
        total += int((p.picks * price).sum())
        if interval.forced:
            total += self._forced(interval, own, usable, rows)
        return total, counts

    def _kept(self, interval: _Interval, best: np.ndarray, usable: np.ndarray) -> np.ndarray:
        """The pairs some best set of each row is made of. One more member lowers a positive
        weight's score and raises a negative weight's by at most |w| times the negative table's
        largest step; so a pair whose best is at most minus that summed over the negative weights
        kept beside it never makes a set better (taking it and every such pair out loses nothing).
        The fixed point of that rule, from the pairs whose best is above 0."""
        step = int(np.abs(np.diff(interval.negative)).max(initial=0))
        negative = usable & (self.sign < 0)
        gain = -self.weight * step  # per negative pair
        kept = usable & (best > 0)
        while True:
            margin = np.bincount(
                self.p.row[kept & negative], weights=gain[kept & negative], minlength=self.size
            )
            wider = usable & (best > -margin[self.p.row])
            if np.array_equal(wider, kept):
                return kept
            kept = wider

    def _key(self, interval: _Interval, own: np.ndarray, index: np.ndarray, n: np.ndarray) -> np.ndarray:
        """Pairs' values in a set that puts n decisions beside each on its row."""
        return own[index] + self.weight[index] * self.table(interval, n, self.sign[index])

    def _rows(
        self, interval: _Interval, kept: np.ndarray, own: np.ndarray
    ) -> tuple[int, np.ndarray, np.ndarray]:
        """Per row, the best set's value (0: the empty set), exact for every size: the sum over
        rows, per request how many best sets hold it, and the values per row. At size k a pair
        is only looked at where it can be among its row's k best: the k best by own score alone
        are each worth at least the k-th own score plus the row's least Balance term at that size,
        so a pair worth less is beaten k times."""
        p = self.p
        index = np.flatnonzero(kept)
        rows = p.row[index]
        order = np.lexsort((-own[index], rows))  # by row, then own score, best first
        index, rows = index[order], rows[order]
        width = np.bincount(rows, minlength=self.size)
        starts = np.concatenate([[0], np.cumsum(width)])
        limit = np.minimum(width, interval.room)  # the largest set
        ranked = own[index]
        weight, sign, base = self.weight[index], self.sign[index], p.base
        best = np.zeros(self.size, dtype=np.int64)
        best_size = np.zeros(self.size, dtype=np.int64)
        filled = np.flatnonzero(width > 0)
        for k in range(1, int(limit.max(initial=0)) + 1):
            able = limit >= k
            n = np.minimum(base + k - 1, interval.hi)[rows]
            key = ranked + weight * np.where(
                sign > 0, interval.positive[n], np.where(sign < 0, interval.negative[n], 0)
            )
            # The least value at size k among each row's k best by own score (rows with fewer
            # than k pairs are not able: their bounds are not used).
            ends = np.minimum(starts[filled] + k, starts[filled + 1])
            bounds = np.empty(2 * len(filled), dtype=np.int64)
            bounds[0::2], bounds[1::2] = starts[filled], ends
            least = np.zeros(self.size, dtype=np.int64)
            least[filled] = np.minimum.reduceat(np.append(key, 0), bounds)[0::2]
            live = able[rows] & (key >= least[rows])
            sums = _top_sums(rows[live], key[live], k, self.size)
            better = able & (sums > best)
            best[better], best_size[better] = sums[better], k
        return int(best.sum()), self._members(interval, index, own, best_size), best

    def _members(
        self, interval: _Interval, index: np.ndarray, own: np.ndarray, size: np.ndarray
    ) -> np.ndarray:
        """Per request, how many rows' best sets (of the given sizes) hold it."""
        p = self.p
        index = index[size[p.row[index]] > 0]
        rows = p.row[index]
        k = size[rows]
        key = self._key(interval, own, index, p.base[rows] + k - 1)
        order = np.lexsort((-key, rows))
        rows, index, k = rows[order], index[order], k[order]
        top = np.arange(len(rows)) - np.searchsorted(rows, rows) < k
        return np.bincount(p.request[index[top]], minlength=len(p.picks)).astype(np.int64)

    def _forced(
        self, interval: _Interval, own: np.ndarray, usable: np.ndarray, total_rows: np.ndarray
    ) -> int:
        """The most that forcing one row to at least lo decisions adds to the rows' sum: per row,
        a bound on its best set of a size from lo - base to its room (each member at its best
        score over those sizes, all pairs), less its unforced best. _NEVER where none can."""
        p = self.p
        need = interval.lo - p.base  # per row
        able = (need >= 1) & (need <= interval.room)
        if not able.any():
            return _NEVER
        # At sizes >= need: a positive weight scores at most at the least count, lo - 1; a
        # negative one at most at the most crowded.
        base = p.base[p.row]
        at_least = np.full(len(own), interval.lo - 1, dtype=np.int64)
        crowded = np.maximum(base + interval.room[p.row] - 1, 0)
        bonus = self.weight * self.table(interval, np.where(self.sign < 0, crowded, at_least), self.sign)
        u = np.where(usable, own + bonus, _NEVER // 4)[self.by_row]
        starts = self.row_starts
        counted = np.diff(starts) > 0
        positive = np.where(u > 0, u, 0)
        plus = np.zeros(self.size, dtype=np.int64)
        plus[counted] = np.add.reduceat(positive, starts[:-1][counted])
        npos = np.zeros(self.size, dtype=np.int64)
        npos[counted] = np.add.reduceat((u > 0).astype(np.int64), starts[:-1][counted])
        worst_in = np.full(self.size, _NEVER, dtype=np.int64)
        nonpositive = np.where(u > 0, _NEVER, u)
        worst_in[counted] = np.maximum.reduceat(nonpositive, starts[:-1][counted])
        short = np.maximum(need - npos, 0)
        coarse = np.where(short > 0, plus + short * worst_in, plus)
        coarse = np.where(able, coarse, _NEVER) - total_rows
        # Refine the most promising rows exactly (the sum of their top `need` members at best).
        found = _NEVER
        order = np.argsort(-coarse, kind="stable")
        for j, row in enumerate(order[:_REFINED].tolist()):
            if coarse[row] <= found or coarse[row] <= _NEVER // 2:
                break
            values = np.sort(u[starts[row] : starts[row + 1]])[::-1]
            k = int(need[row])
            exact = int(values[:k].sum()) + int(np.maximum(values[k:], 0).sum())
            found = max(found, exact - int(total_rows[row]))
            if j == _REFINED - 1 and len(order) > _REFINED:
                found = max(found, int(coarse[order[_REFINED]]))
        return found


def _top_sums(rows: np.ndarray, key: np.ndarray, k: int, size: int) -> np.ndarray:
    """Per row (of `size`), the sum of its k largest keys (all of them where it has fewer)."""
    order = np.lexsort((-key, rows))
    rows, key = rows[order], key[order]
    counts = np.bincount(rows, minlength=size)
    starts = np.cumsum(counts) - counts
    top = np.arange(len(rows)) - starts[rows] < k
    return np.bincount(rows[top], weights=key[top], minlength=size).astype(np.int64)


def _intervals(low: int, answer_most: int, high: int) -> list[tuple[int, int]]:
    """Intervals of busiest counts covering low..high: the answer's own count alone first, then
    below it and above it, widening away from it (an interval's bounds are looser the wider it is)."""
    answer_most = min(max(answer_most, low), high)
    out = [(answer_most, answer_most)]
    hi = answer_most - 1
    while hi >= low:
        lo = max(low, hi - max(1, hi // 8))
        out.append((lo, hi))
        hi = lo - 1
    lo = answer_most + 1
    while lo <= high:
        hi = min(high, lo + max(1, lo // 8))
        out.append((lo, hi))
        lo = hi + 1
    return out


def most_scored(
    pairs: Pairs, answer_most: int, *, first_steps: int = FIRST_STEPS, later_steps: int = LATER_STEPS
) -> int:
    """At least the most the coupled requests' picks can score together (own scores plus weighted
    Balance, summed) in any answer; `answer_most` is the answer's busiest count, where the work
    starts. See the module's docstring for why it holds."""
    if not len(pairs.request):
        return 0
    relaxation = _Relaxation(pairs)
    found = _NEVER
    price = pairs.start.copy()
    price[~pairs.exact] = np.maximum(price[~pairs.exact], 0)
    for number, (lo, hi) in enumerate(
        _intervals(relaxation.fixed_most, answer_most, relaxation.most_possible)
    ):
        interval = _Interval.of(lo, hi, pairs, relaxation.fixed_most, relaxation.candidates)
        least, trial, theta = None, price, 0.5
        steps = first_steps if number == 0 else later_steps
        for step in range(steps):
            value, counts = relaxation.value(interval, trial)
            if least is None or value < least:
                least, price = value, trial
            elif step:
                theta /= 2
            if least <= found or step + 1 == steps:
                break
            # A Polyak step toward the answer's own score (no bound is below it).
            slope = pairs.picks - counts
            norm = int((slope * slope).sum())
            if not norm:
                break
            move = np.rint(theta * (value - pairs.scored) / norm * slope).astype(np.int64)
            trial = price - move
            trial[~pairs.exact] = np.maximum(trial[~pairs.exact], 0)
        found = max(found, least)
    return found


def tighten(settled: dict, state, prepared: list[Prepared]) -> None:
    """The coupled requests' least shortfalls (each `Coupled.least`, solver.balance), summed over
    them by solver.objective.LevelSums, made to keep what a level bound promises
    (model.LevelStats: `promised`), then the affinity level's raised so that they sum to the joint
    bound (`most_scored`) where it is greater than their sum and the work is small enough. Only
    their sum is a bound then (LevelSums reads only it): each is raised, in batch order, at most
    to its own shortfall, so the sum never passes the answer's."""
    promised(settled, state, prepared)
    if sum(len(prepared[i].candidates) for i in settled) > JOINT_PAIRS:
        return
    pairs = _pairs_of(settled, state, prepared)
    if pairs is None:
        return
    affinity = LEVELS.index("affinity")
    most = sum(c.spans[affinity] - state.scales[i].offsets[affinity] for i, c in settled.items())
    joint = most - most_scored(pairs, int(state.totals.max(initial=0)))
    shortfalls = {i: c.spans[affinity] - c.values[affinity] for i, c in settled.items()}
    known = {i: shortfalls[i] if c.least is None else c.least[affinity] for i, c in settled.items()}
    missing = joint - sum(known.values())
    for i, c in settled.items():
        if missing <= 0:
            break
        if c.least is None:
            continue
        raised = min(missing, shortfalls[i] - known[i])
        if raised > 0:
            least = list(c.least)
            least[affinity] += raised
            c.least = tuple(least)
            missing -= raised


def promised(settled: dict, state, prepared: list[Prepared]) -> None:
    """Keep the promise of the part's summed levels (model.LevelStats: level k's bound holds for
    every answer at least as good as this one on each level before it). A request's own bound
    proves its level k only for its answers at its values on the levels before (the digits of its
    combined bound, solver.objective.bound_shortfalls; every level where the bound is its value).
    Where every request's levels before k are proven so (its bound there its value), an answer of
    the part no worse on their sums holds every request at its values there (no request can be
    better), so the requests' own bounds hold for it at level k. Past the first level where one
    request's is not, another may make up that level for it, and hold a better level after: a
    weight 0 request at its own best answer, say, whose lower-scored, better-ranked cluster the
    others' Balance pays for (tests/test_balance_levels.py). From there each request's level
    bounds are those for every answer alone (`at_least`; none for the clusters and spread)."""
    own = {
        i: tuple(s - v for s, v in zip(c.spans, c.values, strict=True)) if c.least is None else c.least
        for i, c in settled.items()
    }
    first = next(
        (
            k
            for k in range(len(LEVELS))
            if any(own[i][k] != c.spans[k] - c.values[k] for i, c in settled.items())
        ),
        None,
    )
    if first is None:
        return
    alone = (None,) * len(LEVELS)
    for i, c in settled.items():
        if c.least is not None and all(
            d is None for d in bound_shortfalls(c.values, c.bound, c.spans)[first + 1 :]
        ):
            continue  # its bounds there are already those for every answer (at_least's)
        anyway = at_least(alone, prepared[i], state.scales[i], state.weight[i])
        c.least = own[i][: first + 1] + anyway[first + 1 :]


def _pairs_of(settled: dict, state, prepared: list[Prepared]) -> Pairs | None:
    """The coupled requests' candidate pairs as the relaxation reads them, from the settled
    answer and the batch state (solver.balance._Batch); None where no request has a pick to make."""
    size = state.table.size
    coupled = list(settled)
    picks = [np.asarray(settled[i].solution.picks, dtype=np.int64) for i in coupled]
    counts = np.bincount(np.concatenate([*picks, np.empty(0, np.int64)]), minlength=size)
    base = state.totals[:size] - counts
    chosen = [k for k, i in enumerate(coupled) if state.scales[i].picks > 0]
    if not chosen:
        return None
    rows, affinity, start = [], [], []
    for k in chosen:
        i = coupled[k]
        p = prepared[i]
        candidates = p.candidates
        if p.kept:  # a row it keeps is not a pick
            candidates = candidates[~np.isin(candidates, np.fromiter(p.kept, dtype=np.int64))]
        rows.append(candidates)
        affinity.append(p.affinity[candidates].astype(np.int64))
        scores = p.affinity[picks[k]] + (state.bonus(i, picks[k]) if state.weight[i] else 0)
        start.append(int(scores.min()) if len(scores) else 0)
    weights = np.asarray([state.weight[coupled[k]] for k in chosen], dtype=np.int64)
    affinity_level = LEVELS.index("affinity")
    scored = sum(
        settled[coupled[k]].values[affinity_level] - state.scales[coupled[k]].offsets[affinity_level]
        for k in chosen
    )
    return Pairs(
        request=np.repeat(np.arange(len(chosen), dtype=np.int64), [len(r) for r in rows]),
        row=np.concatenate(rows).astype(np.int64),
        affinity=np.concatenate(affinity),
        picks=np.asarray([state.scales[coupled[k]].picks for k in chosen], dtype=np.int64),
        # Exactly K picks where no spread constraint can leave it short and K rows can be picked.
        exact=np.asarray(
            [
                not prepared[coupled[k]].request.spread and len(r) >= state.scales[coupled[k]].picks
                for k, r in zip(chosen, rows, strict=True)
            ],
            dtype=bool,
        ),
        weight=weights,
        base=base.astype(np.int64),
        outside=int(state.totals[size:].max(initial=0)),
        start=np.asarray(start, dtype=np.int64),
        scored=scored,
    )
