"""The kept rows' columns (solver/table.py _Rows) move to rows that moved (a cluster joined or
left, several did) when a batch next reads them, not at every patch: a column read after any
number of such patches, and of clusters made again between them, is what fresh rows give."""

from __future__ import annotations

from dataclasses import replace

import pytest

import solver.table as table
from model import Taint, parse_quantity
from solver.table import _Rows
from tests.fixtures.builders import cluster

SIZE = 300  # above the size from which rows are kept
_NAMES = ["l\x00zone", "l\x00gpu", "c\x00region", "t\x00edge", "s\x00addon", "p\x00cpu", "f\x00cpu"]


def _fleet() -> tuple:
    return tuple(
        replace(
            cluster(
                f"c{i:04d}",
                {"zone": f"z{i % 7}", **({"gpu": "yes"} if i % 5 == 0 else {})},
                {"cpu": str(i % 13)} if i % 3 else {},
                [Taint("t")] if i % 11 == 0 else (),
            ),
            claims={"region": f"r{i % 3}"},
            traits=frozenset({"edge"} if i % 4 == 0 else ()),
            scores={"addon": i % 5} if i % 2 else {},
        )
        for i in range(SIZE)
    )


def _relabelled(c):
    return replace(
        c,
        labels={**c.labels, "zone": "z9", "gpu": "no"},
        claims={"region": "r9"},
        properties={"cpu": parse_quantity("77")},
        scores={"addon": 8},
    )


_EVENTS = [
    lambda cs: (*cs[:40], cluster("c0039x", {"zone": "z1"}, {"cpu": "5"}), *cs[40:]),  # joined: slide
    lambda cs: (*cs[:7], _relabelled(cs[7]), *cs[8:]),  # made again in place
    lambda cs: cs[:100] + cs[101:],  # left: slide
    lambda cs: (cluster("a0", {"gpu": "yes"}), *cs[:200], *cs[202:]),  # one joined, two left: gather
    lambda cs: (*cs[:50], _relabelled(cs[50]), *cs[51:]),
    lambda cs: (*cs, cluster("c9999", {"zone": "z3"})),  # joined last
    lambda cs: cs[1:],
]


@pytest.mark.parametrize("up_to", [64, 2, 0])
def test_columns_unread_wait_for_a_read_and_then_are_what_fresh_rows_give(up_to, monkeypatch) -> None:
    """Fails where a column waiting for a read loses a patch's step (the rows made again of a
    patch after a join: `_moving` asked of the read columns alone), takes them in another order
    (a scatter before its patch's slide), or where an unread column is moved at every patch."""
    monkeypatch.setattr(table, "_LATER_UP_TO", up_to)
    slid = []
    real = table._slid_series

    def counted(series, new, at):
        slid.append(series.name)
        return real(series, new, at)

    monkeypatch.setattr(table, "_slid_series", counted)
    _Rows._last = None
    clusters = _fleet()
    rows = _Rows.of(clusters)
    rows.columns(_NAMES)
    for event in _EVENTS:
        clusters = event(clusters)
        rows = _Rows.of(clusters)
        assert rows.patched
        rows.columns(["l\x00zone"])  # a batch reading one column
    slides = 4  # the patches that slid the rows (the gather aside)
    if up_to == 64:  # every other column waits, unmoved
        assert slid == ["zone"] * slides
    else:
        assert len(slid) > slides
    got = rows.columns(_NAMES)
    if up_to == 64:
        assert len(slid) == slides * len(_NAMES)
    _Rows._last = None
    fresh = _Rows.of(tuple(replace(c) for c in clusters))
    for name in _NAMES:
        assert got[name].equals(fresh.columns([name])[name], check_dtypes=True), name
        assert got[name].name == fresh.columns([name])[name].name
