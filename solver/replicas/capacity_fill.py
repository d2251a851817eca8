"""A capacity-aware fill: the units in queue order, each divided against what the earlier ones left.

Cheap and good where capacity is loose: each request takes greedy's own split where it still fits
(its aim), and puts what does not fit on the candidates with the most room left, those it already
uses first (fewest clusters, fewest replicas away from its split). It is what upstream's
over-commit protection does in spirit (one decision at a time, each seeing the ones before), and a
hint for the class model far better than greedy charged when greedy piles onto the same clusters.
Requests with group constraints take greedy's split where it fits; else a set of clusters that
meets every constraint (each group constraint's least and most groups used, a claim's groups one
cluster each where no constraint counts clusters, as the checker reads upstream's selection), the
roomiest first, one replica on each and the rest by room.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from model import Division
from solver.replicas.capacity_units import (
    Answer,
    CapacityProblem,
    Option,
    Placed,
    Unit,
    added,
    candidate_rows,
    queue,
    room_after_fixed,
)
from solver.replicas.order import packed_order

__all__ = ["fill", "fill_orders", "fits_on", "repair", "widths"]

_UNLIMITED = np.int64(1) << 40


def fill(
    problem: CapacityProblem, part: Sequence[int], baseline: Answer, order: Sequence[int] | None = None
) -> Answer:
    """Fixed units as in the baseline, every other unit (in `order`, by default the queue's)
    under its earliest option that fits."""
    answer: Answer = list(baseline)
    room = room_after_fixed(problem, part)
    if order is None:
        order = queue(problem, part)
    for u in order:
        unit = problem.units[u]
        answer[u] = placed = _first_fit(problem, unit, room)
        if placed is not None:
            _charge(room, unit, placed)
    return answer


def repair(problem: CapacityProblem, part: Sequence[int], answer: Answer, order: Sequence[int]) -> Answer:
    """The answer with more units scheduled where moving others makes room: each unscheduled
    unit (in `order`) takes the room that placed units wider than it leave when they move what
    they add on its candidates elsewhere (each re-placed off those candidates as the fill places
    it, the lower priorities and those with the most replicas there first); where that does not
    make room, nothing changes."""
    units = problem.units
    out: Answer = list(answer)
    room = room_after_fixed(problem, part)
    for u in part:
        if units[u].fixed is None and out[u] is not None:
            _charge(room, units[u], out[u])
    flexible = [u for u in part if units[u].fixed is None]
    width = widths(problem, flexible)
    on_row: dict[int, set[int]] = {}
    for v in flexible:
        if out[v] is not None:
            for row, _ in out[v].replicas:
                on_row.setdefault(row, set()).add(v)
    off = np.zeros(len(room), dtype=bool)
    for u in order:
        if out[u] is not None or not units[u].options:
            continue
        rows = candidate_rows(problem, units[u].options)
        off[rows] = True
        wider = {v for row in rows.tolist() for v in on_row.get(row, ()) if width[v] > width[u]}
        there = {v: sum(n for row, n in out[v].replicas if off[row]) for v in wider}
        wider = sorted(wider, key=lambda v: (units[v].priority, -there[v], units[v].order))[:_MOVES]
        trial, moved = room.copy(), {}
        for v in wider:
            _charge(trial, units[v], out[v], -1)
            placed = _first_fit(problem, units[v], trial, off)  # off u's candidates (what it keeps stays)
            if placed is None:
                _charge(trial, units[v], out[v])
                continue
            _charge(trial, units[v], placed)
            moved[v] = placed
            mine_placed = _first_fit(problem, units[u], trial)
            if mine_placed is not None:
                _charge(trial, units[u], mine_placed)
                moved[u] = mine_placed
                break
        off[rows] = False
        if u not in moved:
            continue
        for v, placed in moved.items():
            if out[v] is not None:
                for row, _ in out[v].replicas:
                    on_row[row].discard(v)
            out[v] = placed
            for row, _ in placed.replicas:
                on_row.setdefault(row, set()).add(v)
        room = trial
    return out


_MOVES = 64  # the wider units an unscheduled one may move, at most (those with most replicas there first)


def _first_fit(
    problem: CapacityProblem, unit: Unit, room: np.ndarray, off: np.ndarray | None = None
) -> Placed | None:
    """The unit under its earliest option that fits `room`, placed as the fill places it; `off`:
    clusters where it may add nothing (as if they had no room)."""
    demand = np.asarray(unit.demand, dtype=np.int64)
    for o, option in enumerate(unit.options):
        split = _place(unit, option, _arrays(problem, option), room, demand, off)
        if split is not None:
            return Placed(o, tuple(sorted((row, n) for row, n in split.items() if n)))
    return None


def _charge(room: np.ndarray, unit: Unit, placed: Placed, sign: int = 1) -> None:
    """Take what the placement adds beyond what the unit holds out of `room`, in place (sign -1:
    give it back)."""
    adds = added(unit, placed)
    if adds:
        rows = [row for row, _ in adds]
        room[rows] -= sign * np.outer([n for _, n in adds], np.asarray(unit.demand, dtype=np.int64))


def widths(problem: CapacityProblem, us: Sequence[int]) -> dict[int, int]:
    """Per unit, how many clusters its options draw on together."""
    return {u: len(candidate_rows(problem, problem.units[u].options)) for u in us}


def fill_orders(problem: CapacityProblem, part: Sequence[int]) -> list[list[int]]:
    """The orders the fill is tried in, each within a priority: the queue's; the smallest asks
    first (more requests fit where room runs out); the fewest candidates first, then the smallest
    (the wide ones then take the room the narrow ones leave)."""
    units = problem.units
    order = queue(problem, part)
    room = room_after_fixed(problem, part)
    scale = 1.0 / np.maximum(room.sum(axis=0), 1)  # each resource as a share of the part's room
    ask = {u: units[u].count * float(np.dot(units[u].demand, scale)) for u in order}
    width = widths(problem, order)
    return [
        order,
        sorted(order, key=lambda u: (-units[u].priority, ask[u], units[u].order)),
        sorted(order, key=lambda u: (-units[u].priority, width[u], ask[u], units[u].order)),
    ]


def fits_on(room: np.ndarray, rows: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """How many replicas of `demand` fit on each of `rows` in `room`."""
    asked = demand > 0
    if not asked.any():
        return np.full(len(rows), _UNLIMITED, dtype=np.int64)
    return (room.take(rows, axis=0)[:, asked] // demand[asked]).min(axis=1)


class _Arrays:
    """An option's candidates, held replicas, split and caps as arrays aligned on its rows; its
    groups' `of` as arrays, and whether any of them counts clusters (each its own group)."""

    def __init__(
        self, option: Option, rows: np.ndarray, most: np.ndarray | None, groups: tuple[np.ndarray, ...]
    ) -> None:
        self.rows = rows
        self.held = _aligned(rows, option.held)
        self.target = _aligned(rows, option.target)
        self.most = most
        self.groups = groups
        self.counts_clusters = any(len(set(g.of)) == len(g.of) for g in option.groups)
        self._starts: dict[tuple[int, bool], tuple[np.ndarray, int, np.ndarray, int]] = {}

    def start(self, unit: Unit) -> tuple[np.ndarray, int, np.ndarray, int]:
        """For a unit of this option: what it keeps in place (nothing afresh: a held replica may
        move), the replicas it still wants, its aim beyond what it keeps (greedy's split) and
        that aim's sum; once per count and mode (the options of alike units are shared)."""
        key = (unit.count, unit.fresh)
        got = self._starts.get(key)
        if got is None:
            base = np.zeros(len(self.rows), dtype=np.int64) if unit.fresh else self.held
            aim = np.maximum(self.target - base, 0)
            for shared in (base, aim):
                shared.setflags(write=False)
            got = self._starts[key] = (base, unit.count - int(base.sum()), aim, int(aim.sum()))
        return got


def _arrays(problem: CapacityProblem, option: Option) -> _Arrays:
    """The option's arrays, made once per solve; its candidates and caps once per tuple (options
    of many requests share them)."""
    made = problem.made
    got = made.get(id(option))
    if got is None:
        rows = _array(made, option.candidates)
        most = None if option.most is None else _array(made, option.most)
        groups = tuple(_array(made, g.of) for g in option.groups)
        got = made[id(option)] = _Arrays(option, rows, most, groups)
    return got


def _array(made: dict[int, object], values: tuple[int, ...]) -> np.ndarray:
    got = made.get(id(values))
    if got is None:
        got = made[id(values)] = np.asarray(values, dtype=np.int64)
    return got


def _aligned(rows: np.ndarray, split: tuple[tuple[int, int], ...]) -> np.ndarray:
    """The split's replicas per row of `rows` (every row of the split among them)."""
    out = np.zeros(len(rows), dtype=np.int64)
    if split:
        wanted = np.asarray([row for row, _ in split], dtype=np.int64)
        order = np.argsort(rows, kind="stable")
        out[order[np.searchsorted(rows, wanted, sorter=order)]] = [n for _, n in split]
    return out


def _place(
    unit: Unit,
    option: Option,
    arrays: _Arrays,
    room: np.ndarray,
    demand: np.ndarray,
    off: np.ndarray | None = None,
) -> dict[int, int] | None:
    rows = arrays.rows
    if not len(rows):
        return None
    limit = fits_on(room, rows, demand)
    if off is not None and (demand > 0).any():  # no room there (a unit that asks nothing fits anyway)
        limit[off[rows]] = 0
    if arrays.most is not None:
        limit = np.minimum(limit, arrays.most)
    base, want, aim, aimed = arrays.start(unit)
    if unit.fresh:
        limit = limit + arrays.held  # afresh, a held replica costs nothing to keep
    if option.groups:
        if aimed == want and (aim <= limit).all():  # greedy's split where it fits
            return _as_split(rows, base + aim)
        return _grouped(unit, option, arrays, base, limit, want)
    if int(limit.sum()) < want:
        return None
    take = np.minimum(aim, limit)
    if int(take.sum()) > want:  # a split that asks for more than the request: trust none of it
        take[:] = 0
    rest = want - int(take.sum())
    if rest:
        left = limit - take
        preferred = (take + base) > 0 if unit.division is Division.AGGREGATED else None
        # Most room first (the used ones first for AGGREGATED), row order on ties.
        take += _hand_out(rows, left, rest, preferred)
    return _as_split(rows, base + take)


def _hand_out(
    rows: np.ndarray, left: np.ndarray, rest: int, preferred: np.ndarray | None = None
) -> np.ndarray:
    """`rest` replicas handed out in _roomiest's order, each position taking what it has `left`
    until none remain: per position, what it takes. Most often the first takes them all, and is
    found without sorting."""
    pool = left > 0
    if preferred is not None and (pool & preferred).any():
        pool &= preferred  # the first comes from the preferred
    room = np.where(pool, left, 0)
    most = int(room.max()) if len(room) else 0
    if most < rest:
        return _handed(_roomiest(rows, left, preferred), left, rest)
    out = np.zeros(len(left), dtype=np.int64)
    at = np.flatnonzero(room == most)
    out[at[np.argmin(rows[at])] if len(at) > 1 else at[0]] = rest
    return out


def _roomiest(rows: np.ndarray, left: np.ndarray, preferred: np.ndarray | None = None) -> np.ndarray:
    """The positions with room `left` above 0, the `preferred` ones first, then most room first,
    then by row (rows are distinct)."""
    at = np.flatnonzero(left > 0)
    keys = [(left[at], True), (rows[at], False)]
    if preferred is not None:
        keys.insert(0, (preferred[at].astype(np.int64), True))
    order = packed_order(keys)
    if order is None:
        order = np.lexsort(tuple(-v if descending else v for v, descending in reversed(keys)))
    return at[order]


def _handed(order: np.ndarray, left: np.ndarray, rest: int) -> np.ndarray:
    """`rest` replicas handed out over the positions in `order`, each taking what it has `left`
    (none where that is 0 or less) until none remain: per position, what it takes (none where
    `order` leaves it out)."""
    room = np.maximum(left[order], 0)
    before = np.cumsum(room) - room
    out = np.zeros(len(left), dtype=np.int64)
    out[order] = np.clip(rest - before, 0, room)
    return out


def _grouped(
    unit: Unit, option: Option, arrays: _Arrays, base: np.ndarray, limit: np.ndarray, want: int
) -> dict[int, int] | None:
    """A split on a set of clusters that meets the option's group constraints, or None: the set
    grows by the roomiest cluster no constraint's most forbids, first where a constraint still
    lacks its least groups, then while the set cannot take `want`; each cluster of the set gets one
    replica (so its groups are used), the rest go by room."""
    # (group of each candidate, least groups, most groups, one cluster per group at most)
    rows = arrays.rows
    groups = zip(option.groups, arrays.groups, strict=True)
    constraints = [(of, min(g.least, unit.count), g.most, False) for g, of in groups]
    if not arrays.counts_clusters:  # no constraint counts clusters
        constraints += [(of, 0, len(of), True) for of in arrays.groups]
    chosen = base > 0  # the clusters it keeps replicas on are used already
    used = [set(of[chosen].tolist()) for of, _, _, _ in constraints]
    per_group = [_counts(of[chosen]) for of, _, _, _ in constraints]
    if any(
        len(used[k]) > most or (single and any(n > 1 for n in per_group[k].values()))
        for k, (_, _, most, single) in enumerate(constraints)
    ):  # what it keeps breaks a constraint already (greedy gives some of it up): its split or none
        return None
    order = _roomiest(rows, limit)
    order = order[~chosen[order]].tolist()

    def allowed(i: int) -> bool:
        for k, (of, _, most, single) in enumerate(constraints):
            g = int(of[i])
            if single and per_group[k].get(g):
                return False
            if g not in used[k] and len(used[k]) >= most:
                return False
        return True

    room_chosen = int(np.where(chosen, limit, 0).sum())

    def take(i: int) -> None:
        nonlocal room_chosen
        chosen[i] = True
        room_chosen += int(limit[i])
        for k, (of, _, _, _) in enumerate(constraints):
            used[k].add(int(of[i]))
            per_group[k][int(of[i])] = per_group[k].get(int(of[i]), 0) + 1

    for k, (of, least, _, _) in enumerate(constraints):
        for i in order:
            if len(used[k]) >= least:
                break
            if not chosen[i] and int(of[i]) not in used[k] and allowed(i):
                take(i)
        if len(used[k]) < least:
            return None
    for i in order:
        if room_chosen >= want:
            break
        if not chosen[i] and allowed(i):
            take(i)
    new = chosen & (base == 0)
    if int(np.where(chosen, limit, 0).sum()) < want or int(new.sum()) > want:
        return None
    take_n = new.astype(np.int64)
    rest = want - int(take_n.sum())
    left = np.where(chosen, limit - take_n, 0)
    take_n += _hand_out(rows, left, rest)
    return _as_split(rows, base + take_n)


def _counts(values: np.ndarray) -> dict[int, int]:
    keys, counts = np.unique(values, return_counts=True)
    return dict(zip(keys.tolist(), counts.tolist(), strict=True))


def _as_split(rows: np.ndarray, replicas: np.ndarray) -> dict[int, int]:
    at = np.flatnonzero(replicas)
    return dict(zip(rows[at].tolist(), replicas[at].tolist(), strict=True))
