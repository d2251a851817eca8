"""A capacity-aware fill: the units in queue order, each divided against what the earlier ones left.

Cheap and good where capacity is loose: each request takes greedy's own split where it still fits
(its aim), and puts what does not fit on the candidates with the most room left, those it already
uses first (fewest clusters, fewest replicas away from its split). It is what upstream's
over-commit protection does in spirit (one decision at a time, each seeing the ones before), and a
hint for the class model far better than greedy charged when greedy piles onto the same clusters.
Requests with group constraints take greedy's split or nothing: any other split could break them.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from model import Division
from solver.replicas.joint import Answer, CapacityProblem, Option, Placed, Unit, queue, room_after_fixed

__all__ = ["fill", "fits_on"]

_UNLIMITED = np.int64(1) << 40


def fill(problem: CapacityProblem, part: Sequence[int], baseline: Answer) -> Answer:
    """Fixed units as in the baseline, every other unit under its earliest option that fits."""
    answer: Answer = list(baseline)
    room = room_after_fixed(problem, part)
    arrays: dict[int, _Arrays] = {}  # by id(option): the options of a class are shared
    for u in queue(problem, part):
        unit = problem.units[u]
        answer[u] = None
        demand = np.asarray(unit.demand, dtype=np.int64)
        for o, option in enumerate(unit.options):
            got = arrays.get(id(option))
            if got is None:
                got = arrays[id(option)] = _Arrays(option)
            split = _place(unit, option, got, room, demand)
            if split is not None:
                placed = Placed(o, tuple(sorted((row, n) for row, n in split.items() if n)))
                held = dict(option.held)
                for row, n in placed.replicas:
                    if n > held.get(row, 0):
                        room[row] -= (n - held.get(row, 0)) * demand
                answer[u] = placed
                break
    return answer


def fits_on(room: np.ndarray, rows: np.ndarray, demand: np.ndarray) -> np.ndarray:
    """How many replicas of `demand` fit on each of `rows` in `room`."""
    asked = demand > 0
    if not asked.any():
        return np.full(len(rows), _UNLIMITED, dtype=np.int64)
    return (room[np.ix_(rows, np.nonzero(asked)[0])] // demand[asked]).min(axis=1)


class _Arrays:
    """An option's candidates, held replicas, split and caps as arrays aligned on its rows."""

    def __init__(self, option: Option) -> None:
        self.rows = np.asarray(option.candidates, dtype=np.int64)
        at = {row: k for k, row in enumerate(option.candidates)}
        self.held = np.zeros(len(self.rows), dtype=np.int64)
        for row, n in option.held:
            self.held[at[row]] = n
        self.target = np.zeros(len(self.rows), dtype=np.int64)
        for row, n in option.target:
            self.target[at[row]] = n
        self.most = None if option.most is None else np.asarray(option.most, dtype=np.int64)


def _place(
    unit: Unit, option: Option, arrays: _Arrays, room: np.ndarray, demand: np.ndarray
) -> dict[int, int] | None:
    rows = arrays.rows
    if not len(rows):
        return None
    limit = fits_on(room, rows, demand)
    if arrays.most is not None:
        limit = np.minimum(limit, arrays.most)
    held_now = arrays.held
    base = np.zeros(len(rows), dtype=np.int64) if unit.fresh else held_now
    limit = limit + (held_now if unit.fresh else 0)  # afresh, a held replica costs nothing to keep
    want = unit.count - int(base.sum())
    aim = np.maximum(arrays.target - base, 0)
    if option.groups:  # greedy's split or nothing
        return _as_split(rows, base + aim) if int(aim.sum()) == want and (aim <= limit).all() else None
    if int(limit.sum()) < want:
        return None
    take = np.minimum(aim, limit)
    if int(take.sum()) > want:  # a split that asks for more than the request: trust none of it
        take[:] = 0
    rest = want - int(take.sum())
    if rest:
        left = limit - take
        used = (take + base) > 0
        preferred = used if unit.division is Division.AGGREGATED else np.zeros(len(rows), dtype=bool)
        # Most room first (the used ones first for AGGREGATED), row order on ties.
        for i in np.lexsort((rows, -left, ~preferred)):
            if rest == 0:
                break
            if left[i] > 0:
                step = min(rest, int(left[i]))
                take[i] += step
                rest -= step
    return _as_split(rows, base + take)


def _as_split(rows: np.ndarray, replicas: np.ndarray) -> dict[int, int]:
    at = np.flatnonzero(replicas)
    return dict(zip(rows[at].tolist(), replicas[at].tolist(), strict=True))
