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
pdqsort's permutation of equal entries, which decides AGGREGATED's covering prefix.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import itemgetter

import numpy as np

from model import Division, Failure, Replicas
from solver.replicas import messages
from solver.replicas.gosort import go_sort
from solver.replicas.problem import Candidates
from solver.replicas.selection import Unplaceable
from solver.replicas.webster import webster

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
    if not overflow:
        return _nonzero(_assign(c, chosen, replicas, replicas.count, weights))
    tiers: dict[int, list[int]] = {}
    for i in chosen:
        tiers.setdefault(int(c.overflow[i]), []).append(i)
    out: list[tuple[str, int | None]] = []
    remaining = replicas.count
    for order in sorted(tiers):
        members = tiers[order]
        share = int32(min(remaining, sum(int(c.available[i]) for i in members)))
        out += _nonzero(_assign(c, members, replicas, share, weights))
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


def _assign(
    c: Candidates, chosen: Sequence[int], replicas: Replicas, count: int, weights: np.ndarray
) -> Entries:
    names = c.names[list(chosen)].tolist()
    if replicas.division is Division.DUPLICATED:
        return [(name, count) for name in names]
    if replicas.division is Division.WEIGHTED:
        weighted = [(c.names[i], int(weights[i])) for i in chosen if weights[i] > 0]
        if not weighted:
            weighted = [(name, 1) for name in names]
        return webster(count, weighted, replicas.tie_break)
    return _dynamic(c, chosen, replicas, count)


def _dynamic(c: Candidates, chosen: Sequence[int], replicas: Replicas, count: int) -> Entries:
    """AVAILABLE and AGGREGATED (assignByDynamicStrategy)."""
    rows = list(chosen)
    names = c.names[rows].tolist()
    selected = set(names)
    current: Entries = [(name, n) for name, n in replicas.current if name in selected]
    assigned = int32(sum(n for _, n in current))
    estimates = c.estimate[rows].tolist()
    if replicas.fresh:
        held: dict[str, int] = {}
        for name, n in current:  # every entry of a cluster listed twice adds (dynamicFreshScale)
            held[name] = held.get(name, 0) + n
        room = [(name, int32(n + held.get(name, 0))) for name, n in zip(names, estimates, strict=True)]
        return _divide(count, _by_count(room), replicas, [], messages.FRESH)
    if assigned > count:
        return _divide(count, _by_count(current), replicas, [], messages.SCALE_DOWN)
    if assigned < count:
        room = list(zip(names, estimates, strict=True))  # the chosen are distinct clusters
        return _merge(
            current, _divide(int32(count - assigned), _by_count(room), replicas, current, messages.SCALE_UP)
        )
    return current


def _by_count(entries: Entries) -> Entries:
    """sort.Sort(TargetClustersList): replicas descending, as Go leaves equal ones."""
    return go_sort(entries, keys=[-n for _, n in entries])


def _divide(target: int, room: Entries, replicas: Replicas, prior: Entries, wrap: str) -> Entries:
    """dynamicDivideReplicas: SHORT when the room is short of the target, else Webster over the
    room (AGGREGATED: over its shortest covering prefix, the clusters already used first)."""
    total = int32(sum(map(itemgetter(1), room)))
    if total < target:
        raise Unplaceable(Failure.SHORT, messages.ASSIGN.format(wrap.format(messages.SHORT.format(total))))
    if replicas.division is Division.AGGREGATED:
        used = {name for name, n in prior if n > 0}
        room = [e for e in room if e[0] in used] + [e for e in room if e[0] not in used]
        covered = 0
        for end, (_, n) in enumerate(room):
            covered = int32(covered + n)
            if covered >= target:
                room = room[: end + 1]
                break
    if sum(n for _, n in room) == 0:
        return []  # upstream's dispenser hands out nothing over no votes
    return webster(target, room, replicas.tie_break)


def _merge(old: Entries, new: Entries) -> Entries:
    """MergeTargetClusters: the new entries plus the old replicas on them, then the old-only ones."""
    if not old:
        return new
    if not new:
        return old
    previous = dict(old)  # a map: the last entry of a cluster listed twice wins
    merged = [(name, int32(n + previous.pop(name, 0))) for name, n in new]
    return merged + [(name, previous.pop(name)) for name, _ in old if name in previous]
