"""Batch's external-affinity check reads the fleet's score magnitudes kept between batches
(model.types._Magnitudes): moved through the clusters that differ from the last batch's, they
must be what a pass over every cluster finds, batch after batch."""

from __future__ import annotations

import random
from dataclasses import replace
from types import MappingProxyType

import pytest

from model import Batch, Cluster, PlacementRequest, Preference, SelectionMode
from model.types import INT32_MAX, MAX_AFFINITY, _Magnitudes

NAMES = ("x", "y", "z")


def _scores(rng: random.Random) -> dict[str, int]:
    return {name: rng.randint(-9, 9) * rng.choice((1, 1, 1, 1000)) for name in NAMES if rng.random() < 0.6}


def _fleets(seed: int, steps: int = 120) -> list[list[Cluster]]:
    """Batches' clusters as a long-lived scheduler's follow each other: load copies sharing the
    mappings, clusters joined, gone and replaced (one or a few at a time, some many), a mapping
    shared by two clusters, an equal mapping made again."""
    rng = random.Random(seed)
    fleet = [Cluster(f"c{i:04d}", scores=_scores(rng)) for i in range(rng.randint(0, 300))]
    out = [fleet]
    for _ in range(steps):
        fleet = list(fleet)
        kind = rng.random()
        if kind < 0.25 and fleet:  # a cluster gone: often the one holding a highest
            top = max(fleet, key=lambda c: max(map(abs, c.scores.values()), default=0))
            del fleet[fleet.index(top) if rng.random() < 0.5 else rng.randrange(len(fleet))]
        elif kind < 0.5:  # joined, at times with its neighbour's very mapping
            at = rng.randint(0, len(fleet))
            scores = fleet[at - 1].scores if at and rng.random() < 0.5 else _scores(rng)
            fleet.insert(at, Cluster(f"n{rng.random()}", scores=scores))
        elif kind < 0.7 and fleet:  # replaced: new scores, an equal copy, or another's very mapping
            at = rng.randrange(len(fleet))
            pick = rng.random()
            scores = (
                _scores(rng)
                if pick < 0.5
                else dict(fleet[at].scores)
                if pick < 0.75
                else fleet[rng.randrange(len(fleet))].scores
            )
            fleet[at] = Cluster(fleet[at].name, scores=MappingProxyType(scores) if pick < 0.1 else scores)
        elif kind < 0.8:  # many at once
            for at in rng.sample(range(len(fleet)), min(len(fleet), rng.randint(0, 150))):
                fleet[at] = Cluster(fleet[at].name, scores=_scores(rng))
        # else: the same clusters (the load copies below)
        out.append(
            [Cluster(c.name, load=c.load + 1, scores=c.scores) if rng.random() < 0.3 else c for c in fleet]
        )
        fleet = out[-1]
    return out


def _brute(clusters: list[Cluster], name: str | None) -> int:
    if name is None:
        return max((abs(v) for c in clusters for v in c.scores.values()), default=0)
    return max((abs(c.scores.get(name, 0)) for c in clusters), default=0)


@pytest.mark.parametrize("seed", range(12))
def test_kept_magnitudes_are_every_clusters(seed) -> None:
    rng = random.Random(seed)
    for clusters in _fleets(seed):
        with _Magnitudes.lock:
            magnitudes = _Magnitudes.of(tuple(clusters))
            assert magnitudes.ceiling == _brute(clusters, None)
            for name in rng.sample(NAMES, rng.randint(0, len(NAMES))):
                assert magnitudes.highest(name) == _brute(clusters, name), name


def _request(key: str, weights: dict[str, int]) -> PlacementRequest:
    prefs = tuple(Preference(weight=w, external=name) for name, w in weights.items())
    return PlacementRequest(key, mode=SelectionMode.N, count=1, preferences=prefs)


@pytest.mark.parametrize("seed", range(6))
def test_the_check_refuses_as_a_fresh_pass_would(seed) -> None:
    """Each batch's verdict (refused or not) is the one the fleet's own magnitudes give."""
    rng = random.Random(100 + seed)
    for clusters in _fleets(100 + seed, steps=60):
        weights = {name: rng.randint(1, 3) for name in rng.sample(NAMES, rng.randint(1, 3))}
        highest = {name: _brute(clusters, name) for name in weights}
        most = sum(w * highest[name] for name, w in weights.items())
        # A weight scaled so the request sits just at, or just past, MAX_AFFINITY.
        if most:
            scale = MAX_AFFINITY // most + rng.choice((0, 1))
            weights = {name: min(w * scale, INT32_MAX) for name, w in weights.items()}
        refused = sum(w * highest[name] for name, w in weights.items()) > MAX_AFFINITY
        batch = (tuple(clusters), (_request("r", weights),))
        if refused:
            with pytest.raises(ValueError, match="preferences can give a cluster"):
                Batch(*batch)
        else:
            Batch(*batch)


def test_a_forked_child_starts_with_its_own_lock_and_no_state() -> None:
    """A thread of the parent may hold the lock (or be moving the state) when a worker forks."""
    import os

    Batch((Cluster("a", scores={"x": 1}),), (_request("r", {"x": 1}),))
    with _Magnitudes.lock:
        pid = os.fork()
        if pid == 0:  # the child: no polars, nothing but the lock and the state
            ok = _Magnitudes.lock.acquire(timeout=2) and _Magnitudes._last is None
            os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    assert _Magnitudes._last is not None


@pytest.mark.parametrize("seed", range(8))
def test_a_pools_vouched_tuples_give_every_clusters_magnitudes(seed) -> None:
    """A long-lived scheduler's pool vouches for the tuples it gives (model.vouch_scores): a
    tuple of the same order, some clusters copied with another load, reads no cluster where the
    last batch's magnitudes were found for its token, and every put, drop and reload gives a new
    one. Batch after batch, each pool's tuple (a second pool's between) has the magnitudes a pass
    over every cluster finds."""
    from adapters.live.kept import ClusterPool, with_load

    rng = random.Random(seed)
    pools = [ClusterPool(Cluster(f"c{i:03d}", scores=_scores(rng)) for i in range(rng.randint(1, 80)))]
    pools.append(ClusterPool(Cluster(f"d{i:03d}", scores=_scores(rng)) for i in range(5)))
    for _ in range(150):
        pool = pools[0] if rng.random() < 0.85 else pools[1]
        names = [c.name for c in pool.clusters()]
        kind = rng.random()
        if kind < 0.15:
            pool.put(Cluster(rng.choice(names), scores=_scores(rng)))  # replaced (relabelled)
        elif kind < 0.25:
            pool.put(Cluster(f"n{rng.random()}", scores=_scores(rng)))  # joined
        elif kind < 0.32 and len(names) > 1:
            pool.drop(rng.choice(names))
        elif kind < 0.4:
            by_name = pool.by_name()
            moved = rng.sample(names, min(3, len(names)))
            pool.reload([with_load(by_name[n], rng.randint(0, 5)) for n in moved])
        loads = {n: rng.randint(-1, 2) for n in rng.sample(names, min(len(names), rng.randint(0, 6)))}
        clusters = pool.clusters(loads)
        with _Magnitudes.lock:
            magnitudes = _Magnitudes.of(clusters)
            assert magnitudes.ceiling == _brute(list(clusters), None)
            for name in NAMES:
                assert magnitudes.highest(name) == _brute(list(clusters), name), name


def _pool_read_once(monkeypatch):
    """A pool of 50 clusters (scores x = 0..49) whose first batch's magnitudes were read, and the
    clusters read so far (every score read from here on is logged there)."""
    import model.types as model_types
    from adapters.live.kept import ClusterPool

    pool = ClusterPool(Cluster(f"c{i}", scores={"x": i}) for i in range(50))
    read: list[Cluster] = []
    monkeypatch.setattr(model_types, "_SCORES", lambda c: read.append(c) or c.scores)
    with _Magnitudes.lock:
        assert _Magnitudes.of(pool.clusters({"c3": 1})).ceiling == 49
        assert len(read) == 50
    return pool, read


def test_a_tuple_vouched_with_the_last_token_reads_no_cluster(monkeypatch) -> None:
    """The second batch of an event (the pool unchanged, other loads moved) finds its magnitudes
    without reading a cluster's scores; one after a put or a drop moves them through the pool's
    logged changes, reading no cluster either (a cluster event's first batch); one after another
    pool's batch reads them all again."""
    from adapters.live.kept import ClusterPool

    pool, read = _pool_read_once(monkeypatch)
    with _Magnitudes.lock:
        assert _Magnitudes.of(pool.clusters({"c4": 2})).ceiling == 49
        assert _Magnitudes.of(pool.clusters()).ceiling == 49
        assert len(read) == 50
    pool.put(Cluster("c7", scores={"x": -70}))
    with _Magnitudes.lock:
        assert _Magnitudes.of(pool.clusters({"c4": 2})).ceiling == 70
        assert len(read) == 50
    pool.drop("c7")
    pool.put(Cluster("c7a", scores={"x": 60}))
    pool.put(Cluster("c0", scores={"y": 61}))
    with _Magnitudes.lock:
        clusters = pool.clusters({"c4": 2})
        magnitudes = _Magnitudes.of(clusters)
        assert (magnitudes.ceiling, magnitudes.highest("x"), magnitudes.highest("y")) == (61, 60, 61)
        assert len(read) == 50
        assert magnitudes.scores == [c.scores for c in clusters]
    other = ClusterPool([Cluster("d", scores={"x": 1})])
    with _Magnitudes.lock:
        assert _Magnitudes.of(other.clusters()).ceiling == 1
        assert _Magnitudes.of(pool.clusters({"c4": 1})).ceiling == 61
        assert len(read) == 50 + 1 + 50


def test_a_reload_of_load_copies_keeps_the_token_and_one_of_other_scores_does_not(monkeypatch) -> None:
    """A reload replaces clusters by load copies sharing their score mappings: the order's
    mappings are those vouched before, so the next batch (an event's second take, after the
    first's write-back) reads no cluster. A reloaded entry with another mapping gives a new token:
    its magnitudes are read again."""
    from adapters.live.kept import with_load

    pool, read = _pool_read_once(monkeypatch)
    pool.reload([with_load(pool["c5"], 7), with_load(pool["c49"], 2)])
    with _Magnitudes.lock:
        assert _Magnitudes.of(pool.clusters({"c4": 2})).ceiling == 49
        assert len(read) == 50
    pool.reload([replace(pool["c49"], scores={"x": 3})])
    with _Magnitudes.lock:
        assert _Magnitudes.of(pool.clusters({"c4": 2})).ceiling == 48
        assert len(read) == 100
