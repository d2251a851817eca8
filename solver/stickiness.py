"""Stickiness: what existing decisions keep, lose, or prefer.

Current decisions are never re-evaluated (a policy is ignored during execution); they lapse only when
their cluster leaves, when the policy changes (they become obsolete), or when the request shrinks.
Obsolete decisions are re-evaluated with a preference to keep them.
"""

from __future__ import annotations

from collections.abc import Collection

import numpy as np

from solver.prepare import Prepared
from solver.solution import Solution
from solver.table import ClusterTable

__all__ = ["downscale", "released_obsolete", "downscale_order"]


def released_obsolete(p: Prepared, table: ClusterTable, chosen: Collection[int] | np.ndarray) -> list[str]:
    """Obsolete decisions not chosen again lapse, as do those whose cluster is gone."""
    obsolete = np.flatnonzero(p.obsolete).tolist()
    if not obsolete:
        return list(p.released)
    chosen = set(chosen.tolist() if isinstance(chosen, np.ndarray) else chosen)
    lapsed = [table.names[r] for r in obsolete if r not in chosen]
    return lapsed + list(p.released)


def downscale_order(p: Prepared, table: ClusterTable) -> list[int]:
    """Kept rows in the order a shrinking request gives them up: not yet rolled out first, then
    the lowest score (unscored first), then the smaller name."""

    def key(row: int):
        decision = p.kept[row]
        score = decision.score
        scored = (1, score.spread, score.affinity) if score is not None else (0, 0, 0)
        return (decision.committed, *scored, table.names[row])

    return sorted(p.kept, key=key)


def downscale(p: Prepared, table: ClusterTable) -> Solution | None:
    """For a request of N clusters holding at least N: drop the surplus and every obsolete decision.
    None when the request still needs picks."""
    want, present = p.request.count, p.present
    if want > present:
        return None
    surplus = present - want
    gone = downscale_order(p, table)[:surplus] if surplus else []
    released = [table.names[r] for r in gone] + released_obsolete(p, table, ())
    kept = [r for r in p.kept if r not in set(gone)]
    return Solution(kept=kept, picks=[], released=released, scheduled=False)


def contribute(space) -> None:
    """In the joint model: the level that prefers clusters holding an obsolete decision."""
    rows = [r for r in space.rows if space.p.sticky[r]]
    space.add("obsolete", [space.x[r] for r in rows], [1] * len(rows))
