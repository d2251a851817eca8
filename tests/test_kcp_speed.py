"""kcp at scale: the shortcuts that make a 10,000 x 50,000 hub fast, each held equal to the plain
computation it replaces, and held to doing less work than it."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from adapters.kcp import world as world_module
from adapters.kcp.api import load
from adapters.kcp.world import last_shuffled
from adapters.kube.manifests import from_objects
from tests.fixtures.kcp import NOW_TIME, cluster, compute_v05, namespace


def loaded(objects, seed: int = 0):
    return load(from_objects(objects, "<test>"), now=NOW_TIME, seed=seed)


# ------------------------------------------------------------------------------- the partial shuffle


def _last_of_shuffle(rng: random.Random, items, wanted):
    order = list(items)
    rng.shuffle(order)
    return next((item for item in reversed(order) if wanted(item)), None)


@given(
    seed=st.text(max_size=8),
    size=st.integers(min_value=0, max_value=60),
    wanted=st.frozensets(st.integers(min_value=0, max_value=60)),
)
def test_last_shuffled_is_the_last_wanted_item_of_random_shuffle(seed, size, wanted) -> None:
    items = [f"loc-{i}" for i in range(size)]
    keep = {f"loc-{i}" for i in wanted}
    expected = _last_of_shuffle(random.Random(seed), items, keep.__contains__)
    assert last_shuffled(random.Random(seed), items, keep.__contains__) == expected


def _counting_draws(monkeypatch) -> list[int]:
    """Every random source the kcp adapter makes counts its draws into the returned list."""
    draws: list[int] = []

    class Counting(random.Random):
        def _randbelow(self, n: int) -> int:
            draws.append(n)
            return super()._randbelow(n)

    monkeypatch.setattr(world_module.random, "Random", Counting)
    return draws


def test_v05_new_namespace_draws_only_the_places_that_decide_its_location(monkeypatch) -> None:
    """A namespace without an entry takes the last location of a permutation of its negotiation
    workspace's thousand Locations: one draw decides it, not a thousand (50,000 such namespaces
    took 20 s)."""
    names = [f"loc-{i:04d}" for i in range(1000)]
    hub = [*compute_v05(*(cluster(f"c-{name}", name) for name in names), locations=names), namespace("web")]
    draws = _counting_draws(monkeypatch)
    batch, _ = loaded(hub)
    (request,) = batch.requests
    assert len(draws) == 1
    drawn = _last_of_shuffle(random.Random("0/root:org:compute/root:org:team/web"), names, bool)
    assert request.name == f"web@{drawn}"
