"""The model one request's search builds (solver.search): one boolean per modelled candidate and
the objective levels' terms, which each policy concept (solver.modes, scores, spread, stickiness)
fills in through `contribute(space)`. A leaf, so that the concepts and the search that runs them
import it and not each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from solver.objective import LEVELS
from solver.prepare import Prepared
from solver.table import ClusterTable

if TYPE_CHECKING:  # ortools loads only when a model is built
    from solver import sat as sat_types

__all__ = ["Space", "sat_module"]


@dataclass(slots=True)
class Space:
    """The model under construction: one boolean per modelled candidate, the levels' terms."""

    p: Prepared
    table: ClusterTable
    want: int  # how many new picks at most
    cells: dict[int, list[int]]  # candidates alike for spread, best first
    model: sat_types.Model = field(default_factory=lambda: sat_module().Model())
    x: dict[int, sat_types.IntVar] = field(default_factory=dict)
    terms: list[tuple[list, list[int]]] = field(default_factory=lambda: [([], []) for _ in LEVELS])

    @property
    def rows(self) -> list[int]:
        return list(self.x)

    def add(self, level: str, exprs: list, coefficients: list[int]) -> None:
        bucket = self.terms[LEVELS.index(level)]
        bucket[0].extend(exprs)
        bucket[1].extend(coefficients)

    def level(self, i: int) -> sat_types.LinearExpr:
        exprs, coefficients = self.terms[i]
        return sat_module().LinearExpr.weighted_sum(exprs, coefficients)


def sat_module():
    """The project's CP-SAT (solver.sat), imported on first use: most batches need no model at
    all, and ortools' import costs some 50 ms of CPU (cp_model's, pandas with it, was 0.24 s)."""
    from solver import sat

    return sat
