"""kcp's placement controllers for the long-lived scheduler (adapters.live.hub, through the System
record's `reach`): the model kept between events, and which user workspaces an event takes up.

The unit is a user workspace: its Namespaces, Placements (v0.8) and APIBindings, which upstream's
controllers decide together (v0.8: Controller A and C's bind step over its Placements and
Namespaces, B per Placement, C's scheduling step per Namespace; v0.5: the namespace scheduler per
Namespace), against the Locations and clusters (SyncTargets, WorkloadClusters) of the workspaces
they name. An event takes up (upstream's event handlers, v0.8.0 pkg/reconciler/scheduling/placement,
workload/placement and workload/namespace; v0.5.0-alpha.1 scheduling/placement):

- a Namespace, Placement or APIBinding created, changed or deleted: its workspace (A and C enqueue
  each other's objects of that workspace; B the Placements of an APIBinding's workspace);
- a Location: every workspace whose objects name its workspace (v0.8: a Placement's
  locationWorkspace, B's byLocationWorkspace index; v0.5: the negotiation workspace of its
  namespaces' binding or annotation);
- a cluster: upstream's B enqueues every Placement of its location workspace, each keeping a
  target that is still valid (sticky) and drawing one only where it holds none or an invalid one,
  so only two kinds of workspace can change: those naming the cluster (a Placement's target, a
  v0.5 placement entry in any state), and those with a request left without a cluster whose
  location the cluster is in, before or after the change (its traits). The others' answers stand
  as they are, so taking them up would write nothing. A cluster arriving in, or the last one
  leaving, a workspace changes what that workspace offers at all: every workspace naming it.
- time: a cluster's spec.evictAfter reached is a change of that cluster (upstream hears its next
  status update; a v0.8 SyncTarget's heartbeat comes every few seconds); a v0.8 namespace whose
  deletion annotation's 5 s grace ends is taken up (Controller C requeues it for that moment).

A workspace taken up is planned as load.py plans a hub (v05.plan, v08.plan: its controllers run
to rest), against every cluster, Location and memo kept here; its requests are decided against
every other workspace's holds as they stand: each workspace's footprint (what its requests keep
on their clusters, and the load its plan counts outside its requests) is kept from its last plan,
and a batch's clusters carry every footprint but the taken workspaces' own holds. Greedy mode is
upstream's answer for those requests (random draws come from the adapter's seeded sources, as in
a full run), optimal re-optimises them with the rest fixed. Holds move only where a cluster stopped
being valid for them (forced), so a full solve of the hub moves nothing.

An event the hub refuses leaves the model as it was with no journal (adapters.live.kept.Journal):
`take` reads (and refuses) every changed object before it changes anything, a model made again
under the other generation is made aside and only then taken, and nothing after (the plans, the
emit) raises an InputError.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any

from adapters.contract import Change, Taken
from adapters.kcp import names as n
from adapters.kcp import v05, v08
from adapters.kcp.annotation import parse_placement
from adapters.kcp.load import (
    KcpContext,
    _check_placement_resource,
    _check_resource,
    _generation,
    _index,
    _members,
    _model_cluster,
    _world,
)
from adapters.kcp.names import Generation
from adapters.kcp.objects import (
    BindingObject,
    ClusterObject,
    LocationObject,
    NamespaceObject,
    PlacementObject,
    read_binding,
    read_cluster,
    read_location,
    read_namespace,
    read_placement,
)
from adapters.kcp.workspace import workspace_of
from adapters.kcp.world import World, parse_rfc3339
from adapters.kube.manifests import Manifest
from adapters.live.kept import ClusterPool, Timers, manifest, with_load
from model import Batch, PlacementRequest, Result
from solver.admits import admits

__all__ = ["KcpLive", "live"]

Obj = Mapping[str, Any]
_GRACE = timedelta(seconds=n.REMOVING_GRACE_SECONDS, microseconds=1)  # first moment past it
_DECIDING = (n.WORKLOAD_CLUSTER, n.SYNC_TARGET, n.PLACEMENT)  # the kinds that settle the generation
_READERS = {
    n.NAMESPACE: read_namespace,
    n.API_BINDING: read_binding,
    n.PLACEMENT: read_placement,
    n.LOCATION: read_location,
    n.WORKLOAD_CLUSTER: read_cluster,
    n.SYNC_TARGET: read_cluster,
}


def live(manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None) -> KcpLive:
    return KcpLive(manifests, now=now, seed=seed)


class KcpLive:
    def __init__(self, manifests: Sequence[Manifest], *, now: datetime, seed: int) -> None:
        self.seed = seed
        objects = _index(manifests)
        self.generation = _generation(objects)
        world = _world(objects, self.generation, now, seed)
        self.clusters = world.clusters
        self.in_workspace: dict[str, dict[str, ClusterObject]] = defaultdict(dict, world.in_workspace)
        self.locations: dict[str, list[LocationObject]] = defaultdict(list, world.locations)
        self.members = world.members
        self.traits = world.traits
        self.keys = {c.key: c for c in self.clusters.values()}
        self.memo: dict[Any, Any] = {}
        self.namespaces: dict[str, dict[str, NamespaceObject]] = defaultdict(dict)
        self.placements: dict[str, dict[str, PlacementObject]] = defaultdict(dict)
        self.bindings: dict[str, dict[str, BindingObject]] = defaultdict(dict)
        for ns in world.namespaces:
            self.namespaces[ns.workspace][ns.name] = ns
        for p in world.placements:
            self.placements[p.workspace][p.name] = p
        for items in world.bindings.values():
            for b in items:
                self.bindings[b.workspace][b.name] = b
        self.timers: Timers[tuple[str, str]] = Timers()
        for c in self.clusters.values():
            self._arm(c, now)
        # What each workspace's last plan left: its footprint on the clusters, the clusters it
        # names, the traits its unplaced requests wait on, the workspaces its objects name.
        self.footprint: dict[str, Counter[str]] = {}
        self.total: Counter[str] = Counter()
        self.naming: dict[str, set[str]] = {}
        self.waiting: dict[str, set[str]] = {}
        self.referring: dict[str, set[str]] = {}
        self.by_cluster: dict[str, set[str]] = defaultdict(set)
        self.by_trait: dict[str, set[str]] = defaultdict(set)
        self.by_workspace: dict[str, set[str]] = defaultdict(set)
        self.pool = ClusterPool(_model_cluster(self._world(now, ()), c, 0) for c in self.clusters.values())
        for ws in sorted({*self.namespaces, *self.placements, *self.bindings}):
            self._planned({ws}, self._plan({ws}, now), now)
        for name in self.clusters:
            self._remodel(name, now)

    # -- what changes reach ---------------------------------------------------------------------

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        read: list[tuple[str, str, str, Any, Any]] = []  # kind, workspace, name, before, after
        for before, after in changes:  # read first: a refusal keeps nothing
            obj = after if after is not None else before
            assert obj is not None
            kind = obj["kind"]
            reader = _READERS.get(kind)
            if reader is None:
                continue
            new = reader(manifest(after)) if after is not None else None
            if kind == n.PLACEMENT and new is not None:
                _check_placement_resource(new)
            read.append((kind, workspace_of(obj), obj["metadata"]["name"], self._kept(kind, obj), new))
        try:
            self._check_generation(read)
        except _Regenerate:
            return self._regenerated(read, now)
        for kind, _, _, _, after in read:  # the CRD's enum of the generation the changes leave
            if kind == n.LOCATION and after is not None:
                _check_resource(after.manifest, after, self.generation)
        taken: set[str] = set()
        changed: set[str] = set()  # clusters
        for kind, ws, name, before, after in read:
            if kind in (n.NAMESPACE, n.PLACEMENT, n.API_BINDING):
                self._put(kind, ws, name, after)
                taken.add(ws)
            elif kind == n.LOCATION:
                self._put_location(ws, name, after, now)
                taken |= self.by_workspace.get(ws, set())
            else:
                taken |= self._put_cluster(ws, name, before, after, now)
                changed.add(f"{ws}/{name}")
        for kind, key in self.timers.due(now):
            if kind == "cluster" and key in self.clusters:
                taken |= self._reached_by(self.clusters[key], self.traits[key], now)
                changed.add(key)
            elif kind == "workspace":
                taken.add(key)
        for name in changed:
            self._remodel(name, now)
        for ws in [ws for ws in taken if not self._holds_objects(ws)]:
            self._forget(ws)  # its last object went: it holds nothing
            taken.discard(ws)
        return self._taken(taken, now) if taken else None

    def _taken(self, taken: set[str], now: datetime) -> Taken:
        world, plan = self._plan(taken, now)
        self._planned(taken, (world, plan), now)
        own = self._held(plan.requests, now)  # counted through their decisions
        clusters = self.pool.clusters({c: -d for c, d in own.items()}, within=plan.requests)
        return Taken(Batch(clusters, tuple(plan.requests), now=now, seed=self.seed), KcpContext(world, plan))

    def _regenerated(self, read: list[tuple[str, str, str, Any, Any]], now: datetime) -> Taken | None:
        """The generation guessed from a hub of no cluster nor Placement was wrong: the model made
        again from every object, every workspace taken up. Made aside and only then taken: the
        objects read under the other generation may refuse the event (a Location of the guessed
        generation's resource), which must leave this model as it was."""
        vars(self).update(vars(KcpLive(self._after(read), now=now, seed=self.seed)))
        workspaces = {ws for ws in self.footprint} | {
            ws
            for table in (self.namespaces, self.placements, self.bindings)
            for ws, items in table.items()
            if items
        }
        return self._taken(workspaces, now) if workspaces else None

    def _after(self, read: list[tuple[str, str, str, Any, Any]]) -> list[Manifest]:
        """Every object as the changes read leave them."""
        objects = {(o.manifest.kind, o.workspace, o.name): o.manifest for o in self._objects()}
        for kind, ws, name, _, after in read:
            objects.pop((kind, ws, name), None)
            if after is not None:
                objects[(kind, ws, name)] = after.manifest
        return list(objects.values())

    def _objects(self) -> list[Any]:
        """Every object read."""
        out: list[Any] = [*self.clusters.values()]
        out += [loc for here in self.locations.values() for loc in here]
        for table in (self.namespaces, self.placements, self.bindings):
            out += [o for items in table.values() for o in items.values()]
        return out

    def _holds_objects(self, ws: str) -> bool:
        return any(table.get(ws) for table in (self.namespaces, self.placements, self.bindings))

    def _forget(self, ws: str) -> None:
        self._set_footprint(ws, Counter())
        for by_owner, index in (
            (self.naming, self.by_cluster),
            (self.waiting, self.by_trait),
            (self.referring, self.by_workspace),
        ):
            _reindex(by_owner, index, ws, set())
        self.timers.at(None, ("workspace", ws))
        for table in (self.namespaces, self.placements, self.bindings):
            table.pop(ws, None)

    def _kept(self, kind: str, obj: Obj) -> Any:
        ws, name = workspace_of(obj), obj["metadata"]["name"]
        if kind == n.NAMESPACE:
            return self.namespaces.get(ws, {}).get(name)
        if kind == n.PLACEMENT:
            return self.placements.get(ws, {}).get(name)
        if kind == n.API_BINDING:
            return self.bindings.get(ws, {}).get(name)
        if kind == n.LOCATION:
            return next((loc for loc in self.locations.get(ws, ()) if loc.name == name), None)
        return self.clusters.get(f"{ws}/{name}")

    def _check_generation(self, read: list[tuple[str, str, str, Any, Any]]) -> None:
        """A change bringing the other generation's clusters or Placements is refused, as load
        refuses an input mixing them (adapters.kcp.load._generation names both). A change after
        which a full load would guess (no cluster nor Placement left) or know the other generation
        makes the model again (_Regenerate)."""
        mine = n.WORKLOAD_CLUSTER if self.generation is Generation.V05 else n.SYNC_TARGET
        for kind, _, _, _, after in read:
            if after is None or kind not in _DECIDING:
                continue
            if (kind == n.WORKLOAD_CLUSTER) == (self.generation is Generation.V05):
                continue
            held = [o.manifest for o in self._objects() if o.manifest.kind in (mine, n.PLACEMENT)][:1]
            _generation({mine: held, kind: [after.manifest]})  # refuses the mix
            if not held:  # the generation was a guess (no cluster nor Placement): it was wrong
                raise _Regenerate
        # Where the changes leave no cluster nor Placement, a full load of the objects they leave
        # guesses the generation (from the Locations' resources, then the namespaces'
        # annotations), and may guess the other one.
        gone = sum(after is None and kind in _DECIDING for kind, *_, after in read)
        if (
            any(kind != n.API_BINDING for kind, *_ in read)
            and len(self.clusters) + sum(map(len, self.placements.values())) <= gone
            and _generation(_index(self._after(read))) is not self.generation
        ):
            raise _Regenerate

    # -- the model ------------------------------------------------------------------------------

    def _put(self, kind: str, ws: str, name: str, obj: Any) -> None:
        table = {n.NAMESPACE: self.namespaces, n.PLACEMENT: self.placements, n.API_BINDING: self.bindings}[
            kind
        ]
        if obj is None:
            table[ws].pop(name, None)
        else:
            table[ws][name] = obj

    def _put_location(self, ws: str, name: str, location: LocationObject | None, now: datetime) -> None:
        """A Location changed: the members and traits of its workspace's clusters judged again."""
        here = [loc for loc in self.locations.get(ws, ()) if loc.name != name]
        if location is not None:
            here.append(location)
        self.locations[ws] = sorted(here, key=lambda loc: loc.name)
        if not self.locations[ws]:
            del self.locations[ws]
        self.memo.clear()
        for key in [k for k in self.members if k[0] == ws]:
            del self.members[key]
        clusters = self.in_workspace.get(ws, {})
        self.members.update(_members({ws: clusters}, {ws: self.locations.get(ws, [])}, self.generation))
        found: dict[str, set[str]] = {c.neutral: {n.WORKSPACE_TRAIT.format(ws)} for c in clusters.values()}
        for (where, location_name), selected in self.members.items():
            for c in selected if where == ws else ():
                found[c.neutral].add(n.LOCATION_TRAIT.format(ws, location_name))
        for c in clusters.values():
            self.traits[c.neutral] = frozenset(found[c.neutral])
            self._remodel(c.neutral, now)

    def _put_cluster(
        self, ws: str, name: str, before: ClusterObject | None, after: ClusterObject | None, now: datetime
    ) -> set[str]:
        """A cluster changed: its memberships judged again; the workspaces it reaches."""
        neutral = f"{ws}/{name}"
        old = self.traits.pop(neutral, frozenset())
        present = bool(self.in_workspace.get(ws))
        if before is not None:
            del self.in_workspace[ws][name]
            self.keys.pop(before.key, None)
            del self.clusters[neutral]
        for key in old:
            if key.startswith(n.LOCATION_TRAIT.format(ws, "")):
                location = (ws, key.removeprefix(n.LOCATION_TRAIT.format(ws, "")))
                self.members[location] = [c for c in self.members.get(location, []) if c.neutral != neutral]
        new: frozenset[str] = frozenset()
        if after is not None:
            self.in_workspace[ws][name] = after
            self.keys[after.key] = after
            self.clusters[neutral] = after
            self._arm(after, now)
            selecting = _members({ws: {name: after}}, {ws: self.locations.get(ws, [])}, self.generation)
            new = frozenset(
                {n.WORKSPACE_TRAIT.format(ws)}
                | {n.LOCATION_TRAIT.format(*key) for key, selected in selecting.items() if selected}
            )
            for key, selected in selecting.items():
                if selected:
                    self.members[key] = sorted([*self.members.get(key, []), after], key=lambda c: c.neutral)
            self.traits[neutral] = new
        if not self.in_workspace.get(ws):
            self.in_workspace.pop(ws, None)
        reached = self.by_cluster.get(neutral, set()) | self._reached_by(after, old, now)
        if present != bool(self.in_workspace.get(ws)):
            reached |= self.by_workspace.get(ws, set())
        return reached

    def _reached_by(self, cluster: ClusterObject | None, old: Iterable[str], now: datetime) -> set[str]:
        """The workspaces a cluster's change (`cluster` as it now is, None: gone; `old` its traits
        before) can change: those naming it, and those with a request left without a cluster in
        one of its locations. In v0.8 only a cluster now valid there can change such a request
        (Controller B draws among the valid targets); v0.5's draws also look at the clusters
        a namespace's entries name, so any change of the location's clusters counts."""
        neutral = f"{cluster.workspace}/{cluster.name}" if cluster is not None else None
        reached = set(self.by_cluster.get(neutral, ())) if neutral else set()
        new = self.traits.get(neutral, frozenset()) if neutral else frozenset()
        if self.generation is Generation.V05:
            traits = {*old, *new}
        else:
            traits = set(new) if cluster is not None and self._world(now, ()).schedulable(cluster) else set()
        for trait in traits:
            reached |= self.by_trait.get(trait, set())
        return reached

    def _arm(self, c: ClusterObject, now: datetime) -> None:
        """The moment the cluster starts evicting, where that is still to come."""
        future = c.evict_after is not None and c.evict_after > now
        self.timers.at(c.evict_after if future else None, ("cluster", c.neutral))

    def _remodel(self, name: str, now: datetime) -> None:
        c = self.clusters.get(name)
        if c is None:
            self.pool.drop(name)
            return
        self.pool.put(_model_cluster(self._world(now, ()), c, self.total.get(name, 0)))

    # -- planning -------------------------------------------------------------------------------

    def _world(self, now: datetime, workspaces: Iterable[str]) -> World:
        ordered = sorted(workspaces)
        return World(
            self.generation,
            now,
            self.seed,
            [ns for ws in ordered for _, ns in sorted(self.namespaces.get(ws, {}).items())],
            {
                ws: [b for _, b in sorted(self.bindings[ws].items())]
                for ws in ordered
                if self.bindings.get(ws)
            },
            self.locations,
            self.clusters,
            self.in_workspace,
            self.traits,
            [p for ws in ordered for _, p in sorted(self.placements.get(ws, {}).items())],
            self.members,
            self.memo,
            self.keys,
        )

    def _plan(self, workspaces: set[str], now: datetime) -> tuple[World, Any]:
        world = self._world(now, workspaces)
        return world, (v05.plan(world) if self.generation is Generation.V05 else v08.plan(world))

    def _planned(self, workspaces: set[str], planned: tuple[World, Any], now: datetime) -> None:
        """What each workspace's plan leaves: its footprint (the holds its requests keep and the
        load its plan counts), the clusters it names, the traits its unplaced requests wait on,
        the workspaces it names, and when its next grace period ends."""
        for ws in workspaces:
            plan = planned[1] if len(workspaces) == 1 else self._plan({ws}, now)[1]
            footprint = self._held(plan.requests, now) + Counter(plan.load)
            self._set_footprint(ws, footprint)
            naming = set(footprint) | self._named(ws)
            waiting = {t for r in plan.requests if not self._keeps(r, now) for t in r.required[0].traits}
            if self.generation is Generation.V05:
                waiting |= {n.WORKSPACE_TRAIT.format(p.negotiation) for p in plan.namespaces if p.unplaced}
            _reindex(self.naming, self.by_cluster, ws, naming)
            _reindex(self.waiting, self.by_trait, ws, waiting)
            _reindex(self.referring, self.by_workspace, ws, self._referred(ws))
            self.timers.at(self._grace_ends(ws, now), ("workspace", ws))

    def _set_footprint(self, ws: str, footprint: Counter[str]) -> None:
        old = self.footprint.pop(ws, Counter())
        if footprint:
            self.footprint[ws] = footprint
        for name in set(old) | set(footprint):
            moved = footprint[name] - old[name]
            if moved:
                self.total[name] += moved
                if not self.total[name]:
                    del self.total[name]
                cluster = self.pool.get(name)
                if cluster is not None:
                    self.pool.put(with_load(cluster, self.total.get(name, 0)))

    def _held(self, requests: Iterable[PlacementRequest], now: datetime) -> Counter[str]:
        """What the requests keep on their clusters (solver.tenancy's kept holds)."""
        out: Counter[str] = Counter()
        for r in requests:
            if self._keeps(r, now):
                out[r.existing[0].cluster] += r.tenancy.demand
        return out

    def _keeps(self, r: PlacementRequest, now: datetime) -> bool:
        if not r.existing or not r.existing[0].current:
            return False
        cluster = self.pool.get(r.existing[0].cluster)
        return cluster is not None and (not r.tenancy.movable or admits(r, cluster, now, held=True))

    def _named(self, ws: str) -> set[str]:
        """The clusters the workspace's objects name: Placements' targets, placement entries."""
        if self.generation is Generation.V08:
            return {c.neutral for p in self.placements.get(ws, {}).values() if (c := self.keys.get(p.target))}
        out = set()
        for ns in self.namespaces.get(ws, {}).values():
            for entry, _ in parse_placement(ns.annotations.get(n.PLACEMENT_ANNOTATION)).entries.values():
                out.add(f"{entry.workspace}/{entry.cluster}")
        return out

    def _referred(self, ws: str) -> set[str]:
        """The workspaces whose Locations and clusters the workspace's objects look at."""
        out = {p.location_workspace for p in self.placements.get(ws, {}).values()}
        out |= {b.export_workspace for b in self.bindings.get(ws, {}).values()}
        out |= {
            negotiation
            for ns in self.namespaces.get(ws, {}).values()
            if (negotiation := ns.annotations.get(n.NEGOTIATION_ANNOTATION))
        }
        return out

    def _grace_ends(self, ws: str, now: datetime) -> datetime | None:
        """v0.8: the first moment a namespace's deletion annotation outlives its grace."""
        if self.generation is not Generation.V08:
            return None
        ends = []
        for ns in self.namespaces.get(ws, {}).values():
            for key, value in ns.annotations.items():
                since = parse_rfc3339(value) if key.startswith(n.DELETION_ANNOTATION) else None
                if since is not None and since + _GRACE > now:
                    ends.append(since + _GRACE)
        return min(ends, default=None)


class _Regenerate(Exception):
    """The generation guessed at first is not the hub's."""


def _reindex(by_owner: dict[str, set[str]], index: dict[str, set[str]], owner: str, values: set[str]) -> None:
    for value in by_owner.pop(owner, set()) - values:
        index[value].discard(owner)
        if not index[value]:
            del index[value]
    if values:
        by_owner[owner] = values
        for value in values:
            index[value].add(owner)
