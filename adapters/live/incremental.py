"""Fleet's long-lived scheduler in Fleet's words: the events a Fleet controller hears, handed to the
long-lived scheduler of every system (adapters.live.hub.HubScheduler), whose Fleet model
(adapters/fleet/reach.py) re-solves only the placements an event can change.

    scheduler = FleetScheduler(objects, now=now)           # the first, full solve
    delta = scheduler.handle(ClusterRemoved("member-7"))   # what this event changes, to write
    scheduler.objects()                                    # the whole hub as the scheduler sees it

Which placements an event wakes, and why nothing moves that it does not force, is said in
adapters/fleet/reach.py. A deleted placement (`PlacementRemoved`) takes its bindings and policy
snapshots with it, as upstream's scheduler and placement controller clean up behind their
finalizers (the scheduler's part is the hub's; the placement controller's is taken here: its
finalizer comes off, and the placement goes); no other placement is solved.

Every object it takes, at the start or with an event, is checked as any input is (the registry's
adapters.registry.owned_by: a version upstream serves, a name and metadata the API server takes),
and an event's object must be of the kind the event is about; bad input is an InputError, and an
event refused changes nothing.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from adapters.errors import InputError
from adapters.fleet import names as n
from adapters.kube.manifests import from_objects
from adapters.live.hub import Applied, Deleted, HubEvent, HubScheduler
from solver import SolveOptions

__all__ = [
    "ClusterAdded",
    "ClusterChanged",
    "ClusterRemoved",
    "PlacementChanged",
    "PlacementRemoved",
    "Delta",
    "FleetScheduler",
]

_CLUSTER_VERSION = f"{n.CLUSTER_GROUP}/v1beta1"
_PLACEMENT_VERSION = n.API_VERSION


@dataclass(frozen=True, slots=True)
class ClusterAdded:
    obj: dict[str, Any]  # a MemberCluster


@dataclass(frozen=True, slots=True)
class ClusterChanged:
    obj: dict[str, Any]  # the MemberCluster as it is now


@dataclass(frozen=True, slots=True)
class ClusterRemoved:
    name: str


@dataclass(frozen=True, slots=True)
class PlacementChanged:
    obj: dict[str, Any]  # a ClusterResourcePlacement, new or changed


@dataclass(frozen=True, slots=True)
class PlacementRemoved:
    name: str  # a ClusterResourcePlacement that was deleted


Event = ClusterAdded | ClusterChanged | ClusterRemoved | PlacementChanged | PlacementRemoved


@dataclass(frozen=True, slots=True)
class Delta:
    """What one event changes: the objects to write (new, or different from what the hub holds;
    never one it holds already), then the ones to delete, and which placements were solved (for
    `PlacementRemoved`, the one removed)."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    placements: list[str]
    seconds: float
    # The wall clock cut a search of a batch the event solved (adapters.live.hub.HubScheduler's rule).
    time_limited: bool = False


class FleetScheduler:
    def __init__(
        self,
        objects: Iterable[dict[str, Any]],
        *,
        now: datetime | None = None,
        options: SolveOptions | None = None,
        verify: bool = False,
        bounds: bool = False,
    ) -> None:
        """`bounds`: the solves asked for their proven bound and gaps (HubScheduler's; off by
        default: the deltas carry no bound)."""
        objects = list(objects)
        # Fleet's objects only: the others are not Fleet's to judge, and are left out.
        fleet = [m.obj for m in from_objects(objects, "<objects>") if m.group in n.KINDS.get(m.kind, ())]
        self.hub = HubScheduler(fleet, now=now, options=options, verify=verify, bounds=bounds)
        initial = self.hub.initial
        # What the first, full solve writes: a controller applies it before handling events.
        self.initial = Delta(
            initial.apply, initial.delete, list(initial.requests), initial.seconds, initial.time_limited
        )

    def handle(self, event: Event, *, now: datetime | None = None) -> Delta:
        """What the event changes. An event refused (an InputError: its object, or the placement
        it makes the solve read) changes nothing: the scheduler stays as it was."""
        started = time.perf_counter()
        removed = event.name if isinstance(event, PlacementRemoved) else None
        if removed is not None and self._placement(removed) is None:
            return Delta([], [], [], 0.0)
        delta = self.hub.handle(_hub_event(event), now=now)
        apply, delete, cut = delta.apply, delta.delete, delta.time_limited
        left = self._placement(removed) if removed is not None else None
        if left is not None:
            # The placement controller's finalizer (crp-cleanup) held it: its clean-up done (the
            # snapshots go with the placement, owned by it), the placement is gone.
            metadata = {**left["metadata"], "finalizers": []}
            gone = self.hub.handle(Applied({**left, "metadata": metadata}), now=now)
            apply, delete, cut = apply + gone.apply, delete + gone.delete, cut or gone.time_limited
        placements = [removed] if removed is not None else list(delta.requests)
        return Delta(apply, delete, placements, time.perf_counter() - started, cut)

    def _placement(self, name: str) -> dict[str, Any] | None:
        return self.hub.get((n.PLACEMENT_GROUP, n.PLACEMENT, "", "", name))

    def objects(self) -> list[dict[str, Any]]:
        """The hub as the scheduler sees it now: clusters, placements, and what it owns."""
        return self.hub.objects()

    def selected(self) -> dict[str, list[str]]:
        """Per placement, the clusters it holds now: its bindings Scheduled or Bound."""
        out: dict[str, list[str]] = {
            o["metadata"]["name"]: [] for o in self.hub.objects() if o["kind"] == n.PLACEMENT
        }
        for o in self.hub.objects():
            if o["kind"] != n.BINDING or (o["metadata"].get("deletionTimestamp")):
                continue
            parent = (o["metadata"].get("labels") or {}).get(n.PARENT_LABEL)
            if parent in out and o["spec"].get("state") in (n.SCHEDULED, n.BOUND):
                out[parent].append(o["spec"]["targetCluster"])
        return {name: sorted(clusters) for name, clusters in sorted(out.items())}


def _hub_event(event: Event) -> HubEvent:
    if isinstance(event, ClusterRemoved):
        return Deleted(n.MEMBER_CLUSTER, event.name, api_version=_CLUSTER_VERSION)
    if isinstance(event, PlacementRemoved):
        return Deleted(n.PLACEMENT, event.name, api_version=_PLACEMENT_VERSION)
    kind = n.MEMBER_CLUSTER if isinstance(event, ClusterAdded | ClusterChanged) else n.PLACEMENT
    obj = event.obj
    if not isinstance(obj, dict) or obj.get("kind") != kind or _group(obj) not in n.KINDS[kind]:
        got = f"{obj.get('apiVersion')} {obj.get('kind')}" if isinstance(obj, dict) else "nothing"
        raise InputError(f"the event takes one Fleet {kind}, got {got}", where="<event>")
    return Applied(obj)


def _group(obj: dict[str, Any]) -> str:
    return str(obj.get("apiVersion", "")).rpartition("/")[0]
