"""A kept table's patch for a batch of the same names in the same order (solver/table.py
`_in_place`): the rows whose objects differ found a slice at a time, no other cluster read. Over
generated sequences of batches (load copies, clusters replaced, equal copies, added, gone, many
at once), each batch's rows must be what the full comparison of every row makes, and the table
what fresh clusters make."""

from __future__ import annotations

import bisect
import random
from dataclasses import replace

import numpy as np
import pytest

from adapters.live.kept import with_load
from model import Taint
from solver import table as table_module
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, pref, spread, term
from tests.fixtures.tables import SIZE, assert_same_states, table_fleet, table_state


def _next(rng: random.Random, fleet: list) -> list:
    out = list(fleet)
    kind = rng.random()
    if kind < 0.3:  # a cluster relabelled or tainted in place
        at = rng.randrange(len(out))
        c = out[at]
        out[at] = replace(
            c, labels={**c.labels, "zone": f"z{rng.randrange(6)}"}, taints=() if c.taints else (Taint("t"),)
        )
    elif kind < 0.4:  # an equal copy
        at = rng.randrange(len(out))
        out[at] = replace(out[at])
    elif kind < 0.5:  # joined (names stay sorted)
        name = f"c{rng.randrange(SIZE):04d}x{rng.random():.6f}"
        at = bisect.bisect_left([c.name for c in out], name)
        out.insert(at, cluster(name, {"zone": "z1"}))
    elif kind < 0.6:  # gone
        del out[rng.randrange(len(out))]
    elif kind < 0.7:  # one gone and one joined: the same length, names moved
        del out[rng.randrange(len(out))]
        name = f"c{rng.randrange(SIZE):04d}y"
        at = bisect.bisect_left([c.name for c in out], name)
        out.insert(at, cluster(name, {"zone": "z2"}))
    elif kind < 0.75:  # many replaced
        for at in rng.sample(range(len(out)), 40):
            out[at] = replace(out[at], labels={"zone": "z9"})
    # load copies (a batch's Placements' decisions taken off), few or thousands
    share = rng.choice((0.0, 0.01, 0.05, 0.6))
    return [with_load(c, c.load + rng.randint(1, 3)) if rng.random() < share else c for c in out]


def _table(clusters: list) -> ClusterTable:
    request = pick_n(
        2,
        required=(term({"zone": "z1"}),),
        preferences=(pref(3, {"gpu": "yes"}, sort="cpu"),),
        spread=(spread("zone"),),
    )
    return ClusterTable(batch(clusters, request))


@pytest.mark.parametrize("seed", range(8))
def test_in_place_patches_are_the_full_comparisons(seed, monkeypatch) -> None:
    rng = random.Random(seed)
    fleet = table_fleet(rng)
    batches = [fleet]
    for _ in range(25):
        fleet = _next(rng, fleet)
        batches.append(fleet)
        if rng.random() < 0.5:  # a batch of the originals again (a one-Placement batch after)
            batches.append([c for c in fleet])

    def run(in_place: bool) -> list:
        if not in_place:
            monkeypatch.setattr(table_module, "_in_place", lambda old, names, new: None)
        _Rows._last = None
        states = []
        for clusters in batches:
            states.append(table_state(_table(clusters)))
        monkeypatch.undo()
        return states

    fast, full = run(True), run(False)
    assert_same_states(fast, full)
    # and the last table is what fresh clusters make
    _Rows._last = None
    fresh = _table([replace(c) for c in batches[-1]])
    assert fresh.frame.equals(fast[-1][1])
    assert fresh.load.tolist() == fast[-1][2]


def test_a_batch_of_the_same_names_reads_no_name_but_of_the_objects_that_differ(monkeypatch) -> None:
    rng = random.Random(5)
    fleet = table_fleet(rng)
    _Rows._last = None
    _table(fleet)
    moved = [with_load(c, c.load + 1) if i % 97 == 0 else c for i, c in enumerate(fleet)]
    read: list[int] = []
    name_of = table_module._NAME
    monkeypatch.setattr(table_module, "_NAME", lambda c: read.append(1) or name_of(c))
    patched = _table(moved)
    assert not read  # no pass over every name
    assert np.array_equal(patched.load, np.array([c.load for c in moved]))
    assert _Rows._last.names is not None and _Rows._last.patched
