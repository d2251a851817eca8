"""The weight 0 move of the joint Balance search (solver.balance): a request whose Balance weight
is 0 trades picks for the batch's sake.

Such a request's best response is its own optimum whatever the others hold (its scores read no
count), so best responses never move it; but its picks are counted in the others' Balance scores.
Here it is asked for the picks best for the batch instead: its own objective plus what its being
on each cluster does to the others' weighted Balance scores. With the fleet's busiest count and
the requests that see one less (those holding every busiest cluster) unchanged, what being on a
cluster does to the others depends on that cluster's count alone, so every candidate has one
value for the batch, `own + others`, and the best picks are the top ones by it: swaps of the worst
pick for the best cluster left out, taken while one strictly gains. Only clusters whose count
stays below the busiest count are entered, and none at it is left, so the busiest count and who
sees one less stay as they are (the values are exact).

A swap is taken only where the batch objective (solver.objective, summed) strictly rises and the
coupled requests' summed levels (affinity with every Balance score, then obsolete holdings, then
the name rank) do not fall lexicographically: the answer gets no worse either way it is read.
The whole move is then judged exactly on the batch state before it is offered.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING

import numpy as np

from model import SelectionMode
from solver.balance_bound import balance_score
from solver.objective import LEVELS, affinity_weight
from solver.solution import Solution, pick_order
from solver.stickiness import released_obsolete

if TYPE_CHECKING:
    from solver.balance import _Batch

__all__ = ["batch_swap"]


def batch_swap(state: _Batch, i: int, solution: Solution) -> Solution | None:
    """For a coupled request of Balance weight 0 answering `solution` (its current answer in
    `state`): the answer with its picks swapped for the batch's sake, where some swap pays; None
    where none does or the request is not one the move serves (a top-N request under no spread)."""
    p = state.base[i]
    if state.weight[i] or p.request.spread or p.request.mode is not SelectionMode.N or not solution.picks:
        return None
    totals = state.totals
    most = state.limits[0]
    picks = np.asarray(solution.picks, dtype=np.int64)
    picks = picks[totals[picks] < most]  # leaving a busiest cluster may change who sees one less
    if not len(picks):
        return None
    effects = _Effects.of(state)
    own = effects.own(state, i)
    candidates = p.candidates
    # Per row: the request's own combined value of a pick there and what its being there does to
    # the others, worth-weighted (float: only to choose). A cluster enters only where that beats
    # the worst pick's: its own value must beat it less the most any cluster's effect adds.
    out_batch = own.values[np.searchsorted(candidates, picks)] - effects.leave[picks]
    worst = float(out_batch.min())
    reach = own.above(worst - effects.most_join - abs(worst) * 1e-12 - 1)
    rows = candidates[reach]
    open_ = (totals[rows] + 1 < most) & ~_member(rows, state.members[i])  # counts stay below it
    if not open_.any():
        return None
    others = rows[open_]
    in_batch = own.values[reach[open_]] + effects.join[others]
    if in_batch.max() <= worst:
        return None
    leaving = np.argsort(out_batch, kind="stable")  # worst for the batch first (ties: smaller row)
    entering = _best(in_batch, len(leaving))  # best for the batch first
    # The same in the affinity level's points, and the levels below.
    out_points = p.affinity[picks] - effects.leave_points[picks]
    in_points = p.affinity[others] + effects.join_points[others]
    swapped: list[tuple[int, int]] = []
    for kx, ky in zip(leaving.tolist(), entering.tolist(), strict=False):
        x, y = int(picks[kx]), int(others[ky])
        levels = (
            int(in_points[ky] - out_points[kx]),
            int(p.sticky[y]) - int(p.sticky[x]),
            int(p.rank[y]) - int(p.rank[x]),
        )
        if in_batch[ky] <= out_batch[kx] or levels < (0, 0, 0):
            break
        swapped.append((x, y))
    if not swapped:
        return None
    gone = {x for x, _ in swapped}
    rows = [r for r in solution.picks if r not in gone] + [y for _, y in swapped]
    ordered = [int(r) for r in pick_order(p, state.table, np.asarray(rows, dtype=np.int64))]
    candidate = Solution(
        kept=list(solution.kept),
        picks=ordered,
        released=released_obsolete(p, state.table, ordered),
        satisfied=solution.satisfied,
    )
    return candidate if _gains(state, effects, i, solution, candidate) else None


def _best(values: np.ndarray, k: int) -> np.ndarray:
    """The indices of the k largest values, largest first (ties: the smaller index first), without
    sorting them all."""
    if k < len(values):
        kth = -np.partition(-values, k - 1)[k - 1]
        top = np.flatnonzero(values >= kth)
    else:
        top = np.arange(len(values))
    return top[np.argsort(-values[top], kind="stable")][:k]


def _member(rows: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Per row, whether it is one of `members` (sorted)."""
    if not len(members):
        return np.zeros(len(rows), dtype=bool)
    at = np.minimum(np.searchsorted(members, rows), len(members) - 1)
    return members[at] == rows


def _worths(spans: tuple[int, ...]) -> tuple[int, int, int]:
    """What one unit of the affinity, obsolete and name levels is worth in the combined objective."""
    return affinity_weight(spans), spans[LEVELS.index("name")] + 1, 1


class _Effects:
    """Per row of a batch state: what one more decision there does to the coupled requests
    picking it (their Balance scores, each worth-weighted as the batch objective weighs it, float;
    and weighted by the Balance weight, in the affinity level's points), and what one fewer does.
    Exact where the busiest count and who sees one less stay as they are. Kept per state and
    brought up to date from what changed since it was last asked: the rows whose counts or
    pickers changed, or every row where the busiest count or who sees one less did."""

    _known: weakref.WeakKeyDictionary[_Batch, _Effects] = weakref.WeakKeyDictionary()

    def __init__(self, state: _Batch) -> None:
        self.weight = np.asarray([state.weight[i] for i in state.coupled], dtype=np.int64)
        self.worth = np.asarray(state.worth, dtype=np.float64)
        size = len(state.totals)
        self.join, self.leave = np.zeros(size), np.zeros(size)
        self.join_points = np.zeros(size, dtype=np.int64)
        self.leave_points = np.zeros(size, dtype=np.int64)
        self.totals, self.flat, self.limits = state.totals.copy(), state.flat.copy(), state.limits
        self._count(state, np.ones(size, dtype=bool))
        self._own: dict[int, _Own] = {}

    @classmethod
    def of(cls, state: _Batch) -> _Effects:
        known = cls._known.get(state)
        if known is None:
            known = cls._known[state] = cls(state)
        else:
            known._refresh(state)
        return known

    def _refresh(self, state: _Batch) -> None:
        if state.limits != self.limits:
            dirty = np.ones(len(state.totals), dtype=bool)
        else:
            dirty = state.totals != self.totals
            moved = state.flat != self.flat
            for rows in (self.flat[moved], state.flat[moved]):
                dirty[rows[rows >= 0]] = True
        if dirty.any():
            self.totals[:], self.flat[:], self.limits = state.totals, state.flat, state.limits
            self._count(state, dirty)

    def _count(self, state: _Batch, dirty: np.ndarray) -> None:
        """The effects on the dirty rows, from the pickers there."""
        size = len(state.totals)
        used = (state.flat >= 0) & (self.weight[state.owner] != 0)
        used[used] = dirty[state.flat[used]]
        rows, owner = state.flat[used], state.owner[used]
        most, holding = state.limits
        seen = np.full(len(state.coupled), most, dtype=np.int64)
        seen[list(holding)] -= 1
        m = seen[owner]
        n = state.totals[rows] - 1  # the others' decisions each picker sees there
        now = balance_score(n, m)
        up = balance_score(np.minimum(n + 1, m), m) - now
        down = balance_score(np.maximum(n - 1, 0), m) - now
        worth, points = self.worth[owner], self.weight[owner]
        for batch, level, change in (
            (self.join, self.join_points, up),
            (self.leave, self.leave_points, down),
        ):
            batch[dirty] = np.bincount(rows, weights=worth * change, minlength=size)[dirty]
            level[dirty] = np.bincount(rows, weights=points * change, minlength=size).round()[dirty]
        self.most_join = float(self.join.max(initial=0.0))

    def own(self, state: _Batch, i: int) -> _Own:
        """Request i's own values (_Own), found once."""
        known = self._own.get(i)
        if known is None:
            known = self._own[i] = _Own.of(state.base[i], _worths(state.scales[i].spans))
        return known

    def balance_points(self, state: _Batch) -> int:
        """The coupled requests' Balance scores, weighted, summed: their part of the affinity level."""
        return int(np.asarray(state.scores, dtype=np.int64) @ self.weight)


class _Own:
    """A request's own combined value of a pick on each of its candidates (its levels from
    affinity down; float: only to choose), and the candidates from the best value down."""

    def __init__(self, values: np.ndarray) -> None:
        self.values = values
        self.order = np.argsort(-values, kind="stable")
        self.descending = values[self.order]

    @classmethod
    def of(cls, p, worth: tuple[int, int, int]) -> _Own:
        rows = p.candidates
        return cls(
            p.affinity[rows].astype(np.float64) * worth[0]
            + p.sticky[rows].astype(np.float64) * worth[1]
            + p.rank[rows].astype(np.float64) * worth[2]
        )

    def above(self, value: float) -> np.ndarray:
        """The candidates (indices, ascending) whose own value is above `value`."""
        return np.sort(self.order[: int(np.searchsorted(-self.descending, -value))])


def _gains(state: _Batch, effects: _Effects, i: int, current: Solution, candidate: Solution) -> bool:
    """Whether moving request i from `current` to `candidate` strictly raises the batch objective
    and leaves the coupled requests' summed levels no worse, judged exactly on the state (left
    as it was)."""
    before_value, before_points = state.value, effects.balance_points(state)
    own_before = state.static_value(i, current)
    state.move(i, candidate)
    try:
        rises = state.static_value(i, candidate) - own_before + state.value - before_value > 0
        p = state.base[i]
        old, new = np.asarray(current.picks, dtype=np.int64), np.asarray(candidate.picks, dtype=np.int64)
        levels = (
            int(p.affinity[new].sum())
            - int(p.affinity[old].sum())
            + effects.balance_points(state)
            - before_points,
            int(p.sticky[new].sum()) - int(p.sticky[old].sum()),
            int(p.rank[new].sum()) - int(p.rank[old].sum()),
        )
        return rises and levels >= (0, 0, 0)
    finally:
        state.move(i, current)
