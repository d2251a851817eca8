"""What the kcp adapter reads, indexed the ways both generations' plans need it (World), and the
small rules both share: the adapter's seeded random sources and Go's RFC 3339 times."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, TypeVar

from adapters.kcp import names as n
from adapters.kcp.names import Generation
from adapters.kcp.objects import (
    BindingObject,
    ClusterObject,
    LocationObject,
    NamespaceObject,
    PlacementObject,
)

__all__ = ["World", "last_shuffled", "parse_rfc3339", "seeded"]

T = TypeVar("T")
_NAMED = "locations-by-name"  # World.memo's key of its Locations by (workspace, name)


@dataclass(slots=True)
class World:
    """Everything read, indexed the ways both generations need it."""

    generation: Generation
    now: datetime
    seed: int
    namespaces: list[NamespaceObject]  # by workspace, name
    bindings: dict[str, list[BindingObject]]  # workspace -> its APIBindings by name
    locations: dict[str, list[LocationObject]]  # workspace -> its Locations (of the generation) by name
    clusters: dict[str, ClusterObject]  # neutral name -> cluster, sorted
    in_workspace: dict[str, dict[str, ClusterObject]]  # workspace -> name -> cluster
    traits: dict[str, frozenset[str]]  # neutral name -> traits
    placements: list[PlacementObject] = field(default_factory=list)  # by workspace, name (v0.8)
    # (workspace, location) -> the clusters its instanceSelector selects, in name order
    members: dict[tuple[str, str], list[ClusterObject]] = field(default_factory=dict)
    # Answers several placements share, computed once (v0.8: valid locations per selector set).
    memo: dict[Any, Any] = field(default_factory=dict)
    # The clusters by the key placements name them by (v0.8: the SyncTargetKey), where the caller
    # keeps them (the long-lived scheduler, adapters/kcp/reach.py); None: made from `clusters`.
    keys: dict[str, ClusterObject] | None = None

    def location(self, workspace: str, name: str) -> LocationObject | None:
        named = self.memo.get(_NAMED)
        if named is None:  # a thousand Locations in one workspace: looked up by name, not walked
            named = self.memo[_NAMED] = {
                (location.workspace, location.name): location
                for here in self.locations.values()
                for location in reversed(here)  # the first of a name wins, as a walk finds it
            }
        return named.get((workspace, name))

    def in_location(self, cluster: ClusterObject, workspace: str, location: str) -> bool:
        return n.LOCATION_TRAIT.format(workspace, location) in self.traits[cluster.neutral]

    def workload_binding(self, workspace: str) -> BindingObject | None:
        """The binding that makes the workspace's namespaces subject to placement: the first by name
        of the ready bindings to the compute export whose workspace holds clusters or Locations
        (found once per workspace: a workspace holds many namespaces)."""
        asked = ("workload-binding", workspace)
        if asked in self.memo:
            return self.memo[asked]
        found = self.memo[asked] = next(
            (
                binding
                for binding in self.bindings.get(workspace, ())
                if binding.ready
                and binding.to_compute
                and (
                    self.in_workspace.get(binding.export_workspace)
                    or self.locations.get(binding.export_workspace)
                )
            ),
            None,
        )
        return found

    def schedulable(self, c: ClusterObject) -> bool:
        """A new placement may land on it: Ready, not cordoned, not evicting (FilterReady and
        FilterNonEvicting; a deletionTimestamp counts for nothing)."""
        return c.ready and not c.unschedulable and self.admissible(c)

    def admissible(self, c: ClusterObject) -> bool:
        """What it holds stays (v0.5): not evicting."""
        return not c.evicting(self.now)


def seeded(seed: int, *parts: str) -> random.Random:
    """The random source of one choice the adapter makes (str seeds hash the same in every process)."""
    return random.Random("/".join((str(seed), *parts)))


def last_shuffled(rng: random.Random, items: Sequence[T], wanted: Callable[[T], bool]) -> T | None:
    """The last wanted item of `items` in the order `rng.shuffle` would put them, drawing only as
    far as that decides it: the shuffle (Fisher-Yates from the end) fixes the last place first,
    then the one before it, so the first wanted item it places is the answer. A namespace draws a
    permutation of a thousand Locations and nearly always stops at the first place. `rng` is left
    part way through its draws: for a source that makes this one shuffle only. Equal to
    random.shuffle's order, draw for draw (tests/test_kcp_speed.py holds them equal)."""
    order = list(items)
    for i in range(len(order) - 1, 0, -1):
        j = rng._randbelow(i + 1)  # what random.shuffle draws for place i
        order[i], order[j] = order[j], order[i]
        if wanted(order[i]):
            return order[i]
    return order[0] if order and wanted(order[0]) else None


# Go's time.Parse(time.RFC3339, ...): four-digit year, two-digit month, day, minute and second, a
# one- or two-digit hour, an upper-case T, an optional fraction after "." or ",", then Z or ±hh:mm.
_GO_RFC3339 = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{1,2}):([0-9]{2}):([0-9]{2})([.,][0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})"
)


def parse_rfc3339(text: str) -> datetime | None:
    """The moment Go's time.Parse(time.RFC3339, text) reads; None when it fails (kcp's callers then
    go on with Go's zero time)."""
    found = _GO_RFC3339.fullmatch(text)
    if found is None:
        return None
    year, month, day, hour, minute, second = (int(found[i]) for i in range(1, 7))
    fraction, zone = found[7], found[8]
    offset = timedelta(0)
    if zone != "Z":
        offset = timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])) * (-1 if zone[0] == "-" else 1)
    try:
        micro = int((fraction[1:] + "000000")[:6]) if fraction else 0
        return datetime(year, month, day, hour, minute, second, micro, tzinfo=timezone(offset))
    except ValueError:  # out of range (Go too refuses a 60th second, a 31st of April, ...)
        return None
