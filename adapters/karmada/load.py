"""Karmada objects -> model.Batch, keeping what emit needs to write the bindings back.

Clusters: every Cluster (one being deleted is `leaving`, never a candidate), with traits for the
APIs it serves and for every distinct affinity term the bindings name, decided by upstream's
ClusterMatches. Requests: the bindings the scheduler looks at (one of its labels, its name, not
suspended, not being deleted) and schedules in this run (doScheduleBinding's decision), each a
request dividing replicas, in upstream's queue order (schedulePriority descending, creation time,
namespace/name). The bindings it looks at but leaves alone are carried to emit, as are the few
whose attempt fails before any division in a way the adapter knows alone (an unsupported
division strategy, a spread constraint by label only).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from adapters.karmada import names as n
from adapters.karmada.bindings import Binding, Trigger, read_binding
from adapters.karmada.clusters import KarmadaCluster, read_cluster
from adapters.karmada.filters import fit_error
from adapters.karmada.placement import Affinity, FactTable, Placement, matches_all
from adapters.kube.fields import INT32, Fields
from adapters.kube.manifests import Manifest, index_by_kind
from model import (
    AffinityTier,
    Batch,
    Cluster,
    ClusterTerm,
    Division,
    ExistingDecision,
    GroupSpread,
    Part,
    PlacementRequest,
    Replicas,
    SelectionMode,
    StaticWeight,
    TieBreak,
)

__all__ = ["BindingContext", "KarmadaContext", "load", "scheduled_batch", "tie_break"]


@dataclass(frozen=True, slots=True)
class BindingContext:
    """One binding the scheduler looks at: why it is scheduled (None: it is not), the tier it
    starts at, and, where the adapter decides the attempt's failure itself, that error: a
    FitError message (`fit`) or another error's."""

    binding: Binding
    trigger: Trigger | None
    start: int = 0
    error: str = ""
    fit: bool = False

    @property
    def key(self) -> str:
        return self.binding.key


@dataclass(slots=True)
class KarmadaContext:
    bindings: dict[tuple[str, str], BindingContext]  # by (kind, key), in output order
    clusters: int  # every Cluster, those being deleted too (FitError's N)
    batch: Batch
    now: datetime


def tie_break(uid: str) -> TieBreak:
    """Webster's tie-break (tieBreakerByUID): names ascending when the workload's uid is empty
    or its FNV-1a 32-bit hash even, descending when odd."""
    digest = 0x811C9DC5
    for byte in uid.encode():
        digest = ((digest ^ byte) * 0x01000193) & 0xFFFFFFFF
    return TieBreak.LARGER_NAME if uid and digest % 2 else TieBreak.SMALLER_NAME


def load(manifests: Sequence[Manifest], *, now: datetime, seed: int = 0) -> tuple[Batch, KarmadaContext]:
    objects = index_by_kind(manifests, n.KINDS)
    clusters = [read_cluster(m) for m in objects[n.CLUSTER]]
    deleting = frozenset(c.name for c in clusters if c.leaving)
    placements: dict[str, Placement] = {}  # many bindings share a placement: each read once
    bindings = [read_binding(m, placements) for kind in n.BINDINGS for m in objects[kind]]
    watched = [b for b in bindings if b.watched]
    decoded: dict[str, dict[str, Any] | None] = {}  # and its applied annotation: decoded once
    triggers = {id(b): b.trigger(Fields(b.manifest), deleting, decoded) for b in watched}

    def model_clusters(affinities: dict[str, Affinity]) -> tuple[Cluster, ...]:
        by_name = sorted(clusters, key=lambda c: c.name)
        return tuple(c.to_model(t) for c, t in zip(by_name, _traits(by_name, affinities), strict=True))

    return scheduled_batch(watched, triggers, model_clusters, now=now, seed=seed)


def scheduled_batch(
    watched: Sequence[Binding],
    triggers: dict[int, Trigger | None],
    model_clusters: Callable[[dict[str, Affinity]], tuple[Cluster, ...]],
    *,
    now: datetime,
    seed: int,
) -> tuple[Batch, KarmadaContext]:
    """The batch of the watched bindings a trigger schedules (`triggers`, by the binding's id),
    in upstream's queue order (schedulePriority descending, creation, namespace, name), over the
    clusters `model_clusters` makes for the affinities they name; a binding whose request cannot
    be made keeps its error (or the fit error it meets) in its context, and every other watched
    binding a context with no trigger. The loader and the live model assemble alike."""
    scheduled = sorted(
        (b for b in watched if triggers[id(b)] is not None),
        key=lambda b: (-b.priority, b.created, b.manifest.namespace, b.manifest.name),
    )
    affinities = {a.trait: a for b in scheduled for a in b.placement.affinities() if a.trait}
    clusters = model_clusters(affinities)
    contexts: dict[tuple[str, str], BindingContext] = {}
    requests = []
    for order, b in enumerate(scheduled):
        request, start, error = _request(b, order)
        context = BindingContext(b, triggers[id(b)], start)
        if error:
            fit = fit_error(clusters, request, start)
            context = BindingContext(b, context.trigger, start, fit or error, fit is not None)
        else:
            requests.append(request)
        contexts[(b.manifest.kind, b.key)] = context
    for b in watched:
        contexts.setdefault((b.manifest.kind, b.key), BindingContext(b, None))
    requests.sort(key=lambda r: r.key)
    batch = Batch(clusters, tuple(requests), now=now, seed=seed)
    return batch, KarmadaContext(dict(sorted(contexts.items())), len(clusters), batch, now)


def _traits(clusters: Sequence[KarmadaCluster], affinities: dict[str, Affinity]) -> list[frozenset[str]]:
    """Per cluster, the affinity traits it matches (each affinity matched on every cluster at
    once: placement.matches_all)."""
    table = FactTable([c.facts for c in clusters])
    matched: list[list[str]] = [[] for _ in clusters]
    for trait, affinity in affinities.items():
        for row in np.flatnonzero(matches_all(affinity, table)).tolist():
            matched[row].append(trait)
    return [frozenset(m) for m in matched]


def _term(a: Affinity | None) -> ClusterTerm:
    return ClusterTerm(traits=(a.trait,)) if a is not None and a.trait else ClusterTerm()


def _request(b: Binding, order: int) -> tuple[PlacementRequest, int, str]:
    """The binding as a request, the tier it starts at, and the error its attempt meets before
    any division where the adapter knows it ("" for none)."""
    p: Placement = b.placement
    workload = b.workload
    division, error = _division(b, p)
    tiers = ()
    start = 0
    if p.terms is not None:
        tiers = tuple(
            AffinityTier(t.name, _term(t.affinity), tuple(_term(o) for o in t.overflow) if workload else ())
            for t in p.terms
        )
        names = [t.name for t in p.terms]
        start = 0 if b.fresh or b.observed_affinity not in names else names.index(b.observed_affinity)
    selects = not p.ignores_spread
    groups = tuple(
        GroupSpread(
            "" if s.field == n.CLUSTER_FIELD else s.field,
            # Go ints; a count past any fleet means what the model's largest does
            min(s.min_groups, INT32),
            min(s.max_groups, INT32),
            selects and s.field in (n.CLUSTER_FIELD, n.REGION),
        )
        for s in p.spread
        if s.field
    )
    if selects and p.spread and not any(s.field in (n.CLUSTER_FIELD, n.REGION) for s in p.spread):
        error = error or n.SELECT_FAILED.format(n.SPREAD_UNSUPPORTED)
    weights = None
    if division is Division.WEIGHTED and p.weights:
        weights = tuple(StaticWeight(_term(a), w) for a, w in p.weights)
    replicas = Replicas(
        count=b.replicas,
        division=division,
        demand=b.demand(),
        weights=weights,
        groups=groups,
        tiers=tiers,
        tier=start,
        current=b.clusters,
        fresh=b.fresh,
        needs=b.api,
        evicted=b.evicted,
        unlimited=b.replicas == 0 and not b.components,
        order=order,
        priority=b.priority,
        tie_break=tie_break(b.uid),
        spread_by_room=division is Division.EVERY and p.scheduling_type != n.DUPLICATED,
        parts=_parts(b),
    )
    request = PlacementRequest(
        name=b.manifest.name,
        namespace=b.manifest.namespace,
        mode=SelectionMode.ALL,
        required=(_term(p.affinity),) if p.affinity is not None and p.affinity.trait else (),
        tolerations=p.tolerations,
        existing=tuple(ExistingDecision(name) for name, _ in b.clusters),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
        replicas=replicas,
    )
    return request, start, error


def _parts(b: Binding) -> tuple[Part, ...]:
    """The component set, where upstream counts capacity in whole sets. The components' replicas
    are int32s that may be negative: a set whose replicas sum to 0 or less counts as one pod
    (maxAvailableComponentSets: podsInSet <= 0 leaves the pods allowed as the estimate); else the
    parts as they are (the set's footprint sums them, negatives too)."""
    if not b.as_sets:
        return ()
    if sum(c.replicas for c in b.components) <= 0:
        return (Part(1, {n.PODS: 1}),)
    return tuple(Part(c.replicas, c.demand()) for c in b.components)


def _division(b: Binding, p: Placement) -> tuple[Division, str]:
    """AssignReplicas' strategy, and the error of one upstream has no strategy for. Only a
    binding with replicas above 0 or replicaRequirements, and at most one component, is divided
    (pkg/scheduler/core/common.go AssignReplicas; not IsWorkload, which counts any component):
    the others go on every selected cluster (multi-component workloads run whole, never divided)."""
    if not b.divided:
        return Division.EVERY, ""
    if p.scheduling_type == n.DUPLICATED:
        return Division.DUPLICATED, ""
    if p.preference == n.AGGREGATED:
        return Division.AGGREGATED, ""
    if p.preference == n.WEIGHTED:
        return (Division.AVAILABLE if p.dynamic else Division.WEIGHTED), ""
    unsupported = n.UNSUPPORTED_STRATEGY.format(p.scheduling_type, p.preference)
    return Division.AVAILABLE, n.ASSIGN_FAILED.format(unsupported)
