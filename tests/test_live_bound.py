"""The proven bound asked or not (issue 21: solver.api.SolveOptions.bound). A solve asked without
it gives the same answer (decisions, scores, results, objective) and reports its bound and gaps as
not asked; the work that proves only the bound (the Balance ceilings, least shortfalls and joint
tightening) is not done. The long-lived scheduler asks its batches without it unless its caller
asks (HubScheduler's `bounds`): nothing in its deltas carries a bound."""

from __future__ import annotations

import importlib
from dataclasses import replace
from datetime import datetime, timedelta

import pytest

import solver.api
from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.kube.manifests import from_objects
from adapters.live.hub import HubScheduler
from adapters.ocm.load import load
from bench.hub_soak import _World
from model import Batch, SolveStats
from solver import SolveOptions, solve
from tests.fixtures.builders import batch, cluster, pick_n, spread
from tests.fixtures.common import counted_calls
from tests.fixtures.live import spy_on_events

NOW = datetime.fromisoformat(DEFAULT_NOW)
# Every function whose work proves only the bound, by its module (where the solve reads it).
BOUND_ONLY = (
    ("solver.balance", "ceiling"),
    ("solver.balance", "at_least"),
    ("solver.balance", "tighten"),
    ("solver.api", "bound_shortfalls"),
)


def _counted(monkeypatch) -> dict[str, list[tuple]]:
    return {name: counted_calls(monkeypatch, importlib.import_module(m), name) for m, name in BOUND_ONLY}


def _event_batches(seed: int, events: int) -> list[Batch]:
    """The whole hub's batch, then the batches a generated hub's live events solve."""
    objects = generate("ocm", 40, 60, seed=seed, now=NOW)
    whole, _ = load(from_objects(objects, "<hub>"), now=NOW, seed=0)
    hub = HubScheduler(objects, now=NOW, options=SolveOptions(mode="greedy"))
    spy, _ = spy_on_events(hub, "ocm", "ocm", seed, events, NOW)
    return [whole, *(taken.batch for taken, _ in spy.taken if taken.batch.requests)]


@pytest.mark.parametrize("seed", [1, 4])
def test_a_solve_without_the_bound_gives_the_same_answer_and_proves_nothing(monkeypatch, seed) -> None:
    batches = _event_batches(seed, 25)
    calls = _counted(monkeypatch)
    for taken in batches:
        on = solve(taken, SolveOptions(time_limit=1000))
        asked = {name: len(c) for name, c in calls.items()}
        off = solve(taken, SolveOptions(time_limit=1000, bound=False))
        assert {name: len(c) for name, c in calls.items()} == asked, "bound-only work done unasked"
        assert off.requests == on.requests
        assert off.stats.objective == on.stats.objective
        assert [lv.objective for lv in off.stats.levels] == [lv.objective for lv in on.stats.levels]
        assert (off.stats.bound, off.stats.gap, off.stats.status) == (None, None, "FEASIBLE")
        assert all(lv.bound is None and lv.gap is None for lv in off.stats.levels)
        assert on.stats.bound is not None
    assert len(batches) > 10 and calls["ceiling"] and calls["tighten"]  # the batches coupled some


def test_greedy_mode_reads_no_bound_asked_or_not() -> None:
    for taken in _event_batches(2, 10):
        on = solve(taken, SolveOptions(mode="greedy"))
        off = solve(taken, SolveOptions(mode="greedy", bound=False))
        assert off.requests == on.requests and _untimed(off.stats) == _untimed(on.stats)


def _untimed(stats: SolveStats) -> SolveStats:
    return replace(stats, wall_seconds=0.0, build_seconds=0.0, solve_seconds=0.0)


def _deltas(hub: HubScheduler, seed: int, events: int) -> list[tuple]:
    world, at, out = _World("ocm", hub, seed), NOW, [(hub.initial.apply, hub.initial.delete)]
    for _ in range(events):
        at += timedelta(seconds=15)
        delta = hub.handle(world.next(at)[1], now=at)
        out.append((delta.apply, delta.delete, delta.requests))
    return out


def test_the_live_scheduler_asks_no_bound_unless_asked_and_writes_the_same(monkeypatch) -> None:
    objects = generate("ocm", 40, 60, seed=5, now=NOW)
    options = SolveOptions(time_limit=1000)
    asked = HubScheduler(objects, now=NOW, options=options, bounds=True)
    assert asked.outcome["ocm"].summary["bound"] is not None
    with_bounds = _deltas(asked, 5, 30)
    calls = _counted(monkeypatch)
    hub = HubScheduler(objects, now=NOW, options=options)  # bounds off, whatever options says
    assert hub.options.bound is False and hub.outcome["ocm"].summary["bound"] is None
    assert _deltas(hub, 5, 30) == with_bounds
    assert not any(calls.values())


def test_a_search_left_unproven_asks_no_shortfalls_without_the_bound(monkeypatch) -> None:
    """A request no coupling holds, whose search's bound is above its answer (a budget cut, here
    made so): its least shortfalls prove only the bound."""
    searched = solver.api.solve_spread

    def unproven(*args, **kwargs):
        outcome = searched(*args, **kwargs)
        return replace(outcome, bound=outcome.bound + 1, status="FEASIBLE")

    monkeypatch.setattr(solver.api, "solve_spread", unproven)
    clusters = [cluster(f"c{i}", {"zone": f"z{i % 3}", "rack": f"r{i % 2}"}) for i in range(9)]
    request = pick_n(4, spread=(spread("zone"), spread("rack")))
    calls = counted_calls(monkeypatch, solver.api, "bound_shortfalls")
    on = solve(batch(clusters, request), SolveOptions(threads=1))
    assert on.stats.bound == on.stats.objective + 1 and len(calls) == 1
    off = solve(batch(clusters, request), SolveOptions(threads=1, bound=False))
    assert off.requests == on.requests and off.stats.bound is None and len(calls) == 1
