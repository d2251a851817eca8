"""Two spread constraints whose domains nest (zones inside regions), solved exactly without search.

Nesting, checked over every cluster of the table: each cluster carrying the inner key (zone) also
carries the outer key (region), and each inner value occurs with one outer value only. Candidates
then fall into leaves: a zone, the region-only clusters of a region (outer key, no inner key), or
the free clusters (neither key). A leaf's best picks are always its prefix in pick order.

Fix a window [LA, HA] for the final region counts and [LB, HB] for the final zone counts. A zone
then takes between max(0, LB - held) and min(candidates, HB - held) clusters, a region between
the most of (LA - held, its zones' lower bounds) and the least of (HA - held, its leaves' upper
bounds): intervals on a tree, so the counts a window allows form an interval too, and its top is
the most clusters the window can hold. Every answer lies in its own tight window, with the same
penalty (each constraint's skew, plus the soft excess), and every answer inside a window has at
most the window's penalty. So the windows that reach the largest count and, among those, have the
smallest penalty contain the optimum, and the best of their fillings is it. Few pairs of windows
(the usual case) are all looked at in one vectorised pass; many in three: the widest pairs give the
largest count (every window lies in one); the narrowest pairs, widened until one reaches that
count, bound the least penalty; then only the pairs each of whose windows fits under that bound
are looked at.

A window's best filling, for any weights that order the clusters as pick order does (and so for
the objective's level-by-level sums, which such weights can encode): each leaf's prefix up to its
lower bound; then in each region its deficit (its lower bound minus its leaves' lower bounds) with
its best items left inside the leaves' upper bounds; then the best of what is left, at most each
region's upper bound less what it holds. Inside a region the best k items within the leaf bounds
are nested in k and their value is concave in k, so taking the deficits first and then the largest
marginal values is optimal for the separable concave problem the region counts leave.
"""

from __future__ import annotations

import numpy as np

from solver.prepare import Prepared
from solver.solution import pick_values, ranked, stable_groups
from solver.spread import SOFT_VIOLATION, Dimension, SpreadState
from solver.table import ClusterTable

__all__ = ["solve_nested", "nesting", "nests"]


def nesting(outer: Dimension, inner: Dimension) -> np.ndarray | None:
    """The outer domain of each inner domain when the inner domains nest in the outer ones."""
    inner_count = len(inner.domains)
    if inner_count == 0:
        return np.zeros(0, dtype=np.int64)
    carried = inner.codes >= 0
    inner_codes, outer_codes = inner.codes[carried], outer.codes[carried]
    if len(outer.domains) == 0 or bool((outer_codes < 0).any()):
        return None
    parent = np.full(inner_count, -1, dtype=np.int64)
    parent[inner_codes] = outer_codes
    if bool((parent < 0).any()) or not bool((parent[inner_codes] == outer_codes).all()):
        return None
    return parent


def _nested(table: ClusterTable, first: Dimension, second: Dimension) -> tuple[bool, np.ndarray] | None:
    """Whether the first dimension is the outer one, and the parent of each inner domain, when
    the two nest; None when they do not. It depends on the clusters alone: computed once per
    pair of keys."""

    def compute() -> tuple[bool, np.ndarray] | None:
        first_outer = True
        parent = nesting(first, second)
        if parent is None:
            first_outer, parent = False, nesting(second, first)
        if parent is None:
            return None
        parent.setflags(write=False)
        return first_outer, parent

    keys = tuple((d.constraint.topology_key, d.constraint.claims) for d in (first, second))
    return table.derived(("spread_nested", keys), compute)


def _tree(
    table: ClusterTable, outer: Dimension, inner: Dimension, parent: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The leaf of every cluster row (its zone; else its region's region-only leaf; else the free
    leaf), each leaf's parent (the free leaf's is last) and the zone x region incidence. They
    depend on the clusters alone: computed once per pair of keys; read-only."""

    def compute() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        regions, zones = len(outer.domains), len(inner.domains)
        code_a, code_b = outer.codes, inner.codes
        leaf = np.where(code_b >= 0, code_b, np.where(code_a >= 0, zones + code_a, zones + regions))
        leaf_parent = np.concatenate([parent, np.arange(regions + 1, dtype=np.int64)])
        member = np.zeros((zones, regions), dtype=np.int64)
        member[np.arange(zones), parent] = 1
        for array in (leaf, leaf_parent, member):
            array.setflags(write=False)
        return leaf, leaf_parent, member

    keys = tuple((d.constraint.topology_key, d.constraint.claims) for d in (outer, inner))
    return table.derived(("spread_nested", "tree", keys), compute)


def nests(table: ClusterTable, state: SpreadState) -> bool:
    """Whether solve_nested answers for these constraints (two whose domains nest)."""
    return len(state.dimensions) == 2 and _nested(table, *state.dimensions) is not None


# Up to this many pair x region entries, every pair of windows is looked at in one pass.
ALL_PAIRS = 1 << 14


def _penalty(dim: Dimension, widths: np.ndarray) -> np.ndarray:
    if dim.constraint.hard:
        return widths
    return widths + SOFT_VIOLATION * np.maximum(0, widths - dim.constraint.max_skew)


def _windows(held: np.ndarray, reach: np.ndarray, want: int, cap: int | None) -> tuple[np.ndarray, ...]:
    """Every window [low, high] an answer's final counts can have; `reach` is each domain's held
    count plus the most it can gain. A low needing more than `want` new picks is left out."""
    if len(held) == 0:
        zero = np.zeros(1, dtype=np.int64)
        return zero, zero
    lows = np.arange(int(held.min()), int(reach.min()) + 1)
    needed = np.maximum(lows[:, None] - held[None, :], 0).sum(axis=1)
    lows = lows[needed <= want]
    highs = np.arange(int(held.max()), int(reach.max()) + 1)
    low, high = np.repeat(lows, len(highs)), np.tile(highs, len(lows))  # every pair
    keep = high >= low
    if cap is not None:
        keep &= high - low <= cap
    return low[keep], high[keep]


def _widest(low: np.ndarray, high: np.ndarray, cap: int | None) -> np.ndarray:
    """Per window, the high of the widest window with the same low."""
    top = high.max() if len(high) else 0
    return np.full_like(low, top) if cap is None else np.minimum(low + cap, top)


def solve_nested(
    p: Prepared,
    table: ClusterTable,
    state: SpreadState,
    candidates: np.ndarray,
    want: int,
    ordered: bool = False,  # candidates are in pick order already
) -> list[int] | None:
    """The optimal new picks for two nested spread constraints; None when they do not nest."""
    if len(state.dimensions) != 2:
        return None
    first, second = state.dimensions
    caps = [
        max(d.constraint.max_skew, skew0) if d.constraint.hard else None
        for d, skew0 in zip(state.dimensions, state.initial_skew, strict=True)
    ]
    nested = _nested(table, first, second)
    if nested is None:
        return None
    first_outer, parent = nested
    if first_outer:
        outer, inner, cap_a, cap_b = first, second, caps[0], caps[1]
    else:
        outer, inner, cap_a, cap_b = second, first, caps[1], caps[0]
    if want <= 0 or len(candidates) == 0:
        return []

    regions, zones = len(outer.domains), len(inner.domains)
    held_a, held_b = outer.counts, inner.counts
    # Leaves: zones 0..Z-1, then each region's region-only clusters, then the free clusters.
    leaves = zones + regions + 1
    leaf_of_row, leaf_parent, member = _tree(table, outer, inner, parent)  # member: zone -> region
    # Best first; then grouped by leaf, stably.
    candidates = candidates if ordered else ranked(p, table, candidates)
    leaf = leaf_of_row[candidates]
    order = stable_groups(leaf, leaves)
    rows, leaf = candidates[order], leaf[order]
    count = np.bincount(leaf, minlength=leaves)
    start = np.concatenate([[0], np.cumsum(count)[:-1]])
    position = np.arange(len(rows)) - start[leaf]
    useful = position < want  # a leaf's picks are its prefix, never longer than `want`
    rows, leaf, position = rows[useful], leaf[useful], position[useful]
    values = pick_values(p, table, rows)  # only for the few rows kept
    size = np.minimum(count, want)  # candidates per leaf worth keeping

    zone_size, own_size, free_size = size[:zones], size[zones : zones + regions], int(size[-1])
    region_size = np.minimum(zone_size @ member + own_size, want)

    # Windows of each constraint: per A window the regions' own bounds, per B window the zones'
    # bounds and what they allow each region.
    low_a, high_a = _windows(held_a, held_a + region_size, want, cap_a)
    low_b, high_b = _windows(held_b, held_b + zone_size, want, cap_b)
    penalty_a, penalty_b = _penalty(outer, high_a - low_a), _penalty(inner, high_b - low_b)
    need_a, room_a = low_a[:, None] - held_a[None, :], high_a[:, None] - held_a[None, :]
    zone_low = np.maximum(0, low_b[:, None] - held_b[None, :])  # B windows x zones
    zone_high = np.minimum(zone_size[None, :], high_b[:, None] - held_b[None, :])
    below = zone_low @ member  # B windows x regions: the least the zones take
    above = zone_high @ member + own_size[None, :]  # the most the leaves take

    def pairs(ia: np.ndarray, ib: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """For every pair of the given A and B windows: the regions' intervals and the most
        clusters the pair holds (-1 where it holds no answer)."""
        region_low = np.maximum(need_a[ia][:, None, :], below[ib][None, :, :])
        region_high = np.minimum(room_a[ia][:, None, :], above[ib][None, :, :])
        # (A zone's own interval is never empty: a low is at most every zone's reach.)
        feasible = (region_low <= region_high).all(axis=2) & (region_low.sum(axis=2) <= want)
        total = np.where(feasible, np.minimum(want, region_high.sum(axis=2) + free_size), -1)
        return region_low, region_high, total

    if len(low_a) * len(low_b) * regions <= ALL_PAIRS:
        # Few windows (the usual case): every pair in one pass costs less than the passes below.
        ia, ib = np.arange(len(low_a)), np.arange(len(low_b))
        region_low, region_high, total = pairs(ia, ib)
        best_total = int(total.max())
    else:
        best_total, ia, ib = _narrowed(
            pairs, low_a, high_a, low_b, high_b, penalty_a, penalty_b, cap_a, cap_b
        )
        region_low, region_high, total = pairs(ia, ib)
    # The least penalty among the pairs holding the most clusters.
    unreached = np.iinfo(np.int64).max
    penalty = np.where(total == best_total, penalty_a[ia][:, None] + penalty_b[ib][None, :], unreached)
    a_pick, b_pick = np.nonzero(penalty == penalty.min())
    b_index = ib[b_pick]

    # The chosen windows' bounds per leaf and per parent (the free clusters' parent is last).
    count_w = len(a_pick)
    leaf_low = np.zeros((count_w, leaves), dtype=np.int64)
    leaf_high = np.empty((count_w, leaves), dtype=np.int64)
    leaf_low[:, :zones] = zone_low[b_index]
    leaf_high[:, :zones] = zone_high[b_index]
    leaf_high[:, zones:] = size[zones:]
    parent_low = np.zeros((count_w, regions + 1), dtype=np.int64)
    parent_high = np.full((count_w, regions + 1), free_size, dtype=np.int64)
    parent_low[:, :regions] = region_low[a_pick, b_pick]
    parent_high[:, :regions] = region_high[a_pick, b_pick]
    bounds = np.concatenate([leaf_low, leaf_high, parent_low, parent_high], axis=1)
    if count_w > 1:  # windows alike in every bound fill alike
        bounds = np.unique(bounds, axis=0)
        leaf_low, leaf_high = bounds[:, :leaves], bounds[:, leaves : 2 * leaves]
        parent_low, parent_high = bounds[:, 2 * leaves : 2 * leaves + regions + 1], bounds[:, -regions - 1 :]

    picked = _fill(
        leaf_low, leaf_high, parent_low, parent_high, best_total, leaf, position, leaf_parent, values
    )
    if len(picked) == 1:
        return rows[picked[0].astype(bool)].tolist()
    sums = np.stack(
        [picked @ p.affinity[rows], picked @ p.sticky[rows].astype(np.int64), picked @ p.rank[rows]]
    )
    best = int(np.lexsort(sums[::-1])[-1])  # level by level: affinity, then obsolete, then name
    return rows[picked[best].astype(bool)].tolist()


def _narrowed(
    pairs, low_a, high_a, low_b, high_b, penalty_a, penalty_b, cap_a, cap_b
) -> tuple[int, np.ndarray, np.ndarray]:
    """The most clusters any pair of windows holds, and the A and B windows of the pairs that may
    hold them at the least penalty, found without looking at every pair (many windows)."""
    # 1. The most clusters: every window lies in the widest one starting at its low.
    widest_a = np.flatnonzero(high_a == _widest(low_a, high_a, cap_a))
    widest_b = np.flatnonzero(high_b == _widest(low_b, high_b, cap_b))
    best_total = int(pairs(widest_a, widest_b)[2].max())
    # 2. A bound on the least penalty: the narrowest windows first, wider until a pair holds the
    # most clusters (at the latest when every window is in).
    width_a, width_b, width = high_a - low_a, high_b - low_b, 0
    while True:
        ia, ib = np.flatnonzero(width_a <= width), np.flatnonzero(width_b <= width)
        reach = pairs(ia, ib)[2] == best_total
        if reach.any():
            bound = int((penalty_a[ia][:, None] + penalty_b[ib][None, :])[reach].min())
            break
        width = 2 * width + 1
    # 3. Every pair within the bound.
    ia = np.flatnonzero(penalty_a + int(penalty_b.min()) <= bound)
    ib = np.flatnonzero(penalty_b + int(penalty_a.min()) <= bound)
    return best_total, ia, ib


def _fill(
    leaf_low: np.ndarray,
    leaf_high: np.ndarray,
    parent_low: np.ndarray,
    parent_high: np.ndarray,
    total: int,
    leaf: np.ndarray,
    position: np.ndarray,
    leaf_parent: np.ndarray,
    values: np.ndarray,
) -> np.ndarray:
    """Each window's best filling (windows x items, 0/1): leaf prefixes to their lower bounds,
    each parent's deficit with its best items inside the leaf bounds, then the best of the rest
    within each parent's upper bound."""
    item_parent = leaf_parent[leaf]
    # Items parent by parent, best first inside each, to rank them within their parent.
    order = np.lexsort((-values, item_parent))
    leaf, position, item_parent, values = leaf[order], position[order], item_parent[order], values[order]
    parents = parent_low.shape[1]
    low, high = leaf_low[:, leaf], leaf_high[:, leaf]
    fixed = position[None, :] < low
    optional = (position[None, :] >= low) & (position[None, :] < high)
    member = np.zeros((len(leaf_parent), parents), dtype=np.int64)
    member[np.arange(len(leaf_parent)), leaf_parent] = 1
    deficit = parent_low - leaf_low @ member  # per parent, beyond what the leaf prefixes hold
    first = np.searchsorted(item_parent, np.arange(parents))
    running = np.cumsum(optional, axis=1)
    before = np.concatenate([np.zeros((len(running), 1), dtype=np.int64), running], axis=1)[:, first]
    rank = running - 1 - before[:, item_parent]  # among the parent's optional items, best first
    short = optional & (rank < deficit[:, item_parent])
    room = parent_high - parent_low
    open_ = optional & ~short & (rank - deficit[:, item_parent] < room[:, item_parent])
    # The best open items overall, as many as the total still needs.
    best_first = np.argsort(-values, kind="stable")
    needed = total - parent_low.sum(axis=1)
    open_sorted = open_[:, best_first]
    chosen_sorted = open_sorted & (np.cumsum(open_sorted, axis=1) <= needed[:, None])
    chosen = np.zeros_like(open_)
    chosen[:, best_first] = chosen_sorted
    picked = (fixed | short | chosen).astype(np.int64)
    # Back to the caller's item order.
    out = np.empty_like(picked)
    out[:, order] = picked
    return out
