"""What a mode decides for one request, before it becomes a model.RequestResult."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from model import Choice, ClusterScore, FilterKind, RequestResult, Unselected, first_untolerated
from solver.prepare import AFFINITY, INELIGIBLE, TAINT, Prepared
from solver.table import ClusterTable

__all__ = [
    "Solution",
    "best_rows",
    "pick_values",
    "explain_cycle",
    "explain_filtered",
    "pick_order",
    "score_of",
    "to_result",
]


@dataclass(slots=True)
class Solution:
    kept: list[int]  # rows of current decisions that stay
    picks: list[int]  # rows newly chosen, in decision order
    spread_scores: dict[int, int] = field(default_factory=dict)  # per pick
    released: list[str] = field(default_factory=list)
    unselected: list[Unselected] = field(default_factory=list)
    satisfied: bool = True
    scheduled: bool = True
    scored: bool = True  # picks carry scores (not for FIXED)
    restored: frozenset[int] = frozenset()  # picks released earlier in the run, then chosen again


def pick_order(
    p: Prepared, table: ClusterTable, rows: np.ndarray, obsolete: np.ndarray | None = None
) -> np.ndarray:
    """Rows sorted best first by (affinity, holds an obsolete decision, name): the upstream order
    among clusters of equal topology score, where the larger name wins a tie."""
    obsolete = p.sticky if obsolete is None else obsolete
    order = np.lexsort((p.rank[rows], obsolete[rows], p.affinity[rows]))
    return rows[order[::-1]]


def pick_values(p: Prepared, table: ClusterTable, rows: np.ndarray) -> np.ndarray:
    """One integer per row ordering rows exactly as pick_order does (and the objective's lower
    levels): affinity, then held, then name; exact in int64 for any realistic score."""
    size = max(table.size, 1)
    return (p.affinity[rows] * 2 + p.sticky[rows]) * size + p.rank[rows]


def best_rows(p: Prepared, table: ClusterTable, rows: np.ndarray, k: int) -> np.ndarray:
    """The first `k` of pick_order(rows), without sorting all of them: a large fleet has
    thousands of candidates for a request that wants a few."""
    if k >= len(rows):
        return pick_order(p, table, rows)
    key = pick_values(p, table, rows)
    top = np.argpartition(-key, k - 1)[:k]
    return rows[top[np.argsort(-key[top], kind="stable")]]


_FILTER_KIND = {AFFINITY: FilterKind.AFFINITY, INELIGIBLE: FilterKind.INELIGIBLE, TAINT: FilterKind.TAINT}


def explain_filtered(
    p: Prepared,
    table: ClusterTable,
    budget: int,
    extra: dict[int, Unselected] | None = None,
    also: np.ndarray | None = None,
) -> list[Unselected]:
    """Up to `budget` filtered clusters, by name, each with the first filter it failed; `also`
    are more filtered rows (blocked by spread), explained by `extra`."""
    out: list[Unselected] = []
    if budget <= 0:
        return out
    filtered = p.filtered[:budget]
    if also is not None and len(also):
        # Both are sorted: the first `budget` of their union lie in their first `budget` each.
        filtered = np.union1d(filtered, np.sort(also)[:budget])
    for row in filtered[:budget].tolist():
        if row in p.kept:
            continue  # held, so listed as selected: upstream skips it here but it still takes a slot
        if extra and row in extra:
            out.append(extra[row])
            continue
        cluster = table.cluster(row)
        kind = _FILTER_KIND[int(p.outcome[row])]
        if kind is FilterKind.TAINT:
            taint = first_untolerated(cluster.taints, p.request.tolerations)
            out.append(Unselected(cluster.name, kind, taint=taint))
        elif kind is FilterKind.INELIGIBLE:
            out.append(Unselected(cluster.name, kind, detail=cluster.ineligible_reason))
        else:
            out.append(Unselected(cluster.name, kind))
    return out


_SCORE_CACHE: dict[tuple[int, int], ClusterScore] = {}


def score_of(spread: int, affinity: int) -> ClusterScore:
    key = (spread, affinity)
    score = _SCORE_CACHE.get(key)
    if score is None:
        score = _SCORE_CACHE[key] = ClusterScore(spread, affinity)
    return score


def explain_cycle(
    p: Prepared,
    table: ClusterTable,
    limit: int,
    scored: np.ndarray,
    scores: np.ndarray,
    chosen: int | None,
    blocked: np.ndarray,
    violated: np.ndarray,
    obsolete: np.ndarray,
) -> list[Unselected]:
    """The last cycle's report: clusters not picked (best first), then filtered ones by name."""
    keep = scored != chosen if chosen is not None else np.ones(len(scored), dtype=bool)
    rows, topo = scored[keep], scores[keep]
    order = np.lexsort((p.rank[rows], obsolete[rows], p.affinity[rows], topo))[::-1]
    out = [
        Unselected(
            table.names[int(rows[i])],
            FilterKind.NOT_PICKED,
            score=score_of(int(topo[i]), int(p.affinity[int(rows[i])])),
        )
        for i in order[:limit]
    ]
    constraints = p.request.spread
    budget = limit - len(out)
    # Only the first `budget` filtered clusters by name are reported: build just those entries.
    head = max(budget, 0)
    reported = set(np.union1d(p.filtered[:head], np.sort(blocked)[:head])[:head].tolist())
    extra = {
        int(r): Unselected(
            table.names[int(r)],
            FilterKind.SPREAD,
            detail=constraints[int(k)].topology_key,
            skew=constraints[int(k)].max_skew,
        )
        for r, k in zip(blocked.tolist(), violated.tolist(), strict=True)
        if r in reported
    }
    return out + explain_filtered(p, table, budget, extra, blocked)


def to_result(p: Prepared, table: ClusterTable, solution: Solution) -> RequestResult:
    names = table.names
    selected = [Choice(names[row], p.kept[row].score, kept=True) for row in solution.kept]
    for row in solution.picks:
        score = (
            score_of(solution.spread_scores.get(row, 0), int(p.affinity[row])) if solution.scored else None
        )
        selected.append(Choice(names[row], score, restored=row in solution.restored))
    return RequestResult(
        request=p.request.key,
        selected=tuple(selected),
        released=tuple(sorted(solution.released)),
        unselected=tuple(solution.unselected),
        satisfied=solution.satisfied,
        scheduled=solution.scheduled,
    )
