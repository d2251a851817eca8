"""Webster apportionment and its tie-break, transcribed from upstream's own tests
(karmada-io/karmada pkg/util/helper/binding_test.go), and held to the one-seat-at-a-time rule."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from model import TieBreak
from solver.replicas.webster import fnv1a32, prefers_smaller_name, webster

ODD_UID = "d43fdeeb-d750-4e2b-bee3-64eb94534f4c"
EVEN_UID = "4858ca61-3ff8-4095-8267-f3d059d8074c"

# Test_dispenser_AllocateByWeight: (name, seats, initial, votes, uid, desired)
DISPENSER = [
    (
        "Scale up 6 replicas",
        6,
        {"A": 1, "B": 2, "C": 3},
        [("A", 1), ("B", 2), ("C", 3)],
        "",
        {"A": 2, "B": 4, "C": 6},
    ),
    (
        "Scale up 3 replicas",
        3,
        {"A": 1, "B": 2, "C": 3},
        [("A", 1), ("B", 2), ("C", 3)],
        "",
        {"A": 2, "B": 3, "C": 4},
    ),
    (
        "Scale up 2 replicas",
        2,
        {"A": 1, "B": 2, "C": 3},
        [("A", 1), ("B", 2), ("C", 3)],
        "",
        {"A": 1, "B": 3, "C": 4},
    ),
    ("HA scenario with weight 2:1: assign 1 replica", 1, {}, [("A", 2), ("B", 1)], "", {"A": 1, "B": 0}),
    ("HA scenario with weight 2:1: assign 2 replicas", 2, {}, [("A", 2), ("B", 1)], "", {"A": 1, "B": 1}),
    ("HA scenario with weight 2:1: assign 3 replicas", 3, {}, [("A", 2), ("B", 1)], "", {"A": 2, "B": 1}),
    ("brand new assign 5 replicas", 5, {}, [("A", 170), ("B", 110), ("C", 60)], "", {"A": 2, "B": 2, "C": 1}),
    ("brand new assign 6 replicas", 6, {}, [("A", 170), ("B", 110), ("C", 60)], "", {"A": 3, "B": 2, "C": 1}),
    ("brand new assign 5 replicas with odd uuid", 5, {}, [("A", 1), ("B", 1)], ODD_UID, {"A": 2, "B": 3}),
    ("brand new assign 5 replicas with even uuid", 5, {}, [("A", 1), ("B", 1)], EVEN_UID, {"A": 3, "B": 2}),
]


@pytest.mark.parametrize(
    ("seats", "initial", "votes", "uid", "desired"), [c[1:] for c in DISPENSER], ids=[c[0] for c in DISPENSER]
)
def test_dispenser_allocate_by_weight(seats, initial, votes, uid, desired):
    """Test_dispenser_AllocateByWeight."""
    assert dict(webster(seats, votes, prefers_smaller_name(uid), initial)) == desired


# TestDispenseReplicasByTargetClusters: the votes are each cluster's replicas; (name, votes, sum, wants)
M1, M2, M3 = "member1", "member2", "member3"
SPREAD = [
    ("empty clusters", [], 10, [{}]),
    ("1 cluster, 5 replicas, 10 sum", [(M1, 5)], 10, [{M1: 10}]),
    ("3 cluster, 1:1:1, 12 sum", [(M1, 5), (M2, 5), (M3, 5)], 12, [{M1: 4, M2: 4, M3: 4}]),
    (
        "3 cluster, 1:1:1, 10 sum",
        [(M1, 5), (M2, 5), (M3, 5)],
        10,
        [{M1: 4, M2: 3, M3: 3}, {M1: 3, M2: 4, M3: 3}, {M1: 3, M2: 3, M3: 4}],
    ),
    ("3 cluster, 1:2:3, 13 sum", [(M1, 1), (M2, 2), (M3, 3)], 13, [{M1: 2, M2: 4, M3: 7}]),
]


@pytest.mark.parametrize(("votes", "seats", "wants"), [c[1:] for c in SPREAD], ids=[c[0] for c in SPREAD])
def test_dispense_replicas_by_target_clusters(votes, seats, wants):
    """TestDispenseReplicasByTargetClusters (any of the wanted answers; the empty uid's is the
    first, the smaller name winning the tie)."""
    got = dict(webster(seats, votes, TieBreak.SMALLER_NAME))
    assert got == wants[0]


def test_uid_parity():
    """binding_test.go's uids: the odd one breaks ties by names descending, the even one (and the
    empty uid) ascending."""
    assert fnv1a32(ODD_UID) % 2 == 1 and fnv1a32(EVEN_UID) % 2 == 0
    assert prefers_smaller_name(ODD_UID) is TieBreak.LARGER_NAME
    assert prefers_smaller_name(EVEN_UID) is TieBreak.SMALLER_NAME
    assert prefers_smaller_name("") is TieBreak.SMALLER_NAME


def _one_at_a_time(seats: int, votes: dict[str, int], tie_break: TieBreak) -> dict[str, int]:
    """The definition: each seat to the highest votes / (2 seats + 1), then fewer seats, then
    the tie-break's name."""
    have = dict.fromkeys(votes, 0)
    rank = {name: i for i, name in enumerate(sorted(votes))}
    sign = 1 if tie_break is TieBreak.SMALLER_NAME else -1
    for _ in range(seats):
        best = min(have, key=lambda n: (-Fraction(votes[n], 2 * have[n] + 1), have[n], sign * rank[n]))
        have[best] += 1
    return have


@settings(max_examples=200, deadline=None)
@given(
    st.dictionaries(st.sampled_from("abcdefghij"), st.integers(0, 60), min_size=1),
    st.integers(0, 150),
    st.sampled_from(list(TieBreak)),
)
def test_many_seats_as_one_at_a_time(votes, seats, tie_break):
    """The seats handed out in bulk (the sure ones first) are those of one at a time."""
    assert dict(webster(seats, list(votes.items()), tie_break)) == _one_at_a_time(seats, votes, tie_break)


def test_names_ascending():
    assert [name for name, _ in webster(7, [("c", 1), ("a", 2), ("b", 3)], TieBreak.LARGER_NAME)] == [
        "a",
        "b",
        "c",
    ]
