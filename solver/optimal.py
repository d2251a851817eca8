"""The joint model: CP-SAT for what needs search, with the greedy answer as hint and fallback.

Only a request of N clusters under topology spread needs search: with no spread the top-N sort is
already optimal for the objective, and ALL and FIXED leave nothing to choose. Such a request is
modelled small: candidates are grouped in cells (clusters alike for every spread constraint); inside
a cell the better cluster is always taken first, so each cell keeps only its best `N - present`
candidates, in order, and the model decides how many to take from each cell.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from model import SelectionMode, Unselected
from solver.objective import Scale, combine, evaluate
from solver.prepare import Prepared
from solver.search import build, run, stage_weights
from solver.solution import Solution, explain_cycle, pick_order, ranked_candidates, without
from solver.spread import SpreadState
from solver.spread_exact import solve_single_constraint
from solver.spread_nested import nests, solve_nested
from solver.table import ClusterTable

__all__ = ["SearchOutcome", "closed_form", "closed_form_best", "finish", "solve_spread"]


@dataclass(slots=True)
class SearchOutcome:
    solution: Solution
    values: tuple[int, ...]
    bound: int  # the combined objective no answer can exceed
    status: str
    build_seconds: float
    solve_seconds: float
    time_limited: bool
    searched: bool = True  # a CP-SAT model was solved (not a closed form)


def _canonical(cells: dict[int, list[int]], cell_of: dict[int, int], picks: list[int]) -> list[int]:
    """The same number of picks per cell, but the cell's best ones: never worse for the objective.
    `cell_of` covers every candidate: greedy may pick one a truncated cell does not list (after its
    first cycle it no longer prefers obsolete decisions, which rank first in a cell)."""
    taken: dict[int, int] = {}
    for row in picks:
        taken[cell_of[row]] = taken.get(cell_of[row], 0) + 1
    return [row for cell, count in sorted(taken.items()) for row in cells[cell][:count]]


def closed_form(p: Prepared, table: ClusterTable) -> bool:
    """Whether solve_spread answers without a model: one constraint, or two whose domains nest."""
    spread = p.request.spread
    if len(spread) == 1:
        return True
    # It depends on the constraints' keys and the clusters alone: found once per set of constraints.
    return table.derived(
        ("optimal", "closed form", spread), lambda: nests(table, SpreadState(table, spread, []))
    )


def solve_spread(
    p: Prepared,
    table: ClusterTable,
    scale: Scale,
    greedy: Callable[[], Solution],
    limit: int,
    *,
    seed: int,
    deterministic_budget: float,
    deadline: float,
) -> SearchOutcome:
    """The best answer for a request of N clusters under spread. `greedy` is called only where a
    search needs its hint and fallback: one constraint, or two whose domains nest, is solved exactly
    without either."""
    started = time.perf_counter()
    want = p.request.count - p.present
    kept = list(p.kept)
    state = SpreadState(table, p.request.spread, kept)
    candidates = p.candidates

    solved = _closed_form(p, table, scale, state, want)
    if solved is not None:  # solved in closed form, from the candidates in pick order
        picks, ordered, final, values = solved
        objective = combine(values, scale.spans)
        solve_seconds = time.perf_counter() - started
        return SearchOutcome(
            finish(p, table, picks, limit, final, ordered),
            values,
            objective,
            "OPTIMAL",
            0.0,
            solve_seconds,
            False,
            False,
        )

    # Cells, each ordered best first; only a cell's best `want` candidates can be in an optimum.
    cell_ids = state.cells(candidates)
    cells: dict[int, list[int]] = {}
    for cell in np.unique(cell_ids).tolist():
        rows = pick_order(p, table, candidates[cell_ids == cell])
        cells[cell] = rows[:want].tolist()
    first = greedy().picks
    # candidates are sorted rows, so a pick's cell is found by binary search
    greedy_cells = cell_ids[np.searchsorted(candidates, np.asarray(first, dtype=np.int64))]
    fallback = _canonical(cells, dict(zip(first, greedy_cells.tolist(), strict=True)), first)

    space = build(p, table, want, cells)
    build_seconds = time.perf_counter() - started
    searched = run(space, scale, fallback, seed=seed, budget=deterministic_budget, deadline=deadline)
    picks, optimal = searched.picks, searched.optimal
    status = "OPTIMAL" if optimal else ("FEASIBLE" if picks is not None else "UNKNOWN")

    fallback_values = evaluate(p, table, scale, kept, fallback)
    values = fallback_values if picks is None else evaluate(p, table, scale, kept, picks)
    if picks is None or combine(fallback_values, scale.spans) > combine(values, scale.spans):
        picks, values = fallback, fallback_values  # never worse than greedy
    objective = combine(values, scale.spans)
    bound = objective if optimal else max(objective, _bound(scale, values, searched.cut))
    return SearchOutcome(
        finish(p, table, picks, limit),
        values,
        bound,
        status,
        build_seconds,
        searched.solve_seconds,
        searched.time_limited,
    )


def _closed_form(
    p: Prepared, table: ClusterTable, scale: Scale, state: SpreadState, want: int
) -> tuple[list[int], np.ndarray, SpreadState, tuple[int, ...]] | None:
    """solve_spread's answer where one constraint, or two whose domains nest, solve it exactly:
    the picks, the candidates in pick order, the final counts and the answer's levels; None
    otherwise. `state` holds the kept rows."""
    if len(p.request.spread) == 1:
        ordered = ranked_candidates(p, table)
        picks = solve_single_constraint(p, table, state, ordered, want, True)
    else:  # two constraints whose domains nest (zones in regions); None otherwise
        nested = nests(table, state)
        ordered = ranked_candidates(p, table) if nested else p.candidates
        picks = solve_nested(p, table, state, ordered, want, nested)
    if picks is None:
        return None
    final = SpreadState(table, p.request.spread, [*p.kept, *picks])  # read by the levels and the report
    return picks, ordered, final, evaluate(p, table, scale, list(p.kept), picks, final)


def closed_form_best(p: Prepared, table: ClusterTable, scale: Scale) -> tuple[int, int] | None:
    """solve_spread's objective and number of picks where a closed form solves the request (as
    solve_spread finds them, without the answer's scores and report, which cost as much again);
    None where a search would. For what reads the optimum's value alone (the Balance ceiling)."""
    want = p.request.count - p.present
    if p.request.mode is not SelectionMode.N or not p.request.spread or want <= 0:
        return None
    solved = _closed_form(p, table, scale, SpreadState(table, p.request.spread, list(p.kept)), want)
    if solved is None:
        return None
    return combine(solved[3], scale.spans), len(solved[0])


def _bound(scale: Scale, values: tuple[int, ...], cut: tuple[list[int], int] | None) -> int:
    """A proven upper bound: the levels solved before the cut as found, the cut stage at CP-SAT's
    bound, every level below at its span."""
    if cut is None:
        return combine(scale.spans, scale.spans)
    stage, stage_bound = cut
    first, last = stage[0], stage[-1]
    weights = stage_weights(scale.spans, stage)
    shifted = stage_bound + sum(w * scale.offsets[i] for i, w in zip(stage, weights, strict=True))
    total = combine(values[:first], scale.spans[:first]) if first else 0
    total = total * math.prod(scale.spans[i] + 1 for i in stage) + shifted
    for span in scale.spans[last + 1 :]:
        total = total * (span + 1) + span
    return total


def finish(
    p: Prepared,
    table: ClusterTable,
    picks: list[int],
    limit: int,
    state: SpreadState | None = None,
    ordered: np.ndarray | None = None,
) -> Solution:
    """Scores and report for the chosen picks, each scored as if it were the last pick; `state`,
    where given, holds the kept rows and the picks (and is only read); `ordered`, where given, is
    the candidates in pick order (the report's best are then found without ranking them)."""
    kept = list(p.kept)
    state = state or SpreadState(table, p.request.spread, [*kept, *picks])
    topo = state.final_scores(picks)
    order = sorted(
        picks, key=lambda r: (topo[r], int(p.affinity[r]), int(p.sticky[r]), int(p.rank[r])), reverse=True
    )
    chosen = set(picks)
    unselected = _unselected(p, table, picks, limit, state, ordered) if limit else []
    released = [table.names[int(r)] for r in np.flatnonzero(p.obsolete) if int(r) not in chosen]
    return Solution(
        kept=kept,
        picks=order,
        spread_scores={r: topo[r] for r in picks},
        released=released + list(p.released),
        unselected=unselected,
        satisfied=p.present + len(picks) >= p.request.count,
    )


def _unselected(
    p: Prepared,
    table: ClusterTable,
    picks: list[int],
    limit: int,
    state: SpreadState,
    ordered: np.ndarray | None,
) -> list[Unselected]:
    """The report of what was not picked, scored against the final counts as a next cycle would
    see it. With no room in the report (limit 0: the Balance search's asks, whose answers are
    explained again once settled) it is empty, and nothing is scored."""
    if ordered is None:
        rest = without(p.candidates, picks)
    else:
        picked = np.zeros(table.size, dtype=bool)
        picked[picks] = True
        rest = ordered[~picked[ordered]]
    score, violated = state.score(rest)
    ok = violated < 0
    return explain_cycle(
        p, table, limit, rest[ok], score[ok], None, rest[~ok], violated[~ok], p.sticky, ordered is not None
    )
