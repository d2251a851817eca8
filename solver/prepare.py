"""Filter and score every request against the cluster table, before any search.

This is the framework's Filter and Score stages for all requests at once. Plugin order decides which
reason a cluster is reported with: required affinity, then eligibility, then taints, then whether
the request already holds the cluster under its current policy.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from model import Batch, ExistingDecision, PlacementRequest, SelectionMode
from solver.table import ClusterTable

__all__ = ["Prepared", "prepare", "PASS", "AFFINITY", "INELIGIBLE", "TAINT", "HELD"]

# Per-cluster filter outcome codes, in plugin order.
PASS, AFFINITY, INELIGIBLE, TAINT, HELD = 0, 1, 2, 3, 4


@dataclass(slots=True)
class Prepared:
    """One request, filtered and scored against the whole fleet."""

    request: PlacementRequest
    outcome: np.ndarray  # int8 per cluster: PASS or the first failing filter
    affinity: np.ndarray  # int64 per cluster: preferred-affinity score (0 where not scored)
    obsolete: np.ndarray  # bool per cluster: holds a decision of an older policy
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
    zeros = np.zeros(table.size, dtype=np.int64)
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
            outcome[~table.eligible] = INELIGIBLE
            if request.required:
                outcome[~required[request.required]] = AFFINITY
        affinity = scored.get(request.preferences, zeros) if request.mode is SelectionMode.N else zeros
        prepared = Prepared(request, outcome, affinity, np.zeros(table.size, dtype=bool))
        _classify_existing(prepared, table)
        prepared.settle(batch.explain_limit)
        shared[request.signature()] = prepared
        out.append(prepared)
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
