"""Scores in the joint model: the preferred-affinity level and upstream's name tie-break level."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.space import Space

__all__ = ["contribute"]


def contribute(space: Space) -> None:
    rows = space.rows
    picks = [space.x[r] for r in rows]
    space.add("affinity", picks, [int(space.p.affinity[r]) for r in rows])
    space.add("name", picks, [int(space.p.rank[r]) for r in rows])
