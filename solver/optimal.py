"""The joint model: CP-SAT for what needs search, with the greedy answer as hint and fallback.

Only a request of N clusters under topology spread needs search: with no spread the top-N sort is
already optimal for the objective, and ALL and FIXED leave nothing to choose. Such a request is
modelled small: candidates are grouped in cells (clusters alike for every spread constraint); inside
a cell the better cluster is always taken first, so each cell keeps only its best `N - present`
candidates, in order, and the model decides how many to take from each cell.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from ortools.sat.python import cp_model

from solver.objective import Scale, combine, evaluate
from solver.prepare import PASS, Prepared
from solver.solution import Solution, explain_cycle, pick_order
from solver.spread import SOFT_VIOLATION, SpreadState
from solver.table import ClusterTable

__all__ = ["SearchOutcome", "solve_spread"]

_STAGE_LIMIT = 2**53  # a stage's objective must be exact as a double, which CP-SAT reports


@dataclass(slots=True)
class SearchOutcome:
    solution: Solution
    values: tuple[int, ...]
    bound: int  # the combined objective no answer can exceed
    status: str
    build_seconds: float
    solve_seconds: float
    time_limited: bool


def _canonical(cells: dict[int, list[int]], cell_of: dict[int, int], picks: list[int]) -> list[int]:
    """The same number of picks per cell, but the cell's best ones: never worse for the objective.
    `cell_of` covers every candidate: greedy may pick one a truncated cell does not list (after its
    first cycle it no longer prefers obsolete decisions, which rank first in a cell)."""
    taken: dict[int, int] = {}
    for row in picks:
        taken[cell_of[row]] = taken.get(cell_of[row], 0) + 1
    return [row for cell, count in sorted(taken.items()) for row in cells[cell][:count]]


def solve_spread(
    p: Prepared,
    table: ClusterTable,
    scale: Scale,
    greedy: Solution,
    limit: int,
    *,
    seed: int,
    deterministic_budget: float,
    deadline: float,
) -> SearchOutcome:
    started = time.perf_counter()
    want = p.request.count - p.present
    kept = list(p.kept)
    state = SpreadState(table, p.request.spread, kept)

    # Cells, each ordered best first; only a cell's best `want` candidates can be in an optimum.
    candidates = np.flatnonzero(p.outcome == PASS)
    cell_ids = state.cells(candidates)
    cells: dict[int, list[int]] = {}
    cell_of = {int(r): int(c) for r, c in zip(candidates.tolist(), cell_ids.tolist(), strict=True)}
    for cell in np.unique(cell_ids):
        rows = pick_order(p, table, candidates[cell_ids == cell])
        cells[int(cell)] = [int(r) for r in rows[:want]]

    model = cp_model.CpModel()
    rows = [r for cell in sorted(cells) for r in cells[cell]]
    x = {r: model.new_bool_var(f"x{r}") for r in rows}
    for cell in sorted(cells):
        ordered = cells[cell]
        for better, worse in zip(ordered, ordered[1:], strict=False):
            model.add_implication(x[worse], x[better])
    picked = cp_model.LinearExpr.sum([x[r] for r in rows])
    model.add(picked <= want)

    most = p.present + want
    spread_terms: list[tuple[cp_model.LinearExprT, int]] = []
    for dim, skew0 in zip(state.dimensions, state.initial_skew, strict=True):
        if not dim.domains:
            continue
        members: dict[int, list[int]] = {}
        for r in rows:
            code = int(dim.codes[r])
            if code >= 0:
                members.setdefault(code, []).append(r)
        high = model.new_int_var(0, most, "")
        low = model.new_int_var(0, most, "")
        for code, base in enumerate(dim.counts.tolist()):
            count = base + cp_model.LinearExpr.sum([x[r] for r in members.get(code, [])])
            model.add(high >= count)
            model.add(low <= count)
        skew = high - low
        constraint = dim.constraint
        if constraint.hard:
            # Never above max skew, nor above the skew the kept decisions already have.
            model.add(skew <= max(constraint.max_skew, skew0))
            spread_terms.append((skew, 1))
        else:
            excess = model.new_int_var(0, most, "")
            model.add(excess >= skew - constraint.max_skew)
            spread_terms.append((skew, 1))
            spread_terms.append((excess, SOFT_VIOLATION))

    penalty = cp_model.LinearExpr.weighted_sum([e for e, _ in spread_terms], [c for _, c in spread_terms])
    # The levels of solver.objective, unshifted (Scale.offsets shifts them).
    levels = [
        picked,
        -penalty,
        cp_model.LinearExpr.weighted_sum([x[r] for r in rows], [int(p.affinity[r]) for r in rows]),
        cp_model.LinearExpr.weighted_sum([x[r] for r in rows], [int(p.obsolete[r]) for r in rows]),
        cp_model.LinearExpr.weighted_sum([x[r] for r in rows], [int(table.rank[r]) for r in rows]),
    ]

    hint = _canonical(cells, cell_of, greedy.picks)
    hinted = set(hint)
    for r in rows:
        model.add_hint(x[r], r in hinted)
    build_seconds = time.perf_counter() - started

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1  # deterministic; these models are small
    solver.parameters.random_seed = seed
    status_names, time_limited, bound_level, solve_seconds = [], False, None, 0.0
    best: list[int] | None = None
    for stage in _stages(scale.spans):
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            time_limited = True
            break
        solver.parameters.max_time_in_seconds = remaining
        solver.parameters.max_deterministic_time = deterministic_budget
        weights = _stage_weights(scale.spans, stage)
        objective = sum(w * levels[i] for i, w in zip(stage, weights, strict=True))
        model.maximize(objective)
        t0 = time.perf_counter()
        status = solver.solve(model)
        solve_seconds += time.perf_counter() - t0
        status_names.append(solver.status_name(status))
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        best = [r for r in rows if solver.boolean_value(x[r])]
        value = round(solver.objective_value)
        if status == cp_model.OPTIMAL:
            model.add(objective == value)
        else:
            time_limited = time_limited or solver.wall_time >= solver.parameters.max_time_in_seconds * 0.99
            bound_level = (stage, round(solver.best_objective_bound))
            model.add(objective >= value)
            break  # lower levels would be solved against an unproven higher level
        model.clear_hints()
        for r in rows:
            model.add_hint(x[r], r in set(best))

    fallback = _canonical(cells, cell_of, greedy.picks)
    picks = fallback if best is None else best
    values = evaluate(p, table, scale, kept, picks)
    fallback_values = evaluate(p, table, scale, kept, fallback)
    if combine(fallback_values, scale.spans) > combine(values, scale.spans):
        picks, values = fallback, fallback_values  # never worse than greedy
    objective = combine(values, scale.spans)
    optimal = best is not None and bound_level is None and len(status_names) == len(_stages(scale.spans))
    bound = objective if optimal else _bound(scale, values, bound_level)
    solution = _finish(p, table, picks, limit)
    status = "OPTIMAL" if optimal else ("FEASIBLE" if best is not None else (status_names or ["GREEDY"])[-1])
    return SearchOutcome(solution, values, bound, status, build_seconds, solve_seconds, time_limited)


def _stages(spans: tuple[int, ...]) -> list[list[int]]:
    """Consecutive levels grouped so that each group's combined range stays exact."""
    stages: list[list[int]] = []
    current: list[int] = []
    width = 1
    for i, span in enumerate(spans):
        if current and width * (span + 1) > _STAGE_LIMIT:
            stages.append(current)
            current, width = [], 1
        current.append(i)
        width *= span + 1
    stages.append(current)
    return stages


def _stage_weights(spans: tuple[int, ...], stage: list[int]) -> list[int]:
    weights = []
    for i in stage:
        weight = 1
        for j in stage:
            if j > i:
                weight *= spans[j] + 1
        weights.append(weight)
    return weights


def _bound(scale: Scale, values: tuple[int, ...], cut: tuple[list[int], int] | None) -> int:
    """A proven upper bound: the levels solved before the cut as found, the cut stage at CP-SAT's
    bound, every level below at its span."""
    if cut is None:
        return combine(scale.spans, scale.spans)
    stage, stage_bound = cut
    weights = _stage_weights(scale.spans, stage)
    shifted = stage_bound + sum(w * scale.offsets[i] for i, w in zip(stage, weights, strict=True))
    total = 0
    for i in range(stage[0]):
        total = total * (scale.spans[i] + 1) + values[i] if i else values[0]
    width = 1
    for i in stage:
        width *= scale.spans[i] + 1
    total = total * width + shifted
    for i in range(stage[-1] + 1, len(scale.spans)):
        total = total * (scale.spans[i] + 1) + scale.spans[i]
    return total


def _finish(p: Prepared, table: ClusterTable, picks: list[int], limit: int) -> Solution:
    """Scores and report for the chosen picks, each scored as if it were the last pick."""
    kept = list(p.kept)
    state = SpreadState(table, p.request.spread, [*kept, *picks])
    topo = state.final_scores(picks)
    order = sorted(picks, key=lambda r: (topo[r], int(p.affinity[r]), int(p.obsolete[r]), r), reverse=True)
    # What was not picked, scored against the final counts as a next cycle would see it.
    chosen = set(picks)
    rest = np.asarray([r for r in p.candidates.tolist() if r not in chosen], dtype=np.int64)
    score, violated = state.score(rest)
    ok = violated < 0
    unselected = explain_cycle(
        p, table, limit, rest[ok], score[ok], None, rest[~ok], violated[~ok], p.obsolete
    )
    released = [table.names[int(r)] for r in np.flatnonzero(p.obsolete) if int(r) not in chosen]
    return Solution(
        kept=kept,
        picks=order,
        spread_scores={r: topo[r] for r in picks},
        released=released + list(p.released),
        unselected=unselected,
        satisfied=p.present + len(picks) >= p.request.count,
    )
