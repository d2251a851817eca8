"""solve(batch) -> Result: both modes, with statistics."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field, fields, replace
from functools import partial

import numpy as np

from model import Batch, LevelStats, RequestResult, Result, SelectionMode, SolveStats, added_levels
from solver.balance import MAX_SWEEPS, Balance, coupled_requests
from solver.coupling import decide
from solver.greedy import explain_top_n, solve_greedy
from solver.objective import LevelSums, Scale, bound_shortfalls, combine, evaluate, scale_of
from solver.optimal import SearchOutcome, closed_form, finish, solve_spread
from solver.prepare import Prepared, prepare
from solver.progress import Progress, Report
from solver.solution import Solution, pick_order, to_result
from solver.table import ClusterTable

__all__ = ["SolveOptions", "solve", "MODES"]

MODES = ("optimal", "greedy")


@dataclass(frozen=True, slots=True)
class SolveOptions:
    mode: str = "optimal"
    time_limit: float = 10.0  # wall seconds for the whole batch; searches past it fall back to greedy
    seed: int = 0
    # Work units CP-SAT may spend per model: bounds the search reproducibly, unlike the wall clock.
    deterministic_budget: float = 5.0
    # Threads running CP-SAT searches side by side; the answers are the same for any number.
    threads: int = field(default_factory=lambda: min(4, os.cpu_count() or 1))
    # Called as the solve goes (solver.progress.Progress); never changes an answer.
    progress: Report | None = field(default=None, compare=False)
    # In optimal mode, also give upstream's greedy answer (Result.greedy), from the greedy hints
    # the solve computes anyway and, where it computed none, from greedy run on its prepared
    # requests; never changes an answer.
    beside_greedy: bool = False
    # In optimal mode, the proven bound and gaps asked (the stats' bound, gap and level bounds,
    # and the work that proves only them: the Balance ceilings, least shortfalls and joint
    # tightening). False: the answer alone, its bound and gaps reported as not asked (None) and
    # its status FEASIBLE (nothing proven); never a different answer.
    bound: bool = True
    # Greedy mode only: each request decided alone against the batch as it stands, every other
    # request holding what it holds (none of the batch's answers moves the load another sees):
    # each answer is the request's own sync against that picture, not a batch's. Scored requests
    # only (Balance's coupling). Used to judge answers (a long-lived scheduler's first margins), never
    # to write one: a request under spread reports no cluster left out (its picks and their scores
    # are what a judge reads of a spread's run; the last cycle's report of every candidate scored
    # cost as much as the run), the same picks; and no coupled request's objective is evaluated
    # or scaled (its value and its levels' spans count 0 in the stats: each answer is judged, not
    # measured). A top N whose scores read a sorter reports its best cluster left out alone (its
    # picks and that one are what a judge reads: its totals are no cluster's own), the same picks.
    alone: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"unknown mode {self.mode!r}; expected one of {', '.join(MODES)}")
        if self.alone and self.mode != "greedy":
            raise ValueError("alone is a greedy mode's option")
        if self.time_limit <= 0:
            raise ValueError("time limit must be positive")


def _needs_search(p: Prepared) -> bool:
    return p.request.mode is SelectionMode.N and bool(p.request.spread) and p.request.count > p.present


def _signature(p: Prepared) -> int | tuple:
    """What requests with the same answer share: the first such request's index, where prepare
    found it (hashed once), else the signature itself."""
    return p.request.signature() if p.twin is None else p.twin


def _search(
    p: Prepared,
    table: ClusterTable,
    options: SolveOptions,
    limit: int,
    deadline: float,
    scale: Scale | None = None,
    greedy: Callable[[], Solution] | None = None,
):
    return solve_spread(
        p,
        table,
        scale or scale_of(p, table),
        greedy or partial(solve_greedy, p, table, limit),
        limit,
        seed=options.seed,
        deterministic_budget=options.deterministic_budget,
        deadline=deadline,
    )


def _search_in_parallel(
    prepared: list[Prepared],
    table: ClusterTable,
    options: SolveOptions,
    limit: int,
    deadline: float,
    coupled: set[int],
    hints: _Hints,
) -> dict[int | tuple, Future[SearchOutcome]]:
    """The CP-SAT searches (several spread constraints that do not nest), on all cores. CP-SAT
    releases the GIL while it searches, and each model is solved alone and deterministically, so the
    answers do not depend on how many threads ran them. Closed forms hold the GIL: on a thread they
    only slow the main one down."""
    todo: dict[int | tuple, Prepared] = {}
    for i, p in enumerate(prepared):
        if _needs_search(p) and i not in coupled and not closed_form(p, table):
            todo.setdefault(_signature(p), p)
    if len(todo) < 2 or options.threads < 2:
        return {}

    # Submitted now, collected when needed: the main thread meanwhile solves everything else.
    pool = ThreadPoolExecutor(max_workers=options.threads)
    futures = {
        signature: pool.submit(_search, p, table, options, limit, deadline, None, hints.greedy(signature, p))
        for signature, p in todo.items()
    }
    pool.shutdown(wait=False)
    return futures


class _Hints:
    """The greedy answers a solve computes as its searches' hints, by request signature, kept
    where the caller asked for greedy's answer beside the optimal one (SolveOptions.beside_greedy)."""

    def __init__(self, table: ClusterTable, limit: int, keep: bool) -> None:
        self.table, self.limit, self.keep = table, limit, keep
        self.solutions: dict[int | tuple, Solution] = {}

    def greedy(self, signature: int | tuple, p: Prepared) -> Callable[[], Solution]:
        """A search's hint: greedy's answer, kept when asked."""
        if not self.keep:
            return partial(solve_greedy, p, self.table, self.limit)
        return partial(self.answer, signature, p)

    def answer(self, signature: int | tuple, p: Prepared) -> Solution:
        """Greedy's answer to the request, computed once (searches on threads ask for distinct
        signatures)."""
        found = self.solutions.get(signature)
        if found is None:
            found = self.solutions[signature] = solve_greedy(p, self.table, self.limit)
        return found


class _Runs:
    """Greedy's unexplained answers (limit 0) within one optimal solve of coupled requests, by
    request, each with the scores it was asked on: asked again on the same scores, the answer
    found is given again (greedy reads nothing else of a request, and the table is the solve's).
    A batch of one coupled request asks greedy three times on one set of scores: its greedy pass,
    its search's hint (or its best response, where greedy's is that) and the settle's greedy run
    (solver.balance `_greedy_run_holds`); about a third of a cluster event's greedy asks in its
    final batch were such repeats. At most _RUNS_UP_TO answers kept (each keeps its scores)."""

    __slots__ = ("table", "known", "kept", "closed")

    def __init__(self, table: ClusterTable) -> None:
        self.table = table
        self.known: dict[int, list[tuple[Prepared, Solution]]] = {}  # by id(request): the batch holds each
        self.kept = 0
        self.closed = False  # cleared: nothing kept any more

    def answer(self, q: Prepared) -> Solution:
        """solve_greedy(q, table, 0), or the answer to an earlier ask on the same scores."""
        found = self.known.get(id(q.request))
        if found is not None:
            for p, solution in found:
                if _same_scores(p, q):
                    return solution
        solution = solve_greedy(q, self.table, 0)
        if self.kept < _RUNS_UP_TO and not self.closed:
            self.known.setdefault(id(q.request), []).append((q, solution))
            self.kept += 1
        return solution

    def clear(self) -> None:
        """Every answer let go, none kept after: the settle has reported them all, and no
        request's scores of every cluster are kept past it."""
        self.known.clear()
        self.closed = True


_RUNS_UP_TO = 64  # answers `_Runs` keeps per solve (each with a request's scores of every cluster)


def _same_scores(p: Prepared, q: Prepared) -> bool:
    """Whether two asks of one request are the same to greedy: every field the same object (as
    Prepared.scored_as shares them), and the scores equal, value for value and of one dtype."""
    if p is q:
        return True
    if any(getattr(p, f) is not getattr(q, f) for f in _SHARED_FIELDS):
        return False
    a, b = p.affinity, q.affinity
    return a is b or (a.dtype == b.dtype and a.shape == b.shape and bool(np.array_equal(a, b)))


_SHARED_FIELDS = tuple(f.name for f in fields(Prepared) if f.name != "affinity")


def solve(batch: Batch, options: SolveOptions | None = None) -> Result:
    options = options or SolveOptions()
    if options.alone and any(r.replicas is not None or r.tenancy is not None for r in batch.requests):
        raise ValueError("alone judges scored requests only (no replicas, no tenancy)")
    if any(r.replicas is not None for r in batch.requests):
        result = _solve_with_replicas(batch, options)
    elif any(r.tenancy is not None for r in batch.requests):
        result = _solve_with_tenancy(batch, options)
    else:
        return _solve_scored(batch, options)  # asks no bound-only work when not asked
    return result if options.bound else _unproven(result)


def _unproven(result: Result) -> Result:
    """The result with its bound and gaps not asked (SolveOptions.bound): the replica and tenancy
    paths still prove them, and only the report drops them."""
    stats = result.stats
    if stats.mode != "optimal":
        return result
    levels = tuple(LevelStats.of(level.name, level.objective, None) for level in stats.levels)
    return replace(result, stats=replace(stats, status="FEASIBLE", bound=None, gap=None, levels=levels))


def _solve_with_replicas(batch: Batch, options: SolveOptions) -> Result:
    """Requests that divide replicas (solver.replicas) beside the others; one result in batch
    order."""
    from solver.replicas.capacity import solve_capacity

    started = time.perf_counter()
    divided = [r for r in batch.requests if r.replicas is not None]
    # Through the capacity coupling in both modes: optimal solves the batch jointly, greedy is
    # upstream's answer, measured on the same levels.
    deadline = started + options.time_limit
    joint = dict(seed=options.seed, budget=options.deterministic_budget, deadline=deadline)
    results, stats = solve_capacity(batch, divided, mode=options.mode, **joint)
    others = tuple(r for r in batch.requests if r.replicas is None)
    if others:
        rest = solve(replace(batch, requests=others), options)
        order = {r.key: i for i, r in enumerate(batch.requests)}
        results = sorted([*results, *rest.requests], key=lambda got: order[got.request])
        stats = _joined(stats, rest.stats)
    return Result(tuple(results), replace(stats, wall_seconds=time.perf_counter() - started))


def _solve_with_tenancy(batch: Batch, options: SolveOptions) -> Result:
    """Tenancy requests (solver.tenancy) beside scored ones; one result in batch order."""
    from solver.tenancy import solve_tenancy

    started = time.perf_counter()
    tenancy = [r for r in batch.requests if r.tenancy is not None]
    results, stats = solve_tenancy(
        batch,
        tenancy,
        mode=options.mode,
        seed=options.seed,
        budget=options.deterministic_budget,
        deadline=started + options.time_limit,
    )
    scored = tuple(r for r in batch.requests if r.tenancy is None)
    if scored:
        rest = _solve_scored(replace(batch, requests=scored), options)
        order = {r.key: i for i, r in enumerate(batch.requests)}
        results = sorted([*results, *rest.requests], key=lambda got: order[got.request])
        stats = _joined(stats, rest.stats)
    return Result(tuple(results), replace(stats, wall_seconds=time.perf_counter() - started))


def _joined(a: SolveStats, b: SolveStats) -> SolveStats:
    statuses = {a.status, b.status}
    proven = a.bound is not None and b.bound is not None
    objective = a.objective + b.objective
    bound = a.bound + b.bound if proven else None
    return SolveStats(
        mode=a.mode,
        status="GREEDY" if "GREEDY" in statuses else ("OPTIMAL" if statuses == {"OPTIMAL"} else "FEASIBLE"),
        objective=objective,
        bound=bound,
        gap=None if bound is None else (bound - objective) / max(1, abs(objective)),
        build_seconds=a.build_seconds + b.build_seconds,
        solve_seconds=a.solve_seconds + b.solve_seconds,
        time_limited=a.time_limited or b.time_limited,
        models=a.models + b.models,
        levels=added_levels(a.levels, b.levels),
    )


def _reported(p: Prepared, limit: int, options: SolveOptions) -> int:
    """The clusters left out a greedy answer reports: none for a spread judged alone
    (SolveOptions.alone), whose picks are the same whatever the report (solver.greedy's
    `_spread_cycles` picks its last cycle by cells where nothing is explained); the best one
    alone for a top N judged alone whose scores read a sorter (the same picks: `solve_top_n`
    reports the candidates it did not pick in pick order, best first, after choosing them; a
    judge reads such an answer's picks and its best cluster left out, its totals being no
    cluster's own)."""
    if not options.alone:
        return limit
    request = p.request
    if request.spread:
        return 0
    if any(pref.sorter is not None for pref in request.preferences):
        return min(limit, 1)
    return limit


def _solve_scored(batch: Batch, options: SolveOptions) -> Result:
    started = time.perf_counter()
    deadline = started + options.time_limit
    report = options.progress or _silent
    table = ClusterTable(batch)
    prepared = prepare(batch, table)
    build_seconds = time.perf_counter() - started
    total = len(prepared)
    report(Progress("filtered", 0, total, build_seconds))
    solve_seconds = 0.0
    limit = batch.explain_limit

    objective = bound = 0
    statuses: set[str] = set()
    time_limited = False
    models = 0
    results: list[RequestResult | None] = [None] * len(prepared)
    solutions: dict[int, Solution] = {}
    ordered: set[str] = set()  # Result.ordered, where the batch asked (Batch.ordered)
    coupled = coupled_requests(prepared)
    is_coupled = set(coupled)
    # Greedy's answer beside the optimal one: each request's greedy answer where optimal's is not
    # greedy's own (its search's hint, or greedy run now); none where a coupling decides jointly.
    hints = _Hints(table, limit, options.beside_greedy and options.mode == "optimal" and not coupled)
    beside: list[RequestResult | None] = [None] * len(prepared)
    searched = (
        _search_in_parallel(prepared, table, options, limit, deadline, is_coupled, hints)
        if options.mode == "optimal"
        else {}
    )
    # Requests that ask for the same thing from the same state have the same answer: solve once.
    solved: dict[int | tuple, tuple[Solution, int, int, tuple[int, ...], tuple[int, ...], tuple | None]] = {}
    sums = LevelSums()
    done = 0
    for i, p in enumerate(prepared):  # the requests no coupling holds: each a part of its own
        if i in is_coupled:
            continue  # decided together below, once the others' answers are known
        done += 1
        if done % 256 == 0:
            report(Progress("deciding", done, total, time.perf_counter() - started, objective))
        signature = _signature(p)
        if signature not in solved:
            scale = scale_of(p, table)
            if options.mode == "optimal" and _needs_search(p):
                future = searched.get(signature)
                outcome = (
                    future.result()
                    if future is not None
                    else _search(p, table, options, limit, deadline, scale, hints.greedy(signature, p))
                )
                chosen, values, part_bound = outcome.solution, outcome.values, outcome.bound
                build_seconds += outcome.build_seconds
                solve_seconds += outcome.solve_seconds
                time_limited |= outcome.time_limited
                statuses.add(outcome.status)
                models += outcome.searched
            else:
                # No search needed (or greedy asked for): the greedy answer, measured by the
                # same objective; where it needs no search it is also the optimum.
                chosen = solve_greedy(p, table, _reported(p, limit, options))
                values = evaluate(p, table, scale, chosen.kept, chosen.picks)
                part_bound = combine(values, scale.spans)
            value = combine(values, scale.spans)
            request_bound = max(part_bound, value)
            least = (
                None
                if request_bound == value or not options.bound
                else bound_shortfalls(values, request_bound, scale.spans)
            )
            solved[signature] = (chosen, value, request_bound, values, scale.spans, least)
        chosen, value, request_bound, values, spans, least = solved[signature]
        objective += value
        bound += request_bound
        sums.add(values, spans, least)
        solutions[i] = chosen
        results[i] = to_result(p, table, chosen)
        if hints.keep:  # where no search ran, the answer is greedy's own
            searched_here = options.mode == "optimal" and _needs_search(p)
            beside[i] = to_result(p, table, hints.answer(signature, p)) if searched_here else results[i]

    if coupled:
        started_coupled = time.perf_counter()

        # Optimal mode: greedy's unexplained answers on scores asked again within this solve
        # (`_Runs`: the greedy pass, a search's hint, a best response, the settle's greedy run).
        runs = _Runs(table) if options.mode == "optimal" else None

        def greedy(q: Prepared) -> Solution:
            # In optimal mode greedy's answer is where the search starts, and what is reported is
            # explained once settled: explaining it here too would be thrown away.
            if runs is not None:
                return runs.answer(q)
            return solve_greedy(q, table, _reported(q, limit, options))

        def best_response(q: Prepared, scale: Scale) -> tuple[Solution, int]:
            """The request's own optimum with the others fixed, and its proven bound; unexplained
            (the search asks many times, and only the last answer is reported)."""
            nonlocal models, time_limited
            assert runs is not None  # optimal mode's
            if _needs_search(q):
                outcome = _search(q, table, options, 0, deadline, scale, greedy=partial(runs.answer, q))
                models += outcome.searched
                time_limited |= outcome.time_limited
                statuses.add(outcome.status)
                return outcome.solution, outcome.bound
            chosen = runs.answer(q)
            return chosen, combine(evaluate(q, table, scale, chosen.kept, chosen.picks), scale.spans)

        def explain(q: Prepared, chosen: Solution) -> Solution:
            """The report of an answer the search settled on, against the final scores."""
            if not chosen.scheduled:
                return chosen
            if q.request.spread:
                return finish(q, table, chosen.picks, limit)
            picks = [int(r) for r in pick_order(q, table, np.asarray(chosen.picks, dtype=np.int64))]
            return replace(chosen, picks=picks, unselected=explain_top_n(q, table, picks, limit))

        def sweep(number: int, value: int) -> None:
            report(Progress("balance", number, MAX_SWEEPS, time.perf_counter() - started, objective + value))

        balance = Balance(
            prepared,
            table,
            coupled,
            solutions,
            greedy,
            best_response if options.mode == "optimal" else None,
            explain,
            deadline=deadline,
            on_sweep=sweep,
            settled=None if runs is None else runs.clear,
            bound=options.bound,
            # best_response answers a request needing no search with greedy's own solve (limit 0)
            greedy_is_best=lambda q: not _needs_search(q),
            alone=options.alone,
            ordered=batch.ordered and options.mode == "optimal",
        )
        for part, answer in decide(balance, options.mode == "optimal"):
            for i, settled in balance.settle(part, answer).items():
                objective += settled.value
                bound += settled.bound
                sums.add(settled.values, settled.spans, settled.least)
                results[i] = settled.result
                if settled.ordered:
                    ordered.add(settled.result.request)
        time_limited |= balance.time_limited
        solve_seconds += time.perf_counter() - started_coupled

    proven = options.mode == "optimal" and options.bound
    if options.mode == "greedy":
        status = "GREEDY"
    elif not proven or statuses - {"OPTIMAL"} or bound > objective:
        status = "FEASIBLE"
    else:
        status = "OPTIMAL"
    gap = (bound - objective) / max(1, abs(objective)) if proven else None
    report(
        Progress(
            "done",
            total,
            total,
            time.perf_counter() - started,
            objective,
            bound if proven else None,
            time_limited,
        )
    )
    stats = SolveStats(
        mode=options.mode,
        status=status,
        objective=objective,
        bound=bound if proven else None,
        gap=gap,
        wall_seconds=time.perf_counter() - started,
        build_seconds=build_seconds,
        solve_seconds=solve_seconds,
        time_limited=time_limited,
        models=models,
        levels=sums.stats(proven),
    )
    greedy = tuple(r for r in beside if r is not None) if hints.keep else None
    return Result(tuple(r for r in results if r is not None), stats, greedy, frozenset(ordered))


def _silent(_: Progress) -> None:
    pass
