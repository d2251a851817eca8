"""The candidates' canonical order and the fill's roomiest-first order, sorted as packed int64 keys,
are the lexsorts they replace, wide values (past the packing's 63 bits) included."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.replicas.order import canonical, packed_order

_VALUES = st.sampled_from([(0, 3), (0, 100), (-(2**31), 2**32), (0, 2**45)])


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 40), st.integers(0, 2**32), _VALUES, st.booleans())
def test_canonical_is_the_lexsort(n, seed, span, tiers):
    rng = np.random.default_rng(seed)
    rows = np.sort(rng.choice(20_000, n, replace=False)).astype(np.int64)
    overflow = rng.choice([0, 1, 2, 1000] if tiers else [0], n).astype(np.int64)
    score = rng.choice([0, 100], n).astype(np.int64)
    available = rng.integers(*span, n, dtype=np.int64)
    expected = np.lexsort((rows, -available, -score, overflow))
    assert canonical(overflow, score, available, rows).tolist() == expected.tolist()


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 40), st.integers(0, 2**32), _VALUES)
def test_packed_order_sorts_by_its_keys_then_position(n, seed, span):
    rng = np.random.default_rng(seed)
    first = rng.integers(0, 3, n, dtype=np.int64)
    second = rng.integers(*span, n, dtype=np.int64)
    got = packed_order([(first, True), (second, False)])
    expected = np.lexsort((np.arange(n), second, -first))
    if got is None:  # too wide to pack: the caller lexsorts
        assert (int(second.max()) - int(second.min())).bit_length() + 2 + n.bit_length() > 63
    else:
        assert got.tolist() == expected.tolist()
