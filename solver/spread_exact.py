"""One spread constraint, solved exactly without search.

With a single constraint the clusters fall into domains (plus those without the key, which are
free), and the objective is lexicographic in (clusters, skew penalty, value of the picks), where
a domain's best picks are always its prefix. Fix a window [low, high] for the final domain counts:
every domain then takes between max(0, low - held) and min(candidates, high - held) clusters, and
the best answer inside the window takes those minimums and fills the rest with the most valuable
remaining clusters. Windows that reach the largest count, and among them the narrowest (the
smallest skew, since the penalty grows with it), contain the optimum; the best of their fillings is it.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np

from solver.prepare import Prepared
from solver.solution import pick_values, ranked, stable_groups
from solver.spread import SpreadState
from solver.table import ClusterTable

__all__ = ["solve_single_constraint"]


def solve_single_constraint(
    p: Prepared,
    table: ClusterTable,
    state: SpreadState,
    candidates: np.ndarray,
    want: int,
    ordered: bool = False,  # candidates are in pick order already
) -> list[int]:
    dim = state.dimensions[0]
    held = dim.counts
    candidates = candidates if ordered else ranked(p, table, candidates)
    codes = dim.codes[candidates]

    domains = len(held)
    # Grouped by domain (the free clusters first), best first inside each: a stable sort by code.
    grouped = stable_groups(codes, domains)
    candidates = candidates[grouped]
    starts = np.searchsorted(codes[grouped], np.arange(-1, domains + 1)).tolist()
    rows_by = [candidates[a : min(b, a + want)] for a, b in zip(starts, starts[1:], strict=False)]
    # Values only of each domain's best `want`, the rows an answer can take.
    values = pick_values(p, table, np.concatenate(rows_by))
    ends = np.cumsum([len(rows) for rows in rows_by]).tolist()
    values_by = [values[a:b] for a, b in pairwise([0, *ends])]
    (free_rows, *rows_by), (free_values, *values_by) = rows_by, values_by
    if domains == 0:
        return free_rows.tolist()
    available = np.fromiter((len(r) for r in rows_by), dtype=np.int64, count=domains)

    hard = dim.constraint.hard
    cap = max(dim.constraint.max_skew, state.initial_skew[0]) if hard else None

    # Every window [low, high]: low from the current minimum up to the lowest reachable count,
    # high from the current maximum (and low) up to the highest reachable count.
    lows = np.arange(int(held.min()), int((held + available).min()) + 1)
    highs = np.arange(int(held.max()), int((held + available).max()) + 1)
    low_grid, high_grid = np.repeat(lows, len(highs)), np.tile(highs, len(lows))  # every pair
    keep = high_grid >= low_grid
    if cap is not None:
        keep &= high_grid - low_grid <= cap
    low_grid, high_grid = low_grid[keep], high_grid[keep]
    floor = np.maximum(0, low_grid[:, None] - held[None, :])  # windows x domains
    ceiling = np.minimum(available[None, :], high_grid[:, None] - held[None, :])
    needed = floor.sum(axis=1)
    feasible = (floor <= ceiling).all(axis=1) & (needed <= want)
    total = np.minimum(want, ceiling.sum(axis=1) + len(free_rows))
    total = np.where(feasible, total, -1)
    best_total = int(total.max())
    width = high_grid - low_grid
    width = np.where(total == best_total, width, np.iinfo(np.int64).max)
    narrowest = int(width.min())

    best_rows: list[int] = []
    best_value: tuple[int, int, int] | None = None
    for w in np.flatnonzero(width == narrowest):
        rows = _fill(floor[w], ceiling[w], best_total, rows_by, values_by, free_rows, free_values)
        picked = np.asarray(rows, dtype=np.int64)
        # Sums compared level by level: one scalar sum could carry a lower level into a higher one.
        value = (int(p.affinity[picked].sum()), int(p.sticky[picked].sum()), int(p.rank[picked].sum()))
        if best_value is None or value > best_value:
            best_rows, best_value = rows, value
    return best_rows


def _fill(floor, ceiling, total, rows_by, values_by, free_rows, free_values) -> list[int]:
    """The window's best answer: every domain's required prefix, then the most valuable rest."""
    domains = range(len(rows_by))
    fixed = np.concatenate([rows_by[d][: floor[d]] for d in domains])
    pool_rows = np.concatenate([rows_by[d][floor[d] : ceiling[d]] for d in domains] + [free_rows])
    pool_values = np.concatenate([values_by[d][floor[d] : ceiling[d]] for d in domains] + [free_values])
    top = np.argsort(-pool_values, kind="stable")[: total - len(fixed)]
    return np.concatenate([fixed, pool_rows[top]]).astype(np.int64).tolist()
