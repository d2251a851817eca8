"""Karmada in the long-lived scheduler (adapters/karmada/reach.py): every batch it takes is the full
load's restricted to the bindings upstream enqueued (their requests as the full load makes them,
queue positions as ranks), over every Cluster as the full load reads it (the affinity traits of
the bindings taken: a cluster's traits name the affinities of the batch's bindings)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import numpy as np
import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.karmada.load import load
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from model import Batch, Part
from solver import SolveOptions
from tests.fixtures.live import spy_on_events

AFFINITY = "affinity:"


def _comparable(batch: Batch, keys: set[str]) -> Batch:
    """The batch's requests `keys` (queue positions as ranks), its clusters with the affinity
    traits those requests name only."""
    requests = sorted((r for r in batch.requests if r.key in keys), key=lambda r: r.replicas.order)
    rank = {r.key: i for i, r in enumerate(requests)}
    requests = [replace(r, replicas=replace(r.replicas, order=rank[r.key])) for r in requests]
    named = {t for r in requests for term in r.required for t in term.traits}
    for r in requests:
        for tier in r.replicas.tiers:
            named |= {t for term in (tier.term, *tier.overflow) for t in term.traits}
        named |= {t for w in r.replicas.weights or () for t in w.term.traits}
    clusters = tuple(
        replace(c, traits=frozenset(t for t in c.traits if not t.startswith(AFFINITY) or t in named))
        for c in batch.clusters
    )
    return replace(batch, clusters=clusters, requests=tuple(sorted(requests, key=lambda r: r.key)))


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_every_batch_taken_is_the_full_loads_for_the_bindings_enqueued(mode) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("karmada", 14, 40, seed=5, now=now), now=now, options=SolveOptions(mode=mode))
    spy, at = spy_on_events(hub, "karmada", "karmada", 5, 60, now)
    assert len(spy.taken) > 15
    for taken, objects in spy.taken:
        keys = {r.key for r in taken.batch.requests}
        full, _ = load(from_objects(objects, "<hub>"), now=taken.batch.now, seed=0)
        assert _comparable(taken.batch, keys) == _comparable(full, keys)


def _changed_cluster(objects: list[dict], name: str, change) -> tuple[dict, dict]:
    import copy

    before = next(o for o in objects if o["kind"] == "Cluster" and o["metadata"]["name"] == name)
    after = copy.deepcopy(before)
    change(after)
    objects[objects.index(before)] = after
    return before, after


def _assert_kept_as_fresh(kept, objects: list[dict], affinities: dict, now: datetime) -> None:
    """What the reach model keeps of its clusters (their models, each affinity's matches, the
    filters' masks and the estimates) is what a model made afresh of the same objects makes."""
    from adapters.karmada.reach import live
    from solver.replicas.estimate import Estimator
    from solver.replicas.kept import kept_estimator
    from solver.replicas.order import Filters

    fresh = live(from_objects(objects, "<hub>"), now=now, seed=0)
    assert kept._deleting == fresh._deleting
    batch, plain = kept._clusters(affinities), tuple(fresh._clusters(affinities))
    assert batch == plain
    ours, theirs = Filters(batch, now), Filters(plain, now)
    assert ours.kept is not None and theirs.kept is None
    assert ours.index == theirs.index and ours.tainted == theirs.tainted
    assert (ours.eligible == theirs.eligible).all()
    traits = {t for c in plain for t in c.traits} | set(affinities)
    for trait in traits | {"api:none", "api:example.io/v1/Widget"}:
        assert (ours.trait(trait) == theirs.trait(trait)).all(), trait
    for claim in {k for c in plain for k in c.claims} | {"none"}:
        assert (ours.claim(claim) == theirs.claim(claim)).all(), claim
    for demand in ({"cpu": 500}, {"cpu": 250, "memory": 2**30, "pods": 1}, {"nvidia.com/gpu": 1}):
        assert (kept_estimator(batch).of(demand) == Estimator(plain).of(demand)).all(), demand
    for parts in ((Part(2, {"cpu": 1000}), Part(1, {"memory": 2**32})), (Part(3, {"cpu": 3000}),)):
        assert (kept_estimator(batch).sets(parts) == Estimator(plain).sets(parts)).all(), parts
    rows = kept._rows
    assert [list(mask) for mask, _ in rows._masks.values()] == [
        [predicate(c) for c in rows.models] for _, predicate in rows._masks.values()
    ]


def test_the_clusters_kept_between_events_are_what_a_fresh_model_makes_after_each_cluster_change() -> None:
    """The reach model keeps its clusters' models, each affinity's matching clusters, the
    filters' masks (eligible, each trait and claim, the tainted rows) and the estimator between
    events (solver.replicas.kept), changed only at the clusters an event changes: after a cluster
    is relabelled, its resourceSummary or its API enablements change, it is tainted, starts its
    deletion, joins or leaves, all of it is what a model made afresh makes."""
    import copy

    from adapters.karmada.reach import live

    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("karmada", 24, 60, seed=3, now=now)
    kept = live(from_objects(objects, "<hub>"), now=now, seed=0)
    affinities = {
        a.trait: a for b in kept.bindings.values() if b.placement for a in b.placement.affinities() if a.trait
    }
    assert len(affinities) > 3
    _assert_kept_as_fresh(kept, objects, affinities, now)  # every mask made: now kept
    names = sorted(o["metadata"]["name"] for o in objects if o["kind"] == "Cluster")
    other = next(o for o in objects if o["kind"] == "Cluster" and o["metadata"]["name"] == names[-1])

    def relabel(c: dict) -> None:
        c["metadata"]["labels"] = dict(other["metadata"]["labels"])
        c["spec"]["region"] = other["spec"].get("region", "")

    def summary(c: dict) -> None:
        allocatable = c["status"]["resourceSummary"]["allocatable"]
        allocatable["cpu"] = "1"
        c["status"]["resourceSummary"].pop("allocatableModelings", None)

    def apis(c: dict) -> None:  # one group gone, a kind no other cluster serves
        widgets = {"groupVersion": "example.io/v1", "resources": [{"name": "widgets", "kind": "Widget"}]}
        c["status"]["apiEnablements"] = [*c["status"]["apiEnablements"][:1], widgets]

    def taint(c: dict) -> None:
        c["spec"]["taints"] = [{"key": "soak", "value": "x", "effect": "NoSchedule"}]

    def deleting(c: dict) -> None:
        c["metadata"]["deletionTimestamp"] = "2026-11-24T03:00:00Z"

    def nodes(c: dict) -> None:  # node classes of a shape no other cluster has
        c["status"]["resourceSummary"]["allocatableModelings"] = [
            {"grade": 0, "count": 2},
            {"grade": 1, "count": 7},
        ]

    for i, change in enumerate((relabel, summary, apis, taint, deleting, nodes)):
        name = names[2 + i]
        kept.take([_changed_cluster(objects, name, change)], now)
        _assert_kept_as_fresh(kept, objects, affinities, now)
    modelled = [
        o
        for o in objects
        if o["kind"] == "Cluster" and o["status"]["resourceSummary"].get("allocatableModelings")
    ]
    joined = copy.deepcopy(modelled[-1])
    joined["metadata"]["name"] = "member-aaa-joined"
    objects.append(joined)
    kept.take([(None, joined)], now)
    _assert_kept_as_fresh(kept, objects, affinities, now)
    gone = next(o for o in objects if o["kind"] == "Cluster" and o["metadata"]["name"] == names[1])
    objects.remove(gone)
    kept.take([(gone, None)], now)
    _assert_kept_as_fresh(kept, objects, affinities, now)


def test_kept_clusters_older_than_the_change_log_are_made_afresh(monkeypatch) -> None:
    """A batch's clusters kept by the traits they add are taken again with the changes logged
    since; once the log no longer reaches back to them, they are made afresh."""
    from solver.replicas import kept as kept_module
    from solver.replicas.kept import ClusterRows

    monkeypatch.setattr(kept_module, "_LOG", 4)
    now = datetime.fromisoformat(DEFAULT_NOW)
    batch, _ = load(from_objects(generate("karmada", 12, 4, seed=3, now=now), "<hub>"), now=now, seed=0)
    rows = ClusterRows(batch.clusters)
    added = {"affinity:x": np.arange(len(rows)) % 2 == 0}
    rows.batch(added)
    for c in list(rows.models)[:6]:
        rows.put(replace(c, labels={**c.labels, "moved": "yes"}))
    again = rows.batch(added)
    fresh = ClusterRows(rows.models).batch(added)
    assert tuple(again) == tuple(fresh)
