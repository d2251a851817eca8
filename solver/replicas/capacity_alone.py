"""Whether an answer is proven optimal unit by unit, with no model: every unit that may be
scheduled is, and each is at the least its own levels can be for it alone.

Why that proves the answer (solver.replicas.joint's levels, all minimised in order): a joint
answer's levels are the sums of its units' own, and each unit's placement in a joint answer is
also one for the unit alone (the others only take room). So the sum of the units' own least
vectors (each lexicographically least for the unit alone) is a lexicographic lower bound on every
joint answer: on the first level each unit is at least its least; where the sum is met, every
unit is at its least there, and on the next level again at least its least given that. An answer
that fits (charged: nothing over-committed) and puts every unit at its own least meets the bound.

A unit's least is known without a search where it is each level's least over every placement
of the unit (so a fortiori given the levels before): scheduled (0 unscheduled), its first option
(cost 0), greedy's own split (0 away from it; an AVAILABLE split is then the only placement left,
and the levels after it are what they are), no replica moved (0: what a unit adds is at least
what it lacks), and an AGGREGATED unit on the fewest clusters any placement can use (every
cluster a steady unit keeps replicas on, and at least as many clusters as it takes for the
replicas to fit each cluster's most: what it holds there plus what its cap and the room let it
add). Events on a live hub schedule a few bindings among a thousand clusters, where greedy's
answer is usually that, and the class model over every candidate cost seconds to confirm it.

One more case needs no model: an AGGREGATED unit divided afresh that greedy moves though it could
stay where it runs (`own_least` keeps it there: its least, and the only placement at it).

And one answer is cheap to try: a steady AGGREGATED unit with a spread that greedy's selection
makes give up more of its held replicas than the spread needs (`kept_in_spread`: the spread's
groups holding the most kept instead), which often meets capacity_bound's bounds.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from model import Division
from solver.replicas.capacity_bound import given_up_least
from solver.replicas.capacity_fill import fits_on
from solver.replicas.capacity_units import Answer, CapacityProblem, Option, Placed, Unit, added

__all__ = ["at_own_least", "kept_in_spread", "own_least"]


def at_own_least(problem: CapacityProblem, part: Sequence[int], answer: Answer, room: np.ndarray) -> bool:
    """Whether every unit of the part that may be scheduled is placed in `answer` at its own
    least on every level (`room`: the free capacity the fixed units leave)."""
    units = problem.units
    # fixed: no level; no option: unscheduled in every answer
    return all(
        _at_least(problem, units[u], answer[u], room)
        for u in part
        if units[u].fixed is None and units[u].options
    )


def own_least(
    problem: CapacityProblem, part: Sequence[int], answer: Answer, room: np.ndarray
) -> Answer | None:
    """`answer` (which fits) with every unit at its own least, where that takes no more than
    keeping in place an AGGREGATED unit divided afresh that greedy moves though it could stay
    (Fresh mode re-divides from scratch; kept where it runs, it moves nothing and adds nothing, so
    the answer still fits, and on no more clusters than any placement of it can use, no other
    placement does as well); None where some unit is not at its least so."""
    out = list(answer)
    for u in part:
        unit = problem.units[u]
        if unit.fixed is not None or not unit.options or _at_least(problem, unit, out[u], room):
            continue
        kept = _kept_in_place(unit)
        if out[u] is None or kept is None or not _least_placement(problem, unit, kept, room):
            return None
        out[u] = kept
    return out


def kept_in_spread(problem: CapacityProblem, part: Sequence[int], answer: Answer, room: np.ndarray) -> Answer:
    """`answer` (which fits) with each steady AGGREGATED unit with a spread that gives up more held
    replicas than its least (capacity_bound.given_up_least) placed instead on the held clusters
    of its spread's best groups (the most held: then it gives up exactly its least), what it lacks
    added there by room and within its caps, where that fits beside what the others add; left as
    it is where not (`room`: the free capacity the fixed units leave)."""
    units = problem.units
    out = list(answer)
    left = room.copy()
    for u in part:
        if units[u].fixed is None and out[u] is not None:
            _take(left, units[u], out[u], 1)
    for u in part:
        unit, placed = units[u], out[u]
        if unit.fixed is not None or placed is None or unit.fresh or unit.division is not Division.AGGREGATED:
            continue
        option = unit.options[placed.option]
        least = given_up_least(option)
        if not option.groups or _moved(unit, placed) <= least:
            continue
        _take(left, unit, placed, -1)
        kept = _kept_in_groups(unit, option, least, left)
        out[u] = Placed(placed.option, kept) if kept is not None else placed
        _take(left, unit, out[u], 1)
    return out


def _take(room: np.ndarray, unit: Unit, placed: Placed, sign: int) -> None:
    for row, n in added(unit, placed):
        room[row] -= sign * n * np.asarray(unit.demand, dtype=np.int64)


def _kept_in_groups(
    unit: Unit, option: Option, least: int, room: np.ndarray
) -> tuple[tuple[int, int], ...] | None:
    """The unit's split keeping the held replicas of its best groups (one spread by a claim, with
    or without one by cluster), giving up exactly `least`, the rest added on those clusters; None
    where no such split meets every constraint or fits."""
    held = dict(option.held)
    counting = [len(set(g.of)) == len(g.of) for g in option.groups]
    by_claim = [g for g, counts in zip(option.groups, counting, strict=True) if not counts]
    if len(by_claim) > 1:
        return None
    if by_claim:
        of = dict(zip(option.candidates, by_claim[0].of, strict=True))
        members: dict[int, list[int]] = {}
        for row in sorted(held, key=lambda r: (-held[r], r)):
            members.setdefault(of[row], []).append(row)
        if not any(counting):  # one cluster of each group: its largest
            members = {g: rows[:1] for g, rows in members.items()}
        best = sorted(members, key=lambda g: (-sum(held[r] for r in members[g]), g))[: by_claim[0].most]
        keep = sorted(r for g in best for r in members[g])
    else:
        most = min(g.most for g in option.groups)
        keep = sorted(sorted(held, key=lambda r: (-held[r], r))[:most])
    if sum(held.values()) - sum(held[r] for r in keep) != least or not keep:
        return None
    for groups in option.groups:  # the class model's rules (capacity_model._groups)
        of = dict(zip(option.candidates, groups.of, strict=True))
        floor = min(groups.least, unit.count, len({of[row] for row, _ in option.target}))
        if not floor <= len({of[r] for r in keep}) <= groups.most:
            return None
    rows = np.asarray(keep, dtype=np.int64)
    fits = fits_on(room, rows, np.asarray(unit.demand, dtype=np.int64))
    if option.most is not None:
        cap = dict(zip(option.candidates, option.most, strict=True))
        fits = np.minimum(fits, np.asarray([cap[r] for r in keep], dtype=np.int64))
    lacking = unit.count - sum(held[r] for r in keep)
    split = {r: held[r] for r in keep}
    for k in np.lexsort((rows, -fits)).tolist():
        n = min(int(fits[k]), lacking)
        split[keep[k]] += n
        lacking -= n
    return tuple(sorted(split.items())) if lacking == 0 else None


def _at_least(problem: CapacityProblem, unit: Unit, placed: Placed | None, room: np.ndarray) -> bool:
    if placed is None or placed.option != 0 or unit.options[0].cost != 0:
        return False
    return _least_placement(problem, unit, placed, room)


def _kept_in_place(unit: Unit) -> Placed | None:
    """An AGGREGATED unit divided afresh kept where it runs (its first option, no spread), or None."""
    option = unit.options[0]
    if unit.division is not Division.AGGREGATED or not unit.fresh or option.groups or option.cost != 0:
        return None
    if sum(n for _, n in option.held) != unit.count:
        return None
    return Placed(0, option.held)


def _least_placement(problem: CapacityProblem, unit: Unit, placed: Placed, room: np.ndarray) -> bool:
    """The levels in their order: a steady unit's replicas moved come before its aims, a fresh
    unit's after (capacity_units.level_names)."""
    option = unit.options[placed.option]
    x = dict(placed.replicas)
    if not unit.fresh and _moved(unit, placed) != 0:
        return False
    if unit.division is Division.AVAILABLE and option.target:
        return x == dict(option.target)  # 0 away: the only placement left, the rest follows
    if unit.division is Division.AGGREGATED and len(x) > _fewest_clusters(problem, unit, placed.option, room):
        return False
    return not unit.fresh or _moved(unit, placed) == 0


def _moved(unit: Unit, placed: Placed) -> int:
    """The unit's replicas-moved (capacity_units.measure): added beyond held, less what it lacks."""
    grown = max(0, unit.count - unit.options[placed.option].kept)
    return sum(n for _, n in added(unit, placed)) - grown


def _fewest_clusters(problem: CapacityProblem, unit: Unit, o: int, room: np.ndarray) -> int:
    """A lower bound on the clusters any placement of the unit under option o uses."""
    if unit.count <= 0:
        return 0
    option = unit.options[o]
    least = 1 if unit.fresh else max(1, len(option.held))
    rows = np.asarray(option.candidates, dtype=np.int64)
    most = fits_on(room, rows, np.asarray(unit.demand, dtype=np.int64))
    if option.most is not None:
        most = np.minimum(most, np.asarray(option.most, dtype=np.int64))
    held = dict(option.held)
    most = most + np.asarray([held.get(row, 0) for row in option.candidates], dtype=np.int64)
    reach = np.cumsum(np.sort(most)[::-1])
    needed = int(np.searchsorted(reach, unit.count, side="left")) + 1  # top-k sums reaching count
    return max(least, needed)
