"""A small batch on a big hub (issue 21: an OCM Placement event solves one Placement over 10,000
clusters): what the cluster table keeps between batches is exactly what a fresh table makes, and
what the model checks of every batch is what it checked before."""

from __future__ import annotations

from dataclasses import fields, replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from adapters.live.kept import with_load
from model import Cluster, Toleration
from solver.table import ClusterTable, _load_alone, _Rows
from tests.fixtures.builders import batch, cluster, pick_n, taint, term, tol
from tests.fixtures.common import counted_calls

SIZE = 300  # above the size from which rows are kept
NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)


def _fleet() -> tuple[Cluster, ...]:
    clusters = [
        cluster(
            f"c{i:04d}",
            {"zone": f"z{i % 7}"},
            taints=[taint("t", str(i % 2))] if i % 5 == 0 else [taint("u")] if i % 7 == 0 else [],
        )
        for i in range(SIZE)
    ]
    return tuple(sorted(clusters, key=lambda c: c.name))


def _table(clusters, tolerations: tuple[Toleration, ...] = ()) -> ClusterTable:
    request = pick_n(2, required=(term({"zone": "z1"}),), tolerations=tolerations)
    b = batch(clusters, request)
    return ClusterTable(replace(b, now=NOW))


def _fresh(clusters, tolerations: tuple[Toleration, ...] = ()) -> ClusterTable:
    _Rows._last = None
    return _table([replace(c) for c in clusters], tolerations)


def _another(value):
    """Another object than `value` (an equal one where it can be)."""
    if isinstance(value, bool):
        return not value
    if value is None:
        return object()
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, dict):
        return dict(value)
    return type(value)(list(value))


@pytest.mark.parametrize("field", [f.name for f in fields(Cluster) if f.name != "load"])
def test_a_cluster_is_load_alone_only_while_every_other_field_is_the_same_object(field) -> None:
    c = Cluster(
        "alpha",
        {"zone": "z1"},
        taints=(taint("t"),),
        ineligible_reason="r",
        claims={"k": "v"},
        traits=frozenset({"s"}),
        scores={"x": 1},
    )
    assert _load_alone(c, with_load(c, 3))
    other = with_load(c, 3)
    object.__setattr__(other, field, _another(getattr(c, field)))
    assert not _load_alone(c, other)


EVENTS = {
    "same clusters": lambda cs: list(cs),
    "loads moved": lambda cs: [with_load(c, c.load + 1) if i % 2 else c for i, c in enumerate(cs)],
    "a taint gone, one added": lambda cs: [
        replace(c, taints=()) if i == 5 else replace(c, taints=(taint("t", "1"),)) if i == 6 else c
        for i, c in enumerate(cs)
    ],
    "one cluster gone, one joined tainted": lambda cs: [
        *cs[1:40],
        cluster("c0039x", taints=[taint("t", "0")]),
        *cs[40:],
    ],
}


@pytest.mark.parametrize("event", list(EVENTS))
@pytest.mark.parametrize("tolerations", [(), (tol("t", "1"),), (tol(exists=True, key="u"),)])
def test_kept_taint_verdicts_are_those_a_fresh_table_makes(event, tolerations) -> None:
    kept = _fleet()
    _Rows._last = None
    before = _table(kept).tolerated(tolerations)  # judged once on the kept rows
    after = sorted(EVENTS[event](kept), key=lambda c: c.name)
    patched = _table(after).tolerated(tolerations)
    assert np.array_equal(patched, _fresh(after).tolerated(tolerations))
    assert not patched.flags.writeable
    if event in ("same clusters", "loads moved"):
        assert patched is before or np.array_equal(patched, before)


def test_taint_verdicts_kept_between_batches_are_not_judged_again(monkeypatch) -> None:
    import solver.table as table

    kept = _fleet()
    _Rows._last = None
    _table(kept).tolerated((tol("t", "1"),))
    loaded = [with_load(c, c.load + 2) for c in kept]

    def judged(*_args, **_kw):
        raise AssertionError("a kept row's taints were judged again")

    monkeypatch.setattr(table, "untolerated", judged)
    assert _table(loaded).tolerated((tol("t", "1"),)).sum() == SIZE - sum(
        1 for c in kept if c.taints and c.taints[0] != taint("t", "1")
    )


def test_tolerations_with_seconds_are_judged_at_each_batchs_time() -> None:
    """A toleration with seconds holds until the taint's age passes them: two batches of the same
    clusters at two times judge it at each (nothing kept across them)."""
    added = NOW - timedelta(seconds=30)
    clusters = [replace(c, taints=(replace(taint("t"), added=added),)) for c in _fleet()]
    timed = (Toleration(key="t", seconds=60),)
    _Rows._last = None
    request = pick_n(1, tolerations=timed)
    early = ClusterTable(replace(batch(clusters, request), now=NOW))
    late = ClusterTable(replace(batch(clusters, request), now=NOW + timedelta(seconds=60)))
    assert early.tolerated(timed).all()
    assert not late.tolerated(timed).any()


@pytest.mark.parametrize("proxy", [False, True])
@pytest.mark.parametrize("sign", [1, -1])
def test_the_external_affinity_check_reads_each_names_highest_magnitude_over_the_fleet(sign, proxy) -> None:
    """A request's most affinity is its weights times the fleet's highest magnitude of each score
    it names (clusters lacking a score count 0; scores as any Mapping)."""
    from types import MappingProxyType

    from model import Batch, Preference
    from model.types import MAX_AFFINITY

    wrap = MappingProxyType if proxy else dict
    top = MAX_AFFINITY // 3
    clusters = (
        Cluster("a", scores=wrap({"x": sign * 5})),
        Cluster("b"),
        Cluster("c", scores=wrap({"x": sign * top, "y": 7})),
    )
    fits = pick_n(1, preferences=(Preference(weight=3, external="x"),))
    Batch(clusters, (fits,))
    over = pick_n(1, preferences=(Preference(weight=3, external="x"), Preference(weight=1, external="y")))
    with pytest.raises(ValueError, match="preferences can give a cluster"):
        Batch(clusters, (over,))
    Batch(clusters[:2], (over,))


def _counting(monkeypatch) -> list[tuple]:
    import solver.table as table

    return counted_calls(monkeypatch, table, "_load_alone")


def test_a_batch_holding_the_originals_after_one_of_copies_asks_nothing_of_them(monkeypatch) -> None:
    """A long-lived scheduler's big batch takes its Placements' decisions off thousands of
    clusters (copies with another load); the small batch after it holds the originals again:
    their rows are known to be the originals' without comparing them field by field."""
    originals = _fleet()
    copies = [with_load(c, c.load + 1) if i % 3 else c for i, c in enumerate(originals)]
    _Rows._last = None
    _table(originals)
    _table(copies)
    asked = _counting(monkeypatch)
    again = _table(originals)
    assert asked == []
    assert np.array_equal(again.load, _fresh(originals).load)
    assert again.frame.equals(_fresh(originals).frame)


@pytest.mark.parametrize("back", ["the copies", "the originals"])
def test_a_cluster_replaced_after_a_batch_of_copies_is_made_again(back) -> None:
    """The row's two objects (the last and the one before, the same but for the load) are the
    only ones taken as its own: another object of the cluster, even one equal to what it was,
    makes its row again."""
    originals = _fleet()
    copies = [with_load(c, c.load + 1) for c in originals]
    changed = list(originals)
    changed[5] = replace(changed[5], labels={"zone": "z1"}, taints=())
    _Rows._last = None
    _table(originals)
    _table(copies)
    _same_rows(_table(changed), _fresh(changed))
    later = copies if back == "the copies" else originals
    _same_rows(_table(later), _fresh(later))


def _same_rows(a: ClusterTable, b: ClusterTable) -> None:
    assert a.names == b.names and a.tainted == b.tainted
    for field in ("eligible", "leaving", "load"):
        assert np.array_equal(getattr(a, field), getattr(b, field))
    assert a.frame.equals(b.frame)
    assert np.array_equal(a.tolerated((tol("t", "1"),)), b.tolerated((tol("t", "1"),)))


def test_a_batchs_masks_and_scores_in_one_pass_are_each_kinds_own() -> None:
    from tests.fixtures.builders import pref

    clusters = [
        replace(c, traits=frozenset({f"set{i % 3}"}), scores={"x": i % 11}) for i, c in enumerate(_fleet())
    ]
    requests = [
        pick_n(1, name="a", required=(term({"zone": "z1"}),), preferences=(pref(3, {"zone": "z2"}),)),
        replace(
            pick_n(2, name="b", required=(term({"zone": "z3"}), term({"zone": "z4"}))),
            scope=("set1",),
            preferences=(pref(2, sort="cpu"),),
        ),
        replace(pick_n(1, name="c"), scope=("set0", "set2")),
    ]
    table = ClusterTable(batch(clusters, *requests))
    terms = [r.required for r in requests]
    prefs = [r.preferences for r in requests]
    scopes = [r.scope for r in requests if r.scope is not None]
    required, scored, scoped = table.batch_masks(terms, prefs, scopes)
    for got, expected in (
        (required, table.required_masks(terms)),
        (scored, table.affinity_scores(prefs)),
        (scoped, table.scope_masks(scopes)),
    ):
        assert got.keys() == expected.keys() and len(got) > 1
        for key in got:
            assert got[key].dtype == expected[key].dtype and np.array_equal(got[key], expected[key])
    assert table.batch_masks([()], [()], []) == ({}, {}, {})
