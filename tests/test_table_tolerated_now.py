"""Taint verdicts judged at the batch's time (solver.table.ClusterTable.tolerated, tolerations
with seconds): between the verdict of the tolerations without seconds (which hold at any time)
and that of every toleration held forever (kept with the rows, for the batches after), only the
rows between them are judged at the batch's time; the same verdict as judging every tainted row."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

import solver.table
from model import Taint, Toleration, TolerationOperator
from solver.table import ClusterTable, _Rows, _tolerated
from tests.fixtures.builders import batch, cluster, pick_n
from tests.fixtures.common import counted_calls

NOW = datetime(2026, 11, 24, 3, 0, tzinfo=UTC)
_KEYS = ("unreachable", "unavailable", "gpu")
_TAINTS = st.builds(
    Taint,
    st.sampled_from(_KEYS),
    st.sampled_from(("", "yes")),
    st.sampled_from(("NoSelect", "PreferNoSelect")),
    st.one_of(st.none(), st.integers(0, 600).map(lambda s: NOW - timedelta(seconds=s))),
)
_TOLERATIONS = st.builds(
    Toleration,
    st.sampled_from(("", *_KEYS)),
    st.sampled_from(tuple(TolerationOperator)),
    st.sampled_from(("", "yes")),
    st.sampled_from(("", "NoSelect")),
    st.one_of(st.none(), st.integers(0, 600)),
)


@settings(max_examples=80, deadline=None)
@given(
    st.lists(st.lists(_TAINTS, max_size=3), min_size=1, max_size=8),
    st.lists(_TOLERATIONS, max_size=3).map(tuple),
    st.integers(0, 3),
)
def test_a_verdict_at_the_batchs_time_is_every_tainted_row_judged(taints, tolerations, later) -> None:
    clusters = [cluster(f"c{i}", taints=t) for i, t in enumerate(taints)]
    clusters += [cluster(f"z{i:03}") for i in range(256)]  # enough rows to be kept between batches
    _Rows._last = None
    b = replace(batch(clusters, pick_n(1, name="r")), now=NOW)
    for seconds in (0, 100 * later, 100 * later + 50):  # rows made, then kept and patched twice
        b = replace(b, clusters=tuple(list(b.clusters)), now=NOW + timedelta(seconds=seconds))
        table = ClusterTable(b)
        expected = _tolerated(table._clusters, table.tainted, tolerations, b.now)
        assert table.tolerated(tolerations).tolist() == expected.tolist()
    assert table._rows.patched
    _Rows._last = None


def test_on_kept_rows_only_the_rows_a_timed_toleration_decides_are_judged(monkeypatch) -> None:
    """300 tainted clusters, 3 of them tolerated only for a while, in batches a live scheduler
    makes (rows kept and patched): once both verdicts are kept with the rows, with the time each
    row's taints stay tolerated until (solver.table._end), none is judged at a later batch's time
    (before: those 3 at every batch; before that, all 300)."""
    _Rows._last = None
    old = NOW - timedelta(seconds=30)
    clusters = [cluster(f"c{i:03}", taints=(Taint("gpu", "yes", "NoSelect"),)) for i in range(297)]
    clusters += [cluster(f"u{i}", taints=(Taint("unreachable", "", "NoSelect", old),)) for i in range(3)]
    clusters += [cluster(f"z{i:03}") for i in range(50)]
    tolerations = (
        Toleration("gpu", TolerationOperator.EXISTS),
        Toleration("unreachable", TolerationOperator.EXISTS, seconds=60),
    )
    first = replace(batch(clusters, pick_n(1, name="r")), now=NOW)
    assert ClusterTable(first).tolerated(tolerations).all()  # rows made for it: judged as before
    for seconds in (10, 20):  # later batches on the kept rows (a new tuple of the same clusters)
        b = replace(first, clusters=tuple(list(first.clusters)), now=NOW + timedelta(seconds=seconds))
        assert ClusterTable(b).tolerated(tolerations).all()
    judged = counted_calls(monkeypatch, solver.table, "untolerated")
    b = replace(first, clusters=tuple(list(first.clusters)), now=NOW + timedelta(seconds=45))
    table = ClusterTable(b)
    mask = table.tolerated(tolerations)
    assert not judged
    assert mask.tolist() == _tolerated(table._clusters, table.tainted, tolerations, b.now).tolist()
    assert mask.sum() == 347  # the timed toleration has lapsed: the 3 unreachable fail
    _Rows._last = None
