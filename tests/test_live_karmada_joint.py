"""The joint capacity solve of a live Karmada event (solver.replicas.joint, capacity_alone): a few
bindings among many clusters, each usually at the least it can be alone, proven so without the
class model; and that proof checked against every answer of small problems."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Division
from solver.replicas.capacity_alone import at_own_least, model_cannot_place, own_least
from solver.replicas.capacity_classes import build_classes
from solver.replicas.capacity_model import solve_classes
from solver.replicas.capacity_units import (
    CapacityProblem,
    Groups,
    Option,
    Placed,
    Unit,
    charge,
    measure,
    overcommitted,
    room_after_fixed,
)
from solver.replicas.joint import solve_joint
from tests.fixtures.batches import splits


def _event_problem(clusters: int = 1_000) -> tuple[CapacityProblem, list[Placed | None]]:
    """What a tainted cluster's event schedules on a live hub (bench karmada-1k-10k, event 148):
    two bindings divided afresh over hundreds of candidates, one AGGREGATED where it runs now, a
    non-workload binding fixed; every cluster with room to spare."""
    free = np.full((clusters, 2), 64, dtype=np.int64)
    wide = tuple(range(0, clusters, 2))
    spread = tuple(sorted({*range(5, 700, 3)}))
    available_held = tuple((row, 1) for row in spread[:18])
    aggregated_held = ((570, 4),)
    units = (
        Unit(0, (0, 0), Division.EVERY, fixed=((1, 1), (3, 1)), held=((1, 1), (3, 1))),
        Unit(
            18,
            (1, 1),
            Division.AVAILABLE,
            (Option(spread, available_held, (*available_held[1:], (8, 1))),),
            fresh=True,
            order=1,
        ),
        Unit(
            4,
            (2, 1),
            Division.AGGREGATED,
            (Option(wide, aggregated_held, aggregated_held),),
            fresh=True,
            order=2,
        ),
    )
    p = CapacityProblem(free, units)
    greedy = [Placed(-1, units[0].fixed), *(Placed(0, u.options[0].target) for u in units[1:])]
    return p, greedy


def test_an_event_whose_bindings_are_each_at_their_least_builds_no_model() -> None:
    # Before: the class model was built over every candidate (some 1,000 arcs here, 8,000 on the
    # hub's worst events: 0.2 to 2.7 s of CPU) to confirm greedy's answer, and it proved nothing.
    p, greedy = _event_problem()
    part = list(range(len(p.units)))
    out = solve_joint(p, part, greedy, deadline=None)
    assert out.models == 0
    assert out.proven and out.bound == out.values
    assert out.answer == charge(p, part, greedy)


def test_a_binding_divided_afresh_that_could_stay_is_kept_where_it_runs_without_a_model() -> None:
    # AGGREGATED afresh: greedy moves its 8 replicas to another cluster while the one it holds
    # them on still has room (bench event 143): kept there it moves nothing, on one cluster, its
    # least; before, the class model (0.4 cpu s on the hub) found it.
    units = (
        Unit(0, (0, 0), Division.EVERY, fixed=((1, 1),), held=((1, 1),)),
        Unit(
            8,
            (1, 1),
            Division.AGGREGATED,
            (Option(tuple(range(40)), ((35, 8),), ((10, 8),)),),
            fresh=True,
            order=1,
        ),
    )
    p = CapacityProblem(np.full((40, 2), 64, dtype=np.int64), units)
    greedy = [Placed(-1, ((1, 1),)), Placed(0, ((10, 8),))]
    part = list(range(len(units)))
    assert not at_own_least(p, part, charge(p, part, greedy), room_after_fixed(p, part))
    out = solve_joint(p, part, greedy, deadline=None)
    assert out.answer[1] == Placed(0, ((35, 8),))
    assert out.values < measure(p, part, charge(p, part, greedy))
    assert out.models == 0 and out.proven


def test_a_steady_binding_the_model_cannot_keep_in_its_spread_builds_no_model() -> None:
    # Steady AGGREGATED with a spread of at most 2 regions, holding replicas in 3: greedy's
    # division re-selects 2 and gives the third up (bench events 37, 45); the model keeps what a
    # steady unit holds, so it can only leave the unit out: worse. Before, it was built anyway.
    regions = (0, 0, 1, 1, 2, 2)
    held = ((0, 1), (2, 1), (4, 1))
    option = Option(tuple(range(6)), held, ((0, 3), (2, 1)), None, (Groups(regions, 1, 2),))
    units = (
        Unit(4, (1, 1), Division.AGGREGATED, (option,), order=0),
        Unit(2, (1, 1), Division.AVAILABLE, (Option((1, 3), (), ((1, 1), (3, 1))),), fresh=True, order=1),
    )
    p = CapacityProblem(np.full((6, 2), 8, dtype=np.int64), units)
    greedy = [Placed(0, ((0, 3), (2, 1))), Placed(0, ((1, 1), (3, 1)))]
    part = [0, 1]
    charged = charge(p, part, greedy)
    assert model_cannot_place(p, part, charged)
    out = solve_joint(p, part, greedy, deadline=None)
    assert out.models == 0 and out.answer == charged
    # the model itself, asked: nothing better
    modelled = solve_classes(p, part, build_classes(p, part), charged, seed=0, budget=5.0, deadline=1e18)
    assert modelled.answer is None or measure(p, part, modelled.answer) > out.values


# ---------------------------------------------------------------------- against every answer


@st.composite
def _problems(draw) -> tuple[CapacityProblem, list[Placed | None]]:
    """Up to three units over up to three clusters; greedy's split often where the unit runs
    now (as an event's bindings are), within its caps."""
    clusters = draw(st.integers(1, 3))
    free = [[draw(st.integers(0, 6)), draw(st.integers(0, 6))] for _ in range(clusters)]
    units, greedy = [], []
    for order in range(draw(st.integers(1, 3))):
        count = draw(st.integers(1, 3))
        demand = (draw(st.integers(0, 2)), 1)
        priority = draw(st.integers(0, 1))
        if draw(st.integers(0, 4)) == 0:
            fixed = ((draw(st.integers(0, clusters - 1)), count),)
            units.append(Unit(count, demand, Division.WEIGHTED, fixed=fixed, priority=priority, order=order))
            greedy.append(Placed(-1, fixed))
            continue
        fresh = draw(st.booleans())
        division = draw(st.sampled_from([Division.AVAILABLE, Division.AGGREGATED]))
        options = []
        for cost in range(draw(st.integers(1, 2))):
            rows = sorted(draw(st.sets(st.integers(0, clusters - 1), min_size=1, max_size=clusters)))
            held = {}
            if draw(st.booleans()):  # all on one cluster (an AGGREGATED unit running), or spread
                held = {draw(st.sampled_from(rows)): count}
            elif draw(st.booleans()):
                held = dict(draw(splits(rows, draw(st.integers(0, count)), {})))
            if draw(st.booleans()) and sum(held.values()) == count:
                target = tuple(sorted(held.items()))
            else:
                target = draw(splits(rows, count, {} if fresh else held))
            most = None
            if draw(st.booleans()):
                aimed = dict(target)
                most = tuple(max(draw(st.integers(0, 3)), aimed.get(r, 0) - held.get(r, 0)) for r in rows)
            if not fresh and sum(held.values()) > count:
                continue
            options.append(Option(tuple(rows), tuple(sorted(held.items())), target, most, (), cost))
        units.append(
            Unit(count, demand, division, tuple(options), fresh=fresh, priority=priority, order=order)
        )
        greedy.append(Placed(0, options[0].target) if options else None)
    return CapacityProblem(np.asarray(free, dtype=np.int64), tuple(units)), greedy


def _placements(unit: Unit, o: int):
    """Every placement of the unit under option o by its hard rules (capacity aside): every
    replica on a candidate, a steady unit keeping what it holds, what it adds within the caps."""
    option = unit.options[o]
    rows, held = option.candidates, dict(option.held)
    cap = dict(zip(rows, option.most, strict=True)) if option.most is not None else {}

    def walk(i: int, left: int, prefix: tuple[tuple[int, int], ...]):
        if i == len(rows):
            if left == 0:
                yield prefix
            return
        row = rows[i]
        for n in range(left + 1):
            if (not unit.fresh and n < held.get(row, 0)) or n - held.get(row, 0) > cap.get(row, n):
                continue
            yield from walk(i + 1, left - n, (*prefix, (row, n)) if n else prefix)

    for split in walk(0, unit.count, ()):
        yield Placed(o, split)


def _least(p: CapacityProblem) -> tuple[int, ...]:
    """The lexicographically least levels of any answer that fits (brute force)."""
    choices = [
        [Placed(-1, u.fixed)]
        if u.fixed is not None
        else [None, *(placed for o in range(len(u.options)) for placed in _placements(u, o))]
        for u in p.units
    ]
    part = list(range(len(p.units)))
    best = None
    stack: list[tuple[int, list[Placed | None]]] = [(0, [])]
    while stack:
        i, answer = stack.pop()
        if i == len(choices):
            if not overcommitted(p, part, answer):
                values = measure(p, part, answer)
                best = values if best is None or values < best else best
            continue
        stack += [(i + 1, [*answer, choice]) for choice in choices[i]]
    assert best is not None
    return best


@settings(max_examples=80, deadline=None)
@given(_problems())
def test_an_answer_with_every_unit_at_its_own_least_is_the_least_of_all(case) -> None:
    p, greedy = case
    part = list(range(len(p.units)))
    charged = charge(p, part, greedy)
    least = own_least(p, part, charged, room_after_fixed(p, part))
    if least is None:
        return
    assert not overcommitted(p, part, least)
    assert measure(p, part, least) == _least(p)
    out = solve_joint(p, part, greedy, deadline=None)
    assert out.proven and out.models == 0 and out.answer == least
    if at_own_least(p, part, charged, room_after_fixed(p, part)):
        assert least == charged


def test_an_answer_that_meets_its_bound_on_every_level_builds_no_model() -> None:
    # Two bindings want the one cluster with room for one: one is unscheduled whatever happens
    # (capacity_bound proves it), the other on greedy's own split; nothing left to search.
    units = tuple(
        Unit(2, (1, 1), Division.AVAILABLE, (Option((0,), (), ((0, 2),)),), fresh=True, order=i)
        for i in range(2)
    )
    p = CapacityProblem(np.asarray([[2, 2]], dtype=np.int64), units)
    greedy = [Placed(0, ((0, 2),)), Placed(0, ((0, 2),))]
    part = [0, 1]
    assert not at_own_least(p, part, charge(p, part, greedy), room_after_fixed(p, part))
    out = solve_joint(p, part, greedy, deadline=None)
    assert out.models == 0 and out.proven
    assert out.values[0] == 1 and out.answer == charge(p, part, greedy)


@st.composite
def _with_one_to_keep(draw) -> tuple[CapacityProblem, list[Placed | None]]:
    """A problem and one more unit: AGGREGATED afresh, running on one cluster, greedy's split
    elsewhere."""
    p, greedy = draw(_problems())
    clusters = len(p.free)
    count = draw(st.integers(1, 3))
    rows = sorted(draw(st.sets(st.integers(0, clusters - 1), min_size=1, max_size=clusters)))
    target = draw(splits(rows, count, {}))
    option = Option(tuple(rows), ((draw(st.sampled_from(rows)), count),), target)
    unit = Unit(
        count, (draw(st.integers(0, 2)), 1), Division.AGGREGATED, (option,), fresh=True, order=len(greedy)
    )
    return CapacityProblem(p.free, (*p.units, unit)), [*greedy, Placed(0, target)]


@settings(max_examples=60, deadline=None)
@given(_with_one_to_keep())
def test_a_unit_kept_where_it_runs_makes_the_least_of_all(case) -> None:
    test_an_answer_with_every_unit_at_its_own_least_is_the_least_of_all.hypothesis.inner_test(case)
