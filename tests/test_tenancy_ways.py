"""The ways to split new clusters over pools (solver.tenancy.flow._compositions): every way in
order, up to the most asked, without walking prefixes that lead to none."""

from __future__ import annotations

import itertools

from hypothesis import given, settings
from hypothesis import strategies as st

from solver.tenancy.flow import _compositions


def _every_way(total: int, tops: list[int], most: int) -> list[tuple[int, ...]]:
    """The rule written plainly: each way below the tops, in lexicographic order, the first `most`."""
    ways = [way for way in itertools.product(*(range(t + 1) for t in tops)) if sum(way) == total]
    return ways[:most]


@settings(max_examples=300, deadline=None)
@given(
    st.integers(0, 14),
    st.lists(st.integers(0, 5), max_size=5),
    st.integers(0, 40),
)
def test_the_ways_are_every_way_in_order_up_to_the_most(total: int, tops: list[int], most: int) -> None:
    assert list(_compositions(total, tops, most)) == _every_way(total, tops, most)


def test_ways_far_below_the_tops_are_not_walked() -> None:
    # Walking every prefix below the tops would take 10**12 steps here.
    assert list(_compositions(2 * 10**6 + 1, [10**6, 10**6, 1], 3)) == [(10**6, 10**6, 1)]
    assert len(list(_compositions(10**6, [10**6] * 4, 257))) == 257
