"""The long-lived scheduler's own promises (adapters/live/hub.py), whatever the system: an event's
delta says when the wall clock cut a search of a batch it solved."""

from __future__ import annotations

from datetime import datetime, timedelta

from adapters.generate.common import DEFAULT_NOW
from adapters.generate.hubs import generate
from adapters.live import hub as hub_module
from adapters.live.hub import HubScheduler
from bench.hub_soak import _World, render, run_hub_soak
from solver import SolveOptions


def _cut_and_said(options: SolveOptions, events: int, monkeypatch) -> tuple[list[bool], list[bool], bool]:
    """Per event of an OCM soak stream, whether a batch it solved was cut by the wall clock (the
    solver's own stats) and whether its delta says so; and the first solve's `initial` flag."""
    cut = [False]  # the first solve's settling rounds solve batches too
    original = hub_module.solve

    def solve(batch, opts):
        result = original(batch, opts)
        cut[-1] |= result.stats.time_limited
        return result

    monkeypatch.setattr(hub_module, "solve", solve)
    now = datetime.fromisoformat(DEFAULT_NOW)
    hub = HubScheduler(generate("ocm", 40, 60, seed=1, now=now), now=now, options=options)
    world = _World("ocm", hub, 1)
    said = []
    for _ in range(events):
        now += timedelta(seconds=15)
        _, event, _ = world.next(now)
        cut.append(False)
        said.append(hub.handle(event, now=now).time_limited)
    return cut[1:], said, hub.initial.time_limited


def test_an_event_says_when_the_wall_clock_cut_its_batch(monkeypatch) -> None:
    """With a wall-clock limit every search outruns, each event whose batch the solver reports
    cut says so in its delta (and so does the first solve); with the default limit on this small
    hub none is cut and none says so."""
    cut, said, initial = _cut_and_said(SolveOptions(time_limit=1e-9), 30, monkeypatch)
    assert sum(cut) >= 5  # the limit did cut searches
    assert said == cut
    assert initial
    cut, said, initial = _cut_and_said(SolveOptions(), 10, monkeypatch)
    assert not any(cut) and said == cut and not initial


def test_the_soak_counts_the_events_the_wall_clock_cut() -> None:
    """The soak lists the events whose batch the wall clock cut (the first solve as event 0) and
    says so beside its digest; with no cut, it says that."""
    cut = run_hub_soak("ocm", events=12, check_every=12, time_limit=1e-9)
    assert cut.time_limited[:1] == [0] and len(cut.time_limited) >= 4
    assert f"the wall clock cut a batch of {len(cut.time_limited)} event(s)" in render([cut])
    whole = run_hub_soak("ocm", events=12, check_every=12)
    assert whole.time_limited == [] and "no batch was cut by the wall clock" in render([whole])


def test_fleets_scheduler_says_when_the_wall_clock_cut_a_batch(monkeypatch) -> None:
    """FleetScheduler's delta carries the hub's flag: with every batch reported cut, a placement
    created says so; with none, a placement written again does not."""
    from dataclasses import replace

    from adapters.live.incremental import FleetScheduler, PlacementChanged

    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("fleet", 12, 16, seed=1, now=now)
    placement = next(o for o in objects if o["kind"] == "ClusterResourcePlacement")
    scheduler = FleetScheduler(objects, now=now)
    original = hub_module.solve
    assert not scheduler.handle(PlacementChanged(placement), now=now).time_limited

    def cut(batch, options):
        result = original(batch, options)
        return replace(result, stats=replace(result.stats, time_limited=True))

    monkeypatch.setattr(hub_module, "solve", cut)
    copy = {"apiVersion": placement["apiVersion"], "kind": placement["kind"], "spec": placement["spec"]}
    copy["metadata"] = {"name": placement["metadata"]["name"] + "-copy"}
    delta = scheduler.handle(PlacementChanged(copy), now=now + timedelta(seconds=1))
    assert delta.placements and delta.time_limited


def test_the_first_solve_says_when_the_wall_clock_cut_it(monkeypatch) -> None:
    """The first, full solve (the pipeline's, not a batch of the hub's own) says so in `initial`
    when the wall clock cut it, though no later batch was."""
    from dataclasses import replace

    original = hub_module.solve

    def uncut(batch, options):
        result = original(batch, options)
        return replace(result, stats=replace(result.stats, time_limited=False))

    monkeypatch.setattr(hub_module, "solve", uncut)
    now = datetime.fromisoformat(DEFAULT_NOW)
    objects = generate("ocm", 40, 60, seed=1, now=now)
    assert HubScheduler(objects, now=now, options=SolveOptions(time_limit=1e-9)).initial.time_limited
