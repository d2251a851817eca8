"""Division of a request's replicas, transcribed from upstream's own tests as whole batches
(karmada-io/karmada pkg/scheduler/core/division_algorithm_test.go, assignment_test.go): each
cluster has room for the replicas the upstream case gives it (AllocatableReplicas)."""

from __future__ import annotations

import pytest

from model import Division, Failure, GroupSpread
from tests.fixtures.replicas import answer, as_set, labelled, names_term, request, room, solve_batch, split

AVAILABLE, AGGREGATED, WEIGHTED, DUPLICATED = (
    Division.AVAILABLE,
    Division.AGGREGATED,
    Division.WEIGHTED,
    Division.DUPLICATED,
)
M1, M2, M3, M4 = "member1", "member2", "member3", "member4"


def divided(rooms: dict[str, int], count: int, division: Division, current=()) -> dict[str, int | None]:
    got = answer(
        solve_batch([room(n, r) for n, r in rooms.items()], request("w", count, division, current=current))
    )
    assert got.failure is None, got.failure_detail
    return as_set(got)


def short(rooms: dict[str, int], count: int, division: Division, current=()):
    got = answer(
        solve_batch([room(n, r) for n, r in rooms.items()], request("w", count, division, current=current))
    )
    assert got.failure is Failure.SHORT and not got.satisfied
    return got


# Test_dynamicDivideReplicas (division_algorithm_test.go): (name, rooms, division, expected)
DIVIDE = [
    ("replica 12, dynamic weight 18:12:6", {M1: 18, M2: 12, M3: 6}, AVAILABLE, {M1: 6, M2: 4, M3: 2}),
    ("replica 12, dynamic weight 20:12:6", {M1: 20, M2: 12, M3: 6}, AVAILABLE, {M1: 6, M2: 4, M3: 2}),
    ("replica 12, dynamic weight 6:12:6", {M1: 6, M2: 12, M3: 6}, AVAILABLE, {M1: 3, M2: 6, M3: 3}),
    ("replica 12, aggregated 12:6:6", {M2: 12, M1: 6, M3: 6}, AGGREGATED, {M2: 12}),
    ("replica 12, aggregated 6:6:6", {M1: 6, M2: 6, M3: 6}, AGGREGATED, {M1: 6, M2: 6}),
]


@pytest.mark.parametrize(
    ("rooms", "division", "expected"), [c[1:] for c in DIVIDE], ids=[c[0] for c in DIVIDE]
)
def test_dynamic_divide_replicas(rooms, division, expected):
    """Test_dynamicDivideReplicas."""
    assert divided(rooms, 12, division) == expected


# Test_dynamicScale (assignment_test.go): (name, rooms, current, count, division, expected or None: SHORT)
SCALE = [
    (
        "replica 12 -> 6, dynamic weighted 1:1:1",
        {M1: 1, M2: 1, M3: 1},
        [(M1, 2), (M2, 4), (M3, 6)],
        6,
        AVAILABLE,
        {M1: 1, M2: 2, M3: 3},
    ),
    (
        "replica 12 -> 24, dynamic weighted 10:10:10",
        {M1: 10, M2: 10, M3: 10},
        [(M1, 2), (M2, 4), (M3, 6)],
        24,
        AVAILABLE,
        {M1: 6, M2: 8, M3: 10},
    ),
    (
        "replica 12 -> 24, dynamic weighted 1:1:1",
        {M1: 1, M2: 1, M3: 1},
        [(M1, 2), (M2, 4), (M3, 6)],
        24,
        AVAILABLE,
        None,
    ),
    ("replica 12 -> 6, aggregated 1:1:1", {M1: 1, M2: 1, M3: 1}, [(M1, 4), (M2, 8)], 6, AGGREGATED, {M2: 6}),
    ("replica 12 -> 8, aggregated 100:100", {M1: 100, M2: 100}, [(M1, 4), (M2, 8)], 8, AGGREGATED, {M2: 8}),
    (
        "replica 12 -> 24, aggregated 4:6:8",
        {M1: 4, M2: 6, M3: 8},
        [(M1, 4), (M2, 8)],
        24,
        AGGREGATED,
        {M1: 7, M2: 12, M3: 5},
    ),
    (
        "replica 12 -> 24, aggregated 6:6:20",
        {M1: 6, M2: 6, M3: 20},
        [(M1, 4), (M2, 8)],
        24,
        AGGREGATED,
        {M1: 10, M2: 14},
    ),
    ("replica 12 -> 24, aggregated 1:1:1", {M1: 1, M2: 1, M3: 1}, [(M1, 4), (M2, 8)], 24, AGGREGATED, None),
    (
        "replica 12 -> 24, aggregated 4:8:12, with cluster2 disappeared and cluster4 appeared",
        {M1: 4, M3: 8, M4: 12},
        [(M1, 4), (M2, 8)],
        24,
        AGGREGATED,
        {M1: 7, M3: 7, M4: 10},
    ),
]


@pytest.mark.parametrize(
    ("rooms", "current", "count", "division", "expected"), [c[1:] for c in SCALE], ids=[c[0] for c in SCALE]
)
def test_dynamic_scale(rooms, current, count, division, expected):
    """Test_dynamicScale: scale down is proportional to the current assignment, scale up adds the
    difference by room, a cluster gone gives its replicas back to be placed again."""
    if expected is None:
        short(rooms, count, division, current)
    else:
        assert divided(rooms, count, division, current) == expected


# Test_dynamicScaleUp: (name, rooms, current, division, expected or None: SHORT); 12 replicas
SCALE_UP = [
    ("replica 12, dynamic weight 6:8:10", {M1: 6, M2: 8, M3: 10}, [], AVAILABLE, {M1: 3, M2: 4, M3: 5}),
    ("replica 12, dynamic weight 8:8:10", {M1: 8, M2: 8, M3: 10}, [], AVAILABLE, {M1: 4, M2: 4, M3: 4}),
    ("replica 12, dynamic weight 3:3:3", {M1: 3, M2: 3, M3: 3}, [], AVAILABLE, None),
    ("replica 12, aggregated 6:8:10", {M1: 6, M2: 8, M3: 10}, [], AGGREGATED, {M2: 5, M3: 7}),
    ("replica 12, aggregated 12:8:10", {M1: 12, M2: 8, M3: 10}, [], AGGREGATED, {M1: 12}),
    ("replica 12, aggregated 3:3:3", {M1: 3, M2: 3, M3: 3}, [], AGGREGATED, None),
    (
        "replica 12, dynamic weight 3:3, with cluster3 disappeared and cluster2 appeared",
        {M1: 3, M2: 3},
        [(M1, 6), (M3, 6)],
        AVAILABLE,
        {M1: 9, M2: 3},
    ),
]


@pytest.mark.parametrize(
    ("rooms", "current", "division", "expected"), [c[1:] for c in SCALE_UP], ids=[c[0] for c in SCALE_UP]
)
def test_dynamic_scale_up(rooms, current, division, expected):
    """Test_dynamicScaleUp."""
    if expected is None:
        short(rooms, 12, division, current)
    else:
        assert divided(rooms, 12, division, current) == expected


def test_unschedulable_error_preserved():
    """Test_assignByDynamicStrategy_UnschedulableErrorPreserved: too little room is SHORT (upstream's
    Unschedulable), with upstream's whole message."""
    got = short({M1: 3}, 10, AVAILABLE)
    assert got.failure_detail == (
        "failed to assign replicas: failed to scale up: "
        "Clusters available replicas 3 are not enough to schedule."
    )


def weighted(count: int, weights, members=(M1, M2, M3)) -> dict[str, int | None]:
    clusters = [labelled(n) for n in members]
    rules = None if weights is None else [(names_term(*names), w) for names, w in weights]
    got = answer(solve_batch(clusters, request("w", count, WEIGHTED, weights=rules)))
    assert got.failure is None
    return as_set(got)


THREE_TWO_ONE = [([M1], 3), ([M2], 2), ([M3], 1)]

# Test_assignByStaticWeightStrategy: (name, count, members, weight rules or None, expected)
STATIC = [
    ("replica 12, weight 3:2:1", 12, (M1, M2, M3), THREE_TWO_ONE, {M1: 6, M2: 4, M3: 2}),
    ("replica 12, default weight", 12, (M1, M2, M3), None, {M1: 4, M2: 4, M3: 4}),
    ("replica 13, weight 3:2:1", 13, (M1, M2, M3), THREE_TWO_ONE, {M1: 7, M2: 4, M3: 2}),
    ("replica 14, weight 3:2:1", 14, (M1, M2, M3), THREE_TWO_ONE, {M1: 7, M2: 5, M3: 2}),
    # upstream answers 0 on each; the zero entries are then dropped
    ("insufficient replica assignment should get 0 replica", 0, (M1, M2), [([M1], 1), ([M2], 1)], {}),
    ("selected cluster without weight should be ignored", 2, (M1, M2), [([M1], 1)], {M1: 2}),
    ("cluster with multiple weights", 3, (M1, M2), [([M1], 1), ([M2], 1), ([M1], 2)], {M1: 2, M2: 1}),
]


@pytest.mark.parametrize(
    ("count", "members", "rules", "expected"), [c[1:] for c in STATIC], ids=[c[0] for c in STATIC]
)
def test_assign_by_static_weight_strategy(count, members, rules, expected):
    """Test_assignByStaticWeightStrategy (capacity-blind: the clusters report no room at all)."""
    assert weighted(count, rules, members) == expected


def test_static_weights_empty_list_weighs_every_cluster_one():
    """No rule matches any cluster (an empty list): every candidate weighs 1, as with no list."""
    assert weighted(12, []) == {M1: 4, M2: 4, M3: 4}


def test_static_weights_write_order_is_by_name():
    got = answer(solve_batch([labelled(n) for n in (M3, M1, M2)], request("w", 6, WEIGHTED)))
    assert [c for c, _ in split(got)] == [M1, M2, M3]


# Test_assignByDuplicatedStrategy: (name, count, members, expected)
DUPLICATE = [
    ("test with multiple cluster", 2, (M1, M2), [(M1, 2), (M2, 2)]),
    ("replicas is null", 0, (M1, M2), []),  # upstream's zeros, dropped afterwards
]


@pytest.mark.parametrize(
    ("count", "members", "expected"), [c[1:] for c in DUPLICATE], ids=[c[0] for c in DUPLICATE]
)
def test_assign_by_duplicated_strategy(count, members, expected):
    """Test_assignByDuplicatedStrategy (capacity-blind)."""
    got = answer(solve_batch([room(n, 0) for n in members], request("w", count, DUPLICATED)))
    assert split(got) == expected


def test_duplicated_without_candidates_is_no_fit():
    """Test_assignByDuplicatedStrategy "the target cluster is null": upstream's scheduler never
    divides over no cluster; the filters' NoClusterFit comes first."""
    got = answer(solve_batch([room(M1, 5, leaving=True)], request("w", 2, DUPLICATED)))
    assert got.failure is Failure.NO_FIT and got.selected == ()


def test_no_cluster_selected_is_a_selection_failure():
    """maxGroups 0 selects nothing (semantics 10.1): upstream's "no clusters available to
    schedule" for a request that ignores room."""
    spread = GroupSpread("", 1, 0)
    got = answer(solve_batch([room(M1, 5)], request("w", 2, DUPLICATED, groups=[spread])))
    assert got.failure is Failure.SELECTION
    assert got.failure_detail == "failed to assign replicas: no clusters available to schedule"
    got = answer(solve_batch([room(M1, 5)], request("w", 2, AVAILABLE, groups=[spread])))
    assert got.failure_detail == "failed to select clusters: no enough resource when selecting 0 clusters"
