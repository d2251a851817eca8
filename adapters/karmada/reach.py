"""Which bindings an event puts in Karmada's scheduling queue (pkg/scheduler/event_handler.go at
v1.19), and the model the long-lived scheduler keeps between events (adapters.live.hub, through
the System record's `reach`):

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

An enqueued binding then runs doScheduleBinding's decision tree (the adapter's load, over the
bindings enqueued), against every Cluster; the bindings not enqueued are left out of the solve,
held as they stand (their footprint is in the clusters' resourceSummary already), even where a
full run would now decide otherwise for them: upstream's scheduler waits for their own event. So
a full solve of the hub changes only bindings whose decision would now differ without an event
having enqueued them: those left Unschedulable or failed (a full run is a restart, which retries
every binding), and those a cluster's capacity (resourceSummary: a status change, enqueuing
nothing) would now divide otherwise.

The model kept: every Cluster and binding read once (again only when its object changes), the
bindings grouped by the affinity a cluster event is matched against (so that a cluster's change is
matched once per distinct affinity, not per binding), the clusters' facts as a table and each
affinity's matching clusters (made again only when a cluster changes), each cluster's model.

Bindings the event filter drops (another scheduler's, suspended) are never enqueued; those it
passes without the scheduler's labels, or being deleted, are left alone by the decision tree
(the adapter looks only at the bindings it watches), so they are not enqueued here either. A
hand-written object without a metadata.generation stands for one whose generation changes with
its spec (as the API server counts it).

An event the hub refuses leaves the model as it was with no journal (adapters.live.kept.Journal):
`take` reads every changed object whole before it changes anything (read_binding and read_cluster
refuse every field the decision tree and the emit read; the applied-placement annotation, read when
a binding is woken, is never refused), nothing after its reads raises an InputError, and the
estimator the rows keep (solver/replicas/kept.py kept_estimator) is a function of the capacity
objects it holds and is keyed by, so it carries nothing of a refused event.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from adapters.contract import Change, Taken
from adapters.karmada import names as n
from adapters.karmada.bindings import Binding, Trigger, read_binding
from adapters.karmada.clusters import KarmadaCluster, read_cluster
from adapters.karmada.load import scheduled_batch
from adapters.karmada.placement import Affinity, ClusterFacts, FactTable, Placement, matches_all
from adapters.kube.fields import Fields
from adapters.kube.manifests import Manifest
from adapters.live.kept import Reads, generation_changed, manifest
from model import Cluster, Result
from solver.replicas.kept import ClusterRows

__all__ = ["KarmadaLive", "live"]

Obj = Mapping[str, Any]
BindingKey = tuple[str, str]  # kind, namespace/name
_EVERY = "*"  # the group of bindings every cluster event enqueues


def live(
    manifests: Sequence[Manifest], *, now: datetime, seed: int, result: Result | None = None
) -> KarmadaLive:
    return KarmadaLive(manifests, seed=seed)


class KarmadaLive:
    def __init__(self, manifests: Sequence[Manifest], *, seed: int) -> None:
        self.seed = seed
        self._placements: dict[str, Placement] = {}  # read_binding's: each distinct placement once
        self.clusters: dict[str, KarmadaCluster] = {}
        self._reads = Reads(read_cluster)  # each Cluster object's read, while it is stored
        self.bindings: dict[BindingKey, Binding] = {}
        self._groups: dict[str, set[BindingKey]] = defaultdict(set)  # affinity trait -> bindings
        self._group_of: dict[BindingKey, str] = {}
        self._affinity: dict[str, Affinity] = {}  # one of each group's affinity
        self._table: FactTable | None = None  # the clusters' facts in name order, made when asked
        self._deleting: set[str] = set()  # the clusters being deleted
        self._triggers: dict[int, tuple[Binding, Trigger | None]] = {}  # by the binding's identity
        clusters = []
        for m in manifests:
            if m.kind == n.CLUSTER:
                cluster = read_cluster(m)
                self._reads.keep(m.obj, cluster)
                clusters.append(cluster)
            elif m.kind in n.BINDINGS:
                self._put_binding(read_binding(m, self._placements))
        for cluster in clusters:
            self._put_cluster(cluster, bulk=True)
        # the clusters' models without affinity traits, with the masks kept over them
        self._rows = ClusterRows(c.to_model(frozenset()) for c in self.clusters.values())

    # -- what changes reach ---------------------------------------------------------------------

    def take(self, changes: Sequence[Change], now: datetime) -> Taken | None:
        clusters: list[tuple[str, Obj | None, Obj | None, KarmadaCluster | None]] = []
        bindings: list[tuple[BindingKey, Binding | None]] = []
        enqueued: set[BindingKey] = set()
        reconciled: list[ClusterFacts] = []
        for before, after in changes:  # read first: a refusal keeps nothing
            obj = after if after is not None else before
            assert obj is not None
            if obj["kind"] == n.CLUSTER:
                new = self._reads.read(after) if after is not None else None
                clusters.append((obj["metadata"]["name"], before, after, new))
                if before is not None and new is not None:
                    read = {id(before): self._reads.read(before), id(after): new}
                    reconciled += [read[id(c)].facts for c in _reconciled_clusters(before, after)]
            elif obj["kind"] in n.BINDINGS:
                key = (obj["kind"], _key(obj))
                kept = self.bindings.get(key)
                new = None
                if after is not None:
                    same = kept is not None and kept.manifest.obj is after
                    new = kept if same else read_binding(manifest(after), self._placements)
                bindings.append((key, new))
                if new is not None and _binding_enqueued(before, after, kept, new):
                    enqueued.add(key)
        for name, before, after, cluster in clusters:
            if before is not None:
                self._reads.forget(before)
            if cluster is not None:
                self._reads.keep(after, cluster)
                self._put_cluster(cluster)  # in place of the one of its name
            else:
                self._drop_cluster(name)
        for key, binding in bindings:
            self._drop_binding(key)
            if binding is not None:
                self._put_binding(binding)
        if reconciled:
            enqueued |= self._affected(reconciled)
        taken = [self.bindings[key] for key in sorted(enqueued) if key in self.bindings]
        taken = [b for b in taken if b.watched]
        return self._taken(taken, now) if taken else None

    def _affected(self, clusters: list[ClusterFacts]) -> set[BindingKey]:
        """The bindings reconciling the clusters enqueues: those whose current affinity matches
        one of them, and those every cluster event enqueues (enqueueAffectedBindings)."""
        out = set(self._groups.get(_EVERY, ()))
        for trait, keys in self._groups.items():
            if trait != _EVERY and any(self._affinity[trait].matches(c) for c in clusters):
                out |= keys
        return out

    # -- the model ------------------------------------------------------------------------------

    def _put_cluster(self, c: KarmadaCluster, *, bulk: bool = False) -> None:
        """A cluster added or replacing its name's (`bulk`: the rows are made after, at once)."""
        self.clusters[c.name] = c
        self._deleting.discard(c.name)
        if c.leaving:
            self._deleting.add(c.name)
        self._table = None
        if not bulk:
            self._rows.put(c.to_model(frozenset()))  # after the facts: the kept affinities read them

    def _drop_cluster(self, name: str) -> None:
        if self.clusters.pop(name, None) is not None:
            self._deleting.discard(name)
            self._table = None
            self._rows.drop(name)

    def _put_binding(self, b: Binding) -> None:
        key = (b.manifest.kind, b.key)
        self.bindings[key] = b
        if b.placement is None or not b.watched:
            return
        affinity = _current_affinity(b)
        group = _EVERY if affinity is None else affinity.trait or _EVERY
        self._groups[group].add(key)
        self._group_of[key] = group
        if affinity is not None and group != _EVERY:
            self._affinity.setdefault(group, affinity)

    def _drop_binding(self, key: BindingKey) -> None:
        gone = self.bindings.pop(key, None)
        if gone is None:
            return
        self._triggers.pop(id(gone), None)
        group = self._group_of.pop(key, None)
        if group is not None:
            self._groups[group].discard(key)
            if not self._groups[group]:
                del self._groups[group]
                self._affinity.pop(group, None)

    def _clusters(self, affinities: Mapping[str, Affinity]) -> tuple[Cluster, ...]:
        """Every cluster's model, in name order, with the traits of the affinities it matches
        (as load.py's _traits): each affinity's matching clusters kept with the rows (matched on
        every cluster at once when first asked, then judged again on each cluster that changes)."""
        return self._rows.batch({trait: self._matched(a) for trait, a in affinities.items()})

    def _matched(self, affinity: Affinity) -> np.ndarray:
        def made() -> np.ndarray:
            if self._table is None:
                rows = self._rows
                self._table = FactTable([self.clusters[name].facts for name in rows.names], rows.index)
            return matches_all(affinity, self._table)

        def matches(model: Cluster) -> bool:
            return affinity.matches(self.clusters[model.name].facts)

        return self._rows.mask(("affinity", affinity.trait), matches, made)

    # -- the batch ------------------------------------------------------------------------------

    def _trigger(
        self, b: Binding, deleting: frozenset[str], decoded: dict[str, dict[str, Any] | None]
    ) -> Trigger | None:
        """Binding.trigger, its part that reads the binding alone kept while the binding is (a
        cluster event enqueues thousands, most of them unchanged): the branches before the last
        read only the binding, the last whether one of its clusters is being deleted."""
        kept = self._triggers.get(id(b))
        if kept is None or kept[0] is not b:
            kept = self._triggers[id(b)] = (b, b.trigger(Fields(b.manifest), frozenset(), decoded))
        if kept[1] is not None:
            return kept[1]
        return Trigger.DELETING if any(name in deleting for name, _ in b.clusters) else None

    def _taken(self, taken: list[Binding], now: datetime) -> Taken:
        """The bindings enqueued through doScheduleBinding's decision tree, as load.py loads a
        hub's (the same steps, over these bindings only), against every Cluster."""
        deleting = frozenset(self._deleting)
        decoded: dict[str, dict[str, Any] | None] = {}
        triggers = {id(b): self._trigger(b, deleting, decoded) for b in taken}
        batch, context = scheduled_batch(taken, triggers, self._clusters, now=now, seed=self.seed)
        return Taken(batch, context)


def _key(obj: Obj) -> str:
    metadata = obj["metadata"]
    namespace = metadata.get("namespace") or ""
    return f"{namespace}/{metadata['name']}" if namespace else metadata["name"]


def _binding_enqueued(before: Obj | None, after: Obj, kept: Binding | None, now: Binding) -> bool:
    """An add (new, or newly passing the filter) or an update of the generation."""
    if not now.watched:
        return False
    was = kept is not None and kept.watched
    return before is None or not was or generation_changed(before, after)


def _deleting(obj: Obj) -> bool:
    return bool(obj.get("metadata", {}).get("deletionTimestamp"))


def _reconciled_clusters(before: Obj, after: Obj) -> tuple[Obj, ...]:
    """The cluster objects updateCluster hands to the reconcile worker."""
    if not _deleting(before) and _deleting(after):
        return (after,)
    labels = [o.get("metadata", {}).get("labels") or {} for o in (before, after)]
    if labels[0] != labels[1] or generation_changed(before, after):
        return (before, after)
    return ()


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
