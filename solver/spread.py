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
    slots: np.ndarray  # codes + 1: index 0 is "without the key", so per-domain tables need no mask


class SpreadState:
    """Domain counts of one request's spread constraints, updated pick by pick."""

    def __init__(
        self, table: ClusterTable, constraints: tuple[SpreadConstraint, ...], held: list[int]
    ) -> None:
        self.dimensions: list[Dimension] = []
        self.initial_skew: list[int] = []
        held_rows = np.asarray(held, dtype=np.int64)
        for constraint in constraints:
            codes, domains = table.domain_codes(constraint.topology_key, constraint.claims)
            slots = table.domain_slots(constraint.topology_key, constraint.claims)
            # Counted in plain Python: a request holds a few clusters in a few dozen domains.
            tally = [0] * (len(domains) + 1)
            for slot in slots[held_rows].tolist():
                tally[slot] += 1
            counts = tally[1:]  # slot 0 counted the clusters without the key
            held_counts = np.array(counts, dtype=np.int64)
            self.dimensions.append(Dimension(constraint, codes, domains, held_counts, slots))
            self.initial_skew.append(self._skew(counts))
        # Hard constraints first: a row reports the first hard one it would violate.
        self._order = [i for i, d in enumerate(self.dimensions) if d.constraint.hard and d.domains]
        self._order += [i for i, d in enumerate(self.dimensions) if not d.constraint.hard and d.domains]

    @staticmethod
    def _skew(counts: list[int]) -> int:
        # A few dozen domains, as a list: faster than two numpy reductions.
        return max(counts) - min(counts) if counts else 0

    def skews(self) -> list[int]:
        return [self._skew(d.counts.tolist()) for d in self.dimensions]

    def add(self, row: int) -> None:
        for d in self.dimensions:
            if d.codes[row] >= 0:
                d.counts[d.codes[row]] += 1

    def remove(self, row: int) -> None:
        for d in self.dimensions:
            if d.codes[row] >= 0:
                d.counts[d.codes[row]] -= 1

    @staticmethod
    def _per_domain(counts: list[int], max_skew: int) -> tuple[list[int], list[bool]]:
        """Upstream's skew change and violation of one more cluster in each domain. In plain
        Python: a fleet has a few dozen domains, where numpy's per-call cost dominates."""
        smallest, second, largest = _extremes(counts)
        change = [_change(c, smallest, second, largest) for c in counts]
        return change, [largest - smallest + c > max_skew for c in change]

    def score(self, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Topology score of adding each row, and the index of the first hard constraint it would
        violate (-1 for none), as upstream computes them against the current counts."""
        score = np.zeros(len(rows), dtype=np.int64)
        violated = np.full(len(rows), -1, dtype=np.int64)
        for i in self._order:
            d = self.dimensions[i]
            change, violation = self._per_domain(d.counts.tolist(), d.constraint.max_skew)
            slots = d.slots[rows]
            if d.constraint.hard:
                score -= np.array([0, *change], dtype=np.int64)[slots]
                newly = np.array([False, *violation])[slots] & (violated < 0)
                violated[newly] = i
            else:
                soft = [-SOFT_VIOLATION if v else -c for c, v in zip(change, violation, strict=True)]
                score += np.array([0, *soft], dtype=np.int64)[slots]
        return score, violated

    def cell_scores(self, cells: list[tuple[int, ...]]) -> list[tuple[int, int]]:
        """`score` for rows alike in every dimension, given as their slots (one per dimension, in
        dimension order): (score, first violated hard constraint or -1) for each, in plain Python."""
        tables = []
        for i in self._order:
            d = self.dimensions[i]
            change, violation = self._per_domain(d.counts.tolist(), d.constraint.max_skew)
            tables.append((i, d.constraint.hard, change, violation))
        out = []
        for slots in cells:
            score, violated = 0, -1
            for i, hard, change, violation in tables:
                slot = slots[i]
                if slot == 0:  # without the key: neutral
                    continue
                if hard:
                    score -= change[slot - 1]
                    if violated < 0 and violation[slot - 1]:
                        violated = i
                else:
                    score -= SOFT_VIOLATION if violation[slot - 1] else change[slot - 1]
            out.append((score, violated))
        return out

    def best_cell(
        self, cells: list[tuple[int, ...]], left: list[int], values: list[int]
    ) -> tuple[int, int] | None:
        """The cell `cell_scores` and a pick by (score, value) would choose among those with
        candidates `left` and no hard constraint violated: (its index, its score), or None. Each
        cell's change is judged from its own domains' counts against each dimension's extremes
        (what `_per_domain` gives that domain), not for every domain; a cell violating a hard
        constraint is passed over at the first one found (it is never picked, whichever one)."""
        dims = []
        for i in self._order:
            d = self.dimensions[i]
            counts = d.counts.tolist()
            smallest, second, largest = _extremes(counts)
            dims.append((i, d.constraint.hard, counts, smallest, second, largest, d.constraint.max_skew))
        best: tuple[int, int] | None = None
        chosen = -1
        for cell, slots in enumerate(cells):
            if not left[cell]:
                continue
            score = 0
            for i, hard, counts, smallest, second, largest, max_skew in dims:
                slot = slots[i]
                if slot == 0:  # without the key: neutral
                    continue
                count = counts[slot - 1]  # _change, inline (a call per cell and dimension)
                if largest == smallest or count == largest:
                    change = 1
                else:
                    change = -1 if count == smallest and smallest != second else 0
                if largest - smallest + change > max_skew:
                    if hard:
                        break
                    score -= SOFT_VIOLATION
                else:
                    score -= change
            else:
                if best is None or (score, values[cell]) > best:
                    best, chosen = (score, values[cell]), cell
        return None if best is None else (chosen, best[0])

    def final_scores(self, rows: list[int]) -> dict[int, int]:
        """Each selected row's topology score as if it had been the last pick: `score` of that one
        row with it removed, in plain Python (a handful of rows against a few dozen domains)."""
        dimensions = [(d.codes, d.counts.tolist(), d.constraint) for d in self.dimensions if d.domains]
        out = {}
        for row in rows:
            total = 0
            for codes, counts, constraint in dimensions:
                code = int(codes[row])
                if code < 0:
                    continue
                counts[code] -= 1
                smallest, second, largest = _extremes(counts)
                change = _change(counts[code], smallest, second, largest)
                counts[code] += 1
                if not constraint.hard and largest - smallest + change > constraint.max_skew:
                    total -= SOFT_VIOLATION
                else:
                    total -= change
            out[row] = total
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


def _extremes(counts: list[int]) -> tuple[int, int, int]:
    """The smallest, second smallest and largest of the domain counts."""
    ordered = sorted(counts)
    return ordered[0], (ordered[1] if len(ordered) > 1 else ordered[0]), ordered[-1]


def _change(count: int, smallest: int, second: int, largest: int) -> int:
    """How one more cluster in a domain holding `count` changes the skew, as upstream scores it:
    +1 in a largest domain (or when all are equal), -1 in the only smallest one."""
    if largest == smallest or count == largest:
        return 1
    return -1 if count == smallest and smallest != second else 0


def contribute(space) -> None:
    """In the joint model: per constraint the final highest and lowest domain counts; hard
    constraints bound their difference, and the spread level pays for it (and for soft excess)."""
    from solver import sat  # only when a model is built (see solver.space)

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
            count = base + sat.LinearExpr.sum(members.get(code, []))
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
