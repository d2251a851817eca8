"""solver.replicas.capacity_fill and capacity_bound: the capacity-aware fill where no model runs (a
part too large, or the time gone) and the bound that proves how far it is from the best."""

from __future__ import annotations

import time

import numpy as np

from model import Batch, Division
from solver import SolveOptions, check, solve
from solver.replicas.capacity_bound import unscheduled_bound
from solver.replicas.capacity_fill import fill, fill_orders
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
    room_after_fixed,
)
from solver.replicas.joint import solve_joint
from tests.fixtures.replicas import PODS, as_set, cluster, request


def problem(free: list[list[int]], units: list[Unit]) -> CapacityProblem:
    return CapacityProblem(np.asarray(free, dtype=np.int64), tuple(units))


def greedy_of(p: CapacityProblem) -> list[Placed | None]:
    return [
        Placed(-1, u.fixed)
        if u.fixed is not None
        else (Placed(0, u.options[0].target) if u.options else None)
        for u in p.units
    ]


def filled(p: CapacityProblem, order: int = 0) -> list[Placed | None]:
    """The fill in the order `fill_orders` tries `order`-th (0: the queue's)."""
    part = list(range(len(p.units)))
    return fill(p, part, charge(p, part, greedy_of(p)), fill_orders(p, part)[order])


def no_model(p: CapacityProblem):
    """solve_joint with its time already gone: the fills and the bound, no model."""
    part = list(range(len(p.units)))
    return solve_joint(p, part, greedy_of(p), deadline=time.perf_counter() - 1)


def grouped(target, groups, candidates=(0, 1, 2), count=3) -> Unit:
    return Unit(count, (1, 1), options=(Option(candidates, target=target, groups=groups),))


def full_zero(count: int = 10) -> Unit:
    """A fixed unit that takes all of cluster 0's room."""
    return Unit(count, (1, 1), fixed=((0, count),), order=99)


def test_a_grouped_request_moves_off_greedys_split_that_no_longer_fits() -> None:
    # Greedy put the 3 replicas on cluster 0, which a fixed unit fills: at most 2 clusters.
    unit = grouped(((0, 3),), (Groups((0, 1, 2), 1, 2),))
    p = problem([[10, 10], [2, 10], [2, 10]], [unit, full_zero()])
    out = filled(p)
    assert out[0] is not None and dict(out[0].replicas) == {1: 2, 2: 1}
    assert not overcommitted(p, [0, 1], out)


def test_a_grouped_request_keeps_within_its_most_groups_or_is_not_placed() -> None:
    unit = grouped(((0, 3),), (Groups((0, 1, 2), 1, 1),))  # one cluster only, and none takes 3
    p = problem([[10, 10], [2, 10], [2, 10]], [unit, full_zero()])
    assert filled(p)[0] is None


def test_a_grouped_request_uses_its_least_groups() -> None:
    # Two regions at least (0 and 1: clusters 1 and 2 are region 1, cluster 3 region 2).
    unit = grouped(((0, 2), (1, 1)), (Groups((0, 0, 1), 2, 2), Groups((0, 1, 2), 1, 3)), (0, 1, 3))
    p = problem([[10, 10], [5, 10], [0, 10], [5, 10]], [unit, full_zero()])
    out = filled(p)
    assert out[0] is not None and set(dict(out[0].replicas)) == {1, 3}


def test_a_claim_spread_alone_takes_one_cluster_per_group() -> None:
    # Regions only (no cluster spread): upstream selects one cluster per region.
    unit = grouped(((0, 3),), (Groups((0, 1, 1), 1, 2),))
    p = problem([[10, 10], [2, 10], [2, 10]], [unit, full_zero()])
    assert filled(p)[0] is None  # 3 replicas need both clusters of region 1
    roomy = problem([[10, 10], [3, 10], [2, 10]], [unit, full_zero()])
    assert dict(filled(roomy)[0].replicas) == {1: 3}


def test_the_smallest_first_fill_schedules_more_where_room_runs_out() -> None:
    big = Unit(4, (1, 1), options=(Option((0,), target=((0, 4),)),), order=0)
    small = [Unit(1, (1, 1), options=(Option((0,), target=((0, 1),)),), order=i) for i in range(1, 5)]
    p = problem([[4, 10]], [big, *small])
    assert sum(x is None for x in filled(p)) == 4
    assert sum(x is None for x in filled(p, 1)) == 1
    out = no_model(p)
    assert out.values[0] == 1 and out.bound[0] == 1 and out.answer[0] is None


def test_the_bound_counts_what_cannot_fit_a_set_of_clusters() -> None:
    # Three units of 2 on clusters {0, 1} with 5 of room together: one is lost whatever happens;
    # the fourth may go to cluster 2 and proves nothing.
    inside = [Unit(2, (1, 1), options=(Option((0, 1), target=((0, 2),)),), order=i) for i in range(3)]
    wide = Unit(2, (1, 1), options=(Option((0, 1, 2), target=((0, 2),)),), order=3)
    p = problem([[3, 10], [2, 10], [2, 10]], [*inside, wide])
    part = list(range(4))
    answer = filled(p, 1)
    assert unscheduled_bound(p, part, room_after_fixed(p, part), answer, [1]) == [1]
    out = no_model(p)
    assert out.values[0] == out.bound[0] == 1


def test_the_narrowest_first_fill_leaves_the_narrow_ones_their_room() -> None:
    # The wide unit comes first and is the smaller: it takes cluster 0, the narrow one's only room.
    wide = Unit(1, (1, 1), options=(Option((0, 1), target=((0, 1),)),), order=0)
    narrow = Unit(2, (1, 1), options=(Option((0,), target=((0, 2),)),), order=1)
    p = problem([[2, 10], [1, 10]], [wide, narrow])
    assert filled(p)[1] is None and filled(p, 1)[1] is None
    assert filled(p, 2)[1] is not None
    out = no_model(p)
    assert out.values[0] == 0 and dict(out.answer[0].replicas) == {1: 1}


def test_the_bound_of_a_lower_priority_holds_what_the_higher_ones_left() -> None:
    high = [Unit(2, (1, 1), options=(Option((0,), target=((0, 2),)),), priority=5, order=i) for i in range(2)]
    low = [Unit(1, (1, 1), options=(Option((0,), target=((0, 1),)),), order=2 + i) for i in range(3)]
    p = problem([[5, 10]], [*high, *low])
    out = no_model(p)
    assert out.values[:2] == (0, 2) and out.bound[:2] == (0, 2)
    assert measure(p, list(range(5)), out.answer)[:2] == (0, 2)


def test_with_its_time_gone_optimal_still_fills_rather_than_charges_greedy() -> None:
    # karmada#6518 with no time for a model: greedy charged leaves 5 apps out, the fill none.
    clusters = [cluster("b", {"cpu": 10_000, PODS: 100}), cluster("c", {"cpu": 5_000, PODS: 100})]
    apps = [request(f"app-{i:02}", 1, demand={"cpu": 1000, PODS: 1}, order=i) for i in range(15)]
    b = Batch(tuple(clusters), tuple(apps))
    result = solve(b, SolveOptions(mode="optimal", threads=1, time_limit=1e-9))
    assert check(b, result) == []
    assert result.stats.time_limited
    on = [as_set(got) for got in result.requests]
    assert all(got.satisfied for got in result.requests)
    assert on.count({"b": 1}) == 10 and on.count({"c": 1}) == 5


def test_a_grouped_request_whose_held_clusters_break_its_groups_is_not_moved() -> None:
    # Steady, it keeps 1 on each of clusters 0 and 1 (two groups) but may use one group only.
    option = Option((0, 1, 2), held=((0, 1), (1, 1)), target=((0, 4),), groups=(Groups((0, 1, 2), 1, 1),))
    unit = Unit(4, (1, 1), options=(option,))
    p = problem([[1, 10], [5, 10], [5, 10]], [unit])
    assert filled(p)[0] is None


def test_the_class_model_keeps_held_replicas_afresh_where_its_cap_is_zero() -> None:
    # Divided afresh, it holds 3 on cluster 0, where it may add none (cap 0) and nothing is free:
    # keeping them is the answer; the model's distance to the split once ranged over the cap only.
    option = Option((0, 1), held=((0, 3),), target=((0, 1), (1, 2)), most=(0, 2))
    unit = Unit(3, (0, 1), options=(option,), fresh=True)
    p = problem([[0, 0], [0, 0]], [unit])
    out = solve_joint(p, [0], [Placed(0, ((0, 1), (1, 2)))], deadline=None)
    assert out.answer == [Placed(0, ((0, 3),))]
    assert out.values[0] == out.bound[0] == 0 and out.proven


def test_the_repair_moves_a_wider_request_off_the_room_a_narrower_one_needs() -> None:
    # Every fill order puts the first request on cluster 0 (its split), which the third needs
    # (its only clusters are 0 and 1, one free on each); moved to cluster 2, all three fit.
    wide = Unit(1, (1, 1), options=(Option((0, 1, 2), target=((0, 1),)),), order=0)
    middle = Unit(1, (1, 1), options=(Option((0, 2), target=((0, 1),)),), order=1)
    narrow = Unit(2, (1, 1), options=(Option((0, 1), target=((0, 2),)),), order=2)
    p = problem([[1, 10], [1, 10], [2, 10]], [wide, middle, narrow])
    assert all(filled(p, k)[2] is None for k in range(3))
    out = no_model(p)
    assert out.values[0] == out.bound[0] == 0
    assert [dict(x.replicas) for x in out.answer] == [{2: 1}, {2: 1}, {0: 1, 1: 1}]
    assert not overcommitted(p, [0, 1, 2], out.answer)


def test_the_parts_found_over_the_clusters_are_those_of_the_draws() -> None:
    import random

    from solver.decompose import components
    from solver.replicas.capacity import _cluster_components, _rows_drawn
    from solver.replicas.capacity_units import draws

    rng = random.Random(7)
    for _ in range(300):
        clusters = rng.randint(1, 12)
        units = []
        for order in range(rng.randint(1, 8)):
            rows = tuple(sorted(rng.sample(range(clusters), rng.randint(0, min(3, clusters)))))
            if rng.random() < 0.3 and rows:
                units.append(Unit(1, (rng.randint(0, 1), 1), fixed=((rows[0], 1),), order=order))
            else:
                options = (Option(rows, target=()),) if rows else ()
                units.append(Unit(1, (1, 1), options=options, order=order))
        p = problem([[1, 1]] * clusters, units)
        rows = _rows_drawn(p)
        label = _cluster_components(clusters, rows)
        keys = [[("capacity", int(label[r[0]]))] if len(r) else [] for r in rows]
        assert components(keys) == components(draws(p))


def test_without_a_model_every_aim_has_a_bound() -> None:
    # Issue 20: no level's gap null in an optimal run. A steady AGGREGATED unit keeps its replicas
    # on clusters 0 and 1 (2 clusters used at least), one afresh (a higher priority, all scheduled)
    # uses one at least; one of the lower two cannot fit and the bound leaves out the one that
    # would use the most.
    steady = Unit(
        4,
        (1, 1),
        Division.AGGREGATED,
        options=(Option((0, 1, 2), held=((0, 1), (1, 1)), target=((0, 2), (1, 2))),),
        order=0,
    )
    fresh = Unit(
        3, (1, 1), Division.AGGREGATED, options=(Option((0, 1, 2), target=((2, 3),)),), fresh=True, priority=1
    )
    big = Unit(9, (1, 1), Division.AGGREGATED, options=(Option((0, 1, 2), target=((2, 9),)),), order=2)
    p = problem([[3, 10], [3, 10], [3, 10]], [steady, fresh, big])
    out = no_model(p)
    names = level_names(p)
    assert None not in out.bound
    assert all(b <= v for b, v in zip(out.bound, out.values, strict=True))
    assert out.values[:2] == (0, 1) and out.bound[:2] == (0, 1)
    assert out.bound[names.index("clusters-used")] == 1  # steady's 2 or big's 1: one is left out
    assert out.bound[names.index("fresh-clusters-used")] == 1
