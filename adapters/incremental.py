"""A long-lived scheduler for a controller: it keeps the hub's state and the last answer between
reconciles, and re-solves only the placements an event can change.

    scheduler = FleetScheduler(objects, now=now)           # the first, full solve
    delta = scheduler.handle(ClusterRemoved("member-7"))   # objects to write for this event
    scheduler.objects()                                    # the whole hub as the scheduler sees it

Which placements an event wakes follows the upstream watcher: any cluster event wakes every
PickAll placement and every placement not yet fully scheduled, and a cluster that is removed or
leaving also wakes the placements holding a binding on it. Bindings are sticky, so the previous
answer stays in force wherever the policy lets it: nothing moves but what the event forces.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters import fleet
from adapters.fleet import names as n
from adapters.fleet.clusters import load_cluster
from adapters.manifests import Manifest, from_objects, index_by_kind
from adapters.pipeline import paused_gc
from model import Cluster, PlacementRequest, RequestResult, SelectionMode, first_untolerated
from solver import SolveOptions, check, solve

__all__ = [
    "ClusterAdded",
    "ClusterChanged",
    "ClusterRemoved",
    "PlacementChanged",
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


Event = ClusterAdded | ClusterChanged | ClusterRemoved | PlacementChanged


@dataclass(frozen=True, slots=True)
class Delta:
    """What one event changes: the objects to write and delete, and which placements were solved."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    placements: list[str]
    seconds: float


def _parent(obj: dict[str, Any]) -> str | None:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(n.PARENT_LABEL)


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
        by_kind = index_by_kind(from_objects(objects, "<objects>"), fleet.KINDS)
        self._members: dict[str, dict[str, Any]] = {m.name: m.obj for m in by_kind[n.MEMBER_CLUSTER]}
        self._clusters: dict[str, Cluster] = {m.name: load_cluster(m, now) for m in by_kind[n.MEMBER_CLUSTER]}
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
        now = now or datetime.now(UTC).replace(microsecond=0)
        if isinstance(event, PlacementChanged):
            name = Manifest(event.obj, "<event>", 1).name
            self._placements[name] = event.obj
            self._owned.setdefault(name, [])
            return self._solve([name], now)
        if isinstance(event, ClusterRemoved):
            self._members.pop(event.name, None)
            before = self._clusters.pop(event.name, None)
            return self._solve(self._woken(event.name, gone=True, before=before), now)
        manifest = Manifest(event.obj, "<event>", 1)
        before = self._clusters.get(manifest.name)
        self._members[manifest.name] = event.obj
        cluster = load_cluster(manifest, now)
        self._clusters[manifest.name] = cluster
        return self._solve(
            self._woken(manifest.name, gone=cluster.leaving, before=before, after=cluster), now
        )

    def _woken(
        self, cluster: str, *, gone: bool, before: Cluster | None = None, after: Cluster | None = None
    ) -> list[str]:
        """Placements whose answer the event can change: of those upstream would re-run (PickAll,
        not fully scheduled, holders of a cluster that went away), the ones the cluster touches:
        it held their binding, now passes their filters, is named by them, or changed spread domain."""
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
                now_passes = not gone and not holds and after is not None and _passes(request, after)
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
        deleted = {(d["kind"], d["name"]) for d in emitted.delete}
        for name in names:
            self._owned[name] = []
        for obj in emitted.apply:
            parent = _parent(obj)
            if parent in self._owned and (obj["kind"], obj["metadata"]["name"]) not in deleted:
                self._owned[parent].append(obj)
        self._results.update(result.by_request())
        self._requests.update({r.key: r for r in batch.requests})
        return Delta(emitted.apply, emitted.delete, names, time.perf_counter() - started)

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


def _passes(request: PlacementRequest, cluster: Cluster) -> bool:
    return (
        cluster.eligible
        and (
            not request.required
            or any(t.matches(cluster.labels, cluster.properties) for t in request.required)
        )
        and first_untolerated(cluster.taints, request.tolerations) is None
    )


def _domains_moved(request: PlacementRequest, before: Cluster | None, after: Cluster | None) -> bool:
    """Whether the cluster changed spread domain: a domain may have appeared or gone."""
    for constraint in request.spread:
        key = constraint.topology_key
        old = before.labels.get(key) if before is not None else None
        new = after.labels.get(key) if after is not None else None
        if old != new:
            return True
    return False
