"""The joint model: levels 1 (requests left unplaced) and 2 (new clusters) by CP-SAT over counts of
each class per cluster and per pool, then the aim by a flow (solver.tenancy.flow) with the new
clusters per pool fixed at CP-SAT's answer.

Counts, not requests: interchangeable requests make one integer variable per (class, cluster), so
the model stays the size of the classes' candidates (semantics/cp-sat-notes.md, 4.4), and where
the squares are then a flow's, clusters alike for levels 1 and 2 are one cell (_cells): the
10,000 x 50,000 openMCP hub's 11,776 counts are 69, and CP-SAT proves levels 1 and 2 in
milliseconds. Requests of several slots do
not split into a flow: for them CP-SAT also decides the aim, each square as its tangents.
"""

from __future__ import annotations

import heapq
import time
from collections import defaultdict
from dataclasses import dataclass

from solver.search import cp_seed, stage_weights, stages
from solver.tenancy.flow import arcs_of, balanced_ceilings, best_joined, best_split
from solver.tenancy.problem import (
    Placement,
    Problem,
    RequestClass,
    allotment,
    pool_demand,
    pool_limit,
    rows_of,
)


@dataclass(slots=True)
class Joint:
    allot: dict[tuple[int, int], int]  # (class, row) -> requests
    proven: bool
    models: int  # CP-SAT models solved (a flow alone is none)
    time_limited: bool
    seconds: float
    build_seconds: float
    # Where joins couple pools: how many of each class go to each pool's new clusters, and how
    # many clusters each pool opens (else the hand-out fills each class's own pool in turn).
    pools: dict[tuple[int, str], int] | None = None
    opened: dict[str, int] | None = None
    # Levels 1 and 2 (unplaced, created) at the optimum CP-SAT proved, each given the one before
    # (None: not proven), whatever the aim's search then proves.
    optima: tuple[int | None, int | None] = (None, None)
    # The least aim over every split of the new clusters over the pools (solver.tenancy.flow.
    # best_joined) where all were tried: a bound on the aim at those optima. None: not tried.
    least: int | None = None


def solve_joint(
    problem: Problem,
    part: list[int],
    greedy: Placement,
    *,
    seed: int,
    budget: float,
    deadline: float,
) -> Joint | None:
    """Levels 1 and 2 by CP-SAT (how many requests each cluster and pool takes, in counts), then
    the aim by a min-cost flow with the new clusters per pool fixed at CP-SAT's answer."""
    started = time.perf_counter()
    classes = [problem.classes[k] for k in part]
    if all(c.limit == 0 and c.pool is None and not c.exclusive for c in classes) and classes[0].aim != "none":
        # Nothing to count (no limits, nothing to create: every request with a candidate is
        # placed): the aim's flow alone.
        arcs = arcs_of(problem, classes)
        unplaced = sum(
            len(c.requests) for c in classes if not any((c.index, row) in arcs for row in c.candidates)
        )
        flowed, proven = best_split(problem, part, arcs, {}, unplaced)
        seconds = time.perf_counter() - started
        # Nothing is created, and only requests with no candidate are left unplaced.
        return None if flowed is None else Joint(flowed, proven, 0, False, seconds, 0.0, optima=(unplaced, 0))
    from solver import sat  # only here: ortools' import, which the flow needs none of

    total_of = sat.LinearExpr.sum
    model = sat.Model()
    arcs = arcs_of(problem, classes)
    # Where a flow then levels the squares from CP-SAT's counts of levels 1 and 2 alone, clusters
    # alike for them are counted together (_cells); elsewhere each cluster is its own cell.
    cells = _cells(problem, arcs, alike=classes[0].aim == "squares" and all(c.demand == 1 for c in classes))
    counts = _cell_arcs(arcs, cells)
    y = {key: model.new_int_var(0, room, "") for key, room in counts.items()}
    of_class: dict[int, list[sat.IntVar]] = defaultdict(list)
    on: dict[int, list[tuple[RequestClass, sat.IntVar]]] = defaultdict(list)
    for (k, cell), var in y.items():
        of_class[k].append(var)
        on[cell].append((problem.classes[k], var))

    # Capacity: the requests on a cluster must be admissible one at a time, each while fewer than
    # its limit are taken. Some order admits them exactly when the smallest limits first does
    # (earliest deadline first), so: for every limit L, the cluster's tenants plus the requests
    # of limit at most L stay within L (m times that for a cell of m clusters alike). Greedy's
    # queue always passes; unlimited requests go last.
    for cell, members in on.items():
        m = len(cells[cell])
        for limit, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(sat.LinearExpr.weighted_sum(xs, demands) + problem.base[cell] * m <= limit * m)

    # Every request is placed: on an existing cluster, else on a new one of its pool.
    # Those left over go to new clusters: of their own pool, or of a pool they may join.
    unplaced_terms, created_terms = [], []
    to_pool: dict[tuple[int, str], sat.IntVar] = {}
    opened: dict[str, sat.IntVar] = {}
    for cls in classes:
        n = len(cls.requests)
        rest = model.new_int_var(0, n, "")
        model.add(rest + total_of(of_class[cls.index]) == n)
        if cls.exclusive:
            created_terms.append(rest)
            continue
        spills = []
        for pool in cls.pools:
            to_pool[(cls.index, pool)] = model.new_int_var(0, n, "")
            spills.append(to_pool[(cls.index, pool)])
        if cls.pool is None:  # it may join others' new clusters, not open one
            left = model.new_int_var(0, n, "")
            model.add(left + total_of(spills) == rest)
            unplaced_terms.append(left)
        else:
            model.add(total_of(spills) == rest)
    for pool in sorted({pool for cls in classes for pool in cls.pools}):
        members = [(problem.classes[k], x) for (k, p), x in to_pool.items() if p == pool]
        own = [x for cls, x in members if cls.pool == pool]
        if not own:  # nobody here may open one: nothing to join
            model.add(total_of([x for _, x in members]) == 0)
            continue
        limit = pool_limit(problem, part, pool)
        openers = pool_demand(problem, part, pool)
        opened[pool] = model.new_bool_var("") if limit == 0 else model.new_int_var(0, openers, "")
        # Every new cluster is opened by a request of the pool (it is named after it), and takes
        # what the earliest-deadline order admits: per limit L, L per cluster.
        model.add(opened[pool] <= total_of(own))
        load = sum(cls.demand * len(cls.requests) for cls, _ in members)
        model.add(
            sat.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
            <= load * opened[pool]
        )
        for tier, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(sat.LinearExpr.weighted_sum(xs, demands) <= tier * opened[pool])
        created_terms.append(opened[pool])

    total_requests = sum(len(c.requests) for c in classes)
    spans = (total_requests, total_requests)
    levels = [total_of(unplaced_terms), total_of(created_terms)]

    hinted: dict[tuple[int, int], int] = defaultdict(int)
    for (k, row), n in allotment(problem, greedy).items():
        if (k, row) in arcs:  # greedy may hold a cluster past the model's room (a ceiling)
            hinted[(k, cells.first[row])] += n
    for key, var in y.items():
        model.add_hint(var, min(hinted.get(key, 0), counts[key]))

    every = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    solver = sat.Solver()
    solver.parameters.num_workers = 1  # deterministic
    solver.parameters.random_seed = cp_seed(seed)
    build_seconds = time.perf_counter() - started
    seconds = 0.0
    best: dict[tuple[int, int], int] | None = None
    values: list[int] = []
    optima: list[int | None] = [None, None]
    for stage in stages(spans):
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return None
        weights = stage_weights(spans, stage)
        objective = sat.LinearExpr.weighted_sum([levels[i] for i in stage], weights)
        model.minimize(objective)
        solver.parameters.max_time_in_seconds = remaining
        solver.parameters.max_deterministic_time = budget
        began = time.perf_counter()
        status = solver.solve(model)
        seconds += time.perf_counter() - began
        if status not in (sat.OPTIMAL, sat.FEASIBLE):
            return None
        values = [solver.value(var) for var in every]
        best = cells.spread({key: solver.value(var) for key, var in y.items() if solver.value(var)}, problem)
        if status == sat.FEASIBLE:  # a limit cut the search: its answer, unproven
            limited = solver.wall_time >= remaining * 0.99
            return Joint(best, False, 1, limited, seconds, build_seconds, optima=(optima[0], optima[1]))
        for i in stage:
            optima[i] = sum(solver.value(t) for t in (unplaced_terms, created_terms)[i])
        model.add(objective == round(solver.objective_value))
        # The next stage starts from this answer in full: hinting the counts alone leaves CP-SAT
        # to complete the rest under the new equality, which it may not manage in its budget.
        model.clear_hints()
        for var, v in zip(every, values, strict=True):
            model.add_hint(var, v)
    assert best is not None
    counts = (optima[0], optima[1])
    kind = classes[0].aim
    if kind == "none":
        return Joint(best, True, 1, False, seconds, build_seconds, optima=counts)
    if any(cls.demand != 1 for cls in classes):
        # Requests of several slots do not split: no flow; CP-SAT with the square's tangents.
        aim = _squares(model, on, problem, classes) if kind == "squares" else _ranks(y, problem, part)
        model.minimize(aim)
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return Joint(best, False, 1, True, seconds, build_seconds, optima=counts)
        solver.parameters.max_time_in_seconds = remaining
        began = time.perf_counter()
        status = solver.solve(model)
        seconds += time.perf_counter() - began
        if status not in (sat.OPTIMAL, sat.FEASIBLE):
            limited = solver.wall_time >= remaining * 0.99
            return Joint(best, False, 1, limited, seconds, build_seconds, optima=counts)
        answer = {key: solver.value(var) for key, var in y.items() if solver.value(var)}
        limited = status != sat.OPTIMAL and solver.wall_time >= remaining * 0.99
        return Joint(answer, status == sat.OPTIMAL, 1, limited, seconds, build_seconds, optima=counts)
    began = time.perf_counter()
    unplaced = sum(solver.value(t) for t in unplaced_terms)
    split = {pool: solver.value(var) for pool, var in opened.items()}
    pools = {key: solver.value(x) for key, x in to_pool.items() if solver.value(x)}
    if any(cls.joins for cls in classes):
        # Who goes where, existing clusters and pools alike, is the flow's, at the best of the
        # ways to split the new clusters over the pools where there are few, else at CP-SAT's
        # (exact for that split, so unproven: solver.tenancy.bound).
        split, joined, least = best_joined(problem, part, arcs, split, unplaced)
        seconds += time.perf_counter() - began
        answer, pools = joined if joined is not None else (best, pools)
        joint = Joint(answer, False, 1, False, seconds, build_seconds, pools, split, optima=counts)
        joint.least = least
        return joint
    flowed, proven = best_split(problem, part, arcs, split, unplaced)
    seconds += time.perf_counter() - began
    proven &= flowed is not None
    return Joint(flowed or best, proven, 1, False, seconds, build_seconds, optima=counts)


# Tangents per square at most: past this many a cluster's square is CP-SAT's own product, with
# this many tangents spread over its range for the LP (one per integer would cost the model's
# build a constraint per unit of load: minutes for loads in the millions, past any time limit).
_TANGENTS = 256


def _squares(model, on, problem: Problem, classes: list[RequestClass]):
    """The sum over clusters of (load^2 - tenants^2), each square as its tangents at the integers
    (exact where the load is an integer, a convex envelope for the LP); over a range wider than
    _TANGENTS, the exact product and _TANGENTS of those tangents."""
    from solver import sat

    ceiling = balanced_ceilings(problem, classes)
    terms = []
    for row, members in on.items():
        base = problem.base[row]
        extra = sat.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
        most = min(
            sum(cls.demand * len(cls.requests) for cls, _ in members),
            max(0, max(cls.limit or ceiling[cls.index] for cls, _ in members) - base),
        )
        square = model.new_int_var(0, (base + most) ** 2 - base * base, "")
        if most <= _TANGENTS:
            points = range(base, base + most)
        else:
            load = model.new_int_var(base, base + most, "")
            model.add(load == base + extra)
            product = model.new_int_var(base * base, (base + most) ** 2, "")
            model.add_multiplication_equality(product, [load, load])
            model.add(square == product - base * base)
            points = sorted({base + most * i // _TANGENTS for i in range(_TANGENTS)})
        for a in points:
            model.add(square >= (2 * a + 1) * (base + extra) - a * (a + 1) - base * base)
        terms.append(square)
    return sat.LinearExpr.sum(terms)


def _ranks(y, problem: Problem, part: list[int]):
    from solver import sat

    rank = {row: i for i, row in enumerate(rows_of(problem, part))}
    keys = sorted(y)
    return sat.LinearExpr.weighted_sum([y[k] for k in keys], [rank[k[1]] for k in keys])


class _Cells(dict):
    """Clusters counted together in the joint model, by their first: cell -> its clusters (in
    order); `first` maps every cluster to its cell's."""

    def __init__(self) -> None:
        super().__init__()
        self.first: dict[int, int] = {}

    def spread(self, counts: dict[tuple[int, int], int], problem: Problem) -> dict[tuple[int, int], int]:
        """A cell's counts on its clusters: class by class, smallest limits first, each request on
        the cluster of the cell holding fewest so far (the earliest on a tie), so that every
        cluster's requests of limit at most L stay within the cell's share (at most m(L - t) in
        the cell, so at most L - t on any of its m clusters, each holding t tenants)."""
        out: dict[tuple[int, int], int] = {}
        by_cell: dict[int, list[tuple[int, int]]] = defaultdict(list)
        for (k, cell), n in counts.items():
            by_cell[cell].append((k, n))
        for cell, members in by_cell.items():
            rows = self[cell]
            if len(rows) == 1:
                out.update({(k, cell): n for k, n in members})
                continue
            held = [(0, i) for i in range(len(rows))]
            for k, n in sorted(members, key=lambda m: (problem.classes[m[0]].limit or 1 << 62, m[0])):
                for _ in range(n):
                    taken, i = heapq.heappop(held)
                    out[(k, rows[i])] = out.get((k, rows[i]), 0) + 1
                    heapq.heappush(held, (taken + 1, i))
        return out


def _cells(problem: Problem, arcs: dict[tuple[int, int], int], *, alike: bool) -> _Cells:
    """The clusters as the joint model counts them: with `alike`, clusters with the same tenants
    and the same rooms for the same classes are one cell (levels 1 and 2 see only those: the
    cell's counts spread over its clusters within each one's limits, _Cells.spread); else each
    cluster alone."""
    members: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for (k, row), room in arcs.items():
        members[row].append((k, room))
    cells = _Cells()
    by_kind: dict[tuple, int] = {}
    for row in sorted(members):
        kind = (problem.base[row], tuple(sorted(members[row]))) if alike else (row,)
        first = by_kind.setdefault(kind, row)
        cells.setdefault(first, []).append(row)
        cells.first[row] = first
    return cells


def _cell_arcs(arcs: dict[tuple[int, int], int], cells: _Cells) -> dict[tuple[int, int], int]:
    """(class, cell) -> the most requests of the class the cell takes, in the arcs' order."""
    out: dict[tuple[int, int], int] = {}
    for (k, row), room in arcs.items():
        cell = cells.first[row]
        if (k, cell) not in out:
            out[(k, cell)] = room * len(cells[cell])
    return out


def _tiers(members):
    """For each distinct limit L on a cluster, the members of limit at most L, as (x, demand)."""
    by_limit = sorted(((cls.limit, x, cls.demand) for cls, x in members if cls.limit), key=lambda m: m[0])
    within: list = []
    for at, (limit, x, demand) in enumerate(by_limit):
        within.append((x, demand))
        if at + 1 == len(by_limit) or by_limit[at + 1][0] != limit:
            yield limit, list(within)
