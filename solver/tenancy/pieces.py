"""Units of several slots levelled with nothing else to decide (solver.tenancy.local_search's
case), solved piece by piece: an exact answer and a bound within a few squares of it, where the
slots' relaxation (solver.tenancy.bound.slots_bounds) left kcp v0.8's hub 4.3 % apart.

kcp's parts are Locations: a pool's few SyncTargets with the few Placements drawn to it, and a
region-wide Location joining a hundred pools with a handful of units that may go anywhere. So a
part's classes are split: a class of more than _WIDE candidates is priced, the others fall into
pieces (classes sharing a candidate, transitively) of a few units over a few clusters, each
solved exactly by a branch and bound. The bound on the part's squares, for every placement:

    sum_j (b_j + p_j + w_j)^2 >= sum_j (b_j + p_j)^2 + sum_j w_j (2 b_j + w_j)
                              >= sum_pieces least_piece + sum_free b_j^2 + sum_u d_u (2 m_u + d_u)

(b_j a cluster's tenants, p_j what the pieces' units add, w_j the wide units'; a square of a sum
of wide units is at least the sum of their squares; m_u the fewest tenants among unit u's
candidates; each piece's squares are at least its own optimum, and the pieces share no
cluster). The answer is the local search's with each piece's optimum put in (a piece's units
keep their clusters where the optimum's counts allow), the wide units where the start has them
or, if lower, each on the emptiest of their candidates, largest first; it is taken only where its
squares are below the start's.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from solver.tenancy.problem import Placement, Problem, RequestClass, rows_of
from solver.tenancy.results import measure

__all__ = ["NODES", "Settled", "settle"]

_WIDE = 64  # a class with more candidates is priced in the bound, not searched
NODES = 5_000  # a part's search stops (and the part falls back) past this many nodes
_TRY = 1_000  # a piece's search past this many nodes prices its widest class instead


@dataclass(frozen=True, slots=True)
class Settled:
    placement: Placement  # the answer: the start with every piece at its optimum
    bound: int  # a lower bound on the part's squares over every placement
    nodes: int  # the search's nodes, all pieces together


class _Cut(Exception):
    """A piece's search ran past its nodes (`used`)."""

    def __init__(self, used: int) -> None:
        super().__init__(used)
        self.used = used


def settle(
    problem: Problem, part: list[int], start: Placement, *, wide: int = _WIDE, nodes: int = NODES
) -> Settled | None:
    """The part's answer and bound (the module's docstring), or None where the pieces' search
    runs past `nodes` in all or `start` leaves a unit with a candidate unplaced. A piece whose
    search runs past _TRY nodes has its widest class priced instead, and the rest searched."""
    classes = [problem.classes[k] for k in part if problem.classes[k].candidates]
    priced = [cls for cls in classes if len(cls.candidates) > wide]
    ours = set(part)
    where = {p: row for p, row in start.existing.items() if problem.class_of[p] in ours}
    if any(p not in where for cls in classes for p in cls.requests):
        return None
    bound, covered, spent = 0, set(), 0
    todo = _pieces([cls for cls in classes if len(cls.candidates) <= wide])
    while todo:
        piece = todo.pop(0)
        rows = rows_of(problem, [cls.index for cls in piece])
        try:
            least, better, used = _least(problem, piece, rows, where, min(_TRY, nodes - spent))
        except _Cut as cut:
            spent += cut.used
            if len(piece) == 1 or spent >= nodes:
                return None
            widest = max(piece, key=lambda cls: (len(cls.candidates), cls.index))
            priced.append(widest)
            todo = _pieces([cls for cls in piece if cls is not widest]) + todo
            continue
        spent += used
        if better is not None:
            where.update(_kept_where_allowed(problem, piece, where, better))
        bound += least
        covered.update(rows)
    bound += sum(problem.base[row] ** 2 for row in rows_of(problem, part) if row not in covered)
    bound += sum(
        len(cls.requests) * cls.demand * (2 * min(problem.base[row] for row in cls.candidates) + cls.demand)
        for cls in priced
    )
    answers = [Placement(existing=where)]
    if priced:  # the priced units where the start has them, or placed again
        answers.append(Placement(existing=_emptiest_first(problem, priced, where)))
    placement = min(answers, key=lambda answer: measure(problem, part, answer)[2])
    if measure(problem, part, placement)[2] >= measure(problem, part, start)[2]:
        placement = start
    return Settled(placement, bound, spent)


def _pieces(classes: list[RequestClass]) -> list[list[RequestClass]]:
    """The classes in groups sharing a candidate, transitively (in the order of their first)."""
    owner: dict[int, int] = {}  # row -> the first class seen on it (union-find over classes)
    parent = list(range(len(classes)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, cls in enumerate(classes):
        for row in cls.candidates:
            j = owner.setdefault(row, i)
            a, b = root(i), root(j)
            if a != b:
                parent[max(a, b)] = min(a, b)
    groups: dict[int, list[RequestClass]] = defaultdict(list)
    for i, cls in enumerate(classes):
        groups[root(i)].append(cls)
    return list(groups.values())


def _least(
    problem: Problem, piece: list[RequestClass], rows: list[int], where: dict[int, int], most: int
) -> tuple[int, dict[int, int] | None, int]:
    """The piece's least sum of squares over its rows, where it is below the start's (the piece's
    units as `where` puts them) a placement reaching it (unit -> row), and the nodes searched
    (_Cut past `most`). A branch and
    bound: units largest first, each on each of its candidates, of clusters alike (the same
    tenants now, candidates of the same classes) only one; a node is cut where a lower bound
    reaches the best found: the rest's volume levelled over the piece's clusters as whole slots,
    or each unit left priced on its emptiest candidate (a square's increment only grows)."""
    units = sorted((p for cls in piece for p in cls.requests), key=lambda p: (-_demand(problem, p), p))
    demand = [_demand(problem, p) for p in units]
    cands = [problem.classes[problem.class_of[p]].candidates for p in units]
    sig: dict[int, list[int]] = defaultdict(list)
    for cls in piece:
        for row in cls.candidates:
            sig[row].append(cls.index)
    kind = {row: tuple(sig[row]) for row in rows}
    load = {row: problem.base[row] for row in rows}
    rest = [sum(demand[i:]) for i in range(len(units) + 1)]
    start = dict(load)
    for p in units:
        start[where[p]] += _demand(problem, p)
    best = sum(v * v for v in start.values())
    found: list[int] | None = None
    at = [0] * len(units)
    nodes = 0

    def walk(i: int, squares: int) -> None:
        nonlocal best, found, nodes
        nodes += 1
        if nodes > most:
            raise _Cut(nodes)
        if i == len(units):
            if squares < best:
                best, found = squares, list(at)
            return
        if _levelled(sorted(load.values()), rest[i]) >= best:
            return
        priced = squares
        for k in range(i, len(units)):
            priced += min(demand[k] * (2 * load[row] + demand[k]) for row in cands[k])
            if priced >= best:
                return
        seen = set()
        for row in sorted(cands[i], key=lambda row: (load[row], row)):
            alike = (load[row], kind[row])
            if alike in seen:
                continue
            seen.add(alike)
            before = load[row]
            load[row] += demand[i]
            at[i] = row
            walk(i + 1, squares + demand[i] * (2 * before + demand[i]))
            load[row] = before

    walk(0, _squares(load.values()))
    return best, (None if found is None else dict(zip(units, found, strict=True))), nodes


def _demand(problem: Problem, position: int) -> int:
    return problem.classes[problem.class_of[position]].demand


def _squares(values) -> int:
    return sum(v * v for v in values)


def _levelled(loads: list[int], volume: int) -> int:
    """The least sum of squares of `loads` (ascending) with `volume` whole slots added anywhere:
    the lowest raised to a common level, the remainder one slot higher each."""
    count, below = 1, loads[0]  # the lowest `count` loads are raised; `below` their sum
    while count < len(loads) and count * loads[count] - below <= volume:
        below += loads[count]
        count += 1
    level, over = divmod(below + volume, count)
    return (count - over) * level * level + over * (level + 1) ** 2 + _squares(loads[count:])


def _kept_where_allowed(
    problem: Problem, piece: list[RequestClass], where: dict[int, int], better: dict[int, int]
) -> dict[int, int]:
    """The optimum's counts per (class, row) handed to the piece's units: each keeps its cluster
    where its class's count there is left, the others take what is left in row order."""
    left: dict[tuple[int, int], int] = defaultdict(int)
    for p, row in better.items():
        left[(problem.class_of[p], row)] += 1
    out: dict[int, int] = {}
    for cls in piece:
        moving = []
        for p in cls.requests:
            if left[(cls.index, where[p])] > 0:
                left[(cls.index, where[p])] -= 1
                out[p] = where[p]
            else:
                moving.append(p)
        free = [row for (k, row), n in sorted(left.items()) if k == cls.index for _ in range(n)]
        out.update(zip(moving, free, strict=True))
    return out


def _emptiest_first(problem: Problem, priced: list[RequestClass], where: dict[int, int]) -> dict[int, int]:
    """`where` with the priced units placed again, largest first, each on the emptiest of its
    candidates (the earliest on a tie) with everything else where `where` puts it."""
    mine = {p for cls in priced for p in cls.requests}
    out = dict(where)
    load: dict[int, int] = defaultdict(int)
    for p, row in where.items():
        if p not in mine:
            load[row] += _demand(problem, p)
    for p in sorted(mine, key=lambda p: (-_demand(problem, p), p)):
        cls = problem.classes[problem.class_of[p]]
        row = min(cls.candidates, key=lambda row: (problem.base[row] + load[row], row))
        out[p] = row
        load[row] += cls.demand
    return out
