"""A batch's loads carried beside its clusters (model.Loads, Batch.loads): a long-lived
scheduler's pool gives its shared tuple and the moved loads (adapters.live.kept.ClusterPool.loaded)
instead of a copy of each moved cluster, and every reader of a batch's loads (Batch.cluster_loads,
solver.table's load column, the checker, explain, tenancy) reads the same loads as the batch of
copies, so the solver answers the same."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from adapters.kube.manifests import from_objects
from adapters.live.kept import ClusterPool
from adapters.ocm.reach import OcmLive
from model import Batch, Loads, Preference, Tenancy
from solver import SolveOptions, check, solve
from solver.explain import explain
from solver.table import ClusterTable, _Rows
from tests.fixtures import ocm
from tests.fixtures.builders import cluster, pick_n, pref, spread
from tests.fixtures.tables import table_fleet


def _loads(rng: random.Random, pool: ClusterPool, share: float) -> dict[str, int]:
    out = {name: rng.randint(-1, 3) for name in pool.names() if rng.random() < share}
    out |= {"not-held": 2}  # a name the pool does not hold moves nothing
    return {
        name: max(delta, -pool[name].load) if name in pool.names() else delta for name, delta in out.items()
    }


def _requests() -> tuple:
    balance = Preference(2, balance=True)
    return (
        pick_n(3, name="a", preferences=(balance, pref(1, {"gpu": "yes"})), spread=(spread("zone"),)),
        pick_n(2, name="b", preferences=(balance,)),
    )


@pytest.mark.parametrize("seed", range(4))
def test_a_pools_loaded_batch_reads_the_loads_of_its_copies(seed) -> None:
    """Over generated pool changes (loads reloaded, clusters joining and leaving: the positions
    shifted), `loaded` gives `clusters()`'s very tuple and the loads `clusters(loads)` copies in;
    the two batches' loads, tables and answers are the same."""
    rng = random.Random(seed)
    fleet = [replace(c, load=rng.randrange(3)) for c in table_fleet(rng)]
    pool = ClusterPool(fleet)
    for step in range(12):
        kind = rng.random()
        if kind < 0.3:
            pool.put(cluster(f"c{rng.randrange(700):04d}x{step}", {"zone": "z1"}))
        elif kind < 0.5:
            pool.drop(rng.choice(pool.names()))
        elif kind < 0.7:
            pool.reload([replace(pool[n], load=rng.randrange(4)) for n in rng.sample(pool.names(), 30)])
        elif kind < 0.85:  # a cluster changed in place, its load too
            pool.put(
                replace(pool[rng.choice(pool.names())], load=rng.randrange(4) + 4, labels={"zone": "z2"})
            )
        loads = _loads(rng, pool, rng.choice((0.0, 0.01, 0.5)))
        base, moved = pool.loaded(loads)
        assert base is pool.clusters()
        copies = pool.clusters(loads)
        assert [c.name for c in copies] == [c.name for c in base]
        overlaid = Batch(base, _requests(), loads=moved)
        copied = Batch(copies, _requests())
        assert overlaid.cluster_loads() == [c.load for c in copies]
        assert (moved is None) == (overlaid.cluster_loads() == [c.load for c in base])
        _Rows._last = None
        assert ClusterTable(overlaid).load.tolist() == ClusterTable(copied).load.tolist()
        assert ClusterTable(copied).load.tolist() == ClusterTable(overlaid).load.tolist()  # rows kept
        if step % 4 == 3:
            for mode in ("greedy", "optimal"):
                got = solve(overlaid, SolveOptions(mode=mode))
                want = solve(copied, SolveOptions(mode=mode))
                assert got.requests == want.requests


@pytest.mark.parametrize("few", [False, True])
def test_a_pools_loaded_positions_are_moved_by_the_names_come_or_gone(monkeypatch, few) -> None:
    """After names come or go (at the ends and between, one gone and come again, an undo), `loaded`
    moves its kept positions by them instead of making every name's position again (made again
    only past `_SHIFTS_UP_TO`): each answer equals a fresh pool's of the same clusters, and the
    only names found again (`missed`) are those not held when the positions were made or gone
    since (come since, gone, gone and come again, never held). A few loads (`_FEW_LOADS`) are
    each bisected instead: the same answers. Fails where a name gone moves no position after it,
    or where a name gone since is taken at its moved position (`_gone`)."""
    from adapters.live import kept
    from adapters.live.kept import Journal

    monkeypatch.setattr(kept, "_FEW_LOADS", 1000 if few else 0)

    journal = Journal()
    pool = ClusterPool([replace(cluster(f"c{i:03d}"), load=i % 4) for i in range(2, 80, 2)], journal=journal)
    pool.loaded({name: 1 for name in pool.names()})
    made, stable = pool._position, set(pool.names())
    assert made is not None and pool._shifts == []

    def put(name: str, load: int) -> None:
        pool.put(replace(cluster(name), load=load))

    changes = [
        ("c002", lambda: pool.drop("c002")),  # the first: every other one back
        ("c001", lambda: put("c001", 1)),  # before every other
        ("c999", lambda: put("c999", 2)),  # after every other
        ("c040", lambda: pool.drop("c040")),  # between
        ("c041", lambda: put("c041", 3)),
        ("c078", lambda: pool.drop("c078")),  # the last
        ("c020", lambda: pool.drop("c020")),  # gone and come again: its kept position not its own
        ("c020", lambda: put("c020", 1)),
        ("", journal.undo),  # the eight undone: eight more come or gone
    ]
    journal.mark()
    for name, change in changes:
        change()
        stable.discard(name)
        every = {f"c{i:03d}": i % 3 + 1 for i in range(100)} | {"c999": 1, "gone": 9}
        for loads in (every, {"c004": 1, "c074": -1, "c041": 2}):
            missed = pool.missed
            got = pool.loaded(loads)
            assert got == ClusterPool(list(pool.by_name().values())).loaded(loads)
            assert pool._position is made  # moved, not made again
            assert pool.missed - missed == (0 if few else sum(1 for name in loads if name not in stable))
    assert len(pool._shifts) == 16
    for i in range(kept._SHIFTS_UP_TO):
        put(f"d{i:03d}", 0)
    assert pool._shifts is None
    got = pool.loaded({"c004": 2})
    assert pool._position is not made and pool._shifts == []  # past `_SHIFTS_UP_TO`: made again
    assert got == ClusterPool(list(pool.by_name().values())).loaded({"c004": 2})


def test_tenancy_reads_a_batchs_loads() -> None:
    """A tenancy batch's solve, check and explanation count the batch's loads, not its clusters'."""
    clusters = tuple(cluster(f"c{i}", {"zone": "z1"}) for i in range(4))
    requests = tuple(
        pick_n(1, name=f"t{k}", tenancy=Tenancy(order=k, limit=2, balance=True)) for k in range(3)
    )
    copied = Batch(
        tuple(replace(c, load=load) for c, load in zip(clusters, (2, 0, 1, 2), strict=True)), requests
    )
    overlaid = Batch(clusters, requests, loads=Loads((0, 2, 3), (2, 1, 2)))
    assert overlaid.cluster_loads() == [2, 0, 1, 2]
    for mode in ("greedy", "optimal"):
        got, want = solve(overlaid, SolveOptions(mode=mode)), solve(copied, SolveOptions(mode=mode))
        assert got.requests == want.requests
        assert check(overlaid, got) == check(copied, want)
        assert [explain(overlaid, got, r.key) for r in requests] == [
            explain(copied, want, r.key) for r in requests
        ]
    # without the loads the batch is another one: its answer crowds the loaded clusters
    unloaded = solve(Batch(clusters, requests), SolveOptions(mode="greedy"))
    assert unloaded.requests != solve(copied, SolveOptions(mode="greedy")).requests
    assert check(overlaid, unloaded) == check(copied, unloaded) != []


def test_loads_are_checked() -> None:
    clusters = (cluster("a"), cluster("b"))
    with pytest.raises(ValueError, match="positions"):
        Loads((1, 0), (1, 1))
    with pytest.raises(ValueError, match="values"):
        Loads((0,), ())
    with pytest.raises(ValueError, match="between 0"):
        Loads((0,), (-1,))
    with pytest.raises(ValueError, match="position 2"):
        Batch(clusters, (), loads=Loads((2,), (1,)))
    assert Batch(clusters, (), loads=Loads((1,), (4,))).cluster_loads() == [0, 4]


def test_an_ocm_take_shares_the_pools_tuple() -> None:
    """OCM's take gives the pool's very tuple and the loads its Placements' decisions leave
    (each cluster's count less those of the batch's Placements): no cluster is copied."""
    balance = [ocm.builtin("Balance")]
    objects = [
        *ocm.hub(*(ocm.managed_cluster(f"c{i}") for i in range(10))),
        ocm.placement("a", n=1, mode="Exact", prioritizers=balance),
        ocm.placement("b", n=1, mode="Exact", prioritizers=balance),
        ocm.decision("a", 1, ["c3"]),
        ocm.decision("b", 1, ["c1"]),
    ]
    live = OcmLive(from_objects(objects, "<hub>"), now=ocm.NOW_TIME, seed=0)
    a = f"{ocm.NS}/a"
    batch = live._taken({a}, ocm.NOW_TIME).batch
    assert batch.clusters is live.pool.clusters()
    assert batch.loads == Loads((3,), (0,))
    assert batch.cluster_loads() == [0, 1, 0, 0, 0, 0, 0, 0, 0, 0]
