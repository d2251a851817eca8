"""The class model: CP-SAT over how many of each class are scheduled under each option and how many
replicas they place on each cluster together, solved level by level (solver.replicas.joint).

Small by construction: integer counts per (class, option, cluster), never per request; a plain
linear row per (cluster, resource) for capacity, left out where the classes that may use the
cluster cannot fill it. Where the classes' candidates are too many to model, each (class, option)
keeps the clusters it holds, greedy's split, the hint's and the ones with the most room for its
demand: the answer is then no longer proven (its levels have no bound), only never worse than the
hint. Each level is its own stage with its own objective (one combined integer would overflow and
hide any gap), bounded in deterministic time (semantics/cp-sat-notes.md, 4.3: one worker, a fixed
seed, the same answer for the same input), hinted with the best answer so far, fixed at its optimum
before the next.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from model import Division
from solver.replicas.capacity_classes import ReplicaClass, hand_out
from solver.replicas.capacity_fill import fits_on
from solver.replicas.capacity_units import (
    AIMS,
    Answer,
    CapacityProblem,
    level_names,
    measure,
    room_after_fixed,
)

__all__ = ["ModelOutcome", "solve_classes"]

# Arcs (class, option, cluster) modelled in full; past it each (class, option) keeps its own
# clusters and the _WIDTH with most room; past _MOST_ARCS even so, no model (the fill stands).
# The gate is a count, so the same input gets a model or not at any machine load: CP-SAT's
# deterministic time does not count its presolve, probing and hint search, which on a model of
# 30,000 arcs (544 distinct requests over 1,000 clusters, 84,000 variables) took the whole wall
# budget without a first answer (docs/performance.md, Karmada, k19-slow).
_ARCS = 5_000
_WIDTH = 12
_MOST_ARCS = 5_000
# The levels after the first ones (unscheduled requests) start from a good hint (the fill keeps
# every request near its own split) and matter less: together they get this share of the budget,
# evenly (at 10,000 requests over 1,000 clusters CP-SAT improved them by under 1% in twice this;
# on a model of 6,000 variables each stage costs some 4 to 8 cpu seconds per deterministic second,
# its presolve beside), so a hard aim (measured: the clusters level of 40 classes over 100
# clusters, 6 s to prove) cannot take the time the first levels and the other parts need.
_AIM_SHARE = 0.05


@dataclass(slots=True)
class ModelOutcome:
    answer: Answer | None  # None: the wall clock cut the first level before any answer
    optima: list[int | None]  # per level, the proven optimum given the ones before (None: not proven)
    time_limited: bool
    seconds: float
    solved: bool = True  # a model was built and solved (False: no time left to build one)


def solve_classes(
    problem: CapacityProblem,
    part: Sequence[int],
    classes: list[ReplicaClass],
    hint: Answer,
    *,
    seed: int,
    budget: float,
    deadline: float,
    known: Sequence[int | None] = (),
    given: Sequence[int] = (),
) -> ModelOutcome | None:
    """The classes' joint answer, or None where there is nothing to decide or no model to build
    (too many arcs); an outcome without an answer where the wall clock left no time for one.
    `known`: per level, a lower bound proven without the model (None: none); a level whose best
    answer so far meets it is fixed there unsolved (each solve presolves the whole model anew).
    Each holds given the levels before it at `given` (the answer it was read for): it is read
    only while the model has fixed every level before it at exactly those values."""
    from solver import sat

    if not classes:
        return None
    started = time.perf_counter()
    room = room_after_fixed(problem, part)
    arcs, pruned = _arcs(problem, classes, hint, room)
    if arcs is None:  # no model whatever the time: the clock cuts nothing
        return None
    if started >= deadline:
        return ModelOutcome(None, [None] * len(level_names(problem)), True, 0.0, solved=False)
    names = level_names(problem)
    slot = {p: i for i, p in enumerate(problem.priorities)}
    aim_at = {True: len(slot), False: len(slot) + len(AIMS) + 1}
    moved_at = len(slot) + len(AIMS)
    terms: list[list] = [[] for _ in names]
    constant = [0] * len(names)
    for u in part:  # units no option fits are unscheduled whatever happens
        unit = problem.units[u]
        if unit.fixed is None and not unit.options:
            constant[slot[unit.priority]] += 1

    model = sat.Model()
    s: dict[tuple[int, int], sat.IntVar] = {}
    y: dict[tuple[int, int, int], sat.IntVar] = {}
    adds_on: dict[int, list[tuple[np.ndarray, object]]] = defaultdict(list)
    most_on: dict[int, np.ndarray] = defaultdict(lambda: np.zeros(problem.free.shape[1], dtype=np.int64))
    for cls in classes:
        unit, n = cls.unit, cls.size
        demand = np.asarray(unit.demand, dtype=np.int64)
        chosen = []
        for o, option in enumerate(unit.options):
            rows = arcs[(cls.index, o)]
            key = (cls.index, o)
            s[key] = count = model.new_int_var(0, n, "")
            chosen.append(count)
            held = dict(option.held)
            target = dict(option.target)
            cap = dict(zip(option.candidates, option.most, strict=True)) if option.most is not None else {}
            each = unit.count
            ys = []
            for row in rows:
                top = n * each
                y[(cls.index, o, row)] = var = model.new_int_var(0, top, "")
                ys.append(var)
                h = held.get(row, 0)
                if unit.fresh:
                    add = model.new_int_var(0, top, "")
                    model.add(add >= var - h * count)
                    terms[moved_at].append(add)
                elif h and option.groups:
                    add = _kept_where_selected(model, var, h, top, count, terms[moved_at])
                else:
                    model.add(var >= h * count)
                    add = var - h * count
                if row in cap:
                    model.add(add <= cap[row] * count)
                    top = min(top, n * cap[row])
                adds_on[row].append((demand, add))
                most_on[row] += demand * top
                if unit.division is Division.AVAILABLE and option.target:
                    # |var - target|: var (all it holds there) may pass the additions `top` bounds
                    # (afresh, held replicas stay past the cap)
                    far = model.new_int_var(0, n * each + n * target.get(row, 0), "")
                    model.add(far >= var - target.get(row, 0) * count)
                    model.add(far >= target.get(row, 0) * count - var)
                    terms[aim_at[unit.fresh] + 2].append(far)
                if unit.division is Division.AGGREGATED:
                    used = model.new_bool_var("")
                    model.add(var <= n * each * used)
                    terms[aim_at[unit.fresh] + 1].append(used)
            model.add(sat.LinearExpr.sum(ys) == each * count)
            if unit.fresh:
                terms[moved_at].append(-max(0, unit.count - option.kept) * count)
            if option.cost:
                terms[aim_at[unit.fresh]].append(option.cost * count)
            for groups in option.groups:  # a class of one: its request's groups
                _groups(model, groups, option, rows, y, cls.index, o, count, unit.count)
            if option.groups and not any(len(set(g.of)) == len(g.of) for g in option.groups):
                # no constraint counts clusters: a group's one cluster each (the checker reads
                # upstream's selection so; solver.replicas.capacity_fill's grouped fill does too)
                for groups in option.groups:
                    _one_cluster_each(model, groups, option.candidates, rows, y, cls.index, o, unit.count)
        model.add(sat.LinearExpr.sum(chosen) <= n)
        constant[slot[unit.priority]] += n
        terms[slot[unit.priority]].extend(-c for c in chosen)
    for row, members in adds_on.items():
        for r in np.nonzero(most_on[row] > room[row])[0]:
            using = [(int(d[r]), add) for d, add in members if d[r]]
            model.add(sat.LinearExpr.sum([d * add for d, add in using]) <= int(room[row, r]))

    _hint(model, classes, hint, s, y, arcs)
    solver = sat.Solver()
    solver.parameters.num_workers = 1  # deterministic
    solver.parameters.random_seed = seed % 2**31
    # No symmetry detection: its work is not counted in deterministic time (a live event's model
    # of 15,000 variables spent 1.9 of 2.2 cpu s in it at a budget of 0.25), so the clock, not the
    # budget, bounded the solve; and it never decided a level there.
    solver.parameters.symmetry_level = 0
    optima: list[int | None] = [None] * len(names)
    found: dict | None = None
    last = False  # whether the last solve found an answer
    limited = False
    every = [model.get_int_var_from_proto_index(k) for k in range(len(model.proto.variables))]
    _complete_the_hint(model, solver, every, budget * _AIM_SHARE)
    hinted = measure(problem, part, hint)
    aims = sum(1 for level in terms[len(slot) :] if level)
    for i, level in enumerate(terms):
        if not level:
            optima[i] = None if pruned else constant[i]
            continue
        objective = sat.LinearExpr.sum(level)
        # the best so far on this level: the hint's, or the last solve's (None: it found nothing)
        best = hinted[i] if found is None else None
        if found is not None and last:
            best = round(solver.value(objective)) + constant[i]
        if (
            best is not None
            and i < len(known)
            and known[i] is not None
            and best <= known[i]
            and optima[:i] == list(given[:i])
        ):
            optima[i] = best
            model.add(objective <= best - constant[i])
            continue
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            limited = True
            break
        model.minimize(objective)
        solver.parameters.max_time_in_seconds = remaining
        first = i < len(slot)
        solver.parameters.max_deterministic_time = budget if first else budget * _AIM_SHARE / aims
        status = solver.solve(model)
        last = status in (sat.OPTIMAL, sat.FEASIBLE)
        if not last:
            limited |= _cut_by_the_clock(solver)
            if first:
                break
            continue  # no answer to an aim in its share: the one before stands
        # The next stage starts from this answer in full (every variable): hinting the counts
        # alone leaves CP-SAT to complete the rest under the new bound, which it may not manage.
        values = [solver.value(var) for var in every]
        found = {var.index: v for var, v in zip(every, values, strict=True)}
        value = round(solver.objective_value)
        if status == sat.FEASIBLE:
            limited |= _cut_by_the_clock(solver)
            if first:
                break
            # An aim cut short: its answer stands (unproven) and the next aims improve within it.
            model.add(objective <= value)
        else:
            optima[i] = None if pruned else value + constant[i]
            model.add(objective == value)
        model.clear_hints()
        for var, v in zip(every, values, strict=True):
            model.add_hint(var, v)
    if found is None:
        return ModelOutcome(None, optima, limited, time.perf_counter() - started)
    totals = {
        key: (
            found[count.index],
            {row: found[y[(*key, row)].index] for row in arcs[key] if found[y[(*key, row)].index]},
        )
        for key, count in s.items()
    }
    answer = hand_out(problem, classes, totals, hint)
    return ModelOutcome(answer, optima, limited, time.perf_counter() - started)


def _complete_the_hint(model, solver, every, budget: float) -> None:
    """Hint every variable, not only the counts and replicas: CP-SAT completes the hint with those
    fixed (a feasibility solve, no objective), so each stage starts from a whole answer (with the
    auxiliaries unhinted, a stage of 6,000 variables found no answer in its budget)."""
    from solver import sat

    solver.parameters.fix_variables_to_their_hinted_value = True
    solver.parameters.max_deterministic_time = budget
    status = solver.solve(model)
    solver.parameters.fix_variables_to_their_hinted_value = False
    if status in (sat.OPTIMAL, sat.FEASIBLE):
        values = [solver.value(var) for var in every]
        model.clear_hints()
        for var, v in zip(every, values, strict=True):
            model.add_hint(var, v)


def _cut_by_the_clock(solver) -> bool:
    """Whether a stage without a proven answer stopped on the wall clock: before its deterministic
    budget ran out, nothing else stops it (no gap limit is set)."""
    spent = solver.response_proto.deterministic_time
    return spent < solver.parameters.max_deterministic_time * 0.99


def _arcs(
    problem: CapacityProblem, classes: list[ReplicaClass], hint: Answer, room: np.ndarray
) -> tuple[dict[tuple[int, int], list[int]] | None, bool]:
    """Per (class, option) the clusters modelled, and whether some candidates were left out."""
    full = sum(len(option.candidates) for cls in classes for option in cls.unit.options)
    if full <= _ARCS:
        return {
            (cls.index, o): list(option.candidates)
            for cls in classes
            for o, option in enumerate(cls.unit.options)
        }, False
    out: dict[tuple[int, int], list[int]] = {}
    total = 0
    for cls in classes:
        unit = cls.unit
        demand = np.asarray(unit.demand, dtype=np.int64)
        for o, option in enumerate(unit.options):
            keep = {row for row, _ in option.held} | {row for row, _ in option.target}
            for u in cls.members:
                if hint[u] is not None and hint[u].option == o:
                    keep |= {row for row, _ in hint[u].replicas}
            rows = np.asarray(option.candidates, dtype=np.int64)
            if len(rows) > _WIDTH and not option.groups:
                fits = fits_on(room, rows, demand)
                best = rows[np.lexsort((rows, -fits))[:_WIDTH]]
                keep |= {int(r) for r in best}
                chosen = sorted(keep)
            else:
                chosen = list(option.candidates)
            out[(cls.index, o)] = chosen
            total += len(chosen)
    return (out if total <= _MOST_ARCS else None), True


def _kept_where_selected(model, var, held: int, top: int, count, moved: list):
    """What a steady unit with a spread adds on a cluster it holds `held` replicas on (a class of
    one: `count` 0 or 1): upstream's selection may leave the cluster out, and its steady division
    keeps the current replicas of the selected clusters only (pkg/scheduler/core/assignment.go,
    buildScheduledClusters: those of clusters no longer candidates are re-assigned as scale-up).
    So the cluster is kept (it holds its replicas and more) or given up (nothing there, its held
    replicas moved)."""
    kept = model.new_bool_var("")
    model.add(kept <= count)
    model.add(var >= held * kept)
    model.add(var <= top * kept)
    moved.append(held * count - held * kept)
    return var - held * kept


def _groups(model, groups, option, rows, y, k, o, count, replicas) -> None:
    """Between least and most groups hold replicas (least: at most one per replica, and at most
    as many as greedy's own split holds: upstream selects the least groups, but its division may
    leave some of them without a replica, an AGGREGATED one all but one; a model stricter than
    greedy's split had its own hint infeasible)."""
    group_of = dict(zip(option.candidates, groups.of, strict=True))
    least = min(groups.least, replicas)
    if option.target:
        least = min(least, len({group_of[row] for row, _ in option.target}))
    members: dict[int, list] = defaultdict(list)
    for row in rows:
        members[group_of[row]].append(y[(k, o, row)])
    used = {}
    for g, ys in sorted(members.items()):
        used[g] = model.new_bool_var("")
        for var in ys:
            model.add(var <= replicas * used[g])
        model.add(used[g] <= sum(ys))
    model.add(sum(used.values()) <= groups.most * count)
    model.add(sum(used.values()) >= least * count)


def _one_cluster_each(model, groups, candidates, rows, y, k, o, replicas) -> None:
    """At most one cluster of each group holds replicas."""
    group_of = dict(zip(candidates, groups.of, strict=True))
    members: dict[int, list] = defaultdict(list)
    for row in rows:
        members[group_of[row]].append(y[(k, o, row)])
    for _, ys in sorted(members.items()):
        if len(ys) < 2:
            continue
        used = [model.new_bool_var("") for _ in ys]
        for var, on in zip(ys, used, strict=True):
            model.add(var <= replicas * on)
        model.add_at_most_one(used)


def _hint(model, classes, hint: Answer, s, y, arcs) -> None:
    totals: dict[tuple[int, int, int], int] = defaultdict(int)
    counts: dict[tuple[int, int], int] = defaultdict(int)
    for cls in classes:
        for u in cls.members:
            placed = hint[u]
            if placed is None:
                continue
            counts[(cls.index, placed.option)] += 1
            for row, n in placed.replicas:
                totals[(cls.index, placed.option, row)] += n
    for key, var in s.items():
        model.add_hint(var, counts.get(key, 0))
    for key, var in y.items():
        model.add_hint(var, totals.get(key, 0))
