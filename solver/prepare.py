"""Filter and score every request against the cluster table, before any search.

This is the framework's Filter and Score stages for all requests at once. Plugin order decides which
reason a cluster is reported with: required affinity, then eligibility, then taints, then whether
the request already holds the cluster under its current policy. Clusters outside the request's
scope come before all of them and are never reported: the request cannot see them.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from model import Batch, ExistingDecision, PlacementRequest, SelectionMode, TieBreak
from solver.table import ClusterTable

__all__ = ["Prepared", "prepare", "PASS", "AFFINITY", "INELIGIBLE", "TAINT", "HELD", "OUT_OF_SCOPE"]

# Per-cluster filter outcome codes, in plugin order (OUT_OF_SCOPE is never reported).
PASS, AFFINITY, INELIGIBLE, TAINT, HELD, OUT_OF_SCOPE = 0, 1, 2, 3, 4, 5

HELD_SCORE = 100  # what a `held` preference gives per unit of weight


@dataclass(slots=True)
class Prepared:
    """One request, filtered and scored against the whole fleet."""

    request: PlacementRequest
    outcome: np.ndarray  # int8 per cluster: PASS or the first failing filter
    affinity: np.ndarray  # int64 per cluster: preferred-affinity score (0 where not scored)
    obsolete: np.ndarray  # bool per cluster: holds a decision of an older policy
    rank: np.ndarray  # int64 per cluster: the name tie-break, higher wins
    sticky: np.ndarray  # bool per cluster: an older decision that wins ties (less churn)
    kept: dict[int, ExistingDecision] = field(default_factory=dict)  # current decisions in force, by row
    released: list[str] = field(default_factory=list)  # decisions that lapse whatever is chosen
    # The first rows a filter rejects, as many as a report can show: all of them would cost
    # placements x clusters memory on a large fleet.
    filtered: np.ndarray = field(default_factory=lambda: np.empty(0, np.int64))

    @property
    def candidates(self) -> np.ndarray:
        """Rows that pass every filter. Computed when asked: kept for every request, these arrays
        would cost placements x clusters memory (measured: +290 MiB at 10,000 x 5,000)."""
        return np.flatnonzero(self.outcome == PASS)

    def settle(self, limit: int) -> None:
        """Fix the report's filtered rows once the outcome is final."""
        self.filtered = _first_rows(
            (self.outcome.view(np.uint8) - np.uint8(AFFINITY)) <= TAINT - AFFINITY, limit
        )

    @property
    def present(self) -> int:
        return len(self.kept)


def _first_rows(mask: np.ndarray, limit: int) -> np.ndarray:
    """The first `limit` true rows, reading only as far as needed: usually a few dozen rows."""
    start, chunk = 0, max(64, 4 * limit)
    found: list[np.ndarray] = []
    count = 0
    while start < len(mask) and count < limit:
        rows = np.flatnonzero(mask[start : start + chunk]) + start
        found.append(rows)
        count += len(rows)
        start += chunk
        chunk *= 4
    return np.concatenate(found)[:limit] if found else np.empty(0, np.int64)


def prepare(batch: Batch, table: ClusterTable) -> list[Prepared]:
    requests = batch.requests
    required = table.required_masks(r.required for r in requests if r.mode is not SelectionMode.FIXED)
    scored = table.affinity_scores(r.preferences for r in requests if r.mode is SelectionMode.N)
    scopes = table.scope_masks(r.scope for r in requests if r.scope is not None)
    zeros = np.zeros(table.size, dtype=np.int64)
    reverse_rank = table.rank[::-1].copy()
    out = []
    shared: dict[tuple, Prepared] = {}
    for request in requests:
        twin = shared.get(request.signature())
        if twin is not None:  # identical policy and state: share the (read-only) arrays
            out.append(replace(twin, request=request))
            continue
        outcome = np.zeros(table.size, dtype=np.int8)
        if request.mode is not SelectionMode.FIXED:
            # Later filters only apply where earlier ones passed, so assign in reverse plugin order.
            outcome[~table.tolerated(request.tolerations)] = TAINT
            _untaint_held(outcome, request, table)
            outcome[~table.eligible] = INELIGIBLE
            if request.required:
                outcome[~required[request.required]] = AFFINITY
            if request.scope is not None:
                outcome[~scopes[request.scope]] = OUT_OF_SCOPE
        affinity = (
            scored.get(request.preferences, zeros) if request.mode is not SelectionMode.FIXED else zeros
        )
        rank = table.rank if request.tie_break is TieBreak.LARGER_NAME else reverse_rank
        obsolete = np.zeros(table.size, dtype=bool)
        prepared = Prepared(request, outcome, affinity, obsolete, rank, obsolete)
        _classify_existing(prepared, table)
        if request.prefer_held:
            prepared.sticky = prepared.obsolete
        else:
            prepared.sticky = np.zeros(table.size, dtype=bool)
        if request.mode is SelectionMode.N:  # the other modes take every valid cluster: no scores
            prepared.affinity = _relative_scores(prepared, table)
        prepared.settle(batch.explain_limit)
        shared[request.signature()] = prepared
        out.append(prepared)
    return out


def _untaint_held(outcome: np.ndarray, request: PlacementRequest, table: ClusterTable) -> None:
    """A cluster the request holds passes taints that keep out only newcomers."""
    for decision in request.existing:
        row = table.index.get(decision.cluster)
        if row is not None and outcome[row] == TAINT and table.tolerated_held(row, request.tolerations):
            outcome[row] = PASS


def _relative_scores(p: Prepared, table: ClusterTable) -> np.ndarray:
    """The static scores plus the parts relative to this request: holding a cluster, and
    properties centered over the request's own candidates. Balance is added by the solve, since
    it depends on the other requests' answers."""
    relative = [pref for pref in p.request.preferences if pref.weight and (pref.held or _centered(pref))]
    if not relative:
        return p.affinity
    affinity = p.affinity.copy()
    feasible = (p.outcome == PASS) | (p.outcome == HELD)
    for pref in relative:
        if pref.held:
            for decision in p.request.existing:
                row = table.index.get(decision.cluster)
                if row is not None:
                    affinity[row] += pref.weight * HELD_SCORE
        else:
            affinity += pref.weight * centered_scores(
                table.float_values(pref.sorter.name), feasible, pref.sorter.ascending
            )
    return affinity


def _centered(pref) -> bool:
    return pref.sorter is not None and pref.sorter.centered


def centered_scores(values: np.ndarray, feasible: np.ndarray, ascending: bool = False) -> np.ndarray:
    """trunc(((v - min) / (max - min) - 0.5) * 2 * 100) over the feasible clusters that have the
    property, in float64 in exactly that order (so 0.6 gives 19, as upstream); 100 each when all
    are equal; 0 for the others. Ascending flips the ratio (smaller values score higher)."""
    out = np.zeros(len(values), dtype=np.int64)
    member = feasible & ~np.isnan(values)
    if not member.any():
        return out
    present = values[member]
    low, high = present.min(), present.max()
    if high == low:
        out[member] = 100
        return out
    ratio = (present - low) / (high - low)
    if ascending:
        ratio = 1.0 - ratio
    out[member] = np.trunc(((ratio - 0.5) * 2.0) * 100.0).astype(np.int64)
    return out


def _classify_existing(prepared: Prepared, table: ClusterTable) -> None:
    """Sort existing decisions into kept, obsolete (re-evaluated) and lapsed (cluster gone or leaving)."""
    for decision in sorted(prepared.request.existing, key=lambda d: d.cluster):
        row = table.index.get(decision.cluster)
        if row is None or table.leaving[row]:
            prepared.released.append(decision.cluster)
        elif decision.current:
            prepared.kept[row] = decision
            if prepared.outcome[row] == PASS:  # a held cluster failing a filter is still reported as filtered
                prepared.outcome[row] = HELD
        else:
            prepared.obsolete[row] = True
