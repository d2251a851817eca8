"""The whole pipeline as a library call: objects in, objects to write out.

    from adapters.run.pipeline import schedule
    outcome = schedule(objects, now=now)            # objects: parsed Kubernetes objects (dicts)
    outcome.apply, outcome.delete, outcome.summary

Every object goes to the adapter of the system that owns its kind (adapters.registry); each system
present is loaded, solved, checked and emitted as its own batch, and the outputs are joined. The
solver sees only neutral batches. With ``verify`` (the default) the independent checker
(solver.check) runs, for a large batch beside emit in a forked child where the process allows it
(adapters.run.forked), and an AssertionError names its problems: a solver defect, never an input
problem. On a large input of one system that child also judges every object's metadata, which the
registry otherwise judges before the load (_judged_beside): bad metadata is still the one error,
before any other the run finds.
"""

from __future__ import annotations

import functools
import marshal
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeVar

from adapters.contract import PartCosts
from adapters.errors import InputError
from adapters.kube.manifests import Manifest, from_objects, json_lead_list, orjson_items, write_json
from adapters.registry import (
    adapter,
    emit_part,
    first_misjudged,
    judge_one,
    owned_by,
    reads,
    remember_judged,
    routed,
    system,
)
from adapters.run import forked
from adapters.run.changes import Key, changed_against, inputs_by_key, plan_of
from adapters.run.heap import paused_gc
from model import Batch, LevelStats, Result, SolveStats, added_levels
from solver import SolveOptions, check, solve

T = TypeVar("T")

__all__ = [
    "NO_INPUT",
    "NotSeparable",
    "Outcome",
    "SystemOutcome",
    "paused_gc",
    "plan_shared",
    "schedule",
    "schedule_manifests",
    "schedule_part",
    "schedule_rendered",
    "summary_of",
]


@dataclass(frozen=True, slots=True)
class SystemOutcome:
    """One system's batch and its result; `placements` and `unsatisfied` where the system's own
    status counts differently from the neutral result (adapters.contract.Emitted)."""

    system: str
    batch: Batch
    result: Result
    placements: tuple[str, ...] | None = None
    unsatisfied: tuple[str, ...] | None = None

    def counts(self) -> dict[str, int]:
        """Placements, clusters and unsatisfied placements, as the system counts them."""
        unsatisfied = self.unsatisfied
        if unsatisfied is None:
            unsatisfied = tuple(r.request for r in self.result.requests if not r.satisfied)
        placements = len(self.batch.requests) if self.placements is None else len(self.placements)
        return {"requests": placements, "clusters": len(self.batch.clusters), "unsatisfied": len(unsatisfied)}


@dataclass(frozen=True, slots=True)
class Outcome:
    """What to write. An object written back unchanged may be the input object itself, and
    objects share unchanged parts with the input: treat them as read-only (copy to change)."""

    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    parts: tuple[SystemOutcome, ...]
    summary: dict[str, Any]

    @property
    def batch(self) -> Batch:
        """The batch, when the input held one system's placements (or none)."""
        return self._single().batch

    @property
    def result(self) -> Result:
        """The result, when the input held one system's placements (or none)."""
        return self._single().result

    def _single(self) -> SystemOutcome:
        if len(self.parts) == 1:
            return self.parts[0]
        if not self.parts:
            stats = SolveStats(mode=self.summary["mode"], status=self.summary["status"])
            return SystemOutcome("", Batch((), ()), Result((), stats))
        raise ValueError(f"the input held {len(self.parts)} systems; read Outcome.parts")

    def requests(self) -> Iterator[tuple[str, Any]]:
        """(system, RequestResult) for every placement of every system, in output order."""
        for part in self.parts:
            for got in part.result.requests:
                yield part.system, got


def schedule(
    objects: Iterable[dict[str, Any]],
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    verify: bool = True,
    config: Mapping[str, Any] | None = None,
) -> Outcome:
    """Schedule every placement among `objects` (as `kubectl get -o json` items would give them);
    objects of kinds no system reads are ignored, unvalidated. `config` is the scheduler config
    document of the systems that read one (openMCP's operator config, with its `scheduler:`
    block); None: none given (openMCP then refuses ClusterRequests: its scheduler does not start
    without its config)."""
    manifests = from_objects(objects, "<objects>", reads=reads)
    return schedule_manifests(manifests, now=now, options=options, verify=verify, config=config)


def schedule_manifests(
    manifests: Sequence[Manifest],
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    verify: bool = True,
    config: Mapping[str, Any] | None = None,
) -> Outcome:
    return schedule_rendered(manifests, None, now=now, options=options, verify=verify, config=config)[0]


# A command's output: text, or a writer passing its bytes to its argument in pieces.
Rendered = str | bytes | Callable[[Callable[[bytes], object]], None]


def schedule_rendered(
    manifests: Sequence[Manifest],
    render: Callable[[Outcome], Rendered] | None,
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    verify: bool = True,
    config: Mapping[str, Any] | None = None,
) -> tuple[Outcome, Rendered | None]:
    """schedule_manifests's outcome and its output, render(outcome) (None: no render). Where the
    checker's child judges a large input beside emit (:func:`_judged_beside`), the output is
    made while it does, before its verdict, and held: a writer's bytes are passed to the writer
    returned, and nothing of it is returned unless the verdict passes (the errors are
    schedule_manifests's). Elsewhere render is asked once the outcome is checked, as a command
    asked it before."""
    options = options or SolveOptions()
    now = now or datetime.now(UTC).replace(microsecond=0)
    manifests = list(manifests)
    with paused_gc():
        if verify and len(manifests) >= _JUDGE_BESIDE and forked.workers() > 1:
            judged = _judged_beside(manifests, now, options, config, render)
            if judged is not None:
                return judged
        outcome = _each_system(manifests, now, options, verify, config)
    return outcome, None if render is None else render(outcome)


def _each_system(
    manifests: list[Manifest],
    now: datetime,
    options: SolveOptions,
    verify: bool,
    config: Mapping[str, Any] | None,
) -> Outcome:
    """Every system's objects judged (registry.owned_by), loaded, solved, checked and emitted in
    turn. Every system is loaded (and so validated) before anything is solved: bad input anywhere
    fails the whole run with nothing written."""
    apply: list[dict[str, Any]] = []
    delete: list[dict[str, str]] = []
    parts: list[SystemOutcome] = []
    loaded = [_load(name, owned, now, options, config) for name, owned in owned_by(manifests).items()]
    for name, batch, context in loaded:
        emitted, part = _solved(name, batch, context, options, verify, beside=True)
        apply += emitted.apply
        delete += emitted.delete
        parts.append(part)
    summary = summary_of_parts(parts) if parts else _nothing_solved(options.mode)
    return Outcome(apply, delete, tuple(parts), summary)


# Below this many objects the registry's checks take a few hundredths of a second: made here first.
_JUDGE_BESIDE = 20_000


def _load(
    name: str, owned: list[Manifest], now: datetime, options: SolveOptions, config: Mapping[str, Any] | None
) -> tuple[str, Batch, Any]:
    return (name, *adapter(name).load(owned, now=now, seed=options.seed, **_configured(name, config)))


def _judged_beside(
    manifests: list[Manifest],
    now: datetime,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
    render: Callable[[Outcome], Rendered] | None,
) -> tuple[Outcome, Rendered | None] | None:
    """One system's input loaded before the registry's checks of its objects' metadata
    (adapters.registry.owned_by), judged by a forked child while it is loaded and solved (forked
    beside the loader's own: _solved_unjudged), then checked by another, the checker's,
    while this process emits; None where the input is not one system's. Exact: owned_by's error
    comes before every other, so where anything fails (the load, say) or the child finds bad
    metadata, owned_by is asked here and gives its error first. The distinct labels and
    annotation keys are judged first (registry.remember_judged), so the loaders take each object's
    metadata at a glance as after owned_by. The output (`render`) is made meanwhile too, and
    held (:func:`_held`): the command writes it once the verdict passes."""
    solved = _solved_unjudged(manifests, now, options, config, judged_early=True)
    if solved is None:
        return None
    owned, name, batch, context, result, judged = solved
    checks = forked.background(_judged_and_checked, (None, batch, result, None))
    emitted = _unless_failed(manifests, (judged, checks), lambda: adapter(name).emit(context, result))
    outcome = _outcome_of(name, batch, result, emitted)
    if render is not None:
        rendered = _unless_failed(manifests, (judged, checks), lambda: _held(render(outcome)))
    _judgement(manifests, owned, name, checks, judged)
    return outcome, None if render is None else rendered


def _held(rendered: Rendered) -> Rendered:
    """An output made now: text as it is; a writer's bytes taken in (its forked children's
    too), to be passed on by the writer returned."""
    if isinstance(rendered, (str, bytes)):
        return rendered
    pieces: list[bytes] = []
    rendered(pieces.append)
    return functools.partial(_write_pieces, pieces)


def _write_pieces(pieces: list[bytes], write: Callable[[bytes], object]) -> None:
    for piece in pieces:
        write(piece)


def _solved_unjudged(
    manifests: list[Manifest],
    now: datetime,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
    *,
    judged_early: bool = False,
) -> tuple[Mapping[str, list[Manifest]], str, Batch, Any, Result, forked.Pending | None] | None:
    """The input routed (registry.routed), its metadata remembered, loaded and solved: (routed,
    the system, batch, context, result, the metadata's verdict under way: `judged_early`, a
    forked child's, forked beside the loader's own or at the load's end, :func:`_misjudged`;
    else None); None where it is not one system's. Where anything fails, owned_by's error
    first."""
    try:
        owned = routed(manifests)
    except InputError:
        owned_by(manifests)  # owned_by's error, which may be an earlier system's metadata
        raise
    if len(owned) != 1:
        return None
    ((name, objects),) = owned.items()
    judged = None
    try:
        remember_judged(owned)
        # Forked beside the loader's own child where it forks one (the OCM load's CEL child),
        # else once the batch is loaded: a fork write-protects every page of this process, whose
        # next writes each fault (about 45,000 faults, 0.1 to 0.15 CPU s of the solve at OCM
        # 10,000 x 2,000, forked at its start); two forks back to back cost one round of them.
        judged = forked.beside_next(_misjudged, owned) if judged_early else None
        _, batch, context = _load(name, objects, now, options, config)
        if judged is not None:
            judged.start()
        return owned, name, batch, context, solve(batch, options), judged
    except Exception:
        if judged is not None:
            judged.cancel()
        owned_by(manifests)  # bad metadata is the error, as it is before any load
        raise


def _unless_failed(
    manifests: list[Manifest], children: Sequence[forked.Pending | None], work: Callable[[], T]
) -> T:
    """work(), with the children stopped and owned_by's error first where it fails."""
    try:
        return work()
    except Exception:
        for child in children:
            if child is not None:
                child.cancel()
        owned_by(manifests)
        raise


def _judgement(
    manifests: list[Manifest],
    owned: Mapping[str, list[Manifest]],
    name: str,
    checks: forked.Pending,
    judged: forked.Pending | None = None,
) -> Any:
    """The children's verdict (:func:`_misjudged` where `judged`, :func:`_judged_and_checked`):
    owned_by's error where it names an object, the checker's problems where there are any, else
    what the checker's child made beside."""
    misjudged = None if judged is None else marshal.loads(judged.result())
    if misjudged is None:
        misjudged, problems, made = marshal.loads(checks.result())
    else:
        checks.cancel()
        problems, made = b"", None
    if misjudged is not None:
        judge_one(owned, *misjudged)
        owned_by(manifests)  # (the object alone passed here, which it cannot: every check, as ever)
    _raise_problems(name, problems)
    return made


def _outcome_of(name: str, batch: Batch, result: Result, emitted: Any) -> Outcome:
    part = SystemOutcome(name, batch, result, emitted.placements, emitted.unsatisfied)
    return Outcome(emitted.apply, emitted.delete, (part,), summary_of_parts([part]))


def _misjudged(owned: Mapping[str, list[Manifest]]) -> bytes:
    """Where the registry refuses an object's metadata first (adapters.registry.first_misjudged;
    None: nowhere), packed by marshal."""
    return marshal.dumps(first_misjudged(owned))


def _judged_and_checked(task: tuple[Mapping[str, list[Manifest]] | None, Batch, Result, Any]) -> bytes:
    """Where the registry refuses an object's metadata first (adapters.registry.first_misjudged;
    not asked where `owned` is None: judged already); where it refuses none, the checker's
    problems (:func:`_problems`); where there are none and the task holds a plan's share
    (:func:`plan_shared`), that share (:func:`_share_planned`): packed by marshal."""
    owned, batch, result, share = task
    misjudged = None if owned is None else first_misjudged(owned)
    if misjudged is not None:
        return marshal.dumps((misjudged, b"", None))
    problems = _problems((batch, result))
    return marshal.dumps((None, problems, _share_planned(*share) if share and not problems else None))


def plan_shared(
    manifests: Sequence[Manifest],
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    config: Mapping[str, Any] | None = None,
) -> Callable[[Callable[[bytes], object]], None] | None:
    """The writer of `-o plan`'s document (adapters.run.changes.plan_of's, as write_json writes
    it) for a large input, where the process may fork; None where it is small, or may not, with
    nothing done, or where it holds no system's objects (schedule_manifests and plan_of make it
    then). For one system's input, as :func:`_judged_beside`, and, where its emit makes a part of
    its objects (adapters.contract.System.emit_part), the checker's child,
    once it has judged the metadata and passed the result, emits the last share of the objects,
    compares them with the input and makes their text, while this process emits, compares and
    makes the first (all of them, where the child's share would be too small: _LEAST_SHARE):
    plan_of's document byte for byte (where orjson writes every piece; else the child's share is
    made again here), written only once the child's verdict passes."""
    options = options or SolveOptions()
    now = now or datetime.now(UTC).replace(microsecond=0)
    manifests = list(manifests)
    if len(manifests) < _JUDGE_BESIDE or forked.workers() < 2:
        return None
    with paused_gc():
        solved = _solved_unjudged(manifests, now, options, config)
        if solved is None:  # several systems, or none
            outcome = _each_system(manifests, now, options, True, config)
            return (
                _Kept(functools.partial(write_json, plan_of(outcome, manifests)), outcome)
                if outcome.parts
                else None
            )
        owned, name, batch, context, result, _ = solved
        inputs = inputs_by_key(manifests)  # before the fork: both processes compare with it
        costs = system(name).part_costs
        part, child = emit_part(name), _child_share(costs, len(manifests), len(batch.requests))
        if part is None:  # emitted whole (here, before the verdict, as the rest of the plan)
            part, child = functools.partial(_whole, adapter(name).emit), 0.0
        split = 1.0 if child < _LEAST_SHARE else 1.0 - child
        share = (part, context, result, inputs, split, 1.0) if split < 1.0 else None
        checks = forked.background(_judged_and_checked, (owned, batch, result, share))
        emitted = _unless_failed(manifests, (checks,), lambda: part(context, result, 0.0, split))
        changed, unchanged = changed_against(emitted.apply, inputs)
        pieces = orjson_items([obj for _, obj in changed])
        theirs = _judgement(manifests, owned, name, checks)
    if share is None:
        theirs = (0, 0, b"")
    summary = _outcome_of(name, batch, result, emitted).summary
    if theirs[2] is not None and pieces is not None:
        summary = {**summary, "changed": len(changed) + theirs[0], "unchanged": unchanged + theirs[1]}
        write_document = json_lead_list("apply", {"delete": emitted.delete, "summary": summary})
        if write_document is not None:
            kept = (batch, context, result, emitted, changed, inputs)
            return _Kept(functools.partial(write_document, [pieces, [theirs[2]]]), kept)
    # The child's share made again here: json writes some piece.
    their_changed, their_unchanged = [], 0
    if share is not None:
        their_changed, their_unchanged = changed_against(part(context, result, split, 1.0).apply, inputs)
    apply = [obj for _, obj in changed + their_changed]
    summary = {**summary, "changed": len(apply), "unchanged": unchanged + their_unchanged}
    document = {"apply": apply, "delete": emitted.delete, "summary": summary}
    kept = (batch, context, result, emitted, changed, inputs)
    return _Kept(functools.partial(write_json, document), kept)


@dataclass(frozen=True, slots=True)
class _Kept:
    """A writer of an output, and the objects the run made, kept as long as it is: the command
    keeps its writer to its end (adapters.cli.main), as it keeps an Outcome, so that they are not
    released one by one before the output is written (kcp v0.5: 0.18 s)."""

    write: Callable[[Callable[[bytes], object]], None]
    kept: Any

    def __call__(self, write: Callable[[bytes], object]) -> None:
        self.write(write)


# Below this share the child's would cost it more than it spares this process (it works out
# every write, and kcp v0.5 judges every Namespace, to make its few): it only judges and checks,
# and this process makes the whole plan meanwhile, before the verdict.
_LEAST_SHARE = 0.1


def _whole(emit: Callable[[Any, Result], Any], context: Any, result: Result, start: float, end: float) -> Any:
    """A system's emit, as an emit_part of the whole: (start, end) is (0, 1)."""
    return emit(context, result)


def _child_share(costs: PartCosts | None, objects: int, requests: int) -> float:
    """The fraction of a plan's objects the checker's child makes (the last), so that it ends
    about when this process does, its verdict first: an estimate from the counts, by the system's
    costs (adapters.contract.PartCosts); none without them."""
    if costs is None:
        return 0.0
    verdict = costs.judged * objects + costs.checked * requests
    work = costs.planned * objects
    return min(0.5, max(0.0, 0.5 - verdict / (2 * work)))


def _share_planned(
    part: Callable[..., Any],
    context: Any,
    result: Result,
    inputs: Mapping[Key, Mapping[str, Any]],
    start: float,
    stop: float,
) -> tuple[int, int, bytes | None]:
    """The objects the system emits from fraction `start` to `stop` of them (its emit_part),
    compared with the input objects by key (adapters.run.changes.changed_against): how many
    changed, how many did not, and the changed ones' text as orjson writes a List's items (None
    where json must write one)."""
    emitted = part(context, result, start, stop)
    changed, unchanged = changed_against(emitted.apply, inputs)
    pieces = orjson_items([obj for _, obj in changed])
    return len(changed), unchanged, None if pieces is None else b"".join(pieces)


class NotSeparable(Exception):
    """A part's placements are coupled (model.Batch.separable): it cannot be solved on its own."""


def schedule_part(
    name: str,
    manifests: list[Manifest],
    *,
    now: datetime,
    options: SolveOptions,
    config: Mapping[str, Any] | None,
) -> Outcome:
    """One part of a system's input (adapters.contract.Adapter.cut), scheduled on its own: as
    :func:`schedule_manifests` would the system's input, in this process only (the parts use
    the cores). NotSeparable when its batch is coupled, before anything is solved."""
    with paused_gc():
        batch, context = adapter(name).load(
            manifests, now=now, seed=options.seed, **_configured(name, config)
        )
        if not batch.separable:
            raise NotSeparable(name)
        emitted, part = _solved(name, batch, context, options, verify=True, beside=False)
    return Outcome(emitted.apply, emitted.delete, (part,), summary_of_parts([part]))


def _solved(
    name: str, batch: Batch, context: Any, options: SolveOptions, verify: bool, *, beside: bool
) -> tuple[Any, SystemOutcome]:
    """Solve, check and emit one system's batch: (what its adapter emitted, the outcome)."""
    result = solve(batch, options)
    # A large batch is checked beside emit, by a forked child where this process may fork
    # (adapters.run.forked; the command's own process may); else here once emit is done.
    # Nothing is returned, so nothing written, unless the checker passes.
    beside = beside and verify and len(batch.requests) * len(batch.clusters) >= _CHECK_BESIDE
    verdict = forked.background(_problems, (batch, result)) if beside else None
    emitted = adapter(name).emit(context, result)
    if verify:
        _raise_problems(name, verdict.result() if verdict else _problems((batch, result)))
    return emitted, SystemOutcome(name, batch, result, emitted.placements, emitted.unsatisfied)


# Below this many request-cluster pairs the checker takes milliseconds: not worth a fork.
_CHECK_BESIDE = 1_000_000


def _problems(solved: tuple[Batch, Result]) -> bytes:
    """The independent checker's problems with a result (solver.check), one per line."""
    return "\n".join(check(*solved)).encode("utf-8")


def _raise_problems(name: str, problems: bytes) -> None:
    if problems:  # a solver defect, never an input problem
        raise AssertionError(f"the checker rejected the {name} result:\n" + problems.decode("utf-8"))


def _configured(name: str, config: Mapping[str, Any] | None) -> dict[str, Any]:
    """The config argument, for the systems that read one."""
    return {"config": config} if system(name).config_read is not None else {}


def summary_of(part: SystemOutcome) -> dict[str, Any]:
    """The summary of one system's solve."""
    return _summary(part.result.stats, part.counts())


def _summary(stats: SolveStats, counts: Mapping[str, int]) -> dict[str, Any]:
    return {
        "mode": stats.mode,
        "status": stats.status,
        "objective": stats.objective,
        "bound": stats.bound,
        "gap": None if stats.gap is None else round(stats.gap, 9),
        "levels": _levels(stats.levels),
        "wall_seconds": round(stats.wall_seconds, 4),
        "build_seconds": round(stats.build_seconds, 4),
        "solve_seconds": round(stats.solve_seconds, 4),
        "time_limited": stats.time_limited,
        "models": stats.models,
        **counts,
    }


def _levels(levels: Sequence[LevelStats]) -> list[dict[str, Any]]:
    """Each lexicographic level (most important first, every one minimised): its value, the
    lower bound proven on it (None: not proven) and the gap between them."""
    return [
        {
            "name": level.name,
            "objective": level.objective,
            "bound": level.bound,
            "gap": None if level.gap is None else round(level.gap, 9),
        }
        for level in levels
    ]


_STATUS_ORDER = ("OPTIMAL", "GREEDY", "FEASIBLE")
# The status of a run whose input holds no object of any system: nothing was solved.
NO_INPUT = "NO_INPUT"


def _nothing_solved(mode: str) -> dict[str, Any]:
    """The summary of a run with no system's objects: the mode asked for, status NO_INPUT, no
    bound (nothing was proven), zero of everything else."""
    stats = SolveStats(mode=mode, status=NO_INPUT)
    return {**summary_of(SystemOutcome("", Batch((), ()), Result((), stats))), "systems": {}}


def summary_of_parts(parts: Sequence[SystemOutcome]) -> dict[str, Any]:
    """One summary over every system's solve (at least one): totals, plus the counts of each system."""
    if len(parts) == 1:
        summary = summary_of(parts[0])
    else:
        each = [summary_of(p) for p in parts]
        objective = sum(s["objective"] for s in each)
        bounds = [s["bound"] for s in each]
        bound = None if any(b is None for b in bounds) else sum(bounds)
        statuses = [s["status"] for s in each]
        summary = {
            "mode": each[0]["mode"],
            "status": max(statuses, key=_STATUS_ORDER.index),
            "objective": objective,
            "bound": bound,
            "gap": None if bound is None else round((bound - objective) / max(1, abs(objective)), 9),
            "levels": _levels(functools.reduce(added_levels, (p.result.stats.levels for p in parts))),
            **{
                k: round(sum(s[k] for s in each), 4)
                for k in ("wall_seconds", "build_seconds", "solve_seconds")
            },
            "time_limited": any(s["time_limited"] for s in each),
            **{k: sum(s[k] for s in each) for k in ("models", "requests", "clusters", "unsatisfied")},
        }
    summary["systems"] = {p.system: p.counts() for p in parts}
    return summary


def summary_of_cut(summaries: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The summary one batch of a system's input would have, from the summaries of the parts it
    was cut into (adapters.run.parts: each part's placements solved on their own, every cluster
    read by each), timings aside; None where the parts' figures cannot tell it exactly. Each
    request's levels, objective and bound are its own, so they add up; the status is the worst
    part's (a part is FEASIBLE where one of its requests is). A request solved once for every
    request asking the same (solver.api) may be searched in two parts where one batch searched it
    once, so the models add up only where at most one part searched any. Every part reads every
    cluster: their counts must agree."""
    (name,) = {system for s in summaries for system in s["systems"]}
    if sum(1 for s in summaries if s["models"]) > 1 or len({s["clusters"] for s in summaries}) != 1:
        return None
    objective = sum(s["objective"] for s in summaries)
    bounds = [s["bound"] for s in summaries]
    bound = None if any(b is None for b in bounds) else sum(bounds)
    levels = (
        tuple(LevelStats.of(v["name"], v["objective"], v["bound"]) for v in s["levels"]) for s in summaries
    )
    stats = SolveStats(
        mode=summaries[0]["mode"],
        status=max((s["status"] for s in summaries), key=_STATUS_ORDER.index),
        objective=objective,
        bound=bound,
        gap=None if bound is None else (bound - objective) / max(1, abs(objective)),
        wall_seconds=sum(s["wall_seconds"] for s in summaries),
        build_seconds=sum(s["build_seconds"] for s in summaries),
        solve_seconds=sum(s["solve_seconds"] for s in summaries),
        time_limited=any(s["time_limited"] for s in summaries),
        models=sum(s["models"] for s in summaries),
        levels=functools.reduce(added_levels, levels),
    )
    counts = {
        "requests": sum(s["requests"] for s in summaries),
        "clusters": summaries[0]["clusters"],
        "unsatisfied": sum(s["unsatisfied"] for s in summaries),
    }
    return {**_summary(stats, counts), "systems": {name: counts}}
