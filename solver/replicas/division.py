"""How a request's count is divided among the clusters it selected (pkg/scheduler/core/common.go
AssignReplicas, assignment.go, division_algorithm.go).

- EVERY: every selected cluster, with no number (and no cluster dropped).
- DUPLICATED: every selected cluster runs the whole count.
- WEIGHTED: Webster over the static weights (a cluster's weight: the largest of the rules it
  matches; clusters of weight 0 get nothing; no rules, or no cluster weighing anything: every
  cluster weighs 1). Capacity and the current assignment are not read.
- AVAILABLE and AGGREGATED, in steady mode, from S, the current entries on selected clusters (in
  their order, zero entries included) holding A replicas:
  scale up (A < count): the count less A is divided over the clusters' estimates (sorted
  descending, stable), and added to S; scale down (A > count): the count is divided over S
  (sorted by replicas descending); no change (A = count): S as it is. Fresh mode divides the whole
  count over estimate + held. A division first needs the estimates to sum to at least its target
  (SHORT, with upstream's message), AGGREGATED then keeps the shortest prefix that covers the
  target, the clusters it already uses first.
- With overflow terms (AffinityTier.overflow) the count fills the tier's own clusters first, then
  each overflow term's, each taking at most what its clusters have room for (estimate + held).

Counts, current replicas and sums are Go int32s upstream, and may be negative (the API takes
them): sums and differences wrap around as Go's do (GetSumOfReplicas, the scale-up target, the
AGGREGATED prefix, MergeTargetClusters), a division of a count of 0 or less hands out nothing
(Webster gives no seat), and entries of 0 replicas or fewer are dropped (but for EVERY).

The answer is in upstream's write order: Webster's entries by name, then the current entries it
did not touch (upstream appends them in Go map order; we keep their current order: upstream's
order there is random, its content the same).
Sorting by count is Go's sort.Sort (solver.replicas.gosort): stable up to 12 entries, beyond that
pdqsort's permutation of equal entries, which decides AGGREGATED's covering prefix. Webster's
answer depends on its parties, not on their order, so a division of distinct clusters sorts only
for AGGREGATED, and runs Go's steps only where the prefix ends among equal rooms.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from model import Division, Failure, Replicas
from solver.replicas import messages
from solver.replicas.gosort import go_sort
from solver.replicas.order import HELD_SCORE
from solver.replicas.problem import Candidates
from solver.replicas.selection import Unplaceable
from solver.replicas.webster import apportion, webster

__all__ = ["divide"]

Entries = list[tuple[str, int]]


def divide(
    c: Candidates,
    chosen: Sequence[int],
    replicas: Replicas,
    weights: np.ndarray,
    overflow: bool,
) -> list[tuple[str, int | None]]:
    """The answer for the chosen candidates (indices into `c`, in selection order). `weights`:
    each candidate's static weight; `overflow`: the tier has overflow terms."""
    if not chosen:
        raise Unplaceable(Failure.SELECTION, messages.ASSIGN.format(messages.NOTHING_SELECTED))
    if replicas.division is Division.EVERY:
        return [(c.names[i], None) for i in chosen]
    picked = np.asarray(chosen, dtype=np.int64)
    if not overflow:
        return _nonzero(_assign(c, picked, replicas, replicas.count, weights))
    orders = c.overflow[picked]
    available = c.available[picked]
    out: list[tuple[str, int | None]] = []
    remaining = replicas.count
    for order in np.unique(orders).tolist():
        members = orders == order
        share = int32(min(remaining, int(available[members].sum())))
        out += _nonzero(_assign(c, picked[members], replicas, share, weights))
        remaining = int32(remaining - share)
        if remaining <= 0:
            break
    if remaining > 0:
        raise Unplaceable(Failure.SHORT, messages.ASSIGN.format(messages.SHORT_OVER_TIERS))
    return out


def _nonzero(entries: Entries) -> list[tuple[str, int | None]]:
    """removeZeroReplicasCluster: the entries of more than 0 replicas."""
    return [(name, n) for name, n in entries if n > 0]


def int32(value: int) -> int:
    """The value as Go's int32 arithmetic leaves it (wrapped around)."""
    return (value + 2**31) % 2**32 - 2**31


def _int32s(values: np.ndarray) -> np.ndarray:
    """int32 of each value (int64 arrays whose sums stay within int64)."""
    return (values + 2**31) % 2**32 - 2**31


def _assign(
    c: Candidates, chosen: np.ndarray, replicas: Replicas, count: int, weights: np.ndarray
) -> Entries:
    if replicas.division is Division.DUPLICATED:
        return [(name, count) for name in c.names[chosen].tolist()]
    if replicas.division is Division.WEIGHTED:
        votes = weights[chosen]
        if (votes > 0).any():
            chosen, votes = chosen[votes > 0], votes[votes > 0]
        else:
            votes = np.ones(len(chosen), dtype=np.int64)
        order = np.argsort(c.rows[chosen], kind="stable")  # by name: rows are in name order
        return _seated(c.names[chosen[order]], votes[order], count, replicas, None)
    return _dynamic(c, chosen, replicas, count)


def _dynamic(c: Candidates, chosen: np.ndarray, replicas: Replicas, count: int) -> Entries:
    """AVAILABLE and AGGREGATED (assignByDynamicStrategy), over the chosen candidates' arrays: a
    thousand candidates make no list but of the clusters that get replicas."""
    at = np.flatnonzero(c.score[chosen] == HELD_SCORE)  # the chosen the current assignment lists
    position = dict(zip(c.names[chosen[at]].tolist(), at.tolist(), strict=True))
    current: Entries = [(name, n) for name, n in replicas.current if name in position]
    assigned = int32(sum(n for _, n in current))
    names, rows, room = c.names[chosen], c.rows[chosen], c.estimate[chosen]
    if replicas.fresh:
        held = np.zeros(len(chosen), dtype=np.int64)
        for name, n in current:  # every entry of a cluster listed twice adds (dynamicFreshScale)
            held[position[name]] += n
        return _divide(count, names, rows, _int32s(room + held), replicas, messages.FRESH) or []
    if assigned > count:  # over the current entries (a cluster may stand twice)
        listed = np.array([position[name] for name, _ in current], dtype=np.int64)
        votes = np.array([n for _, n in current], dtype=np.int64)
        distinct = len(set(listed.tolist())) == len(listed)
        return (
            _divide(count, names[listed], rows[listed], votes, replicas, messages.SCALE_DOWN, distinct) or []
        )
    if assigned < count:
        used = np.zeros(len(chosen), dtype=bool)
        used[[position[name] for name, n in current if n > 0]] = True
        kept = np.zeros(len(chosen), dtype=bool)
        kept[at] = True
        target = int32(count - assigned)
        return _merge(
            current, _divide(target, names, rows, room, replicas, messages.SCALE_UP, used=used, kept=kept)
        )
    return current


def _divide(
    target: int,
    names: np.ndarray,
    rows: np.ndarray,
    votes: np.ndarray,
    replicas: Replicas,
    wrap: str,
    distinct: bool = True,
    *,
    used: np.ndarray | None = None,
    kept: np.ndarray | None = None,
) -> Entries | None:
    """dynamicDivideReplicas over parties (their names, rows and votes, in selection order; not
    `distinct`: a cluster stands twice, in a current assignment): SHORT when the room is short of
    the target, else Webster over the room (AGGREGATED: over its shortest covering prefix in Go's
    sort.Sort order by room, the `used` parties first). The entries of the parties that get
    seats or are `kept`, in name order; None where Webster hands out nothing (no party, or no
    vote)."""
    total = int32(int(votes.sum()))
    if total < target:
        raise Unplaceable(Failure.SHORT, messages.ASSIGN.format(wrap.format(messages.SHORT.format(total))))
    order = np.arange(len(votes))
    if replicas.division is Division.AGGREGATED:
        if used is None:
            used = np.zeros(len(votes), dtype=bool)
        order = _covering(votes, used, target, exact=not distinct)
    elif not distinct:  # the vote of a cluster listed twice is its last in the sorted order
        order = _by_count(votes, exact=True)
    if not len(order) or int(votes[order].sum()) == 0:
        return None  # upstream's dispenser hands out nothing over no votes
    if not distinct:  # a few entries of a current assignment (nothing kept): Webster by name
        room = list(zip(names[order].tolist(), votes[order].tolist(), strict=True))
        return [(name, n) for name, n in webster(target, room, replicas.tie_break) if n]
    order = order[np.argsort(rows[order], kind="stable")]  # by name: rows are in name order
    return _seated(names[order], votes[order], target, replicas, None if kept is None else kept[order])


def _seated(
    names: np.ndarray, votes: np.ndarray, seats: int, replicas: Replicas, kept: np.ndarray | None
) -> Entries:
    """Webster over distinct parties in name order: the entries of those that get seats or are
    `kept`."""
    got = apportion(seats, votes, replicas.tie_break)
    shown = got > 0 if kept is None else (got > 0) | kept
    return list(zip(names[shown].tolist(), got[shown].tolist(), strict=True))


def _by_count(votes: np.ndarray, *, exact: bool) -> np.ndarray:
    """sort.Sort(TargetClustersList): positions by votes descending. `exact`: as Go leaves equal
    ones (gosort); else stably, which is Go's order wherever no two equal votes are told apart."""
    if exact:
        return np.asarray(go_sort(range(len(votes)), keys=(-votes).tolist()), dtype=np.int64)
    return np.argsort(-votes, kind="stable")


def _covering(votes: np.ndarray, used: np.ndarray, target: int, *, exact: bool) -> np.ndarray:
    """AGGREGATED's room: the positions by votes descending, the `used` ones first, up to the
    shortest prefix whose votes (summed in int32) reach the target (all where none does). Which
    of several equal votes Go's sort puts first matters only where the prefix ends inside a run
    of equal votes (of used, or of unused, positions): only then is Go's exact order needed."""
    order = _by_count(votes, exact=exact)
    room = np.concatenate((order[used[order]], order[~used[order]]))
    reached = np.flatnonzero(_int32s(np.cumsum(votes[room])) >= target)
    if not len(reached):
        return room
    end = int(reached[0])
    if not exact and end + 1 < len(room):
        here, after = room[end], room[end + 1]
        if used[here] == used[after] and votes[here] == votes[after]:
            return _covering(votes, used, target, exact=True)
    return room[: end + 1]


def _merge(old: Entries, new: Entries | None) -> Entries:
    """MergeTargetClusters: the new entries plus the old replicas on them, then the old-only
    ones (None: Webster handed out nothing, the old as they are; `new` lists every old cluster
    among Webster's parties, the rest would merge to nothing)."""
    if not old:
        return new or []
    if new is None:
        return old
    previous = dict(old)  # a map: the last entry of a cluster listed twice wins
    merged = [(name, int32(n + previous.pop(name, 0))) for name, n in new]
    return merged + [(name, previous.pop(name)) for name, _ in old if name in previous]
