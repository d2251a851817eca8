"""The bounds proven on the Balance-coupled requests' levels (solver.balance), in optimal mode.

Each coupled request's ceiling (its objective whatever the others hold) and its least shortfall
per level, each a bound for every answer of the batch.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from solver.objective import BALANCE_RANGE, Scale, affinity_weight, combine, evaluate
from solver.prepare import Prepared
from solver.solution import Solution
from solver.table import ClusterTable

__all__ = ["ceiling", "at_least"]


def ceiling(
    p: Prepared,
    scale: Scale,
    table: ClusterTable,
    weight: int,
    best_response: Callable[[Prepared, Scale], tuple[Solution, int]],
) -> int:
    """A bound on the request's objective whatever the others hold: its best answer with every
    Balance score at its best (100 x |weight| on every candidate). One amount added to every
    candidate's score leaves the best answer where it is (the levels above affinity read no
    score, and answers alike there take as many picks), so where the request's own best
    response (no Balance) is proven optimal, the ceiling's is that answer raised by the amount
    on each pick: asked once, on the arrays its shared ranking serves."""
    shift = BALANCE_RANGE * abs(weight)
    best, bound = best_response(p, scale)
    if bound == combine(evaluate(p, table, scale, best.kept, best.picks), scale.spans):
        return bound + shift * len(best.picks) * affinity_weight(scale.spans)
    return best_response(replace(p, affinity=p.affinity + shift), scale)[1]


def at_least(least: tuple[int | None, ...], p: Prepared, scale: Scale, weight: int) -> tuple[int | None, ...]:
    """A coupled request's least shortfall per level: what its combined bound proves (a level
    after one its answer does not hold at the bound's digit proves nothing there), or, where
    greater or where that proves nothing, what no answer can beat whatever the other levels and
    requests hold. For affinity, its best picks with every Balance score at its best; for
    obsolete, as many picks as it has candidates holding an older decision; for the name, the
    best-ranked candidates. Each is its own level's bound for every answer, alone."""
    candidates = p.candidates
    picks = min(scale.picks, len(candidates))
    best = np.sort(p.affinity[candidates] + BALANCE_RANGE * abs(weight))[len(candidates) - picks :]
    ranks = np.sort(p.rank[candidates])[len(candidates) - picks :]
    spans, offsets = scale.spans, scale.offsets
    unconditional = (
        None,
        None,
        spans[2] - offsets[2] - int(np.maximum(best, 0).sum()),  # fewer picks where scores are negative
        spans[3] - min(picks, int(np.count_nonzero(p.sticky[candidates]))),
        spans[4] - int(ranks.sum()),
    )
    return tuple(
        b if a is None else a if b is None else max(a, b) for a, b in zip(least, unconditional, strict=True)
    )
