"""The best rows of a report by topology score (solver/solution.py best_first, best_first_in_order):
where the best score is held by at least k rows the k-th largest is found without a partition
(_split_at_kth); the same rows in the same order as the partition gives."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import solution
from solver.prepare import Prepared

SIZE = 60


def _partitioned(topo: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    threshold = np.partition(topo, len(topo) - k)[len(topo) - k]
    return np.flatnonzero(topo > threshold), np.flatnonzero(topo == threshold)


def _request(rng: np.random.Generator) -> Prepared:
    affinity = rng.integers(-3, 4, SIZE).astype(np.int64)
    sticky = rng.random(SIZE) < 0.2
    zeros = np.zeros(SIZE, dtype=np.int8)
    return Prepared(None, zeros, affinity, sticky, np.arange(SIZE, dtype=np.int64), sticky)  # type: ignore[arg-type]


class _Table:
    size = SIZE


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.sampled_from([(0, 1), (-1, 1), (-2, 2), (-50, 50)]))
def test_the_best_rows_are_those_the_partition_gives(seed, k, spread) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(k, SIZE + 1))
    topo = rng.integers(spread[0], spread[1] + 1, n).astype(np.int64)
    above, tied = solution._split_at_kth(topo, k)
    want_above, want_tied = _partitioned(topo, k)
    assert above.tolist() == want_above.tolist() and tied.tolist() == want_tied.tolist()
    p = _request(rng)
    rows = np.sort(rng.choice(SIZE, n, replace=False)).astype(np.int64)
    got = solution.best_first(p, _Table(), rows, topo, p.sticky, k)
    levels = (topo.tolist(), p.affinity[rows].tolist(), p.sticky[rows].tolist(), rows.tolist())
    key = list(zip(*levels, strict=True))
    assert got.tolist() == sorted(range(n), key=key.__getitem__, reverse=True)[:k]
    in_order = solution.best_first_in_order(topo, k)
    assert in_order.tolist() == np.argsort(-topo, kind="stable")[:k].tolist()


def test_a_best_score_held_by_k_rows_needs_no_partition(monkeypatch) -> None:
    def refused(*_):
        raise AssertionError("partitioned")

    monkeypatch.setattr(np, "partition", refused)
    topo = np.array([0, 1, 1, -1, 1, 0], dtype=np.int64)
    above, tied = solution._split_at_kth(topo, 3)
    assert above.tolist() == [] and tied.tolist() == [1, 2, 4]
