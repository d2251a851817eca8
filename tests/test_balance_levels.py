"""Balance's levels in optimal mode: every level has a bound, and each bound holds against every
joint answer of a small batch (enumerated, Balance judged on each answer's own decisions)."""

from __future__ import annotations

import itertools

import pytest

import solver.balance as balance
from model import ExistingDecision, PlacementRequest, Preference, PropertySorter, SelectionMode, TieBreak
from solver import SolveOptions, solve
from solver.objective import LEVEL_NAMES, evaluate, scale_of
from solver.prepare import prepare
from solver.solution import Solution
from solver.table import ClusterTable
from tests.fixtures.builders import batch, cluster

CPU = Preference(1, sorter=PropertySorter("cpu", ascending=False, centered=True))


def request(name: str, n: int, weight: int, holds: tuple[str, ...] = ()) -> PlacementRequest:
    return PlacementRequest(
        name,
        namespace="ns",
        mode=SelectionMode.N,
        count=n,
        preferences=(Preference(weight, balance=True), Preference(1, held=True), CPU),
        existing=tuple(ExistingDecision(c, current=False) for c in holds),
        tie_break=TieBreak.SMALLER_NAME,
        prefer_held=False,
    )


CASES = {
    "positive": [request("a", 2, 1, ("c1",)), request("b", 2, 3), request("c", 1, 1, ("c0",))],
    "mixed signs": [request("a", 2, -2, ("c2",)), request("b", 1, 1), request("c", 2, 0, ("c0", "c3"))],
}


def small(requests: list[PlacementRequest]):
    clusters = [cluster(f"c{i}", props={"cpu": str(3 + (5 * i) % 7)}) for i in range(4)]
    return batch(clusters, *requests)


def shortfalls_of_every_answer(b) -> list[tuple[int, ...]]:
    """Each joint answer's levels (shortfalls summed over the requests), Balance on its own decisions."""
    table = ClusterTable(b)
    prepared = prepare(b, table)
    coupled = balance.coupled_requests(prepared)
    assert coupled == list(range(len(prepared)))
    choices = [itertools.combinations(p.candidates.tolist(), p.request.count) for p in prepared]
    out = []
    for answer in itertools.product(*map(list, choices)):
        solutions = {i: Solution(kept=[], picks=list(picks)) for i, picks in enumerate(answer)}
        state, _ = balance._decide(prepared, table, coupled, {}, lambda i, _, s=solutions: s[i])
        total = [0] * len(LEVEL_NAMES)
        for i, p in enumerate(prepared):
            scale = scale_of(p, table)
            values = evaluate(state.scored(i), table, scale, [], solutions[i].picks)
            for k, (span, value) in enumerate(zip(scale.spans, values, strict=True)):
                total[k] += span - value
        out.append(tuple(total))
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_level_has_a_bound_that_no_answer_beats(case: str) -> None:
    b = small(CASES[case])
    levels = solve(b, SolveOptions()).stats.levels
    assert [level.name for level in levels] == list(LEVEL_NAMES)
    assert all(level.bound is not None for level in levels)
    every = shortfalls_of_every_answer(b)
    for k, level in enumerate(levels):
        assert level.bound <= level.objective
        if k >= 2:  # affinity, obsolete, name: bounds for every answer, each level alone
            assert level.bound <= min(answer[k] for answer in every), level.name
