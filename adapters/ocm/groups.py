"""Decision strategy: how a placement's selected clusters are cut into decision groups.

Upstream (generateDecisionGroups) takes the decisionGroups in spec order, each claiming the
selected clusters its selector matches that no earlier group claimed; the rest go to groups named
"". Every group's members are sorted by name and cut into chunks of clustersPerDecisionGroup (a
number, or a percentage of the selected clusters rounded up; zero, negative or more than the total
means the total). There is always at least one group.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Any

from adapters.kube.fields import INT32, Fields, whole
from adapters.kube.selectors import SelectorError, label_selector
from adapters.ocm import names as n
from model import Cluster, LabelSelector

__all__ = ["DecisionGroup", "GroupStrategy", "read_strategy", "decision_groups"]

_PER_GROUP = re.compile(r"((100|[1-9][0-9]{0,1})%|[1-9][0-9]*)")  # the CRD pattern of a string
_GROUP_NAME = re.compile(r"[a-zA-Z0-9][-A-Za-z0-9_.]{0,61}[a-zA-Z0-9]")


@dataclass(frozen=True, slots=True)
class DecisionGroup:
    name: str
    labels: LabelSelector | None = None
    claims: LabelSelector | None = None

    def matches(self, cluster: Cluster) -> bool:
        return (self.labels is None or self.labels.matches(cluster.labels)) and (
            self.claims is None or self.claims.matches(cluster.claims)
        )


@dataclass(frozen=True, slots=True)
class GroupStrategy:
    per_group: int | str = "100%"  # a number, or "<p>%"
    groups: tuple[DecisionGroup, ...] = ()
    error: str | None = None  # upstream's Misconfigured message: no group can be made

    def length(self, total: int) -> int:
        if isinstance(self.per_group, int):
            length = self.per_group
        else:
            length = math.ceil(float(self.per_group[:-1]) / 100 * total)
        return total if length <= 0 or length > total else length


def read_strategy(f: Fields, spec: Mapping[str, Any]) -> GroupStrategy:
    base = "spec.decisionStrategy"
    decision_strategy = f.mapping(spec.get("decisionStrategy"), base)
    base += ".groupStrategy"
    strategy = f.mapping(decision_strategy.get("groupStrategy"), base)
    raw = whole(strategy.get("clustersPerDecisionGroup", "100%"))
    path = f"{base}.clustersPerDecisionGroup"
    error = None
    if isinstance(raw, bool) or not isinstance(raw, int | str):
        raise f.fail("expected an integer or a string", path)
    if isinstance(raw, int):
        # An IntOrString holds an int32: past it upstream cannot decode the Placement. The pattern
        # applies to strings only, so zero and negatives pass (and mean "all", as upstream reads them).
        f.integer(raw, path, maximum=INT32)
    else:
        if not _PER_GROUP.fullmatch(raw):
            raise f.fail(f"{raw!r} is neither a positive number nor a percentage from 1% to 100%", path)
        if not raw.endswith("%"):  # passes the schema, but upstream takes only "<p>%" strings
            error = n.NOT_PERCENTAGE.format(raw)
    groups = []
    for where, item in f.objects(strategy.get("decisionGroups"), f"{base}.decisionGroups"):
        name = f.string(item.get("groupName"), f"{where}.groupName")
        if not _GROUP_NAME.fullmatch(name):
            raise f.fail(f"invalid group name {name!r}", f"{where}.groupName")
        if item.get("groupClusterSelector") is None:
            raise f.fail("groupClusterSelector is required", f"{where}.groupClusterSelector")
        selector = f.mapping(item["groupClusterSelector"], f"{where}.groupClusterSelector")
        where += ".groupClusterSelector"
        try:
            labels = label_selector(f, selector.get("labelSelector"), f"{where}.labelSelector")
            claims = label_selector(f, selector.get("claimSelector"), f"{where}.claimSelector", labels=False)
        except SelectorError as err:
            error = error or str(err)
            labels = claims = None
        groups.append(DecisionGroup(name, labels, claims))
    return GroupStrategy(raw, tuple(groups), error)


def decision_groups(
    strategy: GroupStrategy,
    selected: Sequence[str],
    clusters: Mapping[str, Cluster],
    members: Callable[[DecisionGroup], AbstractSet[str]] | None = None,
    *,
    in_order: bool = False,
) -> list[tuple[str, list[str]]]:
    """(group name, cluster names sorted) for every group, in index order; at least one.

    `members`: the names of every cluster of `clusters` a group matches (a long-lived
    scheduler's, kept across its emits: OcmContext.members); the selected clusters a group
    claims are then those of them still unclaimed, found in C, instead of each selected cluster
    matched against its selector again (a cluster event's PickAlls select thousands each: some
    5 to 10 ms an event at 10,000 x 2,000).

    `in_order`: `selected` is in strict name order, each name once (a long-lived scheduler's
    answer given without the solver, OcmContext.entries' `names`): not sorted again, and with no
    group in the strategy cut as it is (no set made of its thousands of names)."""
    length = strategy.length(len(selected))
    if in_order and not strategy.groups:
        return _chunks("", list(selected), length) or [("", [])]
    remaining = set(selected)
    # The names in order, each once: what is left of them after the groups is the last group's
    # (an answer's names come in order: sorted again in one pass, not sorted from a set).
    ordered = list(selected) if in_order else sorted(selected)
    if len(ordered) != len(remaining):
        ordered = sorted(remaining)
    out: list[tuple[str, list[str]]] = []
    for group in strategy.groups:
        if members is None:
            matched = sorted(c for c in selected if c in remaining and group.matches(clusters[c]))
        else:
            matched = sorted(remaining.intersection(members(group)))
        remaining.difference_update(matched)
        out += _chunks(group.name, matched, length)
    rest = ordered if len(remaining) == len(ordered) else [c for c in ordered if c in remaining]
    out += _chunks("", rest, length)
    return out or [("", [])]


def _chunks(name: str, members: list[str], length: int) -> list[tuple[str, list[str]]]:
    return [(name, members[i : i + length]) for i in range(0, len(members), length)] if members else []
