"""Fleet in the long-lived scheduler (adapters/fleet/reach.py): every batch it takes is the full
load's restricted to the placements woken (Fleet's placements share nothing but the clusters,
which the model keeps read as the full load reads them, their eligibility judged at the event's
time), and nothing moves that an event does not force (the soak checks the rest)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

import pytest

from adapters.fleet.load import load
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from solver import SolveOptions
from tests.fixtures.live import spy_on_events


@pytest.mark.parametrize("mode", ["greedy", "optimal"])
def test_every_batch_taken_is_the_full_loads_for_the_placements_woken(mode) -> None:
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("fleet", 20, 30, seed=6, now=now), now=now, options=SolveOptions(mode=mode))
    spy, at = spy_on_events(hub, "fleet", "fleet", 6, 80, now)
    assert len(spy.taken) > 15
    for taken, objects in spy.taken:
        keys = {r.key for r in taken.batch.requests}
        full, _ = load(from_objects(objects, "<hub>"), now=taken.batch.now, seed=0)
        expected = replace(full, requests=tuple(r for r in full.requests if r.key in keys))
        assert _timeless(taken.batch) == _timeless(expected)


def _timeless(batch):
    """The batch with every cluster's ineligible reason left out: its text says how long ago the
    cluster turned so, as of when it was read (the model reads a cluster again when it changes,
    or when its eligibility would)."""
    return replace(batch, clusters=tuple(replace(c, ineligible_reason="") for c in batch.clusters))


def test_a_refused_placement_leaves_the_model_as_it_was() -> None:
    """A placement the adapter refuses (an InputError) changes nothing: not the hub, and not
    Fleet's model, which would otherwise refuse every later event that wakes it (it kept the
    refused object on a first cut of this model)."""
    from adapters.errors import InputError
    from adapters.live.hub import Applied
    from tests.fixtures.fleet import NOW_TIME, crp, member_cluster, pick_all

    hub = HubScheduler([member_cluster("a"), crp("web", pick_all())], now=NOW_TIME)
    refused = crp("web", {"placementType": "PickSome"})
    with pytest.raises(InputError, match="placementType"):
        hub.handle(Applied(refused), now=NOW_TIME)
    delta = hub.handle(Applied(member_cluster("b")), now=NOW_TIME)  # wakes the PickAll placement
    assert delta.requests == ("web",)
    assert hub.resolve(now=NOW_TIME).apply == []
