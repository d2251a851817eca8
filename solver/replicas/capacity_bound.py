"""A bound on the requests left unscheduled, for parts too large for the class model.

The relaxation: a unit must add at least its count less what it keeps (the most any of its options
holds) times its demand, somewhere among its candidates (every option's, together); caps and
groups are left out. For a set C of clusters, the units whose candidates all lie in C share C's
room (the free capacity left by the fixed units): on each resource, at most the smallest needs
whose sum fits it can be scheduled, so the others are lost whatever happens. Sets that share no
cluster share no unit, so their losses add up. The sets tried are the candidate sets of the units
`answer` leaves unscheduled (where the room ran out), the largest losses taken first.

Level by level (priority from the highest), each given the levels above at `above` unscheduled
(their optimum, where this bound is read): of the higher units inside C all but that many are
scheduled, so at least the smallest needs of that many are taken out of C's room first.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from model import Division
from solver.replicas.capacity_units import AIMS, Answer, CapacityProblem, candidate_rows, level_names

__all__ = ["aim_bounds", "unscheduled_bound"]

_SETS = 200  # candidate sets tried, at most


def unscheduled_bound(
    problem: CapacityProblem, part: Sequence[int], room: np.ndarray, answer: Answer, values: Sequence[int]
) -> list[int]:
    """Per priority (problem.priorities), the fewest of its units any answer leaves unscheduled
    once the levels above hold `values` (the answer's unscheduled per priority)."""
    units = problem.units
    flexible = [u for u in part if units[u].fixed is None]
    placeable = [u for u in flexible if units[u].options]
    sets = _Sets(problem, placeable, answer)
    out = []
    for i, p in enumerate(problem.priorities):
        lost = sum(1 for u in flexible if not units[u].options and units[u].priority == p)
        out.append(lost + sets.lost(p, sum(values[:i]), room))
    return out


class _Sets:
    """The units' needs and, for the narrow ones, their distinct candidate sets flat (sorted by
    width, so the sets that can lie inside a set of w clusters are a prefix), for the sets of
    clusters tried: the candidate sets of the units `answer` leaves out, at most _SETS of them,
    the narrowest first (each costs the rows of the sets no wider than it)."""

    def __init__(self, problem: CapacityProblem, us: list[int], answer: Answer) -> None:
        units = problem.units
        self.clusters = len(problem.free)
        drawn = [candidate_rows(problem, units[u].options) for u in us]  # shared by content
        keys = {id(rows): rows for u, rows in zip(us, drawn, strict=True) if answer[u] is None}
        self.tried = sorted((tuple(rows.tolist()) for rows in keys.values()), key=lambda key: (len(key), key))
        self.tried = self.tried[:_SETS]
        widest = len(self.tried[-1]) if self.tried else 0
        # The distinct candidate sets no wider than the widest tried, narrowest first, flat; each
        # unit's among them (-1: wider)
        sets: dict[int, np.ndarray] = {}
        for rows in drawn:
            if len(rows) <= widest:
                sets.setdefault(id(rows), rows)
        ordered = sorted(sets.values(), key=len)
        position = {id(rows): k for k, rows in enumerate(ordered)}
        self.set_of = np.asarray([position.get(id(rows), -1) for rows in drawn], dtype=np.int64)
        self.width = np.asarray([len(rows) for rows in ordered], dtype=np.int64)
        self.flat = np.concatenate(ordered) if ordered else np.zeros(0, dtype=np.int64)
        self.owner = np.repeat(np.arange(len(ordered)), self.width)
        self.ends = np.cumsum(self.width, dtype=np.int64)
        self.priority = np.asarray([units[u].priority for u in us], dtype=np.int64)
        self.need = np.zeros((len(us), problem.free.shape[1]), dtype=np.int64)
        for k, u in enumerate(us):
            kept = max(o.kept for o in units[u].options)
            self.need[k] = (units[u].count - kept) * np.asarray(units[u].demand)
        self.inside: dict[tuple[int, ...], np.ndarray] = {}

    def lost(self, p: int, above: int, room: np.ndarray) -> int:
        found = {key: self._lost(key, p, above, room) for key in self.tried}
        taken = np.zeros(self.clusters, dtype=bool)
        total = 0
        for key, lost in sorted(found.items(), key=lambda kv: (-kv[1], kv[0])):
            rows = np.asarray(key, dtype=np.int64)
            if lost and not taken[rows].any():
                taken[rows] = True
                total += lost
        return total

    def _inside(self, key: tuple[int, ...]) -> np.ndarray:
        got = self.inside.get(key)
        if got is None:
            in_set = np.zeros(self.clusters, dtype=bool)
            in_set[list(key)] = True
            narrow = int(np.searchsorted(self.width, len(key), side="right"))  # no wider than the set
            end = int(self.ends[narrow - 1]) if narrow else 0
            out = ~in_set[self.flat[:end]]
            outside = np.bincount(self.owner[:end], weights=out, minlength=len(self.width))
            within = np.append(outside == 0, False)  # the last: the wider units' (-1)
            within[narrow:-1] = False
            got = self.inside[key] = within[self.set_of]
        return got

    def _lost(self, key: tuple[int, ...], p: int, above: int, room: np.ndarray) -> int:
        """Units of priority p wholly inside `key` that cannot all fit its room, on the tightest
        resource, after the higher units inside that must be scheduled."""
        inside = self._inside(key)
        mine = self.need[inside & (self.priority == p)]
        if not len(mine):
            return 0
        have = room[list(key)].sum(axis=0)
        higher = self.need[inside & (self.priority > p)]
        kept = len(higher) - above
        if kept > 0:
            have = have - np.sort(higher, axis=0)[:kept].sum(axis=0)
        most = len(mine)
        for r in np.nonzero(mine.sum(axis=0) > have)[0]:
            if have[r] < 0:
                return len(mine)
            fits = int(np.searchsorted(np.cumsum(np.sort(mine[:, r])), have[r], side="right"))
            most = min(most, fits)
        return len(mine) - most


def aim_bounds(problem: CapacityProblem, part: Sequence[int], unscheduled: Sequence[int]) -> list[int]:
    """Per level after the unscheduled ones (level_names), a bound that holds for any answer that
    leaves `unscheduled` of the part's units unscheduled per priority (problem.priorities): no
    option costs less than the first (0), no split is nearer greedy's than itself (0), a steady
    unit adds exactly what it lacks and one afresh at least that (0 moved); each AGGREGATED unit
    scheduled uses a cluster at least, a steady one every cluster it keeps replicas on, and of
    each priority's at most its unscheduled are not scheduled (those that would use the most)."""
    units = problem.units
    slot = {p: i for i, p in enumerate(problem.priorities)}
    fewest: dict[tuple[bool, int], list[int]] = {}
    for u in part:
        unit = units[u]
        if unit.fixed is None and unit.options and unit.division is Division.AGGREGATED:
            kept = 1 if unit.fresh else min(max(1, len(option.held)) for option in unit.options)
            fewest.setdefault((unit.fresh, unit.priority), []).append(kept)
    out = [0] * (len(level_names(problem)) - len(slot))
    for (fresh, priority), used in sorted(fewest.items()):
        scheduled = max(0, len(used) - unscheduled[slot[priority]])
        level = (0 if fresh else len(AIMS) + 1) + AIMS.index("clusters-used")
        out[level] += sum(sorted(used)[:scheduled])
    return out
