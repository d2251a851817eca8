"""The whole pipeline as a library call: objects in, objects to write out.

    from adapters.pipeline import schedule
    outcome = schedule(objects, now=now)            # objects: parsed Kubernetes objects (dicts)
    outcome.apply, outcome.delete, outcome.summary

Each system's adapter reads the objects of its own kinds; the solver sees only the neutral batch.
"""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from adapters import fleet
from adapters.manifests import Manifest, from_objects
from model import Batch, Result
from solver import SolveOptions, check, solve

__all__ = ["Outcome", "paused_gc", "schedule", "schedule_manifests", "summary_of"]


@dataclass(frozen=True, slots=True)
class Outcome:
    apply: list[dict[str, Any]]
    delete: list[dict[str, str]]
    batch: Batch
    result: Result
    summary: dict[str, Any]


def schedule(
    objects: Iterable[dict[str, Any]],
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    verify: bool = True,
) -> Outcome:
    """Schedule every placement among `objects` (as `kubectl get -o json` items would give them)."""
    return schedule_manifests(from_objects(objects, "<objects>"), now=now, options=options, verify=verify)


def schedule_manifests(
    manifests: Sequence[Manifest],
    *,
    now: datetime | None = None,
    options: SolveOptions | None = None,
    verify: bool = True,
) -> Outcome:
    options = options or SolveOptions()
    now = now or datetime.now(UTC).replace(microsecond=0)
    with paused_gc():
        batch, context = fleet.load(list(manifests), now=now, seed=options.seed)
        result = solve(batch, options)
        if verify:
            problems = check(batch, result)
            if problems:  # a solver defect, never an input problem
                raise AssertionError("the checker rejected the result:\n" + "\n".join(problems))
        emitted = fleet.emit(context, result)
    return Outcome(emitted.apply, emitted.delete, batch, result, summary_of(batch, result))


@contextmanager
def paused_gc() -> Iterator[None]:
    """No cyclic garbage collection while a batch is built and written: the pipeline allocates
    hundreds of thousands of long-lived objects and makes no cycles, so the collector's repeated
    full passes over them are pure cost (up to a third of emit's time on large hubs)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def summary_of(batch: Batch, result: Result) -> dict[str, Any]:
    stats = result.stats
    return {
        "mode": stats.mode,
        "status": stats.status,
        "objective": stats.objective,
        "bound": stats.bound,
        "gap": None if stats.gap is None else round(stats.gap, 9),
        "wall_seconds": round(stats.wall_seconds, 4),
        "build_seconds": round(stats.build_seconds, 4),
        "solve_seconds": round(stats.solve_seconds, 4),
        "time_limited": stats.time_limited,
        "models": stats.models,
        "requests": len(batch.requests),
        "clusters": len(batch.clusters),
        "unsatisfied": sum(1 for r in result.requests if not r.satisfied),
    }
