"""A request's decisions' rows kept with a long-lived scheduler's table rows (solver/prepare.py
`_kept_rows`, `_rows_across`, `_held_moved`): carried through joins, leaves and a few decisions
put in, taken off or replaced, each the row its name has, and the classification the one fresh
rows give."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from model import ExistingDecision
from solver import prepare as prepare_module
from solver.prepare import _rows_of, prepare
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import batch, cluster, pick_all
from tests.fixtures.tables import loads_moved, rows_fleet

_FIELDS = ("released", "elsewhere", "held_out")


_SHARED: dict[tuple[str, bool], ExistingDecision] = {}


def _holding(names: list[str], current: frozenset[str] = frozenset()) -> tuple[ExistingDecision, ...]:
    """The decisions on `names`, in name order, each one object per cluster and flag, as a
    long-lived scheduler shares them from request to request (`_rows_across` reads runs of the
    very objects)."""
    return tuple(
        _SHARED.setdefault((c, c in current), ExistingDecision(c, current=c in current))
        for c in sorted(names)
    )


def _classified(clusters: list, request) -> tuple:
    """The request's classification on `clusters` (its table's rows as they stand: kept or fresh)."""
    table = ClusterTable(batch(clusters, request))
    (p,) = prepare(batch(clusters, request), table)
    return (
        *(getattr(p, f) for f in _FIELDS),
        sorted(p.kept),
        p.held.tolist(),
        None if p.obsolete is None else np.flatnonzero(p.obsolete).tolist(),
        p.outcome.tolist(),
    )


def _fresh(clusters: list, request) -> tuple:
    _Rows._last = None
    try:
        return _classified(clusters, request)
    finally:
        _Rows._last = None


def test_held_rows_are_carried_through_joins_leaves_and_moved_decisions(monkeypatch) -> None:
    """Batch after batch over patched rows (a cluster joining among the held ones, a held one's
    labels replaced, decisions put in, taken off and made current, a held cluster leaving), the
    rows `_kept_rows` carries are each decision's row by its name, it carries them at every batch
    after the first kept, and every classification is the one fresh rows give. Fails where
    `_held_moved` leaves out the rows made again (a joined row keeps its placeholder's
    decision), or where `_rows_across` takes a decision put in from the rows before (both
    checked)."""
    carried: list[bool] = []
    original = prepare_module._kept_rows

    def checked(table, request):
        rows = original(table, request)
        carried.append(rows is not None)
        if rows is not None:
            expected = _rows_of(table, [d.cluster for d in request.existing])
            assert rows.tolist() == expected.tolist()
        return rows

    monkeypatch.setattr(prepare_module, "_kept_rows", checked)
    fleet = sorted(rows_fleet(), key=lambda c: c.name)
    names = [c.name for c in fleet]
    # 72 decisions, above _ROWS_FROM; the first row and the last held (a joined row's placeholder
    # gathers one of them)
    held = [names[0], *names[10:150:2], names[-1]]
    steps = []
    # 1: the rows as first made (not patched: nothing kept); 2: loads moved (patched: kept).
    steps.append((fleet, _holding(held)))
    steps.append((loads_moved(fleet), steps[-1][1]))
    # 3: a cluster joins between held ones, and the request holds it with one decision made
    # current and one taken off (its answer moved).
    joined = cluster("c0051x", {"zone": "z1"})
    clusters = sorted([*loads_moved(fleet), joined], key=lambda c: c.name)
    held3 = sorted([*held, "c0051x"])
    held3.remove("c0100")
    steps.append((clusters, _holding(held3, frozenset({"c0020"}))))
    # 4: a held cluster's labels replaced (its row made again), the same decisions.
    clusters = [replace(c, labels={"zone": "z9"}) if c.name == "c0040" else c for c in clusters]
    steps.append((clusters, steps[-1][1]))
    # 5: another joins at the front, and two decisions are put in (one of them the new row's).
    front = cluster("a0001", {"zone": "z1"})
    clusters = sorted([*clusters, front], key=lambda c: c.name)
    steps.append((clusters, _holding(["a0001", "c0011", *held3], frozenset({"c0020"}))))
    # 6: a held cluster leaves, still held (no row: the decisions sorted and judged as before).
    clusters = [c for c in clusters if c.name != "c0030"]
    steps.append((clusters, steps[-1][1]))
    # 7: its decision taken off.
    steps.append((clusters, tuple(d for d in steps[-1][1] if d.cluster != "c0030")))
    expected = [_fresh(clusters, pick_all(existing=existing)) for clusters, existing in steps]
    _Rows._last = None
    carried.clear()
    got = [_classified(clusters, pick_all(existing=existing)) for clusters, existing in steps]
    assert got == expected
    # Made fresh at the first two (none kept yet), carried at every batch after.
    assert carried[:2] == [False, False] and all(carried[2:]), carried
    _Rows._last = None


@pytest.mark.parametrize("moved", [17, 16])
def test_held_rows_are_carried_across_at_most_so_many_moved_decisions(moved) -> None:
    """Up to `_ACROSS_UP_TO` decisions put in, the rows are carried (each its name's row); past
    it, none is (read off the names). Fails where `_rows_across` carries past its bound (its
    `moves` test dropped: checked)."""
    fleet = sorted(rows_fleet(), key=lambda c: c.name)
    names = [c.name for c in fleet]
    _Rows._last = None
    ClusterTable(batch(fleet, pick_all()))  # the rows as first made: nothing kept
    request = pick_all(existing=_holding(names[0:200:2]))
    prepare(batch(fleet, request), ClusterTable(batch(loads_moved(fleet), request)))
    more = pick_all(existing=_holding([*names[0:200:2], *names[1 : 2 * moved : 2]]))
    table = ClusterTable(batch(fleet, more))
    rows = prepare_module._kept_rows(table, more)
    assert (rows is None) == (moved > prepare_module._ACROSS_UP_TO)
    if rows is not None:
        assert rows.tolist() == _rows_of(table, [d.cluster for d in more.existing]).tolist()
    _Rows._last = None
