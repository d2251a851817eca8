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
