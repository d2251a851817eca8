"""CP-SAT for one request that needs search: a small model each policy concept fills in.

A concept module contributes through `contribute(space)`: its variables, constraints, and terms of
the objective's levels (solver.objective.LEVELS). The levels are then solved lexicographically in
as few stages as keep each stage's objective exact, every stage hinted with the best answer so far.
"""

from __future__ import annotations

import hashlib
import operator
import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from itertools import repeat

import numpy as np

from solver import modes, scores, spread, stickiness
from solver.objective import LEVELS, Scale
from solver.prepare import Prepared
from solver.space import Space, sat_module
from solver.spread import SpreadState
from solver.table import ClusterTable

__all__ = ["Space", "SearchRun", "build", "cp_seed", "run", "stages", "stage_weights"]

PLUGINS = (modes, scores, spread, stickiness)
# The plugins that write the proto, from what the model's shape alone decides (`_shape`): a kept
# model of the shape stands in for them (`_again`); the others add terms alone, made per ask. A
# plugin that writes the proto from anything else must not be kept so.
SHAPED = (modes, spread)
# A stage's objective must be exact as a double (CP-SAT reports one); small stages also prove
# optimality much faster than one stage with huge lexicographic weights (measured: 3.6 s against
# 7.2 s for the 85 searches of a 10,000 x 2,000 fleet).
_STAGE_LIMIT = 2**20


def cp_seed(seed: int) -> int:
    """The seed as CP-SAT takes it: its random_seed is an int32, and any integer fixes a run
    (`--seed`), so it is folded into that range (the same for every seed that already fits)."""
    return seed % 2**31


def build(p: Prepared, table: ClusterTable, want: int, cells: dict[int, list[int]]) -> Space:
    """The request's model: one boolean per modelled row (cell by cell), each concept's part.
    Where a model of the same shape (`_shape`) was built lately, its proto as built is copied
    and its shape's terms given again (`_again`): only the scores' and stickiness' terms,
    which read the request's scores, are made anew."""
    order = sorted(cells)
    shape = _shape(p, table, want, cells, order)
    kept = _built(shape)
    if kept is not None:
        return _again(p, table, want, cells, order, kept)
    space = Space(p, table, want, cells)
    for cell in order:
        ordered = cells[cell]
        for row in ordered:
            space.x[row] = space.model.new_bool_var("")
        # Inside a cell the better cluster is taken first: no optimum is lost, symmetry is.
        for better, worse in zip(ordered, ordered[1:], strict=False):
            space.model.add_implication(space.x[worse], space.x[better])
    for plugin in PLUGINS:
        plugin.contribute(space)
    _keep_built(shape, space)
    return space


# The models `build` made lately, by their shape (`_shape`): a copy of the proto as the concepts
# left it (the booleans and implications, the selection mode's row, the spread's variables and
# rows), and the terms of the levels the shape decides (clusters, spread) as variable indices and
# coefficients. A long-lived scheduler's Balance search builds a request's model at every ask,
# batch after batch, and its shape (which cells, how many rows each, their domains and the counts
# held) stays while its scores move (the first stage, which reads no score, is remembered in 74 of
# the 84 searches of the 10,000 x 2,000 hub's 200-event stream): ~1.6 ms of Python a model, made
# again for one proto copy (C++) and a wrapper per variable.
_BUILT: OrderedDict[tuple, tuple[object, int, list[int], list[int]]] = OrderedDict()
_BUILT_KEPT = 128  # the oldest go first
_BUILT_ROWS = 4096  # a model of more booleans is not kept (its proto's copy would hold megabytes)
_BUILT_LOCK = threading.Lock()  # searches run on threads too (solver.api._search_in_parallel)


def _shape(
    p: Prepared, table: ClusterTable, want: int, cells: dict[int, list[int]], order: list[int]
) -> tuple:
    """Everything of the request that the proto `build` leaves, and the clusters' and spread
    levels' terms, are made of (`PLUGINS`: modes and spread write to the proto; scores and
    stickiness add terms alone): per cell in `order`, its number of rows (one boolean each, in
    that order, and an implication between each two in a row); the picks `want` (modes' row over
    every boolean) and the most a domain may gain, `present + want` (spread's high and low
    variables); per spread constraint, in order, whether it has domains (none: skipped), hard or
    soft, its max skew and the kept decisions' skew (the hard row's bound, the soft excess row),
    the clusters held per domain (each domain's two rows' constants) and each modelled row's
    domain code, in row order (which booleans each domain's rows sum). Two requests of one shape
    get the same proto and those terms from `build`: no row's name, score or stickiness is read
    by either (tests/test_search_built.py compares them)."""
    sizes = tuple(len(cells[cell]) for cell in order)
    rows = np.fromiter((r for cell in order for r in cells[cell]), dtype=np.int64, count=sum(sizes))
    state = SpreadState(table, p.request.spread, list(p.kept))
    dims = tuple(
        (
            len(dim.domains),
            dim.constraint.hard,
            dim.constraint.max_skew,
            skew0,
            tuple(dim.counts.tolist()),
            tuple(dim.codes[rows].tolist()),
        )
        for dim, skew0 in zip(state.dimensions, state.initial_skew, strict=True)
    )
    return sizes, want, p.present + want, spread.SOFT_VIOLATION, dims


def _built(shape: tuple) -> tuple[object, int, list[int], list[int]] | None:
    with _BUILT_LOCK:
        found = _BUILT.get(shape)
        if found is not None:
            _BUILT.move_to_end(shape)
        return found


def _keep_built(shape: tuple, space: Space) -> None:
    """The model as built, copied (the search goes on to add to it), with its clusters' and
    spread levels' terms: those are variables (their indices) and their coefficients."""
    clusters = space.terms[LEVELS.index("clusters")]
    exprs, coefficients = space.terms[LEVELS.index("spread")]
    picks = list(space.x.values())
    if len(picks) > _BUILT_ROWS:
        return
    if len(picks) != sum(shape[0]):
        return  # a row in two cells: a boolean per row is not one per place (never, cells part rows)
    modes_terms = len(clusters[0]) == len(picks) and all(map(operator.is_, clusters[0], picks))
    if not modes_terms or set(clusters[1]) - {1}:
        return  # not modes' terms as `_again` gives them: not kept
    proto = type(space.model.proto)()
    proto.copy_from(space.model.proto)
    indices = [e.index for e in exprs]
    with _BUILT_LOCK:
        _BUILT[shape] = (proto, len(space.x), indices, list(coefficients))
        if len(_BUILT) > _BUILT_KEPT:
            _BUILT.popitem(last=False)


def _again(
    p: Prepared,
    table: ClusterTable,
    want: int,
    cells: dict[int, list[int]],
    order: list[int],
    kept: tuple[object, int, list[int], list[int]],
) -> Space:
    """`build`'s model from a kept one of its shape: the proto copied, a boolean per row at its
    place (the rows cell by cell in `order`, as `build` makes them), the clusters' terms (every
    boolean, coefficient 1, as modes adds them) and the spread's (the kept variables and
    coefficients); then the concepts that add terms alone."""
    proto, count, indices, coefficients = kept
    space = Space(p, table, want, cells)
    model = space.model.proto
    model.copy_from(proto)
    variable = sat_module().IntVar
    rows = [r for cell in order for r in cells[cell]]
    space.x = dict(zip(rows, map(variable, repeat(model), range(count)), strict=True))
    picks = list(space.x.values())
    space.add("clusters", picks, [1] * len(picks))
    space.add("spread", [variable(model, i) for i in indices], list(coefficients))
    for plugin in PLUGINS:
        if plugin not in SHAPED:
            plugin.contribute(space)
    return space


@dataclass(slots=True)
class SearchRun:
    picks: list[int] | None  # None when no stage found an answer
    optimal: bool
    cut: tuple[list[int], int] | None  # the stage a limit cut, with CP-SAT's bound on it
    time_limited: bool
    solve_seconds: float


def stages(spans: tuple[int, ...]) -> list[list[int]]:
    """Consecutive levels grouped so that each group's combined range stays exact."""
    groups: list[list[int]] = []
    current: list[int] = []
    width = 1
    for i, span in enumerate(spans):
        if current and width * (span + 1) > _STAGE_LIMIT:
            groups.append(current)
            current, width = [], 1
        current.append(i)
        width *= span + 1
    groups.append(current)
    return groups


def stage_weights(spans: tuple[int, ...], stage: list[int]) -> list[int]:
    weights = []
    for i in stage:
        weight = 1
        for j in stage:
            if j > i:
                weight *= spans[j] + 1
        weights.append(weight)
    return weights


# The stage solves made lately that CP-SAT proved optimal, by what was solved (_stage_key), with
# the booleans' values (in `rows` order) and the objective it found. With one worker and nothing
# random but the seed, such a solve is a function of what the key holds alone (the wall-clock
# limit only cuts: a cut solve is not OPTIMAL and is not kept). A long-lived scheduler's Balance
# search asks a request's best response again and again across its batches, its first stages
# (clusters, spread: no score) the same model each time.
_SOLVED: OrderedDict[bytes, tuple[bytes, int]] = OrderedDict()
_SOLVED_KEPT = 1024  # the oldest go first
_SOLVED_LOCK = threading.Lock()  # searches run on threads too (solver.api._search_in_parallel)


def _text(proto) -> bytes:
    """A proto's text, the bytes a stage key hashes (ortools' pybind protos have no binary
    serializer)."""
    return str(proto).encode()


def _stage_key(model, indices: tuple[int, ...], seed: int, budget: float, last: tuple | None = None) -> bytes:
    """What a stage solve reads, as a SHA-256 digest (the text is some 40 kB a model): the
    model's proto as text (its variables, constraints, the stage's objective and the hint), the
    booleans' places in it, the seed and the deterministic budget (every other parameter is
    run's own constant, but the wall-clock limit).

    A later stage of the same run (`last`: the previous stage's key and its numbers of variables
    and constraints) is keyed by the previous stage's key, the constraints appended since, the
    objective and the hint, each text with its length: run changes nothing else of the model
    between stages (it appends the previous stage's objective as a constraint and replaces the
    objective and the hint), so these name the stage's whole model as its text would, and the
    variables and constraints (~90% of the text) are not formatted again. Where a variable was
    added since, the whole text is hashed."""
    proto = model.proto
    if last is not None and last[1] == len(proto.variables):
        digest = hashlib.sha256(b"after\0" + last[0])
        parts = [proto.constraints[i] for i in range(last[2], len(proto.constraints))]
        for part in (*parts, proto.objective, proto.solution_hint):
            text = _text(part)
            digest.update(b"%d\0" % len(text))
            digest.update(text)
    else:
        digest = hashlib.sha256(b"model\0" + _text(proto))
    digest.update(repr((indices, seed, budget)).encode())
    return digest.digest()


def _hint(model, indices: tuple[int, ...], rows: list[int], chosen: set[int]) -> None:
    """The booleans hinted, `rows` order, in two appends: the hint `Model.add_hint` makes one
    boolean a call (the booleans are new variables, never negated: their places are their
    indices)."""
    hint = model.proto.solution_hint
    hint.vars.extend(indices)
    hint.values.extend([1 if r in chosen else 0 for r in rows])


def _solved(key: bytes) -> tuple[bytes, int] | None:
    with _SOLVED_LOCK:
        found = _SOLVED.get(key)
        if found is not None:
            _SOLVED.move_to_end(key)
        return found


def _remember(key: bytes, found: tuple[bytes, int]) -> None:
    with _SOLVED_LOCK:
        _SOLVED[key] = found
        if len(_SOLVED) > _SOLVED_KEPT:
            _SOLVED.popitem(last=False)


def _forked() -> None:
    """A forked child's own lock and an empty store: a thread of its parent may have held the
    lock, or been moving the store, when it forked."""
    global _SOLVED_LOCK, _BUILT_LOCK
    _SOLVED_LOCK = threading.Lock()
    _SOLVED.clear()
    _BUILT_LOCK = threading.Lock()
    _BUILT.clear()


os.register_at_fork(after_in_child=_forked)


def run(
    space: Space, scale: Scale, hint: list[int], *, seed: int, budget: float, deadline: float
) -> SearchRun:
    model, x = space.model, space.x
    rows = space.rows
    indices = tuple(x[r].index for r in rows)  # the booleans' places in the model, in `rows` order
    _hint(model, indices, rows, set(hint))
    sat = sat_module()
    solver = sat.Solver()
    solver.parameters.num_workers = 1  # deterministic; these models are small
    # Presolve costs more than it saves on models this small (measured: 1.9 s against 3.8 s for
    # the 216 stage solves of a 10,000 x 2,000 fleet).
    solver.parameters.cp_model_presolve = False
    solver.parameters.random_seed = cp_seed(seed)
    best: list[int] | None = None
    solve_seconds = 0.0
    plan = stages(scale.spans)
    last = None  # the previous stage's key and the model's numbers of variables and constraints then
    for number, stage in enumerate(plan):
        remaining = deadline - time.perf_counter()
        if remaining <= 0:
            return SearchRun(best, False, (stage, _unsolved_bound(scale, stage)), True, solve_seconds)
        solver.parameters.max_time_in_seconds = remaining
        solver.parameters.max_deterministic_time = budget
        weights = stage_weights(scale.spans, stage)
        objective = sat.LinearExpr.weighted_sum([space.level(i) for i in stage], weights)
        model.maximize(objective)
        key = _stage_key(model, indices, solver.parameters.random_seed, budget, last)
        last = (key, len(model.proto.variables), len(model.proto.constraints))
        found = _solved(key)
        if found is not None:  # solved before: its optimum, nothing solved again
            status, (taken, value) = sat.OPTIMAL, found
            best = [r for r, on in zip(rows, taken, strict=True) if on]
        else:
            started = time.perf_counter()
            status = solver.solve(model)
            solve_seconds += time.perf_counter() - started
            if status not in (sat.OPTIMAL, sat.FEASIBLE):
                limited = solver.wall_time >= remaining * 0.99
                return SearchRun(best, False, (stage, _unsolved_bound(scale, stage)), limited, solve_seconds)
            solution = list(solver.response_proto.solution)  # the booleans read at their places
            taken = bytes([solution[i] for i in indices])
            best = [r for r, on in zip(rows, taken, strict=True) if on]
            value = round(solver.objective_value)
            if status == sat.OPTIMAL:
                _remember(key, (taken, value))
        if status == sat.FEASIBLE:
            limited = solver.wall_time >= remaining * 0.99
            return SearchRun(best, False, (stage, round(solver.best_objective_bound)), limited, solve_seconds)
        if number + 1 < len(plan):
            model.add(objective == value)
            model.clear_hints()
            _hint(model, indices, rows, set(best))
    return SearchRun(best, True, None, False, solve_seconds)


def _unsolved_bound(scale: Scale, stage: list[int]) -> int:
    """The stage's raw objective at most: every level at the top of its span, unshifted."""
    weights = stage_weights(scale.spans, stage)
    return sum(w * (scale.spans[i] - scale.offsets[i]) for i, w in zip(stage, weights, strict=True))
