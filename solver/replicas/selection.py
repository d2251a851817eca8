"""Which candidates a request selects under its group spreads (pkg/scheduler/core/spreadconstraint).

- No group spread that selects: every candidate, in canonical order.
- A selecting spread on a claim (upstream: region) decides: groups of the candidates sharing the
  claim's value, scored (`group_score`), chosen by `select_groups`; the best candidate of each
  chosen group, then the best of the rest of those groups up to the cluster spread's max_groups
  (no capacity check on this path; it may return more clusters than that max).
- Else the cluster spread (claim ""): the first max_groups candidates, the lowest-ranked of them
  swapped for better-provisioned ones from the rest until they have room for the count (one
  whole set for a request of parts), unless the division ignores capacity: DUPLICATED, EVERY but
  where it spreads by room; with a count of 0 nothing is swapped, but taking none is then a
  failure of its own.

Failures raise Unplaceable(Failure.SELECTION, upstream's message).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from model import Division, Failure, GroupSpread, Replicas
from solver.replicas import messages
from solver.replicas.problem import Candidates

__all__ = ["Unplaceable", "select", "select_groups", "group_score", "by_cluster", "from_groups", "Group"]

WEIGHT_UNIT = 1000


class Unplaceable(Exception):  # noqa: N818 -- an outcome, not a defect
    """An attempt that cannot place the request: the failure and upstream's message."""

    def __init__(self, failure: Failure, message: str) -> None:
        super().__init__(message)
        self.failure = failure
        self.message = message


def ignores_capacity(replicas: Replicas) -> bool:
    """Selection ignores room for DUPLICATED, and for EVERY unless it spreads by room (upstream:
    shouldIgnoreAvailableResource, true for a Duplicated or absent replicaScheduling whatever the
    workload, a multi-component one too; calcGroupScore's Duplicated branch likewise)."""
    if replicas.division is Division.EVERY:
        return not replicas.spread_by_room
    return replicas.division is Division.DUPLICATED


def needed(replicas: Replicas) -> int:
    """The room selection asks for (-1: none): one whole set for a request of parts (upstream's
    needReplicas 1 under MultiplePodTemplatesScheduling), else the count."""
    if ignores_capacity(replicas):
        return -1
    return 1 if replicas.parts else replicas.count


def select(c: Candidates, replicas: Replicas, claim_values: Sequence[str | None]) -> list[int]:
    """The selected candidates (indices into `c`), in upstream's order; `claim_values`: each
    candidate's value of the deciding group claim (None without one)."""
    cluster_spread = next((g for g in replicas.groups if g.selects and not g.claim), None)
    group_spread = next((g for g in replicas.groups if g.selects and g.claim), None)
    if group_spread is not None:
        return by_group(c, replicas, group_spread, cluster_spread or GroupSpread("", 0, 0), claim_values)
    if cluster_spread is not None:
        return by_cluster(c.available, cluster_spread, needed(replicas))
    return list(range(len(c)))


def deciding_claim(replicas: Replicas) -> str | None:
    return next((g.claim for g in replicas.groups if g.selects and g.claim), None)


def by_cluster(available: np.ndarray, spread: GroupSpread, need: int) -> list[int]:
    """selectBestClustersByCluster: `need` -1 ignores room."""
    n = len(available)
    if n < spread.min_groups:
        raise Unplaceable(Failure.SELECTION, messages.SELECT.format(messages.FEWER_THAN_MIN))
    k = min(n, spread.max_groups)
    if need == -1:
        return list(range(k))
    chosen, rest = list(range(k)), list(range(k, n))
    last = k - 1
    while sum(int(available[i]) for i in chosen) < need and last >= 0:
        best, most = -1, int(available[chosen[last]])
        for j, i in enumerate(rest):
            if int(available[i]) > most:
                best, most = j, int(available[i])
        if best >= 0:
            chosen[last], rest[best] = rest[best], chosen[last]
        last -= 1
    if not chosen or sum(int(available[i]) for i in chosen) < need:
        raise Unplaceable(
            Failure.SELECTION, messages.SELECT.format(messages.NOT_ENOUGH_WHEN_SELECTING.format(k))
        )
    return chosen


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    value: int  # clusters in the group
    weight: int  # the group's score


def group_score(
    available: Sequence[int], score: Sequence[int], replicas: Replicas, min_groups: int, cluster_min: int
) -> int:
    """calcGroupScore of one group (its candidates in canonical order): room up to the target
    first, the mean locality score second. `min_groups`: the group spread's; `cluster_min`: the
    cluster spread's (0 without one)."""
    count = replicas.count
    if ignores_capacity(replicas):
        valid = [s for a, s in zip(available, score, strict=True) if a >= count]
        return WEIGHT_UNIT * len(valid) + sum(valid) // len(valid) if valid else 0
    target = -(-count // max(min_groups, 1))
    least = max(cluster_min, min_groups)
    room = points = taken = 0
    for a, s in zip(available, score, strict=True):
        room, points, taken = room + a, points + s, taken + 1
        if taken >= least and room >= target:
            break
    if room < target:
        return room * WEIGHT_UNIT + points // len(available)
    return target * WEIGHT_UNIT + points // taken


def select_groups(groups: Sequence[Group], least: int, most: int, target: int) -> list[Group]:
    """selectGroups: every combination of between `least` and `most` groups holding at least
    `target` clusters, found depth first (a combination that qualifies is not extended), the best
    by weight, then clusters, then discovery; a shorter one that is a prefix of the best (groups by
    weight, then name) wins. Empty when none qualifies."""
    if not groups:
        return []
    ordered = sorted(groups, key=lambda g: (g.value, -g.weight, g.name))
    paths: list[tuple[int, list[Group]]] = []
    path: list[Group] = []

    def search(total: int, begin: int) -> None:
        if total >= target and least <= len(path) <= most:
            paths.append((len(paths) + 1, sorted(path, key=lambda g: (-g.weight, g.name))))
            return
        if len(path) >= most:
            return
        for i in range(begin, len(ordered)):
            path.append(ordered[i])
            search(total + ordered[i].value, i + 1)
            if len(ordered) == least:
                break  # upstream stops after the first branch (the path is kept)
            path.pop()

    search(0, 0)
    if not paths:
        return []
    if len(paths) == 1:
        return paths[0][1]
    ranked = sorted(paths, key=lambda p: (-sum(g.weight for g in p[1]), -sum(g.value for g in p[1]), p[0]))
    final = ranked[0][1]
    for _, other in ranked[1:]:
        if len(other) < len(final) and all(a.name == b.name for a, b in zip(other, final, strict=False)):
            final = other
    return final


def by_group(
    c: Candidates,
    replicas: Replicas,
    spread: GroupSpread,
    cluster_spread: GroupSpread,
    claim_values: Sequence[str | None],
) -> list[int]:
    """selectBestClustersByRegion over the groups of the spread's claim."""
    members: dict[str, list[int]] = {}
    for i, value in enumerate(claim_values):
        if value:
            members.setdefault(value, []).append(i)
    available, score = c.available, c.score
    weight = {
        name: group_score(
            [int(available[i]) for i in rows],
            [int(score[i]) for i in rows],
            replicas,
            spread.min_groups,
            cluster_spread.min_groups,
        )
        for name, rows in members.items()
    }
    return from_groups(members, weight, spread, cluster_spread)


def from_groups(
    members: dict[str, list[int]], weight: dict[str, int], spread: GroupSpread, cluster_spread: GroupSpread
) -> list[int]:
    """The selection from the groups (each its members, indices in canonical order, and its
    score): the chosen groups' best members, then their best others up to the cluster spread's
    max_groups."""
    if len(members) < spread.min_groups:
        raise Unplaceable(Failure.SELECTION, messages.SELECT.format(messages.FEWER_GROUPS_THAN_MIN))
    groups = [Group(name, len(rows), weight[name]) for name, rows in members.items()]
    chosen = select_groups(groups, spread.min_groups, spread.max_groups, cluster_spread.min_groups)
    if not chosen:
        raise Unplaceable(Failure.SELECTION, messages.SELECT.format(messages.NO_GROUP_PATH))
    selected = [members[g.name][0] for g in chosen]
    rest = sorted(i for g in chosen for i in members[g.name][1:])  # canonical order is index order
    wanted = min(len(selected) + len(rest), cluster_spread.max_groups)
    return selected + rest[: max(0, wanted - len(selected))]
