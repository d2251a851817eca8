"""Which bindings an event puts in Karmada's scheduling queue (pkg/scheduler/event_handler.go at
v1.19), for the long-lived scheduler (adapters.live.hub, through the System record's `reach`,
`live`: the bindings enqueued are loaded with every Cluster, adapters.live.subset):

- a binding (ResourceBinding or ClusterResourceBinding) the scheduler looks at: enqueued when it
  is added (created, or newly passing the event filter: client-go's FilteringResourceEventHandler
  turns such an update into an add) and on an update that changes its metadata.generation (its
  spec: created, scaled, re-placed; the scheduler's own patch of spec.clusters too). A
  status-only update and a deletion enqueue nothing (onResourceBindingUpdate,
  onResourceBindingDelete);
- a Cluster: its addition and its removal enqueue nothing (addCluster, deleteCluster); an update
  that starts its deletion reconciles the new object; one that changes its labels (nil and empty
  alike, as equality.Semantic) or its metadata.generation (its spec) reconciles the old object and
  the new; a status-only update (resourceSummary, conditions, apiEnablements) enqueues nothing
  (updateCluster). Reconciling a cluster (enqueueAffectedBindings, enqueueAffectedCRBs) enqueues
  every binding whose current affinity matches it (ClusterMatches) and every binding without
  one; the current affinity of clusterAffinities is the observed term (getAffinityIndex: the
  first where the observed name is empty or unknown), and a binding whose observed generation
  lags its generation is enqueued whatever its terms.

An enqueued binding then runs doScheduleBinding's decision tree (the adapter's load), against
every Cluster; the bindings not enqueued are left out of the solve, held as they stand (their
footprint is in the clusters' resourceSummary already), even where a full run would now decide
otherwise for them: upstream's scheduler waits for their own event.

Bindings the event filter drops (another scheduler's, suspended) are never enqueued; those it
passes without the scheduler's labels, or being deleted, are left alone by the decision tree
(the adapter looks only at the bindings it watches), so they are not enqueued here either. A
hand-written object without a metadata.generation stands for one whose generation changes with
its spec (as the API server counts it).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from adapters.karmada import names as n
from adapters.karmada.bindings import Binding, read_binding
from adapters.karmada.clusters import read_cluster
from adapters.karmada.placement import Affinity, ClusterFacts
from adapters.karmada.system import SYSTEM
from adapters.kube.manifests import Manifest
from adapters.live.subset import Subset

__all__ = ["live", "reach"]

Obj = Mapping[str, Any]
Change = tuple[Obj | None, Obj | None]


def live(manifests: Sequence[Manifest], *, now: datetime, seed: int) -> Subset:
    """The model the long-lived scheduler keeps: the objects, each event's reach loaded."""
    return Subset(SYSTEM.name, reach, manifests, seed=seed)


def reach(changes: Iterable[Change], objects: Sequence[Obj]) -> list[Obj]:
    """Every Cluster and the bindings the changes enqueue, or nothing when they enqueue none.
    Each changed object as it now stands is read (refused as the API server refuses it)."""
    enqueued: dict[int, Obj] = {}
    reconciled: list[ClusterFacts] = []
    for before, after in changes:
        if after is not None:
            _read(after)  # a refusal is the event's
        kind = (after or before or {}).get("kind")
        if kind in n.BINDINGS and after is not None and _binding_enqueued(before, after):
            enqueued[id(after)] = after
        elif kind == n.CLUSTER and before is not None and after is not None:
            reconciled += [read_cluster(_manifest(c)).facts for c in _reconciled_clusters(before, after)]
    if reconciled:
        for obj in objects:
            if obj.get("kind") in n.BINDINGS and _affected(_binding(obj), reconciled):
                enqueued[id(obj)] = obj
    if not enqueued:
        return []
    return [o for o in objects if o.get("kind") == n.CLUSTER or id(o) in enqueued]


def _manifest(obj: Obj) -> Manifest:
    return Manifest(dict(obj), "<hub>", 1)


def _read(obj: Obj) -> None:
    m = _manifest(obj)
    if m.kind in n.BINDINGS:
        read_binding(m)
    elif m.kind == n.CLUSTER:
        read_cluster(m)


def _binding(obj: Obj) -> Binding:
    return read_binding(_manifest(obj))


def _binding_enqueued(before: Obj | None, after: Obj) -> bool:
    """An add (new, or newly passing the filter) or an update of the generation."""
    now = _binding(after)
    if not now.watched:
        return False
    return before is None or not _binding(before).watched or _generation_changed(before, after)


def _generation_changed(before: Obj, after: Obj) -> bool:
    old, new = (o.get("metadata", {}).get("generation") for o in (before, after))
    if isinstance(old, int) and isinstance(new, int):
        return old != new
    return before.get("spec") != after.get("spec")


def _deleting(obj: Obj) -> bool:
    return bool(obj.get("metadata", {}).get("deletionTimestamp"))


def _reconciled_clusters(before: Obj, after: Obj) -> tuple[Obj, ...]:
    """The cluster objects updateCluster hands to the reconcile worker."""
    if not _deleting(before) and _deleting(after):
        return (after,)
    labels = [o.get("metadata", {}).get("labels") or {} for o in (before, after)]
    if labels[0] != labels[1] or _generation_changed(before, after):
        return (before, after)
    return ()


def _affected(b: Binding, clusters: Sequence[ClusterFacts]) -> bool:
    """Whether reconciling the clusters enqueues the binding."""
    placement = b.placement
    if placement is None or not b.watched:
        return False
    affinity = _current_affinity(b)
    return affinity is None or any(affinity.matches(c) for c in clusters)


def _current_affinity(b: Binding) -> Affinity | None:
    """The affinity a cluster event is matched against (None: every cluster is): clusterAffinity,
    or the observed clusterAffinities term; None too for a binding with terms whose observed
    generation lags (enqueued whatever its terms)."""
    placement = b.placement
    if placement.terms is None:
        return placement.affinity
    if b.observed_generation != b.generation or not placement.terms:
        return None
    names = [t.name for t in placement.terms]
    index = names.index(b.observed_affinity) if b.observed_affinity in names else 0
    return placement.terms[index].affinity
