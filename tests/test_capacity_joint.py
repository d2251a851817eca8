"""solver.replicas.joint: the joint capacity solve on hand cases with known optima (the over-commit
reports karmada#6518, #6783, #1385) and its hard rules."""

from __future__ import annotations

import numpy as np

from model import Division
from solver.replicas.capacity_units import (
    CapacityProblem,
    Groups,
    Option,
    Placed,
    Unit,
    charge,
    level_names,
    measure,
    overcommitted,
)
from solver.replicas.joint import solve_joint

CPU, PODS = 0, 1


def problem(free: list[list[int]], units: list[Unit]) -> CapacityProblem:
    return CapacityProblem(np.asarray(free, dtype=np.int64), tuple(units))


def greedy_of(p: CapacityProblem) -> list[Placed | None]:
    """Greedy as upstream: each unit on its first option's own split (the snapshot as given)."""
    return [
        Placed(-1, u.fixed)
        if u.fixed is not None
        else (Placed(0, u.options[0].target) if u.options else None)
        for u in p.units
    ]


def solve(p: CapacityProblem):
    part = list(range(len(p.units)))
    return solve_joint(p, part, greedy_of(p), deadline=None)


def level(p: CapacityProblem, values: tuple[int, ...], name: str) -> int:
    return values[level_names(p).index(name)]


def test_karmada_6518_fifteen_single_replica_requests_fill_both_clusters() -> None:
    # Cluster A failed: B has room for 10, C for 5; every request's own split says B (more room).
    b, c = 0, 1
    units = [Unit(1, (1, 1), options=(Option((b, c), target=((b, 1),)),), order=i) for i in range(15)]
    p = problem([[10, 100], [5, 100]], units)
    part = list(range(15))
    charged = charge(p, part, greedy_of(p))
    assert sum(placed is None for placed in charged) == 5  # greedy's over-commit, charged
    out = solve(p)
    assert all(placed is not None for placed in out.answer)
    assert not overcommitted(p, part, out.answer)
    on = [dict(placed.replicas) for placed in out.answer]
    assert sum(x.get(b, 0) for x in on) == 10 and sum(x.get(c, 0) for x in on) == 5
    assert out.values == out.bound and out.proven
    # The ten on B are the first ten in the queue: greedy's split where it fits, greedy's order.
    assert [x.get(b, 0) for x in on] == [1] * 10 + [0] * 5


def test_karmada_6783_two_aggregated_requests_each_get_a_cluster() -> None:
    x, y = 0, 1
    units = [
        Unit(
            2,
            (1000, 1),
            Division.AGGREGATED,
            options=(Option((x, y), target=((x, 2),)),),
            order=i,
        )
        for i in range(2)
    ]
    p = problem([[2000, 110], [2000, 110]], units)
    out = solve(p)
    assert [placed.replicas for placed in out.answer] == [((x, 2),), ((y, 2),)]
    assert level(p, out.values, "clusters-used") == 2


def test_karmada_1385_twenty_deployments_over_two_small_clusters_all_run() -> None:
    units = [Unit(1, (200, 1), options=(Option((0, 1), target=((0, 1),)),), order=i) for i in range(20)]
    p = problem([[2000, 110], [2000, 110]], units)
    out = solve(p)
    assert all(placed is not None for placed in out.answer)
    assert not overcommitted(p, list(range(20)), out.answer)


def test_the_higher_priority_class_is_scheduled_first() -> None:
    low = Unit(3, (1, 1), options=(Option((0,), target=((0, 3),)),), priority=0, order=0)
    high = Unit(3, (1, 1), options=(Option((0,), target=((0, 3),)),), priority=5, order=1)
    p = problem([[4, 10]], [low, high])
    out = solve(p)
    assert out.answer[0] is None and out.answer[1] is not None
    assert out.values[:2] == (0, 1)  # unscheduled@5, unscheduled@0


def test_steady_held_replicas_stay_and_only_the_growth_is_charged() -> None:
    # Holds 2 on cluster 0 (full now), grows to 4: the growth goes to cluster 1.
    unit = Unit(4, (1, 1), options=(Option((0, 1), held=((0, 2),), target=((0, 4),)),))
    p = problem([[0, 10], [2, 10]], [unit])
    out = solve(p)
    assert dict(out.answer[0].replicas) == {0: 2, 1: 2}
    assert level(p, out.values, "replicas-moved") == 0


def test_fixed_units_are_charged_first_whatever_their_queue_position() -> None:
    fixed = Unit(3, (1, 1), Division.WEIGHTED, fixed=((0, 3),), order=9)
    other = Unit(2, (1, 1), options=(Option((0, 1), target=((0, 2),)),), order=0)
    p = problem([[4, 10], [2, 10]], [fixed, other])
    out = solve(p)
    assert out.answer[0] == Placed(-1, ((0, 3),))
    assert dict(out.answer[1].replicas) == {0: 1, 1: 1}  # one of its split fits, the other moves


def test_group_constraints_hold_for_every_request() -> None:
    # At most one group (cluster): the 3 replicas cannot be split over the two clusters.
    unit = Unit(3, (1, 1), options=(Option((0, 1), target=((0, 3),), groups=(Groups((0, 1), 1, 1),)),))
    p = problem([[2, 10], [2, 10]], [unit])
    out = solve(p)
    assert out.answer[0] is None


def test_a_groups_one_cluster_each_where_no_constraint_counts_clusters() -> None:
    # Two groups exactly (0: clusters 0 and 1; 1: cluster 2) and no cluster constraint: upstream
    # selects one cluster per group, so the 4 it adds (room 2, 1, 1) cannot go on 0, 1 and 2
    # (found by test_replicas_properties: the class model used both clusters of group 0).
    option = Option((0, 1, 2), held=((0, 6),), target=((0, 9), (2, 1)), groups=(Groups((0, 0, 1), 2, 2),))
    unit = Unit(10, (0, 1), options=(option,))
    p = problem([[0, 2], [0, 1], [0, 1]], [unit])
    out = solve(p)
    assert out.answer[0] is None and out.values[0] == 1


def test_an_aggregated_split_on_fewer_groups_than_the_least_is_kept_and_bounded_so() -> None:
    # Upstream selects two groups and its Aggregated division puts all 3 replicas on one cluster
    # of them: greedy's own split, which fits. The class model asked for replicas in two groups
    # (cluster 1 has no room), found its hint infeasible and proved 1 unscheduled: a bound above
    # the answer's 0.
    option = Option((0, 1), target=((0, 3),), groups=(Groups((0, 1), 2, 2),))
    unit = Unit(3, (0, 1), Division.AGGREGATED, options=(option,))
    p = problem([[0, 3], [0, 0]], [unit])
    out = solve(p)
    assert out.values[0] == 0 and out.bound[0] == 0
    assert all(b is None or b <= v for b, v in zip(out.bound, out.values, strict=True))


def test_a_later_tier_takes_what_the_first_cannot() -> None:
    first = Option((0,), target=((0, 2),))
    later = Option((1,), target=((1, 2),), cost=1)
    units = [Unit(2, (1, 1), options=(first, later), order=i) for i in range(2)]
    p = problem([[2, 10], [2, 10]], units)
    out = solve(p)
    assert [placed.option for placed in out.answer] == [0, 1]
    assert level(p, out.values, "later-tiers") == 1


def test_divided_afresh_the_aim_comes_before_moves() -> None:
    # Holds 2 on cluster 0; afresh its split is 1 and 1: the aim moves one replica.
    unit = Unit(2, (1, 1), fresh=True, options=(Option((0, 1), held=((0, 2),), target=((0, 1), (1, 1))),))
    p = problem([[0, 10], [5, 10]], [unit])
    out = solve(p)
    assert dict(out.answer[0].replicas) == {0: 1, 1: 1}
    assert level(p, out.values, "fresh-replicas-off-split") == 0
    assert level(p, out.values, "replicas-moved") == 1


def test_a_class_is_measured_as_its_requests() -> None:
    units = [Unit(3, (1, 1), options=(Option((0, 1, 2), target=((0, 3),)),), order=i) for i in range(4)]
    p = problem([[3, 10], [4, 10], [5, 10]], units)
    out = solve(p)
    part = list(range(4))
    assert out.values == measure(p, part, out.answer)
    assert not overcommitted(p, part, out.answer)
    assert level(p, out.values, "requests-unscheduled@priority=0") == 0


def test_aggregated_afresh_packs_only_where_no_request_adds_beyond_its_class() -> None:
    # Two requests holding 3 on cluster 0 and 1 on cluster 1, divided afresh with no room left:
    # packing would give one of them a fourth replica on cluster 0 (room for none).
    held = Option((0, 1), held=((0, 3), (1, 1)), target=((0, 3), (1, 1)))
    units = [Unit(4, (0, 1), Division.AGGREGATED, (held,), fresh=True, order=i) for i in range(2)]
    p = problem([[0, 0], [0, 0]], units)
    out = solve(p)
    assert not overcommitted(p, [0, 1], out.answer)
    assert [placed.replicas for placed in out.answer] == [((0, 3), (1, 1))] * 2


def test_a_request_kept_where_it_can_add_nothing_is_scheduled_and_bounded_so() -> None:
    # Afresh, it holds 4 on cluster 0, where it may add nothing (most 0) and nothing is free: it
    # stays whole there. The model once bounded its distance to the aim by the additions allowed
    # (0 on cluster 0), not by what it may hold, and so proved it unschedulable (a bound above the
    # answer's value). Found by test_capacity_properties' hypothesis run.
    option = Option((0, 1, 2), held=((0, 4),), target=((0, 1), (1, 3)), most=(0, 3, 0))
    p = problem([[0, 0], [0, 0], [0, 0]], [Unit(4, (0, 1), fresh=True, options=(option,))])
    out = solve(p)
    assert level(p, out.values, "requests-unscheduled@priority=0") == 0
    assert all(b is None or b <= v for b, v in zip(out.bound, out.values, strict=True))
