"""What a mode decides for one request, before it becomes a model.RequestResult."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from itertools import chain

import numpy as np

from model import Choice, ClusterScore, FilterKind, RequestResult, Unselected
from solver.admits import untolerated
from solver.prepare import AFFINITY, INELIGIBLE, TAINT, Prepared, Ranking, first_rows, pick_key
from solver.table import ClusterTable

__all__ = [
    "Solution",
    "best_candidates",
    "best_first",
    "best_first_in_order",
    "best_rows",
    "pick_values",
    "first_in_order",
    "explain_cycle",
    "explain_filtered",
    "not_picked",
    "pick_order",
    "ranked",
    "ranked_candidates",
    "stable_groups",
    "score_of",
    "to_result",
    "without",
    "cut_list",
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
    # One int64 key per row (pick_key: the name rank makes it unique), sorted: a third of the
    # time of a three-key lexsort over the thousands of candidates a Balance-scored ask sorts.
    return rows[np.argsort(-pick_key(p.affinity[rows], obsolete[rows], p.rank[rows], table.size))]


def first_in_order(
    p: Prepared, table: ClusterTable, rows: np.ndarray, obsolete: np.ndarray | None = None
) -> int:
    """pick_order(rows)[0] without sorting the rest (at least one row)."""
    obsolete = p.sticky if obsolete is None else obsolete
    return int(rows[np.argmax(pick_key(p.affinity[rows], obsolete[rows], p.rank[rows], table.size))])


def pick_values(p: Prepared, table: ClusterTable, rows: np.ndarray) -> np.ndarray:
    """One integer per row ordering rows exactly as pick_order does (and the objective's lower
    levels): affinity, then held, then name; exact in int64 for any realistic score."""
    return pick_key(p.affinity[rows], p.sticky[rows], p.rank[rows], table.size)


# Below this many rows sorting them costs less than reading the shared ranking of every cluster.
_FEW = 256


def _serving(p: Prepared) -> Ranking | None:
    ranking = p.ranking
    return ranking if ranking is not None and ranking.serves(p) else None


def _members(table: ClusterTable, rows: np.ndarray) -> np.ndarray:
    member = np.zeros(table.size, dtype=bool)
    member[rows] = True
    return member


def ranked(p: Prepared, table: ClusterTable, rows: np.ndarray) -> np.ndarray:
    """Unique rows in pick order, as pick_order sorts them: read off the ranking the request
    shares with those that score alike, where it serves (no sort), else sorted."""
    ranking = _serving(p)
    if ranking is None or len(rows) < _FEW:
        return pick_order(p, table, rows)
    order = ranking.order
    return order[_members(table, rows)[order]]


def best_rows(p: Prepared, table: ClusterTable, rows: np.ndarray, k: int) -> np.ndarray:
    """The first `k` of pick_order(rows), without sorting all of them: a large fleet has
    thousands of candidates for a request that wants a few."""
    if k >= len(rows):
        return pick_order(p, table, rows)
    ranking = _serving(p)
    if ranking is not None and k > 0:  # the first k members of the shared ranking
        order = ranking.order
        return order[first_rows(_members(table, rows)[order], k)]
    key = pick_values(p, table, rows)
    top = np.argpartition(-key, k - 1)[:k]
    return rows[top[np.argsort(-key[top], kind="stable")]]


def ranked_candidates(p: Prepared, table: ClusterTable) -> np.ndarray:
    """ranked(p.candidates): off the shared ranking's order of the shared candidates, where both
    serve (read-only then), less the rows the request holds."""
    ranking = _serving(p)
    if ranking is None or p.base is None:
        return ranked(p, table, p.candidates)
    ordered = ranking.ordered(p.base)
    if p.held_out:
        ordered = ordered[~np.isin(ordered, p.held_out)]
    return ordered


def best_candidates(p: Prepared, table: ClusterTable, k: int) -> np.ndarray:
    """best_rows(p.candidates, k): a slice of the shared ranking's order of the shared
    candidates, where both serve (read-only then), less the rows the request holds."""
    ranking = _serving(p)
    if ranking is None or p.base is None:
        return best_rows(p, table, p.candidates, k)
    ordered = ranking.ordered(p.base)
    if not p.held_out:
        return ordered[: max(k, 0)]
    held = set(p.held_out)
    head = [row for row in ordered[: max(k, 0) + len(held)].tolist() if row not in held]
    return np.array(head[:k], dtype=np.int64)


def stable_groups(codes: np.ndarray, groups: int) -> np.ndarray:
    """np.argsort(codes, kind="stable") for codes in [-1, groups): in int16 where they fit,
    which numpy sorts by radix, in linear time."""
    if groups < 2**15 - 1:
        codes = codes.astype(np.int16)
    return np.argsort(codes, kind="stable")


def best_first(
    p: Prepared, table: ClusterTable, rows: np.ndarray, topo: np.ndarray, obsolete: np.ndarray, k: int
) -> np.ndarray:
    """Indices of the first `k` rows by (topology score, affinity, obsolete, name), best first,
    without sorting all of them: only the rows tied at the k-th best topology score need their
    lower levels compared, and pick keys (pick_key, as pick_values) pick the best of those."""
    if k == 0:
        return np.empty(0, dtype=np.int64)
    if len(rows) <= 4 * k:  # (and a negative k: all but the last -k, as slicing gives)
        return np.lexsort((p.rank[rows], obsolete[rows], p.affinity[rows], topo))[::-1][:k]
    above, tied = _split_at_kth(topo, k)
    tied_rows = rows[tied]
    value = pick_key(p.affinity[tied_rows], obsolete[tied_rows], p.rank[tied_rows], table.size)
    need = k - len(above)
    if need < len(tied):
        tied = tied[np.argpartition(-value, need - 1)[:need]]
    top = np.concatenate([above, tied])
    top_rows = rows[top]
    return top[np.lexsort((p.rank[top_rows], obsolete[top_rows], p.affinity[top_rows], topo[top]))[::-1]]


def best_first_in_order(topo: np.ndarray, k: int) -> np.ndarray:
    """best_first for rows already in pick order (obsolete being the request's sticky rows): the
    first `k` by topology score, ties in the given order, which is the order of their lower
    levels, so none of those are read."""
    if len(topo) <= 4 * k or k < 0:
        return np.argsort(-topo, kind="stable")[:k]
    if k == 0:
        return np.empty(0, dtype=np.int64)
    above, tied = _split_at_kth(topo, k)
    tied = tied[: k - len(above)]  # the best of them come first
    top = np.concatenate([above, tied])
    return top[np.argsort(-topo[top], kind="stable")]


_NO_ROWS = np.empty(0, dtype=np.intp)


def _split_at_kth(topo: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The indices of the scores above the k-th largest (0 < k <= len) and of those equal to it,
    each in order. Topology scores take a few values, and the best of them is usually held by
    more than k rows (a cluster event's settled reports: by 656 of 1,191 rows, the median): then
    the k-th largest is the largest, and no partition is needed to find it."""
    if k > 0:
        at_best = topo == topo.max()
        if np.count_nonzero(at_best) >= k:
            return _NO_ROWS, np.flatnonzero(at_best)
    threshold = np.partition(topo, len(topo) - k)[len(topo) - k]
    return np.flatnonzero(topo > threshold), np.flatnonzero(topo == threshold)


def without(rows: np.ndarray, drop: list[int]) -> np.ndarray:
    """Sorted unique `rows` less `drop` (np.setdiff1d for a few rows, without sorting them all)."""
    if not drop:
        return rows
    at = np.searchsorted(rows, drop).tolist()
    found = [i for i, row in zip(at, drop, strict=True) if i < len(rows) and rows[i] == row]
    return np.delete(rows, found)


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
    shared = _shared_entries(table)
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
        kind = _FILTER_KIND[int(p.outcome[row])]
        if kind is FilterKind.TAINT:  # the taint depends on the request's tolerations and holdings
            cluster = table.cluster(row)
            taint = untolerated(cluster, p.request.tolerations, table.now, held=bool(p.obsolete[row]))
            out.append(Unselected(cluster.name, kind, taint=taint))
            continue
        entry = shared.get((row, kind))
        if entry is None:
            cluster = table.cluster(row)
            detail = cluster.ineligible_reason if kind is FilterKind.INELIGIBLE else ""
            entry = shared[(row, kind)] = Unselected(cluster.name, kind, detail=detail)
        out.append(entry)
    return out


def not_picked(p: Prepared, table: ClusterTable, rows: list[int], spreads: list[int]) -> list[Unselected]:
    """The entries of candidates left out, in the given order, each with its score."""
    shared = _named(table, "not picked")
    names = table.names
    out = []
    for row, spread, affinity in zip(rows, spreads, p.affinity[rows].tolist(), strict=True):
        key = (names[row], spread, affinity)
        entry = shared.get(key)
        if entry is None:
            entry = shared[key] = Unselected(key[0], FilterKind.NOT_PICKED, score=score_of(spread, affinity))
        out.append(entry)
    return out


def _shared_entries(table: ClusterTable) -> dict[tuple, Unselected]:
    """Equal report entries are one object per table (they are frozen): a large batch reports
    tens of thousands, one in ten of them distinct (measured)."""
    return table.derived(("solution", "unselected"), dict)


def _named(table: ClusterTable, what: str) -> dict:
    """Equal choices and report entries are one object (they are frozen), made once for the
    table's rows and every table made of them (ClusterTable.by_name, keyed by the cluster's name
    and what else the object holds): a large batch makes tens of thousands of choices, one in
    seven of them distinct (measured), and a long-lived scheduler's next batch makes them again."""
    return table.by_name(("solution", what), dict)


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
    in_pick_order: bool = False,  # `scored` is in pick order and `obsolete` is p.sticky
) -> list[Unselected]:
    """The last cycle's report: clusters not picked (best first), then filtered ones by name."""
    if chosen is not None:
        keep = scored != chosen
        scored, scores = scored[keep], scores[keep]
    if in_pick_order:
        best = best_first_in_order(scores, limit)
    else:
        best = best_first(p, table, scored, scores, obsolete, limit)
    out = not_picked(p, table, scored[best].tolist(), scores[best].tolist())
    budget = limit - len(out)
    if budget <= 0:
        return out
    # Only the first `budget` filtered clusters by name are reported: build just those entries.
    reported = np.union1d(p.filtered[:budget], np.sort(blocked)[:budget])[:budget]
    constraints = p.request.spread
    extra = {}
    for i in np.flatnonzero(np.isin(blocked, reported)).tolist():
        constraint = constraints[int(violated[i])]
        row = int(blocked[i])
        extra[row] = Unselected(
            table.names[row], FilterKind.SPREAD, detail=constraint.topology_key, skew=constraint.max_skew
        )
    return out + explain_filtered(p, table, budget, extra, blocked)


def to_result(p: Prepared, table: ClusterTable, solution: Solution) -> RequestResult:
    # A solution shared by requests with the same answer (twins) is turned into choices once. The
    # scores are held weakly: a request scored for one answer alone (Balance's) is not kept alive.
    shared = table.derived(("solution", "results"), dict)
    known = shared.get(id(solution))
    if known is None or known[0] is not solution or known[1] is not p.kept or known[2]() is not p.affinity:
        parts = _result_parts(p, table, solution)
        known = shared[id(solution)] = (solution, p.kept, weakref.ref(p.affinity), *parts)
    _, _, _, selected, released, unselected = known
    return RequestResult(
        request=p.request.key,
        selected=selected,
        released=released,
        unselected=unselected,
        satisfied=solution.satisfied,
        scheduled=solution.scheduled,
    )


def _result_parts(p: Prepared, table: ClusterTable, solution: Solution) -> tuple[tuple, tuple, tuple]:
    # Equal choices are one object, shared by every request making them (they are frozen): a large
    # batch makes tens of thousands of choices, one in seven of them distinct (measured).
    kept_choices = _named(table, "kept choices")
    names = table.names
    selected = []
    for row in solution.kept:
        score = p.kept[row].score
        key = (names[row],) if score is None else (names[row], score.spread, score.affinity)
        choice = kept_choices.get(key)
        if choice is None:
            choice = kept_choices[key] = Choice(key[0], score, kept=True)
        selected.append(choice)
    picks, restored = solution.picks, solution.restored
    if not solution.scored:
        selected += [Choice(names[row], None, restored=row in restored) for row in picks]
    elif len(picks) > 8 and not solution.spread_scores and not restored:
        selected += _plain_choices(p, table, picks)
    else:
        selected += _scored_choices(p, table, picks, solution.spread_scores, restored)
    return tuple(selected), tuple(sorted(solution.released)), tuple(solution.unselected)


def _scored_choices(
    p: Prepared, table: ClusterTable, picks: list[int], spread: dict[int, int], restored: frozenset[int]
) -> list[Choice]:
    picked_choices = _named(table, "picked choices")
    names = table.names
    # One gather for the many picks of an all-clusters request.
    affinity = p.affinity[picks].tolist() if len(picks) > 8 else [int(p.affinity[row]) for row in picks]
    out = []
    for row, value in zip(picks, affinity, strict=True):
        key = (names[row], spread.get(row, 0), value, row in restored)
        choice = picked_choices.get(key)
        if choice is None:
            choice = picked_choices[key] = Choice(key[0], score_of(key[1], value), restored=key[3])
        out.append(choice)
    return out


def _plain_choices(p: Prepared, table: ClusterTable, picks: list[int]) -> tuple[Choice, ...]:
    """The choices of many picks without spread scores (an all-clusters request): the same list
    of picks (shared by requests with the same candidates) scored alike gives them once."""
    cut = table.derived(("solution", "cut lists"), dict).get(id(picks))
    if cut is not None and cut[0] is picks:  # a shared list less a few: its choices less theirs
        return _cut(_plain_choices(p, table, cut[1]), cut[2])
    runs = table.derived(("solution", "plain choices"), dict)
    known = runs.get(id(picks))
    if known is None or known[0] is not picks or known[1]() is not p.affinity:  # scores held weakly
        known = runs[id(picks)] = (picks, weakref.ref(p.affinity), _row_choices(p, table, picks))
    return known[2]


def _row_choices(p: Prepared, table: ClusterTable, picks: list[int]) -> tuple[Choice, ...]:
    """The plain choices of `picks`, read off one array of the table's rows per scores array
    (held weakly): the requests of a batch sharing their scores (a join's all-clusters requests,
    thousands of picks each, mostly the same rows) make each row's choice once, not once a request.
    A row's choice is `_scored_choices`' own (the same object, from the same shared store). Only
    the last scores array's are kept: a one-shot batch of thousands of requests, each with scores
    of its own, held one array each (20 MiB more at the peak of a one-shot command of 10,000
    clusters and 2,000 requests)."""
    last = table.derived(("solution", "row choices"), lambda: [None])
    known = last[0]
    if known is None or known[0]() is not p.affinity:
        size = table.size
        known = last[0] = (
            weakref.ref(p.affinity),
            np.empty(size, dtype=object),
            np.zeros(size, bool),
        )
    _, made, have = known
    at = np.asarray(picks, dtype=np.int64)
    new = at[~have[at]].tolist()
    if new:
        for row, choice in zip(new, _scored_choices(p, table, new, {}, frozenset()), strict=True):
            made[row] = choice
        have[new] = True
    return tuple(made[at].tolist())


def cut_list(table: ClusterTable, whole: list[int], at: list[int]) -> list[int]:
    """`whole` less the items at the sorted positions `at`, remembered as such: the choices of a
    shared list of picks less a few are then the shared choices less theirs (to_result)."""
    out = _cut(whole, at)
    table.derived(("solution", "cut lists"), dict)[id(out)] = (out, whole, at)
    return out


def _cut(whole, at: list[int]):
    """A list or tuple less the items at the sorted positions `at`, by slices."""
    parts, start = [], 0
    for i in at:
        parts.append(whole[start:i])
        start = i + 1
    parts.append(whole[start:])
    return type(whole)(chain.from_iterable(parts))
