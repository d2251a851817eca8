"""kcp in the benchmarks: the generated workspace set, what a plan does to its namespaces, and the
events of the churn experiment.

    objects = workspace_set(500, 2_000, seed=0, generation="v0.8")
    outcome = schedule(objects, now=NOW, options=options)
    state = advance(objects, outcome)                       # the plan applied, as the API server does
    moved, forced = moves(objects, state)                   # (namespace, cluster) pairs, see below
    spread(state)                                           # namespaces per available cluster

A namespace is *on* a cluster when the scheduler's state says it syncs there: v0.5 a Pending or
Bound entry of its placement annotation (placed in its entry's Location); v0.8 a
`state.workload.kcp.dev/<key>` label without a deletion annotation (the scheduler writes
Controller C's step: a label whose removal started is no longer counted), placed in the Location
its workspace's Placement targeting that key selected. A *move* is a (namespace, cluster) pair
before and not after; it is *forced* when that cluster can no longer hold it whatever a scheduler
does: gone, evicting, outside the location the namespace is placed in, or, in v0.8, not Ready or
cordoned (v0.5 keeps what an unready or cordoned cluster holds); or when the namespace is no
longer subject to placement at all (the placement annotation taken off: its workspace lost its
workload binding, no valid Placement selects it). `moves` counts both over every namespace; so do
the bench's rows (their `note`), beside the neutral churn columns that count (request, cluster)
pairs (a v0.8 request is a Placement and moves all its namespaces at once).

Events (`apply_event`, deterministic): `cluster-removed` deletes the cluster holding the most
namespaces (ties: the smaller workspace and name); `label-changed` moves that cluster out of its
Location (its pool label names another pool, of another region when there is one).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from adapters.generate.common import DEFAULT_NOW
from adapters.kcp import api as kcp
from adapters.kcp import names as n
from adapters.kcp.actors import workspace_of
from adapters.kcp.annotation import parse_placement
from adapters.kcp.generate import POOL
from adapters.kcp.generate import generate as generate_kcp
from adapters.kcp.keys import sync_target_key
from adapters.kcp.simulate import apply_outcome
from adapters.kube.manifests import from_objects
from bench.events import event_applier, selected_pairs
from model import Batch, Result
from solver.checker import passes

__all__ = [
    "EVENTS",
    "GENERATIONS",
    "NOW",
    "advance",
    "apply_event",
    "busiest_cluster",
    "churn",
    "load",
    "move_note",
    "moves",
    "placed",
    "spread",
    "workspace_set",
]

Objects = list[dict[str, Any]]
NOW = datetime.fromisoformat(DEFAULT_NOW)
GENERATIONS = {"kcp": "v0.8", "kcp-v0.5": "v0.5"}  # the bench's system names -> generation
EVENTS = ("cluster-removed", "label-changed")
Cluster = tuple[str, str]  # (workspace, name)


def workspace_set(clusters: int, placements: int, seed: int, generation: str = "v0.8") -> Objects:
    """`placement-solver generate --system kcp --generation G` at the bench's moment."""
    return generate_kcp(clusters, placements, seed=seed, now=NOW, generation=generation)


def load(objects: Objects, now: datetime, seed: int, config: Any = None) -> tuple[Batch, Any]:
    return kcp.load(from_objects(objects, "<generated>"), now=now, seed=seed)


def advance(objects: Iterable[dict[str, Any]], outcome: Any) -> Objects:
    """The objects after the plan was applied: written objects replace the ones of the same
    workspace, kind and name (or are added); deleted references go."""
    return apply_outcome(list(objects), outcome.apply, outcome.delete)[0]


# =================================================================================== the state


def _clusters(objects: Sequence[Mapping[str, Any]]) -> dict[Cluster, Mapping[str, Any]]:
    return {
        (workspace_of(o), o["metadata"]["name"]): o
        for o in objects
        if o["kind"] in (n.WORKLOAD_CLUSTER, n.SYNC_TARGET)
    }


def _v08_keys(objects: Sequence[Mapping[str, Any]]) -> dict[str, Cluster]:
    return {sync_target_key(ws, name): (ws, name) for ws, name in _clusters(objects)}


def placed(
    objects: Sequence[Mapping[str, Any]], keys: Mapping[str, Cluster] | None = None
) -> dict[tuple[str, str], dict[Cluster, str]]:
    """(workspace, namespace) -> {cluster: the location it is placed in there ("" when unknown)}
    for every namespace on some cluster (see the module docstring). `keys`: SyncTargetKey ->
    cluster (default: the SyncTargets among `objects`)."""
    out: dict[tuple[str, str], dict[Cluster, str]] = {}
    targets = _v08_locations(objects)
    for o in objects:
        if o["kind"] != n.NAMESPACE:
            continue
        meta = o["metadata"]
        annotations = meta.get("annotations") or {}
        on: dict[Cluster, str] = {}
        text = annotations.get(n.PLACEMENT_ANNOTATION)
        if text:  # v0.5: a JSON map
            parsed = parse_placement(text)
            for entry, state in parsed.entries.values():
                if state in (n.State.PENDING, n.State.BOUND):
                    on[(entry.workspace, entry.cluster)] = entry.location
        for label in meta.get("labels") or {}:
            if (
                label.startswith(n.STATE_LABEL)
                and n.DELETION_ANNOTATION + label[len(n.STATE_LABEL) :] not in annotations
            ):
                if keys is None:
                    keys = _v08_keys(objects)
                key = label[len(n.STATE_LABEL) :]
                cluster = keys.get(key)
                on[cluster if cluster is not None else ("?", key)] = targets.get((workspace_of(o), key), "")
        if on:
            out[(workspace_of(o), meta["name"])] = on
    return out


def _v08_locations(objects: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], str]:
    """v0.8: (workspace, SyncTargetKey) -> the Location that the first Placement of the workspace
    targeting that key (its `internal.workload.kcp.dev/synctarget`) selected: a namespace synced
    there is placed in it, and Controller B gives the target up once the Location no longer
    selects it."""
    out: dict[tuple[str, str], str] = {}
    for o in objects:
        if o["kind"] != n.PLACEMENT:
            continue
        key = (o["metadata"].get("annotations") or {}).get(n.SYNC_TARGET_ANNOTATION)
        location = ((o.get("status") or {}).get("selectedLocation") or {}).get("locationName")
        if key and location:
            out.setdefault((workspace_of(o), key), location)
    return out


def _available(obj: Mapping[str, Any], generation: str, now: datetime) -> tuple[bool, bool]:
    """(keeps what it holds, takes new namespaces) for a cluster object."""
    spec = obj.get("spec") or {}
    evict = spec.get("evictAfter")
    evicting = bool(evict) and datetime.fromisoformat(evict.replace("Z", "+00:00")) <= now
    conditions = (obj.get("status") or {}).get("conditions") or []
    ready = any(c.get("type") == n.READY and c.get("status") == "True" for c in conditions)
    # upstream's filters do not look at a deletionTimestamp
    schedulable = ready and not spec.get("unschedulable") and not evicting
    keeps = schedulable if generation == "v0.8" else not evicting
    return keeps, schedulable


def _in_location(objects: Sequence[Mapping[str, Any]]) -> dict[tuple[str, str], Mapping[str, Any]]:
    return {(workspace_of(o), o["metadata"]["name"]): o for o in objects if o["kind"] == n.LOCATION}


def _selects(selector: Mapping[str, Any] | None, labels: Mapping[str, str]) -> bool:
    if selector is None:
        return False
    if any(labels.get(k) != v for k, v in (selector.get("matchLabels") or {}).items()):
        return False
    for e in selector.get("matchExpressions") or ():
        value = labels.get(e["key"])
        if (e["operator"] == "In" and value not in e.get("values", ())) or (
            e["operator"] == "NotIn" and value in e.get("values", ())
        ):
            return False
    return True


def moves(
    before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]], now: datetime = NOW
) -> tuple[int, int]:
    """(namespace, cluster) pairs on a cluster in `before` and not in `after`, and how many of
    those pairs `after`'s clusters could not keep whatever the scheduler did (see the module
    docstring). Both are judged against `after`'s clusters and Locations."""
    generation = "v0.5" if any(o["kind"] == n.WORKLOAD_CLUSTER for o in after) else "v0.8"
    keys = {**_v08_keys(before), **_v08_keys(after)}
    old, new = placed(before, keys), placed(after, keys)
    clusters = _clusters(after)
    locations = _in_location(after)
    unplaced = {
        (workspace_of(o), o["metadata"]["name"])
        for o in after
        if o["kind"] == n.NAMESPACE and n.PLACEMENT_ANNOTATION not in (o["metadata"].get("annotations") or {})
    }
    moved = forced = 0
    for ns, on in old.items():
        now_on = new.get(ns, {})
        for cluster, where in on.items():
            if cluster in now_on:
                continue
            moved += 1
            if ns in unplaced:  # no longer subject to placement (its workspace unbound, ...)
                forced += 1
                continue
            obj = clusters.get(cluster)
            if obj is None or not _available(obj, generation, now)[0]:
                forced += 1
                continue
            location = locations.get((cluster[0], where)) if where else None
            if where and (
                location is None
                or not _selects(
                    (location.get("spec") or {}).get("instanceSelector"), obj["metadata"].get("labels") or {}
                )
            ):
                forced += 1
    return moved, forced


def spread(objects: Sequence[Mapping[str, Any]], now: datetime = NOW) -> dict[str, float]:
    """Namespaces per available (schedulable) cluster of the main compute workspace: max, mean
    and standard deviation, and the namespaces on clusters that are not available."""
    generation = "v0.5" if any(o["kind"] == n.WORKLOAD_CLUSTER for o in objects) else "v0.8"
    clusters = _clusters(objects)
    counts: Counter[Cluster] = Counter()
    for on in placed(objects).values():
        counts.update(on.keys())
    available = [
        c for c, o in clusters.items() if _available(o, generation, now)[1] and not c[0].endswith("-lab")
    ]
    values = np.array([counts.get(c, 0) for c in available], dtype=float)
    elsewhere = sum(v for c, v in counts.items() if c not in set(available))
    if not len(values):
        return {"max": 0, "mean": 0.0, "std": 0.0, "elsewhere": elsewhere}
    return {
        "max": int(values.max()),
        "mean": float(values.mean()),
        "std": float(values.std()),
        "elsewhere": int(elsewhere),
    }


def move_note(objects: Sequence[dict[str, Any]], outcome: Any) -> str:
    """The suite's note for a kcp row: what the plan moves on the generated set."""
    moved, forced = moves(objects, advance(objects, outcome))
    return f"namespace moves {moved} / forced {forced}"


def churn(before: Result, after: Result, batch_after: Batch) -> tuple[int, int]:
    """The suite's churn columns for kcp: (request, cluster) pairs selected before and not after,
    and how many of those no scheduler could keep: the request is gone, or the cluster is gone or no
    longer passes the request's filters as a held cluster (kcp gives up a hold on a cluster that
    is evicting, outside the location, or in v0.8 not Ready or cordoned: unlike Fleet, whose
    current decisions stay whatever their labels say)."""
    old = selected_pairs(before)
    moved = len(old - selected_pairs(after))
    clusters = {c.name: c for c in batch_after.clusters}
    requests = {r.key: r for r in batch_after.requests}
    forced = 0
    for key, name in old:
        request, cluster = requests.get(key), clusters.get(name)
        if request is None or cluster is None or not passes(request, cluster, batch_after.now, held=True):
            forced += 1
    return moved, forced


# ==================================================================================== events


def busiest_cluster(objects: Sequence[Mapping[str, Any]]) -> Cluster | None:
    counts: Counter[Cluster] = Counter()
    clusters = _clusters(objects)
    for on in placed(objects).values():
        counts.update(c for c in on if c in clusters)
    if not counts:
        return None
    return min(counts, key=lambda c: (-counts[c], c))


def _replaced(objects: Objects, target: Cluster, obj: dict[str, Any] | None) -> Objects:
    out = []
    for o in objects:
        if (
            o["kind"] in (n.WORKLOAD_CLUSTER, n.SYNC_TARGET)
            and (workspace_of(o), o["metadata"]["name"]) == target
        ):
            if obj is not None:
                out.append(obj)
        else:
            out.append(o)
    return out


def _cluster_removed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    return list(objects) if target is None else _replaced(objects, target, None)


def _label_changed(objects: Objects, rng: np.random.Generator) -> Objects:
    target = busiest_cluster(objects)
    if target is None:
        return list(objects)
    obj = copy.deepcopy(_clusters(objects)[target])
    labels = obj["metadata"].setdefault("labels", {})
    pools = sorted(
        {
            (o["metadata"].get("labels") or {}).get("region", ""),
            (o["metadata"].get("labels") or {}).get(POOL, ""),
        }
        for o in _clusters(objects).values()
        if (o["metadata"].get("labels") or {}).get(POOL) and workspace_of(o) == target[0]
    )
    others = [p for r, p in pools if p != labels.get(POOL) and r != labels.get("region")]
    others = others or [p for _, p in pools if p != labels.get(POOL)] or ["relabelled"]
    labels[POOL] = others[int(rng.integers(len(others)))]
    return _replaced(objects, target, obj)


apply_event = event_applier({"cluster-removed": _cluster_removed, "label-changed": _label_changed}, 11)
