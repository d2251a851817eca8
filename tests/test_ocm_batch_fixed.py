"""OCM's live batch pays for its Placements, not for the fleet: a batch's scope members read from
the pool's own set where the scope is one set, and the absent load found without a set made of
the counts' names (adapters.ocm.reach.OcmLive._taken). Its batches stay the full load's with the
rest held (tests/test_live_ocm.py checks them); here, what each one no longer makes, and that the
absent load is still every counted cluster the pool lacks."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live.hub import HubScheduler
from adapters.live.kept import with_load
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
    load, less the batch's own decisions on it; found from the names kept as the counts move
    (`_uncounted`), not a view of the counts' keys nor a pass over them."""
    hub, now = _hub()
    live = hub._live["ocm"]
    key = sorted(live.requests)[0]
    live.counts = _Counts(live.counts)  # the hub is let go after: its counts stay these
    live._recounted = set()
    live._recount({"gone-a": 2, "gone-b": 1})  # decisions naming clusters the pool lacks
    batch = live._taken({key}, now).batch
    assert batch.absent_load == {"gone-a": 2, "gone-b": 1}
    assert len(batch.clusters) == len(live.pool)
    live._recount({"gone-a": -2})  # no longer counted: no longer absent load
    assert live._taken({key}, now).batch.absent_load == {"gone-b": 1}


def test_the_counted_clusters_the_pool_lacks_are_kept_as_clusters_and_counts_move(monkeypatch) -> None:
    """`_uncounted` is every counted cluster the pool lacks, at every batch and after every event
    of a stream of joins, leaves, relabels, taints and Placements' changes (a leave's batches
    count the gone cluster's decisions as absent load until its writes come back), and after a
    cluster dropped and a count moved are undone by the journal."""
    from adapters.ocm.reach import OcmLive
    from bench.hub_soak import _World

    hub, now = _hub(seed=2)
    live = hub._live["ocm"]

    def lacking() -> set[str]:
        return {c for c in live.counts if c not in live.pool}

    absent: list[dict[str, int]] = []
    original = OcmLive._taken

    def taken(self, keys, now, **kwargs):  # type: ignore[no-untyped-def]
        assert self._uncounted == lacking()
        out = original(self, keys, now, **kwargs)
        assert set(out.batch.absent_load) <= lacking()
        absent.append(dict(out.batch.absent_load))
        return out

    monkeypatch.setattr(OcmLive, "_taken", taken)
    world = _World("ocm", hub, 2)
    kinds = set()
    for _ in range(60):
        now += timedelta(seconds=15)
        kind, event, _ = world.next(now)
        kinds.add(kind)
        hub.handle(event, now=now)
        assert live._uncounted == lacking()
    assert {"cluster-joined", "cluster-left"} <= kinds
    assert any(absent)  # some batch counted a gone cluster's decisions
    held = max(live.counts, key=lambda c: (live.counts[c], c))
    journal = live.journal
    journal.mark()
    journal.pop(live.clusters, held)
    live._remodel(held)  # dropped while its decisions still count
    live._recounted = set()
    live._recount({"new-gone": 1})
    assert live._uncounted == lacking() == {held, "new-gone"}
    journal.undo()
    assert live._uncounted == lacking() == set()


def test_a_several_sets_scope_is_united_once_and_moved_by_the_clusters_put_or_dropped() -> None:
    """Several sets' members are united once and kept by the pool (`ClusterPool.united`), moved
    in place by the clusters put or dropped since (a cluster leaving or entering a set, taken out
    or put back as the journal undoes; a new epoch of the pool's log unites them again): always
    every member of any of the sets, and the same set, not united again, after a trait moved."""
    hub, _ = _hub()
    live = hub._live["ocm"]
    pool = live.pool
    traits = sorted({t for c in pool.by_name().values() for t in c.traits if t.startswith("set")})
    both = tuple(traits[:2])

    def fresh() -> set[str]:
        return set().union(*(pool.with_trait(t) for t in both))

    kept_set = live._members(both)
    first = set(kept_set)
    assert first == fresh() and live._members(both) is kept_set
    member = sorted(pool.with_trait(both[0]))[0]
    kept = pool[member]
    pool.put(replace(kept, traits=kept.traits - {both[0]}))  # out of the first set
    moved = live._members(both)
    assert moved is kept_set and moved == fresh()
    assert (member in moved) == (both[1] in kept.traits)
    pool.drop(member)
    assert member not in live._members(both) and live._members(both) == fresh()
    pool.put(kept)
    assert live._members(both) == fresh() == first
    pool.reload([with_load(kept, kept.load + 1)])  # a load alone moves no trait
    assert live._members(both) is kept_set
    pool._epoch += 1  # a new epoch of the log (as `_RELABELLED_UP_TO` begins one): united again
    again = live._members(both)
    assert again is not kept_set and again == fresh() == first


def test_a_batchs_load_copies_are_placed_by_a_kept_position_of_each_name(monkeypatch) -> None:
    """The pool's tuple with loads moved (a batch's) places each moved cluster by the position
    kept for its name (made again only once a name comes or goes), no bisection per name: after
    any puts, drops and reloads, each cluster is where name order puts it, with its load moved."""
    import adapters.live.kept as kept_module

    hub, _ = _hub()
    pool = hub._live["ocm"].pool
    names = pool.names()[:]
    bisected = []
    original = kept_module.bisect_left
    monkeypatch.setattr(kept_module, "bisect_left", lambda *a: bisected.append(a) or original(*a))
    some = names[::7]
    for step in range(4):
        loads = {name: (i % 3) + step for i, name in enumerate(some)} | {"not-held": 5}
        bisected.clear()
        out = pool.clusters(loads)
        assert bisected == []
        expected = sorted(pool.by_name().values(), key=lambda c: c.name)
        assert [c.name for c in out] == [c.name for c in expected]
        assert [c.load for c in out] == [c.load + loads.get(c.name, 0) for c in expected]
        if step == 0:
            gone = pool[names[3]]
            pool.drop(names[3])
        elif step == 1:
            pool.put(replace(gone, name="aaa-first"))
            pool.put(gone)
        elif step == 2:
            pool.reload([with_load(pool[n], 9) for n in names[::5]])
