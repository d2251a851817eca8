"""kcp objects -> model.Batch, keeping what emit needs to write the objects back.

The generation of the input decides everything read and written (names.Generation): WorkloadCluster
objects make a v0.5 input, SyncTarget or Placement objects a v0.8 one (both kinds at once is an
error); without either, the Locations' spec.resource decides, then the namespaces' annotations
(a JSON placement map: v0.5), else v0.8.

Clusters: every WorkloadCluster (v0.5) or SyncTarget (v0.8), named `<workspace>/<name>` and sorted
so, with its labels and the traits `location:<ws>+<location>` for every Location of its workspace
whose spec.instanceSelector selects it ({}, the CRD's default, everything; in v0.5 a workspace
without Locations stands for one Location `default` selecting all its clusters) and
`workspace:<ws>`. Nothing new lands on a cluster that is evicting (spec.evictAfter reached), nor,
in v0.8, on one that is not Ready or is cordoned (spec.unschedulable): those are ineligible, and
what they hold is moved (a deletionTimestamp counts for nothing, as upstream's filters have it).
In v0.5 a not-Ready or cordoned cluster keeps what it holds and takes nothing new: taints
`kcp/not-ready` and `kcp/unschedulable` that keep out newcomers only. Its load counts what
namespaces outside the batch hold there.

Requests are the units to place: v0.5 a namespace in one location (v05.py), v0.8 a Placement
(v08.py); each asks for one cluster of its location, holds the cluster it has now (movable: a
hold on a cluster that no longer passes the filters is given up, a forced move), is picked at
random by greedy (upstream) and levelled by optimal (balance).

Random choices the adapter makes itself (the location of a v0.5 namespace, of a v0.8 Placement)
come from `random.Random("<seed>/<workspace>/<name>")` per namespace or placement: the same seed
gives the same choice whatever else is in the input.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from operator import itemgetter
from typing import Any

from adapters.errors import InputError
from adapters.kcp import names as n
from adapters.kcp.names import Generation
from adapters.kcp.objects import (
    NO_RESOURCE,
    BindingObject,
    ClusterObject,
    LocationObject,
    PlacementObject,
    Resource,
    read_binding,
    read_cluster,
    read_location,
    read_namespace,
    read_placement,
    selects,
)
from adapters.kcp.workspace import KcpFields, read_workspace, reference
from adapters.kcp.world import World
from adapters.kube.fields import time_text
from adapters.kube.manifests import Manifest
from model import Batch, Cluster, Taint

__all__ = ["KcpContext", "load"]


@dataclass(slots=True)
class KcpContext:
    world: World
    plan: Any  # v05.Plan or v08.Plan


def load(manifests: Sequence[Manifest], *, now: datetime, seed: int = 0) -> tuple[Batch, KcpContext]:
    from adapters.kcp import v05, v08

    objects = _index(manifests)
    generation = _generation(objects)
    world = _world(objects, generation, now, seed)
    plan = v05.plan(world) if generation is Generation.V05 else v08.plan(world)
    clusters = tuple(_model_cluster(world, c, plan.load.get(name, 0)) for name, c in world.clusters.items())
    return Batch(clusters, tuple(plan.requests), now=now, seed=seed), KcpContext(world, plan)


def _index(manifests: Sequence[Manifest]) -> dict[str, list[tuple[str, Manifest]]]:
    """The kcp objects by kind, each with its workspace and sorted by (workspace, name); every one
    names its workspace; the same kind, workspace and name twice is an error (one WorkloadCluster
    under both of its group spellings too)."""
    wanted = {**n.KINDS, **n.SHARED_KINDS}
    out: dict[str, dict[tuple[str, str], Manifest]] = {}  # kind -> (workspace, name) -> manifest
    # (kind, apiVersion) -> its kind's objects, or None where kcp does not read it: a large hub's
    # 80,000 objects are of a few types, each judged once.
    by_type: dict[tuple[str, str], dict[tuple[str, str], Manifest] | None] = {}
    for m in manifests:
        obj = m.obj
        kind, api_version = obj["kind"], obj["apiVersion"]
        named = by_type.get((kind, api_version), _UNSEEN)
        if named is _UNSEEN:
            read = api_version.rpartition("/")[0] in wanted.get(kind, ())
            named = by_type[kind, api_version] = out.setdefault(kind, {}) if read else None
        if named is None:
            continue
        key = (read_workspace(m), obj["metadata"]["name"])
        other = named.setdefault(key, m)
        if other is not m:
            where = reference(kind, *key)
            raise InputError(f"duplicate object {where} ({other.location} and {m.location})")
    # (workspace, name) is unique within a kind: sorted by it alone, the manifests never compared.
    return {
        kind: [(ws, m) for (ws, _), m in sorted(items.items(), key=itemgetter(0))]
        for kind, items in out.items()
    }


_UNSEEN: Any = object()


def _generation(objects: Mapping[str, list[tuple[str, Manifest]]]) -> Generation:
    old, new = objects.get(n.WORKLOAD_CLUSTER), objects.get(n.SYNC_TARGET) or objects.get(n.PLACEMENT)
    if old and new:
        first_old, first_new = (reference(m.kind, ws, m.name) for ws, m in (old[0], new[0]))
        raise InputError(
            f"the input mixes kcp generations: {first_old} (v0.5) and {first_new} (v0.8); "
            "give one generation's objects"
        )
    if old:
        return Generation.V05
    if new:
        return Generation.V08
    for _, m in objects.get(n.LOCATION, ()):
        resource = (m.obj.get("spec") or {}).get("resource")
        if isinstance(resource, Mapping) and resource.get("resource") == n.LOCATION_RESOURCE[Generation.V05]:
            return Generation.V05
        if isinstance(resource, Mapping) and resource.get("resource") == n.LOCATION_RESOURCE[Generation.V08]:
            return Generation.V08
    for _, m in objects.get(n.NAMESPACE, ()):
        annotations = m.obj["metadata"].get("annotations") or {}
        text = annotations.get(n.PLACEMENT_ANNOTATION) if isinstance(annotations, Mapping) else None
        if isinstance(text, str) and text.strip().startswith("{"):
            return Generation.V05
    return Generation.V08


def _world(
    objects: Mapping[str, list[tuple[str, Manifest]]], generation: Generation, now: datetime, seed: int
) -> World:
    kind = n.WORKLOAD_CLUSTER if generation is Generation.V05 else n.SYNC_TARGET
    clusters = {c.neutral: c for c in (read_cluster(m, ws) for ws, m in objects.get(kind, ()))}
    clusters = dict(sorted(clusters.items()))
    in_workspace: dict[str, dict[str, ClusterObject]] = defaultdict(dict)
    for c in clusters.values():
        in_workspace[c.workspace][c.name] = c
    locations: dict[str, list[LocationObject]] = defaultdict(list)
    for ws, m in objects.get(n.LOCATION, ()):
        location = read_location(m, ws)
        _check_resource(m, location, generation)
        locations[location.workspace].append(location)
    bindings: dict[str, list[BindingObject]] = defaultdict(list)
    for b in (read_binding(m, ws) for ws, m in objects.get(n.API_BINDING, ())):
        bindings[b.workspace].append(b)
    members = _members(in_workspace, locations, generation)
    found: dict[str, set[str]] = {
        name: {n.WORKSPACE_TRAIT.format(c.workspace)} for name, c in clusters.items()
    }
    for (workspace, location), selected in members.items():
        for c in selected:
            found[c.neutral].add(n.LOCATION_TRAIT.format(workspace, location))
    traits = {name: frozenset(t) for name, t in found.items()}
    placements = [read_placement(m, ws) for ws, m in objects.get(n.PLACEMENT, ())]
    for p in placements:
        _check_placement_resource(p)
    return World(
        generation,
        now,
        seed,
        [read_namespace(m, ws) for ws, m in objects.get(n.NAMESPACE, ())],
        dict(bindings),
        dict(locations),
        clusters,
        dict(in_workspace),
        traits,
        placements,
        members,
    )


def _check_resource(m: Manifest, location: LocationObject, generation: Generation) -> None:
    """The Location CRD's enum of the generation: its cluster resource only."""
    _resource_enum(KcpFields(m, location.workspace), location.resource, "spec.resource", generation)


def _check_placement_resource(p: PlacementObject) -> None:
    """The Placement CRD's enum (a v0.8 kind): synctargets only."""
    f = KcpFields(p.manifest, p.workspace)
    _resource_enum(f, p.location_resource, "spec.locationResource", Generation.V08)


def _resource_enum(f: KcpFields, resource: Resource, path: str, generation: Generation) -> None:
    """The resource's enum, the generation's cluster resource (objects.py checked the group and
    version, the same in both generations); nothing of an object without a spec."""
    allowed = n.LOCATION_RESOURCE[generation]
    if resource != NO_RESOURCE and resource.resource != allowed:
        raise f.fail(f"unsupported value {resource.resource!r}: expected {allowed!r}", f"{path}.resource")


def _members(
    in_workspace: Mapping[str, Mapping[str, ClusterObject]],
    locations: Mapping[str, list[LocationObject]],
    generation: Generation,
) -> dict[tuple[str, str], list[ClusterObject]]:
    """The clusters each Location selects (v0.5: a workspace with clusters and no Location has one
    named `default` over all of them). A selector matches only clusters carrying every pair of
    its matchLabels, so only those are judged: with a thousand Locations over ten thousand
    clusters, judging every pair cost 20 s."""
    out: dict[tuple[str, str], list[ClusterObject]] = {}
    for workspace, clusters in in_workspace.items():
        ordered = sorted(clusters.values(), key=lambda c: c.neutral)
        here = locations.get(workspace, [])
        if not here and generation is Generation.V05:
            out[(workspace, n.DEFAULT_LOCATION)] = ordered
            continue
        labelled: dict[tuple[str, str], list[ClusterObject]] = defaultdict(list)
        for c in ordered:
            for pair in c.labels.items():
                labelled[pair].append(c)
        for location in here:
            selector = location.instance_selector
            if selector is None:
                continue
            pairs = selector.match_labels
            pool = min((labelled.get(pair, []) for pair in pairs), key=len) if pairs else ordered
            out[(workspace, location.name)] = [c for c in pool if selects(selector, c.labels)]
    for workspace, here in locations.items():
        for location in here:
            out.setdefault((workspace, location.name), [])
    return out


def _model_cluster(world: World, c: ClusterObject, load: int) -> Cluster:
    reason = ""
    if c.evicting(world.now):
        assert c.evict_after is not None
        reason = f"evicting since {time_text(c.evict_after)}"
    taints: tuple[Taint, ...] = ()
    if world.generation is Generation.V08 and not reason:
        if not c.ready:
            reason = "not Ready"
        elif c.unschedulable:
            reason = "unschedulable (spec.unschedulable)"
    elif world.generation is Generation.V05:
        if not c.ready:
            taints += (Taint(n.NOT_READY_TAINT, new_only=True),)
        if c.unschedulable:
            taints += (Taint(n.UNSCHEDULABLE_TAINT, new_only=True),)
    return Cluster(
        name=c.neutral,
        labels=c.labels,
        taints=taints,
        eligible=not reason,
        ineligible_reason=reason,
        claims={n.NAME_CLAIM: c.neutral},
        traits=world.traits[c.neutral],
        load=load,
    )
