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
    members = state.members[i]
    totals = state.totals
    most = state.limits[0]
    picks = np.asarray(solution.picks, dtype=np.int64)
    picks = picks[totals[picks] < most]  # leaving a busiest cluster may change who sees one less
    others = p.candidates[~_member(p.candidates, members)]
    others = others[totals[others] + 1 < most]  # entering must keep every count below the busiest
    if not len(picks) or not len(others):
        return None
    join, leave = _effects(state)
    scale = state.scales[i]
    worth = _worths(scale.spans)
    # Per row: the request's own combined value of a pick there (its levels below affinity), and
    # what its being there does to the others, worth-weighted (float: only to choose) and in points.
    out_batch = _own(p, picks, worth) - leave[0][picks]
    in_batch = _own(p, others, worth) + join[0][others]
    out_points, in_points = p.affinity[picks] - leave[1][picks], p.affinity[others] + join[1][others]
    leaving = picks[np.lexsort((picks, out_batch))]  # worst for the batch first
    order = np.lexsort((others, -in_batch))  # best for the batch first
    entering = others[order]
    at_pick = {int(r): k for k, r in enumerate(picks.tolist())}
    at_other = {int(r): k for k, r in enumerate(others.tolist())}
    swapped: list[tuple[int, int]] = []
    for x, y in zip(leaving.tolist(), entering.tolist(), strict=False):
        kx, ky = at_pick[x], at_other[y]
        if in_batch[ky] <= out_batch[kx]:
            break
        levels = (
            int(in_points[ky] - out_points[kx]),
            int(p.sticky[y]) - int(p.sticky[x]),
            int(p.rank[y]) - int(p.rank[x]),
        )
        if levels < (0, 0, 0):
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
    return candidate if _gains(state, i, solution, candidate) else None


def _member(rows: np.ndarray, members: np.ndarray) -> np.ndarray:
    """Per row, whether it is one of `members` (sorted)."""
    if not len(members):
        return np.zeros(len(rows), dtype=bool)
    at = np.minimum(np.searchsorted(members, rows), len(members) - 1)
    return members[at] == rows


def _worths(spans: tuple[int, ...]) -> tuple[int, int, int]:
    """What one unit of the affinity, obsolete and name levels is worth in the combined objective."""
    return affinity_weight(spans), spans[LEVELS.index("name")] + 1, 1


def _own(p, rows: np.ndarray, worth: tuple[int, int, int]) -> np.ndarray:
    """The request's own combined value of a pick on each row (float: only to choose)."""
    return (
        p.affinity[rows].astype(np.float64) * worth[0]
        + p.sticky[rows].astype(np.float64) * worth[1]
        + p.rank[rows].astype(np.float64) * worth[2]
    )


def _effects(state: _Batch) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    """Per row: what one more decision there does to the coupled requests picking it (their
    Balance scores, each worth-weighted in the batch objective, float; and weighted by the
    Balance weight, in the affinity level's points), and what one fewer does. Exact where the
    busiest count and who sees one less stay as they are."""
    size = len(state.totals)
    weight = np.asarray([state.weight[i] for i in state.coupled], dtype=np.int64)
    used = (state.flat >= 0) & (weight[state.owner] != 0)
    rows, owner = state.flat[used], state.owner[used]
    most, holding = state.limits
    seen = np.full(len(state.coupled), most, dtype=np.int64)
    seen[list(holding)] -= 1
    m = seen[owner]
    n = state.totals[rows] - 1  # the others' decisions each picker sees there
    now = balance_score(n, m)
    up = balance_score(np.minimum(n + 1, m), m) - now
    down = balance_score(np.maximum(n - 1, 0), m) - now
    worth = np.asarray(state.worth, dtype=np.float64)[owner]
    points = weight[owner]

    def summed(change: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.bincount(rows, weights=worth * change, minlength=size),
            np.bincount(rows, weights=points * change, minlength=size).round().astype(np.int64),
        )

    return summed(up), summed(down)


def _gains(state: _Batch, i: int, current: Solution, candidate: Solution) -> bool:
    """Whether moving request i from `current` to `candidate` strictly raises the batch objective
    and leaves the coupled requests' summed levels no worse, judged exactly on the state (left
    as it was)."""
    weights = [state.weight[j] for j in state.coupled]
    before_value, before_points = state.value, _balance_points(state, weights)
    own_before = state.static_value(i, current)
    state.move(i, candidate)
    try:
        rises = state.static_value(i, candidate) - own_before + state.value - before_value > 0
        p = state.base[i]
        old, new = np.asarray(current.picks, dtype=np.int64), np.asarray(candidate.picks, dtype=np.int64)
        levels = (
            int(p.affinity[new].sum())
            - int(p.affinity[old].sum())
            + _balance_points(state, weights)
            - before_points,
            int(p.sticky[new].sum()) - int(p.sticky[old].sum()),
            int(p.rank[new].sum()) - int(p.rank[old].sum()),
        )
        return rises and levels >= (0, 0, 0)
    finally:
        state.move(i, current)


def _balance_points(state: _Batch, weights: list[int]) -> int:
    """The coupled requests' Balance scores, weighted, summed: their part of the affinity level."""
    return sum(w * s for w, s in zip(weights, state.scores, strict=True))
