"""Karmada in the long-lived scheduler (adapters/karmada/reach.py): every batch it takes is the full
load's restricted to the bindings upstream enqueued (their requests as the full load makes them,
queue positions as ranks), over every Cluster as the full load reads it (the affinity traits of
the bindings taken: a cluster's traits name the affinities of the batch's bindings)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.karmada.load import load
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from model import Batch
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
