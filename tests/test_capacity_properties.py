"""solver.replicas.joint, properties on random small problems: never over capacity, every hard rule
held, never worse than greedy charged (lexicographically, so on the first level too), the same
answer twice."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from model import Division
from solver.replicas.capacity_units import (
    CapacityProblem,
    Groups,
    Option,
    Placed,
    Unit,
    charge,
    measure,
    overcommitted,
)
from solver.replicas.joint import solve_joint
from tests.fixtures.batches import splits


@st.composite
def options(draw, clusters: int, count: int, fresh: bool, cost: int) -> Option:
    rows = sorted(draw(st.sets(st.integers(0, clusters - 1), min_size=1, max_size=clusters)))
    held = dict(draw(splits(rows, draw(st.integers(0, count)), {}))) if draw(st.booleans()) else {}
    target = draw(splits(rows, count, {} if fresh else held))
    # Greedy's own split holds the option's caps and groups (it is upstream's answer).
    aimed, kept = dict(target), dict(held)
    most = None
    if draw(st.integers(0, 4)) == 0:
        most = tuple(max(draw(st.integers(0, 4)), aimed.get(r, 0) - kept.get(r, 0)) for r in rows)
    groups = ()
    if draw(st.integers(0, 3)) == 0:
        of = tuple(draw(st.integers(0, 1)) for _ in rows)
        used = len({g for r, g in zip(rows, of, strict=True) if r in aimed})
        least = min(draw(st.integers(1, 2)), used)
        groups = (Groups(of, least, max(draw(st.integers(least, 2)), used)),)
        if not one_cluster_each(groups[0], rows, aimed):  # not a split upstream selects
            groups = ()
    return Option(tuple(rows), tuple(sorted(held.items())), target, most, groups, cost)


@st.composite
def problems(draw) -> tuple[CapacityProblem, list[Placed | None]]:
    clusters = draw(st.integers(1, 4))
    free = [[draw(st.integers(-1, 8)), draw(st.integers(0, 8))] for _ in range(clusters)]
    units, greedy = [], []
    for order in range(draw(st.integers(1, 7))):
        count = draw(st.integers(1, 4))
        demand = (draw(st.integers(0, 2)), 1)
        priority = draw(st.integers(0, 1))
        if draw(st.integers(0, 5)) == 0:
            row = draw(st.integers(0, clusters - 1))
            fixed = ((row, count),)
            units.append(Unit(count, demand, Division.WEIGHTED, fixed=fixed, priority=priority, order=order))
            greedy.append(Placed(-1, fixed))
            continue
        fresh = draw(st.booleans())
        division = draw(st.sampled_from([Division.AVAILABLE, Division.AGGREGATED]))
        opts = tuple(draw(options(clusters, count, fresh, cost)) for cost in range(draw(st.integers(0, 2))))
        if not fresh:  # a steady unit that would shrink is fixed: keep only the options it grows in
            opts = tuple(o for o in opts if o.kept <= count)
        units.append(Unit(count, demand, division, opts, fresh=fresh, priority=priority, order=order))
        greedy.append(Placed(0, opts[0].target) if opts else None)
    # Copies of some units: classes of several requests.
    for _ in range(draw(st.integers(0, 3))):
        i = draw(st.integers(0, len(units) - 1))
        units.append(units[i])
        greedy.append(greedy[i])
    units = [
        Unit(u.count, u.demand, u.division, u.options, u.fixed, u.held, u.fresh, u.priority, order)
        for order, u in enumerate(units)
    ]
    return CapacityProblem(np.asarray(free, dtype=np.int64), tuple(units)), greedy


def hard_rules_hold(p: CapacityProblem, answer: list[Placed | None]) -> None:
    for unit, placed in zip(p.units, answer, strict=True):
        if placed is None:
            continue
        if unit.fixed is not None:
            assert placed == Placed(-1, unit.fixed)
            continue
        option = unit.options[placed.option]
        x = dict(placed.replicas)
        assert sum(x.values()) == unit.count
        assert set(x) <= set(option.candidates)
        assert all(n > 0 for n in x.values())
        held = dict(option.held)
        if not unit.fresh:  # what it holds kept; with a spread, given up where it selects nothing
            assert all(x.get(row, 0) >= n or (option.groups and row not in x) for row, n in held.items())
        if option.most is not None:
            for row, most in zip(option.candidates, option.most, strict=True):
                assert x.get(row, 0) - held.get(row, 0) <= most
        for groups in option.groups:
            of = dict(zip(option.candidates, groups.of, strict=True))
            used = {of[row] for row in x}
            assert min(groups.least, unit.count) <= len(used) <= groups.most
        if not any(len(set(g.of)) == len(g.of) for g in option.groups):
            assert all(one_cluster_each(g, option.candidates, x) for g in option.groups)


def one_cluster_each(groups: Groups, rows, split) -> bool:
    """The split uses one cluster of each group at most (upstream's selection where no constraint
    counts clusters; solver.checker reads it so)."""
    used = [g for row, g in zip(rows, groups.of, strict=True) if row in split]
    return len(used) == len(set(used))


@settings(max_examples=60)
@given(problems())
def test_never_over_capacity_never_worse_than_greedy_charged(case) -> None:
    p, greedy = case
    part = list(range(len(p.units)))
    out = solve_joint(p, part, greedy)
    assert not overcommitted(p, part, out.answer)
    hard_rules_hold(p, out.answer)
    charged = charge(p, part, greedy)
    assert out.values == measure(p, part, out.answer)
    assert out.values <= measure(p, part, charged)
    assert out.values[0] <= measure(p, part, charged)[0]
    assert all(b is None or b <= v for b, v in zip(out.bound, out.values, strict=True))


@settings(max_examples=20)
@given(problems())
def test_the_same_problem_gives_the_same_answer(case) -> None:
    p, greedy = case
    part = list(range(len(p.units)))
    assert solve_joint(p, part, greedy).answer == solve_joint(p, part, greedy).answer


def every_split(unit: Unit, o: int):
    """Every placement of the unit under option o that holds the hard rules (capacity aside)."""
    rows = unit.options[o].candidates

    def walk(i: int, left: int, prefix: tuple[tuple[int, int], ...]):
        if i == len(rows):
            if left == 0:
                yield prefix
            return
        for n in range(left + 1):
            yield from walk(i + 1, left - n, (*prefix, (rows[i], n)) if n else prefix)

    for split in walk(0, unit.count, ()):
        placed = Placed(o, tuple(sorted(split)))
        try:
            hard_rules_hold(CapacityProblem(np.zeros((1, 1)), (unit,)), [placed])
        except AssertionError:
            continue
        yield tuple(sorted(split))


@settings(max_examples=25)
@given(problems())
def test_the_first_levels_are_the_brute_force_optimum(case) -> None:
    p, greedy = case
    units = p.units[:3]
    p = CapacityProblem(p.free, units)
    part = list(range(len(units)))
    choices = [
        [Placed(-1, u.fixed)]
        if u.fixed is not None
        else [None] + [Placed(o, split) for o in range(len(u.options)) for split in every_split(u, o)]
        for u in units
    ]
    best = None
    for combination in _product(choices):
        answer = list(combination)
        if not overcommitted(p, part, answer):
            first = measure(p, part, answer)[: len(p.priorities)]
            best = first if best is None or first < best else best
    out = solve_joint(p, part, greedy[:3])
    assert out.values[: len(p.priorities)] == best


def _product(choices):
    if not choices:
        yield ()
        return
    for head in choices[0]:
        for rest in _product(choices[1:]):
            yield (head, *rest)
