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
from solver.replicas.capacity_units import AIMS, Answer, CapacityProblem, Option, candidate_rows, level_names

__all__ = ["aim_bounds", "given_up_least", "kept_clusters", "unscheduled_bound"]

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


def aim_bounds(problem: CapacityProblem, part: Sequence[int], values: Sequence[int]) -> list[int]:
    """Per level after the unscheduled ones (level_names), a bound that holds for any answer that
    leaves `values` (an answer's levels) of the part's units unscheduled per priority
    (problem.priorities) and, for the steady units' clusters, moves the replicas `values` does: no
    option costs less than the first (0), no split is nearer greedy's than itself (0); a unit adds
    at least what it lacks (0 moved), a steady one with group constraints gives up at least the
    held replicas its spread cannot keep (`_given_up`); each AGGREGATED unit scheduled uses a
    cluster at least, a steady one without group constraints every cluster it keeps replicas on;
    of each priority's at most its unscheduled are not scheduled (those that would count the most).

    A steady unit with group constraints may give up what it holds on the clusters its selection
    leaves out (upstream's steady division keeps the current replicas of the selected clusters
    only): it uses at least as many clusters as keeping all but its least given up takes, but only
    where every such unit is scheduled and the replicas moved are at their bound (then each gives
    up exactly its least); otherwise one."""
    units = problem.units
    slot = {p: i for i, p in enumerate(problem.priorities)}
    unscheduled = values[: len(slot)]
    out = [0] * (len(level_names(problem)) - len(slot))
    moved_at = len(AIMS)
    by_priority: dict[int, list[tuple[int, int, int]]] = {}  # (given up, clusters at it, clusters otherwise)
    clusters: dict[tuple[bool, int], list[int]] = {}
    for u in part:
        unit = units[u]
        if unit.fixed is not None or not unit.options:
            continue
        if not unit.fresh and any(option.groups for option in unit.options):
            least = min(given_up_least(option) for option in unit.options)
            used = min(kept_clusters(o, least) for o in unit.options if given_up_least(o) == least)
            aggregated = unit.division is Division.AGGREGATED
            at_least = (least, used if aggregated else 0, int(aggregated))
            by_priority.setdefault(unit.priority, []).append(at_least)
        elif unit.division is Division.AGGREGATED:
            kept = 1 if unit.fresh else min(max(1, len(option.held)) for option in unit.options)
            clusters.setdefault((unit.fresh, unit.priority), []).append(kept)
    out[moved_at] = sum(
        _scheduled(sorted(g for g, _, _ in spread), unscheduled[slot[p]]) for p, spread in by_priority.items()
    )
    every = not any(unscheduled[slot[p]] for p in by_priority)
    at_least = every and out[moved_at] == values[len(slot) + moved_at]
    for p, spread in by_priority.items():
        used = [at if at_least else otherwise for _, at, otherwise in spread]
        clusters.setdefault((False, p), []).extend(used)
    for (fresh, priority), used in sorted(clusters.items()):
        level = (0 if fresh else len(AIMS) + 1) + AIMS.index("clusters-used")
        out[level] += _scheduled(sorted(used), unscheduled[slot[priority]])
    return out


def _scheduled(least: list[int], unscheduled: int) -> int:
    """The sum over the units scheduled, of each a least (sorted), all but `unscheduled` of them."""
    return sum(least[: max(0, len(least) - unscheduled)])


def given_up_least(option: Option) -> int:
    """The fewest held replicas a steady unit under the option gives up: under each group
    constraint alone it keeps at most its groups' most held (one cluster of each group where no
    constraint counts clusters; a constraint that counts clusters beside one that does not allows
    one cluster per group of that one at least, as upstream's selection by group does)."""
    held = dict(option.held)
    total = sum(held.values())
    counting = [len(set(g.of)) == len(g.of) for g in option.groups]
    by_group = [g.most for g, counts in zip(option.groups, counting, strict=True) if not counts]
    least = 0
    for groups, counts in zip(option.groups, counting, strict=True):
        of = dict(zip(option.candidates, groups.of, strict=True))
        most = max(groups.most, *by_group) if counts and by_group else groups.most
        values: dict[int, int] = {}
        for row, n in held.items():
            g = of[row]
            values[g] = max(values.get(g, 0), n) if not any(counting) else values.get(g, 0) + n
        least = max(least, total - sum(sorted(values.values(), reverse=True)[:most]))
    return least


def kept_clusters(option: Option, given_up: int) -> int:
    """The fewest clusters a steady unit under the option uses when it gives up exactly
    `given_up` of its held replicas (it keeps the rest on as few clusters as their counts allow)."""
    held = sorted((n for _, n in option.held), reverse=True)
    keep = sum(held) - given_up
    reach = np.cumsum(held)
    return max(1, int(np.searchsorted(reach, keep, side="left")) + 1 if keep > 0 else 1)
