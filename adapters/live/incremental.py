"""A long-lived scheduler for a controller: it keeps the hub's state and the last answer between
reconciles, and re-solves only the placements an event can change.

    scheduler = FleetScheduler(objects, now=now)           # the first, full solve
    delta = scheduler.handle(ClusterRemoved("member-7"))   # what this event changes, to write
    scheduler.objects()                                    # the whole hub as the scheduler sees it

Which placements an event wakes follows the upstream watcher: any cluster event wakes every
PickAll placement and every placement not yet fully scheduled, and a cluster that is removed or
leaving also wakes the placements holding a binding on it. Bindings are sticky, so the previous
answer stays in force wherever the policy lets it: nothing moves but what the event forces.

Time alone changes one thing: a cluster whose heartbeat (or a spell of ill health) gets older than
upstream's timeout turns ineligible with no event at all. Upstream's watcher ignores that
transition, so it wakes nothing here either; but every later solve judges the cluster at its own
`now`, as upstream's next cycle would.

A deleted placement (`PlacementRemoved`) takes its bindings and policy snapshots with it, as
upstream's scheduler and placement controller clean up behind their finalizers; no other
placement is solved.

Every object it takes, at the start or with an event, is checked as any input is (the registry's
adapters.registry.owned_by: a version upstream serves, a name and metadata the API server takes),
and an event's object must be of the kind the event is about; bad input is an InputError, and an
event refused changes nothing.
"""

from __future__ import annotations

import copy
import heapq
import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from adapters.errors import InputError
from adapters.fleet import api as fleet
from adapters.fleet import names as n
from adapters.fleet.clusters import load_cluster
from adapters.fleet.system import SYSTEM
from adapters.kube.fields import Fields, parse_time
from adapters.kube.manifests import Manifest, from_objects, index_by_kind, object_reference
from adapters.registry import owned_by
from adapters.run.changes import served
from adapters.run.pipeline import paused_gc
from model import Cluster, PlacementRequest, RequestResult, SelectionMode
from solver import SolveOptions, check, solve
from solver.admits import admits

__all__ = [
    "ClusterAdded",
    "ClusterChanged",
    "ClusterRemoved",
    "PlacementChanged",
    "PlacementRemoved",
    "Delta",
    "FleetScheduler",
]


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


def _key(obj: dict[str, Any]) -> tuple[str, str]:
    return obj["kind"], obj["metadata"]["name"]


def _parent(obj: dict[str, Any]) -> str | None:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(n.PARENT_LABEL)


# What an event changes of a FleetScheduler (handle puts it back when the event is refused).
_STATE = ("_members", "_clusters", "_until", "_expiring", "_placements", "_owned", "_results", "_requests")


class FleetScheduler:
    def __init__(
        self,
        objects: Iterable[dict[str, Any]],
        *,
        now: datetime | None = None,
        options: SolveOptions | None = None,
        verify: bool = False,
    ) -> None:
        self.options = options or SolveOptions()
        self.verify = verify
        now = now or datetime.now(UTC).replace(microsecond=0)
        by_kind = index_by_kind(_checked(from_objects(objects, "<objects>")), fleet.KINDS)
        self._members: dict[str, dict[str, Any]] = {m.name: m.obj for m in by_kind[n.MEMBER_CLUSTER]}
        self._clusters: dict[str, Cluster] = {}
        # When each eligible cluster turns ineligible if nothing is heard from it (a min-heap of
        # (time, name); an entry counts only while it matches `_until`).
        self._until: dict[str, datetime] = {}
        self._expiring: list[tuple[datetime, str]] = []
        for m in by_kind[n.MEMBER_CLUSTER]:
            self._load_cluster(m, now)
        self._placements: dict[str, dict[str, Any]] = {m.name: m.obj for m in by_kind[n.PLACEMENT]}
        self._owned: dict[str, list[dict[str, Any]]] = {name: [] for name in self._placements}
        for m in by_kind[n.BINDING] + by_kind[n.POLICY_SNAPSHOT]:
            parent = _parent(m.obj)
            if parent in self._owned:
                self._owned[parent].append(m.obj)
        self._results: dict[str, RequestResult] = {}
        self._requests: dict[str, PlacementRequest] = {}
        # What the first, full solve writes: a controller applies it before handling events.
        self.initial = self._solve(sorted(self._placements), now)

    # -- events -------------------------------------------------------------------------------

    def handle(self, event: Event, *, now: datetime | None = None) -> Delta:
        """What the event changes. An event refused (an InputError: its object, or the placement
        it makes the solve read) changes nothing: the scheduler stays as it was."""
        kept = {name: copy.copy(getattr(self, name)) for name in _STATE}
        kept["_owned"] = {name: list(owned) for name, owned in self._owned.items()}
        try:
            return self._handle(event, now or datetime.now(UTC).replace(microsecond=0))
        except InputError:
            for name, value in kept.items():
                setattr(self, name, value)
            raise

    def _handle(self, event: Event, now: datetime) -> Delta:
        self._expire(now)
        if isinstance(event, PlacementChanged):
            name = _event_object(event.obj, n.PLACEMENT).name
            self._placements[name] = event.obj
            self._owned.setdefault(name, [])
            return self._solve([name], now)
        if isinstance(event, PlacementRemoved):
            return self._remove_placement(event.name)
        if isinstance(event, ClusterRemoved):
            self._members.pop(event.name, None)
            self._until.pop(event.name, None)
            before = self._clusters.pop(event.name, None)
            return self._solve(self._woken(event.name, now, gone=True, before=before), now)
        manifest = _event_object(event.obj, n.MEMBER_CLUSTER)
        before = self._clusters.get(manifest.name)
        self._members[manifest.name] = event.obj
        cluster = self._load_cluster(manifest, now)
        return self._solve(
            self._woken(manifest.name, now, gone=cluster.leaving, before=before, after=cluster), now
        )

    def _remove_placement(self, name: str) -> Delta:
        """Upstream's cleanup of a deleted placement: the scheduler drops its finalizer from every
        binding of the placement and deletes them (whatever their state), the placement controller
        deletes its policy snapshots. Nothing is solved, so nothing else moves."""
        started = time.perf_counter()
        if name not in self._placements:
            return Delta([], [], [], 0.0)
        del self._placements[name]
        self._results.pop(name, None)
        self._requests.pop(name, None)
        owned = self._owned.pop(name, [])
        apply = []
        for obj in owned:
            finalizers = (obj.get("metadata") or {}).get("finalizers") or []
            if obj["kind"] == n.BINDING and n.SCHEDULER_FINALIZER in finalizers:
                released = copy.copy(obj)
                released["metadata"] = {
                    **obj["metadata"],
                    "finalizers": [x for x in finalizers if x != n.SCHEDULER_FINALIZER],
                }
                apply.append(released)
        delete = [object_reference(obj) for obj in owned]
        return Delta(apply, delete, [name], time.perf_counter() - started)

    def _load_cluster(self, manifest: Manifest, now: datetime) -> Cluster:
        cluster = load_cluster(manifest, now)
        self._clusters[manifest.name] = cluster
        until = _eligible_until(manifest) if cluster.eligible else None
        if until is None:
            self._until.pop(manifest.name, None)
        else:
            self._until[manifest.name] = until
            heapq.heappush(self._expiring, (until, manifest.name))
        return cluster

    def _expire(self, now: datetime) -> None:
        """Judge again, at `now`, the clusters whose heartbeat or health has timed out since they
        were last loaded. Upstream ignores an eligible->ineligible transition: nothing is woken."""
        while self._expiring and self._expiring[0][0] < now:
            until, name = heapq.heappop(self._expiring)
            if self._until.get(name) == until:
                self._load_cluster(Manifest(self._members[name], "<state>", 1), now)

    def _woken(
        self,
        cluster: str,
        now: datetime,
        *,
        gone: bool,
        before: Cluster | None = None,
        after: Cluster | None = None,
    ) -> list[str]:
        """Placements whose answer the event can change: of those upstream would re-run (PickAll,
        not fully scheduled, holders of a cluster that went away), the ones the cluster touches:
        it held their binding, now passes their filters (solver.admits, at the event's time), is
        named by them, or changed spread domain."""
        woken = set()
        for name, result in self._results.items():
            request = self._requests[name]
            holds = any(c.cluster == cluster for c in result.selected)
            if gone and holds:
                woken.add(name)
            if request.mode is not SelectionMode.ALL and result.satisfied:
                continue
            if request.mode is SelectionMode.FIXED:
                if cluster in request.cluster_names:
                    woken.add(name)
            else:
                now_passes = not gone and not holds and after is not None and admits(request, after, now)
                if now_passes or (request.spread and _domains_moved(request, before, after)):
                    woken.add(name)
        return sorted(woken)

    # -- solving ------------------------------------------------------------------------------

    def _solve(self, names: list[str], now: datetime) -> Delta:
        with paused_gc():
            return self._solve_woken(names, now)

    def _solve_woken(self, names: list[str], now: datetime) -> Delta:
        started = time.perf_counter()
        if not names:
            return Delta([], [], [], 0.0)
        objects = [self._placements[name] for name in names]
        objects += [obj for name in names for obj in self._owned[name]]
        batch, context = fleet.load(
            from_objects(objects, "<state>"),
            now=now,
            seed=self.options.seed,
            clusters=list(self._clusters.values()),
        )
        result = solve(batch, self.options)
        if self.verify:
            problems = check(batch, result)
            if problems:
                raise AssertionError("the checker rejected the result:\n" + "\n".join(problems))
        emitted = fleet.emit(context, result)
        changed = self._apply(names, emitted.apply, emitted.delete)
        self._results.update(result.by_request())
        self._requests.update({r.key: r for r in batch.requests})
        return Delta(changed, emitted.delete, names, time.perf_counter() - started)

    def _apply(
        self, names: list[str], written: list[dict[str, Any]], deleted: list[dict[str, str]]
    ) -> list[dict[str, Any]]:
        """Apply what the woken placements' solve wrote to what they own, as the API server would
        (an object replaced by key keeping the metadata the server owns, one not written kept as
        it is); the objects that changed, new ones included."""
        held = {_key(obj): obj for name in names for obj in self._owned[name]}
        held.update({(n.PLACEMENT, name): self._placements[name] for name in names})  # its finalizer
        gone = {(d["kind"], d["name"]) for d in deleted}
        changed = []
        for obj in written:
            key, old = _key(obj), held.get(_key(obj))
            obj = served(obj, old)
            if obj != old:
                changed.append(obj)
                held[key] = obj
        for name in names:
            self._owned[name] = []
            self._placements[name] = held[n.PLACEMENT, name]
        for key, obj in held.items():
            parent = _parent(obj)
            if parent in self._owned and key not in gone:
                self._owned[parent].append(obj)
        return changed

    # -- state --------------------------------------------------------------------------------

    def objects(self) -> list[dict[str, Any]]:
        """The hub as the scheduler sees it now: clusters, placements, and what it owns."""
        out = [self._members[name] for name in sorted(self._members)]
        out += [self._placements[name] for name in sorted(self._placements)]
        out += [obj for name in sorted(self._owned) for obj in self._owned[name]]
        return out

    def selected(self) -> dict[str, list[str]]:
        """Per placement, the clusters it holds now."""
        return {name: sorted(c.cluster for c in r.selected) for name, r in sorted(self._results.items())}


def _checked(manifests: list[Manifest]) -> list[Manifest]:
    """The Fleet objects among `manifests`, checked as any input is (owned_by: served versions,
    names, metadata); the others are not Fleet's to judge, and are left out."""
    own = [m for m in manifests if m.group in fleet.KINDS.get(m.kind, ())]
    return owned_by(own).get(SYSTEM.name, [])


def _event_object(obj: Any, kind: str) -> Manifest:
    """The one object of an event, a Fleet `kind`, checked as any input is."""
    manifests = from_objects([obj], "<event>")
    checked = _checked(manifests)
    if len(manifests) != 1 or len(checked) != 1 or checked[0].kind != kind:
        got = ", ".join(f"{m.api_version} {m.kind}" for m in manifests) or "nothing"
        raise InputError(f"the event takes one Fleet {kind}, got {got}", where="<event>")
    return checked[0]


def _eligible_until(manifest: Manifest) -> datetime | None:
    """When an eligible cluster turns ineligible if its object does not change: its member
    agent's last heartbeat, or the start of an unhealthy spell, older than upstream's timeout
    (adapters.fleet.clusters.eligibility judges it; this only says when to ask again)."""
    f = Fields(manifest)
    status = manifest.obj.get("status") or {}
    for agent in status.get("agentStatus") or []:
        if agent.get("type") != n.MEMBER_AGENT:
            continue
        heartbeat = parse_time(f, agent.get("lastReceivedHeartbeat"), "lastReceivedHeartbeat")
        until = heartbeat + timedelta(minutes=n.HEARTBEAT_TIMEOUT_MINUTES)
        for condition in agent.get("conditions") or []:
            if condition.get("type") == "Healthy":
                if condition.get("status") != "True":
                    since = parse_time(f, condition.get("lastTransitionTime"), "lastTransitionTime")
                    until = min(until, since + timedelta(minutes=n.HEALTH_TIMEOUT_MINUTES))
                break
        return until
    return None


def _domains_moved(request: PlacementRequest, before: Cluster | None, after: Cluster | None) -> bool:
    """Whether the cluster changed spread domain: a domain may have appeared or gone."""
    for constraint in request.spread:
        key = constraint.topology_key
        old = before.labels.get(key) if before is not None else None
        new = after.labels.get(key) if after is not None else None
        if old != new:
            return True
    return False
