"""A long-lived scheduler's batches vouched as the pool's order and its load copies
(model.vouch_loads, adapters.live.kept.ClusterPool.clusters): solver.table's patch between two
batches vouched with the same base compares no cluster field by field (`_load_alone`), and its
rows are those the full comparison makes, over generated sequences of pool changes and loads."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from adapters.live.kept import ClusterPool, with_load
from model import Batch, Taint, vouch_loads, vouched_base
from solver import table as table_module
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import cluster, pick_n, pref, spread, term
from tests.fixtures.tables import assert_same_states, table_fleet, table_state


def _vouched_table(clusters: tuple) -> ClusterTable:
    """`_table`'s request over this very tuple (the builder sorts into a new one)."""
    request = pick_n(
        2,
        required=(term({"zone": "z1"}),),
        preferences=(pref(3, {"gpu": "yes"}, sort="cpu"),),
        spread=(spread("zone"),),
    )
    return ClusterTable(Batch(clusters, (request,)))


def _loads(rng: random.Random, pool: ClusterPool, share: float) -> dict[str, int]:
    return {name: rng.randint(1, 3) for name in pool.names() if rng.random() < share}


def test_a_batch_vouched_with_the_same_base_compares_no_field(monkeypatch) -> None:
    rng = random.Random(3)
    pool = ClusterPool(table_fleet(rng))
    first = pool.clusters(_loads(rng, pool, 0.02))
    _Rows._last = None
    _Rows.of(first)
    kept = _Rows._last
    second = pool.clusters(_loads(rng, pool, 0.9))  # thousands of load copies, as a join's second take
    assert vouched_base(second) is vouched_base(first) is not None
    asked: list[int] = []
    alone = table_module._load_alone
    monkeypatch.setattr(table_module, "_load_alone", lambda a, b: asked.append(1) or alone(a, b))
    _Rows._last = kept
    patched = _Rows.of(second)
    assert not asked
    assert patched.patched and patched.load.tolist() == [c.load for c in second]
    # a tuple vouched with another base is compared as before
    pool.put(replace(pool[pool.names()[5]], labels={"zone": "z9"}))
    _Rows._last = patched
    _Rows.of(pool.clusters(_loads(rng, pool, 0.9)))
    assert asked


def test_vouch_loads_keeps_the_last_few_tuples() -> None:
    base = tuple(cluster(f"c{i}") for i in range(3))
    tuples = [tuple(with_load(c, k + 1) for c in base) for k in range(6)]
    for t in tuples:
        vouch_loads(t, base)
    assert vouched_base(tuples[-1]) is base and vouched_base(tuples[-4]) is base
    assert vouched_base(tuples[0]) is None
    assert vouched_base(base) is None or vouched_base(base) is base


@pytest.mark.parametrize("seed", range(6))
def test_vouched_patches_are_the_full_comparisons(seed, monkeypatch) -> None:
    rng = random.Random(seed)
    fleet = table_fleet(rng)
    steps = []
    for _ in range(20):
        kind = rng.random()
        if kind < 0.25:
            steps.append(("relabel", rng.randrange(len(fleet)), f"z{rng.randrange(6)}"))
        elif kind < 0.4:
            steps.append(("join", f"c{rng.randrange(len(fleet)):04d}x{rng.random():.5f}"))
        elif kind < 0.55:
            steps.append(("leave", rng.randrange(len(fleet) - 20)))
        elif kind < 0.65:
            steps.append(("taint", rng.randrange(len(fleet))))
        else:
            steps.append(("none",))
        # each step: two batches (a cluster event's two takes), loads few or thousands
        steps.append(("batch", rng.choice((0.0, 0.01, 0.3, 0.9)), rng.random()))
        steps.append(("batch", rng.choice((0.0, 0.01, 0.3, 0.9)), rng.random()))

    def run(vouched: bool) -> list:
        if not vouched:
            monkeypatch.setattr(table_module, "vouched_base", lambda clusters: None)
        pool = ClusterPool(fleet)
        _Rows._last = None
        states = []
        for step in steps:
            if step[0] == "relabel":
                c = pool[pool.names()[step[1] % len(pool)]]
                pool.put(replace(c, labels={**c.labels, "zone": step[2]}))
            elif step[0] == "join":
                pool.put(cluster(step[1], {"zone": "z1"}))
            elif step[0] == "leave":
                pool.drop(pool.names()[step[1] % len(pool)])
            elif step[0] == "taint":
                c = pool[pool.names()[step[1] % len(pool)]]
                pool.put(replace(c, taints=() if c.taints else (Taint("t"),)))
            elif step[0] == "batch":
                share, draw = step[1], random.Random(step[2])
                loads = {n: draw.randint(1, 3) for n in pool.names() if draw.random() < share}
                clusters = pool.clusters(loads)
                states.append(table_state(_vouched_table(clusters)))
        monkeypatch.undo()
        return states

    fast, full = run(True), run(False)
    assert_same_states(fast, full)


@pytest.mark.parametrize("join", [True, False])
def test_a_join_or_leave_slides_the_rows_without_reading_the_names(join, monkeypatch) -> None:
    rng = random.Random(7)
    pool = ClusterPool(table_fleet(rng))
    _Rows._last = None
    _vouched_table(pool.clusters(_loads(rng, pool, 0.3)))  # the last event's final batch
    if join:
        pool.put(cluster("c0100x", {"zone": "z1"}))
    else:
        pool.drop(pool.names()[100])
    clusters = pool.clusters(_loads(rng, pool, 0.01))  # the event's first batch
    read: list[int] = []
    name_of = table_module._NAME
    monkeypatch.setattr(table_module, "_NAME", lambda c: read.append(1) or name_of(c))
    table = _vouched_table(clusters)
    assert not read  # the names slid off the kept ones, not read off every cluster
    names = [c.name for c in clusters]
    assert table.names == names and table.index == {name: i for i, name in enumerate(names)}
    assert table.load.tolist() == [c.load for c in clusters]
    # two names moved since the kept rows' base: read and compared as before
    pool.put(cluster("c0200x", {"zone": "z2"}))
    pool.drop(pool.names()[300])
    _vouched_table(pool.clusters())
    assert read
