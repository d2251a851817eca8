"""The upstream algorithm, exactly: filter, score, sort, take the top N; one pick per cycle under
topology spread. It is the baseline of every comparison and the hint of every search."""

from __future__ import annotations

import math
from bisect import bisect_right

import numpy as np

from model import FilterKind, SelectionMode, Unselected
from solver.admits import takes_new
from solver.prepare import Prepared, pick_key
from solver.solution import (
    Solution,
    best_candidates,
    best_rows,
    cut_list,
    explain_cycle,
    explain_filtered,
    first_in_order,
    not_picked,
    stable_groups,
    without,
)
from solver.spread import SpreadState
from solver.stickiness import downscale, released_obsolete
from solver.table import ClusterTable

__all__ = ["explain_top_n", "solve_greedy", "solve_all", "solve_fixed", "solve_top_n"]

# Spread cells numbered by their combination of domains, up to this many combinations.
_DIRECT_CELLS = 2**15 - 2


def solve_greedy(p: Prepared, table: ClusterTable, limit: int) -> Solution:
    mode = p.request.mode
    if mode is SelectionMode.ALL:
        return solve_all(p, table, limit)
    if mode is SelectionMode.FIXED:
        return solve_fixed(p, table)
    shrunk = downscale(p, table)
    if shrunk is not None:
        return shrunk
    if p.request.spread:
        return _spread_cycles(p, table, limit)
    return solve_top_n(p, table, limit)


def solve_all(p: Prepared, table: ClusterTable, limit: int) -> Solution:
    picks = p.candidates
    return Solution(
        kept=list(p.kept),
        picks=_all_picks(p, table, picks),
        released=released_obsolete(p, table, picks),
        unselected=explain_filtered(p, table, limit),
    )


def _all_picks(p: Prepared, table: ClusterTable, candidates: np.ndarray) -> list[int]:
    """The candidates as a list: one list (read-only by convention) for the requests sharing their
    filters' verdict, less the rows a request holds, so that what is derived from it is derived
    once (solution.to_result)."""
    if p.base is None:
        return candidates.tolist()
    shared = table.derived(("greedy", "all picks"), dict)
    known = shared.get(id(p.base))
    if known is None or known[0] is not p.base:
        known = shared[id(p.base)] = (p.base, p.base.tolist())
    if not p.held_out:
        return known[1]
    return cut_list(table, known[1], np.searchsorted(p.base, p.held_out).tolist())


def solve_fixed(p: Prepared, table: ClusterTable) -> Solution:
    picks, unselected, valid = [], [], set()
    for name in dict.fromkeys(p.request.cluster_names):
        row = table.index.get(name)
        if row is None:
            unselected.append(Unselected(name, FilterKind.NOT_FOUND))
            continue
        cluster = table.cluster(row)
        if not takes_new(cluster):
            unselected.append(Unselected(name, FilterKind.INELIGIBLE, detail=cluster.ineligible_reason))
            continue
        valid.add(row)
        if row not in p.kept:
            picks.append(row)
    return Solution(
        kept=list(p.kept),
        picks=sorted(picks),
        released=released_obsolete(p, table, valid),
        unselected=unselected,
        satisfied=not unselected,
        scored=False,
    )


def solve_top_n(p: Prepared, table: ClusterTable, limit: int) -> Solution:
    """PickN without spread: one cycle, the best `N - present` candidates."""
    want = p.request.count - p.present
    ranked = best_candidates(p, table, want + limit)
    picks, rest = ranked[:want], ranked[want:]
    return Solution(
        kept=list(p.kept),
        picks=picks.tolist(),
        released=_released(p, table, picks),
        unselected=_not_picked(p, table, rest[:limit], limit) if limit > 0 else [],
        satisfied=p.present + len(picks) >= p.request.count,
    )


def explain_top_n(p: Prepared, table: ClusterTable, picks: list[int], limit: int) -> list[Unselected]:
    """The report of a top-N answer chosen elsewhere: the best candidates left out, then filtered
    clusters by name."""
    if limit <= 0:  # nothing to report: the candidates left out are not even listed
        return []
    rest = without(p.candidates, picks)
    return _not_picked(p, table, best_rows(p, table, rest, limit)[:limit], limit)


def _released(p: Prepared, table: ClusterTable, picks: np.ndarray) -> list[str]:
    """released_obsolete(p, table, picks), its obsolete rows read among the held ones (`_marked`)."""
    obsolete = _marked(p, p.obsolete)
    if not obsolete:
        return list(p.released)
    chosen = set(picks.tolist())
    return [table.names[r] for r in obsolete if r not in chosen] + list(p.released)


def _not_picked(p: Prepared, table: ClusterTable, rest: np.ndarray, limit: int) -> list[Unselected]:
    unselected = not_picked(p, table, rest.tolist(), [0] * len(rest))
    return unselected + explain_filtered(p, table, limit - len(unselected))


def _spread_cycles(p: Prepared, table: ClusterTable, limit: int) -> Solution:
    """One pick per cycle, domain counts recomputed after each. Obsolete decisions not picked in the
    first cycle are released at once and lose their preference, as upstream does."""
    state = SpreadState(table, p.request.spread, list(p.kept))
    want = p.request.count - p.present
    # Obsolete decisions preferred (the first cycle's), cleared after that cycle; found among the
    # rows the request holds, where prepare named them, not over the fleet.
    preferring = bool(_marked(p, p.sticky))
    obsolete = p.sticky
    picks: list[int] = []
    spread_scores: dict[int, int] = {}
    first_cycle_obsolete = _marked(p, p.obsolete)
    unselected: list[Unselected] = []
    cells: _Cells | None = None
    while len(picks) < want:
        # The available rows: the candidates less the picks (made only where a cycle reads them).
        # Every cycle but the last (which also explains) picks by cells, the first one too where
        # it prefers obsolete decisions (their keys raised for that pick: `_Cells.prefer`); a
        # cycle that finds nothing falls through, to be explained. With nothing to explain
        # (limit 0: explain_cycle reports nothing) the last one too, where cells are made.
        if len(picks) < want - 1 or (not limit and cells is not None):
            cells = cells or _Cells(p, table, state, without(p.candidates, picks))
            if preferring:
                cells.prefer(p)
            step = cells.pick(state)
            if step is not None:
                chosen, score = step
                spread_scores[chosen] = score
                picks.append(chosen)
                state.add(chosen)
                if preferring:  # the first cycle released every obsolete decision it did not re-pick
                    obsolete = np.zeros(len(p.sticky), dtype=bool)
                    preferring = False
                continue
        rows = without(p.candidates, picks)
        topo, violated = state.score(rows)
        ok = violated < 0
        scored, scores = rows[ok], topo[ok]
        chosen = None
        if len(scored):
            best = scores.max()
            top = scored[scores == best]
            chosen = first_in_order(p, table, top, obsolete)
            spread_scores[chosen] = int(best)
            picks.append(chosen)
            state.add(chosen)
        if preferring:  # the first cycle released every obsolete decision it did not re-pick
            obsolete = np.zeros(len(p.sticky), dtype=bool)
            preferring = False
        last = chosen is None or len(picks) == want
        if last:
            if limit:  # (with limit 0 explain_cycle reports nothing)
                unselected = explain_cycle(
                    p, table, limit, scored, scores, chosen, rows[~ok], violated[~ok], obsolete
                )
            break
    released_rows = [r for r in first_cycle_obsolete if r not in spread_scores]
    released = [table.names[r] for r in released_rows] + list(p.released)
    obsolete_rows = set(first_cycle_obsolete)
    return Solution(
        kept=list(p.kept),
        picks=picks,
        spread_scores=spread_scores,
        released=released,
        unselected=unselected,
        satisfied=p.present + len(picks) >= p.request.count,
        # Obsolete decisions the first cycle released and a later cycle picked again.
        restored=frozenset(r for r in picks[1:] if r in obsolete_rows),
    )


def _marked(p: Prepared, mask: np.ndarray) -> list[int]:
    """The rows `mask` marks (p.obsolete or p.sticky: rows holding an obsolete decision, which
    prepare sets only among the rows the request's decisions name), read among those rows where
    prepare found them (Prepared.held), not over the fleet; sorted, as np.flatnonzero gives them."""
    held = p.held
    if held is None:
        return np.flatnonzero(mask).tolist()
    return held[mask[held]].tolist()


class _Cells:
    """Available candidates grouped in cells (alike in every spread dimension, so alike in score).
    A cycle's pick is the best head among the cells of the best score, a cell's head its best
    candidate by affinity, then name: what scoring and sorting every candidate would pick, at a
    cost per cell, not per candidate. Nothing is sorted: each cell's head is its greatest pick key
    (unique per row), found again in that cell alone once taken (a request takes a few of
    thousands). Where a cycle prefers obsolete decisions (the first one), `prefer` raises their
    keys for that pick alone."""

    def __init__(self, p: Prepared, table: ClusterTable, state: SpreadState, rows: np.ndarray) -> None:
        cell = np.zeros(len(rows), dtype=np.int64)
        for d in state.dimensions:  # mixed radix: one integer per combination of slots
            cell = cell * (len(d.domains) + 1) + d.slots[rows]
        count = math.prod(len(d.domains) + 1 for d in state.dimensions)
        if count > _DIRECT_CELLS:  # too many combinations to index directly: number those present
            _, cell = np.unique(cell, return_inverse=True)
            count = int(cell.max()) + 1 if len(cell) else 0
        order = stable_groups(cell, count)
        rows = rows[order]
        # Pick order by `obsolete` (none is, by now): the pick key with nothing sticky.
        values = pick_key(p.affinity[rows], 0, p.rank[rows], table.size)
        sizes = np.bincount(cell, minlength=count)
        ends = np.cumsum(sizes)
        present = np.flatnonzero(sizes)
        starts = (ends - sizes)[present]
        self.starts, self.ends = starts.tolist(), ends[present].tolist()
        self.left = sizes[present].tolist()  # candidates not yet taken, per cell
        best = np.maximum.reduceat(values, starts) if len(starts) else values[:0]
        heads = np.flatnonzero(values == np.repeat(best, sizes[present]))  # one per cell: keys are unique
        self.heads, self.head_values = heads.tolist(), best.tolist()
        self.slots = list(zip(*(d.slots[rows[heads]].tolist() for d in state.dimensions), strict=True))
        self.rows, self.values = rows, values
        self.step = max(table.size, 1)  # what holding an obsolete decision adds to a pick key
        self.preferred: tuple[list[int], list[int]] | None = None  # `prefer`'s heads, next pick only

    def prefer(self, p: Prepared) -> None:
        """For the next pick alone: the rows of obsolete decisions (p.sticky) preferred, as
        pick_key orders them with sticky 1 (their key plus `step`): each cell's head is then the
        greater of its head and its preferred rows."""
        heads, values = list(self.heads), list(self.head_values)
        for at in np.flatnonzero(p.sticky[self.rows]).tolist():
            if self.values[at] == _TAKEN:
                continue
            value, cell = int(self.values[at]) + self.step, bisect_right(self.ends, at)
            if value > values[cell]:
                heads[cell], values[cell] = at, value
        self.preferred = (heads, values)

    def pick(self, state: SpreadState) -> tuple[int, int] | None:
        """The cycle's pick and its topology score, taken from its cell; None when no available
        candidate violates no hard constraint."""
        preferred, self.preferred = self.preferred, None
        heads, values = preferred if preferred is not None else (self.heads, self.head_values)
        found = state.best_cell(self.slots, self.left, values)
        if found is None:
            return None
        chosen, score = found
        head = heads[chosen]
        self.left[chosen] -= 1
        if head != self.heads[chosen]:  # a preferred row, not its cell's head: taken, the head stays
            self.values[head] = _TAKEN
        elif self.left[chosen]:  # the cell's next head: its greatest key left
            start, end = self.starts[chosen], self.ends[chosen]
            self.values[head] = _TAKEN
            at = start + int(np.argmax(self.values[start:end]))
            self.heads[chosen], self.head_values[chosen] = at, int(self.values[at])
        return int(self.rows[head]), score


_TAKEN = np.iinfo(np.int64).min  # a taken candidate's key: below every pick key
