"""Topology spread: domains, the upstream skew score, and the constraints and penalty of the joint model.

Domains are the label values of a topology key over every cluster that carries it, eligible or not,
so a domain that can take nothing still holds the minimum down. A cluster without the key is
neutral: it never violates a constraint and never changes a count.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from model import SpreadConstraint
from solver.table import ClusterTable

__all__ = ["Dimension", "SpreadState", "SOFT_VIOLATION", "contribute"]

SOFT_VIOLATION = 1000  # what exceeding a soft constraint's max skew costs, upstream and here


@dataclass(slots=True)
class Dimension:
    constraint: SpreadConstraint
    codes: np.ndarray  # domain code per cluster row, -1 without the key
    domains: list[str]
    counts: np.ndarray  # clusters held per domain


class SpreadState:
    """Domain counts of one request's spread constraints, updated pick by pick."""

    def __init__(
        self, table: ClusterTable, constraints: tuple[SpreadConstraint, ...], held: list[int]
    ) -> None:
        self.dimensions: list[Dimension] = []
        for constraint in constraints:
            codes, domains = table.domain_codes(constraint.topology_key, constraint.claims)
            counts = np.zeros(len(domains), dtype=np.int64)
            held_codes = codes[np.asarray(held, dtype=np.int64)] if held else np.empty(0, np.int64)
            np.add.at(counts, held_codes[held_codes >= 0], 1)
            self.dimensions.append(Dimension(constraint, codes, domains, counts))
        self.initial_skew = [self._skew(d.counts) for d in self.dimensions]

    @staticmethod
    def _skew(counts: np.ndarray) -> int:
        return int(counts.max() - counts.min()) if len(counts) else 0

    def skews(self) -> list[int]:
        return [self._skew(d.counts) for d in self.dimensions]

    def add(self, row: int) -> None:
        for d in self.dimensions:
            if d.codes[row] >= 0:
                d.counts[d.codes[row]] += 1

    def remove(self, row: int) -> None:
        for d in self.dimensions:
            if d.codes[row] >= 0:
                d.counts[d.codes[row]] -= 1

    @staticmethod
    def _per_domain(counts: np.ndarray, max_skew: int) -> tuple[np.ndarray, np.ndarray]:
        """Upstream's skew change and violation of one more cluster in each domain."""
        ordered = np.sort(counts)
        smallest, largest = ordered[0], ordered[-1]
        second = ordered[1] if len(ordered) > 1 else smallest
        skew = int(largest - smallest)
        if largest == smallest:
            change = np.ones(len(counts), dtype=np.int64)
        else:
            change = np.zeros(len(counts), dtype=np.int64)
            change[counts == largest] = 1
            if smallest != second:
                change[counts == smallest] = -1
        return change, (skew + change) > max_skew

    def score(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Topology score of adding each row, and the index of the first hard constraint it would
        violate (-1 for none), as upstream computes them against the current counts."""
        score = np.zeros(len(rows), dtype=np.int64)
        violated = np.full(len(rows), -1, dtype=np.int64)
        order = [i for i, d in enumerate(self.dimensions) if d.constraint.hard]
        order += [i for i, d in enumerate(self.dimensions) if not d.constraint.hard]
        for i in order:
            d = self.dimensions[i]
            if not len(d.domains):
                continue
            codes = d.codes[rows]
            keyed = codes >= 0
            change, violation = self._per_domain(d.counts, d.constraint.max_skew)
            row_change = np.where(keyed, change[np.maximum(codes, 0)], 0)
            row_violation = keyed & violation[np.maximum(codes, 0)]
            if d.constraint.hard:
                newly = row_violation & (violated < 0)
                violated[newly] = i
                score -= row_change
            else:
                score += np.where(row_violation, -SOFT_VIOLATION, -row_change)
        return score, violated

    def final_scores(self, rows: list[int]) -> dict[int, int]:
        """Each selected row's topology score as if it had been the last pick."""
        out = {}
        for row in rows:
            self.remove(row)
            score, _ = self.score(np.asarray([row], dtype=np.int64))
            self.add(row)
            out[row] = int(score[0])
        return out

    def penalty(self) -> int:
        """The spread level of the objective: every skew, plus the soft excess at upstream's price."""
        total = 0
        for d, skew in zip(self.dimensions, self.skews(), strict=True):
            total += skew
            if not d.constraint.hard:
                total += SOFT_VIOLATION * max(0, skew - d.constraint.max_skew)
        return total

    def cells(self, rows: np.ndarray) -> np.ndarray:
        """A cell id per row: rows in the same cell are interchangeable for spread."""
        if not self.dimensions:
            return np.zeros(len(rows), dtype=np.int64)
        combined = np.zeros(len(rows), dtype=np.int64)
        for d in self.dimensions:  # mixed radix: one integer per combination of domains
            combined = combined * (len(d.domains) + 1) + (d.codes[rows] + 1)
        _, inverse = np.unique(combined, return_inverse=True)
        return inverse.astype(np.int64)


def contribute(space) -> None:
    """In the joint model: per constraint the final highest and lowest domain counts; hard
    constraints bound their difference, and the spread level pays for it (and for soft excess)."""
    from ortools.sat.python import cp_model  # only when a model is built (see solver.search)

    p, model, x = space.p, space.model, space.x
    state = SpreadState(space.table, p.request.spread, list(p.kept))
    most = p.present + space.want
    exprs, coefficients = [], []
    for dim, skew0 in zip(state.dimensions, state.initial_skew, strict=True):
        if not dim.domains:
            continue
        members: dict[int, list] = {}
        for r in space.rows:
            code = int(dim.codes[r])
            if code >= 0:
                members.setdefault(code, []).append(x[r])
        high = model.new_int_var(0, most, "")
        low = model.new_int_var(0, most, "")
        for code, base in enumerate(dim.counts.tolist()):
            count = base + cp_model.LinearExpr.sum(members.get(code, []))
            model.add(high >= count)
            model.add(low <= count)
        if dim.constraint.hard:
            # Never above max skew, nor above the skew the kept decisions already have.
            model.add(high - low <= max(dim.constraint.max_skew, skew0))
        else:
            excess = model.new_int_var(0, most, "")
            model.add(excess >= high - low - dim.constraint.max_skew)
            exprs.append(excess)
            coefficients.append(-SOFT_VIOLATION)
        exprs += [high, low]
        coefficients += [-1, 1]
    space.add("spread", exprs, coefficients)
