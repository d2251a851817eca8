"""Selection mode in the joint model: at most N - present new clusters, and the clusters level."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.space import Space

__all__ = ["contribute"]


def contribute(space: Space) -> None:
    picks = list(space.x.values())
    if picks:
        space.model.add(sum(picks) <= space.want)
    space.add("clusters", picks, [1] * len(picks))
