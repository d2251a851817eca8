"""Selection under group spreads, transcribed from upstream's own tests
(karmada-io/karmada pkg/scheduler/core/spreadconstraint/*_test.go)."""

from __future__ import annotations

import numpy as np
import pytest

from model import Division, Failure, GroupSpread, Replicas
from solver.replicas.problem import Candidates
from solver.replicas.selection import Group, Unplaceable, from_groups, group_score, select, select_groups

G = Group

# TestSelectGroups (select_groups_test.go): (name, groups, min, max, target, expected names)
SELECT_GROUPS = [
    ("empty groups", [], 2, 3, 1, []),
    ("no enough groups", [G("R1", 1, 80)], 2, 3, 1, []),
    ("no enough value", [G("R1", 1, 80), G("R2", 2, 30)], 2, 3, 4, []),
    ("select one group", [G("R1", 1, 80)], 1, 3, 1, ["R1"]),
    (
        "prioritize one path",
        [G("R1", 1, 80), G("R3", 1, 80), G("R2", 1, 60), G("R5", 2, 60), G("R4", 5, 50), G("R6", 3, 50)],
        1,
        3,
        10,
        ["R5", "R4", "R6"],
    ),
    (
        "select groups with less total number",
        [G("R1", 1, 80), G("R2", 4, 40), G("R3", 1, 30), G("R4", 3, 30), G("R5", 3, 20), G("R6", 5, 10)],
        2,
        6,
        5,
        ["R1", "R2"],
    ),
    (
        "select groups with the highest score",
        [G("R1", 1, 60), G("R2", 1, 50), G("R3", 1, 40), G("R4", 3, 30), G("R5", 3, 20), G("R6", 3, 10)],
        1,
        3,
        6,
        ["R1", "R4", "R5"],
    ),
    (
        "select groups that are chosen earlier",
        [G("R1", 1, 60), G("R2", 2, 50), G("R3", 3, 40), G("R4", 4, 30)],
        1,
        2,
        5,
        ["R1", "R4"],
    ),
    (
        "select groups with greater value",
        [G("R4", 1, 60), G("R3", 3, 50), G("R1", 3, 40), G("R2", 4, 30)],
        1,
        2,
        5,
        ["R3", "R1"],
    ),
]


@pytest.mark.parametrize(
    ("groups", "least", "most", "target", "expected"),
    [c[1:] for c in SELECT_GROUPS],
    ids=[c[0] for c in SELECT_GROUPS],
)
def test_select_groups(groups, least, most, target, expected):
    """TestSelectGroups."""
    assert [g.name for g in select_groups(groups, least, most, target)] == expected


# Test_CalcGroupScore (group_clusters_test.go generateArgs): two groups of five clusters, given
# (scores, available replicas); (id, division, count, min_groups, group 1, group 2, group 1 wins)
GROUP_SCORES = [
    (1, Division.DUPLICATED, 20, 0, ([100, 100, 0, 0, 0], [30] * 5), ([100] * 5, [30, 30, 30, 10, 10]), True),
    (
        2,
        Division.DUPLICATED,
        20,
        0,
        ([100, 100, 0, 0, 0], [30, 30, 30, 10, 10]),
        ([100] * 5, [30, 30, 30, 10, 10]),
        False,
    ),
    (
        3,
        Division.AGGREGATED,
        100,
        2,
        ([100, 100, 0, 0, 0], [30, 30, 30, 10, 10]),
        ([100] * 5, [10, 10, 10, 5, 5]),
        True,
    ),
    (
        4,
        Division.AVAILABLE,
        100,
        2,
        ([100, 100, 0, 0, 0], [10, 10, 10, 10, 5]),
        ([100] * 5, [10, 10, 10, 5, 5]),
        True,
    ),
    (
        5,
        Division.WEIGHTED,
        100,
        2,
        ([100, 100, 0, 0, 0], [10, 10, 10, 5, 5]),
        ([100] * 5, [10, 10, 10, 5, 5]),
        False,
    ),
    (6, Division.AGGREGATED, 100, 2, ([0] * 5, [100] * 5), ([100] * 5, [50] * 5), False),
]


@pytest.mark.parametrize(
    ("division", "count", "least", "one", "two", "one_wins"),
    [c[1:] for c in GROUP_SCORES],
    ids=[str(c[0]) for c in GROUP_SCORES],
)
def test_group_score(division, count, least, one, two, one_wins):
    """Test_CalcGroupScore."""
    replicas = Replicas(count, division)
    first = group_score(one[1], one[0], replicas, least, 0)
    second = group_score(two[1], two[0], replicas, least, 0)
    assert (first >= second) is one_wins


def test_group_score_ids_3_and_6_values():
    """The values the semantics note quotes for Test_CalcGroupScore ids 3 and 6."""
    aggregated = Replicas(100, Division.AGGREGATED)
    assert group_score([30, 30, 30, 10, 10], [100, 100, 0, 0, 0], aggregated, 2, 0) == 50100
    assert group_score([10, 10, 10, 5, 5], [100] * 5, aggregated, 2, 0) == 40100
    assert group_score([100] * 5, [0] * 5, aggregated, 2, 0) == 50000
    assert group_score([50] * 5, [100] * 5, aggregated, 2, 0) == 50100


def test_group_score_duplicated_none_fit():
    """Test_CalcGroupScoreForDuplicate: 0 without clusters, and when none has room for the count."""
    duplicated = Replicas(10, Division.DUPLICATED)
    assert group_score([], [], duplicated, 1, 0) == 0
    assert group_score([5, 5], [50, 50], duplicated, 1, 0) == 0


def _candidates(rows: list[tuple[str, int, int]]) -> Candidates:
    """Candidates already in canonical order: (name, score, available replicas)."""
    n = len(rows)
    return Candidates(
        rows=np.arange(n),
        names=tuple(r[0] for r in rows),
        estimate=np.array([r[2] for r in rows], dtype=np.int64),
        held=np.zeros(n, dtype=np.int64),
        score=np.array([r[1] for r in rows], dtype=np.int64),
        overflow=np.zeros(n, dtype=np.int64),
    )


# TestSelectBestClusters (select_clusters_test.go generateClusterInfo): in canonical order
BEST = [("member4", 60, 50), ("member2", 40, 60), ("member3", 30, 80), ("member1", 20, 40)]


@pytest.mark.parametrize(
    ("division", "groups", "count", "expected"),
    [
        (Division.AVAILABLE, [GroupSpread("", 1, 2)], 100, ["member4", "member2"]),
        (Division.DUPLICATED, [GroupSpread("", 1, 2)], 120, ["member4", "member2"]),
        # static weights ignore the spread (the adapter says it only filters)
        (
            Division.WEIGHTED,
            [GroupSpread("", 1, 2, selects=False)],
            120,
            ["member4", "member2", "member3", "member1"],
        ),
        (Division.AVAILABLE, [GroupSpread("", 1, 2)], 120, ["member4", "member3"]),
    ],
    ids=[
        "select clusters by cluster score",
        "ignore available resources when scheduling strategy is duplicated",
        "ignore available resources when scheduling strategy is static weight",
        "select clusters by cluster score and satisfy available resources",
    ],
)
def test_select_best_clusters(division, groups, count, expected):
    """TestSelectBestClusters."""
    c = _candidates(BEST)
    chosen = select(c, Replicas(count, division, groups=tuple(groups)), [])
    assert [c.names[i] for i in chosen] == expected


@pytest.mark.parametrize(
    ("spread", "count", "message"),
    [
        (
            GroupSpread("", 1, 2),
            200,
            "failed to select clusters: no enough resource when selecting 2 clusters",
        ),
        (
            GroupSpread("", 7, 7),
            30,
            "failed to select clusters: the number of feasible clusters is less than "
            "spreadConstraint.MinGroups",
        ),
    ],
    ids=["insufficient resources", "exceeded the number of available clusters"],
)
def test_select_best_clusters_errors(spread, count, message):
    """TestSelectBestClusters, its two errors (SELECTION, with upstream's text)."""
    with pytest.raises(Unplaceable) as failed:
        select(_candidates(BEST), Replicas(count, groups=(spread,)), [])
    assert failed.value.failure is Failure.SELECTION
    assert failed.value.message == message


def _regions(regions: dict[str, tuple[int, list[tuple[str, int, int]]]]):
    """Members per region as indices in the canonical order of all their clusters."""
    everyone = sorted(
        (m for _, members in regions.values() for m in members), key=lambda m: (-m[1], -m[2], m[0])
    )
    index = {m[0]: i for i, m in enumerate(everyone)}
    members = {name: [index[m[0]] for m in ms] for name, (_, ms) in regions.items()}
    return members, {name: score for name, (score, _) in regions.items()}, [m[0] for m in everyone]


TWO_REGIONS = {
    "R1": (100, [("member1", 100, 40), ("member2", 80, 40)]),
    "R2": (80, [("member3", 80, 40), ("member4", 80, 40), ("member5", 60, 40)]),
}
FOUR_REGIONS = {
    "R1": (90, [("member1", 90, 40)]),
    "R2": (70, [("member2", 70, 40), ("member3", 60, 40), ("member4", 30, 40)]),
    "R3": (80, [("member5", 80, 40), ("member6", 50, 60)]),
    "R4": (50, [("member7", 50, 50), ("member8", 40, 50), ("member9", 10, 50), ("member10", 0, 50)]),
}
FIVE_REGIONS = {
    "R1": (70, [("member1", 70, 40)]),
    "R2": (40, [("member2", 40, 40), ("member3", 40, 40), ("member4", 40, 40)]),
    "R3": (60, [("member5", 60, 40), ("member6", 50, 60)]),
    "R4": (70, [("member7", 70, 100)]),
    "R5": (50, [("member8", 50, 50)]),
}


@pytest.mark.parametrize(
    ("regions", "region", "clusters", "expected"),
    [
        (TWO_REGIONS, (1, 1), (2, 2), ["member1", "member2"]),
        (TWO_REGIONS, (1, 1), (3, 3), ["member3", "member4", "member5"]),
        (FOUR_REGIONS, (2, 2), (4, 5), ["member1", "member2", "member3", "member4"]),
        (FIVE_REGIONS, (1, 3), (6, 8), ["member1", "member5", "member2", "member6", "member3", "member4"]),
    ],
    ids=[
        "select cluster from the region with the higher score",
        "select cluster from the region with enough clusters",
        "select cluster from the region with enough clusters and higher score",
        "select cluster from more than `minGroups` regions with enough clusters and higher score",
    ],
)
def test_select_best_clusters_by_region(regions, region, clusters, expected):
    """Test_selectBestClustersByRegion."""
    members, weight, names = _regions(regions)
    chosen = from_groups(members, weight, GroupSpread("region", *region), GroupSpread("", *clusters))
    assert [names[i] for i in chosen] == expected


@pytest.mark.parametrize(
    ("regions", "region", "clusters", "message"),
    [
        (
            TWO_REGIONS,
            (3, 3),
            (3, 3),
            "the number of feasible region is less than spreadConstraint.MinGroups",
        ),
        (
            TWO_REGIONS,
            (1, 1),
            (4, 4),
            "the number of clusters is less than the cluster spreadConstraint.MinGroups",
        ),
        (
            {"R1": (100, [("member1", 100, 40), ("member2", 80, 20)])},
            (1, 1),
            (3, 4),
            "the number of clusters is less than the cluster spreadConstraint.MinGroups",
        ),
    ],
    ids=["no enough region", "no enough clusters", "no more regions to replace"],
)
def test_select_best_clusters_by_region_errors(regions, region, clusters, message):
    """Test_selectBestClustersByRegion, its errors."""
    members, weight, _ = _regions(regions)
    with pytest.raises(Unplaceable) as failed:
        from_groups(members, weight, GroupSpread("region", *region), GroupSpread("", *clusters))
    assert failed.value.message == f"failed to select clusters: {message}"
