"""A local search for the one case the joint model does not split into a flow and need not count:
units of several slots levelled with nothing else to decide (no limits, no pools).

Every unit with a candidate is placed and nothing is created, so only the sum of squared loads is
left, and with units of unequal size it is a bin-balancing problem: moves and pairwise swaps that
each strictly lower the sum reach a local optimum quickly and deterministically, where CP-SAT's
squares over large loads proved nothing in the time limit. The aim's bound is a relaxation's
(solver.tenancy.bound.slots_bounds): a unit's slots placed apart.
"""

from __future__ import annotations

from solver.tenancy.problem import Placement, Problem, rows_of


def free_weighted(problem: Problem, part: list[int]) -> bool:
    """Units of several slots levelled with nothing else to decide (no limits, no pools): every
    unit that has a candidate is placed and nothing is created, so only the aim is left, and it
    does not split into a flow."""
    classes = [problem.classes[k] for k in part]
    return any(c.demand != 1 for c in classes) and all(
        c.limit == 0 and c.pool is None and not c.exclusive and c.aim == "squares" for c in classes
    )


_SWEEPS = 50  # local search passes at most (each strictly lowers the sum of squares)

_SWAPS = 400  # pairwise exchanges are tried for parts of at most this many units


def free_balance(problem: Problem, part: list[int], greedy: Placement) -> Placement:
    """A local optimum of the sum of squared loads: from the better of greedy's answer and the
    largest-first placement (each unit, heaviest first, on its emptiest candidate), units move to
    a candidate where the sum falls and pairs of units swap clusters where it falls, until
    neither helps. Moving d from load a to load b changes the sum by 2d(b - a + d); swapping d1
    (at a) with d2 (at b) by 2t(a - b + t), t = d2 - d1."""
    units = sorted(p for k in part for p in problem.classes[k].requests)
    demand = {p: problem.classes[problem.class_of[p]].demand for p in units}
    cands = {p: problem.classes[problem.class_of[p]].candidates for p in units}
    units = [p for p in units if cands[p]]

    def squares(where: dict[int, int]) -> int:
        load = dict.fromkeys(rows_of(problem, part), 0)
        for row in load:
            load[row] = problem.base[row]
        for p, row in where.items():
            load[row] += demand[p]
        return sum(v * v for v in load.values())

    load = list(problem.base)
    largest_first: dict[int, int] = {}
    for p in sorted(units, key=lambda p: (-demand[p], p)):
        row = min(cands[p], key=lambda r: (load[r], r))
        largest_first[p] = row
        load[row] += demand[p]
    start = {p: greedy.existing[p] for p in demand if p in greedy.existing}  # the part's alone
    where = largest_first if squares(largest_first) < squares(start) else start
    load = list(problem.base)
    for p, row in where.items():
        load[row] += demand[p]

    for _ in range(_SWEEPS):
        improved = False
        for p in units:
            here, d = where[p], demand[p]
            best, gain = here, 0
            for row in cands[p]:
                delta = 2 * d * (load[row] - load[here] + d)
                if delta < gain:
                    best, gain = row, delta
            if best != here:
                where[p] = best
                load[here] -= d
                load[best] += d
                improved = True
        if len(units) <= _SWAPS:
            allowed = {p: set(cands[p]) for p in units}
            for i, p in enumerate(units):
                for q in units[i + 1 :]:
                    a, b = where[p], where[q]
                    t = demand[q] - demand[p]
                    if a == b or t == 0 or b not in allowed[p] or a not in allowed[q]:
                        continue
                    if 2 * t * (load[a] - load[b] + t) < 0:
                        where[p], where[q] = b, a
                        load[a] += t
                        load[b] -= t
                        improved = True
        if not improved:
            break
    return Placement(existing=dict(where))
