"""Filter verdicts kept with a long-lived scheduler's table rows (solver/prepare.py _kept_verdict):
a lineage of batches, each after a cluster event (tainted, untainted, made ineligible, relabelled,
traits changed, gone, joined), some at a later time (a toleration that holds for a while), reads
the verdicts a batch of fresh clusters reads; one whose rows did not move judges none again."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

import solver.prepare as P
import solver.table as T
from model import Taint, Toleration, TolerationOperator
from solver.prepare import prepare
from solver.table import ClusterTable, _Rows, rule_masks
from tests.fixtures.builders import batch, cluster, pick_n, req, term, tol
from tests.fixtures.common import counted_calls

SIZE = 300  # above the size from which rows are kept
NOW = datetime(2026, 11, 24, 3, tzinfo=UTC)


def _cluster(i: int) -> object:
    taints = (Taint("gpu", "yes", added=NOW - timedelta(seconds=i % 90)),) if i % 7 == 0 else ()
    made = cluster(
        f"c{i:04d}", {"zone": f"z{i % 6}", "tier": f"t{i % 3}"}, taints=taints, eligible=i % 11 != 0
    )
    return replace(made, traits=frozenset({f"x{i % 3}"} if i % 2 else ()))


TIMED = Toleration("gpu", TolerationOperator.EQUAL, "yes", "", seconds=60)
REQUESTS = [
    pick_n(1, "a", required=(term({"zone": "z1"}),)),
    pick_n(1, "b", required=(term(None, req("tier", "NotIn", "t0")),), tolerations=(tol("gpu", "yes"),)),
    pick_n(1, "c", scope=("x1", "x2"), tolerations=(TIMED,)),
    pick_n(1, "d", scope=("x0",), required=(term({"tier": "t1"}),), tolerations=(TIMED,)),
    pick_n(1, "e"),
]


def _changed(clusters: list, step: int) -> list:
    out = list(clusters)
    at = (step * 37) % len(out)
    old = out[at]
    kind = step % 7
    if kind == 0:
        out[at] = replace(old, taints=(Taint("gpu", "yes", added=NOW),))
    elif kind == 1:
        out[at] = replace(old, taints=())
    elif kind == 2:
        out[at] = replace(old, eligible=not old.eligible)
    elif kind == 3:
        out[at] = replace(old, labels={"zone": "z1", "tier": "t1"}, traits=frozenset({"x0"}))
    elif kind == 4:
        del out[at]
    elif kind == 5:
        out.append(_cluster(1000 + step))
    else:
        out[at] = replace(old, load=old.load + 2)  # the load alone
    return sorted(out, key=lambda c: c.name)


def _verdicts(clusters: list, requests: list, now: datetime) -> list:
    b = replace(batch(clusters, *requests), now=now)
    return prepare(b, ClusterTable(b))


@pytest.mark.parametrize("log_up_to", [64, 1])
def test_a_lineages_kept_verdicts_are_a_fresh_batchs(log_up_to, monkeypatch) -> None:
    monkeypatch.setattr(T, "_LOG_UP_TO", log_up_to)
    clusters = [_cluster(i) for i in range(SIZE)]
    _Rows._last = None
    _verdicts(clusters, REQUESTS, NOW)
    for step in range(1, 30):
        clusters = _changed(clusters, step)
        now = NOW + timedelta(seconds=20 * (step // 2))
        requests = [r for k, r in enumerate(REQUESTS) if (k + step) % 3]
        got = _verdicts(clusters, requests, now)
        last = _Rows._last
        _Rows._last = None
        want = _verdicts([replace(c) for c in clusters], requests, now)
        _Rows._last = last
        for have, expected in zip(got, want, strict=True):
            assert np.array_equal(have.outcome, expected.outcome), (step, have.request.key)
            assert np.array_equal(have.passing, expected.passing) and np.array_equal(have.base, expected.base)
            assert np.array_equal(have.filtered, expected.filtered)
            assert not have.outcome.flags.writeable


def test_a_batch_on_unmoved_rows_judges_no_verdict_again(monkeypatch) -> None:
    clusters = [_cluster(i) for i in range(SIZE)]
    _Rows._last = None
    first = _verdicts(clusters, REQUESTS, NOW)
    judged = []
    verdict = P._verdict
    monkeypatch.setattr(P, "_verdict", lambda *a: judged.append(a[0]) or verdict(*a))
    again = _verdicts(_changed(clusters, 6), REQUESTS, NOW)  # a load moved: the same rows
    assert not judged
    assert all(a.base is f.base for a, f in zip(again, first, strict=True))
    later = _verdicts(_changed(clusters, 6), REQUESTS, NOW + timedelta(seconds=1))  # a later time
    # The timed tolerations' verdicts are made from those of the same tolerations held forever:
    # none judged again (the timed taint verdict alone is: ClusterTable.tolerated).
    assert not judged
    assert [a.base is f.base for a, f in zip(later, first, strict=True)] == [True, True, False, False, True]


def test_a_timed_verdict_is_the_verdict_held_forever_refused_where_the_taints_are_at_its_time() -> None:
    """Rows tainted, untainted, made ineligible and relabelled, judged at times across the
    toleration's end on kept rows: each verdict the one the rules make on fresh rows (not kept)."""
    clusters = [_cluster(i) for i in range(SIZE)]
    _Rows._last = None
    _verdicts(clusters, REQUESTS, NOW)
    for step in range(1, 29):
        clusters = _changed(clusters, step if step % 7 != 4 else 0)
        now = NOW + timedelta(seconds=4 * step)
        got = _verdicts(clusters, REQUESTS, now)
        last = _Rows._last
        _Rows._last = None
        fresh = replace(batch([replace(c) for c in clusters], *REQUESTS), now=now)
        table = ClusterTable(fresh)
        _Rows._last = last
        for have, request in zip(got, REQUESTS, strict=True):
            want = P._outcome(rule_masks(request, table), {})
            assert np.array_equal(have.outcome, want), (step, request.key)
    _Rows._last = None


def test_a_verdict_moved_through_patches_makes_its_passing_and_reported_rows_once(monkeypatch) -> None:
    """A verdict kept a few batches back is moved through each patch since (a cluster gone, one
    joined, one relabelled): only the last verdict's passing and reported rows are made, the
    ones the batch reads, equal to a fresh batch's."""
    clusters = [_cluster(i) for i in range(SIZE)]
    _Rows._last = None
    _verdicts(clusters, REQUESTS[:1], NOW)
    for step in (4, 5, 3):
        clusters = _changed(clusters, step)
        _verdicts(clusters, REQUESTS[4:], NOW)  # another request's batch: the rows patched
    reported = counted_calls(monkeypatch, P, "_reported")
    (got,) = _verdicts(clusters, REQUESTS[:1], NOW)
    assert len(reported) == 1
    monkeypatch.undo()
    _Rows._last = None
    (fresh,) = _verdicts(clusters, REQUESTS[:1], NOW)
    assert got.outcome.tolist() == fresh.outcome.tolist()
    assert got.candidates.tolist() == fresh.candidates.tolist()
    assert got.filtered.tolist() == fresh.filtered.tolist()
