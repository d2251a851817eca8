"""The joint model: levels 1 (requests left unplaced) and 2 (new clusters) by CP-SAT over counts of
each class per cluster and per pool, then the aim by a flow (solver.tenancy.flow) with the new
clusters per pool fixed at CP-SAT's answer.

Counts, not requests: interchangeable requests make one integer variable per (class, cluster), so
the model stays the size of the classes' candidates (semantics/cp-sat-notes.md, 4.4), and CP-SAT
proves levels 1 and 2 in a fraction of a second at 10,000 requests. Requests of several slots do
not split into a flow: for them CP-SAT also decides the aim, each square as its tangents.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass

from solver.search import cp_seed, stage_weights, stages
from solver.tenancy.flow import aim_flow, arcs_of, balanced_ceilings, best_split
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
    from ortools.sat.python import cp_model  # only here: its import takes 0.2 s, the flow needs none

    total_of = cp_model.LinearExpr.sum
    model = cp_model.CpModel()
    arcs = arcs_of(problem, classes)
    y = {key: model.new_int_var(0, room, "") for key, room in arcs.items()}
    of_class: dict[int, list[cp_model.IntVar]] = defaultdict(list)
    on: dict[int, list[tuple[RequestClass, cp_model.IntVar]]] = defaultdict(list)
    for (k, row), var in y.items():
        of_class[k].append(var)
        on[row].append((problem.classes[k], var))

    # Capacity: the requests on a cluster must be admissible one at a time, each while fewer than
    # its limit are taken. Some order admits them exactly when the smallest limits first does
    # (earliest deadline first), so: for every limit L, the cluster's tenants plus the requests
    # of limit at most L stay within L. Greedy's queue always passes; unlimited requests go last.
    for row, members in on.items():
        for limit, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(cp_model.LinearExpr.weighted_sum(xs, demands) + problem.base[row] <= limit)

    # Every request is placed: on an existing cluster, else on a new one of its pool.
    # Those left over go to new clusters: of their own pool, or of a pool they may join.
    unplaced_terms, created_terms = [], []
    to_pool: dict[tuple[int, str], cp_model.IntVar] = {}
    opened: dict[str, cp_model.IntVar] = {}
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
            cp_model.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
            <= load * opened[pool]
        )
        for tier, within in _tiers(members):
            xs, demands = [x for x, _ in within], [d for _, d in within]
            model.add(cp_model.LinearExpr.weighted_sum(xs, demands) <= tier * opened[pool])
        created_terms.append(opened[pool])

    total_requests = sum(len(c.requests) for c in classes)
    spans = (total_requests, total_requests)
    levels = [total_of(unplaced_terms), total_of(created_terms)]

    greedy_allot = allotment(problem, greedy)
    for key, var in y.items():
        model.add_hint(var, min(greedy_allot.get(key, 0), arcs[key]))

    every = [model.get_int_var_from_proto_index(i) for i in range(len(model.proto.variables))]
    solver = cp_model.CpSolver()
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
        objective = cp_model.LinearExpr.weighted_sum([levels[i] for i in stage], weights)
        model.minimize(objective)
        solver.parameters.max_time_in_seconds = remaining
        solver.parameters.max_deterministic_time = budget
        began = time.perf_counter()
        status = solver.solve(model)
        seconds += time.perf_counter() - began
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return None
        values = [solver.value(var) for var in every]
        best = {key: solver.value(var) for key, var in y.items() if solver.value(var)}
        if status == cp_model.FEASIBLE:  # a limit cut the search: its answer, unproven
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
        if status not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            limited = solver.wall_time >= remaining * 0.99
            return Joint(best, False, 1, limited, seconds, build_seconds, optima=counts)
        answer = {key: solver.value(var) for key, var in y.items() if solver.value(var)}
        limited = status != cp_model.OPTIMAL and solver.wall_time >= remaining * 0.99
        return Joint(answer, status == cp_model.OPTIMAL, 1, limited, seconds, build_seconds, optima=counts)
    began = time.perf_counter()
    unplaced = sum(solver.value(t) for t in unplaced_terms)
    split = {pool: solver.value(var) for pool, var in opened.items()}
    pools = {key: solver.value(x) for key, x in to_pool.items() if solver.value(x)}
    if any(cls.joins for cls in classes):
        # Who goes to which pool stays CP-SAT's; the flow levels the rest on existing clusters
        # (exact for those spills, so unproven).
        away = {
            cls.index: len(cls.requests) - sum(best.get((cls.index, row), 0) for row in cls.candidates)
            for cls in classes
        }
        flowed = aim_flow(problem, part, arcs, {}, 0, away=away)
        seconds += time.perf_counter() - began
        answer = flowed[0] if flowed else best
        return Joint(answer, False, 1, False, seconds, build_seconds, pools, split, optima=counts)
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
    from ortools.sat.python import cp_model

    ceiling = balanced_ceilings(problem, classes)
    terms = []
    for row, members in on.items():
        base = problem.base[row]
        extra = cp_model.LinearExpr.weighted_sum([x for _, x in members], [cls.demand for cls, _ in members])
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
    return cp_model.LinearExpr.sum(terms)


def _ranks(y, problem: Problem, part: list[int]):
    from ortools.sat.python import cp_model

    rank = {row: i for i, row in enumerate(rows_of(problem, part))}
    keys = sorted(y)
    return cp_model.LinearExpr.weighted_sum([y[k] for k in keys], [rank[k[1]] for k in keys])


def _tiers(members):
    """For each distinct limit L on a cluster, the members of limit at most L, as (x, demand)."""
    by_limit = sorted(((cls.limit, x, cls.demand) for cls, x in members if cls.limit), key=lambda m: m[0])
    within: list = []
    for at, (limit, x, demand) in enumerate(by_limit):
        within.append((x, demand))
        if at + 1 == len(by_limit) or by_limit[at + 1][0] != limit:
            yield limit, list(within)
