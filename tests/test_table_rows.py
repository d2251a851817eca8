"""The cluster table's rows kept from the last large batch (solver/table.py _Rows): a batch of the
same clusters, or of clusters that differ in a few objects, one added or one removed, makes the
very table a batch of fresh clusters makes."""

from __future__ import annotations

from dataclasses import replace

import polars as pl
import pytest

from model import Taint, parse_quantity
from solver.table import ClusterTable, _Rows
from tests.fixtures.builders import cluster
from tests.fixtures.tables import assert_same_table, loads_moved, rows_fleet, rows_table


def _fresh(clusters: list) -> ClusterTable:
    _Rows._last = None
    return rows_table([replace(c) for c in clusters])


def _quantities(**values: str) -> dict:
    return {name: parse_quantity(value) for name, value in values.items()}


def _changed(clusters: list) -> list:
    out = list(clusters)
    out[3] = replace(out[3], labels={"zone": "z1", "gpu": "yes"}, properties=_quantities(memory="1"))
    out[11] = replace(out[11], taints=())
    out[12] = replace(out[12], load=4, eligible=False, properties=_quantities(memory="2Ti"))
    out[-1] = replace(out[-1], properties={})
    return out


@pytest.mark.parametrize(
    "event",
    [
        lambda cs: cs,
        _changed,
        lambda cs: [*cs[:40], cluster("c0039x", {"zone": "z1"}, {"memory": "1Ti"}, [Taint("u")]), *cs[40:]],
        lambda cs: [*cs, cluster("c9999", {"gpu": "yes"})],
        lambda cs: [cluster("a0", {"zone": "z1"}), *cs],
        lambda cs: cs[:40] + cs[41:],
        lambda cs: cs[1:],
        lambda cs: cs[:-1],
        lambda cs: _changed(cs[:55] + cs[56:]),
        lambda cs: cs[2:],
        lambda cs: loads_moved(_changed(cs)),
        lambda cs: [
            *cs[1:40],
            cluster("c0039x", {"zone": "z2"}, {"cpu": "3"}),
            *cs[40:],
        ],  # one gone, one added
        lambda cs: _changed(
            [*cs[:7], *cs[9:200], cluster("c0199x", {"gpu": "yes"}, {}, [Taint("t")]), *cs[200:]]
        ),
    ],
)
def test_a_batch_after_another_makes_the_table_fresh_clusters_make(event) -> None:
    clusters = rows_fleet()
    kept = tuple(sorted(clusters, key=lambda c: c.name))
    _Rows._last = None
    rows_table(list(kept))
    after = sorted(event(list(kept)), key=lambda c: c.name)
    expected = _fresh(after)
    _Rows._last = None
    rows_table(list(kept))
    assert_same_table(rows_table(after), expected)
    assert not rows_table(after).eligible.flags.writeable  # shared rows are read-only


def test_rows_are_kept_through_any_number_of_loads_moved() -> None:
    """Every other cluster's load moved (150, more than the few objects patched): the columns,
    which read no load, are the very ones kept."""
    kept = tuple(sorted(rows_fleet(), key=lambda c: c.name))
    _Rows._last = None
    rows_table(list(kept))
    before = _Rows._last
    assert before is not None
    after = loads_moved(list(kept))
    assert_same_table(rows_table(after), _fresh(after))
    _Rows._last = before
    rows_table(after)
    assert _Rows._last is not before
    assert all(_Rows._last._series[name] is series for name, series in before._series.items())


def test_a_batch_after_a_cluster_gone_and_another_added_takes_the_kept_rows(monkeypatch) -> None:
    """Two cluster events between batches (one cluster gone, another added: the soak's common
    case) patch the kept rows; the rows were made afresh, every column of 10,000 clusters again."""
    import solver.table as table

    kept = tuple(sorted(rows_fleet(), key=lambda c: c.name))
    _Rows._last = None
    rows_table(list(kept))
    after = [*kept[1:40], cluster("c0039x", {"zone": "z2"}), *kept[40:]]

    sizes = []
    made = table._made

    def made_again(*_):
        raise AssertionError("the rows were made again")

    def counted(clusters, names):
        sizes.append(len(clusters))
        return made(clusters, names)

    monkeypatch.setattr(table, "_made", counted)
    monkeypatch.setattr(table._Rows, "__init__", made_again)
    assert rows_table(after).names == [c.name for c in after]
    assert sizes and max(sizes) == 1  # the added cluster's row alone


class _Unread(dict):
    def get(self, *_):
        raise AssertionError("a row looked up by name")


@pytest.mark.parametrize(
    "event",
    [
        lambda cs: [*cs[:40], cluster("c0039x", {"zone": "z1"}, {"memory": "1Ti"}, [Taint("u")]), *cs[40:]],
        lambda cs: [cluster("a0", {"zone": "z1"}), *cs],
        lambda cs: [*cs, cluster("c9999", {"gpu": "yes"})],
        lambda cs: cs[:40] + cs[41:],
        lambda cs: cs[1:],
        lambda cs: cs[:-1],
    ],
)
def test_one_cluster_joined_or_gone_slides_the_rows_either_side(event, monkeypatch) -> None:
    """A join or a leave (and loads moved, as a live scheduler's batch moves them) moves every
    row after the cluster's by one: the kept rows are taken as slices either side of it, no
    row looked up by name and no column gathered by index (over 10,000 rows, with the cluster
    and basis lists gathered, two thirds of a join's patch), and the table is the one fresh
    clusters make."""
    kept = tuple(sorted(rows_fleet(), key=lambda c: c.name))
    after = loads_moved(sorted(event(list(kept)), key=lambda c: c.name))
    expected = _fresh(after)
    _Rows._last = None
    rows_table(list(kept))
    assert _Rows._last is not None
    _Rows._last.index = _Unread(_Rows._last.index)

    def made_again(*_):
        raise AssertionError("the rows were made again")

    def gathered(*_):
        raise AssertionError("a column gathered by index")

    monkeypatch.setattr(_Rows, "__init__", made_again)
    with monkeypatch.context() as patch:
        patch.setattr(pl.Series, "gather", gathered)
        table = rows_table(after)
    assert_same_table(table, expected)


_NAMES = ["l\x00zone", "l\x00gpu", "c\x00region", "t\x00edge", "s\x00addon", "p\x00cpu", "f\x00cpu"]


def _kinds(i: int, c):
    return replace(
        c,
        claims={"region": f"r{i % 3}"},
        traits=frozenset({"edge"} if i % 4 == 0 else ()),
        scores={"addon": i % 5} if i % 2 else {},
    )


@pytest.mark.parametrize(
    ("change", "moving"),
    [
        (lambda c: replace(c, labels={**c.labels, "zone": "z9"}), {"l\x00zone"}),
        (lambda c: replace(c, labels={k: v for k, v in c.labels.items() if k != "zone"}), {"l\x00zone"}),
        (lambda c: replace(c, labels={**c.labels, "other": "x"}), set()),  # a label no column reads
        (lambda c: replace(c, labels=dict(c.labels)), set()),  # equal labels, another object
        (lambda c: replace(c, taints=(Taint("new"),)), set()),
        (lambda c: replace(c, eligible=False, leaving=True), set()),
        (
            lambda c: replace(c, properties={**c.properties, "cpu": parse_quantity("99")}),
            {"p\x00cpu", "f\x00cpu"},
        ),
        (
            lambda c: replace(c, properties={**c.properties, "cpu": parse_quantity("4000m")}),
            set(),
        ),  # 3: equal
        (lambda c: replace(c, claims={"region": "r7"}), {"c\x00region"}),
        (lambda c: replace(c, traits=frozenset()), {"t\x00edge"}),
        (lambda c: replace(c, scores={"addon": 9}), {"s\x00addon"}),
        (lambda c: replace(c, labels={"zone": "z9"}, scores={"addon": 3}), {"l\x00zone", "s\x00addon"}),
    ],
)
def test_a_cluster_made_again_moves_only_the_columns_it_changed(change, moving, monkeypatch) -> None:
    """A cluster changed in place (a relabel, a taint, ...) is made again in the columns whose
    value it changed alone: the others are the very Series kept, and every column and domain
    code is what fresh rows of the same clusters give."""
    import solver.table as table

    kept = tuple(_kinds(i, c) for i, c in enumerate(sorted(rows_fleet(), key=lambda c: c.name)))
    assert kept[4].properties["cpu"] == parse_quantity("4")
    _Rows._last = None
    rows = _Rows.of(kept)
    rows.columns(_NAMES)
    for name in _NAMES[:3]:
        rows.codes(name)
    after = (*kept[:4], change(kept[4]), *kept[5:])
    asked: list[str] = []
    made = table._made

    def counted(clusters, names):
        asked.extend(names)
        return made(clusters, names)

    monkeypatch.setattr(table, "_made", counted)
    patched = _Rows.of(after)
    assert patched is not rows and set(asked) == moving
    monkeypatch.setattr(table, "_made", made)
    _Rows._last = None
    fresh = _Rows.of(tuple(replace(c) for c in after))
    for name in _NAMES:
        assert patched._series[name].equals(fresh.columns([name])[name], check_dtypes=True), name
        assert (patched._series[name] is rows._series[name]) == (name not in moving), name
    for name in _NAMES[:3]:
        if name in patched._codes:
            got, want = patched._codes[name], fresh.codes(name)
            assert got[0].tolist() == want[0].tolist() and got[1] == want[1], name
