"""OCM's live batch pays for its Placements, not for the fleet: a batch's scope members read from
the pool's own set where the scope is one set, and the absent load found without a set made of
the counts' names (adapters.ocm.reach.OcmLive._taken). Its batches stay the full load's with the
rest held (tests/test_live_ocm.py checks them); here, what each one no longer makes, and that the
absent load is still every counted cluster the pool lacks."""

from __future__ import annotations

from collections import Counter
from datetime import datetime

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from solver import SolveOptions


def _hub(seed: int = 4) -> tuple[HubScheduler, datetime]:
    now = datetime.fromisoformat(DEFAULT_NOW)
    return HubScheduler(generate("ocm", 40, 60, seed=seed, now=now), now=now, options=SolveOptions()), now


def test_a_one_set_scope_is_the_pools_own_members() -> None:
    hub, _ = _hub()
    live = hub._live["ocm"]
    traits = sorted({t for c in live.pool.by_name().values() for t in c.traits if t.startswith("set")})
    assert traits
    for trait in traits:
        assert live._members((trait,)) is live.pool.with_trait(trait)
    both = tuple(traits[:2])
    assert live._members(both) == set().union(*(live.pool.with_trait(t) for t in both))
    assert live._members(()) == set()


class _Counts(Counter):
    """The model's counts, refusing a view of their keys (what a set difference of the fleet's
    names would read)."""

    def keys(self):  # noqa: D102
        raise AssertionError("the batch made a set of the counts' names")


def test_the_absent_load_is_found_without_a_set_of_the_counts_names() -> None:
    """A counted cluster the pool lacks (gone while decisions still name it) is the batch's absent
    load, less the batch's own decisions on it; found reading the counts, not a view of their keys."""
    hub, now = _hub()
    live = hub._live["ocm"]
    key = sorted(live.requests)[0]
    counts = live.counts
    live.counts = _Counts(counts)
    live.counts.update({"gone-a": 2, "gone-b": 1})
    try:
        batch = live._taken({key}, now).batch
    finally:
        live.counts = counts
    assert batch.absent_load == {"gone-a": 2, "gone-b": 1}
    assert len(batch.clusters) == len(live.pool)
